"""A sub-agent no spawning call describes (a sidechain file of Claude Code's beside its
lead, holding the lead's session id, whose events hold no Task call for it) is described
in `tree` by its own session's title, as `list --all` and `usage session` name it: its
line said "agent [done]" alone, two such sub-agents not told apart."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main

from .helpers import claude_line, write_claude_session

LEAD = "1ead0000-0000-4000-8000-000000000001"
CWD = "/w/app"


def _agent_file(home: Path, agent: str, task: str) -> None:
    """Its file beside the lead's, written as Claude Code writes JSON (no spaces)."""
    folder = home / ".claude" / "projects" / CWD.replace("/", "-")
    asked = claude_line(
        LEAD,
        CWD,
        type="user",
        isSidechain=True,
        uuid=f"{agent}-u",
        parentUuid=None,
        timestamp="2026-11-20T09:00:05.000Z",
        message={"role": "user", "content": task},
    )
    said = claude_line(
        LEAD,
        CWD,
        type="assistant",
        isSidechain=True,
        uuid=f"{agent}-a",
        parentUuid=f"{agent}-u",
        timestamp="2026-11-20T09:00:06.000Z",
        requestId=f"req_{agent}",
        message={
            "id": f"msg_{agent}",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": "On it."}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 100, "output_tokens": 10},
        },
    )
    text = "".join(
        json.dumps(line, separators=(",", ":")) + "\n" for line in (asked, said)
    )
    (folder / f"agent-{agent}.jsonl").write_text(text)


def _tree(home: Path, *options: str) -> str:
    result = CliRunner().invoke(main, ["tree", LEAD[:8], *options, "--home", str(home)])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_a_subagent_no_spawn_describes_has_its_own_title(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_claude_session(home, LEAD, CWD, title="Lead work")
    _agent_file(home, "hash-one", "Run the test suite")
    _agent_file(home, "hash-two", "Build the project")
    listed = CliRunner().invoke(main, ["list", "--all", "--home", str(home)]).stdout
    assert "Run the test suite" in listed, listed  # what the tree should say too
    drawn = _tree(home)
    assert "[done] Run the test suite" in drawn, drawn
    assert "[done] Build the project" in drawn, drawn
