"""A lead waits on its sub-agent however long the sub-agent is silent (a long tool call),
while the call that spawned it is open: with or without a process search to ask.

The replay is the real Claude Code 2.1.197 sub-agent run in tests/data/claude (from
shared/corpus/realcli/claude-2.1.197; PROVENANCE.md there), written again line by line with
a silence of its sub-agent's shell call stretched to a few minutes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .replaying import (
    DATA,
    Replay,
    copy_home,
    emptied,
    file_steps,
    patch_clock,
    paused,
    sessions,
)

LEAD = "82d9f90c-3f87-46b4-b09c-58027a5e630c"


@pytest.mark.parametrize("alive", [True, None])
@pytest.mark.parametrize("silence", [90.0, 20 * 60.0])
def test_a_lead_waits_on_its_sub_agent_through_a_long_silent_tool_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, alive: bool | None, silence: float
) -> None:
    clock = patch_clock(monkeypatch)
    home = copy_home(DATA / "claude" / "home", tmp_path)
    lead, children = sessions(home, "claude", LEAD)
    files = [Path(str(lead.path))] + [Path(str(c.path)) for c in children]
    steps = file_steps(files)
    emptied(files)
    # the sub-agent's shell call, before its result: the command runs for minutes
    call = next(
        n
        for n, step in enumerate(steps)
        if step.agent == 1 and '"tool_use"' in step.data.decode()
    )
    replay = Replay(lead, paused(steps, call, silence), clock, alive=alive)
    for step in replay.steps[: call + 1]:
        replay.write(step)
    at = replay.steps[call].when
    assert replay.status(at + 1).status == "waiting_on_subagent"
    status = replay.status(at + silence - 1)
    assert status.status == "waiting_on_subagent", status
    assert status.reason.startswith("sub-agent general-purpose a199d630 working")
