"""Peak RSS of a cold `sessdex usage` over one huge transcript, against reading the same file.

For a Claude Code transcript and a Codex rollout of --mb MB of real lines each (written by
make_corpus.py `--real-bytes`, into a temp dir, deleted after):

  usage     `sessdex usage daily --json` with a fresh state (cold: it reads the whole file);
  explain   `sessdex usage session --explain ID` in that state (warm sums; it reads the whole
            file again, with reasons), its lines written to nowhere;
  baseline  a `for line in file` loop over the same file, in a process that has imported
            what `usage` imports (the floor any reader of the file pays);
  list      a cold `sessdex list --json` over the same home, for information.

The figures are usage's and explain's peak RSS as ratios of the baseline's; target: at most
--ratio (default 2.5) for each, for each app. Each figure is the median of --runs runs; runs alternate. Usage:

    .venv/bin/python bench/bench_usage_memory.py [--mb 1024] [--runs 3] [--app claude|codex]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import HERE, PYTHON, Report, environment, mb, median, run, sessdex

LOOP = (
    "import sys, sessdex.usage, sessdex.cli, sessdex.sources.claude, sessdex.sources.codex\n"
    "n = 0\n"
    "with open(sys.argv[1], 'rb') as f:\n"
    "    for line in f:\n"
    "        n += 1\n"
)


def transcript(work: Path, app: str, megabytes: float) -> tuple[Path, Path]:
    out = work / app
    subprocess.run(
        [PYTHON, str(HERE / "make_corpus.py"), str(out), "--real-bytes", str(megabytes),
         "--real-app", app, "--force"],
        check=True,
    )  # fmt: skip
    manifest = json.loads((out / "manifest.json").read_bytes())
    return out / "home", Path(manifest["sessions"][0]["path"])


def measure(report: Report, work: Path, app: str, megabytes: float, runs: int, target: float) -> None:  # fmt: skip
    home, path = transcript(work, app, megabytes)
    report.note(f"{app}: {path.stat().st_size / 1e9:.2f} GB, {path.name}")
    peaks: dict[str, list[int]] = {
        "usage": [],
        "explain": [],
        "baseline": [],
        "list": [],
    }
    answers = set()
    for i in range(runs):
        state = work / f"state-{app}-{i}"
        usage = run(
            sessdex("usage", "daily", "--json", "--home", str(home)),
            environment(state / "usage"),
            keep_stdout=True,
            measure_rss=True,
        )
        if usage.returncode != 0:
            raise SystemExit(f"usage failed: {usage.stderr[-500:]}")
        answers.add(usage.stdout)
        peaks["usage"].append(usage.peak_rss)
        session = json.loads(
            run(
                sessdex("usage", "session", "--json", "--home", str(home)),
                environment(state / "usage"),
                keep_stdout=True,
            ).stdout
        )[0]["key"]
        explain = run(
            sessdex("usage", "session", "--explain", session, "--home", str(home)),
            environment(state / "usage"),
            measure_rss=True,
        )
        if explain.returncode != 0:
            raise SystemExit(f"usage --explain failed: {explain.stderr[-500:]}")
        peaks["explain"].append(explain.peak_rss)
        loop = run([PYTHON, "-c", LOOP, str(path)], environment(), measure_rss=True)
        peaks["baseline"].append(loop.peak_rss)
        listed = run(
            sessdex("list", "--json", "--home", str(home)),
            environment(state / "list"),
            measure_rss=True,
        )
        peaks["list"].append(listed.peak_rss)
        report.note(
            f"  run {i + 1}: usage {mb(usage.peak_rss)} ({usage.seconds:.1f} s), "
            f"explain {mb(explain.peak_rss)} ({explain.seconds:.1f} s), baseline {mb(loop.peak_rss)}, list {mb(listed.peak_rss)}"
        )
        shutil.rmtree(state, ignore_errors=True)
    figures = {name: median(values) for name, values in peaks.items()}
    rows = json.loads(answers.pop())
    report.note(
        f"  medians: usage {mb(figures['usage'])}, explain {mb(figures['explain'])}, baseline {mb(figures['baseline'])}, "
        f"list {mb(figures['list'])}; {sum(r['responses'] for r in rows):,} responses"
    )
    for name in ("usage", "explain"):
        ratio = figures[name] / figures["baseline"]
        report.check(
            f"{app} {name} peak RSS <= {target} x baseline",
            ratio <= target and not answers,  # every run gave the same answer
            f"{ratio:.2f} x ({mb(figures[name] - figures['baseline'])} above it)",
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=1024, help="each transcript's size")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--ratio", type=float, default=2.5, help="the target")
    parser.add_argument("--app", action="append", choices=["claude", "codex"])
    args = parser.parse_args()
    report = Report()
    work = Path(tempfile.mkdtemp(prefix="sessdex-bench-usage-memory-"))
    try:
        for app in args.app or ["claude", "codex"]:
            measure(report, work, app, args.mb, args.runs, args.ratio)
            shutil.rmtree(work / app, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return report.summary()


if __name__ == "__main__":
    sys.exit(main())
