"""A cold `usage daily --json` at 1,000 and 10,000 sessions: this tree against another
(`--baseline-src`, an older checkout's src/), same home, same output.

The homes are bench_scale.py's (Claude Code and Codex, `make_corpus.py`). Each run starts
with no index (every file read, the cross-file check made over every response's key);
runs alternate between the trees, each figure the median of --runs whole-process runs:
wall time, CPU time (user + system, workers included: what a loaded machine's wall time
hides) and peak RSS. Both trees must print the same rows: the same keys, token counts and
responses, and costs within $0.000001 (files read in parallel come back in any order, and
the order of a float sum moves its last digit, in either tree).

Target: this tree's CPU time at most 1.05x the baseline's at each size.

    .venv/bin/python bench/bench_usage_cold.py --baseline-src /path/to/old/src
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

from _common import Report, environment, mb, median, run, sessdex
from bench_scale import DEFAULT_ROOT, ensure_home


def same_rows(a: bytes, b: bytes) -> bool:
    """The same rows but for a cost's last digit (see above)."""
    first, second = json.loads(a), json.loads(b)
    if len(first) != len(second):
        return False
    for x, y in zip(first, second, strict=True):
        for name, value in x.items():
            other = y.get(name)
            if isinstance(value, float) and isinstance(other, float):
                if abs(value - other) > 1e-6:
                    return False
            elif value != other:
                return False
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline-src", type=Path, required=True)
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT)
    parser.add_argument(
        "--sessions", type=int, nargs="+", default=[1000, 10_000], help="home sizes"
    )
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    report = Report()
    for sessions in args.sessions:
        home = ensure_home(args.root / f"s{sessions}", sessions)["home"]
        argv = sessdex("usage", "daily", "--json", "--home", home)
        figures: dict[str, list[tuple[float, float, int]]] = {"new": [], "old": []}
        printed: dict[str, list[bytes]] = {"new": [], "old": []}
        with tempfile.TemporaryDirectory() as scratch:
            for n in range(args.runs):
                for tree in ("new", "old"):  # alternating, so that load falls on both
                    state = Path(scratch) / f"{tree}{n}"
                    env = environment(state)
                    if tree == "old":
                        env["PYTHONPATH"] = str(args.baseline_src.resolve())
                    result = run(argv, env, keep_stdout=True, measure_rss=True)
                    if result.returncode:
                        raise SystemExit(f"{tree} failed: {result.stderr[-500:]}")
                    figures[tree].append((result.seconds, result.cpu, result.peak_rss))
                    printed[tree].append(result.stdout)
                    shutil.rmtree(state, ignore_errors=True)
        (new_t, new_c, new_m), (old_t, old_c, old_m) = (
            tuple(median([f[i] for f in figures[tree]]) for i in range(3))
            for tree in ("new", "old")
        )
        report.note(
            f"{sessions:>6} cold usage daily: {new_t:6.2f} s cpu {new_c:6.2f} s "
            f"{mb(new_m):>7}  baseline {old_t:6.2f} s cpu {old_c:6.2f} s {mb(old_m):>7}"
            f"  x{new_c / old_c:4.2f} cpu x{new_m / old_m:4.2f} RSS"
        )
        outputs = [*printed["new"], *printed["old"]]
        report.check(
            f"same rows at {sessions}",
            all(same_rows(outputs[0], other) for other in outputs[1:]),
            f"{len(set(outputs))} distinct outputs of {len(outputs)} runs "
            f"({len(set(printed['old']))} of the baseline's {args.runs})",
        )
        report.check(
            f"CPU time at {sessions} <= 1.05x the baseline's",
            new_c <= old_c * 1.05,
            f"{new_c:.2f} s vs {old_c:.2f} s: {new_c / old_c:.3f}x",
        )
    return report.summary()


if __name__ == "__main__":
    sys.exit(main())
