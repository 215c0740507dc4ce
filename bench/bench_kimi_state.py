"""Listing Kimi Code sessions' `state.json`, now that it reads the end of the main wire.

A session was last active at the later of `state.json`'s `updatedAt` and the main wire's
last record, so the state's listing reads the wire's last 16 KB. A home of --sessions
sessions (each wire --lines records of about 2 KB) is listed file by file in this process,
as a cold index build parses it: (a) every main wire, (b) every `state.json` with the wire
read switched off (what sessdex did before), (c) every `state.json` as it is now. Target:
(c) - (b) well under (a) / 4: the added read is a small part of listing the session.
Medians of --runs.

    .venv/bin/python bench/bench_kimi_state.py [--sessions 300] [--lines 400] [--runs 7]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import ms

from sessdex.diagnostics import Diagnostics
from sessdex.sources import _kimi_code

START = 1_785_000_000_000


def make_home(root: Path, sessions: int, lines: int) -> tuple[list[Path], list[Path]]:
    wires, states = [], []
    for n in range(sessions):
        folder = root / "sessions" / "wd_bench_0123456789ab" / f"session_{n:08d}"
        (folder / "agents" / "main").mkdir(parents=True)
        records: list[dict[str, object]] = [
            {"type": "metadata", "protocol_version": "1.5", "created_at": START}
        ]
        for i in range(lines):
            kind = "turn.prompt" if i % 20 == 0 else "context.append_loop_event"
            part = {"type": "text", "text": f"step {i} " + "x" * 2000}
            records.append(
                {
                    "type": kind,
                    "origin": {"kind": "user"},
                    "input": [part],
                    "event": {"type": "content.part", "part": part},
                    "time": START + i * 1000,
                }
            )
        wire = folder / "agents" / "main" / "wire.jsonl"
        wire.write_text("".join(json.dumps(r) + "\n" for r in records))
        state = folder / "state.json"
        state.write_text(json.dumps({"version": 2, "cwd": "/w", "title": "t",
                                     "createdAt": START, "updatedAt": START + 5000}))  # fmt: skip
        wires.append(wire)
        states.append(state)
    return wires, states


def timed(paths: list[Path], runs: int) -> float:
    seconds = []
    for _ in range(runs):
        began = time.perf_counter()
        for path in paths:
            _kimi_code.parse(path, Diagnostics())
        seconds.append(time.perf_counter() - began)
    return statistics.median(seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=300)
    parser.add_argument("--lines", type=int, default=400)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        wires, states = make_home(Path(tmp), args.sessions, args.lines)
        wire_seconds = timed(wires, args.runs)
        real: Callable[[Path], object] = _kimi_code._last_time
        _kimi_code._last_time = lambda wire: None  # type: ignore[assignment]
        before = timed(states, args.runs)
        _kimi_code._last_time = real  # type: ignore[assignment]
        after = timed(states, args.runs)
    added = after - before
    print(
        f"{args.sessions} sessions, wires of {args.lines} records, median of {args.runs}"
    )
    print(f"(a) main wires listed        {ms(wire_seconds)}")
    print(f"(b) state.json, no wire read {ms(before)}")
    print(f"(c) state.json, wire's end   {ms(after)}")
    verdict = "ok" if added < wire_seconds / 4 else "OVER"
    print(f"(c) - (b) = {ms(added)}, {added / wire_seconds:.2f} x (a): {verdict}")


if __name__ == "__main__":
    main()
