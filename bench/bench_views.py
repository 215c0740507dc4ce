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
(e) `sessdex show ID --json` of an OpenCode session of --parts parts (five a message, in
    the real 1.18.33 home of shared/corpus/realcli) whose `message` and `part` are views
    over copies with no key or index (no rowid, nothing to seek by) vs the same session
    in the tables: time at most 1.5 x, peak RSS at most 1.3 x; with --base REV, that
    commit's sessdex over the views too, the same run (its time / this tree's).
(f) `sessdex list --json --all`, cold, of --untitled OpenCode sessions with the placeholder
    title (New session - <time>), which each take their first prompt for a title, over
    `message` and `part` views with no index under them vs the same in the tables; with
    --base REV, that commit's sessdex over the views too (CPU seconds, medians).

The transcript is written by make_corpus.py (`--real-bytes`, a few pasted images) into a temp
dir and deleted after. Figures are medians of --runs runs. Usage:

    .venv/bin/python bench/bench_views.py [--mb 256] [--big-lines 4] [--runs 3]
        [--parts 10000] [--untitled 1000 ...] [--base REV] [--skip a|b|c|d|e|f]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import ROOT, Report, environment, make_real, mb, median, run, sessdex

REPLAY_RATIO = 1.3
ESCAPED_RATIO = 1.5
EXPLAIN_RATIO = 1.3
EXPORT_RSS_RATIO = 2.0
EXPORT_TIME_RATIO = 3.0
GROUPED_RATIO = 1.3
VIEWS_TIME_RATIO = 1.5
VIEWS_RSS_RATIO = 1.3
BIG_LINE = 50 * 1024 * 1024
REALCLI = ROOT.parent / "shared" / "corpus" / "realcli" / "opencode-1.18.33" / "home"
OPENCODE_SESSION = "ses_dd47cef52ffe38O37iH1Ffe05b"
PARTS_A_MESSAGE = 5


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


def opencode_home(target: Path, parts: int, views: bool) -> None:
    """The real OpenCode home with `parts` more parts in its first session; with `views`,
    `message` and `part` copied into tables with no key or index, views of them in their
    place (`CREATE TABLE … AS SELECT` keeps neither)."""
    shutil.copytree(REALCLI, target)
    database = target / ".local" / "share" / "opencode" / "opencode.db"
    db = sqlite3.connect(database)
    (created,) = db.execute(
        "SELECT max(time_created) FROM message WHERE session_id = ?",
        (OPENCODE_SESSION,),
    ).fetchone()
    for n in range(parts // PARTS_A_MESSAGE):
        message_id, when = f"msg_zzbench{n:07d}", created + n + 1
        role = "assistant" if n % 2 else "user"
        info = {"role": role, "time": {"created": when}}
        db.execute(
            "INSERT INTO message (id, session_id, time_created, time_updated, data)"
            " VALUES (?, ?, ?, ?, ?)",
            (message_id, OPENCODE_SESSION, when, when, json.dumps(info)),
        )
        for p in range(PARTS_A_MESSAGE):
            part = {"type": "text", "text": f"part {p} of message {n}: " + "w" * 200}
            db.execute(
                "INSERT INTO part (id, message_id, session_id, time_created,"
                " time_updated, data) VALUES (?, ?, ?, ?, ?, ?)",
                (f"prt_{message_id}_{p}", message_id, OPENCODE_SESSION, when, when,
                 json.dumps(part)),
            )  # fmt: skip
    if views:
        for table in ("message", "part"):
            db.execute(f"CREATE TABLE {table}_copy AS SELECT * FROM {table}")
            db.execute(f"DROP TABLE {table}")
            db.execute(f"CREATE VIEW {table} AS SELECT * FROM {table}_copy")
    db.commit()
    db.close()


def untitled_home(target: Path, count: int, views: bool) -> None:
    """The real OpenCode home with `count` more sessions, untitled (the placeholder): a
    prompt of two parts and an answer each; with `views`, as `opencode_home` makes them."""
    shutil.copytree(REALCLI, target)
    database = target / ".local" / "share" / "opencode" / "opencode.db"
    db = sqlite3.connect(database)
    project, directory, version, created = db.execute(
        "SELECT project_id, directory, version, time_created FROM session LIMIT 1"
    ).fetchone()
    for n in range(count):
        sid, when = f"ses_zzbench{n:07d}", created + 1000 * n
        title = "New session - 2026-01-01T00:00:00.000Z"
        db.execute(
            "INSERT INTO session (id, project_id, slug, directory, title, version,"
            " time_created, time_updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (sid, project, sid, directory, title, version, when, when),
        )  # fmt: skip
        for m, role in enumerate(("user", "assistant")):
            message_id = f"msg_{sid}_{m}"
            info = {"role": role, "time": {"created": when + m}}
            db.execute(
                "INSERT INTO message (id, session_id, time_created, time_updated, data)"
                " VALUES (?, ?, ?, ?, ?)",
                (message_id, sid, when + m, when + m, json.dumps(info)),
            )
            for p in range(2):
                part = {"type": "text", "text": f"prompt {n} part {p} of {role}"}
                db.execute(
                    "INSERT INTO part (id, message_id, session_id, time_created,"
                    " time_updated, data) VALUES (?, ?, ?, ?, ?, ?)",
                    (f"prt_{message_id}_{p}", message_id, sid, when + m, when + m,
                     json.dumps(part)),
                )  # fmt: skip
    if views:
        for table in ("message", "part"):
            db.execute(f"CREATE TABLE {table}_copy AS SELECT * FROM {table}")
            db.execute(f"DROP TABLE {table}")
            db.execute(f"CREATE VIEW {table} AS SELECT * FROM {table}_copy")
    db.commit()
    db.close()


def untitled(
    report: Report, work: Path, count: int, runs: int, base: str | None
) -> None:
    report.note(f"(f) cold list --json --all, {count} untitled sessions")
    cases = [("tables", False, None), ("views", True, None)]
    if base:
        src = base_tree(work, base)
        cases += [(f"tables at {base}", False, src), (f"views at {base}", True, src)]
    outputs: dict[str, bytes] = {}
    figures: dict[str, float] = {}
    for name, as_views, src in cases:
        home = work / "untitled" / ("views" if as_views else "tables")
        if not home.exists():
            untitled_home(home, count, as_views)
        cpu = []
        for n in range(runs):  # each cold: a state of its own
            env = environment(work / "state-untitled" / f"{name}-{n}".replace(" ", "-"))
            if src is not None:
                env["PYTHONPATH"] = str(src)
            argv = sessdex("list", "--json", "--all", "--home", str(home))
            result = run(argv, env, keep_stdout=True)
            if result.returncode != 0:
                raise SystemExit(f"{name}: list failed: {result.stderr[-500:]}")
            cpu.append(result.cpu)
            outputs[name] = result.stdout
        figures[name] = median(cpu)
        report.note(f"  {name}: {figures[name]:.2f} s CPU (median of {runs})")
    shutil.rmtree(work / "untitled")
    if base:  # tables and views list apart: the times the tables' index finds
        for kind in ("tables", "views"):
            report.check(
                f"{kind}: the same list at {base}",
                outputs[kind] == outputs[f"{kind} at {base}"],
                f"{len(outputs[kind])} bytes",
            )
        before = figures[f"views at {base}"] / figures["views"]
        report.note(f"  views at {base} / this tree: {before:.1f} x the CPU")


def base_tree(work: Path, rev: str) -> Path:
    """`rev`'s src/ (git archive), for the same run's before."""
    target = work / "base"
    if target.exists():  # made for (e) already
        return target / "src"
    target.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev, "src"], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    return target / "src"


def views(report: Report, work: Path, parts: int, runs: int, base: str | None) -> None:
    report.note(f"(e) show --json, {parts} parts: views without an index vs tables")
    figures: dict[str, tuple[float, float]] = {}
    cases = [("tables", False, None), ("views", True, None)]
    if base:
        cases.append((f"views at {base}", True, base_tree(work, base)))
    for name, as_views, src in cases:
        home = work / "opencode" / ("views" if as_views else "tables")
        if not home.exists():
            opencode_home(home, parts, as_views)
        env = environment(work / "state-opencode" / name.replace(" ", "-"))
        if src is not None:
            env["PYTHONPATH"] = str(src)
        argv = sessdex("show", OPENCODE_SESSION, "--json", "--home", str(home))
        run(argv, env)  # the index, once
        found = [run(argv, env, measure_rss=True) for _ in range(runs)]
        if any(r.returncode != 0 for r in found):
            raise SystemExit(f"{name}: show failed: {found[0].stderr[-500:]}")
        figures[name] = (
            median([r.seconds for r in found]),
            median([r.peak_rss for r in found]),
        )
        report.note(f"  {name}: {figures[name][0]:.2f} s, {mb(figures[name][1])}")
    shutil.rmtree(work / "opencode")
    (seconds, rss), (base_seconds, base_rss) = figures["views"], figures["tables"]
    report.check(
        f"views time <= {VIEWS_TIME_RATIO} x tables",
        seconds <= VIEWS_TIME_RATIO * base_seconds,
        f"{seconds / base_seconds:.2f} x",
    )
    report.check(
        f"views peak RSS <= {VIEWS_RSS_RATIO} x tables",
        rss <= VIEWS_RSS_RATIO * base_rss,
        f"{rss / base_rss:.2f} x",
    )
    if base:
        before = figures[f"views at {base}"][0]
        report.note(f"  views at {base} / this tree: {before / seconds:.1f} x the time")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=256, help="transcript size")
    parser.add_argument("--big-lines", type=int, default=4, help="for (b)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--parts", type=int, default=10_000, help="for (e)")
    parser.add_argument(
        "--untitled", type=int, nargs="+", default=[1_000], help="for (f)"
    )
    parser.add_argument("--base", help="(e), (f) also at this commit, e.g. 874d425f")
    parser.add_argument(
        "--skip", action="append", default=[], choices=["a", "b", "c", "d", "e", "f"]
    )
    args = parser.parse_args()
    report = Report()
    work = Path(tempfile.mkdtemp(prefix="sessdex-bench-views-"))
    try:
        if "e" not in args.skip:
            views(report, work, args.parts, args.runs, args.base)
        if "f" not in args.skip:
            for count in args.untitled:
                untitled(report, work, count, args.runs, args.base)
        if not {"a", "b", "c", "d"} - set(args.skip):
            return report.summary()
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
