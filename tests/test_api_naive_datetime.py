"""A `datetime` without a zone means what the same time written as text, or a `date`,
means to the same call: UTC for list_sessions, find_sessions and watch_sessions (whose
'2026-11-20T09:30' and date(2026, 11, 20) are UTC), the report's `tz=` for usage_report.
It was local time for the first three, so one moment had two meanings in one call."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from sessdex import api
from sessdex.sources import Home
from tests.helpers import write_claude_session

SESSION = "61616161-0000-4000-8000-000000000001"


@pytest.fixture
def far_from_utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """This machine five hours behind UTC: local 09:30 is 14:30 UTC."""
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def home(tmp_path: Path) -> Home:
    """One session, last written 2026-11-20 10:00 UTC."""
    write_claude_session(
        tmp_path / "home", SESSION, "/w/a", when="2026-11-20T10:00:00.000Z"
    )
    return Home.at(tmp_path / "home")


@pytest.mark.usefixtures("far_from_utc")
@pytest.mark.parametrize(
    "since, listed",
    [
        (datetime(2026, 11, 20, 9, 30), True),  # 09:30 UTC, before 10:00
        (datetime(2026, 11, 20, 10, 30), False),
        (datetime(2026, 11, 20), True),  # as date(2026, 11, 20): its UTC midnight
    ],
)
def test_a_datetime_without_a_zone_is_read_as_the_same_text_is(
    home: Home, since: datetime, listed: bool
) -> None:
    text = since.isoformat()
    for given in (since, text, since.replace(tzinfo=UTC)):
        ids = [row.id for row in api.list_sessions(home, since=given).rows]
        assert (SESSION in ids) == listed, given
        found = api.find_sessions(home, "hello", since=given).rows
        assert (SESSION in [row.id for row in found]) == listed, given
    if since.hour == 0:
        assert [r.id for r in api.list_sessions(home, since=since.date()).rows] == [
            SESSION
        ]


@pytest.mark.usefixtures("far_from_utc")
def test_usage_report_reads_one_in_its_zone_as_before(home: Home) -> None:
    """usage_report's rule is unchanged: a zoneless time is in `tz=` (UTC unless said)."""
    for tz in (None, "Asia/Tokyo"):
        naive = api.usage_report(home, "session", since=datetime(2026, 11, 20), tz=tz)
        text = api.usage_report(home, "session", since="2026-11-20T00:00", tz=tz)
        day = api.usage_report(home, "session", since=date(2026, 11, 20), tz=tz)
        assert len(naive.rows) == len(text.rows) == len(day.rows)
