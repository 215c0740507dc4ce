"""`follow` when a read fails for a moment (an I/O error, a file briefly not a file): the
read is made again at the next look, the follow going on, and said once. A store's
failed read waited for the store to change again (a finished sub-agent never drawn); an
error from one sub-agent's read ended the whole follow."""

from __future__ import annotations

import errno
import json
import os
import time
from pathlib import Path

import pytest

from sessdex import api
from sessdex.diagnostics import Diagnostics
from sessdex.sources import Home
from tests.test_show_document_tail import SESSION as GEMINI_SESSION
from tests.test_show_document_tail import _chat

FAILING_FOR = 0.5  # seconds every open of the file fails, from the first that does


def _failing_once(monkeypatch: pytest.MonkeyPatch, path: Path) -> list[float]:
    """Every open of `path` fails (EIO) for FAILING_FOR seconds from the first one
    after the returned list is given a start; the times it failed at."""
    real = os.open
    failed: list[float] = []
    armed: list[float] = []

    def opening(name: object, *args: object, **kwargs: object) -> int:
        if armed and os.fspath(name) == str(path):  # type: ignore[call-overload]
            now = time.monotonic()
            if not failed or now - failed[0] < FAILING_FOR:
                failed.append(now)
                raise OSError(errno.EIO, "Input/output error", str(path))
        return real(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", opening)
    return armed


def test_a_stores_failed_read_is_made_again_at_the_next_look(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _chat(tmp_path, 6)
    armed = _failing_once(monkeypatch, path)
    diagnostics = Diagnostics()
    _, batches = api.follow_session(
        Home.at(tmp_path), GEMINI_SESSION[:8], duration=6, notify=False,
        diagnostics=diagnostics,
    )  # fmt: skip
    next(batches)
    chat = json.loads(path.read_text())
    chat["messages"].append(
        {"id": "late", "timestamp": "2025-11-02T12:00:00.000Z", "type": "user",
         "content": "written once, then never again"}
    )  # fmt: skip
    path.write_text(json.dumps(chat, indent=2))
    # the next read of it fails, and nothing changes the store after it
    armed.append(time.monotonic())
    drawn = [e.text for batch in batches for e in batch]
    assert any("stopped reading" in p for p in diagnostics.problems), diagnostics
    assert "written once, then never again" in drawn
