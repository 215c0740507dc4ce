"""A command name a new user reaches for from other tools (`search`, `cat`, `help`) is
met with the sessdex command that does it, not a bare "No such command" (exit 2, a
usage error, as any unknown command)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from sessdex.cli import main


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("search", "find"),
        ("grep", "find"),
        ("cat", "show"),
        ("view", "show"),
        ("open", "resume"),
        ("continue", "resume"),
        ("cost", "usage"),
        ("stats", "usage"),
        ("tail", "follow"),
        ("status", "watch"),
        ("shwo", "show"),  # a typo, whatever click's version
        ("Lst", "list"),
    ],
)
def test_a_command_from_another_tool_names_the_sessdex_one(
    typed: str, meant: str
) -> None:
    result = CliRunner().invoke(main, [typed, "7f3a"], prog_name="sessdex")
    assert result.exit_code == 2
    assert f"No such command '{typed}'. Did you mean '{meant}'?" in result.stderr
    assert result.stdout == ""


def test_help_as_a_command_points_at_the_help_option() -> None:
    result = CliRunner().invoke(main, ["help"], prog_name="sessdex")
    assert result.exit_code == 2
    assert "No such command 'help'. Try 'sessdex --help'" in result.stderr


def test_help_of_a_command_points_at_that_commands_help() -> None:
    """`sessdex help show`, as git and cargo take it: said "Try 'sessdex --help', or
    'sessdex COMMAND --help'", the command it was given left for the user to put in."""
    result = CliRunner().invoke(main, ["help", "Show"], prog_name="sessdex")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == (
        "Error: No such command 'help'. Try 'sessdex show --help'."
    )


def test_version_as_a_command_points_at_the_version_option() -> None:
    result = CliRunner().invoke(main, ["version"], prog_name="sessdex")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == (
        "Error: No such command 'version'. Try 'sessdex --version'."
    )


def test_a_word_like_no_command_is_still_refused_plainly() -> None:
    result = CliRunner().invoke(main, ["zzzzzz"])
    assert result.exit_code == 2
    assert "No such command 'zzzzzz'." in result.stderr
    assert "Did you mean" not in result.stderr
    # an option in a command's place is still an unknown option
    result = CliRunner().invoke(main, ["--nope"])
    assert result.exit_code == 2 and "No such option '--nope'" in result.stderr


def test_sessdex_help_lists_each_command_whole_on_80_columns() -> None:
    """`sessdex -h`, the first thing a new user reads: each command's summary whole, not
    cut off with "..." on a common terminal."""
    result = CliRunner().invoke(
        main, ["--help"], prog_name="sessdex", terminal_width=80
    )
    assert result.exit_code == 0
    listed = result.stdout.split("Commands:\n", 1)[1].splitlines()
    assert [line.split()[0] for line in listed] == sorted(main.commands)
    assert all(len(line) <= 80 and not line.endswith("...") for line in listed), listed


def test_usage_help_says_which_report_it_gives_unasked() -> None:
    result = CliRunner().invoke(main, ["usage", "-h"], terminal_width=80)
    assert result.exit_code == 0
    assert "per day (the default)" in " ".join(result.stdout.split())
