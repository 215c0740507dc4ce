"""A --home that is an app's own folder, or a folder in it (`~/.claude`,
`~/.codex/sessions`, the copied `home/.claude`), not the home around it, is answered
with the line that reads the home."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from tests.helpers import write_claude_session

ID = "c0b1ed00-0000-4000-8000-0000000000e1"
CODEX = Path(__file__).parent.parent / "src/sessdex/demo/home/.codex"


def _copied(tmp_path: Path) -> Path:
    home = tmp_path / "copied" / "home"
    write_claude_session(home, ID, "/w/a")
    return home


def test_list_given_the_apps_folder_names_the_home_around_it(tmp_path: Path) -> None:
    # it said "No agent sessions in the --home folder yet. 'sessdex demo' shows what
    # sessdex does" and pointed at doctor, which listed 34 apps not found
    home = _copied(tmp_path)
    result = CliRunner().invoke(main, ["list", "--home", str(home / ".claude")])
    assert (result.exit_code, result.stdout) == (0, "")
    assert "Claude Code's folder" in result.stderr, result.stderr
    assert f"'sessdex list --home {home}' reads them" in result.stderr
    # what it names does list them
    right = CliRunner().invoke(main, ["list", "--home", str(home)])
    assert ID[:8] in right.stdout


def test_a_folder_inside_the_apps_folder_names_the_home_too(tmp_path: Path) -> None:
    home = tmp_path / "copied"
    shutil.copytree(CODEX, home / ".codex")
    sessions = home / ".codex" / "sessions"
    result = CliRunner().invoke(main, ["find", "checkout", "--home", str(sessions)])
    assert (result.exit_code, result.stdout) == (0, "")
    assert "OpenAI Codex CLI's folder" in result.stderr, result.stderr
    assert f"'sessdex list --home {home}' reads them" in result.stderr


def test_watch_names_the_home_around_it_too(tmp_path: Path) -> None:
    home = _copied(tmp_path)
    result = CliRunner().invoke(
        main, ["watch", "--once", "--home", str(home / ".claude")]
    )
    assert (result.exit_code, result.stdout) == (0, "")
    assert f"'sessdex watch --home {home}' reads them" in result.stderr


def test_a_plain_empty_home_is_not_sent_upwards(tmp_path: Path) -> None:
    # a home beside an app's folder, not in it, is no app's folder
    write_claude_session(tmp_path, ID, "/w/a")
    empty = tmp_path / "empty"
    empty.mkdir()
    result = CliRunner().invoke(main, ["list", "--home", str(empty)])
    assert "No agent sessions in the --home folder yet." in result.stderr
    assert "reads them" not in result.stderr
