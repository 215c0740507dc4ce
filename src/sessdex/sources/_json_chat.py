"""The one-file JSON chat of Gemini CLI before 0.40 and of Qwen Code before 0.5.

`{sessionId, projectHash, startTime, lastUpdated, messages, summary?}`, laid out by
JSON.stringify(chat, null, 2) and rewritten whole on every message. Read here: what a listing
needs of one (its top-level members, first prompt and last model; from its first and last
bytes when it is too big to parse, or a piece at a time when it is not laid out so, its
first prompt then read from its head) and its messages, parsed whole or, past READ_LIMIT, one at a time (`jsonstream`). A chat that does
not parse whole is read one message at a time too: one cut short (a crash or a full disk
mid-write, a copy taken during one) is listed from the members and messages before its cut
and shows those messages, the cut counted ("truncated") and said. Not a translator:
`_gemini_messages` makes events of the messages. Other apps' chats kept as one JSON
document (Nanocoder, Continue, Auggie, Codebuff, Kiro IDE) start their reads here too
(`document`, `items`), and find their last messages from the end (`last_messages`).
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from itertools import islice
from pathlib import Path
from typing import BinaryIO, cast

import orjson

from .. import files
from ..diagnostics import Diagnostics
from . import _gemini_messages as messages
from . import _hashed_folders as hashed
from ._values import (
    as_list,
    dicts,
    file_size,
    iso_time,
    one_line,
    stat_size,
    text_of,
    type_tag,
)

LIST_LIMIT = 16 * 1024 * 1024  # a bigger chat is listed from its ends
READ_LIMIT = files.WHOLE_JSON_CAP  # ...and read one message at a time past this
_ENDS = 256 * 1024  # bytes read at either end of a chat too big to list whole
# ...and at most this much of its head for its first prompt, scanned (never held) past a
# pasted payload before it (about 0.1 s for 16 MB)
_PROMPT_SCAN = 64 * 1024 * 1024

# A top-level member of a chat written with JSON.stringify(chat, null, 2): at the start of a
# line, indented two spaces (a string's own newlines are escaped, so only the document's
# structure starts a line).
_TOP_MEMBER = re.compile(
    rb'^  "(sessionId|projectHash|startTime|lastUpdated|summary|kind)": ("(?:[^"\\\n]|\\.)*")',
    re.MULTILINE,
)
# The session id as these apps write it, the document's first member: its first bytes hold it.
_FIRST_ID = re.compile(rb'\A\s*\{\s*"sessionId"\s*:\s*("(?:[^"\\\n]|\\.)*")')
_HEAD = 4096  # bytes read for it


@dataclass(frozen=True, slots=True)
class Listing:
    """What one chat file says for a listing."""

    session_id: str
    project_hash: str | None
    started: datetime | None
    updated: datetime | None
    summary: str | None
    prompt: str | None  # the first typed prompt that may title it
    model: str | None  # the last model message's
    tool_paths: tuple[
        str, ...
    ]  # absolute paths its tool calls took (as many as are tried)


def listing(
    path: Path, size: int, diagnostics: Diagnostics, app: str
) -> Listing | None:
    """The chat's listing; None (counted) when it is not a chat as these apps write it.
    A chat cut short (a write stopped half way, a copy taken during one) is listed from
    what comes before its cut, the cut counted and said."""
    document: object
    found: Iterable[dict[str, object]] = ()
    compact = False  # listed from its ends, though not laid out as the app writes it
    if size > LIST_LIMIT:
        # not laid out as the app writes it (another tool's compact copy): from its
        # ends too where they hold its members, else a piece at a time
        document = ends(path)
        if document is None:
            document = compact_ends(path)
            compact = document is not None
        if document is None:
            # its members read a piece at a time, its messages passed over unread
            pieces = _in_pieces(path, diagnostics, app)
            if pieces is None:
                return None  # counted
            document = pieces[0]
        elif not _closes(path):
            from ..jsonstream import note_cut

            note_cut(diagnostics, app, path)
        if not text_of(
            document, "summary"
        ):  # untitled: its first prompt, from its head
            found = _head_messages(path)
    else:
        document = files.read_json_file(path, limit=LIST_LIMIT, diagnostics=diagnostics)
        found = dicts(document, "messages")
        if document is None and size:  # broken: what can be read, a member at a time
            pieces = _in_pieces(path, diagnostics, app)
            if pieces is None:
                return None  # counted
            document, found = pieces
    session_id = text_of(document, "sessionId")
    if not isinstance(document, dict) or not session_id:
        diagnostics.skip(str(path), 1, "not JSON" if document is None else "bad value")
        return None
    prompt = model = None
    tool_paths: list[str] = []
    for message in found:  # one pass: `found` may be read from the file as it goes
        if not prompt and message.get("type") == "user":
            prompt = _prompt(message)
        model = text_of(message, "model") or model
        if len(tool_paths) < hashed.PATHS_TRIED:  # as many as are tried
            tool_paths += islice(hashed.tool_paths([message]), hashed.PATHS_TRIED)
    if compact and model is None:
        model = _last_model(path)  # as the read to its end found it
    project_hash = document.get("projectHash")
    return Listing(
        session_id=session_id,
        project_hash=project_hash if isinstance(project_hash, str) else None,
        started=iso_time(document.get("startTime"), naive="local"),
        updated=iso_time(document.get("lastUpdated"), naive="local"),
        summary=one_line(text_of(document, "summary")),
        prompt=one_line(prompt),
        model=model,
        tool_paths=tuple(tool_paths[: hashed.PATHS_TRIED]),
    )


def _in_pieces(
    path: Path, diagnostics: Diagnostics, app: str
) -> tuple[dict[str, object], Iterator[dict[str, object]]] | None:
    """A chat that does not parse whole: its top-level members and its messages, each
    read up to where it breaks, so that one cut short (a write stopped half way, a copy
    taken during one) keeps what came before its cut; None (counted) where it is no
    object, or is cut before its id."""
    from ..jsonstream import CutShort, NotThisShape, note_cut, object_members

    try:
        with files.open_binary(path) as stream:
            top = object_members(
                stream, _MESSAGES, diagnostics=diagnostics, path=str(path)
            )
    except CutShort as cut:
        note_cut(diagnostics, app, path)
        if not text_of(cut.members, "sessionId"):
            return None  # nothing to list it by; the cut is counted
        top = cut.members
    except (NotThisShape, OSError):
        diagnostics.skip(str(path), 1, "not JSON")
        return None
    return top, items(path, "messages", diagnostics, app)


_MESSAGES = frozenset({"messages"})


def _prompt(message: dict[str, object]) -> str | None:
    """What may title the chat (`title_text`), unless a text of the message was too long
    to keep (a pasted payload read in pieces): its note ("[text, 50 MB]") titles nothing."""
    for content in (message.get("displayContent"), message.get("content")):
        for part in content if isinstance(content, list) else [content]:
            text = part if isinstance(part, str) else text_of(part, "text")
            if text and files.elided(text):
                return None
    return messages.title_text(message)


def _head_messages(path: Path) -> Iterator[dict[str, object]]:
    """The first messages of a chat too big to list whole, up to the one with its first
    prompt, within its first _PROMPT_SCAN bytes. Nothing is counted: reading the chat
    counts what is wrong in it."""
    from ..jsonstream import NotThisShape, array_items

    try:
        with files.open_binary(path) as stream:
            head = cast(BinaryIO, _Head(stream, _PROMPT_SCAN))
            for message in array_items(head, "messages"):
                if isinstance(message, dict):
                    yield message
                    if message.get("type") == "user" and _prompt(message):
                        return
    except (NotThisShape, OSError):
        return  # cut at the bound, or not laid out so: no prompt from it


class _Head:
    """A binary stream read no further than `limit` bytes: it ends there."""

    def __init__(self, stream: BinaryIO, limit: int) -> None:
        self.stream, self.left = stream, limit

    def read(self, size: int = -1) -> bytes:
        size = self.left if size < 0 else min(size, self.left)
        if size <= 0:
            return b""
        data = self.stream.read(size)
        self.left -= len(data)
        return data

    # what `files.skip_hole` asks of a stream: a hole passed over counts as bytes gone
    @property
    def raw(self) -> object:
        return getattr(self.stream, "raw", self.stream)

    def tell(self) -> int:
        return self.stream.tell()

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        at = self.stream.tell()
        to = self.stream.seek(offset, whence)
        self.left -= to - at
        return to


def _closes(path: Path) -> bool:
    """Whether the chat's last bytes close its object, as a chat written to its end does."""
    try:
        return files.tail_bytes(path, 64)[1].rstrip().endswith(b"}")
    except OSError:
        return True  # gone: nothing to say of its end


def ends(path: Path) -> dict[str, object] | None:
    """The top-level members of a chat too big to parse, from its first and last bytes
    (the messages between are left unread); None if it is not laid out as these apps
    write it."""
    blocks = end_bytes(path)
    if blocks is None:
        return None
    found = top_members(blocks, _TOP_MEMBER)
    return found if isinstance(found.get("sessionId"), str) else None


# where a compact chat's messages start: a quote a key starts with is never one inside a
# string (those are escaped), so the first such key is the document's own where the
# members before it are strings
_COMPACT_MESSAGES = rb'[{,]\s*"%s"\s*:\s*\['


@dataclass(frozen=True, slots=True)
class Compact:
    """How a chat of an app's written on one line (another tool's copy) is told for one:
    the string member before its messages that holds its id, and the member each message
    holds (a string or an object) that says what it is."""

    id_key: str = "sessionId"
    kind_key: str = "type"


GEMINI = Compact()  # Gemini CLI's and Qwen Code's: `{sessionId, …, messages: [{type}]}`
# where an array closes and a member follows (a quote after a comma is structural)
_COMPACT_CLOSE = re.compile(rb'\]\s*,\s*"')


def compact_ends(
    path: Path, shape: Compact = GEMINI, key: str = "messages"
) -> dict[str, object] | None:
    """`ends` of a chat written on one line (`json.dumps`, not as these apps lay it out):
    the members before its messages, parsed from its first bytes, and those after their
    array, from its last (the first array close there after which the rest parses as one
    object's members: a close inside a message leaves that message's brackets open).
    None where they are not found so: its id not among the members before them."""
    try:
        with files.open_regular(path) as stream:
            head = stream.read(_ENDS)
            start = max(len(head), stream.seek(0, 2) - _ENDS)
            stream.seek(start)
            tail = stream.read(_ENDS)
    except OSError:
        return None
    if start == len(head):  # a small one: its ends meet
        head, tail = head + tail, head + tail
    opened = _compact_head(head, shape, key)
    if opened is None:
        return None
    found = opened[0]
    after = _members_after(tail)
    if after is not None:
        found.update(after[1])
    return found


def compact_after(path: Path) -> dict[str, object] | None:
    """The members a chat written on one line holds after its messages array, from its
    last bytes, as `compact_ends` finds them; None where they are not all there."""
    try:
        tail = files.tail_bytes(path, _ENDS)[1]
    except OSError:
        return None
    after = _members_after(tail)
    return None if after is None else after[1]


def _compact_head(
    head: bytes, shape: Compact = GEMINI, key: str = "messages"
) -> tuple[dict[str, object], int] | None:
    """The members before a compact chat's messages, parsed from its first bytes, and
    where in them its messages array opens (past its bracket); None where they are not
    found so: its id not among them, or a member among them that does not parse."""
    opens = re.search(_COMPACT_MESSAGES % re.escape(key.encode()), head)
    if opens is None or not head.lstrip().startswith(b"{"):
        return None
    before = head[: opens.start()].strip()
    try:
        found = orjson.loads(before + b"}") if before != b"" else {}
    except orjson.JSONDecodeError:
        return None  # an object among them: a piece at a time
    if not isinstance(found, dict) or not isinstance(found.get(shape.id_key), str):
        return None
    return found, opens.end()


def _members_after(tail: bytes) -> tuple[int, dict[str, object]] | None:
    """Where a compact chat's messages array closes in its last bytes and the members
    after it: the first close after which the rest parses as one object's members (a
    close inside a message leaves that message's brackets open); None where none does."""
    for close in _COMPACT_CLOSE.finditer(tail):
        try:
            after = orjson.loads(b"{" + tail[close.end() - 1 :])
        except orjson.JSONDecodeError:
            continue
        if isinstance(after, dict):
            return close.start(), after
    return None


# a bracket or a quote of a compact chat: its structure, outside its strings
_COMPACT_TOKEN = re.compile(rb'[][{}"]')


def _last_model(path: Path) -> str | None:
    """The model of a compact chat's last message that names one, from its last bytes:
    a message's own "model", not one a tool call's arguments name. Its messages are
    read back as a tail reads them (`_spans_back`), the bytes held in memory: their
    array closed within the last _ENDS, and its open looked for within _KEY_PAST more.
    An array opened there under another key (one of objects with a model after the
    messages) is passed over for the array closed before it; one longer than that is
    still taken for them. "messages" written again after the array: the later one's
    model, as a parser keeps it (orjson, as the whole read parses it)."""
    try:
        tail = files.tail_bytes(path, _ENDS + _KEY_PAST)[1]
    except OSError:
        return None
    near = max(0, len(tail) - _ENDS)
    closes = _messages_close(tail[near:], last=True)
    if closes is None:
        if b'"messages"' not in tail[near:]:
            return None  # no close found (cut short, its last member long): no more
        after = _members_after(tail[near:])
        later = after[1] if after is not None else {}
        return _model_of(reversed(dicts(later, "messages")))
    closes += near
    while closes is not None:
        # all the whole messages in the bytes held: the first one is cut by their start
        found = _spans_back(io.BytesIO(tail), 0, closes, len(tail))
        if found is None:
            return None
        spans, opens = found
        if opens is None or _key_before(io.BytesIO(tail), opens, 0) == "messages":
            return _model_of(_parsed(tail, spans))
        closes = _close_before(tail, opens)  # another member's: the value before it
    return None


def _parsed(data: bytes, spans: list[tuple[int, int]]) -> Iterator[object]:
    """The objects at `spans` of `data`, in their order; None for one that does not
    parse (the walk misread it), and none after it."""
    for start, end in spans:
        try:
            yield orjson.loads(data[start:end])
        except orjson.JSONDecodeError:
            yield None
            return


def _model_of(messages: Iterable[object]) -> str | None:
    """The first model these messages name; None where one is None (unparsed) first."""
    for message in messages:
        if message is None:
            return None
        model = text_of(message, "model")
        if model:
            return model
    return None


def _close_before(data: bytes, opens: int) -> int | None:
    """Where the array closes whose members after it run up to the member whose array
    opens at `opens` (its bracket), as `_members_after` finds it within the _ENDS before
    it; None where none does (the value before them is no array)."""
    begin = max(0, opens - _ENDS)
    found = _members_after(data[begin:opens] + b"[]}")
    return None if found is None else begin + found[0]


def _messages_close(
    tail: bytes, *, last: bool = False, key: str = "messages"
) -> int | None:
    """Where a compact chat's messages array closes in its last bytes: the first close
    after which the rest parses as its object's last members, as `compact_ends` finds.
    With `last`, None where those members hold "messages" again: a parser keeps that
    later one (orjson, as the whole read parses it), not the array closed here."""
    after = _members_after(tail)
    if after is not None:
        return None if last and key in after[1] else after[0]
    ends = tail.rstrip()  # its messages the object's last member
    if ends.endswith(b"}") and ends[:-1].rstrip().endswith(b"]"):
        return len(ends[:-1].rstrip()) - 1
    return None


def end_bytes(path: Path, size: int = _ENDS) -> tuple[bytes, bytes] | None:
    """The first and last `size` bytes of a chat written with JSON.stringify(chat, null,
    2); None if unreadable or not laid out so."""
    try:
        with files.open_regular(path) as stream:
            head = stream.read(size)
            stream.seek(max(len(head), stream.seek(0, 2) - size))
            tail = stream.read(size)
    except OSError:
        return None
    return (head, tail) if head.startswith(b"{\n") else None


def top_members(
    blocks: Iterable[bytes], pattern: re.Pattern[bytes]
) -> dict[str, object]:
    """The members `pattern` (name, JSON value) finds in `blocks`, a later one winning;
    a value that does not decode is passed over."""
    found: dict[str, object] = {}
    for block in blocks:
        for match in pattern.finditer(block):
            try:
                found[match.group(1).decode()] = orjson.loads(match.group(2))
            except orjson.JSONDecodeError:
                continue
    return found


_BACK = 1024 * 1024  # bytes searched for message starts at a time, from the end back
# ...and first, back from a compact chat's end (`_spans_back`), then doubled up to _BACK
_FIRST_BACK = 64 * 1024


@dataclass(frozen=True, slots=True)
class _Layout:
    """How JSON.stringify(chat, null, 2) lays out a chat's array of messages: under a
    top-level member (its messages objects at indent 4), or the document itself (at indent
    2). A string's newlines are escaped, so only the document's structure starts a line."""

    document: bytes  # how the document starts
    opens: bytes  # what opens the array
    start: bytes  # where a message starts (what a message holds sits deeper)
    close: bytes  # where the array closes, after its last message
    outside: re.Pattern[bytes]  # a line less indented than a message: not in the array

    @staticmethod
    def of(key: str | None) -> _Layout:
        if key is None:
            return _Layout(
                b"[\n", b"[", b"\n  {\n", b"\n  }\n]", re.compile(rb"\n ?\S")
            )
        opens = b'\n  "' + key.encode() + b'": ['
        return _Layout(
            b"{\n", opens, b"\n    {\n", b"\n    }\n  ]", re.compile(rb"\n {0,3}\S")
        )


def last_messages(
    path: Path,
    count: int,
    key: str | None = "messages",
    *,
    then: bytes | None = None,
    compact: Compact | bool = False,
) -> list[dict[str, object]] | None:
    """The chat's last `count` messages (of its array under `key`, or the document itself
    where it is None), found from its end (the bytes before them never read), in order;
    None where the whole read serves: the chat holds no more than `count`, is not laid
    out as JSON.stringify(chat, null, 2) writes it, changed while it was read, or one of
    them is past READ_LIMIT (which the whole read parts, eliding). The messages are to be
    the document's last member that holds objects: the array closed last is taken for
    theirs (one after them, as Auggie's `subAgents`, of fewer than `count` is seen, as
    they cross out of it; of more, not), so an app that writes another is not read so;
    unless `then` names the member the app writes right after the messages (`"agentState":
    `): their array is the one closed before it, looked for within READ_LIMIT of the end.
    With `compact` (True: Gemini's `GEMINI`), a chat of the app's written on one line
    (another tool's copy) is read from its end too (`_compact_last`): its array under
    `key` (`then` aside: the members after it are those that parse), or the document
    itself where `key` is None (its `id_key` unused)."""
    try:
        with files.open_regular(path) as stream:
            before = os.fstat(stream.fileno())
            layout = _Layout.of(key)
            found = _last_messages(stream, before.st_size, count, layout, then)
            if found is None and compact:
                stream.seek(0)
                shape = GEMINI if compact is True else compact
                found = _compact_last(stream, before.st_size, count, shape, key)
            after = os.fstat(stream.fileno())
    except OSError:
        return None
    if (before.st_size, before.st_mtime_ns) != (after.st_size, after.st_mtime_ns):
        return None  # rewritten meanwhile: its pieces may be of two versions
    return found


def _last_messages(
    stream: BinaryIO, size: int, count: int, layout: _Layout, then: bytes | None = None
) -> list[dict[str, object]] | None:
    head = stream.read(_ENDS)
    opened = head.find(layout.opens) if head.startswith(layout.document) else -1
    if opened < 0:
        return None
    first = opened + len(layout.opens)  # the first message's start, if any
    if then is None:
        stream.seek(max(first, size - _ENDS))
        tail_at = stream.tell()
        tail = stream.read()
        closed = tail.rfind(layout.close)
        if closed < 0 or layout.start in tail[closed:]:
            return None  # not this layout, or an object after the messages
    else:  # the array closed right before the member `then`, objects after it
        closed = -1
        for back in (_ENDS, READ_LIMIT):  # what follows the messages may be long
            stream.seek(max(first, size - back))
            tail_at = stream.tell()
            tail = stream.read()
            closed = tail.rfind(layout.close + b",\n  " + then)
            if closed >= 0 or tail_at == first:
                break
        if closed < 0:
            return None
    end = tail_at + closed + layout.close.index(b"}") + 1  # the last message's end
    starts: list[int] = []
    stop = end
    while stop > first and len(starts) < count:
        begin = max(first, stop - _BACK)
        stream.seek(begin)
        block = stream.read(stop - begin + len(layout.start) - 1)
        at = len(block)
        while len(starts) < count:
            at = block.rfind(layout.start, 0, at)
            if at < 0 or begin + at >= stop:
                break
            starts.append(begin + at)
        stop = begin
    if len(starts) < count or (starts[-1] == first and count > 0):
        return None  # no message before them: the whole read is as cheap
    starts.reverse()
    bounds = list(zip(starts, [*starts[1:], end], strict=True))
    if any(stop - begin > READ_LIMIT for begin, stop in bounds):
        return None
    stream.seek(starts[0])
    data = stream.read(end - starts[0])
    if layout.outside.search(data, 1):
        return None  # they cross out of one array: the array closed last is another's
    found: list[dict[str, object]] = []
    for begin, stop in bounds:
        piece = data[begin - starts[0] : stop - starts[0]].rstrip().rstrip(b",")
        try:
            message = orjson.loads(piece)
        except orjson.JSONDecodeError:
            return None
        if not isinstance(message, dict):
            return None
        found.append(message)
    return found


def _compact_last(
    stream: BinaryIO, size: int, count: int, shape: Compact, key: str | None
) -> list[dict[str, object]] | None:
    """`_last_messages` of a chat written on one line: its messages array found as
    `compact_ends` finds it (opened after its members in its first bytes, closed before
    those in its last), its last `count` messages found by reading back from its close
    (`_spans_back`), the bytes before them never read. None where the whole read serves:
    laid out as the app writes it (`_last_messages` read it), cut short or its last
    member long (no close found in its last bytes), "messages" written again after
    them, no message before them, one of them past READ_LIMIT, a value among them no
    message (not an object with a kind), or the array closed there another member's:
    its open, where it is read (within _KEY_PAST of them), is after another key than
    `key` (an array of objects with a kind after the messages, longer than the last
    bytes; one longer than _KEY_PAST too is still taken for them)."""
    bounds = _compact_array(stream, size, shape, key)
    if bounds is None:
        return None
    first, end = bounds
    back = _spans_back(stream, first, end, count, 0 if key is None else _KEY_PAST)
    if back is None or len(back[0]) < count or count <= 0:
        return None
    spans, opens = back
    if (
        key is not None
        and opens is not None
        and _key_before(stream, opens, first) != key
    ):
        return None  # an array after the messages (of objects with a kind too)
    start = spans[-1][0]
    stream.seek(max(first, start - 64))
    if not stream.read(start - max(first, start - 64)).rstrip().endswith(b","):
        return None  # no message before them: the whole read is as cheap
    stream.seek(start)
    data = stream.read(end - start)
    found: list[dict[str, object]] = []
    stops = [start, *(stop for _, stop in reversed(spans))][:-1]  # each one's before
    for (begin, stop), previous in zip(reversed(spans), stops, strict=True):
        gap = data[previous - start : begin - start].strip()
        if gap not in (b"", b","):  # another value between two messages
            return None
        try:
            message = orjson.loads(data[begin - start : stop - start])
        except orjson.JSONDecodeError:
            return None
        if not isinstance(message, dict) or not isinstance(
            message.get(shape.kind_key), (str, dict)
        ):
            return None  # another array's, or no message
        found.append(message)
    if data[spans[0][1] - start :].strip():
        return None  # a value after the last message
    return found


def _compact_array(
    stream: BinaryIO, size: int, shape: Compact, key: str | None
) -> tuple[int, int] | None:
    """Where a compact chat's messages array opens (past its bracket) and closes (its
    bracket): under `key`, found as `compact_ends` finds it; the document itself where
    `key` is None (Codebuff's), opened by its first bytes and closed by its last. None
    where it is not found so, or is laid out as the app writes it."""
    head = stream.read(_ENDS)
    if key is None:
        body = head.lstrip()
        if head.startswith(b"[\n") or not body.startswith(b"["):
            return None
        stream.seek(max(0, size - 64))
        last = stream.read().rstrip()
        if not last.endswith(b"]"):
            return None  # cut short, or more after it
        return len(head) - len(body) + 1, max(0, size - 64) + len(last) - 1
    opened = None if head.startswith(b"{\n") else _compact_head(head, shape, key)
    if opened is None:
        return None
    first = opened[1]  # past the array's open
    stream.seek(max(first, size - _ENDS))
    tail_at = stream.tell()
    closes = _messages_close(stream.read(), last=True, key=key)
    if closes is None:
        return None
    return first, tail_at + closes


def _spans_back(
    stream: BinaryIO, first: int, end: int, count: int, past: int = 0
) -> tuple[list[tuple[int, int]], int | None] | None:
    """The file spans (start, stop) of the last `count` objects of the array closing at
    `end`, last first, read back from `end` to `first` (its open), _FIRST_BACK bytes
    first, then twice as many each time up to _BACK: outside a string a bracket or a
    quote is structure; inside one only a quote not escaped (an even run of backslashes
    before it) ends it, found with `find`. Fewer where the array holds fewer; and where
    the array opens (its bracket) where that is read: before `count` are found, or
    within `past` bytes back from the last of them (None where it is not). None where
    the file does not read back so (gone short), a string stands among the objects, or
    an object runs past READ_LIMIT (which the whole read parts, eliding) or holds more
    than _OBJECT_TOKENS brackets and strings (each a step here: millions, seconds)."""
    spans: list[tuple[int, int]] = []
    depth = 0  # below the array
    in_string = False
    stop = 0  # the end of the object being passed
    tokens = 0  # its brackets and strings read so far
    high = end
    step = min(_BACK, _FIRST_BACK)  # the last messages are often short: a little first
    while high > first:
        low = max(first, high - step)
        step = min(_BACK, step * 2)
        stream.seek(low)
        back = stream.read(high - low)[::-1]  # byte i is at the offset high - 1 - i
        if len(back) != high - low:
            return None
        at = 0
        while True:
            if in_string:
                at = back.find(b'"', at)
                if at < 0:
                    break
                if _escapes(stream, back, at + 1, low, first) % 2 == 0:
                    in_string = False
                at += 1
                continue
            token = _COMPACT_TOKEN.search(back, at)
            if token is None:
                break
            tokens += 1
            if tokens > _OBJECT_TOKENS:  # one object of that many: read whole, or
                # taken for its messages' where they are found (its open not read)
                return (spans, None) if len(spans) == count else None
            at = token.end()
            char = token.group()
            offset = high - at  # the token's offset in the file
            if char == b'"':
                if depth == 0:
                    return None  # a string among the messages: no message, however long
                in_string = True  # a string's close, read backwards
            elif char in (b"}", b"]"):
                depth += 1
                if depth == 1:
                    stop = offset + 1
            else:
                depth -= 1
                if depth < 0:
                    return spans, offset  # the array's open
                if depth == 0:
                    tokens = 0
                if depth == 0 and len(spans) < count:
                    spans.append((offset, stop))
                    if len(spans) == count and past <= 0:
                        return spans, None
        if len(spans) == count and spans[-1][0] - low >= past:
            return spans, None  # its open is farther back than that
        if depth > 0 and stop - low > READ_LIMIT:
            return (spans, None) if len(spans) == count else None
        high = low
    return spans, None


# the brackets and strings one object may hold read back (about 0.1 s of them)
_OBJECT_TOKENS = 200_000
# how far back past the last messages read their array's open is looked for, its key read
_KEY_PAST = 512 * 1024


def _key_before(stream: BinaryIO, opens: int, first: int) -> str | None:
    """The key of the member whose value is the array opening at `opens` (read from the
    4 KB before it, no further back than `first`); None where none is read there."""
    begin = max(0, first - 1, opens - 4096)
    stream.seek(begin)
    before = stream.read(opens - begin).rstrip()
    if not before.endswith(b":"):
        return None
    before = before[:-1].rstrip()
    closes = len(before) - 1
    if closes < 0 or before[closes:] != b'"':
        return None
    at = closes
    while True:  # its opening quote: one with an even run of backslashes before it
        at = before.rfind(b'"', 0, at)
        run = at - len(before[:at].rstrip(b"\\"))
        if at <= 0 or run == at:
            return None  # not read so, or its run may go on before the bytes read
        if run % 2 == 0:
            break
    try:
        key = orjson.loads(before[at:])
    except orjson.JSONDecodeError:
        return None
    return key if isinstance(key, str) else None


_BACKSLASH_RUN = re.compile(rb"\\*")  # a run counted at C speed, not byte by byte


def _escapes(stream: BinaryIO, back: bytes, at: int, low: int, first: int) -> int:
    """How many backslashes come before a quote read backwards (`back[at:]` holds the
    bytes before it, the last first); past the block, read from the stream, back to
    `first` at most."""
    found = _BACKSLASH_RUN.match(back, at)  # always matches, if only the empty run
    end = found.end() if found else at
    count, at = end - at, end
    if at < len(back):
        return count
    while low > first:  # the run goes on into the block before
        begin = max(first, low - 4096)
        stream.seek(begin)
        piece = stream.read(low - begin)
        run = len(piece) - len(piece.rstrip(b"\\"))
        count += run
        if run < len(piece):
            break
        low = begin
    return count


def first_id(path: str | os.PathLike[str]) -> str | None:
    """The session id a chat names first, from its first bytes; None where it does not
    start with one (not written so, unreadable, gone)."""
    try:
        with files.open_regular(path) as stream:
            head = stream.read(_HEAD).removeprefix(files.BOM)
    except OSError:
        return None
    found = _FIRST_ID.match(head)
    if found is None:
        return None
    try:
        value = orjson.loads(found.group(1))
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, str) and value else None


@dataclass(frozen=True, slots=True)
class Document:
    """A chat kept as one JSON document, as a read of it starts: `top` is the object
    parsed whole (at most the cap, and it parses), None where it is read in pieces (too big
    to parse, or broken: what precedes the break is kept) or is an array; `items` are the objects of its
    array (under `key`, or the document itself where `key` is None), each other value
    counted ("not an object"), a cut counted and said."""

    path: Path
    app: str
    key: str | None
    top: dict[str, object] | None
    items: Iterator[dict[str, object]]

    def members(
        self, diagnostics: Diagnostics, within: dict[str, object] | None = None
    ) -> dict[str, object]:
        """The document's top-level members (its array left unread where it is read in
        pieces: those before a cut, the cut counted and said; the member the cut fell
        in put in `within`, as `jsonstream.file_members` puts it)."""
        if self.top is not None or self.key is None:
            return self.top or {}
        from ..jsonstream import file_members

        found = file_members(
            self.path,
            frozenset({self.key}),
            diagnostics,
            self.app,
            cut=True,
            within=within,
        )
        return found or {}


def document(
    path: Path, app: str, key: str | None, cap: int, diagnostics: Diagnostics
) -> Document | None:
    """How a read of a chat kept as one JSON document starts (see Document); None where
    there is nothing to read: the file is gone or refused (said), or holds no object
    (no array where `key` is None) (counted)."""
    size = stat_size(path)
    if size is None:
        diagnostics.problem(
            files.refused_problem(app, path) or f"{app}: {path} vanished"
        )
        return None
    value = None
    if size <= cap:
        value = files.read_json_file(path, limit=cap, diagnostics=diagnostics)
        if value is not None and not isinstance(value, dict if key else list):
            diagnostics.skip(str(path), 1, "not an object")
            return None
    if value is None:  # too big to parse whole, or broken: an item at a time
        return Document(path, app, key, None, items(path, key, diagnostics, app))
    if isinstance(value, dict):
        found = _objects(as_list(value.get(key)), path, diagnostics)
        return Document(path, app, key, value, found)
    return Document(path, app, key, None, _objects(as_list(value), path, diagnostics))


def _objects(
    found: list[object], path: Path, diagnostics: Diagnostics
) -> Iterator[dict[str, object]]:
    for item in found:
        if isinstance(item, dict):
            yield item
        else:
            diagnostics.skip(str(path), 0, "not an object")


def items(
    path: Path,
    key: str | None,
    diagnostics: Diagnostics,
    app: str,
    *,
    counted: bool = True,
    types: tuple[str, ...] | None = None,
    chunk: int | None = None,
) -> Iterator[dict[str, object]]:
    """The objects of the document's array (under `key`, or the document itself) read one
    at a time, the file `chunk` bytes at a time (files.CHUNK unless said): another value
    counted (unless not `counted`), and, where `types` are given, a message of another
    type; a cut counted and said."""
    from ..jsonstream import file_items

    for item in file_items(path, key, diagnostics, app, chunk=chunk):
        if not isinstance(item, dict):
            if counted:
                diagnostics.skip(str(path), 0, "not an object")
        elif types is not None and type_tag(item.get("type")) not in types:
            diagnostics.unknown_type(f"message:{item.get('type')}")
        else:
            yield item


def read(
    path: Path,
    diagnostics: Diagnostics,
    app: str,
    types: tuple[str, ...],
    *,
    chunk: int | None = None,
) -> tuple[str | None, Iterable[dict[str, object]]]:
    """The chat's session id and its messages of the known `types`, in order; messages of
    other types are counted. Lazy past READ_LIMIT, or whatever its size when `chunk` is
    given: one message at a time, the file read `chunk` bytes at a time."""
    if chunk is not None:
        return first_id(path), items(
            path, "messages", diagnostics, app, types=types, chunk=chunk
        )
    size = file_size(path)
    if size > READ_LIMIT:
        top = ends(path) or {}
        session_id = text_of(top, "sessionId") or first_id(path)
        return session_id, items(path, "messages", diagnostics, app, types=types)
    document = files.read_json_file(path, limit=READ_LIMIT, diagnostics=diagnostics)
    if document is None and size:
        # broken: a message at a time, so that a chat cut short (a write stopped half
        # way) keeps the messages before its cut, and says where it stopped
        return first_id(path), items(path, "messages", diagnostics, app, types=types)
    if not isinstance(document, dict):
        diagnostics.skip(str(path), 1, "not JSON")
    found = []
    for message in dicts(document, "messages"):
        if type_tag(message.get("type")) in types:
            found.append(message)
        else:
            diagnostics.unknown_type(f"message:{message.get('type')}")
    return text_of(document, "sessionId"), found
