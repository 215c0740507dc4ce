"""Small typed helpers every source needs: JSON picks, times, notes for elided text, numbering.

Not a reader (only `stat_size`, `file_size` and `line_start` touch a file): a source reads
through files.py, then takes a string, dict or number out of a record without a cascade of
isinstance checks, turns the ways apps write a time into an aware UTC datetime, and numbers
its events from 0. Where apps need subtly different rules, a keyword at the call says which.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal, TypedDict, Unpack, cast
from urllib.parse import unquote, urlparse

import orjson

from .. import files
from ..diagnostics import Diagnostics
from ..files import line_start as line_start  # where the sources have long found it
from ..model import MAX_RESPONSE_CREDITS, Event, EventKind, Extra, JSONValue, Usage

TITLE_CHARS = 200
_EXACT_LIMIT = 2**53  # the largest integer a JavaScript number holds exactly
MS_ABOVE = 1e11  # a larger epoch number is milliseconds: 1e11 seconds is the year 5138


def copied_note(source: str) -> str:
    """What the `meta` event opening a fork's copied turns says, in every app's words
    alike (its extra names the source as `forked_from`)."""
    return f"started from a copy of {source}'s conversation"


def as_dict(value: object) -> dict[str, object]:
    """The value when it is a dict, else an empty dict."""
    return value if isinstance(value, dict) else {}


def as_list(value: object) -> list[object]:
    """The value when it is a list, else an empty list."""
    return value if isinstance(value, list) else []


def as_str(value: object) -> str | None:
    """The value when it is a non-empty string, else None."""
    return value if isinstance(value, str) and value else None


def as_int(value: object, *, floats: bool = True) -> int:
    """An int, a float cut to an int (0 instead when `floats` is False); 0 for anything else, bools too.

    Beyond 2**53 (and for NaN or infinity) 0 as well: the apps that write these files are
    mostly JavaScript, which cannot write such a number exactly; it is a broken value.
    """
    if type(value) is int:  # nearly every count: `usage` takes millions of them
        return value if -_EXACT_LIMIT <= value <= _EXACT_LIMIT else 0
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    if not -_EXACT_LIMIT <= value <= _EXACT_LIMIT:  # NaN fails every comparison
        return 0
    return int(value) if floats or isinstance(value, int) else 0


def odd_count(value: object) -> bool:
    """Whether a token count is a value no app writes as one (text, a bool, a fraction,
    below 0, past 2**53): damage to say (`diagnostics.ODD_COUNT`). A missing one (None)
    is not: an app leaves out what it does not count."""
    if value is None:
        return False
    if type(value) is int:  # nearly every count: the checks below, done quickly
        return not 0 <= value <= _EXACT_LIMIT
    if isinstance(value, bool) or not isinstance(value, int | float):
        return True
    if isinstance(value, float) and not value.is_integer():  # NaN, infinity too
        return True
    return not 0 <= value <= _EXACT_LIMIT


def as_credits(value: object) -> float:
    """An app's credits (its own billing unit), a plain non-negative number; 0.0 for
    anything else (a bool, a string, NaN, a negative or absurd amount)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0.0
    return float(value) if 0 <= value <= MAX_RESPONSE_CREDITS else 0.0


_JSON_TYPES = {
    dict: "object",
    list: "array",
    bool: "boolean",
    int: "number",
    float: "number",
}


def type_tag(value: object) -> str | None:
    """A record's or block's type tag: the string, None where there is none, or for any
    other value a stand-in that names its JSON type (`<array>`), so that a line whose
    tag is not a string is reported as an unknown type instead of breaking a lookup."""
    if value is None or isinstance(value, str):
        return value
    return f"<{_JSON_TYPES.get(type(value), 'value')}>"


def stripped(value: object) -> str | None:
    """A string without its outer whitespace; None when that leaves nothing, or for a non-string."""
    return value.strip() or None if isinstance(value, str) else None


def _get(value: object, key: str) -> object:
    return value.get(key) if isinstance(value, dict) else None


def obj(value: object, key: str) -> dict[str, object]:
    """value[key] when both are dicts, else an empty dict."""
    return as_dict(_get(value, key))


def text_of(value: object, key: str) -> str | None:
    """value[key] when it is a non-empty string, else None."""
    return as_str(_get(value, key))


def items(value: object, key: str) -> list[object]:
    """value[key] when it is a list, else an empty list."""
    return as_list(_get(value, key))


def dicts(value: object, key: str) -> list[dict[str, object]]:
    """The dicts in the list value[key]."""
    return [item for item in items(value, key) if isinstance(item, dict)]


def number(value: object, key: str) -> int:
    """value[key] when it is an int (not a bool), else 0."""
    return as_int(_get(value, key), floats=False)


def cut_short(data: bytes | str) -> bool:
    """Whether JSON text ends before its outermost object or array closes (a torn write:
    "truncated", not "not JSON")."""
    stripped = (data.encode() if isinstance(data, str) else data).rstrip()
    return stripped[:1] in (b"{", b"[") and stripped[-1:] not in (b"}", b"]")


def loaded_object(
    data: bytes | str, where: str, diagnostics: Diagnostics
) -> dict[str, object] | None:
    """The JSON object `data` holds (a database value); None, counted at `where` as
    "truncated", "not JSON" or "not an object", where it holds none. Half an emoji (a
    lone surrogate escape, which orjson refuses) is read as U+FFFD, as in a file."""
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
        try:
            value, damaged = files.loads_repaired(raw)
        except orjson.JSONDecodeError:
            diagnostics.skip(where, 0, "truncated" if cut_short(data) else "not JSON")
            return None
        if damaged:
            diagnostics.damage(where, 0, files.damage_of(raw))
    if not isinstance(value, dict):
        diagnostics.skip(where, 0, "not an object")
        return None
    return value


def one_line(value: object, limit: int | None = TITLE_CHARS) -> str | None:
    """Whitespace collapsed to single spaces, cut at `limit` characters with "…"; None if blank."""
    line = " ".join(value.split()) if isinstance(value, str) else ""
    if limit is not None and len(line) > limit:
        line = line[: limit - 1].rstrip() + "…"
    return line or None


def first_line(value: object) -> str | None:
    """The first line of a string that is not blank, stripped."""
    if not isinstance(value, str):
        return None
    return next((line.strip() for line in value.splitlines() if line.strip()), None)


def plain(text: str, label: str = "text") -> str:
    """The text, or a short note ("[text, 3.1 MB]") for a payload files.py elided."""
    marker = files.elided(text)
    return f"[{label}, {files.human_bytes(marker[0])}]" if marker else text


def shown_text(value: object, *, keep_empty: bool = True) -> str | None:
    """A string as `plain` shows it; None for a non-string, and for "" unless `keep_empty`."""
    if not isinstance(value, str) or not (value or keep_empty):
        return None
    return plain(value)


def decoded_size(data: object) -> int:
    """The bytes a base64 string holds, an elided one counted at its full length; 0 for a non-string."""
    if not isinstance(data, str):
        return 0
    marker = files.elided(data)
    return (marker[0] if marker else len(data)) * 3 // 4


def blob(mime: str | None, data: object) -> str:
    """A note for base64 data (an image), never the data itself."""
    if not isinstance(data, str) or not data:
        return f"[{mime or 'data'}]"
    return f"[{mime or 'data'}, {files.human_bytes(decoded_size(data))}]"


def json_value(value: object) -> JSONValue:
    """The value as it is when it is of a JSON type (not looked into), else its str()."""
    if value is None or isinstance(value, str | int | float | bool | list | dict):
        return cast(JSONValue, value)
    return str(value)


def json_copy(value: object) -> JSONValue:
    """A deep copy through JSON (tuples become lists); str(value) when JSON cannot hold it."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    try:
        return cast(JSONValue, orjson.loads(orjson.dumps(value)))
    except TypeError:
        return str(value)


def shown_json(value: object) -> JSONValue:
    """A deep copy with every string as `plain` shows it and other types as their str()."""
    if isinstance(value, str):
        return plain(value)
    if isinstance(value, dict):
        return {str(key): shown_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [shown_json(item) for item in value]
    if value is None or isinstance(value, bool | int | float):
        return value
    return str(value)


def shown_arguments(value: object) -> JSONValue:
    """Tool-call arguments as `shown_json`, from a JSON string when they are one; other text kept."""
    if isinstance(value, str):
        try:
            parsed = files.loads(value)
        except orjson.JSONDecodeError:
            return plain(value)
        return shown_json(parsed)
    return shown_json(value)


def parsed_arguments(raw: object) -> JSONValue:
    """Tool-call arguments an app keeps as JSON text, parsed (the text as it is where it
    does not parse); any other value copied through JSON (`json_copy`)."""
    if not isinstance(raw, str) or not raw:
        return json_copy(raw)
    try:
        parsed = cast(JSONValue, files.loads(raw))
    except orjson.JSONDecodeError:
        return raw
    return parsed


def json_object(value: object) -> dict[str, object]:
    """A dict, or the dict that JSON text (str or bytes) holds; {} for anything else."""
    if isinstance(value, dict):
        return value
    if isinstance(value, str | bytes) and value:
        try:  # half an emoji (a lone surrogate escape) read as U+FFFD, as in a file
            parsed = files.loads(value)
        except orjson.JSONDecodeError:
            return {}
        return parsed if isinstance(parsed, dict) else {}
    return {}


def _epoch(value: object, ms: bool) -> datetime | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        return None
    try:
        return datetime.fromtimestamp(value / 1000 if ms else value, UTC)
    except (OverflowError, OSError, ValueError):
        return None


def row_number(value: object) -> object:
    """A database row's number: as it is, or from its digits where it is text (a database
    a tool rewrote with TEXT columns keeps its epochs and counts so)."""
    return int(value) if isinstance(value, str) and value.isdigit() else value


def ms_time(value: object) -> datetime | None:
    """Epoch milliseconds; None for 0, negatives and non-numbers."""
    return _epoch(value, ms=True)


def epoch_time(value: object) -> datetime | None:
    """Epoch seconds, or milliseconds when over MS_ABOVE; None for 0, negatives and non-numbers."""
    return _epoch(value, ms=isinstance(value, int | float) and value > MS_ABOVE)


def iso_time(
    value: object, *, naive: Literal["utc", "local"] = "utc"
) -> datetime | None:
    """An ISO 8601 string's time; one without an offset is UTC, or local time if `naive="local"`."""
    if not isinstance(value, str) or not value:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None and naive == "utc":
        moment = moment.replace(tzinfo=UTC)
    try:
        return moment.astimezone(UTC)
    except OverflowError:  # 0001-01-01T00:00+05:00 is before the year 1 in UTC
        return None


def epoch_or_iso_time(value: object) -> datetime | None:
    """`epoch_time` for a number, `iso_time` for a string."""
    return epoch_time(value) or iso_time(value)


def db_time(value: object, *, digit_text: bool = False) -> datetime | None:
    """A time as a database row keeps it: an epoch number (`epoch_time`), or SQL/Go/RFC 3339 text.

    With `digit_text`, a string of digits is an epoch number too. Go writes nanoseconds; the
    digits after the point are cut to the six Python takes.
    """
    if digit_text and isinstance(value, str) and value.strip().lstrip("-").isdigit():
        value = int(value)
    if not isinstance(value, str) or not value:
        return epoch_time(value)
    text = value.strip().replace(" ", "T", 1).replace("Z", "+00:00")
    if "." in text:
        head, _, rest = text.partition(".")
        digits = len(rest) - len(
            rest.lstrip("0123456789")
        )  # the fraction, not the offset after it
        text = f"{head}.{rest[: min(digits, 6)]}{rest[digits:]}"
    return iso_time(text)


def local_path(uri: str | None) -> str | None:
    """The folder a `file://` URI names, percent-decoded (`file:///c%3A/x` is `c:/x`; a
    host's `file://server/share`, a UNC share, is `\\\\server\\share` as Windows names
    it); a bare path as it is (a Windows one, `C:\\x`, included); None for another scheme
    (a remote workspace)."""
    if not uri:
        return None
    if re.match(r"^[A-Za-z]:[/\\]", uri):  # not the scheme `c:` but a Windows drive
        return uri
    parsed = urlparse(uri)
    if parsed.scheme == "file":
        path = unquote(parsed.path)
        if re.match(r"^/[A-Za-z]:[/\\]", path):  # a Windows drive
            path = path[1:]
        elif parsed.netloc and parsed.netloc.lower() != "localhost":  # a UNC share
            path = f"\\\\{unquote(parsed.netloc)}{path}".replace("/", "\\")
        return path or None
    return None if parsed.scheme else uri


def stat_size(path: Path) -> int | None:
    """The file's size in bytes; None when it cannot be read."""
    try:
        return path.stat().st_size
    except OSError:
        return None


def written_time(path: Path) -> datetime | None:
    """When the file was last written (its mtime); None when it cannot be read. The time
    of a session an app rewrites whole on every change and keeps no time of its own."""
    try:
        return datetime.fromtimestamp(path.stat().st_mtime, UTC)
    except (OSError, OverflowError, ValueError):
        return None


def file_size(path: Path | None) -> int:
    """The file's size in bytes; 0 for no path or a file that cannot be read."""
    return (stat_size(path) if path is not None else None) or 0


class _EventDraft:
    """An Event's slots in the same order, not frozen: `draft` fills one with plain
    attribute stores (the frozen class's slot setters cost three times as much), then
    makes it the Event it is. The layouts are the same, so its class may be changed."""

    __slots__ = tuple(Event.__dataclass_fields__)
    session_id: str
    seq: int
    kind: EventKind
    time: datetime | None
    time_estimated: bool
    agent_id: str | None
    text: str | None
    tool: str | None
    call_id: str | None
    is_error: bool
    usage: Usage | None
    extra: Extra


assert list(Event.__dataclass_fields__) == [
    "session_id", "seq", "kind", "time", "time_estimated", "agent_id", "text", "tool",
    "call_id", "is_error", "usage", "extra",
]  # fmt: skip


def draft(
    session_id: str,
    kind: EventKind,
    time: datetime | None,
    time_estimated: bool,
    agent_id: str | None,
    text: str | None,
    tool: str | None,
    call_id: str | None,
    is_error: bool,
    usage: Usage | None,
    extra: Extra,
    _new: Callable[[type[_EventDraft]], _EventDraft] = object.__new__,
) -> Event:
    """`Event(...)` with seq 0, without the frozen dataclass's __init__ (some 4x the cost).

    Every field is set, in its slot, as that __init__ does; the draft is fresh, so no
    one sees it half made, and no one holds it as anything but an Event. The field
    order is pinned above. A reader numbers its drafts with `renumber` as it gives them
    out.
    """
    event = _new(_EventDraft)
    event.session_id = session_id
    event.seq = 0
    event.kind = kind
    event.time = time
    event.time_estimated = time_estimated
    event.agent_id = agent_id
    event.text = text
    event.tool = tool
    event.call_id = call_id
    event.is_error = is_error
    event.usage = usage
    event.extra = extra
    event.__class__ = Event  # type: ignore[assignment]
    return event  # type: ignore[return-value]  # an Event now (`cast` is a call a line)


# `renumber`'s setter, for a reader's loop that numbers every event it gives out
SET_SEQ: Callable[[Event, object], None] = vars(Event)["seq"].__set__


def renumber(event: Event, seq: int) -> Event:
    """Give a reader's draft its place in the session, in place.

    Only for an event no one else holds yet (a reader's own, about to be given out):
    setting the field as a frozen dataclass's own __init__ does is then safe, and far
    cheaper than `dataclasses.replace`.
    """
    SET_SEQ(event, seq)
    return event


class _UsageDraft:
    """A Usage's slots, not frozen: what `new_usage` fills, as `_EventDraft` for `draft`."""

    __slots__ = tuple(Usage.__dataclass_fields__)
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    reasoning_tokens: int
    model: str | None
    credits: float


assert list(Usage.__dataclass_fields__) == [
    "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens",
    "reasoning_tokens", "model", "credits",
]  # fmt: skip


def new_usage(
    input_tokens: int,
    output_tokens: int,
    cache_read_tokens: int,
    cache_write_tokens: int,
    reasoning_tokens: int,
    model: str | None,
    credits: float = 0.0,
    _new: Callable[[type[_UsageDraft]], _UsageDraft] = object.__new__,
) -> Usage:
    """`Usage(...)` of all its fields, made as `draft` makes an Event (a reader makes one
    for every response)."""
    usage = _new(_UsageDraft)
    usage.input_tokens = input_tokens
    usage.output_tokens = output_tokens
    usage.cache_read_tokens = cache_read_tokens
    usage.cache_write_tokens = cache_write_tokens
    usage.reasoning_tokens = reasoning_tokens
    usage.model = model
    usage.credits = credits
    usage.__class__ = Usage  # type: ignore[assignment]
    return usage  # type: ignore[return-value]  # a Usage now, as `draft`'s event


class EventFields(TypedDict, total=False):
    """The optional parts of an Event, as keyword arguments."""

    agent_id: str | None
    text: str | None
    tool: str | None
    call_id: str | None
    is_error: bool
    usage: Usage | None
    extra: Extra


class Emitter:
    """Numbers the events of one session from 0, whichever agent they come from."""

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self.seq = 0

    def __call__(
        self,
        kind: EventKind,
        time: datetime | None = None,
        *,
        estimated: bool = False,
        **fields: Unpack[EventFields],
    ) -> Event:
        """The next event; `estimated` marks its time as a guess (only when there is one).
        A payload files.py elided is given as its note ("[text, 50.0 MB]"), in `text` and
        in a tool call's `input`, never as the marker a reader may have passed on."""
        text = fields.get("text")
        if text is not None and text.startswith(files.ELIDED_PREFIX):
            fields["text"] = plain(text)
        extra = fields.get("extra")
        if extra and "input" in extra:
            noted = _noted(extra["input"])
            if noted is not extra["input"]:
                fields["extra"] = {**extra, "input": noted}
        # made as `draft` makes one, each field as the frozen dataclass's __init__ sets it
        # (at several times the cost: most readers make every event here)
        event = draft(
            self.session_id,
            kind,
            time,
            estimated and time is not None,
            fields.get("agent_id"),
            fields.get("text"),
            fields.get("tool"),
            fields.get("call_id"),
            fields.get("is_error", False),
            fields.get("usage"),
            fields.get("extra", {}),
        )
        renumber(event, self.seq)
        self.seq += 1
        return event

    def by(
        self,
        kind: EventKind,
        time: datetime | None,
        agent: str | None,
        **fields: Unpack[EventFields],
    ) -> Event:
        """The next event, of `agent` (None: the lead): for a reader that tells each
        event's agent as it goes, a bound `by` is its event maker."""
        fields["agent_id"] = agent
        return self(kind, time, **fields)


def _noted(value: JSONValue, depth: int = 0) -> JSONValue:
    """The value with each elision marker in it replaced by its note; the value itself
    where it holds none."""
    if isinstance(value, str):
        return plain(value) if value.startswith(files.ELIDED_PREFIX) else value
    if depth > 8 or not isinstance(value, dict | list):
        return value
    if isinstance(value, list):
        items = [_noted(item, depth + 1) for item in value]
        changed = any(a is not b for a, b in zip(items, value, strict=True))
        return items if changed else value
    members = {key: _noted(item, depth + 1) for key, item in value.items()}
    changed = any(members[key] is not item for key, item in value.items())
    return members if changed else value
