"""Cursor's older plain-text agent transcripts: `agent-transcripts/<id>.txt`, read for `cursor`.

Before the JSONL layout (about February 2026) Cursor wrote each agent conversation as text,
one section per speaker: a `user:` line, then an optional `<timestamp>…</timestamp>` (a
local time such as "Thursday, Jul 2, 2026, 11:11 AM (UTC-4)") and the prompt inside
`<user_query>…</user_query>`; an `A:` (or `assistant:`) line, then the answer, where
`[Thinking] …` lines are reasoning, `[Tool call] Name` starts a call whose indented
`key: value` lines are its arguments, and `[Tool result] Name` starts what came back. No
usage, model or tool-call ids are written. Several public readers (session viewers and
usage tools) agree on these markers; no real file was seen here.

Read line by line (bounded: `files.iter_lines`), one event per block; a call and the next
result of the same tool are linked by a made-up id.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

from .. import files
from ..diagnostics import Diagnostics
from ..model import Event, JSONValue
from ._values import Emitter, one_line

SPEAKERS = {"user:": "user", "A:": "assistant", "assistant:": "assistant"}
_QUERY = re.compile(r"<user_query>(.*?)</user_query>", re.DOTALL)
_STAMP = re.compile(r"<timestamp>(.*?)</timestamp>")
_WHEN = re.compile(
    r"\w+, (\w{3}) (\d{1,2}), (\d{4}), (\d{1,2}):(\d{2}) ([AP]M) \(UTC([+-]\d{1,2})(?::?(\d{2}))?\)"
)
_MONTHS = {
    m: i
    for i, m in enumerate(
        [
            "Jan",
            "Feb",
            "Mar",
            "Apr",
            "May",
            "Jun",
            "Jul",
            "Aug",
            "Sep",
            "Oct",
            "Nov",
            "Dec",
        ],
        1,
    )
}
HEAD_LINES = 200  # lines read for the listing's first prompt and time
QUERY_CAP = 256 * 1024  # a prompt's text held while its tag is open
STAMP_REACH = 4096  # the stamp opens a prompt: a long one is not searched through


def first_query(path: Path) -> tuple[str | None, datetime | None, bool]:
    """(the first prompt, its time, whether the file has a speaker line at all)."""
    lines = [
        line.data.decode("utf-8", "replace")
        for line in files.head_lines(path, HEAD_LINES)
    ]
    text = "\n".join(lines)
    found = _QUERY.search(text)
    stamp = _STAMP.search(text)
    spoken = any(line.strip() in SPEAKERS for line in lines)
    return (
        one_line(found.group(1), limit=None) if found else None,
        when(stamp.group(1)) if stamp else None,
        spoken,
    )


def stamp(text: str) -> datetime | None:
    """The time of a prompt's `<timestamp>` tag in `text`, if it has one."""
    found = _STAMP.search(text[:STAMP_REACH])
    return when(found.group(1)) if found else None


def unstamped(text: str) -> str:
    """`text` without the `<timestamp>` tag it opens with."""
    return _STAMP.sub("", text[:STAMP_REACH], count=1) + text[STAMP_REACH:]


def when(value: str) -> datetime | None:
    """ "Thursday, Jul 2, 2026, 11:11 AM (UTC-4)" as an aware time."""
    found = _WHEN.search(value)
    if found is None:
        return None
    month, day, year, hour, minute, half, offset, offset_minutes = found.groups()
    hours = int(hour) % 12 + (12 if half == "PM" else 0)
    shift = timedelta(
        hours=int(offset),
        minutes=int(offset_minutes or 0) * (1 if int(offset) >= 0 else -1),
    )
    try:
        return datetime(
            int(year),
            _MONTHS.get(month, 0),
            int(day),
            hours,
            int(minute),
            tzinfo=timezone(shift),
        )
    except ValueError:
        return None


def read(path: Path, session_id: str, diagnostics: Diagnostics) -> Iterator[Event]:
    """The transcript's events, in the order it was written."""
    emit = Emitter(session_id)
    speaker: str | None = None
    block: list[str] = []
    kind = "text"  # what the lines being gathered are: text, query, call, result
    tool: str | None = None
    calls = 0
    pending: dict[str, list[str]] = {}  # tool name -> ids of its calls not answered yet
    time: datetime | None = None
    held = 0

    def flush() -> Iterator[Event]:
        nonlocal block, kind, tool, held
        text = "\n".join(block).strip()
        if kind == "query" or (speaker == "user" and kind == "text"):
            query = _QUERY.search(text)
            said = query.group(1).strip() if query else _STAMP.sub("", text).strip()
            if said:
                yield emit("user", time, text=said)
        elif kind == "call":
            arguments: dict[str, JSONValue] = {}
            for line in block:
                key, sep, value = line.strip().partition(": ")
                if sep:
                    arguments[key] = value
            made = f"{session_id}:{calls}"
            pending.setdefault(tool or "", []).append(made)
            yield emit(
                "tool_call",
                time,
                tool=tool,
                call_id=made,
                extra={"input": arguments},
            )
        elif kind == "result":
            waiting = pending.get(tool or "")
            call_id = waiting.pop(0) if waiting else None
            yield emit(
                "tool_result", time, tool=tool, call_id=call_id, text=text or None
            )
        elif text and speaker == "assistant":
            yield emit("assistant", time, text=text)
        block, kind, tool, held = [], "text", None, 0

    with files.open_binary(path) as stream:
        for line in files.iter_lines(stream, diagnostics=diagnostics, path=str(path)):
            raw = line.data.decode("utf-8", "replace").rstrip("\r\n")
            marker = raw.strip()
            if marker in SPEAKERS and not raw.startswith(" "):
                yield from flush()
                speaker = SPEAKERS[marker]
                continue
            if speaker == "user" and (stamp := _STAMP.search(raw)):
                time = when(stamp.group(1)) or time
                raw = _STAMP.sub("", raw)
                if not raw.strip():
                    continue
            if speaker == "assistant" and raw.startswith("[Thinking]"):
                yield from flush()
                thought = raw[len("[Thinking]") :].strip()
                if thought:
                    yield emit("thinking", time, text=thought)
                continue
            if speaker == "assistant" and raw.startswith("[Tool call]"):
                yield from flush()
                calls += 1
                kind, tool = "call", raw[len("[Tool call]") :].strip() or None
                continue
            if speaker == "assistant" and raw.startswith("[Tool result]"):
                yield from flush()
                kind, tool = "result", raw[len("[Tool result]") :].strip() or None
                continue
            if kind == "call" and not raw.startswith((" ", "\t")) and raw.strip():
                yield from flush()  # the arguments ended: the answer goes on
            if held + len(raw) <= QUERY_CAP:  # a block's text is held, up to a bound
                block.append(raw)
                held += len(raw) + 1
    yield from flush()
