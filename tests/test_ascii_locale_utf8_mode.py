"""Under an ASCII locale with Python's UTF-8 mode off (`LC_ALL=C PYTHONUTF8=0`), Python
reads every non-ASCII file name as undecodable. The `sessdex` command reads file names as
UTF-8 all the same (it starts again in UTF-8 mode), so the sessions kept in such folders,
or in a home whose own name is not ASCII, are listed and shown; what it prints stays in
the locale's encoding (ASCII: `?` for what ASCII cannot show)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.helpers import write_claude_session

CAFE = "c0b1ed00-0000-4000-8000-000000000001"
SHOP = "c0b1ed00-0000-4000-8000-000000000002"


def _sessdex(home: Path, state: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    env = {
        **os.environ,
        "LC_ALL": "C",
        "PYTHONUTF8": "0",
        "PYTHONCOERCECLOCALE": "0",
        "SESSDEX_HOME": str(state),
    }
    env.pop("PYTHONIOENCODING", None)
    return subprocess.run(
        [sys.executable, "-m", "sessdex", *args, "--home", str(home)],
        env=env,
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
        check=False,
    )


def test_sessions_in_folders_with_non_ascii_names_are_listed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_claude_session(home, CAFE, "/srv/café", title="Menu du jour")
    write_claude_session(home, SHOP, "/srv/shop")
    done = _sessdex(home, tmp_path / "state", "list", "--json")
    assert done.returncode == 0, done.stderr.decode()
    listed = {row["id"]: row for row in json.loads(done.stdout)}
    assert set(listed) == {CAFE, SHOP}
    assert listed[CAFE]["cwd"] == "/srv/café"
    assert Path(listed[CAFE]["path"]).parent.name == "-srv-café"
    assert b"passed over" not in done.stderr


def test_a_home_with_a_non_ascii_name_is_read(tmp_path: Path) -> None:
    home = tmp_path / "jösé"
    write_claude_session(home, CAFE, "/srv/café", title="Menu du jour")
    state = tmp_path / "state"
    listed = _sessdex(home, state, "list")
    assert listed.returncode == 0, listed.stderr.decode()
    # printed in the locale's encoding: what ASCII cannot show is `?`
    listed.stdout.decode("ascii")
    assert b"Menu du jour" in listed.stdout and b"/srv/caf?" in listed.stdout
    shown = _sessdex(home, state, "show", CAFE[:8], "--no-pager")
    assert shown.returncode == 0, shown.stderr.decode()
    assert b"hello there" in shown.stdout
    shown.stdout.decode("ascii")
