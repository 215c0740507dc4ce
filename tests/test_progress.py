"""What a person sees on the terminal while sessdex works: progress on stderr (a terminal
only) for anything slow, nothing in the output, and a quiet stop on Ctrl-C.

Real processes on a pseudo-terminal. SESSDEX_PROGRESS_AFTER=0 stands for work over a
second, so that no test waits on a clock; what is slow is made slow by size (a sparse
transcript of hundreds of MB: read in full, it costs time and no disk).
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from tests.helpers import big_claude_session, interrupted_on_a_terminal

BIG = "bbbbbbbb-0000-4000-8000-00000000000b"
MB = 1024 * 1024


def now() -> dict[str, str]:
    return {**os.environ, "SESSDEX_PROGRESS_AFTER": "0"}


@pytest.mark.parametrize(
    ("args", "once"),
    [
        (["show", BIG, "--json"], f"Reading {BIG}"),
        (["export", BIG, "-f", "html"], f"Exporting {BIG}"),
    ],
)
def test_ctrl_c_stops_at_once_quietly_as_the_shell_expects(
    tmp_path: Path, args: list[str], once: str
) -> None:
    """Ctrl-C printed click's "Aborted!" and exited 1: a shell loop around sessdex went on
    to its next turn. Now the progress is cleared, nothing else is said, and the process
    ends killed by SIGINT (the shell's $? is 130)."""
    home = tmp_path / "home"
    big_claude_session(home, BIG, 4096 * MB)  # minutes to read whole
    code, terminal = interrupted_on_a_terminal(
        [*args, "--home", str(home)], now(), once=once
    )
    assert code == -signal.SIGINT, terminal
    assert "Traceback" not in terminal and "Aborted" not in terminal
