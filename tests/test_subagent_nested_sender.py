"""A sub-agent spawned by another sub-agent was told its task by that one, not by the
lead: `show`, the Markdown and the HTML export say who, as they do for the lead's."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main

HOME = Path(__file__).parent / "data" / "claude" / "home"


def _out(*args: str) -> str:
    result = CliRunner().invoke(
        main, [*args, "--home", str(HOME)], catch_exceptions=False
    )
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_a_nested_sub_agents_task_comes_from_its_spawner() -> None:
    # the lead spawns code-reviewer, which spawns linter
    shown = _out("show", "33333333", "--no-pager")
    assert "↳ code-reviewer ⇠ the lead: Review payments.py" in shown
    assert "↳ linter ⇠ code-reviewer: Run the linter" in shown, shown
    markdown = _out("export", "33333333", "-f", "md")
    assert "## Message from the lead (sub-agent code-reviewer" in markdown
    assert "## Message from code-reviewer a1c1c1c1 (sub-agent linter" in markdown
    page = _out("export", "33333333", "-f", "html")
    assert '<h3 class="who">Message from the lead</h3>' in page
    assert '<h4 class="who">Message from code-reviewer a1c1c1c1</h4>' in page
    assert page.count("Message from the lead") == 1
