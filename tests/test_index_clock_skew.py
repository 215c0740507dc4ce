"""A file an app rewrote whose mtime is then set back (a clock stepped back, `touch -r`,
`cp -p` or `rsync -t` from a backup) is read again, as a fresh look at it reads it."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

from tests.fuzzing import copy_home, homes

SESSION = "ses_dd47cef52ffe38O37iH1Ffe05b"
TITLE = b"Checkout retry smoke test"


def _titles(home: Path, state: Path) -> dict[str, str]:
    done = subprocess.run(
        [sys.executable, "-m", "sessdex", "list", "--json", "--all", "--home", home],
        env={**os.environ, "SESSDEX_HOME": str(state)},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    return {row["id"]: row["title"] for row in json.loads(done.stdout)}


def _open_in_wal(database: Path) -> None:
    """The database as its app leaves it while it runs: WAL mode, a `-wal` beside it
    (of a change elsewhere), so sessdex reads a snapshot copy."""
    db = sqlite3.connect(database, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA wal_autocheckpoint = 0")
    db.execute("CREATE TABLE zz_elsewhere (x)")
    data, wal = database.read_bytes(), Path(f"{database}-wal").read_bytes()
    db.close()  # which checkpoints and removes the WAL: put both back as they were
    database.write_bytes(data)
    Path(f"{database}-wal").write_bytes(wal)


def test_a_database_rewritten_with_its_size_and_mtime_kept_lists_its_new_title(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    copy_home(homes()["opencode"], home)
    database = home / ".local" / "share" / "opencode" / "opencode.db"
    _open_in_wal(database)
    assert _titles(home, tmp_path / "state")[SESSION] == TITLE.decode()
    before = database.stat()
    data = database.read_bytes()
    assert TITLE in data
    database.write_bytes(data.replace(TITLE, TITLE.upper()))  # the same size
    os.utime(database, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert database.stat().st_size == before.st_size
    cold = _titles(home, tmp_path / "cold")
    shutil.rmtree(tmp_path / "cold")
    assert cold[SESSION] == TITLE.upper().decode()
    # the warm list read the copy it took before: the old title, for good
    assert _titles(home, tmp_path / "state")[SESSION] == TITLE.upper().decode()


def _titled_in_wal(database: Path, title: bytes) -> tuple[bytes, bytes]:
    """A copy of `database` in WAL mode with the session retitled `title` in its WAL
    alone: the database's bytes and the WAL's."""
    copy = database.with_name("zz-copy.db")
    shutil.copyfile(database, copy)
    db = sqlite3.connect(copy, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA wal_autocheckpoint = 0")
    db.execute("UPDATE session SET title = ? WHERE id = ?", (title.decode(), SESSION))
    data, wal = copy.read_bytes(), Path(f"{copy}-wal").read_bytes()
    db.close()
    for leftover in (copy, Path(f"{copy}-wal"), Path(f"{copy}-shm")):
        leftover.unlink(missing_ok=True)
    return data, wal


def test_a_wal_rewritten_with_its_size_and_mtime_kept_lists_its_new_title(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    copy_home(homes()["opencode"], home)
    database = home / ".local" / "share" / "opencode" / "opencode.db"
    first, wal = _titled_in_wal(database, TITLE.upper())
    second, other_wal = _titled_in_wal(database, TITLE.lower())
    assert first == second and len(wal) == len(other_wal)
    database.write_bytes(first)
    Path(f"{database}-wal").write_bytes(wal)
    assert _titles(home, tmp_path / "state")[SESSION] == TITLE.upper().decode()
    before = Path(f"{database}-wal").stat()
    Path(f"{database}-wal").write_bytes(other_wal)
    os.utime(f"{database}-wal", ns=(before.st_atime_ns, before.st_mtime_ns))
    assert _titles(home, tmp_path / "cold")[SESSION] == TITLE.lower().decode()
    # the warm list took the database for unchanged: the old title, for good
    assert _titles(home, tmp_path / "state")[SESSION] == TITLE.lower().decode()
