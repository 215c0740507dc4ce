"""Does every other app cost `sessdex list` nothing when it is installed but empty?

Target (the agents issue): warm `sessdex list --json` over the benchmark corpus stays within
10% of its two-app figure when every other app's folder exists and is empty. Runs alternate
between the two homes; the figures are medians, measured in the same run.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

from _common import (
    DEFAULT_CORPUS,
    ensure_corpus,
    environment,
    load,
    median,
    ms,
    run,
    sessdex,
)

from sessdex import sources
from sessdex.freshness import RACY_NS
from sessdex.sources import Home


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    ensure_corpus(args.corpus, args.sessions)
    home = args.corpus / "home"
    created: list[Path] = []
    for source in sources.all_sources():
        if source.NAME in ("claude", "codex"):
            continue
        root = source.locate(Home.at(home)).root
        if not root.exists():
            top = root  # the outermost folder made here, so that cleaning up removes it
            while not top.parent.exists():
                top = top.parent
            root.mkdir(parents=True)
            created.append(top)
    if created:
        # a folder changed within RACY_NS of a listing is not trusted and is listed again
        # next time: wait that out, as a user's empty folders are old by the time they list
        time.sleep(RACY_NS / 1e9 + 0.5)
    try:
        with tempfile.TemporaryDirectory() as state:
            env = environment(Path(state))
            two = sessdex(
                "list",
                "--json",
                "--home",
                str(home),
                "--app",
                "claude",
                "--app",
                "codex",
            )
            every = sessdex("list", "--json", "--home", str(home))
            run(two, env)
            run(every, env)  # both indexes warm
            times: dict[str, list[float]] = {"two": [], "every": []}
            for _ in range(args.runs):
                times["two"].append(run(two, env).seconds)
                times["every"].append(run(every, env).seconds)
    finally:
        for root in reversed(created):
            shutil.rmtree(root, ignore_errors=True)
    two_ms, every_ms = median(times["two"]), median(times["every"])
    ratio = every_ms / two_ms
    print(f"load {load()}")
    print(f"warm list, claude+codex only:      {ms(two_ms)}")
    apps = len(sources.names())
    print(f"warm list, all {apps} apps ({apps - 2} empty): {ms(every_ms)}")
    verdict = "PASS" if ratio <= 1.10 else "FAIL"
    print(f"{verdict}: all apps / two apps = {ratio:.2f}x (target <= 1.10x)")
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
