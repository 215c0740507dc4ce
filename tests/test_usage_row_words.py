"""`sessdex usage session 3f2b`, `usage 2026-11-29`, `usage daily model`: a row's key (or
a second report) typed after the report. The error named `--app` and `--help`, where
`--explain` is what shows one row; the line it names now runs as pasted."""

from __future__ import annotations

import shlex

from click.testing import CliRunner

from sessdex import api
from sessdex.cli import main

DEMO = str(api.demo_home().path)


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def named_line(err: str) -> list[str]:
    """The words of the `sessdex …` line the error names, without the `sessdex`."""
    line = err.split("'sessdex ", 1)[1].split("'", 1)[0]
    return shlex.split(line)


def test_a_session_after_its_report_is_pointed_at_its_row() -> None:
    code, out, err = invoke("usage", "session", "3f2b", "--home", DEMO)
    assert (code, out) == (2, "")
    line = f"'sessdex usage session --explain 3f2b --home {DEMO}'"
    assert f"for one row, {line} lists what it counted." in err
    assert "goes after --app" not in err
    code, out, _ = invoke(*named_line(err))
    assert code == 0
    assert out.startswith("row 3f2b9c1e-8d4a-4e7b-9a61-0c5d2e7f8a90: 3 responses")


def test_a_day_or_a_month_in_the_reports_place_names_its_row() -> None:
    code, out, err = invoke("usage", "2026-11-29", "--home", DEMO)
    assert (code, out) == (2, "")
    assert "'2026-11-29' is no usage report; the reports are daily" in err
    assert (
        f"For one row, 'sessdex usage daily --explain 2026-11-29 --home {DEMO}'" in err
    )
    code, out, _ = invoke(*named_line(err))
    assert (code, out.split(":")[0]) == (0, "row 2026-11-29")
    code, out, err = invoke("usage", "2026-11", "--home", DEMO)
    assert "'sessdex usage monthly --explain 2026-11 --home" in err
    code, out, _ = invoke(*named_line(err))
    assert (code, out.split(":")[0]) == (0, "row 2026-11")


def test_two_reports_are_said_to_be_one_too_many() -> None:
    code, out, err = invoke("usage", "daily", "model", "--home", DEMO)
    assert (code, out) == (2, "")
    assert "takes one report, 'daily', and no other words; 'model' is a report too: give one." in err  # fmt: skip


def test_a_word_that_is_no_row_still_gets_the_reports_alone() -> None:
    code, _, err = invoke("usage", "hourly", "--home", DEMO)
    assert code == 2
    assert "--explain" not in err
