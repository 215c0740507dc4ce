"""Mistral Vibe 3.x: a lead in `self.wait` while the sub-agent it spawned works waits on it.

The fixture is a real Mistral Vibe 3.0.3 run of the conformance suite's `subagent` step
(tests/data/vibe/PROVENANCE.md). Vibe's `agents.spawn` returns as soon as the sub-agent has
started ("Started greeter"); the lead then waits in `self.wait` while the sub-agent's own store
is written. The test folds the events written up to a moment during the sub-agent's shell
call, as `watch` would have read them then.
"""

from __future__ import annotations

import shutil
from datetime import datetime
from pathlib import Path

from sessdex import api
from sessdex.diagnostics import Diagnostics
from sessdex.sources import Home, get
from sessdex.status import Tracker, decide

DATA = Path(__file__).parent / "data" / "vibe" / "live-subagent"
LEAD = "eae5d633-fbfe-66b9-560c-e053d1f0c815"


def test_the_lead_waiting_in_self_wait_waits_on_its_running_sub_agent(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA, home)
    session = api.resolve(Home.at(home), LEAD)
    events = list(get("vibe").read(session, Diagnostics()))
    calls = [e for e in events if e.kind == "tool_call" and e.agent_id is not None]
    assert calls, "the sub-agent ran no tool"
    assert calls[0].time is not None
    # two seconds into the sub-agent's slow shell call
    moment = calls[0].time.timestamp() + 2
    tracker = Tracker()
    for event in sorted(
        (e for e in events if e.time is not None and e.time.timestamp() <= moment),
        key=lambda e: e.time or datetime.min,
    ):
        tracker.add(event, event.time.timestamp() if event.time else moment)
    status = decide(tracker, moment + 0.5, moment, True)
    assert status.status == "waiting_on_subagent", status
    assert "greeter" in status.reason or "generic" in status.reason
