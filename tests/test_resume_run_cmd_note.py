"""`resume` (no --print) where the user's shell is cmd.exe and the line holds a word it
would act on: sessdex runs the program itself, with no shell between, and the note in
place of the `$ …` line says so; it said "'sessdex resume' without --print runs it
itself", the very command running."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main, sessions

from .helpers import write_claude_session

SESSION = "5e550000-0000-4000-8000-000000000003"


def test_the_note_says_sessdex_runs_it_now(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "project"
    folder.mkdir()
    home = tmp_path / "home"
    write_claude_session(home, SESSION, str(folder), model="sonnet%x%")
    programs = tmp_path / "bin"
    programs.mkdir()
    (programs / "claude").write_text("#!/bin/sh\n")
    (programs / "claude").chmod(0o755)
    monkeypatch.setenv("PATH", f"{programs}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("SESSDEX_SHELL", "cmd")
    ran: list[list[str]] = []
    monkeypatch.setattr(sessions.os, "execvp", lambda _, argv: ran.append(argv))
    result = CliRunner().invoke(
        main, ["resume", SESSION[:8], "--force", "--yes", "--home", str(home)]
    )
    assert result.exit_code == 0, result.output
    assert ran and "sonnet%x%" in ran[0]
    said = " ".join(result.stderr.split())
    assert "note: cmd.exe would act on '%'" in said
    assert "without --print runs it itself" not in said
    assert "sessdex runs it now, with no shell between" in said
