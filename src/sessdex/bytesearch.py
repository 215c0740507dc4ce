"""Substring search in bytes, at SIMD speed where StringZilla is installed.

Listing a home searches the last 512 KiB of every transcript for keys that are mostly not
there (a custom title, a rename, a setting an old version never wrote). CPython's
`bytes.find`/`rfind` pass over such a block at about 0.7 ns a byte; StringZilla's search
(SIMD, runtime-dispatched) at about a sixth of that. Same arguments, same answers, negative
and out-of-range bounds included (tests/test_bytesearch.py holds them to bytes' own).
Without StringZilla (a platform with no wheel), bytes' own methods serve.

Searches for one byte (a newline) stay on bytes' own: they are memchr already. For the
first of a few bytes (a quote or a backslash through a pasted image's 50 MB of base64),
`find_first_of` is StringZilla's byte-set search, fifty times a regex's speed.
"""

from __future__ import annotations

import functools
import re
from typing import Protocol


class Search(Protocol):
    def __call__(
        self, data: bytes, needle: bytes, start: int = ..., end: int = ..., /
    ) -> int: ...


class FirstOf(Protocol):
    def __call__(self, data: bytes, chars: bytes, start: int = ..., /) -> int: ...


find: Search
rfind: Search
find_first_of: FirstOf


def _first_of(data: bytes, chars: bytes, start: int = 0, /) -> int:
    """Where the first byte of `chars` stands in `data` from `start` on, or -1."""
    found = _byte_set(chars).search(
        data, max(0, start + len(data) if start < 0 else start)
    )
    return found.start() if found else -1


@functools.lru_cache(maxsize=16)
def _byte_set(chars: bytes) -> re.Pattern[bytes]:
    return re.compile(b"[" + re.escape(chars) + b"]")


try:
    import stringzilla
except ImportError:  # a platform with no wheel (tests/test_bytesearch.py)
    find, rfind, find_first_of = bytes.find, bytes.rfind, _first_of
    ACCELERATED = False
else:
    find, rfind = stringzilla.find, stringzilla.rfind
    find_first_of = stringzilla.find_first_of
    ACCELERATED = True
