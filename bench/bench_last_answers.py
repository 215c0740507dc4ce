"""Listing OpenCode/Kilo and Crush databases: each session's newest message row is looked
up (one index seek a session), since Kilo, Crush and Go OpenCode leave the session row's
stamp before their last answer's end (or a cancelled turn's).

The app's listing parse (what a cold index build runs per database) over --sessions
sessions of --messages messages each (the apps' own tables and indexes, 1 KB of data a
message), (a) as it is vs (b) with that look-up left out; interleaved, medians of
--runs. Target: (a) <= 2 x (b) for each (a few microseconds a session).

    .venv/bin/python bench/bench_last_answers.py [--sessions 5000] [--messages 40]
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from sessdex import databases
from sessdex.diagnostics import Diagnostics
from sessdex.sources import Home, crush, opencode

RATIO = 2.0
DATA = '{"role":"assistant","text":"' + "x" * 1000 + '"}'


def build_opencode(path: Path, sessions: int, messages: int) -> None:
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
    for s in range(sessions):
        sid, start = f"ses_{s:08d}", 1_796_000_000_000 + s * 100_000
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
                    DATA,
                )
                for m in range(messages)
            ),
        )
    db.commit()
    db.close()


def build_crush(path: Path, sessions: int, messages: int) -> None:
    db = sqlite3.connect(path)
    db.executescript(
        "CREATE TABLE sessions (id TEXT PRIMARY KEY, parent_session_id TEXT, title TEXT,"
        " message_count INTEGER, prompt_tokens INTEGER, completion_tokens INTEGER,"
        " cost REAL, created_at INTEGER, updated_at INTEGER, summary_message_id TEXT);"
        "CREATE TABLE messages (id TEXT PRIMARY KEY, session_id TEXT, role TEXT,"
        " parts TEXT, model TEXT, created_at INTEGER, updated_at INTEGER,"
        " finished_at INTEGER);"
        "CREATE INDEX idx_messages_session_id ON messages (session_id);"
        "CREATE INDEX idx_messages_created_at ON messages (created_at);"
    )
    for s in range(sessions):
        sid, start = f"{s:08d}-0000-4000-8000-000000000000", 1_796_000_000 + s * 100
        db.execute(
            "INSERT INTO sessions VALUES (?, NULL, 'a title', ?, 0, 0, 0, ?, ?, NULL)",
            (sid, messages, start, start + messages),
        )
        db.executemany(
            "INSERT INTO messages VALUES (?, ?, 'assistant', ?, 'm', ?, ?, ?)",
            (
                (f"m{s:08d}{m:04d}", sid, DATA, start + m, start + m + 1, start + m + 1)
                for m in range(messages)
            ),
        )
    db.commit()
    db.close()


def parse_crush(path: Path) -> None:
    crush.parse(path, crush.locate(Home.at(path.parent)), Diagnostics())


def parse_opencode(path: Path) -> None:
    opencode.parse_database(path, Diagnostics())


def compare(
    module: ModuleType, parse: Callable[[Path], None], path: Path, runs: int
) -> tuple[float, float]:
    looked_up = module._last_written
    now: list[float] = []
    before: list[float] = []
    try:
        for _ in range(runs):
            for kept, times in ((looked_up, now), (lambda *_: {}, before)):
                module._last_written = kept
                start = time.perf_counter()
                parse(path)
                times.append(time.perf_counter() - start)
                databases.forget_snapshots()
    finally:
        module._last_written = looked_up
    return statistics.median(now), statistics.median(before)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=5000)
    parser.add_argument("--messages", type=int, default=40)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="sessdex-bench-answers-"))
    failed = False
    try:
        for name, module, build, parse in (
            ("opencode", opencode, build_opencode, parse_opencode),
            ("crush", crush, build_crush, parse_crush),
        ):
            path = root / f"{name}.db"
            build(path, args.sessions, args.messages)
            a, b = compare(module, parse, path, args.runs)
            per = (a - b) / args.sessions * 1e6
            print(
                f"{name}: {a * 1000:.1f} ms with the look-up, {b * 1000:.1f} ms without"
            )
            print(
                f"{name}: {per:.1f} us a session, ratio {a / b:.2f} (target <= {RATIO})"
            )
            failed = failed or a / b > RATIO
    finally:
        shutil.rmtree(root)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
