"""An option a command does not take is answered with one it does take that is close in
spelling or meaning, or with the commands that take it: never a far one click guessed."""

from __future__ import annotations

from click.testing import CliRunner

from sessdex import api
from sessdex.cli import main

DEMO = str(api.demo_home().path)


def refusal(*args: str) -> str:
    result = CliRunner().invoke(main, [*args, "--home", DEMO])
    assert result.exit_code == 2, result.output
    return result.stderr


def test_an_option_another_command_takes_is_said_to_be_theirs() -> None:
    said = refusal("watch", "--until", "1d")
    assert "--nl" not in said
    assert "list, find" in said and "usage" in said and "'--until'" in said


def test_a_short_flag_gets_the_long_options_of_its_letter() -> None:
    assert "Did you mean '--all' or '--app'?" in refusal("list", "-a")
    assert "Did you mean '--app'?" in refusal("usage", "-a")


def test_a_typo_is_answered_with_the_close_option_alone() -> None:
    said = refusal("find", "--limt", "3", "x")
    assert "'--limit'" in said and "--nl" not in said
    said = refusal("list", "--jsn")
    assert "'--json'" in said and "--since" not in said and "'--nl'" not in said


def test_a_short_flag_other_commands_take_is_not_answered_with_another_meaning() -> (
    None
):
    """`tree -n 5`: -n is a count where it is taken (list, show, ...), so '--nl' (one JSON
    object a line), the long option of its letter there, is not what was meant."""
    for command in ("tree", "doctor", "replay"):
        said = refusal(command, "-n", "5")
        assert "--nl" not in said, command
        assert f"sessdex {command} takes no '-n'" in said and "list" in said, command
