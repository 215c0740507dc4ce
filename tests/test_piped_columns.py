"""Piped, `usage` and `watch --once` lay out to $COLUMNS when it is set, as `list` and
Rich do (`COLUMNS=80 sessdex usage | mail`); unset, a pipe still gets whole lines. They
kept their terminal-free widths whatever COLUMNS said. (usage's notes under its table
stay one line each, as on a terminal, which wraps them.)"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from rich.cells import cell_len

from sessdex.sources import Home

COMMANDS = [
    ["usage"],
    ["usage", "session"],
    ["watch", "--once", "--since", "10000d"],
]


def _piped(args: list[str], home: Home, **env: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-m", "sessdex", *args, "--home", str(home.path)],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert done.stdout.strip(), done.stderr
    lines = done.stdout.splitlines()
    if args[0] == "usage":  # the table
        lines = [line for line in lines if line[:1] in "┏┃┡│├└"]
        assert lines
    return lines


@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_piped_output_fits_columns_when_set(home: Home, args: list[str]) -> None:
    whole = _piped(args, home)
    assert max(map(cell_len, whole)) > 100  # unset: nothing is cut to a width
    for columns in (70, 100):
        fitted = _piped(args, home, COLUMNS=str(columns))
        assert max(map(cell_len, fitted)) <= columns, (columns, fitted)
