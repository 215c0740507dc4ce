"""Copies of a database that holds an app's login (Kiro CLI's `auth_kv` here) do not
outlive the sessdex process that made them: not at a plain exit, not after Ctrl-C or
SIGTERM, and what an earlier sessdex kept for a week is removed at the next run."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sessdex import databases, indexparse, paths

DATA = Path(__file__).parent / "data" / "kiro" / "home"
KIRO_DB = Path(".local/share/kiro-cli/data.sqlite3")
TOKEN = b"aoaAAAAAGlogin-token-3f9c2e7a41"
REFRESH = b"aorAAAAAGrefresh-token-8d1b6c0e55"


def conversation(conversation_id: str, prompt: str) -> str:
    user = {"additional_context": "", "env_context": {"env_state": None},
            "content": {"Prompt": {"prompt": prompt}},
            "timestamp": "2026-12-02T08:00:00+00:00", "images": None}  # fmt: skip
    return json.dumps({
        "conversation_id": conversation_id, "next_message": None,
        "history": [{"user": user, "assistant": {"Response": {"message_id": "m", "content": "ok"}},
                     "request_metadata": None}],
        "valid_history_range": [0, 1], "transcript": [], "tools": {}, "context_manager": None,
        "context_message_length": None, "latest_summary": None, "file_line_tracker": {},
        "checkpoint_manager": None, "mcp_enabled": True,
    })  # fmt: skip


def add_chat(writer: sqlite3.Connection, conversation_id: str, prompt: str) -> None:
    writer.execute(
        "INSERT INTO conversations_v2 VALUES (?, ?, ?, 1764900000000, 1764900005000)",
        ("/home/alex/code/new", conversation_id, conversation(conversation_id, prompt)),
    )
    writer.commit()


@pytest.fixture()
def running_kiro(tmp_path: Path) -> Iterator[tuple[Path, sqlite3.Connection]]:
    """A home whose Kiro CLI runs: its login in the database file and in its WAL (a
    token refreshed since the last checkpoint), a chat only in the WAL."""
    home = tmp_path / "home"
    shutil.copytree(DATA, home)
    writer = sqlite3.connect(home / KIRO_DB)
    writer.execute("INSERT INTO auth_kv VALUES ('codewhisperer:odic:token', ?)", (TOKEN.decode(),))  # fmt: skip
    writer.commit()
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")  # the WAL stays while the app runs
    writer.execute("INSERT INTO auth_kv VALUES ('codewhisperer:odic:refresh', ?)", (REFRESH.decode(),))  # fmt: skip
    add_chat(writer, "wal-1", "First chat only in the WAL")
    assert (home / KIRO_DB).with_name("data.sqlite3-wal").stat().st_size > 0
    try:
        yield home, writer
    finally:
        writer.close()


def state() -> Path:
    return Path(os.environ["SESSDEX_HOME"])


def holding_login(folder: Path) -> list[str]:
    """The files below `folder` whose bytes hold either token."""
    found = []
    for path in folder.rglob("*"):
        if path.is_file() and not path.is_symlink():
            data = path.read_bytes()
            if TOKEN in data or REFRESH in data:
                found.append(str(path.relative_to(folder)))
    return found


# the command line, every core taken as free however loaded the machine: a big refresh
# parses on workers wherever there are two cores
ON_WORKERS = (
    "from sessdex import indexparse\n"
    "indexparse._busy_cores = lambda cores: 0\n"
    "from sessdex.launch import main\n"
    "main()\n"
)


def sessdex(*args: str, workers: bool = False) -> subprocess.Popen[bytes]:
    environ = {**os.environ, "SESSDEX_NO_QUICK": "1", "PYTHONUNBUFFERED": "1"}
    started = ["-c", ON_WORKERS] if workers else ["-m", "sessdex"]
    return subprocess.Popen(
        [sys.executable, *started, *args],
        env=environ,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def listed(home: Path, app: str = "kiro") -> list[str]:
    process = sessdex("list", "--app", app, "--json", "--home", str(home))
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err.decode()
    return [row["id"] for row in json.loads(out)]


def test_no_copy_of_the_login_outlives_a_command(
    running_kiro: tuple[Path, sqlite3.Connection],
) -> None:
    home, writer = running_kiro
    assert "wal-1" in listed(home)  # read through a snapshot: only the WAL has it
    assert holding_login(state()) == []
    # the copy of the database file stays for the next run, its login blanked
    assert list(databases._folder_of(str(home / KIRO_DB)).glob("base-*"))
    # the app goes on: a warm run still sees what it wrote since, and keeps nothing
    add_chat(writer, "wal-2", "Second chat only in the WAL")
    assert {"wal-1", "wal-2"} <= set(listed(home))
    assert holding_login(state()) == []


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("ending", [signal.SIGTERM, signal.SIGINT])
def test_no_copy_of_the_login_outlives_a_watch_stopped_by_a_signal(
    running_kiro: tuple[Path, sqlite3.Connection], ending: signal.Signals
) -> None:
    home, _ = running_kiro
    process = sessdex("watch", "--app", "kiro", "--nl", "--poll", "--home", str(home))
    try:
        deadline = time.monotonic() + 60
        while not holding_login(state()):  # the copy it reads while it runs
            assert process.poll() is None, process.communicate()[1].decode()
            assert time.monotonic() < deadline, "watch took no snapshot"
            time.sleep(0.1)
        process.send_signal(ending)
        process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == -ending
    assert holding_login(state()) == []


def test_copies_an_earlier_sessdex_kept_are_removed_at_the_next_run(
    running_kiro: tuple[Path, sqlite3.Connection],
) -> None:
    home, _ = running_kiro
    snapshots = paths.snapshot_dir()
    old = snapshots / databases._snapshot_key(str(home / KIRO_DB))
    old.mkdir(parents=True)
    (old / databases.SOURCE_FILE).write_text(str(home / KIRO_DB))
    shutil.copyfile(home / KIRO_DB, old / "base-1-2")  # a week-long copy, login in it
    # one a killed sessdex left (a dead process's folder) of another login database
    killed = snapshots / "0123456789abcdef"
    (killed / "999999999").mkdir(parents=True)
    (killed / databases.LOGIN_FILE).touch()
    (killed / "999999999" / "data.sqlite3").write_bytes(b"SQLite " + TOKEN)
    # a process killed while it read a database whose base is kept blanked
    blanked = snapshots / "fedcba9876543210"
    (blanked / "999999999").mkdir(parents=True)
    (blanked / databases.LOGIN_FILE).write_text(databases.BLANKED)
    (blanked / "999999999" / "data.sqlite3-wal").write_bytes(b"WAL " + REFRESH)
    (blanked / f"base-1-{int(time.time() * 1e9)}").write_bytes(b"SQLite, blanked")
    assert len(holding_login(state())) == 3
    (snapshots / databases._SWEPT_MARK).unlink(missing_ok=True)  # as before upgrading
    listed(home, "claude")  # a run that reads no database at all
    assert holding_login(state()) == []
    assert not old.exists() and not killed.exists()
    assert [p.name for p in blanked.iterdir() if p.name.startswith("base-")]


def test_a_database_without_a_login_keeps_its_copy_for_the_next_run(
    tmp_path: Path,
) -> None:
    """What the snapshot design buys stays: the next run copies only the WAL."""
    db = tmp_path / "store.db"
    writer = sqlite3.connect(db)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute("CREATE TABLE t (x)")
    writer.execute("INSERT INTO t VALUES (1)")
    writer.commit()
    try:
        databases.open_sqlite(db).close()
        databases.drop_login_copies()  # what exit runs
        assert list(databases._folder_of(str(db)).glob("base-*"))
        databases.open_sqlite(db, login=True).close()
        databases.drop_login_copies()
        assert not databases._folder_of(str(db)).exists()
    finally:
        writer.close()


def test_a_copy_kept_blanked_reads_every_other_table_as_the_app_wrote_it(
    tmp_path: Path,
) -> None:
    """The login's pages (its overflow pages too, and free pages where a login the app
    replaced lingers) are zeros in the copy kept; the app's WAL, read over it, still
    gives every other table as the app sees it, before and after a checkpoint."""
    db = tmp_path / "app.db"
    old_token = b"old-" + TOKEN * 200  # long: on overflow pages
    writer = sqlite3.connect(db)
    writer.execute(
        "PRAGMA secure_delete=OFF"
    )  # as apps leave it: freed pages keep bytes
    writer.execute("CREATE TABLE auth (k TEXT PRIMARY KEY, v TEXT)")
    writer.execute("CREATE TABLE chat (id INTEGER PRIMARY KEY, text TEXT)")
    writer.executemany("INSERT INTO chat (text) VALUES (?)", [(f"m{i}" * 300,) for i in range(200)])  # fmt: skip
    writer.execute("INSERT INTO auth VALUES ('old', ?)", (old_token.decode(),))
    writer.commit()
    writer.execute("DELETE FROM auth")  # the login replaced: its pages freed, not wiped
    writer.execute("INSERT INTO auth VALUES ('token', ?)", (TOKEN.decode(),))
    writer.commit()
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute(
        "UPDATE auth SET v = ?", (REFRESH.decode(),)
    )  # refreshed: in the WAL
    writer.execute("INSERT INTO chat (text) VALUES ('in the wal')")
    writer.commit()
    assert b"old-" + TOKEN in db.read_bytes()  # on a free page of the app's file

    def chats() -> list[tuple[int, str]]:
        connection = databases.open_sqlite(db, login=("auth",))
        try:
            return connection.execute(
                "SELECT id, text FROM chat ORDER BY id"
            ).fetchall()
        finally:
            connection.close()

    def as_the_app_sees_it() -> list[tuple[int, str]]:
        return writer.execute("SELECT id, text FROM chat ORDER BY id").fetchall()

    try:
        assert chats() == as_the_app_sees_it()
        databases.drop_login_copies()  # the run ends
        assert holding_login(paths.snapshot_dir()) == []
        assert b"old-" + TOKEN not in b"".join(
            p.read_bytes() for p in paths.snapshot_dir().rglob("*") if p.is_file()
        )
        assert list(databases._folder_of(str(db)).glob("base-*"))  # kept, blanked
        # the next run, after the app checkpointed and wrote again
        writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        writer.execute("UPDATE auth SET v = ?", (TOKEN.decode(),))
        writer.execute("INSERT INTO chat (text) VALUES ('after the checkpoint')")
        writer.commit()
        assert chats() == as_the_app_sees_it()
        databases.drop_login_copies()
        assert holding_login(paths.snapshot_dir()) == []
    finally:
        writer.close()


@pytest.mark.skipif(sys.platform != "linux", reason="refresh workers fork on Linux")
def test_no_copy_of_the_login_outlives_a_refresh_parsed_by_workers(
    running_kiro: tuple[Path, sqlite3.Connection],
) -> None:
    """A big refresh parses on worker processes, which end without running `atexit`:
    their copies go when the command ends all the same."""
    home, _ = running_kiro
    projects = home / ".claude" / "projects" / "-home-alex-code-many"
    projects.mkdir(parents=True)
    for n in range(indexparse.PARALLEL_FROM + 50):
        session = f"00000000-0000-4000-8000-{n:012d}"
        line = {"type": "user", "sessionId": session, "uuid": f"u-{n}",
                "cwd": "/home/alex/code/many", "timestamp": "2026-11-30T08:10:07Z",
                "message": {"role": "user", "content": f"prompt {n}"}}  # fmt: skip
        (projects / f"{session}.jsonl").write_text(json.dumps(line) + "\n")
    process = sessdex("list", "--json", "--all", "--home", str(home), workers=True)
    out, err = process.communicate(timeout=300)
    assert process.returncode == 0, err.decode()
    assert "wal-1" in {row["id"] for row in json.loads(out)}
    assert holding_login(state()) == []


def test_a_warm_quick_listing_leaves_no_earlier_copy_behind(
    running_kiro: tuple[Path, sqlite3.Connection],
) -> None:
    """The quick path (a warm `list` from the index alone) hands over to the full command
    once, where copies an earlier sessdex kept are still there."""
    home, _ = running_kiro
    assert "wal-1" in listed(home)  # the index is warm
    snapshots = paths.snapshot_dir()
    old = snapshots / "0123456789abcdef"
    old.mkdir()
    (old / "base-1-2").write_bytes(b"SQLite " + TOKEN)  # no mark: an earlier release's
    (snapshots / databases._SWEPT_MARK).unlink()  # as it was before upgrading
    environ = {k: v for k, v in os.environ.items() if k != "SESSDEX_NO_QUICK"}
    done = subprocess.run(
        [sys.executable, "-m", "sessdex", "list", "--app", "kiro", "--json", "--home", str(home)],
        env=environ, capture_output=True, timeout=120, check=True,
    )  # fmt: skip
    assert "wal-1" in {row["id"] for row in json.loads(done.stdout)}
    assert not old.exists() and holding_login(state()) == []


def test_where_sqlite_cannot_say_the_logins_pages_no_copy_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Python whose SQLite has no `dbstat`: the copy is not blanked, so it goes at
    exit, as a database whose login shares the tables read."""
    db = tmp_path / "app.db"
    writer = sqlite3.connect(db)
    writer.execute("CREATE TABLE auth (k TEXT PRIMARY KEY, v TEXT)")
    writer.execute("CREATE TABLE chat (id INTEGER PRIMARY KEY, text TEXT)")
    writer.execute("INSERT INTO auth VALUES ('token', ?)", (TOKEN.decode(),))
    writer.commit()
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute("INSERT INTO chat (text) VALUES ('in the wal')")
    writer.commit()

    def no_dbstat(copy: Path, tables: tuple[str, ...]) -> tuple[set[int], int]:
        raise sqlite3.OperationalError("no such table: dbstat")

    monkeypatch.setattr(databases, "_login_pages", no_dbstat)
    try:
        connection = databases.open_sqlite(db, login=("auth",))
        assert connection.execute("SELECT text FROM chat").fetchall() == [
            ("in the wal",)
        ]
        connection.close()
        assert holding_login(paths.snapshot_dir())  # the copy read, login and all
        databases.drop_login_copies()
        assert holding_login(paths.snapshot_dir()) == []
        assert not databases._folder_of(str(db)).exists()
    finally:
        writer.close()
