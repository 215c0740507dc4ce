"""What a user of five agents a day met living in sessdex (a year of sessions in one home):
an `--explain` of an empty day named the home's first days, a year before the one asked;
its times said no zone; an option of a few words given none did not name them."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main

from .helpers import write_claude_session

DAYS = [f"2026-{month:02d}-{day:02d}" for month in (1, 2, 3, 4) for day in (1, 10, 20)]


def _a_session_on_each_of(home: Path, days: list[str]) -> None:
    """A Claude Code session answered at 10:00:05 UTC on each day, a response each."""
    for n, day in enumerate(days):
        path = write_claude_session(
            home,
            f"{n:08x}-0000-4000-8000-000000000000",
            "/home/dev/shop",
            when=f"{day}T10:00:00.000Z",
        )
        # a response of its own in each (one message id is one response, counted once)
        text = path.read_text().replace('"msg_1"', f'"msg_{n}"')
        path.write_text(text.replace('"req_1"', f'"req_{n}"'))


def test_explain_of_an_empty_day_names_the_days_around_it(tmp_path: Path) -> None:
    """`usage --explain 2026-02-15` with nothing that day answered "Rows: " and the first
    eight days of the home's history (a year back on a heavy user's), then "…": the days
    next to the one asked are those a user mistyped or misremembered."""
    _a_session_on_each_of(tmp_path, DAYS)
    home = ["--home", str(tmp_path)]

    def said(*args: str) -> str:
        result = CliRunner().invoke(main, ["usage", *args, *home])
        assert (result.exit_code, result.stdout) == (0, ""), result.output
        return result.stderr

    assert said("--explain", "2026-02-15") == (
        "No token usage was counted on 2026-02-15: nothing to explain. Rows: …, "
        "2026-01-10, 2026-01-20, 2026-02-01, 2026-02-10, 2026-02-20, 2026-03-01, "
        "2026-03-10, 2026-03-20, ….\n"
    )
    # at either end, the eight there are, "…" only on the side that has more
    assert said("--explain", "2027-01-01").endswith(
        "Rows: …, 2026-02-10, 2026-02-20, 2026-03-01, 2026-03-10, 2026-03-20, "
        "2026-04-01, 2026-04-10, 2026-04-20.\n"
    )
    assert said("monthly", "--explain", "2025-06").endswith(
        "Rows: 2026-01, 2026-02, 2026-03, 2026-04.\n"
    )


def test_an_option_of_named_values_given_none_says_the_values() -> None:
    """`show ID --subagents` (a flag, read as such) said only "Option '--subagents'
    requires an argument." and `--help` had to be read for the three words it takes; the
    words are said with it. Another option given no value keeps click's message, and each
    keeps the command's usage line above it."""
    for args, said in (
        (
            ["show", "7f3a", "--subagents"],
            "'--subagents' requires an argument: one of inline, tree, none.",
        ),
        (
            ["show", "7f3a", "--detail"],
            "'--detail' requires an argument: one of full, normal, user.",
        ),
        (["export", "7f3a", "-f"], "'-f' requires an argument: one of md, html, json."),
        (["list", "--since"], "Option '--since' requires an argument.\n"),
    ):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 2, result.output
        assert said in result.stderr, result.stderr
        assert result.stderr.startswith(f"Usage: main {args[0]} "), result.stderr


def test_explain_says_the_zone_of_the_times_it_lists(tmp_path: Path) -> None:
    """`usage --explain DAY` listed each response's time (`2026-01-10 10:00:05`) in UTC,
    or in --tz's zone, and said neither: next to `show`'s local times a response of the
    evening read as the wrong day's. The zone is said once, on the list's first line."""
    _a_session_on_each_of(tmp_path, DAYS[:2])
    home = ["--home", str(tmp_path)]
    for zone, said, at in (
        ([], "times in UTC", "2026-01-10 10:00:05"),
        (["--tz", "Asia/Kolkata"], "times in Asia/Kolkata", "2026-01-10 15:30:05"),
    ):
        result = CliRunner().invoke(
            main, ["usage", "--explain", "2026-01-10", *zone, *home]
        )
        assert result.exit_code == 0, result.output
        lines = result.stdout.splitlines()
        assert lines[2] == f"counted (1): {said}", lines
        assert f"  {at}  claude-sonnet-4-5" in lines[3], lines


def test_today_and_yesterday_are_times_since_and_until_take() -> None:
    """`sessdex usage --since today` and `list --since yesterday`, what a day's work is
    asked by, were "cannot read the time 'today'". A listing's today starts at this
    machine's midnight (not UTC's: a time, as 12h is); `usage`'s is the report's day."""
    import pytest

    from sessdex.selection import parse_since

    now = datetime(2026, 3, 10, 20, 0, tzinfo=UTC)  # 01:30 on the 11th in India
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TZ", "Asia/Kolkata")
        assert parse_since("today", now) == datetime(2026, 3, 10, 18, 30, tzinfo=UTC).timestamp()  # fmt: skip
        assert parse_since(" Yesterday", now) == datetime(2026, 3, 9, 18, 30, tzinfo=UTC).timestamp()  # fmt: skip


def test_usage_and_list_since_today_on_the_command_line(tmp_path: Path) -> None:
    """A session a day, the last three days: `--since today` is today's alone,
    `--since yesterday --until yesterday` yesterday's, in `usage` and `list` alike."""
    today = datetime.now(UTC).date()
    days = [str(today - timedelta(days=2)), str(today - timedelta(days=1)), str(today)]
    for n, day in enumerate(days):
        path = write_claude_session(
            tmp_path, f"{n:08x}-0000-4000-8000-000000000000", "/home/dev/shop",
            when=f"{day}T00:00:00.000Z",
        )  # fmt: skip
        text = path.read_text().replace('"msg_1"', f'"msg_{n}"')
        path.write_text(text.replace('"req_1"', f'"req_{n}"'))
    env = {"TZ": "UTC"}
    home = ["--home", str(tmp_path)]

    def rows(*args: str) -> list[str]:
        result = CliRunner().invoke(main, [*args, "--json", *home], env=env)
        assert result.exit_code == 0, result.output
        return [row.get("key") or row["id"] for row in json.loads(result.stdout)]

    assert rows("usage", "--since", "today") == [days[2]]
    assert rows("usage", "--since", "yesterday", "--until", "yesterday") == [days[1]]
    assert rows("usage", "--until", "yesterday", "--tz", "UTC") == days[:2]
    assert rows("list", "--since", "today") == ["00000002-0000-4000-8000-000000000000"]
    assert len(rows("list", "--since", "yesterday")) == 2
