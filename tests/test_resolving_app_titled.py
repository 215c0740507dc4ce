"""A title pasted for the id that starts with an app's name and a colon ("Claude Code:
fix login", "gemini: tests") is read as that app and an id; no id starts with the
rest, so `show` says which session's title holds the words, as it does for a title
with no colon. It said only that no id starts so."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

from .helpers import write_claude_session


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    write_claude_session(
        home, "7e57ca5e-1111", "/work/a", title="Claude Code: fix login"
    )
    write_claude_session(home, "8e57ca5e-2222", "/work/b", title="Run the tests again")
    return home


@pytest.mark.parametrize(
    ("reference", "meant"),
    [
        ("Claude Code: fix login", "7e57ca5e-1111"),
        ("claude: fix login", "7e57ca5e-1111"),
        ("gemini: run the tests", "8e57ca5e-2222"),
    ],
)
def test_a_title_after_an_apps_name_is_found(
    home: Path, reference: str, meant: str
) -> None:
    result = CliRunner().invoke(main, ["show", "--home", str(home), reference])
    assert result.exit_code == 1
    assert "these words are in the title of the claude session" in result.output
    assert meant in result.output


def test_an_apps_id_start_no_title_holds_says_as_before(home: Path) -> None:
    result = CliRunner().invoke(main, ["show", "--home", str(home), "claude:zzz"])
    assert result.exit_code == 1
    assert "words" not in result.output and "no session id starts with" in result.output


def test_an_apps_id_start_is_looked_for_in_that_apps_titles_alone(home: Path) -> None:
    """`show codex:login`: no codex session's title holds 'login'; it named the claude
    session whose title did, as if `codex:` had not been typed."""
    result = CliRunner().invoke(main, ["show", "--home", str(home), "codex:login"])
    assert result.exit_code == 1
    assert "7e57ca5e-1111" not in result.output, result.output
    assert "no session id starts with 'codex:login'" in result.output
    result = CliRunner().invoke(main, ["show", "--home", str(home), "claude:login"])
    assert "these words are in the title of the claude session" in result.output
    assert "7e57ca5e-1111" in result.output
