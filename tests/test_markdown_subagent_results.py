"""Markdown export: a sub-agent's tool result says whose it is, as its call does.

In time order (`--subagents inline`) the results of agents at work together follow one
another: a result with no name could be any of theirs."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main

CLAUDE = Path(__file__).parent / "data" / "claude" / "home"


def test_a_sub_agents_result_is_labelled_with_the_agent_as_its_call_is() -> None:
    for mode in ("inline", "tree"):
        result = CliRunner().invoke(
            main,
            [
                "export",
                "33333333",
                "-f",
                "md",
                "--subagents",
                mode,
                "--home",
                str(CLAUDE),
            ],
            catch_exceptions=False,
        )
        assert result.exit_code == 0, result.stderr
        lines = result.stdout.splitlines()
        calls = [i for i, line in enumerate(lines) if line.startswith("- 🔧 Bash")]
        assert calls, result.stdout
        for at in calls:
            owner = lines[at][lines[at].rindex(" (sub-agent ") :]
            label = next(
                line.strip()
                for line in lines[at + 1 :]
                if line.strip().startswith(("result", "error"))
            )
            assert label.endswith(f"{owner}:"), (mode, label, owner)
