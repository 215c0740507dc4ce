"""`--no-color` (or `--color never`), as other tools take it: sessdex takes NO_COLOR
from the environment, and says so."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from sessdex.cli import main


@pytest.mark.parametrize(
    "args",
    [
        ("list", "--no-color"),
        ("show", "7f3a", "--color", "never"),
        ("usage", "--colour=never"),
        ("watch", "--no-colour"),
    ],
)
def test_a_colour_option_names_no_color(args: tuple[str, ...]) -> None:
    # it said "No such option '--no-color'." and no more
    result = CliRunner().invoke(main, list(args))
    assert (result.exit_code, result.stdout) == (2, "")
    assert f"NO_COLOR=1 sessdex {args[0]}" in result.stderr, result.stderr


def test_a_colour_option_before_the_command_names_it_too() -> None:
    result = CliRunner().invoke(main, ["--no-color", "list"])
    assert result.exit_code == 2
    assert "NO_COLOR=1 sessdex list" in result.stderr, result.stderr


@pytest.mark.parametrize(
    ("shell", "line"),
    [
        ("powershell", "$env:NO_COLOR = '1', then sessdex list …"),
        ("cmd", 'set "NO_COLOR=1", then sessdex list …'),
        ("fish", "NO_COLOR=1 sessdex list …"),
    ],
)
def test_the_line_is_one_the_users_shell_takes(shell: str, line: str) -> None:
    # PowerShell and cmd read `NO_COLOR=1 sessdex list` as a command named NO_COLOR=1
    result = CliRunner().invoke(
        main, ["list", "--no-color"], env={"SESSDEX_SHELL": shell}
    )
    assert line in result.stderr, result.stderr


@pytest.mark.parametrize(
    "args", [("list", "--color=always"), ("usage", "--colour", "always")]
)
def test_colour_asked_for_names_force_color(args: tuple[str, ...]) -> None:
    # `--color always` (colour into a pipe) was told how to turn colour off
    result = CliRunner().invoke(main, list(args), env={"SESSDEX_SHELL": "bash"})
    assert f"FORCE_COLOR=1 sessdex {args[0]}" in result.stderr, result.stderr
    assert "NO_COLOR" not in result.stderr


@pytest.mark.parametrize(
    "args",
    [("list", "--color", "auto"), ("--colour=auto", "list"), ("usage", "--color=tty")],
)
def test_color_auto_says_colour_is_already_automatic(args: tuple[str, ...]) -> None:
    # it was told to set NO_COLOR, as `--no-color` is: colour it never asked to drop
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 2
    assert "NO_COLOR" not in result.stderr, result.stderr
    assert "already" in result.stderr and "leave it out" in result.stderr, result.stderr


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["--today", "list"], "'sessdex list --since today'"),
        (["--jsn", "list"], "'sessdex list --json'"),
        (["--json", "export"], "'sessdex export -f json'"),
    ],
)
def test_an_option_before_the_command_is_offered_after_it(
    args: list[str], line: str
) -> None:
    # it said "Did you mean '--since today'?", which put where it was typed failed again
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2
    assert f"Did you mean {line}?" in result.stderr, result.stderr
