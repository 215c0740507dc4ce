"""`watch` looks at a session nothing wrote for an hour less often than at a live one.

Polling, the board stats every followed file 4 times a second; on a home of many finished
sessions that is most of its CPU (bench/bench_watch_refresh.py). One unwritten for an hour
is looked at every few seconds instead, so that one resumed is still seen within them.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from sessdex import api, live, live_feeds, live_session
from sessdex.live import Board, Processes
from sessdex.model import Session
from sessdex.sources import Home

DATA = Path(__file__).parent / "data"


class _NoProcesses(Processes):
    def refresh(self) -> bool:
        return False


def _line(n: int, when: datetime, kind: str = "user") -> str:
    record: dict[str, object] = {
        "type": kind,
        "uuid": f"00000000-0000-4000-8000-{n:012d}",
        "parentUuid": None,
        "sessionId": f"5e55e55e-0000-4000-8000-{n // 100:012d}",
        "cwd": "/home/dev/shop",
        "timestamp": when.strftime("%Y-%m-%dT%H:%M:%S.000Z"),
    }
    if kind == "user":
        record["message"] = {"role": "user", "content": f"prompt {n}"}
    else:
        record["message"] = {
            "role": "assistant",
            "content": [{"type": "text", "text": "done"}],
            "stop_reason": "end_turn",
        }
    return json.dumps(record) + "\n"


def _session(tmp_path: Path, n: int, lines: list[str], written: float) -> Session:
    session_id = f"5e55e55e-0000-4000-8000-{n:012d}"
    path = tmp_path / f"{session_id}.jsonl"
    path.write_text("".join(lines))
    os.utime(path, (written, written))
    return Session("claude", session_id, path=str(path), cwd="/home/dev/shop")


def _days_old(tmp_path: Path, start: float) -> Session:
    """A prompt and its answer, written three days before `start`."""
    days_ago = datetime.now(UTC) - timedelta(days=3)
    lines = [_line(100, days_ago), _line(101, days_ago, "assistant")]
    return _session(tmp_path, 1, lines, start - 3 * 86400)


def _cold_board(listed: Callable[[], list[Session]], start: float) -> Board:
    """A board that has read `listed` and, a quarter second on, looks at them as cold."""
    board = Board(listed, processes=_NoProcesses())
    board.rescan()
    board.poll(start)
    board.poll(start + 0.25)  # cold from here
    return board


def test_a_session_unwritten_for_an_hour_is_looked_at_every_few_seconds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    start = time.time()
    days_ago = datetime.now(UTC) - timedelta(days=3)
    old = _session(
        tmp_path,
        1,
        [_line(100, days_ago), _line(101, days_ago, "assistant")],
        start - 3 * 86400,
    )
    recent = _session(tmp_path, 2, [_line(200, datetime.now(UTC))], start)
    board = Board(lambda: [old, recent], processes=_NoProcesses())
    board.rescan()
    board.poll(start)
    polled: list[str] = []
    real_poll = live_session.LiveSession.poll

    def counted(
        self: live_session.LiveSession, now: float | None = None, *more: Any
    ) -> list:  # type: ignore[type-arg]
        polled.append(self.session.id)
        return real_poll(self, now, *more)

    monkeypatch.setattr(live_session.LiveSession, "poll", counted)
    ticks = [start + 0.25 * n for n in range(1, 12)]  # under 3 s, as --poll does
    for now in ticks:
        board.poll(now)
    assert polled.count(recent.id) == len(ticks)
    assert polled.count(old.id) <= 1, polled  # it was 11: 4 times a second
    # resumed: a prompt appended now is on the board within COLD_POLL seconds
    assert {r.session.id: r.status.status for r in board.rows(ticks[-1])}[
        old.id
    ] == "ended"
    with open(str(old.path), "a") as handle:
        handle.write(_line(102, datetime.now(UTC)))
    resumed = time.time()
    now, shown = ticks[-1], None
    while now < resumed + live.COLD_POLL + 1.0:
        now += 0.25
        board.poll(now)
        if {r.session.id: r.status.status for r in board.rows(now)}[old.id] == (
            "working"
        ):
            shown = now
            break
    assert shown is not None and shown - resumed <= live.COLD_POLL + 0.25


def test_a_notification_naming_a_cold_session_wakes_it_at_once(tmp_path: Path) -> None:
    start = time.time()
    old = _days_old(tmp_path, start)
    board = _cold_board(lambda: [old], start)
    with open(str(old.path), "a") as handle:
        handle.write(_line(102, datetime.now(UTC)))
    now = start + 0.5
    board.poll(now, touched={Path(str(old.path))})
    assert board.rows(now)[0].status.status == "working"


def test_a_cold_session_is_still_looked_at_after_the_clock_is_set_back(
    tmp_path: Path,
) -> None:
    """Its next look is due COLD_POLL seconds on, as the clock said then: the clock set
    back an hour (NTP, a VM resumed) left it unread, its status as told, for that hour."""
    start = time.time()
    old = _days_old(tmp_path, start)
    board = _cold_board(lambda: [old], start)
    with open(str(old.path), "a") as handle:
        handle.write(_line(102, datetime.now(UTC)))
    back = start - 3600.0
    now = back
    while now < back + live.COLD_POLL + 0.5:
        now += 0.25
        board.poll(now)
    assert board.rows(now)[0].status.status == "working"


def test_a_notification_naming_a_cold_sessions_sub_agent_file_wakes_it_at_once(
    tmp_path: Path,
) -> None:
    """Any file the session follows wakes it, not its main file alone: a sub-agent of a
    session nothing wrote for an hour, written again, showed only at its next look."""
    start = time.time()
    days_ago = datetime.now(UTC) - timedelta(days=3)
    old = _days_old(tmp_path, start)
    sub = tmp_path / old.id / "subagents" / "agent-a1.jsonl"
    sub.parent.mkdir(parents=True)

    def sub_line(n: int, when: datetime) -> str:
        record = json.loads(_line(n, when))
        record.update(isSidechain=True, agentId="a1")
        return json.dumps(record) + "\n"

    sub.write_text(sub_line(200, days_ago))
    os.utime(sub, (start - 3 * 86400, start - 3 * 86400))
    board = _cold_board(lambda: [old], start)
    assert sub in board.followed()
    assert board.rows(start + 0.25)[0].status.status != "working"
    with open(sub, "a") as handle:
        handle.write(sub_line(201, datetime.now(UTC)))
    now = start + 0.5
    board.poll(now, touched={sub})
    assert board.rows(now)[0].status.status != "ended"


def test_a_notification_naming_a_cold_sessions_database_wal_wakes_it_at_once(
    tmp_path: Path,
) -> None:
    """An app writing its database in WAL mode (Crush, OpenCode) changes `x.db-wal`, not
    `x.db`, until a checkpoint: the notification names the -wal, which no session follows,
    and a session resumed after an hour showed only at its next look, up to 3 s on."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "crush" / "home", home, symlinks=True)
    session = api.resolve(Home.at(home), "8c1f2e3d")
    database = str(session.path).split("#", 1)[0]
    writer = sqlite3.connect(database, isolation_level=None)  # the app, writing
    try:
        writer.execute("PRAGMA journal_mode=WAL")
        start = time.time()
        board = _cold_board(lambda: [session], start)  # written days ago
        assert board.rows(start + 0.25)[0].status.status != "working"
        checked = os.stat(database).st_mtime_ns
        now = start + live_feeds.STORE_SECONDS + 0.5
        writer.execute(
            "INSERT INTO messages (id, session_id, role, parts, created_at,"
            " updated_at) VALUES ('m-resumed', ?, 'user', ?, ?, ?)",
            (session.id, '[{"type":"text","data":{"text":"go on"}}]', now, now),
        )
        assert os.stat(database).st_mtime_ns == checked  # the -wal alone was written
        board.poll(now, touched={Path(database + "-wal")})
        assert board.rows(now)[0].status.status == "working"
    finally:
        writer.close()


def test_a_session_whose_app_moved_its_file_is_followed_in_its_new_place(
    tmp_path: Path,
) -> None:
    """A session keeps its id while its app moves its file (an archive, a project folder
    renamed): a rescan gave the new path, but the board went on following the old file,
    gone, and said the session ended, its transcript deleted; a notification naming the
    new file woke nothing."""
    start = time.time()
    old = _days_old(tmp_path, start)
    listed = [old]
    board = _cold_board(lambda: listed, start)
    moved = tmp_path / "moved" / Path(str(old.path)).name
    moved.parent.mkdir()
    os.rename(str(old.path), moved)
    listed[:] = [replace(old, path=str(moved))]
    board.rescan()
    with open(moved, "a") as handle:
        handle.write(_line(102, datetime.now(UTC)))
    now = start + 0.5
    board.poll(now, touched={moved})
    row = board.rows(now)[0]
    assert (row.session.path, row.status.status) == (str(moved), "working")
    assert board.followed() == {moved}
    assert board.owners == {moved: {("claude", old.id)}}  # its wake path too
