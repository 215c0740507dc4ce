"""A terminal that shows no colour (TERM=dumb: Emacs' shell, some IDE consoles) is still
as wide as it says: Rich takes every dumb terminal for 80 columns, so the usage table
and the sub-agent tree ran past a narrower one."""

from __future__ import annotations

import os

import pytest

from sessdex import api

from .helpers import on_a_terminal

DEMO = str(api.demo_home().path)


@pytest.mark.parametrize(
    "args",
    [
        ["usage", "session", "--since", "3000d"],
        ["tree", "3f2b9c1e"],
    ],
)
def test_a_dumb_terminal_keeps_its_width(args: list[str]) -> None:
    env = {**os.environ, "SESSDEX_PROGRESS_AFTER": "600"}
    result, shown = on_a_terminal(
        [*args, "--home", DEMO], env, stdout_too=True, columns=44, term="dumb"
    )
    assert result.returncode == 0, shown
    assert "\x1b" not in shown  # a dumb terminal: no escape sequence at all
    lines = shown.replace("\r\n", "\n").splitlines()
    assert len(lines) >= 2
    over = [line for line in lines if len(line) > 44 and not line.startswith("note:")]
    assert not over, over
