"""Many short strings (uuids, response keys) held in flat arrays instead of a dict or set.

A dict from str to its number costs about 170 bytes an entry for a uuid (the str, an int,
the slot), and a transcript of a few GB names a million uuids. Here an entry costs its
UTF-8 bytes (17 for a lower-case uuid, packed) and about 30 more: the bytes end to end in
one bytearray, an end offset and a hash per entry, and an open-addressing table of entry
numbers. Lookups stay exact: a hash that matches is confirmed on the bytes. Not a general
mapping: entries are never removed.
The first entries (`_FRONT`) sit in a plain dict, packed into the arrays past that or when
the table's parts are asked for: most tables stay that small, and a dict is cheaper to ask.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left

_FIRST_SIZE = 64  # table slots; a power of two, doubled while over half full
# entries held in a plain dict before they are packed: a lookup there is some 5x cheaper,
# and this many cost a few MB (a transcript of 64 MB names some 25,000 uuids)
_FRONT = 1 << 15


class IdTable:
    """Each distinct string numbered 0, 1, 2, … in the order it was first added."""

    __slots__ = ("_blob", "_ends", "_front", "_hashes", "_mask", "_slots", "_unhashed")

    def __init__(self) -> None:
        self._blob = bytearray()
        self._ends = array("q")  # entry n is blob[ends[n - 1]:ends[n]] (0 for n = 0)
        self._hashes = array("q")  # per entry, to grow the table without its bytes
        self._slots = array("i", bytes(4 * _FIRST_SIZE))  # entry + 1; 0 is empty
        self._mask = _FIRST_SIZE - 1
        self._unhashed = False  # entries from `from_parts` not in the table yet
        # the first entries, numbered in order, until `_FRONT` of them; then None, and
        # every entry is in the arrays
        self._front: dict[str, int] | None = {}

    def __len__(self) -> int:
        front = self._front
        return len(front) if front is not None else len(self._ends)

    def parts(self) -> tuple[bytes, bytes]:
        """The entries' bytes end to end, and their end offsets (native `q`s): all a
        table is, for `from_parts` to rebuild in another process."""
        self._pack()
        return bytes(self._blob), self._ends.tobytes()

    def views(self) -> tuple[memoryview, memoryview]:
        """What `parts` gives, without copying it (the uuids of a 2 GB transcript are some
        35 MB): read-only views of the table's own arrays. Release them (`with`) before
        adding to the table: a bytearray that a view holds cannot grow."""
        self._pack()
        return memoryview(self._blob).toreadonly(), memoryview(self._ends).cast("B")

    @classmethod
    def from_parts(
        cls, blob: bytes | bytearray | memoryview, ends: bytes | bytearray | memoryview
    ) -> IdTable:
        """The table `parts` described. Its hashes are taken anew (str and bytes hashes
        differ from process to process) on the first lookup: numbering to strings needs
        none. A bytearray `blob` becomes the table's own, not copied: the caller lets it
        go. ValueError if the parts do not fit together."""
        table = cls()
        offsets = array("q")
        offsets.frombytes(ends)
        if (offsets[-1] if offsets else 0) != len(blob) or min(offsets, default=0) < 0:
            raise ValueError("the parts of an IdTable do not fit together")
        table._blob = blob if isinstance(blob, bytearray) else bytearray(blob)
        table._ends = offsets
        table._unhashed = bool(offsets)
        table._front = None
        return table

    def _pack(self) -> None:
        """Move the dict's entries into the arrays, in their order; hashed on the next
        lookup, as `from_parts`'s are."""
        front, self._front = self._front, None
        if not front:
            return
        blob, ends = self._blob, self._ends
        for key in front:
            blob += _encode(key)
            ends.append(len(blob))
        self._unhashed = True

    def _hash_all(self) -> None:
        """Hash the entries `from_parts` gave and place them in a table of their size."""
        hashes, start = self._hashes, 0
        # each entry copied out of a view, not the whole blob at once
        with memoryview(self._blob) as blob:
            for end in self._ends:
                hashes.append(hash(bytes(blob[start:end])))
                start = end
        size = _FIRST_SIZE
        while 2 * len(hashes) > size:
            size *= 2
        self._grow_to(size)
        self._unhashed = False

    def __contains__(self, key: str) -> bool:
        return self.get(key) >= 0

    def __getitem__(self, number: int) -> str:
        """The string numbered `number`."""
        self._pack()
        ends = self._ends
        start = ends[number - 1] if number > 0 else 0
        return _decode(self._blob[start : ends[number]])

    def get(self, key: str) -> int:
        """The number of `key`, or -1 if it was never added."""
        if self._front is not None:
            return self._front.get(key, -1)
        if self._unhashed:
            self._hash_all()
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
        front = self._front
        if front is not None:
            number = front.get(key)
            if number is not None:
                return number
            number = len(front)
            if number < _FRONT:
                front[key] = number
                return number
            self._pack()
        if self._unhashed:
            self._hash_all()
        data = _encode(key)
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
        self._grow_to(2 * len(self._slots))

    def _grow_to(self, size: int) -> None:
        """Place every entry anew in a table of `size` slots."""
        slots, mask = array("i", bytes(4 * size)), size - 1
        for number, code in enumerate(self._hashes):
            slot = code & mask
            while slots[slot]:
                slot = (slot + 1) & mask
            slots[slot] = number + 1
        self._slots, self._mask = slots, mask


# A uuid as Claude Code writes it (36 characters, lower-case hex) is kept as its 16 bytes
# after a 0xFF, a byte UTF-8 never holds: 17 bytes, where its text took 36.
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_PACKED = 0xFF


def _encode(key: str) -> bytes:
    if len(key) == 36 and _UUID.fullmatch(key):
        return b"\xff" + bytes.fromhex(key.replace("-", ""))
    try:
        return key.encode()
    except UnicodeEncodeError:  # a lone surrogate (JSON allows one): kept as it is
        return key.encode("utf-8", "surrogatepass")


def _decode(data: bytes | bytearray) -> str:
    if len(data) == 17 and data[0] == _PACKED:
        text = data[1:].hex()
        return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"
    return data.decode("utf-8", "surrogatepass")


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
