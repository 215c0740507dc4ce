"""`usage weekly` and `usage monthly` name the zone their weeks or months were cut in
as weeks or months: their caption said "days: UTC" under a table with no day in it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

HOME = str(Path(__file__).parent / "data" / "claude" / "home")


@pytest.mark.parametrize(
    ("kind", "said"), [("daily", "days"), ("weekly", "weeks"), ("monthly", "months")]
)
def test_each_periods_caption_names_its_period(kind: str, said: str) -> None:
    result = CliRunner().invoke(main, ["usage", kind, "--home", HOME])
    assert result.exit_code == 0, result.stderr
    assert f"\n{said}: UTC (--tz sets another)\n" in result.stdout, result.stdout


@pytest.mark.parametrize(
    ("kind", "said"), [("daily", "days"), ("weekly", "weeks"), ("monthly", "months")]
)
def test_an_empty_reports_line_names_its_period(
    kind: str, said: str, tmp_path: Path
) -> None:
    """Nothing found since a month: the line names the weeks or months the zone cut,
    as the caption does (it said "with days in UTC" of a weekly report)."""
    args = ["usage", kind, "--since", "2030-01", "--home", HOME]
    result = CliRunner().invoke(main, args)
    assert (result.exit_code, result.stdout) == (0, "")
    line = f"No token usage matches --since 2030-01, with {said} in UTC (--tz sets another); "
    assert result.stderr.startswith(line), result.stderr
    # the quick path (a warm index) says it alike
    env = {**os.environ, "SESSDEX_HOME": str(tmp_path)}
    for _ in range(2):
        done = subprocess.run([sys.executable, "-m", "sessdex", *args], env=env,
                              capture_output=True, text=True, check=True)  # fmt: skip
        assert done.stderr.startswith(line), done.stderr
