"""`usage --explain claude-sonnet-4-5` on the daily rows (the default kind) names the
command that explains that model's row, as it does an app's name: the error listed the
days alone, and the way out (`usage model --explain …`) was left to be guessed."""

from __future__ import annotations

from click.testing import CliRunner

from sessdex.cli import main
from tests.conftest import DATA

DEMO = DATA.parent.parent / "src/sessdex/demo/home"


def explain(*args: str) -> str:
    result = CliRunner().invoke(main, ["usage", *args, "--home", str(DEMO)])
    assert result.exit_code == 1 and result.stdout == ""
    return result.stderr


def test_a_model_given_to_the_daily_rows_names_the_model_row_command() -> None:
    said = explain("--explain", "claude-sonnet-4-5")
    assert "no daily row is keyed 'claude-sonnet-4-5'" in said
    assert f"'sessdex usage model --explain claude-sonnet-4-5 --home {DEMO}'" in said


def test_an_app_given_to_the_model_rows_names_the_app_row_command() -> None:
    said = explain("model", "--explain", "codex")
    assert f"'sessdex usage app --explain codex --home {DEMO}'" in said


def test_a_key_of_no_row_names_none() -> None:
    assert "--explain" not in explain("--explain", "nope")
    assert "--explain" not in explain("--explain", "2026")  # a date's start: no id


def test_a_session_id_given_to_the_daily_rows_names_the_session_row_command() -> None:
    """`usage --explain 3f2b9c1e`, the report's kind left out, listed the days alone."""
    said = explain("--explain", "3f2b9c1e")
    assert said == (
        "Error: no daily row is keyed '3f2b9c1e'. Rows: 2026-11-26, 2026-11-28, "
        "2026-11-29; 'sessdex usage "
        f"session --explain 3f2b9c1e --home {DEMO}' explains a session's row.\n"
    )
    said = explain("model", "--explain", "019A7E21")  # an id, in any case
    assert f"'sessdex usage session --explain 019A7E21 --home {DEMO}'" in said


def test_a_period_with_no_usage_under_filters_names_its_own_report() -> None:
    """`usage monthly --explain 2026-11 --since 2027-01-01` (filters that leave no row)
    pointed at 'sessdex usage', the daily rows, where the months were asked for."""
    for kind, key in (("monthly", "2026-11"), ("weekly", "2026-11-23")):
        result = CliRunner().invoke(
            main,
            [
                "usage",
                kind,
                "--explain",
                key,
                "--since",
                "2027-01-01",
                "--home",
                str(DEMO),
            ],
        )
        assert result.exit_code == 0, result.output
        assert f"'sessdex usage {kind} --home {DEMO}' shows the rows" in result.stderr


def test_a_month_given_to_the_daily_or_weekly_rows_names_the_monthly_command() -> None:
    """`usage --explain 2026-11`, a month on the daily rows (the default kind), listed
    the days alone, as if the month were no key at all."""
    for kind in ((), ("weekly",)):
        said = explain(*kind, "--explain", "2026-11")
        assert f"'sessdex usage monthly --explain 2026-11 --home {DEMO}'" in said, said


def test_a_day_given_to_the_monthly_rows_names_its_month() -> None:
    said = explain("monthly", "--explain", "2026-11-28")
    assert said == (
        "Error: no monthly row is keyed '2026-11-28'. Rows: 2026-11; a month is keyed "
        f"by its year and month: 'sessdex usage monthly --explain 2026-11 --home {DEMO}' "
        "explains the month of 2026-11-28.\n"
    )
