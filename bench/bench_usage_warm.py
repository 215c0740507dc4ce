"""How long a warm `sessdex usage` and `usage session` take to start and answer, against
`python -c 'import sessdex'` and a warm `sessdex list` in the same run.

On the demo home (or --home), with the index built first and nothing changed since:
(a) `usage --json`, `usage` (the table), `usage session --json` and `usage session`, the
    project, model and app tables, `usage app --json`, and what status bars and scripts
    ask, `usage --since 7d --json` and `usage daily --since 7d`, an audit of one day
    (`usage --explain 2026-11-28`, text and JSON) and `usage -v`, each as a ratio of the bare
    interpreter with `import sessdex` (the floor) and of a warm `list` (the quick path,
    which imports no source);
(b) how many `sessdex.sources` modules a warm `usage --json` imports (an app with nothing
    in the home, or whose files did not change, should cost no import).

Runs alternate between the commands, with the bytecode cache on (see `_common`); figures
are medians of --runs runs: wall time, and the CPU time (user + system) of the process,
which a loaded machine changes less. Usage:

    .venv/bin/python bench/bench_usage_warm.py [--home DIR] [--runs 9]

stdout goes to the null device, stderr to a file: the quick path where it answers.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import PYTHON, ROOT, environment, median, ms, run, sessdex

COMMANDS: dict[str, list[str]] = {
    "import sessdex": [PYTHON, "-c", "import sessdex"],
    "list (warm)": sessdex("list"),
    "usage --json": sessdex("usage", "--json"),
    "usage": sessdex("usage"),
    "usage session --json": sessdex("usage", "session", "--json"),
    "usage session": sessdex("usage", "session"),
    "usage project": sessdex("usage", "project"),
    "usage model": sessdex("usage", "model"),
    "usage app": sessdex("usage", "app"),
    "usage app --json": sessdex("usage", "app", "--json"),
    "usage --since 7d --json": sessdex("usage", "--since", "7d", "--json"),
    "usage daily --since 7d": sessdex("usage", "daily", "--since", "7d"),
    # an audit of one day (a day with nothing counted is said, not an error), and -v
    "usage --explain DAY": sessdex("usage", "--explain", "2026-11-28"),
    "usage --explain DAY --json": sessdex("usage", "--explain", "2026-11-28", "--json"),
    "usage -v": sessdex("usage", "-v"),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, default=ROOT / "src/sessdex/demo/home")
    parser.add_argument("--runs", type=int, default=9)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as state:
        env = environment(Path(state))
        home = ["--home", str(options.home)]
        argvs = {
            name: argv if name == "import sessdex" else [*argv, *home]
            for name, argv in COMMANDS.items()
        }
        for argv in argvs.values():  # the index, and the bytecode cache, built
            run(argv, env)
        times: dict[str, list[float]] = {name: [] for name in argvs}
        cpu: dict[str, list[float]] = {name: [] for name in argvs}
        for _ in range(options.runs):
            for name, argv in argvs.items():
                done = run(argv, env)
                if done.returncode != 0:
                    raise SystemExit(f"{name} failed: {done.stderr[-500:]}")
                times[name].append(done.seconds)
                cpu[name].append(done.cpu)
        loaded = subprocess.run(
            [PYTHON, "-X", "importtime", *argvs["usage --json"][1:]],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stderr
    floor = median(times["import sessdex"])
    listed = median(times["list (warm)"])
    print(f"home: {options.home}; medians of {options.runs} warm runs")
    print(f"{'command':24} {'time':>9} {'x import':>9} {'x list':>7} {'CPU':>9}")
    for name, seconds in times.items():
        m = median(seconds)
        print(
            f"{name:24} {ms(m):>9} {m / floor:>9.2f} {m / listed:>7.2f} "
            f"{ms(median(cpu[name])):>9}"
        )
    count = sum(
        1
        for line in loaded.splitlines()
        if line.rsplit("|", 1)[-1].strip().startswith("sessdex.sources.")
    )
    print(f"sessdex.sources modules a warm usage --json imports: {count}")


if __name__ == "__main__":
    main()
