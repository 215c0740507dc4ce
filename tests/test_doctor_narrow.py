"""`doctor` on a 40-column terminal: a long value (the versions checked, a note) wraps 4
columns in, where under its label's value column (14 in) it had 26 columns and took a
line every two or three words; at 80 it wraps under its value's first word. Every word
is there, whole, in order, at either width."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from sessdex.sources import get
from tests.conftest import app_home


@pytest.mark.parametrize(("columns", "hang"), [(40, 4), (80, 14)])
def test_doctor_wraps_checked_with_readably_at_40_and_80_columns(
    columns: int, hang: int
) -> None:
    home = app_home("qwen")
    result = CliRunner(env={"COLUMNS": str(columns)}).invoke(
        main,
        ["doctor", "-v", "--app", "qwen", "--home", str(home)],  # -v: in full
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("  checked     "))
    end = next(i for i in range(at + 1, len(lines)) if not lines[i].startswith("    "))
    block = lines[at:end]
    assert len(block) > 1, block
    # nothing lost or cut: the same words, in order
    said = " ".join(block).removeprefix("  checked     ").split()
    assert said == get("qwen").CHECKED_WITH.split(), block
    assert all(len(line) <= columns for line in block), block
    # further lines start at one column, and are filled there
    assert all(len(line) - len(line.lstrip()) == hang for line in block[1:]), block
    assert len(block) <= len(get("qwen").CHECKED_WITH) // (columns - hang - 6) + 1
    # only a word with no space in it (a path) may pass the width, beside its label
    long = [line for line in lines if len(line) > columns]
    assert all(" " not in line[14:].strip() for line in long), long


def test_doctor_keeps_a_count_with_its_noun_at_40_columns() -> None:
    """ "16 sessions (9 leads, 7 sub-agents)" broke after "(9" at 40 columns: a count on
    one line, what it counts on the next. No line ends in a bare count now."""
    home = app_home("claude")
    result = CliRunner(env={"COLUMNS": "40"}).invoke(
        main, ["doctor", "--home", str(home)], catch_exceptions=False
    )
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert any("(9 leads," in line for line in lines), lines
    counts = [line for line in lines if line.split()[-1].lstrip("(").isdigit()]
    assert counts == [], counts


def test_doctor_keeps_a_version_with_its_count_at_40_columns() -> None:
    """ "versions 1.0.98 (2), ..., 2.1.220 (4)" broke between "2.1.220" and "(4)" at 40
    columns: the count alone began a line. A count in brackets now stays with what it
    counts, at every width from 40 to 80."""
    home = app_home("claude")
    for columns in range(40, 81):
        result = CliRunner(env={"COLUMNS": str(columns)}).invoke(
            main, ["doctor", "--home", str(home)], catch_exceptions=False
        )
        assert result.exit_code == 0, result.stderr
        lines = result.stdout.splitlines()
        assert any("2.1.220 (4)" in line for line in lines), (columns, lines)
        starts = [line.split()[0] for line in lines if line.startswith("    ")]
        assert [word for word in starts if re.fullmatch(r"\(\d+\),?", word)] == [], (
            columns,
            lines,
        )
