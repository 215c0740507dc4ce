"""A session file touched or copied over while `watch` follows it: a file whose newest
record is much older than its modification time was not written by its app, and the
board goes by the records; a file the app writes still reads as written."""

from __future__ import annotations

import json
import os
import shutil
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from sessdex import api
from sessdex.live import LiveSession
from sessdex.model import Session
from sessdex.sources import Home, get

DATA = Path(__file__).parent / "data"
APPS_WITH_HOMES = sorted(p.parent.name for p in DATA.glob("*/home"))
DAY = 86400.0


def _touch_all(home: Path, when: float) -> None:
    for path in home.rglob("*"):
        if path.is_file() and not path.is_symlink():
            os.utime(path, (when, when))


@pytest.mark.parametrize("app", APPS_WITH_HOMES)
def test_a_home_touched_while_watched_keeps_its_old_sessions_old(
    app: str, tmp_path: Path
) -> None:
    """Every file of a home touched (or restored from a backup) while the board follows
    it: no session whose records are days old turns 'working' or 'waiting_for_user'."""
    home = tmp_path / "home"
    shutil.copytree(DATA / app / "home", home, symlinks=True)
    _touch_all(home, time.time() - 2 * DAY)  # copied days ago, as cp -r leaves it
    sessions = api.list_sessions(
        Home.at(home), since="100000d", with_state=True
    ).sessions()
    old = [
        s for s in sessions if s.updated and time.time() - s.updated.timestamp() > DAY
    ]
    if not old:
        pytest.skip(f"no {app} fixture session is older than a day")
    lives = [LiveSession(session) for session in old]
    for live in lives:
        live.poll()
    time.sleep(0.05)
    _touch_all(home, time.time())  # now, while followed
    now = time.time()
    for live in lives:
        live.poll(now)
        status = live.status(now)
        assert status.status in ("ended", "failed"), (live.session.id, status)


def _claude_line(kind: str, when: datetime, n: int) -> dict[str, object]:
    stamp = when.strftime("%Y-%m-%dT%H:%M:%S.000Z")
    line: dict[str, object] = {
        "type": kind,
        "uuid": f"00000000-0000-4000-8000-{n:012d}",
        "parentUuid": None,
        "sessionId": "5e55e55e-0000-4000-8000-000000000001",
        "cwd": "/home/dev/shop",
        "timestamp": stamp,
    }
    if kind == "user":
        line["message"] = {"role": "user", "content": f"prompt {n}"}
    else:
        line["message"] = {
            "id": f"msg_{n}",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [{"type": "thinking", "thinking": "hmm"}],
            "stop_reason": None,
        }
    return line


def _claude_session(tmp_path: Path, lines: list[dict[str, object]]) -> Session:
    path = tmp_path / "5e55e55e-0000-4000-8000-000000000001.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    copied = time.time() - 3600  # there before watch began
    os.utime(path, (copied, copied))
    return Session(
        "claude",
        "5e55e55e-0000-4000-8000-000000000001",
        path=str(path),
        cwd="/home/dev/shop",
    )


def test_a_session_being_written_is_still_working(tmp_path: Path) -> None:
    """A session whose app writes a dated line now, after a year of silence, is written
    now: its mtime and its newest record agree."""
    year_ago = datetime.fromtimestamp(time.time() - 365 * DAY, UTC)
    session = _claude_session(tmp_path, [_claude_line("user", year_ago, 1)])
    live = LiveSession(session, get("claude"))
    live.poll()
    assert live.status().status == "ended"
    with open(str(session.path), "a") as handle:
        handle.write(json.dumps(_claude_line("user", datetime.now(UTC), 2)) + "\n")
    now = time.time()
    live.poll(now)
    assert live.status(now).status == "working"


def test_a_touched_transcript_is_not_a_write(tmp_path: Path) -> None:
    """Mid-turn a year ago, the file touched now: it stays ended, with the records' age."""
    year_ago = datetime.fromtimestamp(time.time() - 365 * DAY, UTC)
    lines = [_claude_line("user", year_ago, 1), _claude_line("assistant", year_ago, 2)]
    session = _claude_session(tmp_path, lines)
    live = LiveSession(session, get("claude"))
    live.poll()
    time.sleep(0.05)
    os.utime(str(session.path))
    now = time.time()
    live.poll(now)
    status = live.status(now)
    assert status.status == "ended", status
    assert "nothing written for 1y" in status.reason, status


def test_a_write_within_the_clock_tolerance_counts(tmp_path: Path) -> None:
    """A file written now whose newest record is a little older (a clock a few minutes
    behind, an answer streamed into its line): the write counts, the session works."""
    behind = datetime.fromtimestamp(time.time() - 300, UTC)
    lines = [_claude_line("user", behind, 1)]
    session = _claude_session(tmp_path, lines)
    live = LiveSession(session, get("claude"))
    live.poll()
    time.sleep(0.05)
    with open(str(session.path), "a") as handle:  # undated: only the mtime says when
        handle.write(json.dumps({"type": "summary", "summary": "x"}) + "\n")
    now = time.time()
    live.poll(now)
    assert live.status(now).status == "working"


def test_a_transcript_restored_over_itself_is_not_a_write(tmp_path: Path) -> None:
    """The same transcript put back from a backup (a new file, the same lines) while
    followed: nothing new was written, the session stays as old as its records."""
    year_ago = datetime.fromtimestamp(time.time() - 365 * DAY, UTC)
    lines = [_claude_line("user", year_ago, 1), _claude_line("assistant", year_ago, 2)]
    session = _claude_session(tmp_path, lines)
    live = LiveSession(session, get("claude"))
    live.poll()
    path = Path(str(session.path))
    backup = tmp_path / "backup.jsonl"
    backup.write_bytes(path.read_bytes())
    os.replace(backup, path)
    now = time.time()
    live.poll(now)
    status = live.status(now)
    assert status.status == "ended", status
