"""Many Mistral Vibe `/branch` forks of one legacy session: what a cold listing costs.

The listing of a fork names the session it came from by that session's chain's newest
folder, so it looks at every folder naming the same session (one may have continued it,
compacted). The fixture's session and --forks N copies of its fork, every meta.json
parsed (`vibe.parse`) in a process of its own: the files of the save folder opened (an
audit hook counts them) and the CPU, medians of --runs; `--baseline-src OLD/src` that
build too. Target: files opened grow as N (the CPU, which the folders naming the session
looked at once for all its forks keeps linear too, for information).

    .venv/bin/python bench/bench_vibe_forks.py [--forks 40 160 320] [--runs 3]
        [--baseline-src OLD/src]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAVED = ROOT / "tests" / "data" / "vibe" / "home" / ".vibe" / "logs" / "session"
OLDER = "session_20261201_100000_3f1c2a9e"
FORK = "session_20261201_103000_9e8d7c6b"


def build(save: Path, forks: int) -> None:
    save.mkdir(parents=True)
    shutil.copytree(SAVED / OLDER, save / OLDER)
    for number in range(forks):
        session_id = f"{number:08x}-5a4f-4e3d-9c2b-5d6e7f8a9b0c"
        folder = save / f"session_20261201_11{number:04d}_{session_id[:8]}"
        shutil.copytree(SAVED / FORK, folder)
        meta = json.loads((folder / "meta.json").read_text())
        (folder / "meta.json").write_text(
            json.dumps({**meta, "session_id": session_id})
        )


CHILD = """
import json, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from sessdex.diagnostics import Diagnostics
from sessdex.sources import Home, vibe

home = Path(sys.argv[2])
location = vibe.locate(Home.at(home))
paths = list(vibe.scan(location))
inside, opened = str(location.root), [0]

def hook(event, args):
    if event == "open" and isinstance(args[0], str) and args[0].startswith(inside):
        opened[0] += 1

sys.addaudithook(hook)
start = time.process_time()
found = [s for path in paths for s in vibe.parse(path, location, Diagnostics())]
cpu = time.process_time() - start
forks = sorted(s.extra.get("forked_from_id") or "" for s in found)
print(json.dumps({"opens": opened[0], "cpu": cpu, "forks": forks}))
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
    parser.add_argument("--forks", type=int, nargs="+", default=[40, 160, 320])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--baseline-src", type=Path, help="an older checkout's src/")
    args = parser.parse_args()
    builds = [("this tree", ROOT / "src")]
    if args.baseline_src:
        builds.append(("baseline", args.baseline_src))
    linear = True
    for forks in args.forks:
        with tempfile.TemporaryDirectory() as temporary:
            home = Path(temporary)
            build(home / ".vibe" / "logs" / "session", forks)
            print(f"{forks} forks of one session, a cold parse of every meta.json:")
            named = []
            for name, src in builds:
                runs = [measure(src, home) for _ in range(args.runs)]
                opens = int(str(runs[0]["opens"]))
                cpu = statistics.median(float(str(run["cpu"])) for run in runs)
                named.append(runs[0]["forks"])
                print(
                    f"  {name:10} {opens:7} files opened ({opens / forks:.1f} a fork),"
                    f" CPU {cpu * 1000:8.1f} ms (median of {args.runs})"
                )
                if name == "this tree":
                    linear = linear and opens <= 8 * (forks + 1)
            if len(named) == 2:
                print(f"  forks named alike: {named[0] == named[1]}")
    print("target: at most 8 files opened a fork, whatever the count")
    return 0 if linear else 1


if __name__ == "__main__":
    raise SystemExit(main())
