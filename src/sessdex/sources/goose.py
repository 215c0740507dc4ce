"""Goose (block/goose): a SQLite session store, and the JSONL files before it.

Goose keeps sessions in its data folder's `sessions/` (Linux: `$XDG_DATA_HOME/goose`,
default `~/.local/share/goose`; `GOOSE_PATH_ROOT=<root>` moves it to `<root>/data`). Current
releases write one SQLite database, `sessions/sessions.db` (WAL, so it is opened through
`databases.open_sqlite`): `sessions` rows (`id` like `20251108_1`, `name` (older `description`),
`session_type` user / scheduled / sub_agent / hidden / …, `working_dir`, `created_at` /
`updated_at` as UTC `YYYY-MM-DD HH:MM:SS`, `model_config_json.model_name`,
`provider_name`, `goose_mode`, token counters) and `messages` rows (`role`, `content_json`:
Goose message content — text, image, toolRequest, toolResponse, thinking,
redactedThinking, toolConfirmationRequest, actionRequired, frontendToolRequest,
systemNotification — `created_timestamp` in unix seconds, `metadata_json` visibility). An
`actionRequired` elicitation (the agent asking the user) is a `meta` event and its
`elicitationResponse` a `user` event.
Releases before the database wrote `sessions/<id>.jsonl`: line 1 metadata (`working_dir`,
`description`, token counters), then one message per line; the database imports them on
first run under the same id, and the database row wins. Columns missing from older
databases are tolerated.

`hidden` sessions are Goose's own helpers and are skipped. A `sub_agent` session is linked
to its parent only where the database records one (`parent_session_id`, which upstream
Goose does not have yet); otherwise it is listed with `agent_type` "sub_agent" and no parent.

Usage: Goose stores no per-response tokens. One `usage` event per session carries the
session's `accumulated_input_tokens` / `accumulated_output_tokens` (else the plain
counters), with `extra["scope"] = "session"`; Goose does not say how much of the input
was cached, so cache tokens stay zero.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import orjson

from .. import databases, files, folders
from ..diagnostics import Diagnostics
from ..model import Event, JSONValue, ResumePlan, Session, Usage
from ._values import (
    Emitter,
    as_dict,
    as_int,
    as_str,
    db_time,
    json_copy,
    json_object,
    one_line,
    shown_text,
    type_tag,
)
from .base import Home, Location

NAME = "goose"
TITLE = "Goose"
SCAN_NOTED = True  # locate reads only the environment; scan only lists and probes
CHECKED_WITH = "goose session schema v5-v13 (source, synthetic DB); legacy JSONL (source, synthetic)"
ENV_VARS = ("GOOSE_PATH_ROOT", "XDG_DATA_HOME")

INSTALL_HINT = "brew install block-goose-cli  (or: curl -fsSL https://github.com/block/goose/releases/download/stable/download_cli.sh | bash)"

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


def locate(home: Home) -> Location:
    root = home.env_dir("GOOSE_PATH_ROOT")
    if root is not None and root.is_absolute():
        return Location(root / "data" / "sessions", override=f"GOOSE_PATH_ROOT={root}")
    xdg = home.env_dir("XDG_DATA_HOME")
    return Location(
        home.xdg("data") / "goose" / "sessions",
        override=f"XDG_DATA_HOME={xdg}" if xdg else None,
    )


def scan(location: Location) -> Iterator[Path]:
    if not location.exists:
        return
    for entry in folders.entries(location.root, location.root):
        if (
            entry.name == "sessions.db" or entry.name.endswith(".jsonl")
        ) and entry.is_file():
            yield Path(entry.path)


def parse(path: Path, location: Location, diagnostics: Diagnostics) -> list[Session]:
    if path.suffix == ".jsonl":
        return _parse_legacy(path, diagnostics)
    try:
        connection = databases.open_sqlite(path)
    except (OSError, sqlite3.Error) as error:
        diagnostics.problem(f"{NAME}: cannot open {path}: {error}")
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
        rows = connection.execute(
            f"SELECT {', '.join(columns)} FROM sessions ORDER BY id"
        ).fetchall()
    except sqlite3.Error as error:
        diagnostics.problem(f"{NAME}: cannot read {path}: {error}")
        return []
    finally:
        connection.close()

    sessions = []
    for values in rows:
        row = dict(zip(columns, values, strict=True))
        session_id = as_str(row.get("id"))
        kind = as_str(row.get("session_type")) or "user"
        if session_id is None or kind in _SKIPPED_TYPES:
            continue
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
                title=one_line(row.get("name"), limit=None)
                or one_line(row.get("description"), limit=None),
                created=db_time(row.get("created_at")),
                updated=db_time(row.get("updated_at")),
                model=as_str(config.get("model_name")),
                permission_mode=as_str(row.get("goose_mode")),
                parent_id=parent,
                agent_type="sub_agent" if kind == "sub_agent" else None,
                precedence=10,
                extra=extra,
            )
        )
    return sessions


def _parse_legacy(path: Path, diagnostics: Diagnostics) -> list[Session]:
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
    extra: dict[str, JSONValue] = {"store": "jsonl"}
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
            title=one_line(meta.get("description"), limit=None),
            created=db_time(first.get("created")) if first else None,
            updated=db_time(last.get("created")) if last else None,
            bytes=size,
            extra=extra,
        )
    ]


# --- reading ------------------------------------------------------------------------


def read(
    session: Session, diagnostics: Diagnostics, *, full: bool = False, offset: int = 0
) -> Iterator[Event]:
    if not session.path:
        return
    reader = _Reader(session.id, diagnostics, full)
    if "#sessions/" in session.path:
        yield from reader.database(session.path.split("#sessions/")[0])
    else:
        yield from reader.legacy(session.path, full, offset)
    usage = _session_usage(session.extra, session.model)
    if usage is not None:
        yield reader.event(
            "usage",
            session.updated or reader.last_time,
            usage=usage,
            extra={"scope": "session"},
        )


def _session_usage(extra: object, model: str | None) -> Usage | None:
    if not isinstance(extra, dict):
        return None
    accumulated = any(
        isinstance(extra.get(k), int)
        for k in ("accumulated_input_tokens", "accumulated_output_tokens")
    )
    prefix = "accumulated_" if accumulated else ""
    usage = Usage(
        input_tokens=as_int(extra.get(f"{prefix}input_tokens"), floats=False),
        output_tokens=as_int(extra.get(f"{prefix}output_tokens"), floats=False),
        model=model,
    )
    return usage if usage.total else None


class _Reader:
    def __init__(
        self, session_id: str, diagnostics: Diagnostics, full: bool = False
    ) -> None:
        self.session_id = session_id
        self.diagnostics = diagnostics
        self.full = full  # huge messages whole, not with their long strings elided
        self.event = Emitter(session_id)
        self.last_time: datetime | None = None

    def action(self, data: dict[str, object], time: datetime | None) -> Iterator[Event]:
        """An `actionRequired` item: the agent asking the user something (elicitation) and
        the answer; a tool confirmation repeats the tool request and is passed over."""
        kind = as_str(data.get("actionType"))
        if kind == "elicitation":
            question = as_str(data.get("message"))
            yield self.event(
                "meta",
                time,
                text=question,
                extra={"elicitation": as_str(data.get("id"))},
            )
        elif kind == "elicitationResponse":
            answer = _action_event_text(data)
            if answer:
                yield self.event(
                    "user", time, text=answer, extra={"answers": as_str(data.get("id"))}
                )
        elif kind != "toolConfirmation":
            self.diagnostics.unknown_type(f"actionRequired:{kind}")

    def database(self, db: str) -> Iterator[Event]:
        try:
            connection = databases.open_sqlite(db)
        except (OSError, sqlite3.Error) as error:
            self.diagnostics.problem(f"{NAME}: cannot open {db}: {error}")
            return
        try:
            columns = databases.table_columns(connection, "messages")
            if not {"session_id", "role", "content_json"} <= columns:
                self.diagnostics.problem(f"{NAME}: {db} has no messages table we know")
                return
            created = "created_timestamp" if "created_timestamp" in columns else "NULL"
            metadata = "metadata_json" if "metadata_json" in columns else "NULL"
            rows = connection.execute(
                f"SELECT id, role, rowid, {created}, {metadata} FROM messages WHERE session_id = ? ORDER BY id",
                (self.session_id,),
            )
            for row_id, role, rowid, stamp, meta in rows:
                where = f"{db}#messages/{row_id}"
                content = databases.bounded_value(
                    connection, "messages", "content_json", rowid, full=self.full,
                    diagnostics=self.diagnostics, where=where,
                )  # fmt: skip
                if content is None:
                    continue  # counted "too long", or no content at all
                try:
                    items = orjson.loads(content)
                except orjson.JSONDecodeError:
                    self.diagnostics.skip(where, 0, "not JSON")
                    continue
                yield from self.message(role, items, db_time(stamp), json_object(meta))
        except sqlite3.Error as error:
            self.diagnostics.problem(f"{NAME}: cannot read {db}: {error}")
        finally:
            connection.close()

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
                    record.get("content"),
                    db_time(record.get("created")),
                    json_object(record.get("metadata")),
                )
        except FileNotFoundError:
            self.diagnostics.problem(f"{NAME}: {path} vanished before it could be read")
        except OSError as error:
            self.diagnostics.problem(f"{NAME}: cannot read {path}: {error.strerror}")

    def message(
        self,
        role: object,
        items: object,
        time: datetime | None,
        meta: dict[str, object],
    ) -> Iterator[Event]:
        self.last_time = time or self.last_time
        hidden: dict[str, JSONValue] = (
            {"hidden": True} if meta.get("userVisible") is False else {}
        )
        for item in items if isinstance(items, list) else []:
            if isinstance(item, dict):
                yield from self.content(item, role, time, hidden)

    def content(
        self,
        item: dict[str, object],
        role: object,
        time: datetime | None,
        hidden: dict[str, JSONValue],
    ) -> Iterator[Event]:
        kind = type_tag(item.get("type"))
        if kind == "text":
            text = shown_text(item.get("text"), keep_empty=False)
            if text:
                yield self.event(
                    "user" if role == "user" else "assistant",
                    time,
                    text=text,
                    extra=hidden,
                )
        elif kind == "image":
            data = item.get("data")
            size = len(data) * 3 // 4 if isinstance(data, str) else 0
            marker = files.elided(data) if isinstance(data, str) else None
            size = marker[0] * 3 // 4 if marker else size
            label = f"[{as_str(item.get('mimeType')) or 'image'}, {files.human_bytes(size)}]"
            yield self.event(
                "user" if role == "user" else "assistant",
                time,
                text=label,
                extra=hidden,
            )
        elif kind in ("toolRequest", "frontendToolRequest"):
            call = _result(item.get("toolCall"))
            name = as_str(call.get("name")) if isinstance(call, dict) else None
            arguments = call.get("arguments") if isinstance(call, dict) else None
            yield self.event(
                "tool_call",
                time,
                tool=name,
                call_id=as_str(item.get("id")),
                extra={"input": json_copy(arguments)},
            )
        elif kind == "toolResponse":
            result = item.get("toolResult")
            ok = isinstance(result, dict) and result.get("status") == "success"
            value = _result(result)
            is_error = not ok or (
                isinstance(value, dict) and value.get("isError") is True
            )
            yield self.event(
                "tool_result",
                time,
                call_id=as_str(item.get("id")),
                text=_tool_output(result, value),
                is_error=is_error,
            )
        elif kind == "thinking":
            text = shown_text(item.get("thinking"), keep_empty=False)
            if text:
                yield self.event("thinking", time, text=text)
        elif kind == "systemNotification":
            yield self.event(
                "meta",
                time,
                text=as_str(item.get("msg")),
                extra={"notification": json_copy(item.get("notificationType"))},
            )
        elif kind == "conversationCompacted":
            yield self.event("compaction", time, text=as_str(item.get("msg")))
        elif kind == "actionRequired":
            yield from self.action(as_dict(item.get("data")), time)
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
    texts = []
    for item in content if isinstance(content, list) else []:
        if isinstance(item, dict) and isinstance(item.get("text"), str):
            texts.append(shown_text(item["text"], keep_empty=False) or "")
        elif isinstance(item, dict) and item.get("type") == "image":
            texts.append(f"[{as_str(item.get('mimeType')) or 'image'}]")
    return "\n".join(texts) if texts else None


def resume(session: Session, *, keep_permissions: bool = False) -> ResumePlan | None:
    """`goose session --resume --session-id <id>` in the session's folder.

    Sessions only in a legacy JSONL file are resumed by name (`--name <file stem>`), as the
    Goose releases that wrote them did. Goose's mode (`GOOSE_MODE`) is configuration, not a
    flag, and its default `auto` is already the loosest, so nothing is withheld; a stricter
    recorded mode is mentioned in the notes.
    """
    if session.extra.get("store") == "jsonl":
        argv = ("goose", "session", "--resume", "--name", session.id)
    else:
        argv = ("goose", "session", "--resume", "--session-id", session.id)
    notes = []
    mode = session.permission_mode
    if mode and mode != "auto":  # "auto", the default, runs tools without asking
        notes.append(
            f"the session ran in goose mode '{mode}': set GOOSE_MODE={mode} to keep it"
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
