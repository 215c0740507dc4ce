"""The survey of a big Claude Code lead holds a few dozen bytes a line, not an object."""

from __future__ import annotations

import tracemalloc
import uuid
from pathlib import Path

import orjson
import pytest

from sessdex import idtable, passcache
from sessdex.sources import _claude_read

LINES = 20_000


def lead(path: Path, count: int) -> Path:
    """A chain of `count` lines with real-looking uuids: a typed prompt every 20th line
    (a rewind's candidates), tool results and replies between."""
    with open(path, "wb") as out:
        up = None
        for n in range(count):
            own = str(uuid.UUID(int=n + 1, version=4))
            if n % 20 == 0:
                kind, message = "user", {"role": "user", "content": f"step {n}"}
            elif n % 2:
                kind = "assistant"
                message = {
                    "role": "assistant",
                    "content": [{"type": "text", "text": "ok"}],
                }
            else:
                kind = "user"
                result = {
                    "type": "tool_result",
                    "tool_use_id": f"toolu_{n}",
                    "content": "x",
                }
                message = {"role": "user", "content": [result]}
            stamp = f"2026-11-24T12:{n // 60 % 60:02d}:{n % 60:02d}.000Z"
            out.write(orjson.dumps({"type": kind, "uuid": own, "parentUuid": up,
                                    "isSidechain": False, "timestamp": stamp,
                                    "sessionId": "s", "message": message}) + b"\n")  # fmt: skip
            up = own
    return path


def peak(path: Path) -> int:
    tracemalloc.start()
    try:
        _claude_read._survey(path)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_the_survey_of_twice_the_lines_holds_few_bytes_a_line_more(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 2 GB transcript is some 2 million lines: at 100 bytes a line its survey alone
    held 200 MB. Kept in the cache too (as a big file's is), and read back from it."""
    monkeypatch.setattr(passcache, "MIN_SIZE", 1)
    # the first uuids sit in a dict (a fixed cost of a few MB): these lines are past it
    monkeypatch.setattr(idtable, "_FRONT", 1000)
    small = lead(tmp_path / "small.jsonl", LINES)
    big = lead(tmp_path / "big.jsonl", 2 * LINES)
    first = peak(small), peak(big)
    again = peak(small), peak(big)  # the kept surveys, loaded
    for one, two in (first, again):
        assert two - one < 80 * LINES, (one, two)  # some 62 now; 118 cold before


def test_a_kept_survey_is_read_back_without_the_entry_whole_beside_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read back, the entry's bytes were held whole beside the arrays made from them:
    the peak was twice what the survey then holds (1.9x)."""
    monkeypatch.setattr(passcache, "MIN_SIZE", 1)
    monkeypatch.setattr(idtable, "_FRONT", 1000)
    path = lead(tmp_path / "big.jsonl", 2 * LINES)
    _claude_read._survey(path)  # kept
    with open(path, "rb") as stream:
        tracemalloc.start()
        try:
            state = _claude_read._PassState.resumed(path, "claude-survey", stream)
            held, top = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert state.lines == 2 * LINES  # it was read back
    assert top < 1.5 * held, (held, top)
