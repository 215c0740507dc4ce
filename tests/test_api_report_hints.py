"""What the library's report summaries tell a program to look at: the report's own
diagnostics, not the command line's --verbose it has no way to give."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import api
from sessdex.cli import main
from sessdex.sources import Home
from tests.conftest import app_home
from tests.helpers import refuse_opening, write_claude_session

SESSION = "dddddddd-0000-4000-8000-00000000000e"


def _damaged(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    path = write_claude_session(home, SESSION, str(tmp_path))
    with path.open("a") as out:  # a cut line, then the app's next: damage
        out.write('{"type":"custom-title","customTitle":"cut\n')
    return home


def test_the_library_summary_of_unreadable_lines_points_at_the_report(
    tmp_path: Path,
) -> None:
    listing = api.list_sessions(Home.at(_damaged(tmp_path)))
    said = api.skipped_summary(listing.report)
    assert said is not None and said.startswith("skipped 1 unreadable line")
    assert "--verbose" not in said
    assert "the report's diagnostics (each app's details)" in said
    [(path, _line, _reason)] = listing.report.diagnostics["claude"].details
    assert path.endswith(f"{SESSION}.jsonl")  # where the summary sends a program


def test_the_command_line_still_points_at_verbose(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["list", "--home", str(_damaged(tmp_path))])
    assert "skipped 1 unreadable line in 1 claude file; see --verbose" in result.stderr


def test_the_library_summary_of_refused_files_points_at_the_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    shutil.copytree(app_home("claude"), home)
    shut = str(
        home
        / ".claude/projects/-home-dev-shop/11111111-1111-4111-8111-111111111111.jsonl"
    )
    refuse_opening(monkeypatch, shut)  # as the kernel refuses another user
    listing = api.list_sessions(Home.at(home), apps=["claude"])
    [said] = api.refused_summaries(listing.report)
    assert shut in said and "--verbose" not in said
    assert "see the report's diagnostics (each app's details)" in said


def test_a_withheld_permission_names_the_librarys_keyword(tmp_path: Path) -> None:
    """A session run with its permission checks off is resumed without that: the
    library's warning names its own keyword, the command line's its option."""
    home = tmp_path / "home"
    folder = tmp_path / "project"
    folder.mkdir()
    write_claude_session(
        home, SESSION, str(folder), permission_mode="bypassPermissions"
    )
    check = api.check_resume(Home.at(home), SESSION)
    [said] = [w for w in check.warnings if w.startswith("left out")]
    assert "keep_permissions=True keeps it" in said and "--keep-permissions" not in said
    result = CliRunner().invoke(
        main, ["resume", SESSION[:8], "--print", "--home", str(home)]
    )
    assert "--keep-permissions keeps it" in result.stderr
