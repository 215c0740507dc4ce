"""The one JSON shape of sessions and events, used by `--json`, `--nl` and `export -f json`.

A field has one name everywhere. Times are ISO 8601 in UTC with a trailing Z.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import cast

import orjson

from ..model import (
    FILLED_FIELDS,
    SPAWN_TYPES,
    Event,
    JSONValue,
    Session,
    Usage,
    joined_spawns,
)

SESSION_FIELDS = (
    "app",
    "id",
    "cwd",
    "branch",
    "title",
    "created",
    "updated",
    "model",
    "effort",
    "permission_mode",
    "cli_version",
    "path",
    "bytes",
    "parent_id",
    "agent_type",
)


# The last datetime `iso` wrote and its text: the events of one line share their time.
_last_iso: tuple[datetime | None, str] = (None, "")
# what `iso` writes of a field: 00 to 99, 000 to 999, and the years it met (1 to 9999)
_TWO_DIGITS = tuple(f"{n:02d}" for n in range(100))
_THREE_DIGITS = tuple(f"{n:03d}" for n in range(1000))
_YEARS: dict[int, str] = {}


def iso(value: datetime | None) -> str | None:
    """`value` in UTC to the millisecond (cut, as `isoformat` cuts), with a trailing Z;
    a naive `value` is local time. Written by hand: `isoformat` and its "+00:00" taken
    off were a tenth of `show --json`."""
    global _last_iso
    if value is None:
        return None
    last, text = _last_iso
    if value is last:
        return text
    utc = value if value.tzinfo is UTC else value.astimezone(UTC)
    year = _YEARS.get(utc.year) or _YEARS.setdefault(utc.year, f"{utc.year:04d}")
    # the fields' digits looked up, not formatted: a third less than `%02d` each
    two = _TWO_DIGITS
    text = (
        f"{year}-{two[utc.month]}-{two[utc.day]}T{two[utc.hour]}:{two[utc.minute]}"
        f":{two[utc.second]}.{_THREE_DIGITS[utc.microsecond // 1000]}Z"
    )
    if value.tzinfo is not None:  # a naive time's text follows the local zone
        _last_iso = (value, text)
    return text


def parse_iso(value: object) -> datetime | None:
    """A datetime from an ISO string or epoch seconds/milliseconds; None if unreadable."""
    if isinstance(value, bool) or value is None:
        return None
    try:
        if isinstance(value, int | float):
            seconds = value / 1000 if value > 1e11 else value
            return datetime.fromtimestamp(seconds, UTC)
        if isinstance(value, str) and value:
            parsed = datetime.fromisoformat(
                value.replace("Z", "+00:00") if value.endswith("Z") else value
            )
            return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    except (ValueError, OverflowError, OSError):
        return None
    return None


# The longest title kept: a title a file gives may be any size (a hostile home's, or a
# whole pasted prompt an app took for one), and the index holds every session's, and
# `list` and `find` each of them; past this a title is cut, an ellipsis saying so. So
# are a branch, a model and the other names (no real one is near as long: a cut one is
# never passed on, as it is no plain name). A folder is kept whole: one cut is another
TITLE_LIMIT = 1000
_CUT_FIELDS = ("title", "branch", "model", "effort", "permission_mode", "agent_type")


def session_record(session: Session) -> dict[str, JSONValue]:
    """The public JSON object of a session."""
    record: dict[str, JSONValue] = {}
    for name in SESSION_FIELDS:
        value = getattr(session, name)
        record[name] = iso(value) if isinstance(value, datetime) else value
    for name in _CUT_FIELDS:
        value = record[name]
        if isinstance(value, str) and len(value) > TITLE_LIMIT:
            record[name] = value[: TITLE_LIMIT - 1] + "\u2026"
    record["forked_from"] = forked_from(session.extra)
    record["observer"] = observer(session.extra)
    return record


def forked_from(extra: object) -> str | None:
    """The session a fork was copied from, where its app records it (`forked_from_id`)."""
    value = extra.get("forked_from_id") if isinstance(extra, dict) else None
    return value if isinstance(value, str) and value else None


def observer(extra: object) -> bool:
    """Whether a sub-agent runs beside another to watch it (`extra["observer"]`: Claude
    Code's observers), not work its lead gave out."""
    return isinstance(extra, dict) and extra.get("observer") is True


def _encode(record: object) -> bytes:
    """A record as the index keeps it (and `list --json` prints it), as `dumps` writes it."""
    return dumps(record)


def session_state(session: Session) -> bytes:
    """Everything a session holds, extra included, for the index to store and restore."""
    record = session_record(session)
    record["precedence"] = session.precedence
    record["listed"] = session.listed
    record["extra"] = cast(JSONValue, dict(session.extra))
    return _encode(record)


def session_encodings(session: Session) -> tuple[bytes, bytes]:
    """(`session_state`, the JSON of `session_record`), the record encoded once for both."""
    public = _encode(session_record(session))
    extra = session.extra
    held = cast(JSONValue, extra if type(extra) is dict else dict(extra))
    return _state_of(public, session.precedence, session.listed, held), public


def _state_of(
    public: bytes, precedence: JSONValue, listed: JSONValue, extra: JSONValue
) -> bytes:
    """A state's encoding from its record's (`public`): the bytes of the record with these
    three fields after its own, as one object of them all encodes, the record not
    encoded again (a first index encodes every session's)."""
    rest = _encode({"precedence": precedence, "listed": listed, "extra": extra})
    return public[:-1] + b"," + rest[1:]


def merge_states(states: Sequence[bytes]) -> dict[str, JSONValue]:
    """`model.merge` over sessions encoded by `session_state`, without decoding them into
    sessions: the index merges thousands per refresh (one session spoken of by a
    database row, a transcript and a title index)."""
    ordered = sorted(
        (cast(dict[str, JSONValue], orjson.loads(state)) for state in states),
        key=_standing,
        reverse=True,
    )
    merged = ordered[0]
    for name in FILLED_FIELDS:
        merged[name] = next(
            (v for value in ordered if (v := value.get(name)) is not None), None
        )
    extra: dict[str, JSONValue] = {}
    for value in reversed(ordered):
        extra.update(cast(dict[str, JSONValue], value.get("extra") or {}))
    spawns: list[object] = [
        held.get(SPAWN_TYPES)
        for value in reversed(ordered)
        if isinstance(held := value.get("extra"), dict)
    ]
    if sum(isinstance(types, dict) for types in spawns) > 1:
        extra[SPAWN_TYPES] = joined_spawns(spawns)
    merged["extra"] = extra
    merged["listed"] = (
        any(value.get("listed", True) for value in ordered)
        and "superseded_by" not in extra
    )
    return merged


def _standing(value: dict[str, JSONValue]) -> tuple[int, bool, str, str]:
    """`model._standing` of an encoded session: its `updated` as `iso` writes it (fixed
    width, in UTC) sorts as the time does."""
    updated, path = value.get("updated"), value.get("path")
    return (
        cast(int, value.get("precedence") or 0),
        isinstance(updated, str),
        updated if isinstance(updated, str) else "",
        path if isinstance(path, str) else "",
    )


def state_encodings(value: dict[str, JSONValue]) -> tuple[bytes, bytes]:
    """What `session_encodings` gives for the session `value` (a `merge_states` result)."""
    record = {name: value.get(name) for name in SESSION_FIELDS}
    record["forked_from"] = forked_from(value.get("extra"))
    record["observer"] = observer(value.get("extra"))
    public = _encode(record)
    state = _state_of(
        public,
        value.get("precedence", 0),
        value.get("listed", True),
        value.get("extra") or {},
    )
    return state, public


def session_from_state(data: bytes | str) -> Session:
    value = orjson.loads(data)
    return Session(
        app=value["app"],
        id=value["id"],
        path=value.get("path"),
        cwd=value.get("cwd"),
        branch=value.get("branch"),
        title=value.get("title"),
        created=parse_iso(value.get("created")),
        updated=parse_iso(value.get("updated")),
        model=value.get("model"),
        effort=value.get("effort"),
        permission_mode=value.get("permission_mode"),
        cli_version=value.get("cli_version"),
        bytes=value.get("bytes"),
        parent_id=value.get("parent_id"),
        agent_type=value.get("agent_type"),
        precedence=value.get("precedence", 0),
        listed=value.get("listed", True),
        extra=value.get("extra") or {},
    )


def usage_record(usage: Usage) -> dict[str, JSONValue]:
    return {
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cache_read_tokens": usage.cache_read_tokens,
        "cache_write_tokens": usage.cache_write_tokens,
        "reasoning_tokens": usage.reasoning_tokens,
        "model": usage.model,
        # what the app billed in its own credits (0: none recorded), never a cost
        "credits": round(usage.credits, 6),
    }


def event_record(event: Event, *, with_extra: bool = True) -> dict[str, JSONValue]:
    """The public JSON object of an event (`show --json`, `follow --nl`, exports): every
    field always present, `extra` as `{}` when the event has none. Its `extra` may be
    the event's own dict (not copied for every event written): change the record's
    fields, never what its `extra` holds."""
    record: dict[str, JSONValue] = {
        "seq": event.seq,
        "kind": event.kind,
        "time": iso(event.time),
        "time_estimated": event.time_estimated,
        "session_id": event.session_id,
        "agent_id": event.agent_id,
        "text": event.text,
        "tool": event.tool,
        "call_id": event.call_id,
        "is_error": event.is_error,
        "usage": usage_record(event.usage) if event.usage is not None else None,
    }
    if with_extra:
        extra = event.extra
        record["extra"] = extra if type(extra) is dict else dict(extra)
    return record


# Characters JSON may carry raw that a terminal or an editor acts on when the JSON is
# printed or opened as it is: C1 controls (U+009B is a one-character CSI, as ESC [ is),
# every bidi control (text shown in an order other than its own: the Arabic letter mark
# and the marks as much as overrides and isolates), line and paragraph separators, and
# what draws nothing (`cells.INVISIBLE`: a zero-width space, a word joiner, a BOM, tag
# characters), which `views.text` leaves out of what a person reads. Written as \u
# escapes: the same string to any JSON reader. One pattern per lead byte, searched only
# where a plain byte search finds that byte; the joiners (U+200C, U+200D) are text.
_HIDDEN = (
    (b"\xc2", re.compile(rb"\xc2[\x80-\x9f]")),
    (b"\xd8", re.compile(rb"\xd8\x9c")),
    (b"\xe1", re.compile(rb"\xe1\xa0\x8e")),
    (
        b"\xe2",
        re.compile(rb"\xe2(?:\x80[\x8b\x8e\x8f\xa8-\xae]|\x81[\xa0-\xa4\xa6-\xaf])"),
    ),
    (b"\xef", re.compile(rb"\xef(?:\xbb\xbf|\xbf[\xb9-\xbb])")),
    (b"\xf0", re.compile(rb"\xf0(?:\x9b\xb2[\xa0-\xa3]|\x9d\x85[\xb3-\xba])")),
    (b"\xf3", re.compile(rb"\xf3\xa0[\x80\x81][\x80-\xbf]")),
)


def _escaped(found: re.Match[bytes]) -> bytes:
    # past the BMP, as JSON writes it: a surrogate pair
    units = found[0].decode().encode("utf-16-be")
    return b"".join(
        b"\\u%02x%02x" % (units[n], units[n + 1]) for n in range(0, len(units), 2)
    )


def _inert(data: bytes) -> bytes:
    if data.isascii():  # most records: one scan, not one per lead byte
        return data
    for lead, pattern in _HIDDEN:
        if lead in data:
            data = pattern.sub(_escaped, data)
    return data


def dumps(value: object, indent: bool = False, *, kept: bool = True) -> bytes:
    """JSON for scripts: UTF-8, no NaN, non-str keys allowed (counters); characters a
    terminal would act on or draws as nothing escaped, as orjson escapes the C0 controls
    (see `_HIDDEN`).

    A value orjson cannot write (an integer past 64 bits, which the standard library's
    parser, a reader's fallback, keeps whole) is written as orjson would have read it.
    `kept=False`: the bytes are written out and dropped at once (an event streamed), so
    they are not copied to their own size."""
    option = orjson.OPT_NON_STR_KEYS | (orjson.OPT_INDENT_2 if indent else 0)
    try:
        data = orjson.dumps(value, option=option)
    except TypeError:
        data = orjson.dumps(_writable(value), option=option)
    if kept and len(data) < _COMPACT_BELOW:
        # orjson hands back its working buffer (4 KiB at the least) as the bytes object:
        # a record kept (an index refresh holds thousands) is copied to its own size
        data = memoryview(data).tobytes()
    return _inert(data)


_COMPACT_BELOW = 64 * 1024


def utf8_text(text: str) -> str:
    """`text` as UTF-8 can hold it: a lone surrogate (`"\\ud83d"`, a cut emoji, which
    JSON allows and a reader's fallback keeps) becomes U+FFFD, the rest stays as it is.
    orjson and SQLite take nothing else."""
    if text.isascii():
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _writable_key(key: object) -> object:
    if isinstance(key, str):
        return utf8_text(key)
    return key if isinstance(key, int | float | bool) else str(key)


def _writable(value: object) -> object:
    if isinstance(value, dict):
        return {_writable_key(key): _writable(v) for key, v in value.items()}
    if isinstance(value, list | tuple):
        return [_writable(item) for item in value]
    if isinstance(value, int) and not isinstance(value, bool):
        if -(2**63) <= value < 2**64:
            return value
        try:
            return float(value)  # what orjson reads such a number as
        except OverflowError:
            return str(value)
    if isinstance(value, str):
        return utf8_text(value)
    if value is None or isinstance(value, float | bool):
        return value
    return str(value)
