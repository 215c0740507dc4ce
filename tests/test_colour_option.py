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
