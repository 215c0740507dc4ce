"""What the library logs as a warning names no level itself: a program's logging format
adds one ("WARNING: warning: …" before), and the command line says it as it says its own
warnings, `warning: …`, once, on the quick path too."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sessdex import api, index
from sessdex.sources import Home
from tests.helpers import write_claude_session

SESSION = "aaaaaaaa-0000-4000-8000-00000000000e"


def damaged(tmp_path: Path) -> Home:
    """A home whose index (sessdex's own cache) is no database any more."""
    home = Home.at(tmp_path / "home")
    write_claude_session(home.path, SESSION, "/w/a")
    assert len(api.list_sessions(home).rows) == 1
    index.index_file(home).write_bytes(b"this is not SQLite\n" * 100)
    return home


def test_a_program_s_log_format_shows_the_level_once(tmp_path: Path) -> None:
    home = damaged(tmp_path)
    said: list[str] = []

    class Kept(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            said.append(self.format(record))

    handler = Kept()
    handler.setFormatter(logging.Formatter("%(levelname)s: %(message)s"))
    logger = logging.getLogger("sessdex")
    logger.addHandler(handler)
    try:
        assert [row.id for row in api.list_sessions(home).rows] == [SESSION]
    finally:
        logger.removeHandler(handler)
    assert len(said) == 1 and "index was damaged" in said[0]
    assert said[0].lower().count("warning") == 1, said[0]


@pytest.mark.parametrize("quick", [True, False], ids=["quick path", "full command"])
def test_the_command_says_the_warning_once_as_its_own(
    tmp_path: Path, quick: bool
) -> None:
    home = damaged(tmp_path)
    environ = dict(os.environ)
    if not quick:
        environ["SESSDEX_NO_QUICK"] = "1"
    ran = subprocess.run(
        [sys.executable, "-m", "sessdex", "list", "--home", str(home.path)],
        env=environ,
        capture_output=True,
        text=True,
        check=False,
    )
    assert ran.returncode == 0 and SESSION[:8] in ran.stdout, ran.stderr
    told = [line for line in ran.stderr.splitlines() if "index was damaged" in line]
    assert len(told) == 1, ran.stderr
    assert told[0].startswith("warning: sessdex's index was damaged")
    assert told[0].count("warning") == 1
