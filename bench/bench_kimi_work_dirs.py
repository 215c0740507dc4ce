"""A warm `sessdex list` of Kimi CLI sessions after kimi-cli rewrote `kimi.json` for a
session begun (only a work dir's `last_session_id` changed).

`kimi.json` names each session's work dir, so the index reads the sessions again when its
meaning changes; kimi-cli rewrites it at every session's start, which must not. A home of
--sessions sessions (copies of tests/data/kimi/real) is listed cold once, then per run
kimi.json is rewritten with a new `last_session_id` and `python -m sessdex list --json` timed
(the real command: its quick path, or the full one it hands over to), (a) with
`context_digest` switched off (a plain context file: every session read again) and (b) as it
is now. Target: (b) far under (a), near a warm list where nothing changed (c). Medians of
--runs.

    .venv/bin/python bench/bench_kimi_work_dirs.py [--sessions 2000] [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import uuid
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import PYTHON, ROOT, environment, ms, run

REAL = ROOT / "tests" / "data" / "kimi" / "real" / "home"
# the real command, with the kimi adapter's digest hook taken away first (and the one the
# quick path loads without the adapter, `sources.CONTEXT_DIGESTS`)
PLAIN = (
    "import runpy, sys; from sessdex import sources; sources.CONTEXT_DIGESTS.clear(); "
    "from sessdex.sources import kimi; del kimi.context_digest; "
    "sys.argv[0] = 'sessdex'; runpy.run_module('sessdex', run_name='__main__')"
)


def make_home(home: Path, sessions: int) -> Path:
    shutil.copytree(REAL, home)
    work_dir = next((home / ".kimi" / "sessions").iterdir())
    models = sorted(p for p in work_dir.iterdir() if p.is_dir())
    for n in range(sessions - len(models)):
        shutil.copytree(models[n % len(models)], work_dir / str(uuid.UUID(int=n)))
    return home / ".kimi" / "kimi.json"


def settle(home: Path) -> None:
    """Folders dated back: a warm list never trusts a folder changed this instant."""
    for folder, _, _ in os.walk(home):
        os.utime(folder, (1_700_000_000, 1_700_000_000))


def warm(
    home: Path, state: Path, kimi_json: Path | None, runs: int, plain: bool
) -> float:
    argv = ["list", "--json", "--all", "--home", str(home)]
    command = (
        [PYTHON, "-c", PLAIN, *argv] if plain else [PYTHON, "-m", "sessdex", *argv]
    )
    seconds = []
    for n in range(
        runs + 1
    ):  # the first: the digest stored (or dropped) as the mode says
        if kimi_json is not None:
            metadata = json.loads(kimi_json.read_text())
            metadata["work_dirs"][0]["last_session_id"] = f"begun-{plain}-{n}"
            kimi_json.write_text(json.dumps(metadata, indent=2))
        settle(home)
        done = run(command, environment(state))
        assert done.returncode == 0, done.stderr
        seconds.append(done.seconds)
    return statistics.median(seconds[1:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home, state = Path(tmp) / "home", Path(tmp) / "state"
        kimi_json = make_home(home, args.sessions)
        cold = run(
            [PYTHON, "-m", "sessdex", "list", "--home", str(home)], environment(state)
        )
        plain = warm(home, state, kimi_json, args.runs, plain=True)
        now = warm(home, state, kimi_json, args.runs, plain=False)
        idle = warm(home, state, None, args.runs, plain=False)
    print(
        f"{args.sessions} Kimi CLI sessions, median of {args.runs}; cold {ms(cold.seconds)}"
    )
    print(f"(a) kimi.json rewritten, a plain context file {ms(plain)}")
    print(f"(b) kimi.json rewritten, its digest kept      {ms(now)}")
    print(f"(c) nothing changed                           {ms(idle)}")
    print("ok" if now < plain / 3 else "OVER")


if __name__ == "__main__":
    main()
