"""Goose (aaif-goose/goose, once block/goose): a SQLite session store, JSONL files before it.

Goose keeps sessions in its data folder's `sessions/` (Linux and macOS:
`$XDG_DATA_HOME/goose`, default `~/.local/share/goose`; Windows:
`%APPDATA%\\Block\\goose\\data`; `GOOSE_PATH_ROOT=<root>` moves it to `<root>/data`). Current
releases write one SQLite database, `sessions/sessions.db` (WAL, so it is opened through
`databases.open_sqlite`): `sessions` rows (`id` like `20251108_1`, `name` (older `description`),
`session_type` user / scheduled / sub_agent / hidden / terminal / gateway / acp, `working_dir`,
`created_at` / `updated_at` as UTC `YYYY-MM-DD HH:MM:SS`, `model_config_json.model_name`,
`provider_name`, `goose_mode`, token counters, `parent_session_id`) and `messages` rows (`role`,
`content_json`: Goose message content — text, image, toolRequest, toolResponse, thinking (older
`reasoning`, which Goose itself turns into thinking on load), redactedThinking, error,
toolConfirmationRequest, actionRequired, frontendToolRequest, systemNotification —
`created_timestamp` in unix seconds, `metadata_json` visibility and `turnContext`). An
`actionRequired` elicitation (the agent asking the user) is a `meta` event and its
`elicitationResponse` a `user` event; the user's answer to a tool confirmation
(`toolConfirmationResponse`) is a `meta` event on the tool call. The per-turn context Goose
appends as a user message (`turnContext`, `<turn-context>…`) is a `meta` event marked
`injected`, never the user's words; an `error` block is an `error` event. Spinner captions
(`progressMessage`, `thinkingMessage` notifications) are passed over.
Releases before the database wrote `sessions/<id>.jsonl`: line 1 metadata (`working_dir`,
`description`, token counters), then one message per line; the database imports them on
first run under the same id, and the database row wins. Columns and tables missing from older
databases are tolerated. Goose 1.0.0-1.0.10 wrote each content item in serde's default
enum shape (`{"Text": {…}}`, `{"ToolRequest": {"id", "tool_call": {"Ok": …}}}`); it is read
as today's.

Before 1.0.6 sessions lived in `~/.config/goose/sessions/<name>.jsonl` ($HOME as the app
saw it; no override moved it), one message per line and no metadata: Goose 0.8-0.9.11 (the
Python goose-ai, its `exchange` package's `Message.to_dict`: `role`, `id`, `created` in unix
seconds, `content` of `Text` / `ToolUse` (`id`, `name`, `parameters`) / `ToolResult`
(`tool_use_id`, `output`, the tool's return value as JSON, `is_error`)) and the first Rust
releases, 1.0.0-1.0.5, in the serde shape above. They are listed under their name, titled by
their first prompt, with no folder (none is recorded); where the newer folder holds the
same name, one id, its session is the one listed. Goose has not looked in the old folder
since 1.0.6, so they have no resume command (`resume_refusal` says why).

A session Goose has not named yet (`name` and `description` empty: it names one after the
first exchange) is listed by its first prompt. `hidden` sessions are Goose's own helpers and
are skipped. A `sub_agent` session that Goose's
summon extension delegated to records its parent in `parent_session_id` (schema v15); its
events are read with its parent's, before the delegating tool result (whose `_meta` names it),
with the child's id as `agent_id`, and `sessdex usage` counts it there. A `sub_agent` without
a parent is listed, and counted, on its own. A foreground delegate (schema v17, whose
`parent_delegation` column is not needed) runs after the result that scheduled it
(`_meta.foreground_subagent`): the spawn comes before that result, which is `launched`,
and the sub-agent's events after it.

A session `copy_session` made (Desktop's duplicate) is a new row holding the source's messages
written again, each keeping its `message_id` and `created_timestamp`, and nothing of its
spend (counters and ledger start empty): its turns are shown after one `meta` note naming the
older session that holds its first message (`extra["forked_from"]`); no column names it.

Usage: where the database has a `usage_ledger` table (schema v15), one `usage` event per
model call (its time, model and cache counts); any part of the session's `accumulated_*`
counters that the ledger does not hold yet (spend from before v15) is one more event with
`extra["scope"] = "session"`. Older databases and JSONL files: one `usage` event per session
from `accumulated_input_tokens` / `accumulated_output_tokens` (else the plain counters).
Goose's input counts include cache reads and writes (schema v14 records those), so they are
taken out of `input_tokens`.
"""

from __future__ import annotations

import itertools
import shutil
import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime
from pathlib import Path
from typing import Unpack

import orjson

from .. import databases, files, folders, programs, shells
from ..diagnostics import Diagnostics, read_failed
from ..errors import NotQuotable
from ..hints import named
from ..model import Event, EventKind, JSONValue, ResumePlan, Session, Usage
from ._values import (
    MS_ABOVE,
    Emitter,
    EventFields,
    as_dict,
    as_int,
    as_str,
    copied_note,
    db_time,
    json_copy,
    json_object,
    one_line,
    shown_text,
    type_tag,
)
from .base import Home, Location, WholeRead

NAME = "goose"
TITLE = "Goose"
SCAN_NOTED = True  # locate reads only the environment; scan only lists and probes
CHECKED_WITH = (
    "goose session schema v5-v17 (source to aaif-goose/goose 2026-08-21, v17 from its "
    "session_manager.rs at 017176d0, synthetic DB); "
    "legacy JSONL (source, synthetic); ~/.config/goose/sessions of goose 0.8-0.9.11 "
    "(block/goose Python source) and 1.0.0-1.0.5 (Rust source), synthetic"
    "; resume flags from goose-cli's cli.rs (not run), rechecked at aaif-goose/goose "
    "@18a7b723 (`session --resume --session-id`, `--name`)"
)
ENV_VARS = ("GOOSE_PATH_ROOT", "XDG_DATA_HOME", "HOME")

INSTALL_HINT = "brew install block-goose-cli  (or: curl -fsSL https://github.com/aaif-goose/goose/releases/download/stable/download_cli.sh | bash)"

_SESSION_COLUMNS = (
    "id",
    "name",
    "description",
    "session_type",
    "working_dir",
    "created_at",
    "updated_at",
    "provider_name",
    "model_config_json",
    "goose_mode",
    "input_tokens",
    "output_tokens",
    "accumulated_input_tokens",
    "accumulated_output_tokens",
    "accumulated_cost",
    "archived_at",
    "parent_session_id",
    "schedule_id",
)
_SKIPPED_TYPES = {"hidden"}
# Goose's data folder on Windows, below the home: etcetera's `AppData/Roaming/<author>/
# <app>/data`, author "Block" kept by Goose so that existing installs are found
WINDOWS_SESSIONS = ("AppData", "Roaming", "Block", "goose", "data", "sessions")


def locate(home: Home) -> Location:
    """The data folder's `sessions/`, and the `~/.config/goose/sessions/` of releases
    before 1.0.6 (Python's `~` and Rust's `dirs::home_dir`: $HOME, whatever XDG says).
    On Windows Goose's data folder is `%APPDATA%\\Block\\goose\\data` (etcetera's Windows
    strategy, which reads no XDG variable), looked for under the home as well."""
    before = (home.env_dir("HOME") or home.path) / ".config" / "goose" / "sessions"
    # Goose keeps an absolute root only, `~` not expanded: `~/x` leaves its default
    value = home.environ.get("GOOSE_PATH_ROOT")
    root = Path(value) if value else None
    if root is not None and root.is_absolute():
        return Location(
            root / "data" / "sessions",
            override=f"GOOSE_PATH_ROOT={root}",
            also=(before,),
            keeps=(before.parent,),  # its config.yaml
        )
    xdg = home.env_dir("XDG_DATA_HOME")
    left = (
        f"GOOSE_PATH_ROOT={value} is not followed: Goose takes an absolute path only "
        "(no `~` expanded) and keeps its sessions in its default folder"
    )
    return Location(
        home.xdg("data") / "goose" / "sessions",
        override=f"XDG_DATA_HOME={xdg}" if xdg else None,
        also=(before, home.path.joinpath(*WINDOWS_SESSIONS)),
        keeps=(before.parent,),  # its config.yaml
        notes=(left,) if value else (),
    )


def scan(location: Location) -> Iterator[Path]:
    if not location.exists:
        return
    for folder in _data_folders(location):
        for entry in folders.entries(folder, folder):
            if (
                entry.name == "sessions.db" or entry.name.endswith(".jsonl")
            ) and entry.is_file():
                yield Path(entry.path)
    before = _before_1_0_6(location)
    if before is not None and before not in _data_folders(location):
        # XDG_DATA_HOME=~/.config: one folder, listed above
        for entry in folders.entries(before, before):
            if entry.name.endswith(".jsonl") and entry.is_file():
                yield Path(entry.path)


def _before_1_0_6(location: Location) -> Path | None:
    """The `~/.config/goose/sessions/` of releases before 1.0.6 (`also`'s first)."""
    return location.also[0] if location.also else None


def _data_folders(location: Location) -> list[Path]:
    """The `sessions/` folders of Goose's data folder: the root, and on Windows its own."""
    return [location.root, *location.also[1:]]


def parse(path: Path, location: Location, diagnostics: Diagnostics) -> list[Session]:
    if path.suffix == ".jsonl":
        before = path.parent == _before_1_0_6(location) and path.parent not in (
            _data_folders(location)
        )
        return _parse_legacy(path, diagnostics, before_1_0_6=before)
    try:
        connection = databases.open_sqlite(path)
    except (OSError, sqlite3.Error) as error:
        diagnostics.problem(read_failed(NAME, path, error, "cannot open"))
        return []
    try:
        available = databases.table_columns(connection, "sessions")
        if "id" not in available:
            diagnostics.problem(
                f"{NAME}: {path} has no sessions table; not a Goose database we know"
            )
            return []
        if "working_dir" not in available:
            diagnostics.problem(f"{NAME}: {path} sessions table lacks working_dir")
        columns = [c for c in _SESSION_COLUMNS if c in available]
        rows = [
            dict(zip(columns, values, strict=True))
            for values in connection.execute(
                f"SELECT {', '.join(columns)} FROM sessions ORDER BY id"
            )
        ]
        # Goose names a session after its first exchange; until then, the first prompt
        message_columns = databases.table_columns(connection, "messages")
        prompts = {
            session_id: _first_prompt(connection, message_columns, session_id)
            for row in rows
            if not any(_name_of(row)) and (session_id := as_str(row.get("id")))
        }
        spoken = _sessions_with_messages(connection, message_columns)
    except sqlite3.Error as error:
        diagnostics.problem(read_failed(NAME, path, error))
        return []
    finally:
        connection.close()

    sessions = []
    for row in rows:
        session_id = as_str(row.get("id"))
        kind = as_str(row.get("session_type")) or "user"
        if session_id is None:
            diagnostics.skip(f"{path}#sessions", 0, "bad value")  # a row with no id
            continue
        if kind in _SKIPPED_TYPES:
            continue
        name, description = _name_of(row)
        config = json_object(row.get("model_config_json"))
        extra: dict[str, JSONValue] = {"store": "sqlite", "session_type": kind}
        for key in ("provider_name", "schedule_id"):
            if as_str(row.get(key)):
                extra[key] = row[key]
        for key in (
            "input_tokens",
            "output_tokens",
            "accumulated_input_tokens",
            "accumulated_output_tokens",
        ):
            if isinstance(row.get(key), int):
                extra[key] = row[key]
        if isinstance(row.get("accumulated_cost"), int | float):
            extra["cost"] = row["accumulated_cost"]
        if row.get("archived_at"):
            extra["archived"] = True
        parent = as_str(row.get("parent_session_id"))
        sessions.append(
            Session(
                app=NAME,
                id=session_id,
                path=f"{path}#sessions/{session_id}",
                cwd=as_str(row.get("working_dir")),
                title=name or description or prompts.get(session_id),
                created=db_time(row.get("created_at")),
                updated=db_time(row.get("updated_at")),
                model=as_str(config.get("model_name")),
                permission_mode=as_str(row.get("goose_mode")),
                parent_id=parent,
                agent_type="sub_agent" if kind == "sub_agent" else None,
                # a session Goose imported from a JSONL file whose messages it could not
                # parse (1.0.6-1.0.10's shape) has none here: the file, beside it, says more
                precedence=10 if spoken is None or session_id in spoken else -2,
                extra=extra,
            )
        )
    return sessions


def _name_of(row: Mapping[str, object]) -> tuple[str | None, str | None]:
    return one_line(row.get("name"), limit=None), one_line(
        row.get("description"), limit=None
    )


_PROMPTS_TRIED = 4  # user messages looked at for an unnamed session's first prompt


def _sessions_with_messages(
    connection: sqlite3.Connection, columns: set[str]
) -> set[str] | None:
    """The ids of the sessions that have a message in the database (None: unknown)."""
    if "session_id" not in columns:
        return None
    return {
        str(row[0])
        for row in connection.execute("SELECT DISTINCT session_id FROM messages")
    }


def _first_prompt(
    connection: sqlite3.Connection, columns: set[str], session_id: str
) -> str | None:
    """The first thing the user typed in a session (not the turn context or other text
    Goose adds for the model), as one line; None where there is none. `columns`: those
    of the messages table."""
    if not {"session_id", "role", "content_json"} <= columns:
        return None
    metadata = "metadata_json" if "metadata_json" in columns else "NULL"
    rows = connection.execute(
        f"SELECT rowid, {metadata} FROM messages WHERE session_id = ? AND role = 'user' "
        "ORDER BY id LIMIT ?",
        (session_id, _PROMPTS_TRIED),
    ).fetchall()
    for rowid, meta in rows:
        flags = json_object(meta)
        if flags.get("userVisible") is False or flags.get("turnContext") is True:
            continue
        content = databases.bounded_value(connection, "messages", "content_json", rowid)
        try:
            items = orjson.loads(content) if content is not None else None
        except orjson.JSONDecodeError:
            continue
        if text := _first_text(items):
            return text
    return None


def _first_text(content: object) -> str | None:
    """A message content's first text block as one line; None where there is none or
    it was elided for its size (such a prompt names no session well)."""
    for item in content if isinstance(content, list) else []:
        if (
            isinstance(item, dict)
            and item.get("type") == "text"
            and (text := as_str(item.get("text")))
        ):
            return None if files.elided(text) else one_line(text, limit=None)
    return None


def _parse_legacy(
    path: Path, diagnostics: Diagnostics, *, before_1_0_6: bool = False
) -> list[Session]:
    try:
        size = path.stat().st_size
        head = files.head_lines(path, 2)
        tail = files.tail_lines(path, 256 * 1024)
    except FileNotFoundError:
        diagnostics.skip(str(path), 0, "vanished")
        return []
    except OSError:
        diagnostics.skip(str(path), 0, "unreadable")
        return []
    files.note_unfinished_last(tail, diagnostics, str(path))
    records = [files.parse_json(line) for line in head]
    meta = (
        records[0]
        if records and records[0] is not None and "role" not in records[0]
        else {}
    )
    first = next((r for r in records if r is not None and "role" in r), None)
    last = None
    for line in reversed(tail):
        record = files.parse_json(line)
        if record is not None and "role" in record:
            last = record
            break
    if not meta and first is None:
        return []
    extra: dict[str, JSONValue] = {"store": "config" if before_1_0_6 else "jsonl"}
    if first is not None and (shape := _shape(first.get("content"))):
        extra["format"] = shape
    for key in (
        "input_tokens",
        "output_tokens",
        "accumulated_input_tokens",
        "accumulated_output_tokens",
    ):
        if isinstance(meta.get(key), int):
            extra[key] = meta[key]  # type: ignore[assignment]
    return [
        Session(
            app=NAME,
            id=path.stem,
            path=str(path),
            cwd=as_str(meta.get("working_dir")),
            title=one_line(meta.get("description"), limit=None)
            or (
                _first_text(_current_items(first.get("content")))
                if first and first.get("role") == "user"
                else None
            ),
            created=db_time(first.get("created")) if first else None,
            updated=db_time(last.get("created")) if last else None,
            bytes=size,
            # the same name in the newer folder: one id, and the newer session wins
            precedence=-1 if before_1_0_6 else 0,
            extra=extra,
        )
    ]


# Goose 0.x content types, as the Python `exchange` package's `Content.to_dict` tags them
_PYTHON_TYPES = {"Text", "ToolUse", "ToolResult"}
# Goose 1.0.0-1.0.10's `MessageContent`, in serde's default (external) enum tagging
_RUST_TAGS = {"Text", "Image", "ToolRequest", "ToolResponse", "ToolConfirmationRequest"}


def _shape(content: object) -> str | None:
    """Which older release's content shape a message has: "python" (Goose 0.x),
    "untagged" (1.0.0-1.0.10), or None for today's."""
    for item in content if isinstance(content, list) else []:
        if not isinstance(item, dict):
            continue
        if item.get("type") in _PYTHON_TYPES:
            return "python"
        if "type" not in item and len(item) == 1 and next(iter(item)) in _RUST_TAGS:
            return "untagged"
    return None


def _current_items(content: object) -> list[object]:
    """A message's content with each older item in today's shape (see `_current`)."""
    return [
        _current(item) if isinstance(item, dict) else item
        for item in (content if isinstance(content, list) else [])
    ]


def _current(item: dict[str, object]) -> dict[str, object]:
    """An item of Goose 0.x or 1.0.0-1.0.10 as today's Goose writes it, for `content`;
    today's, and what no release wrote, as it is (an unknown type stays unknown)."""
    kind = item.get("type")
    if kind is None and len(item) == 1:
        ((tag, value),) = item.items()
        return _untagged(tag, as_dict(value))
    if kind == "Text":
        return {"type": "text", "text": item.get("text")}
    if kind == "ToolUse":
        call = {"name": item.get("name"), "arguments": item.get("parameters")}
        return {
            "type": "toolRequest",
            "id": item.get("id"),
            "toolCall": {"status": "success", "value": call},
        }
    if kind == "ToolResult":
        output = {"type": "text", "text": _python_output(item.get("output"))}
        result = {"content": [output], "isError": item.get("is_error") is True}
        return {
            "type": "toolResponse",
            "id": item.get("tool_use_id"),
            "toolResult": {"status": "success", "value": result},
        }
    return item


def _untagged(tag: str, value: dict[str, object]) -> dict[str, object]:
    if tag == "ToolRequest":
        return {
            "type": "toolRequest",
            "id": value.get("id"),
            "toolCall": _rust_result(value.get("tool_call")),
        }
    if tag == "ToolResponse":
        return {
            "type": "toolResponse",
            "id": value.get("id"),
            "toolResult": _rust_result(value.get("tool_result")),
        }
    # Text, Image and ToolConfirmationRequest kept today's fields; a tag no release
    # wrote keeps its name, for the count of unknown types
    return {**value, "type": tag[:1].lower() + tag[1:]}


def _rust_result(value: object) -> dict[str, object]:
    """A Rust `Result` as serde writes it (`{"Ok": …}` or `{"Err": {"<Kind>": "…"}}`) in
    today's `{status, value}` / `{status, error}` wrapper."""
    result = as_dict(value)
    if "Ok" in result:
        return {"status": "success", "value": result["Ok"]}
    error = result.get("Err")
    if isinstance(error, dict) and len(error) == 1:
        ((kind, message),) = error.items()
        error = as_str(message) or kind
    return {"status": "error", "error": as_str(error) or "error"}


def _python_output(output: object) -> object:
    """A Goose 0.x tool result's text: `exchange` stored a tool's return value as JSON, so
    a string comes back quoted; one that is not JSON (an error's traceback) is as it is."""
    if isinstance(output, str) and output.startswith('"'):
        try:
            value = orjson.loads(output)
        except orjson.JSONDecodeError:
            return output
        return value if isinstance(value, str) else output
    return output


# --- reading ------------------------------------------------------------------------

# how a background delegate ended, as `load` reports it (summon.rs task_status); one
# still running ("running") is not an end, and one stopped ("cancelled") did not fail
_TASK_ENDS = {
    "completed": "done",
    "cancelled": "done",
    "failed": "failed",
    "panicked": "failed",
}
# sub-agents inside sub-agents this deep at most (Goose's summon allows one level)
_MAX_DEPTH = 4
_COUNTS = ("input", "output", "cache_read", "cache_write")
_USAGE_COLUMNS = (
    "model_config_json",
    "provider_name",
    "updated_at",
    *(
        f"{prefix}{name}_tokens"
        for prefix in ("", "accumulated_")
        for name in (*_COUNTS, "total")
    ),
)
# Goose shows these as a passing spinner caption (goose-cli session/output.rs), not a line
_SPINNER_NOTIFICATIONS = {"progressMessage", "thinkingMessage"}
_PERMISSIONS = {
    "allow_once": "allowed once",
    "always_allow": "always allowed",
    "deny_once": "denied once",
    "always_deny": "always denied",
    "cancel": "cancelled",
}

# input (cache reads and writes included, as Goose counts it), output, cache read, cache write
Counts = tuple[int, int, int, int]


def read(
    session: Session, diagnostics: Diagnostics, *, full: bool = False, offset: int = 0
) -> Iterator[Event]:
    if not session.path:
        return
    reader = _Reader(session.id, diagnostics, full)
    if "#sessions/" in session.path:
        yield from reader.database(session.path.split("#sessions/")[0])
        return
    yield from reader.legacy(session.path, full, offset)
    provider = as_str(session.extra.get("provider_name"))
    extra: dict[str, JSONValue] = {"scope": "session", "summed": True}
    if provider:  # whom its model calls went to, for the price list
        extra["provider"] = provider
    prefix = _counter_prefix(session.extra)
    usage = _usage(
        _counters(session.extra, prefix), session.model, _total(session.extra, prefix)
    )
    if usage is not None:
        yield reader.event(
            "usage",
            session.updated or reader.last_time,
            usage=usage,
            extra=extra,
        )


def read_last(
    session: Session, diagnostics: Diagnostics, rows: int, *, full: bool = False
) -> Iterator[Event]:
    """`read` of only a database session's last `rows` messages (see base.py): what the
    whole read carries from the rows before them (where the model calls go, whether a
    compaction's summary is awaited, which calls were delegates) is taken from those
    rows' small columns and from as few of them as say it; a session with sub-agents,
    or whose last rows name one, is read whole. A result's call is the nearest earlier
    one of its id (providers' call ids name one call each)."""
    if not session.path or "#sessions/" not in session.path:
        raise WholeRead("a JSONL file is read from its end")
    reader = _Reader(session.id, diagnostics, full)
    yield from reader.database(session.path.split("#sessions/")[0], last=rows)


def _counter_prefix(values: Mapping[str, object]) -> str:
    """`accumulated_` (the session's sum) where Goose wrote it, else the plain counters."""
    accumulated = any(
        isinstance(values.get(f"accumulated_{name}_tokens"), int)
        for name in ("input", "output")
    )
    return "accumulated_" if accumulated else ""


def _counters(values: Mapping[str, object], prefix: str) -> Counts:
    given, made, read, written = (
        max(0, as_int(values.get(f"{prefix}{name}_tokens"), floats=False))
        for name in _COUNTS
    )
    return given, made, read, written


def _usage(counts: Counts, model: str | None, total: int | None = None) -> Usage | None:
    """sessdex's usage from Goose's counts: Goose's input includes the cache reads and
    writes (goose-provider-types token_usage.rs: both are subsets of it). Its Google
    format counts `candidatesTokenCount` as output, leaving out the thinking tokens that
    Gemini's `totalTokenCount` (Goose's total) holds: what the total has beyond input
    and output is that thinking, added to the output as reasoning."""
    given, made, read, written = counts
    thinking = max(0, total - given - made) if total else 0
    usage = Usage(
        input_tokens=max(0, given - read - written),
        output_tokens=made + thinking,
        cache_read_tokens=read,
        cache_write_tokens=written,
        reasoning_tokens=thinking,
        model=model,
    )
    return usage if usage.total else None


def _total(values: Mapping[str, object], prefix: str) -> int | None:
    return _positive(values.get(f"{prefix}total_tokens"))


def _positive(value: object) -> int | None:
    return value if isinstance(value, int) and value > 0 else None


def _copied_from(
    connection: sqlite3.Connection, session_id: str
) -> tuple[str, datetime | None] | None:
    """(the session this one is a copy of, when its first turn was written), for a session
    `copy_session` made (Desktop's duplicate; an import of an export of one kept here): a
    new row, then the source's messages written again, each keeping its `message_id` and
    `created_timestamp`. Its first message is then older than the session and another,
    older session holds the same message id."""
    if "message_id" not in databases.table_columns(connection, "messages") or not {
        "id",
        "created_at",
    } <= databases.table_columns(connection, "sessions"):
        return None
    first = connection.execute(
        "SELECT m.message_id, m.created_timestamp, s.created_at FROM messages AS m "
        "JOIN sessions AS s ON s.id = m.session_id WHERE m.session_id = ? "
        "ORDER BY m.id LIMIT 1",
        (session_id,),
    ).fetchone()
    if first is None or not isinstance(first[0], str) or not first[0]:
        return None
    message_id, stamp, created = first
    when, born = db_time(stamp), db_time(created)
    if when is None or born is None or when >= born:
        return None
    found = connection.execute(
        "SELECT s.id FROM messages AS m JOIN sessions AS s ON s.id = m.session_id "
        "WHERE m.message_id = ? AND m.session_id != ? AND s.created_at < ? "
        "ORDER BY s.created_at, s.id LIMIT 1",
        (message_id, session_id, created),
    ).fetchone()
    source = as_str(found[0]) if found else None
    return (source, when) if source else None


def _session_row(connection: sqlite3.Connection, session_id: str) -> dict[str, object]:
    available = databases.table_columns(connection, "sessions")
    wanted = [c for c in _USAGE_COLUMNS if c in available]
    if "id" not in available or not wanted:
        return {}
    row = connection.execute(
        f"SELECT {', '.join(wanted)} FROM sessions WHERE id = ?", (session_id,)
    ).fetchone()
    return dict(zip(wanted, row, strict=True)) if row else {}


class _Call:
    """One `usage_ledger` row: one model call Goose billed."""

    __slots__ = ("carried", "compaction", "counts", "model", "time", "total")

    def __init__(self, row: tuple[object, ...]) -> None:
        stamp, model, given, made, read, written, total, compaction, source = row
        self.time = db_time(stamp)
        self.model = as_str(model)
        self.counts: Counts = _counters(
            {"input_tokens": given, "output_tokens": made,
             "cache_read_tokens": read, "cache_write_tokens": written}, "",
        )  # fmt: skip
        self.total = _positive(total)
        self.compaction = compaction == 1
        # Goose's sum of the calls before the ledger, moved into it on the next call
        self.carried = source == "carried_forward"


def _ledger(
    connection: sqlite3.Connection, session_id: str, after: int = 0
) -> list[_Call] | None:
    """The session's model calls, oldest first (but for the first `after`); None where
    the database has no ledger."""
    available = databases.table_columns(connection, "usage_ledger")
    if not {"session_id", "input_tokens", "output_tokens"} <= available:
        return None
    wanted = ("created_timestamp", "model", "input_tokens", "output_tokens",
              "cache_read_tokens", "cache_write_tokens", "total_tokens", "is_compaction",
              "cost_source")  # fmt: skip
    columns = [c if c in available else "NULL" for c in wanted]
    rows = connection.execute(
        f"SELECT {', '.join(columns)} FROM usage_ledger WHERE session_id = ? "
        f"ORDER BY {columns[0]}, rowid LIMIT -1 OFFSET ?",
        (session_id, after),
    ).fetchall()
    return [_Call(row) for row in rows]


class _Spent:
    """What a session's ledger rows sum to: counts, totals, whether a row has none."""

    __slots__ = ("counts", "total", "untotalled")

    def __init__(self, counts: Counts, total: int, untotalled: bool) -> None:
        self.counts = counts
        self.total = total
        self.untotalled = untotalled


def _spent(calls: list[_Call] | None) -> _Spent | None:
    if calls is None:
        return None
    given, made, read, written = (sum(c.counts[i] for c in calls) for i in range(4))
    return _Spent(
        (given, made, read, written),
        sum(call.total or 0 for call in calls),
        any(call.total is None for call in calls),
    )


def _ledger_spent(connection: sqlite3.Connection, session_id: str) -> _Spent | None:
    """`_spent` of every ledger row, summed in SQL as `_Call` reads each value: an
    integer up to 2**53, else nothing (counts), a positive integer (totals)."""
    available = databases.table_columns(connection, "usage_ledger")
    if not {"session_id", "input_tokens", "output_tokens"} <= available:
        return None
    sums = [
        f"SUM(CASE WHEN typeof({c}) = 'integer' AND {c} > 0 AND {c} <= {2**53} "
        f"THEN {c} ELSE 0 END)"
        if c in available
        else "0"
        for c in (f"{name}_tokens" for name in _COUNTS)
    ]
    positive = "typeof(total_tokens) = 'integer' AND total_tokens > 0"
    if "total_tokens" in available:
        sums += [f"SUM(CASE WHEN {positive} THEN total_tokens ELSE 0 END)",
                 f"SUM(CASE WHEN {positive} THEN 0 ELSE 1 END)"]  # fmt: skip
    else:
        sums += ["0", "COUNT(*)"]
    row = connection.execute(
        f"SELECT {', '.join(sums)} FROM usage_ledger WHERE session_id = ?",
        (session_id,),
    ).fetchone()
    given, made, read, written, total, untotalled = (
        v if isinstance(v, int) else 0 for v in row
    )
    return _Spent((given, made, read, written), total, untotalled > 0)


def _unledgered(info: Mapping[str, object], spent: _Spent | None) -> Counts:
    """What the session's counters hold beyond its ledger rows.

    Goose (schema v15) writes every model call to `usage_ledger` and adds it to the
    `accumulated_*` counters in the same transaction; spend from before the ledger is
    moved into it as one `carried_forward` row on the session's next call. So the ledger
    is the better source (per call, with its time and model: what `sessdex usage` splits
    by day and model), and the counters add only what it does not hold yet, column by
    column, as Goose's own totals do (the larger of the two): nothing is counted twice.
    The per-message `metadata_json.usage` is not read: it repeats ledger rows, and misses
    compaction calls and calls whose usage a later one on the same message replaced.
    """
    if spent is None:  # before the ledger: the counters are all there is
        return _counters(info, _counter_prefix(info))
    recorded = _counters(info, "accumulated_")
    given, made, read, written = (
        max(0, total - spent.counts[i]) for i, total in enumerate(recorded)
    )
    return given, made, read, written


def _unledgered_total(info: Mapping[str, object], spent: _Spent | None) -> int | None:
    """The session total beyond its ledger rows, as `_unledgered` counts the rest; None
    where a ledger row has no total to take away (the remainder would be all of it)."""
    if spent is None:
        return _total(info, _counter_prefix(info))
    recorded = _total(info, "accumulated_")
    if recorded is None or spent.untotalled:
        return None
    return max(0, recorded - spent.total)


def _message_rows(connection: sqlite3.Connection) -> str:
    """The query of a session's message rows: (id, role, rowid, time, metadata)."""
    columns = databases.table_columns(connection, "messages")
    created = "created_timestamp" if "created_timestamp" in columns else "NULL"
    metadata = "metadata_json" if "metadata_json" in columns else "NULL"
    return f"SELECT id, role, rowid, {created}, {metadata} FROM messages WHERE session_id = ? "


# the rows before the last ones looked at for what they carry, before reading whole
_LOOK_BACK = 16


class _Earlier:
    """The rows before the last ones a tail reads, newest first, for what the whole read
    carries from them into those: each is read only when asked, most not at all."""

    def __init__(
        self,
        reader: _Reader,
        connection: sqlite3.Connection,
        first: object,
        rows: Iterator[tuple[object, ...]],
    ) -> None:
        self.reader = reader
        self.connection = connection
        self.first = first  # the id of the first of the last rows
        self.rows = rows
        self.seen: list[tuple[object, ...]] = []  # those taken from `rows` so far
        self.known = False  # the lead's compaction state at the first row is settled

    def row(self, n: int) -> tuple[object, ...] | None:
        """The n-th row before the last ones (0: the one just before)."""
        while len(self.seen) <= n:
            row = next(self.rows, None)
            if row is None:
                return None
            self.seen.append(row)
        return self.seen[n]

    def readable(self, row: tuple[object, ...]) -> tuple[object] | None:
        """The row's content where the whole read reads it (its findings are not this
        read's: the rows it counts are the last ones)."""
        return self.reader.items(self.connection, row[0], row[2], Diagnostics())

    def compacted_known(self) -> None:
        self.known = True

    def compacted(self) -> bool:
        """Whether a compaction had hidden the lead's history and its summary was still to
        come, after the earlier rows: the newest readable one that sets or clears it says."""
        if self.known:
            return False  # settled by the last rows themselves
        n = 0
        while (row := self.row(n)) is not None:
            n += 1
            role, meta = row[1], json_object(row[4])
            hides = meta.get("agentVisible") is False
            clears = role == "user" and meta.get("userVisible") is False
            if (hides or clears) and self.readable(row) is not None:
                return hides
        return False

    def calls_counted(self) -> int | None:
        """`calls_given` counted in SQL, where every time of the ledger and of the earlier
        messages is a positive integer of epoch seconds (as Goose writes them): the calls
        are then in time order, and those before the latest earlier message are given;
        None where that does not hold, and `calls_given` counts them."""
        connection, session_id = self.connection, self.reader.session_id
        ledger = databases.table_columns(connection, "usage_ledger")
        if not {"session_id", "created_timestamp"} <= ledger or (
            "created_timestamp" not in databases.table_columns(connection, "messages")
        ):
            return None
        seconds = (
            "SUM(typeof(created_timestamp) = 'integer' AND created_timestamp > 0 "
            f"AND created_timestamp <= {int(MS_ABOVE)}) = COUNT(*)"
        )
        (clean,) = connection.execute(
            f"SELECT {seconds} FROM usage_ledger WHERE session_id = ?", (session_id,)
        ).fetchone()
        latest, earlier_clean = connection.execute(
            f"SELECT max(created_timestamp), {seconds} FROM messages "
            "WHERE session_id = ? AND id < ?",
            (session_id, self.first),
        ).fetchone()
        if not clean or not earlier_clean or not isinstance(latest, int):
            return None

        def before(time: object) -> int:
            (count,) = connection.execute(
                "SELECT COUNT(*) FROM usage_ledger WHERE session_id = ? "
                "AND created_timestamp < ?",
                (session_id, time),
            ).fetchone()
            return int(count)

        every = before(latest)  # as if every earlier row were readable
        newest = 0  # the latest time of the newest readable rows
        for n in range(_LOOK_BACK):
            row = self.row(n)
            if row is None:
                break
            if self.readable(row) is not None and isinstance(row[3], int):
                newest = max(newest, row[3])
                if before(newest) == every:
                    return every
        raise WholeRead("an unreadable earlier message may have held the calls back")

    def calls_given(self, calls: list[_Call]) -> int:
        """How many of the ledger's calls the whole read gives before the first of the
        last rows: those before the time of a readable earlier message (the readable ones
        alone move it). Counted over every earlier row's time, then over the few newest
        read: where both agree, no unreadable row between could change it."""
        if not calls:
            return 0
        columns = databases.table_columns(self.connection, "messages")
        created = "created_timestamp" if "created_timestamp" in columns else "NULL"
        times = self.connection.execute(
            f"SELECT {created} FROM messages WHERE session_id = ? AND id < ? ORDER BY id",
            (self.reader.session_id, self.first),
        )
        every = _given(calls, (db_time(t) for (t,) in times))
        newest: list[datetime | None] = []
        for n in range(_LOOK_BACK):
            row = self.row(n)
            if row is None:
                break
            if self.readable(row) is not None:
                newest.insert(0, db_time(row[3]))
                if _given(calls, newest) == every:
                    return every
        raise WholeRead("an unreadable earlier message may have held the calls back")

    def requests(
        self, messages: list[tuple[datetime | None, object, object, dict[str, object]]]
    ) -> None:
        """Note the earlier tool calls that the last rows' results answer (a delegate's
        result is told by its call): they are among the few rows just before."""
        asked: set[str] = set()
        open_: set[str] = set()
        for _, _, items, _ in messages:
            for item in _dicts(items):
                kind = type_tag(item.get("type"))
                call_id = as_str(item.get("id"))
                if call_id is None:
                    continue
                if kind in ("toolRequest", "frontendToolRequest"):
                    asked.add(call_id)
                elif kind == "toolResponse" and call_id not in asked:
                    open_.add(call_id)
        n = 0
        while open_:
            row = self.row(n) if n < _LOOK_BACK else None
            if row is None:
                raise WholeRead("a result whose call is not among the rows just before")
            n += 1
            content = self.readable(row)
            found = [
                item
                for item in _dicts(content[0] if content else None)
                if type_tag(item.get("type")) in ("toolRequest", "frontendToolRequest")
                and as_str(item.get("id")) in open_
            ]
            for item in found:  # as the whole read notes them, in their order
                call = _result(item.get("toolCall"))
                arguments = json_copy(
                    call.get("arguments") if isinstance(call, dict) else None
                )
                self.reader.requested(as_str(item.get("id")), arguments)
            open_ -= {as_str(item.get("id")) for item in found}


def _dicts(items: object) -> list[dict[str, object]]:
    return [
        i for i in (items if isinstance(items, list) else []) if isinstance(i, dict)
    ]


def _given(calls: list[_Call], times: Iterable[datetime | None]) -> int:
    """How many calls `session` gives before messages of these times come to an end."""
    given = 0
    for time in times:
        while given < len(calls):
            when = calls[given].time
            if when is not None and (time is None or when >= time):
                break
            given += 1
    return given


class _Reader:
    def __init__(
        self, session_id: str, diagnostics: Diagnostics, full: bool = False
    ) -> None:
        self.session_id = session_id
        self.diagnostics = diagnostics
        self.full = full  # huge messages whole, not with their long strings elided
        self.event = Emitter(session_id)
        self.last_time: datetime | None = None
        self.connection: sqlite3.Connection | None = None
        self.db = ""
        self.linked = False  # the database records sub-agents' parents (schema v15)
        self.inlined = {session_id}  # sessions whose events are read, against cycles
        # tool call id -> (instructions, source) of a call that may be summon's delegate
        self.delegations: dict[str, tuple[str | None, str | None]] = {}
        # delegate calls with `async`: answered at launch
        self.background: set[str] = set()
        # agents whose history a compaction took from the model (agentVisible false)
        # and whose summary has not come yet
        self.compacted: set[str | None] = set()
        # the rows before the last ones a tail reads (read_last), else None
        self.earlier: _Earlier | None = None

    def say(
        self,
        kind: EventKind,
        time: datetime | None,
        agent: str | None,
        **fields: Unpack[EventFields],
    ) -> Event:
        fields["agent_id"] = agent
        return self.event(kind, time, **fields)

    def action(
        self, data: dict[str, object], time: datetime | None, agent: str | None
    ) -> Iterator[Event]:
        """An `actionRequired` item: the agent asking the user something (elicitation) and
        the answer; a tool confirmation repeats the tool request and is passed over, the
        user's answer to it is a `meta` event on the tool call."""
        kind = as_str(data.get("actionType"))
        if kind == "elicitation":
            question = as_str(data.get("message"))
            yield self.say(
                "meta",
                time,
                agent,
                text=question,
                # mid-tool, the agent waits for the user's answer (agent.rs stores it)
                extra={"elicitation": as_str(data.get("id")), "asks": "answer"},
            )
        elif kind == "elicitationResponse":
            answer = _action_event_text(data)
            if answer:
                yield self.say(
                    "user",
                    time,
                    agent,
                    text=answer,
                    extra={"answers": as_str(data.get("id"))},
                )
        elif kind == "toolConfirmationResponse":
            # not typed input (it would start a new turn in the live status): a setting
            # of the call, like a mode change
            permission = as_str(data.get("permission"))
            said = _PERMISSIONS.get(permission or "", permission or "answered")
            yield self.say(
                "meta",
                time,
                agent,
                text=f"tool call {said}",
                call_id=as_str(data.get("id")),
                extra={"permission": permission, "answered": True},
            )
        elif kind == "toolConfirmation":
            # stored only by the opt-in state machine (ops_tool_approval.rs): the call
            # waits for the user's permission until the response
            tool = as_str(data.get("toolName")) or as_str(data.get("tool_name"))
            yield self.say(
                "meta",
                time,
                agent,
                tool=tool,
                call_id=as_str(data.get("id")),
                text=f"{tool or 'a tool'} asks for permission",
                extra={"asks": "approval"},
            )
        else:
            self.diagnostics.unknown_type(f"actionRequired:{kind}")

    def database(self, db: str, last: int | None = None) -> Iterator[Event]:
        try:
            connection = databases.open_sqlite(db)
        except (OSError, sqlite3.Error) as error:
            self.diagnostics.problem(read_failed(NAME, db, error, "cannot open"))
            return
        self.connection, self.db = connection, db
        try:
            self.linked = "parent_session_id" in databases.table_columns(
                connection, "sessions"
            )
            columns = databases.table_columns(connection, "messages")
            if not {"session_id", "role", "content_json"} <= columns:
                self.diagnostics.problem(f"{NAME}: {db} has no messages table we know")
                return
            if last is None:
                yield from self.session(connection, self.session_id, None, 0)
            else:
                yield from self.last_messages(connection, last)
        except sqlite3.Error as error:
            self.diagnostics.problem(read_failed(NAME, db, error))
        finally:
            self.connection = None
            connection.close()

    def session(
        self,
        connection: sqlite3.Connection,
        session_id: str,
        agent: str | None,
        depth: int,
    ) -> Iterator[Event]:
        """One session's messages with its model calls among them (by time), what its
        counters hold beyond those, then the sub-agents no tool result named."""
        info = _session_row(connection, session_id)
        model = as_str(json_object(info.get("model_config_json")).get("model_name"))
        # whom the session's model calls went to, for the price list
        provider = as_str(info.get("provider_name"))
        billing: dict[str, JSONValue] = {"provider": provider} if provider else {}
        calls = _ledger(connection, session_id)
        spent = _spent(calls)
        pending = iter(calls or [])
        call = next(pending, None)
        if depth == 0 and (copied := _copied_from(connection, session_id)) is not None:
            source, when = copied
            yield self.say(
                "meta",
                when,
                agent,
                text=copied_note(source),
                extra={"forked_from": source},
            )
        for time, role, items, meta in self.messages(connection, session_id):
            while call is not None and (
                call.time is None or (time is not None and call.time < time)
            ):
                yield from self.call(call, model, agent, billing)
                call = next(pending, None)
            yield from self.message(role, items, time, meta, agent, depth)
        while call is not None:
            yield from self.call(call, model, agent, billing)
            call = next(pending, None)
        usage = _usage(_unledgered(info, spent), model, _unledgered_total(info, spent))
        if usage is not None:
            yield self.say(
                "usage",
                db_time(info.get("updated_at")) or self.last_time,
                agent,
                usage=usage,
                extra={"scope": "session", "summed": True, **billing},
            )
        if self.linked:
            children = connection.execute(
                "SELECT id FROM sessions WHERE parent_session_id = ? ORDER BY id",
                (session_id,),
            ).fetchall()
            for (child,) in children:
                yield from self.spawn(child, session_id, None, None, agent, depth)

    def call(
        self,
        call: _Call,
        model: str | None,
        agent: str | None,
        billing: dict[str, JSONValue],
    ) -> Iterator[Event]:
        usage = _usage(call.counts, call.model or model, call.total)
        if usage is None:
            return
        extra: dict[str, JSONValue] = {}
        if call.carried:
            extra["scope"] = "session"
            extra["summed"] = True
        if call.compaction:
            extra["compaction"] = True
        yield self.say(
            "usage", call.time, agent, usage=usage, extra={**extra, **billing}
        )

    def spawn(
        self,
        child: object,
        parent: str,
        call_id: str | None,
        time: datetime | None,
        agent: str | None,
        depth: int,
    ) -> Iterator[Event]:
        """A sub-agent's session, read inside its parent's: only one that records this
        parent, as `sessdex usage` then counts it with the parent and not on its own."""
        connection = self.connection
        if (
            not isinstance(child, str)
            or child in self.inlined
            or depth >= _MAX_DEPTH
            or connection is None
            or not self.linked
        ):
            return
        row = connection.execute(
            "SELECT created_at, name FROM sessions WHERE id = ? AND parent_session_id = ?",
            (child, parent),
        ).fetchone()
        if (
            row is None
            and connection.execute(
                "SELECT 1 FROM sessions WHERE id = ?", (child,)
            ).fetchone()
        ):
            return  # another session's (it records another parent): not read here
        self.inlined.add(child)
        if row is None:  # the result names a session Goose made, and it is gone
            self.diagnostics.child_missing(NAME, child)
            row = (None, None)
        instructions, source = self.delegations.get(call_id or "", (None, None))
        extra: dict[str, JSONValue] = {"child_id": child, "agent_type": "sub_agent"}
        if source:  # the recipe or agent it ran
            extra["agent_name"] = source
        yield self.say(
            "subagent",
            db_time(row[0]) or time,  # when it was created
            agent,
            call_id=call_id,
            text=instructions or one_line(row[1], limit=None),
            extra=extra,
        )
        yield from self.session(connection, child, child, depth + 1)

    def messages(
        self,
        connection: sqlite3.Connection,
        session_id: str,
        rows: Iterable[tuple[object, ...]] | None = None,
    ) -> Iterator[tuple[datetime | None, object, object, dict[str, object]]]:
        """The session's readable messages in order (of `rows`, `_message_rows`' rows,
        where given)."""
        if rows is None:
            rows = connection.execute(
                _message_rows(connection) + "ORDER BY id", (session_id,)
            )
        for row_id, role, rowid, stamp, meta in rows:
            content = self.items(connection, row_id, rowid, self.diagnostics)
            if content is not None:
                yield db_time(stamp), role, content[0], json_object(meta)

    def items(
        self,
        connection: sqlite3.Connection,
        row_id: object,
        rowid: object,
        diagnostics: Diagnostics,
    ) -> tuple[object] | None:
        """A message's content (JSON `null` too), or None where the whole read passes it
        over (counted)."""
        where = f"{self.db}#messages/{row_id}"
        if not isinstance(rowid, int):
            return None
        content = databases.bounded_value(
            connection, "messages", "content_json", rowid, full=self.full,
            diagnostics=diagnostics, where=where,
        )  # fmt: skip
        if content is None:
            return None  # counted "too long", or no content at all
        try:
            items: object = orjson.loads(content)
        except orjson.JSONDecodeError:
            diagnostics.skip(where, 0, "not JSON")
            return None
        return (items,)

    def last_messages(
        self, connection: sqlite3.Connection, last: int
    ) -> Iterator[Event]:
        """The lead's events of the session's last `last` messages, as `session` reads
        them (raises WholeRead where that is not exact)."""
        session_id = self.session_id
        if (
            self.linked
            and connection.execute(
                "SELECT 1 FROM sessions WHERE parent_session_id = ? LIMIT 1",
                (session_id,),
            ).fetchone()
        ):
            raise WholeRead("its sub-agents are read among its messages")
        backwards = connection.execute(
            _message_rows(connection) + "ORDER BY id DESC", (session_id,)
        )
        newest = backwards.fetchmany(last + 1)
        if len(newest) <= last:
            raise WholeRead("no more messages than asked for")
        window = list(reversed(newest[:last]))
        earlier = _Earlier(
            self, connection, window[0][0], itertools.chain(newest[last:], backwards)
        )
        self.earlier = earlier
        info = _session_row(connection, session_id)
        model = as_str(json_object(info.get("model_config_json")).get("model_name"))
        provider = as_str(info.get("provider_name"))
        billing: dict[str, JSONValue] = {"provider": provider} if provider else {}
        given = earlier.calls_counted()
        if given is not None:  # counted in SQL: only the calls after are read
            calls = _ledger(connection, session_id, after=given)
            spent = _ledger_spent(connection, session_id)
        else:
            calls = _ledger(connection, session_id)
            spent = _spent(calls)
            calls = (calls or [])[earlier.calls_given(calls or []) :]
        pending = iter(calls or [])
        call = next(pending, None)
        messages = list(self.messages(connection, session_id, window))
        earlier.requests(messages)
        for time, role, items, meta in messages:
            while call is not None and (
                call.time is None or (time is not None and call.time < time)
            ):
                yield from self.call(call, model, None, billing)
                call = next(pending, None)
            yield from self.message(role, items, time, meta, None, 0)
        while call is not None:
            yield from self.call(call, model, None, billing)
            call = next(pending, None)
        usage = _usage(_unledgered(info, spent), model, _unledgered_total(info, spent))
        if usage is not None:
            when = db_time(info.get("updated_at")) or self.last_time
            if when is None:
                raise WholeRead("the usage takes its time from an earlier message")
            yield self.say(
                "usage",
                when,
                None,
                usage=usage,
                extra={"scope": "session", "summed": True, **billing},
            )

    def legacy(self, path: str, full: bool, offset: int) -> Iterator[Event]:
        try:
            for line, record in files.iter_records(
                path, self.diagnostics, offset=offset, full=full
            ):
                if "role" not in record:
                    if line.number != 1 or offset:
                        self.diagnostics.unknown_type("line without role")
                    continue
                yield from self.message(
                    record.get("role"),
                    _current_items(record.get("content")),
                    db_time(record.get("created")),
                    json_object(record.get("metadata")),
                    None,
                    0,
                )
        except FileNotFoundError:
            self.diagnostics.problem(f"{NAME}: {path} vanished before it could be read")
        except OSError as error:
            self.diagnostics.problem(read_failed(NAME, path, error))

    def message(
        self,
        role: object,
        items: object,
        time: datetime | None,
        meta: dict[str, object],
        agent: str | None,
        depth: int,
    ) -> Iterator[Event]:
        self.last_time = time or self.last_time
        flags: dict[str, JSONValue] = (
            {"hidden": True} if meta.get("userVisible") is False else {}
        )
        hidden_from_model = meta.get("agentVisible") is False
        if (
            agent is None
            and self.earlier is not None
            and (
                hidden_from_model
                or (role == "user" and meta.get("userVisible") is False)
            )
        ):
            # the first message of the last rows read that the state of a compaction
            # matters to, or that sets it: where the rows before left it
            if not hidden_from_model and self.earlier.compacted():
                self.compacted.add(None)
            self.earlier.compacted_known()
        if hidden_from_model:
            self.compacted.add(agent)
        if meta.get("userVisible") is False:
            # the user never saw it: the harness's words, never the user's. A compaction
            # (context_mgmt compact_messages) hides the history from the model, then adds
            # for the model only the summary as a user message, a "context was compacted"
            # note and the last prompt again: the summary is the compaction
            if role == "user" and not hidden_from_model and agent in self.compacted:
                self.compacted.discard(agent)
                texts = [
                    text
                    for item in (items if isinstance(items, list) else [])
                    if isinstance(item, dict) and item.get("type") == "text"
                    if (text := shown_text(item.get("text"), keep_empty=False))
                ]
                yield self.say("compaction", time, agent, text="\n".join(texts) or None)
                return
            flags["injected"] = True
        if meta.get("turnContext") is True:
            # what Goose appends for the model each turn (folder, time, todo list): the
            # harness spoke, not the user
            flags.update(injected=True, turn_context=True)
        for item in items if isinstance(items, list) else []:
            if isinstance(item, dict):
                yield from self.content(item, role, time, flags, agent, depth)

    def requested(self, call_id: str | None, arguments: JSONValue) -> None:
        """Note a tool call that may be summon's delegate, for its spawn and result."""
        if call_id is not None and isinstance(arguments, dict):
            instructions = as_str(arguments.get("instructions"))
            source = as_str(arguments.get("source"))
            if instructions or source:  # perhaps summon's delegate: for its spawn
                self.delegations[call_id] = (instructions, source)
                if arguments.get("async") is True:
                    self.background.add(call_id)

    def content(
        self,
        item: dict[str, object],
        role: object,
        time: datetime | None,
        flags: dict[str, JSONValue],
        agent: str | None,
        depth: int,
    ) -> Iterator[Event]:
        kind = type_tag(item.get("type"))
        said: EventKind = "user" if role == "user" else "assistant"
        if flags.get("injected"):
            said = "meta"
        if kind == "text":
            text = shown_text(item.get("text"), keep_empty=False)
            if text:
                yield self.say(said, time, agent, text=text, extra=flags)
        elif kind == "image":
            data = item.get("data")
            size = len(data) * 3 // 4 if isinstance(data, str) else 0
            marker = files.elided(data) if isinstance(data, str) else None
            size = marker[0] * 3 // 4 if marker else size
            label = f"[{as_str(item.get('mimeType')) or 'image'}, {files.human_bytes(size)}]"
            yield self.say(said, time, agent, text=label, extra=flags)
        elif kind in ("toolRequest", "frontendToolRequest"):
            call = _result(item.get("toolCall"))
            name = as_str(call.get("name")) if isinstance(call, dict) else None
            arguments = json_copy(
                call.get("arguments") if isinstance(call, dict) else None
            )
            call_id = as_str(item.get("id"))
            self.requested(call_id, arguments)
            yield self.say(
                "tool_call",
                time,
                agent,
                tool=name,
                call_id=call_id,
                extra={"input": arguments},
            )
        elif kind == "toolResponse":
            result = item.get("toolResult")
            ok = isinstance(result, dict) and result.get("status") == "success"
            value = _result(result)
            is_error = not ok or (
                isinstance(value, dict) and value.get("isError") is True
            )
            call_id = as_str(item.get("id"))
            # summon's delegate names the sub-agent's session in the result's `_meta`;
            # the sub-agent ran between the call and this result, or, a foreground
            # delegate (`foreground_subagent`, schema v17), runs after it: the result only
            # says it was scheduled, and its outcome comes back as a hidden user message
            noted = as_dict(as_dict(value).get("_meta"))
            child = noted.get("subagent_session_id")
            if self.earlier is not None and self.linked and isinstance(child, str):
                raise WholeRead("a sub-agent is read with the result that names it")
            parent = agent or self.session_id
            after = noted.get("foreground_subagent") is True and not is_error
            spawned = self.spawn(child, parent, call_id, time, agent, depth)
            if after:  # the spawn is announced here, the sub-agent's events follow
                yield from itertools.islice(spawned, 1)
            else:
                yield from spawned
            # an async delegate answers at launch (summon.rs); `load` reports its end
            launched = (call_id in self.background or after) and not is_error
            yield self.say(
                "tool_result",
                time,
                agent,
                call_id=call_id,
                text=_tool_output(result, value),
                is_error=is_error,
                extra={"launched": True} if launched else {},
            )
            if after:
                yield from spawned
            ended = as_str(noted.get("task_status"))
            if isinstance(child, str) and ended in _TASK_ENDS:
                yield self.say(
                    "meta",
                    time,
                    agent,
                    text=f"sub-agent {ended}",
                    extra={"child_id": child, "subagent_status": _TASK_ENDS[ended]},
                )
        elif kind == "thinking":
            text = shown_text(item.get("thinking"), keep_empty=False)
            if text:
                yield self.say("thinking", time, agent, text=text)
        elif kind == "reasoning":
            # older messages; Goose reads them as thinking (and drops one without text)
            text = shown_text(item.get("text"), keep_empty=False)
            if text:
                yield self.say("thinking", time, agent, text=text)
        elif kind == "error":
            # the turn failed (`kind`: contextLengthExceeded, authentication, …)
            error_kind = as_str(item.get("kind"))
            yield self.say(
                "error",
                time,
                agent,
                text=shown_text(item.get("message"), keep_empty=False)
                or error_kind
                or "error",
                extra={"kind": error_kind} if error_kind else {},
            )
        elif kind == "systemNotification":
            notification = item.get("notificationType")
            if notification in _SPINNER_NOTIFICATIONS:
                return
            yield self.say(
                "meta",
                time,
                agent,
                text=as_str(item.get("msg")),
                extra={"notification": json_copy(notification)},
            )
        elif kind == "conversationCompacted":
            yield self.say("compaction", time, agent, text=as_str(item.get("msg")))
        elif kind == "actionRequired":
            yield from self.action(as_dict(item.get("data")), time, agent)
        elif kind in ("redactedThinking", "toolConfirmationRequest"):
            return
        else:
            self.diagnostics.unknown_type(f"content:{kind}")


def _action_event_text(data: dict[str, object]) -> str | None:
    """What the user answered to an elicitation, as one line of JSON or text."""
    answer = data.get("user_data")
    if isinstance(answer, str):
        return answer
    return orjson.dumps(answer).decode() if answer not in (None, {}) else None


def _result(value: object) -> object:
    """The `value` of Goose's `{status: success, value}` wrapper (None for an error)."""
    return (
        value.get("value")
        if isinstance(value, dict) and value.get("status") == "success"
        else None
    )


def _tool_output(result: object, value: object) -> str | None:
    if isinstance(result, dict) and result.get("status") == "error":
        return as_str(result.get("error")) or "error"
    content = (
        value.get("content") if isinstance(value, dict) else value
    )  # newer: CallToolResult
    items = (
        [item for item in content if isinstance(item, dict)]
        if isinstance(content, list)
        else []
    )
    # Goose's own tools answer twice (goose-mcp developer, since 1.0): the output for the
    # model (audience assistant) and for the person (audience user, a repeat or a summary
    # such as a listing's count); the model's copy is the output, unless it has no text (a
    # file view's is an embedded resource)
    texts = _texts([item for item in items if _for_model(item)]) or _texts(items)
    return "\n".join(texts) if texts else None


def _texts(items: list[dict[str, object]]) -> list[str]:
    texts = []
    for item in items:
        if isinstance(item.get("text"), str):
            texts.append(shown_text(item["text"], keep_empty=False) or "")
        elif item.get("type") == "image":
            texts.append(f"[{as_str(item.get('mimeType')) or 'image'}]")
    return texts


def _for_model(item: dict[str, object]) -> bool:
    """Whether a tool result's content item reached the model: any without an audience."""
    audience = as_dict(item.get("annotations")).get("audience")
    return not isinstance(audience, list) or "assistant" in audience


def resume_refusal(session: Session) -> str | None:
    """Why `resume` gives no command for a session in `~/.config/goose/sessions/`."""
    if session.extra.get("store") != "config":
        return None
    if session.extra.get("format") == "python":
        return (
            "this session was saved by Goose 0.x (the Python goose-ai, which resumed it "
            "with 'goose session resume <name>'); today's Goose reads neither "
            f"~/.config/goose/sessions nor that format. {named('show')} reads it."
        )
    return (
        "this session was saved in ~/.config/goose/sessions by Goose 1.0.5 or older; "
        f"Goose has not looked there since 1.0.6. {named('show')} reads it."
    )


def _keep_mode(mode: str) -> str:
    """How to keep `mode`: the line that sets GOOSE_MODE in the user's shell, the file's
    word quoted for it (or, where that shell cannot be given the word, what to set)."""
    try:
        return f"run {shells.set_variable('GOOSE_MODE', mode)} first"
    except NotQuotable:
        return "set the environment variable GOOSE_MODE to it before resuming"


def resume(session: Session, *, keep_permissions: bool = False) -> ResumePlan | None:
    """`goose session --resume --session-id <id>` in the session's folder.

    Sessions only in a legacy JSONL file are resumed by name (`--name <file stem>`), as the
    Goose releases that wrote them did; those in `~/.config/goose/sessions/` not at all (no
    Goose since 1.0.6 looks there). Goose's mode (`GOOSE_MODE`) is configuration, not a
    flag, and its default `auto` is already the loosest, so nothing is withheld; a stricter
    recorded mode is mentioned in the notes.
    """
    if session.extra.get("store") == "config":
        return None
    if session.extra.get("store") == "jsonl":
        argv = ("goose", "session", "--resume", "--name", session.id)
    else:
        argv = ("goose", "session", "--resume", "--session-id", session.id)
    notes = []
    mode = session.permission_mode
    if mode and mode != "auto":  # "auto", the default, runs tools without asking
        notes.append(
            f"the session ran in goose mode '{mode}'; to keep it, {_keep_mode(mode)}"
        )
    if session.agent_type == "sub_agent":
        notes.append(
            "a sub-agent session: it reopens on its own, not inside its parent"
        )
    return ResumePlan(
        argv=argv,
        cwd=session.cwd or ".",
        program="goose",
        install_hint=INSTALL_HINT,
        notes=tuple(notes),
    )


def resume_program(plan: ResumePlan) -> tuple[ResumePlan, str | None]:
    """The `goose` on PATH where it is Block's: its CLI is compiled Rust (a release,
    Homebrew's block-goose-cli, the desktop app's), or a launcher that names it. `goose`
    is also the SQL migration tool (pressly/goose, a Go program), which is never given
    `session --resume`. A wrapper (Nix's, a Homebrew exec script) is judged by what it
    starts."""
    found = shutil.which(plan.program)
    if found is None:
        return plan, None
    judged = programs.wrapped(found) or found
    if programs.is_go(judged):
        return plan, None
    if programs.is_launcher(judged) and not programs.launcher_names(
        judged, ("goose-cli", "block-goose", "block/goose", "aaif-goose")
    ):
        return plan, None
    return plan, found
