"""Bounded, read-only reading of one file, for every source: lines, head and tail, JSON.

(Listing folders is `folders`; another app's SQLite database, `databases`.)

Nothing here writes into, locks or trusts the file it reads. Memory stays bounded by the
named limits below, whatever the size of one line or one file: an over-long line is
skipped (listing) or compacted by eliding its long strings (reading), never held whole.
"""

from __future__ import annotations

import bisect
import contextlib
import errno
import io
import itertools
import os
import re
import stat
import weakref
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Literal, NamedTuple, cast, overload

import orjson

from . import folders, freshness
from .bytesearch import find_first_of
from .diagnostics import (
    AT_BYTE,
    HOLE,
    NOT_UTF8,
    NUL_BYTES,
    WIDE_TEXT,
    Diagnostics,
    refused,
    why,
)

HEAD_LINES = 80  # lines read from the start of a transcript for listing
LINE_CAP = 256 * 1024  # listing: a longer line is skipped unread
HEAD_BYTES = 64 * 1024 * 1024  # listing: the head read stops here, whatever its lines
HEAD_PROBE = 128 * 1024  # listing: a head's first read (about half of all heads fit)
TAIL_BYTES = 512 * 1024  # listing: bytes read from the end of a transcript
# listing: of a line over LINE_CAP, the first bytes a head keeps (a field at its start)
OPENING = 16 * 1024
READ_LINE_CAP = 4 * 1024 * 1024  # reading: a longer line has its long strings elided
# a JSON document (a chat an app keeps whole) longer than a line is read an element at a
# time (`jsonstream`): memory stays with one message, and a pasted image is its note
WHOLE_JSON_CAP = READ_LINE_CAP
KEEP_STRING = (
    64 * 1024
)  # reading an over-long line: strings longer than this are elided
COMPACT_CAP = (
    4 * 1024 * 1024
)  # ...and if what is left is still longer, the line is skipped
CHUNK = 1024 * 1024

ELIDED_PREFIX = "\x00sessdex-elided:"
_ELIDED_JSON = b"\\u0000sessdex-elided:"

Oversize = Literal["skip", "compact"]


class Line(NamedTuple):
    """One line of a file. A tuple, not a dataclass: listing makes millions of them."""

    number: int  # 1-based within the file, or where it starts (`diagnostics.at_byte`)
    offset: int  # byte offset of the line's start
    data: bytes  # without the newline
    end: (
        int  # byte offset just past the newline (or the data, for an unterminated line)
    )
    complete: bool  # ended by a newline
    compacted: bool = False  # long strings were replaced by elision markers


def elided(value: str) -> tuple[int, str] | None:
    """(original byte length, first bytes) when `value` is an elision marker, else None."""
    if not value.startswith(ELIDED_PREFIX):
        return None
    size, _, hint = value[len(ELIDED_PREFIX) :].partition(":")
    return (int(size), hint) if size.isdigit() else None


def human_bytes(n: int) -> str:
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"


class CorruptData(OSError):
    """Bytes that cannot be decoded: a corrupt or cut `.zst` stream. An OSError, so the
    readers that stop cleanly on an unreadable file stop on it the same way."""


class NotAFile(OSError):
    """A pipe, socket or device where a file was expected: never opened, since opening a
    pipe waits for a writer."""


# opened without waiting: a pipe put where a file was expected opens at once (and is
# refused), where a plain open would wait for a writer forever; on a regular file
# O_NONBLOCK changes nothing, so it is left set
_NO_WAIT = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
_NO_WAIT |= getattr(os, "O_BINARY", 0)


def open_regular(path: str | os.PathLike[str], buffering: int = -1) -> BinaryIO:
    """Open a regular file for reading; anything else (a pipe, a socket, a device, a
    folder) raises `NotAFile`, an OSError, without ever waiting on it. Every file an
    adapter names itself (a marker, a journal, a metadata file) is opened through here:
    a listing passes over such entries, a name built by hand does not. Nor is an
    agent's credential file (`folders.CREDENTIALS`), or a link to one, ever opened: a
    path a session's files record (a copied or hostile home's) may name one."""
    name = os.fspath(path)
    if _credential(name):
        raise NotAFile(errno.EACCES, "an agent's credential file, never read", name)
    freshness.note_depended(name)  # as it is before the read, or not there
    try:
        fd = os.open(name, _NO_WAIT)
    except PermissionError:
        freshness.note_refused(name)  # what the index read depended on
        raise
    except ValueError as error:  # a NUL in a name a file recorded: no file has it
        raise FileNotFoundError(errno.ENOENT, "no file is named so", name) from error
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotAFile(errno.EINVAL, "not a regular file", name)
        freshness.note_opened(name)  # what a read depended on
        return open(fd, "rb", buffering=buffering)
    except BaseException:
        os.close(fd)
        raise


def _credential(name: str) -> bool:
    """Whether `name`, or the file a link there leads to, is an agent's login file."""
    if folders.is_credential_path(name):
        return True
    if not os.path.islink(name):
        return False
    return folders.is_credential_path(os.path.realpath(name))


def refuses_reading(path: str) -> bool:
    """Whether the system refuses to open the file at `path` for reading (its mode, its
    owner): False for a folder, a missing file, or one that opens, and for an agent's
    credential file (or a link to one), which is never opened, not even to try."""
    if _credential(path):
        return False
    try:
        if stat.S_ISDIR(os.stat(path).st_mode):
            return False  # Windows refuses to open any folder so
        os.close(os.open(path, _NO_WAIT))
    except PermissionError:
        freshness.note_refused(path)
        return True
    except OSError:
        return False
    return False


def refused_problem(app: str, path: str | os.PathLike[str]) -> str | None:
    """The problem to say of a file the system will not let sessdex open (another
    user's), in the words every app uses; None where it opens, or is missing."""
    name = os.fspath(path)
    if refuses_reading(name):
        return f"{app}: {refused(name)}"
    return None


def say_if_refused(
    app: str, path: str | os.PathLike[str], diagnostics: Diagnostics
) -> bool:
    """Whether the system will not let sessdex open `path` (another user's file); if so,
    the problem `refused_problem` words is said."""
    problem = refused_problem(app, path)
    if problem:
        diagnostics.problem(problem)
    return problem is not None


def stopped_problem(app: str, path: str | None, error: OSError) -> str:
    """The problem to say of a read `error` stopped: where the system refused to open a
    file (its name on the error), the words `refused_problem` uses, since nothing of
    that file was read; else that the read of `path` stopped, and why."""
    named = error.filename if isinstance(error, PermissionError) else None
    if isinstance(named, str | bytes | os.PathLike):
        return f"{app}: {refused(os.fsdecode(named))}"
    return f"{app}: stopped reading {path}: {why(error, path)}"


def line_start(path: str | os.PathLike[str], offset: int) -> int:
    """`offset`, or the start of the next line when it falls inside one (that piece is dropped)."""
    if offset <= 0:
        return 0
    with open_regular(path) as stream:
        stream.seek(offset - 1)
        position = offset - 1
        # reads stop where a hole begins (None: no hole, nearly every file): one across a
        # hole took the record glued to it as more of the cut line
        hole_at = next_hole(stream, position)
        carried = b""  # zeros the last chunk ended in (`glued_in`)
        while True:
            if hole := skip_hole(stream):  # NULs: no newline in them, passed over
                position += hole
                if (glued := record_after_hole(stream)) is not None:
                    # a record glued to the hole: its line is read from the hole's
                    # last byte (`record_after_hole`)
                    return position + glued.passed - 1
            if hole_at is None:
                chunk = stream.read(CHUNK)
            else:
                hole_at, wanted = up_to_hole(stream, hole_at)
                chunk = stream.read(wanted)
            if not chunk:
                break
            newline = chunk.find(b"\n")
            last, carried = glued_in(carried, chunk if newline < 0 else chunk[:newline])
            if last is not None:  # a record after written zeros: read from their last
                return position + last
            if newline >= 0:
                return position + newline + 1
            position += len(chunk)
        return position


def line_numbers(
    path: str | os.PathLike[str], offsets: Iterable[int]
) -> dict[int, int]:
    """The number (from 1) of the line that starts at each of `offsets`, counted in one
    pass over the file up to the last, holes passed over unread (`skip_hole`); an
    offset past the file's end is left out. For a line a listing named by its byte."""
    wanted = sorted(set(offsets))
    found: dict[int, int] = {}
    position, newlines = 0, 0
    with open_binary(path) as stream:
        for offset in wanted:
            while position < offset:
                position += skip_hole(stream)  # NULs: no newline in them
                if position >= offset:
                    break
                chunk = stream.read(min(CHUNK, offset - position))
                if not chunk:
                    return found
                newlines += chunk.count(b"\n")
                position += len(chunk)
            found[offset] = newlines + 1
    return found


def skip_hole(stream: BinaryIO) -> int:
    """When `stream` stands in a hole of a sparse file (`truncate -s 64G`, a file
    preallocated and written in parts: NUL bytes the disk never stored, which hold no
    line), move it past the hole and say how many bytes that passed over; else 0, the
    stream where it was. Read through, a hole of 64 GB took minutes. 0 too where the
    system cannot say where holes are (no SEEK_DATA: Windows) or the stream is no plain
    file (a `.zst` decompressed)."""
    raw = getattr(stream, "raw", stream)
    seek_data = getattr(os, "SEEK_DATA", None)  # looked up here: a test takes it away
    if seek_data is None or not isinstance(raw, io.FileIO):
        return 0
    try:
        fd = raw.fileno()
        at = stream.tell()
        here = os.lseek(fd, 0, os.SEEK_CUR)  # the buffer's own, put back below
    except (OSError, ValueError):
        return 0
    try:
        resume = os.lseek(fd, at, seek_data)
    except OSError as error:  # ENXIO: no data at or past `at`, a hole to the end
        resume = os.fstat(fd).st_size if error.errno == errno.ENXIO else at
    finally:
        os.lseek(fd, here, os.SEEK_SET)
    if resume <= at:
        return 0
    stream.seek(resume)
    return resume - at


# after a hole, the bytes read at a time for the record a crash left glued to it: the
# zeros of the block the hole ends in, then its `{`; a longer run of written zeros
# (preallocated, never written over) is passed over a probe at a time, never held
RECORD_PROBE = 64 * 1024
_PADDING = b"\x00 \t\r"


class Glued(NamedTuple):
    """A record glued to a hole (`record_after_hole`)."""

    passed: int  # bytes of padding past the hole passed over before `data`, not held
    data: bytes  # the bytes read from there: padding, then the record's `{`


def record_after_hole(stream: BinaryIO) -> Glued | None:
    """Where `stream` stands just past a hole (`skip_hole`): the bytes read from there
    when a JSON record starts in them (past NULs and blanks), the stream past them; else
    None, the stream where it was. A crash leaves the end of a record unwritten, its
    newline with it, and the app writes its next record after the hole, on the same
    line: that record is read, as `repair` reads one after a run of written zeros. The
    readers give the line from the hole's last byte, as one NUL: a line that holds NUL
    bytes (`damage_of`), at the same offset whichever reader met it. Written zeros
    longer than a probe after the hole are passed over as more of it (`Glued.passed`):
    200 KB of them hid the record from every reader."""
    at = stream.tell()
    if _no_record_after(stream, at):
        return None
    passed = 0
    probe, full = _probe(stream)
    while full and not probe.strip(_PADDING):
        skipped = skip_hole(stream)  # a hole further on: not read either
        if not probe and not skipped:
            break
        passed += len(probe) + skipped
        probe, full = _probe(stream)
    if probe.lstrip(_PADDING)[:1] != b"{":
        end = stream.tell() - len(probe.lstrip(_PADDING))
        with contextlib.suppress(TypeError):  # a stream no weak reference takes
            _PADDED[stream] = (at, end)
        stream.seek(at)
        return None
    return Glued(passed, probe)


def _probe(stream: BinaryIO) -> tuple[bytes, bool]:
    """(a probe's bytes from where `stream` stands, up to a hole, never into it; whether
    all that was asked was read, not the file's end): a walk that read a later hole's
    zeros into its probe gave its record another line start than a read from that
    line's start gave it (`follow` from the glued line)."""
    at = stream.tell()
    hole_at = next_hole(stream, at)
    wanted = RECORD_PROBE if hole_at is None else min(RECORD_PROBE, hole_at - at)
    probe = stream.read(wanted)
    return probe, len(probe) == wanted


# stream -> (start, end) of padding `record_after_hole` walked and found no record
# after: a later hole in the same run (the cut line read on through it) is not walked
# again; 60 holes each with 70 KB of zeros after it read the rest of the file each
_PADDED: weakref.WeakKeyDictionary[BinaryIO, tuple[int, int]] = (
    weakref.WeakKeyDictionary()
)


def _no_record_after(stream: BinaryIO, at: int) -> bool:
    """Whether `record_after_hole` already found no record past the padding `at`
    stands in (the byte that ended it still not a `{`); the stream left at `at`."""
    try:
        start, end = _PADDED.get(stream, (0, -1))
    except TypeError:  # a stream no weak reference takes: walked each time
        return False
    if not start <= at <= end:
        return False
    stream.seek(end)
    probe = stream.read(RECORD_PROBE)
    stream.seek(at)
    # the file's end still there, or the same byte after the padding; not a record
    # written since, nor zeros written on past the end (walked again)
    return not probe or probe.lstrip(_PADDING)[:1] not in (b"{", b"")


def data_below(stream: BinaryIO, position: int, floor: int) -> int:
    """`position`, or where the hole that the bytes just below it lie in begins (not
    below `floor`): for a search backwards (`lines_with`) to pass over a hole unread.
    The stream's position is left where it was; `position` where the system cannot say
    where holes are (`skip_hole`)."""
    raw = getattr(stream, "raw", stream)
    seek_data = getattr(os, "SEEK_DATA", None)
    seek_hole = getattr(os, "SEEK_HOLE", None)
    if position <= floor or seek_data is None or seek_hole is None:
        return position
    if not isinstance(raw, io.FileIO):
        return position
    fd = raw.fileno()
    here = os.lseek(fd, 0, os.SEEK_CUR)
    try:
        return _hole_start(fd, position, floor, seek_data, seek_hole)
    except OSError:
        return position
    finally:
        os.lseek(fd, here, os.SEEK_SET)


def data_end(stream: BinaryIO, status: os.stat_result) -> int:
    """Where the last data of `stream`'s file ends (`status` its fstat): its size, or,
    when it ends in a hole (preallocated, its last writes never made), where that hole
    begins, looked back for a window twice as wide each time (`data_below`): about 20
    system calls for 64 GB. A file whose blocks hold all its bytes has no hole: nothing
    is asked of nearly every file."""
    size = status.st_size
    if _stored_whole(status):
        return size
    return data_below(stream, size, 0)


def _stored_whole(status: os.stat_result) -> bool:
    """Whether a file's blocks hold all its bytes, so that it has no hole: one stat
    answers for nearly every file, and none of its reads asks where holes are."""
    return bool(getattr(status, "st_blocks", status.st_size) * 512 >= status.st_size)


def next_hole(stream: BinaryIO, at: int) -> int | None:
    """Where the first hole at or past `at` in `stream`'s file begins, or None: none
    before its end (nearly every file, said by one fstat, as `data_end`), or the system
    cannot say (`skip_hole`). For a reader in large chunks to stop at a hole, not read a
    chunk of its NULs. The stream's position is left where it was."""
    raw = getattr(stream, "raw", stream)
    seek_hole = getattr(os, "SEEK_HOLE", None)
    if seek_hole is None or not isinstance(raw, io.FileIO):
        return None
    try:
        fd = raw.fileno()
        status = os.fstat(fd)
        if _stored_whole(status):
            return None
        here = os.lseek(fd, 0, os.SEEK_CUR)
        try:
            hole = os.lseek(fd, at, seek_hole)
        finally:
            os.lseek(fd, here, os.SEEK_SET)
    except (OSError, ValueError):
        return None
    return hole if hole < status.st_size else None


def up_to_hole(stream: BinaryIO, hole_at: int) -> tuple[int | None, int]:
    """(where the next hole begins, how much to read) for a read from `stream`'s
    position that stops at that hole (`next_hole`), CHUNK at most. Asked again once the
    stream is past the hole asked of (or at one that is no longer there)."""
    at = stream.tell()
    found: int | None = hole_at
    if at >= hole_at:
        found = next_hole(stream, at)
    if found is None or found <= at:
        return None, CHUNK
    return found, min(CHUNK, found - at)


def _hole_start(fd: int, position: int, floor: int, data: int, hole: int) -> int:
    """`data_below` on a file descriptor: windows below `position` twice as wide each
    time until one holds data, whose last stretch of data then ends where the hole does."""
    width = CHUNK
    while True:
        low = max(floor, position - width)
        try:
            found = os.lseek(fd, low, data)
        except OSError as error:
            if error.errno != errno.ENXIO:
                raise
            found = position  # no data past `low`: all hole
        if found < position:
            # the stretches of data from `found`: the last one below `position` ends it
            while True:
                end = os.lseek(fd, found, hole)
                if end >= position:
                    return position  # the byte below `position` is data
                try:
                    found = os.lseek(fd, end, data)
                except OSError as error:
                    if error.errno != errno.ENXIO:
                        raise
                    return end
                if found >= position:
                    return end
        if low == floor:
            return floor
        width *= 2


def chunks(stream: BinaryIO, left: int | None = None) -> Iterator[bytes]:
    """The bytes of `stream` from its position, CHUNK at a time (`left` of them at most),
    each hole given as one NUL byte, never read (`skip_hole`): a JSON document with a
    hole is as damaged as it was (no JSON holds a NUL), and costs no 64 GB read."""
    while left is None or left > 0:
        if hole := skip_hole(stream):
            if left is not None:
                left -= hole
            yield b"\x00"
            continue
        chunk = stream.read(CHUNK if left is None else min(CHUNK, left))
        if not chunk:
            return
        if left is not None:
            left -= len(chunk)
        yield chunk


def through_line(stream: BinaryIO) -> tuple[bytes | None, int, bytes | None]:
    """Read the rest of a line from `stream`'s position to its newline, holding none of
    it, passing holes over (`skip_hole`): (the bytes read after the newline, or None at
    the end of the file; the line's length from there, holes included; None). Where a
    hole in it has a record glued to it (`record_after_hole`), the line ends at that
    hole's last byte: (None, its length to there, the bytes read past the hole)."""
    through = _consume_oversize(stream, b"", "skip", glued=True)
    return through.rest, through.length, through.glued


def open_binary(path: str | os.PathLike[str]) -> BinaryIO:
    """Open a regular file for reading, decompressing `.zst` transparently."""
    name = os.fspath(path)
    raw = open_regular(name)
    if name.endswith(".zst"):
        return io.BufferedReader(_Decompressed(raw))
    return raw


class _Decompressed(io.RawIOBase):
    """A zstd stream decompressed as it is read, its decoding errors raised as CorruptData."""

    def __init__(self, raw: BinaryIO) -> None:
        import zstandard

        self._error = zstandard.ZstdError
        self._raw = raw
        self._given = 0
        self._reader: Any = zstandard.ZstdDecompressor().stream_reader(
            raw, closefd=True
        )

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        try:
            given = int(self._reader.readinto(buffer))
        except self._error as error:
            raise CorruptData(f"corrupt zstd data: {error}") from error
        self._given += given
        if not given and not self._given and len(buffer):
            self._ends_whole()
        return given

    def _ends_whole(self) -> None:
        """Raise CorruptData where the stream gave nothing because it is cut inside its
        first block: the reader ends such a stream without an error, and its session
        went missing unsaid. (One cut later ends in a line cut short, which is said.)"""
        import zstandard

        decoder = zstandard.ZstdDecompressor().decompressobj()
        self._raw.seek(0)
        try:
            while not decoder.eof and (chunk := self._raw.read(CHUNK)):
                decoder.decompress(chunk)  # at most a block's output: nothing was given
        except self._error as error:
            raise CorruptData(f"corrupt zstd data: {error}") from error
        if not decoder.eof and self._raw.tell():
            raise CorruptData(
                "corrupt zstd data: the file ends inside a frame (cut short)"
            )

    def close(self) -> None:
        if not self.closed:
            self._reader.close()
        super().close()


class Compactor:
    """Streams one over-long JSON line, replacing strings longer than KEEP_STRING (or
    `limit`) with markers, and so an array of numbers longer than that (an image some apps
    keep as its bytes, `[137,80,78,…]`): it becomes an array of one marker string."""

    __slots__ = (
        "dropped",
        "dropped_comma",
        "escape",
        "in_string",
        "keep",
        "limit",
        "numbers_at",
        "out",
        "overflow",
        "string_length",
    )

    def __init__(self, limit: int | None = None) -> None:
        self.limit = KEEP_STRING if limit is None else limit  # read now: tests lower it
        self.out = bytearray()
        self.in_string = False
        self.escape = False
        self.string_length = 0
        self.keep = bytearray()
        self.overflow = False
        # where, in `out`, an array holding only numbers so far begins (-1: none); its
        # text, once past KEEP_STRING, is dropped (counted) until the array ends
        self.numbers_at = -1
        self.dropped = -1  # bytes of numbers dropped (-1: not dropping)
        self.dropped_comma = False  # what was dropped ended with a comma

    def feed(self, data: bytes) -> None:
        if self.overflow:
            return
        i, n = 0, len(data)
        bracket = data.find(b"[")  # the next `[` at or after i (a string's, maybe)
        numbers = self.numbers_at >= 0 or self.dropped >= 0
        while i < n:
            if not self.in_string:
                q = data.find(b'"', i)
                end = n if q < 0 else q + 1
                if 0 <= bracket < i:
                    bracket = data.find(b"[", i)
                if numbers or 0 <= bracket < end:
                    self._plain(data[i:end])
                    numbers = self.numbers_at >= 0 or self.dropped >= 0
                else:
                    self.out += data[i:end]  # no array of numbers starts or goes on
                if q < 0:
                    break
                self.in_string, self.string_length, self.keep = True, 0, bytearray()
                i = q + 1
                continue
            if self.escape:
                self._take(data, i, i + 1)
                self.escape = False
                i += 1
                continue
            if len(self.keep) > self.limit:
                # nothing more is kept: only the string's end matters, the first quote
                # no odd run of backslashes escapes (a text's many \n need no stop)
                j = data.find(b'"', i)
                while j >= 0 and _backslashes_before(data, i, j) % 2:
                    j = data.find(b'"', j + 1)
                if j < 0:
                    self.string_length += n - i
                    self.escape = _backslashes_before(data, i, n) % 2 == 1
                    break
                self.string_length += j - i
            else:
                j = find_first_of(data, b'"\\', i)  # the string's end, or an escape
                if j < 0:
                    self._take(data, i, n)
                    break
                self._take(data, i, j)
                if (
                    data[j] == 0x5C
                ):  # backslash: the next byte is escaped, maybe in the next chunk
                    self._take(data, j, j + 1)
                    self.escape = True
                    i = j + 1
                    continue
            if self.string_length <= self.limit:
                self.out += self.keep
            else:
                hint = bytes(self.keep[:48]).split(b"\\")[0]
                self.out += (
                    _ELIDED_JSON + str(self.string_length).encode() + b":" + hint
                )
            self.out += b'"'
            self.in_string = False
            self.keep = bytearray()
            i = j + 1
        if len(self.out) > COMPACT_CAP:
            self.overflow = True
            self.out = bytearray()

    def _plain(self, data: bytes) -> None:
        """Bytes outside strings (up to a string's opening quote): kept, but for a long
        array of numbers, which becomes `["<marker>"]` when it ends."""
        if self.dropped >= 0:
            match = _NUMBERS.match(data)  # always matches, "" at least
            end = match.end() if match else 0
            self.dropped += end
            if tail := data[:end].rstrip():
                self.dropped_comma = tail.endswith(b",")
            if end == len(data):
                return
            self.out += b'"' + _ELIDED_JSON + str(self.dropped).encode() + b':numbers"'
            if data[end] != 0x5D and self.dropped_comma:  # `]`: the array ends
                self.out += b","  # more items follow (a string, an object)
            self.dropped = -1
            data = data[end:]
        start = len(self.out)
        self.out += data
        if self.numbers_at < 0 or not _NUMBERS.fullmatch(data):
            # the last `[` followed only by numbers, if any: no earlier one can be
            bracket = data.rfind(b"[")
            numbers = bracket >= 0 and _NUMBERS.fullmatch(data, bracket + 1)
            self.numbers_at = start + bracket + 1 if numbers else -1
        if self.numbers_at >= 0 and len(self.out) - self.numbers_at > self.limit:
            run = self.out[self.numbers_at :]
            self.dropped = len(run)
            self.dropped_comma = bytes(run).rstrip().endswith(b",")
            del self.out[self.numbers_at :]
            self.numbers_at = -1

    def _take(self, data: bytes, start: int, end: int) -> None:
        """data[start:end] is more of the string: counted, and kept while short (no slice
        of a long one is made: it may be most of a 16 MB chunk)."""
        self.string_length += end - start
        room = self.limit + 1 - len(self.keep)
        if room > 0:
            self.keep += data[start : min(end, start + room)]


# what an array of numbers holds between its brackets: digits, signs, exponents, commas
_NUMBERS = re.compile(rb"[0-9,.eE+\- \t\r\n]*")


def _backslashes_before(data: bytes, start: int, end: int) -> int:
    """How many backslashes end data[start:end]."""
    at = end
    while at > start and data[at - 1] == 0x5C:
        at -= 1
    return end - at


def compacted(pieces: Iterable[bytes], limit: int | None = None) -> bytes | None:
    """One JSON value read in pieces, its strings longer than `limit` elided
    (`Compactor`; KEEP_STRING unless said); None if it is longer than COMPACT_CAP even so (reading stops there)."""
    compactor = Compactor(limit)
    for piece in pieces:
        compactor.feed(piece)
        if compactor.overflow:
            return None
    return bytes(compactor.out)


def iter_lines(
    stream: BinaryIO,
    *,
    offset: int = 0,
    first_number: int | None = None,
    max_lines: int | None = None,
    cap: int = LINE_CAP,
    oversize: Oversize = "skip",
    hold_partial: bool = False,
    diagnostics: Diagnostics | None = None,
    path: str = "",
) -> Iterator[Line]:
    """Yield the lines of `stream` from its current position (which is `offset`).

    A line longer than `cap` is never held whole: with `oversize="skip"` it is counted
    as "too long" and passed over; with "compact" its long strings are elided. With
    `hold_partial`, an unterminated last line is not yielded (a writer may finish it).
    `max_lines` counts skipped lines too. Lines are numbered from `first_number`; without
    one, from 1 at the file's start, and past it by where each starts (`at_byte`): the
    lines before `offset` were never counted, and a number from 1 there names another.
    """
    counting = first_number is not None or not offset
    if first_number is not None:
        number = first_number
    else:
        number = 1 if counting else AT_BYTE + offset
    taken = 0  # lines, for `max_lines`
    position = offset  # absolute offset of buf[0]
    buf = b""

    def finish(
        data: bytes, start: int, end: int, complete: bool, compacted: bool = False
    ) -> Line | None:
        if len(data) > cap and not compacted:
            if b"\x00" in data and (last := _zeros_then_record(data)[0]):
                # written zeros a record follows: a line from their last NUL, as
                # `_consume_oversize` gives it when it reads the line through
                return finish(b"\x00" + data[last + 1 :], start + last, end, complete)
            if oversize == "compact":
                compactor = Compactor()
                compactor.feed(data)
                if not compactor.overflow:
                    return Line(
                        number, start, bytes(compactor.out), end, complete, True
                    )
            if diagnostics is not None:
                diagnostics.skip(path, number, "too long", start)
            return None
        return Line(number, start, data, end, complete, compacted)

    start = 0  # buf[:start] is already consumed
    more = False  # the last read filled its chunk: the file may go on, maybe in a hole
    # where a read must stop not to take a chunk of a hole's NULs (None: no hole, nearly
    # every file, and each read is as it was)
    hole_at = next_hole(stream, offset)
    while True:
        hole = skip_hole(stream) if more or hole_at is not None else 0
        after = record_after_hole(stream) if hole else None
        hole += after.passed if after is not None else 0  # zeros passed: more of it
        record = after.data if after is not None else None
        # no record after the hole: the line goes on to its newline, or to a later hole
        # in it that a record is glued to (a piece more of it written between the two)
        through = (
            _consume_oversize(stream, b"", "skip", glued=True)
            if hole and record is None
            else None
        )
        if through is not None and through.glued is not None:
            position += through.length + 1
            record = through.glued
        if record is not None:
            # a record glued to the hole: a line from the hole's last byte, given as one
            # NUL (`record_after_hole`); the cut line before it is dropped with the hole
            position += len(buf) - start + hole - 1
            buf, start, chunk = b"\x00", 0, record
            more = True
        elif through is not None:
            # the line in progress runs into a hole (NULs never stored) and no record
            # follows it: it, the hole and what follows to the next newline are one
            # damaged line, left unread
            if through.rest is None and hold_partial:
                return
            if diagnostics is not None:
                diagnostics.skip(path, number, HOLE, position)
            position += len(buf) - start + hole + through.length
            position += through.rest is not None
            buf, start = b"", 0
            number = number + 1 if counting else AT_BYTE + position
            if max_lines is not None and (taken := taken + 1) >= max_lines:
                return
            if through.rest is None:
                break
            chunk = through.rest
            if not chunk:
                continue
        else:
            if hole_at is None:
                chunk = stream.read(CHUNK)
            else:
                hole_at, wanted = up_to_hole(stream, hole_at)
                chunk = stream.read(wanted)
            if not chunk:
                break
            more = len(chunk) == CHUNK  # a short read: the file's end, no hole past it
        if start < len(buf):
            size = len(buf) - start  # of a line the read before began
            nl = chunk.find(b"\n")
            if 0 <= nl <= cap - size:
                # it ends in this chunk: joined alone, for a whole chunk copied behind
                # it costs more than the rest of the line's work
                end = position + size + nl + 1
                data = buf[start:] + chunk[:nl]
                yield _new_line(Line, (number, position, data, end, True, False))
                position = end
                buf, start = chunk, nl + 1
                number = number + 1 if counting else AT_BYTE + position
                if max_lines is not None and (taken := taken + 1) >= max_lines:
                    return
            else:
                buf, start = buf[start:] + chunk, 0
        else:
            buf, start = chunk, 0
        while True:
            nl = buf.find(b"\n", start)
            if nl < 0:
                if len(buf) - start <= cap:
                    break
                # an over-long line in progress: stream the rest of it without holding it
                result, rest, length, unread, glued = _consume_oversize(
                    stream, buf[start:], oversize, glued=True
                )
                if glued is not None:
                    # cut by a hole a record is glued to: a line from the hole's last
                    # byte, as above
                    position += length
                    buf, start = b"\x00" + glued, 0
                    continue
                end = position + length + (0 if rest is None else 1)
                line = None
                if result is not None:
                    line = finish(result[0], position, end, result[1], compacted=True)
                elif diagnostics is not None:
                    diagnostics.skip(
                        path, number, HOLE if unread else "too long", position
                    )
                position = end
                buf, start = rest or b"", 0
                if rest is None and hold_partial:
                    return
            else:
                end = position + nl - start + 1
                if nl - start <= cap:  # `finish` inline: a line of its own size
                    line = _new_line(
                        Line, (number, position, buf[start:nl], end, True, False)
                    )
                else:
                    line = finish(buf[start:nl], position, end, True)
                position = end
                start = nl + 1
            if line is not None:
                yield line
            number = number + 1 if counting else AT_BYTE + position
            if max_lines is not None and (taken := taken + 1) >= max_lines:
                return
    if start < len(buf) and not hold_partial:
        line = finish(buf[start:], position, position + len(buf) - start, False)
        if line is not None:
            yield line


# `Line(...)` without its generated __new__ (a tuple's, with the same fields in order)
_new_line: Callable[[type[Line], tuple[int, int, bytes, int, bool, bool]], Line] = (
    tuple.__new__
)


class _Through(NamedTuple):
    """One over-long line read through (`_consume_oversize`)."""

    kept: tuple[bytes, bool] | None  # (compacted data, complete), or None: skipped
    rest: bytes | None  # the bytes read past its newline; None: the file ended first
    length: int  # without the newline, its holes included
    unread: int  # of its length, bytes in holes (NULs never stored): never kept
    # with `glued`: what was read past a hole a record is glued to (`record_after_hole`),
    # the line taken to end at the hole's last byte (`length` bytes from its start)
    glued: bytes | None = None


def _consume_oversize(
    stream: BinaryIO,
    prefix: bytes,
    oversize: Oversize,
    budget: int | None = None,
    *,
    glued: bool = False,
) -> _Through:
    """Read one over-long line to its newline without holding it, and without reading a
    hole in it (`skip_hole`). Past `budget` bytes read the line is given up (skipped)
    and reading stops, as at the end of the file. With `glued`, a hole that a record
    follows ends it there (`_Through.glued`)."""
    compactor = Compactor() if oversize == "compact" else None
    length = passed = 0  # the line's bytes; those of them in holes, never read
    data = prefix
    # with `glued`, reads stop where a hole begins, for its end to be found (a read
    # across a small hole took its NULs and the record after it as more of the line)
    hole_at = next_hole(stream, stream.tell()) if glued and stream.seekable() else None
    carried = b""  # with `glued`: the last piece's end from its zeros' last NUL on
    while True:
        nl = data.find(b"\n")
        piece = data if nl < 0 else data[:nl]
        if glued:  # written zeros and a record after them: read as after a hole
            before = carried
            last, carried = glued_in(before, piece)
            if last is not None:
                after = (before + data)[len(before) + last + 1 :]
                return _Through(None, None, length + last, passed, after)
        length += len(piece)
        if compactor is not None:
            compactor.feed(piece)
        if nl >= 0:
            rest: bytes | None = data[nl + 1 :]
            break
        if budget is not None and length - passed >= budget:
            return _Through(None, None, length, passed)
        if hole := skip_hole(stream):  # NULs: the line is no JSON, whatever follows
            length += hole
            passed += hole
            compactor = None
            if glued and (record := record_after_hole(stream)) is not None:
                length += record.passed
                return _Through(None, None, length - 1, passed, record.data)
        if hole_at is None:
            data = stream.read(CHUNK)
        else:
            hole_at, wanted = up_to_hole(stream, hole_at)
            data = stream.read(wanted)
        if not data:
            rest = None
            break
    if compactor is None or compactor.overflow:
        return _Through(None, rest, length, passed)
    return _Through((bytes(compactor.out), rest is not None), rest, length, 0)


_PADDING_RUN = re.compile(rb"[\x00 \t\r]+")


def _zeros_then_record(text: bytes) -> tuple[int | None, bytes]:
    """In a piece of an over-long line: (the index of the last NUL of a run of written
    zeros that a record's `{` follows, past blanks, as `record_after_hole` reads one
    glued to a hole; else None, and the piece's end from the last NUL of zeros it ends
    in, for the next piece to go on from). Linear: each run is matched once."""
    if text.count(0) == len(text):  # preallocated zeros, a read of them: counted fast
        return None, text[-1:]
    at = text.find(b"\x00")
    while at >= 0:
        run = _PADDING_RUN.match(text, at)
        end = run.end() if run is not None else at + 1
        last = text.rindex(b"\x00", at, end)
        if end == len(text):  # the run goes on into the next piece, maybe
            return None, text[last:] if end - last <= RECORD_PROBE else b""
        if text[end] == 0x7B:  # `{`
            return last, b""
        at = text.find(b"\x00", end)
    return None, b""


def glued_in(carried: bytes, piece: bytes) -> tuple[int | None, bytes]:
    """For a line read a piece at a time (`piece` up to its newline, if any): the index
    in `piece` (negative: in the piece before it) of the last NUL of written zeros a
    record follows (`_zeros_then_record`), else None; and what the next piece goes on
    from (`carried`, empty at first). Nearly every piece holds no NUL: one search."""
    if not carried and b"\x00" not in piece:
        return None, b""
    last, kept = _zeros_then_record(carried + piece)
    return (None if last is None else last - len(carried)), kept


def glued_start(data: bytes, begin: int, stop: int) -> int:
    """Where the line `data[begin:stop]` is read from when over LINE_CAP: the last NUL
    of written zeros a record follows in it (`_zeros_then_record`), where every reader
    starts that record's line; else `begin`. For a listing that searches a held block."""
    if stop - begin <= LINE_CAP or data.find(b"\x00", begin, stop) < 0:
        return begin
    return begin + (_zeros_then_record(data[begin:stop])[0] or 0)


@dataclass(slots=True)
class Head:
    """A file's first lines held as one block, as `split_head` read them.

    `ends[i]` is where line i ends in `data`: its newline, or `data`'s end for a last line
    still being written. A line over LINE_CAP is listed in `too_long` and held empty (its
    newline only); `shifts` lists (position in `data`, bytes left out before it), so
    positions past such a line map back to file offsets, and `openings` keeps its first
    OPENING bytes (by line index), for a field at its start (a title) to be found without
    the rest. Sources that search a head for keys search `data` whole instead of making
    one `Line` per line.
    """

    data: bytes
    ends: list[int] = field(default_factory=list)
    too_long: list[int] = field(default_factory=list)
    shifts: list[tuple[int, int]] = field(default_factory=list)
    openings: dict[int, bytes] = field(default_factory=dict)
    holes: list[int] = field(default_factory=list)  # of `too_long`, those cut by a hole

    @property
    def end(self) -> int:
        """Where the head's last line ends in `data`, its newline included."""
        if not self.ends:
            return 0
        last = self.ends[-1]
        return last + 1 if last < len(self.data) else last

    def offset(self, position: int) -> int:
        """The file offset of `position` in `data`."""
        if not self.shifts:  # no over-long line before it: the common case
            return position
        at = bisect.bisect_right(self.shifts, position, key=lambda shift: shift[0])
        return position + (self.shifts[at - 1][1] if at else 0)

    def line(self, index: int) -> Line:
        """Line `index` (from 0), its offsets those in the file."""
        data, ends = self.data, self.ends
        begin = ends[index - 1] + 1 if index else 0
        end = ends[index]
        complete = end < len(data)  # else the last line, with no newline yet
        offset = self.offset(begin)
        return Line(
            index + 1,
            offset,
            data[begin:end],
            offset + end - begin + complete,
            complete,
        )

    def count_too_long(self, diagnostics: Diagnostics, path: str) -> None:
        """Count each line passed over as too long, under its number."""
        for index in self.too_long:
            reason = HOLE if index in self.holes else "too long"
            diagnostics.skip(path, index + 1, reason)

    def lines(
        self,
        diagnostics: Diagnostics | None = None,
        path: str = "",
        *,
        openings: bool = False,
    ) -> list[Line]:
        """The lines that are not too long; those that are, counted in `diagnostics`,
        and with `openings` given as their first bytes closed up as JSON
        (`closed_opening`, `compacted` set): a first prompt with an image or a long
        paste in it still says what was asked."""
        skipped = set(self.too_long)
        if diagnostics is not None:
            self.count_too_long(diagnostics, path)
        found: list[Line] = []
        for index in range(len(self.ends)):
            if index not in skipped:
                found.append(self.line(index))
            elif openings and (opening := self.openings.get(index)) is not None:
                closed = closed_opening(opening)
                if closed is not None:
                    found.append(self.line(index)._replace(data=closed, compacted=True))
        return found


_CLOSERS = {ord("{"): b"}", ord("["): b"]"}


def closed_opening(opening: bytes) -> bytes | None:
    """The first bytes of a JSON object too long to hold (`Head.openings`), closed up as
    JSON: the value string they end in cut where they end (less a cut escape or
    character) and ended with "…", a member cut before its value left out, each open
    array and object closed. None where no object is left. Every string in it is whole
    but the last, which says it is not."""
    if not opening.startswith(b"{"):
        return None
    stack = bytearray()
    good, closers = 0, b""  # where the text may be cut, and what then closes it
    in_string = is_key = False
    escape_at = -1  # where the escape the string is in began (-1: none)
    previous = 0  # the last byte outside a string that is no white space
    for i, byte in enumerate(opening):
        if in_string:
            if escape_at >= 0:
                # `\uXXXX` runs to its fourth digit; any other escape is two bytes
                if opening[escape_at + 1] != 0x75 or i - escape_at == 5:
                    escape_at = -1
            elif byte == 0x5C:  # a backslash
                escape_at = i
            elif byte == 0x22:  # the string ends
                in_string, previous = False, byte
                if not is_key:
                    good, closers = i + 1, _closing(stack)
            continue
        if byte in b" \t\r\n":
            continue
        if byte == 0x22:
            in_string = True
            # a key where an object expects one: after its `{` or a `,` in it
            is_key = bool(stack) and stack[-1] == 0x7B and previous in (0x7B, 0x2C)
        elif byte in (0x7B, 0x5B):  # { [
            stack.append(byte)
            good, closers = i + 1, _closing(stack)
        elif byte in (0x7D, 0x5D):  # } ]
            if not stack:
                return None
            stack.pop()
            good, closers = i + 1, _closing(stack)
        elif byte == 0x2C and stack:  # a comma: what came before it is whole
            good, closers = i, _closing(stack)
        previous = byte
    if in_string and not is_key:  # cut inside a value: keep what it holds so far
        text = opening[:escape_at] if escape_at >= 0 else opening
        try:
            text.decode()
        except UnicodeDecodeError as error:  # a character cut by the read
            text = text[: error.start]
        closed = text + "\u2026".encode() + b'"' + _closing(stack)  # cut: says so
    else:
        closed = opening[:good] + closers
    try:
        value = loads(closed)
    except orjson.JSONDecodeError:
        return None
    return closed if isinstance(value, dict) else None


def _closing(stack: bytearray) -> bytes:
    return b"".join(_CLOSERS[byte] for byte in reversed(stack))


@overload
def split_head(
    data: bytes, stream: BinaryIO, *, whole: bool, max_lines: int = HEAD_LINES
) -> Head: ...


@overload
def split_head(
    data: bytes, stream: None, *, whole: bool, max_lines: int = HEAD_LINES
) -> Head | None: ...


def split_head(
    data: bytes,
    stream: BinaryIO | None,
    *,
    whole: bool,
    max_lines: int = HEAD_LINES,
) -> Head | None:
    """The first `max_lines` lines of a file that starts with `data`.

    More is read from `stream` (doubling what is held) while the lines do not all end
    within `data`; with no `stream`, `data` is all there is when it is the `whole` file,
    and otherwise the answer is None (more is needed than was given). A line over
    LINE_CAP is read through without being held and listed in `too_long`; it counts
    among the `max_lines`. Reading stops at about HEAD_BYTES, whatever the lines.
    """
    head = Head(data)
    ends, cap, limit = head.ends, LINE_CAP, HEAD_BYTES
    position = left_out = 0  # a line's start in data; bytes read through, not held
    unread = 0  # of those, bytes in holes: passed over, not read (not in the budget)
    while len(ends) < max_lines and position + left_out - unread < limit:
        position, zeros = _find_ends(
            head, data, position, limit - left_out + unread, max_lines
        )
        if zeros is not None:
            # an over-long line held whole, written zeros a record follows in it: a
            # line from their last NUL, the line's start before it left out, as a hole
            left_out += zeros - position
            data = data[:position] + data[zeros:]
            head.shifts.append((position, left_out))
            continue
        if len(ends) == max_lines or position + left_out - unread >= limit:
            break
        # no newline in data[position:]; where the stream stands in a hole, it is in it
        # (a file shorter than the first read has none past it: no system call asked)
        hole = (
            skip_hole(stream) if stream is not None and len(data) >= HEAD_PROBE else 0
        )
        if hole and stream is not None and (record := record_after_hole(stream)):
            # a record glued to the hole: a line from the hole's last byte, given as one
            # NUL (`record_after_hole`); the cut line before it is left out with the hole
            left_out += len(data) - position + hole + record.passed - 1
            unread += hole
            data = data[:position] + b"\x00" + record.data
            head.shifts.append((position, left_out))
            continue
        if hole or len(data) - position > cap:  # over-long, not ended within data
            if stream is None and not whole:
                return None
            head.openings[len(ends)] = data[position : position + OPENING]
            head.too_long.append(len(ends))
            budget = limit - left_out + unread - position
            if stream is None:
                length, rest = len(data) - position, None
            else:  # read through to its newline, holding none of it
                _, rest, length, passed, glued = _consume_oversize(
                    stream, data[position:], "skip", budget, glued=True
                )
                if glued is not None:  # a record glued to a hole in it: as above
                    del head.openings[len(ends)], head.too_long[-1]
                    left_out += length + hole
                    unread += passed + hole
                    data = data[:position] + b"\x00" + glued
                    head.shifts.append((position, left_out))
                    continue
                length, passed = length + hole, passed + hole
                if passed:  # damaged: NULs, whatever it began with
                    head.holes.append(len(ends))
                    del head.openings[len(ends)]
                unread += passed
            data = data[:position] if rest is None else data[:position] + b"\n" + rest
            ends.append(position)
            if rest is None:  # the file, or the head's budget, ends within it
                break
            left_out += length
            position += 1
            head.shifts.append((position, left_out))
            continue
        if stream is not None and (more := stream.read(len(data) or HEAD_PROBE)):
            data += more
            continue
        if stream is None and not whole:
            return None
        if position < len(data):  # a last line still being written
            ends.append(len(data))
        break
    head.data = data
    if head.too_long:
        _empty_too_long(head)
    return head


def _empty_too_long(head: Head) -> None:
    """Leave empty the over-long lines that ended within a read (those read through are
    empty already), so that a search of `data` never meets one. Rare: a copy is fine."""
    data, ends, too_long = head.data, head.ends, set(head.too_long)
    pieces: list[bytes] = []
    new_ends: list[int] = []
    shifts: list[tuple[int, int]] = []
    removed = held = 0  # bytes removed so far; length of the new data
    shift = 0
    for index, end in enumerate(ends):
        begin = ends[index - 1] + 1 if index else 0
        total = removed + head.offset(begin) - begin
        if total != shift:
            shifts.append((held, total))
            shift = total
        complete = end < len(data)
        if index in too_long:
            removed += end - begin
        else:
            pieces.append(data[begin:end])
            held += end - begin
        new_ends.append(held)
        if complete:
            pieces.append(b"\n")
            held += 1
    last = ends[-1] + 1 if ends and ends[-1] < len(data) else len(data)
    pieces.append(data[last:])  # what was read past the head
    head.data, head.ends, head.shifts = b"".join(pieces), new_ends, shifts


def _find_ends(
    head: Head, data: bytes, position: int, limit: int, max_lines: int
) -> tuple[int, int | None]:
    """Add the ends of the lines from `position` that end within `data`, up to
    `max_lines` in all, or up to one that ends at `limit` or later; returns where the
    next line starts. Lines over LINE_CAP go to `too_long`; one that written zeros and
    a record after them are in ends before it, where the next line starts, with the
    index of the zeros' last NUL (`_zeros_then_record`), else None."""
    ends, start, first = head.ends, position, len(head.ends)
    find, append = data.find, ends.append
    for _ in range(max_lines - first):
        newline = find(b"\n", position)
        if newline < 0:
            break
        append(newline)
        position = newline + 1
        if position >= limit:
            break
    if position - start > LINE_CAP:  # only then can one of them be over it
        begin = start
        for index in range(first, len(ends)):
            if ends[index] - begin > LINE_CAP:
                line = data[begin : ends[index]]
                if b"\x00" in line and (last := _zeros_then_record(line)[0]):
                    del ends[index:]
                    return begin, begin + last
                head.too_long.append(index)
                head.openings[index] = data[begin : begin + OPENING]
            begin = ends[index] + 1
    return position, None


def ends_only(stream: BinaryIO) -> None:
    """Tell the system that `stream` (a plain file) is read at its ends only, not through:
    nothing is read from disk past what each read asks for. A first listing reads a
    transcript's head and tail; after a read from offset 0 the kernel reads ahead on its
    own, up to the disk's `read_ahead_kb` (128 KiB on most disks, 8 MiB on some virtual
    ones), from a file it will never read further: a cold listing of big transcripts read
    2.2x the bytes it needed from disk (bench/bench_list.py (d)). Only this open file's
    reading changes; where the system has no `posix_fadvise`, nothing does."""
    # Linux and most BSDs; not macOS nor Windows
    advise = getattr(os, "posix_fadvise", None)
    random = getattr(os, "POSIX_FADV_RANDOM", None)
    if advise is None or random is None:
        return
    with contextlib.suppress(OSError):  # one that takes no advice reads as it did
        advise(stream.fileno(), 0, 0, random)


def head_lines(
    path: str | os.PathLike[str],
    max_lines: int = HEAD_LINES,
    *,
    diagnostics: Diagnostics | None = None,
    openings: bool = False,
) -> list[Line]:
    """The first `max_lines` lines, each at most LINE_CAP long (longer ones are skipped
    and counted among the `max_lines`, or with `openings` given as their first bytes
    closed up, `Head.lines`); never more than about HEAD_BYTES are read."""
    with open_binary(path) as stream:
        if not os.fspath(path).endswith(".zst"):  # a .zst is read through
            ends_only(stream)
        head = split_head(
            stream.read(HEAD_PROBE), stream, whole=False, max_lines=max_lines
        )
    return head.lines(diagnostics, os.fspath(path), openings=openings)


def tail_bytes(
    path: str | os.PathLike[str], nbytes: int = TAIL_BYTES
) -> tuple[int, bytes]:
    """(offset, data): the last `nbytes` bytes of a file, unsplit; `.zst` is decompressed.

    What `tail_lines` splits, for a reader that searches the block itself instead of
    making one `Line` per line: the piece before the first newline may be cut (when the
    offset is > 0).
    """
    name = os.fspath(path)
    if name.endswith(".zst"):
        kept = b""
        position = 0
        with open_binary(name) as stream:
            while chunk := stream.read(CHUNK):
                kept = (kept + chunk)[-nbytes:]
                position += len(chunk)
        return position - len(kept), kept
    with open_regular(name) as stream:
        return tail_read(stream, os.fstat(stream.fileno()), nbytes)


def tail_read(
    stream: BinaryIO,
    status: os.stat_result,
    nbytes: int = TAIL_BYTES,
    *,
    end: int | None = None,
) -> tuple[int, bytes]:
    """(offset, data): the last `nbytes` bytes of an open plain file (`status` its
    fstat), the stream left at its end. A hole the file ends in is passed over unread
    (`data_end`) and given as one NUL byte, as `chunks` gives one: the last data before
    it is the tail, and its last line is no finished line. The 512 KB of NULs of such a
    file's end were its whole tail, and held no line. A tail that does not start the
    file starts past the last hole within it (`_data_from`), where a record glued to that
    hole is a line from the hole's last byte (`record_after_hole`). `end`: that
    `data_end`, if known."""
    size = status.st_size
    end = data_end(stream, status) if end is None else end
    start = max(0, end - nbytes)
    glued = b""
    if start > 0 and not _stored_whole(status):
        past = _data_from(stream, start, end)
        if past > start and (zeros := _record_at(stream, past)) is not None:
            # a record glued to the hole before it: a line of its own from the one
            # NUL that stands for the hole (as `iter_lines` gives it), not the piece
            # a tail's read cuts; the zeros passed over with the hole left out too
            glued = b"\n\x00"
            past += zeros
        start = past
    stream.seek(start)
    if end == size:
        return start - len(glued), glued + stream.read(nbytes)
    data = stream.read(end - start)
    stream.seek(size)
    return start - len(glued), glued + data + b"\x00"


def _record_at(stream: BinaryIO, position: int) -> int | None:
    """Whether a JSON record starts at `position`, past the NULs and blanks there
    (`record_after_hole`): the bytes of them passed over as more of the hole, or None."""
    stream.seek(position)
    glued = record_after_hole(stream)
    return None if glued is None else glued.passed


def _data_from(stream: BinaryIO, start: int, end: int) -> int:
    """Where the data that runs to `end` begins: `start`, or past the last hole between
    them, whose line is then the piece a tail's read cuts (and drops). A tail that a
    hole ends just before read the hole's NULs. `start` where the system cannot say
    where holes are (`skip_hole`); the stream's position is left where it was."""
    raw = getattr(stream, "raw", stream)
    seek_data = getattr(os, "SEEK_DATA", None)
    seek_hole = getattr(os, "SEEK_HOLE", None)
    if seek_data is None or seek_hole is None or not isinstance(raw, io.FileIO):
        return start
    fd = raw.fileno()
    here = os.lseek(fd, 0, os.SEEK_CUR)
    at = start
    try:  # each turn passes one hole: as many turns as holes in the tail's span
        while (hole := os.lseek(fd, at, seek_hole)) < end:
            at = os.lseek(fd, hole, seek_data)
    except OSError:  # ENXIO: no data past it (the file changed): read as it is
        return start
    finally:
        os.lseek(fd, here, os.SEEK_SET)
    return at


def tail_lines(path: str | os.PathLike[str], nbytes: int = TAIL_BYTES) -> list[Line]:
    """The complete lines within the last `nbytes` bytes; the cut first piece is dropped.

    Line numbers are unknown this far from the start: they are counted from 1 within the tail.
    """
    start, data = tail_bytes(path, nbytes)
    return _split_tail(data, start)


def ends(
    path: str | os.PathLike[str],
    max_lines: int = HEAD_LINES,
    nbytes: int = TAIL_BYTES,
    *,
    diagnostics: Diagnostics | None = None,
    openings: bool = False,
) -> tuple[int, list[Line], list[Line]]:
    """(size, `head_lines`, `tail_lines`) of a file from one opening of it: a file
    within the tail's reach is read once, its head split from the same bytes. A first
    listing opened every small transcript twice, and stat'ed it a third time for its size."""
    name = os.fspath(path)
    if name.endswith(".zst"):  # the head is read through, decompressed
        size = os.stat(name).st_size
        head = head_lines(name, max_lines, diagnostics=diagnostics, openings=openings)
        return size, head, tail_lines(name, nbytes)
    with open_regular(name) as stream:
        ends_only(stream)
        status = os.fstat(stream.fileno())
        size = status.st_size
        start, data = tail_read(stream, status, nbytes)
        if (
            start == 0
        ):  # all of it read: the head is split from it (the stream at its end)
            split = split_head(data, stream, whole=False, max_lines=max_lines)
        else:
            stream.seek(0)
            probe = stream.read(HEAD_PROBE)
            split = split_head(probe, stream, whole=False, max_lines=max_lines)
    head = split.lines(diagnostics, name, openings=openings)
    return size, head, _split_tail(data, start)


# listing: the most bytes between head and tail searched (about 0.1 s from the page cache)
MIDDLE_CAP = 256 * 1024 * 1024


def lines_with(
    path: str | os.PathLike[str],
    marker: bytes,
    start: int,
    end: int,
    *,
    cap: int = MIDDLE_CAP,
    diagnostics: Diagnostics | None = None,
) -> Iterator[Line]:
    """The complete lines starting in [start, end) that hold `marker`, newest first, found
    by searching backwards in chunks, without splitting lines: for what an app writes once,
    in the middle of a file that listing reads only the ends of (a name given mid-session).
    Nothing when the span is over `cap` (said to `diagnostics`) or the file is compressed;
    lines over LINE_CAP are passed over. Memory: one chunk and one line."""
    name = os.fspath(path)
    if end <= start or name.endswith(".zst"):
        return
    if end - start > cap:
        if diagnostics is not None:
            diagnostics.problem(
                f"{name}: its middle ({human_bytes(end - start)}, over {human_bytes(cap)})"
                f" was not searched for {marker.decode(errors='replace')}: a value"
                " written there only (a name given mid-session) is not listed"
            )
        return
    with open_regular(name) as stream:
        position = end  # markers starting before this are left to find
        while position > start:
            # a hole below holds NULs, no marker: passed over, not read
            position = data_below(stream, position, start)
            if position <= start:
                break
            low = max(start, position - CHUNK)
            stream.seek(low)
            # read just far enough that a marker starting before `position` is whole
            data = stream.read(min(position + len(marker) - 1, end) - low)
            hit = data.rfind(marker)
            if hit < 0:
                position = low
                continue
            line = _line_at(stream, low + hit, start)
            if line is None:
                position = low + hit  # a line too long to take: look below it
                continue
            yield line
            position = line.offset


def _line_at(stream: BinaryIO, inside: int, floor: int) -> Line | None:
    """The complete line holding byte `inside` (at most LINE_CAP long, starting at or
    after `floor`), or None."""
    low = max(floor, inside - LINE_CAP)
    stream.seek(low)
    before = stream.read(inside - low)
    newline = before.rfind(b"\n")
    if newline < 0 and low > floor:
        return None  # longer than LINE_CAP
    if newline < 0 and low > 0:
        stream.seek(low - 1)
        if stream.read(1) != b"\n":
            return None  # it began before `floor`: not one of ours
    begin = low + newline + 1 if newline >= 0 else low
    stream.seek(begin)
    data = stream.read(LINE_CAP + 1)
    stop = data.find(b"\n")
    if stop < 0:
        return None  # too long, or not written whole yet
    return Line(0, begin, data[:stop], begin + stop + 1, True)


def _split_tail(data: bytes, start: int) -> list[Line]:
    pieces = data.split(b"\n")
    offset = start
    lines: list[Line] = []
    for i, piece in enumerate(pieces):
        end = offset + len(piece)
        last = i == len(pieces) - 1
        if i == 0 and start > 0 and not last and b"\x00" in piece:
            # the cut piece: a record after written zeros in it is a line from their
            # last NUL, where every reader starts it (`glued_in`)
            if (at := glued_in(b"", piece)[0]) is not None:
                glued = b"\x00" + piece[at + 1 :]
                lines.append(Line(1, offset + at, glued, end + 1, True))
        elif not (i == 0 and start > 0) and (piece or not last):
            lines.append(
                Line(len(lines) + 1, offset, piece, end + (0 if last else 1), not last)
            )
        offset = end + 1
    return lines


BOM = b"\xef\xbb\xbf"  # a UTF-8 byte order mark, which some tools start a file with


# byte order marks of text no app writes (UTF-32's first: it starts as UTF-16 LE's does)
_WIDE_LOOKS = 4  # files of one read looked at for a byte order mark
_WIDE_BOMS = (b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff", b"\xff\xfe", b"\xfe\xff")


def wide_text(path: str | os.PathLike[str]) -> bool:
    """Whether the file starts with a UTF-16 or UTF-32 byte order mark, or as such text
    written without one does (`_WIDE_SAMPLE` bytes read: see `_wide_start`)."""
    start = read_start(path, _WIDE_SAMPLE)
    return start is not None and (start.startswith(_WIDE_BOMS) or _wide_start(start))


_WIDE_SAMPLE = 32  # bytes of a file's start looked at for UTF-16's NULs beside ASCII


def _wide_start(start: bytes) -> bool:
    """Whether a file's first bytes are ASCII characters (a record's `{"type"…`) of
    UTF-16 or UTF-32 text, either byte order: NUL bytes where UTF-8 never has one,
    beside ASCII, in its first 4 bytes and (where the file is longer) in a character
    after them too. A crash's run of zeros (all NUL) is not that, nor a UTF-8 line whose
    first 4 bytes alone a crash left as `{`, NUL, `x`, NUL: its bytes after them hold
    no NUL, and its lines read."""
    if len(start) < 4:
        return False
    return any(
        _ascii_units(start[:4], width, at) == 4 // width
        and (len(start) < 4 + width or _ascii_units(start[4:], width, at) > 0)
        for width, at in ((2, 0), (2, 1), (4, 0), (4, 3))
    )


def _ascii_units(start: bytes, width: int, at: int) -> int:
    """How many whole units of `width` bytes in `start` are one ASCII character (not
    NUL) in byte `at`, NUL in the others."""
    units = (start[i : i + width] for i in range(0, len(start) - width + 1, width))
    return sum(
        1
        for unit in units
        if 0 < unit[at] < 0x80 and not any(unit[:at] + unit[at + 1 :])
    )


def said_wide(name: str, diagnostics: Diagnostics) -> Diagnostics:
    """What a file that listed no session (or counted no usage, or met lines it could
    not read) is said to hold: where a tool re-saved it as UTF-16 (or UTF-32), that,
    once, in place of its lines' notes (an "unfinished last line" of one NUL byte, lines
    "not JSON"), which would send the user astray.
    A file too short for a byte order mark (an empty one) is not opened: a stat costs a
    fifth of an open, over thousands of empty files."""
    try:
        if os.stat(name).st_size < 2:
            return diagnostics
    except (OSError, ValueError):
        return diagnostics  # as the read of its start would say: not wide
    if not wide_text(name):
        return diagnostics
    said = Diagnostics()
    said.skip(name, 0, WIDE_TEXT)
    return said


def wide_read(found: Diagnostics) -> Diagnostics:
    """What a session's read met (`found`), where a file it names as holding lines it
    could not read (or an unfinished last one) is UTF-16 or UTF-32 text: that file said
    not UTF-8, not read (as the listing says it), in place of its lines' notes. Only a
    read that met such lines looks (4 bytes of each file named, a few at most)."""
    if not (found.skipped or found.unfinished):
        return found
    named = dict.fromkeys([*found.unfinished, *(path for path, _, _ in found.details)])
    wide = {
        path
        for path in list(named)[:_WIDE_LOOKS]
        if said_wide(path, found) is not found
    }
    if not wide:
        return found
    said = Diagnostics()
    said.unknown, said.versions = found.unknown, found.versions
    said.problems, said.passed_over = found.problems, found.passed_over
    if len(wide) < len(named):  # another file's lines are counted still
        said.skipped, said.damaged = found.skipped.copy(), found.damaged.copy()
    for path, line, reason in found.details:
        if path not in wide:  # another file's notes, as they were
            said.details.append((path, line, reason))
            continue
        counted = said.skipped if said.skipped[reason] > 0 else said.damaged
        counted[reason] -= 1 if counted[reason] > 0 else 0
    said.skipped, said.damaged = +said.skipped, +said.damaged  # (drop what is 0)
    for path in wide:
        said.skip(path, 0, WIDE_TEXT)
    said.unfinished = {p: n for p, n in found.unfinished.items() if p not in wide}
    return said


def loads(data: bytes | str) -> object:
    """`orjson.loads`, also past a UTF-8 byte order mark (some Windows editors and
    tools start a file with one; orjson refuses it) and over bytes that are not UTF-8
    (a writer that copied raw bytes into a string) or half an emoji (a lone surrogate
    escape), read as U+FFFD instead of losing the line. Tried only after orjson refused
    the line. Raises orjson.JSONDecodeError."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        raw, mended = b"", None
        if isinstance(data, bytes):
            raw = data
        else:  # a lone surrogate of its own as one U+FFFD (its UTF-8 reads as three)
            text = data.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
            raw = text.encode()
            mended = raw if text != data else None
        fixed = repaired(raw) or mended
        if fixed is None:
            raise
        return orjson.loads(fixed)


def loads_repaired(data: bytes) -> tuple[object, bool]:
    """`loads` of a line orjson refused, and whether it held bytes that are not UTF-8
    (read as U+FFFD: a reader counts the line as damaged). Raises orjson.JSONDecodeError
    when even the repaired line is no JSON."""
    fixed, not_utf8 = repair(data)
    if fixed is None:
        return orjson.loads(data), False  # raises, as it did for the caller
    return orjson.loads(fixed), not_utf8


def loads_checked(data: bytes) -> tuple[object, bool]:
    """`orjson.loads`, else `loads_repaired`: the value, and whether it was read over
    bytes that are not UTF-8. Clean input costs no more than `orjson.loads`. Raises
    orjson.JSONDecodeError."""
    try:
        return orjson.loads(data), False
    except orjson.JSONDecodeError:
        return loads_repaired(data)


def repaired(data: bytes) -> bytes | None:
    """`data` without a leading byte order mark, with bytes that are not UTF-8 and
    escapes of lone surrogates replaced by U+FFFD; None when there was none of these to
    repair. For decoders that refused a line, to try it once more."""
    return repair(data)[0]


def repair(data: bytes) -> tuple[bytes | None, bool]:
    """`repaired(data)`, and whether bytes that are not UTF-8 were replaced or a run of
    NULs passed over (the line is then read with damage: a reader counts it,
    `Diagnostics.damage`, under `damage_of`'s reason)."""
    fixed = data[len(BOM) :] if data.startswith(BOM) else data
    not_utf8 = False
    if b"\x00" in fixed and (after := _after_zeros(fixed)) is not None:
        fixed, not_utf8 = after, True
    try:
        fixed.decode()
    except UnicodeDecodeError:
        fixed = fixed.decode(errors="replace").encode()
        not_utf8 = True
    if b"\\u" in fixed:
        fixed = _SURROGATE_ESCAPE.sub(_paired_only, fixed)
    if _ODD_NUMBER_HINT.search(fixed):
        fixed = _ODD_NUMBER.sub(_null_if_odd, fixed)
    return (None if fixed == data else fixed), not_utf8


def _after_zeros(data: bytes) -> bytes | None:
    """The record after the last run of NULs in `data`, or None where none starts
    there. A crash leaves zeros where the end of a record was written, its newline among
    them; the app's next record then follows them on the same line. No JSON holds a raw
    NUL, so the line was lost whole, that whole record with it."""
    after = data[data.rindex(b"\x00") + 1 :].lstrip()
    return after if after[:1] in (b"{", b"[") else None


def damage_of(data: bytes) -> str:
    """The reason a line `loads_repaired` read with damage is counted under: NUL bytes a
    crash left before its record, else bytes that are not UTF-8 (shown as U+FFFD)."""
    return NUL_BYTES if b"\x00" in data else NOT_UTF8


# A number JSON cannot hold: NaN and Infinity as Python's json.dumps writes them, or one
# past any float (1e999, 400 digits), which orjson refuses, and the line or document
# around it with it; read as null. A string is matched whole first, and kept; one cut
# short (a torn line) runs to the end, so that no quote escaped in it starts a scan of
# its own to the end (quadratic: a 100 KB line took 27 s). Each pattern is linear
_ODD_NUMBER_HINT = re.compile(rb"NaN|Infinity|\d[eE]\+?\d{3}|(?<!\d)\d{300}")
_ODD_NUMBER = re.compile(
    rb'"[^"\\]*+(?:\\.[^"\\]*+)*+(?:"|\\?\Z)|-?(?:NaN|Infinity)\b'
    rb"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?",
    re.DOTALL,
)


def _null_if_odd(match: re.Match[bytes]) -> bytes:
    token = match[0]
    if token.startswith(b'"'):
        return token
    if token.lstrip(b"-") in (b"NaN", b"Infinity"):
        return b"null"
    # only a number no float holds: any other is kept as written
    return b"null" if float(token) in (_INFINITY, -_INFINITY) else token


_INFINITY = float("inf")


# An app in JavaScript that cuts a text in the middle of an emoji (`slice(0, 80)`) writes
# its half as a lone surrogate escape (`"\ud83d"`): valid JSON that orjson refuses, and
# that no UTF-8 text can hold. A pair stays; an escaped backslash is taken whole, so
# that the `\u` of `"\\ud83d"` (a backslash, then letters) is never read as an escape
_SURROGATE_ESCAPE = re.compile(
    rb"\\\\|\\u[dD][89abAB][0-9a-fA-F]{2}(?:\\u[dD][c-fC-F][0-9a-fA-F]{2})?"
    rb"|\\u[dD][c-fC-F][0-9a-fA-F]{2}"
)


def _paired_only(match: re.Match[bytes]) -> bytes:
    escape = match[0]
    return escape if len(escape) in (2, 12) else b"\\ufffd"


def parse_json(
    line: Line, diagnostics: Diagnostics | None = None, path: str = ""
) -> dict[str, object] | None:
    """The JSON object on `line`, or None (counted: "not JSON", "not an object"). An
    unterminated line that does not parse is a file's last, maybe still being written:
    noted as unfinished (`Diagnostics.unfinished_line`), not counted. One read over
    bytes that are not UTF-8 is counted as damaged (`Diagnostics.damage`)."""
    data = line.data
    if not data.strip():
        return None
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        try:
            value, damaged = loads_repaired(data)
        except orjson.JSONDecodeError:
            if diagnostics is not None:
                if line.complete:
                    diagnostics.skip(path, line.number, "not JSON", line.offset)
                else:
                    diagnostics.unfinished_line(path, line.end - line.offset)
            return None
        if damaged and diagnostics is not None and isinstance(value, dict):
            diagnostics.damage(path, line.number, damage_of(data), line.offset)
    if not isinstance(value, dict):
        if diagnostics is not None:
            diagnostics.skip(path, line.number, "not an object", line.offset)
        return None
    return value


def note_unfinished(
    offset: int, tail: bytes, diagnostics: Diagnostics, path: str
) -> None:
    """Parse the last line of `tail` (a file's end, read from `offset`) when it has no
    newline yet, so that one that does not parse is noted as unfinished: for a listing
    that searches a tail for a few keys and would not meet it otherwise."""
    if not tail or tail.endswith((b"\n", b"\x00")):  # finished, or a hole (`tail_read`)
        return
    begin = tail.rfind(b"\n") + 1
    if begin == 0 and offset > 0:
        return  # it began before the tail: too long to take
    line = Line(0, offset + begin, tail[begin:], offset + len(tail), False)
    parse_json(line, diagnostics, path)


def note_unfinished_last(
    lines: list[Line], diagnostics: Diagnostics, path: str
) -> None:
    """`note_unfinished` for a tail already split (`tail_lines`): the last line, parsed
    when it has no newline yet."""
    # one that ends in NULs is a hole the file ends in (`tail_read`), nothing being written
    if lines and not lines[-1].complete and not lines[-1].data.endswith(b"\x00"):
        parse_json(lines[-1], diagnostics, path)


def take_tail(
    tail: Iterable[Line],
    after: int,
    keys: tuple[bytes, ...],
    take: Callable[[dict[str, object]], None],
    stamp: Callable[[bytes], None],
) -> None:
    """What a listing learns from the whole lines of a file's tail that start at `after`
    or later (those its head did not read): a line holding one of `keys` is parsed and
    taken, any other only stamped (its time found without parsing the line)."""
    for line in tail:
        if line.offset < after or not line.complete:
            continue
        if any(key in line.data for key in keys):
            record = parse_json(line)
            if record is not None:
                take(record)
        else:
            stamp(line.data)


def iter_records(
    path: str | os.PathLike[str],
    diagnostics: Diagnostics | None = None,
    *,
    offset: int = 0,
    first_number: int | None = None,
    hold_partial: bool = False,
    full: bool = False,
    unread: Callable[[bytes], bool] | None = None,
) -> Iterator[tuple[Line, dict[str, object]]]:
    """Stream a whole JSONL file as (line, object); bad lines are counted, never raised.

    Lines up to READ_LINE_CAP are parsed whole; longer ones have their long strings
    elided (see `elided`) unless `full` is set. A line `unread` says its reader drops
    whatever it holds is passed over before it is parsed. Lines are numbered as
    `iter_lines` numbers them: from `offset` past the start, by byte.
    """
    name = os.fspath(path)
    fast_loads = orjson.loads
    with open_binary(name) as stream:
        if offset:
            stream.seek(offset)
        for line in iter_lines(
            stream,
            offset=offset,
            first_number=first_number,
            cap=(1 << 62) if full else READ_LINE_CAP,
            oversize="compact",
            hold_partial=hold_partial,
            diagnostics=diagnostics,
            path=name,
        ):
            if unread is not None and unread(line.data):
                continue
            try:  # the common case inline; anything odd goes through `parse_json`
                record = fast_loads(line.data)
            except orjson.JSONDecodeError:
                record = None
            if type(record) is not dict:
                record = parse_json(line, diagnostics, name)
                if record is None:
                    continue
            yield line, record


def read_json_file(
    path: str | os.PathLike[str],
    limit: int = 64 * 1024 * 1024,
    *,
    comments: bool = False,
    diagnostics: Diagnostics | None = None,
) -> object | None:
    """A whole small JSON document (meta files, indexes); None if missing, too big or broken.

    With `comments`, `//` and `/* */` comments outside strings are allowed, as in the
    settings files apps read with strip-json-comments. With `diagnostics`, one read over
    bytes that are not UTF-8 is counted as damaged (line 1, as `read_json_compacted`),
    once however often the same reader reads it."""
    data = read_small(path, limit)
    if data is None:
        return None
    try:
        value, damaged = loads_checked(data)
    except orjson.JSONDecodeError:
        if not comments:
            return None
        try:
            stripped = _JSON_COMMENT.sub(lambda m: m.group(1) or b"", data)
            value, damaged = loads_checked(stripped)
        except orjson.JSONDecodeError:
            return None
    if damaged and diagnostics is not None:
        name = os.fspath(path)
        # one reader may read a document twice (a listing's model, then its folder,
        # from the same message file): it is one damaged document
        reason = damage_of(data)
        if (name, 1, reason) not in diagnostics.details:
            diagnostics.damage(name, 1, reason)
    return value


# a JSON string (kept), or a comment (dropped)
_JSON_COMMENT = re.compile(rb'("(?:\\.|[^"\\])*")|//[^\n]*|/\*.*?\*/', re.DOTALL)


def read_json_compacted(
    path: str | os.PathLike[str],
    *,
    full: bool = False,
    diagnostics: Diagnostics | None = None,
) -> object | None:
    """A JSON document that may be huge (one part of a chat kept as its own file): whole
    up to READ_LINE_CAP (or with `full`); past it streamed through `Compactor`, its long
    strings elided as a transcript line's are. None if missing, refused (counted so),
    broken (counted "not JSON") or still too long without its long strings (counted
    "too long"); one read over bytes that are not UTF-8 is counted as damaged."""
    freshness.note_read(path)
    try:
        with open_binary(path) as stream:
            data = stream.read(READ_LINE_CAP + 1)
            if len(data) > READ_LINE_CAP and not full:
                rest = chunks(stream)  # a hole as one NUL: read, it took minutes
                compact = compacted(itertools.chain((data,), rest))
                if compact is None:
                    if diagnostics is not None:
                        diagnostics.skip(os.fspath(path), 1, "too long")
                    return None
                data = compact
            elif len(data) > READ_LINE_CAP:
                data += stream.read()
    except PermissionError:  # another user's file: its part is missing, and why is said
        if diagnostics is not None:
            diagnostics.refused(os.fspath(path))
        return None
    except OSError:
        return None
    try:
        value, damaged = loads_checked(data)
    except orjson.JSONDecodeError:
        if diagnostics is not None:
            diagnostics.skip(os.fspath(path), 1, "not JSON")
        return None
    if damaged and diagnostics is not None:
        diagnostics.damage(os.fspath(path), 1, damage_of(data))
    return value


def read_json_counted(
    path: str | os.PathLike[str],
    limit: int,
    diagnostics: Diagnostics | None,
    missing: str | None = None,
) -> object | None:
    """`read_json_file`, counting why a file gave nothing: "too long" past `limit`, "not
    JSON" when broken, refused (`Diagnostics.refused`) when the system would not let it
    be opened; a missing file is None (or the problem `missing`, when given)."""
    try:
        size = os.stat(path).st_size
    except FileNotFoundError:
        if diagnostics is not None and missing is not None:
            diagnostics.problem(missing)
        return None
    except OSError:
        return None
    if size > limit:
        if diagnostics is not None:
            diagnostics.skip(os.fspath(path), 1, "too long")
        return None
    value = read_json_file(path, limit=limit, diagnostics=diagnostics)
    if value is None and size and diagnostics is not None:
        name = os.fspath(path)
        if refuses_reading(name):  # another user's file: nothing of it was read
            diagnostics.refused(name)
        else:
            diagnostics.skip(name, 1, "not JSON")
    return value


def read_start(path: str | os.PathLike[str], limit: int) -> bytes | None:
    """At most the first `limit` bytes of an append-only file (a transcript); None if
    missing or unreadable.

    Noted for the index as a probe, not a read: appends never change a file's start, so
    only the file's going or being replaced can change what a scan learnt from it."""
    freshness.note_probe(path)
    try:
        with open_binary(path) as stream:
            if not os.fspath(path).endswith(".zst"):  # (a stream, not the file)
                ends_only(stream)
            return stream.read(limit)
    except OSError:
        return None


def read_small(path: str | os.PathLike[str], limit: int) -> bytes | None:
    """A whole small file (`.zst` decompressed); None if missing, unreadable or over `limit`.

    Noted for the index (see `freshness`): a scan may read a small file to learn where the
    sessions are."""
    freshness.note_read(path)
    kept = folders.in_pass()
    if kept is None:
        return _read_small(path, limit)
    key = ("small", os.fspath(path), limit)
    fresh = key not in kept
    if fresh:
        data = _read_small(path, limit)
        if data is not None and len(data) > _KEPT_IN_PASS:
            return data  # a transcript: read once in a pass anyway, never held
        held = cast(int, kept.get(("small bytes",), 0)) + len(data or b"")
        if held > _PASS_HELD:
            return data  # a folder of thousands of them: read again, not all held
        kept[("small bytes",)] = held
        kept[key] = data
    found = kept[key]
    assert found is None or isinstance(found, bytes)
    if not fresh:
        # what the first read found: as if opened again, for what depends on it
        freshness.note_depended(os.fspath(path))
        if found is not None:
            freshness.note_opened(path)
    return found


_KEPT_IN_PASS = 64 * 1024  # bytes of a small file `folders.one_pass` keeps: a meta file
_PASS_HELD = 16 * 1024 * 1024  # bytes of small files a pass keeps in all


def _read_small(path: str | os.PathLike[str], limit: int) -> bytes | None:
    # read(limit + 1) would allocate the whole limit up front (64 MB for a 50-byte meta
    # file): read a chunk at a time instead, up to one byte past the limit
    pieces: list[bytes] = []
    size = 0
    try:
        with open_binary(path) as stream:
            if not os.fspath(path).endswith(".zst") and (
                os.fstat(stream.fileno()).st_size > limit
            ):
                return None  # a 64 GB hole after a few bytes was read to the limit
            while size <= limit and (
                piece := stream.read(min(CHUNK, limit + 1 - size))
            ):
                pieces.append(piece)
                size += len(piece)
    except OSError:
        return None
    return b"".join(pieces) if size <= limit else None
