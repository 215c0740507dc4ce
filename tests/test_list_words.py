"""`sessdex list checkout` (a filter word, as other tools' list commands take one) is a
usage error that names the `find` line doing it, runnable as printed, not click's bare
"Got unexpected extra argument"."""

from __future__ import annotations

from click.testing import CliRunner

from sessdex.cli import main
from tests.conftest import app_home

DEMO = app_home("claude")


def test_words_given_to_list_point_at_find() -> None:
    result = CliRunner().invoke(main, ["list", "checkout"], prog_name="sessdex")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "'sessdex find checkout' finds the sessions they name" in result.stderr
    assert "unexpected extra argument" not in result.stderr


def test_a_dashed_word_goes_after_double_dash_and_the_home_is_kept() -> None:
    result = CliRunner().invoke(
        main, ["list", "--home", str(DEMO), "--", "--dry-run"], prog_name="sessdex"
    )
    assert result.exit_code == 2
    assert f"'sessdex find --home {DEMO} -- --dry-run'" in result.stderr


def test_list_without_words_still_lists() -> None:
    result = CliRunner().invoke(main, ["list", "--home", str(DEMO)])
    assert result.exit_code == 0 and result.stdout
