"""Substring search in bytes, at SIMD speed where StringZilla is installed.

Listing a home searches the last 512 KiB of every transcript for keys that are mostly not
there (a custom title, a rename, a setting an old version never wrote). CPython's
`bytes.find`/`rfind` pass over such a block at about 0.7 ns a byte; StringZilla's search
(SIMD, runtime-dispatched) at about a sixth of that. Same arguments, same answers, negative
and out-of-range bounds included (tests/test_bytesearch.py holds them to bytes' own).
Without StringZilla (a platform with no wheel), bytes' own methods serve.

Searches for one byte (a newline) stay on bytes' own: they are memchr already.
"""

from __future__ import annotations

from typing import Protocol


class Search(Protocol):
    def __call__(
        self, data: bytes, needle: bytes, start: int = ..., end: int = ..., /
    ) -> int: ...


find: Search
rfind: Search

try:
    import stringzilla
except ImportError:  # a platform with no wheel (tests/test_bytesearch.py)
    find, rfind = bytes.find, bytes.rfind
    ACCELERATED = False
else:
    find, rfind = stringzilla.find, stringzilla.rfind
    ACCELERATED = True
