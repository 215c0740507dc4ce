"""Marking sub-agents apart in `show`: thousands of one type, ids starting alike.

`show` marks a sub-agent's lines with its type, and the start of its id where another of
that type is marked so already, grown past 8 characters while that mark is taken (ids
made from the time share their first 8). Drawn in-process with `render_events`:
(a) N spawns of one type whose ids share their first 12 characters vs (b) N spawns
each of its own type (no mark to find); target: (a) at most 2 x (b), as the marks
are looked up in a set, not by scanning every other sub-agent's. Medians of --runs.

    .venv/bin/python bench/bench_subagent_marks.py [--agents 4000] [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import time

from sessdex.model import Event
from sessdex.views.terminal import render_events

RATIO = 2.0


def spawns(count: int, one_type: bool) -> list[Event]:
    events = []
    for n in range(count):
        child = f"01a22b81-66cf-{n:04x}-99b4-ed78fda80cf9"  # UUIDv7-like: time first
        kind = "worker" if one_type else f"worker{n}"
        extra = {"child_id": child, "agent_type": kind}
        events.append(Event("lead", 2 * n, "subagent", call_id=f"c{n}", extra=extra))
        events.append(Event("lead", 2 * n + 1, "assistant", agent_id=child, text="ok"))
    return events


def timed(events: list[Event], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        for _ in render_events(events):
            pass
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=4000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    alike = timed(spawns(args.agents, True), args.runs)
    apart = timed(spawns(args.agents, False), args.runs)
    ratio = alike / apart
    print(f"{args.agents} of one type, ids alike: {alike * 1000:.1f} ms")
    print(f"{args.agents} each of its own type:   {apart * 1000:.1f} ms")
    print(f"ratio {ratio:.2f} (target <= {RATIO})")
    return 0 if ratio <= RATIO else 1


if __name__ == "__main__":
    raise SystemExit(main())
