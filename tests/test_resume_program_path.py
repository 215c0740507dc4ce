"""resume runs the CLI program it checked, wherever the session's folder is."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from .helpers import write_claude_session

SESSION = "72727272-0000-4000-8000-000000000072"


def fake_claude(folder: Path, marker: Path, name: str) -> None:
    folder.mkdir(parents=True)
    program = folder / "claude"
    program.write_text(f"#!/bin/sh\necho {name} > '{marker}'\n")
    program.chmod(0o755)


@pytest.mark.skipif(sys.platform == "win32", reason="exec and a POSIX PATH")
def test_a_cli_found_through_a_relative_path_entry_is_the_one_that_runs(
    tmp_path: Path,
) -> None:
    """With a relative folder on PATH (`tools`), the check found `tools/claude` below the
    folder sessdex was run in, and then sessdex entered the session's folder and ran
    `tools/claude` from there: a program the repository holds, never checked."""
    here = tmp_path / "here"
    project = tmp_path / "project"
    marker = tmp_path / "ran"
    fake_claude(here / "tools", marker, "checked")
    fake_claude(project / "tools", marker, "project")
    home = tmp_path / "home"
    write_claude_session(home, SESSION, str(project), branch="")
    env = {
        **os.environ,
        "PATH": f"tools{os.pathsep}{os.environ['PATH']}",
        "SESSDEX_HOME": str(tmp_path / "state"),
    }
    result = subprocess.run(
        [sys.executable, "-m", "sessdex", "resume", "7272", "--home", str(home)],
        cwd=here,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert marker.read_text().strip() == "checked"
