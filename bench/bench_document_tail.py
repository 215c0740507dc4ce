"""`show --tail 50` of a big Gemini CLI chat kept as one JSON document: now (its last
messages found from the document's end, `gemini.read_last`) against before (every message
decoded and translated, the last 50 events kept: the same read with the hook taken away),
in one process, alternated run by run. `--app qwen`: the same for a Qwen Code 0.1.x chat
of one file (`qwen.read_last`), written here in the layout 0.1.x writes (Gemini's, its
model's messages typed `qwen`).

Prints the median CPU time of each over --runs runs and their ratio, after checking that
both show the same events (all but `seq`, which now counts from the first message read, as
every tail read from a file's end or a database's last rows does). Usage:

    .venv/bin/python bench/bench_document_tail.py [--mb 64] [--runs 5] [--app qwen]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import PYTHON, Report, environment

TARGET = 0.1  # now, at most this share of before

MEASURE = r"""
import statistics, sys, time
from pathlib import Path
from sessdex.resolving import resolve
from sessdex.sources import Home, gemini, qwen
from sessdex.transcripts import transcript

home, runs = Home.at(Path(sys.argv[1])), int(sys.argv[2])
app, prefix = {"gemini": (gemini, "5a1e9c3b"), "qwen": (qwen, "7c2d4e6f")}[sys.argv[3]]
hook = app.read_last


def tail():
    found = transcript(home, prefix, tail=50)
    events = list(found.events)
    shown = [(e.kind, e.time, e.text, e.tool, e.call_id, e.usage, e.extra) for e in events]
    return shown, found.seq_relative


resolve(home, prefix)  # the index made, as a warm `show` finds it
times = {"now": [], "before": []}
shown = {}
for _ in range(runs):
    for how in ("now", "before"):
        if how == "now":
            app.read_last = hook
        else:
            del app.read_last
        started = time.process_time()
        shown[how] = tail()
        times[how].append(time.process_time() - started)
app.read_last = hook
assert shown["now"][0] == shown["before"][0], "the tails differ"
assert shown["now"][1] and not shown["before"][1], "the hook was not used, or always"
print(len(shown["now"][0]), *(statistics.median(times[how]) for how in ("now", "before")))
"""


def _qwen_chat(home: Path, mb: int) -> tuple[Path, int]:
    """A Qwen Code 0.1.x chat of about `mb` MB (prompts, replies with thoughts and tokens,
    some replies that only called tools), laid out as JSON.stringify(chat, null, 2)."""
    messages: list[dict[str, object]] = []
    size, n = 0, 0
    while size < mb * 2**20:
        stamp = f"2025-10-2{n // 86400 % 10}T{n // 3600 % 24:02}:{n // 60 % 60:02}:{n % 60:02}.000Z"
        if n % 3 == 0:
            message: dict[str, object] = {"id": f"m{n}", "timestamp": stamp,
                "type": "user", "content": f"prompt {n} " + "p" * 400}  # fmt: skip
        else:
            message = {"id": f"m{n}", "timestamp": stamp, "type": "qwen",
                "content": "" if n % 5 == 0 else f"answer {n} " + "a" * 1500,
                "thoughts": [{"subject": "Plan", "description": "d" * 300,
                              "timestamp": stamp}],
                "tokens": {"input": 1000 + n, "output": 50, "cached": 500,
                           "thoughts": 20, "tool": 0, "total": 1570 + n},
                "model": "qwen3-coder-plus"}  # fmt: skip
        messages.append(message)
        size += len(json.dumps(message)) + 60
        n += 1
    chats = home / ".qwen" / "tmp" / ("ab" * 32) / "chats"
    chats.mkdir(parents=True)
    chat = chats / "session-2025-10-20T00-00-7c2d4e6f.json"
    document = {"sessionId": "7c2d4e6f-1111-4222-8333-444455556666",
                "projectHash": "ab" * 32, "startTime": messages[0]["timestamp"],
                "lastUpdated": messages[-1]["timestamp"], "messages": messages}  # fmt: skip
    chat.write_text(json.dumps(document, indent=2))
    return chat, len(messages)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=64)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--app", choices=("gemini", "qwen"), default="gemini")
    args = parser.parse_args()
    report = Report()
    with tempfile.TemporaryDirectory(prefix="sessdex-bench-document-tail-") as folder:
        root = Path(folder)
        if args.app == "qwen":
            chat, written = _qwen_chat(root / "home", args.mb)
        else:
            chats = root / "home" / ".gemini" / "tmp" / "proj" / "chats"
            chats.mkdir(parents=True)
            chat = chats / "session-2025-11-02T10-15-5a1e9c3b.json"
            writer = [PYTHON, "bench/bench_documents.py", "--mb", str(args.mb)]
            done = subprocess.run(
                [*writer, "--write", "chat", str(chat)],
                capture_output=True,
                text=True,
                check=True,
            )
            written = int(done.stdout.strip())
        report.note(
            f"a {chat.stat().st_size / 2**20:.0f} MB {args.app} chat of "
            f"{written} messages; show --tail 50, {args.runs} runs each"
        )
        argv = [PYTHON, "-c", MEASURE, str(root / "home"), str(args.runs), args.app]
        env = environment(root / "state")
        done = subprocess.run(argv, capture_output=True, text=True, check=True, env=env)
        count, now, before = done.stdout.split()
        now_s, before_s = float(now), float(before)
        report.note(
            f"  events shown:                      {count} (the same both ways)"
        )
        report.note(
            f"  before (every message translated): {before_s * 1000:.1f} ms CPU"
        )
        report.note(f"  now (its last messages only):      {now_s * 1000:.1f} ms CPU")
        report.check(
            f"now <= {TARGET:g}x before",
            now_s <= TARGET * before_s,
            f"{now_s / before_s:.3f}x",
        )
    return report.summary()


if __name__ == "__main__":
    sys.exit(main())
