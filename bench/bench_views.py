"""The commands that read a whole transcript for a person, against `show` over the same file.

(a) `sessdex replay ID --speed 1000000 --max-gap 0` (pacing asked away) vs `sessdex show ID
    --no-pager`, which reads and draws the same events; target: at most 1.3 x show's time;
(b) `sessdex show ID --json` over the transcript with --big-lines tool results of 50 MB of
    program output (a newline, escaped, every 60 bytes) vs the same with 50 MB of base64
    (no escape) instead: the reader elides both; target: at most 1.5 x the base64 one's time;
(c) peak RSS of `sessdex usage session --explain ID` (a line per response) vs `sessdex usage
    session` over the same transcript, both with a fresh state (cold: a warm usage reads
    nothing); target: at most 1.3 x;
(d) `sessdex export ID -f md` and `-f html` (sub-agents grouped under their spawns, the
    default: events after a spawn are held, then spooled to disk) vs `sessdex show ID
    --json` over the transcript with --big-lines tool outputs of 50 MB: peak RSS at most
    2 x (streamed: it does not grow with the file) and time at most 3 x show --json's;
    and what grouping itself costs (holding, spooling, reading back): `export -f md` vs
    `export -f md --subagents inline` (time order, nothing held), at most 1.3 x.

The transcript is written by make_corpus.py (`--real-bytes`, a few pasted images) into a temp
dir and deleted after. Figures are medians of --runs runs. Usage:

    .venv/bin/python bench/bench_views.py [--mb 256] [--big-lines 4] [--runs 3] [--skip a|b|c|d]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import Report, environment, make_real, mb, median, run, sessdex

REPLAY_RATIO = 1.3
ESCAPED_RATIO = 1.5
EXPLAIN_RATIO = 1.3
EXPORT_RSS_RATIO = 2.0
EXPORT_TIME_RATIO = 3.0
GROUPED_RATIO = 1.3
BIG_LINE = 50 * 1024 * 1024


def timed(argv: list[str], env: dict[str, str], runs: int) -> float:
    seconds = []
    for _ in range(runs):
        result = run(argv, env)
        if result.returncode != 0:
            raise SystemExit(f"{' '.join(argv)} failed: {result.stderr[-500:]}")
        seconds.append(result.seconds)
    return median(seconds)


def replay(
    report: Report, home: Path, sid: str, env: dict[str, str], runs: int
) -> None:
    report.note("(a) replay, pacing asked away, vs show")
    common = [sid, "--home", str(home)]
    run(sessdex("show", *common, "--no-pager"), env)  # the index, once
    show = timed(sessdex("show", *common, "--no-pager"), env, runs)
    played = timed(
        sessdex("replay", *common, "--speed", "1000000", "--max-gap", "0"), env, runs
    )
    report.note(f"  show {show:.2f} s, replay {played:.2f} s")
    report.check(
        f"replay <= {REPLAY_RATIO} x show",
        played <= REPLAY_RATIO * show,
        f"{played / show:.2f} x",
    )


def with_big_results(path: Path, sid: str, count: int, text: bytes) -> None:
    """Append `count` tool results whose output is `text` repeated to BIG_LINE bytes."""
    body = (text * (BIG_LINE // len(text) + 1))[:BIG_LINE]
    with open(path, "ab") as out:
        for n in range(count):
            out.write(
                b'{"type":"user","message":{"role":"user","content":[{"type":"tool_result",'
                b'"tool_use_id":"toolu_big%d","content":"%s"}]},"uuid":"big-%d",'
                b'"timestamp":"2026-01-01T00:00:00Z","sessionId":"%s"}\n'
                % (n, body, n, sid.encode())
            )


def escaped(
    report: Report, work: Path, sid: str, env: dict[str, str], big: int, runs: int
) -> None:
    report.note(f"(b) show --json, {big} escaped 50 MB tool outputs vs base64 ones")
    seconds = {}
    for name, text in (("base64", b"QUJD" * 15), ("escaped", b"x" * 58 + b"\\n")):
        home = work / name / "home"
        shutil.copytree(work / "corpus" / "home", home)
        (path,) = home.rglob(f"{sid}.jsonl")
        with_big_results(path, sid, big, text)
        argv = sessdex("show", sid, "--json", "--home", str(home))
        run(argv, env)  # the index, once
        seconds[name] = timed(argv, env, runs)
        shutil.rmtree(work / name)
    report.note(
        f"  base64 {seconds['base64']:.2f} s, escaped {seconds['escaped']:.2f} s"
    )
    ratio = seconds["escaped"] / seconds["base64"]
    report.check(
        f"escaped <= {ESCAPED_RATIO} x base64", ratio <= ESCAPED_RATIO, f"{ratio:.2f} x"
    )


def explain(
    report: Report, home: Path, sid: str, env: dict[str, str], runs: int
) -> None:
    report.note("(c) peak RSS of usage --explain vs usage, one session, both cold")
    peaks = {}
    state = Path(env["SESSDEX_HOME"])
    for name, more in (("usage", []), ("explain", ["--explain", sid[:8]])):
        argv = sessdex("usage", "session", "--home", str(home), *more)
        found = []
        for i in range(runs):
            # a fresh state each run: a warm usage answers from its cache without
            # reading the file, which --explain always reads
            cold = environment(state.with_name(f"{state.name}-{name}-{i}"))
            found.append(run(argv, cold, measure_rss=True).peak_rss)
        peaks[name] = median(found)
    report.note(f"  usage {mb(peaks['usage'])}, --explain {mb(peaks['explain'])}")
    ratio = peaks["explain"] / peaks["usage"]
    report.check(
        f"--explain <= {EXPLAIN_RATIO} x usage",
        ratio <= EXPLAIN_RATIO,
        f"{ratio:.2f} x",
    )


def exports(
    report: Report, work: Path, sid: str, env: dict[str, str], big: int, runs: int
) -> None:
    report.note(f"(d) export md and html vs show --json, {big} tool outputs of 50 MB")
    home = work / "exports" / "home"
    shutil.copytree(work / "corpus" / "home", home)
    (path,) = home.rglob(f"{sid}.jsonl")
    with_big_results(path, sid, big, b"x" * 58 + b"\\n")
    common = ["--home", str(home)]
    run(sessdex("show", sid, "--json", *common), env)  # the index, once
    figures: dict[str, tuple[float, float]] = {}
    for name, argv in (
        ("show --json", sessdex("show", sid, "--json", *common)),
        ("export md", sessdex("export", sid, "-f", "md", *common)),
        ("export html", sessdex("export", sid, "-f", "html", *common)),
        (
            "export md --subagents inline",
            sessdex("export", sid, "-f", "md", "--subagents", "inline", *common),
        ),
    ):
        found = [run(argv, env, measure_rss=True) for _ in range(runs)]
        if any(r.returncode != 0 for r in found):
            raise SystemExit(f"{' '.join(argv)} failed: {found[0].stderr[-500:]}")
        figures[name] = (
            median([r.peak_rss for r in found]),
            median([r.seconds for r in found]),
        )
        report.note(f"  {name}: {mb(figures[name][0])}, {figures[name][1]:.2f} s")
    shutil.rmtree(work / "exports")
    base_rss, base_seconds = figures["show --json"]
    for name in ("export md", "export html"):
        rss, seconds = figures[name]
        report.check(
            f"{name} peak RSS <= {EXPORT_RSS_RATIO} x show --json",
            rss <= EXPORT_RSS_RATIO * base_rss,
            f"{rss / base_rss:.2f} x",
        )
        report.check(
            f"{name} time <= {EXPORT_TIME_RATIO} x show --json",
            seconds <= EXPORT_TIME_RATIO * base_seconds,
            f"{seconds / base_seconds:.2f} x",
        )
    grouped, inline = (
        figures["export md"][1],
        figures["export md --subagents inline"][1],
    )
    report.check(
        f"export md time <= {GROUPED_RATIO} x export md --subagents inline",
        grouped <= GROUPED_RATIO * inline,
        f"{grouped / inline:.2f} x",
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=256, help="transcript size")
    parser.add_argument("--big-lines", type=int, default=4, help="for (b)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--skip", action="append", default=[], choices=["a", "b", "c", "d"]
    )
    args = parser.parse_args()
    report = Report()
    work = Path(tempfile.mkdtemp(prefix="sessdex-bench-views-"))
    try:
        manifest = make_real(work / "corpus", args.mb)
        home = work / "corpus" / "home"
        sid = manifest["sessions"][0]["id"]
        env = environment(work / "state")
        if "a" not in args.skip:
            replay(report, home, sid, env, args.runs)
        if "c" not in args.skip:
            explain(report, home, sid, env, args.runs)
        if "b" not in args.skip:
            escaped(report, work, sid, env, args.big_lines, args.runs)
        if "d" not in args.skip:
            exports(report, work, sid, env, args.big_lines, args.runs)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return report.summary()


if __name__ == "__main__":
    sys.exit(main())
