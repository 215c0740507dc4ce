"""Every command that reads a whole transcript, on one huge session of each kind of store.

For each home below, each command's peak RSS, time to its first byte on stdout and total
wall time (medians of --runs runs, each a fresh process with the index already built):

  claude     a Claude Code transcript of --mb MB with --big-lines 50 MB lines (pasted images)
  codex      a Codex rollout of --mb MB
  subagents  a Claude Code transcript of --mb / 4 MB spawning about 500 sub-agents, each
             with its own transcript (`make_corpus.py --spawn-rate --subagent-files`)
  gemini     a Gemini CLI chat kept as one JSON document of --doc-mb MB: thousands of tool
             calls, two results of 50 MB
  opencode   the real OpenCode home, one session given --parts parts and one 50 MB tool output
  crush      the Crush fixture home, one session given --parts messages, one result of 50 MB
  goose      a Goose database (schema v16) of one session of --parts messages, a model call
             in the ledger for each answer, one result of 50 MB
  cursor     a Cursor IDE store of one conversation of --parts messages, one of 50 MB

Commands: show (text, --json, --detail full, --tail 50), export md/html/json, tree,
follow -n 50, replay (pacing asked away), usage session, doctor --deep.

Target (issue 3): every command's peak RSS <= 200 MB, whatever the file's size; `show
--tail 50 --json` first output <= 0.3 s on the line-based stores. A figure that grows with
the file is the thing to look for: run with --mb 512 and --mb 2048 and compare. Homes are
written under a temp dir and deleted after. Usage:

    .venv/bin/python bench/bench_whole.py [--mb 512] [--runs 3] [--homes claude,gemini]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import ROOT, Report, environment, mb, median, run, sessdex

RSS_LIMIT = 200 * 1024 * 1024
TAIL_FIRST = 0.3
BIG = 50 * 1024 * 1024
OPENCODE = ROOT.parent / "shared" / "corpus" / "realcli" / "opencode-1.18.33" / "home"
OPENCODE_SESSION = "ses_dd47cef52ffe38O37iH1Ffe05b"
CRUSH = ROOT / "tests" / "data" / "crush" / "home"
CRUSH_SESSION = "8c1f2e3d-4a5b-4c6d-9e7f-0a1b2c3d4e5f"


def commands(sid: str) -> dict[str, list[str]]:
    return {
        "show": ["show", sid, "--no-pager"],
        "show --json": ["show", sid, "--json"],
        "show --detail full": ["show", sid, "--no-pager", "--detail", "full"],
        "show --tail 50 --json": ["show", sid, "--tail", "50", "--json"],
        "show --tail 50": ["show", sid, "--tail", "50", "--no-pager"],
        "export -f md": ["export", sid, "-f", "md"],
        "export -f html": ["export", sid, "-f", "html"],
        "export -f json": ["export", sid, "-f", "json"],
        "tree": ["tree", sid],
        "follow -n 50": ["follow", sid, "-n", "50", "--duration", "0"],
        "replay": ["replay", sid, "--speed", "1000000", "--max-gap", "0"],
        "usage session": ["usage", "session"],
        "doctor --deep": ["doctor", "--deep"],
    }


def make_claude(out: Path, args: argparse.Namespace, *extra: str) -> str:
    import subprocess

    subprocess.run(
        [
            sys.executable,
            str(Path(__file__).parent / "make_corpus.py"),
            str(out),
            "--force",
            *extra,
        ],
        check=True,
    )
    return str(json.loads((out / "manifest.json").read_bytes())["sessions"][0]["id"])


def make_gemini(out: Path, megabytes: int) -> str:
    """A pre-0.40 Gemini CLI chat: one JSON document, written a message at a time."""
    rng = random.Random(3)
    sid = "5a1e9c3b-7d2e-4f10-9a3b-0c1d2e3f4a5b"
    project = out / "home" / ".gemini" / "tmp" / "shop-api"
    (project / "chats").mkdir(parents=True)
    (project / ".project_root").write_text("/home/alex/code/shop-api")
    path = project / "chats" / "session-2025-11-02T10-15-5a1e9c3b.json"
    words = [
        "the",
        "a",
        "to",
        "of",
        "def",
        "return",
        "self",
        "if",
        "else",
        "import",
        "from",
        "with",
        "as",
        "not",
        "None",
    ]
    target, bigs = megabytes * 1024 * 1024, [megabytes // 3, 2 * megabytes // 3]
    with open(path, "w") as f:
        f.write(f'{{"sessionId": "{sid}", "projectHash": "{"0" * 64}", '
                '"startTime": "2025-11-02T10:15:00.000Z", '
                '"lastUpdated": "2025-11-02T18:00:00.000Z", "messages": [')  # fmt: skip
        n = 0
        while f.tell() < target:
            stamp = f"2025-11-02T{10 + n // 36000 % 8:02}:{n // 600 % 60:02}:{n // 10 % 60:02}.000Z"
            if n % 2 == 0:
                message: dict[str, object] = {"id": f"m{n}", "timestamp": stamp,
                    "type": "user", "content": " ".join(rng.choices(words, k=40))}  # fmt: skip
            else:
                output = " ".join(rng.choices(words, k=rng.randint(200, 4000)))
                if bigs and f.tell() >= bigs[0] * 1024 * 1024:
                    bigs.pop(0)
                    output = "x" * BIG
                call = {"id": f"run_shell_command-{n}", "name": "run_shell_command",
                        "args": {"command": "pytest -q"}, "status": "success",
                        "timestamp": stamp, "resultDisplay": output[:200],
                        "result": [{"functionResponse": {"id": f"run_shell_command-{n}",
                            "name": "run_shell_command", "response": {"output": output}}}]}  # fmt: skip
                message = {"id": f"m{n}", "timestamp": stamp, "type": "gemini",
                    "model": "gemini-2.5-pro", "content": "Ran the tests.",
                    "tokens": {"input": 1000, "output": 50, "total": 1050, "thoughts": 0,
                               "tool": 0, "cached": 500},
                    "toolCalls": [call]}  # fmt: skip
            f.write(("," if n else "") + json.dumps(message))
            n += 1
        f.write('], "summary": "Run the test suite"}')
    return sid


def make_opencode(out: Path, parts: int) -> str:
    """The real OpenCode home, its first session grown to `parts` parts, one of 50 MB."""
    home = out / "home"
    shutil.copytree(OPENCODE, home)
    db = sqlite3.connect(home / ".local" / "share" / "opencode" / "opencode.db")
    message_id, created, data = db.execute(
        "SELECT id, time_created, data FROM message WHERE session_id = ? "
        "AND data LIKE '%assistant%' ORDER BY time_created DESC",
        (OPENCODE_SESSION,),
    ).fetchone()
    rows = []
    for n in range(parts):
        at = created + n
        if n % 50 == 0:  # a new assistant message every 50 parts
            message_id = f"msg_zz{n:09d}"
            db.execute(
                "INSERT INTO message VALUES (?, ?, ?, ?, ?)",
                (message_id, OPENCODE_SESSION, at, at, data),
            )
        output = "z" * BIG if n == parts // 2 else f"line {n}\n" * 20
        state = {"status": "completed", "input": {"command": f"echo {n}"},
                 "output": output, "title": f"echo {n}", "time": {"start": at, "end": at}}  # fmt: skip
        part = {"type": "tool", "callID": f"call_{n}", "tool": "bash", "state": state}
        rows.append((f"prt_zz{n:09d}", message_id, OPENCODE_SESSION, at, at, json.dumps(part)))  # fmt: skip
    db.executemany("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", rows)
    db.commit()
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return OPENCODE_SESSION


def make_crush(out: Path, messages: int) -> str:
    """The Crush fixture home, one session grown to `messages` tool calls and results
    (the parts of a message are one JSON array in one row), one result of 50 MB."""
    home = out / "home"
    shutil.copytree(CRUSH, home)
    db = sqlite3.connect(home / "code" / "shop-api" / ".crush" / "crush.db")
    created = db.execute(
        "SELECT max(created_at) FROM messages WHERE session_id = ?", (CRUSH_SESSION,)
    ).fetchone()[0]
    rows = []
    for n in range(0, messages, 2):
        at = created + n
        call = {"id": f"call_{n}", "name": "bash", "input": json.dumps({"command": f"echo {n}"}),
                "provider_executed": False, "finished": True}  # fmt: skip
        content = "z" * BIG if n == messages // 2 else f"line {n}\n" * 20
        result = {"tool_call_id": f"call_{n}", "name": "bash", "content": content,
                  "data": "", "mime_type": "", "metadata": "", "is_error": False}  # fmt: skip
        asked = [{"type": "text", "data": {"text": f"Running {n}."}},
                 {"type": "tool_call", "data": call},
                 {"type": "finish", "data": {"reason": "tool_use", "time": at}}]  # fmt: skip
        rows.append((f"m-zz-{n}", "assistant", json.dumps(asked), at))
        rows.append((f"m-zz-{n + 1}", "tool", json.dumps([{"type": "tool_result", "data": result}]), at + 1))  # fmt: skip
    db.executemany(
        "INSERT INTO messages (id, session_id, role, parts, model, created_at, updated_at, "
        f"finished_at, provider) VALUES (?, '{CRUSH_SESSION}', ?, ?, 'gpt-5', ?, ?, ?, 'openai')",
        [(i, role, parts, at, at, at) for i, role, parts, at in rows],
    )
    db.commit()
    db.close()
    return CRUSH_SESSION


GOOSE_SESSION = "20260820_1"
CURSOR_CONVERSATION = "c0a1b2c3-0000-4000-8000-00000000b16b"
_GOOSE_SCHEMA = """
CREATE TABLE sessions (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '',
    description TEXT NOT NULL DEFAULT '', session_type TEXT NOT NULL DEFAULT 'user',
    working_dir TEXT NOT NULL, created_at TIMESTAMP, updated_at TIMESTAMP,
    accumulated_input_tokens INTEGER, accumulated_output_tokens INTEGER,
    provider_name TEXT, model_config_json TEXT, goose_mode TEXT NOT NULL DEFAULT 'auto',
    parent_session_id TEXT);
CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, message_id TEXT,
    session_id TEXT NOT NULL, role TEXT NOT NULL, content_json TEXT NOT NULL,
    created_timestamp INTEGER NOT NULL, metadata_json TEXT);
CREATE INDEX idx_messages_session ON messages(session_id);
CREATE TABLE usage_ledger (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL,
    created_timestamp INTEGER NOT NULL, model TEXT, input_tokens INTEGER,
    output_tokens INTEGER, total_tokens INTEGER, cache_read_tokens INTEGER,
    cache_write_tokens INTEGER, cost_source TEXT, is_compaction INTEGER DEFAULT 0);
"""


def make_goose(out: Path, messages: int) -> str:
    """One Goose session of `messages` tool calls and results, a ledger row per call."""
    folder = out / "home" / ".local" / "share" / "goose" / "sessions"
    folder.mkdir(parents=True)
    db = sqlite3.connect(folder / "sessions.db")
    db.executescript(_GOOSE_SCHEMA)
    start = 1_795_946_400
    db.execute(
        "INSERT INTO sessions (id, name, working_dir, created_at, updated_at, "
        "accumulated_input_tokens, accumulated_output_tokens, provider_name, "
        "model_config_json) VALUES (?, 'Long', '/home/alex/code/shop-api', "
        "'2026-11-29 10:00:00', '2026-11-30 10:00:00', ?, ?, 'anthropic', ?)",
        (GOOSE_SESSION, messages * 500, messages * 50,
         json.dumps({"model_name": "claude-sonnet-4-5"})),
    )  # fmt: skip
    visible = json.dumps({"userVisible": True, "agentVisible": True})
    rows, calls = [], []
    for n in range(0, messages, 2):
        at = start + n
        request = [{"type": "text", "text": f"Running {n}."},
                   {"type": "toolRequest", "id": f"call_{n}", "toolCall": {"status": "success",
                    "value": {"name": "developer__shell", "arguments": {"command": f"echo {n}"}}}}]  # fmt: skip
        output = "z" * BIG if n == messages // 2 else f"line {n}\n" * 20
        response = [{"type": "toolResponse", "id": f"call_{n}", "toolResult": {
            "status": "success", "value": {"content": [{"type": "text", "text": output}]}}}]  # fmt: skip
        rows.append(("assistant", json.dumps(request), at))
        rows.append(("user", json.dumps(response), at + 1))
        calls.append((at, 1000, 50))
    db.executemany(
        "INSERT INTO messages (session_id, role, content_json, created_timestamp, "
        f"metadata_json) VALUES ('{GOOSE_SESSION}', ?, ?, ?, '{visible}')",
        rows,
    )
    db.executemany(
        "INSERT INTO usage_ledger (session_id, created_timestamp, model, input_tokens, "
        f"output_tokens, total_tokens) VALUES ('{GOOSE_SESSION}', ?, "
        "'claude-sonnet-4-5', ?, ?, 1050)",
        calls,
    )
    db.commit()
    db.close()
    return GOOSE_SESSION


def make_cursor(out: Path, messages: int) -> str:
    """One Cursor IDE conversation of `messages` messages: prompts, tool calls, answers."""
    folder = out / "home" / ".config" / "Cursor" / "User" / "globalStorage"
    folder.mkdir(parents=True)
    db = sqlite3.connect(folder / "state.vscdb")
    db.execute(
        "CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)"
    )
    db.execute(
        "CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)"
    )
    cid = CURSOR_CONVERSATION
    headers, rows = [], []
    for n in range(messages):
        at = (
            f"2026-11-29T{10 + n // 3600 % 12:02d}:{n // 60 % 60:02d}:{n % 60:02d}.000Z"
        )
        if n % 10 == 0:
            bubble: dict[str, object] = {
                "_v": 3,
                "type": 1,
                "text": f"step {n}?",
                "createdAt": at,
            }
        else:
            output = "z" * BIG if n == messages // 2 + 1 else f"line {n}\n" * 20
            tool = {"name": "run_terminal_cmd", "toolCallId": f"call_{n}", "status": "completed",
                    "rawArgs": json.dumps({"command": f"echo {n}"}),
                    "result": json.dumps({"output": output})}  # fmt: skip
            bubble = {"_v": 3, "type": 2, "createdAt": at, "text": f"Running {n}.",
                      "toolFormerData": tool,
                      "tokenCount": {"inputTokens": 1000, "outputTokens": 50}}  # fmt: skip
        headers.append({"bubbleId": f"b{n}", "type": bubble["type"]})
        rows.append((f"bubbleId:{cid}:b{n}", json.dumps(bubble)))
    composer = {"_v": 16, "composerId": cid, "name": "Long", "createdAt": 1_795_946_400_000,
                "lastUpdatedAt": 1_795_946_400_000, "unifiedMode": "agent",
                "modelConfig": {"modelName": "claude-4.5-sonnet"},
                "fullConversationHeadersOnly": headers}  # fmt: skip
    rows.append((f"composerData:{cid}", json.dumps(composer)))
    db.executemany("INSERT INTO cursorDiskKV VALUES (?, ?)", rows)
    db.commit()
    db.close()
    return cid


def measure(report: Report, name: str, home: Path, sid: str, runs: int, only: set[str]) -> list[str]:  # fmt: skip
    env = environment(Path(tempfile.mkdtemp(prefix="sessdex-whole-")))
    where = ["--home", str(home)]
    run(sessdex("list", "--json", *where), env)  # the index, once
    rows = []
    for label, argv in commands(sid).items():
        if only and label not in only:
            continue
        results = [run(sessdex(*argv, *where), env, first_byte=True, measure_rss=True)
                   for _ in range(runs)]  # fmt: skip
        failed = [r for r in results if r.returncode != 0]
        if failed:
            report.note(
                f"  {label}: exit {failed[0].returncode}: {failed[0].stderr[-300:]}"
            )
            continue
        rss = median([r.peak_rss for r in results])
        first = median([r.first_output or r.seconds for r in results])
        total = median([r.seconds for r in results])
        rows.append(f"| {name} | {label} | {mb(rss)} | {first:.2f} s | {total:.2f} s |")
        report.note(rows[-1])
        report.check(
            f"{name} {label} peak RSS <= {mb(RSS_LIMIT)}", rss <= RSS_LIMIT, mb(rss)
        )
        if label == "show --tail 50 --json" and name in ("claude", "codex"):
            report.check(f"{name} {label} first output <= {TAIL_FIRST} s",
                         first <= TAIL_FIRST, f"{first:.2f} s")  # fmt: skip
    shutil.rmtree(env["SESSDEX_HOME"], ignore_errors=True)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--mb", type=int, default=512, help="Claude and Codex transcript size"
    )
    parser.add_argument("--big-lines", type=int, default=4)
    parser.add_argument(
        "--doc-mb", type=int, default=300, help="the Gemini chat's size"
    )
    parser.add_argument("--parts", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--homes",
        default="claude,codex,subagents,gemini,opencode,crush,goose,cursor",
    )
    parser.add_argument(
        "--commands", default="", help="only these labels, comma-separated"
    )
    args = parser.parse_args()
    report = Report()
    only = {c.strip() for c in args.commands.split(",") if c.strip()}
    rows = [
        "| home | command | peak RSS | first output | total |",
        "|---|---|---|---|---|",
    ]
    for name in args.homes.split(","):
        with tempfile.TemporaryDirectory(prefix=f"sessdex-whole-{name}-") as tmp:
            out = Path(tmp)
            if name == "claude":
                sid = make_claude(out, args, "--real-bytes", str(args.mb),
                                  "--big-lines", str(args.big_lines))  # fmt: skip
            elif name == "codex":
                sid = make_claude(out, args, "--real-bytes", str(args.mb), "--real-app", "codex")  # fmt: skip
            elif name == "subagents":
                # a spawn in 1 of 16 tool calls: about 500 over 128 MB
                sid = make_claude(out, args, "--real-bytes", str(args.mb // 4),
                                  "--spawn-rate", "0.06", "--subagent-files")  # fmt: skip
            elif name == "gemini":
                sid = make_gemini(out, args.doc_mb)
            elif name == "opencode":
                sid = make_opencode(out, args.parts)
            elif name == "crush":
                sid = make_crush(out, args.parts)
            elif name == "goose":
                sid = make_goose(out, args.parts)
            elif name == "cursor":
                sid = make_cursor(out, args.parts)
            else:
                raise SystemExit(f"unknown home {name!r}")
            report.note(f"\n{name}: {sid}")
            rows += measure(report, name, out / "home", sid, args.runs, only)
    print("\n" + "\n".join(rows))
    return report.summary()


if __name__ == "__main__":
    sys.exit(main())
