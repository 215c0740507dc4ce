"""`watch`'s status at every step of real sessions written again as their apps wrote them.

Each case replays a session the real CLI wrote (tests/data/<app>, from
shared/corpus/realcli: PROVENANCE.md in each) into a temporary home, line by line or, for
an app keeping SQLite, row by row through a WAL writer (tests/replaying.py), the clock at
each step's own time, and asks the live view for its status after each step. The truth is
read from the records themselves, apart from sessdex's readers: a tool call without its
result is work; a sub-agent running (its spawn open, or its own transcript being written)
is a wait on it; a turn its app ended waits for the user. Each step is also written torn
first (half of its line, or all of it but the newline): the status read then is the one
before the step, never a third.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from .replaying import (
    CRUSH,
    DATA,
    OPENCODE,
    Replay,
    Step,
    Store,
    copy_home,
    emptied,
    file_steps,
    patch_clock,
    paused,
    rebuild,
    row_steps,
    sessions,
)

Effect = tuple[str, ...]


# --- what each record says happened, read apart from sessdex's readers ---------------------


def _claude(step: Step) -> list[Effect]:
    record, effects = step.record, []
    message = record.get("message") or {}
    content = message.get("content") if isinstance(message, dict) else None
    blocks = content if isinstance(content, list) else []
    if step.agent:
        effects.append(("child_start",))
        if message.get("stop_reason") == "end_turn":
            effects.append(("child_end",))
        return effects
    if record.get("type") == "user":
        results = [b for b in blocks if b.get("type") == "tool_result"]
        effects += [("result", b["tool_use_id"]) for b in results]
        if not results:
            effects.append(("prompt",))
    elif record.get("type") == "assistant":
        for block in blocks:
            if block.get("type") == "tool_use":
                spawn = block.get("name") in ("Task", "Agent")
                effects.append(("call", block["id"], "spawn" if spawn else "tool"))
        if message.get("stop_reason") == "end_turn":
            effects.append(("end",))
    return effects


def _codex(step: Step) -> list[Effect]:
    kind, payload = step.record.get("type"), step.record.get("payload") or {}
    inner = payload.get("type")
    if step.agent:
        ended = kind == "event_msg" and inner == "task_complete"
        return [("child_start",)] + ([("child_end",)] if ended else [])
    item = payload.get("item") or {}
    if (
        kind == "event_msg"
        and inner == "item_completed"
        and item.get("type") == ("UserMessage")
    ):
        return [("prompt",)]  # the prompt, once Codex completed its item
    if kind == "event_msg" and inner == "task_complete":
        return [("end",)]
    if kind == "response_item" and inner == "function_call":
        name = payload.get("name")
        what = {"spawn_agent": "spawn", "wait_agent": "wait"}.get(name, "tool")
        return [("call", payload["call_id"], what)]
    if kind == "response_item" and inner == "function_call_output":
        return [("result", payload["call_id"])]
    return []


def _gemini(step: Step) -> list[Effect]:
    record = step.record
    calls = record.get("toolCalls") or []
    if step.agent:
        done = any(c.get("name") == "complete_task" for c in calls)
        return [("child_start",)] + ([("child_end",)] if done else [])
    if record.get("type") == "user":
        texts = [p for p in record.get("content") or [] if "text" in p]
        return [("prompt",)] if texts else []
    if record.get("type") == "gemini":
        # Gemini CLI writes a response's calls once they have run, results with them
        if calls:
            return []
        return [("end",)] if record.get("content") else []
    return []


def _pi(step: Step) -> list[Effect]:
    message = step.record.get("message") or {}
    role = message.get("role")
    if role == "user":
        return [("prompt",)]
    if role == "toolResult":
        return [("result", message["toolCallId"])]
    if role == "assistant":
        effects: list[Effect] = [
            ("call", part["id"], "tool")
            for part in message.get("content") or []
            if part.get("type") == "toolCall"
        ]
        return effects + ([("end",)] if message.get("stopReason") == "stop" else [])
    return []


def _qwen(step: Step) -> list[Effect]:
    record = step.record
    parts = (record.get("message") or {}).get("parts") or []
    if record.get("type") == "user":
        return [("prompt",)]
    if record.get("type") == "tool_result":
        ids = [p["functionResponse"]["id"] for p in parts if "functionResponse" in p]
        return [("result", i) for i in ids]
    if record.get("type") == "assistant":
        calls = [p["functionCall"] for p in parts if "functionCall" in p]
        if not calls:
            # Qwen Code writes no turn end: an answer, then silence
            return [("answer",)] if any(p.get("text") for p in parts) else []
        # its sub-agents keep no transcript: the spawn open is the sub-agent running
        return [
            ("call", c["id"], "blind" if c.get("name") in ("task", "agent") else "tool")
            for c in calls
        ]
    return []


@dataclass
class _Copilot:
    requested: bool = False  # the lead's last message asked for tools
    child_requested: bool = False  # and its sub-agent's

    def __call__(self, step: Step) -> list[Effect]:
        record = step.record
        kind, data = record.get("type"), record.get("data") or {}
        if record.get("agentId"):
            if kind == "assistant.message":
                self.child_requested = bool(data.get("toolRequests"))
            ended = kind == "assistant.turn_end" and not self.child_requested
            if kind == "subagent.completed" or ended:
                return [("child_end",)]
            return [("child_start",)] if kind == "subagent.started" else []
        if kind == "user.message":
            return [("prompt",)]
        if kind == "assistant.message":
            self.requested = bool(data.get("toolRequests"))
        if kind == "tool.execution_start":
            spawn = data.get("toolName") == "task"
            return [("call", data["toolCallId"], "spawn" if spawn else "tool")]
        if kind == "tool.execution_complete":
            return [("result", data["toolCallId"])]
        if kind == "assistant.turn_end" and not self.requested:
            # Copilot ends a turn after every model call: the last one asked for no tool
            return [("end",)]
        if kind == "session.shutdown":
            return [("exit",)]
        if kind == "session.resume":
            return [("resume",)]
        return []


@dataclass
class _OpenCode:
    asked: set[str] = field(default_factory=set)  # the user's messages

    def __call__(self, step: Step) -> list[Effect]:
        row = step.record
        data = json.loads(row["data"]) if "data" in row else {}
        if step.table == "message" and data.get("role") == "user":
            self.asked.add(row["id"])
        return _opencode(step, data, row.get("message_id") in self.asked)


def _opencode(step: Step, data: dict[str, Any], asked: bool) -> list[Effect]:
    if step.table == "session":
        return [("child_start",)] if step.agent else []
    if step.agent:
        stopped = data.get("finish") == "stop" or data.get("reason") == "stop"
        return [("child_start",)] + ([("child_end",)] if stopped else [])
    if step.table == "message":
        return [("end",)] if data.get("finish") == "stop" else []
    if asked:
        return [("prompt",)] if data.get("type") == "text" else []
    state = data.get("state") if isinstance(data.get("state"), dict) else {}
    if data.get("type") == "tool":
        if state.get("status") == "running":
            spawn = data.get("tool") == "task"
            return [("call", data["callID"], "spawn" if spawn else "tool")]
        return [("result", data["callID"])]
    if data.get("type") == "text" or data.get("reason") == "stop":
        return [("answer",)]  # the turn ends with its message's finish, written next
    return []


def _crush(step: Step) -> list[Effect]:
    row = step.record
    if step.table == "sessions":
        return [("child_start",)] if step.agent else []
    parts = json.loads(row["parts"])
    finish = next((p["data"] for p in parts if p.get("type") == "finish"), {})
    if step.agent:
        ended = finish.get("reason") == "end_turn"
        return [("child_start",)] + ([("child_end",)] if ended else [])
    if row["role"] == "user":
        return [("prompt",)]
    if row["role"] == "tool":
        return [
            ("result", p["data"]["tool_call_id"])
            for p in parts
            if p.get("type") == "tool_result"
        ]
    effects: list[Effect] = [
        (
            "call",
            p["data"]["id"],
            "spawn" if p["data"].get("name") == "agent" else "tool",
        )
        for p in parts
        if p.get("type") == "tool_call"
    ]
    if finish.get("reason") == "end_turn":
        effects.append(("end",))
    if finish.get("reason") == "error":
        effects.append(("error",))
    return effects


# --- the truth, step by step -----------------------------------------------------------------


@dataclass
class Truth:
    """Where the session stands, from the effects so far; `expected` the statuses that
    say so. `blocks`: the lead cannot go on while its sub-agent runs (its spawn returns
    when the sub-agent is done); Codex's returns at once, and its lead waits with a call."""

    blocks: bool
    began: bool = False
    open: dict[str, str] = field(default_factory=dict)  # call -> tool / spawn / wait
    ended: bool = False
    answered: bool = False
    child: str = "none"  # none, running, done, returned
    exited: bool = False
    resumed: bool = False
    failed: bool = False

    def add(self, effect: Effect) -> None:
        what = effect[0]
        if what != "exit":
            self.exited = False
        self.resumed = what == "resume"
        if what in ("prompt", "call", "result"):
            self.began, self.ended, self.answered, self.failed = (
                True,
                False,
                False,
                False,
            )
            if self.child == "done" and what != "call":
                self.child = "returned"  # its spawn returned
        if what == "call":
            self.open[effect[1]] = effect[2]
            if effect[2] == "blind":
                self.child = "running"  # a sub-agent with no transcript: its call
        elif what == "result":
            if self.open.pop(effect[1], None) == "blind":
                self.child = "done"
        elif what == "end":
            self.ended, self.open = True, {}
        elif what == "answer":
            self.answered = True
        elif what == "child_start" and self.child == "none":
            self.child = "running"
        elif what == "child_end":
            self.child = "done"
        elif what == "exit":
            self.exited = True
        elif what == "error":
            self.failed = True

    def expected(self) -> set[str]:
        kinds = set(self.open.values())
        if self.exited:
            return {"ended"}
        if self.resumed:
            return {"waiting_for_user", "working"}
        if self.failed:
            return {"working", "failed"}  # an app may retry: failed once it stays
        if self.ended:
            return {"waiting_for_user"}
        if not self.began:
            return {"working"}  # starting
        waiting = kinds & {"spawn", "wait", "blind"} or (self.blocks and not kinds)
        if self.child == "running" and waiting:
            return {"waiting_on_subagent"}
        if kinds & {"spawn", "wait"} or (self.blocks and self.child == "done"):
            # its sub-agent not begun, or done and its spawn about to return
            return {"working", "waiting_on_subagent"}
        if self.answered:
            return {"working", "waiting_for_user"}
        return {"working"}


# --- the cases ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    app: str
    lead: str
    read: Callable[[], Callable[[Step], list[Effect]]]
    blocks: bool = True
    store: Store | None = None
    database: str = ""


CASES = [
    Case("claude", "82d9f90c", lambda: _claude),  # a sub-agent (Agent)
    Case("claude", "a82be759", lambda: _claude),  # two turns: claude -p, then --resume
    Case("codex", "01a22b81-666a", lambda: _codex, blocks=False),  # spawn, wait_agent
    Case("codex", "01a22b81-5c00", lambda: _codex, blocks=False),  # exec, exec resume
    Case("gemini", "b44832f3", lambda: _gemini),  # invoke_agent
    Case("gemini", "91700103", lambda: _gemini),
    Case("pi", "01a22b83", lambda: _pi),
    Case(
        "qwen", "51ca07c5", lambda: _qwen
    ),  # a task sub-agent, no transcript of its own
    Case("qwen", "06673cb3", lambda: _qwen),
    Case("copilot", "52ee9297", _Copilot),  # a task sub-agent inside the lead's events
    Case("copilot", "16801a53", _Copilot),  # a turn, shutdown, resume, a turn
    Case(
        "opencode",
        "ses_dd47cc97",
        _OpenCode,
        store=OPENCODE,
        database=".local/share/opencode/opencode.db",
    ),
    Case(
        "opencode",
        "ses_dd47cef5",
        _OpenCode,
        store=OPENCODE,
        database=".local/share/opencode/opencode.db",
    ),
    Case(
        "crush",
        "8c1f2e3d",
        lambda: _crush,
        store=CRUSH,
        database="code/shop-api/.crush/crush.db",
    ),
]


def _replay(
    case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, alive: bool | None
) -> Replay:
    clock = patch_clock(monkeypatch)
    home = copy_home(DATA / case.app / "home", tmp_path)
    lead, children = sessions(home, case.app, case.lead)
    if case.store is None:
        files = [Path(str(lead.path))] + [
            Path(str(c.path)) for c in children if c.path != lead.path
        ]
        steps = file_steps(files)
        emptied(files)
        return Replay(lead, steps, clock, alive=alive)
    database = home.path / case.database
    ids = {lead.id} | {c.id for c in children}
    steps = row_steps(database, case.store, lead.id, ids)
    writer = rebuild(database, case.store, ids)
    return Replay(lead, steps, clock, alive=alive, writer=writer)


def _label(step: Step) -> str:
    if step.table is not None:
        return f"{step.table} row {str(step.record.get('id'))[:24]}"
    return f"line {step.data[:80]!r}"


@pytest.mark.parametrize("alive", [True, None], ids=["cli-running", "no-process-info"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.app}-{c.lead[:13]}")
def test_the_status_at_every_step_is_the_transcripts(
    case: Case, alive: bool | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    replay = _replay(case, tmp_path, monkeypatch, alive)
    read, truth = case.read(), Truth(blocks=case.blocks)
    wrong = []
    for step, status in replay.run():
        for effect in read(step):
            truth.add(effect)
        expected = truth.expected()
        if alive is None and truth.ended and case.app == "claude":
            # `claude -p` is headless: no one can answer it, and with no process to ask,
            # its turn's end is the run's
            expected = {"ended"}
        if status.status not in expected:
            wrong.append((_label(step), sorted(expected), status))
    assert not wrong, "\n".join(map(str, wrong))


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.app}-{c.lead[:13]}")
def test_a_torn_last_line_never_flips_the_status(
    case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if case.store is not None:
        pytest.skip("a database row is written whole, in a transaction")
    replay = _replay(case, tmp_path, monkeypatch, True)
    before = None
    begun: set[int] = {0}
    flips = []
    for n, step in enumerate(replay.steps):
        cut = len(step.data) - 1 if n % 2 else len(step.data) // 2  # all but "\n", half
        replay.write(step, step.data[:cut])
        torn = replay.status(step.when + 0.02)
        # a sub-agent's transcript appearing says it started, however little is written
        appeared = step.agent not in begun and torn.status == "waiting_on_subagent"
        if before is not None and torn.status != before.status and not appeared:
            flips.append((_label(step), before, torn))
        begun.add(step.agent)
        replay.write(step, step.data[cut:])
        before = replay.status(step.when + 0.05)
    assert not flips, "\n".join(map(str, flips))


SILENCE = 5 * 60.0  # a long tool call (a build, a test run), a slow model


def _busy_steps(case: Case, replay: Replay, most: int = 6) -> list[int]:
    """Steps after which a long silence may fall: the lead's call just written (its tool
    runs), or a sub-agent's step while the lead waits on it (its tool runs, its model
    thinks). Not a background sub-agent's start while its spawn returns (Codex's returns
    at once). At most `most`, spread out."""
    read, truth = case.read(), Truth(blocks=case.blocks)
    busy = []
    for n, step in enumerate(replay.steps):
        effects = read(step)
        for effect in effects:
            truth.add(effect)
        kinds = set(truth.open.values())
        waits = case.blocks or "wait" in kinds
        if (step.agent == 0 and any(e[0] == "call" for e in effects)) or (
            step.agent and truth.child == "running" and waits
        ):
            busy.append(n)
    return busy[:: max(1, len(busy) // most)][:most]


@pytest.mark.parametrize("alive", [True, None], ids=["cli-running", "no-process-info"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.app}-{c.lead[:13]}")
def test_a_long_silent_call_keeps_the_status_it_began_with(
    case: Case, alive: bool | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    points = _busy_steps(case, _replay(case, tmp_path / "probe", monkeypatch, alive))
    wrong = []
    for point in points:
        replay = _replay(case, tmp_path / str(point), monkeypatch, alive)
        read, truth = case.read(), Truth(blocks=case.blocks)
        replay.steps = paused(replay.steps, point, SILENCE)
        for step in replay.steps[: point + 1]:
            replay.write(step)
            for effect in read(step):
                truth.add(effect)
        at = replay.steps[point].when
        began = replay.status(at + 0.05)
        later = replay.status(at + SILENCE - 1)
        if later.status != began.status or later.status not in truth.expected():
            wrong.append((_label(replay.steps[point]), began, later))
    assert not wrong, "\n".join(map(str, wrong))


def _said_first(step: Step, message: str, text: bytes) -> Step:
    """The step with the model message `message` saying `text` where the capture's says
    nothing: the model answered with words and a call, which Gemini CLI writes as the
    words first and, once the call has run, the same message again with it."""
    if step.record.get("id") != message:
        return step
    data = step.data.replace(b'"content":""', b'"content":"' + text + b'"', 1)
    return dataclasses.replace(step, data=data, record=json.loads(data))


# the sub-agent's model message whose second write carries its shell call
_CHILD_CALLS = "973401ee-43a8-4b41-946c-b06f3b4fd56b"


@pytest.mark.parametrize("alive", [True, None], ids=["cli-running", "no-process-info"])
def test_a_gemini_sub_agent_saying_something_before_its_call_is_still_waited_on(
    alive: bool | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = next(c for c in CASES if c.lead == "b44832f3")
    replay = _replay(case, tmp_path, monkeypatch, alive)
    said = b"I will run the command now."
    steps = [_said_first(s, _CHILD_CALLS, said) for s in replay.steps]
    first = next(n for n, s in enumerate(steps) if said in s.data)
    assert sum(said in s.data for s in steps) == 2  # both writes of it
    # its shell call runs 3 s before the message is written again with it (after the
    # update of the chat's time that follows the words)
    assert "$set" in steps[first + 1].record
    first += 1
    replay.steps = paused(steps, first, 3.0)
    read, truth = case.read(), Truth(blocks=case.blocks)
    wrong = []
    for n, step in enumerate(replay.steps):
        replay.write(step)
        for effect in read(step):
            truth.add(effect)
        checks = [step.when + 0.05] + ([step.when + 2.0] if n == first else [])
        for at in checks:
            status = replay.status(at)
            if status.status not in truth.expected():
                wrong.append((_label(step), at - step.when, truth.expected(), status))
    assert truth.child == "done"
    assert not wrong, "\n".join(map(str, wrong))
