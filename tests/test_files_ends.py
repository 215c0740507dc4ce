"""A listing that reads a transcript's head and tail takes both from one opening
(`files.ends`): what it lists is what `head_lines` and `tail_lines` read, and a file within
the tail's reach is opened once. A first listing opened every small Pi, Copilot CLI,
Droid, Kimi Code and Amp transcript twice, and stat'ed it a third time for its size."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from sessdex import files
from sessdex.diagnostics import Diagnostics
from sessdex.sources import Home, pi

DATA = Path(__file__).parent / "data"
LONG = b'{"text": "' + b"x" * (files.LINE_CAP + 10) + b'"}'


def _lines(count: int, width: int = 40) -> list[bytes]:
    return [b'{"n": %d, "pad": "%s"}' % (n, b"y" * width) for n in range(count)]


SHAPES: dict[str, bytes] = {
    "empty": b"",
    "one line, no newline": b'{"a": 1}',
    "few lines": b"\n".join(_lines(5)) + b"\n",
    "unfinished last line": b"\n".join(_lines(5)) + b'\n{"half": ',
    "more lines than the head": b"\n".join(_lines(300)) + b"\n",
    "an over-long line inside": b"\n".join([*_lines(3), LONG, *_lines(3)]) + b"\n",
    "an over-long last line": b"\n".join([*_lines(3), LONG]),
    "past the tail's reach": b"\n".join(_lines(20_000, 60)) + b"\n",
    "past it, an over-long line first": b"\n".join([LONG, *_lines(20_000, 60)]) + b"\n",
    "blank lines and a CR": b"\n\n" + b"\r\n".join(_lines(4)) + b"\n\n",
}


@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize("openings", [False, True])
def test_ends_read_what_head_and_tail_read(
    tmp_path: Path, shape: str, openings: bool
) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(SHAPES[shape])
    said_apart, said_once = Diagnostics(), Diagnostics()
    head = files.head_lines(path, diagnostics=said_apart, openings=openings)
    tail = files.tail_lines(path)
    size, head_once, tail_once = files.ends(
        path, diagnostics=said_once, openings=openings
    )
    assert size == path.stat().st_size
    assert head_once == head
    assert tail_once == tail
    assert said_once.to_json() == said_apart.to_json()
    assert said_once.details == said_apart.details
    for lines in (5, 1):  # fewer head lines, a shorter tail
        assert files.ends(path, lines, 4096)[1:] == (
            files.head_lines(path, lines),
            files.tail_lines(path, 4096),
        )


def test_a_zstd_transcript_reads_as_before(tmp_path: Path) -> None:
    zstandard = pytest.importorskip("zstandard")
    plain = b"\n".join(_lines(50)) + b"\n"
    path = tmp_path / "t.jsonl.zst"
    path.write_bytes(zstandard.ZstdCompressor().compress(plain))
    size, head, tail = files.ends(path)
    assert (size, head, tail) == (
        path.stat().st_size,
        files.head_lines(path),
        files.tail_lines(path),
    )


def test_a_small_pi_transcript_is_opened_once_to_list_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA / "pi" / "home", home)
    location = pi.locate(Home.at(home))
    transcript = next(iter(pi.scan(location)))
    expected = pi.parse(Path(transcript), location, Diagnostics())
    opened: list[str] = []
    stats: list[str] = []
    open_regular, stat = files.open_regular, os.stat

    def counting_open(path: str | os.PathLike[str], *args: int) -> object:
        opened.append(os.fspath(path))
        return open_regular(path, *args)

    def counting_stat(path: object, *args: object, **kwargs: object) -> object:
        if isinstance(path, str | os.PathLike):
            stats.append(os.fspath(path))
        return stat(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(files, "open_regular", counting_open)
    monkeypatch.setattr(os, "stat", counting_stat)
    assert pi.parse(Path(transcript), location, Diagnostics()) == expected
    name = os.fspath(transcript)
    assert opened.count(name) == 1
    assert stats.count(name) == 0
