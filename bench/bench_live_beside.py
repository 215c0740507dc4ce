"""What a re-read session's look at the files beside it costs `watch` (live_beside.py).

While the lead of a session without a follow hook is mid-turn, `watch` looks every 2 s at
the files in its main file's folder and the folders in it for a sub-agent's write (droid
writes a sub-agent's transcript beside its lead's; Gemini CLI in `chats/<lead id>/`). This
times, over folders of 50 to 20,000 old files, the listing taken when the session is read
whole, one look when nothing changed, and one look after a sub-agent's file appeared in a
new folder (median of several runs each), against one `stat` of the main file (what every
poll does anyway) in the same process, and says whether that look found the new file.

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

from sessdex.live_beside import Beside  # noqa: E402
from sessdex.live_feeds import LISTING_SECONDS  # noqa: E402

DAY_AGO = time.time() - 86_400


def _median(runs: int, work: Callable[[], object]) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def _remembered(main_file: Path) -> Beside:
    beside = Beside(main_file)
    beside.remember()
    beside.newest()  # the first look: the files there in turn
    return beside


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        for count in (50, 500, 2000, 5000, 20000):
            folder = Path(scratch) / str(count)
            folder.mkdir()
            for n in range(count):
                path = folder / f"s{n}.jsonl"
                path.write_text("{}\n")
                os.utime(path, (DAY_AGO, DAY_AGO))
            main_file = folder / "s0.jsonl"
            stat = _median(args.runs, lambda f=main_file: os.stat(f))
            listing = _median(args.runs, lambda f=main_file: Beside(f).remember())
            beside = _remembered(main_file)
            look = _median(args.runs, beside.newest)
            found, times = 0, []
            for run in range(args.runs):
                agent = folder / f"lead{run}" / "agent.jsonl"
                agent.parent.mkdir()
                agent.write_text("{}\n")
                started = time.perf_counter()
                newest = beside.newest()
                times.append(time.perf_counter() - started)
                found += newest >= agent.stat().st_mtime_ns
            new = statistics.median(times)
            print(
                f"{count:6} files: listing {listing * 1000:.2f} ms, "
                f"one look {look * 1000:.2f} ms ({look / stat:.0f}x one stat, "
                f"{look / LISTING_SECONDS:.3%} of a core at one per "
                f"{LISTING_SECONDS:.0f} s), look after a new sub-agent file "
                f"{new * 1000:.2f} ms, found {found}/{args.runs}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
