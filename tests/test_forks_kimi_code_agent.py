"""Kimi Code: an agent forked from another starts from a copy of its conversation.

Follows MoonshotAI/kimi-code @d723cc47 (0.38.0 and after): `AgentLifecycleService.fork`
(packages/agent-core-v2/src/session/agentLifecycle/agentLifecycleService.ts) registers the
new agent in `state.json` with `forkedFrom: <source agent id>` and appends the source's
context messages to the child's context memory, which its wire keeps as
`context.append_message` records (contextMemory/contextEvents.ts) before the child's own
first prompt. `/btw` side questions (features/btw/btwService.ts) and the `Agent` tool's
`fork: true` spawn such agents.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from sessdex.diagnostics import Diagnostics
from sessdex.model import Event
from sessdex.sources import Home, kimi

DATA = Path(__file__).parent / "data" / "kimi"
WORKSPACE = ".kimi-code/sessions/wd_project_ac3bb318f98e"
TOOLS = "1bcbe023-4f7e-4971-9dc9-43b8756045b0"
PARENT_ANSWER = "The README describes the fixture project."
SIDE_ANSWER = "Four."


def _message(role: str, time: int, **fields: object) -> dict[str, object]:
    message = {"role": role, "content": [], "toolCalls": [], **fields}
    return {"type": "context.append_message", "message": message, "time": time}


def _forked_home(tmp_path: Path, forked_from: str | None = "main") -> Path:
    """The fixture home with a `/btw` agent (agent-1) whose wire starts with the copy of
    the lead's conversation that kimi-code seeds a fork with, then its own turn."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    folder = home / WORKSPACE / f"session_{TOOLS}"
    state_path = folder / "state.json"
    state = json.loads(state_path.read_text())
    meta: dict[str, object] = {"type": "sub", "parentAgentId": "main"}
    if forked_from is not None:
        meta["forkedFrom"] = forked_from
    state["agents"]["agent-1"] = {"homedir": str(folder / "agents" / "agent-1"), **meta}
    state_path.write_text(json.dumps(state))
    t = 1785622000000
    text = [{"type": "text", "text": PARENT_ANSWER}]
    call = {"type": "function", "id": "Read_9", "name": "Read",
            "arguments": '{"path": "README.md"}'}  # fmt: skip
    seed = [
        _message(
            "user",
            t,
            content=[{"type": "text", "text": "read README.md"}],
            origin={"kind": "user"},
        ),
        _message("assistant", t, toolCalls=[call]),
        _message(
            "tool",
            t,
            toolCallId="Read_9",
            content=[{"type": "text", "text": "# fixture"}],
        ),
        _message("assistant", t, content=text),
    ]
    reminder = _message("user", t + 1, origin={"kind": "injection", "variant": "btw"},
                        content=[{"type": "text", "text": "<system-reminder>side"}])  # fmt: skip
    question = [{"type": "text", "text": "btw, what is 2+2?"}]
    own = [
        {
            "type": "turn.prompt",
            "input": question,
            "origin": {"kind": "user"},
            "time": t + 2,
        },
        _message("user", t + 2, content=question, origin={"kind": "user"}),
        {
            "type": "context.append_loop_event",
            "time": t + 3,
            "event": {
                "type": "content.part",
                "part": {"type": "text", "text": SIDE_ANSWER},
            },
        },
        {
            "type": "context.append_loop_event",
            "time": t + 3,
            "event": {"type": "step.end", "finishReason": "stop"},
        },
    ]
    head = {"type": "metadata", "protocol_version": "1.5", "created_at": t}
    wire = folder / "agents" / "agent-1" / "wire.jsonl"
    wire.parent.mkdir()
    lines = [head, *seed, reminder, *own]
    wire.write_text("".join(json.dumps(r) + "\n" for r in lines))
    return home


def _events(home: Path) -> list[Event]:
    location = kimi.locate(Home.at(home))
    session = next(
        s
        for path in kimi.scan(location)
        for s in kimi.parse(Path(path), location, Diagnostics())
        if s.id == TOOLS and s.path and s.path.endswith("wire.jsonl")
    )
    diagnostics = Diagnostics()
    found = list(kimi.read(session, diagnostics))
    assert not diagnostics.unknown
    return found


def test_a_forked_agent_does_not_replay_the_conversation_it_was_copied_from(
    tmp_path: Path,
) -> None:
    got = _events(_forked_home(tmp_path))
    side = [e for e in got if e.agent_id == "agent-1"]
    texts = [
        e.text for e in side if e.kind in ("assistant", "tool_call", "tool_result")
    ]
    assert texts == [SIDE_ANSWER]  # not the lead's answer, call and result again
    assert [e.text for e in side if e.kind == "user"] == ["btw, what is 2+2?"]
    inherited = next(e for e in side if e.kind == "meta")
    assert inherited.text == "started from a copy of main's conversation"
    # the four copied messages, and the side-question reminder kimi adds before the prompt
    assert inherited.extra == {"forked_from": "main", "inherited_messages": 5}


def test_an_agent_not_forked_still_shows_the_history_its_wire_holds(
    tmp_path: Path,
) -> None:
    got = _events(_forked_home(tmp_path, forked_from=None))
    side = [e.text for e in got if e.agent_id == "agent-1" and e.kind == "assistant"]
    assert side == [PARENT_ANSWER, SIDE_ANSWER]
