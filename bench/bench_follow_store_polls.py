"""A later poll of `follow` of a big store's session, after one turn was written: bytes read
and CPU of a read of its last rows (`ReadFeed._read_tail`) against a whole read (the path
before, `tail_reads = False`), both in this process, poll by poll alternated, over the
same session as `bench_tail_readers.py` builds it.

`--app opencode`: an OpenCode 1.x database session of about `--mb` MB, compacted every
`--every` prompts (a poll whose last rows hold a compaction reads from the compaction
before it, `fold_reach`); `gemini`: a Gemini CLI chat kept as one JSON document, saved
whole again at each write (`--compact`: on one line, as another tool's copy writes it). Each run writes one turn (a prompt and a short answer), then
polls both follows; their draws and token counts are checked alike. `--running N`
(opencode): a tool part N messages before the end left running (an app killed while its
tool ran), which each later read of the last rows reaches back to (`CALLS_END_IN_PLACE`).

Prints the medians of --runs polls: CPU seconds (`time.process_time`) and bytes read
(`rchar` of /proc/self/io: every byte read(2)/pread(2) gave, the page cache's too).
Usage:

    .venv/bin/python bench/bench_follow_store_polls.py [--app opencode|gemini] [--mb 50]
        [--runs 5] [--every 60] [--running N] [--compact]
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import Report
from bench_tail_readers import _gemini, _opencode

TARGET = 0.15  # a poll of the last rows, at most this share of a whole read's bytes
# (one among them holding a compaction reads from the compaction before it), at the
# default --mb 50: that reach is about --every prompts of 60 KB whatever the size, so a
# smaller session reads a larger share (2026-12-07, opencode, medians of 3, b5f00d63 and
# 2243acc3 alike: --mb 50 5.39 of 51.46 MB, 0.105; --mb 20 3.74 of 20.66 MB, 0.181;
# --mb 20 --every 30 2.69 of 20.30 MB, 0.132)


def _rchar() -> int:
    with open("/proc/self/io") as io:
        return next(int(line.split()[1]) for line in io if line.startswith("rchar:"))


def _turn_opencode(home: Path, session: str, n: int) -> None:
    db = sqlite3.connect(home / ".local/share/opencode/opencode.db")
    (at,) = db.execute("SELECT max(time_created) FROM message").fetchone()
    for k, (info, text) in enumerate(
        [({"role": "user"}, f"bench prompt {n}"),
         ({"role": "assistant", "finish": "stop",
           "tokens": {"input": 10, "output": 5, "reasoning": 0,
                      "cache": {"read": 0, "write": 0}}}, f"bench answer {n}")]
    ):  # fmt: skip
        at += 1000
        message = f"msg_22b84zzzz{n:04d}{k}"
        data = json.dumps({**info, "time": {"created": at}})
        db.execute("INSERT INTO message VALUES (?, ?, ?, ?, ?)",
                   (message, session, at, at, data))  # fmt: skip
        part = json.dumps({"type": "text", "text": text})
        db.execute("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
                   (f"prt_22b84zzzz{n:04d}{k}", message, session, at, at, part))  # fmt: skip
    db.commit()
    db.close()


def _left_running(home: Path, session: str, back: int) -> None:
    """The first part of the assistant message `back` messages from the end made a tool
    part still running: its app was killed while the tool ran."""
    db = sqlite3.connect(home / ".local/share/opencode/opencode.db")
    rows = db.execute(
        "SELECT id, data FROM message WHERE session_id = ? "
        "ORDER BY time_created DESC, id DESC LIMIT ?",
        (session, back + 200),
    ).fetchall()
    message = next(m for m, data in rows[back:] if '"assistant"' in data)
    part = json.dumps({"type": "tool", "tool": "bash", "callID": "call_left_running",
                       "state": {"status": "running", "input": {"command": "make"},
                                 "time": {"start": 1796026350000}}})  # fmt: skip
    db.execute("UPDATE part SET data = ? WHERE id = (SELECT min(id) FROM part "
               "WHERE message_id = ?)", (part, message))  # fmt: skip
    db.commit()
    db.close()


def _turn_gemini(home: Path, n: int, compact: bool = False) -> None:
    (path,) = (home / ".gemini" / "tmp" / "proj" / "chats").iterdir()
    chat = json.loads(path.read_text())
    messages = chat["messages"]
    count = len(messages)
    for k, kind in enumerate(("user", "gemini")):
        m = count + k
        stamp = f"2025-11-09T{m // 3600 % 24:02}:{m // 60 % 60:02}:{m % 60:02}.000Z"
        message = {"id": f"b{n}-{k}", "timestamp": stamp, "type": kind,
                   "content": f"bench {kind} {n}"}  # fmt: skip
        if kind == "gemini":
            message["tokens"] = {"input": 100, "output": 5}
        messages.append(message)
    path.write_text(_dumped(chat, compact))


def _dumped(chat: object, compact: bool) -> str:
    return json.dumps(chat, separators=(",", ":")) if compact else json.dumps(chat, indent=2)  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--app", choices=("opencode", "gemini"), default="opencode")
    parser.add_argument("--mb", type=int, default=50)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--every", type=int, default=60)
    parser.add_argument("--running", type=int, default=0)
    parser.add_argument("--compact", action="store_true")
    args = parser.parse_args()
    report = Report()
    with tempfile.TemporaryDirectory(prefix="sessdex-bench-follow-polls-") as folder:
        root = Path(folder)
        os.environ["SESSDEX_HOME"] = str(root / "state")  # this run's own index
        home = root / "home"
        if args.app == "opencode":
            prefix, messages = _opencode(home, args.mb, args.every)
        else:
            prefix, messages = _gemini(home, args.mb)
            if args.compact:
                (chat,) = (home / ".gemini" / "tmp" / "proj" / "chats").iterdir()
                chat.write_text(_dumped(json.loads(chat.read_text()), True))
        report.note(f"{args.app}: {messages} messages, --every {args.every}")
        if args.running and args.app == "opencode":
            _left_running(home, prefix, args.running)
            report.note(f"a tool part left running {args.running} messages back")

        from sessdex import api, sources
        from sessdex.diagnostics import Diagnostics
        from sessdex.live_feeds import ReadFeed, Seen
        from sessdex.status import Tracker

        sources_home = sources.Home.at(home)
        session = api.resolve(sources_home, prefix)
        feeds, seens = [], []
        for tail in (True, False):
            feed = ReadFeed(
                session, sources.get(session.app), Diagnostics(),
                Tracker(lead_id=session.id),
            )  # fmt: skip
            feed.tail_reads = tail
            feeds.append(feed)
            seens.append(Seen())
        now = time.time()
        for feed, seen in zip(feeds, seens, strict=True):
            feed.poll(now, seen)  # the first read: whole for both
        cpu: list[list[float]] = [[], []]
        read: list[list[int]] = [[], []]
        alike = True
        for n in range(args.runs):
            if args.app == "opencode":
                _turn_opencode(home, session.id, n)
            else:
                _turn_gemini(home, n, args.compact)
            now += 10
            drawn = []
            for index in (0, 1) if n % 2 else (1, 0):  # alternated
                chars, started = _rchar(), time.process_time()
                events = feeds[index].poll(now, seens[index])
                cpu[index].append(time.process_time() - started)
                read[index].append(_rchar() - chars)
                drawn.append((index, [(e.kind, e.time, e.text) for e in events]))
            (_, first), (_, second) = sorted(drawn)
            alike = alike and first == second and bool(first)
            alike = alike and feeds[0].tokens == feeds[1].tokens
        tail_cpu, whole_cpu = (statistics.median(c) for c in cpu)
        tail_read, whole_read = (statistics.median(r) for r in read)
        report.note(
            f"  a poll after one turn, median of {args.runs}: last rows "
            f"{tail_read / 2**20:.2f} MB read, {tail_cpu * 1000:.1f} ms CPU; whole "
            f"{whole_read / 2**20:.2f} MB read, {whole_cpu * 1000:.1f} ms CPU"
        )
        report.check("the same draws and token counts", alike, f"{args.runs} polls")
        report.check(
            "bytes read",
            tail_read <= TARGET * whole_read,
            f"{tail_read / max(1, whole_read):.3f} of a whole read (at most {TARGET})",
        )
    return report.summary()


if __name__ == "__main__":
    raise SystemExit(main())
