"""What each turn of a big OpenCode database session adds to the peak RSS of the
commands that read it whole, in bytes a turn (a prompt and an answer of 4 tool parts:
2 message rows, 5 part rows).

Two homes, in a temp dir, deleted after: the real OpenCode home (1.18.33) with its first
session grown by --small and --big turns (`home`; with --every N, an automatic
compaction after each N turns), the index built once. For each of --runs rounds, each
build (this tree; with --baseline-src, an older checkout's src/ too, alternating) runs,
each a fresh process:

  show   `sessdex show ID --json`
  tree   `sessdex tree ID`
  usage  `sessdex usage session --explain ID --json`

Printed: the median peak RSS and CPU of each, and what each turn more adds between the
two sizes (the fixed cost aside); each build's outputs are compared byte for byte with
this tree's. Target: at most --target bytes a turn (default 50) with --every; without,
for information (each message since the last compaction is held for the next one's
counts). Usage:

    .venv/bin/python bench/bench_opencode_rows_memory.py [--small 10000] [--big 40000]
        [--every 20] [--runs 3] [--baseline-src OLD/src]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bench_whole
from _common import ROOT, Report, environment, mb, median, run, sessdex

PARTS = 4  # tool parts an answer
COMMANDS = {
    "show": ["show", bench_whole.OPENCODE_SESSION, "--json"],
    "tree": ["tree", bench_whole.OPENCODE_SESSION],
    "usage": ["usage", "session", "--explain", bench_whole.OPENCODE_SESSION, "--json"],
}


def home(work: Path, turns: int, every: int) -> Path:
    """The real OpenCode home, its first session grown by `turns` turns: a prompt, then
    an answer of `PARTS` tool parts of a few hundred bytes (no huge value); after each
    `every` turns (0: never) an automatic compaction, its request and its summary,
    keeping the last turn."""
    out = work / f"opencode-{turns}" / "home"
    shutil.copytree(bench_whole.OPENCODE, out)
    db = sqlite3.connect(out / ".local" / "share" / "opencode" / "opencode.db")
    session = bench_whole.OPENCODE_SESSION
    (at,) = db.execute(
        "SELECT max(time_created) FROM message WHERE session_id = ?", (session,)
    ).fetchone()
    messages: list[tuple[object, ...]] = []
    parts: list[tuple[object, ...]] = []

    def add(info: dict[str, object], *data: dict[str, object]) -> str:
        message = f"msg_zz{len(messages):09d}"
        created = at + len(messages) + 1
        messages.append((message, session, created, created, json.dumps(info)))
        for part in data:
            parts.append((f"prt_zz{len(parts):09d}", message, session, created,
                          created, json.dumps(part)))  # fmt: skip
        return message

    prompts: list[str] = []
    for turn in range(1, turns + 1):
        prompts.append(add({"role": "user"}, {"type": "text", "text": f"turn {turn}"}))
        add(
            {"role": "assistant", "finish": "stop"},
            *(
                {"type": "tool", "callID": f"call_{turn}_{n}", "tool": "bash",
                 "state": {"status": "completed", "input": {"command": f"echo {n}"},
                           "output": f"line {n}\n" * 20, "title": f"echo {n}"}}
                for n in range(PARTS)
            ),
        )  # fmt: skip
        if every and turn % every == 0:
            request = {"type": "compaction", "auto": True, "tail_start_id": prompts[-1]}
            add({"role": "user"}, request)
            add({"role": "assistant", "summary": True, "finish": "stop"},
                {"type": "text", "text": "summary"})  # fmt: skip
    db.executemany("INSERT INTO message VALUES (?, ?, ?, ?, ?)", messages)
    db.executemany("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", parts)
    db.commit()
    db.close()
    return out


def measure(
    report: Report, at: Path, builds: list[tuple[str, Path]], runs: int
) -> dict[tuple[str, str], tuple[float, float]]:
    """(build, command) -> median peak RSS and CPU; a build's output unlike this tree's
    is said."""
    state = environment(at.parent / "state")
    run(sessdex("list", "--json", "--home", str(at)), state)  # the index, once
    peaks: dict[tuple[str, str], list[float]] = {}
    cpus: dict[tuple[str, str], list[float]] = {}
    outputs: dict[str, bytes] = {}  # each command's output's digest, this tree's
    for _ in range(runs):
        for build, src in builds:
            env = dict(state, PYTHONPATH=str(src))
            for name, argv in COMMANDS.items():
                done = run(
                    sessdex(*argv, "--home", str(at)),
                    env,
                    keep_stdout=True,
                    measure_rss=True,
                )
                if done.returncode != 0:
                    raise SystemExit(f"{build} {name}: {done.stderr[-500:]}")
                peaks.setdefault((build, name), []).append(done.peak_rss)
                cpus.setdefault((build, name), []).append(done.cpu)
                digest = hashlib.sha256(done.stdout).digest()
                if outputs.setdefault(name, digest) != digest:
                    report.check(
                        f"{build} {name}: output as this tree's", False, "differs"
                    )
    return {key: (median(peaks[key]), median(cpus[key])) for key in peaks}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", type=int, default=10_000, help="turns")
    parser.add_argument("--big", type=int, default=40_000, help="turns")
    parser.add_argument(
        "--every", type=int, default=0, help="turns between compactions (0: none)"
    )
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--target", type=float, default=50, help="bytes a turn, at most"
    )
    parser.add_argument("--baseline-src", type=Path, help="an older checkout's src/")
    args = parser.parse_args()
    report = Report()
    builds = [("tree", ROOT / "src")]
    if args.baseline_src is not None:
        builds.append(("baseline-src", args.baseline_src.resolve()))
    work = Path(tempfile.mkdtemp(prefix="sessdex-opencode-rows-"))
    try:
        figures = {
            turns: measure(report, home(work, turns, args.every), builds, args.runs)
            for turns in (args.small, args.big)
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)
    turns = args.big - args.small
    for build, _ in builds:
        for name in COMMANDS:
            small, big = figures[args.small][(build, name)], figures[args.big][(build, name)]  # fmt: skip
            each = (big[0] - small[0]) / turns
            report.note(
                f"{build} {name}: {mb(small[0])} at {args.small:,} turns, "
                f"{mb(big[0])} at {args.big:,}: {each:.0f} bytes a turn; "
                f"CPU {small[1]:.2f} s, {big[1]:.2f} s"
            )
            if build == "tree" and args.every:
                report.check(
                    f"{name}: <= {args.target:g} bytes a turn",
                    each <= args.target,
                    f"{each:.0f}",
                )
    return report.summary()


if __name__ == "__main__":
    raise SystemExit(main())
