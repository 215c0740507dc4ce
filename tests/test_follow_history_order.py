"""`follow -n N` draws its recent history as `show` reads the session: a sub-agent's
block at its spawn, so it starts as the last N of `show` (the real CLIs' sessions of
/work/shared/corpus/realcli, copied under tests/data)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from sessdex.live_session import _at_spawns
from sessdex.model import Event
from tests.conftest import DATA

Key = tuple[object, object, object, object]


def _key(event: dict[str, object]) -> Key:
    return (event["time"], event["kind"], event.get("agent_id"), event.get("call_id"))


@pytest.mark.parametrize(
    ("app", "lead"),
    [
        ("gemini", "b44832f3"),  # gemini-0.61.0: its spawn stamped after its child
        ("vibe", "11e8c9f6"),  # vibe-3.0.2: the spawn's result stamped mid-child
        ("vibe", "fe38b8f5"),  # vibe-legacy-2.26.1: the same, its logs' layout
        # Claude Code's and Codex's show merges a sub-agent in by time: kept so
        ("claude", "82d9f90c"),  # claude-2.1.197: the lead's usage before its child
        ("codex", "01a22b81-666a"),  # codex-0.171.0: the spawn's result mid-child
    ],
)
def test_history_starts_as_the_end_of_show(app: str, lead: str) -> None:
    home = str(DATA / app / "home")
    run = CliRunner()
    shown = run.invoke(main, ["show", lead, "--json", "--home", home])
    assert shown.exit_code == 0, shown.output
    want = [_key(event) for event in json.loads(shown.stdout)][-20:]
    argv = ["follow", lead, "-n", "20", "--nl", "--duration", "0", "--home", home]
    followed = run.invoke(main, argv)
    assert followed.exit_code == 0, followed.output
    got = [_key(json.loads(line)) for line in followed.stdout.splitlines()]
    assert got == want


def _event(kind: str, second: int, agent: str | None = None, **extra: str) -> Event:
    at = datetime(2026, 11, 30, 8, 0, second, tzinfo=UTC)
    return Event(session_id="s", seq=0, kind=kind, time=at, agent_id=agent, extra=extra)  # type: ignore[arg-type]


def test_a_nested_sub_agent_in_its_spawners_block_one_spawned_earlier_by_time() -> None:
    # the grandchild's block inside its spawner's, at its spawn; "old" was spawned
    # before the history's start: among the lead's events by time, after that block
    events = [
        _event("user", 0),
        _event("subagent", 1, child_id="a"),
        _event("user", 2, "old"),
        _event("user", 3, "a"),
        _event("subagent", 4, "a", child_id="b"),
        _event("tool_result", 5),
        _event("user", 6, "b"),
        _event("turn_end", 7, "a"),
        _event("turn_end", 8),
    ]
    placed = [(e.kind, e.agent_id) for e in _at_spawns(events)]
    assert placed == [
        ("user", None),
        ("subagent", None),
        ("user", "a"),
        ("subagent", "a"),
        ("user", "b"),
        ("turn_end", "a"),
        ("user", "old"),
        ("tool_result", None),
        ("turn_end", None),
    ]
