"""`usage <report> --explain KEY` on a warm home of 1,000 and 10,000 sessions: this tree
against another (`--baseline-src`, an older checkout's src/), and against the plain report.

The homes are bench_scale.py's (Claude Code and Codex, `make_corpus.py`). For each report
(daily, weekly, monthly, project, model, app, session) one key is explained: the day, week
or month with the fewest responses (where the audit weighs most rows it does not read),
the project, model and app with the fewest, and a session. Each command runs warm (the
index and the sums made once, shared by both trees: same schema), runs alternating, each
figure the median of --runs whole-process runs: wall time, CPU time (user + system: what
a loaded machine's wall time hides) and peak RSS.

Printed per key: this tree's time and RSS, the baseline tree's, and their ratios; the plain
`usage <report> --json` of this tree is printed beside them, for scale. Target: no explain
slower (CPU time) than its baseline by more than 5% (noise).

    .venv/bin/python bench/bench_usage_explain.py --baseline-src /path/to/old/src
    .venv/bin/python bench/bench_usage_explain.py --baseline-src ../main/src --sessions 1000
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from _common import Report, environment, mb, median, run, sessdex
from bench_scale import DEFAULT_ROOT, ensure_home

KINDS = ("daily", "weekly", "monthly", "project", "model", "app", "session")


def least(rows: list[dict]) -> str:
    """The key of the row with the fewest responses (ties: the first in key order)."""
    return min(rows, key=lambda r: (r["responses"], r["key"]))["key"]


Figures = tuple[float, float, float]  # wall s, CPU s, peak RSS bytes


def measure(argv: list[str], env: dict[str, str]) -> Figures:
    result = run(argv, env, measure_rss=True)
    if result.returncode:
        raise SystemExit(f"{' '.join(argv)} failed: {result.stderr[-500:]}")
    return result.seconds, result.cpu, result.peak_rss


def medians(runs: list[Figures]) -> Figures:
    wall, cpu, rss = zip(*runs, strict=True)
    return median(list(wall)), median(list(cpu)), median(list(rss))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline-src", type=Path, required=True)
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT)
    parser.add_argument(
        "--sessions", type=int, nargs="+", default=[1000, 10_000], help="home sizes"
    )
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--kinds", default=",".join(KINDS))
    args = parser.parse_args()
    report = Report()
    slower = []
    for sessions in args.sessions:
        home = ensure_home(args.root / f"s{sessions}", sessions)["home"]
        with tempfile.TemporaryDirectory() as scratch:
            env = environment(Path(scratch))
            old = dict(env, PYTHONPATH=str(args.baseline_src.resolve()))
            for kind in args.kinds.split(","):
                plain = sessdex("usage", kind, "--json", "--home", home)
                made = run(plain, env, keep_stdout=True)  # warms the index and sums
                key = least(json.loads(made.stdout))
                explain = sessdex("usage", kind, "--explain", key, "--json", "--home", home)  # fmt: skip
                new_runs: list[Figures] = []
                old_runs: list[Figures] = []
                plain_runs: list[Figures] = []
                for _ in range(args.runs):  # alternating, so that load falls on both
                    new_runs.append(measure(explain, env))
                    old_runs.append(measure(explain, old))
                    plain_runs.append(measure(plain, env))
                new_t, new_c, new_m = medians(new_runs)
                old_t, old_c, old_m = medians(old_runs)
                _, plain_c, plain_m = medians(plain_runs)
                report.note(
                    f"{sessions:>6} {kind:8} {key[:20]:20} explain {new_t:5.2f} s "
                    f"cpu {new_c:5.2f} s {mb(new_m):>6}  baseline {old_t:5.2f} s "
                    f"cpu {old_c:5.2f} s {mb(old_m):>6}  x{new_c / old_c:4.2f} cpu "
                    f"x{new_m / old_m:4.2f} RSS  (report cpu {plain_c:5.2f} s {mb(plain_m)})"
                )
                if new_c > old_c * 1.05:
                    slower.append(f"{kind} at {sessions}")
    report.check(
        "no explain slower than its baseline (5% noise)",
        not slower,
        ", ".join(slower) or "none slower",
    )
    return report.summary()


if __name__ == "__main__":
    sys.exit(main())
