"""`show --tail 5` of a big OpenCode session with one sub-agent, spawned near its start.

The real OpenCode home's first session grown to `--cycles` times its 6 messages (14 parts;
8000: 48,000 messages, 113 MB, a -wal left as a running app leaves one), one `task` call
among its first rows naming the corpus's sub-agent, which the index then lists under it.
Wall and CPU of `show --tail 5 --no-pager`, and the peak RSS of `tree` (which reads the
whole session), index warm, medians of `--runs`; with `--baseline-src OLD/src`, that
tree's in the same minutes. Usage:

    .venv/bin/python bench/bench_tail_subagents.py [--cycles 8000] [--runs 5] [--baseline-src OLD/src]
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

from _common import ROOT, environment, median, run, sessdex

CORPUS = ROOT.parent / "shared" / "corpus" / "realcli" / "opencode-1.18.33" / "home"
LEAD = "ses_dd47cef52ffe38O37iH1Ffe05b"
CHILD = "ses_dd47cc26cffeODfwLbHNPwBmj1"


def make(home: Path, cycles: int) -> None:
    shutil.copytree(CORPUS, home)
    for root, _, names in os.walk(home):
        os.chmod(root, 0o755)
        for name in names:
            os.chmod(os.path.join(root, name), 0o644)
    db = sqlite3.connect(home / ".local/share/opencode/opencode.db")
    msgs = db.execute("SELECT id, time_created, data FROM message WHERE session_id = ? ORDER BY time_created", (LEAD,)).fetchall()  # fmt: skip
    parts = db.execute("SELECT message_id, id, time_created, data FROM part WHERE session_id = ? ORDER BY id", (LEAD,)).fetchall()  # fmt: skip
    task = db.execute("SELECT data FROM part WHERE json_extract(data, '$.tool') = 'task'").fetchone()[0]  # fmt: skip
    pad, start = "lorem ipsum dolor " * 60, msgs[0][1]
    for c in range(1, cycles + 1):
        ids: dict[str, str] = {}
        for i, (mid, t, data) in enumerate(msgs):
            ids[mid] = f"msg_{c:08d}{i:02d}{mid[14:]}"
            at = start + c * 10000 + t - start
            db.execute("INSERT INTO message VALUES (?, ?, ?, ?, ?)", (ids[mid], LEAD, at, at, data))  # fmt: skip
        for j, (mid, pid, t, data) in enumerate(parts):
            d = json.loads(data)
            if d.get("type") == "tool":
                d["state"]["output"] = f"run {c}\n" + pad
            if d.get("type") == "text":
                d["text"] = f"{c}: {d['text']} {pad[:400]}"
            at = start + c * 10000 + t - start
            db.execute("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", (f"prt_{c:08d}{j:02d}{pid[14:]}", ids[mid], LEAD, at, at, json.dumps(d)))  # fmt: skip
            if c == 10 and j == 0:  # the spawn, among the first rows
                db.execute("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", ("prt_spawn", ids[mid], LEAD, at, at, task))  # fmt: skip
    db.execute("UPDATE session SET parent_id = ? WHERE id = ?", (LEAD, CHILD))
    db.commit()
    db.close()
    # a -wal, as a running app leaves one: a writer that never closes
    code = "import sqlite3, os, sys; d = sqlite3.connect(sys.argv[1]); d.execute('pragma journal_mode=wal'); d.execute('pragma wal_autocheckpoint=0'); d.execute('update session set time_updated = time_updated + 1'); d.commit(); os._exit(0)"  # fmt: skip
    subprocess.run([sys.executable, "-c", code, str(home / ".local/share/opencode/opencode.db")], check=True)  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cycles", type=int, default=8000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--baseline-src")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        make(home, args.cycles)
        trees = {"now": str(ROOT / "src")}
        if args.baseline_src:
            trees["before"] = args.baseline_src
        for name, src in trees.items():
            env = environment(Path(tmp) / f"state-{name}")
            env["PYTHONPATH"] = src
            argv = sessdex("show", LEAD, "--tail", "5", "--no-pager", "--home", str(home))  # fmt: skip
            run(sessdex("list", "--home", str(home)), env)  # the index warm
            runs = [run(argv, env) for _ in range(args.runs)]
            assert all(r.returncode == 0 for r in runs), runs[0].stderr
            wall = median([r.seconds for r in runs])
            cpu = median([r.cpu for r in runs])
            print(f"{name}: show --tail 5 wall {wall:.2f} s, CPU {cpu:.2f} s (medians of {args.runs})")  # fmt: skip
            tree = sessdex("tree", LEAD, "--home", str(home))
            peaks = [run(tree, env, measure_rss=True).peak_rss for _ in range(args.runs)]  # fmt: skip
            print(f"{name}: tree peak RSS {median(peaks) / 2**20:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
