"""The elements of a JSON array too big to parse whole, read one at a time; the other
members of the object holding it, read past the array.

Some apps keep a whole chat as one JSON document and rewrite it whole. Past the size
sessdex parses at once, such a document is read in pieces, one element at a time, each
decoded with orjson: found by how the elements before it were parted (`_Parting`), or by a
scanner that walks the structure (strings, brackets, commas) with a byte-set search.
Memory stays bounded by the largest element, and an element longer than READ_LINE_CAP (a
pasted image) has its long strings elided, as an over-long transcript line has. A document
cut short (a write stopped half way, a copy taken during one) raises CutShort where it ends,
past the elements or members read whole before the cut: no value the cut shortened is given.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from io import BytesIO
from typing import BinaryIO

import orjson

from . import files
from .bytesearch import find, find_first_of
from .diagnostics import Diagnostics, read_failed

_SPACE = b" \t\r\n"
# A run of bytes inside a container that holds no bracket outside a string: strings are
# taken whole where they end in the data at hand (one that runs on into the next chunk
# stops the match at its quote, and `_Scanner.string` reads it across chunks).
# (no possessive quantifier: before 3.11.5 or so, `re` ran past a bracket with them)
_FLAT = re.compile(rb'(?:[^"\[\]{}]+|"[^"\\]*(?:\\.[^"\\]*)*")*', re.DOTALL)


class NotThisShape(ValueError):
    """The document is not an array (or an object holding the array under the key)."""


class CutShort(NotThisShape):
    """The document ends inside a value: a write that stopped half way (a crash, a full
    disk) or a copy taken while it was written. `members` holds the top-level members
    `object_members` read whole before the cut; `inside` names the member (not skipped)
    whose value the cut fell in, and `partial` what of that value was read: an object's
    members read whole ({} where the cut came before its first byte), None for another
    kind of value or one too long."""

    def __init__(self, message: str = "the document ends inside a value") -> None:
        super().__init__(message)
        self.members: dict[str, object] = {}
        self.inside: str | None = None
        self.partial: dict[str, object] | None = None


def note_cut(diagnostics: Diagnostics, app: str, path: str | os.PathLike[str]) -> None:
    """Count and say that the document at `path` is cut short, once per read however
    many passes over it meet the cut (its members, then its array)."""
    message = (
        f"{app}: stopped reading {os.fspath(path)} where it is cut short (a write "
        "stopped half way, or a copy was taken during one); what came before is kept"
    )
    if message not in diagnostics.problems:
        diagnostics.problem(message)
        diagnostics.skip(os.fspath(path), 0, "truncated")


class Cursor:
    """Where the element `array_items` last gave starts in the file (`start`, a byte
    offset, -1 before the first): read as each element comes, to go back to its opening
    (one whose long strings were elided)."""

    __slots__ = ("start",)

    def __init__(self) -> None:
        self.start = -1


def file_items(
    path: str | os.PathLike[str],
    key: str | None,
    diagnostics: Diagnostics,
    app: str,
    *,
    chunk: int | None = None,
    cursor: Cursor | None = None,
) -> Iterator[object]:
    """`array_items` of the file at `path`. Where it cannot be read to its end (not laid
    out so, cut short, gone), what came before is kept and the stop is said."""
    try:
        with files.open_binary(path) as stream:
            yield from array_items(
                stream, key, diagnostics=diagnostics, path=os.fspath(path),
                chunk=chunk, cursor=cursor,
            )  # fmt: skip
    except CutShort:
        note_cut(diagnostics, app, path)
    except NotThisShape as error:
        diagnostics.skip(os.fspath(path), 0, "not JSON")
        diagnostics.problem(f"{app}: stopped reading {path}: {error}")
    except OSError as error:
        diagnostics.problem(read_failed(app, path, error, "stopped reading"))


def array_items(
    stream: BinaryIO,
    key: str | None = None,
    *,
    diagnostics: Diagnostics | None = None,
    path: str = "",
    chunk: int | None = None,
    cursor: Cursor | None = None,
) -> Iterator[object]:
    """The elements of the document's array: the document itself, or the value of its
    top-level member `key`. An element that cannot be decoded, or stays too long once
    its long strings are elided, is counted (numbered from 1) and passed over.
    Raises NotThisShape where the document is not laid out so. The stream is read
    `chunk` bytes at a time (files.CHUNK unless said): what is held between elements;
    `cursor` says where in the stream each element given starts."""
    scanner = _Scanner(stream, chunk)
    first = scanner.significant()
    if key is None:
        if first != b"["[0]:
            raise NotThisShape("not a JSON array")
    elif first != b"{"[0] or not _find_member(scanner, key.encode()):
        raise NotThisShape(f"no array under {key!r}")
    byte = scanner.significant()
    number = 0
    if byte == b"]"[0]:
        _to_the_end(scanner, key)
        return
    parting = _Parting()
    while True:
        number += 1
        if cursor is not None:
            cursor.start = scanner.offset + scanner.at - 1
        found = parting.element(scanner, byte)
        if found is not _MISSED:
            yield found
            byte = _next_element(scanner)
            if byte < 0:
                _to_the_end(scanner, key)
                return
            continue
        element = scanner.value(byte)
        if element is None:
            if diagnostics is not None:
                diagnostics.skip(path, number, "too long")
        else:
            try:
                value = _loads(element, diagnostics, path, number)
            except orjson.JSONDecodeError:
                if diagnostics is not None:
                    diagnostics.skip(path, number, "not JSON")
            else:
                del element  # not held beside its value while the caller has it
                yield value
        data, end, chunks = scanner.data, scanner.at, scanner.chunks
        byte = _next_element(scanner)
        if byte < 0:
            _to_the_end(scanner, key)
            return
        if scanner.chunks == chunks:
            parting.learn(data, end, scanner.at)


def _next_element(scanner: _Scanner) -> int:
    """Past an element: the first byte of the next one, or -1 past the array's end."""
    byte = scanner.significant()
    if byte == b"]"[0]:
        return -1
    if byte < 0:
        raise CutShort()
    if byte != b","[0]:
        raise NotThisShape("elements not separated by commas")
    byte = scanner.significant()
    if byte < 0:
        raise CutShort()
    return byte


def _to_the_end(scanner: _Scanner, key: str | None) -> None:
    """Past the array: the members after it in its object passed over, unread, so that a
    document cut there (a chat's summary, its ledger) says so too."""
    if key is None:
        return
    byte = scanner.significant()
    if byte < 0:
        raise CutShort()
    if byte == b"}"[0]:
        return
    if byte != b","[0]:
        raise NotThisShape("members not separated by commas")
    for _name, first in _members(scanner, 0):
        scanner.value(first, keep=False)


def file_members(
    path: str | os.PathLike[str],
    skip: frozenset[str],
    diagnostics: Diagnostics,
    app: str,
    *,
    cut: bool = False,
    within: dict[str, object] | None = None,
) -> dict[str, object] | None:
    """`object_members` of the file at `path`; None, with the reason said, where it
    cannot be read to its end. With `cut`, a document cut short gives the members read
    whole before its cut (the cut counted and said, `note_cut`), and puts in `within`
    (where given) the member the cut fell in, by name, with what of it was read
    (`CutShort.partial`)."""
    try:
        with files.open_binary(path) as stream:
            return object_members(
                stream, skip, diagnostics=diagnostics, path=os.fspath(path)
            )
    except (NotThisShape, OSError) as error:
        if cut and isinstance(error, CutShort):
            note_cut(diagnostics, app, path)
            if within is not None and error.inside is not None:
                within[error.inside] = error.partial
            return error.members
        diagnostics.problem(read_failed(app, path, error, "could not read"))
    return None


_NAME_CAP = 1024  # a longer member name is no name sessdex looks for


def object_members(
    stream: BinaryIO,
    skip: frozenset[str] = frozenset(),
    *,
    diagnostics: Diagnostics | None = None,
    path: str = "",
) -> dict[str, object]:
    """The members of the document's top-level object, decoded, but those named in
    `skip`, which are passed over unread (a chat's big message array). A member that
    cannot be decoded, or stays too long once its long strings are elided, is counted
    and left out. Raises NotThisShape where the document is not an object, CutShort
    (holding the members read whole before it) where it ends too soon."""
    scanner = _Scanner(stream)
    if scanner.significant() != b"{"[0]:
        raise NotThisShape("not a JSON object")
    members: dict[str, object] = {}
    try:
        _read_members(scanner, skip, members, diagnostics, path)
    except CutShort as cut:
        cut.members = members
        raise
    return members


def _read_members(
    scanner: _Scanner,
    skip: frozenset[str],
    members: dict[str, object],
    diagnostics: Diagnostics | None,
    path: str,
) -> None:
    for raw, first in _members(scanner, _NAME_CAP):
        try:
            name = orjson.loads(b'"' + raw + b'"') if len(raw) < _NAME_CAP else None
        except orjson.JSONDecodeError:
            name = None
        wanted = isinstance(name, str) and name not in skip
        try:
            value = scanner.value(first, keep=wanted)
        except CutShort as cut:
            if wanted:  # what of it was read: a total cut may still bound a count
                cut.inside, cut.partial = str(name), _partial(scanner.cut_value())
            raise
        if wanted and value is None:
            if diagnostics is not None:
                diagnostics.skip(path, 0, "too long")
        elif wanted:
            try:
                members[str(name)] = _loads(value or b"", diagnostics, path, 0)
            except orjson.JSONDecodeError:
                if diagnostics is not None:
                    diagnostics.skip(path, 0, "not JSON")


def _partial(data: bytes | None) -> dict[str, object] | None:
    """The members read whole of an object value cut short (`data`, from its first
    byte); {} where it has none yet, None where it is no object."""
    if data is None or data[:1] not in (b"", b"{"):
        return None
    try:
        return object_members(BytesIO(data)) if data else {}
    except CutShort as cut:
        return cut.members
    except NotThisShape:
        return None


def _loads(
    data: bytes, diagnostics: Diagnostics | None, path: str, number: int
) -> object:
    """`files.loads`, counting a value read over bytes that are not UTF-8 (shown as
    U+FFFD) as damaged under `number`: only once orjson refused it, so a clean value
    costs nothing more. Raises orjson.JSONDecodeError."""
    value, damaged = files.loads_checked(data)
    if damaged and diagnostics is not None:
        diagnostics.damage(path, number, files.damage_of(data))
    return value


def _find_member(scanner: _Scanner, key: bytes) -> bool:
    """Past the opening brace: walk the top-level members up to `key`'s array."""
    for name, first in _members(scanner, len(key) + 1):
        if name == key and first == b"["[0]:
            return True
        scanner.value(first, keep=False)
    return False


def _members(scanner: _Scanner, keep: int) -> Iterator[tuple[bytes, int]]:
    """Past an object's opening brace: each member's name (its first `keep` raw bytes)
    and the first byte of its value, which the caller reads (`scanner.value`) before
    asking for the next member."""
    byte = scanner.significant()
    if byte == b"}"[0]:
        return
    while True:
        if byte < 0:
            raise CutShort()
        if byte != b'"'[0]:
            raise NotThisShape("a member name that is not a string")
        name = scanner.string(keep=keep)
        colon = scanner.significant()
        if colon < 0:  # cut after the name: the read of its value says so, naming it
            yield name, -1
            return
        if colon != b":"[0]:
            raise NotThisShape("a member without a colon")
        yield name, scanner.significant()
        byte = scanner.significant()
        if byte == b"}"[0]:
            return
        if byte < 0:
            raise CutShort()
        if byte != b","[0]:
            raise NotThisShape("members not separated by commas")
        byte = scanner.significant()


# A document one program wrote parts its elements alike: the closing bracket of one, the
# white space and comma, the opening bracket of the next and its first member's name
# (`},\n    {\n      "id"` as JSON.stringify indents a chat, `},{"ts"` unindented).
# Found by a SIMD search, such a separator marks where an element may end; orjson decoding
# the bytes up to it proves it does (a JSON value's end is fixed by its first bytes: a
# shorter run of them is no value, a longer one holds the comma after it). That proof is
# the decoding an element needs anyway, so an element found so costs a search and a
# decode, not a walk of its strings and brackets a few bytes at a time.
_MISSED = object()
_CLOSING = {b"["[0]: b"]", b"{"[0]: b"}"}
_SEPARATOR_CAP = 64  # a longer one is no layout's
_NAME_HELD = 32  # bytes of the first member's name that go into a separator
_TRIES = 4  # places an element may end tried (a separator's bytes within its strings)
_WASTE_CAP = 16  # misses (most of the tries) before the scanner alone walks


class _Parting:
    """How a document's elements are parted, learned from two the scanner read, and
    elements found by it."""

    def __init__(self) -> None:
        self.separator = b""
        self.found = 0
        self.wasted = 0  # searches that found no end, decodes of an end that was not

    def learn(self, data: bytes, end: int, at: int) -> None:
        """From an element's end at `end` in `data` to the next one's opening bracket,
        just before `at` (and its first member's name, where it is in `data`)."""
        if self.wasted > _WASTE_CAP and self.wasted > self.found:
            self.separator = b""  # mostly wrong: parted otherwise, or not alike
            return
        if not end or data[end - 1 : end] != _CLOSING.get(data[at - 1]):
            return
        name = at
        while name < len(data) and data[name] in _SPACE:
            name += 1
        if data[name : name + 1] == b'"':
            close = find(data, b'"', name + 1, name + 1 + _NAME_HELD)
            if close > 0 and find(data, b"\\", name, close) < 0:
                at = close + 1
        if at - end < _SEPARATOR_CAP:
            self.separator = data[end - 1 : at]

    def element(self, scanner: _Scanner, first: int) -> object:
        """Past an element's first byte: its value, where an end marked by the separator
        is found in the data at hand and decodes; else _MISSED, nothing consumed."""
        separator = self.separator
        if not separator or separator[:1] != _CLOSING.get(first):
            return _MISSED
        data, start = scanner.data, scanner.at - 1
        limit = min(len(data), start + files.READ_LINE_CAP - 1 + len(separator))
        at = start + 1
        with memoryview(data) as view:
            for _ in range(_TRIES):
                end = find(data, separator, at, limit)
                if end < 0:
                    break
                try:
                    value = orjson.loads(view[start : end + 1])
                except orjson.JSONDecodeError:
                    self.wasted += 1
                    at = end + 1
                    continue
                scanner.at = end + 1
                self.found += 1
                return value
        self.wasted += 1
        return _MISSED


class _Scanner:
    """A position in a byte stream read in chunks, and what was read since a mark."""

    def __init__(self, stream: BinaryIO, chunk: int | None = None) -> None:
        self.stream = stream
        self.chunk = chunk or files.CHUNK
        self.data = b""
        self.at = 0
        self.started = False
        # the value being kept: bytes before `data`, and where in `data` it starts
        self.kept: bytearray | None = None
        self.compactor: files.Compactor | None = None
        self.kept_from = 0
        self.chunks = 0  # read so far: whether two places are in one chunk
        self.offset = 0  # where `data` starts in the stream
        self.unread = 0  # of the bytes `data` stands for, those it does not hold

    def _more(self) -> bool:
        """Read the next chunk (what is kept of the current one is set aside first).
        A hole (NULs never stored, `files.skip_hole`) is one NUL byte, not read: no JSON
        holds one, so what it falls in is as damaged as it was."""
        hole = files.skip_hole(self.stream)
        chunk = b"\x00" if hole else self.stream.read(self.chunk)
        if not chunk:
            return False
        self.offset += len(self.data) + self.unread
        self.unread = hole - 1 if hole else 0
        if not self.started:  # a byte order mark, however the first reads cut it
            self.started = True
            while len(chunk) < len(files.BOM) and (
                more := self.stream.read(self.chunk)
            ):
                chunk += more
            if chunk.startswith(files.BOM):
                chunk, self.offset = chunk[len(files.BOM) :], len(files.BOM)
        if self.kept is not None:
            self._keep(self.data[self.kept_from :])
            self.kept_from = 0
        self.data, self.at = chunk, 0
        self.chunks += 1
        return True

    def cut_value(self) -> bytes | None:
        """After a CutShort in `value(keep=True)`: the bytes of the value read up to the
        cut (b"" where none; None where they were too long to keep)."""
        if self.compactor is not None:
            return None
        if self.kept is None:
            return b""
        return bytes(self.kept) + self.data[self.kept_from :]

    def _keep(self, piece: bytes) -> None:
        if self.compactor is not None:
            self.compactor.feed(piece)
            return
        assert self.kept is not None
        self.kept += piece
        if len(self.kept) > files.READ_LINE_CAP:  # from here on, long strings elided
            self.compactor = files.Compactor()
            self.compactor.feed(bytes(self.kept))
            self.kept = bytearray()

    def significant(self) -> int:
        """The next byte that is not white space, consumed; -1 at the end."""
        while True:
            data, at = self.data, self.at
            while at < len(data) and data[at] in _SPACE:
                at += 1
            if at < len(data):
                self.at = at + 1
                return data[at]
            self.at = at
            if not self._more():
                return -1

    def string(self, keep: int = 0) -> bytes:
        """Past a string's opening quote: to just after its closing one. Returns its first
        `keep` raw bytes (the rest is passed over)."""
        held = bytearray()
        while True:
            data, at = self.data, self.at
            end = find_first_of(data, b'"\\', at)
            stop = len(data) if end < 0 else end
            if len(held) < keep:
                held += data[at : min(stop, at + keep - len(held))]
            if end < 0:
                self.at = len(data)
                if not self._more():
                    raise CutShort("the document ends inside a string")
                continue
            self.at = end + 1
            if data[end] == b'"'[0]:
                return bytes(held)
            # a backslash: the byte it escapes may be in the next chunk
            if self.at >= len(self.data) and not self._more():
                raise CutShort("the document ends inside a string")
            if len(held) < keep:
                held += b"\\" + self.data[self.at : self.at + 1]
            self.at += 1

    def value(self, first: int, keep: bool = True) -> bytes | None:
        """The value whose first byte (consumed) is `first`, read to its end: its bytes
        if `keep` (None when they stay too long after eliding), else b""."""
        if first < 0:
            raise CutShort()
        if keep:
            self.kept, self.compactor, self.kept_from = bytearray(), None, self.at - 1
        if first == b'"'[0]:
            self.string()
        elif first in b"[{":
            self._container()
        else:  # a number, true, false or null: up to the next delimiter
            self._scalar()
        if not keep:
            return b""
        self._keep(self.data[self.kept_from : self.at])
        kept, compactor = self.kept, self.compactor
        self.kept, self.compactor = None, None
        if compactor is not None:
            return None if compactor.overflow else bytes(compactor.out)
        return bytes(kept) if kept is not None else b""

    def _container(self) -> None:
        depth = 1
        while depth:
            # past what cannot open or close a value (whole strings included) in one C
            # call: a Python call per string was most of the time of a chat's read
            end = _FLAT.match(self.data, self.at).end()  # type: ignore[union-attr]
            if end >= len(self.data):
                self.at = len(self.data)
                if not self._more():
                    raise CutShort()
                continue
            byte = self.data[end]
            self.at = end + 1
            if byte == b'"'[0]:
                self.string()
            elif byte in b"[{":
                depth += 1
            else:
                depth -= 1

    def _scalar(self) -> None:
        while True:
            end = find_first_of(self.data, b",]} \t\r\n", self.at)
            if end >= 0:
                self.at = end
                return
            self.at = len(self.data)
            if not self._more():  # in a container, a delimiter follows: 12 may be 1234
                raise CutShort()
