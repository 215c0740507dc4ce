"""A huge value in another app's SQLite database is never held whole: it is read through
SQLite's blob IO and compacted like an over-long transcript line."""

from __future__ import annotations

import os
import resource
import sqlite3
from pathlib import Path

import orjson
import pytest

from sessdex import databases, files
from sessdex.diagnostics import Diagnostics


def database(path: Path, *values: object) -> Path:
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE part (id TEXT PRIMARY KEY, data)")  # any type
    connection.executemany(
        "INSERT INTO part VALUES (?, ?)", [(f"p{n}", v) for n, v in enumerate(values)]
    )
    connection.commit()
    connection.close()
    return path


def read(path: Path, rowid: int, **options: object) -> bytes | str | None:
    connection = databases.open_sqlite(path)
    try:
        return databases.bounded_value(connection, "part", "data", rowid, **options)  # type: ignore[arg-type]
    finally:
        connection.close()


def test_small_values_come_back_as_stored_and_odd_ones_as_none(tmp_path: Path) -> None:
    small = orjson.dumps({"type": "text", "text": "hello"}).decode()
    path = database(tmp_path / "a.db", small, None, 42, b'{"blob":1}')
    assert read(path, 1) == small.encode()
    assert read(path, 2) is None  # NULL: blob IO refuses it, the plain read says None
    assert read(path, 3) is None  # a number is no JSON text
    assert read(path, 4) == b'{"blob":1}'
    assert read(path, 99) is None  # no such row


def test_a_huge_value_has_its_long_strings_elided_unless_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(files, "READ_LINE_CAP", 200)
    monkeypatch.setattr(files, "KEEP_STRING", 50)
    monkeypatch.setattr(files, "CHUNK", 64)  # the value arrives in many pieces
    output = "x" * 5000
    huge = orjson.dumps({"type": "tool", "tool": "read", "output": output}).decode()
    path = database(tmp_path / "a.db", huge)
    value = orjson.loads(read(path, 1) or b"")
    assert value["type"] == "tool" and value["tool"] == "read"
    assert files.elided(value["output"]) == (5000, "x" * 48)
    assert read(path, 1, full=True) == huge.encode()


def test_a_value_too_long_even_compacted_is_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(files, "READ_LINE_CAP", 200)
    monkeypatch.setattr(files, "COMPACT_CAP", 400)
    many = orjson.dumps({"items": [f"item {n}" for n in range(200)]}).decode()
    path = database(tmp_path / "a.db", many)
    diagnostics = Diagnostics()
    assert read(path, 1, diagnostics=diagnostics, where="a.db#part/1") is None
    assert diagnostics.details == [("a.db#part/1", 0, "too long")]


def test_reading_a_60_mb_value_costs_far_less_than_60_mb(tmp_path: Path) -> None:
    output = "y" * (60 * 1024 * 1024)
    path = database(tmp_path / "a.db", orjson.dumps({"output": output}).decode())
    del output
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    value = orjson.loads(read(path, 1) or b"")
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before
    assert files.elided(value["output"]) is not None
    assert grown < 30 * 1024 * 1024  # a plain SELECT would hold 60 MB, then its copies


def test_text_in_a_utf16_database_is_read_as_text(tmp_path: Path) -> None:
    """Blob IO hands over a value's stored bytes; in a UTF-16 database those are not the
    UTF-8 JSON the readers parse, so such text is read the plain way."""
    path = tmp_path / "a.db"
    connection = sqlite3.connect(path)
    connection.execute('PRAGMA encoding = "UTF-16le"')
    connection.execute("CREATE TABLE part (id TEXT PRIMARY KEY, data TEXT)")
    connection.execute("INSERT INTO part VALUES ('p1', ?)", ('{"text": "héllo"}',))
    connection.commit()
    connection.close()
    assert orjson.loads(read(path, 1) or b"") == {"text": "héllo"}


LONG = "c0a1b2c3-0000-4000-8000-00000000aaaa"


def long_cursor_store(home: Path) -> Path:
    """A Cursor IDE store (no WAL) whose one conversation of 200 messages, of 3 kB each,
    spans some 200 pages; each answer counts 10 input and 1 output tokens."""
    from tests.sources.test_cursor_ide import at, composer, store

    bubbles = [(f"b{n:03d}", 1 if n % 2 == 0 else 2) for n in range(200)]
    rows: dict[str, object] = {
        f"composerData:{LONG}": composer(LONG, bubbles, name="Long")
    }
    for n, (bubble, kind) in enumerate(bubbles):
        rows[f"bubbleId:{LONG}:{bubble}"] = {
            "_v": 3, "type": kind, "text": f"message {n} " + "x" * 3000, "createdAt": at(n % 60),
            **({"tokenCount": {"inputTokens": 10, "outputTokens": 1}} if kind == 2 else {}),
        }  # fmt: skip
    return store(home, rows)


def tear_during_reads(
    monkeypatch: pytest.MonkeyPatch, db: Path, *, finished: bool
) -> list[int]:
    """The app rewrites the store's pages while the first read is on its 50th event (the
    second half of the file, zeroed, is what a read meets mid-write); with `finished`,
    its write is over when that read ends (read through or stopped). The reads made,
    counted."""
    import os

    from sessdex import sources

    whole = db.read_bytes()
    torn = whole[: len(whole) * 2 // 3] + bytes(len(whole) - len(whole) * 2 // 3)
    cursor_source = sources.get("cursor")
    original = cursor_source.read
    reads: list[int] = []

    def read(session, diagnostics, **options):  # type: ignore[no-untyped-def]
        reads.append(len(reads))
        try:
            for n, event in enumerate(original(session, diagnostics, **options)):
                if n == 50 and db.read_bytes() == whole and len(reads) == 1:
                    db.write_bytes(torn)
                yield event
        finally:
            if finished and db.read_bytes() == torn:
                db.write_bytes(whole)
                st = db.stat()
                os.utime(db, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))

    monkeypatch.setattr(cursor_source, "read", read)
    return reads


@pytest.mark.parametrize("finished", [True, False], ids=["then written", "left so"])
def test_a_conversation_torn_by_a_write_mid_read_is_read_on_without_repeats(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, finished: bool
) -> None:
    """The Cursor IDE writes its store in place (no WAL) while `show` reads it without a
    lock: pages change under the read, which stops with "malformed". Once the write is
    over, `show` reads on from where it stopped: every message once, no problem left. A
    store that stays broken is said to be broken, what came before it shown once."""
    import json as std_json

    from click.testing import CliRunner

    from sessdex.cli import main

    db = long_cursor_store(tmp_path)
    runner = CliRunner()
    listed = runner.invoke(main, ["list", "--json", "--home", str(tmp_path)])
    assert LONG in listed.stdout  # indexed while whole
    reads = tear_during_reads(monkeypatch, db, finished=finished)
    result = runner.invoke(main, ["show", LONG, "--json", "--home", str(tmp_path)])
    assert result.exit_code == 0, result.output
    texts = [e["text"] for e in std_json.loads(result.stdout) if e["kind"] != "usage"]
    said = [t for t in texts if t and t.startswith("message ")]
    if finished:
        assert len(reads) == 2
        assert [int(t.split()[1]) for t in said] == list(range(200))
        assert "malformed" not in result.stderr
    else:
        assert len(reads) == 2  # it changed during the first read, not the second
        assert 0 < len(said) < 200  # nothing read after the write began is given
        assert [int(t.split()[1]) for t in said] == list(range(len(said)))
        assert "malformed" in result.stderr


def test_usage_torn_by_a_write_is_counted_whole_once_the_store_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`usage` keeps each session's sums: a read that a write broke off is not kept, or
    the session would stay counted short until its next message. Counted while torn,
    the conversation is short and said to be; once whole, it counts all 100 answers."""
    from sessdex import api, sources
    from sessdex.sources import Home

    db = long_cursor_store(tmp_path)
    home = Home.at(tmp_path)
    assert LONG in api.list_sessions(home).ids
    whole = db.read_bytes()
    cursor_source = sources.get("cursor")
    original = cursor_source.read
    tear_during_reads(monkeypatch, db, finished=False)
    torn = api.usage_report(home, "app", apps=["cursor"])
    assert 0 < torn.total.output_tokens < 100
    problems = torn.collected.diagnostics["cursor"].problems
    assert any("malformed" in p for p in problems)
    monkeypatch.setattr(cursor_source, "read", original)
    db.write_bytes(whole)  # the app's write is over
    whole_count = api.usage_report(home, "app", apps=["cursor"])
    assert (whole_count.total.input_tokens, whole_count.total.output_tokens) == (
        1000,
        100,
    )
    assert not whole_count.collected.diagnostics["cursor"].problems


def test_a_write_under_way_in_a_rollback_journal_database_reads_what_was_committed(
    tmp_path: Path,
) -> None:
    """A writer in rollback-journal mode whose transaction spilled pages into the file
    (a hot `-journal` beside it): `immutable=1` read those half-written pages ("database
    disk image is malformed", an empty transcript). The committed rows come back, and
    nothing is written beside the app's database."""
    folder = tmp_path / "app"
    folder.mkdir()
    path = database(folder / "store.db", *(f"committed {n}" for n in range(10)))
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("PRAGMA journal_mode = DELETE")
    writer.execute("PRAGMA cache_size = 2")  # so the transaction spills into the file
    writer.execute("BEGIN IMMEDIATE")
    for batch in ("w", "v"):
        writer.executemany(
            "INSERT INTO part VALUES (?, ?)",
            [(f"{batch}{n}", "x" * 2000) for n in range(3000)],
        )
        writer.execute("UPDATE part SET data = 'not committed' WHERE id LIKE 'p%'")
    # the copy a run that ended left (each run copies into a folder of its own)
    import subprocess
    import sys

    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                           capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    stale = databases._snapshot_folder(str(path), "-journal") / ended
    stale.mkdir()
    (stale / "store.db").write_bytes(b"an old copy")
    try:
        assert (folder / "store.db-journal").exists()
        before = sorted(p.name for p in folder.iterdir())
        connection = databases.open_sqlite(path)
        try:
            rows = connection.execute("SELECT data FROM part ORDER BY rowid").fetchall()
            (count,) = connection.execute("SELECT count(*) FROM part").fetchone()
        finally:
            connection.close()
        assert [r[0] for r in rows] == [f"committed {n}" for n in range(10)]
        assert count == 10
        assert sorted(p.name for p in folder.iterdir()) == before
        assert not stale.exists()  # it left a whole copy of the database behind
    finally:
        writer.execute("ROLLBACK")
        writer.close()


def wal_database(path: Path) -> tuple[Path, sqlite3.Connection]:
    """A database an app keeps open in WAL mode, its newest row only in the WAL."""
    database(path, '{"text": "old"}')
    writer = sqlite3.connect(path)
    writer.execute("PRAGMA journal_mode = WAL")
    writer.execute("PRAGMA wal_autocheckpoint = 0")
    writer.execute("INSERT INTO part VALUES ('new', '{\"text\": \"new\"}')")
    writer.commit()
    return path, writer


def rows_of(path: Path) -> list[str]:
    connection = databases.open_sqlite(path)
    try:
        return [r[0] for r in connection.execute("SELECT id FROM part ORDER BY rowid")]
    finally:
        connection.close()


@pytest.fixture()
def fresh_stand_ins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(databases, "_stand_ins", {}, raising=False)
    monkeypatch.setattr(databases, "_stand_in_root", None, raising=False)


@pytest.mark.usefixtures("fresh_stand_ins")
@pytest.mark.parametrize("level", ["its own", "snapshots"])
def test_a_snapshot_folder_in_the_way_gives_a_stand_in_not_a_lost_database(
    tmp_path: Path, level: str, caplog: pytest.LogCaptureFixture
) -> None:
    path, writer = wal_database(tmp_path / "store.db")
    try:
        blocked = databases._folder_of(str(path))
        if level == "snapshots":  # the folder of all copies: the one to remove
            blocked = blocked.parent
        blocked.parent.mkdir(parents=True, exist_ok=True)
        blocked.write_text("not a folder")  # something else where its copies go
        assert rows_of(path) == ["p0", "new"]  # it was an error: the sessions vanished
        assert rows_of(path) == ["p0", "new"]
        warnings = [
            m for r in caplog.records if f"in {blocked} (" in (m := r.getMessage())
        ]
        assert len(warnings) == 1 and "remove it" in warnings[0]  # once, naming it
        assert blocked.read_text() == "not a folder"
    finally:
        writer.close()


@pytest.mark.usefixtures("fresh_stand_ins")
@pytest.mark.skipif(os.geteuid() == 0, reason="root writes in any folder")
def test_a_snapshot_folder_sudo_left_does_not_hide_the_database(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path, writer = wal_database(tmp_path / "store.db")
    blocked = databases._folder_of(str(path))
    blocked.mkdir(parents=True)
    blocked.chmod(0o555)  # as a `sudo -E sessdex` leaves it: ours to read, not write
    try:
        assert rows_of(path) == ["p0", "new"]
        assert any(str(blocked) in r.getMessage() for r in caplog.records)
    finally:
        blocked.chmod(0o755)
        writer.close()


@pytest.mark.usefixtures("fresh_stand_ins")
def test_a_copy_of_a_database_is_readable_by_its_user_only(tmp_path: Path) -> None:
    """An app's database may hold its login (a table of tokens in a 0600 file): the
    folder its copies go to lets no one else in, one made before this rule included."""
    path, writer = wal_database(tmp_path / "store.db")
    try:
        folder = databases._folder_of(str(path))
        folder.mkdir(parents=True)
        folder.chmod(0o755)  # as an older sessdex made it
        assert rows_of(path) == ["p0", "new"]
        assert any(folder.iterdir())  # the copy is in it
        assert folder.stat().st_mode & 0o777 == 0o700
    finally:
        writer.close()


def test_open_or_say_gives_the_database_or_says_why_not_once(tmp_path: Path) -> None:
    path = database(tmp_path / "store.db", "hello")
    diagnostics = Diagnostics()
    connection = databases.open_or_say(path, "someapp", diagnostics)
    assert connection is not None
    try:
        assert connection.execute("SELECT data FROM part").fetchall() == [("hello",)]
    finally:
        connection.close()
    (tmp_path / "folder.db").mkdir()
    for name, why in (
        ("gone.db", "unable to open"),
        ("folder.db", "not a regular file"),
    ):
        assert databases.open_or_say(tmp_path / name, "someapp", diagnostics) is None
        assert diagnostics.problems[-1].startswith(
            f"someapp: cannot open {tmp_path / name}: {why}"
        )
    assert len(diagnostics.problems) == 2  # nothing said of the one that opened


def test_known_columns_says_a_database_without_the_table_is_not_the_apps(
    tmp_path: Path,
) -> None:
    path = database(tmp_path / "store.db", "hello")
    connection = databases.open_sqlite(path)
    diagnostics = Diagnostics()
    try:
        where = ("someapp", path)
        assert databases.known_columns(
            connection, "part", {"id"}, diagnostics, where, "Some database"
        ) == {"id", "data"}
        for table, needed in (("sessions", {"id"}), ("part", {"id", "title"})):
            assert (
                databases.known_columns(
                    connection, table, needed, diagnostics, where, "Some database"
                )
                is None
            )
    finally:
        connection.close()
    assert diagnostics.problems == [
        f"someapp: {path} has no sessions table; not a Some database we know",
        f"someapp: {path} has no part table; not a Some database we know",
    ]


@pytest.mark.parametrize("encoding", ["UTF-8", "UTF-16le"])
def test_a_huge_value_of_a_view_is_elided_as_a_tables_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, encoding: str
) -> None:
    """A view's row has no rowid for blob IO: its huge value, found by its key, is read
    in pieces and its long strings elided, the same value a table's row gives; before,
    it was counted "too long" and its part was lost."""
    monkeypatch.setattr(files, "READ_LINE_CAP", 200)
    monkeypatch.setattr(files, "KEEP_STRING", 50)
    monkeypatch.setattr(files, "CHUNK", 64)
    output = "é" * 2500 + "x" * 2500  # a piece may end inside a character
    huge = orjson.dumps({"type": "tool", "tool": "read", "output": output}).decode()
    path = tmp_path / "a.db"
    connection = sqlite3.connect(path)
    connection.execute(f"PRAGMA encoding = '{encoding}'")
    connection.execute("CREATE TABLE part_data (id TEXT PRIMARY KEY, data)")
    connection.execute("INSERT INTO part_data VALUES ('p0', ?)", (huge,))
    connection.execute("CREATE VIEW part AS SELECT * FROM part_data")
    connection.commit()
    connection.close()
    diagnostics = Diagnostics()
    opened = databases.open_sqlite(path)
    try:
        value = databases.bounded_value(
            opened, "part", "data", None, key=("id", "p0"), diagnostics=diagnostics
        )
        table = databases.bounded_value(opened, "part_data", "data", 1)
    finally:
        opened.close()
    assert not diagnostics.details
    found = orjson.loads(value or b"")
    assert found["type"] == "tool" and files.elided(found["output"]) == (7500, "é" * 24)
    if encoding == "UTF-8":
        assert value == table


def test_a_view_value_that_grows_at_each_read_is_read_to_its_measured_size(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A view's value made anew at each read (here one longer each time) is read in
    pieces up to the size measured first, not for as long as pieces keep coming."""
    monkeypatch.setattr(files, "CHUNK", 64)
    reads = 0

    def grown() -> bytes:
        nonlocal reads
        reads += 1
        return b"x" * (1000 * reads)

    connection = sqlite3.connect(":memory:")
    connection.create_function("grown", 0, grown)
    connection.execute("CREATE VIEW part AS SELECT 'p0' AS id, grown() AS data")
    query = "SELECT substr(data, ?, ?) FROM part WHERE id = ?"
    try:
        read = b"".join(databases._pieces(connection, query, ("p0",), 1000))
    finally:
        connection.close()
    assert len(read) <= 1000 + 1000 // 8 + 64
