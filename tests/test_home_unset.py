"""A user with no home sessdex can find: HOME unset, and no entry in the password database
(a container started with a bare numeric user and an empty environment).

Python leaves `~` as it is then. sessdex ended in a `RuntimeError` traceback, and with
`--home` it made its index in a folder literally named `~` below the working folder
(an agent's folder, as likely as not).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from .conftest import merged_home

# what the interpreter sees in such a container: no HOME, and no user entry for its uid
NO_USER_ENTRY = """
import pwd

def _no_entry(uid):
    raise KeyError(f"getpwuid(): uid not found: {uid}")

pwd.getpwuid = _no_entry
"""


def _sessdex(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    site = tmp_path / "site"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(NO_USER_ENTRY)
    env = {
        name: value
        for name, value in os.environ.items()
        if name not in ("HOME", "SESSDEX_HOME", "XDG_CACHE_HOME")
    }
    env["PYTHONPATH"] = os.pathsep.join([str(site), env.get("PYTHONPATH", "")])
    work = tmp_path / "project"
    work.mkdir(exist_ok=True)
    return subprocess.run(
        [sys.executable, "-m", "sessdex", *args],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
    )


def test_no_home_is_one_line_that_says_what_to_do(tmp_path: Path) -> None:
    done = _sessdex(tmp_path, "list")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith("Error: ") and "HOME" in line and "--home" in line


def test_no_home_with_home_given_lists_and_writes_nothing_in_the_working_folder(
    tmp_path: Path,
) -> None:
    home = merged_home(tmp_path / "home")
    done = _sessdex(tmp_path, "list", "--json", "--home", str(home))
    assert done.returncode == 0, done.stderr
    assert '"id"' in done.stdout
    assert list((tmp_path / "project").iterdir()) == []  # no `~/.cache/sessdex` here
    assert "cannot keep its index" in done.stderr  # said, with what to do
