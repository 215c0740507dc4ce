"""Listing a Copilot CLI `/fork`: the notice naming its origin lies after the copied history.

A fork's log copies its origin's events after its own `session.start`, and only the
`session.info` fork notice after them names the origin, so listing searches the whole
file for it (only where an event predates the session's start). Parsed in-process with
`copilot.parse`: (a) a fork whose copied history is --mb MB vs (b) a session of the same
size that is no fork (head and tail only); both from the real fixture in
tests/data/copilot/forks. Target: (a) within 20 ms + 10 x (b) on a warm page cache (one
pass over the file). Medians of --runs.

    .venv/bin/python bench/bench_copilot_fork.py [--mb 50] [--runs 5]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from sessdex.diagnostics import Diagnostics
from sessdex.sources import Home, copilot

FIXTURE = Path(__file__).parent.parent / "tests" / "data" / "copilot" / "forks" / "home"
ORIGIN = "73e1708c-4b03-42d3-8fab-cf6207709959"
FORK = "02ac738d-fb22-4110-a760-c94707259c53"


def build(home: Path, megabytes: int) -> tuple[Path, Path]:
    shutil.copytree(FIXTURE, home)
    state = home / ".copilot" / "session-state"
    fork = state / FORK / "events.jsonl"
    lines = fork.read_text().splitlines()
    notice = next(n for n, line in enumerate(lines) if '"infoType":"fork"' in line)
    copied, padding = lines[1:notice], []
    while sum(map(len, padding)) < megabytes * 1_000_000:
        padding.extend(copied)
    fork.write_text("\n".join([lines[0], *padding, *lines[notice:]]) + "\n")
    plain = state / ORIGIN / "events.jsonl"  # its own start, then events dated after it
    plain.write_text("\n".join([plain.read_text().splitlines()[0], *padding]) + "\n")
    return fork, plain


def timed(path: Path, home: Path, runs: int) -> float:
    location = copilot.locate(Home.at(home))
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        copilot.parse(path, location, Diagnostics())
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=50)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder) / "home"
        fork, plain = build(home, args.mb)
        forked = timed(fork, home, args.runs)
        other = timed(plain, home, args.runs)
    print(f"a fork of {args.mb} MB:          {forked * 1000:.1f} ms")
    print(f"no fork, same size:       {other * 1000:.1f} ms")
    print(f"ratio {forked / other:.1f} (target: within 20 ms + 10 x)")
    return 0 if forked <= 0.020 + 10 * other else 1


if __name__ == "__main__":
    raise SystemExit(main())
