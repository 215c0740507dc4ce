"""`--since` and `--until` in the words a new user types: `1mo`, `3days`, `2weeks`, a
month (`2026-11`), and a refusal whose examples read one way."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from click.testing import CliRunner

from sessdex import api
from sessdex.cli import main
from sessdex.selection import parse_since, parse_until

DEMO = str(api.demo_home().path)
NOW = datetime(2026, 12, 7, 9, 30, tzinfo=UTC)


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_since_takes_month_week_and_day_words() -> None:
    """`1mo` is a month back, `2months` two, `3days` as `3d`, `1week` as `1w`."""
    at = {typed: parse_since(typed, NOW) for typed in
          ("1mo", "2months", "3days", "1week", "2w", "3d", "1w", "90min", "1Month")}  # fmt: skip
    assert (
        at["1mo"]
        == at["1Month"]
        == datetime(2026, 11, 7, 9, 30, tzinfo=UTC).timestamp()
    )
    assert at["2months"] == datetime(2026, 10, 7, 9, 30, tzinfo=UTC).timestamp()
    assert (at["3days"], at["1week"]) == (at["3d"], at["1w"])
    assert at["90min"] == datetime(2026, 12, 7, 8, 0, tzinfo=UTC).timestamp()
    march = datetime(2026, 3, 31, tzinfo=UTC)  # no 31 February: its last day
    assert parse_since("1mo", march) == datetime(2026, 2, 28, tzinfo=UTC).timestamp()


def test_since_1mo_lists_what_30_days_lists() -> None:
    code, out, err = invoke("list", "--since", "1mo", "--json", "--home", DEMO)
    assert code == 0, err
    code, days, _ = invoke("list", "--since", "31days", "--json", "--home", DEMO)
    assert json.loads(out) == json.loads(days)


def test_a_capital_m_is_asked_minutes_or_months() -> None:
    code, _, err = invoke("list", "--since", "1M", "--home", DEMO)
    assert code == 2
    assert "minutes or months" in err and "1min" in err and "1mo" in err
    code, _, err = invoke("list", "--since", "soon", "--home", DEMO)
    assert code == 2 and "30m," not in err and "1mo" in err and "2026-11" in err


def test_a_month_counts_from_its_first_day_to_its_end() -> None:
    assert parse_since("2026-11", NOW) == datetime(2026, 11, 1, tzinfo=UTC).timestamp()
    assert parse_until("2026-11", NOW) == datetime(2026, 12, 1, tzinfo=UTC).timestamp()
    assert parse_until("2026-12", NOW) == datetime(2027, 1, 1, tzinfo=UTC).timestamp()
    code, _, err = invoke("list", "--since", "2026-13", "--home", DEMO)
    assert code == 2 and "cannot read" in err


def test_usage_takes_a_month_as_its_monthly_row_does() -> None:
    """`usage --since 2026-11 --until 2026-11` is the month `--explain 2026-11` explains."""
    code, out, err = invoke("usage", "monthly", "--json", "--home", DEMO)
    assert code == 0, err
    months = {row["key"]: row for row in json.loads(out)}
    month = sorted(months)[-1]
    code, out, err = invoke("usage", "monthly", "--since", month, "--until", month,
                            "--json", "--home", DEMO)  # fmt: skip
    assert code == 0, err
    assert json.loads(out) == [months[month]]


def test_a_span_of_thousands_of_digits_means_everything_not_a_traceback() -> None:
    """Python's int() refuses text of 4,300 digits: such a span is one past year 1, so
    "since the beginning", as `800000d` is (test_cli), in every command that takes it."""
    huge = "9" * 5000
    code, out, _ = invoke("list", "--json", "--since", huge + "d", "--home", DEMO)
    assert code == 0 and len(json.loads(out)) == 3
    code, out, _ = invoke("usage", "--json", "--since", huge + "mo", "--home", DEMO)
    assert code == 0 and json.loads(out)
    assert parse_since("0" * 5000 + "1d", NOW) == parse_since("1d", NOW)


def test_usage_counts_a_month_back_on_the_calendar_of_its_tz() -> None:
    """`usage --tz Pacific/Kiritimati --since 1mo` at 05:00 on 31 March there (still
    30 March in UTC) starts at 05:00 on 28 February there, not on 1 March: a month is
    the report's zone's, as its days are."""
    from zoneinfo import ZoneInfo

    from sessdex.usage import parse_day

    zone = ZoneInfo("Pacific/Kiritimati")
    now = datetime(2026, 3, 30, 15, tzinfo=UTC)  # as `usage` reads its clock
    assert parse_day("1mo", zone, now=now) == datetime(2026, 2, 28, 5, tzinfo=zone)
    assert parse_day("3d", zone, now=now) == datetime(2026, 3, 28, 5, tzinfo=zone)


def test_a_span_may_end_in_ago_as_it_is_said() -> None:
    """`--since '3 days ago'` (`3d ago`, `1 week ago`) was refused with exit 2: how many
    say a time back, and what `list`'s own ages and `watch`'s reasons print."""
    assert parse_since("3 days ago", NOW) == parse_since("3d", NOW)
    assert parse_since("1w AGO", NOW) == parse_since("1w", NOW)
    assert parse_until("2 weeks ago", NOW) == parse_until("2w", NOW)
    code, out, err = invoke(
        "list", "--since", "100 years ago", "--json", "--home", DEMO
    )
    assert code == 0, err
    assert len(json.loads(out)) == 3
    for args in (
        ["usage", "--since", "100y ago", "--json"],
        ["watch", "--once", "--json", "--since", "100 years ago"],
        ["find", "checkout", "--until", "1 minute ago", "--json"],
    ):
        code, out, err = invoke(*args, "--home", DEMO)
        assert code == 0, (args, err)
        assert json.loads(out), args


def test_the_refusal_and_the_help_name_the_ago_form() -> None:
    """The refusal's examples and `--help` named `3d` and `3days`, not `3 days ago`,
    which both read too."""
    code, _, err = invoke("list", "--since", "soon", "--home", DEMO)
    assert code == 2 and "3 days ago" in err, err
    for command in (["list"], ["find"], ["watch"], ["usage"]):
        code, out, err = invoke(*command, "--help")
        assert code == 0, err
        for option in ("--since", "--until"):
            if command == ["watch"] and option == "--until":
                continue  # watch shows what is live: it takes no --until
            help_text = _option_help(out, option)
            assert "3 days ago" in help_text, (command, option, help_text)


def _option_help(help_page: str, option: str) -> str:
    """`option`'s help in a command's `--help`, its wrapped lines joined."""
    lines = help_page.splitlines()
    start = next(n for n, line in enumerate(lines) if line.lstrip().startswith(option))
    taken = [lines[start]]
    for line in lines[start + 1 :]:
        if not line.startswith("   "):
            break  # the next option, or the end of the options
        taken.append(line)
    return " ".join(" ".join(taken).split())
