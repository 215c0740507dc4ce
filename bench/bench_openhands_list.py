"""Listing one long OpenHands conversation, now that it no longer stats every event file.

The listing reads `base_state.json`, lists `events/` (one scandir: unavoidable) and opens
the first and last few event files; it used to stat every event file too, to report the
events' sum as the size, which the index paid at every `list` while the conversation ran
(`base_state.json` is rewritten at each event, so the conversation is parsed again). A
conversation of --events event files (about 500 bytes each) is listed in this process,
runs interleaved: (a) the events folder listed alone (`event_files`), (b) the listing as
before (now's, plus the stat of each event file it made), (c) the listing now.
Target: (c) <= 1.25 x (a), what the listing adds to the folder's listing bounded (it
was (b) - (a), a stat per file); (c)/(b) is printed. Medians of --runs.

    .venv/bin/python bench/bench_openhands_list.py [--events 50000] [--runs 7]
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
from sessdex.sources import Home, openhands

CONVERSATION = "5f0c3e2a9b8d4c7ea1f2b3c4d5e6f708"


def make_conversation(home: Path, events: int) -> Path:
    folder = home / ".openhands" / "conversations" / CONVERSATION
    (folder / "events").mkdir(parents=True)
    state = {
        "agent": {"llm": {"model": "anthropic/claude-sonnet-4-5"}},
        "workspace": {"working_dir": "/home/alex/code"},
        "execution_status": "running",
    }
    (folder / openhands.BASE_STATE).write_text(json.dumps(state))
    for index in range(events):
        record = {
            "kind": "MessageEvent",
            "source": "user" if index % 40 == 0 else "agent",
            "timestamp": f"2026-10-02T08:{index // 60 % 60:02d}:{index % 60:02d}",
            "llm_message": {"content": [{"type": "text", "text": "x" * 300}]},
        }
        name = f"event-{index:05d}-{index:08x}-0000-4000-8000-000000000000.json"
        (folder / "events" / name).write_text(json.dumps(record))
    return folder / openhands.BASE_STATE


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        state = make_conversation(Path(tmp), args.events)
        location = openhands.locate(Home.at(Path(tmp)))

        def listed() -> None:
            openhands.event_files(state.parent)

        def now() -> None:
            (session,) = openhands.parse(state, location, Diagnostics())
            assert session.title is not None

        real = openhands.event_files
        seen: list[list[str]] = []

        def kept(folder: Path) -> list[str]:
            seen.append(real(folder))
            return seen[-1]

        def before() -> None:  # now's listing, plus the loop it dropped, on its names
            seen.clear()
            openhands.event_files = kept  # type: ignore[assignment]
            try:
                now()
            finally:
                openhands.event_files = real  # type: ignore[assignment]
            sum(os.stat(name).st_size for name in seen[0]) + state.stat().st_size

        cases: dict[str, Callable[[], None]] = {"a": listed, "b": before, "c": now}
        seconds: dict[str, list[float]] = {key: [] for key in cases}
        for _ in range(args.runs):
            for key, case in cases.items():
                began = time.perf_counter()
                case()
                seconds[key].append(time.perf_counter() - began)
    a, b, c = (statistics.median(seconds[key]) for key in "abc")
    print(f"one conversation of {args.events} event files, median of {args.runs}")
    print(f"(a) events folder listed      {ms(a)}")
    print(f"(b) listing as before         {ms(b)}")
    print(f"(c) listing now               {ms(c)}")
    ok = c <= 1.25 * a
    print(f"(c)/(b) = {c / b:.2f}, (c)/(a) = {c / a:.2f}: {'PASS' if ok else 'FAIL'}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
