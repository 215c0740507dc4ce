"""A store read in place (no WAL, `immutable=1`: no lock) while its app commits: what
sessdex gives is one committed state, never half of one transaction and half of the next.

The app is a real SQLite writer in rollback-journal mode (journal_mode=DELETE). To be
deterministic on a busy machine, the read is hooked so the app commits between two queries
of one read.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from sessdex import api
from sessdex.sources import Home, _cursor_ide
from tests.sources.test_cursor_ide import at, composer, store

ONE = "c0a1b2c3-0000-4000-8000-00000000000a"
TWO = "c0a1b2c3-0000-4000-8000-00000000000b"
PAD = " " + "x" * 3000  # a message per page or two, as real ones are


def rows(n: int, *, follow_up: bool = False) -> dict[str, object]:
    """The store at version `n`: conversation ONE (a question, its answer, and with
    `follow_up` a third message) titled "one n", conversation TWO titled "two n"."""
    bubbles = [("q", 1), ("a", 2), *([("f", 1)] if follow_up else [])]
    texts = {"q": f"question {n}", "a": f"answer {n}", "f": f"follow-up {n}"}
    found: dict[str, object] = {
        f"composerData:{ONE}": composer(ONE, bubbles, name=f"one {n}", text=PAD),
        f"composerData:{TWO}": composer(TWO, [("q", 1)], name=f"two {n}", text=PAD),
        f"bubbleId:{TWO}:q": {
            "_v": 3,
            "type": 1,
            "text": f"hello {n}",
            "createdAt": at(1),
        },
    }
    for second, (bubble, kind) in enumerate(bubbles):
        found[f"bubbleId:{ONE}:{bubble}"] = {
            "_v": 3, "type": kind, "text": texts[bubble] + PAD, "createdAt": at(second),
        }  # fmt: skip
    return found


# a row updated in place keeps its rowid, as an app's UPDATE does
UPSERT = (
    "INSERT INTO cursorDiskKV VALUES (?, ?) "
    "ON CONFLICT(key) DO UPDATE SET value = excluded.value"
)


class App:
    """The app: one transaction per `commit`, in rollback-journal mode, that brings every
    row of the store to version `n` together."""

    def __init__(self, db: Path) -> None:
        self.connection = sqlite3.connect(db, isolation_level=None)
        self.connection.execute("PRAGMA journal_mode=DELETE")

    def commit(self, n: int, *, follow_up: bool = False) -> None:
        self.connection.execute("BEGIN IMMEDIATE")
        for key, value in rows(n, follow_up=follow_up).items():
            self.connection.execute(UPSERT, (key, json.dumps(value)))
        self.connection.execute("COMMIT")

    def close(self) -> None:
        self.connection.close()


@pytest.fixture
def app(tmp_path: Path) -> Iterator[tuple[Home, Path, App]]:
    db = store(tmp_path, rows(0))
    writer = App(db)
    yield Home.at(tmp_path), db, writer
    writer.close()


def commit_at(
    monkeypatch: pytest.MonkeyPatch, call: int, commit: Callable[[], None]
) -> list[str]:
    """Have the app commit just before the reader's `call`-th value read, once; the keys
    read, in order."""
    original = _cursor_ide._Store._value
    read: list[str] = []

    def value(store: _cursor_ide._Store, rowid: int, key: object) -> dict[str, object]:
        read.append(str(key))
        if len(read) == call:
            commit()
        return original(store, rowid, key)

    monkeypatch.setattr(_cursor_ide._Store, "_value", value)
    return read


def titles(home: Home) -> dict[str, str | None]:
    listing = api.list_sessions(home)
    return {s.id: s.title for s in listing.sessions()}


def test_a_listing_never_mixes_two_commits(
    app: tuple[Home, Path, App], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The app renames both conversations in one transaction while `list` reads the first
    name and not yet the second: both names come from one commit."""
    home, db, writer = app
    read = commit_at(monkeypatch, 2, lambda: writer.commit(1))
    assert titles(home) == {ONE: "one 1", TWO: "two 1"}
    assert read[:2] == [f"composerData:{ONE}", f"composerData:{TWO}"]
    assert sorted(p.name for p in db.parent.iterdir()) == ["state.vscdb"]
