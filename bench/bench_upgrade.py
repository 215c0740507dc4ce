"""The first `usage daily --json` and `list --json` after an upgrade that changed one
app's reader (Codex's), in a home of Claude Code and Codex sessions: this tree against
another (`--baseline-src`, an older checkout's src/), each upgraded the same way.

Each run: a fresh state; the older build (a copy of the tree) runs `usage` and `list`
once (its index made); the newer build (another copy, `sources/codex.py` changed, so its
own index name) runs the timed command. The homes are bench_scale.py's. Each figure is
the median of --runs whole-process runs (wall and CPU time). The newer build's output
must be a cold run's (a cost's last digit aside: `bench_usage_cold.same_rows`).

Target: this tree's first `usage` after a one-reader upgrade at most 0.7x the baseline's
CPU time.

With --held N, instead: how long the copy keeps another sessdex from writing the new
index, from an older index of N sessions (the home's rows, copied under other names
until there are N): a probe begins a write transaction on the new index over and over
while the newer build makes it, and the longest wait is said (another sessdex gives
up after `indexdb.BUSY_TIMEOUT_MS`, 15 s), with the whole making's time.

    .venv/bin/python bench/bench_upgrade.py --baseline-src /path/to/old/src
    .venv/bin/python bench/bench_upgrade.py --baseline-src src --held 200000 --runs 1
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import sys
import tempfile
import threading
import time
from pathlib import Path

from _common import ROOT, Report, environment, median, run, sessdex
from bench_scale import DEFAULT_ROOT, ensure_home
from bench_usage_cold import same_rows


def builds(src: Path, scratch: Path, tree: str) -> tuple[Path, Path]:
    """Two builds of the tree at `src`: as it is, and with Codex's reader changed."""
    older, newer = scratch / f"{tree}-older", scratch / f"{tree}-newer"
    for copy in (older, newer):
        shutil.copytree(src, copy, ignore=shutil.ignore_patterns("__pycache__"))
    with open(newer / "sessdex" / "sources" / "codex.py", "a") as file:
        file.write("\n# a fix\n")
    return older, newer


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline-src", type=Path, required=True)
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT)
    parser.add_argument("--sessions", type=int, default=1000, help="home size")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--held", type=int, help="the write lock, N older sessions")
    args = parser.parse_args()
    report = Report()
    home = ensure_home(args.root / f"s{args.sessions}", args.sessions)["home"]
    if args.held:
        return held(report, home, args.held, args.runs)
    commands = {
        "usage": sessdex("usage", "daily", "--json", "--home", home),
        "list": sessdex("list", "--json", "--home", home, "-n", "100000"),
    }
    with tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder)
        trees = {
            "new": builds(ROOT / "src", scratch, "new"),
            "old": builds(args.baseline_src.resolve(), scratch, "old"),
        }
        for name, argv in commands.items():
            cpu: dict[str, list[float]] = {"new": [], "old": []}
            wall: dict[str, list[float]] = {"new": [], "old": []}
            outputs: list[bytes] = []
            for n in range(args.runs):
                for tree, (older, newer) in trees.items():
                    state = scratch / f"state-{tree}{n}"
                    for build in (older, newer):
                        env = environment(state)
                        env["PYTHONPATH"] = str(build)
                        if build == older:  # its index made, as a user's is
                            for each in commands.values():
                                run(each, env)
                            continue
                        result = run(argv, env, keep_stdout=True)
                        if result.returncode:
                            raise SystemExit(f"{tree} failed: {result.stderr[-500:]}")
                        cpu[tree].append(result.cpu)
                        wall[tree].append(result.seconds)
                        outputs.append(result.stdout)
                    shutil.rmtree(state, ignore_errors=True)
            cold_env = environment(scratch / "state-cold")
            cold_env["PYTHONPATH"] = str(trees["new"][1])
            cold = run(argv, cold_env, keep_stdout=True).stdout
            shutil.rmtree(scratch / "state-cold", ignore_errors=True)
            new_c, old_c = median(cpu["new"]), median(cpu["old"])
            report.note(
                f"{args.sessions:>6} first {name} after a Codex-reader upgrade: "
                f"{median(wall['new']):6.2f} s cpu {new_c:6.2f} s  baseline "
                f"{median(wall['old']):6.2f} s cpu {old_c:6.2f} s  x{new_c / old_c:4.2f} cpu"
            )
            report.check(
                f"{name}: the same output as a cold run",
                all(same_rows(cold, output) for output in outputs),
                f"{len({cold, *outputs})} distinct outputs",
            )
            if name == "usage":
                report.check(
                    "usage CPU time <= 0.7x the baseline's",
                    new_c <= old_c * 0.7,
                    f"{new_c:.2f} s vs {old_c:.2f} s: {new_c / old_c:.3f}x",
                )
    return report.summary()


# the keys made unique in each copy of a row, by table (the others: one row an app)
_KEYS = {
    "files": ("path",),
    "fragments": ("path", "id"),
    "sessions": ("id",),
    "usage_files": ("path",),
    "scan_paths": ("path",),
    "depends": ("path",),
    "contexts": ("path",),
}


def inflate(index: Path, sessions: int) -> int:
    """Copy the rows of `index` under other names until it holds `sessions` sessions."""
    with sqlite3.connect(index) as db:
        have = db.execute("SELECT count(*) FROM sessions").fetchone()[0]
        copies = max(1, -(-sessions // have))
        for table, keys in _KEYS.items():
            columns = [row[1] for row in db.execute(f"PRAGMA table_info({table})")]
            chosen = ", ".join(f"{c} || '#' || n" if c in keys else c for c in columns)
            db.execute(
                f"WITH RECURSIVE k(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM k "
                f"WHERE n < {copies - 1}) INSERT INTO {table} ({', '.join(columns)}) "
                f"SELECT {chosen} FROM {table}, k"
            )
        total = db.execute("SELECT count(*) FROM sessions").fetchone()[0]
    db.close()
    return int(total)


def probe(
    folder: Path, known: set[Path], done: threading.Event, waits: list[float]
) -> None:
    """The waits of write transactions begun on the new index while it is made."""
    new = None
    while new is None and not done.is_set():
        found = set(folder.glob("index-*.sqlite")) - known
        for each in found:  # once it is in WAL mode: its header says so
            with open(each, "rb") as file:
                if file.read(20)[18:19] == b"\x02":
                    new = each
        time.sleep(0.001)
    if new is None:
        return
    db = sqlite3.connect(new, timeout=120, isolation_level=None)
    while not done.is_set():
        started = time.perf_counter()
        db.execute("BEGIN IMMEDIATE")
        waits.append(time.perf_counter() - started)
        db.execute("ROLLBACK")
        time.sleep(0.005)
    db.close()


_MAKE_INDEX = (
    "import sys, time; from sessdex import indexdb; from sessdex.sources import Home; "
    "started = time.perf_counter(); "
    "indexdb.connect(indexdb.index_file(Home.at(sys.argv[1]))).close(); "
    "print(time.perf_counter() - started)"
)


def held(report: Report, home: str, sessions: int, runs: int) -> int:
    """The --held measure (see the docstring)."""
    from _common import PYTHON

    with tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder)
        older, newer = builds(ROOT / "src", scratch, "new")
        longest, making = [], []
        for n in range(runs):
            state = scratch / f"state{n}"
            env = environment(state)
            env["PYTHONPATH"] = str(older)
            run(sessdex("usage", "daily", "--json", "--home", home), env)
            run(sessdex("list", "--json", "--home", home), env)
            (index,) = state.rglob("index-*.sqlite")
            total = inflate(index, sessions)
            size = index.stat().st_size
            env["PYTHONPATH"] = str(newer)
            done = threading.Event()
            waits: list[float] = []
            thread = threading.Thread(
                target=probe, args=(index.parent, {index}, done, waits)
            )
            thread.start()
            made = run([PYTHON, "-c", _MAKE_INDEX, home], env, keep_stdout=True)
            done.set()
            thread.join()
            if made.returncode:
                raise SystemExit(f"failed: {made.stderr[-500:]}")
            longest.append(max(waits, default=0.0))
            making.append(float(made.stdout))
            report.note(
                f"{total} older sessions ({size / 1e6:.0f} MB): the new index made in "
                f"{making[-1]:.2f} s, the longest write wait {longest[-1]:.2f} s "
                f"({len(waits)} probes)"
            )
            shutil.rmtree(state, ignore_errors=True)
        report.check(
            "another sessdex waits under 5 s to write",
            median(longest) < 5,
            f"{median(longest):.2f} s",
        )
    return report.summary()


if __name__ == "__main__":
    sys.exit(main())
