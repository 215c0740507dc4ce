"""`list --today`, `usage --yesterday`: a day typed as an option of its own, where
`--since` takes it, is answered with the line that means it."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from sessdex.cli import main


@pytest.mark.parametrize(
    ("args", "meant"),
    [
        (("list", "--today"), "Did you mean '--since today'?"),
        (
            ("usage", "--yesterday"),
            "Did you mean '--since yesterday --until yesterday'?",
        ),
        (("watch", "--once", "--today"), "Did you mean '--since today'?"),
        (("find", "retry", "--today"), "Did you mean '--since today'?"),
        (("usage", "session", "--today", "--json"), "Did you mean '--since today'?"),
    ],
)
def test_a_day_typed_as_an_option_names_since(
    args: tuple[str, ...], meant: str
) -> None:
    # it said "No such option '--today'." and no more
    result = CliRunner().invoke(main, list(args))
    assert (result.exit_code, result.stdout) == (2, "")
    assert meant in result.stderr, result.stderr


def test_a_command_of_one_session_says_it_takes_no_time() -> None:
    result = CliRunner().invoke(main, ["show", "7f3a", "--today"])
    assert result.exit_code == 2
    assert "takes one session, not a time" in result.stderr, result.stderr


@pytest.mark.parametrize("command", ["list", "find"])
def test_yesterday_is_that_day_alone(command: str) -> None:
    # '--since yesterday' runs from its midnight to now, today's sessions too: the
    # day alone ends where --until yesterday does
    result = CliRunner().invoke(main, [command, "--yesterday"])
    assert "Did you mean '--since yesterday --until yesterday'?" in result.stderr
