"""Sessions whose times tie to the millisecond (the time a listing shows) are listed by
app and id, warm or cold: the index kept a file's time to the microsecond where it read
the file, to the millisecond where it merged a session from its record, so that a warm
list after a rename (Kiro IDE's store, its file renamed with a newline) put two such
sessions in another order than a cold one."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from datetime import datetime
from pathlib import Path

from tests.conftest import app_home

_BASE = 1_796_000_000_548_000_000  # ns: a time at .548 s


def _listed(home: Path, own: Path) -> list[tuple[str, str]]:
    done = subprocess.run(
        [sys.executable, "-m", "sessdex", "list", "--json", "--home", str(home)],
        env={**os.environ, "SESSDEX_HOME": str(own)},
        capture_output=True,
        timeout=120,
        check=True,
    )
    return [(row["updated"], row["id"]) for row in json.loads(done.stdout)]


def _by_time_then_id(rows: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return sorted(rows, key=lambda row: (-_ms(row[0]), row[1]))


def _ms(stamp: str) -> int:
    return int(datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp() * 1000)


def test_sessions_tied_to_the_millisecond_are_listed_by_id_warm_and_cold(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    shutil.copytree(app_home("kiroide"), home, symlinks=True)
    for path in home.rglob("*"):  # every file at .548900 s; one chat at .548100 s
        if path.is_file():
            later = "2b7e4c1a" not in path.name
            at = _BASE + (900_000 if later else 100_000)
            os.utime(path, ns=(at, at))
    cold = _listed(home, tmp_path / "own")
    tied = [stamp for stamp, session_id in cold if "2b7e4c1a" in session_id]
    assert len([row for row in cold if row[0] == tied[0]]) > 1, cold
    assert cold == _by_time_then_id(cold), cold  # one app: by id within a millisecond
    # the store's transcript renamed with a newline: a warm list reads it again
    (store,) = home.rglob("sess_7c1d3e5f-*")
    (store / "messages.jsonl").rename(store / "m\nessages.jsonl")
    warm = _listed(home, tmp_path / "own")
    assert warm == _listed(home, tmp_path / "own-cold"), warm
    assert warm == _by_time_then_id(warm), warm
