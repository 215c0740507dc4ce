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

from sessdex import api
from sessdex.live import LiveSession
from sessdex.sources import Home

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
