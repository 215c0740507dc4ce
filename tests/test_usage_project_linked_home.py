"""`usage project` names its folders under the home as given this run, as `list` does: one
home reached by a link keeps one index (named by its real path), whose sums hold each
session's folder as read through the home the index was built by; a folder under that
home is shown under the spelling given (`indexfile.rehomed`), so the same folder is one
row whether the home is given by its real path or by the link."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from .helpers import write_claude_session

SID = "5e55a1a2-0000-4000-8000-000000000051"


def _run(*args: str) -> object:
    done = subprocess.run(
        [sys.executable, "-m", "sessdex", *args],
        capture_output=True,
        check=True,
        env=dict(os.environ),
    )
    return json.loads(done.stdout)


def test_usage_project_names_folders_under_the_home_as_given(tmp_path: Path) -> None:
    real = tmp_path / "real"
    write_claude_session(real, SID, f"{real}/work/shop")
    link = tmp_path / "link"
    link.symlink_to(real)
    for home in (real, link, real, link):  # the index built by the first, then reused
        rows = _run("usage", "project", "--json", "--home", str(home))
        assert [row["key"] for row in rows] == [f"{home}/work/shop"], (home, rows)  # type: ignore[index, union-attr]
        (listed,) = _run("list", "--json", "--home", str(home))  # type: ignore[misc]
        assert listed["cwd"] == f"{home}/work/shop"
    # --explain finds the row by the folder as shown, and names the files as shown
    shown = f"{link}/work/shop"
    args = ["usage", "project", "--explain", shown, "--home", str(link)]
    done = subprocess.run(
        [sys.executable, "-m", "sessdex", *args],
        capture_output=True,
        check=True,
        env=dict(os.environ),
        text=True,
    )
    assert "counted (1)" in done.stdout, done.stdout
    # under the home given, as `~/…` (the CLI names a path there so), not the real one
    assert " ~/.claude/projects/" in done.stdout, done.stdout
    assert str(real) not in done.stdout, done.stdout
    cache = Path(os.environ["SESSDEX_HOME"]) / "cache"
    assert len(list(cache.glob("index-*.sqlite"))) == 1
