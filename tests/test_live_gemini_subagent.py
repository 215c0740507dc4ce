"""Gemini CLI: a lead whose sub-agent is running waits on it, though its file names no call yet.

The fixture is a real Gemini CLI 0.61.0 run of the conformance suite's `subagent` step
(tests/data/gemini/PROVENANCE.md). Gemini CLI writes a response's tool calls into the lead's
chat only once they have run: while its `invoke_agent` runs, the lead's file ends with an empty
response, and the sub-agent's own chat (`chats/<lead id>/<agent id>.jsonl`) is being written.
The test cuts both files where they stood while the sub-agent's shell call ran.
"""

from __future__ import annotations

import json
import shutil
from datetime import datetime
from pathlib import Path

import pytest

from sessdex import api
from sessdex.live import LiveSession
from sessdex.sources import Home

from .replaying import (
    DATA as REPLAYED_DATA,
)
from .replaying import (
    Replay,
    copy_home,
    emptied,
    file_steps,
    patch_clock,
    paused,
    sessions,
)

REPLAYED = REPLAYED_DATA / "gemini"

DATA = Path(__file__).parent / "data" / "gemini" / "live-subagent"
LEAD = "48b71599-23aa-4214-b3bf-30dceaba18bf"
CHATS = Path(".gemini/tmp/shop-api/chats")
LEAD_FILE = CHATS / "session-2026-12-04T18-21-48b71599.jsonl"
CHILD_FILE = CHATS / LEAD / "c4d39c0a-aede-47fb-91b8-be7ffde1b00f.jsonl"


def _cut(path: Path) -> float:
    """Keep the lines written before the first tool call ran; the time of the last one kept."""
    kept, last = [], 0.0
    for line in path.read_text().splitlines(keepends=True):
        record = json.loads(line)
        if record.get("toolCalls"):
            break
        kept.append(line)
        stamp = record.get("timestamp") or (record.get("$set") or {}).get("lastUpdated")
        if isinstance(stamp, str):
            last = datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    path.write_text("".join(kept))
    return last


def _follow(tmp_path: Path, *, cut: bool) -> tuple[LiveSession, float]:
    home = tmp_path / "home"
    shutil.copytree(DATA, home)
    written = max(_cut(home / LEAD_FILE), _cut(home / CHILD_FILE)) if cut else 0.0
    follower = LiveSession(api.resolve(Home.at(home), LEAD))
    follower.poll()
    follower.alive = True
    return follower, written


def test_the_lead_waits_on_its_running_sub_agent(tmp_path: Path) -> None:
    follower, written = _follow(tmp_path, cut=True)
    status = follower.status(now=written + 4)
    assert status.status == "waiting_on_subagent", status
    assert "sub-agent" in status.reason


def test_once_the_sub_agent_returned_the_lead_answers_and_waits_for_the_user(
    tmp_path: Path,
) -> None:
    follower, _ = _follow(tmp_path, cut=False)
    status = follower.status()
    assert status.status != "waiting_on_subagent", status


@pytest.mark.parametrize("alive", [True, None])
def test_the_lead_waits_on_its_sub_agent_through_a_long_silent_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, alive: bool | None
) -> None:
    # the realcli 0.61.0 run in tests/data/gemini, replayed on its own clock; its
    # sub-agent's shell command runs for minutes: Gemini CLI writes nothing until it has
    # run, in the sub-agent's chat as in the lead's
    clock = patch_clock(monkeypatch)
    home = copy_home(REPLAYED / "home", tmp_path)
    lead, children = sessions(home, "gemini", "b44832f3")
    files = [Path(str(lead.path))] + [Path(str(c.path)) for c in children]
    steps = file_steps(files)
    emptied(files)
    # the sub-agent's first response, empty: its call runs
    call = next(
        n for n, s in enumerate(steps) if s.agent and s.record.get("type") == "gemini"
    )
    replay = Replay(lead, paused(steps, call, 5 * 60.0), clock, alive=alive)
    for step in replay.steps[: call + 1]:
        replay.write(step)
    at = replay.steps[call].when
    assert replay.status(at + 1).status == "waiting_on_subagent"
    status = replay.status(at + 5 * 60.0 - 1)
    assert status.status == "waiting_on_subagent", status
    assert "sub-agent" in status.reason
