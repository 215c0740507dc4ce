"""`usage session` gives a session's title the room a wide terminal has, as `list` does;
it kept the title column at about 25 characters even at 200 columns. Piped without
COLUMNS, the table stays as it was."""

from __future__ import annotations

import os
import subprocess
import sys

from rich.cells import cell_len

from sessdex.sources import Home

TITLE = "Create and Enhance CRUSH.md with Codebase Guidelines"  # a fixture session's


def _table(home: Home, **env: str) -> list[str]:
    environ = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    done = subprocess.run(
        [sys.executable, "-m", "sessdex", "usage", "session", "--home", str(home.path)],
        env={**environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return [line for line in done.stdout.splitlines() if line[:1] in "┏┃┡│├└"]


def test_a_wide_terminal_shows_a_session_title_whole(home: Home) -> None:
    # 220: the home holds many apps' sessions, and each row's app takes 12 columns
    lines = _table(home, COLUMNS="220")
    assert max(map(cell_len, lines)) <= 220
    assert any(TITLE in line for line in lines), lines[:4]


def test_a_narrow_terminal_still_fits(home: Home) -> None:
    lines = _table(home, COLUMNS="120")
    assert max(map(cell_len, lines)) <= 120
    assert not any(TITLE in line for line in lines)
    assert any("Create and Enhance" in line for line in lines)


def test_piped_without_columns_keeps_its_title_width(home: Home) -> None:
    lines = _table(home)
    row = next(line for line in lines if "Create and Enhance" in line)
    assert "Create and Enhance CRUSH.…" in row  # cut at the key's 48 cells, as before
