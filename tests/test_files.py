"""files.py: bounded line reading, head/tail, JSON, and foreign SQLite opened without a write."""

from __future__ import annotations

import os
import random
import sqlite3
import tracemalloc
from pathlib import Path

import orjson
import pytest
import zstandard

from sessdex import databases, files, folders
from sessdex.diagnostics import Diagnostics
from tests.helpers import opened_files


def write_lines(path: Path, lines: list[bytes], final_newline: bool = True) -> Path:
    path.write_bytes(b"\n".join(lines) + (b"\n" if final_newline else b""))
    return path


def test_lines_keep_numbers_and_offsets(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "a.jsonl", [b'{"a":1}', b"", b'{"b":2}'])
    with open(path, "rb") as stream:
        lines = list(files.iter_lines(stream))
    assert [(line.number, line.data) for line in lines] == [
        (1, b'{"a":1}'),
        (2, b""),
        (3, b'{"b":2}'),
    ]
    data = path.read_bytes()
    for line in lines:
        assert data[line.offset : line.offset + len(line.data)] == line.data
        assert line.end == line.offset + len(line.data) + 1


def test_over_long_line_is_skipped_and_counted_without_losing_the_next(
    tmp_path: Path,
) -> None:
    big = b'{"x":"' + b"A" * (3 * files.CHUNK) + b'"}'
    path = write_lines(tmp_path / "a.jsonl", [b'{"n":1}', big, b'{"n":3}'])
    diagnostics = Diagnostics()
    lines = files.head_lines(path, diagnostics=diagnostics)
    assert [line.number for line in lines] == [1, 3]
    assert lines[1].data == b'{"n":3}'
    assert diagnostics.skipped == {"too long": 1}
    assert diagnostics.details == [(str(path), 2, "too long")]


def test_compacted_line_keeps_structure_and_names_the_elided_size(
    tmp_path: Path,
) -> None:
    image = "Q" * (6 * 1024 * 1024)
    record = {
        "type": "user",
        "content": [
            {"type": "image", "data": image},
            {"type": "text", "text": 'say "hi"\\'},
        ],
    }
    path = write_lines(tmp_path / "a.jsonl", [orjson.dumps(record), b'{"after":true}'])
    got = list(files.iter_records(path))
    assert len(got) == 2
    line, value = got[0]
    assert line.compacted
    content = value["content"]
    assert isinstance(content, list)
    assert files.elided(content[0]["data"]) == (len(image), "Q" * 48)
    assert content[1]["text"] == 'say "hi"\\'
    assert got[1][1] == {"after": True}


def test_compacting_a_huge_line_stays_bounded_in_memory(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    with open(path, "wb") as out:
        out.write(b'{"type":"user","data":"')
        for _ in range(50):
            out.write(b"B" * (1024 * 1024))
        out.write(b'"}\n{"ok":1}\n')
    tracemalloc.start()
    records = [value for _, value in files.iter_records(path)]
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert records[1] == {"ok": 1}
    assert files.elided(str(records[0]["data"]))[0] == 50 * 1024 * 1024  # type: ignore[index]
    assert peak < 12 * 1024 * 1024


def test_a_small_json_file_costs_its_size_not_its_limit(tmp_path: Path) -> None:
    # a sub-agent's 50-byte meta file is read with the default 64 MB limit, once per
    # agent of every `show`: the limit is a cap, never an allocation
    path = tmp_path / "agent.meta.json"
    path.write_bytes(b'{"agentType":"Explore"}')
    big = tmp_path / "big.json"
    big.write_bytes(b'{"a":"' + b"x" * (3 * 1024 * 1024) + b'"}')
    tracemalloc.start()
    value = files.read_json_file(path)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert value == {"agentType": "Explore"}
    assert peak < 4 * 1024 * 1024
    assert files.read_json_file(big) == {"a": "x" * (3 * 1024 * 1024)}
    assert files.read_json_file(big, limit=3 * 1024 * 1024) is None  # over: None
    assert files.read_small(big, big.stat().st_size) == big.read_bytes()


def test_truncated_last_line_is_noted_as_unfinished_not_skipped(
    tmp_path: Path,
) -> None:
    """A last line with no newline that does not parse may still be being written."""
    path = write_lines(
        tmp_path / "a.jsonl", [b'{"a":1}', b'{"b":'], final_newline=False
    )
    diagnostics = Diagnostics()
    assert [value for _, value in files.iter_records(path, diagnostics)] == [{"a": 1}]
    assert diagnostics.skipped == {} and diagnostics.details == []
    assert diagnostics.unfinished == {str(path): 5}


def test_hold_partial_waits_for_the_newline(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "a.jsonl", [b'{"a":1}', b'{"b":2}'], final_newline=False
    )
    got = list(files.iter_records(path, hold_partial=True))
    assert [value for _, value in got] == [{"a": 1}]
    assert got[-1][0].end == len(b'{"a":1}\n')


def test_bad_lines_are_counted_by_reason(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "a.jsonl", [b"not json", b"[1,2]", b'{"ok":1}'])
    diagnostics = Diagnostics()
    assert [v for _, v in files.iter_records(path, diagnostics)] == [{"ok": 1}]
    assert diagnostics.skipped == {"not JSON": 1, "not an object": 1}


def test_tail_drops_the_cut_first_line(tmp_path: Path) -> None:
    lines = [orjson.dumps({"n": i, "pad": "x" * 100}) for i in range(2000)]
    path = write_lines(tmp_path / "a.jsonl", lines)
    tail = files.tail_lines(path, nbytes=4096)
    values = [orjson.loads(line.data) for line in tail]
    assert values[-1]["n"] == 1999
    assert all(isinstance(v, dict) for v in values)
    assert len(tail) < 40


def test_tail_of_a_small_file_keeps_the_first_line(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "a.jsonl", [b'{"a":1}', b'{"b":2}'])
    assert [line.data for line in files.tail_lines(path)] == [b'{"a":1}', b'{"b":2}']


def test_zstd_files_read_like_plain_ones(tmp_path: Path) -> None:
    raw = b'{"a":1}\n{"b":2}\n'
    path = tmp_path / "a.jsonl.zst"
    path.write_bytes(zstandard.ZstdCompressor().compress(raw))
    assert [v for _, v in files.iter_records(path)] == [{"a": 1}, {"b": 2}]
    assert [line.data for line in files.tail_lines(path)] == [b'{"a":1}', b'{"b":2}']
    assert [line.data for line in files.head_lines(path, 1)] == [b'{"a":1}']


def test_the_tail_of_a_zstd_file_is_the_plain_ones_offsets_too(tmp_path: Path) -> None:
    lines = [orjson.dumps({"n": i, "pad": "x" * 100}) for i in range(2000)]
    plain = write_lines(tmp_path / "a.jsonl", lines)
    packed = tmp_path / "a.jsonl.zst"
    packed.write_bytes(zstandard.ZstdCompressor().compress(plain.read_bytes()))
    for nbytes in (4096, 10**7):  # cut (its first piece dropped), and whole
        tail = files.tail_lines(plain, nbytes=nbytes)
        assert files.tail_lines(packed, nbytes=nbytes) == tail
        assert files.tail_bytes(packed, nbytes) == files.tail_bytes(plain, nbytes)
        assert orjson.loads(tail[-1].data)["n"] == 1999


def test_iter_lines_from_an_offset(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "a.jsonl", [b'{"a":1}', b'{"b":2}'])
    got = list(files.iter_records(path, offset=8, first_number=2))
    assert [(line.number, value) for line, value in got] == [(2, {"b": 2})]


def test_line_start_moves_an_offset_inside_a_line_to_the_next_line(
    tmp_path: Path,
) -> None:
    # what a read from an offset (`show --tail`) starts at: a whole line, never a piece
    long = b"x" * (files.CHUNK + 10)  # the next newline is a chunk further on
    path = write_lines(
        tmp_path / "a.jsonl", [b'{"a":1}', long, b'{"b":2}', b"cut"], False
    )
    second, third = 8, 8 + len(long) + 1
    size = path.stat().st_size
    assert files.line_start(path, 0) == 0
    assert files.line_start(path, second) == second  # a line starts there
    assert files.line_start(path, 3) == second
    assert files.line_start(path, second + 1) == third
    assert files.line_start(path, third + 2) == third + 8
    assert files.line_start(path, size - 1) == size  # inside the unfinished last line


def _make_wal_db(path: Path) -> sqlite3.Connection:
    writer = sqlite3.connect(path)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute("CREATE TABLE t (id INTEGER)")
    writer.execute("INSERT INTO t VALUES (1)")
    writer.commit()
    writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    writer.execute("INSERT INTO t VALUES (2)")
    writer.execute("CREATE TABLE only_in_wal (x TEXT)")
    writer.commit()
    return writer


def _column(db: Path, sql: str) -> list[int]:
    """The first column of a query's rows, read as sessdex reads the app's database."""
    connection = databases.open_sqlite(db)
    try:
        return [row[0] for row in connection.execute(sql)]
    finally:
        connection.close()


def test_sqlite_with_wal_sees_uncheckpointed_rows_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    app = tmp_path / "app"
    app.mkdir()
    writer = _make_wal_db(app / "state.sqlite")
    before = {p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in app.iterdir()}
    connection = databases.open_sqlite(app / "state.sqlite")
    assert [r[0] for r in connection.execute("SELECT id FROM t ORDER BY id")] == [1, 2]
    assert "x" in databases.table_columns(connection, "only_in_wal")
    connection.close()
    after = {p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in app.iterdir()}
    assert after == before
    writer.close()


def test_a_running_apps_database_is_copied_again_only_when_it_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the app only appends to its WAL, a new snapshot adds what it appended to
    the copy of the WAL and still sees every row; after a checkpoint wrote into the
    database, it is copied again. The copy is opened read-only, so closing it never
    folds the WAL into it."""
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    monkeypatch.setattr(databases, "FRESH_SECONDS", 0.0)  # every read sees every write
    monkeypatch.setattr(databases, "REFRESH_DATABASE_SECONDS", 0.0)
    app = tmp_path / "app"
    app.mkdir()
    db = app / "state.sqlite"
    writer = _make_wal_db(db)

    def ids() -> list[int]:
        return _column(db, "SELECT id FROM t ORDER BY id")

    def copy() -> Path:
        [found] = [p for p in (tmp_path / "state").rglob("state.sqlite") if p.is_file()]
        return found

    def wal() -> os.stat_result:
        return Path(str(copy()) + "-wal").stat()

    assert ids() == [1, 2]
    first, first_wal = copy().stat(), wal()
    assert copy().read_bytes() == db.read_bytes()  # closing did not checkpoint into it
    writer.execute("INSERT INTO t VALUES (3)")
    writer.commit()
    assert ids() == [1, 2, 3]  # the row only the WAL holds
    again = copy().stat()
    assert (again.st_ino, again.st_mtime_ns) == (first.st_ino, first.st_mtime_ns)
    assert wal().st_ino == first_wal.st_ino  # appended to, not copied again
    assert wal().st_size == Path(str(db) + "-wal").stat().st_size
    writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the app folds its WAL in
    writer.execute("INSERT INTO t VALUES (4)")
    writer.commit()
    assert ids() == [1, 2, 3, 4]
    assert copy().read_bytes() == db.read_bytes()  # patched, and left as patched
    writer.close()


def test_one_snapshot_serves_a_process_and_each_process_has_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`usage` reads thousands of sessions of one database: they share one snapshot while
    the database is unchanged. Two sessdex processes never pull files from under each
    other: each links the one shared copy of the database into a folder of its own."""
    import subprocess
    import sys

    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    app = tmp_path / "app"
    app.mkdir()
    db = app / "state.sqlite"
    writer = _make_wal_db(db)
    for _ in range(3):
        databases.open_sqlite(db).close()
    [mine] = [p for p in (tmp_path / "state").rglob("state.sqlite-wal")]
    made = mine.stat()
    for _ in range(3):
        databases.open_sqlite(db).close()
    assert (mine.stat().st_ino, mine.stat().st_mtime_ns) == (
        made.st_ino,
        made.st_mtime_ns,
    )
    other = (
        "import sys; from sessdex import databases; "
        "c = databases.open_sqlite(sys.argv[1]); "
        "print(c.execute('SELECT count(*) FROM t').fetchone()[0])"
    )
    result = subprocess.run(
        [sys.executable, "-c", other, str(db)],
        capture_output=True,
        text=True,
        env={**os.environ},
        check=True,
    )
    assert result.stdout.strip() == "2"
    copies = sorted(p for p in (tmp_path / "state").rglob("state.sqlite"))
    assert len(copies) == 2 and copies[0].parent != copies[1].parent
    [base] = [p for p in (tmp_path / "state").rglob("base-*")]
    assert base.stat().st_nlink == 3  # the base and one link per process
    # the other process ended: its folder goes at the next copy made here
    writer.execute("INSERT INTO t VALUES (3)")
    writer.commit()
    monkeypatch.setattr(databases, "FRESH_SECONDS", 0.0)
    databases.open_sqlite(db).close()
    assert len(list((tmp_path / "state").rglob("state.sqlite"))) == 1
    writer.close()


def test_a_snapshot_goes_once_its_app_closes_the_wal_and_a_read_behind_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A snapshot serves no read once the app has no WAL (the database opens as it is):
    the next open removes it. A snapshot a moment old serves a read after a write (one
    copy a second at most while the app streams): `snapshot_current` says it is behind,
    so `watch` reads again."""
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    monkeypatch.setattr(databases, "FRESH_SECONDS", 3600.0)
    app = tmp_path / "app"
    app.mkdir()
    db = app / "state.sqlite"
    writer = _make_wal_db(db)
    snapshots = tmp_path / "state" / "cache" / "snapshots"

    def count() -> int:
        return int(_column(db, "SELECT count(*) FROM t")[0])

    assert count() == 2 and databases.snapshot_current(db)
    writer.execute("INSERT INTO t VALUES (3)")
    writer.commit()
    assert count() == 2 and not databases.snapshot_current(db)
    monkeypatch.setattr(databases, "FRESH_SECONDS", 0.0)
    assert count() == 3 and databases.snapshot_current(db)
    assert list(snapshots.rglob("state.sqlite"))
    writer.close()  # the last connection checkpoints and removes the WAL
    assert not (app / "state.sqlite-wal").exists()
    assert count() == 3
    assert not list(snapshots.rglob("state.sqlite"))


def test_a_snapshot_needs_room_and_leaves_nothing_when_there_is_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cache usually shares a disk with the apps: a copy that would leave less than
    SPARE_BYTES free is refused with a message that says what to do, before a byte is
    written; a copy the disk runs out under is removed."""
    import shutil
    from collections import namedtuple

    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    app = tmp_path / "app"
    app.mkdir()
    writer = _make_wal_db(app / "state.sqlite")
    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(
        shutil, "disk_usage", lambda _path: usage(10**9, 10**9 - 1000, 1000)
    )
    with pytest.raises(OSError, match=r"no room for a .* snapshot") as raised:
        databases.open_sqlite(app / "state.sqlite")
    assert "SESSDEX_HOME" in str(raised.value)
    snapshots = tmp_path / "state" / "cache" / "snapshots"
    assert not [p for p in snapshots.rglob("*") if p.is_file() and p.name != "source"]
    monkeypatch.undo()
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))

    def full(source: str, target: Path) -> None:
        Path(target).write_bytes(b"half a copy")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(shutil, "copyfile", full)
    with pytest.raises(OSError, match="No space"):
        databases.open_sqlite(app / "state.sqlite")
    assert not [p for p in snapshots.rglob("*") if p.is_file() and p.name != "source"]
    writer.close()


def test_snapshots_of_gone_or_unused_databases_are_pruned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A snapshot holds a whole copy of an app's database: one whose database was deleted
    goes at the next pruning, one unused for a week too; pruning runs once a day."""
    import time

    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    app = tmp_path / "app"
    app.mkdir()
    writers = {
        name: _make_wal_db(app / name) for name in ("kept.db", "gone.db", "old.db")
    }
    for name in writers:
        databases.open_sqlite(app / name).close()
    snapshots = tmp_path / "state" / "cache" / "snapshots"

    def copied() -> set[str]:
        return {p.name for p in snapshots.rglob("*.db")}

    def folder_of(name: str) -> Path:  # the database's snapshot folder
        [copy] = snapshots.rglob(name)
        return copy.parent.parent

    assert copied() == {"kept.db", "gone.db", "old.db"}
    writers["gone.db"].close()
    (app / "gone.db").unlink()
    (app / "gone.db-wal").unlink(missing_ok=True)  # closing folded it in
    in_app = sorted(p.name for p in app.iterdir())
    old = folder_of("old.db")
    week_ago = time.time() - 8 * 24 * 3600
    os.utime(old, (week_ago, week_ago))
    freed = databases.prune_snapshots()
    assert copied() == {"kept.db"}
    assert freed > 0
    databases.open_sqlite(app / "old.db").close()  # used again: copied again
    assert copied() == {"kept.db", "old.db"}
    old = folder_of("old.db")
    os.utime(old, (week_ago, week_ago))
    assert databases.prune_snapshots() == 0  # pruned less than a day ago: not again
    assert copied() == {"kept.db", "old.db"}
    assert databases.prune_snapshots(time.time() + 25 * 3600) > 0
    assert copied() == {"kept.db"}
    assert sorted(p.name for p in app.iterdir()) == in_app  # the app's own untouched
    for writer in writers.values():
        writer.close()


def test_sqlite_without_wal_opens_immutable(tmp_path: Path) -> None:
    db = tmp_path / "plain.sqlite"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE t (id INTEGER)")
    conn.execute("INSERT INTO t VALUES (7)")
    conn.commit()
    conn.close()
    os.chmod(tmp_path, 0o555)
    try:
        connection = databases.open_sqlite(db)
        assert connection.execute("SELECT id FROM t").fetchall() == [(7,)]
        connection.close()
        assert sorted(p.name for p in tmp_path.iterdir()) == ["plain.sqlite"]
    finally:
        os.chmod(tmp_path, 0o755)


def test_a_database_gone_since_it_was_listed_is_not_created_again(
    tmp_path: Path,
) -> None:
    """Opened in place, a database was opened read-write: one the app removed between
    `list` and the read came back as an empty database file in the app's folder, and a
    write through the connection reached the app's file."""
    db = tmp_path / "store.db"
    with pytest.raises(sqlite3.OperationalError):
        databases.open_sqlite(db).execute("SELECT 1 FROM sqlite_master").fetchall()
    assert not db.exists()
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE t (id INTEGER)")
    conn.commit()
    conn.close()
    connection = databases.open_sqlite(db)
    try:
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            connection.execute("INSERT INTO t VALUES (1)")
    finally:
        connection.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["store.db"]


def test_entries_skip_links_above_the_root_and_follow_links_elsewhere(
    tmp_path: Path,
) -> None:
    """A project folder kept on another disk is listed; a link to the root's own parent
    (or `/`) would list everything and is not; nor is a credential file, whatever a
    link to it is called."""
    root = tmp_path / "root"
    root.mkdir()
    (root / "b").write_text("x")
    (root / "a").symlink_to(tmp_path)
    (root / "c").symlink_to(root / "b")
    (root / "slash").symlink_to("/")
    elsewhere = tmp_path / "disk" / "project"
    elsewhere.mkdir(parents=True)
    (root / "d").symlink_to(elsewhere)
    (root / "auth.json").write_text("{}")
    (tmp_path / "disk" / "auth.json").write_text("{}")
    (root / "e.jsonl").symlink_to(tmp_path / "disk" / "auth.json")
    assert [e.name for e in folders.entries(root, root)] == ["b", "c", "d"]
    assert folders.entries(tmp_path / "missing") == []


def test_a_login_known_by_its_folder_is_never_listed_nor_opened(tmp_path: Path) -> None:
    """Auggie's login is `~/.augment/session.json`: that name in that folder (in any
    case, or through a link) is never listed nor opened; a `session.json` elsewhere is
    any file."""
    login = tmp_path / ".augment" / "session.json"
    login.parent.mkdir()
    login.write_text('{"accessToken": "secret"}')
    (tmp_path / ".augment" / "oauth-state.json").write_text("{}")
    (tmp_path / ".augment" / "settings.json").write_text("{}")
    other = tmp_path / "project" / "session.json"
    other.parent.mkdir()
    other.write_text("{}")
    (other.parent / "s.json").symlink_to(login)
    assert [e.name for e in folders.entries(login.parent)] == ["settings.json"]
    assert [e.name for e in folders.entries(other.parent)] == ["session.json"]
    for path in (login, other.parent / "s.json"):
        with pytest.raises(OSError):
            files.open_regular(path)
    with files.open_regular(other) as stream:
        assert stream.read() == b"{}"
    assert folders.is_credential_path(tmp_path / ".Augment" / "Session.JSON")


def test_a_login_known_by_its_folder_is_refused_through_a_linked_folder(
    tmp_path: Path,
) -> None:
    """A folder linked to `~/.augment` under another name (`~/alias`) holds the same
    login: `alias/session.json` is neither listed nor opened."""
    login = tmp_path / ".augment" / "session.json"
    login.parent.mkdir()
    login.write_text('{"accessToken": "secret"}')
    (tmp_path / ".augment" / "settings.json").write_text("{}")
    alias = tmp_path / "alias"
    alias.symlink_to(login.parent)
    assert [e.name for e in folders.entries(alias)] == ["settings.json"]
    with pytest.raises(OSError):
        files.open_regular(alias / "session.json")


def test_a_link_to_a_folder_that_holds_it_is_not_walked_again(tmp_path: Path) -> None:
    """`projects/loop -> .` (or to any folder above the link, inside the root) would list
    the same transcripts again at every depth, up to the system's link limit."""
    from sessdex.sources import Home, claude

    projects = tmp_path / ".claude" / "projects"
    (projects / "-w-app").mkdir(parents=True)
    (projects / "-w-app" / "s.jsonl").write_text("{}\n")
    (projects / "loop").symlink_to(".")
    (projects / "-w-app" / "up").symlink_to(projects)
    assert [e.name for e in folders.entries(projects, projects.parent)] == ["-w-app"]
    walked = list(claude.usage_files(claude.locate(Home.at(tmp_path))))
    assert walked == [str(projects / "-w-app" / "s.jsonl")]


def test_compactor_handles_escapes_split_across_feeds() -> None:
    compactor = files.Compactor()
    text = b'{"a":"' + b"x" * (files.KEEP_STRING + 10) + b"\\", b'"y","b":"ok\\"q"}'
    compactor.feed(text[0])
    compactor.feed(text[1])
    value = orjson.loads(bytes(compactor.out))
    assert files.elided(value["a"])[0] == files.KEEP_STRING + 13  # type: ignore[index]
    assert value["b"] == 'ok"q'


def test_compactor_finds_each_long_strings_end_past_escapes_wherever_feeds_split() -> (
    None
):
    """Past what it keeps of a long string, the compactor looks only for its closing
    quote: quotes after odd runs of backslashes, runs cut by a feed, are not that."""
    rng = random.Random(7)
    pieces = ["\\", '"', "\\\\", '\\"', "\n", "abc ", "é", "\t"]
    values = {
        f"k{n}": "".join(rng.choice(pieces) for _ in range(size))
        for n, size in enumerate(
            (10, files.KEEP_STRING // 3, files.KEEP_STRING, 40_000)
        )
    }
    data = orjson.dumps(values)
    for _ in range(20):
        compactor = files.Compactor()
        cuts = sorted(rng.sample(range(1, len(data)), 30))
        for start, end in zip([0, *cuts], [*cuts, len(data)], strict=True):
            compactor.feed(data[start:end])
        got = orjson.loads(bytes(compactor.out))
        assert list(got) == list(values)
        for key, value in values.items():
            raw = len(orjson.dumps(value)) - 2
            if raw <= files.KEEP_STRING:
                assert got[key] == value
            else:
                assert files.elided(got[key])[0] == raw  # type: ignore[index]


def test_head_counts_skipped_lines_and_stops_at_its_byte_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    big = b'{"x":"' + b"A" * (2 * files.CHUNK) + b'"}'
    path = write_lines(tmp_path / "a.jsonl", [b'{"n":1}', big, b'{"n":3}', b'{"n":4}'])
    assert [line.number for line in files.head_lines(path, 3)] == [1, 3]
    # real lines, then a long run of bytes with no newline (written: a hole, passed over
    # unread, is no test of the budget; test_sparse_files.py)
    sparse = tmp_path / "long.jsonl"
    with open(sparse, "wb") as out:
        out.write(b'{"n":1}\n')
        for _ in range(24):
            out.write(b"A" * 1024 * 1024)
    monkeypatch.setattr(files, "HEAD_BYTES", 8 * 1024 * 1024)
    read: list[int] = []
    original = files.open_binary

    def counting_open(name):  # type: ignore[no-untyped-def]
        stream = original(name)
        real_read = stream.read

        def read_and_count(size: int = -1) -> bytes:
            data = real_read(size)
            read.append(len(data))
            return data

        stream.read = read_and_count  # type: ignore[method-assign]
        return stream

    monkeypatch.setattr(files, "open_binary", counting_open)
    diagnostics = Diagnostics()
    assert [
        line.data for line in files.head_lines(sparse, diagnostics=diagnostics)
    ] == [b'{"n":1}']
    assert sum(read) <= 8 * 1024 * 1024 + 2 * files.CHUNK
    assert diagnostics.skipped == {"too long": 1}


def _head_by_the_rules(
    content: bytes, max_lines: int, cap: int
) -> tuple[list[files.Line], list[int]]:
    """What `head_lines` must return, by its rules on the whole content at once: the first
    `max_lines` lines, those over `cap` skipped (their numbers returned) but counted."""
    kept: list[files.Line] = []
    skipped: list[int] = []
    pieces = content.split(b"\n")
    offset = 0
    for number, piece in enumerate(pieces[:max_lines], 1):
        complete = number < len(pieces)
        if not complete and not piece:
            break  # the file ends with a newline
        end = offset + len(piece) + complete
        if len(piece) > cap:
            skipped.append(number)
        else:
            kept.append(files.Line(number, offset, piece, end, complete))
        offset = end
    return kept, skipped


def _random_lines(draw: random.Random, cap: int) -> bytes:
    """A file's content of a few lines of `x`: empty, at the cap `cap` and just over,
    many caps long, or anything up to it; a last newline or none."""
    lengths = [0, 1, cap - 1, cap, cap + 1, 2 * cap, 9 * cap]
    count = draw.choice([0, 1, 2, 5, 30])
    lines = [
        b"x" * (draw.choice(lengths) if draw.random() < 0.3 else draw.randint(0, cap))
        for _ in range(count)
    ]
    return b"\n".join(lines) + (b"\n" if draw.random() < 0.5 else b"")


def test_the_head_split_follows_the_line_rules_for_any_lengths_and_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Listing's one head splitter (`split_head`, behind `head_lines` and the Claude and
    Codex listings) against the rules applied to the whole file: lines empty, at the cap
    and just over, many caps long, no last newline, reads that end anywhere in a line."""
    cap = 50
    monkeypatch.setattr(files, "LINE_CAP", cap)
    draw = random.Random(7)
    path = tmp_path / "a.jsonl"
    for trial in range(600):
        monkeypatch.setattr(files, "CHUNK", draw.choice([3, 16, 64, 4096]))
        monkeypatch.setattr(files, "HEAD_PROBE", draw.choice([1, 7, 40, 4096]))
        content = _random_lines(draw, cap)
        path.write_bytes(content)
        max_lines = draw.choice([1, 3, 80])
        expected, skipped = _head_by_the_rules(content, max_lines, cap)
        diagnostics = Diagnostics()
        assert files.head_lines(path, max_lines, diagnostics=diagnostics) == expected, (
            trial
        )
        assert diagnostics.skipped == ({"too long": len(skipped)} if skipped else {})
        # the block form: one search over `data` finds what the lines hold
        whole = files.split_head(content, None, whole=True, max_lines=max_lines)
        assert whole is not None
        assert whole.lines() == expected, trial
        assert [index + 1 for index in whole.too_long] == skipped, trial
        # Claude searches `data[:end]` whole: the lines, each skipped one left empty
        pieces = content.split(b"\n")
        held = [b"" if n in skipped else p for n, p in enumerate(pieces, 1)][:max_lines]
        last = len(held) == len(pieces)  # the last piece: no newline after it
        block = b"\n".join(held) + (b"" if last else b"\n")
        assert whole.data[: whole.end] == block, trial


def test_lines_with_finds_a_marker_between_the_ends_newest_first(
    tmp_path: Path,
) -> None:
    """What an app writes once mid-file is found by a backward search of the span the
    ends leave out: whole lines only, across chunk boundaries, never a line that starts
    before the span or is too long to take, nothing past the cap."""
    marker = b'"session_info"'
    lines = [b'{"x":"%s"}' % (b"a" * (n % 300)) for n in range(30_000)]
    wanted = {17, 9_000, 21_345}
    for n in wanted:
        lines[n] = b'{"type":"session_info","n":%d}' % n
    lines[25_000] = (
        b'{"pad":"' + b"b" * (files.LINE_CAP + 10) + b'","m":' + marker + b"}"
    )
    path = tmp_path / "f.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    size = path.stat().st_size
    found = [line.data for line in files.lines_with(path, marker, 0, size)]
    assert found == [lines[n] for n in sorted(wanted, reverse=True)]
    for line in files.lines_with(path, marker, 0, size):
        assert path.read_bytes()[line.offset : line.end - 1] == line.data
    # a span starting inside a line leaves that line out
    inside = path.read_bytes().index(lines[9_000]) + 3
    assert [line.data for line in files.lines_with(path, marker, inside, size)] == [
        lines[21_345]
    ]
    diagnostics = Diagnostics()
    found = files.lines_with(
        path, marker, 0, size, cap=size - 1, diagnostics=diagnostics
    )
    assert list(found) == []
    [said] = diagnostics.problems  # a span past the cap is said, not silently left out
    assert str(path) in said and "not searched" in said and "session_info" in said


def test_without_hard_links_a_process_keeps_its_own_copy_and_tops_up_its_wal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cache on a file system without hard links (FAT, some network shares): the
    process copies the shared base once, then only adds to its WAL while the app
    appends; its copy was made anew from the base at every change."""
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    monkeypatch.setattr(databases, "FRESH_SECONDS", 0.0)

    def no_links(source: object, target: object) -> None:
        raise OSError(1, "Operation not permitted")

    monkeypatch.setattr(databases.os, "link", no_links)
    app = tmp_path / "app"
    app.mkdir()
    db = app / "state.sqlite"
    writer = _make_wal_db(db)
    connection = databases.open_sqlite(db)
    connection.close()
    [copy] = [p for p in (tmp_path / "state").rglob("state.sqlite")]
    made = copy.stat()
    writer.execute("INSERT INTO t VALUES (3)")
    writer.commit()
    assert _column(db, "SELECT id FROM t ORDER BY id") == [1, 2, 3]
    assert (copy.stat().st_ino, copy.stat().st_mtime_ns) == (
        made.st_ino,
        made.st_mtime_ns,
    )
    writer.close()


def test_a_wal_the_app_restarted_in_place_is_followed_frame_by_frame(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After a checkpoint the app writes its WAL anew from its start, over the frames of
    the last generation, the file keeping its size: a top-up that only looked at the
    file's length copied nothing, and `watch` read old rows, sure they were current."""
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    monkeypatch.setattr(databases, "FRESH_SECONDS", 0.0)
    monkeypatch.setattr(databases, "REFRESH_DATABASE_SECONDS", 0.0)
    db = tmp_path / "app" / "opencode.db"
    db.parent.mkdir()
    app = sqlite3.connect(db, isolation_level=None)
    app.execute("PRAGMA journal_mode=WAL")
    app.execute("PRAGMA wal_autocheckpoint=0")
    app.execute("CREATE TABLE part (id INTEGER PRIMARY KEY, data TEXT)")
    for _ in range(200):
        app.execute("INSERT INTO part (data) VALUES (?)", ("x" * 4000,))
    app.execute("PRAGMA wal_checkpoint(PASSIVE)")
    app.execute("INSERT INTO part (data) VALUES ('after the restart')")

    def seen() -> int:
        return int(_column(db, "SELECT count(*) FROM part")[0])

    assert seen() == 201
    size = (db.parent / "opencode.db-wal").stat().st_size
    for n in range(3):
        app.execute("INSERT INTO part (data) VALUES (?)", (f"new {n}",))
        assert (db.parent / "opencode.db-wal").stat().st_size == size  # in place
        assert seen() == 202 + n and databases.snapshot_current(db)
    [copy] = (tmp_path / "state").rglob("opencode.db-wal")
    assert copy.stat().st_size < size / 10  # the new generation's frames only
    app.close()


def test_a_one_shot_run_reads_one_snapshot_and_knows_when_it_is_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A command that reads a database many times (`usage`, a listing then a read) sees
    one consistent state, copied once, however fast the app writes meanwhile."""
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    app = tmp_path / "app"
    app.mkdir()
    db = app / "state.sqlite"
    writer = _make_wal_db(db)

    def count() -> int:
        return int(_column(db, "SELECT count(*) FROM t")[0])

    assert count() == 2
    [copy] = (tmp_path / "state").rglob("state.sqlite-wal")
    made = copy.stat()
    writer.execute("INSERT INTO t VALUES (3)")
    writer.commit()
    assert count() == 2 and not databases.snapshot_current(db)
    assert copy.stat().st_mtime_ns == made.st_mtime_ns
    writer.close()


def test_a_database_that_changes_during_every_copy_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Checkpoints faster than a copy: after its tries, the open says so, and leaves no
    partial copy (it returned the path of a copy never made: "unable to open")."""
    import itertools

    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    app = tmp_path / "app"
    app.mkdir()
    db = app / "state.sqlite"
    writer = _make_wal_db(db)
    ticks = itertools.count()
    real = databases._fingerprint

    def moving(name: str) -> databases.Fingerprint:
        (size, _, headers), wal = real(name)
        return ((size, next(ticks), headers), wal)  # a new mtime at every look

    monkeypatch.setattr(databases, "_fingerprint", moving)
    with pytest.raises(OSError, match="changed during every try"):
        databases.open_sqlite(db)
    snapshots = tmp_path / "state" / "cache" / "snapshots"
    assert not [p for p in snapshots.rglob("*") if p.is_file() and p.name != "source"]
    writer.close()


def test_a_copy_a_killed_process_left_is_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SIGTERM or SIGKILL in the middle of a copy leaves its partial file (a GB of a big
    database): the next snapshot of that database removes it."""
    import subprocess
    import sys

    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    app = tmp_path / "app"
    app.mkdir()
    db = app / "state.sqlite"
    writer = _make_wal_db(db)
    databases.open_sqlite(db).close()
    [folder] = (tmp_path / "state" / "cache" / "snapshots").iterdir()
    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                           capture_output=True, text=True, check=True)  # fmt: skip
    left = folder / f".partial-{ended.stdout.strip()}"
    left.write_bytes(b"half a database")
    writer.execute("INSERT INTO t VALUES (3)")
    writer.commit()
    databases.forget_snapshots()  # as a new process would
    databases.open_sqlite(db).close()
    assert not left.exists()
    writer.close()


def test_a_process_that_sees_no_wal_leaves_another_processs_snapshot_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The app closes its WAL while two sessdex processes read: the one that opens the
    database as it is now removed the whole snapshot folder, the other's copies and the
    shared base included (its reads failed)."""
    import subprocess
    import sys

    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    app = tmp_path / "app"
    app.mkdir()
    db = app / "state.sqlite"
    writer = _make_wal_db(db)
    other = subprocess.Popen(
        [sys.executable, "-c",
         "import sys; from sessdex import databases; c = databases.open_sqlite(sys.argv[1]);"
         " print(c.execute('SELECT count(*) FROM t').fetchone()[0], flush=True);"
         " sys.stdin.readline(); print(c.execute('SELECT count(*) FROM t').fetchone()[0])",
         str(db)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env={**os.environ},
    )  # fmt: skip
    assert other.stdout is not None and other.stdin is not None
    assert other.stdout.readline().strip() == "2"
    writer.close()  # the app closes its WAL: the database is read as it is
    databases.open_sqlite(db).close()
    assert list((tmp_path / "state").rglob("base-*"))  # the other's copies stay
    out, _ = other.communicate("go\n", timeout=30)
    assert out.strip() == "2" and other.returncode == 0
    databases.open_sqlite(db).close()  # now no one holds it: it goes
    assert not list((tmp_path / "state").rglob("base-*"))


def test_an_empty_wal_is_read_from_a_snapshot_never_half_a_transaction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An empty `-wal` (a TRUNCATE checkpoint, or no write yet) means the app has its
    database open: read in place, a commit and a checkpoint between two queries of one
    read showed a part whose message was not there (half a transaction). A snapshot
    shows the database as it was when the read began."""
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    app = tmp_path / "app"
    app.mkdir()
    db = app / "store.db"
    writer = sqlite3.connect(db, isolation_level=None)
    writer.execute("PRAGMA journal_mode = WAL")
    writer.execute("CREATE TABLE message (id TEXT PRIMARY KEY)")
    writer.execute("CREATE TABLE part (message_id TEXT, data TEXT)")
    writer.execute("INSERT INTO message VALUES ('m1')")
    writer.execute("INSERT INTO part VALUES ('m1', 'a')")
    writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    assert (app / "store.db-wal").stat().st_size == 0
    before = sorted(p.name for p in app.iterdir())
    connection = databases.open_sqlite(db)
    try:
        messages = [row[0] for row in connection.execute("SELECT id FROM message")]
        writer.execute("BEGIN")
        writer.execute("INSERT INTO message VALUES ('m2')")
        writer.execute("INSERT INTO part VALUES ('m2', 'b')")
        writer.execute("COMMIT")
        writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        parts = [row[0] for row in connection.execute("SELECT message_id FROM part")]
    finally:
        connection.close()
    assert (messages, parts) == (["m1"], ["m1"])
    assert sorted(p.name for p in app.iterdir()) == before
    monkeypatch.setattr(databases, "FRESH_SECONDS", 0.0)  # a read that follows writes
    monkeypatch.setattr(databases, "REFRESH_DATABASE_SECONDS", 0.0)
    assert _column(db, "SELECT id FROM message ORDER BY id") == ["m1", "m2"]
    writer.close()


def test_snapshot_sizes_count_a_linked_copy_once(tmp_path: Path) -> None:
    """A base and the process folders that link it are one copy on disk: `doctor`
    showed twice (or N+1 times) what the snapshots weigh."""
    folder = tmp_path / "snap"
    (folder / "123").mkdir(parents=True)
    (folder / "base-1-2").write_bytes(b"x" * 1000)
    os.link(folder / "base-1-2", folder / "123" / "app.db")
    (folder / "123" / "app.db-wal").write_bytes(b"y" * 10)
    assert databases.folder_size(folder) == 1010


def test_after_a_checkpoint_a_new_run_patches_the_old_copy_no_process_uses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A status line running `sessdex list` every few seconds beside an app that
    checkpoints: each run after a checkpoint copied the whole database anew. The copy
    of its older state that no process uses any more is patched where it differs."""
    import subprocess
    import sys

    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    app = tmp_path / "app"
    app.mkdir()
    db = app / "state.sqlite"
    writer = _make_wal_db(db)
    run = [sys.executable, "-c",
           "import sys; from sessdex import databases;"
           " print(databases.open_sqlite(sys.argv[1]).execute('SELECT count(*) FROM t').fetchone()[0])",
           str(db)]  # fmt: skip

    def one_run() -> str:
        done = subprocess.run(run, capture_output=True, text=True, env={**os.environ})
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    assert one_run() == "2"
    [first] = (tmp_path / "state").rglob("base-*")
    inode = first.stat().st_ino
    writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the database file changes
    writer.execute("INSERT INTO t VALUES (3)")
    writer.commit()
    assert one_run() == "3"
    [second] = (tmp_path / "state").rglob("base-*")
    assert second.name != first.name and second.stat().st_ino == inode  # patched
    assert second.read_bytes() == db.read_bytes()
    writer.close()


def test_iter_lines_follows_the_line_rules_for_any_lengths_and_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The streaming splitter (every JSONL reader's) against the rules applied to the
    whole file: numbers, offsets and data of each line wherever the reads end, a line
    a read began joined with the next read's first piece, lines at the cap and just
    over (skipped, counted), no last newline, `max_lines` and `hold_partial`."""
    cap = 50
    draw = random.Random(11)
    path = tmp_path / "a.jsonl"
    for trial in range(800):
        monkeypatch.setattr(files, "CHUNK", draw.choice([3, 16, 49, 50, 51, 64, 4096]))
        content = _random_lines(draw, cap)
        path.write_bytes(content)
        max_lines = draw.choice([None, 1, 3, 80])
        hold = draw.random() < 0.3
        expected, skipped = _head_by_the_rules(content, max_lines or 10**6, cap)
        if hold and expected and not expected[-1].complete:
            expected.pop()
        diagnostics = Diagnostics()
        with open(path, "rb") as stream:
            got = list(
                files.iter_lines(
                    stream,
                    cap=cap,
                    max_lines=max_lines,
                    hold_partial=hold,
                    diagnostics=diagnostics,
                )
            )
        assert got == expected, trial
        if not hold:
            assert diagnostics.skipped == (
                {"too long": len(skipped)} if skipped else {}
            ), trial


def test_a_long_array_of_numbers_is_elided_and_the_rest_of_the_line_kept(
    tmp_path: Path,
) -> None:
    """An image some apps keep as its bytes, `[137,80,…]`, makes a line too long even
    with its strings elided: the array becomes one marker and the typed text stays."""
    pixels = [(n * 37) % 256 for n in range(1_500_000)]
    record = {
        "kind": "Prompt",
        "content": [
            {"kind": "text", "data": "what is in this picture?"},
            {"kind": "image", "data": {"format": "png", "bytes": pixels}},
            {"kind": "text", "data": "and here"},
        ],
        "small": [1, 2.5, -3e2],
    }
    path = write_lines(tmp_path / "a.jsonl", [orjson.dumps(record), b'{"after":1}'])
    diagnostics = Diagnostics()
    got = list(files.iter_records(path, diagnostics=diagnostics))
    assert diagnostics.skipped == {}
    line, value = got[0]
    assert line.compacted
    content = value["content"]
    assert content[0]["data"] == "what is in this picture?"
    assert content[2]["data"] == "and here"
    (marker,) = content[1]["data"]["bytes"]
    assert files.elided(marker) == (len(orjson.dumps(pixels)) - 2, "numbers")
    assert value["small"] == [1, 2.5, -3e2]
    assert got[1][1] == {"after": 1}


def test_compactor_elides_long_arrays_of_numbers_wherever_feeds_split() -> None:
    """Arrays of numbers short and long, nested, followed by other items in the same
    array, or by strings: the JSON stays valid, short ones whole, long ones a marker."""
    rng = random.Random(11)
    long_numbers = [rng.randrange(-1000, 1000) for _ in range(files.KEEP_STRING // 2)]
    values = {
        "short": [1, 2, 3],
        "long": long_numbers,
        "mixed": [*long_numbers, "text after", {"k": [4, 5]}],
        "nested": [[*long_numbers], [6, 7]],
        "floats": [n / 7 for n in range(files.KEEP_STRING // 4)],
        "empty": [],
        "after": "tail",
    }
    data = orjson.dumps(values, option=orjson.OPT_INDENT_2)
    for _ in range(20):
        compactor = files.Compactor()
        cuts = sorted(rng.sample(range(1, len(data)), 40))
        for start, end in zip([0, *cuts], [*cuts, len(data)], strict=True):
            compactor.feed(data[start:end])
        got = orjson.loads(bytes(compactor.out))
        assert got["short"] == [1, 2, 3]
        assert got["empty"] == []
        assert got["after"] == "tail"
        assert [files.elided(item)[1] for item in got["long"]] == ["numbers"]  # type: ignore[index]
        assert files.elided(got["mixed"][0])[1] == "numbers"  # type: ignore[index]
        assert got["mixed"][1:] == ["text after", {"k": [4, 5]}]
        assert files.elided(got["nested"][0][0])[1] == "numbers"  # type: ignore[index]
        assert got["nested"][1] == [6, 7]
        assert len(got["floats"]) == 1


def test_the_check_for_another_users_file_never_opens_a_credential(
    tmp_path: Path,
) -> None:
    """`refuses_reading` tries to open a file to learn whether the system refuses it: never
    an agent's credential file, nor a link to one named like a session's file."""

    secret = tmp_path / ".codex" / "auth.json"
    secret.parent.mkdir()
    secret.write_text('{"token": "secret"}')
    link = tmp_path / "base_state.json"
    link.symlink_to(secret)
    with opened_files() as opened:
        assert files.refuses_reading(str(link)) is False
        assert files.refuses_reading(str(secret)) is False
    assert os.path.realpath(secret) not in opened


def test_say_if_refused_says_a_refused_file_once_and_nothing_of_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shut = tmp_path / "another_users.json"
    shut.write_text("{}")
    opener = os.open

    def refusing(path: object, *args: object, **kwargs: object) -> int:
        # as the kernel refuses another user's file (mode 000 would not stop root)
        if os.fspath(path) == str(shut):  # type: ignore[call-overload]
            raise PermissionError(13, "Permission denied", str(shut))
        return opener(path, *args, **kwargs)  # type: ignore[call-overload,arg-type]

    monkeypatch.setattr(os, "open", refusing)
    (tmp_path / "open.json").write_text("{}")
    diagnostics = Diagnostics()
    assert files.say_if_refused("someapp", shut, diagnostics)
    for other in (
        "open.json",
        "gone.json",
        ".",
    ):  # one that opens, a missing one, a folder
        assert not files.say_if_refused("someapp", tmp_path / other, diagnostics)
    assert diagnostics.problems == [
        f"someapp: could not open {shut} (permission denied)"
    ]


def test_take_tail_parses_the_lines_with_a_key_and_stamps_the_rest(
    tmp_path: Path,
) -> None:
    path = write_lines(
        tmp_path / "a.jsonl",
        [
            b'{"type":"model","model":"m1"}',  # read with the head
            b'{"type":"model","model":"m2"}',
            b'{"type":"text","time":5}',
            b"not JSON but model",
            b'{"type":"model","model":"m3"',  # torn: still being written
        ],
        final_newline=False,
    )
    taken: list[dict[str, object]] = []
    stamped: list[bytes] = []
    tail = files.tail_lines(path)
    files.take_tail(tail, 30, (b'"model"',), taken.append, stamped.append)
    assert taken == [{"type": "model", "model": "m2"}]
    assert stamped == [b'{"type":"text","time":5}', b"not JSON but model"]


def test_a_line_cut_anywhere_closes_up_as_an_object_or_none() -> None:
    # escapes, a surrogate pair, two-byte characters, nesting, numbers and literals:
    # every cut of the line is an object (its last string cut short) or None
    import json

    import orjson

    line = json.dumps(
        {"type": "user", "n": 12.5, "ok": True, "message": {"content": [
            {"type": "text", "text": 'a "quoted" \\ back\nslash é \U0001f600 \u00e9'},
            {"type": "image", "data": None},
        ]}},
    ).encode()  # fmt: skip
    for cut in range(len(line) + 1):
        closed = files.closed_opening(line[:cut])
        if closed is not None:
            assert isinstance(files.loads(closed), dict), (cut, closed)
    assert orjson.loads(files.closed_opening(line) or b"") == orjson.loads(line)
    cut_text = files.closed_opening(line[: line.index(b"back") + 2])
    assert cut_text and files.loads(cut_text) == {
        "type": "user", "n": 12.5, "ok": True,
        "message": {"content": [{"type": "text", "text": 'a "quoted" \\ ba\u2026'}]},
    }  # fmt: skip
    assert files.closed_opening(b'["a", "b"') is None  # no object


def test_a_text_holding_half_an_emoji_itself_is_read_with_one_replacement() -> None:
    """JSON text a reader holds as a string (a database row, a string in a document that
    `json` decoded) may hold a lone surrogate itself, not its escape: read as one U+FFFD,
    as the escape is, not three; an emoji's two halves together stay the emoji."""
    assert files.loads('{"a": "x\ud83dy"}') == {"a": "x\ufffdy"}
    assert files.loads('{"a": "x\\ud83dy"}') == {"a": "x\ufffdy"}
    assert files.loads('{"a": "\ud83d\ude00 \ud83d"}') == {"a": "\U0001f600 \ufffd"}
