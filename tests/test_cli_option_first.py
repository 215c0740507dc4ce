"""`sessdex --home DIR list` (an option before the command, as `git -C DIR log` takes
one) is a usage error that gives the line as meant, `sessdex list --home DIR`, instead of
"No such option '--home'. Did you mean '--help'?"."""

from __future__ import annotations

from click.testing import CliRunner

from sessdex.cli import main


def test_an_option_of_the_command_given_before_it_names_the_line_as_meant() -> None:
    result = CliRunner().invoke(
        main, ["--home", "/tmp/a b", "show", "3f2b", "--json"], prog_name="sessdex"
    )
    assert result.exit_code == 2
    assert result.stdout == ""
    assert (
        "--home goes after the command: \"sessdex show --home '/tmp/a b' 3f2b --json\""
        in result.stderr
    )
    assert "Did you mean '--help'" not in result.stderr


def test_an_option_the_command_does_not_take_is_click_s_error() -> None:
    # demo takes no --json (its --home is hidden, taken only to say that demo reads its
    # own home: `sessdex --home DIR demo` is moved after it, and demo then says so)
    result = CliRunner().invoke(main, ["--json", "demo"], prog_name="sessdex")
    assert result.exit_code == 2
    assert "No such option '--json'" in result.stderr
    bogus = CliRunner().invoke(main, ["--bogus", "list"], prog_name="sessdex")
    assert bogus.exit_code == 2 and "No such option '--bogus'" in bogus.stderr


def test_a_misspelt_option_before_the_command_gets_its_did_you_mean() -> None:
    # as `sessdex list --jsn` is answered, the option offered after the command
    result = CliRunner().invoke(main, ["--jsn", "list"], prog_name="sessdex")
    assert result.exit_code == 2
    assert (
        "No such option '--jsn'. Did you mean 'sessdex list --json'?" in result.stderr
    )
    after = CliRunner().invoke(main, ["list", "--jsn"], prog_name="sessdex")
    assert "No such option '--jsn'. Did you mean '--json'?" in after.stderr
    given_a_value = CliRunner().invoke(
        main, ["--limt", "5", "list"], prog_name="sessdex"
    )
    assert (
        "No such option '--limt'. Did you mean 'sessdex list --limit 5'?"
        in given_a_value.stderr
    )
