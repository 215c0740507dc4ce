"""A folder given where an id goes (an app's folder of one session, as Copilot CLI and
Vibe keep them, or a project's folder of transcripts) says what it holds: the one
session whose files are in it, or how many; it said only that no id starts with the
folder's path, as of a mistyped id."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from tests.helpers import write_claude_session

ONE = "f01d0000-0000-4000-8000-000000000001"
TWO = "f01d0000-0000-4000-8000-000000000002"
THREE = "f01d0000-0000-4000-8000-000000000003"


def _show(home: Path, folder: Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(
        main, ["show", str(folder), "--home", str(home)], prog_name="sessdex"
    )
    return result.exit_code, result.stdout, result.stderr


def test_a_folder_of_one_session_names_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    alone = write_claude_session(home, ONE, "/work/alone").parent
    write_claude_session(home, TWO, "/work/shop")
    write_claude_session(home, THREE, "/work/shop", when="2026-11-21T10:00:00.000Z")
    code, out, err = _show(home, alone)
    assert code == 1 and out == ""
    assert err == (
        f"Error: no session id starts with {str(alone)!r}; that is a folder, holding "
        f"the files of the claude session '{ONE}': give its id.\n"
    )


def test_a_folder_of_several_sessions_says_how_many(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_claude_session(home, TWO, "/work/shop")
    shop = write_claude_session(home, THREE, "/work/shop").parent
    code, _, err = _show(home, shop)
    assert code == 1
    assert err.endswith(
        "that is a folder, holding the files of 2 sessions: give the id of one "
        f"('sessdex list --home {home}' shows them).\n"
    )


def test_a_folder_of_none_says_it_is_no_session_file(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_claude_session(home, ONE, "/work/alone")
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, err = _show(home, empty)
    assert code == 1
    assert err.endswith(
        "that is a folder, not a session's file: give the id "
        f"'sessdex list --home {home}' shows.\n"
    )
