"""`show --tail 20` of a big session whose reader once read it whole: bytes read and CPU,
now against a checkout of an earlier commit (`--before REV`, read from git), run by run
alternated, each run a fresh process over the same warm index.

`--app opencode`: an OpenCode 1.x database session compacted every `--every` prompts (its
last messages hold a compaction, which read the whole session before 4ea740ab);
`opencode-json`: the same as OpenCode's JSON files (every part file read before 868d9a95);
`opencode-v2`: a 2.x session's rows (all read before f88d54c7); `cline`: a Cline SDK
session's messages file (read whole before e94aea1e).

Prints the medians of --runs runs: CPU seconds of the tail read, and the bytes it read
(`rchar` of /proc/self/io: every byte read(2)/pread(2) gave, the page cache's too), after
checking that both show the same events (all but `seq`). Usage:

    .venv/bin/python bench/bench_tail_readers.py [--app opencode|opencode-json|opencode-v2|cline]
        [--mb 50] [--runs 5] [--before REV]
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
resolve(home, prefix)  # the index made, as a warm `show` finds it
read, started = rchar(), time.process_time()
found = transcript(home, prefix, tail=20)
events = list(found.events)
cpu, read = time.process_time() - started, rchar() - read
shown = [[e.kind, str(e.time), e.text, e.tool, e.call_id, str(e.usage), e.extra] for e in events]
print(json.dumps({"cpu": cpu, "read": read, "shown": shown, "relative": found.seq_relative}))
"""


def _opencode(home: Path, mb: int, every: int) -> tuple[str, int]:
    """The fixture's OpenCode home, one session grown to about `mb` MB: prompts answered
    by a text of 60 KB, a compaction (its request, its summary) after each `every`
    prompts, keeping the last three."""
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
        if len(prompts) % every == 0:
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
        if len(prompts) % every == 0:
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
    args = parser.parse_args()
    before = args.before or BEFORE[args.app]
    report = Report()
    with tempfile.TemporaryDirectory(prefix="sessdex-bench-tail-readers-") as folder:
        root = Path(folder)
        if args.app == "opencode":
            session, written = _opencode(root / "home", args.mb, args.every)
        elif args.app == "opencode-json":
            session, written = _opencode_json(root / "home", args.mb, args.every)
        elif args.app == "opencode-v2":
            session, written = _opencode_v2(root / "home", args.mb, args.every)
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
                f", compacted every {args.every} prompts"
                if "opencode" in args.app
                else ""
            )
            + f"; show --tail 20, {args.runs} runs each, before = {before}"
        )
        sources = {"now": ROOT / "src", "before": _before(root / "old", before)}
        found: dict[str, list[dict[str, object]]] = {"now": [], "before": []}
        for _ in range(args.runs):
            for how, src in sources.items():
                env = {**environment(root / "state"), "PYTHONPATH": str(src)}
                argv = [PYTHON, "-c", MEASURE, str(root / "home"), session]
                done = subprocess.run(
                    argv, capture_output=True, text=True, check=True, env=env
                )
                found[how].append(json.loads(done.stdout))
        assert found["now"][0]["shown"] == found["before"][0]["shown"], "tails differ"
        median = {
            how: {k: statistics.median(r[k] for r in runs) for k in ("cpu", "read")}
            for how, runs in found.items()
        }
        for how in ("before", "now"):
            report.note(
                f"  {how:6}: {median[how]['read'] / 2**20:8.2f} MB read, "
                f"{median[how]['cpu'] * 1000:8.1f} ms CPU "
                f"(last rows only: {found[how][0]['relative']})"
            )
        ratio = median["now"]["read"] / max(median["before"]["read"], 1)
        report.check(
            f"now reads <= {TARGET:g}x before", ratio <= TARGET, f"{ratio:.4f}x"
        )
    return report.summary()


if __name__ == "__main__":
    sys.exit(main())
