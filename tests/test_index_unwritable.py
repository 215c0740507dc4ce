"""A warm `sessdex list` over an index sessdex may not write, once a session has grown.

The quick path re-reads a grown session into the index; an index it may not write (one
a `sudo sessdex` left) made it open a temporary one, warn, and step aside, and the full
command warned the same again: two identical lines on every run.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from sessdex import index, launch
from sessdex.indexfile import cache_folder

from .helpers import write_claude_session
from .test_quick import full, settled


def test_an_unwritable_index_is_said_once_and_the_listing_is_current(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    home = tmp_path / "home"
    session = write_claude_session(home, "5e55a1a2-0000-4000-8000-000000000002", "/w/a")
    settled(home)
    full("--json", "--home", str(home))  # builds the index
    (indexed,) = Path(cache_folder()).glob("index-*.sqlite")
    before = indexed.read_bytes()
    with session.open("a") as file:  # grown: the warm listing re-reads it
        file.write(
            '{"type":"custom-title","customTitle":"grown since","sessionId":"x"}\n'
        )
    real_access = os.access

    def access(target: object, mode: int) -> bool:  # (as root, chmod would not do)
        if os.fspath(target) == os.fspath(indexed) and mode & os.W_OK:  # type: ignore[arg-type]
            return False
        return real_access(target, mode)  # type: ignore[arg-type]

    monkeypatch.setattr(index.os, "access", access)
    monkeypatch.setattr(sys, "argv", ["sessdex", "list", "--home", str(home)])
    capsys.readouterr()
    with pytest.raises(SystemExit) as exited:
        launch.main()
    said = capsys.readouterr()
    assert exited.value.code in (0, None)
    assert "grown since" in said.out
    warnings = [line for line in said.err.splitlines() if "not writable" in line]
    assert len(warnings) == 1, said.err
    assert indexed.read_bytes() == before  # left as it was
