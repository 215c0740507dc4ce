"""`usage --since/--until` in a zone that is not UTC, across a summer-time change: each
response falls on the day its zone's clock showed, and a day's bounds are that day's own
midnights (a 23-hour and a 25-hour day included)."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import orjson
import pytest
from click.testing import CliRunner

from sessdex import usage
from sessdex.cli import main

# UTC times, each a minute either side of a midnight in Paris (CET +1, CEST +2), the input
# tokens saying which: 1 the last minute of 28 March, 2 the first of 29 March (23 hours,
# clocks go forward at 02:00), 3 its last, 4 the first of 30 March; 5 the first minute of
# 25 October (25 hours, clocks go back at 03:00), 6 its last, 7 the first of 26 October
STAMPS = {
    1: "2026-03-28T22:59:00Z",
    2: "2026-03-28T23:00:00Z",
    3: "2026-03-29T21:59:00Z",
    4: "2026-03-29T22:00:00Z",
    5: "2026-10-24T22:00:00Z",
    6: "2026-10-25T22:59:00Z",
    7: "2026-10-25T23:00:00Z",
}


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home" / ".claude" / "projects" / "-p"
    folder.mkdir(parents=True)
    lines = [
        {"type": "assistant", "timestamp": stamp, "sessionId": "s", "requestId": f"r{n}",
         "message": {"id": f"m{n}", "model": "claude-sonnet-4-5",
                     "usage": {"input_tokens": n, "output_tokens": 1}}}
        for n, stamp in STAMPS.items()
    ]  # fmt: skip
    (folder / "s.jsonl").write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in lines))
    return tmp_path / "home"


def days(home: Path, kind: str, *options: str) -> dict[str, int]:
    """key -> the input tokens of the row: which responses it took."""
    result = CliRunner().invoke(
        main,
        [
            "usage",
            kind,
            "--home",
            str(home),
            "--tz",
            "Europe/Paris",
            "--json",
            *options,
        ],
    )
    assert result.exit_code == 0, result.output
    return {row["key"]: row["input_tokens"] for row in orjson.loads(result.stdout)}


def test_each_response_is_on_the_day_the_zones_clock_showed(home: Path) -> None:
    assert days(home, "daily") == {
        "2026-03-28": 1,
        "2026-03-29": 2 + 3,
        "2026-03-30": 4,
        "2026-10-25": 5 + 6,
        "2026-10-26": 7,
    }


@pytest.mark.parametrize("day", ["2026-03-29", "2026-10-25"])
def test_since_and_until_one_short_or_long_day_take_that_days_responses(
    home: Path, day: str
) -> None:
    every = days(home, "daily")
    assert days(home, "daily", "--since", day, "--until", day) == {day: every[day]}
    monthly = days(home, "monthly", "--since", day, "--until", day)
    assert monthly == {day[:7]: every[day]}


def test_a_month_with_a_summer_time_change_is_cut_at_its_own_midnights(
    home: Path,
) -> None:
    march = days(home, "monthly", "--since", "2026-03-01", "--until", "2026-03-31")
    assert march == {"2026-03": 1 + 2 + 3 + 4}
    after = days(home, "daily", "--since", "2026-03-29", "--until", "2026-10-25")
    assert after == {"2026-03-29": 5, "2026-03-30": 4, "2026-10-25": 11}
    explained = CliRunner().invoke(
        main,
        ["usage", "daily", "--home", str(home), "--tz", "Europe/Paris", "--json",
         "--explain", "2026-10-25", "--since", "2026-10-25", "--until", "2026-10-25"],
    )  # fmt: skip
    counted = orjson.loads(explained.stdout)["counted"]
    assert sorted(r["input_tokens"] for r in counted) == [5, 6]


@pytest.mark.parametrize(
    "zone",
    ["Europe/Paris", "America/Santiago", "Australia/Lord_Howe", "Asia/Kathmandu",
     "Pacific/Chatham", "Africa/Casablanca", "America/St_Johns"],
)  # fmt: skip
def test_a_days_bounds_are_the_first_and_last_slots_dated_that_day(zone: str) -> None:
    """In zones whose clocks change at midnight, by half an hour, or by 45 minutes: every
    15-minute slot near a day's `--since` and `--until` bounds is inside them exactly when
    the report dates it that day."""
    tz = ZoneInfo(zone)
    day = date(2026, 1, 1)
    while day.year == 2026:
        start = usage.parse_day(day.isoformat(), tz)
        end = usage.parse_day(day.isoformat(), tz, end=True)
        low, high = usage._slot(start.timestamp()), usage._slot(end.timestamp())
        for slot in [*range(low - 6, low + 6), *range(high - 6, high + 6)]:
            dated = datetime.fromtimestamp(slot * usage.SLOT, tz).date()
            assert (low <= slot < high) == (dated == day), (zone, day, slot - low)
        day += timedelta(days=1)
