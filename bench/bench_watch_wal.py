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

Then, with `--lag-mb` (default 1,200), how late a reader that follows the app as `watch`
and `follow` do (`databases.keep_fresh`, a read every 0.1 s) sees a row the app wrote
after `PRAGMA wal_checkpoint(TRUNCATE)` (its copy of the database file is behind until
patched), for a database of each size: the median of `--lag-repeats` such writes, and the
share of one core the reads took meanwhile. `--repeats 0` runs this part alone.

Usage: .venv/bin/python bench/bench_watch_wal.py [--sessions 1000] [--rate 20]
       [--seconds 10] [--repeats 5] [--database-sessions 0] [--lag-mb 1,200]
       [--lag-repeats 5]
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


ROW = 64 * 1024  # bytes of one row of the lag's database: a part with a tool output


def lag_store(path: Path, megabytes: int) -> sqlite3.Connection:
    """An app's store of `megabytes` in WAL mode that checkpoints only when told."""
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute("CREATE TABLE part (id INTEGER PRIMARY KEY, data BLOB)")
    payload = os.urandom(ROW)
    writer.execute("BEGIN")
    for _ in range(max(1, megabytes * 1024 * 1024 // ROW)):
        writer.execute("INSERT INTO part (data) VALUES (?)", (payload,))
    writer.execute("COMMIT")
    writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return writer


def newest(path: Path) -> tuple[int, float]:
    """The newest row a follower's read sees, and the CPU seconds the read took."""
    from sessdex import databases

    begun = time.thread_time()
    connection = databases.open_sqlite(path)
    try:
        (row,) = connection.execute("SELECT max(id) FROM part").fetchone()
    finally:
        connection.close()
    return row, time.thread_time() - begun


def checkpoint_lag(
    folder: Path, megabytes: int, repeats: int
) -> tuple[list[float], float]:
    """The seconds after each of `repeats` writes, each just after a checkpoint, until a
    read every 0.1 s saw it; the share of one core those reads took."""
    from sessdex import databases

    databases.keep_fresh(1.0)  # as follow does (STORE_SECONDS / 2)
    path = folder / f"store-{megabytes}mb.db"
    writer = lag_store(path, megabytes)
    writer.execute("INSERT INTO part (data) VALUES (x'00')")  # a WAL to copy
    newest(path)  # the first snapshot
    lags: list[float] = []
    cpu, start = 0.0, time.monotonic()
    try:
        for n in range(repeats):
            waited = time.monotonic() + 1.0 + 0.7 * n  # spread over the patch's wait
            while time.monotonic() < waited:
                cpu += newest(path)[1]
                time.sleep(0.1)
            writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            writer.execute("INSERT INTO part (data) VALUES (x'01')")
            (want,) = writer.execute("SELECT max(id) FROM part").fetchone()
            written = time.monotonic()
            while True:
                row, spent = newest(path)
                cpu += spent
                if row == want:
                    break
                time.sleep(0.1)
            lags.append(time.monotonic() - written)
    finally:
        writer.close()
        databases.forget_snapshots()
    return lags, cpu / (time.monotonic() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=20.0)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--database-sessions", type=int, default=0)
    parser.add_argument("--lag-mb", default="1,200")
    parser.add_argument("--lag-repeats", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["SESSDEX_HOME"] = str(Path(tmp) / "state")
        home = Path(tmp) / "home"
        database = (
            home / DATABASE
            if not args.repeats
            else prepare(home, args.sessions, args.database_sessions)
        )
        rates = (("idle", 0.0), (f"{args.rate:g} writes/s", args.rate))
        for name, rate in rates if args.repeats else ():
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
        for megabytes in (int(mb) for mb in args.lag_mb.split(",") if mb):
            lags, used = checkpoint_lag(Path(tmp), megabytes, args.lag_repeats)
            print(
                f"a row written after a checkpoint, {megabytes} MB database: seen"
                f" after a median {statistics.median(lags):.2f} s (runs: "
                + ", ".join(f"{lag:.2f}" for lag in sorted(lags))
                + f"); reads every 0.1 s took {used * 100:.2f} % of a core",
                flush=True,
            )


if __name__ == "__main__":
    main()
