"""`--until now` is the moment the command runs (it was "cannot read the time 'now'"),
and a date whose day its month lacks says so ("no such day"), not that sessdex cannot
read the time, which sent the user looking for a format they had got right."""

from __future__ import annotations

from click.testing import CliRunner

from sessdex import api
from sessdex.cli import main

DEMO = str(api.demo_home().path)


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, [*args, "--home", DEMO])
    return result.exit_code, result.stdout, result.stderr


def test_until_now_lists_what_list_alone_lists() -> None:
    code, out, err = _run("list", "--until", "now")
    assert code == 0, err
    assert out == _run("list")[1] and out


def test_a_day_its_month_lacks_is_named_so() -> None:
    code, out, err = _run("list", "--since", "2026-11-31")
    assert (code, out) == (2, "")
    assert "no such day '2026-11-31': November 2026 has 30 days" in err, err
    code, _, err = _run("usage", "--until", "2025-02-29")
    assert code == 2
    assert "no such day '2025-02-29': February 2025 has 28 days" in err, err


def test_an_empty_usage_since_now_blames_no_zone() -> None:
    """`now` is one moment in every zone: an empty report since then is not said to be
    emptied by the zone its days are cut in (as one since a date is)."""
    code, out, err = _run("usage", "--since", "now")
    assert (code, out) == (0, "")
    assert err.startswith("No token usage matches --since now; "), err
    assert "UTC" not in err
