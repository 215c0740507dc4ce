"""Codex: a lead waiting on its sub-agent with `wait_agent` waits on it however long the
sub-agent is silent (a long shell command), not only while it writes.

Codex's `spawn_agent` returns at once (the sub-agent runs in the background); the lead then
calls `wait_agent`. The replay is the real Codex 0.171.0 `--enable multi_agent_v2` run in
tests/data/codex (from shared/corpus/realcli/codex-0.171.0; PROVENANCE.md there), written
again line by line with its sub-agent's shell call stretched to minutes.
"""

from __future__ import annotations

import json
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

LEAD = "01a22b81-666a-7993-963b-4b7cc4e806e9"


def _call(step_data: bytes) -> str | None:
    payload = json.loads(step_data).get("payload") or {}
    return payload.get("name") if payload.get("type") == "function_call" else None


@pytest.mark.parametrize("alive", [True, None])
@pytest.mark.parametrize("tool", ["wait_agent", "wait"])  # `wait`: the first tools'
def test_a_lead_in_wait_agent_waits_on_its_silent_sub_agent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, alive: bool | None, tool: str
) -> None:
    clock = patch_clock(monkeypatch)
    home = copy_home(DATA / "codex" / "home", tmp_path)
    lead, children = sessions(home, "codex", LEAD)
    files = [Path(str(lead.path))] + [Path(str(c.path)) for c in children]
    text = files[0].read_text()
    files[0].write_text(text.replace('"wait_agent"', f'"{tool}"'))
    steps = file_steps(files)
    emptied(files)
    waits = next(n for n, s in enumerate(steps) if _call(s.data) == tool)
    command = next(
        n
        for n, s in enumerate(steps)
        if n > waits and s.agent == 1 and _call(s.data) == "exec_command"
    )
    replay = Replay(lead, paused(steps, command, 5 * 60.0), clock, alive=alive)
    for step in replay.steps[: command + 1]:
        replay.write(step)
    at = replay.steps[command].when
    assert replay.status(at + 1).status == "waiting_on_subagent"
    status = replay.status(at + 5 * 60.0 - 1)
    assert status.status == "waiting_on_subagent", status
    assert status.reason == "sub-agent greeter 01a22b81-66c working"
    # the sub-agent's command returns, it answers and ends: the wait returns, the lead goes on
    statuses = [status for _, status in replay.run_from(command + 1)]
    assert statuses[-1].status == "waiting_for_user"
