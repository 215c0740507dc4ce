"""`databases.scanned`: one scan a run would repeat, kept while its database stands as
it stood, and served only to the read that asks for the same thing of it."""

from __future__ import annotations

import gc
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


def _values(rows: list[tuple[object, ...]]) -> list[object]:
    return [row[0] for row in rows]


def _memory_after(scans: Iterator[object]) -> int:
    """What the scans kept still hold once every read has let go of its value."""
    tracemalloc.start()
    try:
        for found in scans:
            del found
        gc.collect()
        return tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()


def test_scans_kept_hold_at_most_their_budget_together(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long `watch` reading Warp makes scan after scan of one database as it changes:
    those kept hold at most `SCANS_KEPT_BYTES` together (here 2 MB), the oldest dropped;
    eight 600 KB scans were all kept (4.8 MB). Each read still gets its rows, and the
    newest scan is still served from what is kept."""
    monkeypatch.setattr(databases, "SCANS_KEPT_BYTES", 2 * 2**20, raising=False)
    path = tmp_path / "app.db"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE blocks (n INTEGER, metadata TEXT)")
    db.executemany(
        "INSERT INTO blocks VALUES (?, ?)",
        [(n, str(n) * 200_000) for n in range(3)],  # 600 KB a scan
    )
    db.commit()
    db.close()
    databases._SCANS.clear()
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    queries = [f"SELECT metadata FROM blocks WHERE n < {3 + n}" for n in range(8)]

    def scans() -> Iterator[object]:
        for query in queries:
            found = databases.scanned(connection, query, _values)
            assert [len(str(value)) for value in found] == [200_000] * 3
            yield found

    try:
        held = _memory_after(scans())
        assert held < 2 * 2**20, held
        newest = databases.scanned(connection, queries[-1], _values)
        assert databases.scanned(connection, queries[-1], _values) is newest
        # a scan past the budget alone is not kept: read, and let go
        monkeypatch.setattr(databases, "SCANS_KEPT_BYTES", 300_000)
        databases._SCANS.clear()
        held = _memory_after(
            databases.scanned(connection, query, _values) for query in queries[:1]
        )
        assert held < 300_000, held
    finally:
        connection.close()
        databases._SCANS.clear()
