"""A Warp conversation read into events: its `ai_queries` rows, its tasks (protobuf) and
its command blocks, put in order (see warp.py for the database, where it is, its tables and
their JSON, and the listing).

Sources (read, never copied):
- warpdotdev/warp-proto-apis `apis/multi_agent/v1/task.proto` @00f791620e0c4016e33f298176f7cf785b1026ad
  (High for the field numbers read here): `agent_tasks.task` is a `warp.multi_agent.v1.Task`
  (id 1, description 2, messages 5); a `Message` has its timestamp at 14 and one of
  user_query 2 (query 1), agent_output 3 (text 1), tool_call 4 (tool_call_id 1, the tool's
  oneof from 2: run_shell_command 2 with command 1), tool_call_result 5, agent_reasoning 15
  (reasoning 1), summarization 16, model_used 25 (model_id 1). The tools' arguments and
  `ToolCallResult` (id 1, each tool's result at its own number from 2, `cancel` 14; a shell
  command's `RunShellCommandResult`: command 3, command_finished 5 {output 1, exit_code 2},
  permission_denied 6) are read by `_warp_tools` from the same file (confirmed, High); a
  command's output is taken from its `blocks` row first (the terminal's, as the user saw it).

Warp keeps a terminal pane's newest 100 blocks, and drops them with the pane
(`MAX_TERMINAL_BLOCKS_TO_PERSIST_PER_SESSION`, `delete_blocks` in block_list.rs): an older
conversation's commands come from its task's results only. A block a sub-task ran names it
(`subagent_task_id`): its events are that sub-agent's.

A lead's `start_agent` call (29: name 1, prompt 2) gives a `subagent` event whose `child_id`
is the conversation it started: the one whose `parent_conversation_id` is this one and whose
`agent_name` is that name (the match by name is a guess, Medium); its result says the agent
was `launched` (it runs on in its own conversation, listed under this one). A block of the conversation that no
agent action asked for (no `requested_command_action_id`) is the user's own command, shown
as a `user_command` call.

Reading a conversation reads each task through SQLite's blob IO, message by message (a
task holds its whole conversation, tool results with the files they read included): a
message over `TASK_CAP` is counted, not decoded, and past `TASKS_BUDGET` bytes of messages
the rest are counted ("too long"), as the events are held to be put in order. It finds
its command blocks by `instr(ai_metadata, id)` over `blocks`
(no index there): about 0.1 s for 50,000 blocks of 20 KB output (a 1.1 GB database, warm
cache). Its events are put in order by exchange: each `ai_queries` row opens a window that
runs to the next one's start, and the task messages and blocks that fall in it follow its
query, sorted by time; the row's `output_status` closes it. A message with no timestamp
stays in the window of what its task put before it (a query with none opens the exchange
whose query it is).

A conversation's sub-tasks are its in-conversation sub-agents: a `subagent` tool call (19:
`task_id` 1, its kind in the metadata oneof from 3) names a task whose `dependencies`
(3: `parent_task_id` 1) point back, and Warp interleaves that task's messages at the call
(`app/src/ai/agent/linearization.rs` @19548aec; confirmed, High). The call gives a
`subagent` event (`child_id` the task's id), and the sub-task's events carry it as their
`agent_id`; its user queries are the lead's (`from_agent`).

Also read from a task: web searches and fetches (19, 20: a call and its pages), a skill
invoked with the user's query (23: the query), messages other agents sent (24: a user event
`from_agent` its sender's id). An `output_status` of `"Pending"` (Warp's
`AIQueryHistoryOutputStatus`: still streaming, or Warp quit first) closes nothing.

Not read: the todo lists, review comments, system queries and other bookkeeping messages of a
task (`_QUIET`), a tool result's summary (16's `tool_call_result_summary`), and what a
tool's result holds past its text (`_warp_tools`: the contents of files read, images).
"""

from __future__ import annotations

import bisect
import itertools
import re
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import cast

import orjson

from .. import databases, files
from ..diagnostics import Diagnostics, odd_in
from ..model import Event, EventKind, JSONValue, Usage
from . import _protobuf as pb
from . import _warp_tools as tools
from ._values import (
    Emitter,
    EventFields,
    as_credits,
    as_dict,
    as_int,
    as_list,
    as_str,
    db_time,
    json_object,
    odd_count,
    plain,
)

# a task is read message by message (it holds the whole conversation): one message bigger
# than this (a tool result of a huge file) is counted, not decoded
TASK_CAP = 64 * 1024 * 1024
# a conversation's tasks are held while its events are put in order: past this many bytes
# of them, the rest are counted ("too long"), not read
TASKS_BUDGET = 256 * 1024 * 1024
OUTPUT_CAP = 1024 * 1024  # a command's output is shown up to this, then cut
_HEAD = 4096  # a task's id or dependencies longer than this is not read
# Subagent's metadata oneof (task.proto): the kind of sub-agent each field number names
_SUBAGENTS = {3: "cli", 4: "research", 5: "advice", 6: "computer_use", 7: "summarization",
              8: "conversation_search", 9: "warp_documentation_search"}  # fmt: skip
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MODELS = 64  # models a conversation's usage names, at most
# ModelTokenUsage's counts (`total_tokens`: what older Warp wrote for `warp_tokens`)
_TOKEN_KEYS = (
    ("warp_tokens", ("warp_tokens", "total_tokens")),
    ("byok_tokens", ("byok_tokens",)),
    ("custom_endpoint_tokens", ("custom_endpoint_tokens",)),
)
# ChargedUsageTotals' costs, in US cents (its `total_cost_in_cents`)
_COST_KEYS = ("input_cost_in_cents", "output_cost_in_cents", "input_cache_read_cost_in_cents",
              "input_cache_write_cost_in_cents", "platform_cost_in_cents",
              "web_search_cost_in_cents")  # fmt: skip
# the terminal's sequences in a block's bytes (ECMA-48): CSI (ESC [ or C1 0x9b), OSC and
# the other strings (DCS, SOS, PM, APC: to BEL or ST), and the two- and three-byte escapes
# (a charset switch `ESC ( B`, keypad modes `ESC =`, `ESC >`)
_ANSI = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"
    r"|(?:\x1b[\]PX^_]|[\x90\x9d\x98\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[ -/]*[0-~]"
)
# Message's oneof fields read as nothing to show (bookkeeping, server events, todos, …)
_QUIET = {6, 9, 10, 17, 18, 21, 22, 26}


@dataclass(slots=True)
class _Item:
    """One thing that happened in a conversation, before it is an event."""

    time: datetime | None
    kind: EventKind
    fields: EventFields
    order: int = 0
    # a command block of the terminal (its command in `tool`): the tool it shows as, the
    # agent's `run_shell_command` or, where no agent action asked for it, `user_command`
    block: str | None = None


class Reader:
    def __init__(
        self,
        connection: sqlite3.Connection,
        database: str,
        conversation_id: str,
        diagnostics: Diagnostics,
        full: bool,
    ) -> None:
        self.connection = connection
        self.database = database
        self.id = conversation_id
        self.diagnostics = diagnostics
        self.full = full
        self.held = 0  # bytes of task messages read
        self.described: dict[str, str] = {}  # a sub-task's description, by its id
        self.started: dict[str, str] | None = None  # agents this one started, by name

    def events(self, session_id: str) -> Iterator[Event]:
        """The conversation's events, in order (sqlite3.Error goes to the caller)."""
        emit = Emitter(session_id)
        for item in self.items():
            yield emit(item.kind, item.time, **item.fields)

    def items(self) -> Iterator[_Item]:
        exchanges = self.exchanges()
        found = [*self.task_messages(), *self.blocks()]
        for order, item in enumerate(found):
            item.order = order
            child = as_dict(item.fields.get("extra")).get("child_id")
            if item.kind == "subagent" and str(child) in self.described:
                item.fields["text"] = self.described[str(child)]  # its sub-task's
        # each exchange's window runs from its start to the next one's
        window_of = _windows([start for start, *_ in exchanges])
        windows: list[list[_Item]] = [[] for _ in range(max(len(exchanges), 1))]
        texts = [text for _, text, *_ in exchanges]
        current = 0  # for what has no time: the window of what came before it
        for item in found:
            said = item.fields.get("text")
            if item.time is not None:
                current = window_of(item.time)
            elif item.kind == "user" and not item.fields.get("agent_id"):
                # a query with no time opens the exchange that holds it, if one does
                current = next(
                    (n for n in range(current, len(texts)) if texts[n] == said), current
                )
            windows[current].append(item)
        called: dict[str, str | None] = {}  # call id: its tool
        answered: set[str] = set()
        for index, window in enumerate(windows):
            window.sort(
                key=lambda item: (item.time is None, item.time or 0, item.order)
            )
            start, text, status, model = (
                exchanges[index] if exchanges else (None, None, None, None)
            )
            if text:  # the exchange's own text: the task's copy of it is left out
                yield _Item(start, "user", {"text": text})
            # (a skill's query, another agent's message in the same window are kept)
            for item in window:
                said = item.fields.get("text")
                if (
                    item.kind == "user"
                    and text
                    and not item.fields.get("agent_id")
                    and isinstance(said, str)
                    and said.strip() == text.strip()
                ):
                    # the task's copy of the exchange's query: left out, once
                    text = None
                    continue
                call_id = item.fields.get("call_id")
                if item.kind == "tool_call" and call_id:
                    if call_id in called:
                        continue
                    called[call_id] = item.fields.get("tool")
                if item.kind == "tool_result" and call_id:
                    if call_id in answered:
                        continue
                    answered.add(call_id)
                    if item.block and call_id not in called:  # no call names this block
                        called[call_id] = item.block
                        yield _Item(
                            item.time,
                            "tool_call",
                            {
                                "tool": item.block,
                                "agent_id": item.fields.get("agent_id"),
                                "call_id": call_id,
                                "extra": {
                                    "input": {"command": item.fields.get("tool") or ""}
                                },
                            },
                        )
                    tool = called.get(call_id) or item.fields.get("tool")
                    item.fields["tool"] = item.block or tool
                yield item
            if exchanges:
                yield from self.status(start, status, model, window)
        yield from self.usage()

    # ai_queries -------------------------------------------------------------------

    def exchanges(
        self,
    ) -> list[tuple[datetime | None, str | None, str | None, str | None]]:
        columns = databases.table_columns(self.connection, "ai_queries")
        if "conversation_id" not in columns:
            return []
        wanted = ("start_ts", "output_status", "model_id")
        chosen = ", ".join(c if c in columns else "NULL" for c in wanted)
        # in the order written, then by time as a time (not as text: a change of form
        # would reorder them), what has none last
        rows = self.connection.execute(
            f"SELECT rowid, {chosen} FROM ai_queries WHERE conversation_id = ? "
            "ORDER BY rowid",
            (self.id,),
        ).fetchall()
        found = []
        for rowid, start, status, model in rows:
            text = None
            if "input" in columns and isinstance(rowid, int):
                value = databases.bounded_value(
                    self.connection, "ai_queries", "input", rowid, full=self.full,
                    diagnostics=self.diagnostics,
                    where=f"{self.database}#ai_queries/{rowid}",
                )  # fmt: skip
                parsed = _json(value)
                if value and not isinstance(parsed, list):
                    self.diagnostics.skip(
                        f"{self.database}#ai_queries/{rowid}", 0, "not JSON"
                    )
                text = query_text(value)
            found.append((db_time(start), text, _status(status), as_str(model)))
        found.sort(key=lambda exchange: (exchange[0] is None, exchange[0] or _EPOCH))
        return found

    def status(
        self,
        time: datetime | None,
        status: str | None,
        model: str | None,
        window: list[_Item],
    ) -> Iterator[_Item]:
        end = next(
            (item.time for item in reversed(window) if item.time is not None), time
        )
        extra: dict[str, JSONValue] = {"reason": status or "unknown"}
        if model:
            extra["model"] = model
        if status == "Completed":
            yield _Item(end, "turn_end", {"extra": extra})
        elif status in ("Cancelled", "Canceled"):
            yield _Item(end, "meta", {"text": "cancelled", "extra": extra})
            yield _Item(end, "turn_end", {"extra": {**extra, "interrupted": True}})
        elif status == "Failed":
            yield _Item(end, "error", {"text": "the request failed", "extra": extra})
        elif status == "Pending":  # still streaming, or Warp quit before it ended
            return
        elif status:  # a state Warp writes that sessdex does not know
            self.diagnostics.unknown_type(f"output_status:{status}")

    # agent_tasks ------------------------------------------------------------------

    def task_messages(self) -> Iterator[_Item]:
        columns = databases.table_columns(self.connection, "agent_tasks")
        if not {"conversation_id", "task"} <= columns:
            return
        # no index leads with the id: every conversation's tasks found in one scan
        rowids = [
            rowid
            for (rowid,) in databases.scanned(
                self.connection,
                "SELECT conversation_id, rowid FROM agent_tasks ORDER BY rowid",
                _grouped,
            ).get(self.id, [])
        ]
        self.held = 0
        for rowid in rowids:
            where = f"{self.database}#agent_tasks/{rowid}"
            if not isinstance(rowid, int):  # a view's row: nothing opens it by rowid
                self.diagnostics.skip(where, 0, databases.NO_ROWID)
                continue
            try:
                with databases.open_blob(
                    self.connection, "agent_tasks", "task", rowid
                ) as blob:
                    spans = list(self.task_spans(blob, where))
                    heads: dict[int, bytes] = {}
                    for number, start, length in spans:
                        if number != 5:  # its id (1), description (2), dependencies (3)
                            blob.seek(start)
                            heads.setdefault(number, blob.read(length))
                    # a sub-task (its parent's id in its dependencies): a sub-agent's
                    agent = (
                        heads[1].decode("utf-8", "replace") or None
                        if 1 in heads and _text(_fields(heads.get(3)), 1)
                        else None
                    )
                    if agent and heads.get(2):  # what the lead's spawn is said to do
                        self.described[agent] = heads[2].decode("utf-8", "replace")
                    for number, start, length in spans:
                        if number == 5:
                            blob.seek(start)
                            for item in self.message(blob.read(length), where):
                                item.fields["agent_id"] = agent
                                if agent and item.kind == "user":  # the lead's task
                                    item.fields["extra"] = {
                                        "from_agent": "the lead",
                                        **item.fields.get("extra", {}),
                                    }
                                yield item
            except sqlite3.Error:  # NULL or a number: no task Warp writes
                self.diagnostics.skip(where, 0, "bad value")

    def task_spans(
        self, blob: sqlite3.Blob, where: str
    ) -> Iterator[tuple[int, int, int]]:
        """Where each of a task's messages (field 5), and its id (1) and dependencies (3),
        are in its blob, as (field, start, length), found by their headers only: a task
        holds its whole conversation, and can be any size. A message over TASK_CAP, or past
        the conversation's TASKS_BUDGET, is counted ("too long")."""
        size, position = len(blob), 0
        while position < size:
            blob.seek(position)
            head = blob.read(min(20, size - position))  # a key and a length: 2 varints
            try:
                key, used = pb.varint(head, 0)
                number, wire = key >> 3, key & 7
                if wire == 2:
                    length, used = pb.varint(head, used)
                elif wire == 0:
                    length, used = 0, pb.varint(head, used)[1]
                elif wire in (1, 5):
                    length = 8 if wire == 1 else 4
                else:
                    raise ValueError(f"wire type {wire}")
            except ValueError:
                self.diagnostics.skip(where, 0, "truncated")
                return
            start = position + used
            if number == 0 or start + length > size:
                self.diagnostics.skip(where, 0, "truncated")
                return
            position = start + length
            if number in (1, 2, 3) and wire == 2 and length <= _HEAD:
                yield number, start, length
            if number != 5 or wire != 2:
                continue
            if length > TASK_CAP or self.held + length > TASKS_BUDGET:
                self.diagnostics.skip(where, 0, "too long")
                if self.held + length > TASKS_BUDGET:
                    return  # the conversation's budget is spent: the rest of this task
                continue
            self.held += length
            yield number, start, length

    def message(self, data: bytes, where: str) -> Iterator[_Item]:
        try:
            parts = pb.fields(data)
        except ValueError:
            self.diagnostics.skip(where, 0, "truncated")
            return
        time = pb.timestamp(pb.first(parts, 14, 2))
        for number, wire, value in parts:
            if (
                wire != 2
                or not isinstance(value, bytes)
                or number in (1, 7, 8, 11, 13, 14)
            ):
                continue
            try:
                body = pb.fields(value)
            except ValueError:
                self.diagnostics.skip(where, 0, "truncated")
                return
            if number == 2:
                text = _text(body, 1, self.full)
                if text:
                    yield _Item(time, "user", {"text": text})
            elif number == 3:
                text = _text(body, 1, self.full)
                if text:
                    yield _Item(time, "assistant", {"text": text})
            elif number == 15:
                text = _text(body, 1, self.full)
                if text:
                    yield _Item(time, "thinking", {"text": text})
            elif number == 4:
                call = self.tool_call(body, time)
                yield call
                if call.fields.get("tool") == "subagent":
                    yield from self.spawn(body, call)
                elif call.fields.get("tool") == "start_agent":
                    yield from self.start(call)
            elif number == 5:
                yield from self.tool_result(body, time, where)
            elif number == 16:  # a conversation's summary (1), or a tool result's (3)
                summary = pb.first(body, 1, 2)
                if isinstance(summary, bytes):
                    text = _text(_fields(summary), 1)
                    yield _Item(
                        time, "compaction", {"text": text or "conversation summarized"}
                    )
            elif number in (19, 20):  # a web search or fetch: its call and result
                yield from self.web(number, body, time, _text(parts, 1))
            elif number == 23:  # a skill invoked, with the user's query
                query = _fields(pb.first(body, 2, 2))
                text = _text(query, 1, self.full)
                if text:
                    yield _Item(time, "user", {"text": text})
            elif number == 24:  # messages other agents sent this one
                for received in tools.each(body, 1):
                    said = _fields(received)
                    text = "\n".join(
                        t for t in (_text(said, 4), _text(said, 5, self.full)) if t
                    )
                    sender = _text(said, 2) or "another agent"
                    if text:
                        yield _Item(
                            time,
                            "user",
                            {"text": text, "extra": {"from_agent": sender}},
                        )
            elif number == 25:
                model = _text(body, 1)
                if model:
                    yield _Item(
                        time,
                        "meta",
                        {"text": f"model {model}", "extra": {"model": model}},
                    )
            elif number not in _QUIET:
                self.diagnostics.unknown_type(f"task message field {number}")

    def web(
        self,
        number: int,
        body: list[pb.Field],
        time: datetime | None,
        message_id: str | None,
    ) -> Iterator[_Item]:
        tool, arguments, result = tools.web(number, body)
        call_id = f"{tool}-{message_id}" if message_id else None
        yield _Item(
            time,
            "tool_call",
            {"tool": tool, "call_id": call_id, "extra": {"input": arguments}},
        )
        if result is not None:
            yield _Item(
                time,
                "tool_result",
                {"tool": tool, "call_id": call_id, "text": _cut(result.text),
                 "is_error": result.is_error},
            )  # fmt: skip

    def spawn(self, body: list[pb.Field], call: _Item) -> Iterator[_Item]:
        """A `subagent` call's sub-task, run as a sub-agent of this conversation: its
        messages are the task named `task_id` (Warp interleaves them at this call)."""
        spec = _fields(pb.first(body, 19, 2))
        child = _text(spec, 1)
        if not child:
            return
        kind = next((_SUBAGENTS[n] for n, _, _ in spec if n in _SUBAGENTS), None)
        yield _Item(
            call.time,
            "subagent",
            {"call_id": call.fields.get("call_id"),
             "extra": {"child_id": child, "agent_type": kind}},
        )  # fmt: skip

    def start(self, call: _Item) -> Iterator[_Item]:
        """A `start_agent` call: the lead starts an agent in a conversation of its own,
        which keeps the name given here as its `agent_name` (matched by it, a guess)."""
        arguments = as_dict(as_dict(call.fields.get("extra")).get("input"))
        name = as_str(arguments.get("name"))
        extra: dict[str, JSONValue] = {
            "child_id": self.children().get(name) if name else None,
            "agent_type": None,
        }
        if name:
            extra["agent_name"] = name
        yield _Item(
            call.time,
            "subagent",
            {"call_id": call.fields.get("call_id"),
             "text": as_str(arguments.get("prompt")) or None, "extra": extra},
        )  # fmt: skip

    def children(self) -> dict[str, str]:
        """The agents this conversation started, by name: conversations whose
        `parent_conversation_id` is this one (read once, when a call asks)."""
        if self.started is not None:
            return self.started
        self.started = {}
        columns = databases.table_columns(self.connection, "agent_conversations")
        if not {"conversation_id", "conversation_data"} <= columns:
            return self.started
        rows = self.connection.execute(
            "SELECT rowid, conversation_id FROM agent_conversations"
        ).fetchall()
        for rowid, conversation_id in rows:
            data = json_object(
                databases.bounded_value(
                    self.connection, "agent_conversations", "conversation_data", rowid
                )
            )
            name = as_str(data.get("agent_name"))
            if (
                data.get("parent_conversation_id") == self.id
                and name
                and as_str(conversation_id)
            ):
                self.started.setdefault(name, conversation_id)
        return self.started

    def tool_call(self, body: list[pb.Field], time: datetime | None) -> _Item:
        call_id = _text(body, 1)
        tool, arguments = "tool", {}
        for number, wire, value in body:
            if number != 1 and wire == 2 and isinstance(value, bytes):
                tool = tools.TOOLS.get(number, f"tool_{number}")
                arguments = tools.call_input(number, value)
                break
        if tool.startswith("tool_"):
            self.diagnostics.unknown_type(f"tool call field {tool[5:]}")
        return _Item(
            time,
            "tool_call",
            {"tool": tool, "call_id": call_id, "extra": {"input": arguments}},
        )

    def tool_result(
        self, body: list[pb.Field], time: datetime | None, where: str
    ) -> Iterator[_Item]:
        """A result the task kept: its text as `_warp_tools.result` reads it."""
        call_id = _text(body, 1)
        try:
            found = tools.result(body)
        except ValueError:
            self.diagnostics.skip(where, 0, "truncated")
            found = tools.Result()
        if found.tool and found.tool.startswith("tool_"):
            self.diagnostics.unknown_type(f"tool result field {found.tool[5:]}")
        extra: dict[str, JSONValue] = {}
        if found.exit_code is not None:
            extra["exit_code"] = found.exit_code
        if found.tool == "start_agent" and not found.is_error:
            extra["launched"] = True  # the agent runs on, in its own conversation
        yield _Item(
            time,
            "tool_result",
            {
                "call_id": call_id,
                "tool": found.tool,
                "text": _cut(found.text),
                "is_error": found.is_error,
                "extra": extra,
            },
        )

    # blocks -----------------------------------------------------------------------

    def blocks(self) -> Iterator[_Item]:
        columns = databases.table_columns(self.connection, "blocks")
        if "ai_metadata" not in columns:
            return
        wanted = ("start_ts", "completed_ts", "exit_code")
        chosen = ", ".join(c if c in columns else "NULL" for c in wanted)
        order = "start_ts, rowid" if "start_ts" in columns else "rowid"
        # each conversation's blocks, by the id its metadata names, in one scan for
        # the run; a metadata that is no JSON object, under each id its text holds; one
        # past the cap left in the database (NULL here: never held, nor kept for the run)
        grouped = databases.scanned(
            self.connection,
            f"SELECT rowid, CASE WHEN length(CAST(ai_metadata AS BLOB)) <= "
            f"{files.READ_LINE_CAP} THEN ai_metadata END, {chosen} FROM blocks "
            f"WHERE ai_metadata IS NOT NULL ORDER BY {order}",
            _by_conversation,
        )
        placed = list(grouped.get(self.id, []))  # a copy: the scan is kept
        for at, row in grouped.get("", []):
            if row[1] is not None:
                if self.id in str(row[1]):
                    placed.append((at, row))
            elif self.too_long_holds_id(row[0]):
                where = f"{self.database}#blocks/{row[0]}"
                self.diagnostics.skip(where, 0, "too long")
        for _, (rowid, metadata, start, completed, exit_code) in sorted(placed):
            where = f"{self.database}#blocks/{rowid}"
            meta = _json(metadata)
            if not isinstance(meta, dict):
                self.diagnostics.skip(where, 0, "not JSON")
                continue
            if meta.get("conversation_id") != self.id:
                continue  # the id is elsewhere in the metadata: another conversation's
            if not isinstance(rowid, int):  # a view's row: command and output unread
                self.diagnostics.skip(where, 0, databases.NO_ROWID)
                continue
            call_id = as_str(meta.get("action_id")) or as_str(
                meta.get("requested_command_action_id")
            )
            command = _terminal_text(self.cell("stylized_command", rowid, columns))
            output = _terminal_text(self.cell("stylized_output", rowid, columns))
            code = exit_code if isinstance(exit_code, int) else None
            ended = db_time(completed)
            began = db_time(start) or ended
            extra: dict[str, JSONValue] = {}
            if code is not None:
                extra["exit_code"] = code
            # the command rides in `tool` until `items` makes its call (then replaced)
            yield _Item(
                began,
                "tool_result",
                {
                    "call_id": call_id or f"block-{rowid}",
                    "agent_id": as_str(meta.get("subagent_task_id")) or None,
                    "tool": command,
                    "text": _cut(output),
                    "is_error": code not in (None, 0),
                    "extra": extra,
                },
                block="run_shell_command" if call_id else "user_command",
            )

    def too_long_holds_id(self, rowid: object) -> bool:
        """Whether a block's metadata past the cap holds this conversation's id (looked
        for by SQLite, the value never brought into Python)."""
        try:
            row = self.connection.execute(
                "SELECT instr(ai_metadata, ?) > 0 FROM blocks WHERE rowid = ?",
                (self.id, rowid),
            ).fetchone()
        except sqlite3.Error:
            return False
        return bool(row and row[0])

    def cell(self, column: str, rowid: int, columns: set[str]) -> bytes | None:
        """A block's command or output, at most OUTPUT_CAP bytes of it."""
        if column not in columns:
            return None
        try:
            with databases.open_blob(self.connection, "blocks", column, rowid) as blob:
                return blob.read(OUTPUT_CAP + 1)
        except sqlite3.Error:
            return None

    # agent_conversations ----------------------------------------------------------

    def usage(self) -> Iterator[_Item]:
        columns = databases.table_columns(self.connection, "agent_conversations")
        if not {"conversation_id", "conversation_data"} <= columns:
            return
        modified = "last_modified_at" if "last_modified_at" in columns else "NULL"
        # no index leads with the id: every conversation's row found in one scan
        rows = databases.scanned(
            self.connection,
            f"SELECT conversation_id, rowid, {modified} FROM agent_conversations"
            " ORDER BY rowid",
            _grouped,
        ).get(self.id)
        if not rows:
            return
        row = cast("tuple[int | None, object]", rows[0])
        where = f"{self.database}#agent_conversations/{row[0]}"
        value = databases.bounded_value(
            self.connection, "agent_conversations", "conversation_data", row[0],
            diagnostics=self.diagnostics, where=where,
        )  # fmt: skip
        data = _json(value)
        if value and not isinstance(data, dict):
            self.diagnostics.skip(where, 0, "not JSON")
            return
        metadata = as_dict(as_dict(data).get("conversation_usage_metadata"))
        time = db_time(row[1])
        counted: list[JSONValue] = []
        said: list[str] = []
        models: set[str] = set()
        for entry in as_list(metadata.get("token_usage"))[:_MODELS]:
            entry = as_dict(entry)
            model = as_str(entry.get("model_id")) or ""
            tokens: dict[str, JSONValue] = {"model": model}
            for key, names in _TOKEN_KEYS:
                count = next((entry[n] for n in names if _number(entry.get(n))), None)
                if isinstance(count, int):
                    tokens[key] = count
            if len(tokens) > 1:
                counted.append(tokens)
                models.add(model)
                told = ", ".join(
                    f"{v} {k.replace('_', ' ')}"
                    for k, v in tokens.items()
                    if k != "model"
                )
                said.append(f"{model or 'a model'}: {told}")
        # the credits Warp shows: its own and the platform's (`AIConversation::credits_spent`)
        # conversation totals (Warp's server sums them "so far in the conversation"): they
        # are this conversation's usage once, never a message's
        spent = [metadata.get(k) for k in ("credits_spent", "platform_credits_spent")]
        paid = [value for value in spent if _number(value)]
        credits = as_credits(sum(v for v in paid if isinstance(v, int | float)))
        named = next(iter(models)) if len(models) == 1 and "" not in models else None
        charged = self.charged(
            as_dict(metadata.get("total_charged_usage")), named, time, credits
        )
        if charged is not None:
            yield charged
        elif credits:  # credits and no charged tokens: the credits alone are its usage
            billed = Usage(model=named, credits=credits)
            alone: dict[str, JSONValue] = {"scope": "session", "summed": True}
            yield _Item(time, "usage", {"usage": billed, "extra": alone})
        if not counted and not paid:
            return
        extra: dict[str, JSONValue] = {"token_usage": counted, "scope": "session"}
        if paid:
            said.append(
                f"{sum(v for v in paid if isinstance(v, int | float)):g} credits spent"
            )
        split = "" if charged is not None else " (no input/output split)"
        yield _Item(
            time,
            "meta",
            {"text": f"Warp's count{split}: " + "; ".join(said), "extra": extra},
        )

    def charged(
        self,
        totals: dict[str, object],
        model: str | None,
        time: datetime | None,
        credits: float = 0.0,
    ) -> _Item | None:
        """The conversation's charged usage, where Warp kept it (`total_charged_usage`,
        summed by Warp over every request, model and category): one `usage` event, with
        the conversation's `credits`."""
        given, output, cache_read, cache_write = (
            as_int(totals.get(key), floats=False) for key in _CHARGED
        )
        usage = Usage(
            given, output, cache_read, cache_write, model=model, credits=credits
        ).plausible()
        if not usage.total:
            return None
        counts = [totals.get(key) for key in _CHARGED]
        if any(odd_count(c) or isinstance(c, float) for c in counts):
            # billed as 0 (`as_int`, `plausible`; Warp writes whole numbers, a float is
            # none of them); a conversation's row has no line
            where = f"{self.database}#agent_conversations"
            self.diagnostics.damage(where, 0, odd_in("set of totals"))
        extra: dict[str, JSONValue] = {"scope": "session", "summed": True}
        cents = [totals.get(key) for key in _COST_KEYS]
        cost = sum(c for c in cents if isinstance(c, int | float) and _number(c))
        if 0 < cost < 10**9:
            extra["cost_usd"] = round(cost / 100, 6)
        return _Item(time, "usage", {"usage": usage, "extra": extra})


def _grouped(rows: list[tuple[object, ...]]) -> dict[object, list[tuple[object, ...]]]:
    """Rows as each first column's rest, in their order."""
    found: dict[object, list[tuple[object, ...]]] = {}
    for row in rows:
        found.setdefault(row[0], []).append(row[1:])
    return found


_Block = tuple[object, object, object, object, object]


def _by_conversation(
    rows: list[tuple[object, ...]],
) -> dict[str, list[tuple[int, _Block]]]:
    """Blocks (rowid, ai_metadata, ...) as each conversation's, numbered in their
    order, by the `conversation_id` their metadata names; under "" those whose
    metadata is no JSON object (each conversation whose id its text holds counts it)."""
    found: dict[str, list[tuple[int, _Block]]] = {}
    for at, row in enumerate(rows):
        meta = _json(row[1])
        if isinstance(meta, dict):
            named = meta.get("conversation_id")
            if isinstance(named, str):
                found.setdefault(named, []).append((at, cast(_Block, row)))
        else:
            found.setdefault("", []).append((at, cast(_Block, row)))
    return found


def _number(value: object) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and value == value
        and abs(value) < 10**15
    )


def _windows(starts: list[datetime | None]) -> Callable[[datetime | None], int]:
    """Which exchange's window a time falls in: the last that started at or before it
    (the first for what came earlier, the last for what has no time). The starts sorted
    once and each time found by halving: a scan of them for each item cost the
    product of a long conversation's items and exchanges."""
    timed = sorted((start, n) for n, start in enumerate(starts) if start is not None)
    keys = [start for start, _ in timed]
    latest = list(itertools.accumulate((n for _, n in timed), max))

    def window(time: datetime | None) -> int:
        if time is None:
            return max(len(starts) - 1, 0)
        before = bisect.bisect_right(keys, time)
        return latest[before - 1] if before else 0

    return window


def _status(value: object) -> str | None:
    """`output_status` as Warp writes it: a JSON string (`"Completed"`), or an object
    whose one key names the state."""
    parsed = _json(value) if isinstance(value, str) and value[:1] in '"{' else value
    if isinstance(parsed, dict) and len(parsed) == 1:
        parsed = next(iter(parsed))
    return as_str(parsed) or None


def _text(parts: list[pb.Field], number: int, full: bool = True) -> str | None:
    """A string field; one over `files.READ_LINE_CAP` is its elision marker (shown as
    "[text, 5.0 MB]") unless the session is read in full."""
    value = pb.first(parts, number, 2)
    if not isinstance(value, bytes):
        return None
    if not full and len(value) > files.READ_LINE_CAP:
        head = value[:80].decode("utf-8", "replace")
        return f"{files.ELIDED_PREFIX}{len(value)}:{head}"
    return value.decode("utf-8", "replace") or None


def _fields(value: object) -> list[pb.Field]:
    """A nested message's fields: [] where there is none, or it does not decode."""
    if not isinstance(value, bytes):
        return []
    try:
        return pb.fields(value)
    except ValueError:
        return []


def _terminal_text(value: bytes | None) -> str | None:
    if not value:
        return None
    cut = len(value) > OUTPUT_CAP
    text = _ANSI.sub("", value[:OUTPUT_CAP].decode("utf-8", "replace"))
    return text + "\n[… cut]" if cut else text


def _cut(text: str | None) -> str | None:
    if text is None:
        return None
    if len(text) > OUTPUT_CAP:
        return text[:OUTPUT_CAP] + "\n[… cut]"
    return plain(text)


def _json(value: object) -> object:
    if not isinstance(value, str | bytes) or not value:
        return None
    try:
        return orjson.loads(value)
    except orjson.JSONDecodeError:
        return None


def query_text(value: object) -> str | None:
    """The user's text in an `ai_queries.input` list (`[{"Query": {"text": …}}]`)."""
    parsed = _json(value)
    texts = [
        text
        for item in (parsed if isinstance(parsed, list) else [])
        if (text := as_str(as_dict(as_dict(item).get("Query")).get("text")))
    ]
    return "\n".join(texts) or None


# `total_charged_usage`'s counts, in `Usage`'s order
_CHARGED = (
    "input_tokens",
    "output_tokens",
    "input_cache_read_tokens",
    "input_cache_write_tokens",
)
