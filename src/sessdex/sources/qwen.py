"""Qwen Code: one append-only JSONL transcript per session, Claude-Code-like records.

Qwen Code writes `~/.qwen/projects/<cwd with separators as "-">/chats/<sessionId>.jsonl`
(archived ones under `chats/archive/`); `QWEN_RUNTIME_DIR`, else the
`advanced.runtimeOutputDir` setting, else `QWEN_HOME`, moves the `~/.qwen` part. Each line
is a record `{uuid, parentUuid, sessionId, timestamp, type, cwd, version, gitBranch, ...}`
of type `user`, `assistant` (Gemini `Content` parts: text, `thought` text,
`functionCall`; plus `model` and `usageMetadata`), `tool_result` (`functionResponse`
parts and `toolCallResult`) or `system` with a `subtype`.

Listing reads the head and the tail only: the id is the file stem (what `qwen --resume`
looks up), cwd / branch / version / times come from the records, the title from the
last `custom_title` record (else the first typed prompt), the model from the last
`session_model` record (else the last assistant `model`, else the newest prompt's
`executionContext.modelId`), the approval mode from the last `session_approval_mode`
(written by daemon sessions; else the newest prompt's `executionContext.approvalMode`), a
parent from `parent_session` (the session a `create_sub_session` call spawned it from).
A `/branch` fork copies its source's active records, each stamped `forkedFrom`
(chatRecordingService `forkSession`): the user's own session, `extra["forked_from_id"]`
naming the source; the copies are shown and bill nothing again. Qwen re-appends the
title record every 32 KB so a tail read finds it.

Usage: one `usage` event per assistant `uuid` (streamed replies can be written as several
fragments sharing one uuid: only the last fragment's `usageMetadata` counts). A record of
another uuid ends a response, and so does the main agent's `api_response` telemetry with
its counts (0.15.10 writes it as the stream ends, before the record): one a chat's read
ends on with neither is marked `unfinished` (`follow` holds it back until it is ended; a
sub-agent's transcript writes a record per round, each whole). Gemini
names: `promptTokenCount` includes `cachedContentTokenCount`, which is subtracted;
output is `candidatesTokenCount`, plus `thoughtsTokenCount` where the total counts them
apart (Gemini's API; an OpenAI-compatible provider's completion count already holds its
reasoning: `_thoughts_beside`). The main agent's `api_response`
telemetry duplicates its assistant records and is ignored. A workspace agent's
`agent_message` names its author in `agentId` without `isSidechain`: it is input from
that agent (`from_agent`), not a sub-agent; an `agent_mention` of one is a `meta` event.
Other bookkeeping subtypes are known and ignored, as is Code Mode's
`code_mode_tool_result` (a tool the code of an `exec` call ran; Qwen shows the outer
call's result only).

Sub-agents (the `agent` tool). Every run also shows in the chat as `ui_telemetry`:
`api_response` events carrying `subagent_name` (and, in 0.24, `subagent_id`) and
`tool_call` events whose `prompt_id` (`<session>#<run id>#<round>`) names the run (name,
arguments, outcome; no output). In 0.15.x that is all there is: the telemetry becomes the
run's usage and tool calls, under the run id as `agent_id`, and the spawn's `subagent`
event names the first unseen run of its `subagent_type` as its child (see `_Reader`);
`usageMetadata` on sidechain records in the chat is ignored (their calls are in the
telemetry). Since 0.21 (checked against 0.24.4) each run, foreground or background, also
writes its own transcript, `projects/<project>/subagents/<parent session id>/
agent-<agentId>.jsonl` (agentId `<config name>-<call id>`): records of the chat's shape
with `isSidechain`, `agentId`, `agentName`, `agentColor`, the task as the first `user`
record, one `assistant` record per model round with `usageMetadata`, `agentRunId` and
`agentRound` (no `model`), tool calls and results; beside it `agent-<agentId>.meta.json`
(`agentType`, `description`, `parentSessionId`, `toolUseId`, `parentAgentId` when a
sub-agent spawned it, `status`, `stats`, ...; best effort: may be missing or broken) and,
while the agent runs, `agent-<agentId>.jsonl.stream` (live text, ignored). Such a
transcript is listed as a session whose `parent_id` is its parent session (or spawning
sub-agent), titled by the meta's description, else its task; reading the parent reads it
right after the record that spawned it, its events tagged with its id. The spawn is
linked by the meta's `toolUseId`, else by a file name ending in the call id, else (a
guess) the oldest unread transcript of the spawn's type; one no spawn claims is read at
the end, announced by its meta's type and description, else its records' `agentName`
and its task, and ends its turn where its transcript ended on an answer (no answer to its
call read says it is done). Its usage comes from the transcript alone (see `_Reader.telemetry`).

Before 0.5 a session was Gemini CLI's old one-file JSON chat, its model's messages typed
`qwen`: `tmp/<sha256 of the project folder>/chats/session-*.json`, a file for each chat Qwen
set up in it (after /clear, a compression, a sub-agent run). Listed, shown (user prompts and
replies with their tokens: 0.1.x recorded no tool calls) and refused for resume, no release
reopening them (`_qwen_json_chats`). `tmp/<sha256>/logs.json`, the prompt log Qwen kept from
Gemini CLI, lists the sessions no chat file holds, prompts only (`_prompt_log`); a session a
chat file holds takes nothing from it. The folder of both is a path Qwen wrote down
elsewhere whose sha256 is the folder's name: a chat's `cwd`, `trustedFolders.json`,
`usage_record.jsonl`, or what older releases left beside the log (`_qwen_folders`).

Resume (`qwen --resume <id>`, measured with 0.24.4 in its TUI): a chat records no approval
mode (0.24.4's headless and TUI runs wrote none, whatever `--approval-mode` they had; only
`session_approval_mode` records and prompts' `executionContext`, which other builds and
daemon sessions write, name one), and a resume does not restore one: with no flag it starts
in the settings' `tools.approvalMode` (plan, yolo, ...), else in `default`. No flag only
caps it: `--approval-mode X` replaces the setting outright (`default` loosened a `plan`
setting), and only `plan` loosens nothing, too strict for a session that edited. So
`default` and `plan` are passed, and `auto-edit`, `auto` and `yolo` pass no flag (the
user's own setting, else default, applies) unless `--keep-permissions`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

import orjson

from .. import files, folders
from ..diagnostics import ODD_COUNT, Diagnostics, read_failed
from ..model import Event, Extra, JSONValue, ResumePlan, Session, Usage
from . import _prompt_log as prompt_log
from . import _qwen_folders as folders_of
from . import _qwen_json_chats as json_chats
from . import _qwen_subagents as sub
from ._gemini_messages import shell_report
from ._values import (
    Emitter,
    as_int,
    as_str,
    blob,
    epoch_or_iso_time,
    iso_time,
    json_copy,
    odd_count,
    one_line,
    plain,
    type_tag,
)
from .base import Home, Location, Opened, ResumeFlags, WholeRead, opened_by_flags

NAME = "qwen"
TITLE = "Qwen Code"
SCAN_NOTED = True  # locate reads only the environment; scan only lists and probes
CHECKED_WITH = (
    "qwen 0.15.10 and 0.24.4 (real files, 0.24.4's sub-agent transcripts too, 0.15.10's "
    "prompt log); "
    "0.21 record shapes (public synthetic samples)"
    "; resume checked against 0.24.4's --help and its TUI (the approval mode a resume "
    "starts in, with and without a flag or a setting)"
    "; the files naming a prompt log's folder from the 0.1.3, 0.5.0, 0.15.10, 0.21.2 and "
    "0.24.4 bundles; 0.1.x one-file chats from the 0.1.3 and 0.1.4 bundles' writer (no "
    "--resume in 0.1.3; 0.5.0 and 0.24.4 resume only projects/)"
    "; 0.24.4 is still the newest release (npm, 2026-12-07)"
)
NEWEST_CHECKED = "0.24.4"  # doctor names versions past it
ENV_VARS = ("QWEN_RUNTIME_DIR", "QWEN_HOME")
# its program, as `resume` runs it: `watch` shows a copy running with no session yet
CLI = ("qwen",)

INSTALL_HINT = "npm install -g @qwen-code/qwen-code"

# Approval modes no looser than the CLI's default ("default" asks before edits and shell).
_SAFE_MODES = {"default", "plan"}
# what `--approval-mode` takes (0.24.4's --help): any other word prints the help and
# starts nothing
_MODES = ("plan", "default", "auto-edit", "auto", "yolo")
# how a running qwen says which session it has open (0.24.4's --help)
RESUME_FLAGS = ResumeFlags(
    resume=("-r", "--resume"),
    latest=("-c", "--continue"),
    fork=("--fork-session",),
    new_id=("--session-id",),
)

_IGNORED_SYSTEM = {
    "attribution_snapshot",
    "slash_command",
    "at_command",
    "file_history_snapshot",
    "session_notes",
    "session_source",
    "session_execution_engine",
    "session_artifact_event",
    "session_artifact_snapshot",
    "session_sources_snapshot",
    "parent_session",
    "omni_recall",
    "agent_bootstrap",
    "agent_launch_prompt",
    "agent_retry",
    "agent_session_ready",
    "user_text_elements",
    "branch_checkpoint",
    "goal_state",
    "goal_runtime",
    "goal_turn_end",
    "background_task_completed",
    "managed_session_header_v1",
    "managed_session_event_v1",
    "managed_session_commit_v1",
}
# shown as a meta line: `agent_mention` is who a message was addressed to
_META_USER_SUBTYPES = {"notification", "cron", "goal_runtime", "agent_mention"}
# what an agent may write after its answer without going on: no sign it works still
_ASIDE = frozenset({"usage", "meta", "subagent"})
# Spawns waiting for their child, and children announced, kept per read (bounded).
_SPAWNS_CAP = 256
_CHILDREN_CAP = 100_000


def locate(home: Home) -> Location:
    """`QWEN_RUNTIME_DIR`, else the `advanced.runtimeOutputDir` setting, else `QWEN_HOME`,
    else `~/.qwen`. Settings stay in `QWEN_HOME` (else `~/.qwen`), as Qwen's Storage
    resolves them: that folder, where it is not the root, is `also` (it holds
    `trustedFolders.json` and `usage_record.jsonl`, which name project folders)."""
    notes: list[str] = []

    def named(variable: str) -> Path | None:
        value = home.environ.get(variable)
        folder = _resolved(home, value) if value else None
        if value and folder is None:  # each qwen run's own: sessdex cannot know it
            notes.append(
                f"{variable}={value} is not followed: qwen resolves a relative folder "
                "against the folder each run starts in, which sessdex cannot know"
            )
        return folder

    config = named("QWEN_HOME")
    root = config if config is not None else home.path / ".qwen"
    runtime = named("QWEN_RUNTIME_DIR")
    if runtime is not None:
        return Location(
            runtime,
            override=f"QWEN_RUNTIME_DIR={runtime}",
            also=(root,) if root != runtime else (),
            notes=tuple(notes),
        )
    settings = files.read_json_file(
        root / "settings.json", limit=1024 * 1024, comments=True
    )  # Qwen strips comments from its settings before parsing
    advanced = settings.get("advanced") if isinstance(settings, dict) else None
    value = advanced.get("runtimeOutputDir") if isinstance(advanced, dict) else None
    if isinstance(value, str) and value.strip():
        chosen = _resolved(home, value.strip())
        if chosen is not None:  # a relative one is per project: not found from here
            return Location(
                chosen,
                override=f"advanced.runtimeOutputDir in {root}/settings.json",
                also=(root,) if root != chosen else (),
                notes=tuple(notes),
            )
    if config is not None:
        return Location(config, override=f"QWEN_HOME={config}", notes=tuple(notes))
    return Location(root, notes=tuple(notes))


def _resolved(home: Home, value: str) -> Path | None:
    """The folder a variable or setting names, as Qwen resolves it: `~`, `~/…` or `~\\…`
    below the home on every OS (the rest split at either slash), an absolute path as it
    is; None for a relative one (resolved against the folder each qwen run starts in)."""
    if value == "~" or value.startswith(("~/", "~\\")):
        return home.path.joinpath(*(p for p in re.split(r"[/\\]+", value[2:]) if p))
    path = Path(value)
    return path if path.is_absolute() else None


def _config_dir(location: Location) -> Path:
    """Where Qwen keeps its settings: the root, unless the runtime folder moved it."""
    return location.also[0] if location.also else location.root


# where `scan` reads a chat, a sub-agent's transcript or a folder of them (see base.py):
# a broken link elsewhere (a note beside the chats) hides none
SESSION_NAMES = (
    "projects",
    "projects/*",
    "projects/*/chats",
    "projects/*/chats/*.jsonl",
    "projects/*/chats/archive",
    "projects/*/chats/archive/*.jsonl",
    "projects/*/subagents",
    "projects/*/subagents/*",
    "projects/*/subagents/*/agent-*.jsonl",
    "tmp",
    "tmp/*",
    "tmp/*/logs.json",
    "tmp/*/chats",
    "tmp/*/chats/session-*.json",
)


def scan(location: Location) -> Iterator[Path]:
    """Chats (`chats/`, `chats/archive/`), then sub-agent transcripts (listed under their
    parent): `subagents/<parent session>/agent-<id>.jsonl`, not its `.jsonl.stream`."""
    if not location.exists:
        return
    root = location.root
    trusted = _config_dir(location) / folders_of.TRUSTED
    if folders.is_file(trusted):
        yield trusted  # a context file (`context_of`)
    for project in folders.entries(root / "projects", root):
        if not project.is_dir():
            continue
        chats = Path(project.path) / "chats"
        for folder in (chats, chats / "archive"):
            for entry in folders.entries(folder, root):
                # `<id>.ledger.jsonl`: `qwen serve`'s prompt ledger, no conversation
                if (
                    entry.name.endswith(".jsonl")
                    and not entry.name.endswith(".ledger.jsonl")
                    and folders.file_entry(entry)
                ):
                    yield Path(entry.path)
        for parent in folders.entries(
            Path(project.path) / sub.SUBAGENTS, root, nested=True
        ):
            if not parent.is_dir():
                continue
            for entry in folders.entries(parent.path, root, nested=True):
                if sub.agent_of(entry.name) is not None and folders.file_entry(entry):
                    yield Path(entry.path)
    # each project's prompt log and 0.1.x chats (`tmp/<sha256 of its folder>/`)
    for project in folders.entries(root / "tmp", root):
        for entry in folders.entries(project.path, root) if project.is_dir() else []:
            if entry.name == prompt_log.FILE_NAME and entry.is_file():
                yield Path(entry.path)
            elif entry.name == "chats" and entry.is_dir():
                for chat in folders.entries(entry.path, root):
                    if json_chats.is_chat(Path(chat.path)) and folders.file_entry(chat):
                        yield Path(chat.path)


def context_of(path: str, location: Location) -> str | None:
    """`trustedFolders.json` beside the settings, for what is in `tmp/` (under the
    runtime folder, where one moved it): the folders whose sha256 names `tmp/<sha256>/`
    come from it (`_qwen_folders`). Not `usage_record.jsonl`, which each new session
    appends to: each would read all of `tmp/` again."""
    if path != str(_config_dir(location) / folders_of.TRUSTED):
        return None
    return os.path.join(location.root, "tmp")


def parse(path: Path, location: Location, diagnostics: Diagnostics) -> list[Session]:
    if path.name == folders_of.TRUSTED:  # read with what is in tmp/ (`context_of`)
        return []
    if path.name == prompt_log.FILE_NAME:
        cwd = folders_of.folder(location.root, path.parent, _config_dir(location))
        return prompt_log.sessions(path, diagnostics, NAME, cwd, {})
    if json_chats.is_chat(path):
        return json_chats.sessions(
            path, location.root, _config_dir(location), diagnostics
        )
    name = str(path)
    try:
        size = path.stat().st_size
        lines = _head_and_tail(path, size)
    except FileNotFoundError:
        diagnostics.skip(name, 0, "vanished")
        return []
    except OSError:
        diagnostics.skip(name, 0, "unreadable")
        return []
    files.note_unfinished_last(lines, diagnostics, name)

    child = sub.child_of(path)
    info: dict[str, str | None] = {}
    first: dict[str, object] | None = None
    last: dict[str, object] | None = None
    prompt: str | None = None
    for line in lines:
        wanted = any(marker in line.data for marker in _MARKERS) or (
            prompt is None and any(marker in line.data for marker in _USER_MARKERS)
        )
        if first is not None and not wanted:
            continue
        record = files.parse_json(line, diagnostics, name)  # a cut one counted
        if record is None:
            continue
        if first is None and _stamped(record):
            first = record
        if prompt is None and (child is not None or not record.get("isSidechain")):
            prompt = _typed_prompt(record)  # a sub-agent's first one is its task
        forked = record.get("forkedFrom")
        if isinstance(forked, dict) and "fork" not in info:
            info["fork"] = as_str(forked.get("sessionId"))
        payload = record.get("systemPayload")
        payload = payload if isinstance(payload, dict) else {}
        subtype = (
            type_tag(record.get("subtype")) if record.get("type") == "system" else None
        )
        if subtype == "custom_title":
            named = " ".join((as_str(payload.get("customTitle")) or "").split())
            # an empty title is Qwen's tombstone for a cleared one: the prompt shows again
            info["title"] = named or None
        elif subtype == "session_model":
            info["session_model"] = as_str(payload.get("modelId"))
        elif subtype == "session_approval_mode":
            info["mode"] = as_str(payload.get("mode"))
        elif subtype == "parent_session":
            info["parent"] = as_str(payload.get("parentSessionId"))
        context = record.get("executionContext")
        if record.get("type") == "user" and isinstance(context, dict):
            # newer CLIs stamp each prompt with its settings (the records above are
            # written by daemon sessions): the newest one read wins, after those records
            info["prompt_mode"] = as_str(context.get("approvalMode")) or info.get(
                "prompt_mode"
            )
            info["prompt_model"] = as_str(context.get("modelId")) or info.get(
                "prompt_model"
            )
    for line in reversed(lines):
        record = files.parse_json(line)
        if record is None or not _stamped(record):
            continue
        last = last or record
        if record.get("type") == "assistant" and as_str(record.get("model")):
            info["assistant_model"] = as_str(record.get("model"))
            break
    if first is None or last is None:
        if lines:  # records, but none says when: not a chat Qwen wrote
            diagnostics.skip(str(path), 1, "no timestamped record")
        return []

    version = as_str(last.get("version")) or as_str(first.get("version"))
    if version:
        diagnostics.versions[version] += 1
    extra: dict[str, JSONValue] = (
        {"archived": True} if path.parent.name == "archive" else {}
    )
    session_id = path.name[: -len(".jsonl")]
    parent_id = info.get("parent")
    if info.get("fork"):
        extra["forked_from_id"] = info["fork"]
    title = info.get("title") or prompt
    agent_type = None
    model = (
        info.get("session_model")
        or info.get("assistant_model")
        or info.get("prompt_model")
    )
    if child is not None:  # listed under its parent (a nested one under its spawner)
        meta = sub.meta_of(path.parent, child, diagnostics)
        session_id, parent_id = child, sub.parent_of(meta, path.parent.name)
        if parent_id == child:
            return []
        agent_type = sub.agent_type(meta) or as_str(first.get("agentName"))
        title = one_line(meta.get("description")) or prompt
        model = model or as_str(meta.get("model"))  # its records name no model
        if as_str(meta.get("status")):
            extra = {"status": as_str(meta.get("status"))}
    return [
        Session(
            app=NAME,
            id=session_id,
            path=name,
            cwd=as_str(first.get("cwd")),
            branch=as_str(last.get("gitBranch")) or as_str(first.get("gitBranch")),
            title=title,
            created=epoch_or_iso_time(first.get("timestamp")),
            updated=epoch_or_iso_time(last.get("timestamp")),
            model=model,
            permission_mode=info.get("mode") or info.get("prompt_mode"),
            cli_version=version,
            bytes=size,
            parent_id=parent_id,
            agent_type=agent_type,
            extra=extra,
        )
    ]


# Lines worth a JSON parse when listing: the metadata records (re-appended near the end).
_MARKERS = (
    b'"custom_title"',
    b'"session_model"',
    b'"session_approval_mode"',
    b'"parent_session"',
    b'"forkedFrom"',
    b'"executionContext"',
)


_USER_MARKERS = (b'"type":"user"', b'"type": "user"')


_TYPED_SUBTYPES = (None, "mid_turn_user_message", "realtime_message")  # what was typed


def resume_refusal(session: Session) -> str | None:
    """Why `resume` gives no command for a session only the prompt log or a 0.1.x chat
    holds."""
    if session.path and json_chats.is_chat(Path(session.path)):
        return json_chats.refusal(session)
    return prompt_log.refusal(session, "qwen", _chat_places(session))


def _chat_places(session: Session) -> Iterator[Path]:
    """Where a chat file of a session the prompt log names would be (`projects/*/chats`,
    its `archive/`): a log in `<home>/tmp/<project>/`; none for an id that is no name."""
    log = prompt_log.log_of(session)
    name = f"{session.id}.jsonl"
    if log is None or os.sep in name or name.startswith(".") or "\0" in name:
        return
    root = log.parent.parent.parent
    for project in folders.entries(root / "projects", root):
        if project.is_dir():
            chats = Path(project.path) / "chats"
            yield chats / name
            yield chats / "archive" / name


def companion_of(path: str) -> str | None:
    """The first file of a 0.1.x session, for its later files (they change its listing)."""
    return json_chats.companion_of(path)


def _stamped(record: dict[str, object]) -> bool:
    """Whether a record says when it was written (an ISO time, as Qwen writes it, or
    epoch seconds or milliseconds)."""
    return epoch_or_iso_time(record.get("timestamp")) is not None


def _task_of(path: Path) -> str | None:
    """A sub-agent transcript's task: its first typed `user` record's text, among its
    first lines (what its spawn's call asked)."""
    try:
        lines = files.head_lines(path, 8)
    except OSError:
        return None
    for line in lines:
        record = files.parse_json(line)
        task = _typed_prompt(record) if record is not None else None
        if task:
            return task
    return None


def _typed_prompt(record: dict[str, object]) -> str | None:
    """What the user typed, as the reader shows it, one line: a title when Qwen keeps
    none (it writes `custom_title` only once a title is set)."""
    if record.get("type") != "user" or record.get("subtype") not in _TYPED_SUBTYPES:
        return None
    return one_line(_user_text(record))


# Context a hook added to the user's message for the model, as a part of its own
# (`<qwen:user-prompt-submit-context>`, qwen-code PR #7956): not what the user typed.
_HOOK_CONTEXT = ("<qwen:user-prompt-submit-context", "<qwen:session-start-context")


def _user_text(record: dict[str, object]) -> str | None:
    """A user record's text: what the UI displayed, else the message's text parts but
    those a hook added."""
    payload = record.get("systemPayload")
    display = as_str(payload.get("displayText")) if isinstance(payload, dict) else None
    if display is not None:
        return display
    texts: list[str] = []
    for part in _parts(record.get("message")):
        text = part.get("text")
        inline = part.get("inlineData")
        linked = part.get("fileData")
        if isinstance(text, str):
            if not part.get("thought") and not text.lstrip().startswith(_HOOK_CONTEXT):
                texts.append(text)
        elif isinstance(inline, dict):  # an image sent with the prompt, in base64
            texts.append(blob(as_str(inline.get("mimeType")), inline.get("data")))
        elif isinstance(linked, dict) and (uri := as_str(linked.get("fileUri"))):
            texts.append(f"[file {uri}]")
    return "\n".join(texts) if texts else None


def _head_and_tail(path: Path, size: int) -> list[files.Line]:
    """The whole file when it is small, else its first lines and its last TAIL_BYTES."""
    if size <= files.TAIL_BYTES:
        return files.tail_lines(path)
    # a first prompt too long to hold (a pasted image or log) still titles it
    head = files.head_lines(path, openings=True)
    boundary = head[-1].offset if head else -1
    return head + [line for line in files.tail_lines(path) if line.offset > boundary]


def read_last(
    session: Session, diagnostics: Diagnostics, rows: int, *, full: bool = False
) -> Iterator[Event]:
    """`read` of only the last `rows` messages of a 0.1.x chat kept in one JSON file (see
    base.py, `_qwen_json_chats.last_events`); a session of several chat files, a prompt
    log's, and a JSONL chat (read from its end by offset) are read whole here."""
    path = Path(session.path or "")
    if not json_chats.is_chat(path) or prompt_log.log_of(session) is not None:
        raise WholeRead("a JSONL chat is read from its end; a prompt log whole")
    yield from json_chats.last_events(session, diagnostics, rows)


def read(
    session: Session, diagnostics: Diagnostics, *, full: bool = False, offset: int = 0
) -> Iterator[Event]:
    if not session.path:
        return
    if prompt_log.log_of(session) is not None:  # only the prompt log holds it
        yield from prompt_log.events(session, diagnostics, NAME, _chat_places(session))
        return
    path = Path(session.path)
    if json_chats.is_chat(path):  # a 0.1.x chat: one JSON document, no offsets
        yield from json_chats.events(session, diagnostics)
        return
    owner = sub.child_of(path)  # a sub-agent read on its own is the lead of its read
    family = None
    if not offset:  # a read from an offset serves `show --tail`: no sub-agent files
        folder = (
            path.parent
            if owner is not None
            else sub.project_of(path) / sub.SUBAGENTS / sub.sanitized(session.id)
        )
        family = sub.Family.beside(folder, owner, diagnostics, full=full)
    reader = _Reader(session.id, diagnostics, family=family, owner=owner)
    reader.path = session.path
    branches = _Rewinds.of(path, diagnostics) if not offset else _Rewinds([])
    try:
        for line, record in files.iter_records(
            session.path, diagnostics, offset=offset, full=full
        ):
            if (
                offset
                and line.offset == offset
                and not _at_line_start(session.path, offset)
            ):
                continue
            reader.line = line.number
            if branches.abandoned(record):
                # a rewind left it behind: gone from the chat, its spending still billed
                yield from _billed_only(reader.record(record))
                continue
            if (left := branches.left_behind) and record.get("subtype") == "rewind":
                branches.left_behind = 0
                yield from _billed_only(reader.flush())  # the branch's last response
                yield reader.event(
                    "meta",
                    iso_time(record.get("timestamp")),
                    text=f"rewound: {left} records left behind",
                    extra={"abandoned_branch": left},
                )
            yield from reader.record(record)
    except FileNotFoundError:
        diagnostics.problem(f"{NAME}: {session.path} vanished before it could be read")
    except OSError as error:
        diagnostics.problem(read_failed(NAME, session.path, error))
    yield from reader.finish()


def _billed_only(events: Iterator[Event]) -> Iterator[Event]:
    """Of a dead branch's events, the responses it billed, marked as the branch's."""
    for event in events:
        if event.kind == "usage":
            yield replace(event, extra={**event.extra, "branch": "abandoned"})


class _Rewinds:
    """The records each `rewind` left on a dead branch. Qwen rewinds by pointing the
    rewind record's `parentUuid` back at the record before the turn it returns to
    (chatRecordingService `rewindRecording`): every record after that one, up to the
    rewind, is what `/resume` no longer sees. Found by a first pass over the lines that
    name a rewind; a later rewind to an earlier turn takes in an earlier one's range."""

    def __init__(self, rewinds: list[tuple[str | None, str]]) -> None:
        self.order = {uuid: n for n, (_, uuid) in enumerate(rewinds)}
        self.starts: dict[str | None, int] = {}  # parent uuid -> the last rewind to it
        for n, (parent, _) in enumerate(rewinds):
            self.starts[parent] = n
        self.armed: tuple[str | None, int] | None = (
            None  # (after this uuid, until rewind n)
        )
        self.until: int | None = None  # inside a dead branch, until rewind n
        self.left_behind = 0  # records of the branch just closed
        if None in self.starts:  # rewound to the very first turn
            self.until = self.starts[None]

    @classmethod
    def of(cls, path: Path, diagnostics: Diagnostics) -> _Rewinds:
        from ._usage_scan import MarkedLines

        found: list[tuple[str | None, str]] = []
        try:
            for _, data, complete in MarkedLines(path, (b'"rewind"',), numbered=False):
                record = orjson.loads(data) if complete else None
                if (
                    isinstance(record, dict)
                    and record.get("subtype") == "rewind"
                    and (uuid := as_str(record.get("uuid")))
                ):
                    found.append((as_str(record.get("parentUuid")), uuid))
        except (OSError, orjson.JSONDecodeError):
            return cls([])
        return cls(found)

    def abandoned(self, record: dict[str, object]) -> bool:
        """Whether `record` sits on a dead branch (read in file order)."""
        if not self.order:
            return False
        uuid = as_str(record.get("uuid"))
        if self.until is not None:
            if uuid in self.order and self.order[uuid] == self.until:
                self.until = None  # the rewind that closes the branch: live again
                return False
            self.left_behind += 1
            if uuid in self.starts:  # a later rewind to a point inside this branch
                self.until = max(self.until, self.starts[uuid])
            return True
        if self.armed is not None and uuid != self.armed[0]:
            self.until, self.armed = self.armed[1], None
            return self.abandoned(record)
        if uuid in self.starts:
            self.armed = (uuid, self.starts[uuid])
        return False


def _at_line_start(path: str, offset: int) -> bool:
    with files.open_regular(path) as stream:
        stream.seek(offset - 1)
        return stream.read(1) == b"\n"


@dataclass(slots=True)
class _Spawn:
    """An `agent` tool call whose sub-agent has not shown itself yet."""

    call_id: str | None
    agent_type: str | None
    description: str | None
    time: datetime | None
    spawner: str | None


class _Reader:
    """Translates records into events, holding back one assistant usage until its uuid ends.

    A spawn whose sub-agent has a transcript (`family`) is announced at once, and that
    transcript is read, by a reader of its own, right after the record that spawned it.
    Otherwise the `subagent` event waits for its child's first record or telemetry line:
    the call does not name the child's run id (`general-purpose-eh56xt`), so the first
    unseen run of the spawn's `subagent_type` is taken as its child, oldest spawn first. A
    spawn answered, or left at the end of the read, with no child seen is announced
    without one.
    """

    def __init__(
        self,
        session_id: str,
        diagnostics: Diagnostics,
        *,
        family: sub.Family | None = None,
        owner: str | None = None,
        agent: str | None = None,
        depth: int = 0,
        event: Emitter | None = None,
        model: str | None = None,
        child: sub.Child | None = None,
    ) -> None:
        self.session_id = session_id
        self.diagnostics = diagnostics
        self.event = event or Emitter(session_id)
        self.family = family
        self.owner = owner  # the sub-agent whose own transcript this is; None: a chat
        self.agent = agent  # the agent_id of its records' events (None: the lead)
        self.model = model  # the model of its calls (a sub-agent's records name none)
        self.depth = depth
        self.child = child  # the transcript this reader reads, when merged
        self.linked: list[
            sub.Child
        ] = []  # transcripts to read after the current record
        # a response's usage held for its record's last copy: (uuid, usage, time,
        # agent, the line of an odd count it holds, else 0)
        self.pending: tuple[str, Usage, datetime | None, str | None, int] | None = None
        # what says the held usage is its response's last: the main agent's last
        # `api_response` telemetry's counts (written as the stream ended, before its
        # record, in 0.15.10), and whether the held usage's record matched them
        self.vouched: tuple[int, int, int] | None = None
        self.whole = False
        self.counted: set[str] = set()
        self.spawns: list[_Spawn] = []
        self.children: set[str] = set()
        self.managed = False
        self.copied = False  # the record being read is a fork's copy of its source's
        # the file and line of the record being read: where an odd count is said
        self.path = str(child.path) if child is not None else ""
        self.line = 0

    def flush(self, *, ended: bool = False) -> Iterator[Event]:
        """The usage held, once a record of another uuid ends its response, or the read
        `ended` on it: then, unless its telemetry vouched for it, marked `unfinished`
        (a later fragment may still come; `follow` holds it back until one ends it)."""
        if self.pending is not None:
            uuid, usage, time, agent, odd = self.pending
            self.pending = None
            # a sub-agent's transcript writes one record per model round (0.24.4): whole
            unfinished = ended and not self.whole and self.owner is None
            self.counted.add(uuid)
            if odd:
                self.diagnostics.damage(self.path, odd, ODD_COUNT)
            if self.child is not None:
                key = sub.usage_key(usage)
                if self.child.skip[key] > 0:  # billed by the telemetry read before it
                    self.child.skip[key] -= 1
                    return
                self.child.billed[key] += 1
            extra: Extra = {"unfinished": True} if unfinished else {}
            yield self.event("usage", time, agent_id=agent, usage=usage, extra=extra)

    def finish(self) -> Iterator[Event]:
        """What the end of the read settles: a held usage, spawns no child answered, and
        transcripts no spawn claimed (announced by themselves, then read)."""
        yield from self.flush(ended=True)
        while self.spawns:
            yield self._spawned(self.spawns.pop(0), None)
        if self.family is None or self.depth:
            return
        for child in self.family.orphans(self.owner):
            if child.merged:  # read meanwhile, as another one's spawn
                continue
            spawner = self.family.children.get(child.parent_agent or "")
            yield self.event(
                "subagent",
                child.first,
                agent_id=spawner.id if spawner and spawner.merged else self.agent,
                call_id=child.call_id,
                # no meta says what it was for: its task, as its listing's title
                text=child.description or _task_of(child.path),
                extra={"child_id": child.id, "agent_type": child.agent_type},
            )
            child.skip = self.family.billed_before(child)
            child.merged = True
            yield from self._read_child(child, orphan=True)

    def _read_child(self, child: sub.Child, *, orphan: bool = False) -> Iterator[Event]:
        """A sub-agent's own transcript, its events tagged with its id; an `orphan`'s
        (no call read names it) ends its turn where it ended on its answer."""
        if self.family is None or self.depth >= sub.CHILD_DEPTH:
            return
        reader = _Reader(
            self.session_id,
            self.diagnostics,
            family=self.family,
            owner=child.id,
            agent=child.id,
            depth=self.depth + 1,
            event=self.event,
            model=child.model or self.model,  # else it runs on its spawner's
            child=child,
        )
        said: Event | None = None  # its own last event of a turn's course
        try:
            for line, record in files.iter_records(
                child.path, self.diagnostics, full=self.family.full
            ):
                reader.line = line.number
                child.saw(
                    iso_time(record.get("timestamp")), as_str(record.get("agentName"))
                )
                for event in reader.record(record):
                    if event.agent_id == child.id and event.kind not in _ASIDE:
                        said = event
                    yield event
        except FileNotFoundError:
            self.diagnostics.problem(
                f"{NAME}: {child.path} vanished before it could be read"
            )
        except OSError as error:
            self.diagnostics.problem(read_failed(NAME, child.path, error))
        yield from reader.finish()
        if orphan and said is not None and said.kind == "assistant":
            # a sub-agent's run ends at a model round with no call (its transcript
            # writes no turn's end): where no answer to its call was read, its own
            # answer ends it, as a turn's end does another agent's
            yield self.event(
                "turn_end", said.time, agent_id=child.id, extra={"reason": "answered"}
            )
        if child.status in ("completed", "failed", "cancelled"):
            # how a background run ended, as its meta keeps it (agent.ts): a failed or
            # stopped one may end without a final answer
            yield self.event(
                "meta",
                child.last,
                agent_id=child.id,
                text=f"sub-agent {child.status}",
                extra={
                    "child_id": child.id,
                    "subagent_status": "failed" if child.status == "failed" else "done",
                },
            )

    def _spawned(self, spawn: _Spawn, child: str | None) -> Event:
        return self.event(
            "subagent",
            spawn.time,
            agent_id=spawn.spawner,
            call_id=spawn.call_id,
            text=spawn.description,
            extra={"child_id": child, "agent_type": spawn.agent_type}
            if child
            else {"agent_type": spawn.agent_type},
        )

    def _announce(
        self, child: str, name: str | None, time: datetime | None
    ) -> Iterator[Event]:
        """The `subagent` event for a run seen for the first time: its spawn's, else one
        without a call (a run whose spawn is not in what was read)."""
        if child in self.children or len(self.children) >= _CHILDREN_CAP:
            return
        self.children.add(child)
        spawn = next(
            (s for s in self.spawns if name and s.agent_type == name),
            None,
        ) or next(
            (
                s
                for s in self.spawns
                if s.agent_type is None
                or (not name and child.startswith(f"{s.agent_type}-"))
            ),
            None,
        )
        if spawn is not None:
            self.spawns.remove(spawn)
            yield self._spawned(spawn, child)
        else:
            yield self.event(
                "subagent", time, extra={"child_id": child, "agent_type": name}
            )

    def record(self, record: dict[str, object]) -> Iterator[Event]:
        uuid = as_str(record.get("uuid")) or ""
        if self.pending is not None and self.pending[0] != uuid:
            yield from self.flush()
        kind = type_tag(record.get("type"))
        time = iso_time(record.get("timestamp"))
        subtype = as_str(record.get("subtype"))
        version = as_str(record.get("version"))
        # a fork's copy of its source's record: billed in the source
        self.copied = isinstance(record.get("forkedFrom"), dict)
        if self.owner is not None:  # a sub-agent's own transcript: all of it is its own
            agent, bill = self.agent, True
        else:
            # a sub-agent's records in the chat are a side chain (their calls are billed
            # by the telemetry); a workspace agent's message to this session
            # (`agent_message`) names its author in agentId too, and is not one
            agent = as_str(record.get("agentId")) if record.get("isSidechain") else None
            bill = agent is None and not self.copied
            if agent is not None:
                yield from self._announce(agent, as_str(record.get("agentName")), time)
        if kind == "user":
            yield from self.user(record, subtype, time, agent, version)
        elif kind == "assistant":
            yield from self.assistant(record, uuid, time, agent, bill=bill)
        elif kind == "tool_result":
            # Code Mode: each tool an `exec` call's code ran answers on its own line,
            # under an id no call has; Qwen shows only the outer result, and so do we
            if subtype != "code_mode_tool_result":
                yield from self.tool_result(record, time, agent)
        elif kind == "system":
            yield from self.system(record, subtype, time, agent, version)
        else:
            self.diagnostics.unknown_type(str(kind), version)
        while self.linked:  # the transcripts this record's spawns started
            yield from self._read_child(self.linked.pop(0))

    def user(
        self,
        record: dict[str, object],
        subtype: str | None,
        time: datetime | None,
        agent: str | None,
        version: str | None,
    ) -> Iterator[Event]:
        text = _user_text(record)
        if subtype == "agent_message":  # what another agent of the workspace said here
            author = as_str(record.get("agentName")) or as_str(record.get("agentId"))
            if text:
                yield self.event(
                    "user",
                    time,
                    agent_id=agent,
                    text=text,
                    extra={"from_agent": author or "another agent", "subtype": subtype},
                )
        elif subtype in _META_USER_SUBTYPES:
            yield self.event(
                "meta", time, agent_id=agent, text=text, extra={"subtype": subtype}
            )
        elif subtype in _TYPED_SUBTYPES:
            if text:
                yield self.event("user", time, agent_id=agent, text=text)
        else:
            self.diagnostics.unknown_type(f"user/{subtype}", version)

    def assistant(
        self,
        record: dict[str, object],
        uuid: str,
        time: datetime | None,
        agent: str | None,
        *,
        bill: bool,
    ) -> Iterator[Event]:
        for part in _parts(record.get("message")):
            text = part.get("text")
            call = part.get("functionCall")
            if isinstance(text, str) and text:
                yield self.event(
                    "thinking" if part.get("thought") else "assistant",
                    time,
                    agent_id=agent,
                    text=text,
                )
            elif isinstance(call, dict):
                yield from self.tool_call(call, time, agent)
        model = as_str(record.get("model"))
        self.model = model or self.model
        # a sub-agent's records name no model: it runs on its meta's, else its spawner's
        counts = record.get("usageMetadata")
        usage = _usage(counts, model or (self.model if self.owner else None))
        vouched, self.vouched = self.vouched, None
        if bill and uuid not in self.counted:
            odd = self.line if _odd(counts) else 0
            if usage is not None:
                self.pending = (uuid, usage, time, agent, odd)
                self.whole = vouched is not None and vouched == _counts(counts)
            elif odd:  # every count odd: nothing billed, but said
                self.diagnostics.damage(self.path, odd, ODD_COUNT)

    def tool_call(
        self, call: dict[str, object], time: datetime | None, agent: str | None
    ) -> Iterator[Event]:
        name = as_str(call.get("name"))
        call_id = as_str(call.get("id"))
        args = call.get("args")
        yield self.event(
            "tool_call",
            time,
            agent_id=agent,
            tool=name,
            call_id=call_id,
            extra={"input": json_copy(args)},
        )
        if name in ("agent", "task") and isinstance(args, dict):
            spawn = _Spawn(
                call_id,
                as_str(args.get("subagent_type")),
                as_str(args.get("description")),
                time,
                agent,
            )
            family = self.family
            child = (
                family.link(call_id, spawn.agent_type, self.owner, time)
                if family
                else None
            )
            if child is not None:  # its transcript: read once this record is done
                spawn.agent_type = spawn.agent_type or child.agent_type
                spawn.description = spawn.description or child.description
                yield self._spawned(spawn, child.id)
                self.linked.append(child)
                return
            if (
                len(self.spawns) >= _SPAWNS_CAP
            ):  # never answered: announce, keep bounded
                yield self._spawned(self.spawns.pop(0), None)
            self.spawns.append(spawn)

    def tool_result(
        self, record: dict[str, object], time: datetime | None, agent: str | None
    ) -> Iterator[Event]:
        result = record.get("toolCallResult")
        status = result.get("status") if isinstance(result, dict) else None
        for part in _parts(record.get("message")):
            response = part.get("functionResponse")
            if not isinstance(response, dict):
                continue
            body = response.get("response")
            error = isinstance(body, dict) and "error" in body and "output" not in body
            call_id = as_str(response.get("id"))
            waiting = next((s for s in self.spawns if s.call_id == call_id), None)
            if call_id and waiting is not None:  # answered before any child was seen
                self.spawns.remove(waiting)
                yield self._spawned(waiting, None)
            text, tool = _result_text(body), as_str(response.get("name"))
            shown = result.get("resultDisplay") if isinstance(result, dict) else None
            # an agent run in the background answers at launch (agent.ts); it ends later
            launched = (
                isinstance(shown, dict) and shown.get("status") == "background"
            ) or (text or "").startswith("Background agent launched")
            yield self.event(
                "tool_result",
                time,
                agent_id=agent,
                call_id=call_id,
                tool=tool,
                text=text,
                is_error=bool(error or status in ("error", "cancelled")),
                extra={"launched": True} if launched else shell_report(text, tool),
            )

    def system(
        self,
        record: dict[str, object],
        subtype: str | None,
        time: datetime | None,
        agent: str | None,
        version: str | None,
    ) -> Iterator[Event]:
        payload = record.get("systemPayload")
        payload = payload if isinstance(payload, dict) else {}
        if subtype == "ui_telemetry":
            yield from self.telemetry(payload.get("uiEvent"), time)
        elif subtype == "chat_compression":
            yield self.event(
                "compaction", time, agent_id=agent, text=_compaction_summary(payload)
            )
        elif subtype == "custom_title":
            title = as_str(payload.get("customTitle"))
            yield self.event(
                "meta",
                time,
                agent_id=agent,
                text=f"title: {title}",
                extra={"title": title},
            )
        elif subtype == "session_model":
            model = as_str(payload.get("modelId"))
            yield self.event(
                "meta",
                time,
                agent_id=agent,
                text=f"model: {model}",
                extra={"model": model},
            )
        elif subtype == "session_approval_mode":
            mode = as_str(payload.get("mode"))
            yield self.event(
                "meta",
                time,
                agent_id=agent,
                text=f"approval mode: {mode}",
                extra={"permission_mode": mode},
            )
        elif subtype == "rewind":
            count = payload.get("truncatedCount")
            yield self.event(
                "meta",
                time,
                agent_id=agent,
                text=f"rewind: {count} items dropped",
                extra={"rewind": True},
            )
        elif subtype == "turn_result":
            state = as_str(payload.get("state"))
            if state == "completed":
                yield self.event(
                    "turn_end",
                    time,
                    agent_id=agent,
                    extra={"reason": json_copy(payload.get("stopReason"))},
                )
            else:
                error = payload.get("error")
                message = (
                    as_str(error.get("message")) if isinstance(error, dict) else None
                )
                yield self.event(
                    "error", time, agent_id=agent, text=message or f"turn {state}"
                )
        elif subtype == "managed_session_header_v1" and not self.managed:
            self.managed = True  # the conversation lives in the managed engine's log
            yield self.event(
                "meta",
                time,
                agent_id=agent,
                text="a managed-engine session: its conversation is kept in records "
                "sessdex does not read yet",
                extra={"engine": "managed"},
            )
        elif subtype in _IGNORED_SYSTEM:
            return
        else:
            self.diagnostics.unknown_type(f"system/{subtype}", version)

    def _subagent_tool(
        self, event: dict[str, object], time: datetime | None
    ) -> Iterator[Event]:
        """A sub-agent's tool call, known only from its telemetry (its run keeps no
        transcript): name, arguments, outcome and duration, but no output. The lead's
        own calls are in its records, and are left to them."""
        run = as_str(event.get("subagent_id")) or _run_of(event.get("prompt_id"))
        if run is None:
            return
        name = as_str(event.get("subagent_type"))
        if self.family is not None and self.family.claim(run, name, time):
            return  # its transcript, read at its spawn, has this call
        yield from self._announce(run, name, time)
        tool = as_str(event.get("function_name"))
        status = as_str(event.get("status"))
        yield self.event(
            "tool_call",
            time,
            agent_id=run,
            tool=tool,
            extra={
                "input": json_copy(event.get("function_args")),
                "status": status,
                "duration_ms": json_copy(event.get("duration_ms")),
            },
        )
        if event.get("success") is False or status in ("error", "cancelled"):
            reason = (
                as_str(event.get("error")) or f"{tool or 'a tool'} {status or 'failed'}"
            )
            yield self.event("error", time, agent_id=run, text=reason)

    def telemetry(self, event: object, time: datetime | None) -> Iterator[Event]:
        if not isinstance(event, dict):
            return
        name = event.get("event.name")
        if name == "qwen-code.api_error":
            message = (
                as_str(event.get("error_message"))
                or as_str(event.get("error"))
                or "API error"
            )
            # a sub-agent's failed call (0.2x names its run) is that sub-agent's error
            failed = as_str(event.get("subagent_name")) or as_str(
                event.get("subagent_type")
            )
            agent: str | None = None
            if failed is not None:
                run = as_str(event.get("subagent_id")) or _subagent_run(
                    event.get("prompt_id"), failed
                )
                child = self.family.claim(run, failed, time) if self.family else None
                if child is None:
                    yield from self._announce(run, failed, time)
                agent = child.id if child is not None else run
            yield self.event(
                "error",
                time,
                agent_id=agent,
                text=message,
                extra={"model": json_copy(event.get("model"))},
            )
            return
        if name == "qwen-code.tool_call":
            yield from self._subagent_tool(event, time)
            return
        subagent = as_str(event.get("subagent_name")) or as_str(
            event.get("subagent_type")
        )
        if name == "qwen-code.api_response" and subagent is None:
            # the main agent's: its record follows with these counts, whole
            self.vouched = (
                as_int(event.get("input_token_count"), floats=False),
                as_int(event.get("output_token_count"), floats=False),
                as_int(event.get("total_token_count"), floats=False),
            )
        if name != "qwen-code.api_response" or subagent is None:
            return
        run = as_str(event.get("subagent_id")) or _subagent_run(
            event.get("prompt_id"), subagent
        )
        # each 0 below 0 (broken), as a record's `usageMetadata`
        thoughts, prompt, made, total, cached = (
            max(0, as_int(event.get(key), floats=False)) for key in _TELEMETRY_COUNTS
        )
        usage = Usage(
            input_tokens=max(0, prompt - cached),
            output_tokens=made + _thoughts_beside(prompt, made, thoughts, total),
            cache_read_tokens=cached,
            reasoning_tokens=thoughts,
            model=as_str(event.get("model")),
        )
        odd = any(odd_count(event.get(key)) for key in _TELEMETRY_COUNTS)
        # Each call of a sub-agent is billed once. Since 0.21 a sub-agent's own transcript
        # carries its calls (usageMetadata per round) and is read at its spawn, before
        # these lines: its transcript wins, so its usage sits among its events, under the
        # id its `subagent` event names (what `tree` and per-agent totals group by). A
        # telemetry line is then dropped when the transcript billed a call with the same
        # figures, and billed under the transcript's id when it did not (writers that
        # left a round's usage out). Runs no transcript stands for (0.15.x, a transcript
        # gone, a read from an offset) are billed from here alone.
        if self.copied:
            return  # a fork's copy: billed in its source
        if odd:
            self.diagnostics.damage(self.path, self.line, ODD_COUNT)
        child = self.family.claim(run, subagent, time) if self.family else None
        if child is not None:
            if child.billed[sub.usage_key(usage)] > 0:
                child.billed[sub.usage_key(usage)] -= 1
                return
            yield self.event("usage", time, agent_id=child.id, usage=usage)
            return
        if self.family is not None:  # an orphan transcript read later skips it
            self.family.billed.append((subagent, time, sub.usage_key(usage)))
        yield from self._announce(run, subagent, time)
        yield self.event("usage", time, agent_id=run, usage=usage)


def leads_on(line: bytes) -> bool:
    """Whether a chat's line is the main agent's `api_response` telemetry, which vouches
    for the record written after it (`_Reader.telemetry`): `follow`, its read having
    ended on one, reads on from it, not past it (a cheap byte test: a sub-agent's names
    its `subagent_name`)."""
    return b'"qwen-code.api_response"' in line and b'"subagent_' not in line


def _run_of(prompt_id: object) -> str | None:
    """The sub-agent run a `<session>#<agent>-<suffix>#<round>` prompt id names, if any."""
    parts = prompt_id.split("#") if isinstance(prompt_id, str) else []
    return parts[1] if len(parts) == 3 and parts[1] else None


def _subagent_run(prompt_id: object, name: str) -> str:
    """`<session>#<agent>-<suffix>#<round>` names one sub-agent run; fall back to its name."""
    return _run_of(prompt_id) or name


def _thoughts_beside(prompt: int, made: int, thoughts: int, total: int) -> int:
    """The thinking tokens to add to the output count: 0 when the output already holds
    them. Qwen maps an OpenAI-compatible provider's usage (its default: Qwen OAuth,
    DashScope, OpenRouter) with `candidatesTokenCount` = completion_tokens, reasoning
    included, and `thoughtsTokenCount` = their reasoning part, the total being prompt +
    completion (openaiContentGenerator/converter.ts); Gemini's own API counts thoughts
    apart, in the total too. Without a total, the default provider's rule holds."""
    if thoughts and total >= prompt + made + thoughts:
        return thoughts
    return 0


# a sub-agent's `api_response` telemetry counts, in the order `telemetry` takes them
_TELEMETRY_COUNTS = (
    "thoughts_token_count",
    "input_token_count",
    "output_token_count",
    "total_token_count",
    "cached_content_token_count",
)
# a response's `usageMetadata` counts, as `_usage` reads them
_COUNTS = (
    "promptTokenCount",
    "cachedContentTokenCount",
    "thoughtsTokenCount",
    "candidatesTokenCount",
    "totalTokenCount",
)


def _odd(value: object) -> bool:
    """Whether a response's `usageMetadata` holds a count no app writes (`odd_count`)."""
    return isinstance(value, dict) and any(odd_count(value.get(k)) for k in _COUNTS)


def _counts(value: object) -> tuple[int, int, int] | None:
    """A record's `usageMetadata` as its `api_response` telemetry names it."""
    if not isinstance(value, dict):
        return None
    prompt, made, total = (
        as_int(value.get(key), floats=False)
        for key in ("promptTokenCount", "candidatesTokenCount", "totalTokenCount")
    )
    return prompt, made, total


def _usage(value: object, model: str | None) -> Usage | None:
    if not isinstance(value, dict) or not value:
        return None
    # each 0 below 0 (broken): less a negative cached count, the input grew by it
    prompt, cached, thoughts, made, total = (
        max(0, as_int(value.get(key), floats=False)) for key in _COUNTS
    )
    output = made + _thoughts_beside(prompt, made, thoughts, total)
    if not (prompt or output):
        return None
    return Usage(
        input_tokens=max(0, prompt - cached),
        output_tokens=output,
        cache_read_tokens=cached,
        reasoning_tokens=thoughts,
        model=model,
    )


def _compaction_summary(payload: dict[str, object]) -> str | None:
    history = payload.get("compressedHistory")
    if isinstance(history, list):
        for content in history:
            text = _joined_text(content)
            if text:
                return text
    return None


def _parts(message: object) -> list[dict[str, object]]:
    parts = message.get("parts") if isinstance(message, dict) else None
    return (
        [part for part in parts if isinstance(part, dict)]
        if isinstance(parts, list)
        else []
    )


def _joined_text(message: object) -> str | None:
    texts = [
        part["text"]
        for part in _parts(message)
        if isinstance(part.get("text"), str) and not part.get("thought")
    ]
    return "\n".join(texts) if texts else None  # type: ignore[arg-type]


def _result_text(body: object) -> str | None:
    if isinstance(body, dict):
        for key in ("output", "error"):
            value = body.get(key)
            if isinstance(value, str):
                return plain(value, "output")
    if body is None:
        return None
    if isinstance(body, str):
        return plain(body, "output")
    return orjson.dumps(body).decode()


def resume(session: Session, *, keep_permissions: bool = False) -> ResumePlan | None:
    """`qwen --resume <id>` in the session's folder, keeping its model and a safe approval mode.

    Approval modes `default` and `plan` are passed, as qwen's flag overrides its
    settings; `auto-edit`, `auto` and `yolo` are withheld unless `keep_permissions`,
    and a mode the flag does not take is left out, said in a note.
    """
    if session.path and sub.child_of(Path(session.path)) is not None:
        return None  # a sub-agent: its parent is the session to reopen
    if prompt_log.log_of(session) is not None:
        return None  # only its prompts are left: no chat for qwen to resume
    if session.path and json_chats.is_chat(Path(session.path)):
        return None  # a 0.1.x chat, which no release reopens
    argv = ["qwen", "--resume", session.id]
    withheld: list[str] = []
    if session.model:
        argv += ["--model", session.model]
    mode = session.permission_mode
    notes: list[str] = []
    if mode and mode not in _MODES:  # a sub-agent's `bubble`, another build's own
        notes.append(
            f"left out the approval mode {mode!r}: qwen takes {', '.join(_MODES[:-1])} "
            f"or {_MODES[-1]}"
        )
        mode = None
    # `default` is passed too: without a flag qwen takes the settings' approvalMode
    # (yolo, where a user set it), else default (0.24.4, measured); a looser one passes
    # nothing: no flag caps the setting, and `default` would loosen a `plan` one
    if mode in _SAFE_MODES or (mode and keep_permissions):
        argv += ["--approval-mode", mode]
    elif mode and mode not in _SAFE_MODES:
        withheld.append(f"--approval-mode {mode}")
    extra: Extra = session.extra
    if extra.get("archived"):
        notes.append("archived session: Qwen may not list it")
    return ResumePlan(
        argv=tuple(argv),
        cwd=session.cwd or ".",
        program="qwen",
        install_hint=INSTALL_HINT,
        notes=tuple(notes),
        withheld=tuple(withheld),
    )


def process_session(args: Sequence[str]) -> Opened | None:
    """What a running `qwen` has open, read back from the words `resume` writes:
    `--resume <id>` (`-r`) that session, `--continue` (`-c`) its project's latest; with
    `--fork-session`, a new session (the one `--session-id` names, when given). A picker
    (`--resume` alone) or a title: one not known yet."""
    return opened_by_flags(args, RESUME_FLAGS)
