"""Claude Code: the lead's answer after a background sub-agent's notification ends a turn.

The fixture is a real Claude Code 2.1.332 `-p` run against the conformance suite's mock
(tests/data/claude/PROVENANCE.md): the Agent tool launches in the background, the lead answers
and ends its turn, then the `<task-notification>` comes in and the lead answers again, with
`stop_reason: end_turn`. That second answer ended a turn too: `watch` must not show the
session as still answering (working), nor `stopped mid-turn` once its CLI has gone.
"""

from __future__ import annotations

import shutil
from datetime import datetime
from pathlib import Path

from sessdex import api
from sessdex.live import LiveSession
from sessdex.sources import Home

DATA = Path(__file__).parent / "data" / "claude" / "live-background-agent"
LEAD = "856a59dc-46ad-4d31-9a92-1b5d7c2039b9"


def _follow(tmp_path: Path) -> LiveSession:
    home = tmp_path / "home"
    shutil.copytree(DATA, home)
    session = api.resolve(Home.at(home), LEAD)
    follower = LiveSession(session)
    follower.poll()
    return follower


def _last_answer(follower: LiveSession) -> float:
    lines = (Path(str(follower.session.path))).read_text().splitlines()
    stamps = [
        line.split('"timestamp":"', 1)[1][:24]
        for line in lines
        if '"type":"assistant"' in line
    ]
    return datetime.fromisoformat(stamps[-1].replace("Z", "+00:00")).timestamp()


def test_the_answer_to_a_background_agents_notification_ends_the_turn(
    tmp_path: Path,
) -> None:
    follower = _follow(tmp_path)
    answered = _last_answer(follower)
    follower.alive = True  # its CLI (an interactive one) is still open
    status = follower.status(now=answered + 20)
    assert status.status == "waiting_for_user", status
    assert status.reason.startswith("turn ended")


def test_a_gone_cli_exited_after_its_turn_not_mid_turn(tmp_path: Path) -> None:
    follower = _follow(tmp_path)
    follower.alive = False
    status = follower.status(now=_last_answer(follower) + 60)
    assert status.status == "ended"
    assert "after its turn" in status.reason, status
