"""A heavy user's day, round 5: the small option mistakes, narrow terminals and shared ids."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from sessdex.cli import main


def invoke(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), env=env, catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("usage", "-n"), "Error: -n needs a count, e.g. -n 20."),
        (("list", "--limit"), "Error: --limit needs a count, e.g. --limit 20."),
        (("show", "7f3a", "--tail"), "Error: --tail needs a count, e.g. --tail 20."),
        (("follow", "-n"), "Error: -n needs a count, e.g. -n 20."),
    ],
)
def test_a_count_given_no_value_says_what_it_takes(
    args: tuple[str, ...], said: str
) -> None:
    # click said only "Option '-n' requires an argument.", where --tz says what it needs
    code, out, err = invoke(*args)
    assert (code, out) == (2, "")
    assert err.rstrip().endswith(said), err
    assert err.startswith(f"Usage: main {args[0]} "), err


@pytest.mark.parametrize(
    ("args", "meant"),
    [
        (("list", "--lines", "3"), "-n/--limit"),  # click guessed '--since'
        (("list", "--last", "3"), "-n/--limit"),  # click guessed '--limit', '--nl'
        (("find", "x", "--lines", "3"), "-n/--limit"),
        (("watch", "--lines", "3"), "-n/--limit"),
        (("usage", "--lines", "3"), "-n/--limit"),
    ],
)
def test_a_count_word_click_guessed_otherwise_names_the_commands_n(
    args: tuple[str, ...], meant: str
) -> None:
    code, out, err = invoke(*args)
    assert (code, out) == (2, "")
    said = f"Error: No such option '{args[-2]}'. Did you mean '{meant}'?"
    assert err.rstrip().endswith(said), err
