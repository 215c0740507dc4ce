"""What a running app's big SQLite store costs sessdex: bytes written to its cache, and time.

OpenCode and Crush keep every session in one SQLite database in WAL mode, and it grows to GBs.
sessdex reads a live one through a snapshot in its own cache (src/sessdex/databases.py). This
script builds, in a temp dir, a WAL-mode OpenCode database with the fixture's schema
(tests/data/opencode). It holds --db-mb MB (default 500) of sessions of 24 messages with tool
outputs, plus one live session `ses_live`. A writer subprocess keeps it live, and the script
measures whole `sessdex` processes (--runs runs each, median):

(a) a cold `list --json`, with a fresh SESSDEX_HOME each run;
(b) a cold `usage --json`, with a fresh SESSDEX_HOME each run;
(c) a one-shot `watch --json --since 1000w`, on a SESSDEX_HOME that one `list` warmed first;
(d) a `list --json` after the app wrote one row, more than a minute after the last sessdex
    run (databases.BASE_GRACE_SECONDS). App idle only, one run; `--skip d` saves the wait.

(a) to (c) each run twice:
- app idle: it holds a WAL of --wal-mb MB that is not checkpointed, as it does between two
  checkpoints, or longer while a reader holds one back;
- app streaming a reply: it rewrites a growing text part --stream-hz times a second with
  the default autocheckpoint of 1000 pages. Its database file then changes every few seconds.

Bytes written are the child's `wchar` from /proc, less what it wrote to stdout. A child that
has been reaped has its counters added to its parent's, so /proc/self/io before and after
each run gives them. They are reported as a multiple of the database size (file + WAL).
Two baselines are measured in the same run: one `shutil.copyfile` of the database file, and
(a) and (b) with the app closed. With no WAL, sessdex opens the database `immutable=1` and
copies nothing.

Targets, in bytes written as a multiple of the database size:
- (a) cold list <= 1.2x. A snapshot must copy the database file once (1.0x); the WAL and
  the index add a few percent. Anything more is a second copy.
- (b) cold usage <= 1.5x. The same single copy plus the usage cache. usage reads every
  session and must not copy anything per session (the first audit measured 100x).
- (c) watch, app idle <= 0.2x. The database copy made by the warming `list` is reused, so
  a new process copies only the WAL (0.03x with the defaults).
  (c) watch, app streaming <= 1.2x. A checkpoint since the last run changes the file, so
  one new copy can be due, but never more.
- (a) and (b) with the app streaming: the same targets as idle. There should be one copy
  even while the app checkpoints, since a checkpoint only moves pages the WAL copy holds.
- (d) <= 0.2x. An app write changes only the WAL, so the database file must not be copied
  again however long ago the last run was.
- The app's folder: sessdex adds no file to it, and changes none while the app is idle
  (inode, size and mtime compared).
- The live session is listed by (a).

Targets, in wall time: (a) and (b), whether the app is idle or streaming, take at most what
they take with the app closed, plus two copies of the database (the snapshot's cost, with
slack), plus 0.5 s. Everything else a snapshot needs should be cheap: for example, rebuilding
the WAL's index once, not once per session read.

    .venv/bin/python bench/bench_sqlite.py [--db-mb 500] [--wal-mb 16] [--runs 3] [--skip d]
    .venv/bin/python bench/bench_sqlite.py --src /path/to/other/checkout/src   # another build

Takes about 3 minutes at the default size on 2 cores, and about 2 without (d). Needs about
4x --db-mb of free disk. Everything is written to one temp dir, removed at the end, and the
writer subprocess is stopped by its pid.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import ROOT, Report, environment, free_bytes, last_line, mb, median, run

FIXTURE = ROOT / "tests/data/opencode/home/.local/share/opencode/opencode.db"
TABLES = ("project", "session", "message", "part")
LIVE = "ses_live"
TARGETS = {
    "list": 1.2,
    "usage": 1.5,
    "watch-idle": 0.2,
    "watch-stream": 1.2,
    "late": 0.2,
}
LATE_WAIT = 62.0  # seconds: past databases.BASE_GRACE_SECONDS (60)

# The app. `hold WAL_MB`: write rows into ses_live until its WAL holds WAL_MB, checkpoint
# nothing, say "ready", then wait; SIGUSR1 commits one more small row ("wrote").
# `stream HZ PART_KB`: the default autocheckpoint; HZ times a second rewrite the text part
# being streamed (it grows to PART_KB, then a new message starts), as an agent replying does.
WRITER = r"""
import json, os, signal, sqlite3, sys, time
db, mode = sys.argv[1], sys.argv[2]
c = sqlite3.connect(db, isolation_level=None, timeout=30)
c.execute("PRAGMA journal_mode=WAL")
c.execute("PRAGMA synchronous=NORMAL")
SID = "ses_live"
WORDS = ("the retry backoff handler returns a value from the cache when the request "
         "times out and the server answers with an error ").split()
n = [0]
def message(t):
    n[0] += 1
    mid = f"msg_live_{os.getpid()}_{n[0]:07d}"
    data = {"role": "assistant", "time": {"created": t}, "modelID": "claude-sonnet-4-5",
            "providerID": "anthropic", "tokens": {"input": 10, "output": 10, "reasoning": 0,
            "cache": {"read": 0, "write": 0}}, "cost": 0.0}
    c.execute("INSERT INTO message VALUES (?,?,?,?,?)", (mid, SID, t, t, json.dumps(data)))
    return mid
def part(mid, t, text, k=0):
    pid = f"prt_{mid}_{k}"
    c.execute("INSERT OR REPLACE INTO part VALUES (?,?,?,?,?,?)",
              (pid, mid, SID, t, t, json.dumps({"type": "text", "text": text})))
    c.execute("UPDATE session SET time_updated=? WHERE id=?", (t, SID))
if mode == "hold":
    c.execute("PRAGMA wal_autocheckpoint=0")
    target = int(sys.argv[3]) * 1024 * 1024
    while not os.path.exists(db + "-wal") or os.path.getsize(db + "-wal") < target:
        c.execute("BEGIN")
        for _ in range(16):
            t = int(time.time() * 1000)
            part(message(t), t, " ".join(WORDS) * 700)
        c.execute("COMMIT")
    wanted = []
    signal.signal(signal.SIGUSR1, lambda *_: wanted.append(1))
    print("ready", flush=True)
    while True:
        time.sleep(0.05)
        if wanted:
            wanted.clear()
            t = int(time.time() * 1000)
            c.execute("BEGIN"); part(message(t), t, "one more row"); c.execute("COMMIT")
            print("wrote", flush=True)
else:
    hz, part_kb = float(sys.argv[3]), int(sys.argv[4])
    step = " ".join(WORDS)
    print("ready", flush=True)
    text, mid = "", None
    while True:
        t = int(time.time() * 1000)
        c.execute("BEGIN")
        if mid is None or len(text) >= part_kb * 1024:
            mid, text = message(t), ""
        text += step
        part(mid, t, text)
        c.execute("COMMIT")
        time.sleep(1 / hz)
"""


# -- the database -----------------------------------------------------------------------


def build(db: Path, megabytes: int, seed: int) -> int:
    """An OpenCode database of about `megabytes`, WAL mode, checkpointed; its sessions."""
    rng = random.Random(seed)
    words = ("the", "of", "retry", "checkout", "backoff", "function", "error", "test",
             "file", "path", "import", "class", "return", "value", "config", "server",
             "client", "request", "response", "handler", "database", "query", "index")  # fmt: skip
    block = " ".join(rng.choice(words) for _ in range(200_000))

    def chunk(n: int) -> str:
        i = rng.randrange(0, len(block) - n)
        return block[i : i + n]

    source = sqlite3.connect(f"file:{FIXTURE}?immutable=1", uri=True)
    ddl = [
        sql
        for (sql,) in source.execute(
            "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND tbl_name IN "
            f"({', '.join('?' * len(TABLES))}) ORDER BY type DESC",  # tables, then indexes
            TABLES,
        )
    ]
    project = source.execute("SELECT * FROM project LIMIT 1").fetchone()
    source.close()
    out = sqlite3.connect(db)
    out.execute("PRAGMA journal_mode=OFF")
    out.execute("PRAGMA synchronous=OFF")
    for sql in ddl:
        out.execute(sql)
    out.execute(
        f"INSERT INTO project VALUES ({', '.join('?' * len(project))})", project
    )
    project_id, tool_bytes = project[0], 32_000
    per_session = 12 * tool_bytes + 24 * tool_bytes // 8 + 24 * 600
    sessions = max(1, megabytes * 1_000_000 // per_session)
    t = 1_760_000_000_000
    columns = "id, project_id, slug, directory, title, version, agent, model, time_created, time_updated"
    for i in range(sessions + 1):
        sid = LIVE if i == sessions else f"ses_{i:06d}"
        out.execute(
            f"INSERT INTO session ({columns}) VALUES (?,?,?,?,?,?,?,?,?,?)",
            (
                sid,
                project_id,
                "slug",
                f"/home/u/code/app{i % 7}",
                f"Session {i} {chunk(40)}",
                "1.18.33",
                "build",
                '{"id":"claude-sonnet-4-5","providerID":"anthropic","variant":"default"}',
                t,
                t + 24_000,
            ),
        )
        messages, parts = [], []
        for m in range(24 if sid != LIVE else 2):
            t += 1000
            mid = f"msg_{sid}_{m:03d}"
            data: dict[str, Any] = {"role": "user" if m % 2 == 0 else "assistant"}
            data["time"] = {"created": t, "completed": t + 500}
            texts: list[dict[str, Any]] = [
                {"type": "text", "text": chunk(tool_bytes // 8)}
            ]
            if m % 2:
                tokens: dict[str, Any] = {
                    "total": 0,
                    "input": 1200,
                    "output": 300,
                    "reasoning": 10,
                }
                tokens["cache"] = {"write": 100, "read": 9000}
                data.update(
                    modelID="claude-sonnet-4-5",
                    providerID="anthropic",
                    finish="stop" if m == 23 else "tool-calls",
                    tokens=tokens,
                    cost=0.01,
                )
                state: dict[str, Any] = {
                    "status": "completed",
                    "input": {"command": "make test"},
                }
                state.update(output=chunk(tool_bytes), time={"start": t, "end": t + 90})
                texts.append(
                    {"type": "tool", "tool": "bash", "callID": f"c{m}", "state": state}
                )
                texts.append(
                    {"type": "step-finish", "reason": "stop", "tokens": tokens}
                )
            messages.append((mid, sid, t, t, json.dumps(data)))
            parts += [
                (f"prt_{mid}_{k}", mid, sid, t, t, json.dumps(p))
                for k, p in enumerate(texts)
            ]
        out.executemany("INSERT INTO message VALUES (?,?,?,?,?)", messages)
        out.executemany("INSERT INTO part VALUES (?,?,?,?,?,?)", parts)
        if i % 100 == 0:
            out.commit()
    out.commit()
    out.execute("PRAGMA journal_mode=WAL")
    out.close()
    return sessions


class App:
    """The writer subprocess; stop() ends it by its pid."""

    def __init__(self, db: Path, *args: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(db), *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.expect("ready", 300)

    def expect(self, word: str, timeout: float) -> None:
        found: list[str] = []
        reader = threading.Thread(
            target=lambda: found.append(self.process.stdout.readline().strip()),  # type: ignore[union-attr]
            daemon=True,
        )
        reader.start()
        reader.join(timeout)
        if found != [word]:
            self.stop()
            error = self.process.stderr.read() if self.process.stderr else ""
            raise RuntimeError(f"the app writer did not say {word!r}: {error[-300:]}")

    def write_one_row(self) -> None:
        os.kill(self.process.pid, signal.SIGUSR1)
        self.expect("wrote", 30)

    def stop(self) -> None:
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                os.kill(self.process.pid, signal.SIGKILL)
                self.process.wait()


class Changes:
    """Counts how often the app's database file changes (each checkpoint), in a thread."""

    def __init__(self, db: Path) -> None:
        self.db, self.count, self.running = db, 0, True
        self.thread = threading.Thread(target=self._watch, daemon=True)
        self.thread.start()

    def _watch(self) -> None:
        last = self.db.stat().st_mtime_ns
        while self.running:
            time.sleep(0.1)
            now = self.db.stat().st_mtime_ns
            if now != last:
                self.count, last = self.count + 1, now

    def stop(self) -> int:
        self.running = False
        self.thread.join()
        return self.count


# -- measuring --------------------------------------------------------------------------


def written() -> int:
    """This process's wchar, which includes every reaped child's."""
    with open("/proc/self/io") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("wchar"))


def folder_state(folder: Path) -> dict[str, tuple[int, int, int]]:
    state = {}
    for entry in sorted(folder.iterdir()):
        st = entry.stat()
        state[entry.name] = (st.st_ino, st.st_size, st.st_mtime_ns)
    return state


def disk_usage(folder: Path) -> int:
    """Bytes the files under `folder` hold on disk, each hard-linked file once."""
    seen, total = set(), 0
    for base, _, names in os.walk(folder):
        for name in names:
            with contextlib.suppress(OSError):
                st = os.lstat(os.path.join(base, name))
                if (st.st_dev, st.st_ino) not in seen:
                    seen.add((st.st_dev, st.st_ino))
                    total += st.st_blocks * 512
    return total


class Bench:
    def __init__(self, args: argparse.Namespace, work: Path, report: Report) -> None:
        self.args, self.work, self.report = args, work, report
        self.home = work / "home"
        self.folder = self.home / ".local/share/opencode"
        self.db = self.folder / "opencode.db"
        self.states = 0
        self.copy_seconds = 0.0
        self.closed: dict[str, float] = {}  # command -> median wall time, app closed

    def env(self, state: Path) -> dict[str, str]:
        env = environment(state)
        if self.args.src:
            env["PYTHONPATH"] = str(self.args.src)
        return env

    def fresh_state(self) -> Path:
        self.states += 1
        return self.work / f"state-{self.states}"

    def cold_runs(self, runs: int, *argv: str) -> list[dict[str, Any]]:
        """`runs` runs of one command, each with a state folder of its own, removed after."""
        found = []
        for _ in range(runs):
            state = self.fresh_state()
            found.append(self.sessdex(state, *argv))
            shutil.rmtree(state, ignore_errors=True)
        return found

    def size(self) -> int:
        wal = Path(str(self.db) + "-wal")
        return self.db.stat().st_size + (wal.stat().st_size if wal.exists() else 0)

    def sessdex(self, state: Path, *argv: str) -> dict[str, Any]:
        """One measured sessdex run: seconds, bytes written, peak RSS, stdout, problem."""
        command = [sys.executable, "-m", "sessdex", *argv, "--home", str(self.home)]
        before = written()
        result = run(command, self.env(state), keep_stdout=True, measure_rss=True)
        wrote = written() - before - len(result.stdout)
        problem = "" if result.returncode == 0 else last_line(result.stderr) or "failed"
        if not problem and "cannot open" in result.stderr:
            problem = last_line(result.stderr)
        return {
            "seconds": result.seconds,
            "written": wrote,
            "rss": result.peak_rss,
            "stdout": result.stdout,
            "problem": problem,
            "cache": disk_usage(state),
        }

    def summarize(
        self,
        label: str,
        runs: list[dict[str, Any]],
        target: float,
        size: int,
        command: str = "",
    ) -> None:
        if not runs:
            self.report.check(label, False, "did not run")
            return
        ratios = [r["written"] / size for r in runs]
        seconds = median([r["seconds"] for r in runs])
        self.report.note(
            f"  {label}: written median {mb(median([r['written'] for r in runs]))} "
            f"= {median(ratios):.2f}x the database (runs {', '.join(f'{x:.2f}x' for x in ratios)}); "
            f"wall median {seconds:.2f} s = {seconds / self.copy_seconds:.1f}x the copy; "
            f"peak RSS {mb(max(r['rss'] for r in runs))}; cache after {mb(max(r['cache'] for r in runs))}"
        )
        problems = [r["problem"] for r in runs if r["problem"]]
        for problem in problems[:2]:
            self.report.note(f"    problem: {problem}")
        if command in self.closed:
            limit = self.closed[command] + 2 * self.copy_seconds + 0.5
            self.report.check(
                f"{label} wall <= app closed + 2 copies + 0.5 s",
                seconds <= limit,
                f"{seconds:.2f} s vs {limit:.2f} s (closed {self.closed[command]:.2f} s)",
            )
        self.report.check(
            f"{label} writes <= {target}x the database",
            median(ratios) <= target and not problems,
            f"{median(ratios):.2f}x"
            + (
                f"; {len(problems)} of {len(runs)} runs had a problem"
                if problems
                else ""
            ),
        )

    def closed_app(self) -> None:
        """(a) and (b) with no WAL: the baselines for their wall time."""
        self.report.note("\napp closed (no WAL; the database is read in place):")
        for command, part in (("list", "a"), ("usage", "b")):
            if part in self.args.skip:
                continue
            runs = []
            for _ in range(self.args.runs):
                state = self.fresh_state()
                runs.append(self.sessdex(state, command, "--json"))
                shutil.rmtree(state, ignore_errors=True)
            self.closed[command] = median([r["seconds"] for r in runs])
            self.report.note(
                f"  ({part}) cold {command}: wall median {self.closed[command]:.2f} s, "
                f"written median {mb(median([r['written'] for r in runs]))}"
            )

    def phase(self, streaming: bool) -> None:
        args, report = self.args, self.report
        kind = "streaming" if streaming else "idle"
        report.note(f"\napp {kind}:")
        before = set(p.name for p in self.folder.iterdir())
        app = (
            App(self.db, "stream", str(args.stream_hz), str(args.stream_part_kb))
            if streaming
            else App(self.db, "hold", str(args.wal_mb))
        )
        changes = Changes(self.db)
        try:
            if streaming:
                time.sleep(2)  # the first checkpoint
            names = set(p.name for p in self.folder.iterdir())
            state_before = folder_state(self.folder)
            size = self.size()
            report.note(f"  database {size / 1e6:.0f} MB with its WAL")
            if "a" not in args.skip:
                runs = self.cold_runs(args.runs, "list", "--json")
                self.summarize(
                    f"(a) cold list, app {kind}", runs, TARGETS["list"], size, "list"
                )
                listed = [self._live_lag(r["stdout"]) for r in runs]
                report.check(
                    f"(a) the live session is listed, app {kind}",
                    all(lag is not None for lag in listed),
                    "its newest update "
                    + ", ".join(
                        "missing" if x is None else f"{x:.1f} s old" for x in listed
                    ),
                )
            if "b" not in args.skip:
                runs = self.cold_runs(args.runs, "usage", "--json")
                self.summarize(
                    f"(b) cold usage, app {kind}", runs, TARGETS["usage"], size, "usage"
                )
            if "c" not in args.skip:
                state = self.fresh_state()
                self.sessdex(state, "list", "--json")  # the index and the copy, warm
                runs = [
                    self.sessdex(state, "watch", "--json", "--since", "1000w")
                    for _ in range(args.runs)
                ]
                shutil.rmtree(state, ignore_errors=True)
                self.summarize(
                    f"(c) watch --json, app {kind}",
                    runs,
                    TARGETS["watch-stream" if streaming else "watch-idle"],
                    size,
                )
            if not streaming and "d" not in args.skip:
                state = self.fresh_state()
                self.sessdex(state, "list", "--json")
                report.note(
                    f"  (d) waiting {LATE_WAIT:.0f} s, then the app writes one row ..."
                )
                time.sleep(LATE_WAIT)
                unchanged = folder_state(self.folder) == state_before
                app.write_one_row()
                runs = [self.sessdex(state, "list", "--json")]
                shutil.rmtree(state, ignore_errors=True)
                self.summarize(
                    "(d) list after one app write, a minute on",
                    runs,
                    TARGETS["late"],
                    size,
                )
            else:
                unchanged = folder_state(self.folder) == state_before
        finally:
            checkpoints = changes.stop()
            app.stop()
        after = set(p.name for p in self.folder.iterdir())
        if streaming:
            report.note(
                f"  the app's database file changed {checkpoints} times meanwhile"
            )
            ok = after <= names | before
            detail = (
                "no file added" if ok else f"added: {sorted(after - names - before)}"
            )
        else:
            ok = unchanged and after == names
            detail = (
                "no file added or changed"
                if ok
                else "changed: "
                + ", ".join(sorted(after ^ names) or ["a file's inode, size or mtime"])
            )
        report.check(f"the app's folder untouched, app {kind}", ok, detail)

    @staticmethod
    def _live_lag(stdout: bytes) -> float | None:
        from datetime import datetime

        try:
            rows = json.loads(stdout)
        except ValueError:
            return None
        for row in rows:
            if row.get("id") == LIVE and row.get("updated"):
                updated = datetime.fromisoformat(row["updated"].replace("Z", "+00:00"))
                return max(0.0, time.time() - updated.timestamp())
        return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db-mb", type=int, default=500, help="size of the database")
    parser.add_argument(
        "--wal-mb", type=int, default=16, help="the WAL the idle app holds"
    )
    parser.add_argument(
        "--stream-hz", type=float, default=20.0, help="commits a second"
    )
    parser.add_argument(
        "--stream-part-kb", type=int, default=16, help="a streamed part grows to this"
    )
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--skip", default="", help="comma-separated parts to skip: a,b,c,d,stream"
    )
    parser.add_argument(
        "--src",
        type=Path,
        help="the sessdex source to measure (default: this checkout's src)",
    )
    parser.add_argument("--tmp", type=Path, default=Path(tempfile.gettempdir()))
    args = parser.parse_args()
    args.skip = set(args.skip.split(",")) - {""}
    report = Report()
    source = args.src or ROOT / "src"
    report.note(f"sessdex from {source}")
    need = args.db_mb * 1_000_000 * 4 + 512 * 1024 * 1024
    if free_bytes(args.tmp) < need:
        report.check(
            "ran", None, f"skipped: needs {need / 1e9:.1f} GB free in {args.tmp}"
        )
        return report.summary()
    work = Path(tempfile.mkdtemp(prefix="sessdex-bench-sqlite-", dir=args.tmp))
    try:
        bench = Bench(args, work, report)
        bench.folder.mkdir(parents=True)
        # compile sessdex's bytecode now, or the first measured run would write it
        run([sys.executable, "-m", "sessdex", "--version"], bench.env(work / "state-0"))
        started = time.perf_counter()
        sessions = build(bench.db, args.db_mb, args.seed)
        report.note(
            f"built {bench.db.stat().st_size / 1e6:.0f} MB, {sessions} sessions of 24 "
            f"messages, in {time.perf_counter() - started:.0f} s"
        )
        copies = []
        for _ in range(args.runs):
            started = time.perf_counter()
            shutil.copyfile(bench.db, work / "baseline-copy")
            copies.append(time.perf_counter() - started)
            os.unlink(work / "baseline-copy")
        bench.copy_seconds = median(copies)
        report.note(
            f"baseline: one copy of the database file, median {bench.copy_seconds:.2f} s"
        )
        bench.closed_app()
        bench.phase(streaming=False)
        if "stream" not in args.skip:
            bench.phase(streaming=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return report.summary()


if __name__ == "__main__":
    sys.exit(main())
