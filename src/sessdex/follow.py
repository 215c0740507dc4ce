"""Following one file as it grows: only appended bytes are read, rewrites are noticed.

A `Follower` keeps the offset just past the last complete line it handed out, the file's
inode, and a fingerprint of the bytes just before that offset. `check()` stats the file
(nothing is read when size, mtime and inode are unchanged); `lines()` then yields the new
complete lines. A partial last line waits for its newline. If the fingerprint no longer
matches, or the file shrank or was replaced, it was rewritten and is read again from the
start. This module knows lines, not records: the live layer parses and translates them.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from enum import Enum
from pathlib import Path
from typing import BinaryIO

from . import files
from .diagnostics import Diagnostics

FINGERPRINT = 64  # bytes before the offset that must not change while a file only grows


class Change(Enum):
    NONE = "none"  # nothing new (nothing was read)
    GROWN = "grown"  # bytes were appended: lines() yields the complete new lines
    REWRITTEN = (
        "rewritten"  # replaced, truncated or rewritten: lines() starts again at 0
    )
    VANISHED = "vanished"  # the file is gone (it may come back: then REWRITTEN)


class _Counting:
    """A read-only stream that counts the bytes it hands out."""

    __slots__ = ("follower", "stream")

    def __init__(self, stream: BinaryIO, follower: Follower) -> None:
        self.stream = stream
        self.follower = follower

    def read(self, size: int = -1) -> bytes:
        data = self.stream.read(size)
        self.follower.bytes_read += len(data)
        return data

    # what `files.skip_hole` asks of a stream, to pass a hole over unread
    @property
    def raw(self) -> object:
        return getattr(self.stream, "raw", self.stream)

    def tell(self) -> int:
        return self.stream.tell()

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        return self.stream.seek(offset, whence)

    def seekable(self) -> bool:  # asked before an over-long line's reads stop at holes
        return self.stream.seekable()


class Follower:
    """One file followed from an offset (see the module docstring).

    `bytes_read` counts every byte read from the file, fingerprint checks included, so a
    test can assert that a refresh with no change reads nothing.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        offset: int = 0,
        *,
        diagnostics: Diagnostics | None = None,
        cap: int = files.READ_LINE_CAP,
        app: str = "",
    ) -> None:
        self.path = Path(path)
        self.app = app  # whose file: a file it may not open is said so in `diagnostics`
        self.name = os.fspath(path)
        self.offset = offset  # start of the next line to hand out
        self.diagnostics = diagnostics
        self.cap = cap
        self.inode: int | None = None
        self.size = -1
        self.mtime_ns = -1
        self.fingerprint = b""
        self._fingerprint_at = 0  # the offset the fingerprint ends at
        self.exists = False
        self.vanished = False
        self.bytes_read = 0
        self.rewrites = 0
        # the last `lines()` could not open the file (an I/O error, too many files open):
        # what it would have handed waits for the reader to ask again, not for a write
        self.failed: OSError | None = None
        # `offset` may fall inside a line (a tail window): the cut line is skipped once
        self._align = offset > 0
        # [offset, _scanned) is known to hold no newline: a partial line still being written
        self._scanned = offset

    # -- state --------------------------------------------------------------------------

    def check(self) -> Change:
        """What happened to the file since the last look; reads at most FINGERPRINT bytes."""
        try:
            st = os.stat(self.name)
        except FileNotFoundError:
            if not self.exists and self.inode is None:
                return Change.NONE
            gone = self.exists
            self._reset()
            self.exists = False
            self.vanished = self.vanished or gone
            return Change.VANISHED if gone else Change.NONE
        except OSError:
            return Change.NONE
        if not stat.S_ISREG(st.st_mode):
            # a pipe, a socket, a device: never opened (a pipe would wait for a writer),
            # said; a file there again later is another inode, read anew
            self._not_a_file()
            return Change.NONE
        known = self.inode is not None
        same = (st.st_ino, st.st_size, st.st_mtime_ns) == (
            self.inode,
            self.size,
            self.mtime_ns,
        )
        if known and same:
            return Change.NONE
        came_back, self.vanished = self.vanished, False
        self.exists = True
        if came_back or (
            known and (st.st_ino != self.inode or st.st_size < self.offset)
        ):
            self._reset()
            self._stat(st)
            self.rewrites += 1
            return Change.REWRITTEN
        if known and not self._fingerprint_holds():
            self._reset()
            self._stat(st)
            self.rewrites += 1
            return Change.REWRITTEN
        self._stat(st)
        if st.st_size <= self._scanned:
            return Change.NONE  # touched, or still the same partial line
        return Change.GROWN

    def mark(self) -> tuple[object, ...]:
        """Where it stands: what `restore` puts back, for a read that must be made again
        from the same place (the reader raised on what it was handed)."""
        return (self.offset, self._scanned, self._align, self.fingerprint,
                self._fingerprint_at, self.inode, self.size, self.mtime_ns)  # fmt: skip

    def restore(self, mark: tuple[object, ...]) -> None:
        """Back to `mark`: the next `check` finds again what it found after it."""
        (self.offset, self._scanned, self._align, self.fingerprint,
         self._fingerprint_at, self.inode, self.size, self.mtime_ns) = mark  # type: ignore[assignment]  # fmt: skip

    def _not_a_file(self) -> None:
        if self.diagnostics is not None and self.app:
            error = files.NotAFile(errno.EINVAL, "not a regular file", self.name)
            self.diagnostics.problem(files.stopped_problem(self.app, self.name, error))

    def _stat(self, st: os.stat_result) -> None:
        self.inode, self.size, self.mtime_ns = st.st_ino, st.st_size, st.st_mtime_ns

    def _reset(self) -> None:
        self.offset = 0
        self._scanned = 0
        self._align = False
        self.fingerprint = b""
        self._fingerprint_at = 0
        self.inode = None
        self.size = self.mtime_ns = -1

    def _fingerprint_holds(self) -> bool:
        if not self.fingerprint:
            return True
        start = self._fingerprint_at - len(self.fingerprint)
        try:
            with files.open_regular(self.path) as stream:
                stream.seek(start)
                data = stream.read(len(self.fingerprint))
        except OSError:
            return False
        self.bytes_read += len(data)
        return data == self.fingerprint

    # -- reading ------------------------------------------------------------------------

    def lines(self) -> Iterator[files.Line]:
        """The complete lines appended since the last call (after `check()` said GROWN or
        REWRITTEN). `offset` advances as they are consumed."""
        self.failed = None
        if 0 <= self.size <= self._scanned and not self._align:
            return  # nothing past what was already looked at
        try:
            # never a plain open: a pipe put where the file was would wait for a writer
            stream = files.open_regular(self.path)
        except PermissionError as error:  # another user's: nothing of it is read
            if self.diagnostics is not None and self.app:
                self.diagnostics.problem(
                    files.stopped_problem(self.app, self.name, error)
                )
            return
        except OSError as error:  # `check` took the size: asked again, not by a write
            self.failed = error
            return
        with stream:
            if self._align and not self._skip_cut_line(stream):
                return
            if self._scanned > self.offset and not self._newline_after(stream):
                return
            stream.seek(self.offset)
            counted = _Counting(stream, self)
            for line in files.iter_lines(
                counted,  # type: ignore[arg-type]
                offset=self.offset,
                cap=self.cap,
                oversize="compact",
                hold_partial=True,
                diagnostics=self.diagnostics,
                path=str(self.path),
            ):
                self.offset = line.end
                self._scanned = line.end
                yield line
            self._scanned = max(self._scanned, stream.tell())
            if self.offset != self._fingerprint_at:
                self._take_fingerprint(stream)

    def _skip_cut_line(self, stream: BinaryIO) -> bool:
        """Move `offset` past the line it falls in; False if that line is not finished."""
        stream.seek(self.offset - 1)
        position = self.offset - 1
        # reads stop where a hole begins (None: no hole, nearly every file): one across a
        # hole took the record glued to it as more of the cut line (`files.line_start`)
        hole_at = files.next_hole(stream, position)
        carried = b""  # zeros the last chunk ended in (`files.glued_in`)
        while True:
            if hole := files.skip_hole(stream):  # NULs: no newline, passed over
                position += hole
                if (glued := files.record_after_hole(stream)) is not None:
                    # a record glued to the hole: its line is read from the hole's
                    # last byte, as every reader reads it (`files.record_after_hole`)
                    self.offset = self._scanned = position + glued.passed - 1
                    self._align = False
                    return True
            if hole_at is None:
                chunk = stream.read(files.CHUNK)
            else:
                hole_at, wanted = files.up_to_hole(stream, hole_at)
                chunk = stream.read(wanted)
            if not chunk:
                break
            self.bytes_read += len(chunk)
            newline = chunk.find(b"\n")
            piece = chunk if newline < 0 else chunk[:newline]
            last, carried = files.glued_in(carried, piece)
            if last is not None:  # a record after written zeros: from their last NUL
                self.offset = self._scanned = position + last
                self._align = False
                return True
            if newline >= 0:
                self.offset = self._scanned = position + newline + 1
                self._align = False
                return True
            position += len(chunk)
        self._scanned = position
        return False

    def _newline_after(self, stream: BinaryIO) -> bool:
        """Whether the bytes after `_scanned` finish the pending partial line."""
        stream.seek(self._scanned)
        position = self._scanned
        while True:
            position += files.skip_hole(stream)  # NULs: no newline, passed over
            chunk = stream.read(files.CHUNK)
            if not chunk:
                break
            self.bytes_read += len(chunk)
            if b"\n" in chunk:
                return True
            position += len(chunk)
        self._scanned = position
        return False

    def _take_fingerprint(self, stream: BinaryIO) -> None:
        start = max(0, self.offset - FINGERPRINT)
        stream.seek(start)
        self.fingerprint = stream.read(self.offset - start)
        self._fingerprint_at = self.offset
        self.bytes_read += len(self.fingerprint)

    def skip_to_tail(self, window: int) -> None:
        """After a rewrite of a big file: read only about its last `window` bytes again."""
        if self.size > window:
            self.offset = self._scanned = self.size - window
            self._align = True
            self.fingerprint, self._fingerprint_at = b"", 0

    @property
    def pending(self) -> int:
        """Bytes of a partial last line waiting for their newline."""
        return max(0, self._scanned - self.offset) if not self._align else 0


def tail_offset(path: str | os.PathLike[str], window: int) -> int:
    """Where to start following so that about `window` bytes of history are read (0 if small)."""
    try:
        size = os.path.getsize(path)
    except OSError:
        return 0
    return max(0, size - window)
