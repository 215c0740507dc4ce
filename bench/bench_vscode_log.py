"""Listing a big VS Code chat log (`.jsonl`, 1.109+): the log is replayed to one state,
so every line is applied; a listing passes over unparsed what a request's response or
result became (the bulk of a log) and elides the long strings of any other long line.

A log of --mb MB as ObjectMutationLog writes one (compact JSON, `kind` then `k`): a state
of 2,000 requests, then --lines pushes of a tool call's output onto the last response.
Listed with `vscode.parse` in a child process (wall time, peak RSS), vs reading the file's
bytes alone. Targets: peak RSS under 100 MB whatever the log's size; wall time within
3 x the bytes read. Run it with `PYTHONPATH=<older checkout>/src` for that tree's figures.

    .venv/bin/python bench/bench_vscode_log.py [--mb 200] [--lines 500]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

T0 = 1_795_000_000_000
CHILD = """
import resource, sys, time
from pathlib import Path
from sessdex.diagnostics import Diagnostics
from sessdex.sources import Home, vscode
path = Path(sys.argv[1])
start = time.perf_counter()
if sys.argv[2] == "bytes":
    path.read_bytes()
else:
    (session,) = vscode.parse(path, vscode.locate(Home.at(path.parents[5])), Diagnostics())
took = time.perf_counter() - start
print(took, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
"""


def request(number: int) -> dict[str, object]:
    arguments = json.dumps({"command": "ls " * 30})
    return {
        "requestId": f"request_{number}", "timestamp": T0 + number * 1000,
        "modelId": "copilot/claude-sonnet-4",
        "message": {"text": f"prompt {number} " + "word " * 50},
        "response": [{"value": "answer " * 60},
                     {"kind": "toolInvocationSerialized", "toolCallId": f"c{number}",
                      "toolId": "run_in_terminal", "isComplete": True}],
        "result": {"metadata": {"toolCallRounds": [{"id": f"r{number}", "response": "",
                   "toolCalls": [{"id": f"c{number}", "name": "run_in_terminal",
                                  "arguments": arguments}]}]}},
    }  # fmt: skip


def build(path: Path, megabytes: int, lines: int) -> None:
    path.parent.mkdir(parents=True)
    dump = json.JSONEncoder(separators=(",", ":")).encode
    requests = [request(n) for n in range(2000)]
    size = max(1, (megabytes << 20) // lines - 200)
    state = {"version": 3, "sessionId": "big", "creationDate": T0, "requests": requests}
    with path.open("w", encoding="utf-8") as file:
        file.write(dump({"kind": 0, "v": state}) + "\n")
        for number in range(lines):
            part = {"kind": "toolInvocationSerialized", "toolCallId": f"out{number}",
                    "toolId": "run_in_terminal", "isComplete": True,
                    "resultDetails": {"output": [{"value": "a line of output\n" * (size // 17)}]}}  # fmt: skip
            entry = {"kind": 2, "k": ["requests", 1999, "response"], "v": [part]}
            file.write(dump(entry) + "\n")


def child(path: Path, what: str) -> tuple[float, int]:
    out = subprocess.run([sys.executable, "-c", CHILD, str(path), what],
                         check=True, capture_output=True, text=True).stdout.split()  # fmt: skip
    return float(out[0]), int(out[1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=200)
    parser.add_argument("--lines", type=int, default=500)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        chats = Path(folder, "home/.config/Code/User/workspaceStorage/w/chatSessions")
        path = chats / "big.jsonl"
        build(path, args.mb, args.lines)
        size = path.stat().st_size
        base, _ = child(path, "bytes")
        took, rss = child(path, "parse")
    print(
        f"log {size / 2**20:.0f} MB: listed in {took:.2f} s ({took / base:.1f} x reading"
        f" its bytes, {base:.2f} s), peak RSS {rss / 2**20:.0f} MB"
    )


if __name__ == "__main__":
    main()
