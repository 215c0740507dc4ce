"""`sessdex usage daily` against ccusage, side by side in one run, on the same corpus.

The corpus is a home of Claude Code and Codex sessions whose every byte is real (no sparse
holes: ccusage reads every line), written by make_corpus.py with small apparent sizes, about
2.5 GB for the default 2800 sessions. Its `.jsonl.zst` rollouts are unpacked, because ccusage
20.0.24 does not read compressed rollouts (sessdex does: see docs/usage.md).

(a) cold: `sessdex usage daily --json` with an empty index, vs `ccusage daily --json`;
    target: at most 1.5 x ccusage's median time;
(b) warm: the same with the index from (a), nothing changed; target: at most 0.1 x ccusage;
(c) the totals per day (input, output, cache write, cache read) are identical.

Runs alternate between the two tools; figures are medians of --runs runs. ccusage comes from
scripts/install-tools (pinned). Usage:

    .venv/bin/python bench/bench_usage.py [--corpus /tmp/sessdex-usage-bench] [--sessions 2800] [--runs 5]
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

from _common import PYTHON, ROOT, Report, environment, median, ms, run, sessdex

COLD_RATIO = 1.5
WARM_RATIO = 0.1
CCUSAGE_VERSION = "20.0.24"


def tools_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(os.environ.get("SESSDEX_TOOLS") or Path(base) / "sessdex-tools")


def ccusage_binary() -> Path:
    subprocess.run(["bash", str(ROOT / "scripts" / "install-tools")], check=True)
    found = sorted(
        tools_dir().glob(
            f"ccusage-{CCUSAGE_VERSION}/node_modules/@ccusage/ccusage-*/bin/ccusage"
        )
    )
    if not found:
        raise SystemExit("ccusage is not installed; run scripts/install-tools")
    return found[0]


def ensure_corpus(corpus: Path, sessions: int) -> dict:
    manifest = corpus / "manifest.json"
    marker = corpus / "usage-ready"
    if manifest.exists() and marker.exists():
        data = json.loads(manifest.read_bytes())
        if data.get("top_level") == sessions:
            return data
    print(
        f"writing a {sessions}-session corpus with no holes to {corpus} ...", flush=True
    )
    subprocess.run(
        [PYTHON, str(ROOT / "bench" / "make_corpus.py"), str(corpus), "--sessions", str(sessions),
         "--median-mb", "0.05", "--p90-mb", "0.1", "--largest-mb", "0.2", "--force"],
        check=True,
    )  # fmt: skip
    import zstandard

    for packed in sorted((corpus / "home" / ".codex").rglob("*.jsonl.zst")):
        st = packed.stat()
        plain = packed.with_suffix("")
        with open(packed, "rb") as source, open(plain, "wb") as target:
            shutil.copyfileobj(
                zstandard.ZstdDecompressor().stream_reader(source), target
            )
        os.utime(plain, (st.st_atime, st.st_mtime))
        packed.unlink()
    marker.write_text("zst rollouts unpacked\n")
    return json.loads(manifest.read_bytes())


def ccusage_env(home: Path, scratch: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(scratch),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "CODEX_HOME": str(home / ".codex"),
        "NO_COLOR": "1",
    }


def ccusage_days(out: bytes) -> dict[str, tuple[int, int, int, int]]:
    days = {}
    for day in json.loads(out)["daily"]:
        key = day.get("date") or day.get("period")
        days[key] = (
            day["inputTokens"],
            day["outputTokens"],
            day["cacheCreationTokens"],
            day["cacheReadTokens"],
        )
    return days


def sessdex_days(out: bytes) -> dict[str, tuple[int, int, int, int]]:
    return {
        row["key"]: (
            row["input_tokens"],
            row["output_tokens"],
            row["cache_write_tokens"],
            row["cache_read_tokens"],
        )
        for row in json.loads(out)
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=Path("/tmp/sessdex-usage-bench"))
    parser.add_argument("--sessions", type=int, default=2800)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    report = Report()
    binary = ccusage_binary()
    manifest = ensure_corpus(args.corpus, args.sessions)
    home = args.corpus / "home"
    size = sum(p.stat().st_size for p in home.rglob("*.jsonl"))
    report.note(
        f"corpus: {home}, {manifest['top_level']} sessions + {manifest['subagents']} sub-agents, {size / 1e9:.2f} GB of JSONL"
    )
    work = Path(tempfile.mkdtemp(prefix="sessdex-bench-usage-"))
    try:
        scratch = work / "ccusage-home"
        scratch.mkdir()
        theirs_argv = [str(binary), "daily", "--json", "--offline", "--timezone", "UTC"]
        ours_argv = sessdex(
            "usage",
            "daily",
            "--json",
            "--home",
            str(home),
            "--app",
            "claude",
            "--app",
            "codex",
        )
        cold, warm, reference = [], [], []
        state = work / "state"
        ours_out = theirs_out = b""
        for n in range(args.runs):
            theirs = run(theirs_argv, ccusage_env(home, scratch), keep_stdout=True)
            reference.append(theirs.seconds)
            theirs_out = theirs.stdout
            shutil.rmtree(state, ignore_errors=True)
            ours = run(ours_argv, environment(state), keep_stdout=True)
            if ours.returncode != 0:
                report.check("sessdex ran", False, ours.stderr[-500:])
                return report.summary()
            cold.append(ours.seconds)
            ours_out = ours.stdout
            again = run(ours_argv, environment(state), keep_stdout=True)
            warm.append(again.seconds)
            report.note(
                f"  run {n + 1}: ccusage {ms(theirs.seconds)}, sessdex cold {ms(ours.seconds)}, warm {ms(again.seconds)}"
            )
        base = median(reference)
        report.note(f"ccusage {CCUSAGE_VERSION} daily: median {ms(base)}")
        report.check(
            "cold usage daily",
            median(cold) <= COLD_RATIO * base,
            f"median {ms(median(cold))} = {median(cold) / base:.2f} x ccusage (target <= {COLD_RATIO})",
        )
        report.check(
            "warm usage daily",
            median(warm) <= WARM_RATIO * base,
            f"median {ms(median(warm))} = {median(warm) / base:.3f} x ccusage (target <= {WARM_RATIO})",
        )
        a, b = ccusage_days(theirs_out), sessdex_days(ours_out)
        differing = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
        totals = [sum(v[i] for v in b.values()) for i in range(4)]
        detail = f"{len(b)} days, input {totals[0]:,}, output {totals[1]:,}, cache write {totals[2]:,}, cache read {totals[3]:,}"
        report.check(
            "identical totals",
            not differing,
            detail
            if not differing
            else f"{len(differing)} days differ, e.g. {differing[:3]}",
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return report.summary()


if __name__ == "__main__":
    raise SystemExit(main())
