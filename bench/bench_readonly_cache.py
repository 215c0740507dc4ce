"""A `sessdex list` whose cache folder cannot be written (a read-only home, a container):
its runs after the first, which find the index it kept in a folder of the user's own below
the temporary folder (on the quick path, as a writable cache's warm runs), vs its first run
(what every such run cost when nothing was kept), a warm run with a writable cache, and
the same through the full command (what such runs cost while the quick path looked in the
cache folder alone).

Every figure is a median of --runs whole-process runs. Usage:

    .venv/bin/python bench/bench_readonly_cache.py [--corpus /tmp/sessdex-bench] [--sessions 2000] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import (
    DEFAULT_CORPUS,
    Report,
    ensure_corpus,
    environment,
    median,
    ms,
    run,
    sessdex,
)

# a run without a cache folder, once its index is kept, against a writable cache's warm
KEPT_RATIO = 1.5
COLD_RATIO = 4.0  # ... and against its first run, which built the index


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--sessions", type=int, default=2_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    report = Report()
    home = ensure_corpus(args.corpus, args.sessions)["home"]
    workdir = Path(tempfile.mkdtemp(prefix="sessdex-bench-readonly-"))
    try:
        blocker = workdir / "a-file"  # a cache folder below a file cannot be made
        blocker.write_text("")
        blocked = environment(blocker / "state")
        temporary = workdir / "tmp"
        temporary.mkdir(mode=0o700)
        blocked["TMPDIR"] = str(temporary)
        writable = environment(workdir / "state")
        full = {**writable, "SESSDEX_NO_QUICK": "1"}
        listing = sessdex("list", "--json", "--home", home)
        first = run(listing, writable)  # builds the writable index
        report.note(f"corpus {home}; index built in {first.seconds:.1f} s")
        cold, kept, again, warm, slow = [], [], [], [], []
        for _ in range(args.runs):
            shutil.rmtree(temporary)
            temporary.mkdir(mode=0o700)
            cold.append(run(listing, blocked))  # nothing kept: as every run was
            kept.append(run(listing, blocked))
            # ... and again: the first warm run of a --json listing keeps its answer for
            # the next, as the writable cache's (warmed by the run before) had
            again.append(run(listing, blocked))
            warm.append(run(listing, writable))
            slow.append(run(listing, full))
        assert all(r.returncode == 0 for r in cold + kept + again + warm + slow)
        c, k, a, w, f = (
            median([r.seconds for r in rs]) for rs in (cold, kept, again, warm, slow)
        )
        report.note(f"  no cache folder, first run: median {ms(c)}")
        report.note(f"  no cache folder, next run:  median {ms(k)}")
        report.note(f"  no cache folder, the run after: median {ms(a)}")
        report.note(f"  writable cache, warm: median {ms(w)}")
        report.note(f"  writable cache, warm (full command): median {ms(f)}")
        report.check(
            "the next run is warm",
            c / k >= COLD_RATIO,
            f"{c / k:.1f}x faster than the first ({ms(k)} vs {ms(c)})",
        )
        report.check(
            "as warm as with a writable cache",
            a / w <= KEPT_RATIO,
            f"{a / w:.2f}x ({ms(a)} vs {ms(w)})",
        )
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return report.summary()


if __name__ == "__main__":
    sys.exit(main())
