"""`sessdex tree` in an 80-column terminal: a sub-agent's description is cut to the room
its line has, so the line stays one line. It was cut at 70 characters whatever the
width, and the terminal wrapped the rest onto a line of its own, without the guides."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

DATA = Path(__file__).parent / "data"


@pytest.mark.parametrize(
    ("app", "session_id", "head"),
    [
        ("codex", "01a22b81-666a", "└── greeter [done] SCENARIO=child"),
        ("gemini", "b44832f3", "└── generalist [done] SCENARIO=child"),
    ],
)
def test_a_sub_agents_description_fits_an_80_column_line(
    app: str, session_id: str, head: str
) -> None:
    home = DATA / app / "home"
    result = CliRunner().invoke(
        main, ["tree", session_id, "--home", str(home)], env={"COLUMNS": "80"}
    )
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines), lines
    (label,) = [line for line in lines if line.startswith(head)]
    assert label.endswith("…"), lines
    # the agent's own line, then its id and figures: nothing in between
    below = lines[lines.index(label) + 1]
    assert below.lstrip().startswith(("01a22b81-66cf", "85b47322")), lines


def test_a_wide_terminal_still_shows_the_description_up_to_its_usual_length() -> None:
    home = DATA / "codex" / "home"
    result = CliRunner().invoke(
        main, ["tree", "01a22b81-666a", "--home", str(home)], env={"COLUMNS": "200"}
    )
    assert result.exit_code == 0, result.output
    assert (
        "└── greeter [done] SCENARIO=child You are a sub-agent. Run the shell command "
        "`echo hello…" in result.stdout
    ), result.stdout


def test_an_agents_figures_break_between_items_in_a_narrow_terminal() -> None:
    """At 60 columns the line of id, tokens, calls and duration wrapped mid-item
    ('· 2' then 'tool calls · 0s'), without the guides; it now breaks between items."""
    home = DATA / "codex" / "home"
    result = CliRunner().invoke(
        main, ["tree", "01a22b81-666a", "--home", str(home)], env={"COLUMNS": "60"}
    )
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert all(len(line) <= 60 for line in lines), lines
    assert "01a22b81-666a-7993-963b-4b7cc4e806e9 · 3.6k in, 90 out" in lines
    assert "2 tool calls · 0s" in lines
    assert "    1 tool call · 0s" in lines  # the child's, under its guide
