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


# --- the Kiro CLI 2.x agent's session files (crates/chat-cli-v2/src/agent/session) ------

NATIVE = "4c8e2a6f-7b1d-4e3a-9f5c-2d8b6a4e1c7f"  # blog, a session the 2.x agent began
CLI_SESSIONS = ".kiro/sessions/cli"


def block(kind: str, data: object) -> dict[str, object]:
    return {"kind": kind, "data": data}


def entry(kind: str, data: object = None) -> dict[str, object]:
    value: dict[str, object] = {"version": "v1", "kind": kind}
    if data is not None:
        value["data"] = data
    return value


def said(message: str, text_: str, at: int | None = None, context: str = "") -> dict[str, object]:  # fmt: skip
    data: dict[str, object] = {"message_id": message, "content": [block("text", text_)]}
    if at is not None or context:
        meta: dict[str, object] = {"timestamp": at}
        if context:
            meta["additionalContext"] = context
        data["meta"] = meta
    return entry("Prompt", data)


def use(call: str, name: str, args: dict[str, object]) -> dict[str, object]:
    return block("toolUse", {"toolUseId": call, "name": name, "input": args})


def result(call: str, content: list[dict[str, object]], status: str) -> dict[str, object]:  # fmt: skip
    return block(
        "toolResult", {"toolUseId": call, "content": content, "status": status}
    )


def session_state(conversation_id: str, model: str | None, agent: str | None,
                  turns: list[tuple[str, int, int, list[str]]]) -> dict[str, object]:  # fmt: skip
    return {
        "version": "v1",
        "conversation_metadata": {
            "user_turn_metadatas": [
                {"loop_id": {"agent_id": {"name": agent or "kiro_default", "parent_id": None, "rand": "q7x2m"}, "rand": 9182},
                 "result": None, "message_ids": ids, "total_request_count": 1, "number_of_cycles": 1,
                 "builtin_tool_uses": 1, "turn_duration": None, "end_reason": "UserTurnEnd",
                 "end_timestamp": end, "input_token_count": tokens_in, "output_token_count": tokens_out,
                 "context_usage_percentage": 4.5, "metering_usage": []}
                for end, tokens_in, tokens_out, ids in turns
            ],
            "user_turn_start_request": None, "last_request": None,
        },
        "rts_model_state": {
            "conversation_id": conversation_id,
            "model_info": {"model_name": model, "model_id": model, "context_window_tokens": 200000} if model else None,
            "context_usage_percentage": None,
        },
        "permissions": {"filesystem": {"allowed_read_paths": [], "allowed_write_paths": [],
                                       "denied_read_paths": [], "denied_write_paths": []},
                        "trusted_tools": [], "denied_tools": []},
        "agent_name": agent,
    }  # fmt: skip


def exported() -> tuple[dict[str, object], list[dict[str, object]]]:
    """OLDER as `v1_export` writes it when the 2.x agent reopens it (same id, the
    `/compact` summary in the first prompt's context), then two more turns there."""
    summary = older()["latest_summary"][0]  # type: ignore[index]
    meta = {
        "session_id": OLDER, "cwd": SHOP,
        "created_at": "2025-12-06T08:00:00.250000Z", "updated_at": "2025-12-06T08:01:10.500000Z",
        "title": "Now write the test for the retry.", "exported_from_v1": True,
        "session_state": session_state(OLDER, "claude-sonnet-4.5", None,
                                       [("2025-12-06T08:01:10.400000Z", 5120, 96, ["p-5", "m-5", "p-6", "m-6"])]),
    }  # fmt: skip
    log = [
        said("e-1", "Now write the test for the retry.", 1764320400,
             f"--- CONTEXT ENTRY BEGIN ---\nSUMMARY CONTENT:\n{summary}\n--- CONTEXT ENTRY END ---"),
        entry("AssistantMessage", {"message_id": "m-3", "content": [
            use("tooluse_b1", "fs_write", {"command": "create", "path": "tests/test_retry.py", "file_text": "def test_retry(): ..."})]}),
        entry("ToolResults", {"message_id": "e-2", "content": [
            result("tooluse_b1", [block("text", "Tool use was cancelled by the user")], "error"),
            block("text", "Put it in tests/unit instead.")], "results": {}}),
        entry("AssistantMessage", {"message_id": "m-4", "content": [block("text", "Done: tests/unit/test_retry.py.")]}),
        # the chat goes on in the files
        said("p-5", "Run the tests.", 1765008000),
        entry("AssistantMessage", {"message_id": "m-5", "content": [
            block("thinking", {"text": "Run pytest on the unit folder.", "signature": None}),
            use("tooluse_c1", "execute_bash", {"command": "pytest -q tests/unit"})]}),
        entry("ToolResults", {"message_id": "p-6", "content": [
            result("tooluse_c1", [block("json", {"exit_status": "0", "stdout": "14 passed", "stderr": ""})], "success")],
            "results": {}}),
        entry("AssistantMessage", {"message_id": "m-6", "content": [block("text", "All 14 tests pass.")]}),
    ]  # fmt: skip
    return meta, log


def native() -> tuple[dict[str, object], list[dict[str, object]]]:
    """A session begun in 2.x: an image, a compaction, a cancelled prompt, a rewind."""
    meta = {
        "session_id": NATIVE, "cwd": BLOG,
        "created_at": "2025-12-07T15:30:00.125000Z", "updated_at": "2025-12-07T15:42:05Z",
        "title": "Add an RSS feed to the blog",
        "session_state": session_state(NATIVE, "claude-opus-4.5", "blog-writer",
                                       [("2025-12-07T15:30:09Z", 4100, 210, ["n-1", "a-1", "n-2", "a-2"]),
                                        ("2025-12-07T15:42:04Z", 2300, 40, ["n-4", "a-3"])]),
    }  # fmt: skip
    log = [
        {**said("n-1", "Add an RSS feed to the blog", 1765121400),
         "data": {"message_id": "n-1", "content": [block("text", "Add an RSS feed to the blog"),
                  block("image", {"format": "png", "source": {"kind": "bytes", "data": [137, 80, 78, 71]}})],
                  "meta": {"timestamp": 1765121400}}},
        entry("AssistantMessage", {"message_id": "a-1", "content": [
            block("text", "I'll look at the site config first."),
            use("tooluse_d1", "fs_read", {"operations": [{"mode": "Line", "path": "config.toml"}]})]}),
        entry("ToolResults", {"message_id": "n-2", "content": [
            result("tooluse_d1", [block("text", "title = \"Alex's blog\"\n")], "success")], "results": {}}),
        entry("AssistantMessage", {"message_id": "a-2", "content": [block("text", "Added feed.xml and a <link> in the head.")]}),
        entry("Compaction", {"summary": "We added an RSS feed (feed.xml) to the blog.", "strategy": {"messages_to_exclude": 0},
                             "messages_snapshot": [{"id": "n-1", "role": "user", "content": [block("text", "Add an RSS feed to the blog")]}]}),
        said("n-3", "Also an Atom feed?", 1765122000),
        entry("CancelledPrompt"),
        entry("ResetTo", {"target_index": 4}),
        said("n-4", "Thanks, that's all.", 1765122120),
        entry("AssistantMessage", {"message_id": "a-3", "content": [block("text", "You're welcome.")]}),
        entry("Clear"),
    ]  # fmt: skip
    return meta, log


LEAD = "7d1e3a5c-2b4f-4c6e-8a0b-1c3e5a7b9d0f"  # a session that spawns two
CHILD = "e5a7c9e1-3b5d-4f7a-9c1e-3a5c7e9b1d3f"  # a spawned session, its files beside
GONE = "0b2d4f6a-8c0e-4a2c-9e4a-6c8e0a2c4e6a"  # a spawned session whose files are gone
TASK = "Review checkout.py for missing timeouts and report each one."


def spawn(call: str, child: str, name: str, task: str) -> list[dict[str, object]]:
    """A `session_management` `spawn_session` call and its result, as the lead's log
    keeps them (`session_tool_handler.rs`: the JSON, key order kept, as the result's text)."""
    reply = {"session_id": child, "name": name, "status": "spawned",
             "next_step": "Tell the user what you started. Results arrive in your inbox automatically."}  # fmt: skip
    return [
        entry("AssistantMessage", {"message_id": f"m-{call}", "content": [
            use(call, "session_management", {"command": "spawn_session", "agent_name": "reviewer",
                                             "task": task, "name": name, "role": "Checks for missing timeouts"})]}),
        entry("ToolResults", {"message_id": f"r-{call}", "content": [
            result(call, [block("text", json.dumps(reply, separators=(",", ":")))], "success")],
            "results": {}}),
    ]  # fmt: skip


def team() -> dict[str, tuple[dict[str, object], list[dict[str, object]]]]:
    """A lead in the shop that spawns a reviewer (its own file pair beside the lead's, no
    parent field, its first prompt the task) and a second one whose files are gone."""
    lead_meta = {
        "session_id": LEAD, "cwd": SHOP,
        "created_at": "2025-12-08T10:00:00Z", "updated_at": "2025-12-08T10:03:00Z",
        "title": "Review the shop for missing timeouts",
        "session_state": session_state(LEAD, "claude-sonnet-4.5", None,
                                       [("2025-12-08T10:03:00Z", 3000, 120, ["l-1", "m-ts1", "r-ts1", "m-ts2", "r-ts2", "l-2"])]),
    }  # fmt: skip
    lead_log = [
        said("l-1", "Review the shop for missing timeouts", 1765188000),
        *spawn("ts1", CHILD, "timeouts", TASK),
        *spawn("ts2", GONE, "retries", "Look for retries without backoff."),
        entry("AssistantMessage", {"message_id": "l-2", "content": [block("text", "Two reviewers are on it.")]}),
    ]  # fmt: skip
    child_meta = {
        "session_id": CHILD, "cwd": SHOP,
        "created_at": "2025-12-08T10:00:05Z", "updated_at": "2025-12-08T10:01:00Z",
        "session_state": session_state(CHILD, "claude-sonnet-4.5", "reviewer",
                                       [("2025-12-08T10:01:00Z", 1800, 60, ["c-1", "c-2"])]),
    }  # fmt: skip
    child_log = [
        said("c-1", TASK, 1765188005),
        entry("AssistantMessage", {"message_id": "c-2", "content": [block("text", "checkout() posts with a 2 s timeout; refund() has none.")]}),
    ]  # fmt: skip
    return {LEAD: (lead_meta, lead_log), CHILD: (child_meta, child_log)}


def write_team(home: Path) -> None:
    for session_id, (meta, log) in team().items():
        write_session(home, session_id, meta, [text(line) for line in log])


def write_session(home: Path, session_id: str, meta: object, log: list[str]) -> None:
    folder = home / CLI_SESSIONS
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{session_id}.json").write_text(json.dumps(meta, indent=2, ensure_ascii=False) + "\n")  # fmt: skip
    (folder / f"{session_id}.jsonl").write_text("".join(line + "\n" for line in log))


def sessions(home: Path, *, broken: bool = False) -> None:
    """The 2.x session files; `compat-metering.*` are copied, not built (see PROVENANCE)."""
    if broken:
        good = [text(line) for line in native()[1][:4]]
        log = [
            good[0],
            "{not json",
            text({"version": "v9", "kind": "Prompt", "data": {}}),
            text(entry("Hologram", {"message_id": "x"})),
            text(
                entry(
                    "AssistantMessage",
                    {"message_id": "x-1", "content": [block("hologram", {})]},
                )
            ),
            good[1],
        ]
        write_session(home, "0f0f0f0f-0000-4000-8000-00000000000a", native()[0] | {"session_id": "0f0f0f0f-0000-4000-8000-00000000000a"}, log)  # fmt: skip
        path = home / CLI_SESSIONS / "0f0f0f0f-0000-4000-8000-00000000000a.jsonl"
        path.write_text(path.read_text() + good[2][:40])  # a torn last line
        # metadata that is not JSON: listed from the log alone
        write_session(home, "0f0f0f0f-0000-4000-8000-00000000000b", {}, good[:2])
        (home / CLI_SESSIONS / "0f0f0f0f-0000-4000-8000-00000000000b.json").write_text('{"session_id": "0f0f')  # fmt: skip
        return
    for session_id, (meta, log) in ((OLDER, exported()), (NATIVE, native())):
        write_session(home, session_id, meta, [text(line) for line in log])
    # the CLI has NATIVE open: its lock, which sessdex never reads nor touches
    (home / CLI_SESSIONS / f"{NATIVE}.lock").write_text('{"pid":4242,"started_at":"2025-12-07T15:29:59.900000Z"}')  # fmt: skip


if __name__ == "__main__":
    kiro(HERE / "home")
    amazon_q(HERE / "home")
    kiro(HERE / "malformed/home", broken=True)
    amazon_q(HERE / "malformed/home", broken=True)
    sessions(HERE / "home")
    sessions(HERE / "malformed/home", broken=True)
