"""CPU of a real `sessdex watch --nl` while an app writes its SQLite database in WAL mode.

The home of bench_watch_refresh.py (`--sessions` idle Claude Code, Codex and Gemini CLI
sessions) plus OpenCode's database of tests/data/opencode, put in WAL mode. Once `watch`
(with file-system notifications) has settled, its CPU is measured over `--seconds` twice:
idle, then while a writer updates one row of an OpenCode session `--rate` times a second,
each in its own transaction, as OpenCode writes a streamed part (every write touches only
the -wal), a prompt typed into that session first. A share of one core, the median of
`--repeats` runs of each. With `--database-sessions N`, the database holds N copies of its
sessions (their messages and parts too, under new ids, as old as the fixture's), as a
long-time OpenCode user's does.

Usage: .venv/bin/python bench/bench_watch_wal.py [--sessions 1000] [--rate 20]
       [--seconds 10] [--repeats 5] [--database-sessions 0]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_watch_refresh import DATA, build, cpu_seconds

DATABASE = Path(".local/share/opencode/opencode.db")


def copy_sessions(database: Path, copies: int) -> None:
    """Each session of `database` copied `copies` times, its rows with it, under new ids."""
    connection = sqlite3.connect(database, isolation_level=None)
    connection.execute("BEGIN")
    for n in range(copies):
        suffix = f"_c{n:05d}"
        for table, keys in (
            ("session", ("id", "parent_id")),
            ("message", ("id", "session_id")),
            ("part", ("id", "message_id", "session_id")),
        ):
            columns = [
                row[1] for row in connection.execute(f"PRAGMA table_info({table})")
            ]
            picked = ", ".join(
                f"{name} || '{suffix}'" if name in keys else name for name in columns
            )
            connection.execute(
                f"INSERT INTO {table} ({', '.join(columns)}) SELECT {picked}"
                f" FROM {table} WHERE id NOT LIKE '%\\_c%' ESCAPE '\\'"
            )
    connection.execute("COMMIT")
    connection.close()


def prepare(home: Path, sessions: int, copies: int = 0) -> Path:
    shutil.copytree(DATA / "gemini" / "home" / ".gemini", home / ".gemini")
    shutil.rmtree(home / ".gemini" / "tmp")
    build(home, sessions)
    source = DATA / "opencode" / "home" / ".local" / "share" / "opencode"
    shutil.copytree(source, home / DATABASE.parent)
    database = home / DATABASE
    if copies:
        copy_sessions(database, copies)
    connection = sqlite3.connect(database)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.close()
    return database


def share(home: Path, database: Path, seconds: float, rate: float) -> float:
    """watch's CPU over `seconds` once settled, a writer at `rate` writes a second (0:
    none)."""
    argv = [sys.executable, "-m", "sessdex", "watch", "--nl", "--home", str(home)]
    argv += ["--since", "100000d", "--limit", "100000", "--duration", "600"]
    out = home.parent / "watch.out"
    with out.open("wb") as sink:
        process = subprocess.Popen(argv, stdout=sink, stderr=subprocess.DEVNULL)
    writer = sqlite3.connect(database, isolation_level=None)
    writer.execute("PRAGMA journal_mode=WAL")
    row_id, data, session_id = writer.execute(
        "SELECT id, data, session_id FROM part LIMIT 1"
    ).fetchone()
    if rate:  # the streamed session is a live one: a prompt was typed into it first
        now_ms = int(time.time() * 1000)
        message = f"msg_bench{now_ms}"
        writer.execute(
            "INSERT INTO message (id, session_id, time_created, time_updated, data)"
            " VALUES (?, ?, ?, ?, ?)",
            (message, session_id, now_ms, now_ms, json.dumps({"role": "user"})),
        )
        writer.execute(
            "UPDATE session SET time_updated = ? WHERE id = ?", (now_ms, session_id)
        )
    try:
        while out.stat().st_size == 0:  # the first board
            time.sleep(0.1)
        time.sleep(5)  # the start settles
        begun, start = cpu_seconds(process.pid), time.monotonic()
        n = 0
        while (elapsed := time.monotonic() - start) < seconds:
            if rate:
                n += 1
                value = json.loads(data) | {"n": n}
                writer.execute("BEGIN")
                writer.execute(
                    "UPDATE part SET data = ?, time_updated = ? WHERE id = ?",
                    (json.dumps(value), int(time.time() * 1000), row_id),
                )
                writer.execute("COMMIT")
                time.sleep(max(0.0, n / rate - elapsed))
            else:
                time.sleep(seconds)
        assert process.poll() is None, "watch ended before the window did"
        return (cpu_seconds(process.pid) - begun) / (time.monotonic() - start)
    finally:
        writer.close()
        process.terminate()
        process.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=20.0)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--database-sessions", type=int, default=0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["SESSDEX_HOME"] = str(Path(tmp) / "state")
        home = Path(tmp) / "home"
        database = prepare(home, args.sessions, args.database_sessions)
        for name, rate in (("idle", 0.0), (f"{args.rate:g} writes/s", args.rate)):
            shares = [
                share(home, database, args.seconds, rate) for _ in range(args.repeats)
            ]
            print(
                f"sessdex watch --nl, {name}: median"
                f" {statistics.median(shares) * 100:.2f} % of a core over"
                f" {args.seconds:g} s (runs: "
                + ", ".join(f"{s * 100:.2f}" for s in sorted(shares))
                + ")",
                flush=True,
            )


if __name__ == "__main__":
    main()
