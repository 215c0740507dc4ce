"""`sessdex -v`, as many tools take it for the version, said only "No such option '-v'":
the version is -V, and -v is --verbose after a command; the error says both."""

from __future__ import annotations

from click.testing import CliRunner

from sessdex.cli import main


def _last_line(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args), prog_name="sessdex")
    assert result.stdout == ""
    return result.exit_code, result.stderr.splitlines()[-1]


def test_a_bare_v_names_the_version_and_verbose() -> None:
    assert _last_line("-v") == (
        2,
        "Error: No such option '-v'. Did you mean '-V' (the version)? "
        "-v goes after a command: 'sessdex list -v'.",
    )
    code, said = _last_line("--verbose")
    assert code == 2 and "'sessdex list --verbose'" in said
    assert "--version" not in said  # click's look-alike: not what --verbose meant


def test_v_before_a_command_still_goes_after_it() -> None:
    assert _last_line("-v", "doctor") == (
        2,
        "Error: -v goes after the command: 'sessdex doctor -v'.",
    )
    version = CliRunner().invoke(main, ["-V"], prog_name="sessdex")
    assert version.exit_code == 0 and version.stdout.startswith("sessdex")


def test_a_count_with_no_command_names_the_commands_that_take_it() -> None:
    code, said = _last_line("-n", "5")
    assert code == 2
    assert said.startswith("Error: No such option '-n'. ")
    # it said no more than click's "No such option '-n'."
    assert "'sessdex list -n 5'" in said and "find" in said and "show" in said, said


def test_a_capital_v_after_a_command_names_the_version() -> None:
    code, said = _last_line("list", "-V")
    assert code == 2  # it suggested only '--verbose'
    assert said == (
        "Error: No such option '-V'. Did you mean 'sessdex --version' or '--verbose'?"
    )
    # a command with no --verbose: the version alone
    assert _last_line("demo", "-V") == (
        2,
        "Error: No such option '-V'. Did you mean 'sessdex --version'?",
    )
