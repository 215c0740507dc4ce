"""A program calling sessdex again and again (the README's "From Python"): a database an
app holds open is read from a snapshot that a later call tops up in place while no read
has it open, and reads from a new copy of the file while one does (SQLite shares one WAL
index among a process's connections to a file: the copy under an open read never
changes)."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

import pytest

from sessdex import databases


def _store(path: Path) -> sqlite3.Connection:
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute("CREATE TABLE note (id INTEGER PRIMARY KEY, text TEXT)")
    writer.executemany("INSERT INTO note (text) VALUES (?)", [("x" * 500,)] * 200)
    return writer


def _read(path: Path) -> tuple[int, int, sqlite3.Connection]:
    """The newest row a new call reads, the inode of the copy it reads, its connection."""
    databases.new_view()  # as each api call begins
    connection = databases.open_sqlite(path)
    (newest,) = connection.execute("SELECT max(id) FROM note").fetchone()
    copy = getattr(connection, "copy", "")
    assert copy, "a database with a -wal is read from a snapshot"
    return int(newest), os.stat(copy).st_ino, connection


@pytest.mark.skipif(os.name == "nt", reason="Windows changes the copy in place")
def test_a_read_left_open_pins_its_snapshot_and_a_closed_one_does_not(
    tmp_path: Path,
) -> None:
    path = tmp_path / "store.db"
    writer = _store(path)
    try:
        newest, inode, first = _read(path)
        assert newest == 200
        first.close()
        writer.execute("INSERT INTO note (text) VALUES ('appended')")
        newest, again, held = _read(path)
        assert (newest, again) == (201, inode)  # the WAL topped up: no copy made
        writer.execute("INSERT INTO note (text) VALUES ('appended while read')")
        time.sleep(databases.REFRESH_FLOOR_SECONDS + 0.2)  # a small file's pace
        newest, other, later = _read(path)
        assert newest == 202
        assert other != inode  # a new copy: the open read's is left as it was
        assert held.execute("SELECT max(id) FROM note").fetchone() == (201,)
        held.close()
        later.close()
    finally:
        writer.close()
