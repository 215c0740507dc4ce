"""OpenCode (sst/opencode, now anomalyco/opencode): a SQLite store, and the JSON tree before it.

OpenCode keeps everything under `$XDG_DATA_HOME/opencode` (default
`~/.local/share/opencode`, on macOS too). Since about 1.2 that is one SQLite database,
`opencode.db` (channel builds write `opencode-<channel>.db`), in WAL mode: the newest rows
often live only in `opencode.db-wal`, so it is always opened through `files.open_sqlite`,
which reads a snapshot of db + WAL. One database holds every session: a row of `session`
(`id`, `parent_id` for sub-agent children, `directory`, `title`, `version`, `model` JSON
`{id, providerID, variant}`, epoch-ms `time_created`/`time_updated`, `time_archived`),
its `message` rows (`data` JSON: role, modelID, tokens, finish, error, time) and their
`part` rows (`data` JSON: text, reasoning, tool, file, step-start/-finish, snapshot, patch,
agent, subtask, retry, compaction). Older releases wrote the same records as JSON files:
`storage/session/<project>/<ses>.json`, `storage/message/<ses>/<msg>.json` and
`storage/part/<msg>/<prt>.json`; both are read, and a database row wins over a file for
the same id (the upgrade copies the files into the database). We ignore the `event`
log, `todo`, `permission`, `project` and snapshots, and the newest builds'
`session_message` table (reported as a problem when it is all a session has).

Usage: one `usage` event per assistant message, from its `tokens` (the per-step
`step-finish` parts repeat them and are not added). OpenCode stores `input` without
cache reads and writes already; recent releases store `output` without `reasoning`,
so output here is `output + reasoning` (older releases that counted reasoning inside
`output` are over-counted by their reasoning tokens). A `task` tool call spawns a child
session (`state.metadata.sessionId`); its events follow the spawn, tagged with the
child's id. The git branch is not recorded.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import orjson

from .. import files
from ..diagnostics import Diagnostics
from ..model import Event, EventKind, JSONValue, ResumePlan, Session, Usage
from .base import Home, Location

NAME = "opencode"
TITLE = "OpenCode"
CHECKED_WITH = "opencode 1.18.33 (SQLite, real files); 1.3 JSON storage tree (public synthetic samples)"
ENV_VARS = ("XDG_DATA_HOME",)

INSTALL_HINT = (
    "npm install -g opencode-ai  (or: curl -fsSL https://opencode.ai/install | bash)"
)

_SESSION_COLUMNS = (
    "id",
    "parent_id",
    "directory",
    "title",
    "version",
    "agent",
    "model",
    "cost",
    "time_created",
    "time_updated",
    "time_archived",
)
_IGNORED_PARTS = {"step-start", "step-finish", "snapshot", "patch"}
_MAX_DEPTH = 4  # sub-agents of sub-agents: deep enough, and no loop can run away

# Reads a child session's events: (child session id, agent id to tag them with).
Children = Callable[[str, str], Iterator[Event]] | None


def locate(home: Home) -> Location:
    override = home.env_dir("XDG_DATA_HOME")
    return Location(
        home.xdg("data") / "opencode",
        override=f"XDG_DATA_HOME={override}" if override else None,
    )


def scan(location: Location) -> Iterator[Path]:
    if not location.exists:
        return
    root = location.root
    for entry in files.entries(root, root):
        if _is_database(entry.name) and entry.is_file():
            yield Path(entry.path)
    for project in files.entries(root / "storage" / "session", root):
        if not project.is_dir():
            continue
        for entry in files.entries(Path(project.path), root):
            if entry.name.endswith(".json") and entry.is_file():
                yield Path(entry.path)


def _is_database(name: str) -> bool:
    return name == "opencode.db" or (
        name.startswith("opencode-") and name.endswith(".db")
    )


def parse(path: Path, location: Location, diagnostics: Diagnostics) -> list[Session]:
    if path.suffix == ".db":
        return _parse_database(path, diagnostics)
    return _parse_json_session(path, diagnostics)


def _parse_database(path: Path, diagnostics: Diagnostics) -> list[Session]:
    try:
        connection = files.open_sqlite(path)
    except (OSError, sqlite3.Error) as error:
        diagnostics.problem(f"{NAME}: cannot open {path}: {error}")
        return []
    try:
        available = files.table_columns(connection, "session")
        if "id" not in available:
            diagnostics.problem(
                f"{NAME}: {path} has no session table; not an OpenCode database we know"
            )
            return []
        missing = [
            c
            for c in ("directory", "title", "time_created", "time_updated")
            if c not in available
        ]
        if missing:
            diagnostics.problem(
                f"{NAME}: {path} session table lacks {', '.join(missing)}"
            )
        columns = [c for c in _SESSION_COLUMNS if c in available]
        rows = connection.execute(
            f"SELECT {', '.join(files.quote_identifier(c) for c in columns)} FROM session ORDER BY id"
        ).fetchall()
    except sqlite3.Error as error:
        diagnostics.problem(f"{NAME}: cannot read {path}: {error}")
        return []
    finally:
        connection.close()

    sessions = []
    for values in rows:
        row = dict(zip(columns, values, strict=True))
        session_id = _str(row.get("id"))
        if session_id is None:
            continue
        model = _json_object(row.get("model"))
        version = _str(row.get("version"))
        if version:
            diagnostics.versions[version] += 1
        extra: dict[str, JSONValue] = {"store": "sqlite"}
        provider = _str(model.get("providerID"))
        if provider:
            extra["provider"] = provider
        if row.get("agent"):
            extra["agent"] = _str(row.get("agent"))
        if isinstance(row.get("cost"), int | float) and row.get("cost"):
            extra["cost"] = _json(row["cost"])
        if row.get("time_archived"):
            extra["archived"] = True
        parent = _str(row.get("parent_id"))
        variant = _str(model.get("variant"))
        sessions.append(
            Session(
                app=NAME,
                id=session_id,
                path=f"{path}#session/{session_id}",
                cwd=_str(row.get("directory")),
                title=_one_line(row.get("title")),
                created=_ms(row.get("time_created")),
                updated=_ms(row.get("time_updated")),
                model=_str(model.get("id")),
                effort=variant if variant != "default" else None,
                cli_version=version,
                parent_id=parent,
                agent_type=_str(row.get("agent")) if parent else None,
                precedence=10,
                extra=extra,
            )
        )
    return sessions


def _parse_json_session(path: Path, diagnostics: Diagnostics) -> list[Session]:
    value = files.read_json_file(path, limit=4 * 1024 * 1024)
    if not isinstance(value, dict):
        diagnostics.skip(str(path), 1, "not JSON" if path.exists() else "vanished")
        return []
    session_id = _str(value.get("id"))
    if session_id is None:
        diagnostics.skip(str(path), 1, "bad value")
        return []
    times = value.get("time") if isinstance(value.get("time"), dict) else {}
    assert isinstance(times, dict)
    storage = path.parents[2]
    model, provider = _last_model(storage / "message" / session_id)
    version = _str(value.get("version"))
    if version:
        diagnostics.versions[version] += 1
    extra: dict[str, JSONValue] = {"store": "json"}
    if provider:
        extra["provider"] = provider
    return [
        Session(
            app=NAME,
            id=session_id,
            path=str(path),
            cwd=_str(value.get("directory")),
            title=_one_line(value.get("title")),
            created=_ms(times.get("created")),
            updated=_ms(times.get("updated")),
            model=model,
            cli_version=version,
            bytes=path.stat().st_size if path.exists() else None,
            parent_id=_str(value.get("parentID")),
            extra=extra,
        )
    ]


def _last_model(folder: Path) -> tuple[str | None, str | None]:
    """The model of a session's newest message file (message ids sort by time)."""
    for entry in reversed(files.entries(folder)):
        info = files.read_json_file(entry.path, limit=1024 * 1024)
        if isinstance(info, dict):
            model = info.get("model") if isinstance(info.get("model"), dict) else {}
            assert isinstance(model, dict)
            return (
                _str(info.get("modelID")) or _str(model.get("modelID")),
                _str(info.get("providerID")) or _str(model.get("providerID")),
            )
    return None, None


# --- reading ------------------------------------------------------------------------


def read(
    session: Session, diagnostics: Diagnostics, *, full: bool = False, offset: int = 0
) -> Iterator[Event]:
    if not session.path:
        return
    reader = _Reader(session.id, diagnostics)
    if "#session/" in session.path:
        yield from reader.database(session.path.split("#session/")[0])
    else:
        yield from reader.json_tree(Path(session.path))


class _Reader:
    """Turns OpenCode messages and parts into events, child sessions included."""

    def __init__(self, session_id: str, diagnostics: Diagnostics) -> None:
        self.session_id = session_id
        self.diagnostics = diagnostics
        self.seq = 0
        self.message_time = "time_created"

    def event(
        self,
        kind: EventKind,
        time: datetime | None,
        agent: str | None,
        **fields: object,
    ) -> Event:
        event = Event(self.session_id, self.seq, kind, time, agent_id=agent, **fields)  # type: ignore[arg-type]
        self.seq += 1
        return event

    # -- SQLite --

    def database(self, db: str) -> Iterator[Event]:
        try:
            connection = files.open_sqlite(db)
        except (OSError, sqlite3.Error) as error:
            self.diagnostics.problem(f"{NAME}: cannot open {db}: {error}")
            return
        try:
            messages = files.table_columns(connection, "message")
            if not {"id", "session_id", "data"} <= messages or not {
                "message_id",
                "data",
            } <= files.table_columns(connection, "part"):
                self.diagnostics.problem(
                    f"{NAME}: {db} lacks the message or part table we know"
                )
                return
            self.message_time = "time_created" if "time_created" in messages else "NULL"
            yield from self.database_session(connection, self.session_id, None, 0)
        except sqlite3.Error as error:
            self.diagnostics.problem(f"{NAME}: cannot read {db}: {error}")
        finally:
            connection.close()

    def database_session(
        self,
        connection: sqlite3.Connection,
        session_id: str,
        agent: str | None,
        depth: int,
    ) -> Iterator[Event]:
        messages = connection.execute(
            f"SELECT id, {self.message_time} AS created, data FROM message WHERE session_id = ? ORDER BY created, id",
            (session_id,),
        )
        children: Children = None
        if depth < _MAX_DEPTH:

            def children(child: str, child_agent: str) -> Iterator[Event]:
                return self.database_session(connection, child, child_agent, depth + 1)

        seen = 0
        for message_id, created, data in messages:
            seen += 1
            parts = connection.execute(
                "SELECT data FROM part WHERE message_id = ? ORDER BY id", (message_id,)
            )
            yield from self.message(
                _json_object(data),
                created,
                (_json_object(p[0]) for p in parts),
                agent,
                children,
            )
        if not seen and files.table_columns(connection, "session_message"):
            (count,) = connection.execute(
                "SELECT count(*) FROM session_message WHERE session_id = ?",
                (session_id,),
            ).fetchone()
            if count:
                self.diagnostics.problem(
                    f"{NAME}: session {session_id} is stored in the newer session_message table, not read yet"
                )

    # -- JSON tree --

    def json_tree(self, path: Path) -> Iterator[Event]:
        storage = path.parents[2] if len(path.parents) > 2 else path.parent
        yield from self.json_session(storage, self.session_id, None, 0)

    def json_session(
        self, storage: Path, session_id: str, agent: str | None, depth: int
    ) -> Iterator[Event]:
        infos = []
        for entry in files.entries(storage / "message" / session_id):
            info = files.read_json_file(entry.path, limit=4 * 1024 * 1024)
            if not isinstance(info, dict):
                self.diagnostics.skip(entry.path, 1, "not JSON")
                continue
            infos.append(info)
        infos.sort(key=lambda i: (_created(i) or 0, _str(i.get("id")) or ""))
        children: Children = None
        if depth < _MAX_DEPTH:

            def children(child: str, child_agent: str) -> Iterator[Event]:
                return self.json_session(storage, child, child_agent, depth + 1)

        for info in infos:
            message_id = _str(info.get("id")) or ""
            parts = []
            for entry in files.entries(storage / "part" / message_id):
                part = files.read_json_file(entry.path, limit=64 * 1024 * 1024)
                if not isinstance(part, dict):
                    self.diagnostics.skip(entry.path, 1, "not JSON")
                    continue
                parts.append(part)
            yield from self.message(info, _created(info), iter(parts), agent, children)

    # -- shared --

    def message(
        self,
        info: dict[str, object],
        created: object,
        parts: Iterator[dict[str, object]],
        agent: str | None,
        children: Children,
    ) -> Iterator[Event]:
        role = info.get("role")
        time = _ms(created) or _ms(_created(info))
        summary = bool(info.get("summary") is True)
        for part in parts:
            yield from self.part(part, role, time, agent, summary, children)
        if role != "assistant":
            return
        tokens = info.get("tokens")
        times = info.get("time") if isinstance(info.get("time"), dict) else {}
        assert isinstance(times, dict)
        done = _ms(times.get("completed")) or time
        model = _str(info.get("modelID"))
        if isinstance(tokens, dict):
            usage = _usage(tokens, model)
            if usage is not None:
                yield self.event("usage", done, agent, usage=usage)
        error = info.get("error")
        if isinstance(error, dict):
            data = error.get("data") if isinstance(error.get("data"), dict) else {}
            assert isinstance(data, dict)
            text = _str(data.get("message")) or _str(error.get("name")) or "error"
            yield self.event(
                "error",
                done,
                agent,
                text=text,
                extra={"name": _json(error.get("name"))},
            )
        finish = _str(info.get("finish"))
        if finish and finish not in ("tool-calls", "tool_calls", "unknown"):
            yield self.event("turn_end", done, agent, extra={"reason": finish})

    def part(
        self,
        part: dict[str, object],
        role: object,
        time: datetime | None,
        agent: str | None,
        summary: bool,
        children: Children,
    ) -> Iterator[Event]:
        kind = part.get("type")
        times = part.get("time") if isinstance(part.get("time"), dict) else {}
        assert isinstance(times, dict)
        when = _ms(times.get("start")) or time
        if kind == "text":
            text = _text(part.get("text"))
            if not text:
                return
            if summary:
                yield self.event("compaction", when, agent, text=text)
            elif part.get("synthetic"):
                yield self.event(
                    "meta", when, agent, text=text, extra={"synthetic": True}
                )
            else:
                yield self.event(
                    "user" if role == "user" else "assistant", when, agent, text=text
                )
        elif kind == "reasoning":
            text = _text(part.get("text"))
            if text:
                yield self.event("thinking", when, agent, text=text)
        elif kind == "tool":
            yield from self.tool(part, when, agent, children)
        elif kind == "file":
            name = _str(part.get("filename")) or _str(part.get("url")) or "file"
            mime = _str(part.get("mime"))
            label = f"[file {name}{', ' + mime if mime else ''}]"
            yield self.event(
                "user" if role == "user" else "assistant", when, agent, text=label
            )
        elif kind == "agent":
            agent_name = _str(part.get("name"))
            yield self.event(
                "meta",
                when,
                agent,
                text=f"agent: {agent_name}",
                extra={"agent": agent_name},
            )
        elif kind == "subtask":
            text = _str(part.get("description")) or _str(part.get("prompt"))
            yield self.event(
                "meta",
                when,
                agent,
                text=text,
                extra={"subtask": _json(part.get("agent"))},
            )
        elif kind == "retry":
            error = part.get("error")
            data = (
                error.get("data")
                if isinstance(error, dict) and isinstance(error.get("data"), dict)
                else {}
            )
            assert isinstance(data, dict)
            yield self.event(
                "error",
                when,
                agent,
                text=_str(data.get("message")) or "retry",
                extra={"retry": True},
            )
        elif kind == "compaction":
            yield self.event(
                "compaction", when, agent, extra={"auto": _json(part.get("auto"))}
            )
        elif kind in _IGNORED_PARTS:
            return
        else:
            self.diagnostics.unknown_type(f"part:{kind}")

    def tool(
        self,
        part: dict[str, object],
        when: datetime | None,
        agent: str | None,
        children: Children,
    ) -> Iterator[Event]:
        name = _str(part.get("tool"))
        call_id = _str(part.get("callID"))
        state = part.get("state") if isinstance(part.get("state"), dict) else {}
        assert isinstance(state, dict)
        args = state.get("input")
        yield self.event(
            "tool_call",
            when,
            agent,
            tool=name,
            call_id=call_id,
            extra={"input": _json(args)},
        )
        metadata = (
            state.get("metadata") if isinstance(state.get("metadata"), dict) else {}
        )
        assert isinstance(metadata, dict)
        child = _str(metadata.get("sessionId"))
        if name == "task" and isinstance(args, dict):
            yield self.event(
                "subagent",
                when,
                agent,
                call_id=call_id,
                text=_str(args.get("description")),
                extra={
                    "child_id": child,
                    "agent_type": _json(args.get("subagent_type")),
                },
            )
            if child and child != self.session_id and children is not None:
                yield from children(child, child)
        status = state.get("status")
        if status in ("pending", "running"):
            return
        times = state.get("time") if isinstance(state.get("time"), dict) else {}
        assert isinstance(times, dict)
        is_error = status == "error"
        output = state.get("error") if is_error else state.get("output")
        yield self.event(
            "tool_result",
            _ms(times.get("end")) or when,
            agent,
            tool=name,
            call_id=call_id,
            text=_text(output)
            if isinstance(output, str)
            else (orjson.dumps(output).decode() if output else None),
            is_error=is_error,
        )


def _usage(tokens: dict[str, object], model: str | None) -> Usage | None:
    cache = tokens.get("cache") if isinstance(tokens.get("cache"), dict) else {}
    assert isinstance(cache, dict)
    reasoning = _int(tokens.get("reasoning"))
    usage = Usage(
        input_tokens=_int(tokens.get("input")),
        output_tokens=_int(tokens.get("output")) + reasoning,
        cache_read_tokens=_int(cache.get("read")),
        cache_write_tokens=_int(cache.get("write")),
        reasoning_tokens=reasoning,
        model=model,
    )
    return usage if usage.total else None


def _created(info: dict[str, object]) -> int | None:
    times = info.get("time")
    value = times.get("created") if isinstance(times, dict) else None
    return value if isinstance(value, int) else None


def _text(value: object) -> str | None:
    if not isinstance(value, str) or not value:
        return None
    marker = files.elided(value)
    return f"[text, {files.human_bytes(marker[0])}]" if marker else value


def _json_object(value: object) -> dict[str, object]:
    if isinstance(value, dict):
        return value
    if isinstance(value, str | bytes) and value:
        try:
            parsed = orjson.loads(value)
        except orjson.JSONDecodeError:
            return {}
        return parsed if isinstance(parsed, dict) else {}
    return {}


def _json(value: object) -> JSONValue:
    if value is None or isinstance(value, str | int | float | bool):
        return value
    try:
        parsed: JSONValue = orjson.loads(orjson.dumps(value))
    except TypeError:
        return str(value)
    return parsed


def _str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _one_line(value: object) -> str | None:
    text = " ".join(value.split()) if isinstance(value, str) else ""
    return text or None


def _int(value: object) -> int:
    return (
        int(value)
        if isinstance(value, int | float) and not isinstance(value, bool)
        else 0
    )


def _ms(value: object) -> datetime | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        return None
    try:
        return datetime.fromtimestamp(value / 1000, UTC)
    except (OverflowError, OSError, ValueError):
        return None


def resume(session: Session, *, keep_permissions: bool = False) -> ResumePlan | None:
    """`opencode --session <id>` in the session's folder, with `--model provider/model` when known.

    OpenCode sets approvals per tool in its config, not per session, so nothing is withheld.
    """
    argv = ["opencode", "--session", session.id]
    provider = session.extra.get("provider")
    if session.model and isinstance(provider, str):
        argv += ["--model", f"{provider}/{session.model}"]
    notes = (
        ("a sub-agent session: it reopens on its own, not inside its parent",)
        if session.parent_id
        else ()
    )
    return ResumePlan(
        argv=tuple(argv),
        cwd=session.cwd or ".",
        program="opencode",
        install_hint=INSTALL_HINT,
        notes=notes,
    )
