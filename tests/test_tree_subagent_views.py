"""Sub-agent views checked against the files: `show --subagents tree` as JSON, `tree`."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from sessdex.model import Event

CLAUDE = Path(__file__).parent / "data" / "claude" / "home"
NESTED = "33333333"  # lead -> code-reviewer -> linter


def _events(*args: str, home: Path = CLAUDE) -> list[dict[str, object]]:
    result = CliRunner().invoke(main, ["show", *args, "--json", "--home", str(home)])
    assert result.exit_code == 0, result.output
    events = json.loads(result.stdout)
    assert isinstance(events, list)
    return events


def test_detail_user_as_json_keeps_to_what_was_said_with_subagents_grouped() -> None:
    """`--detail user --json` kept every tool call, result and token count once
    `--subagents tree` was given too; it keeps what was typed and said, in tree order."""
    grouped = [e["seq"] for e in _events(NESTED, "--subagents", "tree")]
    said = _events(NESTED, "--detail", "user")
    kept = _events(NESTED, "--detail", "user", "--subagents", "tree")
    assert {e["kind"] for e in kept} <= {"user", "assistant"}
    assert sorted(e["seq"] for e in kept) == sorted(e["seq"] for e in said)
    assert [e["seq"] for e in kept] == [
        s for s in grouped if s in {e["seq"] for e in said}
    ]
    assert any(e["agent_id"] for e in kept)  # the sub-agents' words are there


def _claude_lead_with_three_workers(home: Path, ids: list[str]) -> None:
    """A Claude 2.1 session whose lead spawns three `worker` sub-agents at once, each in
    `subagents/agent-<id>.jsonl` with its `.meta.json`, each answered."""
    session = "44444444-2222-4333-8444-555555555555"
    project = home / ".claude" / "projects" / "-work-x"
    folder = project / session / "subagents"
    folder.mkdir(parents=True)

    def line(second: int, role: str, content: object, agent: str = "") -> str:
        record: dict[str, object] = {
            "type": role,
            "sessionId": session,
            "uuid": f"u{second:02d}{agent}",
            "timestamp": f"2026-11-30T08:10:{second:02d}.000Z",
            "isSidechain": bool(agent),
            "message": {"role": role, "content": content},
        }
        if agent:
            record["agentId"] = agent
        return json.dumps(record)

    calls = [f"toolu_{n}" for n in range(3)]
    spawn = [
        {"type": "tool_use", "id": call, "name": "Agent",
         "input": {"prompt": f"part {n}", "description": f"part {n}", "subagent_type": "worker"}}
        for n, call in enumerate(calls)
    ]  # fmt: skip
    lead = [line(1, "user", "split it"), line(2, "assistant", spawn)]
    for n, (agent, call) in enumerate(zip(ids, calls, strict=True)):
        said = [{"type": "text", "text": f"report {n}"}]
        (folder / f"agent-{agent}.jsonl").write_text(
            line(3 + n, "user", f"part {n}", agent)
            + "\n"
            + line(6 + n, "assistant", said, agent)
            + "\n"
        )
        meta = {"agentType": "worker", "description": f"part {n}", "toolUseId": call}
        (folder / f"agent-{agent}.meta.json").write_text(json.dumps(meta))
        answer = [
            {"type": "tool_result", "tool_use_id": call, "content": f"report {n}"}
        ]
        lead.append(line(10 + n, "user", answer))
    (project / f"{session}.jsonl").write_text("\n".join(lead) + "\n")


def test_sub_agents_of_one_type_whose_ids_start_alike_are_told_apart(
    tmp_path: Path,
) -> None:
    """Ids made from the time (Codex's UUIDv7 threads, OpenCode's `ses_…`) share their
    first 8 characters when spawned together: the third `worker`'s lines were marked
    as the second's, in `show` and in `export -f md`."""
    ids = ["a1b2c3d4e5f600001", "a1b2c3d4e5f600002", "a1b2c3d4e5f600003"]
    _claude_lead_with_three_workers(tmp_path, ids)
    home = ["--home", str(tmp_path)]
    runner = CliRunner()
    shown = runner.invoke(main, ["show", "44444444", "--no-pager", *home])
    assert shown.exit_code == 0, shown.output
    marks = {
        n: line.split(" report")[0]
        for line in shown.stdout.splitlines()
        for n in range(3)
        if line.endswith(f" report {n}") and line.startswith("  ↳")
    }
    assert len(marks) == 3 and len(set(marks.values())) == 3, marks
    exported = runner.invoke(main, ["export", "44444444", "-f", "md", *home])
    assert exported.exit_code == 0, exported.output
    said = [
        line for line in exported.stdout.splitlines() if "(sub-agent worker" in line
    ]
    assert len({line.split("(sub-agent ")[1].split(")")[0] for line in said}) == 3


def test_a_sub_agent_two_agents_claim_to_have_spawned_sits_once_in_the_tree() -> None:
    """Two spawns from two sub-agents naming the same child: `tree --json` and the
    terminal's tree listed it, and its tokens, under both (`--nl` once)."""
    from datetime import UTC, datetime

    from sessdex.model import Usage
    from sessdex.tree import build_tree

    when = datetime(2026, 11, 20, tzinfo=UTC)
    events = [
        Event("lead", 0, "subagent", when, extra={"child_id": "a"}),
        Event("lead", 1, "subagent", when, extra={"child_id": "b"}),
        Event("lead", 2, "subagent", when, agent_id="a", extra={"child_id": "x"}),
        Event("lead", 3, "subagent", when, agent_id="b", extra={"child_id": "x"}),
        Event("lead", 4, "usage", when, agent_id="x", usage=Usage(100, 10)),
    ]
    root = build_tree("lead", events)
    text = root.json().decode()
    assert text.count('"id":"x"') == 1
    assert json.loads(text) == root.record()
    assert [(depth, node.id) for depth, node in root.walk()] == [
        (0, "lead"), (1, "a"), (2, "x"), (1, "b")
    ]  # fmt: skip
