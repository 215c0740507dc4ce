"""A cold `list` of a home whose one Gemini CLI chat is a JSON document of `--mb` MB written
compactly (not as the app lays it out: `bench_whole.make_gemini`'s, on one line), each run
a fresh state (the index built anew); wall and CPU, medians of `--runs`, `--baseline-src`
in the same minutes. Usage:

    .venv/bin/python bench/bench_gemini_compact_list.py [--mb 300] [--runs 3] [--baseline-src OLD/src]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import ROOT, environment, median, run, sessdex
from bench_whole import make_gemini


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=300)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--baseline-src")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        make_gemini(out, args.mb)
        trees = {"now": str(ROOT / "src")}
        if args.baseline_src:
            trees["before"] = args.baseline_src
        for name, src in trees.items():
            runs = []
            for n in range(args.runs):
                env = environment(out / f"state-{name}-{n}")  # cold: a new index
                env["PYTHONPATH"] = src
                runs.append(run(sessdex("list", "--json", "--home", str(out / "home")), env, keep_stdout=True))  # fmt: skip
            assert all(r.returncode == 0 for r in runs), runs[0].stderr
            assert b"5a1e9c3b" in runs[0].stdout, runs[0].stdout[:300]
            wall = median([r.seconds for r in runs])
            cpu = median([r.cpu for r in runs])
            print(f"{name}: cold list wall {wall:.2f} s, CPU {cpu:.2f} s (medians of {args.runs})")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
