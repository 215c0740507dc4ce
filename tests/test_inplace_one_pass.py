"""Within `inplace.one_pass`, a database opened again as it was is the connection its
first open made (a lead's sub-agents read in turn open their store once); one the app
wrote into since is opened anew, and the pass's end closes what it kept."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from sessdex import databases, inplace


def store(path: Path) -> Path:
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE messages (id TEXT, text TEXT)")
        connection.execute("INSERT INTO messages VALUES ('a', 'first')")
    connection.close()
    return path


def texts(connection: sqlite3.Connection) -> list[str]:
    return [text for (text,) in connection.execute("SELECT text FROM messages")]


def test_a_database_opened_again_unchanged_is_its_first_connection(
    tmp_path: Path,
) -> None:
    db = store(tmp_path / "app.db")
    with inplace.one_pass():
        first = databases.open_sqlite(db)
        first.close()  # a reader's close: kept for the next read
        again = databases.open_sqlite(db)
        assert again is first
        assert texts(again) == ["first"]
        again.close()
    with pytest.raises(sqlite3.ProgrammingError):  # the pass's end closed it
        texts(first)
    outside = databases.open_sqlite(db)
    assert outside is not first
    outside.close()
    with pytest.raises(sqlite3.ProgrammingError):  # no pass: closed as asked
        texts(outside)


def test_a_database_written_into_since_is_opened_anew(tmp_path: Path) -> None:
    db = store(tmp_path / "app.db")
    with inplace.one_pass():
        first = databases.open_sqlite(db)
        assert texts(first) == ["first"]
        first.close()
        with sqlite3.connect(db) as writer:  # the app commits between two reads
            writer.execute("INSERT INTO messages VALUES ('b', 'second')")
        writer.close()
        again = databases.open_sqlite(db)
        assert again is not first
        assert texts(again) == ["first", "second"]
        again.close()
        assert texts(first) == ["first"]  # still open: a read may still use it
    with pytest.raises(sqlite3.ProgrammingError):
        texts(first)
    with pytest.raises(sqlite3.ProgrammingError):
        texts(again)


def test_a_snapshot_of_a_database_with_a_wal_is_opened_once_while_it_holds(
    tmp_path: Path,
) -> None:
    db = store(tmp_path / "app.db")
    app = sqlite3.connect(db)  # the app keeps it open in WAL mode
    try:
        app.execute("PRAGMA journal_mode=WAL")
        app.execute("INSERT INTO messages VALUES ('b', 'in the wal')")
        app.commit()
        with inplace.one_pass():
            first = databases.open_sqlite(db)
            first.close()
            again = databases.open_sqlite(db)
            assert again is first
            assert texts(again) == ["first", "in the wal"]
        with pytest.raises(sqlite3.ProgrammingError):
            texts(first)
    finally:
        app.close()
