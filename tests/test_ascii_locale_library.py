"""A program using the library under an ASCII locale with Python's UTF-8 mode off
(`LC_ALL=C PYTHONUTF8=0`), whose home has a non-ASCII name. The `sessdex` command starts
again in UTF-8 mode (test_ascii_locale_utf8_mode.py); a library cannot, so it reads no
session there, but says why and what to do: Python's UTF-8 mode. It raised
UnicodeEncodeError's traceback for the name given as text, and blamed a valid UTF-8
name ("name it through a link") for the one Python gave it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import write_claude_session

CAFE = "c0b1ed00-0000-4000-8000-000000000001"

SCRIPT = """
import ast
import sys
from sessdex import api
from sessdex.errors import SessionNotFound
from sessdex.sources import Home

given = sys.argv[1]
home = Home.current() if given == "current" else Home.at(ast.literal_eval(given))
listing = api.list_sessions(home)
print(len(listing.sessions()))
print(listing.report.failures["claude"])
try:
    api.transcript(home, "c0b1ed00")
except SessionNotFound:
    print("not found")
"""


def _library(
    state: Path, home: str, argument: str
) -> subprocess.CompletedProcess[bytes]:
    env = {
        **os.environ,
        "LC_ALL": "C",
        "PYTHONUTF8": "0",
        "PYTHONCOERCECLOCALE": "0",
        "SESSDEX_HOME": str(state),
        "HOME": home,
        "PYTHONIOENCODING": "utf-8",  # the test reads the message whole
    }
    return subprocess.run(
        [sys.executable, "-c", SCRIPT, argument],
        env=env,
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("given", ["text", "current"])
def test_a_non_ascii_home_says_the_locale_is_why(tmp_path: Path, given: str) -> None:
    """`Home.at("…/jösé")` (the name as text) and `Home.current()` (HOME as Python
    decoded it): no traceback, no session, and a failure naming the locale's cure."""
    home = tmp_path / "jösé"
    write_claude_session(home, CAFE, "/srv/shop", title="Menu du jour")
    done = _library(
        tmp_path / "state", str(home), ascii(str(home)) if given == "text" else given
    )
    assert done.returncode == 0, done.stderr.decode()
    count, failure, found = done.stdout.decode().splitlines()
    assert count == "0" and found == "not found"
    assert str(home) in failure
    assert "PYTHONUTF8=1" in failure and "UTF-8 locale" in failure
    assert "not valid UTF-8" not in failure and "link" not in failure
