"""Under an ASCII locale with Python's UTF-8 mode off (`LC_ALL=C PYTHONUTF8=0`), Python
reads every non-ASCII file name as undecodable: the warning says that the locale is the
cause and how to read them, not that the (valid UTF-8) names are to be renamed, which
would break the app's own lookup of its sessions. (The `sessdex` command starts again in
UTF-8 mode and reads them: see test_ascii_locale_utf8_mode.py; a program that runs the
library, here the click command itself, still gets the warning.)"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.helpers import write_claude_session

CLICK = "from sessdex.cli import main; main()"  # the command, without its launcher


def test_the_locale_is_named_not_the_file_names(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_claude_session(home, "c0b1ed00-0000-4000-8000-000000000001", "/srv/café")
    write_claude_session(home, "c0b1ed00-0000-4000-8000-000000000002", "/srv/shop")
    env = {
        **os.environ,
        "LC_ALL": "C",
        "PYTHONUTF8": "0",
        "PYTHONCOERCECLOCALE": "0",
        "SESSDEX_HOME": str(tmp_path / "state"),
    }
    done = subprocess.run(
        [sys.executable, "-c", CLICK, "list", "--home", str(home)],
        env=env,
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    assert b"/srv/shop" in done.stdout
    warning = done.stderr.decode("ascii")
    assert "rename" not in warning and "not valid UTF-8" not in warning
    assert "PYTHONUTF8=1" in warning and "UTF-8 locale" in warning
