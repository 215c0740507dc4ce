"""A warm `sessdex list` while another sessdex holds the index: one wait, then the error.

The quick path re-reads a session that grew; when another process holds the index for
longer than the busy timeout, it used to give up silently and start the full command,
which waited the whole timeout again before saying the index was busy.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import sys
import time
from pathlib import Path

import pytest

from sessdex import indexdb, launch
from sessdex.indexfile import cache_folder

from .helpers import write_claude_session
from .test_quick import full, settled

WAIT_MS = 2_000


def test_a_busy_index_is_waited_for_once(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    home = tmp_path / "home"
    session = write_claude_session(home, "5e55a1a2-0000-4000-8000-000000000001", "/w/a")
    settled(home)
    full("--json", "--home", str(home))  # builds the index
    (indexed,) = Path(cache_folder()).glob("index-*.sqlite")
    with session.open("a") as file:  # the session grew: the warm listing re-reads it
        file.write('{"type":"custom-title","customTitle":"grown","sessionId":"x"}\n')
    holder = sqlite3.connect(indexed, isolation_level=None)
    holder.execute(
        "BEGIN EXCLUSIVE"
    )  # another sessdex writing, for longer than we wait
    monkeypatch.setattr(indexdb, "BUSY_TIMEOUT_MS", WAIT_MS)
    monkeypatch.setattr(sys, "argv", ["sessdex", "list", "--json", "--home", str(home)])
    capsys.readouterr()
    started = time.monotonic()
    try:
        with pytest.raises(SystemExit) as exited:
            launch.main()
    finally:
        elapsed = time.monotonic() - started
        with contextlib.suppress(sqlite3.Error):
            holder.execute("ROLLBACK")
        holder.close()
    said = capsys.readouterr()
    assert exited.value.code == 1
    assert said.out == ""
    assert "is busy (another sessdex is refreshing it); try again." in said.err
    # one wait of the busy timeout, not two (the quick path's, then the full command's)
    assert elapsed < 2 * WAIT_MS / 1000, elapsed
    assert os.path.exists(indexed)
