"""Commands beyond `list` at 1,000 and 10,000 sessions: what grows faster than the home.

Two homes from `make_corpus.py` (Claude Code and Codex, its state database listing every
thread), one ten times the other, with short real tails and no sparse hole: every command
may read any file whole. Each command runs cold (no index yet) and warm (indexed), each
figure the median of `--runs` whole-process runs, and is printed as big / small.

Targets:
  (a) peak RSS of a cold `list --json` at 10x the sessions ≤ 2x (what the index holds
      while it is built grows with the sessions, not with a record's encoding buffer)
  (b) peak RSS of a cold `list --app codex --json` vs a cold `list --app claude --json`
      on the big home ≤ 1.5x (the state database's thousands of rows, parsed as one file,
      cost no more than the transcripts parsed one by one)
  (c) peak RSS of a cold `usage daily --json` at 10x the sessions ≤ 2.5x (each file's
      sums saved as they come, workers sending back small batches: at 10,000 sessions it
      held every file's reading state, sums and keys at once, 227 MB against 59 MB)
The other commands' ratios are printed for information, and a warm tab press (`complete`:
the shell asking for session ids) as a ratio of a warm `list --json` on the same home.

    .venv/bin/python bench/bench_scale.py                      # writes /tmp/sessdex-scale
    .venv/bin/python bench/bench_scale.py --sessions 3000 --runs 3 --commands list,find
    .venv/bin/python bench/bench_scale.py --warm --commands list,find,find-undashed
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import HERE, PYTHON, Report, environment, mb, median, run, sessdex

DEFAULT_ROOT = Path("/tmp/sessdex-scale")
TAIL = 8 * 1024  # real bytes after the head: listing reads the ends, `usage` all of it
_MAKE = (
    "import sys; sys.path.insert(0, sys.argv[1]); import make_corpus; "
    f"make_corpus.TAIL_MIN = {TAIL}; make_corpus.main(sys.argv[2:])"
)


def ensure_home(out: Path, sessions: int) -> dict:
    manifest = out / "manifest.json"
    if manifest.exists():
        data = json.loads(manifest.read_bytes())
        if data.get("top_level") == sessions and data.get("scale_tail") == TAIL:
            return data
    print(f"writing a {sessions}-session home to {out} ...", flush=True)
    subprocess.run(
        [PYTHON, "-c", _MAKE, str(HERE), str(out), "--sessions", str(sessions),
         "--median-mb", "0.01", "--p90-mb", "0.02", "--largest-mb", "0.03", "--force"],
        check=True,
    )  # fmt: skip
    data = json.loads(manifest.read_bytes())
    data["scale_tail"] = TAIL
    manifest.write_text(json.dumps(data))
    return data


def commands(manifest: dict) -> dict[str, list[str]]:
    sessions = manifest["sessions"]
    claude = [e for e in sessions if e["app"] == "claude"]
    codex = [e for e in sessions if e["app"] == "codex"]
    lead = max(claude, key=lambda e: len(e["subagents"]))
    middle = claude[len(claude) // 2]["id"]
    return {
        "list": ["list", "--json"],
        "list-codex": ["list", "--app", "codex", "--json"],
        "list-claude": ["list", "--app", "claude", "--json"],
        "find": ["find", "retry", "checkout", "--json"],
        "find-dir": ["find", "dir:billing", "--json"],
        "show-tail": ["show", middle, "--tail", "50", "--json"],
        "show-prefix": ["show", middle[:6], "--tail", "5"],
        # an id as pasted without its dashes: a miss as typed, then its dashed form
        "find-undashed": ["find", middle.replace("-", ""), "--json"],
        "show-undashed": ["show", middle.replace("-", ""), "--tail", "5"],
        "tree": ["tree", lead["id"]],
        "resume": ["resume", middle, "--print"],
        "doctor": ["doctor"],
        "usage": ["usage", "session", "--json"],
        "usage-daily": ["usage", "daily", "--json"],
        "usage-explain": ["usage", "session", "--explain", codex[0]["id"]],
        "watch": ["watch", "--json"],
        # the shell's completion request for `sessdex show --home HOME 0<TAB>`
        "complete": [COMPLETE, "show", "0"],
    }


COMPLETE = "(tab)"


def invocation(home: str, argv: list[str], state: Path) -> tuple[list[str], dict]:
    """The command line and environment that run `argv` on `home`."""
    env = environment(state)
    if argv[:1] != [COMPLETE]:
        return sessdex(*argv, "--home", home), env
    words = ["sessdex", argv[1], "--home", home, *argv[2:]]
    env.update(
        _SESSDEX_COMPLETE="bash_complete",
        COMP_WORDS=" ".join(words),
        COMP_CWORD=str(len(words) - 1),
    )
    return [str(Path(PYTHON).parent / "sessdex")], env


def measure(home: str, argv: list[str], runs: int, warm: bool) -> tuple[float, int]:
    seconds, peaks = [], []
    with tempfile.TemporaryDirectory() as scratch:
        for n in range(runs):
            state = Path(scratch) / ("warm" if warm else f"cold{n}")
            if warm and n == 0:
                run(sessdex("list", "--json", "--home", home), environment(state))
            command, env = invocation(home, argv, state)
            result = run(command, env, measure_rss=True)
            seconds.append(result.seconds)
            peaks.append(result.peak_rss)
            if not warm:
                shutil.rmtree(state, ignore_errors=True)
    return median(seconds), int(median(peaks))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT)
    parser.add_argument("--sessions", type=int, default=10_000, help="the big home")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--commands", help="a comma-separated subset (default all)")
    parser.add_argument("--warm", action="store_true", help="the warm runs only")
    args = parser.parse_args()
    small_n = max(1, args.sessions // 10)
    small = ensure_home(args.root / f"s{small_n}", small_n)
    big = ensure_home(args.root / f"s{args.sessions}", args.sessions)
    report = Report()
    chosen = args.commands.split(",") if args.commands else None
    figures: dict[tuple[str, str], tuple[float, int, float, int]] = {}
    small_commands, big_commands = commands(small), commands(big)
    for name in big_commands:
        if chosen and name not in chosen:
            continue
        for mode in ("warm",) if args.warm else ("cold", "warm"):
            warm = mode == "warm"
            s_time, s_rss = measure(
                small["home"], small_commands[name], args.runs, warm
            )
            b_time, b_rss = measure(big["home"], big_commands[name], args.runs, warm)
            figures[name, mode] = (s_time, s_rss, b_time, b_rss)
            report.note(
                f"{name:14} {mode}  {small_n}: {s_time:6.2f} s {mb(s_rss):>7}"
                f"   {args.sessions}: {b_time:6.2f} s {mb(b_rss):>7}"
                f"   x{b_time / s_time:5.1f} time  x{b_rss / s_rss:4.1f} RSS"
            )
    if ("complete", "warm") in figures and ("list", "warm") in figures:
        tab, listing = figures["complete", "warm"], figures["list", "warm"]
        report.note(
            f"tab press vs warm list: {tab[2]:.2f} s vs {listing[2]:.2f} s at "
            f"{args.sessions} ({tab[2] / listing[2]:.2f}x), {tab[0]:.2f} s vs "
            f"{listing[0]:.2f} s at {small_n} ({tab[0] / listing[0]:.2f}x)"
        )
    for name in ("find", "find-undashed", "show-prefix", "show-undashed"):
        if (name, "warm") in figures and ("list", "warm") in figures:
            took, listing = figures[name, "warm"], figures["list", "warm"]
            report.note(
                f"{name} vs warm list: {took[2]:.2f} s vs {listing[2]:.2f} s at "
                f"{args.sessions} ({took[2] / listing[2]:.2f}x)"
            )
    if ("list", "cold") in figures:
        s_time, s_rss, b_time, b_rss = figures["list", "cold"]
        ratio = b_rss / s_rss
        report.check(
            "(a) cold list RSS, 10x sessions",
            ratio <= 2.0,
            f"{mb(b_rss)} vs {mb(s_rss)}: {ratio:.2f}x (target ≤ 2x)",
        )
    if ("usage-daily", "cold") in figures:
        s_time, s_rss, b_time, b_rss = figures["usage-daily", "cold"]
        ratio = b_rss / s_rss
        report.check(
            "(c) cold usage daily RSS, 10x sessions",
            ratio <= 2.5,
            f"{mb(b_rss)} vs {mb(s_rss)}: {ratio:.2f}x (target ≤ 2.5x)",
        )
    if ("list-codex", "cold") in figures and ("list-claude", "cold") in figures:
        codex_rss = figures["list-codex", "cold"][3]
        claude_rss = figures["list-claude", "cold"][3]
        ratio = codex_rss / claude_rss
        report.check(
            "(b) cold list RSS, Codex vs Claude Code",
            ratio <= 1.5,
            f"{mb(codex_rss)} vs {mb(claude_rss)}: {ratio:.2f}x (target ≤ 1.5x)",
        )
    return report.summary()


if __name__ == "__main__":
    sys.exit(main())
