"""How fast `sessdex list` is over a big home, against bare baselines measured in the same run.

(a) warm: `sessdex list --json` with its index built, vs a bare `os.stat` of the same files;
(b) cold: a first `sessdex list --json` (fresh SESSDEX_HOME), vs merely reading the same
    head and tail bytes (80 lines capped at 256 KiB each + the last 512 KiB of each file);
(c) peak RSS of a cold `sessdex list` when a transcript head holds a 50 MB line;
(d) (b) with the files out of the page cache (`posix_fadvise(DONTNEED)` on each, before
    each run, both sides): a first run after a reboot, or over a home too big to stay
    cached, where the kernel's reads from disk are most of the time (Linux only), and the
    bytes read from disk. Over a dense copy of --dense transcripts (8 MB of real lines
    each, kept beside the corpus): the corpus's are sparse, and the kernel's reading ahead
    past a head into a hole reads nothing from disk, where a real transcript's is read;
(e) the system calls of a cold `list` and of the baseline, per transcript (`strace -f -c`,
    where strace is installed): opens, stats, reads and seeks a file costs.

With `--baseline-src` (an older checkout's `src/`), (b) and (d) also run that build's cold
`list`, alternating with this tree's, and print this tree / that build: the figure to
quote for a change meant to make a cold listing cheaper.

Every figure is a median of --runs whole-process runs. Usage:

    .venv/bin/python bench/bench_list.py [--corpus /tmp/sessdex-bench] [--sessions 10000] [--runs 5]
    .venv/bin/python bench/bench_list.py --skip a,c,d --baseline-src /tmp/old/src
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

STRACE = "strace"
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


def cold_run(
    home: str, workdir: Path, n: int, src: Path | None = None
) -> tuple[Run | None, list]:
    """One cold `list`: a fresh state dir (with `src`, that build's sessdex). A first run
    that fails on an empty state dir is reported, and the run is retried once the index
    schema exists (a primer on one app)."""
    state = workdir / f"cold-{n}"
    shutil.rmtree(state, ignore_errors=True)
    env = environment(state)
    if src is not None:
        env["PYTHONPATH"] = str(src.resolve())
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


DENSE_MB = 8


def ensure_dense(corpus: Path, manifest: dict, count: int) -> tuple[str, list[str]]:
    """(home, transcripts): `count` Claude transcripts of DENSE_MB MB of real lines each,
    under the corpus: a corpus transcript's head, its tail's lines repeated, its tail."""
    home = corpus / f"dense-{count}x{DENSE_MB}" / "home"
    listed = home.parent / "transcripts.txt"
    if listed.exists():
        return str(home), listed.read_text().splitlines()
    shutil.rmtree(home.parent, ignore_errors=True)
    print(f"writing {count} dense transcripts to {home} ...", flush=True)
    size = DENSE_MB * 1024 * 1024
    paths = []
    claude = [e["path"] for e in manifest["sessions"] if e["app"] == "claude"]
    for path in claude[:count]:
        with open(path, "rb") as f:
            head = f.read(2 * 1024 * 1024).split(b"\0", 1)[0]
            head = head[: head.rfind(b"\n") + 1]
            f.seek(-620 * 1024, os.SEEK_END)
            tail = f.read()
        tail = tail[tail.find(b"\n") + 1 :]
        dest = home / os.path.relpath(path, manifest["home"])
        dest.parent.mkdir(parents=True, exist_ok=True)
        with open(dest, "wb") as w:
            written = w.write(head)
            while written + 2 * len(tail) < size:
                written += w.write(tail)
            w.write(tail)
            w.flush()
            os.fsync(w.fileno())  # clean pages: the eviction drops them
        paths.append(str(dest))
    listed.write_text("\n".join(paths))
    return str(home), paths


def evict(paths: list[str]) -> bool:
    """Drop these files' pages from the page cache (their next read is from disk); False
    where the system has no `posix_fadvise`. Only the corpus's own files, opened read-only:
    nothing else on the machine is touched."""
    if not hasattr(os, "posix_fadvise"):
        return False
    for path in paths:
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            continue
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)
    return True


def seconds(runs: list[Run]) -> str:
    return str([round(r.seconds, 2) for r in runs])


def figures(runs: list[Run]) -> tuple[float, float, float]:
    """Median wall, CPU and kernel seconds."""
    return (
        median([r.seconds for r in runs]),
        median([r.cpu for r in runs]),
        median([r.system for r in runs]),
    )


def disk(runs: list[Run]) -> str:
    read = median([r.disk_read for r in runs])
    return f", {read / 1e6:.0f} MB from disk" if read >= 1e6 else ""


def cold_against(
    report: Report,
    name: str,
    base: list[Run],
    cold: list[Run],
    old: list[Run],
) -> None:
    """Print (b)'s or (d)'s figures: the baseline, this tree, and the older build."""
    b, bc, bs = figures(base)
    report.note(
        f"  head+tail read baseline: median {b:.2f} s (cpu {bc:.2f} s, sys {bs:.2f} s"
        f"{disk(base)})  runs {seconds(base)}"
    )
    if not cold:
        report.check(name, False, "every cold run failed")
        return
    c, cc, cs = figures(cold)
    report.note(
        f"  sessdex list --json (cold): median {c:.2f} s (cpu {cc:.2f} s, sys {cs:.2f} s"
        f"{disk(cold)})  runs {seconds(cold)}"
    )
    if old:
        o, oc, os_ = figures(old)
        report.note(
            f"  baseline-src list (cold): median {o:.2f} s (cpu {oc:.2f} s, sys {os_:.2f} s"
            f"{disk(old)})  runs {seconds(old)}"
        )
        report.note(
            f"  this tree / baseline-src: wall {c / o:.2f}x, cpu {cc / oc:.2f}x,"
            f" sys {cs / max(os_, 1e-9):.2f}x; against the read baseline, cpu"
            f" {cc / bc:.2f}x now, {oc / bc:.2f}x before"
        )
    report.check(
        name,
        c / b <= COLD_RATIO,
        f"{c / b:.2f}x ({c:.2f} s vs {b:.2f} s; cpu {cc / bc:.2f}x)",
    )


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
        "--skip", default="", help="comma-separated parts to skip: a,b,c,d,e"
    )
    parser.add_argument(
        "--dense", type=int, default=400, help="(d): dense transcripts to read"
    )
    parser.add_argument(
        "--baseline-src",
        type=Path,
        help="an older checkout's src/: its cold list too, in (b) and (d)",
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
            base, cold, old, notes = cold_runs(args, home, workdir, heads_file, None)
            for where, code, line in notes[:3]:
                report.note(f"  note: a cold run failed ({where}, rc {code}): {line}")
            cold_against(report, "cold index <= 1.5x head/tail read", base, cold, old)

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
        if "d" not in skip:
            report.note("\n(d) (b) with the files out of the page cache, dense copies")
            dense_home, dense = ensure_dense(args.corpus, manifest, args.dense)
            dense_file = workdir / "dense.txt"
            dense_file.write_text("\n".join(dense))
            report.note(f"  {len(dense)} transcripts of {DENSE_MB} MB in {dense_home}")
            if not evict(dense):
                report.check("cold cache", None, "no posix_fadvise here")
            else:
                base, cold, old, notes = cold_runs(
                    args, dense_home, workdir, dense_file, dense
                )
                for where, code, line in notes[:3]:
                    report.note(
                        f"  note: a cold run failed ({where}, rc {code}): {line}"
                    )
                cold_against(
                    report,
                    "cold cache: cold index <= 1.5x head/tail read",
                    base,
                    cold,
                    old,
                )

        if "e" not in skip:
            report.note("\n(e) system calls per transcript (strace -f -c), cold list")
            if not shutil.which(STRACE):
                report.check("syscalls", None, "strace is not installed")
            else:
                count = len(transcripts(manifest))
                state = workdir / "strace"
                env = environment(state)
                argv = sessdex("list", "--json", "--home", home)
                sides = [("sessdex list (cold)", argv, env)]
                if args.baseline_src is not None:
                    old_env = environment(workdir / "strace-old")
                    old_env["PYTHONPATH"] = str(args.baseline_src.resolve())
                    sides.append(("baseline-src list", argv, old_env))
                baseline = [PYTHON, "-c", HEAD_TAIL_BASELINE, str(heads_file)]
                sides.append(("head+tail read baseline", baseline, environment()))
                for label, command, side_env in sides:
                    counts = syscalls(command, side_env)
                    shown = ", ".join(
                        f"{name} {counts[name] / count:.1f}"
                        for name in SYSCALLS
                        if name in counts
                    )
                    total = sum(counts.values()) / count
                    report.note(f"  {label}: {total:.1f} a transcript ({shown})")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return report.summary()


SYSCALLS = (
    "openat",
    "newfstatat",
    "statx",
    "fstat",
    "lstat",
    "stat",
    "read",
    "pread64",
    "lseek",
    "fadvise64",
)


def syscalls(argv: list[str], env: dict[str, str]) -> dict[str, int]:
    """Calls of each kind in SYSCALLS that `argv` and its children made (`strace -f -c`)."""
    with tempfile.NamedTemporaryFile(suffix=".strace") as out:
        run([STRACE, "-f", "-c", "-o", out.name, *argv], env)
        counts: dict[str, int] = {}
        for line in Path(out.name).read_text().splitlines():
            fields = line.split()
            # % time, seconds, usecs/call, calls, [errors,] syscall
            if len(fields) >= 5 and fields[-1] in SYSCALLS and fields[3].isdigit():
                counts[fields[-1]] = int(fields[3])
    return counts


def cold_runs(
    args: argparse.Namespace,
    home: str,
    workdir: Path,
    heads_file: Path,
    uncached: list[str] | None,
) -> tuple[list[Run], list[Run], list[Run], list]:
    """--runs rounds of: the baseline read, this tree's cold list, and the older build's
    where given; with `uncached`, those files evicted from the page cache before each."""
    base: list[Run] = []
    cold: list[Run] = []
    old: list[Run] = []
    notes: list = []
    for n in range(args.runs):
        if uncached is not None:
            evict(uncached)
        base.append(
            run([PYTHON, "-c", HEAD_TAIL_BASELINE, str(heads_file)], environment())
        )
        builds: list[tuple[list[Run], Path | None]] = [(cold, None)]
        if args.baseline_src is not None:
            builds.append((old, args.baseline_src))
        if n % 2:  # alternating which goes first, so that load falls on both
            builds.reverse()
        for runs, src in builds:
            if uncached is not None:
                evict(uncached)
            result, problems = cold_run(home, workdir, n, src)
            notes.extend(problems)
            if result is not None:
                runs.append(result)
    return base, cold, old, notes


if __name__ == "__main__":
    sys.exit(main())
