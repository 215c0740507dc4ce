"""What counting lines read with damage costs the JSON-lines readers, against a baseline
measured in the same run.

Lines that are valid UTF-8 never reach the repair path (orjson takes them), so counting
there must cost them nothing: (a) `files.iter_records` and (b) Claude's `records` over a
clean transcript, each as a ratio to a plain `orjson.loads` loop over the same lines;
(c) for information, `files.parse_json` over lines that each hold a byte that is not
UTF-8 (all repaired, all counted), as a ratio to the same loop over their clean twins.

Run it with this tree's Python and with an older one's to compare the ratios (the script
uses only what both have). Figures are medians of --runs runs. Usage:

    .venv/bin/python bench/bench_damaged.py [--lines 100000] [--runs 7]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import orjson

from sessdex import files
from sessdex.diagnostics import Diagnostics
from sessdex.sources import _claude_records

LINE = (
    '{"type":"assistant","uuid":"u%d","sessionId":"s","timestamp":"2026-11-20T10:00:00Z",'
    '"message":{"role":"assistant","content":[{"type":"text","text":"%s"}],'
    '"usage":{"input_tokens":10,"output_tokens":5}}}\n'
)


def _median(runs: int, work: Callable[[], object]) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _orjson_loop(path: Path) -> int:
    count = 0
    with path.open("rb") as stream:
        for line in stream:
            orjson.loads(line)
            count += 1
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    text = "caf\u00e9 au lait, " * 20
    with tempfile.TemporaryDirectory() as folder:
        clean = Path(folder) / "clean.jsonl"
        clean.write_bytes("".join(LINE % (n, text) for n in range(args.lines)).encode())
        damaged = Path(folder) / "damaged.jsonl"
        damaged.write_bytes(
            clean.read_bytes().replace(b"caf\xc3\xa9 au", b"caf\xe9 au")
        )
        base = _median(args.runs, lambda: _orjson_loop(clean))

        def iter_records() -> None:
            for _ in files.iter_records(clean, Diagnostics()):
                pass

        def claude_records() -> None:
            for _ in _claude_records.records(clean, Diagnostics(), full=False):
                pass

        def repaired() -> None:
            diagnostics = Diagnostics()
            with damaged.open("rb") as stream:
                for line in files.iter_lines(stream):
                    files.parse_json(line, diagnostics, str(damaged))

        print(
            f"{args.lines} lines, {clean.stat().st_size / 1e6:.1f} MB; medians of {args.runs}"
        )
        print(f"  orjson.loads loop (baseline)   {base * 1000:8.1f} ms")
        for label, work in (
            ("(a) files.iter_records, clean", iter_records),
            ("(b) claude records, clean", claude_records),
            ("(c) parse_json, every line not UTF-8", repaired),
        ):
            took = _median(args.runs, work)
            print(f"  {label:<38} {took * 1000:8.1f} ms  {took / base:5.2f}x baseline")


if __name__ == "__main__":
    main()
