"""Kimi Code: a forked session's wires are copies of its source's, usage records included.

Follows MoonshotAI/kimi-code @d723cc47 (0.38.0): `SessionLifecycleService.fork`
(packages/agent-core-v2/src/workspace/sessionLifecycle/sessionLifecycleService.ts) copies
every agent's wire records verbatim into the new session (`copyAgentWire`), ends each copy
with a `{"type": "forked", "agentId", "time"}` record, and writes a new `state.json` whose
`createdAt` is the fork's own and whose `forkedFrom` names the source session.
"""

from __future__ import annotations

import json
import shutil
from functools import reduce
from pathlib import Path

from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Usage
from sessdex.sources import kimi
from tests.helpers import sessions_of

DATA = Path(__file__).parent / "data" / "kimi"
WORKSPACE = ".kimi-code/sessions/wd_project_ac3bb318f98e"
TOOLS = "1bcbe023-4f7e-4971-9dc9-43b8756045b0"
FORK = "0f0f0f0f-1111-4222-8333-444455556666"
FORKED_AT = 1785700000000  # after every record of the source


def _usage(found: list[Event]) -> Usage:
    return reduce(lambda a, b: a + b, (e.usage for e in found if e.usage), Usage())


def _forked_home(tmp_path: Path) -> Path:
    """The fixture home and a fork of its tools session, as kimi-code writes one, in
    which the user then asked one more question (one more billed model response)."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    source = home / WORKSPACE / f"session_{TOOLS}"
    fork = source.parent / f"session_{FORK}"
    shutil.copytree(source, fork)
    state = json.loads((fork / "state.json").read_text())
    created = "2026-08-02T19:46:40.000Z"  # FORKED_AT
    state.update(forkedFrom=f"session_{TOOLS}", title=f"Fork: {state['title']}",
                 createdAt=created, updatedAt=created)  # fmt: skip
    (fork / "state.json").write_text(json.dumps(state))
    for agent in ("main", "agent-0"):
        wire = fork / "agents" / agent / "wire.jsonl"
        copied = {"type": "forked", "agentId": agent, "time": FORKED_AT}
        with wire.open("a") as out:
            out.write(json.dumps(copied) + "\n")
    question = [{"type": "text", "text": "and the tests?"}]
    own = [
        {
            "type": "turn.prompt",
            "input": question,
            "origin": {"kind": "user"},
            "time": FORKED_AT + 10,
        },
        {
            "type": "context.append_loop_event",
            "time": FORKED_AT + 20,
            "event": {
                "type": "content.part",
                "part": {"type": "text", "text": "None."},
            },
        },
        {
            "type": "usage.record",
            "model": "moonshot-ai/kimi-k2.7-code",
            "usage": {
                "inputOther": 100,
                "output": 7,
                "inputCacheRead": 2000,
                "inputCacheCreation": 0,
            },
            "usageScope": "turn",
            "time": FORKED_AT + 30,
            "agentId": "main",
        },
    ]
    with (fork / "agents" / "main" / "wire.jsonl").open("a") as out:
        out.writelines(json.dumps(r) + "\n" for r in own)
    return home


def test_a_forked_session_bills_only_what_it_spent_after_the_fork(
    tmp_path: Path,
) -> None:
    found = sessions_of(kimi, _forked_home(tmp_path))
    source = list(kimi.read(found[TOOLS], Diagnostics()))
    fork = list(kimi.read(found[FORK], Diagnostics()))
    assert _usage(source).total > 0
    spent = _usage(fork)
    assert (spent.input_tokens, spent.output_tokens, spent.cache_read_tokens) == (
        100,
        7,
        2000,
    )
    # the copied conversation is still the fork's to show
    said = [e.text for e in fork if e.kind == "assistant"]
    assert said[: len(said) - 1] == [e.text for e in source if e.kind == "assistant"]
    assert said[-1] == "None."
