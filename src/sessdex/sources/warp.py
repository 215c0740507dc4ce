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
- warpdotdev/warp-proto-apis `apis/multi_agent/v1/task.proto` @00f791620e0c4016e33f298176f7cf785b1026ad
  (High for the field numbers read here): `agent_tasks.task` is a `warp.multi_agent.v1.Task`
  (id 1, description 2, messages 5); a `Message` has its timestamp at 14 and one of
  user_query 2 (query 1), agent_output 3 (text 1), tool_call 4 (tool_call_id 1, the tool's
  oneof from 2: run_shell_command 2 with command 1), tool_call_result 5, agent_reasoning 15
  (reasoning 1), summarization 16, model_used 25 (model_id 1). The tools' arguments and
  `ToolCallResult` (id 1, each tool's result at its own number from 2, `cancel` 14; a shell
  command's `RunShellCommandResult`: command 3, command_finished 5 {output 1, exit_code 2},
  permission_denied 6) are read by `_warp_tools` from the same file (confirmed, High); a
  command's output is taken from its `blocks` row first (the terminal's, as the user saw it).
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

Warp keeps a terminal pane's newest 100 blocks, and drops them with the pane
(`MAX_TERMINAL_BLOCKS_TO_PERSIST_PER_SESSION`, `delete_blocks` in block_list.rs): an older
conversation's commands come from its task's results only. A block a sub-task ran names it
(`subagent_task_id`): its events are that sub-agent's.

A lead's `start_agent` call (29: name 1, prompt 2) gives a `subagent` event whose `child_id`
is the conversation it started: the one whose `parent_conversation_id` is this one and whose
`agent_name` is that name (the match by name is a guess, Medium); its result says the agent
was `launched` (it runs on in its own conversation, listed under this one). A block of the conversation that no
agent action asked for (no `requested_command_action_id`) is the user's own command, shown
as a `user_command` call.

Reading a conversation reads each task through SQLite's blob IO, message by message (a
task holds its whole conversation, tool results with the files they read included): a
message over `TASK_CAP` is counted, not decoded, and past `TASKS_BUDGET` bytes of messages
the rest are counted ("too long"), as the events are held to be put in order. It finds
its command blocks by `instr(ai_metadata, id)` over `blocks`
(no index there): about 0.1 s for 50,000 blocks of 20 KB output (a 1.1 GB database, warm
cache). Its events are put in order by exchange: each `ai_queries` row opens a window that
runs to the next one's start, and the task messages and blocks that fall in it follow its
query, sorted by time; the row's `output_status` closes it. A message with no timestamp
stays in the window of what its task put before it (a query with none opens the exchange
whose query it is).

A conversation's sub-tasks are its in-conversation sub-agents: a `subagent` tool call (19:
`task_id` 1, its kind in the metadata oneof from 3) names a task whose `dependencies`
(3: `parent_task_id` 1) point back, and Warp interleaves that task's messages at the call
(`app/src/ai/agent/linearization.rs` @19548aec; confirmed, High). The call gives a
`subagent` event (`child_id` the task's id), and the sub-task's events carry it as their
`agent_id`; its user queries are the lead's (`from_agent`).

Also read from a task: web searches and fetches (19, 20: a call and its pages), a skill
invoked with the user's query (23: the query), messages other agents sent (24: a user event
`from_agent` its sender's id). An `output_status` of `"Pending"` (Warp's
`AIQueryHistoryOutputStatus`: still streaming, or Warp quit first) closes nothing.

Not read: the todo lists, review comments, system queries and other bookkeeping messages of a
task (`_QUIET`), a tool result's summary (16's `tool_call_result_summary`), and what a
tool's result holds past its text (`_warp_tools`: the contents of files read, images).

Still a guess (no real database seen; every shape above is from Warp's code): that
`total_charged_usage.input_tokens` leaves cache reads out (Medium); that a sub-task's user
queries come from its lead (Medium); that a lead's charged usage leaves out its sub-agent
conversations', each counting on its own (Medium); the order of a task's messages against an exchange's
`start_ts`, which the client stamps while the server stamps the messages (Medium).

Security: warp.sqlite also keeps MCP servers' environment variables (API keys), the user's
identity and Warp Drive objects. Only the four tables named above are ever queried, by name.

Warp has no command line to reopen a conversation (its `warp://conversation/<token>` link
opens the server's copy in a viewer, not the local conversation): `resume` gives none and
says how to get back to it in Warp.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import orjson

from .. import databases, files, folders
from ..diagnostics import Diagnostics, read_failed
from ..model import Event, EventKind, JSONValue, ResumePlan, Session, Usage
from . import _protobuf as pb
from . import _warp_tools as tools
from ._values import (
    Emitter,
    EventFields,
    as_dict,
    as_int,
    as_list,
    as_str,
    db_time,
    one_line,
    plain,
)
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
# a task is read message by message (it holds the whole conversation): one message bigger
# than this (a tool result of a huge file) is counted, not decoded
TASK_CAP = 64 * 1024 * 1024
# a conversation's tasks are held while its events are put in order: past this many bytes
# of them, the rest are counted ("too long"), not read
TASKS_BUDGET = 256 * 1024 * 1024
OUTPUT_CAP = 1024 * 1024  # a command's output is shown up to this, then cut
_HEAD = 4096  # a task's id or dependencies longer than this is not read
# Subagent's metadata oneof (task.proto): the kind of sub-agent each field number names
_SUBAGENTS = {3: "cli", 4: "research", 5: "advice", 6: "computer_use", 7: "summarization",
              8: "conversation_search", 9: "warp_documentation_search"}  # fmt: skip
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MODELS = 64  # models a conversation's usage names, at most
# ModelTokenUsage's counts (`total_tokens`: what older Warp wrote for `warp_tokens`)
_TOKEN_KEYS = (
    ("warp_tokens", ("warp_tokens", "total_tokens")),
    ("byok_tokens", ("byok_tokens",)),
    ("custom_endpoint_tokens", ("custom_endpoint_tokens",)),
)
# ChargedUsageTotals' costs, in US cents (its `total_cost_in_cents`)
_COST_KEYS = ("input_cost_in_cents", "output_cost_in_cents", "input_cache_read_cost_in_cents",
              "input_cache_write_cost_in_cents", "platform_cost_in_cents",
              "web_search_cost_in_cents")  # fmt: skip
# the terminal's sequences in a block's bytes (ECMA-48): CSI (ESC [ or C1 0x9b), OSC and
# the other strings (DCS, SOS, PM, APC: to BEL or ST), and the two- and three-byte escapes
# (a charset switch `ESC ( B`, keypad modes `ESC =`, `ESC >`)
_ANSI = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"
    r"|(?:\x1b[\]PX^_]|[\x90\x9d\x98\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[ -/]*[0-~]"
)
# Message's oneof fields read as nothing to show (bookkeeping, server events, todos, …)
_QUIET = {6, 9, 10, 17, 18, 21, 22, 26}


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
    try:
        connection = databases.open_sqlite(path)
    except (OSError, sqlite3.Error) as error:
        diagnostics.problem(read_failed(NAME, path, error, "cannot open"))
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
            if not _id(row[0]):  # a row no conversation can be read by
                diagnostics.skip(f"{path}#ai_queries", 0, "bad value")
                continue
            entry = listed.setdefault(row[0], _Listed())
            entry.first_id, entry.exchanges, entry.created, entry.updated = row[1:5]
            entry.cwd, entry.model = row[5], row[6]
    if "conversation_id" in conversations:
        modified = "last_modified_at" if "last_modified_at" in conversations else "NULL"
        summary = "summary IS NOT NULL" if "summary" in conversations else "0"
        data = "conversation_data" in conversations
        for conversation_id, stamp, rowid, has_summary in connection.execute(
            f"SELECT conversation_id, {modified}, rowid, {summary} FROM agent_conversations"
        ):
            if not _id(conversation_id):
                diagnostics.skip(f"{path}#agent_conversations", 0, "bad value")
                continue
            entry = listed.setdefault(conversation_id, _Listed())
            entry.modified = stamp
            if has_summary:
                entry.summary = _json_object(
                    databases.bounded_value(
                        connection, "agent_conversations", "summary", rowid
                    )
                )
            if data:  # a sub-agent's lead and name (Warp keeps 200 conversations)
                tied = _json_object(
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
            title = _query_text(
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


def _id(value: object) -> bool:
    return isinstance(value, str) and bool(value)


def _later(first: datetime | None, second: datetime | None) -> datetime | None:
    return max(first, second) if first and second else first or second


def _json(value: object) -> object:
    if not isinstance(value, str | bytes) or not value:
        return None
    try:
        return orjson.loads(value)
    except orjson.JSONDecodeError:
        return None


def _json_object(value: object) -> dict[str, object]:
    return as_dict(_json(value))


def _query_text(value: object) -> str | None:
    """The user's text in an `ai_queries.input` list (`[{"Query": {"text": …}}]`)."""
    parsed = _json(value)
    texts = [
        text
        for item in (parsed if isinstance(parsed, list) else [])
        if (text := as_str(as_dict(as_dict(item).get("Query")).get("text")))
    ]
    return "\n".join(texts) or None


# --- reading ------------------------------------------------------------------------


@dataclass(slots=True)
class _Item:
    """One thing that happened in a conversation, before it is an event."""

    time: datetime | None
    kind: EventKind
    fields: EventFields
    order: int = 0
    # a command block of the terminal (its command in `tool`): the tool it shows as, the
    # agent's `run_shell_command` or, where no agent action asked for it, `user_command`
    block: str | None = None


def read(
    session: Session, diagnostics: Diagnostics, *, full: bool = False, offset: int = 0
) -> Iterator[Event]:
    if not session.path or "#conversations/" not in session.path:
        return
    database, _, conversation_id = session.path.rpartition("#conversations/")
    try:
        connection = databases.open_sqlite(database)
    except (OSError, sqlite3.Error) as error:
        diagnostics.problem(read_failed(NAME, database, error, "cannot open"))
        return
    try:
        reader = _Reader(connection, database, conversation_id, diagnostics, full)
        emit = Emitter(session.id)
        for item in reader.items():
            yield emit(item.kind, item.time, **item.fields)
    except sqlite3.Error as error:
        diagnostics.problem(read_failed(NAME, database, error))
    finally:
        connection.close()


class _Reader:
    def __init__(
        self,
        connection: sqlite3.Connection,
        database: str,
        conversation_id: str,
        diagnostics: Diagnostics,
        full: bool,
    ) -> None:
        self.connection = connection
        self.database = database
        self.id = conversation_id
        self.diagnostics = diagnostics
        self.full = full
        self.held = 0  # bytes of task messages read
        self.described: dict[str, str] = {}  # a sub-task's description, by its id
        self.started: dict[str, str] | None = None  # agents this one started, by name

    def items(self) -> Iterator[_Item]:
        exchanges = self.exchanges()
        found = [*self.task_messages(), *self.blocks()]
        for order, item in enumerate(found):
            item.order = order
            child = as_dict(item.fields.get("extra")).get("child_id")
            if item.kind == "subagent" and str(child) in self.described:
                item.fields["text"] = self.described[str(child)]  # its sub-task's
        # each exchange's window runs from its start to the next one's
        starts = [start for start, *_ in exchanges]
        windows: list[list[_Item]] = [[] for _ in range(max(len(exchanges), 1))]
        texts = [text for _, text, *_ in exchanges]
        current = 0  # for what has no time: the window of what came before it
        for item in found:
            said = item.fields.get("text")
            if item.time is not None:
                current = _window(starts, item.time)
            elif item.kind == "user" and not item.fields.get("agent_id"):
                # a query with no time opens the exchange that holds it, if one does
                current = next(
                    (n for n in range(current, len(texts)) if texts[n] == said), current
                )
            windows[current].append(item)
        called: dict[str, str | None] = {}  # call id: its tool
        answered: set[str] = set()
        for index, window in enumerate(windows):
            window.sort(
                key=lambda item: (item.time is None, item.time or 0, item.order)
            )
            start, text, status, model = (
                exchanges[index] if exchanges else (None, None, None, None)
            )
            if text:  # the exchange's own text: the task's copy of it is left out
                yield _Item(start, "user", {"text": text})
            # (a skill's query, another agent's message in the same window are kept)
            for item in window:
                said = item.fields.get("text")
                if (
                    item.kind == "user"
                    and text
                    and not item.fields.get("agent_id")
                    and isinstance(said, str)
                    and said.strip() == text.strip()
                ):
                    # the task's copy of the exchange's query: left out, once
                    text = None
                    continue
                call_id = item.fields.get("call_id")
                if item.kind == "tool_call" and call_id:
                    if call_id in called:
                        continue
                    called[call_id] = item.fields.get("tool")
                if item.kind == "tool_result" and call_id:
                    if call_id in answered:
                        continue
                    answered.add(call_id)
                    if item.block and call_id not in called:  # no call names this block
                        called[call_id] = item.block
                        yield _Item(
                            item.time,
                            "tool_call",
                            {
                                "tool": item.block,
                                "agent_id": item.fields.get("agent_id"),
                                "call_id": call_id,
                                "extra": {
                                    "input": {"command": item.fields.get("tool") or ""}
                                },
                            },
                        )
                    tool = called.get(call_id) or item.fields.get("tool")
                    item.fields["tool"] = item.block or tool
                yield item
            if exchanges:
                yield from self.status(start, status, model, window)
        yield from self.usage()

    # ai_queries -------------------------------------------------------------------

    def exchanges(
        self,
    ) -> list[tuple[datetime | None, str | None, str | None, str | None]]:
        columns = databases.table_columns(self.connection, "ai_queries")
        if "conversation_id" not in columns:
            return []
        wanted = ("start_ts", "output_status", "model_id")
        chosen = ", ".join(c if c in columns else "NULL" for c in wanted)
        # in the order written, then by time as a time (not as text: a change of form
        # would reorder them), what has none last
        rows = self.connection.execute(
            f"SELECT rowid, {chosen} FROM ai_queries WHERE conversation_id = ? "
            "ORDER BY rowid",
            (self.id,),
        ).fetchall()
        found = []
        for rowid, start, status, model in rows:
            text = None
            if "input" in columns and isinstance(rowid, int):
                value = databases.bounded_value(
                    self.connection, "ai_queries", "input", rowid, full=self.full,
                    diagnostics=self.diagnostics,
                    where=f"{self.database}#ai_queries/{rowid}",
                )  # fmt: skip
                parsed = _json(value)
                if value and not isinstance(parsed, list):
                    self.diagnostics.skip(
                        f"{self.database}#ai_queries/{rowid}", 0, "not JSON"
                    )
                text = _query_text(value)
            found.append((db_time(start), text, _status(status), as_str(model)))
        found.sort(key=lambda exchange: (exchange[0] is None, exchange[0] or _EPOCH))
        return found

    def status(
        self,
        time: datetime | None,
        status: str | None,
        model: str | None,
        window: list[_Item],
    ) -> Iterator[_Item]:
        end = next(
            (item.time for item in reversed(window) if item.time is not None), time
        )
        extra: dict[str, JSONValue] = {"reason": status or "unknown"}
        if model:
            extra["model"] = model
        if status == "Completed":
            yield _Item(end, "turn_end", {"extra": extra})
        elif status in ("Cancelled", "Canceled"):
            yield _Item(end, "meta", {"text": "cancelled", "extra": extra})
            yield _Item(end, "turn_end", {"extra": {**extra, "interrupted": True}})
        elif status == "Failed":
            yield _Item(end, "error", {"text": "the request failed", "extra": extra})
        elif status == "Pending":  # still streaming, or Warp quit before it ended
            return
        elif status:  # a state Warp writes that sessdex does not know
            self.diagnostics.unknown_type(f"output_status:{status}")

    # agent_tasks ------------------------------------------------------------------

    def task_messages(self) -> Iterator[_Item]:
        columns = databases.table_columns(self.connection, "agent_tasks")
        if not {"conversation_id", "task"} <= columns:
            return
        rowids = [
            row[0]
            for row in self.connection.execute(
                "SELECT rowid FROM agent_tasks WHERE conversation_id = ? ORDER BY rowid",
                (self.id,),
            )
        ]
        self.held = 0
        for rowid in rowids:
            where = f"{self.database}#agent_tasks/{rowid}"
            try:
                with self.connection.blobopen(
                    "agent_tasks", "task", rowid, readonly=True
                ) as blob:
                    spans = list(self.task_spans(blob, where))
                    heads: dict[int, bytes] = {}
                    for number, start, length in spans:
                        if number != 5:  # its id (1), description (2), dependencies (3)
                            blob.seek(start)
                            heads.setdefault(number, blob.read(length))
                    # a sub-task (its parent's id in its dependencies): a sub-agent's
                    agent = (
                        heads[1].decode("utf-8", "replace") or None
                        if 1 in heads and _text(_fields(heads.get(3)), 1)
                        else None
                    )
                    if agent and heads.get(2):  # what the lead's spawn is said to do
                        self.described[agent] = heads[2].decode("utf-8", "replace")
                    for number, start, length in spans:
                        if number == 5:
                            blob.seek(start)
                            for item in self.message(blob.read(length), where):
                                item.fields["agent_id"] = agent
                                if agent and item.kind == "user":  # the lead's task
                                    item.fields["extra"] = {
                                        "from_agent": "the lead",
                                        **item.fields.get("extra", {}),
                                    }
                                yield item
            except sqlite3.Error:  # NULL or a number: no task Warp writes
                self.diagnostics.skip(where, 0, "bad value")

    def task_spans(
        self, blob: sqlite3.Blob, where: str
    ) -> Iterator[tuple[int, int, int]]:
        """Where each of a task's messages (field 5), and its id (1) and dependencies (3),
        are in its blob, as (field, start, length), found by their headers only: a task
        holds its whole conversation, and can be any size. A message over TASK_CAP, or past
        the conversation's TASKS_BUDGET, is counted ("too long")."""
        size, position = len(blob), 0
        while position < size:
            blob.seek(position)
            head = blob.read(min(20, size - position))  # a key and a length: 2 varints
            try:
                key, used = pb.varint(head, 0)
                number, wire = key >> 3, key & 7
                if wire == 2:
                    length, used = pb.varint(head, used)
                elif wire == 0:
                    length, used = 0, pb.varint(head, used)[1]
                elif wire in (1, 5):
                    length = 8 if wire == 1 else 4
                else:
                    raise ValueError(f"wire type {wire}")
            except ValueError:
                self.diagnostics.skip(where, 0, "truncated")
                return
            start = position + used
            if number == 0 or start + length > size:
                self.diagnostics.skip(where, 0, "truncated")
                return
            position = start + length
            if number in (1, 2, 3) and wire == 2 and length <= _HEAD:
                yield number, start, length
            if number != 5 or wire != 2:
                continue
            if length > TASK_CAP or self.held + length > TASKS_BUDGET:
                self.diagnostics.skip(where, 0, "too long")
                if self.held + length > TASKS_BUDGET:
                    return  # the conversation's budget is spent: the rest of this task
                continue
            self.held += length
            yield number, start, length

    def message(self, data: bytes, where: str) -> Iterator[_Item]:
        try:
            parts = pb.fields(data)
        except ValueError:
            self.diagnostics.skip(where, 0, "truncated")
            return
        time = pb.timestamp(pb.first(parts, 14, 2))
        for number, wire, value in parts:
            if (
                wire != 2
                or not isinstance(value, bytes)
                or number in (1, 7, 8, 11, 13, 14)
            ):
                continue
            try:
                body = pb.fields(value)
            except ValueError:
                self.diagnostics.skip(where, 0, "truncated")
                return
            if number == 2:
                text = _text(body, 1, self.full)
                if text:
                    yield _Item(time, "user", {"text": text})
            elif number == 3:
                text = _text(body, 1, self.full)
                if text:
                    yield _Item(time, "assistant", {"text": text})
            elif number == 15:
                text = _text(body, 1, self.full)
                if text:
                    yield _Item(time, "thinking", {"text": text})
            elif number == 4:
                call = self.tool_call(body, time)
                yield call
                if call.fields.get("tool") == "subagent":
                    yield from self.spawn(body, call)
                elif call.fields.get("tool") == "start_agent":
                    yield from self.start(call)
            elif number == 5:
                yield from self.tool_result(body, time, where)
            elif number == 16:  # a conversation's summary (1), or a tool result's (3)
                summary = pb.first(body, 1, 2)
                if isinstance(summary, bytes):
                    text = _text(_fields(summary), 1)
                    yield _Item(
                        time, "compaction", {"text": text or "conversation summarized"}
                    )
            elif number in (19, 20):  # a web search or fetch: its call and result
                yield from self.web(number, body, time, _text(parts, 1))
            elif number == 23:  # a skill invoked, with the user's query
                query = _fields(pb.first(body, 2, 2))
                text = _text(query, 1, self.full)
                if text:
                    yield _Item(time, "user", {"text": text})
            elif number == 24:  # messages other agents sent this one
                for received in tools.each(body, 1):
                    said = _fields(received)
                    text = "\n".join(
                        t for t in (_text(said, 4), _text(said, 5, self.full)) if t
                    )
                    sender = _text(said, 2) or "another agent"
                    if text:
                        yield _Item(
                            time,
                            "user",
                            {"text": text, "extra": {"from_agent": sender}},
                        )
            elif number == 25:
                model = _text(body, 1)
                if model:
                    yield _Item(
                        time,
                        "meta",
                        {"text": f"model {model}", "extra": {"model": model}},
                    )
            elif number not in _QUIET:
                self.diagnostics.unknown_type(f"task message field {number}")

    def web(
        self,
        number: int,
        body: list[pb.Field],
        time: datetime | None,
        message_id: str | None,
    ) -> Iterator[_Item]:
        tool, arguments, result = tools.web(number, body)
        call_id = f"{tool}-{message_id}" if message_id else None
        yield _Item(
            time,
            "tool_call",
            {"tool": tool, "call_id": call_id, "extra": {"input": arguments}},
        )
        if result is not None:
            yield _Item(
                time,
                "tool_result",
                {"tool": tool, "call_id": call_id, "text": _cut(result.text),
                 "is_error": result.is_error},
            )  # fmt: skip

    def spawn(self, body: list[pb.Field], call: _Item) -> Iterator[_Item]:
        """A `subagent` call's sub-task, run as a sub-agent of this conversation: its
        messages are the task named `task_id` (Warp interleaves them at this call)."""
        spec = _fields(pb.first(body, 19, 2))
        child = _text(spec, 1)
        if not child:
            return
        kind = next((_SUBAGENTS[n] for n, _, _ in spec if n in _SUBAGENTS), None)
        yield _Item(
            call.time,
            "subagent",
            {"call_id": call.fields.get("call_id"),
             "extra": {"child_id": child, "agent_type": kind}},
        )  # fmt: skip

    def start(self, call: _Item) -> Iterator[_Item]:
        """A `start_agent` call: the lead starts an agent in a conversation of its own,
        which keeps the name given here as its `agent_name` (matched by it, a guess)."""
        arguments = as_dict(as_dict(call.fields.get("extra")).get("input"))
        name = as_str(arguments.get("name"))
        extra: dict[str, JSONValue] = {
            "child_id": self.children().get(name) if name else None,
            "agent_type": None,
        }
        if name:
            extra["agent_name"] = name
        yield _Item(
            call.time,
            "subagent",
            {"call_id": call.fields.get("call_id"),
             "text": as_str(arguments.get("prompt")) or None, "extra": extra},
        )  # fmt: skip

    def children(self) -> dict[str, str]:
        """The agents this conversation started, by name: conversations whose
        `parent_conversation_id` is this one (read once, when a call asks)."""
        if self.started is not None:
            return self.started
        self.started = {}
        columns = databases.table_columns(self.connection, "agent_conversations")
        if not {"conversation_id", "conversation_data"} <= columns:
            return self.started
        rows = self.connection.execute(
            "SELECT rowid, conversation_id FROM agent_conversations"
        ).fetchall()
        for rowid, conversation_id in rows:
            data = _json_object(
                databases.bounded_value(
                    self.connection, "agent_conversations", "conversation_data", rowid
                )
            )
            name = as_str(data.get("agent_name"))
            if (
                data.get("parent_conversation_id") == self.id
                and name
                and _id(conversation_id)
            ):
                self.started.setdefault(name, conversation_id)
        return self.started

    def tool_call(self, body: list[pb.Field], time: datetime | None) -> _Item:
        call_id = _text(body, 1)
        tool, arguments = "tool", {}
        for number, wire, value in body:
            if number != 1 and wire == 2 and isinstance(value, bytes):
                tool = tools.TOOLS.get(number, f"tool_{number}")
                arguments = tools.call_input(number, value)
                break
        if tool.startswith("tool_"):
            self.diagnostics.unknown_type(f"tool call field {tool[5:]}")
        return _Item(
            time,
            "tool_call",
            {"tool": tool, "call_id": call_id, "extra": {"input": arguments}},
        )

    def tool_result(
        self, body: list[pb.Field], time: datetime | None, where: str
    ) -> Iterator[_Item]:
        """A result the task kept: its text as `_warp_tools.result` reads it."""
        call_id = _text(body, 1)
        try:
            found = tools.result(body)
        except ValueError:
            self.diagnostics.skip(where, 0, "truncated")
            found = tools.Result()
        if found.tool and found.tool.startswith("tool_"):
            self.diagnostics.unknown_type(f"tool result field {found.tool[5:]}")
        extra: dict[str, JSONValue] = {}
        if found.exit_code is not None:
            extra["exit_code"] = found.exit_code
        if found.tool == "start_agent" and not found.is_error:
            extra["launched"] = True  # the agent runs on, in its own conversation
        yield _Item(
            time,
            "tool_result",
            {
                "call_id": call_id,
                "tool": found.tool,
                "text": _cut(found.text),
                "is_error": found.is_error,
                "extra": extra,
            },
        )

    # blocks -----------------------------------------------------------------------

    def blocks(self) -> Iterator[_Item]:
        columns = databases.table_columns(self.connection, "blocks")
        if "ai_metadata" not in columns:
            return
        wanted = ("start_ts", "completed_ts", "exit_code")
        chosen = ", ".join(c if c in columns else "NULL" for c in wanted)
        order = "start_ts, rowid" if "start_ts" in columns else "rowid"
        rows = self.connection.execute(
            f"SELECT rowid, ai_metadata, {chosen} FROM blocks "
            f"WHERE instr(ai_metadata, ?) > 0 ORDER BY {order}",
            (self.id,),
        ).fetchall()
        for rowid, metadata, start, completed, exit_code in rows:
            where = f"{self.database}#blocks/{rowid}"
            meta = _json(metadata)
            if not isinstance(meta, dict):
                self.diagnostics.skip(where, 0, "not JSON")
                continue
            if meta.get("conversation_id") != self.id:
                continue  # the id is elsewhere in the metadata: another conversation's
            call_id = as_str(meta.get("action_id")) or as_str(
                meta.get("requested_command_action_id")
            )
            command = _terminal_text(self.cell("stylized_command", rowid, columns))
            output = _terminal_text(self.cell("stylized_output", rowid, columns))
            code = exit_code if isinstance(exit_code, int) else None
            ended = db_time(completed)
            began = db_time(start) or ended
            extra: dict[str, JSONValue] = {}
            if code is not None:
                extra["exit_code"] = code
            # the command rides in `tool` until `items` makes its call (then replaced)
            yield _Item(
                began,
                "tool_result",
                {
                    "call_id": call_id or f"block-{rowid}",
                    "agent_id": as_str(meta.get("subagent_task_id")) or None,
                    "tool": command,
                    "text": _cut(output),
                    "is_error": code not in (None, 0),
                    "extra": extra,
                },
                block="run_shell_command" if call_id else "user_command",
            )

    def cell(self, column: str, rowid: int, columns: set[str]) -> bytes | None:
        """A block's command or output, at most OUTPUT_CAP bytes of it."""
        if column not in columns:
            return None
        try:
            with self.connection.blobopen(
                "blocks", column, rowid, readonly=True
            ) as blob:
                return blob.read(OUTPUT_CAP + 1)
        except sqlite3.Error:
            return None

    # agent_conversations ----------------------------------------------------------

    def usage(self) -> Iterator[_Item]:
        columns = databases.table_columns(self.connection, "agent_conversations")
        if not {"conversation_id", "conversation_data"} <= columns:
            return
        modified = "last_modified_at" if "last_modified_at" in columns else "NULL"
        row = self.connection.execute(
            f"SELECT rowid, {modified} FROM agent_conversations WHERE conversation_id = ?",
            (self.id,),
        ).fetchone()
        if row is None:
            return
        where = f"{self.database}#agent_conversations/{row[0]}"
        value = databases.bounded_value(
            self.connection, "agent_conversations", "conversation_data", row[0],
            diagnostics=self.diagnostics, where=where,
        )  # fmt: skip
        data = _json(value)
        if value and not isinstance(data, dict):
            self.diagnostics.skip(where, 0, "not JSON")
            return
        metadata = as_dict(as_dict(data).get("conversation_usage_metadata"))
        time = db_time(row[1])
        counted: list[JSONValue] = []
        said: list[str] = []
        models: set[str] = set()
        for entry in as_list(metadata.get("token_usage"))[:_MODELS]:
            entry = as_dict(entry)
            model = as_str(entry.get("model_id")) or ""
            tokens: dict[str, JSONValue] = {"model": model}
            for key, names in _TOKEN_KEYS:
                count = next((entry[n] for n in names if _number(entry.get(n))), None)
                if isinstance(count, int):
                    tokens[key] = count
            if len(tokens) > 1:
                counted.append(tokens)
                models.add(model)
                told = ", ".join(
                    f"{v} {k.replace('_', ' ')}"
                    for k, v in tokens.items()
                    if k != "model"
                )
                said.append(f"{model or 'a model'}: {told}")
        # the credits Warp shows: its own and the platform's (`AIConversation::credits_spent`)
        spent = [metadata.get(k) for k in ("credits_spent", "platform_credits_spent")]
        paid = [value for value in spent if _number(value)]
        charged = self.charged(
            as_dict(metadata.get("total_charged_usage")),
            next(iter(models)) if len(models) == 1 and "" not in models else None,
            time,
        )
        if charged is not None:
            yield charged
        if not counted and not paid:
            return
        extra: dict[str, JSONValue] = {"token_usage": counted, "scope": "session"}
        if paid:
            credits = sum(value for value in paid if isinstance(value, int | float))
            said.append(f"{credits:g} credits spent")
            extra["credits_spent"] = credits
        split = "" if charged is not None else " (no input/output split)"
        yield _Item(
            time,
            "meta",
            {"text": f"Warp's count{split}: " + "; ".join(said), "extra": extra},
        )

    def charged(
        self, totals: dict[str, object], model: str | None, time: datetime | None
    ) -> _Item | None:
        """The conversation's charged usage, where Warp kept it (`total_charged_usage`,
        summed by Warp over every request, model and category): one `usage` event."""
        usage = Usage(
            input_tokens=as_int(totals.get("input_tokens"), floats=False),
            output_tokens=as_int(totals.get("output_tokens"), floats=False),
            cache_read_tokens=as_int(
                totals.get("input_cache_read_tokens"), floats=False
            ),
            cache_write_tokens=as_int(
                totals.get("input_cache_write_tokens"), floats=False
            ),
            model=model,
        ).plausible()
        if not usage.total:
            return None
        extra: dict[str, JSONValue] = {"scope": "session", "summed": True}
        cents = [totals.get(key) for key in _COST_KEYS]
        cost = sum(c for c in cents if isinstance(c, int | float) and _number(c))
        if 0 < cost < 10**9:
            extra["cost_usd"] = round(cost / 100, 6)
        return _Item(time, "usage", {"usage": usage, "extra": extra})


def _number(value: object) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and value == value
        and abs(value) < 10**15
    )


def _window(starts: list[datetime | None], time: datetime | None) -> int:
    """Which exchange's window a time falls in: the last that started at or before it
    (the first for what came earlier, the last for what has no time)."""
    if not starts:
        return 0
    if time is None:
        return len(starts) - 1
    found = 0
    for index, start in enumerate(starts):
        if start is not None and start <= time:
            found = index
    return found


def _status(value: object) -> str | None:
    """`output_status` as Warp writes it: a JSON string (`"Completed"`), or an object
    whose one key names the state."""
    parsed = _json(value) if isinstance(value, str) and value[:1] in '"{' else value
    if isinstance(parsed, dict) and len(parsed) == 1:
        parsed = next(iter(parsed))
    return as_str(parsed) or None


def _text(parts: list[pb.Field], number: int, full: bool = True) -> str | None:
    """A string field; one over `files.READ_LINE_CAP` is its elision marker (shown as
    "[text, 5.0 MB]") unless the session is read in full."""
    value = pb.first(parts, number, 2)
    if not isinstance(value, bytes):
        return None
    if not full and len(value) > files.READ_LINE_CAP:
        head = value[:80].decode("utf-8", "replace")
        return f"{files.ELIDED_PREFIX}{len(value)}:{head}"
    return value.decode("utf-8", "replace") or None


def _fields(value: object) -> list[pb.Field]:
    """A nested message's fields: [] where there is none, or it does not decode."""
    if not isinstance(value, bytes):
        return []
    try:
        return pb.fields(value)
    except ValueError:
        return []


def _terminal_text(value: bytes | None) -> str | None:
    if not value:
        return None
    cut = len(value) > OUTPUT_CAP
    text = _ANSI.sub("", value[:OUTPUT_CAP].decode("utf-8", "replace"))
    return text + "\n[… cut]" if cut else text


def _cut(text: str | None) -> str | None:
    if text is None:
        return None
    if len(text) > OUTPUT_CAP:
        return text[:OUTPUT_CAP] + "\n[… cut]"
    return plain(text)


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
