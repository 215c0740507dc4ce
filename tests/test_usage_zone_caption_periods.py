"""`usage weekly` and `usage monthly` name the zone their weeks or months were cut in
as weeks or months: their caption said "days: UTC" under a table with no day in it."""

from __future__ import annotations

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
