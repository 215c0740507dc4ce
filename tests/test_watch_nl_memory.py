"""`watch --nl` over many sessions that come onto the board and leave it (a long watch of
a busy home) holds only what it needs for those on the board now: what it had said of
each session that left was kept for the whole watch."""

from __future__ import annotations

import io
import os
import sys
import tracemalloc
from collections.abc import Iterator

import pytest

from sessdex.cli.live import _watch_lines
from sessdex.live import BoardRow
from sessdex.model import Session
from sessdex.status import Status

T = 1_780_000_000.0
BOARDS = 8000


def _row(n: int, since: float) -> BoardRow:
    session = Session("claude", f"{n:08x}-0000-4000-8000-000000000000", cwd="/w")
    status = Status("waiting_for_user", "turn ended 1s ago", False, "turn ended", since)
    return BoardRow(session, status, since, 0, False)


def test_watch_nl_forgets_sessions_that_left_the_board(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    held: list[int] = []

    def boards() -> Iterator[list[BoardRow]]:
        # session n is on boards n and n + 1 (its `since` moved: another turn ended),
        # then leaves for good
        for n in range(BOARDS):
            if n in (BOARDS // 8, BOARDS - 1):
                held.append(tracemalloc.get_traced_memory()[0])
            yield [_row(n, T + n + 0.5), _row(n + 1, T + n + 1)] if n else [_row(0, T)]

    with open(os.devnull, "wb") as null:
        monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(null))
        tracemalloc.start()
        try:
            _watch_lines(boards(), once=False)
        finally:
            tracemalloc.stop()
    grown = held[1] - held[0]
    # 7,000 sessions gone: a few hundred bytes each were kept, 2 MB
    assert grown < 200_000, f"{grown:,} bytes kept for sessions no longer shown"
