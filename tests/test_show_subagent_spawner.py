"""A sub-agent shown on its own names who told it its task: the sub-agent that started
it where that is not the lead, as the lead's view does; and the sub-agents it started
itself were told theirs by it, not by the lead."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import api
from sessdex.cli import main
from sessdex.sources import Home

HOME = Path(__file__).parent / "data" / "claude" / "home"
# the lead 33333333 spawns code-reviewer a1c1c1c1, which spawns linter a2d2d2d2


def _out(*args: str) -> str:
    result = CliRunner().invoke(
        main, [*args, "--home", str(HOME)], catch_exceptions=False
    )
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_a_nested_sub_agent_alone_names_its_spawner() -> None:
    shown = _out("show", "a2d2d2d2", "--no-pager")
    assert "⇠ code-reviewer: Run the linter on payments.py." in shown
    assert "the lead" not in shown
    assert "## Message from code-reviewer\n" in _out("export", "a2d2d2d2", "-f", "md")
    page = _out("export", "a2d2d2d2", "-f", "html")
    assert "Message from code-reviewer" in page and "the lead" not in page


def test_a_sub_agent_alone_says_it_told_the_sub_agents_it_started() -> None:
    shown = _out("show", "a1c1c1c1", "--no-pager")
    assert "⇠ the lead: Review payments.py for bugs." in shown  # the lead did
    assert "↳ linter ⇠ code-reviewer: Run the linter on payments.py." in shown
    markdown = _out("export", "a1c1c1c1", "-f", "md")
    assert "## Message from code-reviewer (sub-agent linter" in markdown


@pytest.mark.parametrize("tail", [None, 10])
def test_the_library_gives_the_spawner_as_the_sender(tail: int | None) -> None:
    read = api.transcript(Home.at(HOME), "a2d2d2d2", tail=tail)
    told = [e.extra.get("from_agent") for e in read.events if e.kind == "user"]
    assert told == ["code-reviewer"]
