"""A big transcript shown straight on the terminal (`show --no-pager`, `replay`): a
spinner until its first event, where the terminal stayed blank while the reader surveyed
the file (seconds for a few hundred MB), and nothing of it once the events print.

SESSDEX_PROGRESS_AFTER=0 stands for work over a second, as in test_progress.py."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.helpers import big_claude_session, holes_unseen, on_a_terminal

BIG = "bbbbbbbb-0000-4000-8000-00000000000b"
MB = 1024 * 1024


@pytest.mark.parametrize(
    "args",
    [
        ["show", BIG, "--no-pager"],
        ["replay", BIG, "--speed", "1000", "--max-gap", "0"],
    ],
    ids=["show --no-pager", "replay"],
)
def test_a_big_transcript_on_the_terminal_shows_a_spinner_until_its_first_event(
    tmp_path: Path, args: list[str]
) -> None:
    home = tmp_path / "home"
    big_claude_session(home, BIG, 300 * MB)
    on_a_terminal(["list", "--home", str(home)], dict(os.environ))  # indexed
    env = holes_unseen({**os.environ, "SESSDEX_PROGRESS_AFTER": "0"})
    result, terminal = on_a_terminal([*args, "--home", str(home)], env, stdout_too=True)
    assert result.returncode == 0, terminal
    seen = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", terminal)  # the text, not its styles
    assert f"Reading {BIG}" in seen, terminal
    first = seen.index("> hello there")  # the first event (the title reads alike)
    assert seen.index(f"Reading {BIG}") < first
    assert "events" not in seen[first:]  # cleared before the first event printed
