"""`follow` whose first look for the sub-agents listed apart cannot read the lead's own
file (deleted once the follow found it): said once, and that it looks again only where
it does; `--duration 0` said it looked again every 3 s, and no look came after. Gone
for good, the look is made again 2 s later, then twice as long each time up to a
minute, as a store's failed read is; it was made every 3 s for as long as it ran."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from sessdex import api, live, transcripts
from sessdex.diagnostics import Diagnostics
from sessdex.model import Session
from sessdex.sources import Home
from tests.test_follow_failed_reads import LEAD, OPENCLAW


def _unreadable(monkeypatch: pytest.MonkeyPatch, home: Path) -> list[float]:
    """The lead's file deleted once the follow has found it; the times a look tried to
    read it for its sub-agents."""
    lead = home / ".openclaw" / "agents" / "main" / "sessions" / f"{LEAD}.jsonl"
    real_resolve, real_over = api.resolve, transcripts._over_read_most
    looked: list[float] = []

    def resolving(*args: object, **kwargs: object) -> Session:
        session = real_resolve(*args, **kwargs)  # type: ignore[arg-type]
        lead.unlink()
        return session

    def over(session: Session) -> bool:
        if session.id == LEAD:
            looked.append(time.monotonic())
        return real_over(session)

    monkeypatch.setattr(api, "resolve", resolving)
    monkeypatch.setattr(transcripts, "_over_read_most", over)
    return looked


def _follow(home: Path, duration: float) -> Diagnostics:
    diagnostics = Diagnostics()
    _, batches = api.follow_session(
        Home.at(home), LEAD, duration=duration, notify=False, diagnostics=diagnostics
    )
    for _ in batches:
        pass
    return diagnostics


def test_a_lead_unread_for_good_is_looked_at_again_less_and_less_often(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    shutil.copytree(OPENCLAW, home)
    api.list_sessions(Home.at(home))
    monkeypatch.setattr(live, "RELIST_EVERY", 0.25)
    looked = _unreadable(monkeypatch, home)
    diagnostics = _follow(home, 5.0)
    # at 0 s, then 2 s later, then 4 s after that: not every 0.25 s (20 looks)
    assert 2 <= len(looked) <= 3, [round(t - looked[0], 2) for t in looked]
    said = [p for p in diagnostics.problems if "own file" in p and "sub-agents" in p]
    assert len(said) == 1, diagnostics.problems
    assert "again 2 s later" in said[0] and "60 s" in said[0], said


def test_a_follow_that_looks_no_more_does_not_say_it_looks_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    shutil.copytree(OPENCLAW, home)
    api.list_sessions(Home.at(home))
    _unreadable(monkeypatch, home)
    diagnostics = _follow(home, 0)
    said = [p for p in diagnostics.problems if "own file" in p and "sub-agents" in p]
    assert len(said) == 1, diagnostics.problems
    assert "again" not in said[0], said
