"""What keying a database-kept session's usage sums on its rows (`usage_marks`) costs: an
OpenCode database of --sessions sessions of --messages messages each (the fixture's
first session copied), this tree against --baseline-src (an older checkout's src/).

CPU time (user + system) of the process, medians of --runs, the trees alternating:
(a) a warm `usage session --json` with nothing changed since the last;
(b) the same after a write to the database that adds no message (the marks read again);
(c) a warm `list --json --all` after such a write (no mark is read by a listing).
Target: (a), (c) within noise; (b) for information (one pass over the message table,
its rows checksummed).

    .venv/bin/python bench/bench_usage_database_rows.py --baseline-src /path/to/old/src
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import ROOT, environment, median, ms, run, sessdex

FIXTURE = ROOT / "tests/data/opencode/home/.local/share/opencode/opencode.db"
SESSION = "ses_dd47cef52ffe38O37iH1Ffe05b"


def build(database: Path, sessions: int, messages: int) -> None:
    database.parent.mkdir(parents=True)
    shutil.copy(FIXTURE, database)
    db = sqlite3.connect(database)
    row = db.execute("SELECT * FROM session WHERE id = ?", (SESSION,)).fetchone()
    rows = db.execute(
        "SELECT * FROM message WHERE session_id = ?", (SESSION,)
    ).fetchall()
    marks = ", ".join("?" * len(row))
    for n in range(sessions):
        session = f"ses_bench{n:07d}"
        db.execute(f"INSERT INTO session VALUES ({marks})", (session, *row[1:]))
        db.executemany(
            "INSERT INTO message VALUES (?, ?, ?, ?, ?)",
            (
                (f"msg_{n:07d}_{k:05d}", session, m[2] + k, m[3] + k, m[4])
                for k in range(messages)
                for m in (rows[k % len(rows)],)
            ),
        )
    db.commit()
    db.close()


def write(database: Path) -> None:
    """A write that adds no message (a session's row saved again)."""
    db = sqlite3.connect(database)
    db.execute("UPDATE session SET title = title || '' WHERE rowid = 1")
    db.commit()
    db.close()
    stamp = database.stat().st_mtime_ns + 1_000_000  # a new mtime, however fast
    os.utime(database, ns=(stamp, stamp))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline-src", type=Path, required=True)
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--messages", type=int, default=100)
    parser.add_argument("--runs", type=int, default=5)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        database = home / ".local/share/opencode/opencode.db"
        build(database, options.sessions, options.messages)
        usage = [*sessdex("usage", "session", "--json"), "--home", str(home)]
        listing = [*sessdex("list", "--json", "--all"), "--home", str(home)]
        trees = {
            "this tree": environment(Path(tmp) / "state-new"),
            "baseline": dict(
                environment(Path(tmp) / "state-old"),
                PYTHONPATH=str(options.baseline_src.resolve()),
            ),
        }
        for env in trees.values():  # the indexes built
            run(usage, env)
            run(listing, env)
        cpu: dict[tuple[str, str], list[float]] = {}
        for n in range(options.runs):
            order = list(trees.items())[:: 1 if n % 2 == 0 else -1]
            for tree, env in order:
                run(usage, env)
                cpu.setdefault(("(a) usage, nothing changed", tree), []).append(
                    run(usage, env).cpu
                )
            write(database)
            for tree, env in order:
                cpu.setdefault(("(b) usage after a write", tree), []).append(
                    run(usage, env).cpu
                )
            write(database)
            for tree, env in order:
                cpu.setdefault(("(c) list after a write", tree), []).append(
                    run(listing, env).cpu
                )
        total = options.sessions * options.messages
        print(
            f"{options.sessions} sessions, {total} messages; CPU medians of {options.runs}:"
        )
        for case in sorted({case for case, _ in cpu}):
            new, old = (median(cpu[case, tree]) for tree in trees)
            print(
                f"  {case}: this tree {ms(new)}, baseline {ms(old)} ({new / old:.2f}x)"
            )


if __name__ == "__main__":
    main()
