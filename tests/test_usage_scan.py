"""The usage scanner's byte search: it finds every marked line, whatever the chunking, and
reads a marked line too long to hold with its long strings elided, keeping its usage."""

from __future__ import annotations

import random
from pathlib import Path

import orjson
import pytest

from sessdex import files
from sessdex.diagnostics import Diagnostics
from sessdex.sources import _usage_scan
from sessdex.sources._usage_scan import MarkedLines

MARK = b'"usage":{'


@pytest.fixture(autouse=True)
def small_sizes(monkeypatch: pytest.MonkeyPatch) -> None:
    # the same code paths as 4 MB chunks, a 4 MB line and 64 kB strings, on a few bytes
    monkeypatch.setattr(_usage_scan, "CHUNK", 7)
    monkeypatch.setattr(_usage_scan, "LINE_LIMIT", 40)
    monkeypatch.setattr(files, "KEEP_STRING", 20)


def usage(n: int) -> bytes:
    return b'{"n":%d,"usage":{"in":%d}}' % (n, n)


def answer(n: int, length: int = 200) -> bytes:
    """A long answer: Claude Code writes its usage after the content, at the line's end."""
    return b'{"content":"%s","usage":{"in":%d}}' % (b"A" * length, n)


def write(path: Path, *lines: bytes, end: bytes = b"\n") -> Path:
    path.write_bytes(b"\n".join(lines) + end)
    return path


def test_every_marked_line_is_found_once_with_its_number(tmp_path: Path) -> None:
    path = write(
        tmp_path / "a.jsonl", usage(1), b'{"plain":1}', b"", usage(2), usage(3)
    )
    scan = MarkedLines(path, (MARK,))
    assert [(n, data, complete) for n, data, complete in scan] == [
        (1, usage(1), True),
        (4, usage(2), True),
        (5, usage(3), True),
    ]
    assert scan.offset == path.stat().st_size and scan.line == 6


def test_a_long_marked_line_is_read_with_its_long_strings_elided(
    tmp_path: Path,
) -> None:
    unmarked = b'{"image":"' + b"B" * 200 + b'"}'
    path = write(
        tmp_path / "a.jsonl", usage(1), answer(7), usage(2), unmarked, answer(8)
    )
    diagnostics = Diagnostics()
    scan = MarkedLines(path, (MARK,), diagnostics=diagnostics)
    found = list(scan)
    assert [(n, complete) for n, _, complete in found] == [
        (1, True),
        (2, True),
        (3, True),
        (5, True),
    ]
    long = orjson.loads(found[1][1])
    assert long["usage"] == {"in": 7}
    assert files.elided(long["content"]) == (200, "A" * 21)
    assert orjson.loads(found[3][1])["usage"] == {"in": 8}
    assert not diagnostics.skipped
    assert scan.offset == path.stat().st_size and scan.line == 6


@pytest.mark.parametrize("end", [b"\n", b""])
def test_a_marker_cut_by_a_chunk_edge_in_a_long_line_is_still_seen(
    tmp_path: Path, end: bytes
) -> None:
    for pad in range(2 * _usage_scan.CHUNK):  # the marker at each place in a chunk
        line = b"{" + b'"x":1,' * 10 + b" " * pad + MARK + b'"in":1}}'
        path = write(tmp_path / "a.jsonl", line, end=end)
        found = list(MarkedLines(path, (MARK,)))
        assert [(data, complete) for _, data, complete in found] == [
            (line, bool(end))
        ], pad


def test_a_long_line_that_stays_too_long_is_counted_and_passed_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(files, "COMPACT_CAP", 60)
    many = b"{" + b'"x":1,' * 30 + b'"usage":{"in":1}}'  # no long string to elide
    path = write(tmp_path / "a.jsonl", usage(1), many, usage(2))
    diagnostics = Diagnostics()
    assert [n for n, _, _ in MarkedLines(path, (MARK,), diagnostics=diagnostics)] == [
        1,
        3,
    ]
    assert diagnostics.details == [(str(path), 2, "too long")]


def test_a_scan_resumes_where_it_stopped_and_leaves_a_partial_line(
    tmp_path: Path,
) -> None:
    path = write(tmp_path / "a.jsonl", usage(1), usage(2))
    first = MarkedLines(path, (MARK,))
    assert [n for n, _, _ in first] == [1, 2]
    with path.open("ab") as stream:  # the app appends a line, and starts another
        stream.write(usage(3) + b"\n" + usage(4)[:10])
    again = MarkedLines(path, (MARK,), offset=first.offset, line=first.line)
    assert list(again) == [(3, usage(3), True)]  # the unfinished one has no marker yet
    assert again.offset == path.stat().st_size - 10 and again.line == 4
    with path.open("ab") as stream:
        stream.write(usage(4)[10:])  # finished, but with no newline yet
    last = MarkedLines(path, (MARK,), offset=again.offset, line=again.line)
    assert list(last) == [(4, usage(4), False)]
    assert last.offset == again.offset  # read again once its newline is there


def test_a_long_line_still_being_written_is_read_again_from_its_start(
    tmp_path: Path,
) -> None:
    path = write(tmp_path / "a.jsonl", usage(1))
    with path.open("ab") as stream:
        stream.write(answer(2)[:-3])
    first = MarkedLines(path, (MARK,))
    found = list(first)
    assert [(n, complete) for n, _, complete in found] == [(1, True), (2, False)]
    assert first.offset == len(usage(1)) + 1 and first.line == 2
    with path.open("ab") as stream:
        stream.write(answer(2)[-3:] + b"\n" + usage(3) + b"\n")
    again = MarkedLines(path, (MARK,), offset=first.offset, line=first.line)
    found = list(again)
    assert [(n, complete) for n, _, complete in found] == [(2, True), (3, True)]
    assert orjson.loads(found[0][1])["usage"] == {"in": 2}
    assert again.offset == path.stat().st_size and again.line == 4


def test_a_big_file_is_read_holding_about_two_chunks_not_four(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tracemalloc

    monkeypatch.setattr(_usage_scan, "CHUNK", 256 * 1024)
    monkeypatch.setattr(_usage_scan, "LINE_LIMIT", 64 * 1024)
    plain = b'{"text":"' + b"x" * 1000 + b'"}'
    path = write(tmp_path / "a.jsonl", *([plain] * 99 + [usage(1)]) * 80)  # 8 MB
    tracemalloc.start()
    try:
        found = sum(1 for _ in MarkedLines(path, (MARK,)))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert found == 80
    assert peak < 2.5 * _usage_scan.CHUNK


@pytest.mark.parametrize("chunk", [16, 64, 1 << 20])
def test_a_line_named_unnumbered_has_the_number_a_numbered_read_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    """`usage` numbers no lines unless it explains; a line it must name (read with
    damage) is numbered then: the same number a numbered read gives, for lines alike,
    a line in a later chunk, one over the long-line limit and an unfinished last one."""
    monkeypatch.setattr(_usage_scan, "CHUNK", chunk)
    monkeypatch.setattr(_usage_scan, "LINE_LIMIT", 48)
    alike = b'{"usage":{"t":"\xff"}}'
    lines = [b"{}", alike, b'{"usage":{}}', b"", alike, b"{}" * 9, alike]
    lines += [b'{"usage":{"t":"\xff","p":"' + b"x" * 80 + b'"}}', b'{"usage":{"\xff"']
    path = tmp_path / "a.jsonl"
    path.write_bytes(b"\n".join(lines))
    numbered = [
        n for n, data, _ in MarkedLines(path, (b'"usage":{',)) if b"\xff" in data
    ]
    assert numbered == [2, 5, 7, 8, 9]
    marked = MarkedLines(path, (b'"usage":{',), numbered=False)
    named = [marked.number(n, data) for n, data, _ in marked if b"\xff" in data]
    assert named == numbered


SIDE = b'"isSidechain":true'


def _mixed_line(rng: random.Random, n: int) -> bytes:
    """A line with the first marker, the second, both, or neither, short or long."""
    parts = [b'{"n":%d' % n]
    if rng.random() < 0.4:
        parts.append(SIDE)
    if rng.random() < 0.3:
        parts.append(b'"text":"%s"' % (b"x" * rng.choice([0, 5, 60, 300])))
    if rng.random() < 0.5:
        parts.append(b'"usage":{"in":%d}' % n)
    if rng.random() < 0.2:
        parts.append(SIDE)  # after the usage, as a side chain's answer writes it
    return b",".join(parts) + b"}"


@pytest.mark.parametrize("seed", range(40))
def test_first_marked_is_whether_the_line_given_holds_the_first_marker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    # any chunk size, lines over the limit, CRLF, a last line without its newline: where
    # the scan says whether the line holds the first marker, a search of it says the same
    rng = random.Random(seed)
    monkeypatch.setattr(_usage_scan, "CHUNK", rng.choice([1, 2, 7, 33, 100, 4096]))
    monkeypatch.setattr(_usage_scan, "LINE_LIMIT", rng.choice([40, 120, 100_000]))
    newline = rng.choice([b"\n", b"\r\n"])
    lines = [_mixed_line(rng, n) for n in range(rng.randrange(1, 60))]
    end = rng.choice([newline, b""])
    path = write(tmp_path / "t.jsonl", *lines, end=end)
    path.write_bytes(path.read_bytes().replace(b"\n", newline))
    marked = MarkedLines(path, (b'"usage":', SIDE))
    said = [(data, marked.first_marked) for _, data, _ in marked]
    assert said or not any(b'"usage":' in line or SIDE in line for line in lines)
    for data, first in said:
        assert first is None or first == (b'"usage":' in data), (data, first)
    assert marked.first_marked is None  # after the loop: nothing given
