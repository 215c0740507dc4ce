"""`watch` on a terminal too narrow for every column: the title and the reason (why the
session is listed) give way together, the wider first; the reason was cut to 18 cells
while a 44-cell title stayed whole."""

from __future__ import annotations

from click.testing import CliRunner

from sessdex import api
from sessdex.cli import main

DEMO = str(api.demo_home().path)


def board(columns: int) -> list[str]:
    result = CliRunner().invoke(
        main,
        ["watch", "--once", "--since", "30d", "--home", DEMO],
        env={"COLUMNS": str(columns)},
    )
    assert result.exit_code == 0, result.output
    return result.output.splitlines()


def test_at_120_columns_the_reason_is_whole_and_the_long_title_cut() -> None:
    lines = board(120)
    assert all(len(line) <= 120 for line in lines)
    sessions = [line for line in lines if line.startswith("  ")]
    assert len(sessions) == 3
    assert all("exited after its turn, 1w ago" in line for line in sessions), lines
    assert any("Fix the broken links in the" in line for line in sessions)
    assert not any("deployment guide" in line for line in sessions)


def test_a_narrower_board_still_fits_each_line() -> None:
    for columns in (100, 80, 60, 40):
        lines = board(columns)
        assert all(len(line) <= columns for line in lines), (columns, lines)
        assert sum(line.startswith("  ") for line in lines) == 3
