"""A sparse transcript: two turns, a hole of NUL bytes the disk never stored, a last line
(`truncate -s 64G` after real lines), or the hole at its end (a file preallocated, its
last writes never made). `list --json`, `show --json` and `usage --json` over
it, each in its own process: wall time and bytes read (`rchar`, Linux), with the hole
passed over (SEEK_HOLE) against the same command where holes are not seen (as on a
system without SEEK_HOLE, `tests/holes_unseen`), which reads it through.

Usage: .venv/bin/python bench/bench_sparse.py [--gb 64] [--unseen-gb 1]

The read through is timed on a smaller hole (`--unseen-gb`): it costs about the same
per GB, and minutes at 64 GB. Target: each command with the hole passed over within
1.5x of the same command over the transcript without a hole.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import PYTHON, ROOT, environment, load, sessdex

SESSION = "5a5a5a5a-0000-4000-8000-00000000005a"
GB = 1024**3


def _read_so_far() -> int:
    """Bytes read through read calls by this process and the children it waited for."""
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    return 0


def _line(kind: str, uuid: str, text: str) -> bytes:
    message: dict[str, object] = {"role": kind, "content": text}
    if kind == "assistant":
        message = {
            "id": f"msg_{uuid}",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": text}],
            "usage": {"input_tokens": 10, "output_tokens": 5},
        }
    record = {
        "type": kind,
        "uuid": uuid,
        "sessionId": SESSION,
        "cwd": "/w/sparse",
        "timestamp": "2026-11-20T10:00:00.000Z",
        "message": message,
    }
    return json.dumps(record).encode() + b"\n"


def _home(root: Path, hole: int, *, after: bool = True) -> Path:
    home = root / f"home-{hole}-{after}"
    folder = home / ".claude" / "projects" / "-w-sparse"
    folder.mkdir(parents=True)
    with open(folder / f"{SESSION}.jsonl", "wb") as stream:
        stream.write(_line("user", "u1", "hello") + _line("assistant", "a1", "hi"))
        if after:
            stream.seek(hole, os.SEEK_CUR)
            stream.write(b"\n" + _line("assistant", "a2", "after the hole"))
        else:
            stream.truncate(stream.tell() + hole)
    return home


def _measure(args: list[str], home: Path, env: dict[str, str]) -> tuple[float, int]:
    before, start = _read_so_far(), time.monotonic()
    done = subprocess.run(
        sessdex(*args, "--home", str(home)), env=env, capture_output=True
    )
    if done.returncode != 0:
        sys.exit(f"{args} failed: {done.stderr.decode(errors='replace')}")
    return time.monotonic() - start, _read_so_far() - before


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--gb", type=int, default=64)
    parser.add_argument("--unseen-gb", type=int, default=1)
    options = parser.parse_args()
    print(f"{load()}; {PYTHON}")
    unseen = str(ROOT / "tests" / "holes_unseen")
    commands = (["list", "--json"], ["show", SESSION, "--json"], ["usage", "--json"])
    with tempfile.TemporaryDirectory() as work:
        root = Path(work)
        cases = (
            ("no hole", 0, {}, True),
            (f"{options.gb} GB hole, passed over", options.gb * GB, {}, True),
            (f"{options.gb} GB hole at the end", options.gb * GB, {}, False),
            (
                f"{options.unseen_gb} GB hole, read through",
                options.unseen_gb * GB,
                {"PYTHONPATH": unseen},
                True,
            ),
        )
        for label, hole, extra, after in cases:
            home = _home(root, hole, after=after)
            env = environment(root / f"state-{hole}-{after}")
            if extra:
                env["PYTHONPATH"] = extra["PYTHONPATH"] + os.pathsep + env["PYTHONPATH"]
            for args in commands:
                seconds, read = _measure(args, home, env)
                print(
                    f"{label:32} {args[0]:6} {seconds:7.2f} s"
                    f" {read / 1024 / 1024:9.1f} MB read"
                )


if __name__ == "__main__":
    main()
