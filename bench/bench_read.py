"""How fast and how lean sessdex reads one transcript, against baselines measured in the same run.

(a) full parse: the api's `transcript()` consuming every event (and `sessdex show --json`,
    whole process) vs a plain `json.loads`-per-line loop over the same file; for
    information, the best a reader could do (an `orjson.loads` loop; a msgspec loop that
    decodes only the fields the reader needs, building nothing; for a Claude transcript,
    its two decoding passes alone: the survey's typed decode, then `orjson.loads`), the
    text views (`show`, `export -f md`) and `show --subagents tree`'s peak;
(b) `sessdex show ID --tail 50 --json` on the 2.1 GB (apparent) transcript of the big
    corpus: time to the first byte of output, index warm;
(c) peak RSS of `sessdex show ID --json` over a 2 GB transcript holding 50 MB lines,
    written for this run into a temp dir and deleted after;
(d) how peak RSS of `sessdex show ID --json`, and of a script iterating the api's
    `transcript()` events, grows with the transcript: a 1 GB one vs a quarter of it (the
    same mix, no big lines), both written for this run;
(e) for information: `sessdex show ID --json --nl`'s first event on (a)'s transcript, the
    Claude survey pass run anew vs taken from what an earlier read kept (`passcache`),
    and after 1 MB more was appended.

(a) forgets what each read kept, so that every run reads the whole file.

Figures are medians of --runs runs. Usage:

    .venv/bin/python bench/bench_read.py [--corpus /tmp/sessdex-bench] [--parse-mb 256] [--big-mb 2048] [--runs 5]
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
    PYTHON,
    Report,
    ensure_corpus,
    environment,
    free_bytes,
    last_line,
    make_real,
    mb,
    median,
    ms,
    run,
    sessdex,
)

PARSE_RATIO = 3.0
TAIL_TARGET = 0.3
RSS_TARGET = 200 * 1024 * 1024
GROWTH_RATIO = 1.5  # what a read keeps per line (ids, keys) is all that should grow

JSON_BASELINE = r"""
import sys, time
if sys.argv[2:] == ["orjson"]:
    import orjson as json
else:
    import json
started, cpu = time.perf_counter(), time.process_time()
n = 0
with open(sys.argv[1], "rb") as f:
    for line in f:
        json.loads(line)
        n += 1
print(time.perf_counter() - started, n, time.process_time() - cpu)
"""

# A reader's best case: msgspec decoding only the fields the reader looks at (Claude's, or
# with "codex" Codex's) into typed structs (unknown fields skipped unbuilt, big values left
# raw), building no events.
TYPED_BASELINE = r"""
import sys, time
import msgspec

Raw = msgspec.Raw


class Block(msgspec.Struct):
    type: str | None = None
    text: str | None = None
    thinking: str | None = None
    name: str | None = None
    id: str | None = None
    tool_use_id: str | None = None
    input: Raw = Raw(b"null")
    content: Raw = Raw(b"null")
    is_error: bool | None = None


class Message(msgspec.Struct):
    id: str | None = None
    model: str | None = None
    content: str | list[Block] | None = None
    usage: dict | None = None
    stop_reason: str | None = None


class Record(msgspec.Struct):
    type: str | None = None
    uuid: str | None = None
    parentUuid: str | None = None
    timestamp: str | None = None
    isSidechain: bool | None = None
    message: Message | None = None
    toolUseResult: Raw = Raw(b"null")
    requestId: str | None = None
    cwd: str | None = None
    gitBranch: str | None = None
    version: str | None = None


class Text(msgspec.Struct):
    type: str | None = None
    text: str | None = None


class Payload(msgspec.Struct):
    type: str | None = None
    role: str | None = None
    content: str | list[Text] | None = None
    summary: str | list[Text] | None = None
    name: str | None = None
    call_id: str | None = None
    arguments: str | None = None
    input: str | None = None
    output: str | dict | list | None = None
    message: str | None = None
    last_agent_message: str | None = None
    info: dict | None = None
    id: str | None = None
    cwd: str | None = None
    model: str | None = None
    effort: str | None = None
    cli_version: str | None = None


class CodexRecord(msgspec.Struct):
    type: str | None = None
    timestamp: str | None = None
    payload: Payload | None = None


codex = sys.argv[2:] == ["codex"]
decode = msgspec.json.Decoder(CodexRecord if codex else Record).decode
started, cpu = time.perf_counter(), time.process_time()
n = 0
with open(sys.argv[1], "rb") as f:
    for line in f:
        try:
            decode(line)
        except msgspec.ValidationError:  # an odd shape: a reader would parse it whole
            msgspec.json.decode(line)
        n += 1
print(time.perf_counter() - started, n, time.process_time() - cpu)
"""

# The decoding a Claude read cannot do without, and nothing else: its survey's typed decode
# of each line (ids and block kinds; the rest skipped unbuilt), then `orjson.loads` of each
# line again for its events. No reader that surveys first can beat this loop.
TWO_PASS_FLOOR = r"""
import sys, time
import msgspec, orjson


class Block(msgspec.Struct, gc=False):
    type: str | None = None
    name: str | None = None
    tool_use_id: str | None = None


class Message(msgspec.Struct, gc=False):
    content: str | list[Block] | None = None


class Ids(msgspec.Struct, gc=False):
    uuid: str | None = None
    parentUuid: str | None = None
    type: str | None = None
    timestamp: str | None = None
    isSidechain: bool | None = None
    message: Message | None = None


decode = msgspec.json.Decoder(Ids).decode
started, cpu = time.perf_counter(), time.process_time()
n = 0
with open(sys.argv[1], "rb") as f:
    for line in f:
        try:
            decode(line)
        except msgspec.DecodeError:  # an odd shape: the reader parses it whole
            pass
with open(sys.argv[1], "rb") as f:
    for line in f:
        orjson.loads(line)
        n += 1
print(time.perf_counter() - started, n, time.process_time() - cpu)
"""

API_PARSE = r"""
import sys, time
from sessdex import api
from sessdex.sources import Home
home = Home.at(sys.argv[1])
api.resolve(home, sys.argv[2])  # index refresh, outside the timing
started, cpu = time.perf_counter(), time.process_time()
found = api.transcript(home, sys.argv[2])
n = sum(1 for _ in found.events)
print(time.perf_counter() - started, n, found.diagnostics.skipped_total,
      time.process_time() - cpu)
"""


def warm_index(home: str, env: dict[str, str]) -> None:
    for _ in range(2):  # a fresh state dir may fail once (see bench_list.cold_run)
        if run(sessdex("list", "--json", "--home", home), env).returncode == 0:
            return


def forget_passes(state: Path) -> None:
    """Drop what earlier reads kept of big transcripts (`passcache`): a whole read again."""
    shutil.rmtree(state / "cache" / "passes", ignore_errors=True)


def parse_transcript(workdir: Path, args: argparse.Namespace) -> dict:
    """(a)'s transcript, written once for (a) and (e)."""
    folder = workdir / "parse"
    if (folder / "manifest.json").is_file():
        import json

        return json.loads((folder / "manifest.json").read_bytes())
    return make_real(folder, args.parse_mb, app=args.parse_app)


def part_a(report: Report, workdir: Path, args: argparse.Namespace) -> None:
    report.note(
        f"\n(a) full parse of a {args.parse_mb} MB {args.parse_app} transcript vs json.loads per line"
    )
    made = parse_transcript(workdir, args)
    entry = made["sessions"][0]
    size = entry["real"]
    env = environment(workdir / "state-parse")
    warm_index(made["home"], env)
    run([PYTHON, "-c", JSON_BASELINE, entry["path"]], environment())  # page cache
    base, fast, typed, api_times, cli_times = [], [], [], [], []
    floor: list[float] = []  # Claude's two decoding passes alone
    floor_cpu: list[float] = []
    base_cpu: list[float] = []  # CPU seconds: steadier than wall time on a busy machine
    api_cpu: list[float] = []
    cli_cpu: list[float] = []  # show --json's whole process: imports and writing too
    events = None
    view_times: dict[str, list[float]] = {"show": [], "export -f md": []}
    for _ in range(args.runs):
        result = run(
            [PYTHON, "-c", JSON_BASELINE, entry["path"]],
            environment(),
            keep_stdout=True,
        )
        base.append(float(result.stdout.split()[0]))
        base_cpu.append(float(result.stdout.split()[2]))
        result = run(
            [PYTHON, "-c", JSON_BASELINE, entry["path"], "orjson"],
            environment(),
            keep_stdout=True,
        )
        fast.append(float(result.stdout.split()[0]))
        result = run(
            [PYTHON, "-c", TYPED_BASELINE, entry["path"], args.parse_app],
            environment(),
            keep_stdout=True,
        )
        if result.returncode == 0:
            typed.append(float(result.stdout.split()[0]))
        if args.parse_app == "claude":
            result = run(
                [PYTHON, "-c", TWO_PASS_FLOOR, entry["path"]],
                environment(),
                keep_stdout=True,
            )
            if result.returncode == 0:
                floor.append(float(result.stdout.split()[0]))
                floor_cpu.append(float(result.stdout.split()[2]))
        forget_passes(workdir / "state-parse")
        result = run(
            [PYTHON, "-c", API_PARSE, made["home"], entry["id"]], env, keep_stdout=True
        )
        if result.returncode != 0:
            report.note(f"  api run failed: {last_line(result.stderr)}")
            break
        seconds, events, _, cpu = result.stdout.decode().split()
        api_times.append(float(seconds))
        api_cpu.append(float(cpu))
        forget_passes(workdir / "state-parse")
        result = run(
            sessdex("show", entry["id"], "--json", "--home", made["home"]), env
        )
        if result.returncode != 0:
            report.note(f"  show run failed: {last_line(result.stderr)}")
            break
        cli_times.append(result.seconds)
        cli_cpu.append(result.cpu)
        for label, argv in (
            ("show", ["show", entry["id"]]),
            ("export -f md", ["export", entry["id"], "-f", "md"]),
        ):
            forget_passes(workdir / "state-parse")
            result = run(sessdex(*argv, "--home", made["home"]), env)
            if result.returncode == 0:
                view_times[label].append(result.seconds)
    forget_passes(workdir / "state-parse")
    tree = run(
        sessdex("show", entry["id"], "--subagents", "tree", "--home", made["home"]),
        env,
        measure_rss=True,
    )
    b = median(base)
    report.note(
        f"  file: {size / 1e6:.0f} MB, {entry['lines']} lines ({events} events from sessdex)"
    )
    report.note(f"  json.loads loop: median {b:.2f} s = {size / b / 1e6:.0f} MB/s")
    o = median(fast)
    report.note(
        f"  orjson.loads loop (info: the ceiling for any reader that decodes every line):"
        f" median {o:.2f} s = {size / o / 1e6:.0f} MB/s = {b / o:.2f}x json.loads"
    )
    if typed:
        t = median(typed)
        report.note(
            f"  msgspec typed loop (info: decodes only the fields the reader needs, builds"
            f" no events): median {t:.2f} s = {size / t / 1e6:.0f} MB/s = {b / t:.2f}x json.loads"
        )
    if floor:
        f, fc = median(floor), median(floor_cpu)
        report.note(
            f"  two-pass floor (info: the survey's typed decode, then orjson.loads, of every"
            f" line; no events): median {f:.2f} s = {b / f:.2f}x json.loads"
            f" (CPU {fc:.2f} s = {median(base_cpu) / fc:.2f}x)"
        )
    if not api_times:
        report.check(
            "full parse >= 3x json.loads throughput",
            False,
            "sessdex failed to read the transcript",
        )
        return
    a, c = median(api_times), median(cli_times) if cli_times else float("nan")
    report.note(
        f"  api transcript(): median {a:.2f} s = {size / a / 1e6:.0f} MB/s  runs {[round(x, 2) for x in api_times]}"
    )
    report.note(
        f"  sessdex show --json (whole process): median {c:.2f} s = {size / c / 1e6:.0f} MB/s"
    )
    bc, ac = median(base_cpu), median(api_cpu)
    report.note(
        f"  CPU time (info: what a busy machine's wall clock blurs): json.loads loop median"
        f" {bc:.2f} s, api transcript() median {ac:.2f} s = {bc / ac:.2f}x json.loads,"
        f" show --json median {median(cli_cpu) if cli_cpu else float('nan'):.2f} s"
    )
    for label, times in view_times.items():
        if times:
            report.note(
                f"  sessdex {label} (info: a text view, output to /dev/null): median {median(times):.2f} s"
            )
    if tree.returncode == 0:
        report.note(
            f"  sessdex show --subagents tree (info: events held back, spooled past 4 MB): "
            f"{tree.seconds:.2f} s, peak RSS {mb(tree.peak_rss)}"
        )
    report.check(
        "full parse >= 3x json.loads throughput",
        b / a >= PARSE_RATIO,
        f"{b / a:.2f}x (api), {b / c:.2f}x (show --json)",
    )


def part_b(report: Report, workdir: Path, args: argparse.Namespace) -> None:
    report.note(
        "\n(b) show --tail 50 --json on the largest (2.1 GB apparent) transcript"
    )
    manifest = ensure_corpus(args.corpus, args.sessions)
    biggest = max(
        manifest["sessions"],
        key=lambda e: e["apparent"] if not e["path"].endswith(".zst") else 0,
    )
    env = environment(workdir / "state-tail")
    warm_index(manifest["home"], env)
    argv = sessdex(
        "show", biggest["id"], "--tail", "50", "--json", "--home", manifest["home"]
    )
    first, total, ok = [], [], True
    for _ in range(args.runs):
        result = run(argv, env, first_byte=True)
        if result.returncode != 0 or result.first_output is None:
            report.note(
                f"  failed (rc {result.returncode}): {last_line(result.stderr)}"
            )
            ok = False
            break
        first.append(result.first_output)
        total.append(result.seconds)
    report.note(
        f"  transcript: {biggest['app']} {biggest['id']}, {biggest['apparent'] / 1e9:.2f} GB apparent"
    )
    if not ok or not first:
        report.check("tail 50 first output <= 0.3 s", False, "did not run")
        return
    f = median(first)
    report.note(
        f"  first byte: median {ms(f)}  runs {[round(x * 1000) for x in first]}; whole run median {ms(median(total))}"
    )
    report.check("tail 50 first output <= 0.3 s", f <= TAIL_TARGET, ms(f))


def part_c(report: Report, workdir: Path, args: argparse.Namespace) -> None:
    report.note(
        f"\n(c) peak RSS reading a {args.big_mb} MB transcript with {args.big_lines} lines of 50 MB"
    )
    need = args.big_mb * 1024 * 1024 * 1.2 + 2e9
    if free_bytes(workdir) < need:
        report.check(
            "read peak RSS <= 200 MB",
            None,
            f"skipped: needs {need / 1e9:.1f} GB free in {workdir}",
        )
        return
    made = make_real(workdir / "big", args.big_mb, args.big_lines)
    entry = made["sessions"][0]
    env = environment(workdir / "state-big")
    warm_index(made["home"], env)
    rss, seconds, full = [], [], None
    try:
        for _ in range(args.rss_runs):
            result = run(
                sessdex("show", entry["id"], "--json", "--home", made["home"]),
                env,
                measure_rss=True,
            )
            if result.returncode != 0:
                report.note(
                    f"  failed (rc {result.returncode}): {last_line(result.stderr)}"
                )
                break
            rss.append(result.peak_rss)
            seconds.append(result.seconds)
        if args.with_full:
            result = run(
                sessdex(
                    "show",
                    entry["id"],
                    "--json",
                    "--full-payloads",
                    "--home",
                    made["home"],
                ),
                env,
                measure_rss=True,
            )
            full = result.peak_rss if result.returncode == 0 else None
    finally:
        shutil.rmtree(workdir / "big", ignore_errors=True)
    report.note(
        f"  transcript: {entry['real'] / 1e9:.2f} GB real, {entry['lines']} lines, {entry['big_lines']} of 50 MB"
    )
    if not rss:
        report.check("read peak RSS <= 200 MB", False, "did not run")
        return
    r = median(rss)
    report.note(
        f"  show --json: peak RSS median {mb(r)}, {median(seconds):.1f} s per run"
    )
    if args.with_full:
        report.note(
            f"  show --json --full-payloads (info only): peak RSS {mb(full) if full else 'failed'}"
        )
    report.check("read peak RSS <= 200 MB", r <= RSS_TARGET, mb(r))


def part_d(report: Report, workdir: Path, args: argparse.Namespace) -> None:
    small_mb = args.growth_mb / 4
    report.note(
        f"\n(d) peak RSS of show --json, {args.growth_mb} MB transcript vs {small_mb:.0f} MB"
    )
    need = args.growth_mb * 1024 * 1024 * 1.3 + 1e9
    if free_bytes(workdir) < need:
        report.check(
            f"peak RSS <= {GROWTH_RATIO} x the quarter-size read's",
            None,
            f"skipped: needs {need / 1e9:.1f} GB free in {workdir}",
        )
        return
    peaks: dict[str, float] = {}
    library: dict[str, float] = {}  # a script iterating api.transcript()'s events
    for name, size in (("small", small_mb), ("large", args.growth_mb)):
        made = make_real(workdir / f"growth-{name}", size)
        entry = made["sessions"][0]
        env = environment(workdir / f"state-growth-{name}")
        warm_index(made["home"], env)
        argv = sessdex("show", entry["id"], "--json", "--home", made["home"])
        script = [PYTHON, "-c", API_PARSE, made["home"], entry["id"]]
        try:
            found = [run(argv, env, measure_rss=True) for _ in range(args.growth_runs)]
            read = [run(script, env, measure_rss=True) for _ in range(args.growth_runs)]
        finally:
            shutil.rmtree(workdir / f"growth-{name}", ignore_errors=True)
        if any(r.returncode != 0 for r in found + read):
            failed = next(r for r in found + read if r.returncode != 0)
            report.check(
                "show --json and the api read ran", False, last_line(failed.stderr)
            )
            return
        peaks[name] = median([r.peak_rss for r in found])
        library[name] = median([r.peak_rss for r in read])
        report.note(
            f"  {entry['real'] / 1e6:.0f} MB, {entry['lines']} lines: peak RSS median "
            f"{mb(peaks[name])} [{', '.join(mb(r.peak_rss) for r in found)}]; "
            f"api transcript() {mb(library[name])} [{', '.join(mb(r.peak_rss) for r in read)}]"
        )
    per_gb = (peaks["large"] - peaks["small"]) / (0.75 * args.growth_mb / 1024)
    report.note(f"  growth: {mb(per_gb)} per GB of transcript")
    ratio = peaks["large"] / peaks["small"]
    report.check(
        f"peak RSS <= {GROWTH_RATIO} x the quarter-size read's",
        ratio <= GROWTH_RATIO,
        f"{ratio:.2f} x",
    )
    ratio = library["large"] / library["small"]
    report.check(
        f"api transcript() peak RSS <= {GROWTH_RATIO} x the quarter-size read's",
        ratio <= GROWTH_RATIO,
        f"{ratio:.2f} x",
    )


def part_e(report: Report, workdir: Path, args: argparse.Namespace) -> None:
    report.note(
        f"\n(e) show --json --nl first event on a {args.parse_mb} MB {args.parse_app} "
        "transcript: surveyed anew vs what an earlier read kept (info)"
    )
    made = parse_transcript(workdir, args)
    entry = made["sessions"][0]
    state = workdir / "state-kept"
    env = environment(state)
    warm_index(made["home"], env)
    # --nl: the first byte is the first event (--json's is the array's "[")
    argv = sessdex("show", entry["id"], "--json", "--nl", "--home", made["home"])
    anew, kept, grown = [], [], []
    path = Path(entry["path"])
    lines = path.read_bytes()[-(1 << 20) :].split(b"\n")[1:-1]  # whole lines, ~1 MB
    original = path.stat().st_size
    try:
        for _ in range(args.runs):
            forget_passes(state)
            first = run(argv, env, first_byte=True)
            second = run(argv, env, first_byte=True)
            with open(path, "ab") as grow:
                grow.write(b"\n".join(lines) + b"\n")
            third = run(argv, env, first_byte=True)
            os.truncate(path, original)
            if None in (first.first_output, second.first_output, third.first_output):
                report.note(f"  failed: {last_line(first.stderr or second.stderr)}")
                return
            anew.append(first.first_output)
            kept.append(second.first_output)
            grown.append(third.first_output)
    finally:
        os.truncate(path, original)
    report.note(
        f"  first output: surveyed anew median {ms(median(anew))}, kept median "
        f"{ms(median(kept))} ({median(anew) / median(kept):.1f}x sooner), kept and 1 MB "
        f"appended median {ms(median(grown))}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--corpus", type=Path, default=DEFAULT_CORPUS, help="the big corpus, for (b)"
    )
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument(
        "--parse-mb", type=int, default=256, help="size of the transcript for (a)"
    )
    parser.add_argument(
        "--parse-app",
        choices=("claude", "codex"),
        default="claude",
        help="whose transcript (a) reads: a Claude Code one, or a Codex rollout",
    )
    parser.add_argument(
        "--big-mb", type=int, default=2048, help="size of the transcript for (c)"
    )
    parser.add_argument("--big-lines", type=int, default=8, help="50 MB lines in it")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--rss-runs", type=int, default=1, help="runs of (c): each reads the whole file"
    )
    parser.add_argument(
        "--growth-mb", type=int, default=1024, help="the larger transcript of (d)"
    )
    parser.add_argument("--growth-runs", type=int, default=3, help="runs of (d), each")
    parser.add_argument(
        "--with-full",
        action="store_true",
        help="(c): also read with --full-payloads (for information)",
    )
    parser.add_argument(
        "--skip", default="", help="comma-separated parts to skip: a,b,c,d,e"
    )
    parser.add_argument("--tmp", type=Path, default=Path(tempfile.gettempdir()))
    args = parser.parse_args()
    skip = set(args.skip.split(",")) - {""}
    report = Report()
    workdir = Path(tempfile.mkdtemp(prefix="sessdex-bench-read-", dir=args.tmp))
    try:
        if "a" not in skip:
            part_a(report, workdir, args)
        if "b" not in skip:
            part_b(report, workdir, args)
        if "c" not in skip:
            part_c(report, workdir, args)
        if "d" not in skip:
            part_d(report, workdir, args)
        if "e" not in skip:
            part_e(report, workdir, args)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return report.summary()


if __name__ == "__main__":
    sys.exit(main())
