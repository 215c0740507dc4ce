"""While the spinner shows on the terminal (stderr), what goes to stdout (a file, a pipe)
stays there, whole: Rich's progress display took stdout's writes for its own terminal,
so `sessdex export ID > file.md` lost to the screen what was written while it spun."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from sessdex import api

from .helpers import on_a_terminal

DEMO = str(api.demo_home().path)


@pytest.mark.parametrize(
    "args",
    [
        ["export", "3f2b9c1e"],
        ["export", "3f2b9c1e", "-f", "html"],
        ["show", "3f2b9c1e", "--no-pager"],
        ["show", "3f2b9c1e", "--json"],
    ],
)
def test_stdout_keeps_everything_while_the_spinner_shows(args: list[str]) -> None:
    command = [*args, "--home", DEMO]
    alone = subprocess.run(
        [sys.executable, "-m", "sessdex", *command],
        env=os.environ,
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
        check=True,
    ).stdout
    # the spinner from the first moment on, on the terminal stderr is
    env = {**os.environ, "SESSDEX_PROGRESS_AFTER": "0"}
    result, terminal = on_a_terminal(command, env)
    assert result.returncode == 0, terminal
    assert result.stdout == alone
    assert "Retry checkout payments" not in terminal  # the session's title
