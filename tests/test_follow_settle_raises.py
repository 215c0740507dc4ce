"""`follow` and `watch` of a file read through a follow hook whose stream raises as it
settles the file's end (a sessdex bug): said once, what the read found drawn, and the
file read again only once it is written. Its end was settled again at every poll,
raising each time, though nothing was written."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from sessdex import api
from sessdex.live_session import LiveSession
from sessdex.sources import Home, _claude_follow
from tests.helpers import write_claude_session
from tests.test_follow_hook_raises import CWD, SESSION, _prompt


def test_a_settle_that_raises_is_said_once_and_the_read_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_claude_session(tmp_path, SESSION, CWD)
    live = LiveSession(api.resolve(Home.at(tmp_path), SESSION[:8]))
    t = 1_000.0
    live.poll(t)
    settled: list[float] = []

    def broken(self: _claude_follow._Reader, quiet: bool) -> Iterator[object]:
        settled.append(quiet)
        raise RuntimeError("settle")

    monkeypatch.setattr(_claude_follow._Reader, "settle", broken)
    with path.open("ab") as stream:
        stream.write(_prompt("written", 1))
    with pytest.raises(RuntimeError):
        live.poll(t + 1)  # said by the caller (`stopped following`), once
    assert [e.text for e in live.kept()] == ["written"]  # what the read found
    for later in range(2, 8):  # nothing written
        live.poll(t + later)
    assert len(settled) == 1, settled
    with path.open("ab") as stream:
        stream.write(_prompt("written next", 2))
    with pytest.raises(RuntimeError):
        live.poll(t + 10)
    assert [e.text for e in live.kept()] == ["written next"]
