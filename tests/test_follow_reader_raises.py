"""`follow` of a file whose reader raises on a record (a sessdex bug): the read is made
again from the same place at a later poll, so the lines after that record in the same
write are drawn where the read comes right; where it keeps raising, those lines are
passed over, said, after RAISED_MOST reads, and the follow draws what is written next.
The lines were passed before the read: lost, and a lead read whole at each write raised
at every one after, nothing more drawn."""

from __future__ import annotations

import json
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

BAD = "a record the reader cannot handle"


def _answer(text: str, n: int) -> bytes:
    message = {"role": "assistant", "content": [{"type": "text", "text": text}]}
    parent = "16000008" if n == 1 else f"1700{n - 1:04d}"  # one chain: none a branch
    line = {"type": "message", "id": f"1700{n:04d}", "parentId": parent,
            "timestamp": f"2026-12-01T09:30:{n:02d}.000Z", "message": message}  # fmt: skip
    return json.dumps(line).encode() + b"\n"


def _raising(monkeypatch: pytest.MonkeyPatch, times: int) -> list[float]:
    """OpenClaw's reader raises on the marked record the first `times` reads that meet
    it; when it did."""
    source = sources.get("openclaw")
    read = source.read
    raised: list[float] = []

    def broken(session: Session, *args: object, **kwargs: object) -> Iterator[Event]:
        for event in read(session, *args, **kwargs):  # type: ignore[arg-type]
            if event.text == BAD and len(raised) < times:
                raised.append(time.monotonic())
                raise RuntimeError(BAD)
            yield event

    monkeypatch.setattr(source, "read", broken)
    monkeypatch.setattr(live_feeds, "STORE_SECONDS", 0.2)  # the first wait again
    return raised


def _follow(home: Path, writes: list[tuple[float, bytes]], duration: float) -> tuple[list[str], Diagnostics]:  # fmt: skip
    lead = home / ".openclaw" / "agents" / "main" / "sessions" / f"{LEAD}.jsonl"
    began = time.monotonic()

    def stop() -> bool:  # each write once its time came
        while writes and time.monotonic() - began >= writes[0][0]:
            with lead.open("ab") as stream:
                stream.write(writes.pop(0)[1])
        return False

    diagnostics = Diagnostics()
    _, batches = api.follow_session(
        Home.at(home), LEAD, duration=duration, notify=False, stop=stop,
        diagnostics=diagnostics,
    )  # fmt: skip
    return [e.text or "" for batch in batches for e in batch], diagnostics


def test_the_lines_after_a_record_whose_read_raised_are_drawn_at_the_next_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(OPENCLAW, tmp_path / "home")
    raised = _raising(monkeypatch, 1)
    batch = _answer("before it", 1) + _answer(BAD, 2) + _answer("after it", 3)
    drawn, diagnostics = _follow(tmp_path / "home", [(0.0, batch)], 2.0)
    assert len(raised) == 1
    wrote = ["before it", BAD, "after it"]
    assert [t for t in drawn if t in wrote] == wrote
    assert any("stopped following" in p for p in diagnostics.problems)


def test_a_record_whose_read_always_raises_is_passed_over_and_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(OPENCLAW, tmp_path / "home")
    raised = _raising(monkeypatch, 1_000)
    writes = [(0.0, _answer(BAD, 1)), (2.5, _answer("written later", 2))]
    drawn, diagnostics = _follow(tmp_path / "home", writes, 4.0)
    assert "written later" in drawn
    # read once, again RAISED_MOST times (0.2, 0.4, 0.8 s apart), then passed over
    assert len(raised) == 4, raised
    said = [p for p in diagnostics.problems if "passed over" in p]
    assert len(said) == 1 and "sessdex bug" in said[0], diagnostics.problems
