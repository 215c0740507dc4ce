"""What listing the Cursor IDE's conversation store costs, against merely reading it.

The IDE keeps every conversation in one SQLite file (`state.vscdb`, table `cursorDiskKV`)
that heavy users grow to GBs, and sessdex lists it again whenever the IDE wrote to it. This
builds a store of --conversations conversations of --messages messages each, then times, in
the same process and --runs times each:

- baseline: reading every `composerData:` value and parsing it as JSON (the least any
  lister must do);
- sessdex's listing of the store (`_cursor_ide.parse`: those values, plus each
  conversation's last message for its time and, when it has no name, its first prompt).

Target: the listing takes at most 3x the baseline.

    .venv/bin/python bench/bench_cursor_ide.py [--conversations 2000] [--messages 60] [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import Report, median, ms

TEXT = "a line of an answer that explains what the change does. " * 30


def build(path: Path, conversations: int, messages: int) -> None:
    db = sqlite3.connect(path)
    db.execute(
        "CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)"
    )
    for n in range(conversations):
        cid = f"00000000-0000-4000-8000-{n:012d}"
        headers = [
            {"bubbleId": f"b{i}", "type": 1 if i % 6 == 0 else 2}
            for i in range(messages)
        ]
        composer = {
            "_v": 16,
            "composerId": cid,
            "name": f"Conversation {n}" if n % 4 else None,  # some unnamed
            "createdAt": 1_795_946_400_000 + n * 60_000,
            "lastUpdatedAt": 1_795_946_400_000 + n * 60_000,
            "unifiedMode": "agent",
            "modelConfig": {"modelName": "claude-4.5-sonnet"},
            "workspaceIdentifier": {"uri": {"fsPath": f"/home/dev/project-{n % 40}"}},
            "context": {
                "fileSelections": [{"uri": f"file:///src/{i}.py"} for i in range(40)]
            },
            "fullConversationHeadersOnly": headers,
        }
        db.execute(
            "INSERT INTO cursorDiskKV VALUES (?, ?)",
            (f"composerData:{cid}", json.dumps(composer)),
        )
        for i in range(messages):
            bubble = {"_v": 3, "type": headers[i]["type"], "text": TEXT,
                      "createdAt": "2026-11-29T10:00:00.000Z"}  # fmt: skip
            db.execute(
                "INSERT INTO cursorDiskKV VALUES (?, ?)",
                (f"bubbleId:{cid}:b{i}", json.dumps(bubble)),
            )
    db.commit()
    db.close()


def bare_read(path: Path) -> int:
    connection = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
    try:
        rows = connection.execute(
            "SELECT value FROM cursorDiskKV WHERE key >= 'composerData:' "
            "AND key < 'composerData;'"
        )
        return sum(1 for (value,) in rows if isinstance(json.loads(value), dict))
    finally:
        connection.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--conversations", type=int, default=2000)
    parser.add_argument("--messages", type=int, default=60)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    from sessdex.diagnostics import Diagnostics
    from sessdex.sources import _cursor_ide

    report = Report()
    work = Path(tempfile.mkdtemp(prefix="sessdex-bench-cursor-ide-"))
    try:
        store = work / "state.vscdb"
        build(store, args.conversations, args.messages)
        report.note(
            f"store: {store.stat().st_size / 1e6:.0f} MB, {args.conversations} conversations "
            f"of {args.messages} messages"
        )
        bare, listing = [], []
        for _ in range(args.runs):
            started = time.perf_counter()
            count = bare_read(store)
            bare.append(time.perf_counter() - started)
            started = time.perf_counter()
            sessions = _cursor_ide.parse(store, "cursor", Diagnostics())
            listing.append(time.perf_counter() - started)
            if len(sessions) != count:
                report.check("every conversation is listed", False, f"{len(sessions)}")
        baseline, listed = median(bare), median(listing)
        report.note(
            f"  baseline (read and parse every composerData): median {ms(baseline)}"
        )
        report.note(f"  sessdex listing of the store: median {ms(listed)}")
        report.check(
            "listing <= 3x the bare read",
            listed <= 3 * baseline,
            f"{listed / baseline:.2f}x ({ms(listed)} vs {ms(baseline)})",
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return report.summary()


if __name__ == "__main__":
    sys.exit(main())
