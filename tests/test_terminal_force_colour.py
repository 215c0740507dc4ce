"""FORCE_COLOR (force-color.org) colours `list`, `find` and `demo` into a pipe
(`| less -R`), as it already coloured `show`, `tree` and `usage`; NO_COLOR and a dumb
terminal still win, and without it a pipe gets no escape sequence."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from sessdex import api
from tests.conftest import app_home

DEMO = str(api.demo_home().path)
COMMANDS = [
    ["list", "--home", DEMO],
    ["list", "--home", DEMO],  # again: the second reads the warm index's quick path
    ["find", "checkout", "--home", DEMO],
    ["demo"],
]


def _piped(args: list[str], state: Path, **env: str) -> bytes:
    done = subprocess.run(
        [sys.executable, "-m", "sessdex", *args],
        env={**os.environ, "SESSDEX_HOME": str(state), "TERM": "xterm", **env},
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout


def test_force_color_colours_a_pipe(tmp_path: Path) -> None:
    for args in COMMANDS:
        assert b"\x1b[36m" in _piped(args, tmp_path, FORCE_COLOR="1"), args


@pytest.mark.parametrize(
    "env",
    [
        {},
        {"FORCE_COLOR": ""},  # set, but empty: not forced
        {"FORCE_COLOR": "1", "NO_COLOR": "1"},
        {"FORCE_COLOR": "1", "TERM": "dumb"},
    ],
)
def test_no_colour_unless_forced(env: dict[str, str], tmp_path: Path) -> None:
    base = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "NO_COLOR")}
    for args in COMMANDS:
        done = subprocess.run(
            [sys.executable, "-m", "sessdex", *args],
            env={**base, "SESSDEX_HOME": str(tmp_path), "TERM": "xterm", **env},
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr.decode()
        assert b"\x1b" not in done.stdout, args


CLAUDE = str(app_home("claude"))
STYLED = [  # what FORCE_COLOR styles into a pipe through Rich's consoles
    ["show", "fe5e1c67", "--home", CLAUDE],
    ["tree", "fe5e1c67", "--home", CLAUDE],
    ["usage", "--home", CLAUDE],
    ["follow", "fe5e1c67", "--duration", "0.5", "--home", CLAUDE],
    ["replay", "fe5e1c67", "--speed", "1000", "--home", CLAUDE],
]


@pytest.mark.parametrize("args", STYLED, ids=lambda args: args[0])
def test_no_color_keeps_a_forced_pipe_plain(args: list[str], tmp_path: Path) -> None:
    # NO_COLOR wins: FORCE_COLOR styled these with bold and dim (Rich takes out only
    # the colours), where list, find and demo wrote plain text
    assert b"\x1b[" in _piped(args, tmp_path, FORCE_COLOR="1")
    assert b"\x1b" not in _piped(args, tmp_path, FORCE_COLOR="1", NO_COLOR="1")
