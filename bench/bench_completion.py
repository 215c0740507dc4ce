"""A tab press at 1,000 and 10,000 sessions: click's answer (old) against `quicktab`'s (new).

The homes are bench_scale.py's (make_corpus.py: Claude Code and Codex). Each home is the
user's own (HOME), indexed by a first `list --json`; then, warm, the medians of `--runs`
whole-process runs of:

  list    `sessdex list --json` (the quick listing path), the baseline
  old     the shell's request for `sessdex show 0<TAB>` (zsh: ids and titles), as click
          answers it (SESSDEX_NO_QUICK=1)
  new     the same request, answered by `quicktab`
  app     `sessdex list --app c<TAB>`, answered by `quicktab`

Each is printed with its ratio to `list` in the same process, and new against old.

    .venv/bin/python bench/bench_completion.py                 # writes /tmp/sessdex-scale
    .venv/bin/python bench/bench_completion.py --sessions 3000 --runs 7
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from _common import PYTHON, Report, environment, median, ms, run, sessdex
from bench_scale import DEFAULT_ROOT, ensure_home

COMMAND = str(Path(PYTHON).parent / "sessdex")  # as the shell's script runs it


def tab(before: list[str], typed: str, home: str, state: Path, old: bool) -> dict:
    """The environment of zsh's completion request for `sessdex BEFORE TYPED<TAB>`."""
    env = environment(state)
    env.update(
        HOME=home,
        _SESSDEX_COMPLETE="zsh_complete",
        COMP_WORDS=" ".join(["sessdex", *before, typed]),
        COMP_CWORD=str(len(before) + 1),
    )
    if old:
        env["SESSDEX_NO_QUICK"] = "1"
    return env


def measure(home: str, runs: int) -> dict[str, float]:
    """Median seconds of each case on `home`, warm."""
    with tempfile.TemporaryDirectory() as scratch:
        state = Path(scratch)
        listing = environment(state)
        listing["HOME"] = home
        first = run(sessdex("list", "--json"), listing)  # builds the index
        assert first.returncode == 0, first.stderr
        cases = {
            "list": (sessdex("list", "--json"), listing),
            "old": ([COMMAND], tab(["show"], "0", home, state, old=True)),
            "new": ([COMMAND], tab(["show"], "0", home, state, old=False)),
            "app": ([COMMAND], tab(["list", "--app"], "c", home, state, old=False)),
        }
        outputs = {
            name: run(argv, env, keep_stdout=True).stdout
            for name, (argv, env) in cases.items()
        }
        assert outputs["old"] == outputs["new"], "the two answers differ"
        assert outputs["new"].count(b"\n") > 3, "no session offered"
        times: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(runs):  # interleaved: a busy machine slows all cases alike
            for name, (argv, env) in cases.items():
                times[name].append(run(argv, env).seconds)
    return {name: median(values) for name, values in times.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT)
    parser.add_argument("--sessions", type=int, default=10_000, help="the big home")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    report = Report()
    small_n = max(1, args.sessions // 10)
    for count in (small_n, args.sessions):
        manifest = ensure_home(args.root / f"s{count}", count)
        figures = measure(manifest["home"], args.runs)
        base = figures["list"]
        report.note(
            f"{count:>6} sessions: "
            + "  ".join(
                f"{name} {ms(value)} ({value / base:.2f}x list)"
                for name, value in figures.items()
            )
            + f"  new/old {figures['new'] / figures['old']:.2f}"
        )
        report.check(
            f"tab press at {count} sessions within 1.5x a warm list",
            figures["new"] <= 1.5 * base,
            f"{ms(figures['new'])} vs {ms(base)}",
        )
    return report.summary()


if __name__ == "__main__":
    sys.exit(main())
