"""`usage --explain today` (and `yesterday`), as `--since` takes them: the row of that
day in the report's zone, or its week or month. It said "no daily row is keyed 'today'",
and a user who just saw today's cost had to type the date."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from sessdex import api
from sessdex.sources import Home
from tests.helpers import write_claude_session

DEMO = str(api.demo_home().path)


def _home_used_today(tmp_path: Path) -> tuple[Path, datetime]:
    now = datetime.now(UTC).replace(second=0, microsecond=0)
    home = tmp_path / "home"
    when = now.strftime("%Y-%m-%dT%H:%M:00.000Z")
    write_claude_session(home, "7f3a0000-0000-4000-8000-000000000001", "/x", when=when)
    return home, now


def _sessdex(*args: str) -> subprocess.CompletedProcess[str]:
    """The real command: `usage` answers on its quick path, without click."""
    return subprocess.run(
        [sys.executable, "-c", "from sessdex.launch import main; main()", *args],
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.parametrize("quick", [True, False])
def test_today_explains_todays_row(tmp_path: Path, quick: bool) -> None:
    home, now = _home_used_today(tmp_path)
    if quick:
        done = _sessdex(
            "usage", "--explain", "Today", "--tz", "UTC", "--home", str(home)
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith(f"row {now.date().isoformat()}: 1 response")
    else:
        explained = api.usage_report(Home.at(home), "daily", tz="UTC", explain="today")
        assert explained.explained is not None
        assert explained.explained.row.key == now.date().isoformat()


def test_this_week_and_month_are_named_by_today(tmp_path: Path) -> None:
    home, now = _home_used_today(tmp_path)
    monday = (now - timedelta(days=now.weekday())).date().isoformat()
    weekly = _sessdex("usage", "weekly", "--explain", "today", "--home", str(home))
    assert weekly.stdout.startswith(f"row {monday}: 1 response"), weekly.stderr
    monthly = _sessdex("usage", "monthly", "--explain", "today", "--home", str(home))
    assert monthly.stdout.startswith(f"row {now:%Y-%m}: 1 response"), monthly.stderr


def test_yesterday_with_nothing_is_said_as_an_empty_day() -> None:
    yesterday = (datetime.now(UTC) - timedelta(days=1)).date().isoformat()
    done = _sessdex("usage", "--explain", "yesterday", "--tz", "UTC", "--home", DEMO)
    assert done.returncode == 0 and done.stdout == ""
    assert f"No token usage was counted on {yesterday}" in done.stderr
