"""Gemini CLI: a response that says something and then calls a tool is written text first.

Gemini CLI records a response's text as it comes and its tool calls only once they have run,
in a second write of the same message (chatRecordingService's recordToolCalls). Until then
the file ends with an answer that asks for no tool, as a turn's last does. The fixture is the
realcli 0.61.0 run in tests/data/gemini (`91700103`, its basic step); its mock model's
response before the shell call is empty, so the test gives it the words real models say
first, in both writes, and replays it on its own clock with the call running 5 minutes.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from .replaying import (
    DATA,
    Replay,
    Step,
    copy_home,
    emptied,
    file_steps,
    patch_clock,
    paused,
    sessions,
)

SAID = "I'll run the greeting command first."
RUNS = 5 * 60.0  # the shell command's run, during which Gemini CLI writes nothing


def _said_first(step: Step, call: str) -> Step:
    if step.record.get("id") != call:
        return step
    record = dict(step.record, content=SAID)
    data = (json.dumps(record) + "\n").encode()
    return dataclasses.replace(step, record=record, data=data)


class _Shell:
    """The CLI's processes, as `live_processes.Processes` answers: a shell it started at
    `started` runs until `done`."""

    def __init__(self, replay: Replay, started: float, done: float) -> None:
        self.replay, self.started, self.done = replay, started, done

    def spawned_since(
        self, pid: int, since: float, helper: object = None
    ) -> bool | None:
        return self.started >= since and self.replay.clock.now < self.done

    def descendants(self, pids: object, before: float, most: int) -> set[bytes]:
        return set()  # the shell, with no helper beside it


def _replay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, alive: bool | None
) -> tuple[Replay, int]:
    clock = patch_clock(monkeypatch)
    home = copy_home(DATA / "gemini" / "home", tmp_path)
    lead, _ = sessions(home, "gemini", "91700103")
    steps = file_steps([Path(str(lead.path))])
    emptied([Path(str(lead.path))])
    # the first response, empty until its call has run: the one a real model fills
    first = next(n for n, s in enumerate(steps) if s.record.get("type") == "gemini")
    call = str(steps[first].record["id"])
    steps = [_said_first(s, call) for s in steps]
    replay = Replay(lead, paused(steps, first, RUNS), clock, alive=alive)
    replay.follower.pids = [4242]
    for step in replay.steps[: first + 1]:
        replay.write(step)
    return replay, first


def _status(replay: Replay, at: float, shell: _Shell | None) -> tuple[str, str]:
    replay.clock.now = at
    replay.follower.poll(at)
    status = replay.follower.status(at, shell)  # type: ignore[arg-type]
    return status.status, status.reason


def test_an_answer_whose_tool_runs_is_working(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    replay, first = _replay(tmp_path, monkeypatch, True)
    said = replay.steps[first].when
    shell = _Shell(replay, said + 0.2, said + RUNS)
    for at in (said + 5, said + RUNS - 1):
        status, reason = _status(replay, at, shell)
        assert status == "working", (at - said, reason)
        assert "tool running" in reason
    # the call written once it has run, then the answer that ends the turn
    for step in replay.steps[first + 1 :]:
        replay.write(step)
    end = replay.steps[-1].when
    assert _status(replay, end + 5, shell) == ("waiting_for_user", "turn ended 5s ago")


def test_an_answer_with_no_process_started_since_waits_for_the_user(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # an in-process tool, or a shell call waiting for approval: the CLI started nothing
    replay, first = _replay(tmp_path, monkeypatch, True)
    said = replay.steps[first].when
    idle = _Shell(replay, said - 60, said + RUNS)  # started before the answer
    assert _status(replay, said + 5, idle) == ("waiting_for_user", "turn ended 5s ago")


def test_with_no_process_information_the_end_of_its_turn_is_a_guess(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    replay, first = _replay(tmp_path, monkeypatch, None)
    said = replay.steps[first].when
    assert _status(replay, said + 5, None) == ("waiting_for_user", "turn ended 5s ago?")
