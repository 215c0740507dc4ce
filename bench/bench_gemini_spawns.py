"""Listing Gemini chats that spawned sub-agents: the spawning calls' types are searched
for through the whole chat, where the chat has a folder of sub-agents.

`gemini.parse` (what a cold index build runs per file) over N chats of --mb MB each,
(a) each with a folder of sub-agents (the whole file byte-searched for `"agentId"`) vs
(b) the same chats without one (head and tail only, as before). Medians of --runs,
files in the page cache; target (a) <= 1.5 x (b): one byte search per such chat.

    .venv/bin/python bench/bench_gemini_spawns.py [--chats 20] [--mb 8] [--runs 5]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from sessdex.diagnostics import Diagnostics
from sessdex.sources import Home, gemini

RATIO = 1.5

HEADER = (
    b'{"sessionId":"%s","projectHash":"x","startTime":"2026-11-30T08:11:57.185Z",'
    b'"lastUpdated":"2026-11-30T08:11:57.185Z","kind":"main"}\n'
)
LINE = (
    b'{"id":"m%d","timestamp":"2026-11-30T08:11:58.000Z","type":"gemini","content":"'
    + b"x" * 400
    + b'","model":"gemini-3.8-flash"}\n'
)
SPAWN = (
    b'{"id":"spawn","timestamp":"2026-11-30T08:11:59.000Z","type":"gemini","content":"",'
    b'"toolCalls":[{"id":"c1","name":"invoke_agent","agentId":"child-%s",'
    b'"args":{"prompt":"go","agent_name":"generalist"}}]}\n'
)


def build(root: Path, chats: int, megabytes: int) -> list[Path]:
    folder = root / ".gemini/tmp/p/chats"
    folder.mkdir(parents=True)
    body = b"".join(LINE % n for n in range(megabytes * 1024 * 1024 // len(LINE)))
    paths = []
    for n in range(chats):
        ident = b"%08d-0000-4000-8000-000000000000" % n
        path = folder / f"session-2026-11-30T08-11-{n:08d}.jsonl"
        half = len(body) // 2
        path.write_bytes(HEADER % ident + body[:half] + SPAWN % ident + body[half:])
        (folder / ident.decode()).mkdir()
        paths.append(path)
    return paths


def timed(paths: list[Path], home: Path, runs: int) -> float:
    location = gemini.locate(Home.at(home))
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        for path in paths:
            gemini.parse(path, location, Diagnostics())
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chats", type=int, default=20)
    parser.add_argument("--mb", type=int, default=8)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="sessdex-bench-gemini-"))
    try:
        paths = build(root, args.chats, args.mb)
        searched = timed(paths, root, args.runs)
        for folder in (root / ".gemini/tmp/p/chats").iterdir():
            if folder.is_dir():
                folder.rmdir()
        plain = timed(paths, root, args.runs)
    finally:
        shutil.rmtree(root)
    print(
        f"{args.chats} chats of {args.mb} MB with sub-agents: {searched * 1000:.1f} ms"
    )
    print(f"{args.chats} chats of {args.mb} MB without:         {plain * 1000:.1f} ms")
    ratio = searched / plain
    print(f"ratio {ratio:.2f} (target <= {RATIO})")
    return 0 if ratio <= RATIO else 1


if __name__ == "__main__":
    raise SystemExit(main())
