"""resume refuses a session that a CLI started without naming it still has open."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sessdex import api
from sessdex.sources import Home

from .helpers import write_claude_session
from .test_live_processes import _sleeper, needs_proc

SESSION = "73737373-0000-4000-8000-000000000073"


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.000Z")


def live_pids(home: Path, wanted: int) -> list[int]:
    """What resume's check finds, once the process has had time to start."""
    pids: list[int] = []
    for _ in range(60):
        pids = api.check_resume(Home.at(home), SESSION[:8]).live_pids
        if wanted in pids:
            break
        time.sleep(0.05)
    return pids


@needs_proc
def test_a_plain_cli_still_writing_the_session_holds_it(tmp_path: Path) -> None:
    """`claude`, started with no words in the project and still running, writes the
    project's newest session: `sessdex resume` of it in another terminal started a
    second claude on the same transcript."""
    home, work = tmp_path / "home", tmp_path / "project"
    work.mkdir()
    child = _sleeper(tmp_path, "claude", [], work)
    try:
        write_claude_session(home, SESSION, str(work), when=iso(datetime.now(UTC)))
        assert live_pids(home, child.pid) == [child.pid]
    finally:
        child.kill()
        child.wait()


@needs_proc
def test_a_plain_cli_started_long_after_the_session_is_a_new_one(
    tmp_path: Path,
) -> None:
    """A `claude` started in the folder an hour after the session's last line has not
    written its own yet: it does not hold the old one."""
    home, work = tmp_path / "home", tmp_path / "project"
    work.mkdir()
    write_claude_session(
        home, SESSION, str(work), when=iso(datetime.now(UTC) - timedelta(hours=1))
    )
    child = _sleeper(tmp_path, "claude", [], work)
    try:
        time.sleep(0.5)  # its exec is done
        assert api.check_resume(Home.at(home), SESSION[:8]).live_pids == []
    finally:
        child.kill()
        child.wait()
