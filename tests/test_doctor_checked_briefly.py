"""Plain `doctor` names the versions each app was checked with on one short line;
`-v` gives the whole provenance (300 to 700 characters an app, which made plain
`doctor` very long)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from sessdex.sources import _facts, get
from tests.conftest import app_home


def _doctor(*args: str) -> str:
    home = app_home("claude")
    # piped with no COLUMNS: each fact on one line, however long
    result = CliRunner().invoke(
        main, ["doctor", "--app", "claude", *args, "--home", str(home)],
        catch_exceptions=False,
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    return result.stdout


def _checked(out: str) -> str:
    return next(x for x in out.splitlines() if x.startswith("  checked     "))


def test_plain_doctor_names_the_versions_checked_on_one_short_line() -> None:
    line = _checked(_doctor())
    assert line == (
        "  checked     Claude Code 1.0.98 to 2.1.197 and 2.1.332; newest 2.1.337 "
        "(-v: in full)"
    )


def test_doctor_v_gives_them_in_full() -> None:
    line = _checked(_doctor("-v"))
    assert line == f"  checked     {get('claude').CHECKED_WITH}"


def test_a_newest_version_is_named_though_a_longer_one_starts_with_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The newest is left out where the first clause names it whole, not where it is the
    start of another version there (2.1.3 of 2.1.332)."""
    monkeypatch.setitem(_facts.NEWEST_CHECKED, "claude", "2.1.3")
    assert _checked(_doctor()) == (
        "  checked     Claude Code 1.0.98 to 2.1.197 and 2.1.332; newest 2.1.3 "
        "(-v: in full)"
    )
    monkeypatch.setitem(_facts.NEWEST_CHECKED, "claude", "2.1.332")
    assert _checked(_doctor()) == (
        "  checked     Claude Code 1.0.98 to 2.1.197 and 2.1.332 (-v: in full)"
    )
