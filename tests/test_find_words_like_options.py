"""`find -- pytest -v`: past `--` every word is one to find, a flag of find's own (`-v`)
too; only a `--home`, an output or another option taking a value, typed at the end, is
said as the option it was meant as. Without `--`, a word that reads as an option gets
the line that finds it, the other words and options kept."""

from __future__ import annotations

from click.testing import CliRunner

from sessdex import api
from sessdex.cli import main

DEMO = str(api.demo_home().path)


def _find(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["find", *args], catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_a_flag_of_finds_own_past_the_dashes_is_a_word_to_find() -> None:
    code, out, err = _find("--home", DEMO, "--", "pytest", "-v")
    assert code == 0 and out == "", err
    assert "No session matches 'pytest -v'" in err


def test_a_long_flag_past_the_dashes_is_a_word_too() -> None:
    code, _, err = _find("--home", DEMO, "--", "pytest", "--verbose", "--all")
    assert code == 0, err
    assert "No session matches 'pytest --verbose --all'" in err


def test_a_home_and_an_output_past_the_dashes_are_still_said() -> None:
    code, out, err = _find("--", "--json", "--home", DEMO)
    assert code == 2 and out == ""
    assert f"'sessdex find --home {DEMO} -- --json' gives them as options" in err


def test_only_the_options_that_end_the_line_move_in_front() -> None:
    code, _, err = _find("--home", DEMO, "--", "pytest", "-v", "--json")
    assert code == 2
    assert f"'sessdex find --json --home {DEMO} -- pytest -v'" in err


def test_an_unknown_long_option_gets_the_line_with_every_word() -> None:
    code, _, err = _find("--home", DEMO, "pytest", "--dry-run")
    assert code == 2
    assert f"'sessdex find --home {DEMO} -- pytest --dry-run'" in err


def test_an_unknown_short_option_gets_that_line_too() -> None:
    code, _, err = _find("pytest", "-x", "--json")
    assert code == 2
    assert "No such option '-x'." in err
    assert "'sessdex find --json -- pytest -x'" in err


def test_an_option_typed_right_after_the_dashes_is_a_word_to_find() -> None:
    """`find checkout -- --json`: the `--` put there for it, as the help says."""
    code, out, err = _find("--home", DEMO, "checkout", "--", "--json")
    assert code == 0 and out == "", err
    assert "No session matches 'checkout --json'" in err
