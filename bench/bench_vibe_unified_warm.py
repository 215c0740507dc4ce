"""Warm `list` of many Mistral Vibe 3 unified sessions, each with many transcript chunks.

--sessions copies of the fixture's unified session (`unified/<id>/`), each with --chunks
projection chunks its live manifest names, then a cold `list --json` and --repeat warm
ones, each a process of its own: the cold list's CPU and the warm lists' median (user +
system). With
--baseline-src (a checkout's `src`, e.g. of 94efd78c, before a CURRENT not there was stood
in for and Vibe's companions were parsed), the same home and the same runs with that
code, a state folder of its own, so the two read alike.

    .venv/bin/python bench/bench_vibe_unified_warm.py [--sessions 2000] [--chunks 30]
        [--repeat 7] [--baseline-src /tmp/old/src]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import tempfile
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import ROOT, environment, median, ms, run, sessdex

UNIFIED = Path(".vibe") / "logs" / "session" / "unified"
TEMPLATE = "a63ab208-5aab-fb2c-9a25-672f66edb7ae"


def build(home: Path, sessions: int, chunks: int) -> None:
    """`sessions` stores made from the fixture's, each naming `chunks` chunks."""
    template = ROOT / "tests" / "data" / "vibe" / "home" / UNIFIED / TEMPLATE
    for k in range(sessions):
        session = str(uuid.UUID(int=k + 1))
        folder = home / UNIFIED / session
        shutil.copytree(template, folder)
        live = folder / "generations" / "0000000000000042" / "manifest.json"
        manifest = json.loads(live.read_text())
        state = manifest["projection_state"]
        body = (folder / "chunks" / f"{state['chunks'][0]}.json").read_bytes()
        named = [state["chunks"][0]]
        for c in range(chunks - 1):
            sha = hashlib.sha256(f"{k}/{c}".encode()).hexdigest()
            (folder / "chunks" / f"{sha}.json").write_bytes(body)
            named.append(sha)
        state["chunks"] = named
        for doc in (manifest, current := json.loads((folder / "CURRENT").read_text())):
            doc["session_id"] = session
        live.write_text(json.dumps(manifest))
        (folder / "CURRENT").write_text(json.dumps(current))


def warm_cpu(
    home: Path, state: Path, src: Path | None, repeat: int
) -> tuple[int, float]:
    """(sessions listed, the warm lists' median CPU seconds)."""
    env = environment(state)
    if src is not None:
        env["PYTHONPATH"] = str(src.resolve())
    argv = sessdex("list", "--all", "--json", "--app", "vibe", "--home", str(home))
    cold = run(argv, env, keep_stdout=True)
    assert cold.returncode == 0, cold.stderr
    listed = len(json.loads(cold.stdout))
    return listed, cold.cpu, median([run(argv, env).cpu for _ in range(repeat)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--chunks", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--baseline-src", type=Path)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        home = Path(scratch) / "home"
        build(home, options.sessions, options.chunks)
        print(f"{options.sessions} unified sessions x {options.chunks} chunks")
        runs = [("now", None)]
        if options.baseline_src is not None:
            runs.insert(0, ("baseline", options.baseline_src))
        for name, src in runs:
            listed, cold, cpu = warm_cpu(
                home, Path(scratch) / name, src, options.repeat
            )
            print(
                f"  {name:8} {listed} listed, cold list CPU {ms(cold)}, "
                f"warm list CPU median {ms(cpu)}"
            )


if __name__ == "__main__":
    main()
