"""Claude Code `claude -p` (headless) whose lead ended its turn while a background agent works.

The fixture is a real Claude Code 2.1.332 `-p` run (tests/data/claude/PROVENANCE.md): the Agent
tool launched in the background, the lead answered and ended its turn at once, its sub-agent
ran an 8 s shell call, then its notification came in and the lead answered again. Every line
carries `entrypoint: "sdk-cli"` (the TUI writes `"cli"`). Cut where the sub-agent's shell call
is still running, it is the moment the board saw as "waiting_for_user": no one can type into a
`claude -p`, which keeps running until the sub-agent is done. Read whole, the run has finished.
"""

from __future__ import annotations

import json
import os
import shutil
from datetime import datetime
from pathlib import Path

from sessdex import api
from sessdex.live import LiveSession
from sessdex.sources import Home

DATA = Path(__file__).parent / "data" / "claude" / "live-background-agent"
LEAD = "856a59dc-46ad-4d31-9a92-1b5d7c2039b9"
PROJECT = Path(".claude") / "projects" / "-home-alex-code-shop-api"
CHILD = PROJECT / LEAD / "subagents" / "agent-a3f1e581526dc65be.jsonl"


def _cut(path: Path, keep: int, entrypoint: str) -> None:
    """Keep the file's first `keep` lines, as written by a CLI of that entrypoint, and
    last written when its last line was."""
    lines = path.read_text().splitlines(keepends=True)[:keep]
    text = "".join(lines).replace(
        '"entrypoint":"sdk-cli"', f'"entrypoint":"{entrypoint}"'
    )
    path.write_text(text)
    when = _time(json.loads(lines[-1])["timestamp"])
    os.utime(path, (when, when))


def _time(stamp: str) -> float:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def _follow(tmp_path: Path, entrypoint: str = "sdk-cli") -> tuple[LiveSession, float]:
    """The session as its lead's first turn ended, its sub-agent's shell call running;
    and when that call began."""
    home = tmp_path / "home"
    shutil.copytree(DATA, home)
    lead = home / PROJECT / f"{LEAD}.jsonl"
    lines = lead.read_text().splitlines()
    ended = next(
        number
        for number, line in enumerate(lines)
        if json.loads(line).get("message", {}).get("stop_reason") == "end_turn"
    )
    _cut(lead, ended + 1, entrypoint)
    child = home / CHILD
    called = next(
        number
        for number, line in enumerate(child.read_text().splitlines())
        if json.loads(line).get("message", {}).get("stop_reason") == "tool_use"
    )
    _cut(child, called + 1, entrypoint)
    started = _time(json.loads(child.read_text().splitlines()[called])["timestamp"])
    follower = LiveSession(api.resolve(Home.at(home), LEAD))
    follower.poll()
    return follower, started


def test_a_headless_lead_waits_on_its_background_agent_not_on_the_user(
    tmp_path: Path,
) -> None:
    follower, started = _follow(tmp_path)
    follower.alive = True
    status = follower.status(now=started + 3)
    assert status.status == "waiting_on_subagent", status
    assert "sub-agent general-purpose a3f1e581 working" in status.reason, status


def test_a_long_silent_tool_of_the_agent_still_keeps_a_running_headless_lead_waiting(
    tmp_path: Path,
) -> None:
    follower, started = _follow(tmp_path)
    follower.alive = True
    assert follower.status(now=started + 300).status == "waiting_on_subagent"
    follower.alive = None  # no process information: a sub-agent written in 30 min
    assert follower.status(now=started + 300).status == "waiting_on_subagent"
    assert follower.status(now=started + 3600).status != "waiting_on_subagent"


def test_a_headless_run_whose_process_exited_has_ended(tmp_path: Path) -> None:
    follower, started = _follow(tmp_path)
    follower.alive = False
    status = follower.status(now=started + 120)
    assert (status.status, status.reason.split(",")[0]) == (
        "ended",
        "exited after its turn",
    ), status


def test_the_tui_in_the_same_state_still_waits_for_the_user(tmp_path: Path) -> None:
    follower, started = _follow(tmp_path, entrypoint="cli")
    follower.alive = True
    status = follower.status(now=started + 3)
    assert status.status == "waiting_for_user", status
    assert status.reason.endswith("(1 sub-agent working)"), status


def test_a_finished_headless_run_with_no_process_information_has_ended(
    tmp_path: Path,
) -> None:
    """The whole run (its sub-agent done, the lead's answer to its notification written),
    read with no process information (a copied home, macOS): no one can type into a
    `claude -p`, so its turn's end is the run's, not 15 min of waiting for the user."""
    home = tmp_path / "home"
    shutil.copytree(DATA, home)
    follower = LiveSession(api.resolve(Home.at(home), LEAD))
    follower.poll()
    follower.alive = None
    last = follower.tracker.lead.active
    for later in (5, 120, 600):
        status = follower.status(now=last + later)
        assert status.status == "ended", status
        assert status.reason.startswith("headless run finished"), status


def test_the_tui_finished_with_no_process_information_still_waits_for_the_user(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA, home)
    for path in home.rglob("*.jsonl"):
        text = path.read_text()
        path.write_text(text.replace('"entrypoint":"sdk-cli"', '"entrypoint":"cli"'))
    follower = LiveSession(api.resolve(Home.at(home), LEAD))
    follower.poll()
    follower.alive = None
    status = follower.status(now=follower.tracker.lead.active + 120)
    assert status.status == "waiting_for_user", status
