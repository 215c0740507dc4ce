"""`show` on a terminal that cannot run a full-screen pager (TERM=dumb: Emacs' shell,
some IDE consoles; TERM=emacs) prints the transcript itself, as pydoc and click do,
unless $PAGER names one: less would stop at "terminal is not fully functional"."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tests.helpers import on_a_terminal, write_claude_session

SID = "eeeeeeee-0000-4000-8000-0000000000d1"


def _fake_less(folder: Path, marker: Path) -> None:
    """A `less` on PATH that notes it was started, then passes its input on."""
    folder.mkdir()
    less = folder / "less"
    less.write_text(f"#!/bin/sh\ntouch '{marker}'\nexec cat\n")
    less.chmod(less.stat().st_mode | stat.S_IXUSR)


@pytest.mark.parametrize("term", ["dumb", "emacs"])
def test_show_on_a_dumb_terminal_starts_no_pager(tmp_path: Path, term: str) -> None:
    home = tmp_path / "home"
    write_claude_session(home, SID, "/w/p", prompt="read me on a dumb terminal")
    marker = tmp_path / "less-started"
    _fake_less(tmp_path / "bin", marker)
    env = {**os.environ, "PATH": f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    env.pop("PAGER", None)
    result, shown = on_a_terminal(
        ["show", SID, "--home", str(home)], env, stdout_too=True, term=term
    )
    assert result.returncode == 0, shown
    assert "read me on a dumb terminal" in shown
    assert not marker.exists()
    # a pager the user named is theirs to choose, whatever the terminal
    env["PAGER"] = "less"
    result, shown = on_a_terminal(
        ["show", SID, "--home", str(home)], env, stdout_too=True, term=term
    )
    assert result.returncode == 0 and "read me on a dumb terminal" in shown
    assert marker.exists()
