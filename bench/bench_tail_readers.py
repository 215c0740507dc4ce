"""`show --tail 20` of a big session whose reader once read it whole: bytes read and CPU,
now against a checkout of an earlier commit (`--before REV`, read from git), run by run
alternated, each run a fresh process over the same warm index.

`--app opencode`: an OpenCode 1.x database session compacted every `--every` prompts (its
last messages hold a compaction, which read the whole session before 4ea740ab);
`opencode-json`: the same as OpenCode's JSON files (every part file read before 868d9a95);
`opencode-v2`: a 2.x session's rows (all read before f88d54c7); `cline`: a Cline SDK
session's messages file (read whole before e94aea1e). `--once` (OpenCode 1.x): a single
compaction, 2 prompts before the end (its note folds from the first message: the tail is
the whole read; windows widened x4 before it until 6aaf020a), checked against the whole
read of the same build instead (`--tail` then costs at most 1.3x it).

`--command follow`: `follow -n 20 --duration 0.5`'s first draw instead (`api.follow_session`
with `history=20`, read from the end since 2b470886), of `--app opencode` or `gemini` (a
Gemini CLI chat kept as one JSON document); then, as a later poll, what reading one message
written after it costs (a row inserted; the document saved again whole).

Prints the medians of --runs runs: CPU seconds of the tail read, and the bytes it read
(`rchar` of /proc/self/io: every byte read(2)/pread(2) gave, the page cache's too), after
checking that both show the same events (all but `seq`). Usage:

    .venv/bin/python bench/bench_tail_readers.py [--app opencode|opencode-json|opencode-v2|cline|gemini]
        [--command show|follow] [--mb 50] [--runs 5] [--before REV] [--once]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import PYTHON, ROOT, Report, environment

TARGET = 0.1  # now, at most this share of before (bytes read)
ONCE = 1.3  # `--once`: now, at most this share of the whole read (bytes read)

MEASURE = r"""
import json, sys, time
from pathlib import Path
from sessdex.resolving import resolve
from sessdex.sources import Home
from sessdex.transcripts import transcript


def rchar():
    with open("/proc/self/io") as io:
        return next(int(line.split()[1]) for line in io if line.startswith("rchar:"))


home, prefix = Home.at(Path(sys.argv[1])), sys.argv[2]
tail = int(sys.argv[3]) if len(sys.argv) > 3 else 20  # 0: the whole read
resolve(home, prefix)  # the index made, as a warm `show` finds it
read, started = rchar(), time.process_time()
found = transcript(home, prefix, tail=tail or None)
events = list(found.events)
cpu, read = time.process_time() - started, rchar() - read
shown = [[e.kind, str(e.time), e.text, e.tool, e.call_id, str(e.usage), e.extra] for e in events]
print(json.dumps({"cpu": cpu, "read": read, "shown": shown, "relative": found.seq_relative}))
"""

# `follow -n 20 --duration 0.5`: its first draw (the history's last 20 events, as the
# command cuts it), then a message written, and the poll that reads it
MEASURE_FOLLOW = r"""
import inspect, json, sys, time
from pathlib import Path
from sessdex import api
from sessdex.resolving import resolve
from sessdex.sources import Home


def rchar():
    with open("/proc/self/io") as io:
        return next(int(line.split()[1]) for line in io if line.startswith("rchar:"))


home, prefix, write = Home.at(Path(sys.argv[1])), sys.argv[2], sys.argv[3]
resolve(home, prefix)  # the index made, as a warm `follow` finds it
history = {"history": 20} if "history" in inspect.signature(api.follow_session).parameters else {}
read, started = rchar(), time.process_time()
_, batches = api.follow_session(home, prefix, duration=4.5, notify=False, **history)
events = next(batches)[-20:]
cpu, read = time.process_time() - started, rchar() - read
exec(write)  # one message more, written as the app writes it
poll_read, poll_started = rchar(), time.process_time()
later = next(batches)
poll_cpu, poll_read = time.process_time() - poll_started, rchar() - poll_read
batches.close()
shown = [[e.kind, str(e.time), e.text, e.tool, e.call_id, str(e.usage), e.extra]
         for e in events + later]
print(json.dumps({"cpu": cpu, "read": read, "poll_cpu": poll_cpu,
                  "poll_read": poll_read, "shown": shown, "relative": None}))
"""

# the message a later poll reads, as each app writes it
WRITE = {
    "opencode": """
import json, sqlite3
db = sqlite3.connect(str(home.path / ".local/share/opencode/opencode.db"))
at = 1996026350000
db.execute("INSERT INTO message VALUES ('msg_zz', ?, ?, ?, ?)",
           (api.resolve(home, prefix).id, at, at,
            json.dumps({"role": "user", "time": {"created": at}})))
db.execute("INSERT INTO part VALUES ('prt_zz', 'msg_zz', ?, ?, ?, ?)",
           (api.resolve(home, prefix).id, at, at,
            json.dumps({"type": "text", "text": "later"})))
db.commit()
db.close()
""",
    "gemini": """
import json
path = Path(api.resolve(home, prefix).path)
chat = json.loads(path.read_text())
chat["messages"].append({"id": "later", "timestamp": "2026-01-01T00:00:00.000Z",
                         "type": "user", "content": "later"})
path.write_text(json.dumps(chat, indent=2))
""",
}


def _gemini(home: Path, mb: int) -> tuple[str, int]:
    """A Gemini CLI chat of about `mb` MB kept as one JSON document (as the CLI indents
    it): prompts, answers of 60 KB, each with its tokens."""
    session = "5a1e9c3b-0000-4000-8000-00000000be9c"
    messages: list[dict[str, object]] = []
    answer, size = "word " * 12_000, 0
    while size < mb * 2**20:
        n = len(messages)
        stamp = f"2025-11-0{1 + n // 80000}T{n // 3600 % 24:02}:{n // 60 % 60:02}:{n % 60:02}.000Z"
        if n % 2 == 0:
            messages.append({"id": f"m{n}", "timestamp": stamp, "type": "user",
                             "content": f"p{n}"})  # fmt: skip
        else:
            messages.append({"id": f"m{n}", "timestamp": stamp, "type": "gemini",
                             "content": answer, "model": "gemini-2.5-pro",
                             "tokens": {"input": 100, "output": 5}})  # fmt: skip
            size += len(answer)
    chat = {"sessionId": session, "projectHash": "0" * 64,
            "startTime": "2025-11-01T00:00:00.000Z",
            "lastUpdated": "2025-11-02T00:00:00.000Z", "messages": messages}  # fmt: skip
    chats = home / ".gemini" / "tmp" / "proj" / "chats"
    chats.mkdir(parents=True)
    (chats / "session-2025-11-01T00-00-5a1e9c3b.json").write_text(
        json.dumps(chat, indent=2)
    )
    return session[:8], len(messages)


def _compacts(prompts: int, every: int, mb: int, answer: int) -> bool:
    """Whether a compaction follows prompt `prompts`: each `every`, or (`every` 0) once,
    2 prompts before the session's end (of about `mb` MB of answers of `answer` bytes)."""
    if every:
        return prompts % every == 0
    return prompts == int(mb * 2**20 / answer) - 2


def _opencode(home: Path, mb: int, every: int) -> tuple[str, int]:
    """The fixture's OpenCode home, one session grown to about `mb` MB: prompts answered
    by a text of 60 KB, a compaction (its request, its summary) after each `every`
    prompts (`_compacts`), keeping the last three."""
    shutil.copytree(ROOT / "tests" / "data" / "opencode" / "home", home)
    session = "ses_dd47cef52ffe38O37iH1Ffe05b"
    db = sqlite3.connect(home / ".local/share/opencode/opencode.db")
    at, n, prompts = 1796026350000, 0, []
    answer = "word " * 12_000

    def add(info: dict[str, object], part: dict[str, object]) -> str:
        nonlocal at, n
        at, n = at + 1000, n + 1
        message = f"msg_22b8400000{n:06d}"
        info = {**info, "time": {"created": at}}
        db.execute(
            "INSERT INTO message VALUES (?, ?, ?, ?, ?)",
            (message, session, at, at, json.dumps(info)),
        )
        db.execute(
            "INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
            (f"prt_22b8400000{n:06d}", message, session, at, at, json.dumps(part)),
        )
        return message

    while n * len(answer) / 2 < mb * 2**20:
        prompts.append(add({"role": "user"}, {"type": "text", "text": f"p{n}"}))
        add(
            {"role": "assistant", "finish": "stop",
             "tokens": {"input": 10, "output": 5, "reasoning": 0,
                        "cache": {"read": 0, "write": 0}}},
            {"type": "text", "text": answer},
        )  # fmt: skip
        if _compacts(len(prompts), every, mb, len(answer)):
            part = {"type": "compaction", "auto": True, "tail_start_id": prompts[-3]}
            add({"role": "user"}, part)
            add(
                {"role": "assistant", "summary": True, "finish": "stop"},
                {"type": "text", "text": "summary"},
            )
    db.commit()
    db.close()
    return session, n


def _opencode_json(home: Path, mb: int, every: int) -> tuple[str, int]:
    """An OpenCode 1.3 session of the JSON files (storage/session, message, part) of
    about `mb` MB, laid out as `_opencode`'s database session."""
    storage = home / ".local/share/opencode/storage"
    session = "ses_benchjson000000000000001"
    (storage / "session" / "proj_bench").mkdir(parents=True)
    (storage / "session" / "proj_bench" / f"{session}.json").write_text(
        json.dumps({"id": session, "version": "1.3.17", "projectID": "proj_bench",
                    "directory": "/tmp/bench", "title": "Bench",
                    "time": {"created": 1730000000000, "updated": 1730009000000}})
    )  # fmt: skip
    (storage / "message" / session).mkdir(parents=True)
    at, n, prompts = 1730000000000, 0, []
    answer = "word " * 12_000

    def add(info: dict[str, object], part: dict[str, object]) -> str:
        nonlocal at, n
        at, n = at + 1000, n + 1
        message = f"msg_{n:08d}"
        (storage / "message" / session / f"{message}.json").write_text(
            json.dumps({"id": message, "sessionID": session, **info,
                        "time": {"created": at}})
        )  # fmt: skip
        (storage / "part" / message).mkdir(parents=True)
        (storage / "part" / message / f"prt_{n:08d}.json").write_text(
            json.dumps({"id": f"prt_{n:08d}", "messageID": message, **part})
        )
        return message

    while n * len(answer) / 2 < mb * 2**20:
        prompts.append(add({"role": "user"}, {"type": "text", "text": f"p{n}"}))
        add({"role": "assistant", "finish": "stop"}, {"type": "text", "text": answer})
        if _compacts(len(prompts), every, mb, len(answer)):
            part = {"type": "compaction", "auto": True, "tail_start_id": prompts[-3]}
            add({"role": "user"}, part)
            add({"role": "assistant", "summary": True}, {"type": "text", "text": "s"})
    return session, n


def _cline(home: Path, mb: int) -> tuple[str, int]:
    """A Cline SDK session (CLI 3.0.65's layout: indented, `system_prompt` after the
    messages) of about `mb` MB: prompts, answers of 60 KB calling a tool, its results."""
    session = "1796199537105_bench"
    folder = home / ".cline/data/sessions" / session
    folder.mkdir(parents=True)
    (folder / f"{session}.json").write_text(
        json.dumps({"version": 1, "session_id": session, "source": "cli",
                    "started_at": "2026-12-02T08:18:57.119Z", "status": "completed",
                    "provider": "openai-compatible", "model": "mock-model",
                    "cwd": "/tmp/bench", "prompt": "bench"}, indent=2)
    )  # fmt: skip
    messages: list[dict[str, object]] = []
    answer, size, ts = "word " * 12_000, 0, 1796199537699
    while size < mb * 2**20:
        n = len(messages)
        ts += 1000
        messages += [
            {"id": f"u{n}", "role": "user", "ts": ts,
             "content": [{"type": "text", "text": f"<user_input>p{n}</user_input>"}]},
            {"id": f"a{n}", "role": "assistant", "ts": ts + 1,
             "content": [{"type": "text", "text": answer},
                         {"type": "tool_use", "id": f"c{n}", "name": "run_commands",
                          "input": {"commands": ["echo hi"]}}],
             "modelInfo": {"id": "mock-model", "provider": "openai-compatible"},
             "metrics": {"inputTokens": 1000, "outputTokens": 25,
                         "cacheReadTokens": 0, "cacheWriteTokens": 0}},
            {"id": f"r{n}", "role": "user", "ts": ts + 2,
             "content": [{"type": "tool_result", "tool_use_id": f"c{n}",
                          "content": "hi"}]},
        ]  # fmt: skip
        size += len(answer) + 600
    document = {"version": 1, "updated_at": "2026-12-02T08:19:09.655Z",
                "agent": "lead", "sessionId": session, "messages": messages,
                "system_prompt": "You are Cline."}  # fmt: skip
    (folder / f"{session}.messages.json").write_text(json.dumps(document, indent=2))
    return session, len(messages)


def _opencode_v2(home: Path, mb: int, every: int) -> tuple[str, int]:
    """An OpenCode 2.x database (the tables tests/sources/test_opencode_v2.py builds),
    one session of about `mb` MB of rows: prompts, answers of 60 KB, a compaction row
    after each `every` prompts (manual, keeping the last prompt and its answer)."""
    sys.path.insert(0, str(ROOT))
    from tests.sources import test_opencode_v2 as v2

    db = v2.database_v2(home / ".local/share/opencode")
    session = "ses_f2b662ccdffe16PlkJxBenchV2"
    v2.add_session(db, session, "Bench")
    rows: list[tuple[str, str, dict[str, object]]] = []
    answer, at, p = "word " * 12_000, v2.T0, 0
    while p * len(answer) < mb * 2**20:
        at, p = at + 100, p + 1
        rows.append((f"msg_bu{p}", "user", {"time": {"created": at}, "text": f"p{p}"}))
        rows.append((f"msg_ba{p}", "assistant", v2.assistant(
            at + 50, [{"type": "text", "text": answer}], finish="stop",
            tokens=v2.tokens(100, 5))))  # fmt: skip
        if p % every == 0:
            rows.append((f"msg_bc{p}", "compaction", {
                "time": {"created": at + 60}, "status": "completed", "reason": "auto",
                "summary": "s", "recent": f"[User]: p{p}\n\n[Assistant]: a"}))  # fmt: skip
    v2.add_rows(db, session, rows)
    db.commit()
    db.close()
    return session, len(rows)


BEFORE = {
    "opencode": "4ea740ab~1",
    "opencode-json": "868d9a95~1",
    "opencode-v2": "f88d54c7~1",
    "cline": "e94aea1e~1",
    "gemini": "2b470886~1",  # --command follow: the commit before it read the end
}


def _before(root: Path, rev: str) -> Path:
    """The `src` of commit `rev`, written out of git."""
    archive = subprocess.run(
        ["git", "archive", rev, "src"], cwd=ROOT, capture_output=True, check=True
    )
    root.mkdir(parents=True)
    subprocess.run(["tar", "-x", "-C", str(root)], input=archive.stdout, check=True)
    return root / "src"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=50)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--every", type=int, default=60)
    parser.add_argument("--before", help="the commit to compare with (per app)")
    parser.add_argument("--app", choices=tuple(BEFORE), default="opencode")
    parser.add_argument("--command", choices=("show", "follow"), default="show")
    parser.add_argument(
        "--once", action="store_true", help="one compaction, at the end"
    )
    args = parser.parse_args()
    follow = args.command == "follow"
    if follow and args.app not in WRITE:
        parser.error(f"--command follow takes --app {' or '.join(WRITE)}")
    if args.app == "gemini" and not follow:
        parser.error("--app gemini is measured with --command follow")
    if args.once and (follow or "opencode" not in args.app):
        parser.error("--once is measured with show of an OpenCode session")
    if args.once:
        args.every = 0
    before = args.before or ("2b470886~1" if follow else BEFORE[args.app])
    report = Report()
    with tempfile.TemporaryDirectory(prefix="sessdex-bench-tail-readers-") as folder:
        root = Path(folder)
        if args.app == "opencode":
            session, written = _opencode(root / "home", args.mb, args.every)
        elif args.app == "opencode-json":
            session, written = _opencode_json(root / "home", args.mb, args.every)
        elif args.app == "opencode-v2":
            session, written = _opencode_v2(root / "home", args.mb, args.every)
        elif args.app == "gemini":
            session, written = _gemini(root / "home", args.mb)
        else:
            session, written = _cline(root / "home", args.mb)
        size = sum(
            f.stat().st_size for f in (root / "home").rglob("*") if f.is_file()
        ) - sum(
            f.stat().st_size
            for f in (ROOT / "tests/data/opencode/home").rglob("*")
            if f.is_file() and args.app == "opencode"
        )
        report.note(
            f"{args.app}: one session of {written} messages, {size / 2**20:.0f} MB"
            + (
                (
                    f", compacted every {args.every} prompts"
                    if args.every
                    else ", compacted once, 2 prompts before its end"
                )
                if "opencode" in args.app
                else ""
            )
            + f"; {'follow -n 20' if follow else 'show --tail 20'}, {args.runs} runs"
            + f" each, before = {before}"
        )
        sources = {"now": ROOT / "src", "before": _before(root / "old", before)}
        if args.once:
            sources["whole"] = ROOT / "src"
        found: dict[str, list[dict[str, object]]] = {how: [] for how in sources}
        for _ in range(args.runs):
            for how, src in sources.items():
                env = {**environment(root / "state"), "PYTHONPATH": str(src)}
                argv = [PYTHON, "-c", MEASURE, str(root / "home"), session]
                if follow:  # each run on a copy: its write is its own
                    shutil.rmtree(root / "run", ignore_errors=True)
                    shutil.copytree(root / "home", root / "run", symlinks=True)
                    argv = [PYTHON, "-c", MEASURE_FOLLOW, str(root / "run"), session,
                            WRITE[args.app]]  # fmt: skip
                argv += ["0"] if how == "whole" else []
                done = subprocess.run(
                    argv, capture_output=True, text=True, check=True, env=env
                )
                found[how].append(json.loads(done.stdout))
        assert found["now"][0]["shown"] == found["before"][0]["shown"], "tails differ"
        keys = ("cpu", "read", "poll_cpu", "poll_read") if follow else ("cpu", "read")
        median = {
            how: {k: statistics.median(r[k] for r in runs) for k in keys}  # type: ignore[misc]
            for how, runs in found.items()
        }
        for how in found:
            m = median[how]
            report.note(
                f"  {how:6}: {m['read'] / 2**20:8.2f} MB read, "
                f"{m['cpu'] * 1000:8.1f} ms CPU "
                + (
                    f"(first draw); a later poll: {m['poll_read'] / 2**20:.2f} MB, "
                    f"{m['poll_cpu'] * 1000:.1f} ms CPU"
                    if follow
                    else f"(last rows only: {found[how][0]['relative']})"
                )
            )
        if args.once:
            ratio = median["now"]["read"] / max(median["whole"]["read"], 1)
            report.check(
                f"now reads <= {ONCE:g}x the whole read", ratio <= ONCE, f"{ratio:.4f}x"
            )
        else:
            ratio = median["now"]["read"] / max(median["before"]["read"], 1)
            report.check(
                f"now reads <= {TARGET:g}x before", ratio <= TARGET, f"{ratio:.4f}x"
            )
    return report.summary()


if __name__ == "__main__":
    sys.exit(main())
