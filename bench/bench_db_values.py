"""How much memory sessdex needs for an app database holding one huge row.

OpenCode keeps every part of a conversation as a row of JSON text: a pasted image or a file
read whole makes one row of many MB. This copies the real OpenCode 1.18.33 home from
shared/corpus/realcli into a temp dir twice, and adds to one copy a tool part whose output is
--big-mb MB. Then, in the same run, it measures peak RSS of `sessdex show ID --json` and of a
cold `sessdex usage --json` on both. Target: the huge row adds at most 50 MB to either peak.

    .venv/bin/python bench/bench_db_values.py [--big-mb 60] [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import ROOT, Report, environment, mb, median, run, sessdex

EXTRA_RSS = 50 * 1024 * 1024
CORPUS = ROOT.parent / "shared" / "corpus" / "realcli" / "opencode-1.18.33" / "home"
SESSION = "ses_dd47cef52ffe38O37iH1Ffe05b"


def copy_home(target: Path, big_mb: int) -> None:
    shutil.copytree(CORPUS, target)
    if not big_mb:
        return
    db = sqlite3.connect(target / ".local" / "share" / "opencode" / "opencode.db")
    message_id, created = db.execute(
        "SELECT message_id, time_created FROM part WHERE session_id = ? ORDER BY id DESC",
        (SESSION,),
    ).fetchone()
    state = {"status": "completed", "input": {"filePath": "/srv/huge.log"},
             "output": "z" * (big_mb * 1024 * 1024), "time": {"start": 1, "end": 2}}  # fmt: skip
    part = {"type": "tool", "callID": "call_huge", "tool": "read", "state": state}
    db.execute(
        "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) "
        "VALUES ('prt_zzzz_huge', ?, ?, ?, ?, ?)",
        (message_id, SESSION, created, created, json.dumps(part)),
    )
    db.commit()
    db.close()


def measure(argv: list[str], state: Path, runs: int, cold: bool) -> list[int]:
    peaks = []
    for _ in range(runs):
        if cold:
            shutil.rmtree(state, ignore_errors=True)
        result = run(argv, environment(state), measure_rss=True)
        if result.returncode != 0:
            raise SystemExit(f"{argv[3:]} failed: {result.stderr[-300:]}")
        peaks.append(result.peak_rss)
    return peaks


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--big-mb", type=int, default=60)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if not CORPUS.is_dir():
        raise SystemExit(f"needs the real OpenCode home at {CORPUS}")
    report = Report()
    work = Path(tempfile.mkdtemp(prefix="sessdex-bench-db-values-"))
    try:
        figures: dict[str, dict[str, int]] = {}
        for label, big in (("plain", 0), ("huge row", args.big_mb)):
            home = work / label.replace(" ", "-")
            copy_home(home, big)
            state = work / f"state-{label.replace(' ', '-')}"
            show = sessdex("show", SESSION, "--json", "--home", str(home))
            usage = sessdex("usage", "--json", "--app", "opencode", "--home", str(home))
            figures[label] = {
                "show --json": int(median(measure(show, state, args.runs, False))),
                "usage (cold)": int(median(measure(usage, state, args.runs, True))),
            }
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report.note(
        f"OpenCode home from {CORPUS}, one tool output of {args.big_mb} MB added"
    )
    for command in ("show --json", "usage (cold)"):
        plain, huge = figures["plain"][command], figures["huge row"][command]
        report.note(
            f"  {command}: peak RSS median {mb(plain)} without, {mb(huge)} with"
        )
        report.check(
            f"{command}: the huge row adds <= 50 MB",
            huge - plain <= EXTRA_RSS,
            f"+{mb(huge - plain)}",
        )
    return report.summary()


if __name__ == "__main__":
    sys.exit(main())
