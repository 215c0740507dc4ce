"""CPU of the mark `watch` takes of a shared database before it lists its app's sessions
again (`databases.rows_mark`), at most once a second while the app writes: with the
tables the app's listing shows checksummed (`LISTED_TABLES`) and without, in process.

OpenCode's database of tests/data/opencode with its sessions copied (`--copies`; the
fixture holds 4, so 62 copies give 252 sessions, with their messages and parts), in WAL
mode. Medians of `--repeats` marks of each kind, alternating, as ms of CPU and as a share
of a core at one mark a second.

Usage: .venv/bin/python bench/bench_rows_mark.py [--copies 62] [--repeats 200]
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_watch_wal import DATABASE, copy_sessions

from sessdex import databases
from sessdex.sources import opencode

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "opencode" / "home"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=62)
    parser.add_argument("--repeats", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        shutil.copytree(DATA, home)
        database = home / DATABASE
        copy_sessions(database, args.copies)
        writer = sqlite3.connect(database, isolation_level=None)
        writer.execute("PRAGMA journal_mode=WAL")
        writer.execute("UPDATE part SET time_updated = time_updated + 1")
        (sessions,) = writer.execute("SELECT count(*) FROM session").fetchone()
        (parts,) = writer.execute("SELECT count(*) FROM part").fetchone()
        listed = opencode.LISTED_TABLES
        databases.rows_mark(database)  # the snapshot taken once, outside the timing
        times: dict[str, list[float]] = {"rows only": [], "listed rows checksummed": []}
        for _ in range(args.repeats):
            for name, tables in (
                ("rows only", {}),
                ("listed rows checksummed", listed),
            ):
                begun = time.process_time()
                databases.rows_mark(database, tables)
                times[name].append(time.process_time() - begun)
        writer.close()
    print(f"{sessions} sessions, {parts} parts; medians of {args.repeats}:")
    for name, spent in times.items():
        median = statistics.median(spent)
        print(
            f"  rows_mark, {name}: {median * 1000:.2f} ms of CPU"
            f" ({median * 100:.3f} % of a core at one a second)"
        )


if __name__ == "__main__":
    main()
