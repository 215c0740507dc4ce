"""Memory of indexing a home that grows with its sessions, not with what one of them costs
to encode (bench/bench_scale.py measures the same at 10,000 sessions)."""

from __future__ import annotations

import shutil
import sqlite3
import tracemalloc
from pathlib import Path

from sessdex import api
from sessdex.sources import Home

DATA = Path(__file__).parent / "data"
THREADS = 2000


def codex_home_of_many_threads(tmp_path: Path) -> Path:
    """The Codex fixture home, its state database holding THREADS more threads."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "codex" / "home", home)
    db = sqlite3.connect(home / ".codex" / "state_5.sqlite")
    columns = [row[1] for row in db.execute("PRAGMA table_info(threads)")]
    first = db.execute("SELECT * FROM threads LIMIT 1").fetchone()
    marks = ",".join("?" * len(columns))
    rows = []
    for n in range(THREADS):
        row = dict(zip(columns, first, strict=True))
        row["id"] = f"0199{n:04x}-0000-7000-8000-{n:012x}"
        row["rollout_path"] = f"/nowhere/rollout-{n}.jsonl"
        row["title"] = f"thread number {n}"
        rows.append([row[c] for c in columns])
    db.executemany(f"INSERT INTO threads VALUES ({marks})", rows)
    db.commit()
    db.close()
    return home


def test_indexing_a_state_database_of_thousands_of_threads_holds_little_per_thread(
    tmp_path: Path, monkeypatch
) -> None:
    home = codex_home_of_many_threads(tmp_path)
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    monkeypatch.setenv(
        "SESSDEX_DEBUG", "1"
    )  # one process: its memory is the one traced
    tracemalloc.start()
    try:
        listing = api.list_sessions(Home(home), apps=["codex"])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    ids = {row.id for row in listing.rows}
    assert len(ids) >= THREADS
    assert f"0199{THREADS - 1:04x}-0000-7000-8000-{THREADS - 1:012x}" in ids
    # about 5 KB a thread all told (its record and state are 1 KB each); the encoder's
    # 4 KB working buffer kept with every record encoded made it 50 KB
    assert peak / THREADS < 16 * 1024, f"{peak / THREADS:.0f} bytes per thread"
