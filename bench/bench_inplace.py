"""What watching a database read in place for the app's commits costs when none comes.

A store with no WAL (the Cursor IDE's `state.vscdb`) is read `immutable=1`, without a lock;
sessdex notes its header's file change counter when it opens it, and checks it again after
a listing and before each event it gives (src/sessdex/inplace.py). This builds a store of
--conversations conversations of --messages messages, one of them of --long messages, then
times, in the same process, --runs times each, alternating:

(a) listing the store: `_cursor_ide.parse` as it ran before (the database opened in place,
    nothing noted) vs within an `inplace.Reading`, checked at the end (as the index does);
(b) reading the long conversation: its reader's events as `reading.guarded` gives them (the
    read before) vs `reading.read_session` (the state checked once per batch of events,
    and a digest of each kept to resume a read again);
(c) the open alone, 200 times: `databases.open_sqlite`, one query, close, as before vs
    within an `inplace.Reading` (its state noted: an open, an fstat, a 4-byte read and a
    look for a journal; checked at the end).

Targets: (a) <= 1.05x, (b) <= 1.10x, (c) <= 1.5x the same before.

    .venv/bin/python bench/bench_inplace.py [--conversations 500] [--long 5000] [--runs 21]
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
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import Report, median, ms
from bench_cursor_ide import TEXT, build

LONG = "11111111-0000-4000-8000-000000000001"


def add_long(path: Path, messages: int) -> None:
    db = sqlite3.connect(path)
    headers = [
        {"bubbleId": f"b{i}", "type": 1 if i % 6 == 0 else 2} for i in range(messages)
    ]
    composer = {"_v": 16, "composerId": LONG, "name": "Long", "createdAt": 1_795_946_400_000,
                "lastUpdatedAt": 1_795_946_400_000, "fullConversationHeadersOnly": headers}  # fmt: skip
    db.execute(
        "INSERT INTO cursorDiskKV VALUES (?, ?)",
        (f"composerData:{LONG}", json.dumps(composer)),
    )
    for i, header in enumerate(headers):
        bubble = {"_v": 3, "type": header["type"], "text": TEXT,
                  "createdAt": "2026-11-29T10:00:00.000Z"}  # fmt: skip
        db.execute(
            "INSERT INTO cursorDiskKV VALUES (?, ?)",
            (f"bubbleId:{LONG}:b{i}", json.dumps(bubble)),
        )
    db.commit()
    db.close()


def timed(job: Callable[[], object]) -> float:
    started = time.perf_counter()
    job()
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--conversations", type=int, default=500)
    parser.add_argument("--messages", type=int, default=60)
    parser.add_argument("--long", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    report = Report()
    work = Path(tempfile.mkdtemp(prefix="sessdex-bench-inplace-"))
    os.environ["SESSDEX_HOME"] = str(work / "state")
    try:
        from sessdex import api, databases, inplace, reading, sources
        from sessdex.diagnostics import Diagnostics
        from sessdex.sources import Home, _cursor_ide

        folder = work / "home/.config/Cursor/User/globalStorage"
        folder.mkdir(parents=True)
        store = folder / "state.vscdb"
        build(store, args.conversations, args.messages)
        add_long(store, args.long)
        report.note(
            f"store: {store.stat().st_size / 1e6:.0f} MB, {args.conversations} conversations "
            f"of {args.messages} messages and one of {args.long}"
        )
        session = api.resolve(Home.at(work / "home"), LONG)
        source = sources.get(session.app)

        def listing_before() -> None:
            _cursor_ide.parse(store, "cursor", Diagnostics())

        def listing_watched() -> None:
            with inplace.Reading() as watch:
                try:
                    _cursor_ide.parse(store, "cursor", Diagnostics())
                    assert not watch.moved()
                finally:
                    watch.close()

        def read_before() -> None:
            found = Diagnostics()
            for _ in reading.guarded(source.read(session, found), found, session):
                pass

        def read_watched() -> None:
            for _ in reading.read_session(source, session, Diagnostics()):
                pass

        def opens_before() -> None:
            for _ in range(200):
                connection = databases.open_sqlite(store)
                connection.execute("SELECT count(*) FROM sqlite_master").fetchone()
                connection.close()

        def opens_watched() -> None:
            for _ in range(200):
                with inplace.Reading() as watch:
                    try:
                        connection = databases.open_sqlite(store)
                        connection.execute(
                            "SELECT count(*) FROM sqlite_master"
                        ).fetchone()
                        connection.close()
                        assert not watch.moved()
                    finally:
                        watch.close()

        parts = [
            ("(a) listing the store", listing_before, listing_watched, 1.05),
            (f"(b) reading {args.long} messages", read_before, read_watched, 1.10),
            ("(c) 200 opens of the store", opens_before, opens_watched, 1.5),
        ]
        for name, before, watched, target in parts:
            watched()  # warm: the page cache, the imports
            plain, checked = [], []
            for _ in range(args.runs):
                plain.append(timed(before))
                checked.append(timed(watched))
            base, now = median(plain), median(checked)
            report.note(
                f"  {name}: before {ms(base)}, watched {ms(now)} (medians of {args.runs})"
            )
            report.check(
                f"{name} <= {target:.2f}x before",
                now <= target * base,
                f"{now / base:.3f}x",
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return report.summary()


if __name__ == "__main__":
    sys.exit(main())
