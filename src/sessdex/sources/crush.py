"""Crush (charmbracelet), and the Go OpenCode it grew from: one SQLite database per project.

Crush keeps each project's sessions in `<project>/.crush/crush.db` (SQLite, WAL; a custom
`data_directory` moves it). The projects themselves are listed in `projects.json`
(`{projects: [{path, data_dir, last_accessed}]}`) in Crush's global data folder:
`$CRUSH_GLOBAL_DATA`, else `$XDG_DATA_HOME/crush`, else `~/.local/share/crush` (Windows:
`%LOCALAPPDATA%\\crush`). That registry (Crush 0.25+, and only for local runs) is the
main way in; a project it does not name (older releases and client/server runs
registered none) is found where another agent recorded the folder (`_project_folders`).
The disk is never crawled. The Go OpenCode (opencode-ai/opencode, Crush's ancestor) wrote
the same tables to `<project>/.opencode/opencode.db` and kept no registry: it is found the
same ways. When a registered path is missing (a copied or moved home), it is looked up
again under the folders just above the registry, keeping the path's tail
(`/home/alex/code/app` or `C:\\Users\\alex\\code\\app` -> `<copy>/code/app`).

We read `sessions` (`id`, `parent_session_id`, `title`, token counters, `cost`,
`created_at`/`updated_at`: unix seconds in Crush, ISO text in Go OpenCode) and
`messages` (`role`, `parts` JSON list of `{type, data}`: text, reasoning, image_url,
binary, tool_call, tool_result, finish, shell_command; `model`, `provider`,
`is_summary_message`). Columns missing from older databases are tolerated. Sessions
named `title-<id>` only generate a title and are skipped; `files` (file history) and
`read_files` are ignored. Child sessions of the `agent` tool have the spawning call's id
(`<message id>$$<call id>` in Crush, the bare call id in Go OpenCode). A child no call
read names (its parent's message cut or rewritten) is read after its parent's messages,
announced as a call would: its type the tool its id names where that message still says,
else `agent`, its task its first prompt (Crush titles every one "New Agent Session": a
child with that title is listed by its first prompt too).

Usage: Crush records no per-response tokens, only counters on the session row, so one
`usage` event per session carries them (`extra["scope"] = "session"`). They are rough:
current Crush keeps the last response's context (input + cache reads, and its output),
older releases kept running sums that included cache tokens; the `cost` column is
cumulative in all of them, and exact: it is the cost `usage` shows (`app_cost_usd`),
less what the sub-agents read with the session spent (Crush's coordinator, and the Go
OpenCode's agent tool, add each child's cost to its parent row); a row whose cost is 0 (a
provider Crush has no price for) is priced from its rough tokens instead. Since 2026-05, a
provider that reports no usage gets rough chars/4 estimates in the same counters, which
nothing in the database tells apart.
"""

from __future__ import annotations

import itertools
import os
import re
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path, PurePosixPath

import orjson

from .. import databases, files, folders, freshness
from ..diagnostics import Diagnostics, odd_in, read_failed
from ..model import Event, EventKind, JSONValue, ResumePlan, Session, Usage
from . import _crush_projects
from ._project_folders import as_written, below_copy, recorded_folders
from ._values import (
    Emitter,
    as_dict,
    as_int,
    as_str,
    db_time,
    decoded_size,
    first_line,
    odd_count,
    one_line,
    parsed_arguments,
    shown_text,
    type_tag,
)
from .base import Home, Location, WholeRead

NAME = "crush"
TITLE = "Crush"
SCAN_NOTED = True  # locate reads the environment (and small files through files.read_small); scan only lists, probes and reads through files
CHECKED_WITH = (
    "crush schema of 2025-08 (real DB) to 2026-01 (migrations, synthetic DB); Go OpenCode 2025-05 (real DB)"
    "; resume flags from crush's root.go at v0.90 and @37f36e93 (not run); source to 2026-08-21 "
    "(@37f36e93, after v0.90.0: the same migrations, message parts and registry)"
)
ENV_VARS = ("CRUSH_GLOBAL_DATA", "XDG_DATA_HOME", "XDG_CONFIG_HOME")

INSTALL_HINT = "brew install charmbracelet/tap/crush"
INSTALL_NOTE = "or: `npm install -g @charmland/crush`"

_ORPHANS = 100_000  # child sessions looked at for those no call announced, at most
_SESSION_COLUMNS = ("id", "parent_session_id", "title", "message_count", "prompt_tokens", "completion_tokens",
                    "cost", "created_at", "updated_at", "summary_message_id")  # fmt: skip
# the title Crush (and the Go OpenCode) gives every `agent` tool's child session
_CHILD_TITLE = "New Agent Session"
LISTED_TABLES = {"sessions": _SESSION_COLUMNS}  # watch: a title changed in place
_PROMPT_COLUMNS = frozenset({"created_at", "session_id", "role", "parts"})
# after `WHERE session_id = ?`: a session's first user message
_FIRST_PROMPT = "AND role = 'user' ORDER BY created_at, rowid LIMIT 1"
_RELOCATE_LEVELS = 4  # folders above the registry tried as the old home's new place
# Crush's data folder on Windows, below the home: `%LOCALAPPDATA%\crush` (its default,
# `%USERPROFILE%\AppData\Local`), where Linux and macOS have `~/.local/share/crush`
WINDOWS_DATA = ("AppData", "Local", "crush")


@dataclass(frozen=True, slots=True)
class _Project:
    path: str  # as Crush recorded it: the cwd of its sessions
    data_dir: str  # as recorded
    found: Path  # where the project folder is now
    found_data: Path  # where the data folder is now


@dataclass(frozen=True, slots=True)
class CrushLocation(Location):
    """Crush's global data folder (its config folder beside it), and the home whose other
    agents' recorded folders may hold projects Crush never registered."""

    home: Path | None = None


def locate(home: Home) -> Location:
    value = home.env_dir("CRUSH_GLOBAL_DATA")
    xdg = home.env_dir("XDG_DATA_HOME")
    override: str | None
    if value is not None:
        root, override = value, f"CRUSH_GLOBAL_DATA={value}"
    else:
        root, override = (
            home.xdg("data") / "crush",
            f"XDG_DATA_HOME={xdg}" if xdg else None,
        )
        windows = home.path.joinpath(*WINDOWS_DATA)
        if (
            xdg is None
            and not folders.is_file(root / "projects.json")
            and folders.is_dir(windows)
        ):
            root = windows
    config = home.xdg("config") / "crush"  # a Crush user's, even before the registry
    return CrushLocation(root, override=override, also=(config,), home=home.path)


def scan(location: Location) -> Iterator[Path]:
    """Each registered project's database (from the small `projects.json`), then those in
    folders other agents recorded that Crush never registered (`_project_folders`)."""
    if not location.exists:
        return
    registry = location.root / _REGISTRY
    if folders.is_file(registry):  # read with each database (`context_of`)
        yield registry
    found = set()
    # not noted as the scan's: the registry is listed itself, and its digest says when
    # it changed for more than the `last_accessed` Crush rewrites at every start
    with freshness.paused():
        projects = _projects(location)
    for project in projects:
        # a project's data folder linked to a disk not mounted hides its sessions: named
        folders.dir_at(project.found_data)
        for db in (
            project.found_data / "crush.db",
            project.found / ".opencode" / "opencode.db",
        ):
            if folders.file_at(db):  # a folder so named hides it: said
                found.add(db)
    home = getattr(location, "home", None)
    for folder in recorded_folders(home) if home is not None else []:
        for db in (
            folder / ".crush" / "crush.db",
            folder / ".opencode" / "opencode.db",
        ):
            if folders.file_at(db):  # a folder so named hides it: said
                found.add(db)
    yield from sorted(found)


_REGISTRY = "projects.json"


def context_of(path: str, location: Location) -> str | None:
    """The folder under which the databases lie whose projects Crush's `projects.json`
    names: the whole disk's (a project may be anywhere), as every database's parse reads
    it to learn its project's folder."""
    if path != os.path.join(location.root, _REGISTRY):
        return None
    return os.path.splitdrive(path)[0] + os.sep


# a `projects.json` without the `last_accessed` Crush rewrites it for at every start: the
# folders its projects' databases read (a warm list loads it without this module)
context_digest = _crush_projects.digest


def _projects(location: Location) -> list[_Project]:
    return _registry(location)[0]


def _registry(location: Location) -> tuple[list[_Project], int]:
    """The projects `projects.json` names, and how many of its entries name none."""
    registry = files.read_json_file(
        location.root / _REGISTRY, limit=_crush_projects.LIMIT
    )
    listed = registry.get("projects") if isinstance(registry, dict) else None
    if not isinstance(listed, list):  # torn, or not the shape Crush writes
        listed = _salvaged(location.root / "projects.json")
    projects = []
    unread = 0
    for item in listed if isinstance(listed, list) else []:
        item = item if isinstance(item, dict) else {}
        # a folder whose bytes were not UTF-8 (read as U+FFFD) names no folder there is
        path, data_dir = (
            None if isinstance(value, str) and "\ufffd" in value else value
            for value in (item.get("path"), item.get("data_dir"))
        )
        if (not isinstance(path, str) or not path) and isinstance(data_dir, str):
            # an entry whose `path` went missing still names its data (as `_salvaged`
            # reads a torn registry): the project is the folder that holds it
            path = str(as_written(data_dir).parent) if data_dir else None
        if not isinstance(path, str) or not path:
            unread += 1
            continue
        data_dir = (
            data_dir
            if isinstance(data_dir, str) and data_dir
            else str(as_written(path) / ".crush")
        )
        found = _relocated(path, location.root)
        inside = as_written(data_dir).is_relative_to(as_written(path))
        found_data = (
            found / as_written(data_dir).relative_to(as_written(path))
            if inside
            else _relocated(data_dir, location.root)
        )
        projects.append(_Project(path, data_dir, found, found_data))
    return projects, unread


def _salvaged(registry: Path) -> list[dict[str, str]] | None:
    """The folders a registry that no longer parses (a torn write) still names: each
    `path` (its data in `.crush`) and each `data_dir` (in its project folder) alone."""
    data = files.read_small(registry, 16 * 1024 * 1024)
    if not data:
        return None
    listed = []
    for match in _NAMED.finditer(data):
        try:
            value = orjson.loads(match.group(2))
        except orjson.JSONDecodeError:
            continue
        if not isinstance(value, str) or not value:
            continue
        if match.group(1) == b"path":
            listed.append({"path": value})
        else:
            listed.append({"path": str(as_written(value).parent), "data_dir": value})
    return listed


_NAMED = re.compile(rb'"(path|data_dir)"\s*:\s*("(?:\\.|[^"\\\n])*")')


def _registry_torn(location: Location) -> bool:
    """A `projects.json` that is there but does not parse as Crush writes it."""
    registry = files.read_json_file(
        location.root / _REGISTRY, limit=_crush_projects.LIMIT
    )
    shaped = isinstance(registry, dict) and isinstance(registry.get("projects"), list)
    return not shaped and folders.is_file(location.root / "projects.json")


def doctor_notes(location: Location) -> list[str]:
    """A registry that names no project sessdex can read: every registered project's
    sessions are missing, and no database is read to say so (`parse` says it of each)."""
    projects, unread = _registry(location)
    if _registry_torn(location) and not projects:
        return [
            f"{location.root / 'projects.json'} does not parse as Crush writes it and "
            "names no project; only projects other agents recorded were looked at"
        ]
    if unread:  # an entry retyped or emptied: its project is read nowhere else
        entries, whose = (
            ("1 project entry names", "that project's")
            if unread == 1
            else (f"{unread} project entries name", "those projects'")
        )
        return [
            f"{location.root / 'projects.json'}: {entries} no folder sessdex can read; "
            f"{whose} sessions are missing unless another agent recorded its folder"
        ]
    return []


def _relocated(recorded: str, registry: Path) -> Path:
    """`recorded` if it exists, else the same tail under a folder near the registry."""
    path = Path(recorded)
    if folders.exists(path) or not as_written(recorded).is_absolute():
        return path
    anchors = [registry, *registry.parents][1 : _RELOCATE_LEVELS + 1]
    return below_copy(recorded, anchors) or path


def parse(path: Path, location: Location, diagnostics: Diagnostics) -> list[Session]:
    if path == location.root / _REGISTRY:  # read with each database
        return []
    project = next(
        (
            p
            for p in _projects(location)
            if path.parent in (p.found_data, p.found / ".opencode")
        ),
        None,
    )
    store = "opencode-go" if path.parent.name == ".opencode" else "crush"
    if _registry_torn(location):
        diagnostics.problem(
            f"{NAME}: {location.root / 'projects.json'} does not parse; "
            "its projects were found by the folders it still names"
        )
    connection = databases.open_or_say(path, NAME, diagnostics)
    if connection is None:
        return []
    try:
        available = databases.known_columns(
            connection, "sessions", {"id"}, diagnostics, (NAME, path), "Crush database"
        )
        if available is None:
            return []
        columns = [c for c in _SESSION_COLUMNS if c in available]
        order = "created_at, id" if "created_at" in available else "rowid"
        rows = connection.execute(
            f"SELECT {', '.join(columns)} FROM sessions WHERE id IS NULL OR id NOT LIKE 'title-%' ORDER BY {order}"
        ).fetchall()
        models = _last_models(connection)
        written = _last_written(connection)
        spawned_by = _spawning_tools(
            connection, [r[0] for r in rows if isinstance(r[0], str) and "$$" in r[0]]
        )
        tasks = _child_titles(connection, str(path))
    except sqlite3.Error as error:
        diagnostics.problem(read_failed(NAME, path, error))
        return []
    finally:
        connection.close()

    sessions = []
    for values in rows:
        row = dict(zip(columns, values, strict=True))
        session_id = row["id"]
        if not isinstance(session_id, str) or not session_id:
            diagnostics.skip(f"{path}#sessions", 0, "bad value")  # a row with no id
            continue
        model, provider = models.get(session_id, (None, None))
        extra: dict[str, JSONValue] = {"store": store}
        for key in ("prompt_tokens", "completion_tokens", "cost", "message_count"):
            if isinstance(row.get(key), int | float):
                extra[key] = row[key]
        if provider:
            extra["provider"] = provider
        if project is not None:
            extra["data_dir"] = project.data_dir
        parent = row.get("parent_session_id")
        sessions.append(
            Session(
                app=NAME,
                id=session_id,
                path=f"{path}#sessions/{session_id}",
                cwd=project.path if project else str(path.parent.parent),
                title=tasks.get(session_id) or one_line(row.get("title"), limit=None),
                created=db_time(row.get("created_at"), digit_text=True),
                updated=_later(
                    db_time(row.get("updated_at"), digit_text=True),
                    db_time(written.get(session_id), digit_text=True),
                ),
                model=model,
                parent_id=parent if isinstance(parent, str) and parent else None,
                agent_type=(spawned_by.get(session_id) or "agent")
                if isinstance(parent, str) and parent
                else None,
                extra=extra,
            )
        )
    return sessions


def _last_written(connection: sqlite3.Connection) -> dict[str, object]:
    """When each session's newest message row was last written. A cancelled turn (and a
    Crush turn's last answer) updates its message's `updated_at`, not the session's.
    One seek a session through the index on `session_id`, to the row written last;
    where no such index is there, none (a scan per session)."""
    columns = databases.table_columns(connection, "messages")
    if not {"session_id", "updated_at"} <= columns or not databases.indexed(
        connection, "messages", "session_id"
    ):
        return {}
    try:
        rows = connection.execute(
            "SELECT s.id, (SELECT m.updated_at FROM messages m WHERE m.rowid ="
            " (SELECT max(rowid) FROM messages WHERE session_id = s.id)) FROM sessions s"
        ).fetchall()
    except sqlite3.OperationalError:  # a table without rowid: its keys order nothing
        return {}
    return {session_id: stamp for session_id, stamp in rows if stamp is not None}


def last_written(session: Session) -> float | None:
    """When a message of `session` or of its sub-agents was last written (epoch
    seconds), from the `updated_at` of their rows: the database's own trigger stamps it
    at every update (whole seconds) and Crush at each insert; None where no such trigger
    is there, nor an index on `session_id`, or the database cannot be read. The live view's first read takes it
    for this session's last write (the database's is any session's)."""
    if not session.path or "#sessions/" not in session.path:
        return None
    try:
        connection = databases.open_sqlite(session.path.split("#sessions/")[0])
    except (OSError, sqlite3.Error):
        return None
    try:
        stamped = connection.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'messages'"
            " AND sql LIKE '%AFTER UPDATE%SET updated_at%'"
        ).fetchone()
        if (
            stamped is None
            or not databases.indexed(connection, "messages", "session_id")
            or "parent_session_id"
            not in databases.table_columns(connection, "sessions")
        ):
            return None
        # its sub-agents' too, whose answers its read shows inline
        rows = connection.execute(
            "WITH RECURSIVE family(id) AS (SELECT ? UNION"
            " SELECT s.id FROM sessions s JOIN family f ON s.parent_session_id = f.id)"
            " SELECT m.updated_at FROM family f JOIN messages m ON m.session_id = f.id",
            (session.id,),
        ).fetchall()
    except sqlite3.Error:
        return None
    finally:
        connection.close()
    # seconds from the trigger beside milliseconds from an insert: each as a time
    times = [db_time(value, digit_text=True) for (value,) in rows]
    return max((t.timestamp() for t in times if t is not None), default=None)


def _later(first: datetime | None, second: datetime | None) -> datetime | None:
    return max(first, second) if first and second else first or second


def _last_models(
    connection: sqlite3.Connection,
) -> dict[str, tuple[str | None, str | None]]:
    """Each session's newest assistant model (and provider, where the column exists)."""
    columns = databases.table_columns(connection, "messages")
    if not {"session_id", "role", "model", "created_at"} <= columns:
        return {}
    provider = "provider" if "provider" in columns else "NULL"
    rows = connection.execute(
        f"SELECT session_id, model, {provider}, max(created_at) FROM messages "
        "WHERE role = 'assistant' AND coalesce(model, '') != '' GROUP BY session_id"
    ).fetchall()
    return {row[0]: (as_str(row[1]), as_str(row[2])) for row in rows}


# --- reading ------------------------------------------------------------------------


def read(
    session: Session, diagnostics: Diagnostics, *, full: bool = False, offset: int = 0
) -> Iterator[Event]:
    yield from _read(session, diagnostics, full, None)


def read_last(
    session: Session, diagnostics: Diagnostics, rows: int, *, full: bool = False
) -> Iterator[Event]:
    """`read` of only the session's last `rows` messages (see base.py): no sub-agent is
    read, and its closing `usage` takes what it needs of the earlier rows from their
    small columns alone."""
    yield from _read(session, diagnostics, full, rows)


def _read(
    session: Session, diagnostics: Diagnostics, full: bool, last: int | None
) -> Iterator[Event]:
    """The session's events (of its last `last` messages only, unless None)."""
    if not session.path or "#sessions/" not in session.path:
        return
    db = session.path.split("#sessions/")[0]
    connection = databases.open_or_say(db, NAME, diagnostics)
    if connection is None:
        return
    reader = _Reader(session.id, diagnostics, connection, db, full, last=last)
    try:
        yield from reader.session(session.id, None, 0)
    except sqlite3.Error as error:
        diagnostics.problem(read_failed(NAME, db, error))
    finally:
        connection.close()


class _Reader:
    def __init__(
        self,
        session_id: str,
        diagnostics: Diagnostics,
        connection: sqlite3.Connection,
        db: str,
        full: bool = False,
        # only the lead's last messages, no sub-agent (read_last)
        last: int | None = None,
    ) -> None:
        self.session_id = session_id
        self.last = last
        self.db = db
        self.full = full  # huge parts whole, not with their long strings elided
        self.diagnostics = diagnostics
        self.connection = connection
        self.emit = Emitter(session_id)
        self.event = self.emit.by
        self.message_columns = databases.table_columns(connection, "messages")
        self.session_columns = databases.table_columns(connection, "sessions")
        # the sessions being read (lead first), and each one's children's rows' cost
        self.reading: list[str] = []
        self.children_cost: dict[str, float] = {}
        # child sessions a call read announced (and the session read: a loop ends)
        self.spawned: set[str] = {session_id}
        self.children: dict[str, list[str]] | None = None  # `_children_of`

    def session(
        self, session_id: str, agent: str | None, depth: int
    ) -> Iterator[Event]:
        wanted = [c for c in _SESSION_COLUMNS if c in self.session_columns]
        row = self.connection.execute(
            f"SELECT {', '.join(wanted)} FROM sessions WHERE id = ?", (session_id,)
        ).fetchone()
        info = dict(zip(wanted, row, strict=True)) if row else {}
        self.reading.append(session_id)
        try:
            yield from self._session(session_id, info, agent, depth)
        finally:
            self.reading.pop()
        cost = info.get("cost")
        if self.reading and isinstance(cost, int | float) and cost > 0:
            parent = self.reading[-1]  # its cost holds this child's
            self.children_cost[parent] = self.children_cost.get(parent, 0.0) + cost

    def _session(
        self,
        session_id: str,
        info: dict[str, object],
        agent: str | None,
        depth: int,
    ) -> Iterator[Event]:
        summary_id = info.get("summary_message_id")
        if not {"id", "session_id", "role", "parts"} <= self.message_columns:
            self.diagnostics.problem(f"{NAME}: {self.db} has no messages table we know")
            return
        optional = ", ".join(
            c if c in self.message_columns else "NULL"
            for c in (
                "created_at",
                "updated_at",
                "model",
                "provider",
                "is_summary_message",
            )
        )
        order = "created_at, rowid" if "created_at" in self.message_columns else "rowid"
        query = f"SELECT id, role, rowid, {optional} FROM messages WHERE session_id = ? ORDER BY "
        last_model = last_provider = None
        last_time = None
        # the rows before the last ones (read_last), for what the usage takes from them
        earlier: Iterator[tuple[object, ...]] = iter(())
        if self.last is None:
            messages = self.connection.execute(query + order, (session_id,))
        else:
            backwards = order.replace(",", " DESC,") + " DESC"
            cursor = self.connection.execute(query + backwards, (session_id,))
            newest = cursor.fetchmany(self.last + 1)
            if len(newest) <= self.last:
                raise WholeRead("no more messages than asked for")
            self.children_cost[session_id] = self._spawned_cost(session_id, order)
            earlier = itertools.chain(newest[self.last :], cursor)
            messages = iter(reversed(newest[: self.last]))
        for (
            message_id,
            role,
            rowid,
            created,
            updated,
            model,
            provider,
            is_summary,
        ) in messages:
            time = db_time(created, digit_text=True)
            last_time = db_time(updated, digit_text=True) or time or last_time
            last_model = as_str(model) or last_model
            last_provider = as_str(provider) or last_provider
            summary = bool(is_summary) or message_id == summary_id
            where = f"{self.db}#messages/{message_id}"
            parts_json = databases.bounded_value(
                self.connection, "messages", "parts", rowid, full=self.full,
                diagnostics=self.diagnostics, where=where,
            )  # fmt: skip
            for part in _parts(parts_json, self.diagnostics, where):
                yield from self.part(
                    part, role, message_id, time, agent, summary, depth
                )
        if self.last is None and len(self.reading) <= 4:
            yield from self.orphans(session_id, agent)
        for _, _, _, created, updated, model, provider, _ in earlier:
            if last_model and last_provider and last_time:
                break
            # what the loop above would have left from the rows before the last ones
            last_time = (
                last_time
                or db_time(updated, digit_text=True)
                or db_time(created, digit_text=True)
            )
            last_model = last_model or as_str(model)
            last_provider = last_provider or as_str(provider)
        usage = Usage(  # each 0 below 0, as `Usage.plausible` bills it
            input_tokens=max(0, as_int(info.get("prompt_tokens"))),
            output_tokens=max(0, as_int(info.get("completion_tokens"))),
            model=last_model,
        )
        if usage.total:
            if odd_count(info.get("prompt_tokens")) or odd_count(
                info.get("completion_tokens")
            ):  # billed as 0 (or its whole part); a row has no line
                where = f"{self.db}#sessions"
                self.diagnostics.damage(where, 0, odd_in("set of totals"))
            cost = info.get("cost")
            extra: dict[str, JSONValue] = {"scope": "session", "summed": True}
            if last_provider:  # for the price list, where Crush recorded no cost
                extra["provider"] = last_provider
            if isinstance(cost, int | float) and not isinstance(cost, bool):
                extra["cost"] = cost
                below = self.children_cost.get(session_id, 0.0)
                # children costing more than the row holds were not added to it (their
                # run broke off first): the row's cost is then its own
                own = cost - below if below <= cost * (1 + 1e-9) else cost
                if cost > 0:
                    extra["app_cost_usd"] = max(0.0, own)
            yield self.event(
                "usage",
                db_time(info.get("updated_at"), digit_text=True) or last_time,
                agent,
                usage=usage,
                extra=extra,
            )

    def _spawned_cost(self, session_id: str, order: str) -> float:
        """What the sub-agents the session's calls spawned cost (`children_cost`, as the
        whole read sums it while it reads them), found from the paid children's rows and
        the messages whose calls name them, not from every message's parts."""
        if not {"parent_session_id", "cost"} <= self.session_columns:
            return 0.0
        begun = "created_at, id" if "created_at" in self.session_columns else "rowid"
        paid = self.connection.execute(
            # a title's session (`title-<id>`, which no call spawned) costs too
            "SELECT id, cost FROM sessions WHERE parent_session_id = ? AND cost > 0 "
            f"AND id != ? AND id NOT LIKE 'title-%' ORDER BY {begun}",
            (session_id, session_id),
        ).fetchall()
        named: set[object] = set()  # the children a call names
        spawns: list[tuple[tuple[object, ...], float]] = []  # (where its call is, cost)
        for child, cost in paid:
            if not isinstance(cost, int | float):  # text: no cost the whole read adds
                continue
            message_id, split, call_id = str(child).partition("$$")
            if split:  # Crush: `<message id>$$<call id>`
                found = self.connection.execute(  # by its id alone (`+`: no index)
                    f"SELECT id, rowid, {order} FROM messages WHERE id = ? "
                    "AND +session_id = ?",
                    (message_id, session_id),
                )
            else:  # the Go OpenCode: the bare call id, in whichever message made it
                call_id = str(child)
                found = self.connection.execute(
                    f"SELECT id, rowid, {order} FROM messages WHERE session_id = ? "
                    "AND instr(parts, ?) > 0",
                    (session_id, call_id),
                )
            for spawner, rowid, *key in found.fetchall():
                parts = databases.bounded_value(
                    self.connection, "messages", "parts", rowid, full=self.full
                )
                for place, part in enumerate(_parts(parts, Diagnostics(), "")):
                    data = as_dict(part.get("data"))
                    if type_tag(part.get("type")) != "tool_call":
                        continue
                    if as_str(data.get("id")) != call_id:
                        continue
                    # the child the whole read finds for this call (`tool_call`)
                    spawned = self.connection.execute(
                        "SELECT id FROM sessions WHERE id IN (?, ?) "
                        "AND parent_session_id IS NOT NULL",
                        (f"{spawner}$${call_id}", call_id),
                    ).fetchone()
                    if spawned is not None and spawned[0] == child:
                        spawns.append(((*key, place), float(cost)))
                        named.add(child)
        total = 0.0
        for _, cost in sorted(spawns, key=lambda spawn: spawn[0]):  # in spawn order
            total += cost
        for child, cost in paid:  # then those no call names, read after (`orphans`)
            if child not in named and isinstance(cost, int | float):
                total += float(cost)
        return total

    def part(
        self,
        part: dict[str, object],
        role: object,
        message_id: str,
        time: datetime | None,
        agent: str | None,
        summary: bool,
        depth: int,
    ) -> Iterator[Event]:
        kind = type_tag(part.get("type"))
        data = part.get("data")
        data = data if isinstance(data, dict) else {}
        if kind == "text":
            text = shown_text(data.get("text"), keep_empty=False)
            if text and summary:
                yield self.event("compaction", time, agent, text=text)
            elif text:
                yield self.event(
                    "user" if role == "user" else "assistant", time, agent, text=text
                )
        elif kind == "reasoning":
            text = shown_text(data.get("thinking"), keep_empty=False)
            if text:
                yield self.event("thinking", time, agent, text=text)
        elif kind == "image_url":
            yield self.event(
                _speaker(role), time, agent, text=f"[image {_short(data.get('url'))}]"
            )
        elif kind == "binary":
            yield self.event(_speaker(role), time, agent, text=_binary_label(data))
        elif kind == "tool_call":
            yield from self.tool_call(data, message_id, time, agent, depth)
        elif kind == "tool_result":
            content = data.get("content")
            text = (
                _batch_results(content) or shown_text(content, keep_empty=False)
                if isinstance(content, str)
                else None
            )
            if not text and data.get("mime_type"):
                text = f"[{data['mime_type']}]"
            yield self.event(
                "tool_result",
                time,
                agent,
                call_id=as_str(data.get("tool_call_id")),
                tool=as_str(data.get("name")),
                text=text,
                is_error=bool(data.get("is_error")),
            )
        elif kind == "finish":
            yield from self.finish(data, role, time, agent)
        elif kind == "shell_command":
            command = as_str(data.get("command"))
            yield self.event(
                "tool_call",
                time,
                agent,
                tool="shell",
                extra={"input": {"command": command}, "user": True},
            )
            exit_code = data.get("exit_code")
            yield self.event(
                "tool_result",
                time,
                agent,
                tool="shell",
                text=shown_text(data.get("output"), keep_empty=False),
                is_error=exit_code not in (0, None),
            )
        else:
            self.diagnostics.unknown_type(f"part:{kind}")

    def tool_call(
        self,
        data: dict[str, object],
        message_id: str,
        time: datetime | None,
        agent: str | None,
        depth: int,
    ) -> Iterator[Event]:
        call_id = as_str(data.get("id"))
        name = as_str(data.get("name"))
        raw = data.get("input")
        arguments = parsed_arguments(raw)
        if isinstance(arguments, str):
            yield self.event(
                "tool_call",
                time,
                agent,
                tool=name,
                call_id=call_id,
                text=arguments,
                extra={"input": arguments},
            )
        else:
            yield self.event(
                "tool_call",
                time,
                agent,
                tool=name,
                call_id=call_id,
                extra={"input": arguments},
            )
        if call_id is None or "parent_session_id" not in self.session_columns:
            return  # (without the column no session is known as a child: a plain call)
        # a spawn is known by the child session its call made (the tools that make one
        # differ by release): a child removed leaves a plain call, and no warning
        child = self.connection.execute(
            "SELECT id FROM sessions WHERE id IN (?, ?) AND parent_session_id IS NOT NULL",
            (f"{message_id}$${call_id}", call_id),
        ).fetchone()
        if child is None:
            return
        description = arguments.get("prompt") if isinstance(arguments, dict) else None
        self.spawned.add(child[0])
        yield self.event(
            "subagent",
            time,
            agent,
            call_id=call_id,
            text=description if isinstance(description, str) else None,
            extra={"child_id": child[0], "agent_type": name},
        )
        if depth < 4 and child[0] != self.session_id and self.last is None:
            yield from self.session(child[0], child[0], depth + 1)

    def orphans(self, session_id: str, agent: str | None) -> Iterator[Event]:
        """The child sessions of `session_id` that no call read announced (the parent's
        message that held it cut, or rewritten), each announced as its call would
        announce it (the tool named where its message still says, its first prompt the
        call's) and read, in the order they began."""
        for child in self._children_of().get(session_id, ()):
            if child in self.spawned:
                continue
            self.spawned.add(child)
            task, start = self._first_prompt(child)
            _, split, call_id = child.partition("$$")
            yield self.event(
                "subagent",
                start,
                agent,
                call_id=call_id if split else child,
                text=task,
                extra={
                    "child_id": child,
                    "agent_type": _spawning_tools(self.connection, [child]).get(child)
                    or "agent",
                },
            )
            yield from self.session(child, child, len(self.reading))

    def _children_of(self) -> dict[str, list[str]]:
        """Each session's child sessions (no `title-<id>` one), in the order they began:
        found by one look at the table (no index has `parent_session_id`), not one a
        session read."""
        if self.children is not None:
            return self.children
        self.children = {}
        if "parent_session_id" not in self.session_columns:
            return self.children
        order = "created_at, id" if "created_at" in self.session_columns else "rowid"
        cursor = self.connection.execute(
            "SELECT id, parent_session_id FROM sessions WHERE parent_session_id "
            f"IS NOT NULL AND id NOT LIKE 'title-%' ORDER BY {order}"
        )
        for child, parent in cursor.fetchmany(_ORPHANS):
            if isinstance(child, str) and isinstance(parent, str) and child != parent:
                self.children.setdefault(parent, []).append(child)
        return self.children

    def _first_prompt(self, session_id: str) -> tuple[str | None, datetime | None]:
        """A child session's first user message's text (what its call asked) and time."""
        if not _PROMPT_COLUMNS.issubset(self.message_columns):
            return None, None
        return _first_prompt(self.connection, session_id, str(self.db))

    def finish(
        self,
        data: dict[str, object],
        role: object,
        time: datetime | None,
        agent: str | None,
    ) -> Iterator[Event]:
        if role != "assistant":
            return
        reason = as_str(data.get("reason"))
        finished = db_time(data.get("time"), digit_text=True) or time
        if reason in ("canceled", "permission_denied"):
            # the user stopped the turn, or refused a tool it asked for (agent.go): an
            # interruption, not a failure
            said = as_str(data.get("message")) or reason.replace("_", " ")
            yield self.event(
                "meta", finished, agent, text=said, extra={"reason": reason}
            )
            yield self.event(
                "turn_end",
                finished,
                agent,
                extra={"reason": reason, "interrupted": True},
            )
        elif reason in ("error", "content_filter"):
            # content_filter: the provider refused to answer (Crush shows it as REFUSED)
            message = as_str(data.get("message")) or (
                "refused by the provider" if reason == "content_filter" else reason
            )
            details = as_str(data.get("details"))
            text = f"{message}: {details}" if details else message
            yield self.event(
                "error", finished, agent, text=text, extra={"reason": reason}
            )
        elif reason not in (None, "tool_use"):
            yield self.event("turn_end", finished, agent, extra={"reason": reason})


def _first_prompt(
    connection: sqlite3.Connection, session_id: str, db: str
) -> tuple[str | None, datetime | None]:
    """A session's first user message's text and time (a child's: what its call asked);
    the messages table has `_PROMPT_COLUMNS`."""
    row = connection.execute(
        f"SELECT rowid, created_at FROM messages WHERE session_id = ? {_FIRST_PROMPT}",
        (session_id,),
    ).fetchone()
    if row is None:
        return None, None
    parts = databases.bounded_value(connection, "messages", "parts", row[0])
    text = _prompt_text(parts, Diagnostics(), f"{db}#sessions/{session_id}")
    return text, db_time(row[1], digit_text=True)


def _prompt_text(parts: object, diagnostics: Diagnostics, where: str) -> str | None:
    """The text of a user message's first text part."""
    for part in _parts(parts, diagnostics, where):
        if type_tag(part.get("type")) == "text":
            text = shown_text(as_dict(part.get("data")).get("text"), keep_empty=False)
            if text:
                return text
    return None


def _child_titles(connection: sqlite3.Connection, db: str) -> dict[str, str]:
    """The first prompt of each child session titled with Crush's placeholder (or not
    at all): what its call asked, which tells it from its siblings. One query finds
    each one's first prompt."""
    sessions = databases.table_columns(connection, "sessions")
    messages = databases.table_columns(connection, "messages")
    if not {"parent_session_id", "title"} <= sessions or not _PROMPT_COLUMNS.issubset(
        messages
    ):
        return {}
    rows = connection.execute(
        "SELECT s.id, (SELECT m.rowid FROM messages m WHERE m.session_id = s.id "
        f"{_FIRST_PROMPT}) FROM sessions s WHERE s.parent_session_id IS NOT NULL "
        "AND s.parent_session_id != '' AND (s.title IS NULL OR s.title IN ('', ?)) "
        "AND s.id NOT LIKE 'title-%' LIMIT ?",
        (_CHILD_TITLE, _ORPHANS),
    ).fetchall()
    noted = Diagnostics()  # a broken message is counted where it is read
    found: dict[str, str] = {}
    for child, rowid in rows:
        if not isinstance(child, str) or not isinstance(rowid, int):
            continue
        parts = databases.bounded_value(connection, "messages", "parts", rowid)
        title = one_line(first_line(_prompt_text(parts, noted, db)))
        if title:
            found[child] = title
    return found


def _spawning_tools(
    connection: sqlite3.Connection, children: list[str]
) -> dict[str, str]:
    """The tool that started each child session `<message id>$$<call id>` (`agent`,
    `agentic_fetch`, …), from its call in the parent's message."""
    if not children or "parts" not in databases.table_columns(connection, "messages"):
        return {}
    found: dict[str, str] = {}
    for child in children[:10_000]:
        message_id, _, call_id = child.partition("$$")
        row = connection.execute(
            "SELECT rowid FROM messages WHERE id = ?", (message_id,)
        ).fetchone()
        parts = (
            databases.bounded_value(connection, "messages", "parts", row[0])
            if row
            else None
        )
        for part in _parts(parts, Diagnostics(), child):
            data = as_dict(part.get("data"))
            name = as_str(data.get("name"))
            if part.get("type") == "tool_call" and data.get("id") == call_id and name:
                found[child] = name
    return found


def _parts(
    value: object, diagnostics: Diagnostics, where: str
) -> list[dict[str, object]]:
    try:
        parts = orjson.loads(value) if isinstance(value, str | bytes) else []
    except orjson.JSONDecodeError:
        diagnostics.skip(where, 0, "not JSON")
        return []
    return [p for p in parts if isinstance(p, dict)] if isinstance(parts, list) else []


def _batch_results(content: str) -> str | None:
    """Go OpenCode's `batch` tool answers with its calls' results as one JSON document
    (`{"results": [{tool_name, tool_input, result: {content, is_error}}]}`): each result
    under the call it answers, as `[view — README.md]`; None for any other output."""
    if not content.startswith('{"results":['):
        return None
    try:
        results = orjson.loads(content).get("results")
    except (orjson.JSONDecodeError, AttributeError):
        return None
    blocks: list[str] = []
    for item in results if isinstance(results, list) else []:
        item = as_dict(item)
        result = as_dict(item.get("result"))
        name = as_str(item.get("tool_name"))
        if name is None:
            return None
        argument = next(
            (v for v in as_dict(item.get("tool_input")).values() if isinstance(v, str)),
            None,
        )
        head = f"[{name}{' — ' + argument if argument else ''}]"
        failed = " (failed)" if result.get("is_error") is True else ""
        body = shown_text(result.get("content"), keep_empty=False) or ""
        blocks.append(f"{head}{failed}\n{body}".rstrip("\n"))
    return shown_text("\n\n".join(blocks), keep_empty=False) if blocks else None


def _binary_label(data: dict[str, object]) -> str:
    mime = as_str(data.get("MIMEType")) or "binary"
    size = decoded_size(data.get("Data"))
    name = as_str(data.get("Path"))
    return f"[{mime}{' ' + name if name else ''}, {files.human_bytes(size)}]"


def _speaker(role: object) -> EventKind:
    return "user" if role == "user" else "assistant"


def _short(value: object) -> str:
    text = value if isinstance(value, str) else ""
    return text if len(text) <= 80 and not text.startswith("data:") else text[:40] + "…"


def resume(session: Session, *, keep_permissions: bool = False) -> ResumePlan | None:
    """`crush --session <id>` in the project folder (Crush 0.51+); None for Go OpenCode
    sessions.

    The Go OpenCode CLI has no way to reopen a given session. Crush's only approval
    flag, `--yolo`, loosens the default and is never added; its interactive mode takes no
    model flag (only `crush run` does), so the model is said, not passed.
    """
    if session.extra.get("store") == "opencode-go":
        return None
    argv = ["crush", "--session", session.id]
    data_dir = session.extra.get("data_dir")
    cwd = session.cwd or "."
    if isinstance(data_dir, str) and data_dir != str(PurePosixPath(cwd) / ".crush"):
        argv += ["--data-dir", data_dir]
    notes: list[str] = ["crush --session needs Crush 0.51 or newer"]
    if session.parent_id:  # an agent tool's run is a session of its own in the database
        notes.append(
            "a sub-agent session: it reopens on its own, not inside its parent"
        )
    if session.model:
        notes.append(
            f"model {session.model!r} not passed: interactive crush takes no model"
            " flag; pick it in crush's model menu"
        )
    return ResumePlan(
        argv=tuple(argv),
        cwd=cwd,
        program="crush",
        install_hint=INSTALL_HINT,
        install_note=INSTALL_NOTE,
        notes=tuple(notes),
    )
