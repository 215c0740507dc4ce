"""What reading a running app's SQLite database costs, once it has been read before.

A database with a `-wal` file is read from a snapshot in sessdex's cache (databases.py).
This builds a --db-mb MB database in WAL mode (OpenCode's and Codex's stores grow to
hundreds of MB), then measures, in the same process and --runs times each:

- baseline: copying the database file once (what every snapshot cost before);
- a first open (the database and its WAL are copied);
- an open after the app appended one row to its WAL (only what it appended is copied).

The process follows the app as `watch` does (`databases.keep_fresh`): a one-shot command
reads one snapshot for its whole run.

Then what the next one-shot run pays (a new process each time, after the app appended a
row, as a warm `sessdex list` while the app runs): with the copy of the database file kept
from the run before (only the WAL copied); for a database whose login is in a table of its
own (`login=("account",)`: the copy kept has that table's pages blanked, the WAL's copy
goes at exit); and where every copy goes at exit (`login=True`: copied whole each run).

Target: the open after an append takes at most 0.1x the baseline copy, and sees the row.

    .venv/bin/python bench/bench_snapshot.py [--db-mb 300] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import Report, median, ms

ROW = 64 * 1024  # bytes of one row: a part with a tool output


def build(db: Path, megabytes: int) -> sqlite3.Connection:
    writer = sqlite3.connect(db)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")  # the app checkpoints when it likes
    writer.execute("CREATE TABLE part (id INTEGER PRIMARY KEY, data BLOB)")
    writer.execute("CREATE TABLE account (id TEXT PRIMARY KEY, access_token TEXT)")
    writer.execute("INSERT INTO account VALUES ('a', 'secret-token')")
    payload = os.urandom(ROW)
    for _ in range(megabytes * 1024 * 1024 // ROW):
        writer.execute("INSERT INTO part (data) VALUES (?)", (payload,))
    writer.commit()
    writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    writer.execute("INSERT INTO part (data) VALUES (?)", (b"in the wal",))
    writer.commit()
    return writer


def timed_open(db: Path) -> tuple[float, int]:
    from sessdex import databases

    started = time.perf_counter()
    connection = databases.open_sqlite(db)
    try:
        count = connection.execute("SELECT count(*) FROM part").fetchone()[0]
    finally:
        connection.close()
    return time.perf_counter() - started, count


# a one-shot run of its own: open the database once, read it, end (its exit included)
_LOGINS: dict[str, bool | tuple[str, ...]] = {  # what _NEXT_RUN passes
    "kept": False,
    "blanked": ("account",),
    "run-only": True,
}
_NEXT_RUN = (
    "import sys, time; from sessdex import databases; t = time.perf_counter(); "
    "login = {'kept': False, 'blanked': ('account',), 'run-only': True}[sys.argv[2]]; "
    "c = databases.open_sqlite(sys.argv[1], login=login); "
    "n = c.execute('SELECT count(*) FROM part').fetchone()[0]; c.close(); "
    "databases.drop_login_copies(); print(n, time.perf_counter() - t)"
)


def next_run(db: Path, login: str) -> tuple[float, int]:
    """The seconds a new process spends opening and reading the database (and removing
    its copies, for a login), Python's start left out; the rows it counted."""
    out = subprocess.run(
        [sys.executable, "-c", _NEXT_RUN, str(db), login],
        check=True,
        capture_output=True,
        env=os.environ,
    ).stdout.split()
    return float(out[1]), int(out[0])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db-mb", type=int, default=300)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    report = Report()
    work = Path(tempfile.mkdtemp(prefix="sessdex-bench-snapshot-"))
    os.environ["SESSDEX_HOME"] = str(work / "state")
    from sessdex import databases

    databases.keep_fresh(0.0)  # every open sees every write, as in `watch`
    try:
        app = work / "app"
        app.mkdir()
        db = app / "opencode.db"
        writer = build(db, args.db_mb)
        size = db.stat().st_size
        report.note(f"database: {size / 1e6:.0f} MB in WAL mode, one row in its WAL")
        copies, firsts, appended = [], [], []
        for n in range(args.runs):
            started = time.perf_counter()
            shutil.copyfile(db, work / "baseline-copy")
            copies.append(time.perf_counter() - started)
            os.remove(work / "baseline-copy")
            databases.forget_snapshots()
            shutil.rmtree(work / "state", ignore_errors=True)  # no snapshot yet
            seconds, _ = timed_open(db)
            firsts.append(seconds)
            writer.execute("INSERT INTO part (data) VALUES (?)", (b"appended",))
            writer.commit()
            seconds, count = timed_open(db)
            appended.append(seconds)
            expected = writer.execute("SELECT count(*) FROM part").fetchone()[0]
            if count != expected:
                report.check("the appended row is seen", False, f"run {n}")
        # this process's own snapshot would keep the copy alive (a process that still
        # runs shares it): gone, as after a one-shot command
        databases.forget_snapshots()
        shutil.rmtree(work / "state", ignore_errors=True)
        runs: dict[str, list[float]] = {login: [] for login in _LOGINS}
        for login in _LOGINS:
            next_run(db, login)  # the run before: copies made, kept or not
            for n in range(args.runs):
                writer.execute("INSERT INTO part (data) VALUES (?)", (b"next run",))
                writer.commit()
                seconds, count = next_run(db, login)
                runs[login].append(seconds)
                expected = writer.execute("SELECT count(*) FROM part").fetchone()[0]
                if count != expected:
                    report.check("the next run sees the new row", False, f"run {n}")
        writer.close()
        copy, first, after = median(copies), median(firsts), median(appended)
        report.note(f"  baseline copy of the database: median {ms(copy)}")
        report.note(f"  first open (database and WAL copied): median {ms(first)}")
        report.note(
            f"  open after an append (what it appended copied): median {ms(after)}"
        )
        kept, blanked = median(runs["kept"]), median(runs["blanked"])
        report.note(f"  next run, the database's copy kept: median {ms(kept)}")
        report.note(f"  next run, kept with its login blanked: median {ms(blanked)}")
        report.note(f"  next run, no copy kept: median {ms(median(runs['run-only']))}")
        report.check(
            "open after an append <= 0.1x a full copy",
            after <= 0.1 * copy,
            f"{after / copy:.3f}x ({ms(after)} vs {ms(copy)})",
        )
        report.check(
            "next run with the login blanked <= 0.1x a full copy",
            blanked <= 0.1 * copy,
            f"{blanked / copy:.3f}x ({ms(blanked)} vs {ms(copy)})",
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return report.summary()


if __name__ == "__main__":
    sys.exit(main())
