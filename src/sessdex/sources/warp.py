"""Warp terminal's AI / Agent Mode conversations, from its SQLite database `warp.sqlite`.

Where (warpdotdev/warp @19548aec6285e82b1a4cde526e7ec7e04513c248: `crates/warp_core/src/
paths.rs` `secure_state_dir`/`state_dir`/`tui_state_dir`, its `paths_tests.rs`, and the bundle
ids in `app/Cargo.toml`; confirmed, High): macOS `~/Library/Group Containers/2BBY89MBSN.dev.warp/
Library/Application Support/<bundle id>/warp.sqlite`, or `~/Library/Application Support/
<bundle id>/` where the group container cannot be used (bundle ids `dev.warp.Warp-Stable`,
`-Preview`, `-Dev`, `-Local`, `dev.warp.WarpOss`); Linux `$XDG_STATE_HOME/<package>/`
(default `~/.local/state`; `warp-terminal`, `warp-terminal-preview`, `-dev`, `-local`,
`warp-oss`); Windows `%LOCALAPPDATA%\\warp\\<app>\\data\\` (`Warp`, `WarpPreview`, `WarpDev`,
`WarpLocal`, `WarpOss`), seen here below the home. The terminal front end (`warp-tui`) keeps
its own database in a `tui/` folder of the same place. (The data profiles of Warp's debug builds,
`WARP_DATA_PROFILE`, which add `-<profile>` to these names, are not looked for.) The database is in WAL mode while Warp
runs: it is read only through `databases.open_sqlite` (a private snapshot), never in place.

Sources (read, never copied):
- warpdotdev/warp `crates/persistence/src/schema.rs` @4416d70d8d9aed0add0961f3cfbbf70af9aa359b
  (Warp's own Diesel schema; confirmed, High): `ai_queries` (`id`, `exchange_id`,
  `conversation_id`, `start_ts`, `input`, `working_directory`, `output_status`, `model_id`,
  `planning_model_id`, `coding_model_id`), `agent_conversations` (`id`, `conversation_id`,
  `conversation_data`, `last_modified_at`, `summary`), `agent_tasks` (`conversation_id`,
  `task_id`, `task` binary, `last_modified_at`) and `blocks` (`stylized_command`,
  `stylized_output` binary, `pwd`, `exit_code`, `start_ts`, `completed_ts`, `ai_metadata`).
- `agent_tasks.task`, a protobuf `warp.multi_agent.v1.Task` (warpdotdev/warp-proto-apis
  `apis/multi_agent/v1/task.proto` @00f79162; its messages and tools): read by
  `_warp_read` (the messages) and `_warp_tools` (the tools' calls and results).
- The `summary` column's JSON (`initial_query`, `title`: the root task's description, else
  the query; `initial_working_directory`, `is_unlisted_auto_code_diff`): Warp's
  `AgentConversationSummary` in `crates/persistence/src/model.rs` @19548aec (confirmed, High).
- `conversation_data` JSON: Warp's `AgentConversationData` and `ConversationUsageMetadata`
  (warpdotdev/warp `crates/persistence/src/model.rs` @19548aec; confirmed, High):
  `parent_conversation_id`, `agent_name`, and `conversation_usage_metadata` {`credits_spent`,
  `platform_credits_spent`, `token_usage`: [{`model_id`, `warp_tokens` (once `total_tokens`),
  `byok_tokens`, `custom_endpoint_tokens`}], `total_charged_usage`: {`input_tokens`,
  `output_tokens`, `input_cache_read_tokens`, `input_cache_write_tokens`, and their costs in
  cents}}. `token_usage` is one total per model with no input/output split: shown in a
  `meta` event. `total_charged_usage` (the whole conversation, summed by Warp from the
  server's `RequestCharges`; absent where the server sent none) is the one `usage` event.
  Whether its `input_tokens` leaves the cache out is read from Warp summing the four as its
  total (`ChargedUsageTotals::total_tokens`), not from a capture (Medium).
- `input` (`[{"Query": {"text", "context", "referenced_attachments"}}]`: Warp writes a row
  only for an exchange with a query, the user's or a prompt it suggested, never for one that
  only carries tool results), `output_status` (a JSON string: `"Pending"`, `"Completed"`,
  `"Failed"`, `"Cancelled"`) and `ai_metadata` (`conversation_id`,
  `requested_command_action_id`, once `action_id`, `subagent_task_id`): Warp's
  `PersistedAIInput`/`NewAIQuery` (`app/src/persistence/block_list.rs`) and
  `SerializedAIMetadata` (`app/src/terminal/model/block/serialized_block.rs`) @19548aec
  (confirmed, High). Warp upserts an `ai_queries` row per exchange as it streams (by
  `exchange_id`, keeping its rowid) and keeps the newest 10,000; it rewrites a
  conversation's `agent_conversations` row and every task row in one transaction each time
  the conversation changes (`upsert_agent_conversation`, deleting tasks a rewind dropped).

Listing reads `ai_queries`' small columns grouped by conversation, each conversation's first
`input` (bounded), and `agent_conversations`' `summary` and `conversation_data` (bounded; Warp
keeps at most 200 conversations, `MAX_PERSISTED_CONVERSATION_COUNT` in `app/src/persistence/
agent.rs`): no task and no block is read. A conversation Warp marks as only an automatic
code-diff suggestion is not listed. A sub-agent (Warp's orchestration: a conversation whose
`conversation_data.parent_conversation_id` is its lead's own local conversation id, as
`AIConversation::write_updated_conversation_state` writes it; confirmed, High) is listed
under its lead (`parent_id`) with the name the lead gave it (`agent_name`), where the lead
is in the same database; else on its own.

How a conversation is read (its exchanges, task messages, command blocks and
sub-agents, put in order by exchange), and what is not read: `_warp_read.py`.

A lead's `conversation_usage_metadata` (credits and charged usage) leaves out its sub-agent
conversations', each counting on its own: Warp's own footer totals an orchestration by adding
the lead's `credits_spent` and charged usage to each descendant's
(`app/src/ai/blocklist/usage/rollup.rs` `compute_orchestration_rollup` @19548aec), and each
conversation's metadata is replaced whole by what the server streams for it
(`AIConversation`'s `usage_metadata` update in `app/src/ai/agent/conversation.rs`); confirmed,
High. sessdex sums each conversation once, as Warp's rollup does.

Still a guess (no real database seen; every shape above is from Warp's code): that
`total_charged_usage.input_tokens` leaves cache reads out (Medium); that a sub-task's user
queries come from its lead (Medium); the order of a task's messages against an exchange's
`start_ts`, which the client stamps while the server stamps the messages (Medium).

Security: warp.sqlite also keeps MCP servers' environment variables (API keys), the user's
identity and Warp Drive objects. Only the four tables named above are ever queried, by name.

Warp has no command line to reopen a conversation (its `warp://conversation/<token>` link
opens the server's copy in a viewer, not the local conversation): `resume` gives none and
says how to get back to it in Warp.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from .. import databases, folders
from ..diagnostics import Diagnostics, read_failed
from ..model import Event, JSONValue, ResumePlan, Session
from ._values import as_str, db_time, json_object, one_line
from .base import Home, Location

NAME = "warp"
TITLE = "Warp (Agent Mode)"
SCAN_NOTED = True  # locate reads only the environment; scan only probes
CHECKED_WITH = (
    "Warp's own code (warpdotdev/warp @19548aec: schema.rs, persistence model and writers, "
    "paths.rs) and task.proto (warpdotdev/warp-proto-apis @00f79162); synthetic DB, no real "
    "capture (High for shapes, Medium for usage's cache split)"
)
ENV_VARS = ("XDG_STATE_HOME",)

DB_NAME = "warp.sqlite"
# where the database keeps the MCP servers' environment (their API keys), never read:
# blanked in the copy sessdex keeps of the database (databases.open_sqlite)
LOGIN = ("mcp_environment_variables", "mcp_server_installations")
# the data folder of each channel (stable, preview, dev, local, the open-source build):
# warp_core's paths.rs, its tests and app/Cargo.toml's bundle ids (see the docstring)
MACOS_GROUP = ("Library", "Group Containers", "2BBY89MBSN.dev.warp", "Library",
               "Application Support")  # fmt: skip
MACOS_FALLBACK = ("Library", "Application Support")  # no group container
MACOS_CHANNELS = ("dev.warp.Warp-Stable", "dev.warp.Warp-Preview", "dev.warp.Warp-Dev",
                  "dev.warp.Warp-Local", "dev.warp.WarpOss")  # fmt: skip
LINUX_CHANNELS = ("warp-terminal", "warp-terminal-preview", "warp-terminal-dev",
                  "warp-terminal-local", "warp-oss")  # fmt: skip
WINDOWS_CHANNELS = ("Warp", "WarpPreview", "WarpDev", "WarpLocal", "WarpOss")
WINDOWS_DATA = ("AppData", "Local", "warp")  # %LOCALAPPDATA%\warp\<app name>\data
TUI = "tui"  # the terminal front end's own database, in a folder of the same place
# the only tables ever queried (tests/sources/test_warp.py checks it)
TABLES = ("ai_queries", "agent_conversations", "agent_tasks", "blocks")


def locate(home: Home) -> Location:
    xdg = home.env_dir("XDG_STATE_HOME")
    root = home.xdg("state") / LINUX_CHANNELS[0]
    also = [home.xdg("state") / name for name in LINUX_CHANNELS[1:]]
    for base in (MACOS_GROUP, MACOS_FALLBACK):
        also += [home.path.joinpath(*base, name) for name in MACOS_CHANNELS]
    also += [
        home.path.joinpath(*WINDOWS_DATA, name, "data") for name in WINDOWS_CHANNELS
    ]
    return Location(
        root, override=f"XDG_STATE_HOME={xdg}" if xdg else None, also=tuple(also)
    )


def scan(location: Location) -> Iterator[Path]:
    if not location.exists:
        return
    for folder in (location.root, *location.also):
        if not folders.is_dir(folder):
            continue
        for database in (folder / DB_NAME, folder / TUI / DB_NAME):
            if folders.is_file(database):
                yield database


# --- listing ------------------------------------------------------------------------


def parse(path: Path, location: Location, diagnostics: Diagnostics) -> list[Session]:
    connection = databases.open_or_say(path, NAME, diagnostics, login=LOGIN)
    if connection is None:
        return []
    try:
        return _sessions(connection, path, diagnostics)
    except sqlite3.Error as error:
        diagnostics.problem(read_failed(NAME, path, error))
        return []
    finally:
        connection.close()


@dataclass(slots=True)
class _Listed:
    created: object = None
    updated: object = None
    first_id: object = None
    cwd: object = None
    model: object = None
    exchanges: int = 0
    modified: object = None
    summary: dict[str, object] = field(default_factory=dict)
    parent: str | None = None
    agent_name: str | None = None


def _sessions(
    connection: sqlite3.Connection, path: Path, diagnostics: Diagnostics
) -> list[Session]:
    queries = databases.table_columns(connection, "ai_queries")
    conversations = databases.table_columns(connection, "agent_conversations")
    if "conversation_id" not in queries | conversations:
        diagnostics.problem(
            f"{NAME}: {path} has no ai_queries or agent_conversations table we know"
        )
        return []
    for table, columns, lost in (
        ("ai_queries", queries, "conversations with no summary row are missing"),
        ("agent_conversations", conversations, "conversations with no query row are missing"),
    ):  # fmt: skip
        if "conversation_id" not in columns:  # a table Warp has: damage, said
            diagnostics.problem(f"{NAME}: {path} has no {table} table we know; {lost}")
    listed: dict[str, _Listed] = {}
    if "conversation_id" in queries:
        start = "start_ts" if "start_ts" in queries else "NULL"
        folder = "f.working_directory" if "working_directory" in queries else "NULL"
        model = "l.model_id" if "model_id" in queries else "NULL"
        # one pass over the conversation index, then the first and last rows by rowid
        # (`id` is Warp's INTEGER PRIMARY KEY: the rowid)
        for row in connection.execute(
            f"SELECT g.conversation_id, g.first, g.n, g.created, g.updated, {folder}, "
            f"{model} FROM (SELECT conversation_id, min(rowid) AS first, max(rowid) "
            f"AS last, count(*) AS n, min({start}) AS created, max({start}) AS updated "
            "FROM ai_queries GROUP BY conversation_id) g "
            "JOIN ai_queries f ON f.rowid = g.first JOIN ai_queries l ON l.rowid = g.last"
        ):
            if not as_str(row[0]):  # a row no conversation can be read by
                diagnostics.skip(f"{path}#ai_queries", 0, "bad value")
                continue
            entry = listed.setdefault(row[0], _Listed())
            entry.first_id, entry.exchanges, entry.created, entry.updated = row[1:5]
            entry.cwd, entry.model = row[5], row[6]
    if "conversation_id" in conversations:
        modified = "last_modified_at" if "last_modified_at" in conversations else "NULL"
        summary = "summary IS NOT NULL" if "summary" in conversations else "0"
        data = "conversation_data" in conversations
        seen: set[str] = set()
        for conversation_id, stamp, rowid, has_summary in connection.execute(
            f"SELECT conversation_id, {modified}, rowid, {summary} FROM agent_conversations"
        ):
            if not as_str(conversation_id):
                diagnostics.skip(f"{path}#agent_conversations", 0, "bad value")
                continue
            if conversation_id in seen:  # Warp keeps one row a conversation: damage
                diagnostics.skip(f"{path}#agent_conversations", 0, "repeated id")
                continue
            seen.add(conversation_id)
            entry = listed.setdefault(conversation_id, _Listed())
            entry.modified = stamp
            if has_summary:
                entry.summary = json_object(
                    databases.bounded_value(
                        connection, "agent_conversations", "summary", rowid
                    )
                )
            if data:  # a sub-agent's lead and name (Warp keeps 200 conversations)
                tied = json_object(
                    databases.bounded_value(
                        connection, "agent_conversations", "conversation_data", rowid
                    )
                )
                entry.parent = as_str(tied.get("parent_conversation_id")) or None
                entry.agent_name = as_str(tied.get("agent_name")) or None
    sessions = []
    for conversation_id, entry in listed.items():
        if entry.summary.get("is_unlisted_auto_code_diff") is True:
            continue
        title = as_str(entry.summary.get("title")) or as_str(
            entry.summary.get("initial_query")
        )
        if not title and isinstance(entry.first_id, int):
            from ._warp_read import query_text

            title = query_text(
                databases.bounded_value(
                    connection, "ai_queries", "input", entry.first_id
                )
            )
        cwd = as_str(entry.cwd) or as_str(
            entry.summary.get("initial_working_directory")
        )
        created = db_time(entry.created)
        updated = _later(
            _later(db_time(entry.updated), db_time(entry.modified)), created
        )
        extra: dict[str, JSONValue] = {"store": "sqlite"}
        if entry.exchanges:
            extra["exchanges"] = entry.exchanges
        # a sub-agent goes under its lead where the lead is in the same database, and no
        # loop of leads comes back to it (each in a loop is a lead, as Warp's eviction has it)
        parent = entry.parent if entry.parent in listed else None
        if parent and _in_a_loop(conversation_id, listed):
            parent = None
        if parent and entry.agent_name:
            extra["agent_name"] = entry.agent_name
        sessions.append(
            Session(
                app=NAME,
                id=conversation_id,
                path=f"{path}#conversations/{conversation_id}",
                cwd=cwd,
                title=one_line(title, limit=None),
                created=created or updated,
                updated=updated or created,
                model=as_str(entry.model) or None,
                parent_id=parent,
                extra=extra,
            )
        )
    return sessions


def _in_a_loop(conversation_id: str, listed: dict[str, _Listed]) -> bool:
    """Whether the conversation's chain of leads comes back round to it."""
    seen: set[str] = set()
    lead = listed[conversation_id].parent
    while lead is not None and lead in listed and lead not in seen:
        if lead == conversation_id:
            return True
        seen.add(lead)
        lead = listed[lead].parent
    return False


def _later(first: datetime | None, second: datetime | None) -> datetime | None:
    return max(first, second) if first and second else first or second


# --- reading ------------------------------------------------------------------------


def read(
    session: Session, diagnostics: Diagnostics, *, full: bool = False, offset: int = 0
) -> Iterator[Event]:
    if not session.path or "#conversations/" not in session.path:
        return
    database, _, conversation_id = session.path.rpartition("#conversations/")
    connection = databases.open_or_say(database, NAME, diagnostics, login=LOGIN)
    if connection is None:
        return
    # here: every full list loads this source, and reads no conversation
    from ._warp_read import Reader

    try:
        reader = Reader(connection, database, conversation_id, diagnostics, full)
        yield from reader.events(session.id)
    except sqlite3.Error as error:
        diagnostics.problem(read_failed(NAME, database, error))
    finally:
        connection.close()


# --- resume -------------------------------------------------------------------------


def resume(session: Session, *, keep_permissions: bool = False) -> ResumePlan | None:
    """None: Warp reopens a conversation only from its own window (`resume_refusal`)."""
    return None


def resume_refusal(session: Session) -> str | None:
    """How to get back to a conversation in Warp, which has no command for it."""
    title = one_line(session.title) if session.title else None
    which = f'"{title}"' if title else "it"
    where = (
        f"open a Warp tab in {one_line(session.cwd)}, then"
        if session.cwd
        else "in Warp,"
    )
    return (
        "Warp has no command to reopen an Agent Mode conversation from the command "
        f"line; {where} pick {which} in Warp's conversation list (the agent "
        "conversations panel, or the command palette's conversation search)."
    )
