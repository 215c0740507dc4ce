"""The look `follow` adds for sub-agents listed while it follows (`api._listed_since`):
its app's index refreshed where its files changed, the ids listed under the lead walked,
at most every `live.RELIST_EVERY` seconds; against one poll of the lead itself.

The home is the OpenClaw fixture with `--sessions` more sessions on the main agent, a
tenth of them sub-agents of the lead (a sessions.json entry each). Each run times one
look with nothing new and one look just after a sub-agent was listed (the index refreshed,
the new one read, `listed_apart`: the lead and those followed are not), both in this
process. Prints medians of `--runs`, CPU seconds.
Usage:

    .venv/bin/python bench/bench_follow_relist.py [--sessions 500] [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from sessdex import api
from sessdex.live_session import LiveSession
from sessdex.sources import Home

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "data" / "openclaw" / "home"
LEAD = "a717db17-7bed-408a-8491-a2bb0b190f46"


def _session(folder: Path, sid: str) -> None:
    lines = [
        {"type": "session", "version": 3, "id": sid,
         "timestamp": "2026-12-01T09:20:00.000Z", "cwd": "/home/alex/w"},
        {"type": "message", "id": "1", "parentId": None,
         "timestamp": "2026-12-01T09:20:01.000Z",
         "message": {"role": "user", "content": [{"type": "text", "text": "go"}]}},
    ]  # fmt: skip
    (folder / f"{sid}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))


def _add(folder: Path, sid: str, sub: bool) -> None:
    _session(folder, sid)
    index = folder / "sessions.json"
    entries = json.loads(index.read_text())
    entry: dict[str, object] = {"sessionId": sid, "updatedAt": 1796115605000}
    if sub:
        entry |= {"spawnedBy": "agent:main:main", "spawnDepth": 1}
    entries[f"agent:main:{'subagent:' if sub else 'x:'}{sid}"] = entry
    index.write_text(json.dumps(entries))


def _cpu(call: object) -> float:
    start = time.process_time()
    call()  # type: ignore[operator]
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=500)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        shutil.copytree(FIXTURE, home)
        folder = home / ".openclaw" / "agents" / "main" / "sessions"
        for n in range(args.sessions):
            _add(folder, f"00000000-0000-4000-8000-{n:012d}", n % 10 == 0)
        api.list_sessions(Home.at(home))
        lead = api.resolve(Home.at(home), LEAD)
        look = api._listed_since(Home.at(home), lead)
        followed = {LEAD, *(c.id for c in api.listed_apart(Home.at(home), lead))}
        live = LiveSession(lead)
        live.poll()
        still, new, polls = [], [], []
        for run in range(args.runs):
            still.append(_cpu(lambda: look(followed)))
            _add(folder, f"11111111-0000-4000-8000-{run:012d}", True)
            start = time.process_time()
            found = look(followed)
            new.append(time.process_time() - start)
            assert len(found) == 1, len(found)  # the one just listed, found
            followed.update(c.id for c in found)
            polls.append(_cpu(live.poll))
    ms = lambda xs: f"{statistics.median(xs) * 1000:.1f} ms"  # noqa: E731
    print(f"{args.sessions} sessions, medians of {args.runs}:")
    print(f"  look, nothing new:        {ms(still)}  (every {3.0:.0f} s at most)")
    print(f"  look, a sub-agent listed: {ms(new)}")
    print(f"  one poll of the lead:     {ms(polls)}")


if __name__ == "__main__":
    main()
