"""Rebuild the Zed fixture databases: `python tests/data/zed/make_threads_db.py`.

Writes `home/.local/share/zed/threads/threads.db` and its `malformed/` twin, synthetic,
shaped as Zed's own source writes them (see PROVENANCE.md): the `threads` table of
`crates/agent/src/db.rs` with the columns its migrations add (`parent_id`, `folder_paths`,
`folder_paths_order`, `created_at`), each row's `data` the thread serialized by serde_json
(`DbThread` with `"version": "0.3.0"`, or the legacy `SerializedThread` 0.1.0 / 0.2.0 /
unversioned of `crates/agent/src/legacy_thread.rs`), zstd level 3 (`data_type` "zstd") or
plain JSON ("json").
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import zstandard

HERE = Path(__file__).parent
SCHEMA = (
    "CREATE TABLE threads (id TEXT PRIMARY KEY, summary TEXT NOT NULL, updated_at TEXT NOT NULL, "
    "data_type TEXT NOT NULL, data BLOB NOT NULL)",
    "ALTER TABLE threads ADD COLUMN parent_id TEXT",
    "ALTER TABLE threads ADD COLUMN folder_paths TEXT",
    "ALTER TABLE threads ADD COLUMN folder_paths_order TEXT",
    "ALTER TABLE threads ADD COLUMN created_at TEXT",
)

LEAD = "8c1f4e2a-6b3d-4c5e-9f70-1a2b3c4d5e6f"
CHILD = "5d2e7a90-3c4b-4d6e-8f1a-2b3c4d5e6f70"
LEGACY = "2f9a8b7c-1d2e-4f3a-8b4c-5d6e7f8a9b0c"
OLDEST = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
FIRST = "7e6d5c4b-3a29-4180-9f7e-6d5c4b3a2918"


def pack(value: dict[str, object], kind: str) -> bytes:
    # serde_json writes compact JSON in the struct's field order, as json.dumps does here
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()
    return zstandard.ZstdCompressor(level=3).compress(text) if kind == "zstd" else text


def tool_use(
    call_id: str, name: str, arguments: dict[str, object]
) -> dict[str, object]:
    raw = json.dumps(arguments, separators=(",", ":"))
    return {"ToolUse": {"id": call_id, "name": name, "raw_input": raw, "input": arguments,
                        "is_input_complete": True}}  # fmt: skip


def lead_thread() -> dict[str, object]:
    """0.3.0, the current shape: tool calls, thinking, a sub-agent, per-turn and
    cumulative usage; tool results' `content` a list (newer Zed)."""
    return {
        "title": "Add retry to checkout",
        "messages": [
            {"User": {"id": "u-1", "content": [
                {"Text": "Add a retry to the checkout call in "},
                {"Mention": {"uri": {"File": {"abs_path": "/home/alex/code/shop-api/src/checkout.py"}},
                             "content": "def checkout(cart):\n    return client.post('/pay', cart)\n"}},
                {"Text": " and find who calls it."},
            ]}},
            {"Agent": {"content": [
                {"Thinking": {"text": "I should read the file first, then delegate the search.",
                              "signature": "c2lnLTE="}},
                {"Text": "Reading checkout.py."},
                tool_use("toolu_01", "read_file", {"path": "shop-api/src/checkout.py"}),
            ], "tool_results": {"toolu_01": {
                "tool_use_id": "toolu_01", "tool_name": "read_file", "is_error": False,
                "content": [{"Text": "def checkout(cart):\n    return client.post('/pay', cart)\n"}],
                "output": None}}, "reasoning_details": None}},
            {"Agent": {"content": [
                tool_use("toolu_02", "spawn_agent",
                         {"label": "Find callers of checkout", "message": "List every caller of checkout()."}),
                tool_use("toolu_03", "edit_file",
                         {"display_description": "Retry the payment call", "path": "shop-api/src/checkout.py",
                          "mode": "edit"}),
            ], "tool_results": {
                "toolu_02": {"tool_use_id": "toolu_02", "tool_name": "spawn_agent", "is_error": False,
                             "content": [{"Text": json.dumps({"session_id": CHILD, "output": "Two callers: api/views.py and jobs/nightly.py."})}],
                             "output": {"session_id": CHILD, "output": "Two callers: api/views.py and jobs/nightly.py."}},
                "toolu_03": {"tool_use_id": "toolu_03", "tool_name": "edit_file", "is_error": True,
                             "content": [{"Text": "Could not find the text to replace in shop-api/src/checkout.py"}],
                             "output": None},
            }, "reasoning_details": None}},
            {"Agent": {"content": [
                {"RedactedThinking": "ZW5jcnlwdGVk"},
                {"Text": "Added a retry with backoff; callers are api/views.py and jobs/nightly.py."},
            ], "tool_results": {}, "reasoning_details": None}},
            {"User": {"id": "u-2", "content": [{"Text": "Thanks, run the tests; mind "},
                                               {"Mention": {"uri": {"GitDiff": {"base_ref": "main"}}, "content": "diff --git a/x b/x"}}]}},
            {"Agent": {"content": [
                tool_use("toolu_04", "terminal", {"command": "pytest -q", "cd": "shop-api"}),
            ], "tool_results": {"toolu_04": {
                "tool_use_id": "toolu_04", "tool_name": "terminal", "is_error": False,
                "content": [{"Text": "12 passed in 0.8s"}], "output": None}}, "reasoning_details": None}},
            "Resume",
            {"Agent": {"content": [{"Text": "All 12 tests pass."}], "tool_results": {},
                       "reasoning_details": None}},
        ],
        "updated_at": "2026-12-01T11:05:30.250+00:00",
        "detailed_summary": None,
        "initial_project_snapshot": {
            "worktree_snapshots": [
                {"worktree_path": "/home/alex/code/shop-api",
                 "git_state": {"remote_url": None, "head_sha": "4e1c0d2", "current_branch": "retry",
                               "diff": None}},
                {"worktree_path": "/home/alex/code/lib-retry", "git_state": None},
            ],
            "timestamp": "2026-12-01T11:00:00+00:00",
        },
        "cumulative_token_usage": {"input_tokens": 3200, "output_tokens": 910,
                                   "cache_creation_input_tokens": 1500, "cache_read_input_tokens": 12000},
        "request_token_usage": {
            "u-1": {"input_tokens": 900, "output_tokens": 400, "cache_read_input_tokens": 6000},
            "u-2": {"input_tokens": 300, "output_tokens": 60, "cache_read_input_tokens": 6000},
        },
        "model": {"provider": "anthropic", "model": "claude-sonnet-4-5"},
        "profile": "write",
        "imported": False,
        "subagent_context": None,
        "speed": None,
        "thinking_enabled": True,
        "thinking_effort": None,
        "draft_prompt": None,
        "ui_scroll_position": None,
        "sandboxed_terminal_temp_dir": None,
        "version": "0.3.0",
    }  # fmt: skip


def child_thread() -> dict[str, object]:
    """0.3.0 as an older Zed wrote it: a sub-agent (`subagent_context`), a tool result's
    `content` one value, no cumulative usage (only the turn's last request)."""
    return {
        "title": "Find callers of checkout",
        "messages": [
            {"User": {"id": "u-c1", "content": [{"Text": "List every caller of checkout()."}]}},
            {"Agent": {"content": [
                tool_use("toolu_11", "grep", {"regex": "checkout\\(", "include_pattern": "**/*.py"}),
            ], "tool_results": {"toolu_11": {
                "tool_use_id": "toolu_11", "tool_name": "grep", "is_error": False,
                "content": {"Text": "api/views.py:14\njobs/nightly.py:3"}, "output": None}}}},
            {"Agent": {"content": [{"Text": "Two callers: api/views.py and jobs/nightly.py."}],
                       "tool_results": {}}},
        ],
        "updated_at": "2026-12-01T11:02:10+00:00",
        "request_token_usage": {"u-c1": {"input_tokens": 700, "output_tokens": 90}},
        "model": {"provider": "anthropic", "model": "claude-haiku-4-5"},
        "subagent_context": {"parent_thread_id": LEAD, "depth": 1},
        "version": "0.3.0",
    }  # fmt: skip


def legacy_thread() -> dict[str, object]:
    """The first agent's SerializedThread 0.2.0, as plain JSON: segments, tool uses and
    results on the assistant message, usage per message index."""
    return {
        "version": "0.2.0",
        "summary": "Why is the blog build slow?",
        "updated_at": "2025-06-10T09:15:00Z",
        "messages": [
            {"id": 0, "role": "user", "segments": [{"type": "text", "text": "Why is the blog build slow?"}],
             "tool_uses": [], "tool_results": [], "context": "", "creases": [], "is_hidden": False},
            {"id": 1, "role": "assistant", "segments": [
                {"type": "thinking", "text": "Check the build script for repeated work."},
                {"type": "text", "text": "Let me look at the build script."}],
             "tool_uses": [{"id": "toolu_21", "name": "read_file", "input": {"path": "blog/build.sh"}}],
             "tool_results": [{"tool_use_id": "toolu_21", "is_error": False,
                               "content": "npm ci\nnpm run build\nnpm run build\n", "output": None}],
             "context": "", "creases": [], "is_hidden": False},
            {"id": 2, "role": "assistant", "segments": [
                {"type": "text", "text": "The script builds twice; drop the second `npm run build`."}],
             "tool_uses": [], "tool_results": [], "context": "", "creases": [], "is_hidden": False},
        ],
        "initial_project_snapshot": {
            "worktree_snapshots": [{"worktree_path": "/home/alex/code/blog",
                                    "git_state": {"remote_url": None, "head_sha": None,
                                                  "current_branch": "main", "diff": None}}],
            "unsaved_buffer_paths": [],
            "timestamp": "2025-06-10T09:14:00Z",
        },
        "cumulative_token_usage": {"input_tokens": 2400, "output_tokens": 350},
        "request_token_usage": [{}, {"input_tokens": 1100, "output_tokens": 150},
                                {"input_tokens": 1300, "output_tokens": 200}],
        "detailed_summary_state": "NotGenerated",
        "model": {"provider": "zed.dev", "model": "claude-3-7-sonnet-latest"},
        "completion_mode": "normal",
        "tool_use_limit_reached": False,
        "profile": "write",
    }  # fmt: skip


def oldest_thread() -> dict[str, object]:
    """The unversioned first shape (LegacySerializedThread): `text` per message."""
    return {
        "summary": "Rename the config loader",
        "updated_at": "2025-03-02T16:40:00Z",
        "messages": [
            {"id": 0, "role": "user", "text": "Rename load_cfg to load_config everywhere.",
             "tool_uses": [], "tool_results": []},
            {"id": 1, "role": "assistant", "text": "Renamed in 3 files.", "tool_uses": [],
             "tool_results": []},
        ],
    }  # fmt: skip


def first_thread() -> dict[str, object]:
    """SerializedThread 0.1.0: a tool's results in the user message after the call."""
    return {
        "version": "0.1.0",
        "summary": "List the migrations",
        "updated_at": "2025-04-20T08:00:05Z",
        "messages": [
            {"id": 0, "role": "user", "segments": [{"type": "text", "text": "Which migrations are there?"}]},
            {"id": 1, "role": "assistant", "segments": [{"type": "text", "text": "Listing them."}],
             "tool_uses": [{"id": "toolu_31", "name": "list_directory", "input": {"path": "shop-api/migrations"}}]},
            {"id": 2, "role": "user", "segments": [],
             "tool_results": [{"tool_use_id": "toolu_31", "is_error": False,
                               "content": {"type": "text", "text": "0001_init.sql\n0002_orders.sql"},
                               "output": None}]},
            {"id": 3, "role": "assistant", "segments": [{"type": "text", "text": "Two: 0001_init and 0002_orders."}]},
        ],
        "initial_project_snapshot": {"worktree_snapshots": [{"worktree_path": "/home/alex/code/shop-api",
                                                             "git_state": None}],
                                     "unsaved_buffer_paths": [], "timestamp": "2025-04-20T08:00:00Z"},
        "cumulative_token_usage": {"input_tokens": 800, "output_tokens": 60},
    }  # fmt: skip


def write(
    path: Path, rows: list[tuple[object, ...]], schema: tuple[str, ...] = SCHEMA
) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    db = sqlite3.connect(path)
    db.execute("PRAGMA page_size=1024")
    for statement in schema:
        db.execute(statement)
    db.executemany(
        "INSERT INTO threads (id, parent_id, folder_paths, folder_paths_order, summary, updated_at, "
        "data_type, data, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    db.commit()
    db.execute("VACUUM")
    db.close()


def main() -> None:
    write(
        HERE / "home" / ".local" / "share" / "zed" / "threads" / "threads.db",
        [
            # two folders, sorted, and the order they were opened in ("1,0": shop-api first)
            (LEAD, None, "/home/alex/code/lib-retry\n/home/alex/code/shop-api", "1,0",
             "Add retry to checkout", "2026-12-01T11:05:30.250+00:00", "zstd", pack(lead_thread(), "zstd"),
             "2026-12-01T11:00:00+00:00"),
            (CHILD, LEAD, "/home/alex/code/shop-api", "0", "Find callers of checkout",
             "2026-12-01T11:02:10+00:00", "zstd", pack(child_thread(), "zstd"), "2026-12-01T11:01:00+00:00"),
            # rows of the first agent, from before the folder columns (created_at copied)
            (LEGACY, None, None, None, "Why is the blog build slow?", "2025-06-10T09:15:00+00:00", "json",
             pack(legacy_thread(), "json"), "2025-06-10T09:15:00+00:00"),
            (OLDEST, None, None, None, "Rename the config loader", "2025-03-02T16:40:00+00:00", "zstd",
             pack(oldest_thread(), "zstd"), "2025-03-02T16:40:00+00:00"),
            (FIRST, None, None, None, "List the migrations", "2025-04-20T08:00:05+00:00", "zstd",
             pack(first_thread(), "zstd"), None),
        ],
    )  # fmt: skip
    good = pack(oldest_thread(), "zstd")
    text = json.dumps(lead_thread()).encode()
    odd = {**child_thread(), "version": "0.4.0",
           "messages": [{"User": {"id": "u", "content": [{"Text": "hi"}, {"Video": {"url": "x"}}]}},
                        {"Agent": {"content": [{"Text": "ok"}, {"Diagram": "x"}], "tool_results": []}},
                        {"Compaction": {"summary": "?"}}, 7]}  # fmt: skip
    write(
        HERE / "malformed" / "home" / ".local" / "share" / "zed" / "threads" / "threads.db",
        [
            ("bad-zstd", None, "/home/alex/code/broken", "0", "Bad zstd", "2026-11-01T10:00:00+00:00",
             "zstd", b"\x28\xb5\x2f\xfd" + b"\x00" * 40, None),
            ("cut-json", None, "/home/alex/code/broken", "0", "Cut JSON", "2026-11-01T10:01:00+00:00",
             "zstd", zstandard.ZstdCompressor(level=3).compress(text[: len(text) // 2]), None),
            ("cut-frame", None, None, None, "Cut frame", "2026-11-01T10:02:00+00:00", "zstd",
             good[: len(good) // 2], None),
            ("not-object", None, None, None, "A list", "2026-11-01T10:03:00+00:00", "json", b"[1, 2]", None),
            ("odd-kinds", None, "/home/alex/code/broken", "0", "Odd kinds", "not a time", "zstd",
             pack(odd, "zstd"), None),
            ("lz4-data", None, None, None, "Unknown data type", "2026-11-01T10:05:00+00:00", "lz4",
             b"\x04\x22\x4d\x18", None),
            (42, None, None, None, "A number for an id", "2026-11-01T10:06:00+00:00", "json", b"{}", None),
            ("orphan", "no-such-parent", "/home/alex/code/broken", "0", "Orphaned sub-agent",
             "2026-11-01T10:07:00+00:00", "json",
             json.dumps({**child_thread(), "messages": [], "subagent_context": {"parent_thread_id": "no-such-parent", "depth": 1}}).encode(),
             None),
        ],
    )  # fmt: skip


if __name__ == "__main__":
    main()
