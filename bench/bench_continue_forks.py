"""Continue forks cut before their running totals: what reading a folder of them costs.

A `cn --fork` copy whose file is cut before its totals (`usage`, last in the document)
finds the responses it copied by comparing its history with the sessions beside it. A
home of --sessions N chat files in one folder, made from the real fixture: one source,
N / 2 forks of it, N / 4 of those cut before their totals, the rest other chats (their
first prompt their own). Every session read (`continue_.read`), as `usage` reads them,
within one `folders.one_pass`, in a process of its own: the files of the folder opened
(an audit hook counts them) and the CPU, medians of --runs; each session's usage summed
(the same with `--baseline-src`). Target: opens grow as N, not as N times the cut ones.

    .venv/bin/python bench/bench_continue_forks.py [--sessions 100 400] [--runs 3]
        [--baseline-src OLD/src]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "data" / "continue" / "home" / ".continue" / "sessions"
SOURCE = "4f5fc9a5-a39f-4520-a3f4-893c822b4150"  # 4 responses
FORK = "51ef62d5-b480-45bf-b5d2-84868e10cde8"  # its fork: 6 responses, 4 copies


def build(folder: Path, sessions: int) -> int:
    """The home's sessions folder; the number of forks cut before their totals."""
    folder.mkdir(parents=True)
    source = json.loads((FIXTURE / f"{SOURCE}.json").read_text())
    fork = json.loads((FIXTURE / f"{FORK}.json").read_text())
    listed = []
    forks, cut = sessions // 2, sessions // 4

    def write(value: dict[str, object], number: int, cut_short: bool) -> None:
        session_id = f"{number:08d}-0000-4000-8000-000000000000"
        value = {**value, "sessionId": session_id}
        data = json.dumps(value, indent=2).encode()
        if cut_short:
            data = data[: data.index(b'\n  "usage"')]
        (folder / f"{session_id}.json").write_bytes(data)
        made = str(1796466445402 + number * 1000)
        listed.append({"sessionId": session_id, "title": "t", "dateCreated": made})

    write(source, 0, False)
    for number in range(1, sessions):
        if number <= forks:  # its own prompt after the copies: its own responses
            own = json.loads(json.dumps(fork))
            own["history"][len(source["history"])]["message"]["content"] += (
                f" ({number})"
            )
            write(own, number, number > forks - cut)  # the later ones
        else:  # another chat: its first prompt its own
            other = json.loads(json.dumps(source))
            other["history"][0]["message"]["content"] += f" ({number})"
            write(other, number, False)
    (folder / "sessions.json").write_text(json.dumps(listed, indent=2))
    return cut


CHILD = """
import json, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from sessdex import folders
from sessdex.diagnostics import Diagnostics
from sessdex.sources import Home, continue_

home, folder = Path(sys.argv[2]), Path(sys.argv[2]) / ".continue" / "sessions"
location = continue_.locate(Home.at(home))
sessions = [
    s for path in sorted(folder.iterdir()) if path.name != "sessions.json"
    for s in continue_.parse(path, location, Diagnostics())
]
opened = [0]
inside = str(folder)

def hook(event, args):
    if event == "open" and isinstance(args[0], str) and args[0].startswith(inside):
        opened[0] += 1

sys.addaudithook(hook)
start = time.process_time()
sums = {}
with folders.one_pass():
    for session in sessions:
        events = continue_.read(session, Diagnostics())
        usage = [e.usage for e in events if e.kind == "usage" and e.usage]
        sums[session.id] = [sum(u.input_tokens for u in usage), sum(u.output_tokens for u in usage)]
cpu = time.process_time() - start
print(json.dumps({"opens": opened[0], "cpu": cpu, "sums": sums}))
"""


def measure(src: Path, home: Path) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(src), str(home)],
        capture_output=True,
        check=True,
        text=True,
    )
    found = json.loads(done.stdout)
    assert isinstance(found, dict)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, nargs="+", default=[100, 400])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--baseline-src", type=Path, help="an older checkout's src/")
    args = parser.parse_args()
    builds = [("this tree", ROOT / "src")]
    if args.baseline_src:
        builds.append(("baseline", args.baseline_src))
    linear = True
    for sessions in args.sessions:
        with tempfile.TemporaryDirectory() as temporary:
            home = Path(temporary) / "home"
            cut = build(home / ".continue" / "sessions", sessions)
            print(f"{sessions} sessions, {cut} forks cut before their totals:")
            sums = []
            for name, src in builds:
                runs = []
                for _ in range(args.runs):  # alternating builds would share the cache
                    runs.append(measure(src, home))
                opens = int(runs[0]["opens"])  # type: ignore[call-overload]
                cpu = statistics.median(float(r["cpu"]) for r in runs)  # type: ignore[arg-type]
                sums.append(runs[0]["sums"])
                print(
                    f"  {name:10} {opens:7} files opened ({opens / sessions:.1f} a"
                    f" session), CPU {cpu * 1000:8.1f} ms (median of {args.runs})"
                )
                if name == "this tree":
                    linear = linear and opens <= 4 * sessions
            if len(sums) == 2:
                differ = [k for k in sums[0] if sums[0][k] != sums[1].get(k)]  # type: ignore[index,union-attr]
                print(f"  usage summed alike: {not differ} {differ[:3]}")
                for key in differ[:3]:
                    print(f"    {key}: {sums[0][key]} vs {sums[1][key]}")  # type: ignore[index]
    print("target: at most 4 files opened a session, whatever the count")
    return 0 if linear else 1


if __name__ == "__main__":
    raise SystemExit(main())
