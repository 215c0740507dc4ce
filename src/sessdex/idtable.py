"""Many short strings (uuids, response keys) held in flat arrays instead of a dict or set.

A dict from str to its number costs about 170 bytes an entry for a uuid (the str, an int,
the slot), and a transcript of a few GB names a million uuids. Here an entry costs its
UTF-8 bytes and about 30 more: the bytes end to end in one bytearray, an end offset and a
hash per entry, and an open-addressing table of entry numbers. Lookups stay exact: a hash
that matches is confirmed on the bytes. Not a general mapping: entries are never removed.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left

_FIRST_SIZE = 64  # table slots; a power of two, doubled while over half full


class IdTable:
    """Each distinct string numbered 0, 1, 2, … in the order it was first added."""

    __slots__ = ("_blob", "_ends", "_hashes", "_mask", "_slots")

    def __init__(self) -> None:
        self._blob = bytearray()
        self._ends = array("q")  # entry n is blob[ends[n - 1]:ends[n]] (0 for n = 0)
        self._hashes = array("q")  # per entry, to grow the table without its bytes
        self._slots = array("i", bytes(4 * _FIRST_SIZE))  # entry + 1; 0 is empty
        self._mask = _FIRST_SIZE - 1

    def __len__(self) -> int:
        return len(self._ends)

    def __contains__(self, key: str) -> bool:
        return self.get(key) >= 0

    def __getitem__(self, number: int) -> str:
        """The string numbered `number`."""
        ends = self._ends
        start = ends[number - 1] if number > 0 else 0
        return self._blob[start : ends[number]].decode("utf-8", "surrogatepass")

    def get(self, key: str) -> int:
        """The number of `key`, or -1 if it was never added."""
        data = _encode(key)
        code = hash(data)
        slots, hashes, ends, mask = self._slots, self._hashes, self._ends, self._mask
        slot = code & mask
        while taken := slots[slot]:
            number = taken - 1
            if (
                hashes[number] == code
                and data == self._blob[ends[number - 1] if number else 0 : ends[number]]
            ):
                return number
            slot = (slot + 1) & mask
        return -1

    def add(self, key: str) -> int:
        """The number of `key`, numbering it next if it is new."""
        try:  # `_encode`, inline: this runs for every line of a big transcript
            data = key.encode()
        except UnicodeEncodeError:
            data = key.encode("utf-8", "surrogatepass")
        code = hash(data)
        # `get`, inline, comparing in place (a slice of the blob would be a copy)
        slots, hashes, ends, mask = self._slots, self._hashes, self._ends, self._mask
        blob = self._blob
        slot = code & mask
        while taken := slots[slot]:
            number = taken - 1
            if hashes[number] == code:
                start = ends[number - 1] if number else 0
                if ends[number] - start == len(data) and blob.startswith(data, start):
                    return number
            slot = (slot + 1) & mask
        number = len(ends)
        blob += data
        ends.append(len(blob))
        hashes.append(code)
        slots[slot] = number + 1
        if 2 * (number + 1) > len(slots):
            self._grow()
        return number

    def _grow(self) -> None:
        size = 2 * len(self._slots)
        slots, mask = array("i", bytes(4 * size)), size - 1
        for number, code in enumerate(self._hashes):
            slot = code & mask
            while slots[slot]:
                slot = (slot + 1) & mask
            slots[slot] = number + 1
        self._slots, self._mask = slots, mask


def _encode(key: str) -> bytes:
    try:
        return key.encode()
    except UnicodeEncodeError:  # a lone surrogate (JSON allows one): kept as it is
        return key.encode("utf-8", "surrogatepass")


class HashSet:
    """Strings by their hashes alone, at 8 bytes each (a set of ints costs over 100): sorted
    arrays, one per low bits of the hash, short enough that an insert moves little. Lossy:
    two strings whose hashes are alike look the same, so only for an answer that a false
    "seen" cannot make wrong (it may only cost a second look); `IdTable` is exact."""

    PARTS = 1024

    def __init__(self) -> None:
        self.parts: dict[int, array[int]] = {}

    def __bool__(self) -> bool:
        return bool(self.parts)

    def __contains__(self, text: str) -> bool:
        value = hash(text)
        part = self.parts.get(value % self.PARTS)
        if part is None:
            return False
        at = bisect_left(part, value)
        return at < len(part) and part[at] == value

    def add(self, text: str) -> None:
        value = hash(text)
        part = self.parts.get(value % self.PARTS)
        if part is None:
            self.parts[value % self.PARTS] = array("q", (value,))
            return
        at = bisect_left(part, value)
        if at == len(part) or part[at] != value:
            part.insert(at, value)
