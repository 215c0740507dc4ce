"""`SESSDEX_HOME` given as a relative path (`.sessdex`, as an env file or a service's
settings hold it, unexpanded) is taken below the user's home, never below the folder
sessdex happens to run in: that was an agent's folder as often as not, and sessdex wrote
its index there (and started a new, cold one in every folder)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from .helpers import write_claude_session
from .test_quick import settled


def _tree(folder: Path) -> list[tuple[str, int, int]]:
    return sorted(
        (str(path), path.stat().st_size, path.stat().st_mtime_ns)
        for path in folder.rglob("*")
    )


def test_a_relative_sessdex_home_is_below_the_home_not_the_working_folder(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    session = write_claude_session(
        home, "5e55a1a2-0000-4000-8000-000000000002", "/w/shop", title="Shop work"
    )
    settled(home)
    agent_folder = session.parent
    before = _tree(home / ".claude")
    env = {**os.environ, "HOME": str(home), "SESSDEX_HOME": ".sessdex-state"}
    env.pop("XDG_CACHE_HOME", None)
    listed = []
    for _ in range(2):  # cold, then warm (the quick path)
        done = subprocess.run(
            [sys.executable, "-m", "sessdex", "list", "--json"],
            cwd=agent_folder,
            env=env,
            capture_output=True,
            check=True,
        )
        listed.append([record["title"] for record in json.loads(done.stdout)])
    assert listed == [["Shop work"], ["Shop work"]]
    assert _tree(home / ".claude") == before  # nothing written in the agent's folder
    assert list((home / ".sessdex-state" / "cache").glob("index-*.sqlite"))
