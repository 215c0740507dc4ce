"""`usage weekly --explain DAY` of a day that is not a Monday explains the week that
holds it, and says which, where it stopped with exit 1 naming that week's command."""

from __future__ import annotations

import json

from click.testing import CliRunner

from sessdex.api import demo_home
from sessdex.cli import main


def _explain(key: str, *more: str) -> tuple[int, str, str]:
    home = str(demo_home().path)
    args = ["usage", "weekly", "--explain", key, *more, "--home", home]
    result = CliRunner().invoke(main, args)
    return result.exit_code, result.stdout, result.stderr


def test_a_day_of_the_week_explains_its_week_and_says_which() -> None:
    code, out, err = _explain("2026-11-25")
    assert code == 0, err
    assert out.startswith("row 2026-11-23: 7 responses")
    assert "note: 2026-11-25 is in the week of Monday 2026-11-23" in out
    assert _explain("2026-11-23")[1] in out.replace(
        "note: 2026-11-25 is in the week of Monday 2026-11-23, whose row this is\n", ""
    )


def test_json_keeps_the_weeks_key_and_the_note() -> None:
    code, out, err = _explain("2026-11-25", "--json")
    assert code == 0, err
    explained = json.loads(out)
    assert explained["row"]["key"] == "2026-11-23"
    assert any("week of Monday 2026-11-23" in note for note in explained["notes"])


def test_a_day_of_an_empty_week_says_both() -> None:
    code, out, err = _explain("2026-12-02")
    assert (code, out) == (0, "")
    assert err.startswith("2026-12-02 is in the week of Monday 2026-11-30; no token")


def test_the_weeks_note_is_said_once_under_the_row() -> None:
    # it came last, below every counted and dropped line, far from the row it names
    code, out, err = _explain("2026-11-25")
    assert code == 0, err
    lines = out.splitlines()
    note = "note: 2026-11-25 is in the week of Monday 2026-11-23, whose row this is"
    assert lines[:2] == [lines[0], note]
    assert lines[0].startswith("row 2026-11-23: 7 responses")
    assert out.count("week of Monday") == 1
