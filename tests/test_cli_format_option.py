"""`--format json` (or `-f json`, `-o json`), as other tools and sessdex's own `export`
ask for JSON, given to a command that prints JSON with `--json` or `--nl`, names that
option; it said only "No such option '--format'.", and `export --nl` named nothing."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from tests.conftest import app_home

HOME = str(app_home("claude"))
ID = "c0afe25d"


def _error(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, [*args, "--home", HOME], prog_name="sessdex")
    assert result.stdout == ""
    return result.exit_code, result.stderr.splitlines()[-1]


@pytest.mark.parametrize(
    "args",
    [
        ("list", "--format", "json"),
        ("list", "--format=json"),
        ("find", "retry", "-f", "json"),
        ("usage", "--format", "json"),
        ("doctor", "-o", "json"),
        ("show", ID, "--output", "json"),
    ],
)
def test_a_format_option_names_json_and_nl(args: tuple[str, ...]) -> None:
    code, said = _error(*args)
    option = args[-1].partition("=")[0] if "=" in args[-1] else args[-2]
    assert code == 2
    assert said == (
        f"Error: No such option '{option}'. Did you mean '--json' (or '--nl', one "
        "object a line)?"
    )


def test_a_command_with_only_one_of_them_names_that_one() -> None:
    assert _error("resume", ID, "--format", "json") == (
        2,
        "Error: No such option '--format'. Did you mean '--json'?",
    )
    assert _error("follow", ID, "--format", "json") == (
        2,
        "Error: No such option '--format'. Did you mean '--nl' (one JSON object a "
        "line)?",
    )


def test_export_given_nl_names_its_format_option() -> None:
    assert _error("export", ID, "--nl") == (
        2,
        "Error: No such option '--nl'. Did you mean '-f json'?",
    )
