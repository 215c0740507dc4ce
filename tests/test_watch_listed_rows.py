"""`watch` over a database many sessions share (OpenCode's): a session's row changed in
place, with no row added or deleted anywhere (a title renamed, a session archived),
shows within a second or two of the write, not at the next full listing (30 s)."""

from __future__ import annotations

import shutil
import sqlite3
import time
from pathlib import Path

from sessdex import api, databases
from sessdex.sources import Home

OPENCODE = Path(__file__).parent / "data" / "opencode" / "home"
DATABASE = ".local/share/opencode/opencode.db"
BASIC = "ses_dd47cef52ffe38O37iH1Ffe05b"


KILO = Path(__file__).parent / "data" / "kilo" / "home"
KILO_DATABASE = ".local/share/kilo/kilo.db"
KILO_SESSION = "ses_dca3c4fdfffeLJ9Gzp3KxVSonW"


def _home(
    tmp_path: Path, data: Path = OPENCODE, database: str = DATABASE
) -> tuple[Home, sqlite3.Connection]:
    home = tmp_path / "home"
    shutil.copytree(data, home)
    writer = sqlite3.connect(home / database, isolation_level=None)
    writer.execute("PRAGMA journal_mode=WAL")
    # a write before `watch` starts: the app's WAL has begun (a WAL begun later is a
    # checkpoint to the snapshot, which follows it only after 10 s)
    writer.execute(
        "UPDATE part SET time_updated = time_updated + 1"
        " WHERE rowid = (SELECT min(rowid) FROM part)"
    )
    return Home.at(home), writer


def _titles_after(
    home: Home,
    writer: sqlite3.Connection,
    change: str,
    *values: object,
    seconds: float,
    session: str = BASIC,
) -> set[str]:
    """The titles of `session` that `watch`'s boards show within `seconds` of `change`,
    made by `writer` (whose -wal was there before) once the first board is out."""
    seen: set[str] = set()
    boards = api.watch_sessions(home, duration=seconds + 6)
    try:
        first = next(boards)
        assert any(row.session.id == session for row in first)
        # an answer streamed meanwhile: the listing it brings marks the database's rows
        writer.execute("UPDATE part SET time_updated = time_updated + 1")
        settled = time.monotonic()
        for _ in boards:
            if time.monotonic() - settled > 2.5:
                break
        writer.execute(change, values)
        changed = time.monotonic()
        for rows in boards:
            if time.monotonic() - changed > seconds:
                break
            seen |= {
                row.session.title or "" for row in rows if row.session.id == session
            }
    finally:
        boards.close()  # type: ignore[attr-defined]
        writer.close()
    return seen


def test_a_title_renamed_in_place_shows_within_seconds(tmp_path: Path) -> None:
    home, writer = _home(tmp_path)
    seen = _titles_after(
        home, writer, "UPDATE session SET title = ? WHERE id = ?", "Renamed live",
        BASIC, seconds=5,
    )  # fmt: skip
    assert "Renamed live" in seen


def test_the_mark_moves_with_a_listed_row_changed_in_place(tmp_path: Path) -> None:
    """(Without a -wal: each mark reads the file itself, not this process's snapshot.)"""
    home = tmp_path / "home"
    shutil.copytree(OPENCODE, home)
    path = home / DATABASE
    before = databases.rows_mark(path, {"session"})
    unlisted = databases.rows_mark(path)
    with sqlite3.connect(path) as writer:  # an answer streamed into its part
        writer.execute(
            "UPDATE part SET data = data || ' ' WHERE session_id = ?", (BASIC,)
        )
    writer.close()
    assert databases.rows_mark(path, {"session"}) == before  # lists nothing
    with sqlite3.connect(path) as writer:
        writer.execute("UPDATE session SET time_archived = 1 WHERE id = ?", (BASIC,))
    writer.close()
    assert databases.rows_mark(path, {"session"}) != before
    assert databases.rows_mark(path) == unlisted  # what it did before


def test_a_session_deleted_from_a_table_of_far_apart_rowids_moves_the_mark(
    tmp_path: Path,
) -> None:
    """A sessions table whose rowids span more than COUNTED_SPAN (or that has no index)
    is not counted: a row deleted below its newest moved nothing. Listed, it does."""
    path = tmp_path / "app.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE sessions (id INTEGER PRIMARY KEY, title TEXT)")
        db.executemany(
            "INSERT INTO sessions VALUES (?, 't')",
            [(1,), (2,), (databases.COUNTED_SPAN * 3,)],
        )
    db.close()
    before = databases.rows_mark(path, {"sessions"})
    unlisted = databases.rows_mark(path)
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM sessions WHERE id = 2")
    db.close()
    assert databases.rows_mark(path, {"sessions"}) != before
    assert databases.rows_mark(path) == unlisted  # what it did before


def test_the_mark_checksums_only_the_columns_a_listing_reads(tmp_path: Path) -> None:
    """OpenCode's `session` rows hold the session's file diffs (`summary_diffs`,
    `revert`: whole files), which no listing shows: checksummed too, they were read
    again at each mark (once a second while the app writes; 19,000 sessions of 20 KB
    diffs: 0.25 s of CPU each) and a change to them listed the sessions again."""
    from sessdex.sources import opencode

    home = tmp_path / "home"
    shutil.copytree(OPENCODE, home)
    path = home / DATABASE
    before = databases.rows_mark(path, opencode.LISTED_TABLES)
    with sqlite3.connect(path) as writer:  # the session's diffs, summed up again
        writer.execute(
            "UPDATE session SET summary_diffs = ? WHERE id = ?", ("[]" * 5000, BASIC)
        )
    writer.close()
    assert databases.rows_mark(path, opencode.LISTED_TABLES) == before
    with sqlite3.connect(path) as writer:
        writer.execute("UPDATE session SET title = 'Renamed' WHERE id = ?", (BASIC,))
    writer.close()
    assert databases.rows_mark(path, opencode.LISTED_TABLES) != before


def test_a_kilo_cli_session_renamed_in_place_shows_within_seconds(
    tmp_path: Path,
) -> None:
    """The Kilo CLI keeps OpenCode's tables (read by its reader): watched as OpenCode's,
    not at the next full listing (30 s)."""
    home, writer = _home(tmp_path, KILO, KILO_DATABASE)
    seen = _titles_after(
        home, writer, "UPDATE session SET title = ? WHERE id = ?", "Renamed live",
        KILO_SESSION, seconds=5, session=KILO_SESSION,
    )  # fmt: skip
    assert "Renamed live" in seen
