"""`follow` of a JSON-lines file (OpenClaw's) whose read failed (an I/O error) and whose
read made again then raised (a sessdex bug on a record): that is said once, and the next
read that fails is made again 2 s later, as a first failure is. The failure was still
taken as pending: the file was read again, raising, every few seconds for ever, and the
next failure waited 4 s or more."""

from __future__ import annotations

import errno
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from sessdex import api, sources
from sessdex.live_session import LiveSession
from sessdex.model import Event, Session
from sessdex.sources import Home
from tests.test_follow_failed_reads import LEAD, OPENCLAW
from tests.test_follow_reader_raises import _answer

BAD = "a record on a sector that would not read, then a bug"


def test_a_retry_that_raised_leaves_no_failure_pending(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = sources.get("openclaw")
    read = source.read
    fails: dict[str, type[Exception]] = {}  # a text, and what its read raises
    raised: list[str] = []

    def failing(session: Session, *args: object, **kwargs: object) -> Iterator[Event]:
        for event in read(session, *args, **kwargs):  # type: ignore[arg-type]
            what = fails.get(event.text or "")
            if what is not None:
                raised.append(what.__name__)
                if what is OSError:
                    raise OSError(errno.EIO, "Input/output error", session.path)
                raise what(event.text)
            yield event

    monkeypatch.setattr(source, "read", failing)
    home = tmp_path / "home"
    shutil.copytree(OPENCLAW, home)
    lead = home / ".openclaw" / "agents" / "main" / "sessions" / f"{LEAD}.jsonl"
    live = LiveSession(api.resolve(Home.at(home), LEAD[:8]))
    t = 1_000.0
    live.poll(t)
    with lead.open("ab") as stream:
        stream.write(_answer(BAD, 1))
    fails[BAD] = OSError
    assert live.poll(t + 1) == []  # failed: made again 2 s later
    fails[BAD] = RuntimeError
    with pytest.raises(RuntimeError):
        live.poll(t + 3.5)  # the read made again raises: said by the caller, once
    for later in (4.0, 10.0, 20.0, 40.0, 80.0):  # nothing written
        live.poll(t + later)
    assert raised == ["OSError", "RuntimeError"], raised
    del fails[BAD]
    with lead.open("ab") as stream:
        stream.write(_answer("written later", 2))
    fails["written later"] = OSError
    live.poll(t + 100)  # fails: made again 2 s later, as a first failure
    del fails["written later"]
    drawn = [e.text for e in live.poll(t + 102.5)]
    assert "written later" in drawn, drawn
