"""`databases.scanned`: one scan a run would repeat, kept while its database stands as
it stood, and served only to the read that asks for the same thing of it."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from sessdex import databases


@pytest.fixture()
def connection(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    path = tmp_path / "app.db"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE chats (id TEXT, parent TEXT)")
    db.executemany(
        "INSERT INTO chats VALUES (?, ?)", [("a", "lead"), ("b", "lead"), ("c", "a")]
    )
    db.commit()
    db.close()
    databases._SCANS.clear()
    opened = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    yield opened
    opened.close()
    databases._SCANS.clear()


def _children(rows: list[tuple[object, ...]]) -> dict[object, list[object]]:
    found: dict[object, list[object]] = {}
    for child, parent in rows:
        found.setdefault(parent, []).append(child)
    return found


def _parents(rows: list[tuple[object, ...]]) -> dict[object, object]:
    return {child: parent for child, parent in rows}


def test_two_shapes_of_one_query_each_get_their_own(
    connection: sqlite3.Connection,
) -> None:
    """Two reads scanning alike but shaping the rows apart: the second gets its own
    shape, not the first's kept for the run (its look-ups would find nothing, or
    another's rows)."""
    query = "SELECT id, parent FROM chats ORDER BY rowid"
    children = databases.scanned(connection, query, _children)
    parents = databases.scanned(connection, query, _parents)
    assert children == {"lead": ["a", "b"], "a": ["c"]}
    assert parents == {"a": "lead", "b": "lead", "c": "a"}
    # each still kept for the run: asked again, the same value, no scan made
    assert databases.scanned(connection, query, _children) is children
    assert databases.scanned(connection, query, _parents) is parents
