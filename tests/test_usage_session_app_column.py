"""`usage session` over a home of several apps names each row's app, as `--json` does
(`apps`): two apps' sessions were told apart only by their ids."""

from __future__ import annotations

from click.testing import CliRunner

from sessdex import api
from sessdex.cli import main

DEMO = str(api.demo_home().path)


def usage_session(columns: int, *more: str) -> str:
    result = CliRunner().invoke(
        main, ["usage", "session", "--home", DEMO, *more], env={"COLUMNS": str(columns)}
    )
    assert result.exit_code == 0, result.output
    return result.output


def rows_of(table: str) -> dict[str, str]:
    """Each session's row, by its short id."""
    return {
        short: line
        for line in table.splitlines()
        for short in ("3f2b9c1e", "a7c41d05", "019a7e21")
        if short in line
    }


def test_a_session_row_names_its_app_where_the_home_holds_several() -> None:
    table = usage_session(100)
    assert "App" in table.splitlines()[1]
    rows = rows_of(table)
    assert " codex " in rows["019a7e21"] and " claude " in rows["3f2b9c1e"]
    assert " claude " in rows["a7c41d05"]
    assert all(len(line) <= 100 for line in table.splitlines())


def test_a_narrow_table_still_fits_and_one_app_gets_no_column() -> None:
    for columns in (80, 60, 40):
        table = usage_session(columns)
        assert all(len(line) <= columns for line in table.splitlines()), table
        assert len(rows_of(table)) == 3
    assert "App" not in usage_session(100, "--app", "claude").splitlines()[1]
