"""A cold `sessdex usage --json` of one big Claude Code lead: this tree against another
(`--baseline-src`, an older checkout's src/), alternating, the same bytes checked.

The lead is bench_follow_big.py's (the real Claude Code 2.1.197 sub-agent session of
shared/corpus/realcli, real turns repeated after it to `--mb` MB, its sub-agent's file
beside it): about half its lines carry usage, so the time is that of each response's
Python work, not of finding the lines. Each run starts with no index; wall time, CPU time
(user + system, workers included: what a loaded machine's wall time hides) and peak RSS,
medians of `--runs`. Printed for information, with MB of transcript a CPU second.

    .venv/bin/python bench/bench_usage_big_lead.py --baseline-src OLD/src [--mb 200] [--runs 3]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

from _common import Report, environment, mb, median, run, sessdex
from bench_follow_big import write_lead


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline-src", type=Path, required=True)
    parser.add_argument("--mb", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    report = Report()
    with tempfile.TemporaryDirectory(prefix="sessdex-bench-big-lead-") as scratch:
        home = Path(scratch) / "home"
        write_lead(home, args.mb * 1024 * 1024)
        size = sum(p.stat().st_size for p in home.rglob("*.jsonl"))
        argv = sessdex("usage", "--json", "--home", str(home))
        figures: dict[str, list[tuple[float, float, int]]] = {"new": [], "old": []}
        printed: dict[str, set[bytes]] = {"new": set(), "old": set()}
        for n in range(args.runs):
            for tree in ("new", "old"):  # alternating, so that load falls on both
                state = Path(scratch) / f"{tree}{n}"
                env = environment(state)
                if tree == "old":
                    env["PYTHONPATH"] = str(args.baseline_src.resolve())
                done = run(argv, env, keep_stdout=True, measure_rss=True)
                if done.returncode:
                    raise SystemExit(f"{tree} failed: {done.stderr[-500:]}")
                figures[tree].append((done.seconds, done.cpu, done.peak_rss))
                printed[tree].add(done.stdout)
                report.note(
                    f"  run {n + 1} {tree}: {done.seconds:.2f} s, cpu {done.cpu:.2f} s, "
                    f"{mb(done.peak_rss)}"
                )
                shutil.rmtree(state, ignore_errors=True)
    (new_t, new_c, new_m), (old_t, old_c, old_m) = (
        tuple(median([f[i] for f in figures[tree]]) for i in range(3))
        for tree in ("new", "old")
    )
    megabytes = size / 1e6
    report.note(
        f"{megabytes:.0f} MB: this tree {new_t:.2f} s, cpu {new_c:.2f} s "
        f"({megabytes / new_c:.0f} MB a CPU second), {mb(new_m)}; baseline {old_t:.2f} s, "
        f"cpu {old_c:.2f} s ({megabytes / old_c:.0f} MB a CPU second), {mb(old_m)}; "
        f"x{new_c / old_c:.2f} cpu"
    )
    outputs = printed["new"] | printed["old"]
    report.check("the same bytes printed", len(outputs) == 1, f"{len(outputs)} outputs")
    return report.summary()


if __name__ == "__main__":
    sys.exit(main())
