"""Typed picks out of parsed JSON, times, and event numbering, for sources that need them.

Small and IO-light (only `line_start` and `file_size` touch a file): a source reads through
files.py, then uses these to take a string, a dict or a list out of a record without a
cascade of isinstance checks, and to number its events from 0.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import cast

from .. import files
from ..model import Event, EventKind, JSONValue, Usage

TITLE_CHARS = 200


def obj(value: object, key: str) -> dict[str, object]:
    """value[key] when both are dicts, else an empty dict."""
    found = value.get(key) if isinstance(value, dict) else None
    return found if isinstance(found, dict) else {}


def text_of(value: object, key: str) -> str | None:
    """value[key] when it is a non-empty string, else None."""
    found = value.get(key) if isinstance(value, dict) else None
    return found if isinstance(found, str) and found else None


def items(value: object, key: str) -> list[object]:
    found = value.get(key) if isinstance(value, dict) else None
    return found if isinstance(found, list) else []


def dicts(value: object, key: str) -> list[dict[str, object]]:
    return [item for item in items(value, key) if isinstance(item, dict)]


def number(value: object, key: str) -> int:
    found = value.get(key) if isinstance(value, dict) else None
    return found if isinstance(found, int) and not isinstance(found, bool) else 0


def json_value(value: object) -> JSONValue:
    if value is None or isinstance(value, (str, int, float, bool, list, dict)):
        return cast(JSONValue, value)
    return str(value)


def one_line(text: str | None) -> str | None:
    """A title: whitespace collapsed, one line, at most TITLE_CHARS."""
    line = " ".join(text.split()) if text else ""
    if len(line) > TITLE_CHARS:
        line = line[: TITLE_CHARS - 1].rstrip() + "…"
    return line or None


def plain(text: str) -> str:
    """The text, or a short note for a payload files.py elided."""
    marker = files.elided(text)
    return f"[text, {files.human_bytes(marker[0])}]" if marker else text


def blob(mime: str | None, data: object) -> str:
    """A note for base64 data (an image), never the data itself."""
    if not isinstance(data, str) or not data:
        return f"[{mime or 'data'}]"
    marker = files.elided(data)
    size = marker[0] if marker else len(data)
    return f"[{mime or 'data'}, {files.human_bytes(size * 3 // 4)}]"


def iso_time(value: object) -> datetime | None:
    """An ISO time in UTC; a naive one is taken as local time."""
    if not isinstance(value, str) or not value:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment.astimezone(UTC)


def ms_time(value: object) -> datetime | None:
    """Epoch milliseconds in UTC."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        return None
    try:
        return datetime.fromtimestamp(value / 1000, UTC)
    except (OverflowError, OSError, ValueError):
        return None


def file_size(path: Path | None) -> int:
    try:
        return path.stat().st_size if path is not None else 0
    except OSError:
        return 0


def line_start(path: Path, offset: int) -> int:
    """`offset`, or the start of the next line when it falls inside one (that piece is dropped)."""
    if offset <= 0:
        return 0
    with open(path, "rb") as stream:
        stream.seek(offset - 1)
        position = offset - 1
        while chunk := stream.read(files.CHUNK):
            newline = chunk.find(b"\n")
            if newline >= 0:
                return position + newline + 1
            position += len(chunk)
        return position


class Emitter:
    """Numbers the events of one session from 0, whichever agent they come from."""

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self.seq = 0

    def __call__(
        self,
        kind: EventKind,
        *,
        agent_id: str | None = None,
        time: datetime | None = None,
        estimated: bool = False,
        text: str | None = None,
        tool: str | None = None,
        call_id: str | None = None,
        is_error: bool = False,
        usage: Usage | None = None,
        extra: dict[str, JSONValue] | None = None,
    ) -> Event:
        event = Event(
            session_id=self.session_id,
            seq=self.seq,
            kind=kind,
            time=time,
            time_estimated=estimated and time is not None,
            agent_id=agent_id,
            text=text,
            tool=tool,
            call_id=call_id,
            is_error=is_error,
            usage=usage,
            extra=extra or {},
        )
        self.seq += 1
        return event
