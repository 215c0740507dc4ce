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
