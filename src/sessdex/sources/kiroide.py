"""Kiro IDE (AWS's VS Code-based agentic IDE, command `kiro`): its agent panel's chats.

Not the Kiro CLI (`kiro-cli`, `kiro.py`): the IDE's agent is the `kiro.kiroagent` built-in
extension, a fork of Continue, and keeps its chats as Continue does, one JSON document per
chat, in the extension's global storage under the editor's user folder
(`~/.config/Kiro` on Linux, `$XDG_CONFIG_HOME/Kiro` when set; `~/Library/Application
Support/Kiro` on macOS; `%APPDATA%\\Kiro` on Windows; `$VSCODE_APPDATA/Kiro` first, as a VS
Code fork resolves it; `~/.kiro-server/data` on a remote host Kiro works on):
`User/globalStorage/kiro.kiroagent/workspace-sessions/<folder>/`, `<folder>` the
workspace's path in URL-safe base64 with its `=` padding written `_` (its name only says
where a chat without `workspaceDirectory` was), holding `sessions.json` (`[{sessionId,
title, dateCreated (epoch ms, as text), workspaceDirectory}]`) and one `<sessionId>.json`
per chat: `{sessionId, title, workspaceDirectory, history[], sessionType?, selectedModel?,
defaultModelTitle?}`, a history item `{message: {role, content (text or parts), id},
executionId?, promptLogs?[{completion}], contextItems?}` as Continue writes it.

The app's source is closed: the layout and names are those two public readers agree on,
kenn-io/agentsview @73358bc1 (`internal/parser/kiro_ide.go`) and yigitkonur/cli-continues
@8c23346d (`src/parsers/kiro.ts`, MIT: the same three folders, the folder's name in
URL-safe base64, `sessions.json` then the loose files). The events are read by Continue's
reader (`continue_.py`: prompts, answers, thinking, tool calls paired with results,
compaction, usage where a message carries it); two of Kiro's ways are handled first. An
assistant message that is only the placeholder "On it." (or empty) and names an
`executionId` is replaced by that execution's log, `<storage>/<sha256(workspace path)[:32]>/
414d1636299d2b9e4ce7e17fb11f63e9/<file>` (that folder `sha256("KIRO::EXECUTION::SAVES")
[:32]`; `{executionId, chatSessionId, status, startTime, endTime, actions[{actionType,
actionId, actionState, emittedAt, input, output, errorMessage}], usageSummary[{unit:
credit, usage}]}`, agentsview's reading and the layout notes of peasant-labs/peasant
`internal/harnesslayout/kiro.go` and others): a `say` action is what the agent said, a
`reasoning` one its thinking, `intentClassification` and `model` Kiro's own steps (left
out), any other action a tool call under its own type, its output (`message`, a command's
`output`, an MCP tool's `response`; or its error, or state) the result, `Rejected`/
`Error`/`Canceled` or a command's non-zero `exitCode` failed; a log is the file named
`sha256(executionId)[:32]` (as Kiro names them), else found by listing the folder and
reading a KiB of each log's head, only once an answer names one. Without a log, the
item's prompt logs' completions answer it. And a user turn that is Kiro's system prompt
(`<identity>…`) is left out, as Kiro's own panel does. A chat keeps no time of its own but
`dateCreated` in the index: the file's last write is its last activity, and every event is
undated. `show --tail` reads the document whole and keeps its end: the credits of every
answer's execution are summed into one event at its end, which its last items alone do
not give.

Kiro 1.0 keeps its chats in a store of its own, `~/.kiro/sessions/<bucket>/<session id>/`
(`$KIRO_HOME/sessions` where that is set), `session.json` and an event log `messages.jsonl`,
read by `_kiroide_store.py` (known from third-party notes only, Low; its `cli/` folder is
the Kiro CLI's, the `kiro` source's, and never listed here). It copies the older chats
there, leaving a dot-named note beside each (`.migrated-<id>.json` or `._migration-*.json`,
`{v2SessionId}`): such a chat is listed once, as its copy (`superseded_by`), while the copy
is in the store.

The credits the executions a chat's answers name used (`usageSummary`, unit "credit")
are summed into one usage event of the chat's, after what Continue's reader gives (its
tokens, decided as for Continue), dated as it dates them (the file's last write); an
execution whose log no answer made sessdex read is not counted.

Not read: a token count in the older store (none is kept anywhere but Continue's
`dev_data/devdata.sqlite`, per model, not per chat); the older `.chat` files
(`<32-hex hash>/*.chat`, the prompt one execution sent: `chat[{role human|bot|tool}]`,
the history before it included, and `metadata{modelId, startTime, endTime}`).
`profile.json` in the same folder and Kiro's login (`~/.aws/sso/cache/
kiro-auth-token.json`, outside it, refused by name) are never opened.

Resume: the IDE has no command to reopen a chat; `kiro <folder>` opens the workspace, and
the chat is picked from the agent panel's session history (`resume_refusal` says so), for
a chat of either store.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import dataclasses
import re
from collections.abc import Iterator
from pathlib import Path

import orjson

from .. import files, folders, shells
from ..diagnostics import Diagnostics
from ..errors import NotQuotable
from ..model import Event, JSONValue, ResumePlan, Session, Usage
from . import _kiroide_store, continue_
from ._values import (
    as_credits,
    as_dict,
    as_list,
    as_str,
    local_path,
    one_line,
    stat_size,
    stripped,
    written_time,
)
from ._vscode_tasks import config_bases
from .base import Home, Location

NAME = "kiroide"
TITLE = "Kiro IDE (agent chats)"
SCAN_NOTED = True  # locate reads only the environment; scan only lists and probes
CHECKED_WITH = (
    "public readers of the closed-source IDE, no real capture (Low): "
    "kenn-io/agentsview @73358bc1 (internal/parser/kiro_ide.go) and "
    "yigitkonur/cli-continues @8c23346d (src/parsers/kiro.ts); the layout notes of "
    "peasant-labs/peasant @aab00ec4 (internal/harnesslayout/kiro.go) and "
    "getagentseal/codeburn @ed8fa3af (docs/providers/kiro.md, src/providers/kiro.ts) for "
    "the execution logs, the folder names and the remote folder; Continue's session "
    "format (continuedev/continue @d0a3c0b626b5) for the history items; Kiro 1.0's store "
    "(~/.kiro/sessions/<bucket>/<id>/) from third-party notes only: peasant @aab00ec4 "
    "(the layout, the migration notes) and jk-zhang-meta/ags @4d4beb2f "
    "(tests/fixtures/kiro/ide_messages.jsonl: the event payloads); synthetic fixtures"
)
ENV_VARS = ("XDG_CONFIG_HOME", "VSCODE_APPDATA", "KIRO_HOME")

PRODUCT = "Kiro"
SERVER = (
    ".kiro-server",
    "data",
)  # a remote host's Kiro server keeps the same tree there
STORAGE = ("User", "globalStorage", "kiro.kiroagent")
SESSIONS = "workspace-sessions"
INDEX = continue_.INDEX  # `sessions.json`
PLACEHOLDER = "On it."  # what Kiro writes as an answer whose text is in its prompt logs
SYSTEM_PROMPT = "<identity>"  # Kiro's system prompt, sent as the first user turn
# A workspace's execution logs: `<storage>/<sha256(workspace path)[:32]>/` this folder
EXECUTIONS = "414d1636299d2b9e4ce7e17fb11f63e9"
_EXECUTION_HEAD = (
    1024  # bytes read at the start of each log to learn its execution's id
)
# an execution log's steps that are Kiro's own, no tool the agent used
_STEPS = frozenset({"intentClassification", "model"})
_REASONING = "reasoning"  # the model's thinking, `output.message`
_FAILED = frozenset({"Error", "Rejected", "Canceled"})
CLI_PREFIX = "cli_"  # the id of a session the Kiro CLI 3 wrote to Kiro 1.0's store
_EXECUTION_ID = re.compile(rb'"executionId"\s*:\s*"([^"\\]{1,200})"')


def locate(home: Home) -> Location:
    """The extension's storage in Kiro's user folder, on every OS's path; the first that
    `$VSCODE_APPDATA` or `$XDG_CONFIG_HOME` names when set; and Kiro 1.0's store."""
    roots = [base / PRODUCT / Path(*STORAGE) for base in config_bases(home)]
    roots.append(home.path / Path(*SERVER) / Path(*STORAGE))
    # Kiro 1.0's own store, in `$KIRO_HOME` where that is set (as the Kiro CLI 3 reads it)
    kiro_home = home.env_dir("KIRO_HOME") or home.path / _kiroide_store.STORE[0]
    roots.append(kiro_home / _kiroide_store.STORE[1])
    roots = list(dict.fromkeys(roots))
    said = [
        f"{name}={home.environ[name]}"
        for name in ENV_VARS
        if home.env_dir(name) is not None
    ]
    return Location(
        roots[0],
        override=", ".join(said) or None,
        also=tuple(roots[1:]),
        owned=tuple(
            root if root.name == _kiroide_store.STORE[-1] else root.parent.parent.parent
            for root in roots
        ),
    )


def scan(location: Location) -> Iterator[str]:
    """Each workspace folder's `sessions.json`, chat files and Kiro 1.0's migration notes;
    each session folder of Kiro 1.0's store (its `cli/` folder is the CLI's)."""
    if not location.exists:
        return
    for root in dict.fromkeys((location.root, *location.also)):
        if _is_store(root):
            yield from _kiroide_store.scan(root)
            continue
        sessions = root / SESSIONS
        for workspace in folders.entries(sessions, root):
            if not workspace.is_dir():  # a link to a folder elsewhere is followed
                continue
            for entry in folders.entries(workspace.path, root):
                # `.migrated-<id>.json`, `._migration-*.json`: Kiro 1.0's note of a copy,
                # read for the chat it supersedes; other dot files are not chats
                if entry.name.startswith(".") and not _kiroide_store.is_note(
                    Path(entry.name)
                ):
                    continue
                if entry.name.endswith(".json") and folders.file_entry(entry):
                    yield entry.path


def _is_store(root: Path) -> bool:
    return root.name == _kiroide_store.STORE[-1]


def _store(location: Location) -> Path | None:
    return next(
        (root for root in (location.root, *location.also) if _is_store(root)), None
    )


def companion_of(path: str) -> str | None:
    """A Kiro 1.0 chat's `session.json`: its `messages.jsonl`'s companion."""
    return _kiroide_store.companion_of(path)


def looks_for_others(path: str) -> bool:
    """A Kiro 1.0 migration note, which supersedes its chat only while the copy it names
    is in the store (see base.py): a copy deleted or written changes what it says."""
    return _kiroide_store.is_note(Path(path))


def parse(path: Path, location: Location, diagnostics: Diagnostics) -> list[Session]:
    if path.name in (_kiroide_store.META, _kiroide_store.LOG):
        return _kiroide_store.parse(path, NAME, diagnostics)
    if _kiroide_store.is_note(path):
        return _kiroide_store.parse_note(path, NAME, _store(location), diagnostics)
    if path.name == INDEX:
        return continue_._parse_index(path, diagnostics, NAME)
    size = stat_size(path)
    if size is None:
        files.say_if_refused(NAME, path, diagnostics)
        return []
    if size > continue_.WHOLE_CAP:
        facts = continue_._ends(path) or continue_._in_pieces(path, diagnostics, NAME)
    else:
        value = files.read_json_file(
            path, limit=continue_.WHOLE_CAP, diagnostics=diagnostics
        )
        if value is not None and not isinstance(value, dict):
            diagnostics.skip(str(path), 1, "not an object")
            return []
        facts = (
            _whole(value)
            if value is not None
            else continue_._in_pieces(path, diagnostics, NAME)
        )
    if facts is None:
        return []
    top = facts.top
    title = stripped(top.get("title"))
    if title in continue_._UNTITLED:
        title = None
    model = (
        facts.model
        or stripped(top.get("selectedModel"))
        or stripped(top.get("defaultModelTitle"))
        or stripped(top.get("chatModelTitle"))
    )
    extra: dict[str, JSONValue] = {}
    kind = stripped(top.get("sessionType"))
    if kind:
        extra["session_type"] = kind
    folder = as_str(top.get("workspaceDirectory")) or _decoded(path.parent.name)
    cwd = local_path(folder)
    if folder and cwd is None:  # a remote workspace (`vscode-remote://…`)
        extra["workspace"] = folder
    return [
        Session(
            app=NAME,
            id=path.stem,  # the name Kiro opens it by, whatever the document says
            path=str(path),
            cwd=cwd,
            title=one_line(title) or one_line(facts.prompt),
            updated=written_time(path),
            model=model,
            bytes=size,
            extra=extra,
        )
    ]


def _whole(value: dict[str, object]) -> continue_._Facts:
    """Continue's facts of a whole document, its first prompt the first one typed (not
    Kiro's system prompt)."""
    facts = continue_._whole(value)
    prompt = None
    for item in as_list(value.get("history")):
        message = as_dict(as_dict(item).get("message"))
        text = (
            continue_._text(message.get("content"))
            if message.get("role") == "user"
            else None
        )
        if text and not text.lstrip().startswith(SYSTEM_PROMPT):
            prompt = text
            break
    return dataclasses.replace(facts, prompt=prompt)


def _decoded(name: str) -> str | None:
    """The workspace path a `workspace-sessions` folder's name encodes: URL-safe base64
    whose `=` padding Kiro writes as `_` (a data character too), so the most padding
    that decodes back to the same name wins; a name without padding, or in the standard
    alphabet, is taken too. None where it does not decode to text."""
    for cut in (2, 1, 0):
        body = name[: len(name) - cut]
        if cut and not name.endswith("_" * cut):
            continue
        padded = body + "=" * (-len(body) % 4)
        for decode, encode in (
            (base64.urlsafe_b64decode, base64.urlsafe_b64encode),
            (base64.b64decode, base64.b64encode),
        ):
            with contextlib.suppress(binascii.Error, ValueError):
                raw = decode(padded)
                again = encode(raw).decode("ascii")
                if again.rstrip("=") != body.rstrip("=") and cut:
                    continue  # not the padding after all
                text = raw.decode("utf-8")
                if text and text.isprintable():
                    return text
    return None


# --- reading ------------------------------------------------------------------------------


def read(
    session: Session, diagnostics: Diagnostics, *, full: bool = False, offset: int = 0
) -> Iterator[Event]:
    """Continue's reader over Kiro's history items (see the module's docstring)."""
    if session.path is None:
        return
    from . import _json_chat

    path = Path(session.path)
    if path.name in (_kiroide_store.LOG, _kiroide_store.META):
        yield from _kiroide_store.read(
            session, NAME, diagnostics, full=full, offset=offset
        )
        return
    found = _json_chat.document(path, NAME, "history", continue_.WHOLE_CAP, diagnostics)
    if found is None:
        return
    # too big to parse whole, or broken: its members read past its history (what they
    # meet is counted by the read of the history), and no totals (its items' own usage)
    top = found.members(Diagnostics())
    logs = _Executions(path, _workspace(top, path), diagnostics)
    totals = as_dict(found.top.get("usage")) if found.top is not None else {}
    reader = continue_._Reader(session, diagnostics, 0, totals)
    yield from reader.items(_kiro_items(found.items, logs))
    yield from _credits(reader, logs, session)


def _credits(
    reader: continue_._Reader, logs: _Executions, session: Session
) -> Iterator[Event]:
    """The credits the executions read used, summed: a usage event of its own, after
    the tokens Continue's reader gave (which it decides alone)."""
    used = as_credits(sum(logs.credits.values()))
    if used:
        billed = Usage(model=session.model, credits=used)
        alone: dict[str, JSONValue] = {"scope": "session", "summed": True}
        yield reader.event(
            "usage", reader.when, estimated=True, usage=billed, extra=alone
        )


def _workspace(top: dict[str, object], path: Path) -> str | None:
    """The workspace's path as Kiro wrote it (the execution logs' folder is named by its
    hash): the chat's own member, else its folder's name decoded."""
    return as_str(top.get("workspaceDirectory")) or _decoded(path.parent.name)


class _Executions:
    """A workspace's execution logs, each `{executionId, actions[], usageSummary[], …}`,
    found by the id an answer names: the file named by its hash, else the folder is
    listed, and the first KiB of each log read, only once an answer names one."""

    def __init__(
        self, chat: Path, workspace: str | None, diagnostics: Diagnostics
    ) -> None:
        import hashlib  # here: OpenSSL loads only where a hash is taken

        self.folder: Path | None = None
        if workspace and len(chat.parents) > 2:
            digest = hashlib.sha256(
                workspace.encode("utf-8", "surrogateescape")
            ).hexdigest()
            self.folder = chat.parents[2] / digest[:32] / EXECUTIONS
        self.diagnostics = diagnostics
        self.index: dict[str, str] | None = None
        # the credits each execution read used (`usageSummary`, unit "credit"), by its id
        self.credits: dict[str, float] = {}

    def actions(self, execution_id: str) -> list[dict[str, object]] | None:
        """The actions of one execution, in order; None where no log of it is kept."""
        import hashlib

        if self.folder is None:
            return None
        # Kiro names a log `sha256(executionId)[:32]`: found without listing the folder
        digest = hashlib.sha256(execution_id.encode("utf-8", "surrogateescape"))
        value = self._log(self.folder / digest.hexdigest()[:32], execution_id)
        if value is None:
            if self.index is None:
                self.index = self._listed(self.folder)
            path = self.index.get(execution_id)
            value = self._log(Path(path), execution_id) if path else None
        used = 0.0
        for entry in as_list(as_dict(value).get("usageSummary")):
            summary = as_dict(entry)
            if (as_str(summary.get("unit")) or "credit").lower() in (
                "credit",
                "credits",
            ):
                used += as_credits(summary.get("usage"))
        if used:
            self.credits[execution_id] = used
        actions = as_dict(value).get("actions")
        if not isinstance(actions, list):
            return None
        return [action for action in actions if isinstance(action, dict)]

    def _log(self, path: Path, execution_id: str) -> dict[str, object] | None:
        """The log at `path` where there is one and it is that execution's."""
        if not folders.is_file(path):
            return None
        # a log too big to parse whole leaves the answer to its prompt logs
        value = files.read_json_file(
            path, limit=files.WHOLE_JSON_CAP, diagnostics=self.diagnostics
        )
        if not isinstance(value, dict):
            return None
        named = value.get("executionId")
        return value if named is None or named == execution_id else None

    @staticmethod
    def _listed(folder: Path) -> dict[str, str]:
        found: dict[str, str] = {}
        for entry in folders.listing(folder):
            if not entry.is_file():
                continue
            try:
                with files.open_binary(entry.path) as stream:
                    head = stream.read(_EXECUTION_HEAD)
            except OSError:
                continue
            match = _EXECUTION_ID.search(head)
            if match:
                found.setdefault(match.group(1).decode("utf-8", "replace"), entry.path)
        return found


def _kiro_items(
    items: Iterator[dict[str, object]], logs: _Executions
) -> Iterator[dict[str, object]]:
    """The history as Continue's reader takes it: Kiro's system prompt left out, and a
    placeholder answer replaced by what its execution did (its log's actions), else by
    its prompt logs' completions."""
    for item in items:
        message = as_dict(item.get("message"))
        role = message.get("role")
        text = continue_._text(message.get("content"))
        if role == "user" and text and text.lstrip().startswith(SYSTEM_PROMPT):
            continue
        placeholder = not text or text.strip() == PLACEHOLDER
        execution = as_str(item.get("executionId"))
        if role == "assistant" and placeholder and execution:
            actions = logs.actions(execution) or []
            # a log of Kiro's own steps only says nothing: the prompt logs may
            acted = list(_acted(execution, actions, logs.diagnostics))
            if acted:
                yield from acted
                continue
        if role == "assistant" and placeholder:
            completions = [
                done
                for log in as_list(item.get("promptLogs"))
                if (done := stripped(as_dict(log).get("completion")))
            ]
            if completions:
                message = {**message, "content": "\n\n".join(completions)}
                item = {**item, "message": message}
        yield item


def _acted(
    execution: str, actions: list[dict[str, object]], diagnostics: Diagnostics
) -> Iterator[dict[str, object]]:
    """An execution's actions as Continue's history items: what the agent said, then the
    actions it took after it as one answer's tool calls, each followed by its result."""
    said: list[str] = []
    thought: list[str] = []
    calls: list[dict[str, object]] = []
    states: list[dict[str, object]] = []
    results: list[dict[str, object]] = []

    def answer() -> Iterator[dict[str, object]]:
        if said or calls or thought:
            message: dict[str, object] = {
                "role": "assistant",
                "content": "\n\n".join(said),
            }
            if calls:
                message["toolCalls"] = list(calls)
            item: dict[str, object] = {
                "message": message,
                "toolCallStates": list(states),
            }
            if thought:
                item["reasoning"] = {"text": "\n\n".join(thought)}
            yield item
            yield from results
        for pending in (said, thought, calls, states, results):
            pending.clear()

    for number, action in enumerate(actions):
        kind = as_str(action.get("actionType"))
        output = as_dict(action.get("output"))
        if kind in _STEPS:
            continue
        if kind in ("say", _REASONING):
            if calls:
                yield from answer()
            text = stripped(output.get("message"))
            if text:
                (said if kind == "say" else thought).append(text)
            continue
        if not kind:
            diagnostics.unknown_type("action:?")
            continue
        call_id = as_str(action.get("actionId")) or f"{execution}:{number}"
        calls.append(
            {
                "id": call_id,
                "function": {"name": kind, "arguments": as_dict(action.get("input"))},
            }
        )
        state = as_str(action.get("actionState")) or ""
        code = output.get("exitCode")
        failed = (
            state in _FAILED
            or bool(stripped(action.get("errorMessage")))
            or (isinstance(code, int) and not isinstance(code, bool) and code != 0)
        )
        states.append(
            {
                "toolCallId": call_id,
                "status": "canceled"
                if state == "Canceled"
                else "errored"
                if failed
                else "done",
            }
        )
        shown = (
            stripped(output.get("message"))
            or stripped(output.get("output"))  # a command's
            or stripped(output.get("response"))  # an MCP tool's
            or stripped(action.get("errorMessage"))
            or (orjson.dumps(output).decode() if output else None)
            or state
        )
        results.append(
            {"message": {"role": "tool", "toolCallId": call_id, "content": shown}}
        )
    yield from answer()


# --- resume ------------------------------------------------------------------------------


def resume(session: Session, *, keep_permissions: bool = False) -> ResumePlan | None:
    """None: Kiro opens a chat only from its agent panel (see `resume_refusal`)."""
    return None


def resume_refusal(session: Session) -> str | None:
    """How to reopen a chat in the Kiro IDE, which has no command for it; a session the
    Kiro CLI's new engine wrote to the same store (`cli_<uuid>_…`) is reopened by the
    CLI from its folder (`kiro-cli --v3 --resume-id <id>`, third-party notes only)."""
    if session.id.startswith(CLI_PREFIX) and session.cwd:
        with contextlib.suppress(NotQuotable):
            # entered as each shell does (PowerShell 5.1 reads no `&&`, cmd.exe's `cd`
            # needs /d for another drive), as `resume --print` writes it
            line = shells.cd_then_run(
                session.cwd, ("kiro-cli", "--v3", "--resume-id", session.id)
            )
            return (
                "a session of the Kiro CLI's new engine in Kiro 1.0's store: "
                f"run `{line}` (the CLI looks it up by its folder)."
            )
    title = one_line(session.title) if session.title else None
    which = f'"{title}"' if title else "it"
    where = "open its folder in Kiro, then"
    if session.cwd:
        with contextlib.suppress(NotQuotable):  # no line that shell could take
            where = f"run `{shells.run(('kiro', session.cwd))}`, then"
    return (
        "the Kiro IDE has no command to reopen a chat from the command line; "
        f"{where} pick {which} in the agent panel's session history."
    )
