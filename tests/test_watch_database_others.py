"""`watch` while an app writes one session of a database that holds many.

Any session's write changes the database file, so each write had the board read every
session of that database again whole, at most every 2 s (a database of 150 sessions days
old, one of them written 20 times a second: 918 reads in 10 s). A session whose records
are an hour old or more is now read again only once the board's listing of it changed (a
new message moves its time); a prompt typed into one days old still shows within 3 s.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from sessdex import api, live_feeds
from sessdex.sources import Home

from .conftest import app_home

DATABASE = Path(".local/share/opencode/opencode.db")
RESUMED = "ses_dd47cef52ffe38O37iH1Ffe05b"  # days old, ended; a prompt is typed into it
COPIES = 30


def _home(tmp_path: Path) -> Path:
    """The OpenCode home, its database holding COPIES copies of each session (rows and
    all, under new ids, as old as the fixture's), in WAL mode."""
    home = tmp_path / "home"
    shutil.copytree(app_home("opencode"), home, symlinks=True)
    connection = sqlite3.connect(home / DATABASE, isolation_level=None)
    connection.execute("BEGIN")
    for n in range(COPIES):
        for table, keys in (
            ("session", ("id", "parent_id")),
            ("message", ("id", "session_id")),
            ("part", ("id", "message_id", "session_id")),
        ):
            columns = [
                row[1] for row in connection.execute(f"PRAGMA table_info({table})")
            ]
            picked = ", ".join(f"{c} || '_c{n}'" if c in keys else c for c in columns)
            connection.execute(
                f"INSERT INTO {table} ({', '.join(columns)}) SELECT {picked} FROM {table}"
                f" WHERE instr(id, '_c') = 0"
            )
    connection.execute("COMMIT")
    connection.execute("PRAGMA journal_mode=WAL")
    connection.close()
    return home


def _prompt(writer: sqlite3.Connection) -> None:
    """A prompt typed into RESUMED now, as OpenCode writes it: a message and its part."""
    now = int(time.time() * 1000)
    data = {"role": "user", "time": {"created": now}, "agent": "build"}
    writer.execute(
        "INSERT INTO message (id, session_id, time_created, time_updated, data)"
        " VALUES (?, ?, ?, ?, ?)",
        ("msg_ffffffff0001resumedPrompt", RESUMED, now, now, json.dumps(data)),
    )
    writer.execute(
        "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (
            "prt_ffffffff0001resumedPrompt",
            "msg_ffffffff0001resumedPrompt",
            RESUMED,
            now,
            now,
            json.dumps({"type": "text", "text": "and now the tests, please"}),
        ),
    )


@pytest.mark.parametrize("notify", [True, False], ids=["notified", "polling"])
def test_a_write_reads_its_session_not_the_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, notify: bool
) -> None:
    home = _home(tmp_path)
    reads: Counter[str] = Counter()
    read = live_feeds.ReadFeed._read

    def counted(feed: live_feeds.ReadFeed, *args: object, **kwargs: object) -> object:
        reads[feed.session.id] += 1
        return read(feed, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(live_feeds.ReadFeed, "_read", counted)
    writer = sqlite3.connect(
        home / DATABASE, isolation_level=None, check_same_thread=False
    )
    writer.execute("PRAGMA journal_mode=WAL")
    other = writer.execute(
        "SELECT id FROM part WHERE session_id != ? LIMIT 1", (RESUMED,)
    ).fetchone()[0]
    # the app has written its WAL before: its first write would start a new one, which
    # the board's copy catches up with only 10 s later (docs/live.md)
    writer.execute("UPDATE part SET time_updated = 0 WHERE id = ?", (other,))
    stop = threading.Event()
    typed: list[float] = []

    def app() -> None:
        """One session of the database streamed into, 20 times a second; 2 s in, a
        prompt typed into another, days old."""
        begun = time.monotonic()
        n = 0
        while not stop.wait(0.05):
            n += 1
            writer.execute("UPDATE part SET time_updated = ? WHERE id = ?", (n, other))
            if not typed and time.monotonic() - begun >= 2.0:
                _prompt(writer)
                typed.append(time.monotonic())

    shown: list[tuple[float, str]] = []
    boards = api.watch_sessions(
        Home.at(home), since="100000d", duration=7.0, notify=notify
    )
    first = next(boards)
    sessions = {row.session.id for row in first}
    assert RESUMED in sessions and len(sessions) > 60
    reads.clear()
    thread = threading.Thread(target=app)
    thread.start()
    try:
        for rows in boards:
            status = next(r.status for r in rows if r.session.id == RESUMED)
            shown.append((time.monotonic(), status.reason))
    finally:
        stop.set()
        thread.join()
        writer.close()
    assert typed
    # the prompt shows within 3 s (the session is no longer `ended`)
    woke = next(at for at, reason in shown if reason != shown[0][1])
    assert woke - typed[0] <= 3.0
    # the other sessions, none of them written, were not read again
    others = sum(count for key, count in reads.items() if key != RESUMED)
    assert others <= 5, reads.most_common(5)


CRUSH = "8c1f2e3d-4a5b-4c6d-9e7f-0a1b2c3d4e5f"  # days old, ended
CRUSH_DATABASE = Path("code/shop-api/.crush/crush.db")


@pytest.mark.parametrize("notify", [True, False], ids=["notified", "polling"])
def test_a_prompt_typed_into_an_old_crush_session_shows_within_3_s(
    tmp_path: Path, notify: bool
) -> None:
    """Crush keeps a project's sessions in one database and moves none of a session's
    times when a prompt comes (its messages' `updated_at` do): typed into a session days
    old while another one is streamed into, 20 times a second, it shows within 3 s."""
    home = tmp_path / "home"
    shutil.copytree(app_home("crush"), home, symlinks=True)
    writer = sqlite3.connect(
        home / CRUSH_DATABASE, isolation_level=None, check_same_thread=False
    )
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("UPDATE messages SET finished_at = 0 WHERE id = 'title-m1'")
    stop = threading.Event()
    typed: list[float] = []

    def app() -> None:
        """The title session streamed into; 2 s in, a prompt typed into CRUSH."""
        begun = time.monotonic()
        n = 0
        while not stop.wait(0.05):
            n += 1
            writer.execute(
                "UPDATE messages SET finished_at = ? WHERE id = 'title-m1'", (n,)
            )
            if not typed and time.monotonic() - begun >= 2.0:
                now = int(time.time())
                writer.execute(
                    "INSERT INTO messages (id, session_id, role, parts, created_at,"
                    " updated_at) VALUES ('m-resumed', ?, 'user', ?, ?, ?)",
                    (CRUSH, '[{"type":"text","data":{"text":"go on"}}]', now, now),
                )
                typed.append(time.monotonic())

    shown: list[tuple[float, str]] = []
    boards = api.watch_sessions(
        Home.at(home), since="100000d", duration=6.0, notify=notify
    )
    first = next(boards)
    assert CRUSH in {row.session.id for row in first}
    thread = threading.Thread(target=app)
    thread.start()
    try:
        for rows in boards:
            status = next(r.status for r in rows if r.session.id == CRUSH)
            shown.append((time.monotonic(), status.reason))
    finally:
        stop.set()
        thread.join()
        writer.close()
    assert typed
    woke = next(at for at, reason in shown if reason != shown[0][1])
    assert woke - typed[0] <= 3.0, shown


V2 = "ses_dd47ffff0ffeRowsInSessMsgAA"  # a session of OpenCode 2.x rows, days old


def _v2_session(writer: sqlite3.Connection) -> None:
    """V2 in the `session` table, its history as 2.x `session_message` rows (as later
    OpenCode schemas keep it), all as old as RESUMED."""
    columns = [row[1] for row in writer.execute("PRAGMA table_info(session)")]
    values = writer.execute("SELECT * FROM session WHERE id = ?", (RESUMED,)).fetchone()
    row = dict(zip(columns, values, strict=True)) | {"id": V2, "slug": "v2-rows"}
    writer.execute(
        f"INSERT INTO session ({','.join(row)}) VALUES ({','.join('?' * len(row))})",
        list(row.values()),
    )
    at = int(row["time_created"])
    asked = {"time": {"created": at}, "text": "list the files", "files": []}
    answer = {
        "time": {"created": at + 10, "completed": at + 20},
        "agent": "build",
        "content": [{"type": "text", "id": "t1", "text": "Three files."}],
        "finish": "stop",
    }
    for seq, (kind, data) in enumerate((("user", asked), ("assistant", answer))):
        created = data["time"]["created"]  # type: ignore[index]
        writer.execute(
            "INSERT INTO session_message VALUES (?, ?, ?, ?, ?, ?, ?)",
            (f"msg_v2old{seq}", V2, kind, seq, created, created, json.dumps(data)),
        )


@pytest.mark.parametrize("notify", [True, False], ids=["notified", "polling"])
def test_a_prompt_typed_into_an_old_opencode_2_session_shows_within_3_s(
    tmp_path: Path, notify: bool
) -> None:
    """OpenCode 2.x writes a prompt as a `session_message` row and moves none of the
    session's own times: its listing stayed as it was, and a session days old showed
    the prompt only 30 s on, when it was read again all the same. Its newest row now
    dates it, as a 1.x message does."""
    home = tmp_path / "home"
    shutil.copytree(app_home("opencode"), home, symlinks=True)
    writer = sqlite3.connect(
        home / DATABASE, isolation_level=None, check_same_thread=False
    )
    writer.execute("PRAGMA journal_mode=WAL")
    _v2_session(writer)
    other = writer.execute(
        "SELECT id FROM part WHERE session_id != ? LIMIT 1", (RESUMED,)
    ).fetchone()[0]
    stop = threading.Event()
    typed: list[float] = []

    def app() -> None:
        """Another session streamed into; 2 s in, a prompt typed into V2."""
        begun = time.monotonic()
        n = 0
        while not stop.wait(0.05):
            n += 1
            writer.execute("UPDATE part SET time_updated = ? WHERE id = ?", (n, other))
            if not typed and time.monotonic() - begun >= 2.0:
                now = int(time.time() * 1000)
                data = {"time": {"created": now}, "text": "and the tests", "files": []}
                writer.execute(
                    "INSERT INTO session_message VALUES (?, ?, 'user', 2, ?, ?, ?)",
                    ("msg_v2new", V2, now, now, json.dumps(data)),
                )
                typed.append(time.monotonic())

    shown: list[tuple[float, str]] = []
    boards = api.watch_sessions(
        Home.at(home), since="100000d", duration=6.0, notify=notify
    )
    first = next(boards)
    assert V2 in {row.session.id for row in first}
    thread = threading.Thread(target=app)
    thread.start()
    try:
        for rows in boards:
            status = next(r.status for r in rows if r.session.id == V2)
            shown.append((time.monotonic(), status.reason))
    finally:
        stop.set()
        thread.join()
        writer.close()
    assert typed
    woke = [at for at, reason in shown if reason != shown[0][1]]
    assert woke and woke[0] - typed[0] <= 3.0, shown
