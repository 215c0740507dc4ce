"""A title made only of what is never shown (colour codes, a zero-width space, bidi
controls) reads `(untitled)`, as a session without a title does, not a blank."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

from .helpers import write_claude_session

SESSION = "5e55a0a0-0000-4000-8000-000000000004"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    write_claude_session(home, SESSION, "/work/t", prompt="\x1b[0m\u200b\u202e")
    return home


def test_the_table_says_untitled(home: Path, run: CliRunner) -> None:
    result = run.invoke(main, ["list", "--home", str(home)], env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    (line,) = result.stdout.splitlines()
    assert line.endswith("(untitled)"), line


def test_the_markdown_export_says_untitled(home: Path, run: CliRunner) -> None:
    result = run.invoke(main, ["export", "--home", str(home), SESSION[:8], "-f", "md"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("# (untitled)\n"), result.stdout[:40]
