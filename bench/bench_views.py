"""The commands that read a whole transcript for a person, against `show` over the same file.

(a) `sessdex replay ID --speed 1000000 --max-gap 0` (pacing asked away) vs `sessdex show ID
    --no-pager`, which reads and draws the same events; target: at most 1.3 x show's time.

The transcript is written by make_corpus.py (`--real-bytes`, a few pasted images) into a temp
dir and deleted after. Figures are medians of --runs runs. Usage:

    .venv/bin/python bench/bench_views.py [--mb 256] [--runs 3] [--skip a]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import Report, environment, make_real, median, run, sessdex

REPLAY_RATIO = 1.3


def timed(argv: list[str], env: dict[str, str], runs: int) -> float:
    seconds = []
    for _ in range(runs):
        result = run(argv, env)
        if result.returncode != 0:
            raise SystemExit(f"{' '.join(argv)} failed: {result.stderr[-500:]}")
        seconds.append(result.seconds)
    return median(seconds)


def replay(
    report: Report, home: Path, sid: str, env: dict[str, str], runs: int
) -> None:
    report.note("(a) replay, pacing asked away, vs show")
    common = [sid, "--home", str(home)]
    run(sessdex("show", *common, "--no-pager"), env)  # the index, once
    show = timed(sessdex("show", *common, "--no-pager"), env, runs)
    played = timed(
        sessdex("replay", *common, "--speed", "1000000", "--max-gap", "0"), env, runs
    )
    report.note(f"  show {show:.2f} s, replay {played:.2f} s")
    report.check(
        f"replay <= {REPLAY_RATIO} x show",
        played <= REPLAY_RATIO * show,
        f"{played / show:.2f} x",
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=256, help="transcript size")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--skip", action="append", default=[], choices=["a"])
    args = parser.parse_args()
    report = Report()
    work = Path(tempfile.mkdtemp(prefix="sessdex-bench-views-"))
    try:
        manifest = make_real(work / "corpus", args.mb)
        home = work / "corpus" / "home"
        sid = manifest["sessions"][0]["id"]
        env = environment(work / "state")
        if "a" not in args.skip:
            replay(report, home, sid, env, args.runs)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return report.summary()


if __name__ == "__main__":
    sys.exit(main())
