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
