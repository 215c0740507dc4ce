"""`follow` of a JSON-lines file (OpenClaw's) whose read fails partway (an I/O error
on the disk): the read is made again from the same place 2 s later, then twice as long
each time up to a minute, though nothing more is written. It was made again only when
the file grew: what the failed read was handed was never drawn."""

from __future__ import annotations

import errno
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sessdex import api, live_feeds, sources
from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Session
from sessdex.sources import Home
from tests.test_follow_failed_reads import LEAD, OPENCLAW
from tests.test_follow_reader_raises import _answer

BAD = "a record on a sector that would not read"


def test_a_line_read_that_failed_partway_is_made_again_without_a_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = sources.get("openclaw")
    read = source.read
    failed: list[float] = []

    def failing(session: Session, *args: object, **kwargs: object) -> Iterator[Event]:
        for event in read(session, *args, **kwargs):  # type: ignore[arg-type]
            if event.text == BAD and not failed:  # the first read that reaches it
                failed.append(time.monotonic())
                raise OSError(errno.EIO, "Input/output error", session.path)
            yield event

    monkeypatch.setattr(source, "read", failing)
    monkeypatch.setattr(live_feeds, "STORE_SECONDS", 0.2)  # the first wait again
    home = tmp_path / "home"
    shutil.copytree(OPENCLAW, home)
    lead = home / ".openclaw" / "agents" / "main" / "sessions" / f"{LEAD}.jsonl"
    writes = [_answer("before it", 1) + _answer(BAD, 2) + _answer("after it", 3)]

    def stop() -> bool:  # one write, and none after it
        if writes:
            with lead.open("ab") as stream:
                stream.write(writes.pop())
        return False

    diagnostics = Diagnostics()
    _, batches = api.follow_session(
        Home.at(home), LEAD, duration=2.0, notify=False, stop=stop,
        diagnostics=diagnostics,
    )  # fmt: skip
    drawn = [e.text for batch in batches for e in batch]
    assert failed
    wrote = ["before it", BAD, "after it"]
    assert [t for t in drawn if t in wrote] == wrote, drawn
    assert any("input/output error" in p.lower() for p in diagnostics.problems)


def test_a_big_files_read_that_keeps_failing_draws_what_is_written_next_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = sources.get("openclaw")
    read = source.read

    def failing(session: Session, *args: object, **kwargs: object) -> Iterator[Event]:
        for event in read(session, *args, **kwargs):  # type: ignore[arg-type]
            if event.text == BAD:  # every read that reaches it
                raise OSError(errno.EIO, "Input/output error", session.path)
            yield event

    monkeypatch.setattr(source, "read", failing)
    monkeypatch.setattr(live_feeds, "STORE_SECONDS", 30.0)  # no read again in the run
    home = tmp_path / "home"
    shutil.copytree(OPENCLAW, home)
    lead = home / ".openclaw" / "agents" / "main" / "sessions" / f"{LEAD}.jsonl"
    with lead.open("ab") as stream:  # over FULL_REREAD_MAX: read on from its last line
        stream.write(_answer("x" * (1200 * 1024), 1))
    writes = [(0.0, _answer(BAD, 2)), (1.0, _answer("written later", 3))]
    began = time.monotonic()

    def stop() -> bool:
        while writes and time.monotonic() - began >= writes[0][0]:
            with lead.open("ab") as stream:
                stream.write(writes.pop(0)[1])
        return False

    _, batches = api.follow_session(
        Home.at(home), LEAD, duration=3.0, notify=False, stop=stop
    )
    drawn = [e.text for batch in batches for e in batch]
    # what is written after the failure: read as it comes, not 30 s later
    assert "written later" in drawn, [t[:40] for t in drawn if t]
