"""`follow` of a JSON-lines file (OpenClaw's) whose open fails once as the lines a write
added are read (an I/O error, too many files open): the read is made again 2 s later,
as one that failed partway is, though nothing more is written. The lines waited for
the file to grow, said nowhere."""

from __future__ import annotations

import errno
import shutil
import sys
from pathlib import Path
from typing import BinaryIO

import pytest

from sessdex import api, files, live_feeds
from sessdex.diagnostics import Diagnostics
from sessdex.sources import Home
from tests.test_follow_failed_reads import LEAD, OPENCLAW
from tests.test_follow_reader_raises import _answer


def test_a_followed_file_that_would_not_open_is_read_again_without_a_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    shutil.copytree(OPENCLAW, home)
    lead = home / ".openclaw" / "agents" / "main" / "sessions" / f"{LEAD}.jsonl"
    opened = files.open_regular
    failed: list[str] = []

    def failing(path: str | Path, buffering: int = -1) -> BinaryIO:
        # the follower's open of the lines the write added, once
        if armed and not failed and sys._getframe(1).f_code.co_name == "lines":
            failed.append(str(path))
            raise OSError(errno.EMFILE, "Too many open files", str(path))
        return opened(path, buffering)

    monkeypatch.setattr(files, "open_regular", failing)
    monkeypatch.setattr(live_feeds, "STORE_SECONDS", 0.2)  # the first wait again
    armed = False
    writes = [_answer("written once", 1)]

    def stop() -> bool:  # one write, and none after it
        nonlocal armed
        if writes:
            with lead.open("ab") as stream:
                stream.write(writes.pop())
            armed = True
        return False

    diagnostics = Diagnostics()
    _, batches = api.follow_session(
        Home.at(home), LEAD, duration=2.0, notify=False, stop=stop,
        diagnostics=diagnostics,
    )  # fmt: skip
    drawn = [e.text for batch in batches for e in batch]
    assert failed == [str(lead)]
    assert "written once" in drawn, drawn
    assert any("too many open files" in p.lower() for p in diagnostics.problems), (
        diagnostics.problems
    )


def test_a_hook_read_file_that_would_not_open_is_read_again_without_a_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    from tests.test_watch_nl_since_moves import CWD, SESSION, _turn

    home = tmp_path / "home"
    path = home / ".claude" / "projects" / CWD.replace("/", "-") / f"{SESSION}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(_turn(0, int(time.time()) - 60))
    opened = files.open_regular
    failed: list[str] = []

    def failing(name: str | Path, buffering: int = -1) -> BinaryIO:
        if armed and not failed and sys._getframe(1).f_code.co_name == "lines":
            failed.append(str(name))
            raise OSError(errno.EMFILE, "Too many open files", str(name))
        return opened(name, buffering)

    monkeypatch.setattr(files, "open_regular", failing)
    armed = False
    writes = [_turn(1, int(time.time()))]

    def stop() -> bool:  # one write, and none after it
        nonlocal armed
        if writes:
            with path.open("ab") as stream:
                stream.write(writes.pop())
            armed = True
        return False

    diagnostics = Diagnostics()
    _, batches = api.follow_session(
        Home.at(home), SESSION, duration=1.5, notify=False, stop=stop,
        diagnostics=diagnostics,
    )  # fmt: skip
    drawn = [e.text for batch in batches for e in batch]
    assert failed == [str(path)]
    assert "prompt 1" in drawn, drawn
    assert any("too many open files" in p.lower() for p in diagnostics.problems), (
        diagnostics.problems
    )
