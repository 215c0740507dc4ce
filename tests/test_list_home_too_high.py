"""A --home one folder above the home that holds the sessions (the copied folder, not
its `home/` inside) is answered with the line that lists them."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from tests.helpers import write_claude_session


def test_a_home_one_level_too_high_names_the_folder_below(tmp_path: Path) -> None:
    # it said "No agent sessions in the --home folder yet" and no more
    copied = tmp_path / "claude-2.1.197"
    (copied / "runs").mkdir(parents=True)
    write_claude_session(
        copied / "home", "c0b1ed00-0000-4000-8000-0000000000d1", "/w/a"
    )
    result = CliRunner().invoke(main, ["list", "--home", str(copied)])
    assert (result.exit_code, result.stdout) == (0, "")
    assert "No agent sessions in the --home folder yet" in result.stderr
    assert f"'sessdex list --home {copied / 'home'}' reads them" in result.stderr
    assert "Claude Code" in result.stderr, result.stderr
    # what it names does list them
    below = CliRunner().invoke(main, ["list", "--home", str(copied / "home")])
    assert "c0b1ed00" in below.stdout


def test_a_home_with_no_agents_folder_below_says_none(tmp_path: Path) -> None:
    (tmp_path / "notes" / "deep" / "home" / ".claude").mkdir(parents=True)
    result = CliRunner().invoke(main, ["list", "--home", str(tmp_path)])
    assert "No agent sessions in the --home folder yet" in result.stderr
    assert "lists them" not in result.stderr  # two levels down is not looked in


def test_watch_names_the_folder_below_too(tmp_path: Path) -> None:
    copied = tmp_path / "copied"
    write_claude_session(
        copied / "home", "c0b1ed00-0000-4000-8000-0000000000d2", "/w/a"
    )
    result = CliRunner().invoke(main, ["watch", "--once", "--home", str(copied)])
    assert (result.exit_code, result.stdout) == (0, "")
    assert f"'sessdex watch --home {copied / 'home'}' reads them" in result.stderr
