"""An app's SQLite database written twice within one tick of its file system's clock
(whole seconds on ext3, HFS+ and many network mounts; two on FAT), each time at the same
size: the stat looks the same, the headers of the database and its WAL do not, and
neither the database's snapshot copy nor the index serves the first state."""

from __future__ import annotations

import os
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from sessdex import api, databases, freshness
from sessdex.sources import Home

from .conftest import app_home

TICK_NS = 1_700_000_000 * 10**9  # the one second every write below lands in


@pytest.fixture()
def one_tick(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """Every file under `tmp_path / "app"` modified and changed in the same second: what
    a coarse clock shows of writes made within one of its ticks (ctime included, which
    no test can set). A process's copy of a database file a checkpoint changed is
    brought up to date at its next look (else at most every 10 s: another matter)."""
    monkeypatch.setattr(databases, "REFRESH_DATABASE_SECONDS", 0.0)
    real = os.stat
    app = str(tmp_path / "app")

    def stat(path: object, *args: object, **kwargs: object) -> os.stat_result:
        st = real(path, *args, **kwargs)  # type: ignore[arg-type]
        if not isinstance(path, str | os.PathLike) or not os.fspath(path).startswith(
            app
        ):
            return st
        return os.stat_result(
            (*st[:7], TICK_NS // 10**9, TICK_NS // 10**9, TICK_NS // 10**9),
            {"st_atime_ns": TICK_NS, "st_mtime_ns": TICK_NS, "st_ctime_ns": TICK_NS},
        )

    monkeypatch.setattr(os, "stat", stat)
    yield


def _store(path: Path) -> sqlite3.Connection:
    """An app's store in WAL mode: two rows on two pages (each fills one), both
    checkpointed into the database file, and a WAL of two frames that the app reuses
    from its start after each checkpoint (SQLite's default: the file keeps its size)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute("CREATE TABLE note (id INTEGER PRIMARY KEY, text TEXT)")
    writer.execute("INSERT INTO note VALUES (1, ?), (2, ?)", ("a" * 3000, "b" * 3000))
    writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    writer.execute("UPDATE note SET text = ? WHERE id = 1", ("c" * 3000,))
    writer.execute("UPDATE note SET text = ? WHERE id = 2", ("d" * 3000,))
    return writer


def _texts(path: Path) -> list[str]:
    connection = databases.open_sqlite(path)
    try:
        return [row[0][0] for row in connection.execute("SELECT text FROM note")]
    finally:
        connection.close()


def _sizes(path: Path) -> tuple[int, int]:
    return path.stat().st_size, Path(f"{path}-wal").stat().st_size


@pytest.mark.usefixtures("one_tick")
@pytest.mark.parametrize("process", ["the same", "the next"])
def test_a_store_checkpointed_and_written_again_in_one_tick_is_read_as_it_is(
    tmp_path: Path, process: str
) -> None:
    """The app checkpoints, and its next write starts the WAL again from its start, in
    the second of the last look: database and WAL keep size and stamps. The same
    process read its old snapshot again; the next linked the copy of the database from
    before the checkpoint and laid the new WAL over it (note 1's change, checkpointed
    since, lost)."""
    store = tmp_path / "app" / "store.db"
    writer = _store(store)
    try:
        assert _texts(store) == ["c", "d"]
        before = _sizes(store)
        writer.execute("PRAGMA wal_checkpoint(PASSIVE)")  # note 1 and 2 into the file
        writer.execute("UPDATE note SET text = ? WHERE id = 2", ("e" * 3000,))
        writer.execute("UPDATE note SET text = ? WHERE id = 2", ("f" * 3000,))
        assert _sizes(store) == before  # the WAL reused from its start
        if process == "the next":
            databases.forget_snapshots()  # a new process: only the shared copies
        databases.new_view()
        assert _texts(store) == ["c", "f"]
    finally:
        writer.close()


@pytest.mark.usefixtures("one_tick")
def test_a_commit_into_a_reused_wal_in_one_tick_is_read(tmp_path: Path) -> None:
    """After a checkpoint the app writes over the WAL's older frames: a commit that
    stays within them keeps the WAL's size and header, and only its frames tell."""
    store = tmp_path / "app" / "store.db"
    writer = _store(store)
    try:
        writer.execute("PRAGMA wal_checkpoint(PASSIVE)")
        writer.execute("UPDATE note SET text = ? WHERE id = 2", ("e" * 3000,))
        before = _sizes(store), freshness.wal_signature(str(store))
        assert _texts(store) == ["c", "e"]
        writer.execute("UPDATE note SET text = ? WHERE id = 1", ("g" * 3000,))
        assert _sizes(store) == before[0]
        assert freshness.wal_signature(str(store)) != before[1]
        databases.new_view()
        assert _texts(store) == ["g", "e"]
    finally:
        writer.close()


@pytest.mark.usefixtures("one_tick")
def test_a_session_renamed_twice_in_one_tick_is_listed_with_its_new_title(
    tmp_path: Path,
) -> None:
    """What a user sees: OpenCode, its database held open, renames a session, and a
    listing within the same second of the last one showed the old title (the index
    and the snapshot both took the database as unchanged)."""
    home = tmp_path / "app" / "home"
    shutil.copytree(app_home("opencode"), home)
    store = home / ".local/share/opencode/opencode.db"
    writer = sqlite3.connect(store, isolation_level=None)
    try:
        writer.execute("PRAGMA journal_mode=WAL")
        writer.execute("PRAGMA wal_autocheckpoint=0")
        rename = "UPDATE session SET title = ? WHERE parent_id IS NULL"
        writer.execute(rename, ("before",))
        titles = {s.title for s in api.list_sessions(Home.at(home)).sessions()}
        assert "before" in titles
        before = _sizes(store)
        writer.execute("PRAGMA wal_checkpoint(PASSIVE)")
        writer.execute(rename, ("renamed",))  # the WAL again from its start
        assert _sizes(store) == before
        titles = {s.title for s in api.list_sessions(Home.at(home)).sessions()}
        assert "renamed" in titles and "before" not in titles
    finally:
        writer.close()


def _generation(wal: bytes) -> int:
    """The frames of a WAL's current generation, counted one by one."""
    page = int.from_bytes(wal[8:12], "big")
    count = 0
    while (start := 32 + count * (24 + page)) + 24 + page <= len(wal):
        if wal[start + 8 : start + 16] != wal[16:24]:
            break
        count += 1
    return count


def test_the_state_of_a_wal_counts_its_generation_not_the_frames_it_reuses(
    tmp_path: Path,
) -> None:
    store = tmp_path / "store.db"
    writer = _store(store)
    wal = Path(f"{store}-wal")
    try:
        for _ in range(20):
            writer.execute("INSERT INTO note (text) VALUES (?)", ("h" * 3000,))
        writer.execute("PRAGMA wal_checkpoint(PASSIVE)")
        seen = set()
        for step in range(30):  # the new generation grows over the older frames
            writer.execute("INSERT INTO note (text) VALUES (?)", ("i" * 3000,))
            state = freshness.wal_state(str(wal))
            generation, frames, _ = state.split(".")
            assert int(frames) == _generation(wal.read_bytes()) > step
            assert generation == wal.read_bytes()[12:24].hex()
            seen.add(state)
        assert len(seen) == 30  # each commit a state of its own
    finally:
        writer.close()


@pytest.mark.parametrize(
    ("content", "state"),
    [
        (b"", ""),
        (b"\x37\x7f\x06\x82", ""),  # cut in its header
        (b"\x37\x7f\x06\x82" + bytes(4) + (3).to_bytes(4, "big") + b"s" * 20, "s" * 12),
    ],
)
def test_a_wal_cut_or_damaged_has_a_state_and_no_error(
    tmp_path: Path, content: bytes, state: str
) -> None:
    wal = tmp_path / "store.db-wal"
    wal.write_bytes(content)
    assert freshness.wal_state(str(wal)) == (state and bytes(state, "ascii").hex())
