"""What a re-read session's look at the files beside it costs `watch` (live.py).

While the lead of a session without a follow hook is mid-turn, `watch` looks every 2 s at
the files in its main file's folder and the folders in it for a sub-agent's write (droid
writes a sub-agent's transcript beside its lead's; Gemini CLI in `chats/<lead id>/`). This
times one look over folders of 50, 500 and 2,000 files (the cap), median of several runs,
against one `stat` of the main file (what every poll does anyway) in the same process, and
gives each as a share of one core at one look per 2 s.

Usage: .venv/bin/python bench/bench_live_beside.py [--runs 15]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from sessdex.live_feeds import LISTING_SECONDS, _newest_beside  # noqa: E402


def _median(runs: int, work: Callable[[], object]) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        for count in (50, 500, 2000):
            folder = Path(scratch) / str(count)
            folder.mkdir()
            for n in range(count):
                (folder / f"s{n}.jsonl").write_text("{}\n")
            main_file = folder / "s0.jsonl"
            look = _median(args.runs, lambda f=main_file: _newest_beside(f))
            stat = _median(args.runs, lambda f=main_file: os.stat(f))
            print(
                f"{count:5} files: one look {look * 1000:.2f} ms "
                f"({look / stat:.0f}x one stat), "
                f"{look / LISTING_SECONDS:.2%} of a core at one look per "
                f"{LISTING_SECONDS:.0f} s"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
