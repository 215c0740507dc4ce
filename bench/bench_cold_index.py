"""A cold `list --json` (the first index of a home) on a generated home of many small
sessions of five apps: what the index build pays per file beyond parsing.

The home (under --root, default /tmp/sessdex-cold-index) holds --sessions sessions, a
fifth each of Claude Code and Codex (written as bench_usage_many_files.py writes them,
--turns turns), Pi, Gemini CLI and Copilot CLI (their fixtures' sessions, each copied
under an id of its own). Each run is a whole process with an empty index (SESSDEX_HOME a
new folder); figures are medians of --runs runs, wall and CPU (user + system, workers
included), beside the floor: a `python -c` that stats and reads every file once.
`--baseline-src OLD/src` runs that build too, alternating, in the same loop, prints
this tree / that build and checks both print the same bytes. `--profile` runs one cold
listing in this process under cProfile, on one core (SESSDEX_DEBUG: no workers), and
prints its costliest functions. `--rss N`: the peak RSS of a cold list of a home of N
sessions against one of N/10 (what the index build holds grows with the rows kept, not
per file read).

    .venv/bin/python bench/bench_cold_index.py --sessions 4000 --runs 5
    .venv/bin/python bench/bench_cold_index.py --sessions 4000 --baseline-src /tmp/old/src
    .venv/bin/python bench/bench_cold_index.py --sessions 4000 --profile
    .venv/bin/python bench/bench_cold_index.py --rss 20000
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

from _common import PYTHON, ROOT, Report, environment, mb, median, ms, run, sessdex
from bench_usage_many_files import PROJECT, _claude_lines, _codex_lines

DEFAULT_ROOT = Path("/tmp/sessdex-cold-index")
LAYOUT = 1  # bump when the homes' contents change
DATA = ROOT / "tests" / "data"
PI = "pi/home/.pi/agent/sessions/--home-dev-code-ledger--"
PI_FILE = "2026-11-21T09-00-00-000Z_0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl"
PI_ID = "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
GEMINI = "gemini/home/.gemini/tmp/shop-api"
GEMINI_FILE = "chats/session-2026-11-30T08-11-91700103.jsonl"
GEMINI_ID = "91700103-d86c-4b78-a644-1859e018e21c"
COPILOT = "copilot/home/.copilot/session-state/52ee9297-7cb3-468f-8ca4-46f6b927c8c7"
COPILOT_ID = "52ee9297-7cb3-468f-8ca4-46f6b927c8c7"
FLOOR = (
    "import os, sys\n"
    "for top, _, names in os.walk(sys.argv[1]):\n"
    "    for name in names:\n"
    "        path = os.path.join(top, name); os.stat(path)\n"
    "        with open(path, 'rb') as f: f.read()\n"
)


def make_home(out: Path, sessions: int, turns: int) -> Path:
    """`out`/home, written unless one of that size and layout is there."""
    stamp = out / "made.json"
    wanted = {"sessions": sessions, "turns": turns, "layout": LAYOUT}
    home = out / "home"
    if stamp.exists() and json.loads(stamp.read_bytes()) == wanted:
        return home
    print(f"writing a home of {sessions} sessions to {out} ...", flush=True)
    shutil.rmtree(out, ignore_errors=True)
    claude = home / ".claude/projects" / PROJECT.replace("/", "-")
    codex = home / ".codex/sessions/2026/11/30"
    pi = home / ".pi/agent/sessions/--home-dev-code-ledger--"
    gemini = home / ".gemini/tmp/shop-api"
    copilot = home / ".copilot/session-state"
    for folder in (claude, codex, pi, gemini / "chats", copilot):
        folder.mkdir(parents=True)
    shutil.copy(DATA / GEMINI / ".project_root", gemini / ".project_root")
    pi_text = (DATA / PI / PI_FILE).read_text()
    gemini_text = (DATA / GEMINI / GEMINI_FILE).read_text()
    copilot_events = (DATA / COPILOT / "events.jsonl").read_text()
    copilot_yaml = (DATA / COPILOT / "workspace.yaml").read_text()
    for n in range(sessions):
        session = f"{n:08x}-0000-4000-8000-{n:012x}"
        kind = n % 5
        if kind == 0:
            lines = _claude_lines(session, turns, n)
            (claude / f"{session}.jsonl").write_text("\n".join(lines) + "\n")
        elif kind == 1:
            lines = _codex_lines(session, turns, n)
            name = f"rollout-2026-11-30T00-00-00-{session}.jsonl"
            (codex / name).write_text("\n".join(lines) + "\n")
        elif kind == 2:
            name = PI_FILE.replace(PI_ID, session)
            (pi / name).write_text(pi_text.replace(PI_ID, session))
        elif kind == 3:
            name = f"chats/session-2026-11-30T08-11-{session[:8]}.jsonl"
            (gemini / name).write_text(gemini_text.replace(GEMINI_ID, session))
        else:
            folder = copilot / session
            folder.mkdir()
            (folder / "events.jsonl").write_text(
                copilot_events.replace(COPILOT_ID, session)
            )
            (folder / "workspace.yaml").write_text(
                copilot_yaml.replace(COPILOT_ID, session)
            )
    stamp.write_text(json.dumps(wanted))
    return home


def profile(home: Path) -> None:
    """One cold listing in this process, on one core, its costliest functions printed."""
    import cProfile
    import pstats

    with tempfile.TemporaryDirectory() as state:
        os.environ.update(SESSDEX_HOME=state, SESSDEX_DEBUG="1")
        sys.path.insert(0, str(ROOT / "src"))
        from sessdex.cli import main as cli

        argv = ["list", "--json", "--home", str(home)]
        profiler = cProfile.Profile()
        with open(os.devnull, "w") as null:
            out, sys.stdout = sys.stdout, null
            try:
                profiler.runcall(cli, argv, standalone_mode=False)
            finally:
                sys.stdout = out
    stats = pstats.Stats(profiler)
    stats.sort_stats("tottime").print_stats(30)
    stats.sort_stats("cumulative").print_stats(60)


def cold_runs(report: Report, home: Path, runs: int, baseline: Path | None) -> None:
    floors = [run([PYTHON, "-c", FLOOR, str(home)]) for _ in range(runs)]
    floor = median([f.seconds for f in floors])
    report.note(f"floor (stat + read every file): {ms(floor)}")
    argv = sessdex("list", "--json", "--home", str(home))
    trees = ["new", "old"] if baseline else ["new"]
    figures: dict[str, list[tuple[float, float]]] = {}
    printed: dict[str, set[bytes]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        for n in range(runs):
            for tree in trees:  # alternating, so that load falls on both
                env = environment(Path(scratch) / f"{tree}{n}")
                if tree == "old" and baseline is not None:
                    env["PYTHONPATH"] = str(baseline.resolve())
                result = run(argv, env, keep_stdout=True)
                if result.returncode:
                    raise SystemExit(f"{tree} failed: {result.stderr[-500:]}")
                printed.setdefault(tree, set()).add(result.stdout)
                figures.setdefault(tree, []).append((result.seconds, result.cpu))
                shutil.rmtree(Path(scratch) / f"{tree}{n}", ignore_errors=True)
    sessions = len(json.loads(next(iter(printed["new"]))))
    walls = {tree: median([v[0] for v in values]) for tree, values in figures.items()}
    cpus = {tree: median([v[1] for v in values]) for tree, values in figures.items()}
    for tree in trees:
        label = "this tree" if tree == "new" else "baseline "
        report.note(
            f"  cold list {label}  {ms(walls[tree]):>9}  cpu {ms(cpus[tree]):>9}"
            f"  ({cpus[tree] / sessions * 1e6:.0f} us cpu a session)"
        )
    if baseline:
        report.note(
            f"  this tree / baseline: wall x{walls['new'] / walls['old']:.2f}"
            f"  cpu x{cpus['new'] / cpus['old']:.2f}"
        )
    every = set().union(*printed.values())
    report.check("the same bytes every run", len(every) == 1, f"{len(every)} outputs")


def rss_runs(report: Report, root: Path, sessions: int, turns: int, runs: int) -> None:
    small_n = max(5, sessions // 10)
    peaks: dict[int, float] = {}
    for n in (small_n, sessions):
        home = make_home(root / f"rss{n}", n, turns)
        argv = sessdex("list", "--json", "--home", str(home))
        values = []
        with tempfile.TemporaryDirectory() as scratch:
            for k in range(runs):
                result = run(
                    argv, environment(Path(scratch) / f"s{k}"), measure_rss=True
                )
                values.append(result.peak_rss)
        peaks[n] = median(values)
        report.note(f"  cold list of {n} sessions: peak RSS {mb(peaks[n])}")
    ratio = peaks[sessions] / peaks[small_n]
    report.check(
        f"cold list RSS, {sessions} vs {small_n} sessions",
        ratio <= 2.0,
        f"{mb(peaks[sessions])} vs {mb(peaks[small_n])}: {ratio:.2f}x (target ≤ 2x)",
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT)
    parser.add_argument("--sessions", type=int, default=4000)
    parser.add_argument("--turns", type=int, default=3)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--baseline-src", type=Path, help="an older checkout's src/")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument(
        "--rss", type=int, metavar="N", help="RSS at N vs N/10 sessions"
    )
    args = parser.parse_args()
    if args.rss:
        report = Report()
        rss_runs(report, args.root, args.rss, args.turns, args.runs)
        return report.summary()
    home = make_home(args.root / f"s{args.sessions}", args.sessions, args.turns)
    if args.profile:
        profile(home)
        return 0
    report = Report()
    cold_runs(report, home, args.runs, args.baseline_src)
    return report.summary()


if __name__ == "__main__":
    sys.exit(main())
