"""How much memory `sessdex usage` needs for a transcript whose lines that carry usage are huge.

The usage scanner reads only the lines that hold a usage marker. Such a line can be huge: a
Task call's result holds the sub-agent's text and its usage, an answer writes its usage after
its content. This writes one Claude Code transcript twice into a temp dir, once with
--big-lines of those lines at --big-mb MB each and once without, and measures
`sessdex usage --json` (cold index) on both in the same run: peak RSS, time, and whether every
response was counted. Target: the big lines add at most 100 MB to the peak (the reading target
of issue 3 is 200 MB in all), and no response is lost.

    .venv/bin/python bench/bench_usage_lines.py [--big-mb 50] [--big-lines 6] [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import Report, environment, mb, median, run, sessdex

EXTRA_RSS = 100 * 1024 * 1024
SESSION = "5e551011-0000-4000-8000-000000000001"
TURNS = 2000


def write_home(root: Path, big_lines: int, big_mb: int) -> None:
    """One transcript: TURNS small answers, and `big_lines` Task results of `big_mb` MB, each
    with its usage after the text, evenly among them."""
    folder = root / ".claude" / "projects" / "-w"
    folder.mkdir(parents=True)
    usage = {"input_tokens": 100, "output_tokens": 10}
    every = TURNS // (big_lines + 1) if big_lines else TURNS + 1
    big_text = "x" * (big_mb * 1024 * 1024)
    with open(folder / f"{SESSION}.jsonl", "w") as out:
        parent = None
        for n in range(TURNS):
            stamp = f"2026-11-{1 + n * 28 // TURNS:02d}T10:00:00Z"
            record = {
                "type": "assistant",
                "uuid": f"a{n}",
                "parentUuid": parent,
                "sessionId": SESSION,
                "cwd": "/w",
                "timestamp": stamp,
                "requestId": f"r{n}",
                "message": {
                    "id": f"m{n}",
                    "role": "assistant",
                    "model": "claude-sonnet-4-5",
                    "content": [{"type": "text", "text": "done"}],
                    "usage": usage,
                },
            }
            out.write(json.dumps(record) + "\n")
            parent = f"a{n}"
            if n % every == every - 1 and n // every < big_lines:
                result = {
                    "type": "user",
                    "uuid": f"u{n}",
                    "parentUuid": parent,
                    "sessionId": SESSION,
                    "cwd": "/w",
                    "timestamp": stamp,
                    "message": {
                        "role": "user",
                        "content": [
                            {"type": "tool_result", "tool_use_id": f"t{n}", "content": big_text}
                        ],
                    },
                    "toolUseResult": {
                        "status": "completed",
                        "content": [{"type": "text", "text": big_text}],
                        "usage": usage,
                    },
                }  # fmt: skip
                out.write(json.dumps(result) + "\n")
                parent = f"u{n}"


def measure(home: Path, state: Path, runs: int) -> tuple[list[int], list[float], int]:
    rss, seconds, responses = [], [], 0
    for _ in range(runs):
        shutil.rmtree(state, ignore_errors=True)
        result = run(
            sessdex("usage", "--json", "--home", str(home)),
            environment(state),
            keep_stdout=True,
            measure_rss=True,
        )
        if result.returncode != 0:
            raise SystemExit(f"sessdex usage failed: {result.stderr[-300:]}")
        rss.append(result.peak_rss)
        seconds.append(result.seconds)
        responses = sum(row["responses"] for row in json.loads(result.stdout))
    return rss, seconds, responses


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--big-mb", type=int, default=50)
    parser.add_argument("--big-lines", type=int, default=6)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    report = Report()
    work = Path(tempfile.mkdtemp(prefix="sessdex-bench-usage-lines-"))
    try:
        write_home(work / "plain", 0, args.big_mb)
        write_home(work / "big", args.big_lines, args.big_mb)
        size = sum(p.stat().st_size for p in (work / "big").rglob("*.jsonl"))
        report.note(
            f"transcript: {TURNS} answers, + {args.big_lines} Task results of {args.big_mb} MB"
            f" ({size / 1e6:.0f} MB in all)"
        )
        base_rss, base_s, base_n = measure(work / "plain", work / "state", args.runs)
        big_rss, big_s, big_n = measure(work / "big", work / "state", args.runs)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report.note(
        f"  without big lines: peak RSS median {mb(median(base_rss))}, {median(base_s):.2f} s, {base_n} responses"
    )
    report.note(
        f"  with big lines:    peak RSS median {mb(median(big_rss))}, {median(big_s):.2f} s, {big_n} responses"
    )
    extra = median(big_rss) - median(base_rss)
    report.check(
        "big marked lines add <= 100 MB of peak RSS",
        extra <= EXTRA_RSS,
        f"+{mb(extra)}",
    )
    report.check(
        "every response counted",
        big_n == base_n == TURNS,
        f"{big_n} with big lines, {base_n} without (of {TURNS}; the {args.big_lines}"
        f" Task results are not responses of this session)",
    )
    return report.summary()


if __name__ == "__main__":
    sys.exit(main())
