"""Marking sub-agents apart in `show`: thousands of one type, ids starting alike.

`show` marks a sub-agent's lines with its type, and the start of its id where another of
that type is marked so already, grown past 8 characters while that mark is taken (ids
made from the time share their first 8). Drawn in-process with `render_events`:
(a) N spawns of one type whose ids share their first 12 characters vs (b) N spawns
each of its own type (no mark to find); target: (a) at most 2 x (b), as the marks
are looked up in a set, not by scanning every other sub-agent's. Medians of --runs.

    .venv/bin/python bench/bench_subagent_marks.py [--agents 4000] [--runs 5]

`--watch`: what `watch` says of a session whose lead waits on the last of N sub-agents
(`status.decide`, as each poll asks it), at N and 4 N sub-agents, medians of `--polls`
decisions: a poll grows with its sub-agents no faster than they do (the ids their names
are told apart from kept per session, gathered again only when another agent comes,
not at every poll: 4 N took 8 x N); target 4 N <= 5 x N.
"""

from __future__ import annotations

import argparse
import statistics
import time

from sessdex.model import Event
from sessdex.status import Tracker, decide
from sessdex.views.terminal import render_events

RATIO = 2.0
WATCH_RATIO = 5.0  # 4 x the sub-agents: linear, with room for a busy machine


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


def tracked(count: int) -> Tracker:
    """A `watch` tracker of a lead that spawned `count` sub-agents, the last at work."""
    tracker = Tracker(lead_id="01a22b81-66cf-7000-99b4-ed78fda80cf9")
    for n in range(count):
        child = f"01a22b81-66cf-{n:04x}-99b4-ed78fda80cf9"
        extra = {"child_id": child, "agent_type": "worker"}
        for event in (
            Event("s", n, "tool_call", tool="Task", call_id=f"c{n}"),
            Event("s", n, "subagent", text="task", call_id=f"c{n}", extra=extra),
            Event("s", n, "assistant", text="on it", agent_id=child),
        ):
            tracker.add(event, 1_800_000_000.0)
        if n < count - 1:
            done = Event("s", n, "tool_result", text="done", call_id=f"c{n}")
            tracker.add(done, 1_800_000_000.0)
    return tracker


def polled(count: int, polls: int) -> float:
    """The median time of one poll's decision over a tracker of `count` sub-agents."""
    tracker = tracked(count)
    times = []
    for n in range(polls):
        start = time.perf_counter()
        status = decide(tracker, 1_800_000_010.0 + n, 1_800_000_000.0, True)
        times.append(time.perf_counter() - start)
    assert status.reason.startswith("sub-agent worker"), status.reason
    return statistics.median(times)


def watch(agents: int, polls: int) -> int:
    one, four = polled(agents, polls), polled(4 * agents, polls)
    print(f"a poll, {agents} sub-agents:     {one * 1000:.3f} ms")
    print(f"a poll, {4 * agents} sub-agents:    {four * 1000:.3f} ms")
    print(f"ratio {four / one:.2f} (target <= {WATCH_RATIO})")
    return 0 if four / one <= WATCH_RATIO else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=4000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--watch", action="store_true")
    parser.add_argument("--polls", type=int, default=21)
    args = parser.parse_args()
    if args.watch:
        return watch(args.agents, args.polls)
    alike = timed(spawns(args.agents, True), args.runs)
    apart = timed(spawns(args.agents, False), args.runs)
    ratio = alike / apart
    print(f"{args.agents} of one type, ids alike: {alike * 1000:.1f} ms")
    print(f"{args.agents} each of its own type:   {apart * 1000:.1f} ms")
    print(f"ratio {ratio:.2f} (target <= {RATIO})")
    return 0 if ratio <= RATIO else 1


if __name__ == "__main__":
    raise SystemExit(main())
