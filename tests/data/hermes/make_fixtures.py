"""Writes the synthetic Hermes Agent fixtures: the fake home's `.hermes/state.db` (and a
profile's), and the malformed home's. Run from anywhere: `python tests/data/hermes/make_fixtures.py`.

The tables follow hermes-agent's own schema (hermes_state_common.py SCHEMA_SQL, schema
v30), cut to the columns sessdex reads and a few it must pass over; the profile's database
is an older one, without the v2x columns (`active`, `compacted`, `display_kind`,
`session_model_usage`). Nothing here is copied from a real session.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

HERE = Path(__file__).parent
T0 = 1796119200.0  # 2026-12-01T10:00:00Z

SESSIONS = """
CREATE TABLE sessions (
    id TEXT PRIMARY KEY, source TEXT NOT NULL, user_id TEXT, session_key TEXT,
    model TEXT, model_config TEXT, system_prompt TEXT, parent_session_id TEXT,
    started_at REAL NOT NULL, ended_at REAL, end_reason TEXT,
    message_count INTEGER DEFAULT 0, tool_call_count INTEGER DEFAULT 0,
    input_tokens INTEGER DEFAULT 0, output_tokens INTEGER DEFAULT 0,
    cache_read_tokens INTEGER DEFAULT 0, cache_write_tokens INTEGER DEFAULT 0,
    reasoning_tokens INTEGER DEFAULT 0, cwd TEXT, git_branch TEXT, git_repo_root TEXT,
    billing_provider TEXT, estimated_cost_usd REAL, actual_cost_usd REAL,
    title TEXT, title_source TEXT, last_activity_at REAL, api_call_count INTEGER DEFAULT 0,
    archived INTEGER NOT NULL DEFAULT 0, hidden INTEGER NOT NULL DEFAULT 0
);
"""
MESSAGES_V30 = """
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL, content TEXT, tool_call_id TEXT, tool_calls TEXT, tool_name TEXT,
    timestamp REAL NOT NULL, token_count INTEGER, finish_reason TEXT, reasoning TEXT,
    reasoning_content TEXT, _compressed_summary INTEGER NOT NULL DEFAULT 0,
    active INTEGER NOT NULL DEFAULT 1, compacted INTEGER NOT NULL DEFAULT 0,
    display_kind TEXT, display_identity BLOB
);
CREATE INDEX idx_messages_session ON messages(session_id, timestamp);
CREATE INDEX idx_messages_session_id ON messages(session_id, id);
CREATE TABLE session_model_usage (
    session_id TEXT NOT NULL, model TEXT NOT NULL, billing_provider TEXT NOT NULL DEFAULT '',
    task TEXT NOT NULL DEFAULT '', api_call_count INTEGER NOT NULL DEFAULT 0,
    input_tokens INTEGER NOT NULL DEFAULT 0, output_tokens INTEGER NOT NULL DEFAULT 0,
    cache_read_tokens INTEGER NOT NULL DEFAULT 0, cache_write_tokens INTEGER NOT NULL DEFAULT 0,
    reasoning_tokens INTEGER NOT NULL DEFAULT 0, estimated_cost_usd REAL NOT NULL DEFAULT 0,
    actual_cost_usd REAL NOT NULL DEFAULT 0, first_seen REAL, last_seen REAL,
    PRIMARY KEY (session_id, model, billing_provider, task)
);
CREATE TABLE state_meta (key TEXT PRIMARY KEY, value TEXT);
CREATE VIRTUAL TABLE messages_fts USING fts5(content);
"""
MESSAGES_OLD = """
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL, content TEXT, tool_call_id TEXT, tool_calls TEXT, tool_name TEXT,
    timestamp REAL NOT NULL, token_count INTEGER, finish_reason TEXT, reasoning TEXT
);
CREATE INDEX idx_messages_session ON messages(session_id, timestamp);
"""

LEAD = "20261201_100000_a1b2c3"
CHILD = "20261201_100130_d4e5f6"  # delegate_task's sub-agent
NEXT = "20261201_101500_0a0b0c"  # the compression's continuation
GATEWAY = "20261202_080000_77aa88"
PROFILED = "20261120_153000_5c5d5e"
OLD_CHAT = (
    "20260405_101500_5e5e5e"  # an older gateway's: its chat in sessions/<id>.jsonl
)
OLD_CRON = "cron_0a1b2c3d4e5f_20260407_020001"  # an older release's: in its JSON log
ONLY_JSONL = "20260310_083000_7a7a7a"  # no database row: a transcript alone
ONLY_LOG = "20260311_090000_8b8b8b"  # no database row: a JSON log alone


def call(call_id: str, name: str, arguments: dict[str, object]) -> dict[str, object]:
    return {"id": call_id, "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)}}  # fmt: skip


def session(db: sqlite3.Connection, **row: object) -> None:
    keys = ", ".join(row)
    db.execute(f"INSERT INTO sessions ({keys}) VALUES ({', '.join('?' * len(row))})",
               tuple(row.values()))  # fmt: skip


def message(
    db: sqlite3.Connection, session_id: str, at: float, role: str, **row: object
) -> None:
    row = {"session_id": session_id, "timestamp": T0 + at, "role": role, **row}
    for key in ("tool_calls",):
        if key in row and not isinstance(row[key], str):
            row[key] = json.dumps(row[key])
    keys = ", ".join(row)
    db.execute(f"INSERT INTO messages ({keys}) VALUES ({', '.join('?' * len(row))})",
               tuple(row.values()))  # fmt: skip


def fresh(path: Path, schema: str) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    db = sqlite3.connect(path)
    db.executescript(SESSIONS + schema)
    return db


def main_home() -> None:
    home = HERE / "home" / ".hermes"
    db = fresh(home / "state.db", MESSAGES_V30)
    session(db, id=LEAD, source="cli", model="anthropic/claude-sonnet-4.5",
            model_config=json.dumps({"max_iterations": 90}), started_at=T0,
            ended_at=T0 + 899, end_reason="compression", message_count=9,
            input_tokens=5200, output_tokens=900, cache_read_tokens=12000,
            cache_write_tokens=800, reasoning_tokens=150, cwd="/home/alex/code/shop-api",
            git_branch="retry-checkout", billing_provider="openrouter",
            estimated_cost_usd=0.0812, title="Add retry to checkout", title_source="llm",
            last_activity_at=T0 + 899)  # fmt: skip
    message(
        db, LEAD, 1, "user", content="Add a retry with backoff to the checkout client"
    )
    message(db, LEAD, 5, "assistant", content="Let me look at the client first.",
            reasoning="The client lives in shop/checkout.py; read it.",
            tool_calls=[call("call_read_1", "read_file", {"path": "shop/checkout.py"})],
            finish_reason="tool_calls")  # fmt: skip
    message(db, LEAD, 6, "tool", content="def checkout(cart):\n    return post('/pay', cart)\n",
            tool_call_id="call_read_1", tool_name="read_file")  # fmt: skip
    message(db, LEAD, 60, "assistant", content=None,
            tool_calls=[call("call_deleg_1", "delegate_task",
                             {"goal": "Find every caller of checkout()", "toolsets": ["terminal"]})],
            finish_reason="tool_calls")  # fmt: skip
    message(db, LEAD, 200, "tool", content=json.dumps({"results": [{"status": "completed",
            "summary": "2 callers: cart.py, api.py"}]}), tool_call_id="call_deleg_1",
            tool_name="delegate_task")  # fmt: skip
    message(db, LEAD, 210, "assistant", content=None,
            tool_calls=[call("call_patch_1", "patch", {"path": "shop/checkout.py",
                             "old_string": "return post('/pay', cart)",
                             "new_string": "return with_retry(post, '/pay', cart)"})],
            finish_reason="tool_calls")  # fmt: skip
    message(db, LEAD, 211, "tool", content='{"success": true}', tool_call_id="call_patch_1",
            tool_name="patch")  # fmt: skip
    message(db, LEAD, 230, "assistant", content="Checkout now retries three times.",
            finish_reason="stop")  # fmt: skip
    # a turn the user rewound: Hermes keeps the row inactive, never shown
    message(db, LEAD, 240, "user", content="no, undo that", active=0)
    message(db, LEAD, 250, "user", content="[System note: context was compacted]",
            display_kind="hidden")  # fmt: skip

    session(db, id=CHILD, source="subagent", model="anthropic/claude-haiku-4.5",
            model_config=json.dumps({"_delegate_from": LEAD}), parent_session_id=LEAD,
            started_at=T0 + 90, ended_at=T0 + 190, end_reason="completed", message_count=4,
            input_tokens=1500, output_tokens=220, cwd="/home/alex/code/shop-api",
            git_branch="retry-checkout", billing_provider="openrouter",
            estimated_cost_usd=0.0031)  # fmt: skip
    message(db, CHILD, 90, "user", content="Find every caller of checkout()")
    message(db, CHILD, 95, "assistant", content=None,
            tool_calls=[call("call_grep_1", "terminal", {"command": "grep -rn 'checkout(' shop"})],
            finish_reason="tool_calls")  # fmt: skip
    message(db, CHILD, 97, "tool", content="shop/cart.py:12\nshop/api.py:40\n",
            tool_call_id="call_grep_1", tool_name="terminal")  # fmt: skip
    message(db, CHILD, 100, "assistant", content=None,
            tool_calls=[call("call_read_2", "read_file", {"path": "shop/gone.py"})],
            finish_reason="tool_calls")  # fmt: skip
    message(db, CHILD, 101, "tool", content='{"error": "File not found: shop/gone.py"}',
            tool_call_id="call_read_2", tool_name="read_file")  # fmt: skip
    message(
        db,
        CHILD,
        180,
        "assistant",
        content="2 callers: cart.py, api.py",
        finish_reason="stop",
    )

    session(db, id=NEXT, source="cli", model="anthropic/claude-sonnet-4.5",
            model_config=json.dumps({"max_iterations": 90}), parent_session_id=LEAD,
            started_at=T0 + 900, message_count=3, input_tokens=2000, output_tokens=280,
            cache_read_tokens=9000, reasoning_tokens=40, estimated_cost_usd=0.0401,
            cwd="/home/alex/code/shop-api", git_branch="retry-checkout",
            billing_provider="openrouter", title="Add retry to checkout #2",
            last_activity_at=T0 + 960)  # fmt: skip
    message(
        db,
        NEXT,
        900,
        "user",
        _compressed_summary=1,
        content="[CONTEXT COMPACTION] Earlier turns: the checkout client now retries.",
    )
    message(db, NEXT, 930, "user", content="Now add a test for it")
    message(db, NEXT, 960, "assistant", content="Added tests/test_checkout.py.",
            reasoning_content="One test for the retry, one for giving up.",
            finish_reason="stop")  # fmt: skip
    # the main loop's calls count in the session's counters and in a row of their model;
    # an auxiliary call (the compression's summary) in its row alone
    for model, task, tokens, cost, seen in (
        ("anthropic/claude-sonnet-4.5", "", (2000, 280, 9000, 0, 40), 0.0401, 960),
        ("google/gemini-2.5-flash", "compression", (100, 20, 0, 0, 0), 0.0002, 900),
    ):
        db.execute(
            "INSERT INTO session_model_usage (session_id, model, billing_provider, task,"
            " input_tokens, output_tokens, cache_read_tokens, cache_write_tokens,"
            " reasoning_tokens, estimated_cost_usd, first_seen, last_seen)"
            " VALUES (?, ?, 'openrouter', ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (NEXT, model, task, *tokens, cost, T0 + seen, T0 + seen),
        )

    session(db, id=GATEWAY, source="telegram", user_id="4242", model="hermes-4-405b",
            started_at=T0 + 86400 - 7200, message_count=2, input_tokens=300, output_tokens=40,
            billing_provider="nous", last_activity_at=T0 + 86400 - 7100, archived=1)  # fmt: skip
    # the gateway's first row of a session: its tools, model and platform (never shown)
    message(db, GATEWAY, 86400 - 7200, "session_meta", content=None)
    message(db, GATEWAY, 86400 - 7200, "user", content="What's on my calendar\ntoday?")
    message(db, GATEWAY, 86400 - 7100, "assistant", content="Two meetings: 10:00 and 14:30.",
            finish_reason="stop")  # fmt: skip
    # a photo with its caption: Hermes keeps multimodal parts as JSON behind a NUL
    parts = [{"type": "text", "text": "And this receipt?"},
             {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}]  # fmt: skip
    message(db, GATEWAY, 86400 - 7000, "user", content="\x00json:" + json.dumps(parts))
    message(db, GATEWAY, 86400 - 6990, "assistant", content="A taxi receipt: 23.40 EUR.",
            finish_reason="stop")  # fmt: skip
    # an in-place compaction (Hermes' archive_and_compact with a kept tail): the rows it
    # folds stay for display (`compacted`), the originals of the tail it keeps are flagged
    # as rewound (both 0), and the summary (dated when it was made) then the tail (with
    # its original times and display identities) are written again after them
    db.execute("UPDATE messages SET display_identity = CAST(id AS BLOB) WHERE session_id = ?",
               (GATEWAY,))  # fmt: skip
    tail = T0 + 86400 - 7000
    db.execute("UPDATE messages SET active = 0, compacted = 1 WHERE session_id = ?"
               " AND active = 1 AND timestamp < ?", (GATEWAY, tail))  # fmt: skip
    db.execute("UPDATE messages SET active = 0, compacted = 0 WHERE session_id = ?"
               " AND active = 1 AND timestamp >= ?", (GATEWAY, tail))  # fmt: skip
    message(
        db,
        GATEWAY,
        86400 - 6900,
        "user",
        _compressed_summary=1,
        content="[CONTEXT COMPACTION] The user asked about their calendar and a receipt.",
    )
    db.execute(
        "INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, tool_name,"
        " timestamp, finish_reason, display_identity) SELECT session_id, role, content,"
        " tool_call_id, tool_calls, tool_name, timestamp, finish_reason, display_identity"
        " FROM messages WHERE session_id = ? AND active = 0 AND compacted = 0"
        " AND timestamp >= ? ORDER BY id",
        (GATEWAY, tail),
    )
    message(db, GATEWAY, 86400 - 6800, "user", content="Thanks, file it under travel")
    message(db, GATEWAY, 86400 - 6790, "assistant", content="Filed under travel.",
            finish_reason="stop")  # fmt: skip
    # older releases: the gateway wrote its chats to sessions/<id>.jsonl first (the
    # database got its row, and few messages or none), and each session's JSON log went
    # to sessions/session_<id>.json
    session(db, id=OLD_CHAT, source="telegram", user_id="4242", model="minimax/minimax-m2",
            started_at=1775384100.0, ended_at=1775428800.0, end_reason="session_reset",
            message_count=0, input_tokens=1200, output_tokens=300)  # fmt: skip
    session(db, id=OLD_CRON, source="cron", model="minimax/minimax-m2", started_at=1775527201.0,
            ended_at=1775527230.0, end_reason="cron_complete")  # fmt: skip
    transcript = [
        {"role": "user", "content": "Remind me what the plan for Friday was",
         "timestamp": "2026-04-05T10:15:20.125000"},
        {"role": "assistant", "content": "", "reasoning": "Search the notes first.",
         "finish_reason": "tool_calls", "timestamp": "2026-04-05T10:15:20.125000",
         "tool_calls": [{"id": "call_n1", "call_id": "call_n1", "response_item_id": "fc_1",
                         "type": "function", "function": {"name": "search_files",
                         "arguments": json.dumps({"pattern": "friday"})}}]},
        {"role": "tool", "content": "notes/week.md:3: Friday - ship the beta",
         "tool_call_id": "call_n1", "timestamp": "2026-04-05T10:15:20.125000"},
        {"role": "assistant", "content": "Friday: ship the beta.", "finish_reason": "stop",
         "timestamp": "2026-04-05T10:15:20.125000"},
    ]  # fmt: skip
    sessions_dir = home / "sessions"
    sessions_dir.mkdir(exist_ok=True)
    (sessions_dir / f"{OLD_CHAT}.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in transcript)
    )
    log = {"session_id": OLD_CRON, "model": "minimax/minimax-m2", "platform": "cron",
           "session_start": "2026-04-07T02:00:01.424418",
           "last_updated": "2026-04-07T02:00:30.100000",
           "system_prompt": "You are Hermes.", "tools": [], "message_count": 2,
           "messages": [{"role": "user", "content": "Summarise today's calendar"},
                        {"role": "assistant", "content": "Nothing booked today.",
                         "finish_reason": "stop"}]}  # fmt: skip
    (sessions_dir / f"session_{OLD_CRON}.json").write_text(json.dumps(log))
    # sessions the database has no row of (one Hermes set aside as damaged and began
    # again): a transcript opening with the gateway's session_meta line, and a log
    only = [
        {"role": "session_meta", "model": "minimax/minimax-m2", "platform": "discord",
         "tools": [], "timestamp": 1773131400.0},
        {"role": "user", "content": "Which PRs are waiting on me?", "timestamp": 1773131401.0},
        {"role": "assistant", "content": "Two: #41 and #44.", "finish_reason": "stop",
         "timestamp": 1773131460.5},
    ]  # fmt: skip
    (sessions_dir / f"{ONLY_JSONL}.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in only)
    )
    log = {"session_id": ONLY_LOG, "model": "minimax/minimax-m2", "platform": "cli",
           "session_start": "2026-03-11T09:00:00.000000",
           "last_updated": "2026-03-11T09:05:00.000000",
           "system_prompt": "You are Hermes.", "tools": [{"name": "terminal"}],
           "message_count": 2,
           "messages": [{"role": "user", "content": "Rename the build script"},
                        {"role": "assistant", "content": "Renamed it to build.sh.",
                         "finish_reason": "stop"}]}  # fmt: skip
    (sessions_dir / f"session_{ONLY_LOG}.json").write_text(json.dumps(log))
    # the gateway's routing index and a debug dump: not sessions
    (sessions_dir / "sessions.json").write_text('{"agent:main:telegram:dm:4242": {}}')
    (sessions_dir / f"request_dump_{OLD_CHAT}_20260405_193000_000001.json").write_text(
        "{}"
    )
    db.commit()
    db.close()
    # what sits beside the database: never opened (placeholders, no real keys)
    (home / ".env").write_text("OPENROUTER_API_KEY=placeholder-not-a-key\n")
    (home / "auth.json").write_text('{"providers": {}}\n')
    (home / "config.yaml").write_text(
        "model:\n  default: anthropic/claude-sonnet-4.5\n"
    )

    profile = fresh(home / "profiles" / "work" / "state.db", MESSAGES_OLD)
    session(profile, id=PROFILED, source="cli", model="gpt-5", started_at=T0 - 11 * 86400 - 1800,
            ended_at=T0 - 11 * 86400, end_reason="user_exit", message_count=2,
            input_tokens=800, output_tokens=120, cwd="/home/alex/work/infra",
            title="Terraform plan review")  # fmt: skip
    message(
        profile,
        PROFILED,
        -11 * 86400 - 1800,
        "user",
        content="Review this terraform plan",
    )
    message(profile, PROFILED, -11 * 86400 - 1700, "assistant", content="It replaces one bucket.",
            finish_reason="stop")  # fmt: skip
    profile.commit()
    profile.close()


def malformed_home() -> None:
    home = HERE / "malformed" / "home" / ".hermes"
    db = fresh(home / "state.db", MESSAGES_V30)
    session(db, id="20261203_090000_badbad", source="cli", model=7, started_at="yesterday",
            cwd=None, title=None)  # fmt: skip
    message(db, "20261203_090000_badbad", 0, "user", content=None)
    message(
        db,
        "20261203_090000_badbad",
        1,
        "assistant",
        content="calling",
        tool_calls='[{"id": "call_1", "function": {"name": "terminal", "argum',
    )
    message(
        db, "20261203_090000_badbad", 2, "assistant", tool_calls='{"not": "a list"}'
    )
    message(db, "20261203_090000_badbad", 3, "critic", content="an unknown role")
    message(db, "20261203_090000_badbad", 4, "tool", content="x" * (300 * 1024),
            tool_call_id="call_1")  # fmt: skip
    message(db, "20261203_090000_badbad", 5, "assistant",
            tool_calls=[{"function": "not an object"}, 5, {"id": "c2", "function": {"name": "x",
                         "arguments": "{not json"}}])  # fmt: skip
    # a row with no id, and one whose parent is gone
    db.execute("INSERT INTO sessions (id, source, started_at) VALUES (NULL, 'cli', 0)")
    session(db, id="20261203_091000_orphan", source="cli", parent_session_id="gone",
            started_at=T0, model_config="{torn")  # fmt: skip
    db.commit()
    db.close()
    broken = home / "profiles" / "torn" / "state.db"
    broken.parent.mkdir(parents=True, exist_ok=True)
    broken.write_bytes(b"SQLite format 3\x00" + b"\x00" * 40)  # a header, then nothing


if __name__ == "__main__":
    main_home()
    malformed_home()
