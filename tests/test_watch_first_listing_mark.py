"""`watch` over a database many sessions share (OpenCode's): its first listing marks the
database's rows where nothing wrote it from before that listing until the mark, so the
first write after `watch` starts that adds no row (an answer streamed into its part)
lists nothing again; a row added during the listing is still listed at the next write."""

from __future__ import annotations

import shutil
import sqlite3
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from sessdex import api, databases, freshness
from sessdex.live import Board
from sessdex.model import Session
from sessdex.sources import Home

OPENCODE = Path(__file__).parent / "data" / "opencode" / "home"
CRUSH = Path(__file__).parent / "data" / "crush" / "home"
DATABASE = ".local/share/opencode/opencode.db"
BASIC = "ses_dd47cef52ffe38O37iH1Ffe05b"


@pytest.fixture(autouse=True)
def quiet_soon(monkeypatch: pytest.MonkeyPatch) -> None:
    """A database counts as quiet a tick after its last write, not 10 s after (how long
    a snapshot a checkpoint left behind may serve): the tests wait that long."""
    monkeypatch.setattr(databases, "REFRESH_DATABASE_SECONDS", 0.0)


class _Watched:
    """A board over the OpenCode fixture, its database in WAL mode (the app's writer
    open) and quiet since before the board's first listing; `during(database)` writes
    once that listing has read it. `relisted`: the apps each listing anew asked for."""

    def __init__(
        self,
        tmp_path: Path,
        during: Callable[[Path], None] = lambda _: None,
        beside: Path | None = None,
    ) -> None:
        home = tmp_path / "home"
        shutil.copytree(OPENCODE, home)
        if beside is not None:  # another app's home too
            shutil.copytree(beside, home, dirs_exist_ok=True)
        self.database = home / DATABASE
        database = home / DATABASE
        self.writer = sqlite3.connect(database, isolation_level=None)
        self.writer.execute("PRAGMA journal_mode=WAL")
        self.writer.execute("UPDATE part SET time_updated = time_updated + 1")
        time.sleep(freshness.RACY_NS / 1e9 + 0.2)
        self.relisted: list[set[str]] = []

        last: list[Session] = []

        def listed() -> Sequence[Session]:
            last[:] = api.list_sessions(Home.at(home)).sessions()
            during(database)
            return last

        def listed_of(apps: set[str]) -> Sequence[Session]:
            """`apps` listed anew, the others as the last listing gave them (watch's)."""
            self.relisted.append(apps)
            again = api.list_sessions(Home.at(home), apps=sorted(apps)).sessions()
            return [s for s in last if s.app not in apps] + list(again)

        self.listed_of = listed_of
        self.board = Board(listed, relists=True)
        self.board.rescan()
        self.board.poll()

    def streamed(self) -> bool:
        """An answer streamed into its part (no row added or deleted, none listed
        changed), then the board's look at the database's write: whether it listed."""
        time.sleep(1.1)  # watch looks at a database's writes at most once a second
        try:
            self.writer.execute(
                "UPDATE part SET data = data || ' ' WHERE session_id = ?", (BASIC,)
            )
            listed, _ = self.board.relist({"opencode"}, self.listed_of)
        finally:
            self.writer.close()
        return listed


def test_the_first_write_after_watch_starts_lists_nothing_again(tmp_path: Path) -> None:
    watched = _Watched(tmp_path)
    assert not watched.streamed()
    assert watched.relisted == []


def _session_added(database: Path, wait: float = 1.1) -> None:
    with sqlite3.connect(database, isolation_level=None) as app:
        app.execute(
            "INSERT INTO session (id, project_id, slug, directory, title, version,"
            " time_created, time_updated) SELECT 'ses_new', project_id, 'new',"
            " directory, 'Brand new', version, time_created, time_updated"
            " FROM session WHERE id = ?",
            (BASIC,),
        )
    app.close()
    time.sleep(wait)  # a listing that goes on: the mark's snapshot is taken anew


def test_a_session_added_during_the_first_listing_is_listed_at_the_next_write(
    tmp_path: Path,
) -> None:
    watched = _Watched(tmp_path, _session_added)
    assert ("opencode", "ses_new") not in watched.board.lives  # read before it came
    assert watched.streamed()
    assert ("opencode", "ses_new") in watched.board.lives


def _written(database: Path) -> None:
    with sqlite3.connect(database, isolation_level=None) as app:
        app.execute("UPDATE part SET data = data || ' ' WHERE session_id = ?", (BASIC,))
    app.close()


def test_a_database_is_not_marked_when_another_app_is_listed_again(
    tmp_path: Path,
) -> None:
    """OpenCode's database, written during the first listing, is left unmarked; a
    listing of Crush's sessions alone, later, lists none of OpenCode's: marking its
    database then would take in a session added since OpenCode's listing, never listed."""
    watched = _Watched(tmp_path, _written, beside=CRUSH)
    assert any(app == "crush" for app, _ in watched.board.lives)
    _session_added(watched.database, wait=freshness.RACY_NS / 1e9 + 0.2)
    watched.board.rescan({"crush"}, watched.listed_of)
    assert watched.streamed()
    assert ("opencode", "ses_new") in watched.board.lives


def test_a_write_that_lists_again_looks_at_the_database_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write that added a row lists its app's sessions again: the mark of the rows
    that told it so is the one that listing keeps, not a second look at every table
    (with 19,000 sessions of big rows, 40 ms of CPU each)."""
    watched = _Watched(tmp_path)
    looks: list[object] = []
    taking = databases.rows_mark

    def counted(*args: object, **kwargs: object) -> tuple[object, ...]:
        looks.append(args[0])
        return taking(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(databases, "rows_mark", counted)
    _session_added(watched.database)
    assert watched.streamed()  # listed again: a session was added
    assert ("opencode", "ses_new") in watched.board.lives
    assert len(looks) == 1
