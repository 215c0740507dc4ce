"""bytesearch: StringZilla's find/rfind answer exactly as bytes' own, bounds included."""

from __future__ import annotations

import random

import pytest

from sessdex import bytesearch


def test_the_fast_search_is_installed() -> None:
    # a dependency of the package: a missing wheel would silently cost listing its speed
    assert bytesearch.ACCELERATED


@pytest.mark.parametrize("method", ["find", "rfind"])
def test_same_answers_as_bytes_for_any_bounds(method: str) -> None:
    fast = getattr(bytesearch, method)
    slow = getattr(bytes, method)
    draw = random.Random(7)
    for _ in range(20_000):
        data = bytes(draw.choice(b'ab"\n') for _ in range(draw.randint(0, 40)))
        needle = bytes(draw.choice(b'ab"\n') for _ in range(draw.randint(1, 4)))
        start = draw.randint(-45, 45)
        end = draw.randint(-45, 45)
        assert fast(data, needle, start, end) == slow(data, needle, start, end)
        assert fast(data, needle, start) == slow(data, needle, start)
        assert fast(data, needle) == slow(data, needle)


def test_first_of_a_byte_set_answers_as_a_regex_would() -> None:
    draw = random.Random(11)
    for _ in range(20_000):
        data = bytes(draw.choice(b'ab"\\\n') for _ in range(draw.randint(0, 40)))
        start = draw.randint(-45, 45)
        for chars in (b'"\\', b"\n", b"ab"):
            expected = bytesearch._first_of(data, chars, start)
            assert bytesearch.find_first_of(data, chars, start) == expected
    # and the case it is for: a quote after megabytes of base64
    image = b"QUJD" * 2_000_000 + b'"}'
    assert bytesearch.find_first_of(image, b'"\\', 3) == len(image) - 2
    assert bytesearch._first_of(image, b'"\\', 3) == len(image) - 2


@pytest.mark.parametrize("method", ["find", "rfind"])
def test_keys_in_a_big_json_block(method: str) -> None:
    # the case listing has: a key near one end of half a megabyte of JSON lines, or absent
    line = b'{"type":"user","message":{"content":"' + b'x\\"y ' * 40 + b'"}}\n'
    block = line * (512 * 1024 // len(line))
    titled = (
        block[:1000]
        + b'{"customTitle":"a"}\n'
        + block[1000:]
        + b'{"customTitle":"b"}\n'
    )
    fast = getattr(bytesearch, method)
    slow = getattr(bytes, method)
    for data in (block, titled, titled + block):
        for needle in (b'"customTitle"', b'"type":"user"', b"\n", b'Title"'):
            assert fast(data, needle) == slow(data, needle)
            assert fast(data, needle, 999, len(data) - 5) == slow(
                data, needle, 999, len(data) - 5
            )


def test_without_stringzilla_bytes_own_search_serves(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a platform with no wheel: the module still imports, and answers the same
    import importlib
    import sys

    monkeypatch.setitem(sys.modules, "stringzilla", None)  # makes the import fail
    try:
        plain = importlib.reload(bytesearch)
        assert not plain.ACCELERATED
        assert plain.find(b'{"a":1}\n{"customTitle":"x"}', b'"customTitle"') == 9
        assert plain.rfind(b"abcabc", b"bc", 0, 5) == 1
        assert plain.find_first_of(b'ab\\"c', b'"\\', 1) == 2
    finally:
        monkeypatch.undo()
        importlib.reload(bytesearch)
    assert bytesearch.ACCELERATED
