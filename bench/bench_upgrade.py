"""The first `usage daily --json` and `list --json` after an upgrade that changed one
app's reader (Codex's), in a home of Claude Code and Codex sessions: this tree against
another (`--baseline-src`, an older checkout's src/), each upgraded the same way.

Each run: a fresh state; the older build (a copy of the tree) runs `usage` and `list`
once (its index made); the newer build (another copy, `sources/codex.py` changed, so its
own index name) runs the timed command. The homes are bench_scale.py's. Each figure is
the median of --runs whole-process runs (wall and CPU time). The newer build's output
must be a cold run's (a cost's last digit aside: `bench_usage_cold.same_rows`).

Target: this tree's first `usage` after a one-reader upgrade at most 0.7x the baseline's
CPU time.

    .venv/bin/python bench/bench_upgrade.py --baseline-src /path/to/old/src
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

from _common import ROOT, Report, environment, median, run, sessdex
from bench_scale import DEFAULT_ROOT, ensure_home
from bench_usage_cold import same_rows


def builds(src: Path, scratch: Path, tree: str) -> tuple[Path, Path]:
    """Two builds of the tree at `src`: as it is, and with Codex's reader changed."""
    older, newer = scratch / f"{tree}-older", scratch / f"{tree}-newer"
    for copy in (older, newer):
        shutil.copytree(src, copy, ignore=shutil.ignore_patterns("__pycache__"))
    with open(newer / "sessdex" / "sources" / "codex.py", "a") as file:
        file.write("\n# a fix\n")
    return older, newer


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline-src", type=Path, required=True)
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT)
    parser.add_argument("--sessions", type=int, default=1000, help="home size")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    report = Report()
    home = ensure_home(args.root / f"s{args.sessions}", args.sessions)["home"]
    commands = {
        "usage": sessdex("usage", "daily", "--json", "--home", home),
        "list": sessdex("list", "--json", "--home", home, "-n", "100000"),
    }
    with tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder)
        trees = {
            "new": builds(ROOT / "src", scratch, "new"),
            "old": builds(args.baseline_src.resolve(), scratch, "old"),
        }
        for name, argv in commands.items():
            cpu: dict[str, list[float]] = {"new": [], "old": []}
            wall: dict[str, list[float]] = {"new": [], "old": []}
            outputs: list[bytes] = []
            for n in range(args.runs):
                for tree, (older, newer) in trees.items():
                    state = scratch / f"state-{tree}{n}"
                    for build in (older, newer):
                        env = environment(state)
                        env["PYTHONPATH"] = str(build)
                        if build == older:  # its index made, as a user's is
                            for each in commands.values():
                                run(each, env)
                            continue
                        result = run(argv, env, keep_stdout=True)
                        if result.returncode:
                            raise SystemExit(f"{tree} failed: {result.stderr[-500:]}")
                        cpu[tree].append(result.cpu)
                        wall[tree].append(result.seconds)
                        outputs.append(result.stdout)
                    shutil.rmtree(state, ignore_errors=True)
            cold_env = environment(scratch / "state-cold")
            cold_env["PYTHONPATH"] = str(trees["new"][1])
            cold = run(argv, cold_env, keep_stdout=True).stdout
            shutil.rmtree(scratch / "state-cold", ignore_errors=True)
            new_c, old_c = median(cpu["new"]), median(cpu["old"])
            report.note(
                f"{args.sessions:>6} first {name} after a Codex-reader upgrade: "
                f"{median(wall['new']):6.2f} s cpu {new_c:6.2f} s  baseline "
                f"{median(wall['old']):6.2f} s cpu {old_c:6.2f} s  x{new_c / old_c:4.2f} cpu"
            )
            report.check(
                f"{name}: the same output as a cold run",
                all(same_rows(cold, output) for output in outputs),
                f"{len({cold, *outputs})} distinct outputs",
            )
            if name == "usage":
                report.check(
                    "usage CPU time <= 0.7x the baseline's",
                    new_c <= old_c * 0.7,
                    f"{new_c:.2f} s vs {old_c:.2f} s: {new_c / old_c:.3f}x",
                )
    return report.summary()


if __name__ == "__main__":
    sys.exit(main())
