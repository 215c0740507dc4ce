"""Listing an Aider chat log: one pass over the whole file, each line tested for UTF-8.

Aider appends every run to one `.aider.chat.history.md`, so listing reads it whole to
find the runs, and each line that is not ASCII is decoded to tell whether it is UTF-8
(a line that is not is counted). Parsed in-process with `aider.parse`: a log of --mb MB
made of the fixture's runs, each with 600 more reply lines, a third of all lines holding
non-ASCII text (an em dash, an emoji), vs the bare loop over the same lines
(`files.iter_lines`, one `startswith` each). Target: within 2 x the loop. Medians of
--runs, CPU time; run it with `PYTHONPATH=<older checkout>/src` for that tree's figures.
With --encoding, the log is written in that encoding (what it cannot hold dropped, as
aider drops it), and the home's `.aider.conf.yml` names it.

    .venv/bin/python bench/bench_aider.py [--mb 50] [--runs 5] [--encoding latin-1]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from sessdex import files
from sessdex.diagnostics import Diagnostics
from sessdex.sources import Home, aider

FIXTURE = Path(__file__).parent.parent / "tests" / "data" / "aider" / "home"
TARGET = 2.0


def build(home: Path, megabytes: int, encoding: str = "utf-8") -> Path:
    (home / ".aider").mkdir(parents=True)
    if encoding != "utf-8":
        (home / ".aider.conf.yml").write_text(f"encoding: {encoding}\n")
    past_ascii = " \u00e9t\u00e9 \u2014 \U0001f680".encode(encoding, "ignore")
    reply = b"The function returns the count of tokens in `text`, images priced apart."
    lines = []
    for line in (FIXTURE / aider.HISTORY).read_bytes().split(b"\n"):
        lines.append(line)
        if line.startswith(b"# aider chat started at "):
            lines += [b"", b"#### explain it  ", b"", *[reply] * 600, b""]
    for n in range(0, len(lines), 3):
        if not lines[n].startswith(b"# aider chat started at "):
            lines[n] += past_ascii
    block = b"\n".join(lines)
    path = home / aider.HISTORY
    with path.open("wb") as stream:
        for _ in range(megabytes * 1_000_000 // len(block) + 1):
            stream.write(block)
    return path


def loop(path: Path) -> None:
    with files.open_regular(path) as stream:
        for line in files.iter_lines(stream):
            line.data.startswith(b"# aider chat started at ")


def timed(work: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.process_time()
        work()
        times.append(time.process_time() - start)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=50)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--encoding", default="utf-8")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sessdex-bench-aider-") as folder:
        home = Path(folder) / "home"
        path = build(home, args.mb, args.encoding)
        location = aider.locate(Home.at(home))
        diagnostics = Diagnostics()
        listed = len(aider.parse(path, location, diagnostics))
        assert diagnostics.skipped_total == 0, diagnostics.skipped
        assert diagnostics.damaged_total == 0, diagnostics.damaged
        bare = timed(lambda: loop(path), args.runs)
        parsed = timed(lambda: aider.parse(path, location, Diagnostics()), args.runs)
    ratio = parsed / bare
    print(f"{args.mb} MB log in {args.encoding}, {listed} runs")
    print(f"  iter_lines loop  {bare * 1000:8.1f} ms")
    print(f"  aider.parse      {parsed * 1000:8.1f} ms  ({ratio:.2f} x)")
    ok = ratio <= TARGET
    print(f"{'PASS' if ok else 'FAIL'}: parse <= {TARGET} x the loop")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
