"""Sub-agent views checked against the files: `show --subagents tree` as JSON, `tree`."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main

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
    assert [e["seq"] for e in kept] == [s for s in grouped if s in {e["seq"] for e in said}]
    assert any(e["agent_id"] for e in kept)  # the sub-agents' words are there
