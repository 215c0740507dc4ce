"""Help read on a narrow terminal (50 columns): a word joined by a hyphen (`sub-agent`,
`de-duplication`) stays whole on its line, and every command's summary in
`sessdex --help` is said whole, as the ones that wrap are, never cut at "..."."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from sessdex.cli import main


def _help(*args: str, width: int) -> str:
    result = CliRunner().invoke(
        main, [*args, "--help"], prog_name="sessdex", terminal_width=width
    )
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("name", [None, *sorted(main.commands)])
def test_no_word_is_broken_at_its_hyphen(name: str | None) -> None:
    for width in (50, 80):
        shown = _help(*([name] if name else []), width=width)
        broken = [line for line in shown.splitlines() if re.search(r"[A-Za-z]-$", line)]
        assert broken == [], (width, broken)


def test_every_commands_summary_is_said_whole() -> None:
    shown = _help(width=50)
    commands = shown.split("Commands:", 1)[1]
    assert [line for line in commands.splitlines() if line.endswith("...")] == []
    said = " ".join(shown.split())
    assert "Show what sessdex does, on a small demo home shipped with it." in said
    assert "List sessions of every app, newest first." in said


@pytest.mark.parametrize("name", sorted(main.commands))
def test_what_click_adds_in_brackets_is_not_broken_where_it_fits(name: str) -> None:
    """`--duration`'s "[0 or more]" was cut after its "[0" at 80 columns."""
    shown = _help(name, width=80).split("Options:", 1)[1]
    opened = [line for line in shown.splitlines() if re.search(r"\[[^\]]*$", line)]
    assert opened == []


def test_the_usage_line_is_broken_only_at_its_spaces() -> None:
    """A helper put inside the formatter's class left its usage line to click, which
    cut `usage`'s `[daily|we` over `ekly|…`."""
    shown = _help("usage", width=30)
    assert "  [daily|weekly|monthly|session|project|model|app]\n" in shown
