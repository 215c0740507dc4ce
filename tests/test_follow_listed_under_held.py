"""An OpenClaw lead whose sub-agent a read holds (spawned inside the lead's or another
sub-agent's transcript) while the index lists a sub-agent of its own under it, which no
transcript spawns: `show`, `follow -n N`, `tree` and `sub_agent_ids` give the same
sub-agents, `follow` drawing show's end line for line, none twice."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import api
from sessdex.cli import main
from sessdex.sources import Home
from tests.test_follow_history_every_app import _assert_draws_the_end_of_show

OPENCLAW = Path(__file__).parent / "data" / "openclaw" / "home"
LEAD = "a717db17-7bed-408a-8491-a2bb0b190f46"
HELD = "2f033825-d2ce-4a88-ad72-cec5c71bc233"  # spawned in the lead's transcript
APART = "a07e2dd2-a3a4-4616-b863-2f9e2b97b6e0"  # listed under the lead, spawned by none
UNDER_HELD = "b1b1b1b1-0000-4000-8000-000000000001"
HELD_BY_APART = "d2d2d2d2-0000-4000-8000-000000000002"
UNDER_HELD_BY_APART = "e3e3e3e3-0000-4000-8000-000000000003"
SUBAGENT = "agent:{}:subagent:{}"


def _line(kind: str, number: int, minute: int, **fields: object) -> str:
    time = f"2026-12-01T09:{minute}:{number:02d}.000Z"
    return json.dumps({"type": kind, "id": f"{minute}{number:06d}", "timestamp": time, **fields})  # fmt: skip


def _said(role: str, **fields: object) -> dict[str, object]:
    return {"role": role, **fields}


def _transcript(folder: Path, session_id: str, minute: int, text: str) -> None:
    ask = _said("user", content=[{"type": "text", "text": f"Do this: {text}"}])
    answer = _said("assistant", content=[{"type": "text", "text": text}])
    lines = [
        _line("session", 0, minute, version=3, cwd="/w", **{"id": session_id}),
        _line("message", 1, minute, parentId=None, message=ask),
        _line("message", 5, minute, parentId=f"{minute}000001", message=answer),
    ]
    (folder / f"{session_id}.jsonl").write_text("".join(f"{x}\n" for x in lines))


def _spawn(transcript: Path, key: str) -> None:
    """A `sessions_spawn` call and its accepted result at the transcript's end (after
    its answer, line 16000002)."""
    arguments = {"task": "Check the disk", "label": "disk check"}
    call = {"type": "toolCall", "id": "toolu_d", "name": "sessions_spawn"}
    result = json.dumps({"status": "accepted", "childSessionKey": key})
    lines = [
        _line(
            "message",
            10,
            16,
            parentId="16000002",
            message=_said("assistant", content=[{**call, "arguments": arguments}]),
        ),
        _line(
            "message",
            11,
            16,
            parentId="16000010",
            message=_said(
                "toolResult",
                toolCallId="toolu_d",
                toolName="sessions_spawn",
                content=[{"type": "text", "text": result}],
                isError=False,
            ),
        ),
    ]
    with transcript.open("a") as stream:
        stream.write("".join(f"{x}\n" for x in lines))


def _home(tmp_path: Path, held_by_apart: bool) -> str:
    """The OpenClaw fixture, with a sub-agent listed under the one the lead's read
    holds; with `held_by_apart`, the sub-agent kept apart spawns one (its read holds
    it), under which the index lists another."""
    home = tmp_path / "home"
    shutil.copytree(OPENCLAW, home)
    coder = home / ".openclaw" / "agents" / "coder" / "sessions"
    store = json.loads((coder / "sessions.json").read_text())
    spawned_by = SUBAGENT.format("main", "7c9e6679-7425-40de-944b-e07fc1f90ae7")
    store[SUBAGENT.format("coder", "g")] = {"sessionId": UNDER_HELD, "updatedAt": 1796115370000, "spawnedBy": spawned_by}  # fmt: skip
    _transcript(coder, UNDER_HELD, 18, "the grandchild under the held one")
    if held_by_apart:
        apart = SUBAGENT.format("coder", "0c5e1f4d-93b8-4e57-a0f5-2d6c8b9e7a41")
        d, e = SUBAGENT.format("coder", "d"), SUBAGENT.format("coder", "e")
        _spawn(coder / f"{APART}.jsonl", d)
        store[d] = {"sessionId": HELD_BY_APART, "updatedAt": 1796115380000, "spawnedBy": apart}  # fmt: skip
        store[e] = {"sessionId": UNDER_HELD_BY_APART, "updatedAt": 1796115390000, "spawnedBy": d}  # fmt: skip
        _transcript(coder, HELD_BY_APART, 19, "the disk is fine")
        _transcript(coder, UNDER_HELD_BY_APART, 20, "under the one held apart")
    (coder / "sessions.json").write_text(json.dumps(store))
    return str(home)


def _agents(home: str, argv: list[str]) -> Counter[str | None]:
    run = CliRunner().invoke(main, [*argv, "--home", home])
    assert run.exit_code == 0, run.output
    if argv[0] == "show":
        return Counter(event.get("agent_id") for event in json.loads(run.stdout))
    return Counter(json.loads(line).get("agent_id") for line in run.stdout.splitlines())


@pytest.mark.parametrize("held_by_apart", [False, True])
def test_show_and_follow_give_the_same_sub_agents(
    tmp_path: Path, held_by_apart: bool
) -> None:
    home = _home(tmp_path, held_by_apart)
    shown = _agents(home, ["show", LEAD, "--json"])
    followed = _agents(home, ["follow", LEAD, "-n", "1000", "--duration", "0", "--nl"])
    assert followed == shown  # each event once: none followed twice
    want = {HELD, APART, UNDER_HELD}
    if held_by_apart:  # the one under a sub-agent a sub-agent's read holds: read too
        want |= {HELD_BY_APART, UNDER_HELD_BY_APART}
    assert set(shown) - {None} == want
    tree = CliRunner().invoke(main, ["tree", LEAD, "--nl", "--home", home])
    assert tree.exit_code == 0, tree.output
    nodes = [json.loads(line)["id"] for line in tree.stdout.splitlines()]
    assert set(nodes) - {LEAD} == want
    assert len(nodes) == len(set(nodes))  # each agent once, as show draws it once
    session = api.transcript(Home.at(Path(home)), LEAD).session
    assert set(api.sub_agent_ids(Home.at(Path(home)), session)) == want
    for count in (1, 3, 20):
        _assert_draws_the_end_of_show(home, LEAD, count)


def test_follow_draws_a_sub_agent_listed_under_a_held_one_while_it_follows(
    tmp_path: Path,
) -> None:
    """The index lists, while `follow` runs, a sub-agent under the one the lead's read
    holds (OpenClaw: its transcript, then its entry in the coder's sessions.json): drawn
    once, under the lead, by its id; the held one not followed apart as well."""
    home = tmp_path / "home"
    shutil.copytree(OPENCLAW, home)
    coder = home / ".openclaw" / "agents" / "coder" / "sessions"
    api.list_sessions(Home.at(home))
    spawned_by = SUBAGENT.format("main", "7c9e6679-7425-40de-944b-e07fc1f90ae7")
    text = "the grandchild under the held one"
    started = False
    drawn: list[tuple[str | None, str | None, str]] = []

    def stop() -> bool:
        nonlocal started
        if not started:
            _transcript(coder, UNDER_HELD, 18, text)
            store = json.loads((coder / "sessions.json").read_text())
            store[SUBAGENT.format("coder", "g")] = {"sessionId": UNDER_HELD, "updatedAt": 1796115370000, "spawnedBy": spawned_by}  # fmt: skip
            (coder / "sessions.json").write_text(json.dumps(store))
            started = True
        return False

    _, batches = api.follow_session(
        Home.at(home), LEAD, duration=8, notify=False, history=3, stop=stop
    )
    for batch in batches:
        drawn += [(e.session_id, e.agent_id, e.text) for e in batch if e.text]
    assert [d for d in drawn if d[2] == text] == [(LEAD, UNDER_HELD, text)], drawn
    held = [
        d[2] for d in drawn if d[1] == HELD
    ]  # in the history: not followed apart too
    assert held and len(held) == len(set(held)), held
