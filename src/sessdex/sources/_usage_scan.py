"""Find the few lines of a big JSON-lines file that carry usage, without splitting the rest.

A byte search for a marker (`"usage":{`) skips every other line unread; only the lines around
a hit are cut out and handed to a decoder. The file is read in large chunks, and a line
longer than LINE_LIMIT is never held: it streams through `files.Compactor`, which elides its
long strings (a pasted image, a huge tool output) and keeps the ids and usage. So memory stays
bounded by the chunk, whatever the lines. Used by the sources' `usage_records` hooks; it
knows no app.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, TypeVar

import msgspec

from .. import files
from ..diagnostics import HOLE, Diagnostics

# Reads of 4 MB are no slower than larger ones, and a scan holds about two chunks at once.
CHUNK = 4 * 1024 * 1024
LINE_LIMIT = files.READ_LINE_CAP  # a longer line is compacted as it is read


class MarkedLines:
    """Iterate (line number, line bytes, complete) over lines holding any of `markers`.

    After the loop, `offset` is the end of the last newline-terminated line and `line` the
    number of the line that starts there: where the next read should begin. With
    `numbered=False` lines are not counted (their number stays `line`; `number()` counts
    them for the line just given, when it must be named: rare, so nothing is noted per
    line to find it, only per chunk).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        markers: tuple[bytes, ...],
        *,
        offset: int = 0,
        line: int = 1,
        diagnostics: Diagnostics | None = None,
        numbered: bool = True,
        spaced: tuple[tuple[bytes, ...], bytes] | None = None,
    ) -> None:
        # a Path is taken as it is: making one again parses it again, per file
        self.path = path if isinstance(path, Path) else Path(path)
        self.markers = markers
        # (a key's compact forms, with their values, and the key alone): a chunk holding
        # the key but none of those (JSON a tool re-wrote with spaces) is searched for the
        # key alone too
        self.spaced = spaced
        self.offset = offset
        self.line = line
        self.diagnostics = diagnostics
        self.numbered = (
            numbered  # counting lines costs a pass over the bytes: only to explain
        )
        # for `number`: the chunk whose lines `_hits` gives (its offset, their starts in
        # it, how many `number` went past), else where the long or last line starts
        self.chunk = b""
        self.chunk_at = self.at = offset
        self.starts: list[int] = []
        self.passed = 0
        self.counted = (0, 1)  # a line start, and that line's number
        # the line `number` last numbered (as given, the same bytes) and its number: a line
        # damaged two ways is numbered twice, and is passed once found (line 0 then)
        self.numbered_last: tuple[int, bytes, int] | None = None
        # whether the line just given holds the first marker (None: not known, an
        # over-long or last line), so that a caller need not search it for it again
        self.first_marked: bool | None = None

    def __iter__(self) -> Iterator[tuple[int, bytes, bool]]:
        name = os.fspath(self.path)
        with files.open_binary(name) as stream:
            if self.offset:
                stream.seek(self.offset)
            carry = b""
            long: _LongLine | None = None  # an over-long line being read
            more = False  # the last read filled its chunk: a hole may follow
            at = self.offset  # where the stream stands
            # a read stops where a hole begins, not a chunk of its NULs on (None: no
            # hole, nearly every file, or the system cannot say where)
            hole_at = files.next_hole(stream, at)
            while True:
                hole = files.skip_hole(stream) if more or at == hole_at else 0
                after = files.record_after_hole(stream) if hole else None
                hole += after.passed if after is not None else 0  # zeros: more of it
                record = after.data if after is not None else None
                held = len(carry) + (long.length if long is not None else 0)
                rest: bytes | None = b""
                if hole and record is None:
                    # the line runs on to its newline, or to a later hole in it that a
                    # record is glued to
                    rest, record = self._through_hole(stream, name, held + hole)
                if record is not None:
                    # a record glued to the hole: a line from the hole's last byte,
                    # given as one NUL (`files.record_after_hole`)
                    self.offset += held + hole - 1
                    carry, long, chunk = b"\x00", None, record
                    at = self.offset + 1 + len(chunk)
                    hole_at = files.next_hole(stream, at)
                    more = True
                elif hole:
                    # the line in progress runs into a hole: skipped, unread, whole
                    carry, long = b"", None
                    if rest is None:
                        break
                    at = self.offset + len(rest)
                    hole_at = files.next_hole(stream, at)
                    chunk = rest
                    if not chunk:
                        continue
                else:
                    if at == hole_at:  # filled in since it was asked: ask again
                        hole_at = files.next_hole(stream, at)
                        hole_at = None if hole_at == at else hole_at
                    size = CHUNK if hole_at is None else min(CHUNK, hole_at - at)
                    chunk = stream.read(size)
                    if not chunk:
                        break
                    at += len(chunk)
                    more = len(chunk) == CHUNK
                if long is not None:
                    nl = chunk.find(b"\n")
                    if nl < 0:
                        long.feed(chunk)
                        continue
                    long.feed(chunk[:nl])
                    self.chunk, self.at = b"", self.offset
                    yield from self._long(long, name, complete=True)
                    self.offset += long.length + 1
                    if self.numbered:
                        self.line += 1
                    long, chunk = None, chunk[nl + 1 :]
                data = carry + chunk if carry else chunk
                chunk = b""  # not held beside `data`
                end = data.rfind(b"\n") + 1  # complete lines are data[:end]
                if end:
                    yield from self._hits(data, end)
                    self.chunk = b""  # not held beside the next chunk
                    if self.numbered:
                        self.line += data.count(b"\n", 0, end)
                    self.offset += end
                carry = data[end:]
                data = b""  # freed before the next chunk is read
                if len(carry) > LINE_LIMIT:
                    long = _LongLine(self.markers)
                    long.feed(carry)
                    carry = b""
            self.chunk, self.at = b"", self.offset
            if long is not None:  # the file ends inside it: read again from its start
                yield from self._long(long, name, complete=False)
            elif carry and self._marked(carry):
                yield self.line, carry, False

    def _through_hole(
        self, stream: BinaryIO, name: str, length: int
    ) -> tuple[bytes | None, bytes | None]:
        """Pass over the line a hole is in (its first `length` bytes passed already): it
        is counted as skipped, and (the bytes after its newline, None) given back (None:
        the file ends within it, a last line that is never finished). Where a later hole
        in it has a record glued to it (`files.through_line`): (None, the bytes read
        past that hole), `offset` moved by the line's bytes between the two holes, for
        the caller to go on as at a first hole's record; nothing counted."""
        rest, more, glued = files.through_line(stream)
        if glued is not None:
            self.offset += more + 1
            return None, glued
        if self.diagnostics is not None:  # one at the file's end too, as other reads
            self.diagnostics.skip(os.fspath(name), self._place(), HOLE)
        if rest is None:
            return None, None
        self.offset += length + more + 1
        if self.numbered:
            self.line += 1
        return rest, None

    def number(self, given: int, data: bytes) -> int:
        """The number of the line last given (`given` and `data`, as given): where lines
        are not numbered, counted now from the file's start (or from the last line
        counted so). 0 where the file cannot be read again."""
        if self.numbered:
            return given
        last = self.numbered_last
        if last is not None and last[0] == given and last[1] is data:
            return last[2]
        number = self._numbered(data)
        self.numbered_last = (given, data, number)
        return number

    def _numbered(self, data: bytes) -> int:
        """`number`'s count, for a line not numbered before."""
        at = self._start(data)
        return 0 if at is None else self._line_at(at)

    def _place(self) -> int:
        """The number of the line that starts at `offset` (one passed over unread: a
        hole, too long), counted now where lines are not numbered."""
        return self.line if self.numbered else self._line_at(self.offset)

    def _line_at(self, at: int) -> int:
        """The number of the line that starts at byte `at`, counted from the file's
        start (or from the last line counted so). 0 where the file cannot be read
        again."""
        start, line = self.counted
        if at < start:
            start, line = 0, 1
        try:
            with files.open_binary(os.fspath(self.path)) as stream:
                stream.seek(start)
                while start < at:
                    start += files.skip_hole(stream)  # NULs: no newline to count
                    if start >= at:
                        break
                    chunk = stream.read(min(CHUNK, at - start))
                    if not chunk:
                        return 0
                    line += chunk.count(b"\n")
                    start += len(chunk)
        except OSError:
            return 0
        self.counted = (start, line)
        return line

    def _start(self, data: bytes) -> int | None:
        """Where the line last given starts in the file: in a chunk, the first start
        past those found before that holds `data` whole (a line alike given earlier was
        found then, as lines are given in order)."""
        chunk = self.chunk
        if not chunk:
            return self.at
        starts = self.starts
        for index in range(self.passed, len(starts)):
            start = starts[index]
            if chunk.startswith(data, start) and chunk.find(
                b"\n", start
            ) == start + len(data):
                self.passed = index + 1
                return self.chunk_at + start
        return None

    def _long(
        self, long: _LongLine, name: str, *, complete: bool
    ) -> Iterator[tuple[int, bytes, bool]]:
        if not long.marked:
            return
        if long.compactor.overflow:  # too much even without its long strings
            if complete and self.diagnostics is not None:
                self.diagnostics.skip(name, self._place(), "too long")
            return
        yield self.line, bytes(long.compactor.out), complete

    def _marked(self, data: bytes) -> bool:
        return any(marker in data for marker in self._markers(data, len(data)))

    def _markers(self, data: bytes, end: int) -> tuple[bytes, ...]:
        """The markers data[:end] is searched for: the key alone too where it is there
        and its compact form is not (`spaced`)."""
        if self.spaced is None:
            return self.markers
        compact, key = self.spaced
        if any(data.find(form, 0, end) >= 0 for form in compact):
            return self.markers
        if data.find(key, 0, end) < 0:
            return self.markers
        return (*self.markers, key)

    def _hits(self, data: bytes, end: int) -> Iterator[tuple[int, bytes, bool]]:
        starts: dict[
            int, bool
        ] = {}  # a line's start -> whether it holds the first marker
        first = True
        for marker in self._markers(data, end):
            position = data.find(marker, 0, end)
            while position >= 0:
                start = data.rfind(b"\n", 0, position) + 1
                stop = data.find(b"\n", position, end)
                starts.setdefault(start, first)
                position = data.find(marker, stop + 1, end)
            first = False
        counted_to = 0
        line = self.line
        self.chunk, self.chunk_at, self.passed = data, self.offset, 0
        self.starts = sorted(starts)
        for start in self.starts:
            if self.numbered:
                line += data.count(b"\n", counted_to, start)
                counted_to = start
            self.first_marked = starts[start]
            yield line, data[start : data.find(b"\n", start, end)], True
        self.first_marked = None


class _LongLine:
    """An over-long line read piece by piece: compacted, its length counted, and whether
    it holds a marker (looked for across the pieces' edges) noted."""

    __slots__ = ("compactor", "edge", "length", "marked", "markers")

    def __init__(self, markers: tuple[bytes, ...]) -> None:
        self.markers = markers
        self.compactor = files.Compactor()
        self.length = 0
        self.marked = False
        self.edge = b""  # the last bytes fed, for a marker cut in two

    def feed(self, piece: bytes) -> None:
        self.length += len(piece)
        self.compactor.feed(piece)
        if not self.marked:
            width = max(map(len, self.markers))
            seam = self.edge + piece[:width]  # a marker across the last piece's end
            self.marked = any(m in piece or m in seam for m in self.markers)
            self.edge = (
                (self.edge + piece)[-width:] if len(piece) < width else piece[-width:]
            )


T = TypeVar("T")
ODD_MEMBERS = 16  # members of a type a line's struct does not take, left out one by one
# where msgspec says a value failed ("Expected `str`, got `int` - at `$.message.model`")
_AT = re.compile(r" - at `\$((?:\.[^.\[`]+|\[\d+\])+)`$")
_STEP = re.compile(r"\.([^.\[`]+)|\[(\d+)\]")


def converted(value: object, kind: type[T]) -> T | None:
    """Decoded JSON as the msgspec struct `kind`, leniently, each member of a type it does
    not take left out (a time written as a number, a model as a list): the reader passes
    over such a member and keeps the record, and so must a usage scan. None when the value
    itself is of another type."""
    for _ in range(ODD_MEMBERS):
        try:
            return msgspec.convert(value, kind, strict=False)
        except msgspec.ValidationError as error:
            if not _left_out(value, str(error)):
                return None
    return None


def _left_out(value: object, error: str) -> bool:
    """Remove the member `error` names from `value`; False when it names none."""
    found = _AT.search(error)
    if found is None:
        return False
    steps: list[str | int] = [
        key if key else int(at) for key, at in _STEP.findall(found.group(1))
    ]
    for step in steps[:-1]:
        if isinstance(value, dict) and isinstance(step, str):
            value = value.get(step)
        elif isinstance(value, list) and isinstance(step, int) and step < len(value):
            value = value[step]
        else:
            return False
    last = steps[-1]
    if isinstance(value, dict) and isinstance(last, str) and last in value:
        del value[last]
        return True
    if isinstance(value, list) and isinstance(last, int) and last < len(value):
        del value[last]
        return True
    return False
