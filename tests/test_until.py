"""`list --until`, `find --until`: the end of a window of time, read as `--since` is."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import api, quick, selection
from sessdex.cli import main
from sessdex.errors import BadValue

from .test_quick import full, full_run, settled

DEMO = str(api.demo_home().path)
# the demo's sessions, last updated 2026-11-29 10:05 (codex), 2026-11-28 14:03 and
# 2026-11-26 09:01 UTC (claude)
NEWEST, MIDDLE, OLDEST = "019a7e21", "3f2b9c1e", "a7c41d05"


def ids(*args: str, command: str = "list") -> list[str]:
    result = CliRunner().invoke(
        main, [command, *args, "--json", "--home", DEMO], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    return [row["id"][:8] for row in json.loads(result.stdout)]


def test_until_a_date_keeps_that_whole_day_and_none_after() -> None:
    """A day given to --until counts whole, as `usage --until` counts it: the session of
    the 28th at 14:03 UTC is in `--until 2026-11-28`, not in `--until 2026-11-27`."""
    assert ids() == [NEWEST, MIDDLE, OLDEST]
    assert ids("--until", "2026-11-28") == [MIDDLE, OLDEST]
    assert ids("--until", "2026-11-27") == [OLDEST]
    assert ids("--until", "2026-11-28T14:00") == [OLDEST]  # a time: that moment
    assert ids("--until", "2026-11-01") == []


def test_since_and_until_make_a_window_in_list_and_find() -> None:
    assert ids("--since", "2026-11-27", "--until", "2026-11-28") == [MIDDLE]
    assert ids("checkout", "--until", "2026-11-28", command="find") == [MIDDLE]
    assert ids("shop", "--since", "2026-11-29", "--until", "2026-11-29", command="find") == [NEWEST]  # fmt: skip


def test_until_today_and_yesterday_end_at_a_local_midnight(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TZ", "Asia/Tokyo")  # UTC+9 all year
    now = datetime(2026, 12, 6, 20, 0, tzinfo=UTC)  # the 7th, 05:00, in Tokyo
    tokyo_midnight_7th = datetime(2026, 12, 6, 15, 0, tzinfo=UTC).timestamp()
    assert selection.parse_until("yesterday", now) == tokyo_midnight_7th
    assert selection.parse_until("today", now) == tokyo_midnight_7th + 86400
    assert selection.parse_until("3d", now) == selection.parse_since("3d", now)


def test_a_since_not_before_until_is_a_usage_error() -> None:
    """An empty window is said, not listed as "no sessions"."""
    result = CliRunner().invoke(
        main, ["list", "--since", "2026-11-29", "--until", "2026-11-28", "--home", DEMO]
    )
    assert result.exit_code == 2, result.output
    assert result.stderr == (
        "Error: --since '2026-11-29' is not before --until '2026-11-28', so nothing "
        "can match; swap them.\n"
    )
    bad = CliRunner().invoke(main, ["find", "x", "--until", "soon", "--home", DEMO])
    assert bad.exit_code == 2 and "cannot read the time 'soon'" in bad.stderr


def test_the_same_span_since_and_until_is_one_moment_refused() -> None:
    """`--since 3d --until 3d` names one moment: both read at the same now, it is the
    usage error an empty window gets, not a window of the microseconds between two
    readings of the clock (an empty list or report, or a find saying its words match
    without)."""
    for command, words in (("list", []), ("find", ["checkout"]), ("usage", [])):
        args = [command, *words, "--since", "3d", "--until", "3d", "--home", DEMO]
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 2, (command, result.output)
        assert "--since '3d' is not before --until '3d'" in result.stderr
    with pytest.raises(BadValue, match="is not before"):
        api.find_sessions(api.demo_home(), "checkout", since="2w", until="2w")
    with pytest.raises(BadValue, match="is not before"):
        api.usage_report(api.demo_home(), since="2w", until="2w")


def test_the_library_takes_until_as_text_a_date_or_a_datetime() -> None:
    home = api.demo_home()
    for until in ("2026-11-28", date(2026, 11, 28), datetime(2026, 11, 29)):
        found = api.list_sessions(home, until=until).sessions()
        assert [s.id[:8] for s in found] == [MIDDLE, OLDEST], until
    found = api.find_sessions(home, "checkout", until="2026-11-28").sessions()
    assert [s.id[:8] for s in found] == [MIDDLE]


def test_an_empty_find_names_the_until_that_hid_the_matches(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """Said by the full command and by the warm quick path alike, and the quick path
    answers a --until listing as the full command does."""
    home = settled(Path(shutil.copytree(DEMO, tmp_path / "home", symlinks=True)))
    full("--json", "--home", str(home))
    args = ["checkout", "--until", "2026-11-01", "--home", str(home)]
    expected = full_run(*args, command="find")
    assert expected.stdout == b""
    assert expected.stderr == (
        b"No session matches 'checkout' with --until 2026-11-01, but 2 do without "
        b"--until 2026-11-01.\n"
    )
    capsysbinary.readouterr()
    assert quick.answer("find", args)
    printed = capsysbinary.readouterr()
    assert (printed.out, printed.err) == (b"", expected.stderr)
    listed = ["--json", "--since", "2026-11-27", "--until", "2026-11-28"]
    listed += ["--home", str(home)]
    expected_list = full(*listed)
    assert [row["id"][:8] for row in json.loads(expected_list)] == [MIDDLE]
    assert quick.answer("list", listed)
    assert capsysbinary.readouterr().out == expected_list


def test_since_is_worded_alike_in_list_find_and_watch() -> None:
    def since_help(name: str) -> str | None:
        command = main.commands[name]
        return next(o.help for o in command.params if o.name == "since")

    assert since_help("list") == since_help("find") == since_help("watch")


def test_every_since_and_until_help_says_a_date_may_carry_a_zone() -> None:
    """What README and docs/usage.md say of a zoned date, `--help` says too, in the same
    words for every command's --since and --until."""
    zoned = (
        "a date with a zone, 2026-11-28Z or 2026-11-28+09:00, counts whole in that zone"
    )
    helps = {
        (name, option.name): option.help or ""
        for name in ("list", "find", "watch", "usage")
        for option in main.commands[name].params
        if option.name in ("since", "until")
    }
    assert len(helps) == 7  # watch has no --until
    assert [key for key, text in helps.items() if zoned not in text] == []
    assert helps["list", "until"] == helps["find", "until"]


def test_a_date_with_a_zone_counts_whole_in_that_zone() -> None:
    """`2026-11-28Z` or `2026-11-28+14:00` is that day where the zone is: --until keeps
    it whole (to its next midnight there), as a plain date, not up to its first moment;
    --since starts at its midnight there, not at a time of day read from the offset.
    `list`, `find` and `usage` alike."""
    assert ids("--until", "2026-11-28Z") == [MIDDLE, OLDEST]  # 14:03 UTC kept
    # the 28th in +14:00 ends at 10:00 UTC: the session of 14:03 UTC is after it
    assert ids("--until", "2026-11-28+14:00") == [OLDEST]
    assert ids("--until", "2026-11-28-12:00") == [NEWEST, MIDDLE, OLDEST]
    assert ids("checkout", "--until", "2026-11-28Z", command="find") == [MIDDLE]
    # the 29th in +12:00 starts at 12:00 UTC on the 28th
    assert ids("--since", "2026-11-29+12:00") == [NEWEST, MIDDLE]
    assert ids("--since", "2026-11-28Z", "--until", "2026-11-28Z") == [MIDDLE]

    def report(*args: str) -> object:
        args = ("usage", "daily", *args, "--json", "--home", DEMO)
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)

    day = report("--since", "2026-11-28", "--until", "2026-11-28", "--tz", "UTC")
    assert [row["key"] for row in day] == ["2026-11-28"]  # type: ignore[attr-defined]
    assert (
        report("--since", "2026-11-28Z", "--until", "2026-11-28Z", "--tz", "UTC") == day
    )
    assert report("--until", "2026-11-28Z", "--tz", "UTC") == report(
        "--until", "2026-11-28", "--tz", "UTC"
    )


@pytest.mark.parametrize("command", ["list", "usage"])
def test_a_time_whose_zone_moves_it_past_year_1_or_9999_is_no_crash(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`0001-01-01T00:00+14:00` is in year 0 in UTC, `9999-12-31T23:00-14:00` in year
    10000: each is read as the first or last moment a time holds, not a traceback."""
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path))  # cold: the full command
    for option, value, rows in (
        ("--since", "0001-01-01T00:00+14:00", 3),
        ("--until", "9999-12-31T23:00-14:00", 3),
        ("--since", "0001-01-01+14:00", 3),
        ("--until", "0001-01-01+14:00", 0),
    ):
        args = [command, option, value, "--json", "--home", DEMO]
        result = CliRunner().invoke(main, args, catch_exceptions=False)
        assert result.exit_code == 0, (option, value, result.output)
        if command == "list":
            assert len(json.loads(result.stdout)) == rows, (option, value)
        else:
            assert bool(json.loads(result.stdout)) == bool(rows), (option, value)
