"""A JSON array read in pieces gives what parsing the document whole gives."""

from __future__ import annotations

import io
import json
import random

import orjson
import pytest

from sessdex import files
from sessdex.diagnostics import Diagnostics
from sessdex.jsonstream import CutShort, NotThisShape, array_items, object_members


def _value(draw: random.Random, depth: int = 0) -> object:
    kind = draw.choice(["str", "num", "lit", "list", "dict"] if depth < 4 else ["str"])
    if kind == "str":
        pieces = ['"', "\\", "\n", "é", "😀", "\u2028", "{", "]", ",", ":", "x" * 40]
        return "".join(draw.choice(pieces) for _ in range(draw.randint(0, 12)))
    if kind == "num":
        return draw.choice([0, -1, 3.5, 10**12, -2.5e-7])
    if kind == "lit":
        return draw.choice([True, False, None])
    if kind == "list":
        return [_value(draw, depth + 1) for _ in range(draw.randint(0, 4))]
    odd_names = ["", "\u00e9", '"', "\\"]
    return {
        "k" + str(n) + draw.choice(odd_names): _value(draw, depth + 1)
        for n in range(draw.randint(0, 4))
    }


def test_the_elements_are_the_parsed_document_s_for_any_layout_and_read_size(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    draw = random.Random(11)
    for trial in range(300):
        monkeypatch.setattr(files, "CHUNK", draw.choice([1, 2, 3, 7, 64, 4096]))
        items = [_value(draw) for _ in range(draw.randint(0, 8))]
        document: object = items
        key = None
        if draw.random() < 0.6:  # an object holding the array among other members
            key = "messages"
            before = {f"a{n}": _value(draw) for n in range(draw.randint(0, 3))}
            after = {"z": _value(draw)} if draw.random() < 0.5 else {}
            document = {**before, "messages": items, **after}
        text = json.dumps(
            document, indent=draw.choice([None, 2]), ensure_ascii=draw.random() < 0.5
        ).encode()
        if draw.random() < 0.2:
            text = b"\xef\xbb\xbf" + text
        assert list(array_items(io.BytesIO(text), key)) == items, trial


def test_the_members_past_the_array_are_the_parsed_document_s(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A big chat's other members (ledger, title, settings), wherever they sit around the
    message array it passes over, are what parsing the whole document gives."""
    draw = random.Random(12)
    for trial in range(300):
        monkeypatch.setattr(files, "CHUNK", draw.choice([1, 2, 3, 7, 64, 4096]))
        document = {
            f"k{n}" + draw.choice(["", "\u00e9", '"', "\\", "\n"]): _value(draw)
            for n in range(draw.randint(0, 5))
        }
        if draw.random() < 0.7:
            items = [_value(draw) for _ in range(draw.randint(0, 8))]
            at = draw.randint(0, len(document))
            pairs = list(document.items())
            document = dict([*pairs[:at], ("messages", items), *pairs[at:]])
        text = json.dumps(
            document, indent=draw.choice([None, 2]), ensure_ascii=draw.random() < 0.5
        ).encode()
        expected = {k: v for k, v in document.items() if k != "messages"}
        got = object_members(io.BytesIO(text), frozenset({"messages"}))
        assert got == expected, trial


def test_a_member_too_long_is_elided_or_left_out_and_counted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(files, "CHUNK", 1000)
    monkeypatch.setattr(files, "READ_LINE_CAP", 10_000)
    monkeypatch.setattr(files, "COMPACT_CAP", 5_000)
    document = {
        "id": "c1",
        "icon": "A" * 200_000,
        "many": ["x"] * 5000,
        "messages": [{"n": 1}],
        "title": "t",
    }
    diagnostics = Diagnostics()
    got = object_members(
        io.BytesIO(orjson.dumps(document)),
        frozenset({"messages"}),
        diagnostics=diagnostics,
    )
    assert set(got) == {"id", "icon", "title"}
    elided = files.elided(str(got["icon"]))
    assert elided is not None and elided[0] == 200_000
    assert diagnostics.skipped == {"too long": 1}


@pytest.mark.parametrize(
    "text", [b"", b"[]", b'{"a" 1}', b'{"a": 1 "b": 2}', b"{3: 1}", b'{"a": [1}']
)
def test_an_object_not_laid_out_so_says_so(text: bytes) -> None:
    with pytest.raises(NotThisShape):
        object_members(io.BytesIO(text))


def test_an_element_too_long_is_elided_or_passed_over_and_counted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(files, "CHUNK", 1000)
    monkeypatch.setattr(files, "READ_LINE_CAP", 10_000)
    image = "A" * 200_000
    document = {"id": "c1", "messages": [{"n": 1}, {"n": 2, "image": image}, {"n": 3}]}
    found = list(array_items(io.BytesIO(orjson.dumps(document)), "messages"))
    assert [item["n"] for item in found] == [1, 2, 3]  # type: ignore[index]
    elided = files.elided(found[1]["image"])  # type: ignore[index]
    assert elided is not None and elided[0] == 200_000
    monkeypatch.setattr(files, "COMPACT_CAP", 100)  # even elided, too long: passed over
    many = [{"n": 1}, {"n": 2, "many": ["x"] * 5000}, {"n": 3}]
    diagnostics = Diagnostics()
    found = list(array_items(io.BytesIO(orjson.dumps(many)), diagnostics=diagnostics))
    assert [item["n"] for item in found] == [1, 3]  # type: ignore[index]
    assert diagnostics.skipped == {"too long": 1}


@pytest.mark.parametrize(
    "text", [b"", b"{}", b'{"messages": 3}', b'{"a": [1}', b"[1, 2", b"[1 2]"]
)
def test_a_document_not_laid_out_so_says_so(text: bytes) -> None:
    key = "messages" if text.startswith(b"{") else None
    with pytest.raises(NotThisShape):
        list(array_items(io.BytesIO(text), key))


def test_a_document_cut_short_keeps_the_elements_before_the_cut() -> None:
    """A chat being rewritten, read half-way: what ended before the cut is kept."""
    stream = io.BytesIO(b'{"id": "c", "messages": [{"n": 1}, {"n": 2}, {"n": 3')
    found: list[object] = []
    with pytest.raises(NotThisShape):
        found.extend(array_items(stream, "messages"))
    assert found == [{"n": 1}, {"n": 2}]


def test_a_document_cut_anywhere_gives_what_ended_before_the_cut_and_no_more(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A chat cut at any byte (a write stopped half way): the elements and the members
    given are the document's own, none made of a cut value (1000000000000 cut to 100),
    and the stop is a cut, not a document laid out otherwise, past the array too."""
    draw = random.Random(13)
    for trial in range(25):
        monkeypatch.setattr(files, "CHUNK", draw.choice([2, 7, 4096]))
        items = [_value(draw) for _ in range(draw.randint(1, 5))]
        before = {f"a{n}": _value(draw) for n in range(draw.randint(0, 3))}
        document = {**before, "messages": items, "z": _value(draw)}
        text = json.dumps(document, indent=draw.choice([None, 2])).encode()
        for end in range(1, len(text)):
            cut = text[:end]
            found: list[object] = []
            with pytest.raises(CutShort):  # past the array too: its document is cut
                found.extend(array_items(io.BytesIO(cut), "messages"))
            assert found == items[: len(found)], (trial, end)
            with pytest.raises(CutShort) as raised:
                object_members(io.BytesIO(cut), frozenset({"messages"}))
            members = raised.value.members
            assert members == {k: document[k] for k in members}, (trial, end)
            assert (
                list(members)
                == [k for k in document if k != "messages"][: len(members)]
            )


def test_memory_stays_with_one_element_not_the_document() -> None:
    """A 30 MB chat of 100 KB messages, read to the end: the peak stays near one read
    and one message, far below the document."""
    import tracemalloc

    message = {"type": "user", "content": "x" * 100_000}
    document = orjson.dumps({"id": "c", "messages": [message] * 300})
    assert len(document) > 30_000_000
    count = 0
    tracemalloc.start()
    try:
        for item in array_items(io.BytesIO(document), "messages"):
            count += 1
            del item
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == 300
    assert peak < 4 * files.CHUNK


# Bytes that end an element in one layout or another, and what is hard to tell from them
# inside a string: brackets, escaped quotes, runs of backslashes before a quote, escapes.
_TRICKY = ["},{", "}, {", "],[", '\\"', "\\\\", '\\\\"', "\\u0041", "{", "}", "[", "]",
           ",", '"', "\n", "é", "😀", "\ud800", "x" * 30]  # fmt: skip
_PARTINGS = [",", ", ", ",\n    ", " ,\n\t", ",\n  "]


def _tricky(draw: random.Random, depth: int = 0) -> object:
    """A value whose strings hold what separates elements, nested arrays and objects."""
    kind = draw.choice(["str", "num", "list", "dict", "dict"] if depth < 3 else ["str"])
    if kind == "str":
        return "".join(draw.choice(_TRICKY) for _ in range(draw.randint(0, 6)))
    if kind == "num":
        return draw.choice([0, -7, 1.5e300, True, None])
    if kind == "list":
        return [_tricky(draw, depth + 1) for _ in range(draw.randint(0, 3))]
    # names mostly alike, as one program writes them
    name = (
        draw.choice(["id", 'q"', "\\", "é", "x" * 40]) if draw.random() < 0.2 else "k"
    )
    return {f"{name}{n}": _tricky(draw, depth + 1) for n in range(draw.randint(0, 3))}


def _tricky_document(draw: random.Random) -> tuple[bytes, list[bytes], list[int], str]:
    """A chat's array as some program wrote it: each element's bytes, where each ends in
    the document, and the key it sits under ("" for none)."""
    layout = draw.choice([{"indent": 2}, {"indent": None}, {"separators": (",", ":")}])
    same = draw.random() < 0.7  # one program parts elements alike
    parting = draw.choice(_PARTINGS)
    elements = [
        json.dumps(
            # mostly messages, as a chat holds, and now and then anything
            {f"k{n}": _tricky(draw, 2) for n in range(draw.randint(1, 4))}
            if draw.random() < 0.8
            else _tricky(draw, 1),
            ensure_ascii=draw.random() < 0.5,
            **layout,  # type: ignore[arg-type]
        ).encode("utf-8", "surrogatepass")
        for _ in range(draw.randint(0, 16))
    ]
    key = draw.choice(["", "messages"])
    text = b'{"id": "c", "messages": [' if key else b"["
    ends = []
    for n, element in enumerate(elements):
        if n:
            text += (parting if same else draw.choice(_PARTINGS)).encode()
        text += element
        ends.append(len(text))
    text += b"]" + (b', "summary": "},{"}' if key else b"")
    return text, elements, ends, key


def test_each_element_ends_where_a_parse_of_it_ends_whatever_its_strings_hold(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Elements whose strings hold the bytes that part them (`},{`, an escaped quote,
    a backslash run before a quote, a lone surrogate to repair), read at any size: each
    is its own bytes decoded, none cut early or run on into the next."""
    draw = random.Random(29)
    for trial in range(1500):
        text, elements, _, key = _tricky_document(draw)
        size = draw.choice([len(text) + 1, 4096, 512, 61])
        monkeypatch.setattr(files, "CHUNK", size)
        diagnostics = Diagnostics()
        found = list(
            array_items(io.BytesIO(text), key or None, diagnostics=diagnostics)
        )
        assert found == [files.loads(element) for element in elements], (trial, text)
        assert not diagnostics.skipped, trial


def test_a_document_cut_anywhere_gives_the_elements_that_ended_before_the_cut(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Cut at any byte, with strings holding the bytes that part elements: exactly the
    elements known whole before the cut are given, then the cut is said."""
    draw = random.Random(31)
    for trial in range(30):
        monkeypatch.setattr(files, "CHUNK", draw.choice([1 << 20, 256]))
        text, elements, ends, key = _tricky_document(draw)
        for cut in range(1, ends[-1] if ends else 1):
            found: list[object] = []
            with pytest.raises(CutShort):
                found.extend(array_items(io.BytesIO(text[:cut]), key or None))
            # a number or a literal ends at the byte after it (12 may be 1234)
            whole = sum(
                end < cut or (end == cut and e[:1] in b'[{"')
                for e, end in zip(elements, ends, strict=True)
            )
            assert found == [files.loads(e) for e in elements[:whole]], (trial, cut)


def test_elements_holding_objects_parted_as_they_are_are_still_read_exactly() -> None:
    """A compact chat whose messages hold lists of objects that begin as a message does
    (`},{"n":` inside each, more times than are tried): each is found whole."""
    pasted = json.dumps([{"n": n} for n in range(20)], separators=(",", ":"))
    inner = [{"n": n, "more": [{"n": 0}, {"n": 1}]} for n in range(6)]
    items = [{"n": n, "text": pasted, "meta": inner[: n % 7]} for n in range(300)]
    text = json.dumps({"messages": items}, separators=(",", ":")).encode()
    assert list(array_items(io.BytesIO(text), "messages")) == items


@pytest.mark.parametrize("chunk", [3, 7, 64 * 1024])
@pytest.mark.parametrize("bom", [b"", files.BOM])
def test_a_cursor_says_where_each_element_starts(chunk: int, bom: bytes) -> None:
    """Each element's offset in the stream, a byte order mark counted, however the
    chunks cut it: where a reader goes back to an elided element's opening."""
    from sessdex.jsonstream import Cursor

    document = bom + b'[ {"a": 1},\n  {"b": "two"} ,{"c": [3]}, 4]'
    cursor = Cursor()
    starts = []
    for _ in array_items(io.BytesIO(document), chunk=chunk, cursor=cursor):
        starts.append(cursor.start)
    assert [document[s : s + 4] for s in starts] == [b'{"a"', b'{"b"', b'{"c"', b"4]"]
