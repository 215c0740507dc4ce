"""A listing reads a transcript's head and tail, never through it: each such read tells
the system so (`files.ends_only`, POSIX_FADV_RANDOM), so that the kernel reads nothing
from disk past what is asked for. Without it, a read from offset 0 made it read ahead up
to the disk's `read_ahead_kb`: a cold first listing of big transcripts, their pages not
cached, read about twice the bytes it needed from disk (bench/bench_list.py (d))."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from sessdex import files
from sessdex.sources import claude, codex

pytestmark = pytest.mark.skipif(
    not hasattr(os, "posix_fadvise") or not os.path.isdir("/proc/self/fd"),
    reason="posix_fadvise and /proc: Linux",
)


@pytest.fixture
def advised(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[int]]:
    """Path -> the advice each read of it was given, as it was given."""
    seen: dict[str, list[int]] = {}
    advise = os.posix_fadvise

    def recording(fd: int, offset: int, length: int, advice: int) -> None:
        name = os.readlink(f"/proc/self/fd/{fd}")
        seen.setdefault(name, []).append(advice)
        advise(fd, offset, length, advice)

    monkeypatch.setattr(os, "posix_fadvise", recording)
    return seen


def big_transcript(path: Path) -> str:
    """Lines over TAIL_BYTES in all: the head and the tail are two reads."""
    line = b'{"type":"user","timestamp":"2026-01-01T00:00:00Z","text":"' + b"x" * 1000
    path.write_bytes((line + b'"}\n') * (files.TAIL_BYTES // 500))
    return str(path)


@pytest.mark.parametrize(
    "read",
    [
        claude._blocks,
        codex._read_ends,
        files.head_lines,
        lambda path: files.read_start(path, files.OPENING),
    ],
    ids=["claude", "codex", "head_lines", "read_start"],
)
def test_a_listing_read_of_a_big_transcript_asks_for_no_readahead(
    read: Callable[[str], object], advised: dict[str, list[int]], tmp_path: Path
) -> None:
    path = big_transcript(tmp_path / "a.jsonl")
    read(path)
    assert advised == {path: [os.POSIX_FADV_RANDOM]}


def test_a_compressed_rollout_read_through_is_left_to_read_ahead(
    advised: dict[str, list[int]], tmp_path: Path
) -> None:
    import zstandard

    plain = big_transcript(tmp_path / "a.jsonl")
    packed = tmp_path / "rollout.jsonl.zst"
    packed.write_bytes(zstandard.ZstdCompressor().compress(Path(plain).read_bytes()))
    codex._read_ends(str(packed))
    files.head_lines(str(packed))
    files.read_start(str(packed), files.OPENING)
    assert advised == {}
