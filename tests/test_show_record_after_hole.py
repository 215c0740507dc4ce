"""A crash that leaves a record cut and the blocks after it never stored (a true hole,
not written zeros), the app's next record written straight after the hole, on the same
line: `list`, `show`, `show --tail` and `usage` all read that record, as they read the
file without the cut record; `show` and `usage` say one line holding NUL bytes, and
`list` too where its listing reads that line (Claude's reply: its model and time)."""

from __future__ import annotations

import io
import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import files
from sessdex.cli import main
from tests.helpers import write_claude_session

DATA = Path(__file__).parent / "data"
CODEX_ID = "01a22b81-6e0b-7650-ac72-188ccaa967c5"
CODEX_ROLLOUT = (
    ".codex/sessions/2026/11/30/rollout-2026-11-30T08-10-32-" + CODEX_ID + ".jsonl"
)
CLAUDE_ID = "hhhhhhhh-0000-4000-8000-0000000000a1"
SAID = "read 1 line holding NUL bytes"
# within a listing's head and tail reads, and past both (64 MB: never stored, never read)
HOLES = [16 * 1024, 64 * 1024 * 1024]


def invoke(home: Path, *args: str) -> tuple[object, str]:
    """(the JSON printed, stderr) of a sessdex command that succeeded."""
    result = CliRunner().invoke(
        main, [*args, "--json", "--home", str(home)], catch_exceptions=False
    )
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout), result.stderr


def views(home: Path, sid: str) -> tuple[dict[str, object], dict[str, str]]:
    """What list, show, show --tail and usage make of the session (less its file's name
    and size), and what each said on stderr."""
    said: dict[str, str] = {}
    [listed], said["list"] = invoke(home, "list", "--all")  # type: ignore[misc]
    assert isinstance(listed, dict)
    del listed["bytes"], listed["path"]
    shown, said["show"] = invoke(home, "show", sid)
    tail, said["tail"] = invoke(home, "show", sid, "--tail", "3")
    assert isinstance(tail, list)
    # a big file's tail is read from near its end: numbered there, and a model named
    # before it unknown; what each event says is the same
    tail = [(e["kind"], e["time"], e["text"], e["call_id"]) for e in tail]
    usage, said["usage"] = invoke(home, "usage", "session")
    return {"list": listed, "show": shown, "tail": tail, "usage": usage}, said


def cut_at_hole(path: Path, number: int, hole: int) -> None:
    """Line `number` (from 1) of `path` cut in half by a crash, the blocks after it
    never stored (`hole` bytes, seeked past), the next line written after them."""
    lines = path.read_bytes().split(b"\n")
    before = b"".join(line + b"\n" for line in lines[: number - 1])
    torn = lines[number - 1][: len(lines[number - 1]) // 2]
    with path.open("wb") as stream:
        stream.write(before + torn)
        stream.seek(-(-(stream.tell() + hole) // 4096) * 4096)  # the next block's
        stream.write(b"\n".join(lines[number:]))
    if os.stat(path).st_blocks * 512 >= os.stat(path).st_size:
        pytest.skip("this file system stores no hole")


def cut_twice_at_holes(path: Path, number: int, hole: int) -> None:
    """As `cut_at_hole`, a piece more of the line (no record's start) written after the
    first hole and the rest of it lost in a second: two holes on one line."""
    lines = path.read_bytes().split(b"\n")
    before = b"".join(line + b"\n" for line in lines[: number - 1])
    cut = lines[number - 1]
    with path.open("wb") as stream:
        stream.write(before + cut[: len(cut) // 3])
        for piece in (cut[len(cut) // 3 : len(cut) // 2], b"\n".join(lines[number:])):
            stream.seek(-(-(stream.tell() + hole) // 4096) * 4096)
            stream.write(piece)
    if os.stat(path).st_blocks * 512 >= os.stat(path).st_size:
        pytest.skip("this file system stores no hole")


def without_line(path: Path, number: int) -> None:
    lines = path.read_bytes().split(b"\n")
    path.write_bytes(b"\n".join(lines[: number - 1] + lines[number:]))


def agree(
    tmp_path: Path,
    sid: str,
    make: Callable[[Path], Path],
    number: int,
    hole: int,
    cut: Callable[[Path, int, int], None] = cut_at_hole,
) -> dict[str, str]:
    """`make(home)` writes the session's transcript; line `number` of it cut at a hole
    reads as the transcript without that line, in every command."""
    clean, damaged = tmp_path / "clean", tmp_path / "damaged"
    without_line(make(clean), number)
    cut(make(damaged), number, hole)
    expected, _ = views(clean, sid)
    got, said = views(damaged, sid)
    assert got == expected
    for command, words in said.items():
        assert "unreadable" not in words, command
    for command in ("show", "usage"):
        assert SAID in said[command], command
    return said


@pytest.mark.parametrize("hole", HOLES)
def test_claude_record_after_a_hole_is_read_by_every_command(
    tmp_path: Path, hole: int
) -> None:
    """The hole cuts the user's prompt; the reply after it is listed, shown, counted."""

    def make(home: Path) -> Path:
        return write_claude_session(home, CLAUDE_ID, "/w/hole")

    said = agree(tmp_path, CLAUDE_ID, make, 1, hole)
    assert SAID in said["list"]


@pytest.mark.parametrize("hole", HOLES)
def test_claude_record_after_a_hole_that_cut_a_long_line_is_read(
    tmp_path: Path, hole: int
) -> None:
    """The prompt the hole cuts is a paste of 10 MB: 5 MB of it before the hole, over
    what a reader holds of a line (4 MB), read through without being held."""

    def make(home: Path) -> Path:
        prompt = "x" * (10 * 1024 * 1024)
        return write_claude_session(home, CLAUDE_ID, "/w/hole", prompt=prompt)

    said = agree(tmp_path, CLAUDE_ID, make, 1, hole)
    assert SAID in said["list"]


@pytest.mark.parametrize("hole", HOLES)
@pytest.mark.parametrize("prompt", [0, 10 * 1024 * 1024])
def test_claude_record_after_a_second_hole_in_the_line_is_read(
    tmp_path: Path, hole: int, prompt: int
) -> None:
    """The prompt's line is cut by a hole, a piece more of it written after that hole
    and the rest lost in a second one; the reply glued to the second hole is read by
    every command (`show` and `usage` passed over it with the line, `list` read it)."""

    def make(home: Path) -> Path:
        text = "x" * prompt if prompt else "fix the login"
        return write_claude_session(home, CLAUDE_ID, "/w/hole", prompt=text)

    said = agree(tmp_path, CLAUDE_ID, make, 1, hole, cut_twice_at_holes)
    assert SAID in said["list"]


@pytest.mark.parametrize("hole", HOLES)
def test_codex_record_after_a_hole_is_read_by_every_command(
    tmp_path: Path, hole: int
) -> None:
    source = (DATA / "codex/home" / CODEX_ROLLOUT).read_bytes()
    lines = source.split(b"\n")
    counted = next(i for i, line in enumerate(lines, 1) if b'"token_count"' in line)

    def make(home: Path) -> Path:
        rollout = home / CODEX_ROLLOUT
        rollout.parent.mkdir(parents=True)
        rollout.write_bytes(source)
        return rollout

    agree(tmp_path, CODEX_ID, make, counted - 1, hole)


def test_following_from_inside_the_hole_reads_the_record_glued_to_it(
    tmp_path: Path,
) -> None:
    """`watch` and `follow` start a window back from a big file's end and pass over the
    line they start inside; one that a hole cut goes on with the record after it."""
    from sessdex.follow import Follower

    path = tmp_path / "a.jsonl"
    with open(path, "wb") as stream:
        stream.write(b'{"n":1}\n{"n":2,"cu')
        stream.seek(HOLES[-1], os.SEEK_CUR)
        stream.write(b'{"n":3}\n{"n":4}\n')
    if os.stat(path).st_blocks * 512 >= os.stat(path).st_size:
        pytest.skip("this file system stores no hole")
    follower = Follower(path, offset=1024)  # inside the hole
    follower.check()
    read = [files.loads_repaired(line.data) for line in follower.lines()]
    assert read == [({"n": 3}, True), ({"n": 4}, False)]


def small_hole_after_cut_line(path: Path) -> None:
    """A record cut after 5,000 bytes, a hole of 16 KB (less than one read) after it,
    the next two records glued to the hole."""
    with open(path, "wb") as stream:
        stream.write(b'{"n":1}\n{"n":2,"cut":"' + b"c" * 5000)
        stream.seek(-(-(stream.tell() + HOLES[0]) // 4096) * 4096)
        stream.write(b'{"n":3}\n{"n":4}\n')
    if os.stat(path).st_blocks * 512 >= os.stat(path).st_size:
        pytest.skip("this file system stores no hole")


def test_following_from_the_cut_line_reads_the_record_glued_to_the_hole(
    tmp_path: Path,
) -> None:
    """A window that starts in the cut line, before a hole smaller than a read: the
    record glued to the hole is read, as from inside the hole. One read took the hole's
    NULs and that record as more of the cut line: the record was passed over with it."""
    from sessdex.follow import Follower

    path = tmp_path / "a.jsonl"
    small_hole_after_cut_line(path)
    follower = Follower(path, offset=20)  # in the cut line
    follower.check()
    read = [files.loads_repaired(line.data) for line in follower.lines()]
    assert read == [({"n": 3}, True), ({"n": 4}, False)]


def test_a_tail_window_from_the_cut_line_starts_at_the_record_glued_to_the_hole(
    tmp_path: Path,
) -> None:
    """`show --tail` reads a big file from the line after where its window starts
    (`line_start`): from the cut line, that is the record glued to the hole, where every
    reader reads it from (the hole's last byte); it was the record after it."""
    path = tmp_path / "a.jsonl"
    small_hole_after_cut_line(path)
    with files.open_binary(path) as stream:
        glued = [line.offset for line in files.iter_lines(stream)][1]
    assert files.line_start(path, 20) == glued


# written zeros (real NUL bytes, stored) after the hole, before the record glued to it:
# more than a probe of them (64 KB) hid the record from every reader
ZEROS = 200 * 1024


def cut_at_hole_then_zeros(path: Path, number: int, hole: int) -> None:
    """As `cut_at_hole`, the blocks after the hole written as zeros (ZEROS bytes)
    before the next line: a crash that left both a hole and preallocated zeros."""
    lines = path.read_bytes().split(b"\n")
    before = b"".join(line + b"\n" for line in lines[: number - 1])
    torn = lines[number - 1][: len(lines[number - 1]) // 2]
    with path.open("wb") as stream:
        stream.write(before + torn)
        stream.seek(-(-(stream.tell() + hole) // 4096) * 4096)
        stream.write(b"\x00" * ZEROS + b"\n".join(lines[number:]))
    if os.stat(path).st_blocks * 512 >= os.stat(path).st_size:
        pytest.skip("this file system stores no hole")


@pytest.mark.parametrize("hole", HOLES)
def test_claude_record_after_a_hole_and_many_zeros_is_read_by_every_command(
    tmp_path: Path, hole: int
) -> None:
    """200 KB of written zeros between the hole and the reply: the reply is listed,
    shown, counted, as after a hole alone."""

    def make(home: Path) -> Path:
        return write_claude_session(home, CLAUDE_ID, "/w/hole")

    said = agree(tmp_path, CLAUDE_ID, make, 1, hole, cut_at_hole_then_zeros)
    assert SAID in said["list"]


@pytest.mark.parametrize("hole", HOLES)
def test_codex_record_after_a_hole_and_many_zeros_is_read_by_every_command(
    tmp_path: Path, hole: int
) -> None:
    source = (DATA / "codex/home" / CODEX_ROLLOUT).read_bytes()
    lines = source.split(b"\n")
    counted = next(i for i, line in enumerate(lines, 1) if b'"token_count"' in line)

    def make(home: Path) -> Path:
        rollout = home / CODEX_ROLLOUT
        rollout.parent.mkdir(parents=True)
        rollout.write_bytes(source)
        return rollout

    agree(tmp_path, CODEX_ID, make, counted - 1, hole, cut_at_hole_then_zeros)


def test_following_from_inside_the_hole_reads_the_record_after_many_zeros(
    tmp_path: Path,
) -> None:
    """`follow` from inside a hole that 200 KB of written zeros end: the record glued
    to them is read."""
    from sessdex.follow import Follower

    path = tmp_path / "a.jsonl"
    with open(path, "wb") as stream:
        stream.write(b'{"n":1}\n{"n":2,"cu')
        stream.seek(HOLES[-1], os.SEEK_CUR)
        stream.write(b"\x00" * ZEROS + b'{"n":3}\n{"n":4}\n')
    if os.stat(path).st_blocks * 512 >= os.stat(path).st_size:
        pytest.skip("this file system stores no hole")
    follower = Follower(path, offset=1024)  # inside the hole
    follower.check()
    read = [files.loads_repaired(line.data) for line in follower.lines()]
    assert read == [({"n": 3}, True), ({"n": 4}, False)]


def test_a_tail_window_from_the_cut_line_starts_at_the_record_after_many_zeros(
    tmp_path: Path,
) -> None:
    """`line_start` from the cut line: the record after the hole and its zeros."""
    path = tmp_path / "a.jsonl"
    with open(path, "wb") as stream:
        stream.write(b'{"n":1}\n{"n":2,"cut":"' + b"c" * 5000)
        stream.seek(-(-(stream.tell() + HOLES[0]) // 4096) * 4096)
        stream.write(b"\x00" * ZEROS + b'{"n":3}\n{"n":4}\n')
    if os.stat(path).st_blocks * 512 >= os.stat(path).st_size:
        pytest.skip("this file system stores no hole")
    with files.open_binary(path) as stream:
        glued = [line.offset for line in files.iter_lines(stream)][1]
    assert files.line_start(path, 20) == glued


class _Counted(io.FileIO):
    """A file that counts the bytes read from it."""

    read_bytes = 0

    def read(self, size: int = -1, /) -> bytes:
        data = super().read(size)
        self.read_bytes += len(data)
        return data


def test_many_holes_each_with_zeros_after_it_are_read_once(tmp_path: Path) -> None:
    """A cut line of 60 holes, each followed by more than a probe of written zeros, and
    no record after them: each hole looked through the zeros to the end of them all, a
    28 MB file took 6 s (a 2 GB one, hours); the file is read about once."""
    path = tmp_path / "a.jsonl"
    with open(path, "wb") as stream:
        stream.write(b'{"n":1}\n{"n":2,"cu')
        for _ in range(60):
            stream.seek(-(-(stream.tell() + 65536) // 4096) * 4096)
            stream.write(b"\x00" * (70 * 1024))
        stream.write(b'x\n{"n":3}\n')
    if os.stat(path).st_blocks * 512 >= os.stat(path).st_size:
        pytest.skip("this file system stores no hole")
    with _Counted(path) as stream:
        read = [line.data for line in files.iter_lines(stream)]  # type: ignore[arg-type]
        assert read == [b'{"n":1}', b'{"n":3}']
        assert stream.read_bytes < 3 * os.stat(path).st_size


@pytest.mark.parametrize("seed", range(8))
def test_every_reader_starts_the_glued_record_at_one_byte(
    tmp_path: Path, seed: int
) -> None:
    """Random layouts of holes and runs of written zeros (about a probe long, each side
    of it) after a cut line: `iter_lines`, `line_start` and `follow` from inside the cut
    line give the record after them the same line, from the same byte."""
    import random

    from sessdex.follow import Follower

    rng = random.Random(seed)
    path = tmp_path / "a.jsonl"
    with open(path, "wb") as stream:
        stream.write(b'{"n":1}\n{"n":2,"cut":"' + b"c" * rng.randrange(10, 9000))
        for _ in range(rng.randrange(1, 4)):
            hole = rng.choice(HOLES[:1] * 3 + [1 << 20])
            stream.seek(-(-(stream.tell() + hole) // 4096) * 4096)  # to a block's start
            probe = files.RECORD_PROBE
            stream.write(b"\x00" * rng.choice([0, 5, probe - 1, probe, probe + 7]))
        stream.write(b'{"n":3}\n{"n":4}\n')
    if os.stat(path).st_blocks * 512 >= os.stat(path).st_size:
        pytest.skip("this file system stores no hole")
    with files.open_binary(path) as stream:
        lines = list(files.iter_lines(stream))
    assert [files.loads_repaired(line.data)[0] for line in lines] == [
        {"n": 1},
        {"n": 3},
        {"n": 4},
    ]
    glued = lines[1].offset
    assert files.line_start(path, 20) == glued
    follower = Follower(path, offset=20)  # inside the cut line
    follower.check()
    followed = list(follower.lines())
    assert [line.offset for line in followed] == [glued, lines[2].offset]


# written zeros alone (no hole) between a cut line and the next record, more than a
# listing holds of a line (256 KB) and more than `show` holds (4 MB)
ZEROS_ALONE = [300 * 1024, 5 * 1024 * 1024]


def cut_then_zeros(path: Path, number: int, zeros: int) -> None:
    """Line `number` of `path` cut in half by a crash, `zeros` bytes of written zeros
    (preallocated, stored) after it, the next line written after them."""
    lines = path.read_bytes().split(b"\n")
    before = b"".join(line + b"\n" for line in lines[: number - 1])
    torn = lines[number - 1][: len(lines[number - 1]) // 2]
    path.write_bytes(before + torn + b"\x00" * zeros + b"\n".join(lines[number:]))


@pytest.mark.parametrize("zeros", ZEROS_ALONE)
def test_claude_record_after_many_written_zeros_is_read_by_every_command(
    tmp_path: Path, zeros: int
) -> None:
    """300 KB (over a listed line) or 5 MB (over a shown line) of written zeros after
    the cut prompt: the reply after them is listed, shown, counted. With either `list`
    found no session and `show` no session id."""

    def make(home: Path) -> Path:
        return write_claude_session(home, CLAUDE_ID, "/w/zeros")

    agree(tmp_path, CLAUDE_ID, make, 1, zeros, cut_then_zeros)


@pytest.mark.parametrize("zeros", ZEROS_ALONE)
def test_codex_record_after_many_written_zeros_is_read_by_every_command(
    tmp_path: Path, zeros: int
) -> None:
    source = (DATA / "codex/home" / CODEX_ROLLOUT).read_bytes()
    lines = source.split(b"\n")
    counted = next(i for i, line in enumerate(lines, 1) if b'"token_count"' in line)

    def make(home: Path) -> Path:
        rollout = home / CODEX_ROLLOUT
        rollout.parent.mkdir(parents=True)
        rollout.write_bytes(source)
        return rollout

    agree(tmp_path, CODEX_ID, make, counted - 1, zeros, cut_then_zeros)


@pytest.mark.parametrize("zeros", ZEROS_ALONE)
def test_following_reads_the_record_after_many_written_zeros(
    tmp_path: Path, zeros: int
) -> None:
    """`follow` from inside the cut line: the record after the zeros is read."""
    from sessdex.follow import Follower

    path = tmp_path / "a.jsonl"
    path.write_bytes(
        b'{"n":1}\n{"n":2,"cut":"'
        + b"c" * 5000
        + b"\x00" * zeros
        + b'{"n":3}\n{"n":4}\n'
    )
    follower = Follower(path, offset=20)  # in the cut line
    follower.check()
    read = [files.loads_repaired(line.data) for line in follower.lines()]
    assert read == [({"n": 3}, True), ({"n": 4}, False)]
    with files.open_binary(path) as stream:
        lines = list(files.iter_lines(stream))
    assert [files.loads_repaired(line.data)[0] for line in lines] == [
        {"n": 1},
        {"n": 3},
        {"n": 4},
    ]


@pytest.mark.parametrize("blanks", [b"", b"  "])
def test_zeros_that_end_where_a_read_does_are_read_as_one_run(
    tmp_path: Path, blanks: bytes
) -> None:
    """The zeros (and blanks after them) end exactly where one read of the over-long
    line ends, the record starts the next: the record is read, from the zeros' last NUL,
    as by `line_start` and `follow` from inside the cut line."""
    from sessdex.follow import Follower

    path = tmp_path / "a.jsonl"
    cut = b'{"n":1}\n{"n":2,"cut":"ccc'
    zeros = b"\x00" * (2 * files.CHUNK - len(cut) - len(blanks))
    path.write_bytes(cut + zeros + blanks + b'{"n":3}\n{"n":4}\n')
    with files.open_binary(path) as stream:
        lines = list(files.iter_lines(stream))
    assert [files.loads_repaired(line.data) for line in lines] == [
        ({"n": 1}, False),
        ({"n": 3}, True),
        ({"n": 4}, False),
    ]
    glued = len(cut) + len(zeros) - 1
    assert lines[1].offset == files.line_start(path, 20) == glued
    follower = Follower(path, offset=20)
    follower.check()
    assert [line.offset for line in follower.lines()] == [glued, lines[2].offset]


def test_a_listing_tail_that_starts_in_the_zeros_keeps_the_record_after_them(
    tmp_path: Path,
) -> None:
    """`tail_lines` (the listing's tail of Kimi, Kiro, Qwen sub-agents) read from inside
    written zeros: the record after them is its first line, from their last NUL, where
    `iter_lines` starts it; it was dropped as the piece the read cut."""
    path = tmp_path / "a.jsonl"
    cut = b'{"n":1}\n{"n":2,"cu'
    zeros = b"\x00" * (files.TAIL_BYTES + 1000)
    path.write_bytes(cut + zeros + b'{"n":3}\n{"n":4}\n')
    with files.open_binary(path) as stream:
        whole = list(files.iter_lines(stream))
    tail = files.tail_lines(path)
    assert [(line.offset, line.data) for line in tail] == [
        (line.offset, line.data) for line in whole[1:]
    ]
