"""A Codex thread whose state db names its rollout outside the Codex home (the home
moved, or was copied, the rollout left where the db says): listed by that file while it
is there, and by its row once it is gone, warm as cold. The scan lists the home's own
folders only, so a warm list kept naming the file after it was deleted."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import orjson

from tests.conftest import DATA
from tests.helpers import settle

THREAD = "01a22b81-5c00-7801-8b1e-2012418ca986"


def _paths(home: Path, state: Path) -> dict[str, str]:
    done = subprocess.run(
        [sys.executable, "-m", "sessdex", "list", "--json", "--app", "codex"],
        env={**os.environ, "SESSDEX_HOME": str(state), "CODEX_HOME": str(home)},
        capture_output=True,
        check=True,
        timeout=120,
    )
    return {row["id"]: row["path"] for row in orjson.loads(done.stdout)}


def test_a_rollout_outside_the_home_deleted_is_listed_warm_as_cold(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home" / ".codex"
    shutil.copytree(DATA / "codex" / "home" / ".codex", home)
    (rollout,) = home.rglob(f"rollout-*-{THREAD}.jsonl")
    elsewhere = tmp_path / "elsewhere" / rollout.name
    elsewhere.parent.mkdir()
    rollout.rename(elsewhere)
    with sqlite3.connect(home / "state_5.sqlite") as db:
        db.execute(
            "UPDATE threads SET rollout_path = ? WHERE id = ?", (str(elsewhere), THREAD)
        )
    db.close()
    settle(tmp_path)
    state = tmp_path / "state"
    assert _paths(home, state)[THREAD] == str(elsewhere)
    elsewhere.unlink()
    settle(tmp_path)
    cold = _paths(home, tmp_path / "cold")
    assert cold[THREAD].endswith(f"state_5.sqlite#threads/{THREAD}")
    assert _paths(home, state) == cold
