"""A database's values read one row at a time through blob IO hold nothing a row once
read: Python's sqlite3 keeps a reference to each blob handle a connection opened, dead
once it closes, and never drops it (CPython gh-144424), about 88 bytes a row read (a
session of 200,000 parts: 17 MB more at the peak of its `show`)."""

from __future__ import annotations

import os
import sqlite3
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from sessdex import databases


@pytest.fixture()
def connection(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    path = tmp_path / "app.db"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE part (id TEXT, data TEXT)")
    db.executemany(
        "INSERT INTO part VALUES (?, ?)",
        [(f"prt_{n}", f'{{"type": "text", "text": "line {n}"}}') for n in range(100)],
    )
    db.commit()
    db.close()
    opened = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    yield opened
    opened.close()


def _peak(connection: sqlite3.Connection, reads: int) -> int:
    """The peak of what reading `reads` rows' values (and a first byte of each) holds."""
    tracemalloc.start()
    try:
        for n in range(reads):
            rowid = n % 100 + 1
            assert databases.bounded_value(connection, "part", "data", rowid)
            assert databases.value_opening(connection, "part", "data", rowid, 1)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_rows_read_by_blob_io_leave_nothing_a_row(
    connection: sqlite3.Connection,
) -> None:
    _peak(connection, 100)  # imports and caches warm, outside the count
    small = _peak(connection, 4_000)
    big = _peak(connection, 16_000)
    # four times the rows: 4.1 times the peak before (a dead reference a handle), 1.0 now
    assert big < 1.5 * small, (small, big)


def test_two_connections_read_in_turn_leave_nothing_a_row(
    connection: sqlite3.Connection, tmp_path: Path
) -> None:
    # two connections read a row each in turn (a library user zipping two sessions'
    # events): a count of handles shared by both pruned only one of them
    other = sqlite3.connect(f"file:{tmp_path / 'app.db'}?mode=ro", uri=True)

    def peak(reads: int) -> int:
        tracemalloc.start()
        try:
            for n in range(reads):
                for each in (connection, other):
                    assert databases.bounded_value(each, "part", "data", n % 100 + 1)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    try:
        peak(100)
        small = peak(4_000)
        big = peak(16_000)
    finally:
        other.close()
    assert big < 1.5 * small, (small, big)


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc/self/fd")
def test_closing_the_connection_after_a_prune_closes_the_handles_still_open(
    tmp_path: Path,
) -> None:
    # the prune keeps each live handle's reference: closing the connection closes them
    # all, and with them the database file (else SQLite keeps it open until each is freed)
    path = tmp_path / "app.db"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE part (data BLOB)")
    db.execute("INSERT INTO part VALUES (x'7b7d')")
    db.commit()
    db.close()
    opened = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    live = databases.open_blob(opened, "part", "data", 1)
    for _ in range(2 * databases._BLOBS_PRUNED):
        assert databases.value_opening(opened, "part", "data", 1, 2) == b"{}"
    opened.close()
    held = [f for f in os.listdir("/proc/self/fd") if _names(f, path)]
    assert not held
    with pytest.raises(sqlite3.ProgrammingError):
        live.read()


def _names(fd: str, path: Path) -> bool:
    try:
        return os.path.realpath(f"/proc/self/fd/{fd}") == os.path.realpath(path)
    except OSError:
        return False
