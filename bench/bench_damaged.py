"""What counting lines read with damage costs the JSON-lines readers, against a baseline
measured in the same run.

Lines that are valid UTF-8 never reach the repair path (orjson takes them), so counting
there must cost them nothing: (a) `files.iter_records` and (b) Claude's `records` over a
clean transcript, each as a ratio to a plain `orjson.loads` loop over the same lines;
(c) for information, `files.parse_json` over lines that each hold a byte that is not
UTF-8 (all repaired, all counted), as a ratio to the same loop over their clean twins.
The other readers that count damage, each on clean input against the same baseline:
(d) Claude's and (e) Codex's `usage` scans, (f) a JSON document read in pieces
(`jsonstream.array_items`), (g) OpenCode's part files (`files.read_json_compacted`)
and (h) Claude's listing (`parse`) of many small transcripts. (i) What `doctor --deep`
adds to its full read of a transcript to name by its number a bad line the listing
named by its byte (the last line: `checkup._number_by_bytes`), the read's diagnostics
given; where the read said where that line starts, nothing is read again.

Run it with this tree's Python and with an older one's to compare the ratios (the script
uses only what both have). Figures are medians of --runs runs. Usage:

    .venv/bin/python bench/bench_damaged.py [--lines 100000] [--runs 7]
"""

from __future__ import annotations

import argparse
import io
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import orjson

from sessdex import checkup, files, jsonstream
from sessdex.diagnostics import Diagnostics, at_byte
from sessdex.sources import _claude_records, _claude_usage, _codex_usage, claude
from sessdex.sources.base import Location

LINE = (
    '{"type":"assistant","uuid":"u%d","sessionId":"s","timestamp":"2026-11-20T10:00:00Z",'
    '"message":{"role":"assistant","content":[{"type":"text","text":"%s"}],'
    '"usage":{"input_tokens":10,"output_tokens":5}}}\n'
)


CODEX = (
    '{"timestamp":"2026-11-30T08:10:40.474Z","type":"turn_context","payload":'
    '{"model":"gpt-5.5","cwd":"/w/caf\u00e9"}}\n'
    '{"timestamp":"2026-11-30T08:10:40.590Z","type":"event_msg","payload":'
    '{"type":"token_count","info":{"total_token_usage":{"input_tokens":%d,'
    '"cached_input_tokens":0,"output_tokens":30,"reasoning_output_tokens":0,'
    '"total_tokens":1230},"last_token_usage":{"input_tokens":1200,'
    '"cached_input_tokens":0,"output_tokens":30,"reasoning_output_tokens":0,'
    '"total_tokens":1230}}}}\n'
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

        rollout = Path(folder) / "rollout.jsonl"
        rollout.write_text(
            "".join(CODEX % (1200 * n) for n in range(args.lines // 2)),
            encoding="utf-8",
        )
        document = (
            b'{"messages":[' + clean.read_bytes().replace(b"\n", b",")[:-1] + b"]}"
        )
        parts = Path(folder) / "parts"
        parts.mkdir()
        for n in range(args.lines // 100):
            (parts / f"{n}.json").write_bytes(LINE.encode() % (n, text.encode()))
        home = Path(folder) / "home"
        projects = home / ".claude" / "projects" / "-w"
        projects.mkdir(parents=True)
        head = clean.read_bytes()[: len(LINE % (0, text)) * 20]
        user = b'{"type":"user","sessionId":"s","cwd":"/w","timestamp":"2026-11-20T10:00:00Z","message":{"role":"user","content":"caf\xc3\xa9 title"}}\n'
        for n in range(args.lines // 100):
            (projects / f"{n:08d}-0000-4000-8000-000000000000.jsonl").write_bytes(
                user + head
            )
        location = Location(root=home / ".claude")
        transcripts = sorted(projects.iterdir())
        if not claude.parse(transcripts[0], location, Diagnostics()):
            raise SystemExit("the listing found no session: (h) would time nothing")

        def claude_usage() -> None:
            _claude_usage.usage_records(clean, Diagnostics())

        def codex_usage() -> None:
            _codex_usage.usage_records(rollout, Diagnostics())

        def in_pieces() -> None:
            items = jsonstream.array_items(
                io.BytesIO(document), "messages", diagnostics=Diagnostics(), path="d"
            )
            for _ in items:
                pass

        def part_files() -> None:
            diagnostics = Diagnostics()
            for path in parts.iterdir():
                files.read_json_compacted(path, diagnostics=diagnostics)

        def listing() -> None:
            diagnostics = Diagnostics()
            for path in transcripts:
                claude.parse(path, location, diagnostics)

        # a bad last line, as a crash leaves one: the deep read names it by its number
        broken = Path(folder) / "broken.jsonl"
        last = clean.stat().st_size
        broken.write_bytes(clean.read_bytes() + b'{"type":"user", broken\n{}\n')
        deep = Diagnostics()
        for _ in _claude_records.records(broken, deep, full=True):
            pass

        def numbering() -> None:
            listed = Diagnostics()
            listed.skip(str(broken), at_byte(last), "not JSON")
            checkup._number_by_bytes(listed, deep)
            if listed.details[0][1] != args.lines + 1:
                raise SystemExit(f"(i) named the line {listed.details[0][1]}")

        print(
            f"{args.lines} lines, {clean.stat().st_size / 1e6:.1f} MB; medians of {args.runs}"
        )
        print(f"  orjson.loads loop (baseline)   {base * 1000:8.1f} ms")
        for label, work in (
            ("(a) files.iter_records, clean", iter_records),
            ("(b) claude records, clean", claude_records),
            ("(c) parse_json, every line not UTF-8", repaired),
            ("(d) claude usage scan, clean", claude_usage),
            ("(e) codex usage scan, clean", codex_usage),
            ("(f) jsonstream.array_items, clean", in_pieces),
            (f"(g) read_json_compacted, {args.lines // 100} files", part_files),
            (f"(h) claude listing, {args.lines // 100} files", listing),
            ("(i) doctor --deep: numbering a tail line", numbering),
        ):
            took = _median(args.runs, work)
            print(f"  {label:<38} {took * 1000:8.1f} ms  {took / base:5.2f}x baseline")


if __name__ == "__main__":
    main()
