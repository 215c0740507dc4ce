"""The task store Cline, Roo Code and Kilo Code share: JSON files in an editor's globalStorage.

Not a source itself: `cline`, `roo` and `kilo` each bind one `TaskStore` to their
extension id. Each task is `<editor user dir>/User/globalStorage/<extension id>/tasks/<id>/`
with `ui_messages.json` (what the user saw, one `{ts, type: say|ask, say|ask, text}` per
message), `api_conversation_history.json` (what the model was sent), `task_metadata.json`
(models used) and, in Roo-style stores, `history_item.json`; Cline keeps the history list
in `state/taskHistory.json`, the Kilo CLI 0.x in `global-state.json` (`taskHistory`, its
VS Code global state). Every file is rewritten whole on each change.

Roo-style sub-tasks (`newTask`) are linked by the parent's `childIds` in its history
item; Kilo Code 4.x/5.x keeps no history item, and the only link its files hold is the
line its parent's model is sent when the sub-task ends: "Subtask <id> completed." in
`api_conversation_history.json` (ClineProvider's reopenParentFromDelegation).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol, Unpack

import orjson

from .. import files, folders
from ..diagnostics import Diagnostics, odd_in
from ..model import Event, EventKind, JSONValue, Session, Usage
from ._values import (
    Emitter,
    EventFields,
    as_int,
    file_size,
    first_line,
    json_copy,
    ms_time,
    odd_count,
    stripped,
)
from .base import Home, Location

# Editors built on VS Code whose user folders may hold these extensions.
EDITORS = (
    "Code",
    "Code - Insiders",
    "Code - OSS",
    "VSCodium",
    "VSCodium - Insiders",
    "Cursor",
    "Windsurf",
    "Antigravity",
    "Kiro",
    "Trae",
    "Positron",
    "Void",
)
# Where Electron keeps the editors' user folders: Linux (`XDG_CONFIG_HOME`, else this),
# macOS, Windows. All are looked in: a copied home may come from any of them, and a Mac
# often has a `~/.config` too (other tools write there), which the editors never use.
CONFIG_BASES = (".config", "Library/Application Support", "AppData/Roaming")
# What VS Code and its forks put before the platform's folder (`getUserDataPath`):
# `$VSCODE_PORTABLE/user-data` (portable mode; its terminal passes the variable on) and
# `$VSCODE_APPDATA/<product>`, on every OS.
EDITOR_VARIABLES = ("VSCODE_APPDATA", "VSCODE_PORTABLE")


def config_bases(home: Home) -> list[Path]:
    """The folders the editors' user folders may be in, `$VSCODE_APPDATA` first when set,
    then Linux's (`$XDG_CONFIG_HOME` when set, as Electron resolves it), macOS's and
    Windows'."""
    bases = [home.path / base for base in CONFIG_BASES]
    xdg = home.env_dir("XDG_CONFIG_HOME")
    if xdg is not None:
        bases[0] = xdg
    appdata = home.env_dir("VSCODE_APPDATA")
    if appdata is not None and appdata not in bases:
        bases.insert(0, appdata)
    return bases


# Remote and server installs keep the same tree under the home, not the config folder.
SERVER_DIRS = (
    ".vscode-server/data",
    ".vscode-server-insiders/data",
    ".vscode-remote/data",
    ".cursor-server/data",
    ".windsurf-server/data",
    ".vscodium-server/data",
    ".vscodium-server-insiders/data",
    ".antigravity-server/data",
    ".var/app/com.visualstudio.code/config/Code",  # Flatpak VS Code
    ".var/app/com.vscodium.codium/config/VSCodium",  # Flatpak VSCodium
    ".local/share/code-server",  # code-server
    ".openvscode-server/data",
)
HEAD_BYTES = (
    64 * 1024
)  # read from the start of ui_messages.json / api history for listing
TAIL_BYTES = 4 * 1024  # read from the end of ui_messages.json for the last time stamp
JSON_CAP = 64 * 1024 * 1024  # a bigger JSON document is never parsed whole
WHOLE_CAP = files.WHOLE_JSON_CAP  # a bigger task file is read one message at a time
SMALL_CAP = 4 * 1024 * 1024  # metadata and history item files
CHILD_DEPTH = 3  # sub-task levels read into a parent's events

# a stamp its message goes on after: the digits of one the file's end cuts are no time
_TS = re.compile(rb'"ts"\s*:\s*(\d{10,})(?=\s*[,}])')
_CWD = re.compile(r"Current (?:Working|Workspace) Directory \(([^)\n]+)\)")
# Roo writes the model only into the environment details it sends ("# Current Mode").
_MODEL = re.compile(r"<model>([^<\n]{1,200})</model>")

# ui message kinds that carry nothing a reader of the session needs (UI state, retries,
# progress, warnings); everything else is translated or counted as unknown.
IGNORED = frozenset(
    {
        "api_req_retried", "api_req_retry_delayed", "api_req_rate_limit_wait", "api_req_rate_limited",
        "checkpoint_created", "checkpoint_saved", "shell_integration_warning",
        "shell_integration_warning_with_suggestion", "info", "task_progress", "hook_status",
        "hook_output_stream", "mcp_notification", "load_mcp_documentation", "clineignore_error",
        "rooignore_error", "too_many_tools_warning", "conditional_rules_applied", "partial_tool_result",
        "state_snapshot", "generate_explanation", "user_edit_todos", "image", "hook", "hook_output",
        "mcp_server_request_started", "resume_task", "resume_completed_task",
        "auto_approval_max_req_reached", "status_acknowledgment", "change_todo_list", "report_bug",
        "codebase_search_result", "payment_required_prompt",
        "browser_session_status", "checkpoint_restore",
    }
)  # fmt: skip
_SUBAGENT_ITEMS = 64  # use_subagents' sub-agents read per call, at most
ERRORS = frozenset(
    {
        "error", "error_retry", "api_req_failed", "mistake_limit_reached", "diff_error",
        "condense_context_error", "command_permission_denied", "invalid_model",
        "request_limit_reached",  # Claude Dev 1.x's ask at its max requests per task
    }
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class TaskStore:
    """One extension's tasks, in every editor that has it installed."""

    app: str
    extension_ids: tuple[str, ...]
    # Folders under the home that hold `tasks/` themselves, written by hosts other than
    # the editor (a CLI, a JetBrains plugin); an environment variable may name one.
    data_dirs: tuple[str, ...] = ()
    data_env: tuple[tuple[str, str], ...] = ()  # (variable, the part below it)
    # The editor setting that moves the tasks (`roo-cline.customStoragePath`).
    storage_setting: str | None = None

    def locate(self, home: Home) -> Location:
        """The editors' config folder (`XDG_CONFIG_HOME` on Linux, as Electron resolves it),
        and the remote-server and standalone folders under the home."""
        also = [home.path / server for server in SERVER_DIRS]
        for variable, below in self.data_env:
            value = home.env_dir(variable)
            if value is not None:
                also.append(value / below if below else value)
                break
        else:
            also += [home.path / folder for folder in self.data_dirs]
        portable = home.env_dir("VSCODE_PORTABLE")
        if portable is not None:  # a folder with User/ in it, as a server install's
            also.append(portable / "user-data")
        value = home.env_dir("XDG_CONFIG_HOME")
        bases = config_bases(home)
        existing = [base for base in bases if folders.is_dir(base)]
        root = existing[0] if existing else bases[0]
        for base in existing[1:]:  # the other platforms' user folders, editor by editor
            also += [base / editor for editor in EDITORS]
        for base in existing or [root]:
            also += self._chosen_storage(home, base)
        said = [
            f"{name}={home.environ[name]}"
            for name, given in (
                ("VSCODE_PORTABLE", portable),
                ("VSCODE_APPDATA", home.env_dir("VSCODE_APPDATA")),
                ("XDG_CONFIG_HOME", value),
            )
            if given is not None
        ]
        override = ", ".join(said) or None
        also = list(dict.fromkeys(also))
        # the config folder is every program's: only the editors' folders in it are kept
        owned = (*(root / editor for editor in EDITORS), *also)
        return Location(root, override=override, also=tuple(also), owned=owned)

    def _chosen_storage(self, home: Home, config: Path) -> list[Path]:
        """Folders the editors' settings name for the tasks (`customStoragePath`)."""
        if self.storage_setting is None:
            return []
        pattern = re.compile(
            rb'"'
            + re.escape(self.storage_setting.encode())
            + rb'"\s*:\s*("(?:[^"\\]|\\.)*")'
        )
        chosen = []
        settings = []
        for editor in EDITORS:
            user = config / editor / "User"
            settings.append(user / "settings.json")
            for profile in folders.entries(user / "profiles", config):  # named profiles
                settings.append(Path(profile.path) / "settings.json")
        for path in settings:
            data = files.read_small(path, 4 << 20)
            found = pattern.search(data) if data else None  # JSONC: no whole parse
            try:
                value = files.loads(found.group(1)) if found else None
            except orjson.JSONDecodeError:
                value = None
            if isinstance(value, str) and value.strip():
                path = Path(value.strip())
                if value.startswith("~/"):
                    path = home.path / value.strip()[2:]
                if path.is_absolute() and path not in chosen:
                    chosen.append(path)
        return chosen

    def storage_dirs(self, location: Location) -> list[Path]:
        """Every `globalStorage/<extension id>` folder that exists, in a stable order."""
        users = [location.root / editor for editor in EDITORS]
        direct = []
        for folder in location.also:  # a server install, or a folder holding tasks/
            if folders.is_dir(folder / "User"):
                users.append(folder)
            elif folders.is_dir(folder / "tasks"):
                direct.append(folder)
        found = []
        for user in users:
            for extension in self.extension_ids:
                folder = user / "User" / "globalStorage" / extension
                if folders.is_dir(folder):
                    found.append(folder)
        return found + direct

    def found(self, location: Location) -> bool:
        """Whether the extension left a folder of its own: its storage in an editor or a
        remote server, or a folder of tasks; an editor's config folder alone is not."""
        return bool(self.storage_dirs(location))

    def scan(self, location: Location) -> Iterator[Path]:
        if not location.exists:
            return
        for storage in self.storage_dirs(location):
            for history in (storage / "state" / "taskHistory.json", storage / _STATE):
                if folders.is_file(history):
                    yield history
            for task in folders.entries(storage / "tasks", storage):
                if not task.is_dir():
                    continue
                names = {
                    entry.name: Path(entry.path)
                    for entry in folders.entries(Path(task.path), storage)
                }
                # Claude Dev (Cline before 2.0) named it claude_messages.json; Cline
                # renames it only when the task is opened again (disk.ts)
                found = names.get("ui_messages.json") or names.get(_LEGACY_MESSAGES)
                if found is not None:
                    yield found
                    yield from (names[n] for n in COMPANIONS if n in names)

    def companion_of(self, path: str) -> str | None:
        """The ui_messages.json whose listing a file beside it changes (its folder, title
        and model): the task is read again when one of them changes alone."""
        folder, base = os.path.split(path)
        if (
            base not in COMPANIONS
            or os.path.basename(os.path.dirname(folder)) != "tasks"
        ):
            return None
        return os.path.join(folder, "ui_messages.json")

    def parse(self, path: Path, diagnostics: Diagnostics) -> list[Session]:
        if path.name in ("taskHistory.json", _STATE):
            return self._parse_history(path, diagnostics)
        if path.name in COMPANIONS:  # read with the task's messages (`companion_of`)
            return []
        return self._parse_task(path, diagnostics)

    def _parse_history(self, path: Path, diagnostics: Diagnostics) -> list[Session]:
        """A history list (Cline's, the Kilo CLI's global state): titles, folders, models
        and sub-task links for tasks the task folders list."""
        items = files.read_json_counted(path, JSON_CAP, diagnostics)
        if isinstance(items, dict):  # the Kilo CLI's global state holds the list
            items = items.get("taskHistory")
        if not isinstance(items, list):
            return []
        sessions = []
        for item in items:
            if not isinstance(item, dict) or not isinstance(item.get("id"), str):
                continue
            children = item.get("childIds")
            extra: dict[str, JSONValue] = {}
            if isinstance(children, list):
                extra["children"] = list(_child_ids(children))
            sessions.append(
                Session(
                    app=self.app,
                    id=item["id"],
                    path=str(path),
                    cwd=stripped(item.get("cwdOnTaskInitialization"))
                    or stripped(item.get("workspace")),
                    title=first_line(
                        stripped(item.get("title")) or stripped(item.get("task"))
                    ),
                    updated=ms_time(item.get("ts")),
                    model=stripped(item.get("modelId")),
                    parent_id=stripped(item.get("parentTaskId")),
                    precedence=-1,  # the task folder's own files say it better
                    listed=False,
                    extra=extra,
                )
            )
        return sessions

    def _parse_task(self, path: Path, diagnostics: Diagnostics) -> list[Session]:
        """One task: head and tail of ui_messages.json, and its small sibling files."""
        folder = path.parent
        try:
            size = path.stat().st_size
            with files.open_regular(path) as stream:
                head = stream.read(HEAD_BYTES)
                stream.seek(max(0, size - TAIL_BYTES))
                tail = stream.read(TAIL_BYTES)
        except FileNotFoundError:
            diagnostics.problem(f"{self.app}: {path} vanished while it was read")
            return []
        opening = _first_messages(head)
        first = opening[0] if opening else None
        stamps = _TS.findall(tail)
        # optional, but one that is there and broken is said: its folder and title are lost
        item = files.read_json_counted(
            folder / "history_item.json", SMALL_CAP, diagnostics
        )
        item = item if isinstance(item, dict) else {}
        metadata = files.read_json_counted(
            folder / "task_metadata.json", SMALL_CAP, diagnostics
        )
        model, mode = _last_model(metadata)
        model = model or _first_model(opening)
        history = None
        if model is None or not stripped(item.get("workspace")):
            history = _history_head(folder)
        if model is None and history is not None:
            found = _MODEL.search(history)
            model = found.group(1).strip() if found else None
        title = stripped(item.get("title")) or stripped(item.get("task"))
        if title is None and first is not None and first.get("say") in ("task", "text"):
            title = stripped(first.get("text"))
        extra: dict[str, JSONValue] = {}
        if mode or stripped(item.get("mode")):
            extra["mode"] = mode or stripped(item.get("mode"))
        children = item.get("childIds")
        delegated: list[str] = []
        if isinstance(children, list):
            extra["children"] = list(_child_ids(children))
            # its read holds them: one whose own history item cannot be read (a device
            # in its place) is its sub-task still, not a session listed and counted twice
            delegated = [c for c in _child_ids(children) if c != folder.name]
        elif _SUBTASK_SEEN in head or _SUBTASK_SEEN in tail:
            delegated = [c for c in _subtask_ids(folder) if c != folder.name]
            extra["delegated"] = list(delegated)  # `children`, from a history, wins
        parent = stripped(item.get("parentTaskId"))
        own = Session(
            app=self.app,
            id=folder.name,
            path=str(path),
            cwd=stripped(item.get("workspace")) or _cwd_from(history),
            title=first_line(title),
            created=ms_time(first.get("ts")) if first else None,
            updated=ms_time(int(stamps[-1])) if stamps else None,
            model=model,
            bytes=size,
            parent_id=parent,
            # a sub-task's type is the mode its `newTask` call started it in, which its
            # history item keeps (the spawn `tree` reads names the same)
            agent_type=(stripped(item.get("mode")) or mode) if parent else None,
            extra=extra,
        )
        # sub-tasks whose own files do not name their parent: this one does
        linked = (
            Session(
                app=self.app, id=child, parent_id=own.id, precedence=-1, listed=False
            )
            for child in delegated
        )
        return [own, *linked]

    def read(
        self, session: Session, diagnostics: Diagnostics, offset: int = 0
    ) -> Iterator[Event]:
        if session.path is None:
            return
        translator = _Translator(
            self, session, diagnostics, include_children=offset == 0
        )
        yield from translator.task(Path(session.path), None, 0)


class _Translator:
    """ui_messages.json → events; sub-tasks (Roo-style `newTask`) inlined with their agent_id."""

    def __init__(
        self,
        store: TaskStore,
        session: Session,
        diagnostics: Diagnostics,
        include_children: bool,
    ) -> None:
        self.store = store
        self.session = session
        self.diagnostics = diagnostics
        self.include_children = include_children
        self.emit = Emitter(session.id)

    def task(self, path: Path, agent: str | None, depth: int) -> Iterator[Event]:
        size = file_size(path)
        messages: object = None
        if size <= WHOLE_CAP:
            messages = files.read_json_file(
                path, limit=WHOLE_CAP, diagnostics=self.diagnostics
            )
        if messages is None and size:
            # too big to parse at once, or broken: a message at a time, so that a file
            # cut short keeps the messages before its cut (and says where it stopped)
            from ..jsonstream import file_items

            messages = file_items(path, None, self.diagnostics, self.store.app)
        elif messages is None:
            if not path.exists():
                self.diagnostics.problem(f"{self.store.app}: {path} vanished")
            return
        if not isinstance(messages, list | Iterator):
            self.diagnostics.skip(
                str(path), 1, "bad value"
            )  # JSON, but not the array of messages
            return
        children = self._children(path, agent)
        state = _State(model=self.session.model if agent is None else None)
        # the ids listing found in the lines the parent was told (no history names them)
        state.delegated_ids = (
            agent is None
            and not isinstance(self.session.extra.get("children"), list)
            and isinstance(self.session.extra.get("delegated"), list)
        )
        held: dict[str, object] | None = None
        for index, message in enumerate(messages):
            if not isinstance(message, dict):
                self.diagnostics.skip(str(path), index + 1, "not an object")
                continue
            if held is not None:
                if not _continues(held, message):
                    yield from self._message(held, state, agent, children, path, depth)
                held = None
            if index == 0 and message.get("say") == "text":
                message = {
                    **message,
                    "say": "task",
                }  # Roo and older Cline open a task with it
            if message.get("partial") is True and message.get("say") in (
                "text",
                "reasoning",
            ):
                held = message  # streamed: a later message may repeat it in full
                continue
            yield from self._message(message, state, agent, children, path, depth)
        if held is not None:
            yield from self._message(held, state, agent, children, path, depth)

    def _children(self, path: Path, agent: str | None) -> list[str]:
        if agent is None:
            for key in ("children", "delegated"):
                listed = self.session.extra.get(key)
                if isinstance(listed, list):
                    return list(_child_ids(listed))
        item = files.read_json_counted(
            path.parent / "history_item.json", SMALL_CAP, self.diagnostics
        )
        if isinstance(item, dict) and isinstance(item.get("childIds"), list):
            return list(_child_ids(item["childIds"]))
        return []

    def _message(
        self,
        message: dict[str, object],
        state: _State,
        agent: str | None,
        children: list[str],
        path: Path,
        depth: int,
    ) -> Iterator[Event]:
        kind = (
            message.get("say") if message.get("type") == "say" else message.get("ask")
        )
        if not isinstance(kind, str):
            self.diagnostics.unknown_type(f"{message.get('type')}:?")
            return
        text = stripped(message.get("text")) or ""
        time = ms_time(message.get("ts"))
        # an ask, once complete, waits for the user (approve a tool, answer a question).
        # Cline writes an auto-approved tool as a say; Roo (and Kilo, its fork) write the
        # ask first and approve it after (Task.ts ask()), so theirs say nothing of a wait
        asked = message.get("type") == "ask" and message.get("partial") is not True
        approval = asked and self.store.app == "cline"
        call_id = f"{agent or self.session.id}:{message.get('ts')}"
        info = message.get("modelInfo")
        if isinstance(info, dict) and stripped(info.get("modelId")):
            state.model = stripped(info.get("modelId"))

        def event(kind: EventKind, **fields: Unpack[EventFields]) -> Event:
            fields["agent_id"] = agent
            return self.emit(kind, time, **fields)

        if kind in ("task", "user_feedback", "user_feedback_diff"):
            if text:
                yield event(
                    "user",
                    text=_diff_text(text) if kind == "user_feedback_diff" else text,
                )
        elif kind == "text":
            if text:
                yield event("assistant", text=text)
        elif kind == "reasoning":
            if text:
                yield event("thinking", text=text)
        elif kind in ("completion_result", "plan_completion_result"):
            # (Cline 4.1's SDK retags a plan-mode turn's last text plan_completion_result)
            if text:
                yield event("assistant", text=text)
                yield event("turn_end", extra={"reason": "completion"})
        elif kind == "compaction":
            # Cline 4.1 notes each compaction: {status, mode, tokensBefore, tokensAfter}
            noted = _json_object(text) or {}
            status = noted.get("status")
            if status == "completed":
                kept: dict[str, JSONValue] = {
                    key: json_copy(noted[key])
                    for key in ("mode", "tokensBefore", "tokensAfter")
                    if key in noted
                }
                yield event("compaction", extra=kept)
            elif status == "failed":
                yield event("error", text="compaction failed", extra={"type": kind})
        elif kind in (
            "followup",
            "plan_mode_respond",
            "plan_mode_response",  # Cline 3.2-3.8's name for it
            "act_mode_respond",
            "qna_respond",
            "make_plan",
        ):
            data = _json_object(text)
            said = (
                stripped(data.get("question")) or stripped(data.get("response"))
                if data
                else None
            )
            if said or text:
                yield event("assistant", text=said or text)
            if kind == "followup" and asked:  # a question put to the user ends the turn
                yield event("turn_end", extra={"reason": "question"})
        elif kind in (
            "api_req_started",
            "api_req_finished",
            "deleted_api_reqs",
            "api_req_deleted",
            "subagent_usage",  # Cline's sub-agents' requests, in the task's totals
        ):
            yield from self._usage(kind, text, state, event, path)
        elif kind in ERRORS:
            yield event("error", text=text or kind, extra={"type": kind})
        elif kind in (
            "command",
            "tool",
            "use_mcp_server",
            "browser_action_launch",
            "browser_action",
            "new_task",
        ):
            for made in self._tool(kind, text, call_id, state, event):
                # an ask (not a say) is the extension waiting for the user's approval
                yield (
                    replace(made, extra={**made.extra, "asks": "approval"})
                    if approval and made.kind == "tool_call"
                    else made
                )
            if kind == "tool" and depth < CHILD_DEPTH:
                yield from self._spawn(
                    text, call_id, state, children, path, depth, event
                )
        elif kind in (
            "command_output",
            "mcp_server_response",
            "browser_action_result",
            "subtask_result",
            "inspect_site_result",  # Claude Dev's inspectSite tool; "" while it runs
        ):
            if kind == "inspect_site_result" and not text:
                return
            result = _result_text(kind, text)
            target = state.pending.get(
                "subtask" if kind == "subtask_result" else kind, call_id
            )
            yield event("tool_result", call_id=target, text=result)
        elif kind in (
            "condense_context",
            "condense",
            "summarize_task",
            "sliding_window_truncation",
        ):
            condense = message.get("contextCondense")
            summary = (
                stripped(condense.get("summary"))
                if isinstance(condense, dict)
                else None
            )
            yield event("compaction", text=summary or text or None)
        elif kind in ("use_subagents", "spawn_task"):
            extra: dict[str, JSONValue] = {"input": _json_or_text(text)}
            if approval:
                extra["asks"] = "approval"
            if kind == "use_subagents":
                state.pending["subagent"] = call_id
            yield event("tool_call", tool=kind, call_id=call_id, extra=extra)
        elif kind == "subagent":
            yield from self._subagents(
                _json_object(text) or {}, message.get("partial") is True, state, event
            )
        elif kind in IGNORED:
            return
        else:
            self.diagnostics.unknown_type(f"{message.get('type')}:{kind}")

    def _subagents(
        self, status: dict[str, object], partial: bool, state: _State, event: _Maker
    ) -> Iterator[Event]:
        """Cline 3.x's `use_subagents` progress (one message, rewritten while partial):
        `{status, items: [{index, prompt, status, result, error}]}`. Its sub-agents run
        in the extension and keep no files: each is a node named by the call and its
        index, closed by its item's status; the final message answers the call."""
        call_id = state.pending.get("subagent")
        if call_id is None:
            return
        listed = status.get("items")
        items = (
            [i for i in listed if isinstance(i, dict)]
            if isinstance(listed, list)
            else []
        )
        results: list[str] = []
        for item in items[:_SUBAGENT_ITEMS]:
            child = f"{call_id}#{item.get('index')}"
            if child not in state.subagents:
                state.subagents[child] = None
                yield event(
                    "subagent",
                    call_id=None,
                    text=stripped(item.get("prompt")),
                    extra={"child_id": child, "agent_type": "subagent"},
                )
            ended = item.get("status")
            if ended in ("completed", "failed") and state.subagents[child] is None:
                state.subagents[child] = str(ended)
                yield event(
                    "meta",
                    text=f"sub-agent {ended}",
                    extra={
                        "child_id": child,
                        "subagent_status": "failed" if ended == "failed" else "done",
                    },
                )
            if said := stripped(item.get("result")) or stripped(item.get("error")):
                results.append(said)
        if not partial and status.get("status") in ("completed", "failed"):
            state.pending.pop("subagent", None)
            yield event(
                "tool_result",
                call_id=call_id,
                text="\n\n".join(results) or None,
                is_error=status.get("status") == "failed",
            )

    def _input_holds_cache(self, data: dict[str, object], tokens: list[int]) -> bool:
        """Whether `tokensIn` counts the cache reads and writes too. An OpenAI-style
        provider's prompt count always did; Roo Code (and the Kilo Code built on it) has
        counted them for Anthropic-style ones as well since 3.29.5 (late 2025), which is
        told from older messages by `tokensIn` being at least the cache it would hold."""
        protocol = data.get("apiProtocol")
        if protocol == "openai":
            return True
        return (
            protocol == "anthropic"
            and self.store.app != "cline"
            and tokens[0] >= tokens[2] + tokens[3] > 0
        )

    def _usage(
        self, kind: str, text: str, state: _State, event: _Maker, path: Path
    ) -> Iterator[Event]:
        data = own = _json_object(text)
        started: dict[str, object] = {}
        if kind == "api_req_started":
            state.request = data
        elif kind == "api_req_finished":
            # Claude Dev (Cline before 2.0) wrote a request's figures on a message of
            # their own after it; Cline merges the pair (combineApiRequests), and so do we:
            # only what the finish adds to its start is counted
            started, state.request = state.request or {}, None
            data = {**started, **(data or {})}
        if not data:
            return
        if own and any(odd_count(own.get(key)) for key in _COUNTS):
            # billed as 0 (or its whole part); a task's messages are one JSON document
            self.diagnostics.damage(str(path), 0, odd_in("message"))
        # each 0 below 0: a start's broken count added as much to its finish's
        tokens = [
            max(0, max(0, as_int(data.get(key))) - max(0, as_int(started.get(key))))
            for key in _COUNTS
        ]
        if any(tokens):
            extra: dict[str, JSONValue] = {}
            cost, before = data.get("cost"), started.get("cost")
            if isinstance(cost, int | float):
                extra["cost_usd"] = max(
                    0, cost - (before if isinstance(before, int | float) else 0)
                )
            if kind == "subagent_usage":
                # a batch of sub-agents' requests (Cline 3.5x+; they write no files of
                # their own): Cline's getApiMetrics adds each to the task's totals
                extra["subagents"] = extra["summed"] = True
            elif kind not in ("api_req_started", "api_req_finished"):
                # requests removed from the task, kept in its totals
                extra["deleted"] = extra["summed"] = True
            uncached = tokens[0]
            if self._input_holds_cache(data, tokens):
                uncached = max(0, tokens[0] - tokens[2] - tokens[3])
            usage = Usage(uncached, tokens[1], tokens[2], tokens[3], model=state.model)
            yield event("usage", usage=usage, extra=extra)
        reason = stripped(own.get("cancelReason")) if own else None
        if reason:
            failed = stripped(data.get("streamingFailedMessage"))
            yield event(
                "error",
                text=failed or f"request cancelled ({reason})",
                extra={"type": reason},
            )

    def _tool(
        self, kind: str, text: str, call_id: str, state: _State, event: _Maker
    ) -> Iterator[Event]:
        data = _json_object(text)
        if kind == "command":
            state.pending["command_output"] = call_id
            yield event(
                "tool_call",
                tool="execute_command",
                call_id=call_id,
                extra={"input": {"command": text}},
            )
        elif kind == "use_mcp_server":
            state.pending["mcp_server_response"] = call_id
            name = stripped(data.get("toolName")) if data else None
            yield event(
                "tool_call",
                tool=name or "use_mcp_server",
                call_id=call_id,
                extra={"input": _json_or_text(text)},
            )
        elif kind in ("browser_action_launch", "browser_action"):
            state.pending["browser_action_result"] = call_id
            value: JSONValue = (
                _json_or_text(text) if data else {"action": "launch", "url": text}
            )
            yield event(
                "tool_call",
                tool="browser_action",
                call_id=call_id,
                extra={"input": value},
            )
        elif kind == "new_task":
            yield event(
                "tool_call",
                tool="new_task",
                call_id=call_id,
                extra={"input": {"context": text}},
            )
        else:
            name = stripped(data.get("tool")) if data else None
            if name == "inspectSite":
                state.pending["inspect_site_result"] = call_id
            yield event(
                "tool_call",
                tool=name or "tool",
                call_id=call_id,
                extra={"input": _json_or_text(text)},
            )

    def _spawn(
        self,
        text: str,
        call_id: str,
        state: _State,
        children: list[str],
        path: Path,
        depth: int,
        event: _Maker,
    ) -> Iterator[Event]:
        data = _json_object(text)
        if not data or data.get("tool") != "newTask":
            return
        if not children and not state.looked_up:  # no history names them: the
            state.looked_up = True  # lines the model was sent when each ended do
            children.extend(_subtask_ids(path.parent))
            state.delegated_ids = True
        state.pending["subtask"] = call_id
        child = children[state.spawned] if state.spawned < len(children) else None
        state.spawned += 1
        content = stripped(data.get("content"))
        if state.delegated_ids:
            # ids from the lines the parent was told as each sub-task ended: one that
            # never ended has none, and would shift every later one onto the wrong
            # task; each spawn takes the task that opens with its words, or none
            siblings = path.parent.parent
            child = next(
                (
                    c
                    for c in children
                    if c not in state.linked and _opens_with(siblings / c, content)
                ),
                None,
            )
            if child is not None:
                state.linked.add(child)
        mode = stripped(data.get("mode"))
        extra: dict[str, JSONValue] = {"child_id": child, "agent_type": mode}
        yield event(
            "subagent", call_id=call_id, text=stripped(data.get("content")), extra=extra
        )
        if child is None or not self.include_children:
            return
        child_path = path.parent.parent / child / "ui_messages.json"
        if child_path.is_file():
            yield from self.task(child_path, child, depth + 1)
        else:  # the parent's history names it: the sub-task was made
            self.diagnostics.child_missing(self.store.app, child)


class _Maker(Protocol):
    def __call__(self, kind: EventKind, **fields: Unpack[EventFields]) -> Event: ...


@dataclass(slots=True)
class _State:
    """What one task's translation remembers: the model, open tool calls, sub-tasks spawned."""

    model: str | None
    spawned: int = 0
    looked_up: bool = False  # whether the sub-task ids were looked for in the history
    delegated_ids: bool = False  # ids from "Subtask <id> completed." lines: checked
    linked: set[str] = field(default_factory=set)  # of those, the ones a spawn took
    pending: dict[str, str] = field(
        default_factory=dict
    )  # result kind -> call id awaiting it
    # use_subagents' sub-agents announced -> the status that ended each (None: running)
    subagents: dict[str, str | None] = field(default_factory=dict)
    # the last api_req_started's figures, until an api_req_finished completes them
    request: dict[str, object] | None = None


# --- small helpers ---------------------------------------------------------------------


def _child_ids(values: Iterable[object]) -> Iterator[str]:
    """The sub-task ids a history item's `childIds` lists, each a task's folder beside
    its lead's: only one plain name is (a hostile `../..` led `show` out of the app's
    folder)."""
    return (c for c in values if isinstance(c, str) and folders.plain_name(c))


def _opens_with(task: Path, content: str | None) -> bool:
    """Whether a task's first words are `content` (a sub-task opens with its task)."""
    try:
        with files.open_regular(task / "ui_messages.json") as stream:
            head = stream.read(HEAD_BYTES)
    except OSError:
        return False
    first = next(
        (m for m in _first_messages(head) if m.get("say") in ("text", "task")), None
    )
    return (
        first is not None
        and content is not None
        and stripped(first.get("text")) == content
    )


def _first_messages(head: bytes) -> list[dict[str, object]]:
    """The objects of a JSON array that fit whole in the file's first bytes."""
    text = head.decode("utf-8", "ignore").removeprefix("\ufeff")  # a byte order mark
    decoder = json.JSONDecoder()
    found: list[dict[str, object]] = []
    position = text.find("{")
    if position < 0 or text[:position].strip() != "[":
        return found
    while position >= 0:
        try:
            value, end = decoder.raw_decode(text, position)
        except (ValueError, RecursionError):  # cut by the head's end; too deep for json
            break
        if isinstance(value, dict):
            found.append(value)
        rest = text[end:].lstrip()
        if not rest.startswith(","):
            break
        position = text.find("{", end)
    return found


def _first_model(messages: list[dict[str, object]]) -> str | None:
    for message in messages:
        info = message.get("modelInfo")
        if isinstance(info, dict) and stripped(info.get("modelId")):
            return stripped(info.get("modelId"))
    return None


_LEGACY_MESSAGES = "claude_messages.json"
# a task's files beside its messages that its listing reads (`TaskStore.companion_of`)
COMPANIONS = (
    "history_item.json",
    "task_metadata.json",
    "api_conversation_history.json",
)
_STATE = "global-state.json"  # the Kilo CLI 0.x's VS Code global state (taskHistory)
# a sub-task's end in the parent's messages (Roo-style delegation), and its id in the
# line the parent's model is sent then
_SUBTASK_SEEN = b'"subtask_result"'
_SUBTASK_DONE = re.compile(rb"Subtask ([\w-]{4,80}) completed\.")
SUBTASK_SCAN_CAP = 64 * 1024 * 1024  # bytes of api_conversation_history.json searched


def _subtask_ids(folder: Path) -> Iterator[str]:
    """The sub-tasks a task delegated to, in order, as the lines its model was sent when
    each ended name them (a chunk at a time; the first SUBTASK_SCAN_CAP bytes)."""
    seen: set[str] = set()
    tail = b""
    try:
        with files.open_regular(folder / "api_conversation_history.json") as stream:
            read = 0
            while read < SUBTASK_SCAN_CAP and (chunk := stream.read(1 << 20)):
                read += len(chunk)
                data = tail + chunk
                end = 0
                for found in _SUBTASK_DONE.finditer(data):
                    end = found.end()
                    child = found.group(1).decode("ascii", "replace")
                    if child not in seen:
                        seen.add(child)
                        yield child
                tail = data[max(end, len(data) - 100) :]
    except OSError:
        return


def _history_head(folder: Path) -> str | None:
    """The start of what the model was sent, where the extension reported its
    environment (folder, Roo's model)."""
    try:
        with files.open_regular(folder / "api_conversation_history.json") as stream:
            return stream.read(HEAD_BYTES).decode("utf-8", "ignore")
    except OSError:
        return None


def _cwd_from(head: str | None) -> str | None:
    """The folder the extension reported to the model in its first environment details."""
    match = _CWD.search(head) if head else None
    return match.group(1).strip() if match else None


def _last_model(metadata: object) -> tuple[str | None, str | None]:
    if not isinstance(metadata, dict) or not isinstance(
        metadata.get("model_usage"), list
    ):
        return None, None
    for entry in reversed(metadata["model_usage"]):
        if isinstance(entry, dict) and stripped(entry.get("model_id")):
            return stripped(entry.get("model_id")), stripped(entry.get("mode"))
    return None, None


def _continues(held: dict[str, object], message: dict[str, object]) -> bool:
    """True when `message` is the same streamed message as `held`, only longer."""
    if message.get("say") != held.get("say") or message.get("type") != held.get("type"):
        return False
    before, after = held.get("text"), message.get("text")
    if not isinstance(before, str) or not isinstance(after, str):
        return False
    return after.startswith(before.removesuffix("...").removesuffix("…"))


def _json_object(text: str) -> dict[str, object] | None:
    if not text.startswith("{"):
        return None
    # a lone surrogate escape in it (JSON.stringify of an emoji cut in two) read as
    # U+FFFD, as in the file itself: json takes it for a character no UTF-8 text holds
    data = text.encode("utf-8", "surrogatepass")
    try:
        value = json.loads(files.repaired(data) or data)
    except (ValueError, RecursionError):  # too deep for json
        return None
    return value if isinstance(value, dict) else None


def _json_or_text(text: str) -> JSONValue:
    data = _json_object(text)
    return data if data is not None else text  # type: ignore[return-value]


def _result_text(kind: str, text: str) -> str:
    data = _json_object(text)
    if kind == "browser_action_result" and data:
        parts = (
            [f"url: {data['currentUrl']}"] if stripped(data.get("currentUrl")) else []
        )
        if stripped(data.get("logs")):
            parts.append(str(data["logs"]))
        if data.get("screenshot"):
            parts.append("[screenshot]")
        return "\n".join(parts)
    return text


def _diff_text(text: str) -> str:
    data = _json_object(text)
    if data and stripped(data.get("diff")):
        return str(data["diff"])
    return text


# a request's counts (`api_req_started` and the rest), in `Usage`'s order
_COUNTS = ("tokensIn", "tokensOut", "cacheReads", "cacheWrites")
