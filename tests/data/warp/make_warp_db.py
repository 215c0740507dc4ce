"""Rebuild the Warp fixture databases: `python tests/data/warp/make_warp_db.py`.

Writes `home/.local/state/warp-terminal/warp.sqlite` and its `malformed/` twin, synthetic,
shaped as Warp's own schema (`crates/persistence/src/schema.rs` of warpdotdev/warp) and
protobuf (`apis/multi_agent/v1/task.proto` of warpdotdev/warp-proto-apis) say, with the
JSON shapes third-party notes describe (see PROVENANCE.md). A secrets table
(`mcp_environment_variables`, as Warp's schema has it) holds a fake key that the tests
prove is never read.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

HERE = Path(__file__).parent
FAKE_KEY = "sk-FAKE-warp-fixture-key-never-read"

SCHEMA = (
    "CREATE TABLE ai_queries (id INTEGER PRIMARY KEY NOT NULL, exchange_id TEXT NOT NULL, "
    "conversation_id TEXT NOT NULL, start_ts DATETIME NOT NULL, input TEXT NOT NULL, "
    "working_directory TEXT, output_status TEXT NOT NULL, model_id TEXT NOT NULL DEFAULT '', "
    "planning_model_id TEXT NOT NULL DEFAULT '', coding_model_id TEXT NOT NULL DEFAULT '')",
    "CREATE TABLE agent_conversations (id INTEGER PRIMARY KEY NOT NULL, "
    "conversation_id TEXT NOT NULL, conversation_data TEXT NOT NULL, "
    "last_modified_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, summary TEXT)",
    "CREATE TABLE agent_tasks (id INTEGER PRIMARY KEY NOT NULL, conversation_id TEXT NOT NULL, "
    "task_id TEXT NOT NULL, task BLOB NOT NULL, "
    "last_modified_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP)",
    "CREATE TABLE blocks (id INTEGER PRIMARY KEY, pane_leaf_uuid BLOB NOT NULL DEFAULT x'', "
    "stylized_command BLOB NOT NULL DEFAULT x'', stylized_output BLOB NOT NULL DEFAULT x'', "
    "pwd TEXT, exit_code INTEGER NOT NULL DEFAULT 0, did_execute BOOLEAN NOT NULL DEFAULT 1, "
    "completed_ts DATETIME, start_ts DATETIME, block_id TEXT NOT NULL DEFAULT '', "
    "ai_metadata TEXT)",
    "CREATE TABLE mcp_environment_variables (mcp_server_uuid BLOB PRIMARY KEY NOT NULL, "
    "environment_variables TEXT NOT NULL)",
    "CREATE TABLE current_user_information (email TEXT PRIMARY KEY NOT NULL)",
    "CREATE INDEX ai_queries_conversation ON ai_queries (conversation_id)",
)

SHOP = "e05f25f4-4e57-411a-b126-f4c9ebca6781"
BLOG = "7a1c9e20-3b4d-4f5e-8a6b-1c2d3e4f5a6b"
LEGACY = "3c2b1a09-8f7e-4d6c-9b5a-0a1b2c3d4e5f"
DIFF = "9d8c7b6a-5e4f-4a3b-8c2d-1e0f9a8b7c6d"


# --- a small protobuf writer (wire format only) -------------------------------------


def varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def field(number: int, value: bytes | str | int) -> bytes:
    if isinstance(value, int):
        return varint(number << 3) + varint(value & 0xFFFFFFFFFFFFFFFF)
    data = value.encode() if isinstance(value, str) else value
    return varint(number << 3 | 2) + varint(len(data)) + data


def timestamp(seconds: int) -> bytes:
    return field(14, field(1, T0 + seconds))


def message(kind: int, body: bytes, seconds: int, ident: str) -> bytes:
    return field(5, field(1, ident) + field(kind, body) + timestamp(seconds))


def task(task_id: str, description: str, *messages: bytes) -> bytes:
    return field(1, task_id) + field(2, description) + b"".join(messages)


T0 = 1764583200  # 2025-12-01T10:00:00Z


def ts(seconds: int) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(T0 + seconds, UTC).strftime("%Y-%m-%d %H:%M:%S.%f")


def query(text: str, pwd: str) -> str:
    return json.dumps(
        [
            {
                "Query": {
                    "text": text,
                    "context": [
                        {"Directory": {"pwd": pwd, "home_dir": "/home/alex"}},
                        {"Git": {"head": "main"}},
                    ],
                    "referenced_attachments": {},
                }
            }
        ]
    )


def build(path: Path, malformed: bool) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    db = sqlite3.connect(path)
    db.execute("PRAGMA page_size = 1024")
    for statement in SCHEMA:
        db.execute(statement)
    db.execute(
        "INSERT INTO mcp_environment_variables VALUES (x'0102', ?)",
        (json.dumps({"OPENAI_API_KEY": FAKE_KEY}),),
    )
    db.execute("INSERT INTO current_user_information VALUES ('alex@example.com')")
    if malformed:
        fill_malformed(db)
    else:
        fill(db)
    db.commit()
    db.close()


def fill(db: sqlite3.Connection) -> None:
    shop = "/home/alex/code/shop-api"
    q = "INSERT INTO ai_queries (exchange_id, conversation_id, start_ts, input, working_directory, output_status, model_id) VALUES (?, ?, ?, ?, ?, ?, ?)"
    # SHOP: two exchanges, a title in its summary, tasks with answers and tool calls,
    # two commands the agent ran (one failed), usage in conversation_data
    db.execute(
        q,
        (
            "x1",
            SHOP,
            ts(0),
            query("Why do the checkout tests fail?", shop),
            shop,
            '"Completed"',
            "claude-4-5-sonnet",
        ),
    )
    db.execute(q, ("x2", SHOP, ts(60), query("Then fix it and run them again.", shop),
                   shop, '"Failed"', "claude-4-5-sonnet"))  # fmt: skip
    db.execute(
        "INSERT INTO agent_conversations (conversation_id, conversation_data, last_modified_at, summary) VALUES (?, ?, ?, ?)",
        (
            SHOP,
            json.dumps({
                "server_conversation_token": "tok-1",
                "conversation_usage_metadata": {
                    "was_summarized": False, "context_window_usage": 0.12,
                    "credits_spent": 12.5, "credits_spent_for_last_block": 3.0,
                    "token_usage": [{"model_id": "claude 4.5 sonnet", "warp_tokens": 42000,
                                     "byok_tokens": 0,
                                     "warp_token_usage_by_category": {"primary_agent": 42000}}],
                },
            }),
            ts(75),
            json.dumps({"initial_query": "Why do the checkout tests fail?",
                        "title": "Fix failing checkout tests",
                        "initial_working_directory": shop, "is_restorable": True}),
        ),
    )  # fmt: skip
    root = task(
        "task-root",
        "Fix failing checkout tests",
        message(2, field(1, "Why do the checkout tests fail?"), 1, "m1"),
        message(15, field(1, "Run the tests first."), 2, "m2"),
        message(3, field(1, "Let me run the test suite."), 3, "m3"),
        message(4, field(1, "toolu_01") + field(2, field(1, "pytest -q tests/test_checkout.py")), 4, "m4"),
        message(5, field(1, "toolu_01") + field(2, field(3, "pytest -q tests/test_checkout.py") + field(5, field(1, "1 failed") + field(2, 1))), 9, "m5"),
        message(3, field(1, "The discount is applied twice."), 10, "m6"),
        message(2, field(1, "Then fix it and run them again."), 61, "m7"),
        message(4, field(1, "toolu_02") + field(2, field(1, "pytest -q")), 62, "m8"),
        message(3, field(1, "Fixed; the suite passes."), 70, "m9"),
    )  # fmt: skip
    db.execute(
        "INSERT INTO agent_tasks (conversation_id, task_id, task, last_modified_at) VALUES (?, ?, ?, ?)",
        (SHOP, "task-root", root, ts(75)),
    )
    b = "INSERT INTO blocks (stylized_command, stylized_output, pwd, exit_code, start_ts, completed_ts, block_id, ai_metadata) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
    db.execute(b, (b"\x1b[1mpytest -q tests/test_checkout.py\x1b[0m", b"F.\n\x1b[31m1 failed\x1b[0m, 1 passed", shop, 1, ts(5), ts(8), "b1",
                   json.dumps({"action_id": "toolu_01", "conversation_id": SHOP, "conversation_phase": {"interactive": {}}, "has_agent_written_to_block": False})))  # fmt: skip
    db.execute(b, (b"pytest -q", b"..\n2 passed", shop, 0, ts(63), ts(66), "b2",
                   json.dumps({"requested_command_action_id": "toolu_02", "conversation_id": SHOP, "subagent_task_id": None})))  # fmt: skip
    db.execute(
        b, (b"ls", b"a b", shop, 0, ts(5), ts(6), "b-user", None)
    )  # a user's own command
    # BLOG: no tasks (an older Warp), title from the first query; a block for its command
    blog = "/home/alex/code/blog"
    db.execute(
        q,
        (
            "y1",
            BLOG,
            "2025-06-10 09:15:00",
            query("List the drafts", blog),
            blog,
            '"Completed"',
            "gpt-5",
        ),
    )
    db.execute(
        q,
        (
            "y2",
            BLOG,
            "2025-06-10 09:16:00",
            query("Open the first one", blog),
            blog,
            '"Cancelled"',
            "gpt-5",
        ),
    )
    db.execute(b, (b"ls drafts", b"one.md\ntwo.md", blog, 0, "2025-06-10 09:15:05", "2025-06-10 09:15:06", "b3",
                   json.dumps({"action_id": "toolu_03", "conversation_id": BLOG})))  # fmt: skip
    # LEGACY: only an agent_conversations row with its summary (no query rows left)
    db.execute(
        "INSERT INTO agent_conversations (conversation_id, conversation_data, last_modified_at, summary) VALUES (?, ?, ?, ?)",
        (LEGACY, "{}", "2025-03-02 16:40:00",
         json.dumps({"initial_query": "Rename the config loader", "title": "",
                     "initial_working_directory": "/home/alex/code/tools"})),
    )  # fmt: skip
    # DIFF: an automatic code-diff suggestion only: Warp hides it, so does sessdex
    db.execute(
        "INSERT INTO agent_conversations (conversation_id, conversation_data, last_modified_at, summary) VALUES (?, ?, ?, ?)",
        (DIFF, "{}", "2025-03-03 10:00:00",
         json.dumps({"initial_query": "fix", "title": "fix", "is_unlisted_auto_code_diff": True})),
    )  # fmt: skip


def fill_malformed(db: sqlite3.Connection) -> None:
    q = "INSERT INTO ai_queries (exchange_id, conversation_id, start_ts, input, working_directory, output_status, model_id) VALUES (?, ?, ?, ?, ?, ?, ?)"
    bad = "0f0f0f0f-0000-4000-8000-00000000000a"
    db.execute(q, ("z1", bad, "not a time", "{not json", None, '"Exploded"', ""))
    db.execute(q, ("z2", bad, ts(5), json.dumps({"Query": "odd"}), 7, 42, "m"))
    db.execute(q, ("z3", 12345, ts(6), "[]", None, '"Completed"', ""))  # an integer id
    db.execute(
        "INSERT INTO agent_conversations (conversation_id, conversation_data, last_modified_at, summary) VALUES (?, ?, ?, ?)",
        (bad, "[1, 2", "2025-01-01 00:00:00", "{cut"),
    )
    db.execute(
        "INSERT INTO agent_tasks (conversation_id, task_id, task) VALUES (?, ?, ?)",
        (bad, "t1", b"\x0a\xff\xff\xff"),  # a length past the end
    )
    db.execute(
        "INSERT INTO agent_tasks (conversation_id, task_id, task) VALUES (?, ?, ?)",
        (bad, "t2", task("t2", "odd", message(99, field(1, "?"), 1, "m1"))),
    )
    db.execute(
        "INSERT INTO agent_tasks (conversation_id, task_id, task) VALUES (?, ?, ?)",
        (bad, "t3", "text, not a blob"),
    )
    db.execute(
        "INSERT INTO blocks (stylized_command, stylized_output, exit_code, start_ts, ai_metadata) VALUES (?, ?, ?, ?, ?)",
        (b"x", b"y", 0, ts(7), "{" + bad),
    )


if __name__ == "__main__":
    STATE = ".local/state/warp-terminal/warp.sqlite"  # below each fixture home
    build(HERE / "home" / STATE, malformed=False)
    build(HERE / "malformed" / "home" / STATE, malformed=True)
