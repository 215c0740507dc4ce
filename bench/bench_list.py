"""How fast `sessdex list` is over a big home, against bare baselines measured in the same run.

(a) warm: `sessdex list --json` with its index built, vs a bare `os.stat` of the same files;
(b) cold: a first `sessdex list --json` (fresh SESSDEX_HOME), vs merely reading the same
    head and tail bytes (80 lines capped at 256 KiB each + the last 512 KiB of each file);
(c) peak RSS of a cold `sessdex list` when a transcript head holds a 50 MB line.

Every figure is a median of --runs whole-process runs. Usage:

    .venv/bin/python bench/bench_list.py [--corpus /tmp/sessdex-bench] [--sessions 10000] [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import (
    DEFAULT_CORPUS,
    PYTHON,
    Report,
    Run,
    ensure_corpus,
    environment,
    last_line,
    make_real,
    mb,
    median,
    ms,
    run,
    sessdex,
)

WARM_TARGET = 0.150
WARM_RATIO = 4.0
COLD_RATIO = 1.5
RSS_TARGET = 100 * 1024 * 1024

STAT_BASELINE = (
    "import os, sys; [os.stat(p) for p in open(sys.argv[1]).read().splitlines()]"
)

# What listing must at least do: the head (80 lines, each capped at 256 KiB; a longer one
# is read through and dropped) and the last 512 KiB of every transcript, .zst decompressed.
HEAD_TAIL_BASELINE = r"""
import io, os, sys
HEAD, CAP, TAIL = 80, 256 * 1024, 512 * 1024
def head(f):
    n = 0
    while n < HEAD:
        line = f.readline(CAP + 1)
        if not line:
            return
        while len(line) > CAP and not line.endswith(b"\n"):
            line = f.readline(CAP + 1)
            if not line:
                return
        n += 1
for path in open(sys.argv[1]).read().splitlines():
    if path.endswith(".zst"):
        import zstandard
        with open(path, "rb") as raw:
            data = zstandard.ZstdDecompressor().stream_reader(raw).read()
        head(io.BytesIO(data))
        data[-TAIL:]
        continue
    with open(path, "rb") as f:
        head(f)
        size = f.seek(0, 2)
        f.seek(max(0, size - TAIL))
        f.read(TAIL)
"""


def all_files(home: Path) -> list[str]:
    found = []
    for folder, _, names in os.walk(home):
        found.extend(os.path.join(folder, n) for n in names)
    return sorted(found)


def transcripts(manifest: dict) -> list[str]:
    paths = []
    for entry in manifest["sessions"]:
        paths.append(entry["path"])
        paths.extend(sub["path"] for sub in entry["subagents"])
    return paths


def listed_count(output: bytes) -> int:
    return len(json.loads(output))


def cold_run(home: str, workdir: Path, n: int) -> tuple[Run | None, list]:
    """One cold `list`: a fresh state dir. A first run that fails on an empty state dir is
    reported, and the run is retried once the index schema exists (a primer on one app)."""
    state = workdir / f"cold-{n}"
    shutil.rmtree(state, ignore_errors=True)
    env = environment(state)
    result = run(sessdex("list", "--json", "--home", home), env)
    notes = []
    if result.returncode != 0:
        notes.append(("fresh state dir", result.returncode, last_line(result.stderr)))
        shutil.rmtree(state, ignore_errors=True)
        run(
            sessdex("list", "--json", "--home", home, "--app", "aider"), env
        )  # creates the schema
        result = run(sessdex("list", "--json", "--home", home), env)
        if result.returncode != 0:
            notes.append(("after primer", result.returncode, last_line(result.stderr)))
            return None, notes
    shutil.rmtree(state, ignore_errors=True)
    return result, notes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--corpus",
        type=Path,
        default=DEFAULT_CORPUS,
        help="where the corpus is (written if missing)",
    )
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--skip", default="", help="comma-separated parts to skip: a,b,c"
    )
    args = parser.parse_args()
    skip = set(args.skip.split(",")) - {""}
    report = Report()
    manifest = ensure_corpus(args.corpus, args.sessions)
    home = manifest["home"]
    workdir = Path(tempfile.mkdtemp(prefix="sessdex-bench-list-"))
    try:
        paths_file = workdir / "all-files.txt"
        every = all_files(Path(home))
        paths_file.write_text("\n".join(every))
        heads_file = workdir / "transcripts.txt"
        heads_file.write_text("\n".join(transcripts(manifest)))
        report.note(
            f"corpus {home}: {manifest['top_level']} sessions + {manifest['subagents']} sub-agents,"
            f" {len(every)} files, apparent {manifest['apparent_bytes'] / 1e12:.2f} TB,"
            f" real {manifest['real_bytes'] / 1e9:.1f} GB"
        )

        if "a" not in skip:
            report.note("\n(a) warm list vs os.stat of the same files")
            env = environment(workdir / "warm")
            first = run(
                sessdex("list", "--json", "--home", home), env, keep_stdout=True
            )
            if first.returncode != 0:  # see cold_run: an empty state dir may fail once
                first = run(
                    sessdex("list", "--json", "--home", home), env, keep_stdout=True
                )
            report.note(
                f"  warm-up (builds the index): {first.seconds:.1f} s, rc {first.returncode}"
            )
            listed = listed_count(first.stdout) if first.returncode == 0 else 0
            report.note(
                f"  sessions listed: {listed} (corpus top-level: {manifest['top_level']})"
            )
            warm, base = [], []
            for _ in range(args.runs):
                base.append(run([PYTHON, "-c", STAT_BASELINE, str(paths_file)], env))
                warm.append(run(sessdex("list", "--json", "--home", home), env))
            w, b = median([r.seconds for r in warm]), median([r.seconds for r in base])
            wc, bc = median([r.cpu for r in warm]), median([r.cpu for r in base])
            report.note(
                f"  sessdex list --json (warm): median {ms(w)} (cpu {ms(wc)})  runs {[round(r.seconds * 1000) for r in warm]}"
            )
            report.note(
                f"  python os.stat x{len(every)}: median {ms(b)} (cpu {ms(bc)})  runs {[round(r.seconds * 1000) for r in base]}"
            )
            report.check(
                "warm list <= 150 ms", w <= WARM_TARGET, f"{ms(w)} (cpu {ms(wc)})"
            )
            report.check(
                "warm list <= 4x stat baseline",
                w / b <= WARM_RATIO,
                f"{w / b:.2f}x ({ms(w)} vs {ms(b)}; cpu {wc / bc:.2f}x)",
            )

        if "b" not in skip:
            report.note("\n(b) cold index vs reading the same heads and tails")
            # the first read brings the files into the page cache, for both sides
            run([PYTHON, "-c", HEAD_TAIL_BASELINE, str(heads_file)], environment())
            cold, base, notes = [], [], []
            for n in range(args.runs):
                base.append(
                    run(
                        [PYTHON, "-c", HEAD_TAIL_BASELINE, str(heads_file)],
                        environment(),
                    )
                )
                result, problems = cold_run(home, workdir, n)
                notes.extend(problems)
                if result is not None:
                    cold.append(result)
            for where, code, line in notes[:3]:
                report.note(f"  note: a cold run failed ({where}, rc {code}): {line}")
            b, bc = median([r.seconds for r in base]), median([r.cpu for r in base])
            report.note(
                f"  head+tail read baseline: median {b:.2f} s (cpu {bc:.2f} s)  runs {[round(r.seconds, 2) for r in base]}"
            )
            if cold:
                c, cc = median([r.seconds for r in cold]), median([r.cpu for r in cold])
                report.note(
                    f"  sessdex list --json (cold): median {c:.2f} s (cpu {cc:.2f} s)  runs {[round(r.seconds, 2) for r in cold]}"
                )
                report.check(
                    "cold index <= 1.5x head/tail read",
                    c / b <= COLD_RATIO,
                    f"{c / b:.2f}x ({c:.2f} s vs {b:.2f} s; cpu {cc / bc:.2f}x)",
                )
            else:
                report.check(
                    "cold index <= 1.5x head/tail read", False, "every cold run failed"
                )

        if "c" not in skip:
            report.note("\n(c) peak RSS of a cold list with a 50 MB line in a head")
            big = workdir / "bigline"
            made = make_real(big, 60, big_lines=1)
            rss = []
            for n in range(args.runs):
                state = workdir / f"rss-{n}"
                env = environment(state)
                result = run(
                    sessdex("list", "--json", "--home", made["home"]),
                    env,
                    measure_rss=True,
                )
                if result.returncode != 0:
                    run(
                        sessdex(
                            "list", "--json", "--home", made["home"], "--app", "aider"
                        ),
                        env,
                    )
                    shutil.rmtree(state / "cache" / "snapshots", ignore_errors=True)
                    result = run(
                        sessdex("list", "--json", "--home", made["home"]),
                        env,
                        measure_rss=True,
                    )
                rss.append(result.peak_rss)
                shutil.rmtree(state, ignore_errors=True)
            floor = run(
                [PYTHON, "-c", "import sessdex.cli, orjson, sqlite3"],
                environment(workdir / "floor"),
                measure_rss=True,
            ).peak_rss
            r = median(rss)
            report.note(
                f"  transcript: {made['sessions'][0]['real'] / 1e6:.0f} MB, one 50 MB line at line ~12"
            )
            report.note(
                f"  peak RSS: median {mb(r)} (interpreter + imports alone: {mb(floor)})"
            )
            report.check("list peak RSS <= 100 MB", r <= RSS_TARGET, mb(r))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return report.summary()


if __name__ == "__main__":
    sys.exit(main())
