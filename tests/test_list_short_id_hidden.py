"""`list`'s short id of a session whose id holds a character that draws nothing (a
zero-width space a broken or hostile file wrote into it): eight characters a reader sees,
the hidden one written as the shell's escape among them, and never printed raw, cmd.exe's
line too, which has no escape for it."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import app_home

LEAD = "8c1f2e3d-4a5b-4c6d-9e7f-0a1b2c3d4e5f"
HIDDEN = "8c1f\u200b2e3d-4a5b-4c6d-9e7f-0a1b2c3d4e5f"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """The Crush fixture, its lead's id holding a zero-width space after 4 characters."""
    home = tmp_path / "home"
    shutil.copytree(app_home("crush"), home)
    db = sqlite3.connect(home / "code/shop-api/.crush/crush.db")
    db.execute("PRAGMA foreign_keys = OFF")
    db.execute("UPDATE sessions SET id = ? WHERE id = ?", (HIDDEN, LEAD))
    db.execute("UPDATE sessions SET parent_session_id = ? WHERE parent_session_id = ?", (HIDDEN, LEAD))  # fmt: skip
    db.execute("UPDATE messages SET session_id = ? WHERE session_id = ?", (HIDDEN, LEAD))  # fmt: skip
    db.commit()
    db.close()
    return home


def _list(home: Path, shell: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "sessdex", "list", "--home", str(home)],
        env={
            **os.environ,
            "SESSDEX_HOME": str(home.parent / "state"),
            "SESSDEX_SHELL": shell,
            "COLUMNS": "200",
            "PYTHONIOENCODING": "utf-8",
        },
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        check=True,
    )
    return next(line for line in done.stdout.splitlines() if "Add retry" in line)


def test_the_short_id_shows_eight_characters_besides_the_hidden_one(
    home: Path,
) -> None:
    """It printed `$'8c1f\\342\\200\\2132e3'`: seven characters a reader sees."""
    for _ in range(2):  # the full command, then (warm) the quick path
        line = _list(home, "bash")
        assert line.split()[1] == "$'8c1f\\342\\200\\2132e3d'", line


def test_cmd_prints_no_hidden_character_raw(home: Path) -> None:
    """cmd.exe has no escape for it: its line printed it raw, `"8c1f<U+200B>2e3"`,
    which looks like `8c1f2e3`, another id's start."""
    line = _list(home, "cmd")
    assert "\u200b" not in line, ascii(line)
    assert "8c1f\\u200b2e3d" in line, ascii(line)
