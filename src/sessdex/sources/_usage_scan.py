"""Find the few lines of a big JSON-lines file that carry usage, without splitting the rest.

A byte search for a marker (`"usage":{`) skips every other line unread; only the lines around
a hit are cut out and handed to a decoder. The file is read in large chunks, so memory stays
bounded by the chunk and by the longest marked line (an over-long one is skipped, counted).
Used by the sources' optional `usage_records` hooks; it knows no app.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from .. import files
from ..diagnostics import Diagnostics

CHUNK = 16 * 1024 * 1024
LINE_LIMIT = 64 * 1024 * 1024  # a marked line longer than this is skipped as "too long"


class MarkedLines:
    """Iterate (line number, line bytes, complete) over lines holding any of `markers`.

    After the loop, `offset` is the end of the last newline-terminated line and `line` the
    number of the line that starts there: where the next read should begin. With
    `numbered=False` lines are not counted (their number stays `line`).
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
    ) -> None:
        self.path = Path(path)
        self.markers = markers
        self.offset = offset
        self.line = line
        self.diagnostics = diagnostics
        self.numbered = (
            numbered  # counting lines costs a pass over the bytes: only to explain
        )

    def __iter__(self) -> Iterator[tuple[int, bytes, bool]]:
        name = os.fspath(self.path)
        with files.open_binary(name) as stream:
            if self.offset:
                stream.seek(self.offset)
            carry = b""
            skipping = False  # inside an over-long line: drop bytes up to its newline
            while True:
                chunk = stream.read(CHUNK)
                if not chunk:
                    break
                if skipping:
                    nl = chunk.find(b"\n")
                    if nl < 0:
                        self.offset += len(chunk)
                        continue
                    self.offset += nl + 1
                    self.line += 1
                    chunk = chunk[nl + 1 :]
                    skipping = False
                data = carry + chunk if carry else chunk
                end = data.rfind(b"\n") + 1  # complete lines are data[:end]
                if end:
                    yield from self._hits(data, end)
                    if self.numbered:
                        self.line += data.count(b"\n", 0, end)
                    self.offset += end
                carry = data[end:]
                if len(carry) > LINE_LIMIT:
                    if self.diagnostics is not None and self._marked(carry):
                        self.diagnostics.skip(name, self.line, "too long")
                    self.offset += len(carry)
                    carry = b""
                    skipping = True
            if carry and self._marked(carry):
                yield self.line, carry, False

    def _marked(self, data: bytes) -> bool:
        return any(marker in data for marker in self.markers)

    def _hits(self, data: bytes, end: int) -> Iterator[tuple[int, bytes, bool]]:
        starts: set[int] = set()
        for marker in self.markers:
            position = data.find(marker, 0, end)
            while position >= 0:
                start = data.rfind(b"\n", 0, position) + 1
                stop = data.find(b"\n", position, end)
                starts.add(start)
                position = data.find(marker, stop + 1, end)
        counted_to = 0
        line = self.line
        for start in sorted(starts):
            if self.numbered:
                line += data.count(b"\n", counted_to, start)
                counted_to = start
            yield line, data[start : data.find(b"\n", start, end)], True
