"""One home reached by two spellings (a symlink to it, a `..` in --home) keeps one index,
named by its real path, yet prints its paths under the spelling given this run: the
records hold each file's path as found through the home the index was built by, and people
paste those paths (and the commands built from them), so a path under that home is shown
under the one given. A trailing slash or a repeated one is the same spelling."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from .helpers import write_claude_session
from .test_quick import settled

SID = "5e55a1a2-0000-4000-8000-000000000043"


def _paths(home: str, quick: bool) -> list[str]:
    env = dict(os.environ)
    if not quick:
        env["SESSDEX_NO_QUICK"] = "1"
    done = subprocess.run(
        [sys.executable, "-m", "sessdex", "list", "--json", "--home", home],
        capture_output=True,
        check=True,
        env=env,
    )
    return [record["path"] for record in json.loads(done.stdout)]


def test_each_spelling_of_a_home_prints_its_own_paths(tmp_path: Path) -> None:
    real = tmp_path / "real"
    write_claude_session(real, SID, "/w/shop")
    settled(real)
    link = tmp_path / "link"
    link.symlink_to(real)
    spellings = [str(real), str(link), f"{real}/../real"]
    for quick in (False, True):  # built, then warm
        for home in spellings:
            (path,) = _paths(home, quick)
            assert path.startswith(home + "/.claude/projects/"), (home, path)
    assert _paths(f"{link}//", quick=True) == _paths(str(link), quick=True)
    cache = Path(os.environ["SESSDEX_HOME"]) / "cache"
    # and one index serves them all: a home is indexed once, whatever the path to it
    assert len(list(cache.glob("index-*.sqlite"))) == 1
