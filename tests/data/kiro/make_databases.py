"""Rebuild the kiro fixture databases: `python tests/data/kiro/make_databases.py`.

Writes, synthetic and shaped as the CLIs' own source writes them (see PROVENANCE.md):
`home/.local/share/kiro-cli/data.sqlite3` (Kiro CLI: migrations 000 to 008, chats in
`conversations_v2`, the old `conversations` table left behind by 008),
`home/.local/share/amazon-q/data.sqlite3` (Amazon Q Developer CLI 1.19: migrations 000 to
007, one chat per folder in `conversations`), and their `malformed/` twins. Each `value`
is a `ConversationState` as serde_json writes it: compact, fields in the struct's order,
enums tagged externally (`{"Prompt": {...}}`), `Option`s as null.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

HERE = Path(__file__).parent
MIGRATIONS = (
    "CREATE TABLE IF NOT EXISTS migrations (id INTEGER PRIMARY KEY, version INTEGER NOT NULL, "
    "migration_time INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS history (id INTEGER PRIMARY KEY, command TEXT, shell TEXT, "
    "pid INTEGER, session_id TEXT, cwd TEXT, time INTEGER, in_ssh INTEGER, in_docker INTEGER, "
    "hostname TEXT, exit_code INTEGER)",
    "ALTER TABLE history DROP COLUMN in_ssh; ALTER TABLE history DROP COLUMN in_docker",
    "ALTER TABLE history RENAME COLUMN time TO start_time; "
    "ALTER TABLE history ADD COLUMN end_time INTEGER; ALTER TABLE history ADD COLUMN duration INTEGER",
    "CREATE TABLE state (key TEXT PRIMARY KEY, value TEXT)",
    "CREATE TABLE auth_kv (key TEXT PRIMARY KEY, value TEXT)",
    "ALTER TABLE state RENAME TO state_old; CREATE TABLE state (key TEXT PRIMARY KEY, value BLOB); "
    "INSERT INTO state SELECT key, value FROM state_old; DROP TABLE state_old",
    "CREATE TABLE conversations (key TEXT PRIMARY KEY, value TEXT)",
    "CREATE TABLE conversations_v2 (key TEXT NOT NULL, conversation_id TEXT NOT NULL, "
    "value TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, "
    "PRIMARY KEY (key, conversation_id)); "
    "CREATE INDEX idx_conversations_v2_key_updated ON conversations_v2(key, updated_at DESC); "
    "CREATE INDEX idx_conversations_v2_updated_at ON conversations_v2(updated_at DESC); "
    "INSERT INTO conversations_v2 (key, conversation_id, value, created_at, updated_at) "
    "SELECT key, json_extract(value, '$.conversation_id'), value, {now}, {now} FROM conversations",
)

SHOP = "/home/alex/code/shop-api"
BLOG = "/home/alex/code/blog"
NEWEST = "3f6b2c1e-8d4a-4e7b-9c2f-5a1d0e9b7c63"  # shop-api's newest Kiro chat
OLDER = "9a0c4e2d-1b3f-4a5c-8d7e-6f1a2b3c4d5e"  # shop-api, compacted, a cancelled call
MIGRATED = "c2d4e6f8-0a1b-4c3d-8e5f-7a9b1c3d5e7f"  # copied by 008 from conversations
Q_SHOP = "5e7a9c1b-3d5f-4b7a-9c1e-3f5a7b9d1e3f"  # Q 1.19, with request metadata
Q_BLOG = "1b3d5f7a-9c1e-4a3c-8e5a-7c9e1a3c5e7a"  # Q 1.12, history as pairs
MIGRATED_AT = 1764900000000  # 2025-12-05T02:00:00Z, when 008 ran


def env() -> dict[str, object]:
    return {"env_state": {"operating_system": "linux", "current_working_directory": SHOP,
                          "environment_variables": []}}  # fmt: skip


def prompt(text: str, at: str | None) -> dict[str, object]:
    return {"additional_context": "", "env_context": env(), "content": {"Prompt": {"prompt": text}},
            "timestamp": at, "images": None}  # fmt: skip


def results(
    items: list[tuple[str, str, str]], at: str | None, cancelled: str | None = None
) -> dict[str, object]:
    listed = [{"tool_use_id": call, "content": [{"Text": text}], "status": status}
              for call, text, status in items]  # fmt: skip
    content = ({"CancelledToolUses": {"prompt": cancelled, "tool_use_results": listed}}
               if cancelled is not None else {"ToolUseResults": {"tool_use_results": listed}})  # fmt: skip
    return {"additional_context": "", "env_context": env(), "content": content,
            "timestamp": at, "images": None}  # fmt: skip


def answer(text: str, message: str) -> dict[str, object]:
    return {"Response": {"message_id": message, "content": text}}


def tools(text: str, message: str, uses: list[tuple[str, str, dict[str, object]]]) -> dict[str, object]:  # fmt: skip
    return {"ToolUse": {"message_id": message, "content": text, "tool_uses": [
        {"id": call, "name": name, "orig_name": name, "args": args, "orig_args": args}
        for call, name, args in uses]}}  # fmt: skip


def metadata(message: str, start: int, end: int, model: str, uses: list[str] = ()) -> dict[str, object]:  # type: ignore[assignment]  # fmt: skip
    return {"request_id": f"req-{message}", "message_id": message,
            "request_start_timestamp_ms": start, "stream_end_timestamp_ms": end,
            "time_to_first_chunk": {"secs": 1, "nanos": 0}, "time_between_chunks": [],
            "user_prompt_length": 40, "response_size": 300,
            "chat_conversation_type": "NotToolUse" if not uses else "ToolUse",
            "tool_use_ids_and_names": [[u, "fs_read"] for u in uses], "model_id": model,
            "message_meta_tags": []}  # fmt: skip


def state(conversation_id: str, history: list[object], *, summary: object = None,
          model: str | None = "claude-sonnet-4.5", kiro: bool = True) -> dict[str, object]:  # fmt: skip
    value: dict[str, object] = {
        "conversation_id": conversation_id, "next_message": None, "history": history,
        "valid_history_range": [0, len(history)], "transcript": ["> hello"], "tools": {},
        "context_manager": None, "context_message_length": None, "latest_summary": summary,
    }  # fmt: skip
    if model:
        value["model_info"] = {"model_name": model, "model_id": model, "context_window_tokens": 200000}  # fmt: skip
    value.update(
        {"file_line_tracker": {}, "checkpoint_manager": None, "mcp_enabled": True}
    )
    if kiro:
        value["user_turn_metadata"] = {"continuation_id": "cont-1", "requests": [], "usage_info": []}  # fmt: skip
    return value


def newest() -> dict[str, object]:
    """Tool calls and their results, a failed call, a closing answer."""
    return state(NEWEST, [
        {"user": prompt("Why does checkout time out under load?", "2025-11-30T10:00:00.125+01:00"),
         "assistant": tools("Let me read the checkout code.", "m-1",
                            [("tooluse_a1", "fs_read", {"operations": [{"mode": "Line", "path": "src/checkout.py"}]}),
                             ("tooluse_a2", "execute_bash", {"command": "grep -rn timeout src/", "summary": "find timeouts"})]),
         "request_metadata": metadata("m-1", 1764493200500, 1764493204000, "claude-sonnet-4.5", ["tooluse_a1", "tooluse_a2"])},
        {"user": results([("tooluse_a1", "def checkout(cart):\n    return client.post('/pay', cart, timeout=2)\n", "Success"),
                          ("tooluse_a2", "grep: src/legacy: Permission denied", "Error")], "2025-11-30T09:00:05+00:00"),
         "assistant": answer("The payment call has a 2 second timeout; raise it and retry once.", "m-2"),
         "request_metadata": metadata("m-2", 1764493205000, 1764493210000, "claude-sonnet-4.5")},
    ])  # fmt: skip


def older() -> dict[str, object]:
    """A /compact summary, then a call the user cancelled with a new prompt."""
    summary = ["The user asked to add retries to the payment client; we agreed on two.",
               metadata("m-0", 1764320000000, 1764320003000, "claude-sonnet-4")]  # fmt: skip
    return state(OLDER, [
        {"user": prompt("Now write the test for the retry.", "2025-11-28T09:00:00+00:00"),
         "assistant": tools("", "m-3", [("tooluse_b1", "fs_write", {"command": "create", "path": "tests/test_retry.py", "file_text": "def test_retry(): ..."})]),
         "request_metadata": metadata("m-3", 1764320401000, 1764320405000, "claude-sonnet-4", ["tooluse_b1"])},
        {"user": results([("tooluse_b1", "Tool use was cancelled by the user", "Error")], "2025-11-28T09:01:00+00:00",
                         cancelled="Put it in tests/unit instead."),
         "assistant": answer("Done: tests/unit/test_retry.py.", "m-4"),
         "request_metadata": metadata("m-4", 1764320461000, 1764320466000, "claude-sonnet-4")},
    ], summary=summary, model="claude-sonnet-4")  # fmt: skip


def q_shop() -> dict[str, object]:
    return state(Q_SHOP, [
        {"user": prompt("List the database migrations.", "2025-10-02T14:00:00-07:00"),
         "assistant": answer("There are 12 migrations under db/.", "q-1"),
         "request_metadata": metadata("q-1", 1759438801000, 1759438806000, "claude-sonnet-4")},
    ], model=None, kiro=False)  # fmt: skip


def q_blog() -> dict[str, object]:
    """Before Q kept request metadata (2025-07) and prompt times (2025-08): pairs, no times."""
    value = state(Q_BLOG, [
        [prompt("Why is the blog build slow?", None), answer("Image resizing runs on every build.", "q-2")],
    ], model=None, kiro=False)  # fmt: skip
    value["model"] = "CLAUDE_3_7_SONNET_20250219_V1_0"  # <= 1.13.3 kept the id here
    return value


def migrated() -> dict[str, object]:
    return state(MIGRATED, [
        {"user": prompt("Rename the config loader.", None),
         "assistant": answer("Renamed to load_settings.", "m-9"), "request_metadata": None},
    ], model=None)  # fmt: skip


def text(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def create(path: Path, last: int) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    db = sqlite3.connect(path)
    for version, sql in enumerate(MIGRATIONS[: last + 1]):
        if version == 8:
            continue  # run by the caller, once the old table holds its rows
        db.executescript(sql)
        db.execute("INSERT INTO migrations (version, migration_time) VALUES (?, 1750000000)", (version,))  # fmt: skip
    return db


def kiro(home: Path, *, broken: bool = False) -> None:
    db = create(home / ".local/share/kiro-cli/data.sqlite3", 8)
    db.execute("INSERT INTO conversations VALUES (?, ?)", (BLOG, text(migrated())))
    db.executescript(MIGRATIONS[8].format(now=MIGRATED_AT))
    db.execute(
        "INSERT INTO migrations (version, migration_time) VALUES (8, 1764900000)"
    )
    db.execute("INSERT INTO state VALUES ('changelog.lastVersion', '2.2.1')")
    rows = [(SHOP, OLDER, text(older()), 1764320000000, 1764320466500),
            (SHOP, NEWEST, text(newest()), 1764493200000, 1764493210500)]  # fmt: skip
    if broken:
        rows = [
            (SHOP, "0f0f0f0f-0000-4000-8000-000000000001", '{"conversation_id":"0f0f', 1764493200000, 1764493210500),
            (SHOP, "0f0f0f0f-0000-4000-8000-000000000002", "not json at all", 1764493200000, 1764493210500),
            (SHOP, "0f0f0f0f-0000-4000-8000-000000000003",
             text(state("0f0f0f0f-0000-4000-8000-000000000003", [
                 {"user": {"content": {"Shout": {"prompt": "?"}}}, "assistant": {"Mumble": {}}},
                 "not an entry"])), 1764493200000, 1764493210500),
        ]  # fmt: skip
    db.executemany("INSERT INTO conversations_v2 VALUES (?, ?, ?, ?, ?)", rows)
    db.commit()
    db.close()


def amazon_q(home: Path, *, broken: bool = False) -> None:
    db = create(home / ".local/share/amazon-q/data.sqlite3", 7)
    rows = [(SHOP, text(q_shop())), (BLOG, text(q_blog()))]
    if broken:
        rows = [(SHOP, "{not json"), (BLOG, text({"history": []}))]
    db.executemany("INSERT INTO conversations VALUES (?, ?)", rows)
    db.commit()
    db.close()


if __name__ == "__main__":
    kiro(HERE / "home")
    amazon_q(HERE / "home")
    kiro(HERE / "malformed/home", broken=True)
    amazon_q(HERE / "malformed/home", broken=True)
