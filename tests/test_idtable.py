"""IdTable: the numbers a dict would give, for any strings, colliding hashes included."""

from __future__ import annotations

import random

import pytest

from sessdex import idtable
from sessdex.idtable import IdTable


def keys() -> list[str]:
    draw = random.Random(3)
    alphabet = "ab-0\u00e9\u4e2d\U0001f600\ud800"  # a lone surrogate, as JSON allows
    drawn = ["".join(draw.choices(alphabet, k=draw.randint(0, 6))) for _ in range(3000)]
    return ["", "a", "ab", "abc", "b", *drawn]  # prefixes of each other, the empty one


def numbered_as_a_dict_would(table: IdTable, strings: list[str]) -> None:
    expected: dict[str, int] = {}
    for key in strings:
        assert table.add(key) == expected.setdefault(key, len(expected))
    assert len(table) == len(expected)
    for key, number in expected.items():
        assert table.get(key) == number
        assert key in table
        assert table[number] == key
    assert table.get("not added") == -1
    assert "not added" not in table


# the first entries sit in a dict: none there, some there and then packed, all there
FRONTS = pytest.mark.parametrize("front", [0, 100, 1 << 15])


@FRONTS
def test_numbers_strings_in_the_order_first_added(
    front: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(idtable, "_FRONT", front)
    numbered_as_a_dict_would(IdTable(), keys())


@FRONTS
def test_strings_whose_hashes_collide_stay_apart(
    front: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(idtable, "_FRONT", front)
    # every string in one probe chain: only their bytes tell them apart
    monkeypatch.setattr(idtable, "hash", lambda data: 7, raising=False)
    numbered_as_a_dict_would(IdTable(), keys()[:300])


def test_a_table_asked_for_an_entry_by_number_goes_on_numbering() -> None:
    table = IdTable()
    assert [table.add(key) for key in ("a", "b", "a")] == [0, 1, 0]
    assert table[1] == "b"  # the dict's entries packed here
    assert [table.add(key) for key in ("c", "b", "a")] == [2, 1, 0]
    assert (len(table), table.get("c"), table.get("d")) == (3, 2, -1)


@FRONTS
def test_a_table_rebuilt_from_its_parts_numbers_as_the_original_and_goes_on(
    front: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(idtable, "_FRONT", front)
    strings = keys()
    table = IdTable()
    for key in strings[:2000]:
        table.add(key)
    rebuilt = IdTable.from_parts(*table.parts())
    assert len(rebuilt) == len(table)
    assert [rebuilt[n] for n in range(len(table))] == [
        table[n] for n in range(len(table))
    ]
    for key in strings:  # lookups hash the old entries; new ones number on
        assert rebuilt.add(key) == table.add(key)
    assert rebuilt.get("not added") == -1


def test_parts_that_do_not_fit_together_are_refused() -> None:
    table = IdTable()
    table.add("abc")
    blob, ends = table.parts()
    with pytest.raises(ValueError):
        IdTable.from_parts(blob + b"x", ends)
    with pytest.raises(ValueError):
        IdTable.from_parts(blob, ends[:-1])  # not whole numbers
    with pytest.raises(ValueError):
        IdTable.from_parts(blob, b"")  # bytes that no entry holds


def test_uuids_are_kept_in_17_bytes_and_given_back_as_written() -> None:
    """A lower-case uuid is packed; one in capitals, with braces, or a 16-byte string
    that looks like a packed one is kept as it is: each comes back as it was added."""
    lower = "277aa9a1-6d9d-456e-9f48-4f6562d4838f"
    strings = [lower, lower.upper(), "{" + lower + "}", "\xff" * 16, lower[:-1] + "g"]
    table = IdTable()
    numbered_as_a_dict_would(table, [*strings, *strings])
    blob, _ = table.parts()
    assert len(blob) == 17 + 36 + 38 + 32 + 36  # the first uuid packed, the rest not
    assert [table[n] for n in range(len(strings))] == strings
