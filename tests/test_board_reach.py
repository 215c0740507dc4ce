"""An empty board suggests the smallest round `--since` that reaches the newest session:
`2w` for one 8 days old, where it said `4w`."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from sessdex.selection import parse_since
from sessdex.views.board import empty_board

from .helpers import write_claude_session

NOW = datetime(2026, 12, 7, 9, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    ("ago", "reach"),
    [(timedelta(hours=2), "3h"), (timedelta(hours=20), "1d"), (timedelta(days=2.5), "3d"),
     (timedelta(days=8), "2w"), (timedelta(days=40), "2mo"),
     (timedelta(days=100), "6mo")],
)  # fmt: skip
def test_the_suggested_since_is_the_smallest_round_one_that_reaches(
    ago: timedelta, reach: str
) -> None:
    said = empty_board("1d", NOW - ago, NOW)
    assert said.endswith(f": --since {reach} shows it."), said
    assert parse_since(reach, NOW) < (NOW - ago).timestamp()  # it does reach it


def test_watch_once_on_a_home_of_an_8_days_old_session_suggests_2w(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    when = (datetime.now(UTC) - timedelta(days=8)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    write_claude_session(home, "aaaaaaaa-0000-4000-8000-00000000000a", "/w/old",
                         title="an old one", when=when)  # fmt: skip
    result = CliRunner().invoke(main, ["watch", "--once", "--home", str(home)])
    assert result.stderr.endswith("ago: --since 2w shows it.\n"), result.stderr


def test_a_board_of_a_span_in_words_says_it_as_given() -> None:
    said = empty_board("3days", NOW - timedelta(days=8), NOW)
    assert said.startswith("No session changed in the last 3 days;"), said
