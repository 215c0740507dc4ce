"""Reading a chat an app keeps as one JSON document (Cline's tasks, Amp's threads, Gemini's
and Qwen's first chats, Copilot's old history) in pieces, against parsing it whole.

Past 4 MB such a document is read one message at a time (`jsonstream`), so memory stays
with one message and a pasted image is its note. This prints what that costs and saves,
each in its own process, against `orjson.loads` of the whole file in the same run:

(a) CPU time of `jsonstream.file_items` over a document of ordinary messages vs one parse;
(b) peak RSS of the same two, and of both over a document holding one 50 MB string.

Figures are medians of --runs runs. Usage:

    .venv/bin/python bench/bench_documents.py [--mb 32] [--runs 5]
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

from _common import PYTHON, Report, median

PIECES_RATIO = 4.0  # the piece reader may cost this many whole parses, not more
RSS_RATIO = 0.25  # and must hold at most this share of what a whole parse holds

MEASURE = r"""
import resource, sys, time
how, path = sys.argv[1], sys.argv[2]
started = time.process_time()
if how == "whole":
    import orjson
    with open(path, "rb") as f:
        value = orjson.loads(f.read())
    count = len(value)
else:
    from sessdex import jsonstream
    from sessdex.diagnostics import Diagnostics
    count = sum(1 for _ in jsonstream.file_items(path, None, Diagnostics(), "bench"))
cpu = time.process_time() - started
print(cpu, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, count)
"""


def write_messages(path: Path, megabytes: int) -> int:
    """A Cline-like `ui_messages.json`: many messages, nested values, escaped text."""
    messages = []
    size = n = 0
    while size < megabytes * 1024 * 1024:
        text = json.dumps({"tool": "readFile", "path": f"src/m{n}.py",
                           "content": "x = 1\n" * (1 + n % 60)})  # fmt: skip
        message = {"ts": 1740470406000 + n, "type": "say", "say": "tool", "text": text,
                   "partial": False, "meta": {"a": [1, 2, {"b": "c"}]}}  # fmt: skip
        size += len(json.dumps(message)) + 2
        messages.append(message)
        n += 1
    path.write_text(json.dumps(messages))
    return n


def write_pasted(path: Path) -> None:
    """Three messages, one of them a 50 MB pasted image."""
    image = "iVBORw0KGgo" + "A" * (50 * 1024 * 1024)
    messages = [{"ts": 1, "type": "say", "say": "task", "text": "look"},
                {"ts": 2, "type": "say", "say": "text", "text": image},
                {"ts": 3, "type": "say", "say": "text", "text": "done"}]  # fmt: skip
    path.write_text(json.dumps(messages))


def measure(how: str, path: Path, runs: int) -> tuple[float, float]:
    """(median CPU seconds, median peak RSS bytes) of reading `path` `how`."""
    cpu, rss = [], []
    for _ in range(runs):
        done = subprocess.run(
            [PYTHON, "-c", MEASURE, how, str(path)],
            capture_output=True,
            text=True,
            check=True,
        )
        seconds, peak, _ = done.stdout.split()
        cpu.append(float(seconds))
        rss.append(float(peak))
    return median(cpu), median(rss)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=32)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--write", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.write:  # in a process of its own: a child's peak RSS starts at its parent's
        kind, path = args.write
        if kind == "pasted":
            write_pasted(Path(path))
        else:
            print(write_messages(Path(path), args.mb))
        return 0
    report = Report()
    with tempfile.TemporaryDirectory(prefix="sessdex-bench-documents-") as folder:
        ordinary, pasted = Path(folder) / "ordinary.json", Path(folder) / "pasted.json"
        written = subprocess.run(
            [
                PYTHON,
                __file__,
                "--mb",
                str(args.mb),
                "--write",
                "ordinary",
                str(ordinary),
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        count = int(written.stdout)
        subprocess.run([PYTHON, __file__, "--write", "pasted", str(pasted)], check=True)
        report.note(
            f"(a) {args.mb} MB of {count} messages, read in pieces vs parsed whole"
        )
        whole_cpu, whole_rss = measure("whole", ordinary, args.runs)
        piece_cpu, piece_rss = measure("pieces", ordinary, args.runs)
        ratio = piece_cpu / whole_cpu
        report.note(
            f"  orjson.loads whole: {whole_cpu:.2f} s CPU, {whole_rss / 2**20:.0f} MB"
        )
        report.note(
            f"  jsonstream pieces:  {piece_cpu:.2f} s CPU, {piece_rss / 2**20:.0f} MB"
        )
        report.check(
            f"pieces <= {PIECES_RATIO:g}x a whole parse",
            ratio <= PIECES_RATIO,
            f"{ratio:.2f}x",
        )
        report.note("(b) one 50 MB pasted string, peak RSS")
        _, whole_big = measure("whole", pasted, args.runs)
        _, piece_big = measure("pieces", pasted, args.runs)
        report.note(
            f"  whole: {whole_big / 2**20:.0f} MB, pieces: {piece_big / 2**20:.0f} MB"
        )
        for name, piece, whole in (
            ("ordinary messages", piece_rss, whole_rss),
            ("a 50 MB string", piece_big, whole_big),
        ):
            report.check(
                f"RSS in pieces <= {RSS_RATIO:g}x whole ({name})",
                piece <= RSS_RATIO * whole,
                f"{piece / whole:.2f}x",
            )
    return report.summary()


if __name__ == "__main__":
    sys.exit(main())
