"""`sessdex tree` of a big transcript on a terminal: it reads the whole session, which
takes seconds for a few hundred MB, and its bar stood still at `0/?` all that time (it
counted only the index's refresh). Now a spinner counts the events read, as `export`'s
does, and leaves nothing once the tree prints.

SESSDEX_PROGRESS_AFTER=0 stands for work over a second, as in test_progress.py."""

from __future__ import annotations

import os
import re
from pathlib import Path

from tests.helpers import big_claude_session, holes_unseen, on_a_terminal

BIG = "bbbbbbbb-0000-4000-8000-00000000000b"
MB = 1024 * 1024


def test_tree_of_a_big_transcript_counts_the_events_it_reads(tmp_path: Path) -> None:
    home = tmp_path / "home"
    big_claude_session(home, BIG, 300 * MB)
    on_a_terminal(["list", "--home", str(home)], dict(os.environ))  # indexed
    env = holes_unseen({**os.environ, "SESSDEX_PROGRESS_AFTER": "0"})
    result, terminal = on_a_terminal(["tree", BIG, "--home", str(home)], env)
    assert result.returncode == 0, terminal
    seen = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", terminal)  # the text, not its styles
    assert f"Reading {BIG}" in seen, seen
    counting = re.search(r"\d events", seen)  # the read, counted as it goes
    assert counting is not None, seen
    assert "0/?" not in seen[counting.start() :], seen  # the index's bar went first
    assert result.stdout.startswith(b"lead [") and b"events" not in result.stdout
