"""Cline's SDK session store: a manifest and a messages file per session, read for `cline`.

Not a source itself. Cline's SDK session layer (the `cline` CLI, and the VS Code extension
from 4.1 where it runs on the SDK) writes each session to `<sessions>/<id>/`, where
`<sessions>` is `$CLINE_SESSION_DATA_DIR`, else `<data>/sessions` with `<data>` =
`$CLINE_DATA_DIR`, else `${CLINE_DIR:-~/.cline}/data`. Ids look like `<epoch ms>_<5 chars>`.

- `<id>.json`, the manifest (`version: 1`, `session_id`, `source` "cli", "vscode", …,
  `started_at`/`ended_at` ISO times, `status`, `provider`, `model`, `cwd`,
  `workspace_root`, `prompt`, `metadata.title`; CLI 3.0.65 adds `metadata.git.branch` and
  `metadata.sessionHistoryOrigin.version`, the client's version), rewritten whole on status
  or title changes.
- `<id>.messages.json`: `{version, updated_at, agent, sessionId, origin, messages: […]}`,
  rewritten whole after each turn. A message is `{id, role: user|assistant, content, ts
  (epoch ms), modelInfo {id, provider}, metrics {inputTokens, outputTokens,
  cacheReadTokens, cacheWriteTokens, cost}, metadata}`; content is a string or blocks
  (`text`, `thinking`, `redacted_thinking`, `tool_use`, `tool_result`, `image`, `file`,
  `media`). Tool results come back in a user message, linked by `tool_use_id`.
- `<agentId>.messages.json` beside them: a sub-agent the `spawn_agent` tool ran (its own
  session id is `<id>__<agentId>`); `<agentId>__<taskId>.messages.json`: a team task.
- `<id>.compaction.json`: the compacted history the model is sent from then on; the
  messages file keeps the whole history.

We list a session from its manifest (id, folder, branch, CLI version, title: `metadata.title`, else the prompt's
first line; created, model, status) and from the first bytes of its messages file (its
`updated_at`, the last write). Events come from the messages file: user text (without the
`<user_input>`/`<mode_notice>` wrappers Cline adds), assistant text, thinking, tool calls
and results, provider-run tools (`metadata.modelToolActivities`), invalid tool calls as
errors, and one `usage` event per assistant message from `metrics`. Its `inputTokens` is the
whole prompt, cache reads and writes included (the AI SDK convention; Cline's own
`legacyTokenUsageFromUsageEvent` subtracts them for its history figures): we subtract them
too, never below 0. A sub-agent's file is read where its `spawn_agent` call is (spawns and
files matched in order of time: the files do not name the call), its events carrying its
session id as `agent_id`; team tasks and unmatched files follow the lead's events. A
compaction sidecar adds one `compaction` event where the compacted history ends, and a
`failed` manifest status an `error` at the end. A `/fork` (manifest `metadata.fork`:
`forkedFromSessionId`, `forkedAt`) starts with a copy of its source's messages, times and
`metrics` included: shown, but billed only in the source (those sent before `forkedAt`).
A messages file over 4 MB is read one message at a time (`jsonstream`); a manifest or
sidecar over 4 MB without its prompt or messages.

Ignored: the index database `<data>/db/sessions.db` (the files hold all we show, and we do
not open another app's SQLite when files suffice), `system_prompt`, signatures, the
compacted messages themselves, and the manifest's absolute `messages_path` (we read the
file beside the manifest, where upstream writes it, so a copied home reads its own). Checked against cline/cline
@21cb8d2525bc (2026-08-22; CLI 3.0.56, extension 4.1.13): sdk/packages/core/src/session/
models/session-manifest.ts, session/models/session-graph.ts, session/stores/
session-manifest-store.ts, services/session-artifacts.ts, services/session-data.ts,
services/agent-events.ts, sdk/packages/shared/src/llms/messages.ts, shared/src/storage/
paths.ts, shared/src/prompt/format.ts, agents/src/agent-runtime.ts; apps/cli/src/commands/
program.ts (`--id`). Real sessions of CLI 3.0.65 (the conformance suite's) agree, and add
the branch, the version, built-in tools' results as `{query, result, success}` records
(shown as what they printed), and a session left open by a closed TUI marked `failed` by
Cline's stale-session check (`metadata.terminal_marker`), which we say as such.

Ready for the next release (cline/cline's default branch past @21cb8d2525bc, as the code
index holds it: session/models/message-annotations.ts @7d99971b, services/
session-blob-store.ts @45949489): an assistant message names the child sessions its tool
calls started (`childSessions`: `{toolCallId, sessionId, kind}`), and a sub-agent's or
team task's file is read where the call that started it is (the time order above stays for
files no link names); an image of 16 KiB of base64 or more is kept in the session's
`blobs/<sha256>.<ext>` and the history holds an `image_ref` (`blobId`, `mediaType`,
`bytes`), shown as a note like an inline image, the blob never read. No real file yet.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, Unpack

import orjson

from .. import files, folders
from ..diagnostics import Diagnostics, odd_in
from ..model import Event, EventKind, JSONValue, ResumePlan, Session, Usage
from ._values import (
    Emitter,
    EventFields,
    as_dict,
    as_int,
    as_str,
    blob,
    file_size,
    first_line,
    iso_time,
    ms_time,
    odd_count,
    plain,
    shown_json,
    stripped,
    type_tag,
)
from .base import Home, WholeRead

APP = "cline"
MANIFEST_CAP = 4 * 1024 * 1024  # a manifest holds a prompt and metadata, no messages
WHOLE_CAP = files.WHOLE_JSON_CAP  # a bigger messages file is read a message at a time
HEAD_BYTES = 1024  # where `updated_at` sits, second in the messages file
MESSAGES = ".messages.json"
SPAWN_TOOL = "spawn_agent"

_UPDATED = re.compile(rb'"updated_at"\s*:\s*"([^"\\]{1,64})"')
_FIRST_TS = re.compile(rb'"ts"\s*:\s*(\d{10,})')
_MODE_NOTICE = re.compile(r"<mode_notice>.*?</mode_notice>", re.DOTALL)
_USER_INPUT = re.compile(r"<user_input\b[^>]*>(.*?)</user_input>", re.DOTALL)
_OPEN_TAG = re.compile(r"</?user_input\b[^>]*>")
_COMMAND = re.compile(
    r'^\s*<user_command\b[^>]*\bslash="([^"]+)"[^>]*>(.*?)</user_command>\s*$',
    re.DOTALL,
)


def sessions_dir(home: Home) -> tuple[Path, str | None]:
    """Where the SDK keeps session folders for `home`, and the override that says so."""
    for variable, below in (
        ("CLINE_SESSION_DATA_DIR", ()),
        ("CLINE_DATA_DIR", ("sessions",)),
        ("CLINE_DIR", ("data", "sessions")),
    ):
        value = home.env_dir(variable)
        if value is not None:
            return value.joinpath(*below), f"{variable}={home.environ[variable]}"
    return home.path / ".cline" / "data" / "sessions", None


def scan(folder: Path) -> Iterator[Path]:
    """Each session's manifest and messages file; sub-agent files are read with their lead."""
    for entry in folders.entries(folder, folder):
        if not entry.is_dir():
            continue
        session = Path(entry.path)
        for name in (f"{entry.name}.json", f"{entry.name}{MESSAGES}"):
            if folders.is_file(session / name):
                yield session / name


def owns(path: Path) -> bool:
    """Whether `path` is a manifest or lead messages file this store lists."""
    folder = path.parent.name
    return path.name in (f"{folder}.json", f"{folder}{MESSAGES}")


def parse(path: Path, diagnostics: Diagnostics) -> list[Session]:
    if path.name.endswith(MESSAGES):
        return _parse_messages(path)
    manifest = _small_object(path, frozenset({"prompt"}), diagnostics)
    if manifest is None:
        return []
    metadata = as_dict(manifest.get("metadata"))
    title = stripped(metadata.get("title")) or first_line(
        display_text(manifest.get("prompt"))
    )
    created = iso_time(manifest.get("started_at"))
    extra: dict[str, JSONValue] = {"store": "sdk"}
    for key in ("status", "source", "provider"):
        value = as_str(manifest.get(key))
        if value:
            extra[key] = value
    fork = as_dict(metadata.get("fork"))  # `/fork`: a new session seeded with a copy
    if source := stripped(fork.get("forkedFromSessionId")):
        extra["forked_from_id"] = source
        if (forked_at := iso_time(fork.get("forkedAt"))) is not None:
            extra["forked_at"] = forked_at.isoformat()
    return [
        Session(
            app=APP,
            id=path.parent.name,
            path=str(path),
            cwd=stripped(manifest.get("cwd"))
            or stripped(manifest.get("workspace_root")),
            branch=stripped(as_dict(metadata.get("git")).get("branch")),
            title=title,
            created=created,
            updated=iso_time(manifest.get("ended_at")) or created,
            model=stripped(manifest.get("model")) or stripped(metadata.get("modelId")),
            # the version of the client that started it (the CLI's, for source "cli")
            cli_version=stripped(
                as_dict(metadata.get("sessionHistoryOrigin")).get("version")
            ),
            extra=extra,
        )
    ]


def _parse_messages(path: Path) -> list[Session]:
    """The messages file: its last write, its size; it names the path `read` takes."""
    try:
        size = path.stat().st_size
        with files.open_binary(path) as stream:
            head = stream.read(HEAD_BYTES)
    except FileNotFoundError:
        return []
    found = _UPDATED.search(head)
    updated = iso_time(found.group(1).decode("utf-8", "replace")) if found else None
    return [
        Session(
            app=APP,
            id=path.parent.name,
            path=str(path),
            updated=updated,
            bytes=size,
            precedence=1,  # its path and time win; the manifest says the rest
            extra={"store": "sdk"},
        )
    ]


def resume(session: Session) -> ResumePlan | None:
    """`cline --id <id>` in the session's folder, for sessions the CLI started, with its
    provider and model (`-P`, `-m`: a resumed session otherwise takes the CLI's current
    configuration). Others (the VS Code extension's) are reopened from the editor's
    History view: None. The CLI approves tools itself by default: nothing to keep stricter."""
    source = session.extra.get("source")
    if source not in (None, "cli") or not session.cwd:
        return None
    argv = ["cline", "--id", session.id]
    provider = session.extra.get("provider")
    if session.model:
        if isinstance(provider, str) and provider:
            argv += ["-P", provider]
        argv += ["-m", session.model]
    return ResumePlan(
        argv=tuple(argv),
        cwd=session.cwd,
        program="cline",
        install_hint="npm install -g cline",
    )


# --- reading ---------------------------------------------------------------------------


@dataclass(slots=True)
class _Child:
    """A sub-agent's or team task's messages file in the lead's folder."""

    path: Path
    session_id: str  # `<lead>__<file stem>`, as Cline names it
    name: str  # the file stem: the agent id (and team task id)
    agent_type: str  # "subagent" or "teammate"
    start: int  # its first message time (epoch ms), or a big number when unknown


@dataclass(slots=True)
class _State:
    children: list[_Child] = field(default_factory=list)  # not yet read, in time order

    def take(self, session_id: str) -> _Child | None:
        """The file of the child session a message's `childSessions` link names."""
        for index, child in enumerate(self.children):
            if child.session_id == session_id:
                return self.children.pop(index)
        return None

    def next_subagent(self) -> _Child | None:
        """The oldest sub-agent file no spawn has claimed (team tasks are not spawned)."""
        for index, child in enumerate(self.children):
            if child.agent_type == "subagent":
                return self.children.pop(index)
        return None


def read(
    session: Session, diagnostics: Diagnostics, offset: int = 0
) -> Iterator[Event]:
    """The lead's events, its sub-agents' inlined; `offset` only leaves sub-agents out."""
    if session.path is None:
        return
    folder = Path(session.path).parent
    messages = folder / f"{session.id}{MESSAGES}"
    if not messages.is_file():
        diagnostics.problem(f"{APP}: {messages} is missing; only the listing is shown")
        return
    reader = _Reader(session, diagnostics)
    state = _State(_children(folder, session.id) if offset == 0 else [])
    count = 0
    compacted = _compacted_at(folder, session.id, diagnostics)
    for message in _messages(messages, diagnostics):
        if compacted is not None and count == compacted:
            yield reader.compaction(compacted)
        count += 1
        if message is not None:
            yield from reader.message(message, None, state, str(messages))
    if compacted is not None and compacted >= count:
        yield reader.compaction(compacted)
    for child in state.children:  # team tasks, and sub-agents no spawn was matched to
        yield from reader.child(child, None, None)
    yield from _failed(reader, folder, session.id)


def read_last(session: Session, diagnostics: Diagnostics, rows: int) -> Iterator[Event]:
    """`read` of only the session's last `rows` messages (see base.py), found from the
    messages file's end (`json_chat.last_messages`): each message is translated alone
    (a tool result names its call). Not where a compaction sidecar is (it is placed by
    its count of messages from the first) nor beside sub-agent or team-task files (which
    each spawn takes depends on the spawns before it, and those left over end the read)."""
    from ._json_chat import Compact, last_messages

    if session.path is None:
        raise WholeRead("no file")
    folder = Path(session.path).parent
    messages = folder / f"{session.id}{MESSAGES}"
    if _children(folder, session.id):
        raise WholeRead("its sub-agents' files are placed by the spawns before them")
    if _compacted_at(folder, session.id, Diagnostics()) is not None:
        raise WholeRead("a compaction is placed by its count of messages")
    # the CLI writes its `system_prompt` (a few KB) after the messages; one written on
    # one line (another tool's copy) is read from its end too: `{…, sessionId, …,
    # messages: [{role}], system_prompt}`
    compact = Compact("sessionId", "role")
    found = last_messages(messages, rows, then=b'"system_prompt": ', compact=compact)
    found = found or last_messages(messages, rows)
    if found is None:
        raise WholeRead("not laid out to be read from its end, or no longer than that")
    reader = _Reader(session, diagnostics)
    for message in found:
        yield from reader.message(message, None, None, str(messages))
    yield from _failed(reader, folder, session.id)


def _failed(reader: _Reader, folder: Path, session_id: str) -> Iterator[Event]:
    """The error that ends a session its manifest says `failed`, if it does."""
    manifest = _small_object(folder / f"{session_id}.json", frozenset({"prompt"})) or {}
    if manifest.get("status") == "failed":
        code = manifest.get("exit_code")
        text = (
            f"session failed (exit code {code})"
            if isinstance(code, int)
            else "session failed"
        )
        marker = as_dict(manifest.get("metadata")).get("terminal_marker")
        if marker == "failed_external_process_exit":
            # Cline's stale-session check: the process that had it open was gone (a TUI
            # left with /quit is marked so too), not a failed run
            text = "marked failed by Cline: the process that had it open had exited"
        # the run is over: Cline will not try again
        yield reader.emit(
            "error",
            iso_time(manifest.get("ended_at")),
            text=text,
            extra={"final": True},
        )


class _Reader:
    """Translates stored messages into events; numbering runs across lead and children."""

    def __init__(self, session: Session, diagnostics: Diagnostics) -> None:
        self.session = session
        self.diagnostics = diagnostics
        self.emit = Emitter(session.id)
        # a fork's messages from before `forkedAt` are copies its source paid for
        self.forked_at = iso_time(session.extra.get("forked_at"))

    def compaction(self, count: int) -> Event:
        return self.emit(
            "compaction", extra={"reason": "compaction", "messages_before": count}
        )

    def child(
        self, child: _Child, call_id: str | None, task: str | None
    ) -> Iterator[Event]:
        extra: dict[str, JSONValue] = {
            "child_id": child.session_id,
            # a spawn_agent sub-agent (createDelegatedAgent kind "subagent") has no type
            # beyond that: it is named by its id
            "agent_type": "teammate" if child.agent_type == "teammate" else "subagent",
            "agent_name": child.name,
        }
        start = ms_time(child.start) if child.start < _UNKNOWN else None
        yield self.emit("subagent", start, call_id=call_id, text=task, extra=extra)
        for message in _messages(child.path, self.diagnostics):
            if message is not None:
                yield from self.message(
                    message, child.session_id, None, str(child.path)
                )

    def message(
        self,
        message: dict[str, object],
        agent: str | None,
        state: _State | None,
        path: str,  # the file it is read from: where an odd count is said
    ) -> Iterator[Event]:
        time = ms_time(message.get("ts"))

        def event(kind: EventKind, **fields: Unpack[EventFields]) -> Event:
            fields["agent_id"] = agent
            return self.emit(kind, time, **fields)

        role = type_tag(message.get("role"))
        if role == "user":
            yield from self._user(message.get("content"), event)
        elif role == "assistant":
            calls: list[tuple[str | None, str | None, str | None]] = []
            yield from self._assistant(message, event, calls, path)
            if state is not None:
                links = _child_links(message)
                for call_id, name, task in calls:
                    linked = [
                        child
                        for linked_id in links.get(call_id or "", ())
                        if (child := state.take(linked_id)) is not None
                    ]
                    if call_id not in links and name == SPAWN_TOOL:
                        # no link (written before the next release): in time order
                        found = state.next_subagent()
                        linked = [found] if found is not None else []
                    for child in linked:
                        yield from self.child(child, call_id, task)
        else:
            self.diagnostics.unknown_type(f"message:{role or '<no role>'}")

    def _user(self, content: object, event: _Maker) -> Iterator[Event]:
        if isinstance(content, str):
            text = display_text(content)
            if text:
                yield event("user", text=text)
            return
        texts: list[str] = []
        for block in _blocks(content):
            kind = type_tag(block.get("type"))
            if kind == "tool_result":
                if texts:
                    yield event("user", text="\n".join(texts))
                    texts.clear()
                text = result_text(block.get("content"))
                if as_str(block.get("name")) in (SPAWN_TOOL, None):
                    text = _spawn_reply(text)
                yield event(
                    "tool_result",
                    call_id=as_str(block.get("tool_use_id")),
                    text=text,
                    is_error=block.get("is_error") is True,
                )
            elif kind == "text":
                text = display_text(block.get("text"))
                if text:
                    texts.append(text)
            elif kind in _MEDIA:
                texts.append(_attachment(kind, block))
            else:
                self.diagnostics.unknown_type(f"user:{kind or '<no type>'}")
        if texts:
            yield event("user", text="\n".join(texts))

    def _assistant(
        self,
        message: dict[str, object],
        event: _Maker,
        calls: list[tuple[str | None, str | None, str | None]],
        path: str,
    ) -> Iterator[Event]:
        metadata = as_dict(message.get("metadata"))
        for activity in _blocks(metadata.get("modelToolActivities")):
            # tools the provider ran (web search): shown before the message, as Cline does
            call_id = as_str(activity.get("toolCallId"))
            yield event(
                "tool_call",
                tool=as_str(activity.get("toolName")),
                call_id=call_id,
                extra={"input": shown_json(activity.get("input")), "by_provider": True},
            )
            if "output" in activity or "isError" in activity:
                yield event(
                    "tool_result",
                    call_id=call_id,
                    text=result_text(activity.get("output")),
                    is_error=activity.get("isError") is True,
                )
        texts: list[str] = []

        def flush() -> Iterator[Event]:
            if texts:
                yield event("assistant", text="\n".join(texts))
                texts.clear()

        content = message.get("content")
        if isinstance(content, str) and content.strip():
            texts.append(plain(content))
        for block in _blocks(content):
            kind = type_tag(block.get("type"))
            if kind == "text":
                if isinstance(block.get("text"), str) and str(block["text"]).strip():
                    texts.append(plain(str(block["text"])))
            elif kind == "thinking":
                yield from flush()
                thought = block.get("thinking")
                if isinstance(thought, str) and thought.strip():
                    yield event("thinking", text=plain(thought))
            elif kind == "redacted_thinking":
                continue  # encrypted: nothing to show
            elif kind == "tool_use":
                yield from flush()
                name, call_id = as_str(block.get("name")), as_str(block.get("id"))
                value = block.get("input")
                yield event(
                    "tool_call",
                    tool=name,
                    call_id=call_id,
                    extra={"input": shown_json(value)},
                )
                calls.append((call_id, name, stripped(as_dict(value).get("task"))))
            elif kind in _MEDIA:
                texts.append(_attachment(kind, block))
            else:
                self.diagnostics.unknown_type(f"assistant:{kind or '<no type>'}")
        yield from flush()
        for invalid in _blocks(metadata.get("invalidToolCalls")):
            tool = as_str(invalid.get("toolName")) or "a tool"
            reason = as_str(invalid.get("reason")) or "invalid input"
            yield event(
                "error",
                text=f"invalid call of {tool}: {reason}",
                call_id=as_str(invalid.get("toolCallId")),
                extra={"type": "invalid_tool_call"},
            )
        sent = ms_time(message.get("ts"))
        if self.forked_at is not None and sent is not None and sent < self.forked_at:
            return  # a fork's copy: billed in its source
        metrics = as_dict(message.get("metrics"))
        if any(odd_count(metrics.get(key)) for key in _COUNTS):
            self.diagnostics.damage(path, 0, odd_in("message"))
        usage = _usage(message, self.session.model)
        if usage is not None:
            counts, cost = usage
            extra: dict[str, JSONValue] = {"cost_usd": cost} if cost is not None else {}
            yield event("usage", usage=counts, extra=extra)


class _Maker(Protocol):
    def __call__(self, kind: EventKind, **fields: Unpack[EventFields]) -> Event: ...


_UNKNOWN = 1 << 62
# attachments, shown as a note: `image_ref` is an image the next release keeps in the
# session's `blobs/` folder, by its sha256 (`blobId`, `mediaType`, `bytes`)
_MEDIA = frozenset({"image", "image_ref", "file", "media"})


# a message's `metrics` counts, in `_usage`'s order
_COUNTS = ("inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens")


def _usage(
    message: dict[str, object], fallback: str | None
) -> tuple[Usage, float | None] | None:
    metrics = as_dict(message.get("metrics"))
    # each 0 below 0 (broken): less a negative cached count, the input grew by it
    given, made, read, written = (max(0, as_int(metrics.get(key))) for key in _COUNTS)
    cost = metrics.get("cost")
    cost = (
        float(cost)
        if isinstance(cost, int | float) and not isinstance(cost, bool)
        else None
    )
    if not (given or made or read or written or cost):
        return None
    model = as_str(as_dict(message.get("modelInfo")).get("id")) or fallback
    # inputTokens holds the cache reads and writes (see the module docstring)
    return Usage(max(0, given - read - written), made, read, written, model=model), cost


def _child_links(message: dict[str, object]) -> dict[str, list[str]]:
    """An assistant message's `childSessions` (the next release's): the child sessions
    each of its tool calls started, `{toolCallId, sessionId, kind}`, by call id."""
    links: dict[str, list[str]] = {}
    for link in _blocks(message.get("childSessions")):
        call_id, child = as_str(link.get("toolCallId")), stripped(link.get("sessionId"))
        if call_id and child:
            links.setdefault(call_id, []).append(child)
    return links


def _messages(
    path: Path, diagnostics: Diagnostics
) -> Iterator[dict[str, object] | None]:
    """The stored messages of one file (None for an entry that is not an object, counted)."""
    items: Iterator[object] | list[object]
    if file_size(path) > WHOLE_CAP:  # too big to parse at once: a message at a time
        from ..jsonstream import file_items

        items = file_items(path, "messages", diagnostics, APP)
    else:
        document = files.read_json_counted(path, WHOLE_CAP, diagnostics)
        if document is None:
            return
        found = document.get("messages") if isinstance(document, dict) else None
        if not isinstance(found, list):
            diagnostics.skip(str(path), 1, "bad value")  # JSON, but no message list
            return
        items = found
    for number, item in enumerate(items, 1):
        if isinstance(item, dict):
            yield item
        else:
            diagnostics.skip(str(path), number, "not an object")
            yield None


def _children(folder: Path, session_id: str) -> list[_Child]:
    """The sub-agent and team-task files beside the lead's, oldest first."""
    found = []
    for entry in folders.listing(folder, folder):
        name = entry.name
        if not name.endswith(MESSAGES) or not entry.is_file():
            continue
        stem = name.removesuffix(MESSAGES)
        if stem == session_id or not stem:
            continue
        path = Path(entry.path)
        found.append(
            _Child(
                path,
                f"{session_id}__{stem}",
                stem,
                "teammate" if "__" in stem else "subagent",
                _first_time(path),
            )
        )
    return sorted(found, key=lambda child: (child.start, child.name))


def _first_time(path: Path) -> int:
    """The first message's `ts` in the file's first bytes (the header holds no numbers of
    that size), else _UNKNOWN."""
    try:
        with files.open_binary(path) as stream:
            head = stream.read(64 * 1024)
    except OSError:
        return _UNKNOWN
    found = _FIRST_TS.search(head)
    return int(found.group(1)) if found else _UNKNOWN


def _compacted_at(
    folder: Path, session_id: str, diagnostics: Diagnostics
) -> int | None:
    """How many messages of the history the compaction sidecar stands for, if there is one."""
    path = folder / f"{session_id}.compaction.json"
    state = _small_object(path, frozenset({"messages", "system_prompt"}), diagnostics)
    count = state.get("source_message_count") if state is not None else None
    if isinstance(count, int) and not isinstance(count, bool) and count > 0:
        return count
    return None


# --- small helpers ---------------------------------------------------------------------


def display_text(value: object) -> str | None:
    """User text as Cline shows it: its `<user_input>` wrapper and `<mode_notice>`s gone,
    a `<user_command slash="x">` as `/x …`; None when nothing is left."""
    if not isinstance(value, str):
        return None
    command = _COMMAND.match(value)
    text = _MODE_NOTICE.sub("", value)
    text = _OPEN_TAG.sub("", _USER_INPUT.sub(r"\1", text)).strip()
    if command:
        inner = _MODE_NOTICE.sub("", command.group(2)).strip()
        text = f"/{command.group(1)} {inner}".strip()
    return plain(text) if text else None


def _spawn_reply(text: str) -> str:
    """A `spawn_agent` result is the sub-agent's run as one JSON record (`text`,
    `iterations`, `finishReason`, `usage`): the words it sent back (and why it stopped,
    where it did not complete), else `text` as is."""
    if not text.startswith('{"text":'):
        return text
    try:
        record = orjson.loads(text)
    except orjson.JSONDecodeError:
        return text
    reply = record.get("text") if isinstance(record, dict) else None
    if not isinstance(reply, str) or "finishReason" not in record:
        return text
    reason = record.get("finishReason")
    if isinstance(reason, str) and reason != "completed":  # cut short: say why
        return f"{reply}\n[{plain(reason)}]".lstrip("\n")
    return reply


def result_text(content: object) -> str:
    """A tool result flattened to text: text blocks as they are, media as notes, the
    built-in tools' operation records as what they printed, other values as JSON."""
    if isinstance(content, str):
        return plain(content)
    if not isinstance(content, list):
        return "" if content is None else _json_text(content)
    parts = []
    for item in content:
        if (
            isinstance(item, dict)
            and item.get("type") == "text"
            and isinstance(item.get("text"), str)
        ):
            parts.append(plain(item["text"]))
        elif isinstance(item, dict) and item.get("type") in _MEDIA:
            parts.append(_attachment(str(item["type"]), item))
        elif isinstance(item, dict) and "query" in item and "success" in item:
            parts.append(_operation_text(item))
        else:
            parts.append(_json_text(item))
    return "\n".join(parts)


def _operation_text(item: dict[str, object]) -> str:
    """One of a built-in tool's results (`{query, result, error?, success}`, one per
    command or file): what it printed, or its error, rather than the whole record."""
    value = item.get("result")
    if isinstance(value, str):
        output = plain(value)
    else:
        output = "" if value is None else _json_text(value)
    error = item.get("error")
    if isinstance(error, str) and error and item.get("success") is not True:
        # a failed command's error, and what it printed before it failed
        return plain(error) + ("\n" + output if output.strip() else "")
    return output


def _attachment(kind: str, block: dict[str, object]) -> str:
    if kind == "image":
        return blob(as_str(block.get("mediaType")), block.get("data"))
    if kind == "image_ref":  # the bytes are in the session's blobs/ folder: not read
        size = as_int(block.get("bytes"), floats=False)
        mime = as_str(block.get("mediaType")) or "image"
        return f"[{mime}, {files.human_bytes(size)}]" if size > 0 else f"[{mime}]"
    if kind == "file":
        return f"[file {as_str(block.get('path')) or '?'}]"
    media = as_dict(block.get("media"))
    return f"[{as_str(media.get('mediaType')) or as_str(media.get('type')) or 'media'}]"


def _json_text(value: object) -> str:
    try:
        return plain(orjson.dumps(shown_json(value)).decode())
    except TypeError:
        return str(value)


def _blocks(value: object) -> list[dict[str, object]]:
    return (
        [item for item in value if isinstance(item, dict)]
        if isinstance(value, list)
        else []
    )


def _small_object(
    path: Path, big: frozenset[str], diagnostics: Diagnostics | None = None
) -> dict[str, object] | None:
    """A manifest or sidecar: read whole, or, past MANIFEST_CAP, member by member without
    the `big` ones (a pasted prompt, compacted messages). None if missing or not an object."""
    if file_size(path) <= MANIFEST_CAP:
        value = files.read_json_counted(path, MANIFEST_CAP, diagnostics)
    else:
        from ..jsonstream import file_members

        value = file_members(path, big, diagnostics or Diagnostics(), APP)
    if value is not None and not isinstance(value, dict) and diagnostics is not None:
        diagnostics.skip(str(path), 1, "bad value")
    return value if isinstance(value, dict) else None
