"""Memory a big Claude Code lead costs `export` and `tree`, in MB per GB of transcript.

For each --mb size, one Claude Code lead, in a temp dir, deleted after: a 2.1 fixture's
turns repeated with fresh ids as one chain (lines of 0.1 to 5 KB), or with --corpus
`make_corpus.py --real-bytes`'s real lines (some of them MBs: their parse, not the lines'
count, is then most of the peak). For each of --runs runs:

  cold      `sessdex export ID -f json` with a fresh state: the survey (the first pass that
            finds rewound turns) runs over the whole file and is kept in the cache;
  warm      `sessdex tree ID` after it: the survey taken from the cache;
  baseline  a `for line in file` loop over the same file, in a process that has imported
            what the commands import.

Printed: the medians, and what each GB more of transcript adds to each command's peak
RSS above the loop's, between the smallest and the largest size (the fixed cost aside):
memory held per line. Target: at most --target MB a GB (default 100) for each. Usage:

    .venv/bin/python bench/bench_claude_survey_memory.py [--mb 100 300] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import HERE, PYTHON, Report, environment, mb, median, run, sessdex

LOOP = (
    "import sys, sessdex.cli, sessdex.sources.claude\n"
    "with open(sys.argv[1], 'rb') as f:\n"
    "    for line in f:\n"
    "        pass\n"
)


TURNS = (
    HERE.parent / "tests/data/claude/home/.claude/projects/-home-alex-code-shop-api"
    / "a82be759-b0cd-4d2b-9219-abad61d191d4.jsonl"
)  # fmt: skip
ID = re.compile(
    rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
    rb"|(?:msg|req|toolu)_[0-9A-Za-z]{10,}"
)
STAMP = re.compile(rb'"timestamp":"[^"]+"')
OWN = re.compile(rb'"uuid":"([^"]+)"')


def repeated(work: Path, megabytes: float) -> tuple[Path, Path]:
    """A lead of real turns (a Claude Code 2.1 fixture's) repeated to the size, each copy
    with fresh ids and times and its first prompt under the copy before: one chain."""
    head, *body = TURNS.read_bytes().splitlines()
    session = TURNS.stem.encode()
    path = work / f"claude-{megabytes:g}" / "home/.claude/projects/-shop" / TURNS.name
    path.parent.mkdir(parents=True)
    written, copy, last = 0, 0, b""
    with open(path, "wb") as out:
        out.write(head + b"\n")
        while written < megabytes * (1 << 20):
            swap = _swapper(session, b"%08x" % copy)
            for n, line in enumerate(body):
                second = copy * len(body) + n
                stamp = b"2026-01-%02dT%02d:%02d:%02d.000Z" % (
                    1 + second // 86400,
                    second // 3600 % 24,
                    second // 60 % 60,
                    second % 60,
                )
                line = STAMP.sub(b'"timestamp":"' + stamp + b'"', ID.sub(swap, line))
                if last and b'"parentUuid":null' in line:
                    line = line.replace(b"null", b'"' + last + b'"', 1)
                if (own := OWN.search(line)) is not None:
                    last = own.group(1)
                out.write(line + b"\n")
                written += len(line) + 1
            copy += 1
    return path.parents[3], path


def _swapper(session: bytes, tail: bytes) -> Callable[[re.Match[bytes]], bytes]:
    """Each id but the session's given `tail` for its last 8 characters, alike each time."""
    fresh: dict[bytes, bytes] = {}

    def swap(found: re.Match[bytes]) -> bytes:
        old = found.group(0)
        return old if old == session else fresh.setdefault(old, old[:-8] + tail)

    return swap


def transcript(work: Path, megabytes: float) -> tuple[Path, Path]:
    out = work / f"claude-{megabytes:g}"
    subprocess.run(
        [PYTHON, str(HERE / "make_corpus.py"), str(out), "--real-bytes", str(megabytes),
         "--real-app", "claude", "--force"],
        check=True, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    manifest = json.loads((out / "manifest.json").read_bytes())
    return out / "home", Path(manifest["sessions"][0]["path"])


def measure(report: Report, work: Path, megabytes: float, runs: int, corpus: bool) -> dict[str, float]:  # fmt: skip
    """Median peak RSS of each command and of the loop, with the file's size and lines."""
    home, path = (transcript if corpus else repeated)(work, megabytes)
    with open(path, "rb") as lines:
        count = sum(1 for _ in lines)
    report.note(f"{path.stat().st_size / 1e6:.0f} MB, {count:,} lines, {path.name}")
    peaks: dict[str, list[float]] = {"cold": [], "warm": [], "baseline": []}
    for i in range(runs):
        state = environment(work / f"state-{i}")
        for name, argv in (
            ("cold", ["export", path.stem, "-f", "json", "-o", os.devnull]),
            ("warm", ["tree", path.stem]),
        ):
            done = run(sessdex(*argv, "--home", str(home)), state, measure_rss=True)
            if done.returncode != 0:
                raise SystemExit(f"{name} failed: {done.stderr[-500:]}")
            peaks[name].append(done.peak_rss)
            report.note(
                f"  run {i + 1} {name}: {mb(done.peak_rss)}, {done.seconds:.1f} s"
            )
        loop = run([PYTHON, "-c", LOOP, str(path)], environment(), measure_rss=True)
        peaks["baseline"].append(loop.peak_rss)
        shutil.rmtree(work / f"state-{i}", ignore_errors=True)
    figures = {name: median(values) for name, values in peaks.items()}
    report.note(", ".join(f"  {name} {mb(value)}" for name, value in figures.items()))
    return {**figures, "size": path.stat().st_size, "lines": count}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, nargs="+", default=[100, 300])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--target", type=float, default=100, help="MB a GB, at most")
    parser.add_argument(
        "--corpus",
        action="store_true",
        help="make_corpus.py's real lines (some of MBs) instead of a fixture's turns",
    )
    args = parser.parse_args()
    report = Report()
    work = Path(tempfile.mkdtemp(prefix="sessdex-bench-claude-survey-"))
    try:
        sizes = []
        for megabytes in sorted(args.mb):
            sizes.append(measure(report, work, megabytes, args.runs, args.corpus))
            shutil.rmtree(work / f"claude-{megabytes:g}", ignore_errors=True)
        small, big = sizes[0], sizes[-1]
        gigabytes = (big["size"] - small["size"]) / (1 << 30)
        for name in ("cold", "warm"):
            # the slope between the sizes: what each GB more costs, the fixed part aside
            more = (big[name] - big["baseline"]) - (small[name] - small["baseline"])
            per_gb = more / (1 << 20) / gigabytes if gigabytes else 0.0
            lines = big["lines"] - small["lines"]
            report.check(
                f"{name}: MB per GB of transcript <= {args.target:g}",
                per_gb <= args.target,
                f"{per_gb:.0f} MB a GB ({more / lines if lines else 0:.0f} bytes a line)",
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return report.summary()


if __name__ == "__main__":
    sys.exit(main())
