"""Listing an OpenCode/Kilo database: each session's newest message row is looked up
(one index seek), since the Kilo CLI stamps a session's row before its last answer ends.

`opencode.parse_database` (what a cold index build runs per database) over --sessions
sessions of --messages messages each (OpenCode's tables and index, 1 KB of data a
message), (a) as it is vs (b) with that look-up left out; interleaved, medians of
--runs. Target: (a) <= 2 x (b) (a few microseconds a session).

    .venv/bin/python bench/bench_opencode_answers.py [--sessions 5000] [--messages 40]
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from sessdex import databases
from sessdex.diagnostics import Diagnostics
from sessdex.sources import opencode

RATIO = 2.0


def build(path: Path, sessions: int, messages: int) -> None:
    db = sqlite3.connect(path)
    db.executescript(
        "CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT, parent_id TEXT,"
        " slug TEXT, directory TEXT, title TEXT, version TEXT, time_created INTEGER,"
        " time_updated INTEGER);"
        "CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER,"
        " time_updated INTEGER, data TEXT);"
        "CREATE INDEX message_session_time_created_id_idx"
        " ON message (session_id, time_created, id);"
    )
    data = '{"role":"assistant","text":"' + "x" * 1000 + '"}'
    for s in range(sessions):
        sid = f"ses_{s:08d}"
        start = 1_796_000_000_000 + s * 100_000
        db.execute(
            "INSERT INTO session VALUES (?, 'p', NULL, ?, '/w', 'a title', '1.0', ?, ?)",
            (sid, sid, start, start + messages * 1000),
        )
        db.executemany(
            "INSERT INTO message VALUES (?, ?, ?, ?, ?)",
            (
                (
                    f"msg_{s:08d}_{m:04d}",
                    sid,
                    start + m * 1000,
                    start + m * 1000 + 900,
                    data,
                )
                for m in range(messages)
            ),
        )
    db.commit()
    db.close()


def once(path: Path) -> float:
    start = time.perf_counter()
    opencode.parse_database(path, Diagnostics())
    elapsed = time.perf_counter() - start
    databases.forget_snapshots()
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=5000)
    parser.add_argument("--messages", type=int, default=40)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="sessdex-bench-opencode-"))
    looked_up = opencode._last_written
    now: list[float] = []
    before: list[float] = []
    try:
        path = root / "opencode.db"
        build(path, args.sessions, args.messages)
        for _ in range(args.runs):
            opencode._last_written = looked_up  # type: ignore[assignment]
            now.append(once(path))
            opencode._last_written = lambda *_: {}  # type: ignore[assignment]
            before.append(once(path))
    finally:
        opencode._last_written = looked_up  # type: ignore[assignment]
        shutil.rmtree(root)
    a, b = statistics.median(now), statistics.median(before)
    print(f"{args.sessions} sessions, newest message looked up: {a * 1000:.1f} ms")
    print(f"{args.sessions} sessions, session rows only:       {b * 1000:.1f} ms")
    print(f"{(a - b) / args.sessions * 1e6:.1f} us a session")
    print(f"ratio {a / b:.2f} (target <= {RATIO})")
    return 0 if a / b <= RATIO else 1


if __name__ == "__main__":
    raise SystemExit(main())
