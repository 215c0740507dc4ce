"""$PAGER as git reads it: a command for the shell, which may set variables for the
pager (`LESS=FRX less`) and name it from the home folder (`~/bin/mypager -x`,
`$HOME/bin/mypager`). Such a pager starts; it was said to be "not found" and the
transcript printed directly."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tests.helpers import on_a_terminal, write_claude_session

SID = "eeeeeeee-0000-4000-8000-0000000000e2"


def _setup(tmp_path: Path) -> tuple[Path, dict[str, str], Path]:
    """(the agents' home, an environment whose HOME holds bin/mypager, what it saw)."""
    home = tmp_path / "home"
    write_claude_session(home, SID, "/w/p", prompt="paged by my own pager")
    user = tmp_path / "user"
    (user / "bin").mkdir(parents=True)
    seen = tmp_path / "seen"
    mypager = user / "bin" / "mypager"
    mypager.write_text(f"#!/bin/sh\necho \"$MARK $*\" > '{seen}'\ncat >> '{seen}'\n")
    mypager.chmod(mypager.stat().st_mode | stat.S_IXUSR)
    env = {**os.environ, "HOME": str(user)}
    env.pop("MARK", None)
    return home, env, seen


@pytest.mark.parametrize(
    ("pager", "first"),
    [
        ("~/bin/mypager -x", " -x"),
        ("MARK=set ~/bin/mypager", "set "),
        ("MARK='two words' ~/bin/mypager -x", "two words -x"),
        ("$HOME/bin/mypager -x", " -x"),  # the shell's to expand, and to find
    ],
)
def test_a_pager_in_shell_words_starts(tmp_path: Path, pager: str, first: str) -> None:
    home, env, seen = _setup(tmp_path)
    env["PAGER"] = pager
    result, shown = on_a_terminal(
        ["show", SID, "--home", str(home)], env, stdout_too=True
    )
    assert result.returncode == 0, shown
    assert "was not found" not in shown
    got = seen.read_text().splitlines()
    assert got[0] == first
    assert any("paged by my own pager" in line for line in got)


def test_a_missing_pager_behind_variables_is_still_said(tmp_path: Path) -> None:
    home, env, seen = _setup(tmp_path)
    env["PAGER"] = "MARK=set ~/bin/nopager"
    result, shown = on_a_terminal(
        ["show", SID, "--home", str(home)], env, stdout_too=True
    )
    assert result.returncode == 0
    assert "the pager in $PAGER (MARK=set ~/bin/nopager) was not found" in shown
    assert "paged by my own pager" in shown
    assert not seen.exists()
