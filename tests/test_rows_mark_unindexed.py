"""watch's rows mark (databases.rows_mark) counts a table's rows only through an index:
a table with none is walked row page by row page, once a second while its app writes."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sessdex import databases


def _statements(path: Path) -> list[str]:
    seen: list[str] = []
    real = sqlite3.connect

    def traced(*args: object, **kwargs: object) -> sqlite3.Connection:
        connection = real(*args, **kwargs)  # type: ignore[call-overload]
        connection.set_trace_callback(seen.append)
        return connection  # type: ignore[no-any-return]

    sqlite3.connect = traced  # type: ignore[assignment]
    try:
        databases.rows_mark(path)
    finally:
        sqlite3.connect = real
    return seen


def test_a_table_with_no_index_is_not_counted_one_with_one_is(tmp_path: Path) -> None:
    path = tmp_path / "app.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE messages (id INTEGER PRIMARY KEY, content TEXT)")
        db.execute("CREATE TABLE sessions (id TEXT PRIMARY KEY, title TEXT)")
        db.executemany(
            "INSERT INTO messages (content) VALUES (?)", [("x" * 3000,)] * 50
        )
        db.executemany(
            "INSERT INTO sessions VALUES (?, 't')", [(f"s{i}",) for i in range(5)]
        )
    db.close()
    said = " ".join(_statements(path))
    assert 'count(*) FROM "sessions"' in said
    assert 'count(*) FROM "messages"' not in said


def test_a_session_deleted_from_an_indexed_table_moves_the_mark(tmp_path: Path) -> None:
    path = tmp_path / "app.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE sessions (id TEXT PRIMARY KEY, title TEXT)")
        db.executemany(
            "INSERT INTO sessions VALUES (?, 't')", [(f"s{i}",) for i in range(5)]
        )
    db.close()
    before = databases.rows_mark(path)
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM sessions WHERE id = 's2'")
    db.close()
    assert databases.rows_mark(path) != before
