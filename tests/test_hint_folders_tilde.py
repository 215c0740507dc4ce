"""A hint names a folder below the home as `list` shows it (`'~/code'`), not as the
full path; the command it gives to paste keeps a path the shell takes as it is."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from .helpers import settle, write_claude_session


def _run(home: Path, folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key != "PWD"}
    env["HOME"] = str(home)
    return subprocess.run(
        [sys.executable, "-m", "sessdex", *args, "--home", str(home)],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_list_here_below_a_project_says_the_folders_from_the_home(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    code = home / "code"
    (code / "other").mkdir(parents=True)
    write_claude_session(home, "3f2b9c1e-0000-4000-8000-000000000001", str(code))
    write_claude_session(home, "3f2b9c1e-0000-4000-8000-000000000002", str(code))
    settle(home)
    for _ in range(2):  # the full command, then the quick path
        done = _run(home, code / "other", "list", "--here")
        assert done.returncode == 0, done.stderr
        assert "(in '~/code/other')" in done.stderr
        assert "2 sessions are in '~/code' above it" in done.stderr
        assert f"cd {code} && sessdex list --here" in done.stderr


def test_watch_here_in_the_home_says_it_as_tilde(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_claude_session(home, "3f2b9c1e-0000-4000-8000-000000000003", "/elsewhere")
    done = _run(home, home, "watch", "--here", "--once")
    assert done.returncode == 0, done.stderr
    said = done.stdout + done.stderr
    assert "No session in '~'" in said, said
    assert f"No session in {str(home)!r}" not in said
