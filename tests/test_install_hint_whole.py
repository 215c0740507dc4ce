"""The command `resume` gives to install an app's CLI is one line to paste on a narrow
terminal too (in backticks, as a pasted line is), and an app's prose about it (another
way, an app with no command to install) is said beside it, never inside it."""

from __future__ import annotations

import os
import re
from pathlib import Path

from sessdex.model import ResumePlan
from tests.helpers import on_a_terminal, write_claude_session

SESSION = "88888888-0000-4000-8000-00000000000b"


def test_a_narrow_terminal_keeps_the_install_command_on_one_line(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    folder = tmp_path / "shop"
    folder.mkdir()
    write_claude_session(home, SESSION, str(folder))
    (tmp_path / "empty-bin").mkdir()
    env = {
        **os.environ,
        "PATH": str(tmp_path / "empty-bin"),
        "SESSDEX_SHELL": "sh",
        "SESSDEX_HOME": str(tmp_path / "state"),
    }
    args = ["resume", "--print", "--home", str(home), SESSION[:8]]
    result, seen = on_a_terminal(args, env, columns=40)
    assert result.returncode == 0, seen
    lines = re.split(r"\r?\n", seen)
    assert any("npm install -g @anthropic-ai/claude-code" in line for line in lines), (
        seen
    )


def _plan(hint: str, note: str = "") -> ResumePlan:
    return ResumePlan(
        argv=("goose",), cwd="/", program="goose", install_hint=hint, install_note=note
    )


def test_prose_is_said_beside_the_command_and_alone_where_there_is_none() -> None:
    from sessdex.resuming import install_said

    said = install_said(_plan("brew install goose", "or: `curl -fsSL x | bash`"))
    assert said == "Install it with: `brew install goose` (or: `curl -fsSL x | bash`)"
    said = install_said(_plan("", "install Google Antigravity, which ships agy"))
    assert said == "Install Google Antigravity, which ships agy"
