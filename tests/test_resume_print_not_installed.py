"""`resume --print` where the app's CLI is not installed: the line is still printed and
the exit is 0 (a script may install the CLI before it runs the line), and stderr says
that the CLI is not on PATH and how to install it."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from tests.helpers import write_claude_session

SESSION = "88888888-0000-4000-8000-00000000000a"


def test_print_says_the_cli_is_missing_and_still_gives_the_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    folder = tmp_path / "shop"
    folder.mkdir()
    write_claude_session(home, SESSION, str(folder))
    (tmp_path / "empty-bin").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    monkeypatch.setenv("SESSDEX_SHELL", "sh")
    result = CliRunner().invoke(
        main, ["resume", "--print", "--home", str(home), SESSION[:8]]
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"cd {folder} && claude --resume {SESSION} ")
    assert "'claude' is not on PATH" in result.stderr
    assert "npm install" in result.stderr
