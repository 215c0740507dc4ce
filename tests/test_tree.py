"""`sessdex tree` on the sub-agent sessions the real CLIs wrote (shared/corpus/realcli).

Expected figures were read off the files by hand: the mock model answers every request with
input 1200 and output 30 tokens, so the Claude lead (two requests) and its child (two) each
show 2400/60, and the Codex lead (three requests) 3600/90 with its child at 2400/60.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main

DATA = Path(__file__).parent / "data"


def tree(app: str, session_id: str) -> dict[str, object]:
    result = CliRunner().invoke(
        main, ["tree", session_id, "--json", "--home", str(DATA / app / "home")]
    )
    assert result.exit_code == 0, result.output
    value = json.loads(result.stdout)
    assert isinstance(value, dict)
    return value


def test_claude_sub_agent_tree() -> None:
    root = tree("claude", "82d9f90c")
    assert (root["id"], root["status"], root["tool_calls"]) == (
        "82d9f90c-3f87-46b4-b09c-58027a5e630c",
        "done",
        1,
    )
    assert (
        root["usage"]["input_tokens"] == 2400 and root["usage"]["output_tokens"] == 60
    )  # type: ignore[index]
    [child] = root["children"]  # type: ignore[misc]
    assert child["id"] == "a199d630441234c05"
    assert (child["agent_type"], child["description"], child["status"]) == (
        "general-purpose",
        "Greeting sub-agent",
        "done",
    )
    assert (
        child["usage"]["input_tokens"],
        child["usage"]["output_tokens"],
        child["tool_calls"],
    ) == (2400, 60, 1)
    assert child["children"] == []
    assert child["duration_seconds"] is not None and child["duration_seconds"] >= 0


def test_codex_sub_agent_tree() -> None:
    root = tree("codex", "01a22b81-666a")
    assert root["status"] == "done"
    assert (root["usage"]["input_tokens"], root["usage"]["output_tokens"]) == (3600, 90)  # type: ignore[index]
    [child] = root["children"]  # type: ignore[misc]
    assert child["id"] == "01a22b81-66cf-74d0-99b4-ed78fda80cf9"
    assert child["status"] == "done"
    assert child["description"].startswith("SCENARIO=child You are a sub-agent.")
    # Codex gives the sub-agent no type here, only the name its lead chose
    assert (child["agent_type"], child["agent_name"]) == (None, "greeter")
    assert (
        child["usage"]["input_tokens"],
        child["usage"]["output_tokens"],
        child["tool_calls"],
    ) == (2400, 60, 1)


def test_tree_in_the_terminal_names_each_agent() -> None:
    result = CliRunner().invoke(
        main, ["tree", "82d9f90c", "--home", str(DATA / "claude" / "home")]
    )
    assert result.exit_code == 0
    assert "lead [done]" in result.stdout
    assert "general-purpose [done] Greeting sub-agent" in result.stdout
    assert "· 1 tool call ·" in result.stdout
    result = CliRunner().invoke(
        main, ["tree", "01a22b81-666a", "--home", str(DATA / "codex" / "home")]
    )
    assert "└── greeter [done] SCENARIO=child" in result.stdout
    assert "· 2 tool calls ·" in result.stdout


def test_a_wide_deep_tree_with_late_and_circular_spawns_builds_right() -> None:
    """1,500 workers spawned by the lead, a chain 300 deep, a sub-agent whose events
    come before its spawn (moved from under the lead to its spawner) and a spawn of an
    ancestor (ignored): every node once, in its place. Built by walking up from each
    spawner, so the work grows with the depth, not with the size of the tree."""
    from datetime import UTC, datetime

    from sessdex.model import Event
    from sessdex.tree import build_tree

    when = datetime(2026, 11, 20, tzinfo=UTC)
    events: list[Event] = []

    def add(kind: str, agent: str | None, **extra: object) -> None:
        events.append(
            Event("lead", len(events), kind, when, agent_id=agent, extra=dict(extra))  # type: ignore[arg-type]
        )

    add("assistant", "late")  # a sub-agent heard from before its spawn
    for n in range(1500):
        add("subagent", None, child_id=f"w{n}")
    for n in range(300):
        add("subagent", f"c{n - 1}" if n else None, child_id=f"c{n}")
    add("subagent", "c10", child_id="late")
    add("subagent", "c299", child_id="c5")  # an ancestor: no edge, no cycle
    root = build_tree("lead", events)
    top = [child.id for child in root.children]
    assert top == [f"w{n}" for n in range(1500)] + ["c0"]
    node, depth = root.children[-1], 1
    while node.children and node.children[0].id.startswith("c"):
        node, depth = node.children[0], depth + 1
    assert (node.id, depth) == ("c299", 300)
    ten = root.children[-1]
    for _ in range(10):
        ten = ten.children[0]
    assert ten.id == "c10" and [c.id for c in ten.children] == ["c11", "late"]
    assert sum(1 for _ in root.walk()) == 1 + 1500 + 300 + 1


def test_usage_or_settings_written_after_the_last_answer_leave_it_done() -> None:
    """Mistral Vibe writes the cumulative usage after the turn ends; a model change may
    follow the last answer too. Neither is work: the agent is done, not running."""
    from sessdex.model import Event, Usage
    from sessdex.tree import build_tree

    def ev(n: int, kind: str, **fields: object) -> Event:
        return Event("s", n, kind, **fields)  # type: ignore[arg-type]

    answered = [ev(0, "user", text="hi"), ev(1, "assistant", text="hello"), ev(2, "turn_end")]  # fmt: skip
    after = [
        ev(3, "usage", usage=Usage(input_tokens=5)),
        ev(4, "meta", text="model: x"),
    ]
    assert build_tree("s", [*answered, *after]).status == "done"
    assert (
        build_tree("s", [*answered, ev(3, "tool_call", tool="Bash")]).status
        == "running"
    )


def test_a_sub_agent_nothing_links_to_a_call_is_done_once_it_answered_and_the_lead_is() -> (
    None
):
    """Some apps record a sub-agent without the call that spawned it (Cursor's IDE and CLI):
    no result ever closes it, so its own last answer does, once the lead is past it."""
    from sessdex.model import Event
    from sessdex.tree import build_tree

    def ev(n: int, kind: str, agent: str | None = None, **fields: object) -> Event:
        return Event("s", n, kind, agent_id=agent, **fields)  # type: ignore[arg-type]

    spawned = [ev(0, "user", text="go"), ev(1, "subagent", extra={"child_id": "c"}),
               ev(2, "user", "c", text="task"), ev(3, "assistant", "c", text="found it")]  # fmt: skip
    done = build_tree("s", [*spawned, ev(4, "assistant", text="thanks")])
    assert [child.status for child in done.children] == ["done"]
    lead_busy = build_tree("s", [*spawned, ev(4, "tool_call", tool="Bash")])
    assert [child.status for child in lead_busy.children] == ["running"]
    still_working = build_tree("s", [*spawned, ev(4, "tool_call", "c", tool="Grep"),
                                     ev(5, "assistant", text="waiting")])  # fmt: skip
    assert [child.status for child in still_working.children] == ["running"]
