"""`resume --print` of a session that recorded a branch, whose folder is no longer a
git repository: the branch cannot be checked, and sessdex says so rather than nothing."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

from .helpers import write_claude_session

SESSION = "3f2b9c1e-0000-4000-8000-00000000000b"


def _resume_print(home: Path) -> str:
    result = CliRunner().invoke(
        main, ["resume", "3f2b", "--print", "--home", str(home)]
    )
    assert result.exit_code == 0, result.output
    return result.stderr


def test_a_branch_in_a_folder_no_longer_a_repository_is_said_unchecked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    folder = tmp_path / "shop-api"
    folder.mkdir()
    home = tmp_path / "home"
    write_claude_session(home, SESSION, str(folder), branch="feature/retry")
    said = _resume_print(home)
    assert (
        f"could not check that {folder} is still on branch 'feature/retry': "
        "it is no longer a git repository"
    ) in said


def test_a_repository_on_the_branch_says_nothing_of_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    folder = tmp_path / "shop-api"
    folder.mkdir()
    subprocess.run(
        ["git", "init", "-q", "-b", "feature/retry", str(folder)], check=True
    )
    home = tmp_path / "home"
    write_claude_session(home, SESSION, str(folder), branch="feature/retry")
    assert "branch" not in _resume_print(home)
