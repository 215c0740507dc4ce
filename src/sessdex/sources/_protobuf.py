"""The protobuf wire format, read without a schema: what the apps that store protobuf
(Antigravity's summaries and generation metadata, the Cursor CLI's chat tree) need.
"""

from __future__ import annotations

from datetime import UTC, datetime

Field = tuple[int, int, int | bytes]  # (field number, wire type, value)


def fields(data: bytes) -> list[Field]:
    """(field number, wire type, value) for each field of one protobuf message.

    Varints and fixed-width numbers come back as ints, length-delimited fields as bytes
    (a nested message, a string or raw bytes: the caller knows which). Groups and any
    malformed input raise ValueError.
    """
    found: list[Field] = []
    position, end = 0, len(data)
    while position < end:
        key, position = _varint(data, position)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise ValueError("field number 0")
        value: int | bytes
        if wire == 0:
            value, position = _varint(data, position)
        elif wire in (1, 5):
            width = 8 if wire == 1 else 4
            if position + width > end:
                raise ValueError("truncated fixed-width field")
            value = int.from_bytes(data[position : position + width], "little")
            position += width
        elif wire == 2:
            length, position = _varint(data, position)
            if position + length > end:
                raise ValueError("truncated length-delimited field")
            value = data[position : position + length]
            position += length
        else:
            raise ValueError(f"wire type {wire}")
        found.append((number, wire, value))
    return found


def varint(data: bytes, position: int) -> tuple[int, int]:
    """The varint at `position` and the position after it; ValueError if it is cut."""
    return _varint(data, position)


def _varint(data: bytes, position: int) -> tuple[int, int]:
    result = shift = 0
    for _ in range(10):
        if position >= len(data):
            raise ValueError("truncated varint")
        byte = data[position]
        position += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, position
        shift += 7
    raise ValueError("varint too long")


def first(found: list[Field], number: int, wire: int) -> int | bytes | None:
    return next((value for n, w, value in found if n == number and w == wire), None)


def timestamp(value: int | bytes | None) -> datetime | None:
    """A google.protobuf.Timestamp message: seconds (1), nanos (2)."""
    if not isinstance(value, bytes):
        return None
    try:
        parts = fields(value)
    except ValueError:
        return None
    seconds, nanos = first(parts, 1, 0), first(parts, 2, 0)
    if not isinstance(seconds, int) or seconds <= 0:
        return None
    try:
        moment = datetime.fromtimestamp(seconds, UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return (
        moment.replace(microsecond=(nanos // 1000) % 1_000_000)
        if isinstance(nanos, int)
        else moment
    )
