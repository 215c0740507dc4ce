"""Forge Code (antinomyhq/forge), the `forge` terminal agent: conversations in one SQLite database.

Forge keeps every conversation in `.forge.db` (SQLite, diesel, WAL) in its base folder
(`ConfigReader::base_path` in `crates/forge_config/src/reader.rs`): `$FORGE_CONFIG` when set,
else `~/forge` where that legacy folder exists, else `~/.forge`; the same on every OS (the
`dirs` home). The database is read through `databases.open_sqlite` (a snapshot in sessdex's
cache), never opened in place. Beside it sit `.credentials.json` (provider keys: never
opened, `folders.CREDENTIALS` refuses it), `.config.json`, `.forge.toml`, `.mcp.json` and
`.forge_history` (the prompt history), none of which is read.

One table, `conversations` (migrations in `crates/forge_repo/src/database/migrations`,
since 0.117, Sep 2025): `conversation_id` (a UUID), `title`, `workspace_id` (a hash of the
folder forge ran in: Rust's `DefaultHasher` over the `PathBuf`, not reversible: it only
groups rows by folder), `context` (the conversation as serde JSON, `ContextRecord` in
`crates/forge_repo/src/conversation/conversation_record.rs`; NULL until a message is
written: such rows are not listed, as forge lists none, and doctor counts them; no
listing warns of them: such a row is forge's own doing, not damage),
`created_at`/`updated_at` (diesel `Timestamp`, UTC text) and `metrics` (files changed, not
read). The folder is the `<current_working_directory>` of the system message forge writes
at a conversation's start (`templates/forge-partial-system-info.md`); the model the one the
first prompt names (only user messages name one: `ContextMessage::assistant` leaves it
out). Listing reads only the columns and the head of each `context` through SQLite's blob
IO (`HEAD_BYTES`); where a folder (`workspace_id`) holds what may be a sub-agent's
conversation (below), it streams that folder's contexts once, a piece at a time, for the
sub-agent conversations their results name. A context is one JSON document: `show --tail`
reads it whole and keeps its end.

What a context holds and how it reads is in `read`: each message `{"text": …}` (a role of
System, User or Assistant; `raw_content` the prompt as typed, since 1.1, Oct 2025: before,
the prompt is read out of the `<task>` or `<feedback>` forge wrapped it in;
`reasoning_details`, `tool_calls`, `model`), `{"tool": …}` (a tool's result: `output.values`
of `text`, `image`, `aI`, `empty`, and the legacy `markdown`, `fileDiff`, `pair`) or
`{"image": …}` (and `document`, a PDF, in forge's pending pdf branch, #2399: shown as a
note), wrapped since 1.11 (2025-12-11) as `{"message": …, "usage": …}` where the response's
usage is kept (prompt tokens, cached ones included, completion, total and cached tokens,
each `{"actual": n}` or `{"approx": n}`, and a `cost`). Before 1.11 the context was forge's
domain `Context` serialized: bare messages and a `usage` of the context's own, the last
response's (each response overwrote it, `orch.rs`; counts `{"Actual": n}`): that one
response is the only usage such a conversation shows. Forge keeps no time per message:
events carry none but the row's `updated_at`, given to the usage and last turn end as an
estimate (no ref of forge's repository up to 2026-04-13, any branch, writes a time into a
message or the context; a message's own `timestamp`, should a later release write one, is
taken where there is one).

A compaction replaces messages by one user message rendered from
`forge-partial-summary-frame.md` ("Use the following summary frames as the authoritative
reference…"; "summary as" before 1.4, Nov 2025, when a model wrote the summary), carrying
since 1.11 the summed usage of what it replaced: it reads as a `compaction` event and that
usage. Sub-agents (the agent and task tools) run in conversations of their own, one per
task of the call's `tasks`, each titled by its task (`agent_executor.rs`; `initiator`
"agent" marks them only since 2.5.2, Apr 2026: before, a row titled by its first prompt as
typed is the one mark); since 1.11 (Dec 2025) the spawning call's result holds one `aI`
value per task, in order, naming the child's `conversation_id`: the child is read inline
after that call, labelled by its task, with its own id as `agent_id`, and listed as a
sub-agent of the conversation whose result names it (so its usage counts once, in the
lead). A call given the task tool's `session_id` (2.8 on) runs a new task in that same
conversation, and its result names it again: each naming shows the conversation from its
task up to the next (a prompt with `raw_content`), the last to its end. Before 1.11
nothing names them: they list alone.

`resume` gives `forge --conversation-id <id>` in the conversation's folder (`cli.rs`: "resumes
or continues an existing conversation"); forge has no approval flag to keep or drop. Foundry's
`forge` (the Solidity toolkit) on PATH is never run (`resume_program`).
"""

from __future__ import annotations

import re
import shutil
import sqlite3
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path

from .. import databases, files, folders, programs
from ..diagnostics import Diagnostics, odd_in, read_failed
from ..model import Event, EventKind, JSONValue, ResumePlan, Session
from ._values import (
    Emitter,
    as_dict,
    as_int,
    as_list,
    as_str,
    blob,
    db_time,
    loaded_object,
    new_usage,
    odd_count,
    one_line,
    shown_arguments,
)
from .base import Home, Location, Opened, ResumeFlags, is_uuid, opened_by_flags

NAME = "forge"
# `forge --conversation-id` finds a conversation in its one database from any folder
RESUMES_ANYWHERE = True
TITLE = "Forge Code"
SCAN_NOTED = True  # locate reads only the environment; scan only probes
CHECKED_WITH = (
    "forge's source, no real capture (Low): antinomyhq/forge @54cecac1 (v2.9.9+15, "
    "2026-04-12): the conversations table of its diesel migrations 2025-09-12 to "
    "2026-02-16, ContextRecord of crates/forge_repo/src/conversation/conversation_record.rs, "
    "--conversation-id of crates/forge_main/src/cli.rs; older shapes from its history "
    "(0.117 to 2.5.2: the domain Context before 1.11, <feedback> before 1.1, the summary "
    "frame before 1.4, no initiator before 2.5.2); synthetic DB"
)
ENV_VARS = ("FORGE_CONFIG",)

INSTALL_HINT = "npm install -g forgecode"
INSTALL_NOTE = "or: `curl -fsSL https://forgecode.dev/cli | sh`"
DATABASE = ".forge.db"
HEAD_BYTES = (
    256 * 1024
)  # of each context read when listing: its system messages and first prompt
MAX_DEPTH = 4  # sub-agents read inside sub-agents: deeper is a loop, not read
_COLUMNS = ("conversation_id", "title", "workspace_id", "created_at", "updated_at")
_CONTEXT_FIELDS = frozenset({
    "conversation_id", "initiator", "messages", "tools", "tool_choice", "max_tokens",
    "temperature", "top_p", "top_k", "reasoning", "stream",
    "usage",  # before 1.11: the last response's usage (the domain Context serialized)
})  # fmt: skip
_CWD = re.compile(
    rb"<current_working_directory>(.{1,4096}?)</current_working_directory>"
)
_MODEL = re.compile(rb'"model":"((?:[^"\\]|\\.){1,200})"')
_INITIATOR = re.compile(
    rb'^\{(?:"conversation_id":"[^"]*",)?"initiator":"((?:[^"\\]|\\.){0,80})"'
)
_CHILD = re.compile(rb'"conversation_id":"([0-9a-fA-F-]{36})"')
_RAW = re.compile(rb'"raw_content":\{"Text":"((?:[^"\\]|\\.){1,2000})"')
_WRAPPED = re.compile(
    rb'"role":"User","content":"<task>((?:[^"\\<]|\\.){1,2000})</task>'
)
# forge.md's user_prompt: `<{{event.name}}>` is "task" for the first prompt, "feedback" after
_TASK = re.compile(r"^\s*<(task|feedback)>(.*?)</\1>", re.DOTALL)
UNWRITTEN = "with no message (never written: forge lists none, nor does sessdex)"
# the opening of forge-partial-summary-frame.md: "summary frames" since 1.4 (Nov 2025)
SUMMARY_FRAME = re.compile(
    r"Use the following summary (?:frames )?as the authoritative reference"
)


def locate(home: Home) -> Location:
    given = home.env_dir("FORGE_CONFIG")
    if given is not None:
        return Location(given, override=f"FORGE_CONFIG={given}")
    # forge prefers the legacy ~/forge where it exists: both are looked in
    return Location(home.path / ".forge", also=(home.path / "forge",))


def scan(location: Location) -> Iterator[Path]:
    if not location.exists:
        return
    for folder in (location.root, *location.also):
        database = folder / DATABASE
        if folders.is_file(database):
            yield database


def parse(path: Path, location: Location, diagnostics: Diagnostics) -> list[Session]:
    connection = databases.open_or_say(path, NAME, diagnostics)
    if connection is None:
        return []
    try:
        available = databases.known_columns(
            connection,
            "conversations",
            {"conversation_id", "context"},
            diagnostics,
            (NAME, path),
            "Forge database",
        )
        if available is None:
            return []
        columns = [c for c in _COLUMNS if c in available]
        rows = [
            dict(zip(("rowid", *columns), values, strict=True))
            for values in connection.execute(
                f"SELECT rowid, {', '.join(columns)} FROM conversations "
                "WHERE context IS NOT NULL ORDER BY rowid"
            )
        ]
        sessions: list[tuple[dict[str, object], Session]] = []
        agents: set[str] = set()  # forge 2.5.2 on marks a sub-agent's context
        children: set[str] = set()  # conversations that may be a sub-agent's
        for row in rows:
            if (read := _session(connection, path, row, diagnostics)) is not None:
                session, titled_by_task = read
                sessions.append((row, session))
                if session.extra.get("initiator") == "agent":
                    agents.add(session.id)
                if titled_by_task or session.id in agents:
                    children.add(session.id)
        # a sub-agent's lead runs in the same folder (so has its workspace_id): only the
        # rows of a workspace that holds a possible sub-agent are streamed for the ids
        # their agent results name
        spaces = {row.get("workspace_id") for row, s in sessions if s.id in children}
        parents: dict[str, str] = {}
        for row, session in sessions:
            if children and row.get("workspace_id") in spaces:
                for child in _children(connection, row["rowid"], session.id, children):
                    parents.setdefault(child, session.id)
        return [
            _with_parent(session, parents, session.id in agents)
            for _, session in sessions
        ]
    except sqlite3.Error as error:
        diagnostics.problem(read_failed(NAME, path, error))
        return []
    finally:
        connection.close()


def doctor_notes(location: Location) -> list[str]:
    """How many conversations forge started but never wrote a message to: forge lists
    none, nor does sessdex; said by `doctor` only (such a row is forge's own doing, not
    damage, so no listing warns of it), and a row whose context was lost is not unsaid."""
    notes = []
    for path in scan(location):
        try:
            connection = databases.open_sqlite(path)
        except (OSError, sqlite3.Error):
            continue  # the listing says why
        try:
            (count,) = connection.execute(
                "SELECT count(*) FROM conversations WHERE context IS NULL"
            ).fetchone()
        except sqlite3.Error:
            continue  # no such table or column: the listing says so
        finally:
            connection.close()
        if count:
            notes.append(
                f"{path}: {count} conversation{'s' if count != 1 else ''} {UNWRITTEN}"
            )
    return notes


def _with_parent(session: Session, parents: dict[str, str], agent: bool) -> Session:
    parent = parents.get(session.id)
    seen = {session.id}
    above = parent
    while above is not None and above not in seen and len(seen) <= MAX_DEPTH * 4:
        seen.add(above)
        above = parents.get(above)
    # a loop of damaged rows: its least id is listed on its own, the lead of the others
    # (each on its own, each read held the other's usage: counted twice)
    if parent is None or (above == session.id and session.id == min(seen)):
        return session if not agent else _replace(session, None, "subagent")
    return _replace(session, parent, "subagent")


def _replace(session: Session, parent: str | None, agent_type: str) -> Session:
    return replace(session, parent_id=parent, agent_type=agent_type)


def _head(connection: sqlite3.Connection, rowid: object, size: int) -> bytes:
    """The first `size` bytes of a row's `context`, read without loading the rest."""
    if not isinstance(rowid, int):
        return b""
    try:
        with databases.open_blob(connection, "conversations", "context", rowid) as b:
            return b.read(size)
    except sqlite3.Error:
        value = databases.bounded_value(connection, "conversations", "context", rowid)
        data = value.encode() if isinstance(value, str) else (value or b"")
        return data[:size]


def _children(
    connection: sqlite3.Connection, rowid: object, own: str, ids: set[str]
) -> list[str]:
    """The conversations a row's context names (the `aI` values of its agent results),
    found by streaming the context through blob IO a piece at a time."""
    if not isinstance(rowid, int):
        return []
    found: list[str] = []
    try:
        with databases.open_blob(connection, "conversations", "context", rowid) as b:
            tail = b""
            while piece := b.read(files.CHUNK):
                data = tail + piece
                for match in _CHILD.finditer(data):
                    child = match.group(1).decode()
                    if child != own and child in ids and child not in found:
                        found.append(child)
                tail = data[-64:]
    except sqlite3.Error:
        return []
    return found


def _session(
    connection: sqlite3.Connection,
    path: Path,
    row: dict[str, object],
    diagnostics: Diagnostics,
) -> tuple[Session, bool] | None:
    """The row's session, and whether its title is its first prompt as typed (forge titles a
    sub-agent's conversation by its task: before 2.5.2 nothing else marks one)."""
    conversation_id = as_str(row.get("conversation_id"))
    if conversation_id is None:
        diagnostics.skip(f"{path}#conversations", 0, "bad value")
        return None
    head = _head(connection, row.get("rowid"), HEAD_BYTES)
    cwd = model = None
    if found := _CWD.search(head):
        cwd = _unescaped(found.group(1))
    if found := _MODEL.search(head):
        model = _unescaped(found.group(1))
    extra: dict[str, JSONValue] = {"store": "sqlite"}
    if (found := _INITIATOR.search(head)) and (initiator := _unescaped(found.group(1))):
        extra["initiator"] = initiator
    if isinstance(row.get("workspace_id"), int):
        extra["workspace_id"] = row["workspace_id"]  # type: ignore[assignment]
    title = one_line(row.get("title"), limit=None) or _first_prompt(head)
    session = Session(
        app=NAME,
        id=conversation_id,
        path=f"{path}#conversations/{conversation_id}",
        cwd=cwd,
        title=title,
        created=db_time(row.get("created_at")),
        updated=db_time(row.get("updated_at")) or db_time(row.get("created_at")),
        model=model,
        extra=extra,
    )
    return session, _titled_by_prompt(head, row.get("title"))


def _titled_by_prompt(head: bytes, title: object) -> bool:
    """Whether the first prompt as typed (`raw_content`) is the row's `title`, exactly."""
    if not isinstance(title, str) or not title.strip():
        return False
    import orjson

    typed = b'"raw_content":{"Text":' + orjson.dumps(title) + b"}"
    return typed in head


def _unescaped(data: bytes) -> str | None:
    """A JSON string's inside, as text; None where it is not one."""
    import orjson

    try:
        value = orjson.loads(b'"' + data + b'"')
    except orjson.JSONDecodeError:
        return None
    return one_line(value, limit=None) if isinstance(value, str) else None


def _first_prompt(head: bytes) -> str | None:
    """The first prompt as typed (`raw_content`), else the `<task>` forge wrapped it in."""
    found = _RAW.search(head) or _WRAPPED.search(head)
    return _unescaped(found.group(1)) if found else None


# --- reading a conversation ---------------------------------------------------------------


def read(
    session: Session, diagnostics: Diagnostics, *, full: bool = False, offset: int = 0
) -> Iterator[Event]:
    if not session.path or "#conversations/" not in session.path:
        return
    database, _, conversation_id = session.path.rpartition("#conversations/")
    connection = databases.open_or_say(database, NAME, diagnostics)
    if connection is None:
        return
    try:
        reader = _Reader(connection, session, database, diagnostics, full)
        yield from reader.conversation(conversation_id, None, 0)
    except sqlite3.Error as error:
        diagnostics.problem(read_failed(NAME, database, error))
    finally:
        connection.close()


class _Reader:
    """Translates one conversation, and the sub-agent conversations it names, into events."""

    def __init__(
        self,
        connection: sqlite3.Connection,
        session: Session,
        database: str,
        diagnostics: Diagnostics,
        full: bool,
    ) -> None:
        self.connection = connection
        self.database = database
        self.diagnostics = diagnostics
        self.full = full
        self.emit = Emitter(session.id)
        # the one time given to the usage and last turn end of every agent read: the
        # session's last write (a sub-agent's own, earlier, would sort its end before its
        # start where the live view orders events by time)
        self.updated = session.updated
        self.open: set[str] = set()  # the conversations being read: a loop stops there
        # how far each sub-agent conversation read inline has been shown: a task run in it
        # again (the task tool's `session_id`) shows from there, after its own call
        self.shown: dict[str, int] = {}
        # how many results still to be read name each sub-agent: the last shows it to its end
        self.named: Counter[str] = Counter()

    def load(self, conversation_id: str) -> dict[str, object] | None:
        where = f"{self.database}#conversations/{conversation_id}"
        row = self.connection.execute(
            "SELECT rowid FROM conversations WHERE conversation_id = ? LIMIT 1",
            (conversation_id,),
        ).fetchone()
        if row is None:
            self.diagnostics.skip(where, 0, "vanished")
            return None
        value = databases.bounded_value(
            self.connection,
            "conversations",
            "context",
            row[0],
            full=self.full,
            diagnostics=self.diagnostics,
            where=where,
        )
        if value is None:
            return None
        return loaded_object(value, where, self.diagnostics)

    def conversation(
        self, conversation_id: str, agent_id: str | None, depth: int
    ) -> Iterator[Event]:
        """The conversation whole; a sub-agent's (`agent_id` set) from where its last
        inline read stopped to before the next task it was given."""
        if conversation_id in self.open:
            return
        start = self.shown.get(conversation_id, 0)
        if start < 0:  # shown to its end
            return
        context = self.load(conversation_id)
        if context is None:
            return
        if not start:
            for key in context.keys() - _CONTEXT_FIELDS:
                self.diagnostics.unknown_type(
                    f"context field {one_line(key, limit=40)}"
                )
        entries = as_list(context.get("messages"))
        if not start:
            self.named.update(_named(entries))
        self.named[conversation_id] -= 1
        stop = len(entries)
        if agent_id is not None and self.named[conversation_id] > 0:
            stop = _next_task(entries, start)
        self.shown[conversation_id] = stop if stop < len(entries) else -1
        walk = _Walk(
            self, agent_id, depth, self.updated, context.get("initiator") == "agent"
        )
        walk.where = f"{self.database}#conversations/{conversation_id}"
        self.open.add(conversation_id)
        try:
            yield from walk.messages(entries, start, stop)
            if stop == len(entries):
                # forge before 1.11 kept no usage per message: the context's own `usage`
                # is the last response's (each response overwrote it), the one still known
                walk.when = None
                yield from walk.usage(context.get("usage"))
        finally:
            self.open.discard(conversation_id)


def _named(entries: list[object]) -> Counter[str]:
    """How many times the results among `entries` name each conversation (`aI` values)."""
    named: Counter[str] = Counter()
    for entry in entries:
        entry = as_dict(entry)
        message = as_dict(entry.get("message")) if "message" in entry else entry
        output = as_dict(as_dict(message.get("tool")).get("output"))
        for value in as_list(output.get("values")):
            child = as_str(as_dict(as_dict(value).get("aI")).get("conversation_id"))
            if child:
                named[child] += 1
    return named


def _next_task(entries: list[object], start: int) -> int:
    """Where the task after the first one from `start` begins: a prompt as typed (a user
    message with `raw_content`, as forge writes every task it is given since 1.1), else
    the end."""
    seen = False
    for index in range(start, len(entries)):
        entry = as_dict(entries[index])
        message = as_dict(entry.get("message")) if "message" in entry else entry
        text = as_dict(message.get("text"))
        if text.get("role") == "User" and isinstance(text.get("raw_content"), dict):
            if seen:
                return index
            seen = True
    return len(entries)


class _Walk:
    """The walk through one conversation's messages."""

    def __init__(
        self,
        reader: _Reader,
        agent_id: str | None,
        depth: int,
        updated: datetime | None,
        from_agent: bool,
    ) -> None:
        self.reader = reader
        self.agent_id = agent_id
        self.depth = depth
        self.updated = updated
        self.from_agent = from_agent or agent_id is not None
        self.diagnostics = reader.diagnostics
        self.model: str | None = None
        self.where = ""  # the conversation's row, where an odd count is said
        self.open_calls: dict[str, str] = {}  # call id: tool name
        self.tasks: dict[str, list[str]] = {}  # a spawning call's id: its tasks
        self.spawned = 0  # the aI values seen so far in the result read
        self.when: datetime | None = (
            None  # the message's own `timestamp`, where it has one
        )

    def say(self, kind: EventKind, **fields: object) -> Event:
        return self.reader.emit(kind, self.when, agent_id=self.agent_id, **fields)  # type: ignore[arg-type]

    def estimate(self, last: bool = True) -> tuple[datetime | None, bool]:
        """(the time, whether it is a guess) of a usage or turn end: the message's own, else
        the session's last write (for a turn end, only the last one's)."""
        if self.when is not None:
            return self.when, False
        return (self.updated if last else None), True

    def messages(self, entries: list[object], start: int, stop: int) -> Iterator[Event]:
        for index in range(start, stop):
            entry = as_dict(entries[index])
            message = as_dict(entry.get("message")) if "message" in entry else entry
            if len(message) != 1:
                self.diagnostics.unknown_type("message without one kind")
                continue
            [(kind, value)] = message.items()
            self.when = db_time(as_dict(value).get("timestamp"))
            if kind == "text":
                yield from self.text(as_dict(value), index == len(entries) - 1)
            elif kind == "tool":
                yield from self.result(as_dict(value))
            elif kind in ("image", "document"):
                yield self.say("user", text=_attached(kind, as_dict(value)))
            else:
                self.diagnostics.unknown_type(f"message {one_line(kind, limit=40)}")
                continue
            yield from self.usage(entry.get("usage"))

    def text(self, message: dict[str, object], last: bool) -> Iterator[Event]:
        role = message.get("role")
        content = as_str(message.get("content")) or ""
        model = as_str(message.get("model"))
        if model and model != self.model:
            if self.model is not None:
                yield self.say("meta", text=f"model: {model}", extra={"model": model})
            self.model = model
        if role == "System":
            return
        if role == "User":
            yield from self.user(message, content)
        elif role == "Assistant":
            yield from self.assistant(message, content, last)
        else:
            self.diagnostics.unknown_type(f"role {one_line(role, limit=40)}")

    def user(self, message: dict[str, object], content: str) -> Iterator[Event]:
        raw = as_dict(message.get("raw_content"))
        if not raw and SUMMARY_FRAME.match(content):
            yield self.say("compaction", text=content)
            return
        if message.get("droppable") is True:  # an attachment forge drops at compaction
            yield self.say(
                "meta", text=one_line(content, limit=200), extra={"attachment": True}
            )
            return
        text = as_str(raw.get("Text"))
        if text is None and isinstance(raw.get("Command"), dict):
            command = as_dict(raw["Command"])
            name = as_str(command.get("name")) or ""
            words = [
                w for w in as_list(command.get("parameters")) if isinstance(w, str)
            ]
            text = " ".join([f"/{name}", *words]) if name else None
        if text is None:
            found = _TASK.match(content)
            text = found.group(2).strip() if found else content
        extra: dict[str, JSONValue] = (
            {"from_agent": "the lead"} if self.from_agent else {}
        )
        yield self.say("user", text=text, extra=extra)

    def assistant(
        self, message: dict[str, object], content: str, last: bool
    ) -> Iterator[Event]:
        for detail in as_list(message.get("reasoning_details")):
            thought = as_str(as_dict(detail).get("text"))
            if thought:
                yield self.say("thinking", text=thought)
        if content.strip():
            yield self.say("assistant", text=content)
        calls = as_list(message.get("tool_calls"))
        for call in calls:
            call = as_dict(call)
            name = as_str(call.get("name")) or "tool"
            call_id = as_str(call.get("call_id"))
            arguments = call.get("arguments")
            shown = shown_arguments(arguments)
            if call_id:
                self.open_calls[call_id] = name
                tasks = as_list(as_dict(arguments).get("tasks"))
                self.tasks[call_id] = [t if isinstance(t, str) else "" for t in tasks]
            yield self.say(
                "tool_call",
                tool=name,
                call_id=call_id,
                text=arguments if isinstance(arguments, str) else None,
                extra={"input": shown},
            )
        if not calls:
            time, estimated = self.estimate(last)
            yield self.reader.emit(
                "turn_end", time, estimated=estimated, agent_id=self.agent_id
            )

    def result(self, result: dict[str, object]) -> Iterator[Event]:
        call_id = as_str(result.get("call_id"))
        name = as_str(result.get("name")) or (
            self.open_calls.get(call_id or "") or None
        )
        if call_id:
            self.open_calls.pop(call_id, None)
        output = as_dict(result.get("output"))
        texts: list[str] = []
        children: list[tuple[int, str]] = []  # (its place among the aI values, its id)
        self.spawned = 0
        for value in as_list(output.get("values")):
            texts.extend(self.value(value, children, 0))
        # forge runs each of the call's `tasks` in a conversation of its own and returns
        # their `aI` values in the same order: the n-th names the n-th task's
        tasks = self.tasks.get(call_id or "", [])
        for place, child in children:
            task = tasks[place] if place < len(tasks) else None
            yield from self.subagent(child, call_id, name, task)
        yield self.say(
            "tool_result",
            tool=name,
            call_id=call_id,
            text="\n".join(texts),
            is_error=output.get("is_error") is True,
        )

    def value(
        self, value: object, children: list[tuple[int, str]], depth: int
    ) -> list[str]:
        if value == "empty":
            return []
        if not isinstance(value, dict) or len(value) != 1 or depth > 4:
            self.diagnostics.unknown_type("tool value")
            return []
        [(kind, inner)] = value.items()
        if kind in ("text", "markdown"):
            return [inner] if isinstance(inner, str) else []
        if kind == "aI":
            ai = as_dict(inner)
            child = as_str(ai.get("conversation_id"))
            place = self.spawned
            self.spawned += 1
            if child and is_uuid(child):
                children.append((place, child))
            text = as_str(ai.get("value"))
            return [text] if text else []
        if kind in ("image", "document"):
            return [_attached(kind, as_dict(inner))]
        if kind == "fileDiff":
            return [f"[File diff: {as_str(as_dict(inner).get('path')) or '?'}]"]
        if kind == "pair":
            pair = as_list(inner)
            return self.value(pair[0], children, depth + 1) if pair else []
        self.diagnostics.unknown_type(f"tool value {one_line(kind, limit=40)}")
        return []

    def subagent(
        self, child: str, call_id: str | None, tool: str | None, task: str | None
    ) -> Iterator[Event]:
        title = self.reader.connection.execute(
            "SELECT title FROM conversations WHERE conversation_id = ?", (child,)
        ).fetchone()
        label = one_line(title[0], limit=None) if title else None
        extra: dict[str, JSONValue] = {"child_id": child}
        if tool:
            extra["agent_type"] = tool
        if label:
            extra["agent_name"] = label
        yield self.say(
            "subagent",
            call_id=call_id,
            text=one_line(task, limit=None) or label,
            extra=extra,
        )
        if self.depth >= MAX_DEPTH:
            return
        yield from self.reader.conversation(child, child, self.depth + 1)

    def usage(self, value: object) -> Iterator[Event]:
        if not isinstance(value, dict):
            return
        prompt = _tokens(value.get("prompt_tokens"))
        completion = _tokens(value.get("completion_tokens"))
        cached = _tokens(value.get("cached_tokens"))
        if not (prompt or completion or cached):
            return
        if any(_odd(value.get(key)) for key in _COUNTS):  # billed as 0, or whole
            self.diagnostics.damage(self.where, 0, odd_in("response"))
        extra: dict[str, JSONValue] = {}
        cost = value.get("cost")
        if isinstance(cost, int | float) and not isinstance(cost, bool) and cost > 0:
            extra["cost_usd"] = float(cost)
        usage = new_usage(
            max(prompt - cached, 0),
            completion,
            min(cached, prompt or cached),
            0,
            0,
            self.model,
        )
        time, estimated = self.estimate()
        yield self.reader.emit(
            "usage",
            time,
            estimated=estimated,
            agent_id=self.agent_id,
            usage=usage,
            extra=extra,
        )


def _attached(kind: str, value: dict[str, object]) -> str:
    """A note for an image (`url`, a data URL) or a document (`data`, base64, and its
    `filename`), never the data itself."""
    data = value.get("url") if kind == "image" else value.get("data")
    if isinstance(data, str) and data.startswith("data:"):
        data = data.partition(",")[2]
    note = blob(as_str(value.get("mime_type")) or kind, data)
    name = one_line(value.get("filename"), limit=None)
    return f"{note} {name}" if name else note


# a response's `usage` counts that are billed (`total_tokens` is their sum)
_COUNTS = ("prompt_tokens", "completion_tokens", "cached_tokens")


def _odd(value: object) -> bool:
    """Whether a `TokenCount` holds a count no app writes (`odd_count`)."""
    count = as_dict(value)
    return any(odd_count(count.get(key)) for key in _KINDS)


def _tokens(value: object) -> int:
    """A `TokenCount` (`{"actual": n}` or `{"approx": n}`, either capitalised) as a number."""
    count = as_dict(value)
    for key in _KINDS:
        if key in count:
            return max(as_int(count[key]), 0)
    return 0


_KINDS = ("actual", "approx", "Actual", "Approx")


# --- reopening -----------------------------------------------------------------------------

_FLAGS = ResumeFlags(resume=("--conversation-id", "--cid"))


def resume(session: Session, *, keep_permissions: bool = False) -> ResumePlan | None:
    """`forge --conversation-id <id>` in the conversation's folder; None for an id that is
    not a UUID (forge would refuse it, and it could read as an option)."""
    if not is_uuid(session.id):
        return None
    notes: list[str] = []
    if session.parent_id or session.extra.get("initiator") == "agent":
        notes.append(
            "a sub-agent's conversation: it reopens on its own, not inside its lead"
        )
    if session.model:
        notes.append(
            f"model {session.model!r} not passed: forge takes no model flag and uses "
            "the one its config names"
        )
    return ResumePlan(
        argv=("forge", "--conversation-id", session.id),
        cwd=session.cwd or ".",
        program="forge",
        install_hint=INSTALL_HINT,
        install_note=INSTALL_NOTE,
        notes=tuple(notes),
    )


def resume_program(plan: ResumePlan) -> tuple[ResumePlan, str | None]:
    """The `forge` on PATH unless it is Foundry's (the Solidity toolkit's `forge`, which
    foundryup installs into `~/.foundry/bin`, or a launcher that names Foundry): never
    given the conversation's words. A wrapper is judged by what it starts."""
    found = shutil.which(plan.program)
    if found is None:
        return plan, None
    judged = programs.wrapped(found) or found
    if programs.lies_in(judged, (".foundry",)) or (
        programs.is_launcher(judged) and programs.launcher_names(judged, ("foundry",))
    ):
        note = f"the 'forge' on PATH ({found}) is Foundry's (the Solidity toolkit)"
        return replace(plan, notes=(*plan.notes, note)), None
    return plan, found


def process_session(args: Sequence[str]) -> Opened | None:
    """What a running forge has open: `--conversation-id <id>` (or `--cid`), or
    `forge conversation resume <id>` (`session` is its alias)."""
    words = list(args)
    for index, word in enumerate(words[:-2]):
        if word in ("conversation", "session") and words[index + 1] == "resume":
            target = words[index + 2]
            return Opened(target) if is_uuid(target) else Opened(chosen=True)
    return opened_by_flags(words, _FLAGS)
