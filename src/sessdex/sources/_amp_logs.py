"""Amp's per-thread logs, `$XDG_CACHE_HOME/amp/logs/threads/T-<id>.log`: what they say.

Amp now keeps its threads on its server and writes no thread document. While it works on
a thread it appends that thread's log records to this file, one JSON object a line
(`{"@timestamp", level, message, logger, ...}`, the record's properties flattened beside
them), and it deletes a log unwritten for a week. A log is not a transcript: it names the
thread (`[observer] onThreadTitle`), the agent's state and mode (`[observer]
onAgentState`), the tools it ran with their input (`onToolLease`) and how each run ended
(the `executor_tool_result` sent, with its `runStatus`, else the server's
`onExecutorToolResultAck`), but holds no message text, tool output or token count. Those
records are read; every other one is Amp's own operational log, passed over.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import orjson

from .. import files
from ..diagnostics import Diagnostics
from ..model import Event, JSONValue, Session
from ._values import (
    Emitter,
    as_dict,
    first_line,
    iso_time,
    line_start,
    ms_time,
    stat_size,
    stripped,
    type_tag,
)

APP = "amp"
SUFFIX = ".log"
FOLDER = ("logs", "threads")  # under Amp's cache folder
# below a thread document of the same id: where there is one, the document is read
PRECEDENCE = -1
SERVER_NOTE = (
    "Amp keeps this thread on its server; its local log names the tools the agent ran, "
    "not the messages"
)
EXPORT_NOTE = ": `amp threads export {id}` prints the whole thread"
# an id as Amp writes it, safe to print in a command (a file name can hold anything)
_PLAIN_ID = re.compile(r"T-[0-9A-Fa-f-]{1,64}\Z")

_TITLE = b'"[observer] onThreadTitle"'
_STATE = b'"[observer] onAgentState"'
STATE_BACK = 256 * 1024  # bytes looked back for the agent's state when reading on
_HEAD_LINES = 8  # the first record's time
_SUB_AGENT_TOOLS = frozenset({"Task"})  # as in thread documents
_FAILED = frozenset({"error", "cancelled", "rejected-by-user"})  # a run's status
_BUSY = frozenset({"compacting", "working", "streaming", "tool_use", "running_tools"})


def is_log_folder(folder: Path) -> bool:
    """Whether `folder` is Amp's folder of per-thread logs."""
    return folder.parts[-2:] == FOLDER


def parse(path: Path, diagnostics: Diagnostics) -> list[Session]:
    """The thread a log speaks of: its id (the file's name), title, mode and times."""
    try:
        size, head, tail = files.ends(path, _HEAD_LINES, diagnostics=diagnostics)
        title = None
        for line in files.lines_with(path, _TITLE, 0, size, diagnostics=diagnostics):
            if title := _title(line):  # the newest: a rename is written after
                break
    except FileNotFoundError:
        diagnostics.problem(f"{APP}: {path} vanished")
        return []
    first = last = None
    mode = None
    for line in head:
        record = files.parse_json(line, diagnostics, str(path))
        if record is not None and first is None:
            first = iso_time(record.get("@timestamp"))
    for line in tail:
        record = files.parse_json(line) if line.complete else None
        if record is None:
            continue
        last = iso_time(record.get("@timestamp")) or last
        if record.get("type") == "agent_state":
            mode = stripped(record.get("agentMode")) or mode
    extra: dict[str, JSONValue] = {"mode": mode} if mode else {}
    thread = path.name.removesuffix(SUFFIX)
    created = thread_time(thread) or first
    return [
        Session(
            app=APP,
            id=thread,
            path=str(path),
            title=title,
            created=created,
            updated=last or first or created,
            bytes=stat_size(path),
            precedence=PRECEDENCE,
            extra=extra,
        )
    ]


def read(
    session: Session, diagnostics: Diagnostics, *, full: bool = False, offset: int = 0
) -> Iterator[Event]:
    """The tools the agent ran, each call and its end, and the ends of its turns."""
    if session.path is None:
        return
    path = Path(session.path)
    event = Emitter(session.id)
    if offset == 0:
        yield event(
            "meta",
            session.created,
            text=SERVER_NOTE
            + (
                EXPORT_NOTE.format(id=session.id) if _PLAIN_ID.match(session.id) else ""
            ),
            extra={"on_server": True},
        )
    called: set[str] = set()  # a call leased again (another executor) is one call
    ended: set[str] = set()
    state: str | None = None
    try:
        start = line_start(path, offset)
        # read on from an offset (follow, watch): the agent's state when it was left, so
        # that an idle just after it still ends the turn
        state = _state_before(path, start) if start else None
        for _, record in files.iter_records(path, diagnostics, offset=start, full=full):
            message = record.get("message")
            if not isinstance(message, str):
                diagnostics.unknown_type("log.<no message>")
                continue
            time = iso_time(record.get("@timestamp"))
            data = as_dict(record.get("data"))
            if message == "onToolLease":
                call = stripped(data.get("toolCallId"))
                if data.get("type") != "tool_lease" or call is None:
                    diagnostics.unknown_type(
                        f"log.onToolLease.{type_tag(data.get('type'))}"
                    )
                    continue
                if call in called:
                    continue
                called.add(call)
                value = data.get("args")
                tool = stripped(data.get("toolName"))
                yield event(
                    "tool_call",
                    time,
                    tool=tool,
                    call_id=call,
                    agent_id=stripped(data.get("parentToolCallId")),
                    extra={"input": value if isinstance(value, dict | list) else None},
                )
                # a sub-agent: the leases of its own tools name this call
                if tool is not None and tool in _SUB_AGENT_TOOLS:
                    task = as_dict(value)
                    said = stripped(task.get("description")) or stripped(
                        task.get("prompt")
                    )
                    yield event("subagent", time, call_id=call, text=said,
                                extra={"child_id": call, "agent_type": tool.lower()})  # fmt: skip
            elif message in ("websocket message", "onExecutorToolResultAck"):
                # what the tool gave went to Amp's server: the log says how its run ended
                # (the result sent), else only that the server took it (its ack)
                sent = record.get("type") == "executor_tool_result"
                if not sent and message == "websocket message":
                    continue
                call = stripped(
                    record.get("toolCallId") if sent else data.get("toolCallId")
                )
                if call is None or call in ended:
                    continue
                ended.add(call)
                status = stripped(record.get("runStatus")) if sent else None
                failed = status in _FAILED
                yield event("tool_result", time, call_id=call, is_error=failed,
                            text=f"[{status}]" if failed else None)  # fmt: skip
            elif message == "[observer] onAgentState":
                now = stripped(record.get("subtype"))
                if now == "idle" and state in _BUSY:
                    yield event("turn_end", time, extra={"reason": "idle"})
                state = now or state
    except FileNotFoundError:
        diagnostics.problem(f"{APP}: {path} vanished")


def _state_before(path: Path, position: int) -> str | None:
    """The agent's state in the last `onAgentState` record of the STATE_BACK bytes before
    `position`, else None."""
    begin = max(0, position - STATE_BACK)
    with files.open_regular(path) as stream:
        stream.seek(begin)
        data = stream.read(position - begin)
    hit = data.rfind(_STATE)
    while hit >= 0:
        first = data.rfind(b"\n", 0, hit) + 1
        if first or not begin:  # a whole line (the window may start mid-line)
            end = data.find(b"\n", hit)
            try:
                record = files.loads(data[first : end if end >= 0 else len(data)])
            except orjson.JSONDecodeError:
                record = None  # a broken line: an older one may tell
            if (
                isinstance(record, dict)
                and record.get("message") == _STATE[1:-1].decode()
            ):
                return stripped(record.get("subtype"))
        hit = data.rfind(_STATE, 0, first - 1) if first else -1
    return None


def thread_time(thread: str) -> datetime | None:
    """When a thread began, from its id: Amp's ids are `T-` and a UUIDv7, whose first
    48 bits are its creation's Unix time in milliseconds."""
    try:
        value = uuid.UUID(thread.removeprefix("T-"))
    except ValueError:
        return None
    if value.version != 7:
        return None
    return ms_time(value.int >> 80)


def _title(line: files.Line) -> str | None:
    record = files.parse_json(line)
    if record is None or record.get("message") != "[observer] onThreadTitle":
        return None
    return first_line(stripped(as_dict(record.get("data")).get("title")))
