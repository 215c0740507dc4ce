"""The Kiro CLI 2.x agent's session files (`crates/chat-cli-v2`), listed and read.

`~/.kiro/sessions/cli/` (`util/paths.rs` `sessions_dir`: `dirs::home_dir()/.kiro/sessions/cli`
on every system; only a test variable of the CLI moves it) holds, per session,
`<id>.json`, `<id>.jsonl` and, while a CLI has it open, `<id>.lock` (`agent/session/mod.rs`
@7bc6d258, 2.2.1).

`<id>.json` is `SessionData`, rewritten whole (temp file, rename) at each turn's end:
`{session_id, cwd, created_at, updated_at, title?, exported_from_v1?, imported_from?,
session_state: {version: "v1", conversation_metadata: {user_turn_metadatas: [{…,
end_timestamp, input_token_count, output_token_count, metering_usage: [{value,
unit: "credit"}] (one a request: the turn's credits)}]}, rts_model_state:
{conversation_id, model_info?: {model_id, model_name?}}, permissions, agent_name?}}`.

`<id>.jsonl` is the append-only log, one `LogEntry` a line, serde-tagged `{"version": "v1",
"kind": K, "data": …}`: `Prompt {message_id, content, meta?: {timestamp (epoch seconds),
additionalContext}}`, `AssistantMessage {message_id, content}`, `ToolResults {message_id,
content, results}`, `Compaction {summary, strategy, messages_snapshot}`, `ResetTo
{target_index}`, `CancelledPrompt`, `Clear`. A content block is `{"kind": "text" |
"toolUse" | "toolResult" | "image" | "thinking", "data": …}` (`toolUse` `{toolUseId, name,
input}`, `toolResult` `{toolUseId, content: [{kind: text|json|image, data}], status:
"success"|"error"}`, `thinking` `{text, signature, redactedContent}`). Only a prompt is
dated, and the log keeps no token count: a turn's counts, credits and end time are in the `.json`'s
`user_turn_metadatas`, whose `message_ids` (each request's prompt and response, in order)
name the log's messages; a turn is told after the message its last id names, or, where the
log has no such message (a turn cancelled mid-request), before the next prompt.

When the CLI reopens a chat of its database it first writes it here under the same id,
with `exported_from_v1: true` (`crates/chat-cli/src/cli/chat/v1_export`), its `/compact`
summary in its first prompt's `meta.additionalContext` (shown as the compaction): the chat
goes on in these files, and the database row is left as it was.

A sub-agent writes a pair of its own here: every ACP session the agent starts, the
sub-agents (`is_subagent`) included, opens a `SessionDb` (`agent/acp/acp_agent.rs`), and
`session_manager.rs` starts one for each stage of the `subagent` crew tool (`agent_crew`,
`use_subagent`), each `session_management` `spawn_session` and each session the TUI spawns
(`_session/spawn`), under a new UUID, its first prompt the task (its name and role go in
its system prompt, unwritten). `SessionData` has no parent field: the lead is known only to
the CLI's memory (`OrchestratedSession.parent_session`), and the CLI's own list
(`list_sessions`) shows such a session among the others. On disk only a `spawn_session`
result in the lead's log names the child: the text of a `session_management` tool result,
`{"session_id", "name", "status": "spawned", "next_step"}` (`acp/session_tool_handler.rs`),
its call's input `{"command": "spawn_session", "agent_name", "task", "name"?, "role"?, …}`
(`agent/tools/session.rs`). Listing finds those results by searching the lead's log for
their bytes (`files.lines_with`, bounded) and gives each child its lead (`parent_id`), agent
(`agent_type`), name and task, so it is listed under its lead; reading the lead gives a
`subagent` event at each result and reads the child's log there, under its id (a child
whose files are gone is said missing). A crew's result names its stages, not their ids,
and a TUI spawn leaves no trace: those stay sessions of their own. Matching a crew stage by
its task would be a guess: its call's input holds each stage's `prompt_template` (the task
is it with `{task}` filled in), but a stage that waits on others is told its task with their
results appended (`session_manager.rs`), the log dates only prompts, and two crews given
the same task in one folder at once cannot be told apart.

The `.lock` (`{pid, started_at}`) is never read, created or touched: the live status finds
the CLI's process on its own.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

import orjson

from .. import files, folders
from ..diagnostics import Diagnostics, read_failed
from ..model import Event, JSONValue, Session, Usage
from ._kiro_read import metered_credits
from ._values import (
    Emitter,
    as_dict,
    as_int,
    as_list,
    as_str,
    epoch_time,
    iso_time,
    new_usage,
    one_line,
    shown_arguments,
    shown_json,
    shown_text,
    stat_size,
)

NAME = "kiro"
LOG = ".jsonl"
META = ".json"
KINDS = frozenset({
    "Prompt", "AssistantMessage", "ToolResults", "Compaction", "ResetTo",
    "CancelledPrompt", "Clear",
})  # fmt: skip
# above the database's rows (0 and 1): the file is where an exported chat goes on
PRECEDENCE = 5


def meta_path(log: str | Path) -> Path:
    return Path(os.fspath(log)[: -len(LOG)] + META)


def _entry(record: dict[str, object]) -> tuple[str | None, dict[str, object]]:
    """A log line's kind and data; None for a version this reader does not know."""
    if record.get("version") != "v1":
        return None, {}
    return as_str(record.get("kind")), as_dict(record.get("data"))


def _texts(content: object) -> list[str]:
    return [
        text
        for block in as_list(content)
        if as_dict(block).get("kind") == "text"
        and isinstance(text := as_dict(block).get("data"), str)
    ]


# how `v1_export` hands a database chat's `/compact` summary on: in its first prompt's
# `additionalContext`, between the 1.x CLI's context-entry markers
_SUMMARY_START = "--- CONTEXT ENTRY BEGIN ---\n"
_SUMMARY_TEXT = "SUMMARY CONTENT:\n"
_SUMMARY_END = "\n--- CONTEXT ENTRY END ---"


def _exported_summary(data: dict[str, object]) -> str | None:
    """The `/compact` summary an exported chat's first prompt carries, if it does."""
    context = as_str(as_dict(data.get("meta")).get("additionalContext")) or ""
    if not context.startswith(_SUMMARY_START):
        return None
    start = context.find(_SUMMARY_TEXT)
    end = context.find(_SUMMARY_END)
    if start < 0 or end < start:
        return None
    return context[start + len(_SUMMARY_TEXT) : end].strip() or None


def _prompt_time(data: dict[str, object]) -> datetime | None:
    return epoch_time(as_dict(data.get("meta")).get("timestamp"))


def _model(state: dict[str, object]) -> str | None:
    info = as_dict(as_dict(state.get("rts_model_state")).get("model_info"))
    return as_str(info.get("model_id")) or as_str(info.get("id"))


def listed(log: Path, diagnostics: Diagnostics) -> list[Session]:
    """The session of one `<id>.jsonl`: its `.json` (read bounded, huge strings elided)
    and the log's first and last lines (for a title and the prompts' times)."""
    session_id = log.name[: -len(LOG)]
    meta = files.read_json_compacted(meta_path(log), diagnostics=diagnostics)
    data = as_dict(meta)
    if meta is not None and not data:
        diagnostics.skip(os.fspath(meta_path(log)), 1, "not an object")
    head = files.head_lines(log, 20, diagnostics=diagnostics)
    tail = files.tail_lines(log)
    files.note_unfinished_last(tail, diagnostics, os.fspath(log))
    if not head and not data:
        return []  # an empty session the CLI deletes on exit
    title = one_line(
        data.get("title")
    )  # the CLI makes it one line; a hand-edited one may not be
    first: datetime | None = None
    for line in head:
        kind, entry = _entry(files.parse_json(line) or {})
        if kind == "Prompt":
            first = first or _prompt_time(entry)
            texts = _texts(entry.get("content"))
            if title is None and texts:
                title = one_line(texts[0])
        elif kind == "Compaction" and title is None:
            for message in as_list(entry.get("messages_snapshot")):
                if as_dict(message).get("role") == "user":
                    texts = _texts(as_dict(message).get("content"))
                    title = one_line(texts[0]) if texts else None
                    break
    last: datetime | None = None
    for line in reversed(tail):
        kind, entry = _entry(files.parse_json(line) or {})
        if kind == "Prompt" and (last := _prompt_time(entry)):
            break
    state = as_dict(data.get("session_state"))
    created = iso_time(data.get("created_at"))
    updated = iso_time(data.get("updated_at"))
    # an exported chat is dated by its export: its prompts are older
    created = min((t for t in (created, first) if t), default=None)
    updated = max((t for t in (updated, last) if t), default=None)
    # `table` and `newest` cleared: a row this session was exported from is merged in
    extra: dict[str, JSONValue] = {
        "store": "files",
        "table": None,
        "cli": "kiro-cli",
        "newest": False,
    }
    if data.get("exported_from_v1") is True:
        extra["exported_from_v1"] = True
    agent = as_str(state.get("agent_name"))
    if agent:
        extra["agent"] = agent
    imported = as_str(data.get("imported_from"))
    if imported:
        extra["imported_from"] = imported
    if meta is None:
        extra["no_metadata"] = True
    lead = as_str(data.get("session_id")) or session_id
    return [
        *_children(log, lead, diagnostics),
        Session(
            app=NAME,
            id=lead,
            path=os.fspath(log),
            cwd=as_str(data.get("cwd")) or None,
            title=title,
            created=created,
            updated=updated,
            model=_model(state),
            bytes=stat_size(log),
            precedence=PRECEDENCE,
            extra=extra,
        ),
    ]


# a `spawn_session` result: its JSON is the text of a tool result, so its quotes are
# escaped in the log's line (`serde_json` with `preserve_order`: no spaces)
_SPAWNED = b'\\"status\\":\\"spawned\\"'
_SPAWN_CALL = b'"spawn_session"'
_CHILDREN_CAP = 256  # spawns taken from one lead's log, at most


@dataclass(frozen=True, slots=True)
class Spawn:
    """A `spawn_session` call and the child its result names."""

    call_id: str
    child: str
    name: str | None
    agent: str | None  # the agent config it runs (`agent_name`)
    task: str | None
    role: str | None


def spawned(value: dict[str, object]) -> str | None:
    """The child a tool result names, where it is a `spawn_session` result."""
    if value.get("status") != "success":
        return None
    for raw in as_list(value.get("content")):
        block = as_dict(raw)
        if block.get("kind") != "text" or not isinstance(block.get("data"), str):
            continue
        text = str(block["data"])
        if '"spawned"' not in text:
            continue
        try:
            said = as_dict(orjson.loads(text))
        except orjson.JSONDecodeError:
            continue
        child = as_str(said.get("session_id"))
        if said.get("status") == "spawned" and child:
            return child
    return None


def spawn_call(use: dict[str, object]) -> dict[str, object] | None:
    """A `spawn_session` call's input, or None for any other call."""
    args = as_dict(use.get("input"))
    return args if args.get("command") == "spawn_session" else None


def spawns(log: Path, diagnostics: Diagnostics) -> list[Spawn]:
    """The children a lead's log names, found by searching its bytes for the results'
    marker (never parsing the whole log), each with what its call asked."""
    size = stat_size(log) or 0
    children: dict[str, str] = {}  # call id: the child its result names
    for line in files.lines_with(log, _SPAWNED, 0, size, diagnostics=diagnostics):
        kind, data = _entry(files.parse_json(line) or {})
        if kind != "ToolResults":
            continue
        for raw in as_list(data.get("content")):
            value = as_dict(as_dict(raw).get("data"))
            call_id = as_str(value.get("toolUseId"))
            child = spawned(value) if as_dict(raw).get("kind") == "toolResult" else None
            if call_id and child and len(children) < _CHILDREN_CAP:
                children.setdefault(call_id, child)
    if not children:
        return []
    calls: dict[str, dict[str, object]] = {}
    for line in files.lines_with(log, _SPAWN_CALL, 0, size):
        kind, data = _entry(files.parse_json(line) or {})
        if kind != "AssistantMessage":
            continue
        for raw in as_list(data.get("content")):
            use = as_dict(as_dict(raw).get("data"))
            call_id = as_str(use.get("toolUseId"))
            args = spawn_call(use) if as_dict(raw).get("kind") == "toolUse" else None
            if call_id in children and args is not None:
                calls[call_id] = args
    return [
        Spawn(
            call_id,
            child,
            as_str(args.get("name")),
            as_str(args.get("agent_name")),
            as_str(args.get("task")),
            as_str(args.get("role")),
        )
        for call_id, child in children.items()
        for args in (calls.get(call_id, {}),)
    ]


def _children(log: Path, lead: str, diagnostics: Diagnostics) -> list[Session]:
    """What the lead's log says of the sessions it spawned: their lead, their agent and
    name. Not listed by itself: a child whose files are gone is not listed."""
    return [
        Session(
            app=NAME,
            id=spawn.child,
            parent_id=lead,
            agent_type=spawn.agent,
            precedence=PRECEDENCE,
            listed=False,
            extra={
                key: value
                for key, value in (
                    ("agent_name", spawn.name),
                    ("description", one_line(spawn.task)),
                    ("role", spawn.role),
                )
                if value
            },
        )
        for spawn in spawns(log, diagnostics)
        if spawn.child != lead
    ]


@dataclass(frozen=True, slots=True)
class Turn:
    """One user turn's metadata: when it ended, what it cost, the message that ends it."""

    end: datetime | None
    usage: Usage | None
    number: int = 0  # its place among the turns
    last: str = ""  # the id of its last message


def turns(log: str) -> dict[str, Turn]:
    """The `.json`'s turns by the id of each of their messages (damage was counted when
    the session was listed)."""
    data = as_dict(files.read_json_compacted(meta_path(log)))
    state = as_dict(data.get("session_state"))
    model = _model(state)
    metadata = as_dict(state.get("conversation_metadata"))
    found: dict[str, Turn] = {}
    for number, raw in enumerate(as_list(metadata.get("user_turn_metadatas"))):
        turn = as_dict(raw)
        ids = [i for i in as_list(turn.get("message_ids")) if isinstance(i, str)]
        if not ids:
            continue
        tokens_in = as_int(turn.get("input_token_count"))
        tokens_out = as_int(turn.get("output_token_count"))
        credits = metered_credits(turn.get("metering_usage"))
        told = Turn(
            iso_time(turn.get("end_timestamp")),
            new_usage(tokens_in, tokens_out, 0, 0, 0, model, credits)
            if tokens_in or tokens_out or credits
            else None,
            number,
            ids[-1],
        )
        for message_id in ids:
            found.setdefault(message_id, told)
    return found


class LogReader:
    """Translates the lines of one `<id>.jsonl` into events."""

    def __init__(
        self,
        session_id: str,
        diagnostics: Diagnostics,
        turns: dict[str, Turn],
        *,
        folder: Path | None = None,
        agent: str | None = None,
        emit: Emitter | None = None,
        seen: set[str] | None = None,
    ) -> None:
        self.diagnostics = diagnostics
        self.emit = emit or Emitter(session_id)
        self.tools: dict[str, str] = {}  # call id: tool name
        # where the sessions it spawns keep their files (None: not read inline), the
        # spawned session this reader reads (None: the lead), the children read so far
        self.folder = folder
        self.agent = agent
        self.seen = seen if seen is not None else {session_id}
        self.spawns: dict[str, dict[str, object]] = {}  # call id: spawn_session input
        self.turns = turns
        # a turn whose messages were met but not the one that ends it: a turn cancelled
        # mid-request names a response the log never got, and is told before the next
        # prompt (or at the log's end) instead
        self.pending: Turn | None = None
        self.told: set[int] = set()

    def read(
        self, path: str, *, full: bool = False, offset: int = 0
    ) -> Iterator[Event]:
        for _, record in files.iter_records(
            path, self.diagnostics, offset=offset, full=full
        ):
            kind, data = _entry(record)
            if kind not in KINDS:
                version = as_str(record.get("version"))
                self.diagnostics.unknown_type(
                    f"log entry {one_line(kind or record.get('kind'), limit=40) or '?'}",
                    version,
                )
                continue
            turn = self.turns.get(as_str(data.get("message_id")) or "")
            if (
                kind == "Prompt"
                and self.pending is not None
                and self.pending is not turn
            ):
                yield from self.usage(self.pending)
            if turn is not None and turn.number not in self.told:
                self.pending = turn
            yield from self.own(self.entry(kind or "", data))
        if self.pending is not None:
            yield from self.own(self.usage(self.pending))

    def own(self, events: Iterator[Event]) -> Iterator[Event]:
        """A spawned session's events under its id (its own children's keep theirs)."""
        for event in events:
            if self.agent is not None and event.agent_id is None:
                event = replace(event, agent_id=self.agent)
            yield event

    def usage(self, turn: Turn) -> Iterator[Event]:
        """A turn's tokens, once."""
        self.pending = None
        if turn.number in self.told:
            return
        self.told.add(turn.number)
        if turn.usage is not None:
            yield self.emit("usage", turn.end, usage=turn.usage)

    def entry(self, kind: str, data: dict[str, object]) -> Iterator[Event]:
        if kind == "Prompt":
            summary = _exported_summary(data)
            if summary is not None:
                yield self.emit("compaction", text=shown_text(summary) or "",
                                extra={"summary": True})  # fmt: skip
            yield from self.blocks(data, "user", _prompt_time(data))
        elif kind == "AssistantMessage":
            message_id = as_str(data.get("message_id")) or ""
            turn = self.turns.get(message_id)
            ends = turn if turn is not None and turn.last == message_id else None
            yield from self.blocks(data, "assistant", None, ends.end if ends else None)
            if ends is not None:
                yield from self.usage(ends)
        elif kind == "ToolResults":
            yield from self.blocks(data, "user", None)
        elif kind == "Compaction":
            yield self.emit(
                "compaction",
                text=shown_text(data.get("summary")) or "",
                extra={"summary": True, "strategy": shown_json(data.get("strategy"))},
            )
        elif kind == "ResetTo":
            target = data.get("target_index")
            yield self.emit(
                "meta",
                text=f"rewound to log entry {target}",
                extra={"reset_to": target if isinstance(target, int) else None},
            )
        elif kind == "CancelledPrompt":
            yield self.emit("meta", text="prompt cancelled", extra={"cancelled": True})
        elif kind == "Clear":
            yield self.emit("meta", text="conversation cleared (/clear)",
                            extra={"cleared": True})  # fmt: skip

    def blocks(
        self,
        data: dict[str, object],
        role: str,
        time: datetime | None,
        end: datetime | None = None,
    ) -> Iterator[Event]:
        """One message's blocks in their order; a user's text (and its images' count)
        after its tool results, as one event."""
        message_id = as_str(data.get("message_id"))
        extra: dict[str, JSONValue] = {"message_id": message_id} if message_id else {}
        images = 0
        called = False
        texts: list[str] = []
        for raw in as_list(data.get("content")):
            block = as_dict(raw)
            kind, value = block.get("kind"), block.get("data")
            if kind == "text" and isinstance(value, str):
                if role == "user":
                    texts.append(value)
                elif text := shown_text(value.strip(), keep_empty=False):
                    yield self.emit("assistant", time, text=text, extra=extra)
            elif kind == "image":
                images += 1
            elif kind == "thinking":
                text = shown_text(as_dict(value).get("text"), keep_empty=False)
                if text:
                    yield self.emit("thinking", time, text=text)
            elif kind == "toolUse":
                use = as_dict(value)
                call_id = as_str(use.get("toolUseId"))
                tool = as_str(use.get("name")) or "?"
                if call_id:
                    self.tools[call_id] = tool
                    args = spawn_call(use)
                    if args is not None and len(self.spawns) < _CHILDREN_CAP:
                        self.spawns[call_id] = args
                called = True
                yield self.emit(
                    "tool_call",
                    time,
                    tool=tool,
                    call_id=call_id,
                    extra={"input": shown_arguments(use.get("input", {}))},
                )
            elif kind == "toolResult":
                yield self.result(as_dict(value), time)
                yield from self.child(as_dict(value), time)
            else:
                self.diagnostics.unknown_type(
                    f"content block {one_line(kind, limit=40) or '?'}"
                )
        text = "\n".join(texts).strip()
        if images:
            text += f"\n[{images} image{'s' if images > 1 else ''}]"
        if text.strip():
            yield self.emit("user", time, text=shown_text(text.strip()) or "",
                            extra=extra)  # fmt: skip
        if role == "assistant" and not called:
            yield self.emit("turn_end", end)

    def result(self, value: dict[str, object], time: datetime | None) -> Event:
        call_id = as_str(value.get("toolUseId"))
        parts = []
        for raw in as_list(value.get("content")):
            block = as_dict(raw)
            kind, data = block.get("kind"), block.get("data")
            if kind == "text" and isinstance(data, str):
                parts.append(data)
            elif kind == "json":
                parts.append(orjson.dumps(shown_json(data)).decode())
            elif kind == "image":
                parts.append("[image]")
            else:
                self.diagnostics.unknown_type("tool result block")
        status = value.get("status")
        if status not in ("success", "error"):
            self.diagnostics.unknown_type(
                f"tool status {one_line(status, limit=40) or '?'}"
            )
        return self.emit(
            "tool_result",
            time,
            text="\n".join(parts),
            tool=self.tools.get(call_id or ""),
            call_id=call_id,
            is_error=status == "error",
            # a spawned session runs on: its result says only that it started
            extra={"launched": True} if spawned(value) else {},
        )

    def child(self, value: dict[str, object], time: datetime | None) -> Iterator[Event]:
        """The session a `spawn_session` result names: its spawn, then its own log's
        events under its id (once per read, however often a log names it)."""
        child = spawned(value)
        call_id = as_str(value.get("toolUseId"))
        if child is None or child in self.seen or len(self.seen) > _CHILDREN_CAP:
            return
        self.seen.add(child)
        args = self.spawns.get(call_id or "", {})
        yield self.emit(
            "subagent",
            time,
            agent_id=self.agent,
            call_id=call_id,
            text=shown_text(args.get("task")),
            extra={
                "child_id": child,
                "agent_type": as_str(args.get("agent_name")),
                "agent_name": as_str(args.get("name")),
            },
        )
        if self.folder is None:
            return
        # the id is the tool result's text: it names a log beside the lead's only where
        # it is one plain name (a hostile `../..` led out of the sessions folder)
        log = self.folder / f"{child}{LOG}" if folders.plain_name(child) else None
        if log is None or not log.is_file():
            self.diagnostics.child_missing(NAME, child)
            return
        reader = LogReader(
            child,
            self.diagnostics,
            turns(os.fspath(log)),
            folder=self.folder,
            agent=child,
            emit=self.emit,
            seen=self.seen,
        )
        try:
            yield from reader.read(os.fspath(log))
        except OSError as error:
            self.diagnostics.problem(read_failed(NAME, os.fspath(log), error))
