"""OpenCode 2.x: sessions in `session_v2`, each one's history as typed rows of `session_message`.

OpenCode 2.0 keeps the same `opencode.db`. A session is a `session_v2` row (the 1.x
`session` columns, a title that may still be NULL, `fork_session_id` / `fork_boundary`
for a fork); its history is `session_message` rows ordered by `seq`, each a `type` and a
`data` JSON: `user {text, files}`, `assistant {agent, model {id, providerID}, content
[text | reasoning | tool {id, name, state {status, input, content[], structured, result,
error}}], finish, error, tokens, time {created, completed}}`, `synthetic`, `system`,
`skill`, `shell {command, status, exit, output}`, `compaction {status, reason, summary,
recent, model, cost, tokens, error}` (its request billed like an answer; a note says
who started it and what it kept, `_opencode_folds`),
`idle {outcome}`, `agent-switched`, `model-switched`, `location-switched`. An assistant
row is rewritten in place while it streams (a tool `streaming` its input has no result
yet); a revert deletes rows. The `subagent` tool (input `{agent, description, prompt,
sessionID?, background?}`) names its child session in `state.metadata.sessionID`, and in
its input when it continues one; a spawn naming none takes the oldest child not yet shown.

The upgrade copies each 1.x session's `message` rows into `session_message` and leaves
the 1.x tables, which a 1.x build may go on writing: a session in both is read from both,
merged by time, a copy (same id, or same kind at the same millisecond) once. A fork copies
its source's rows under new ids: they are shown, and their responses are billed to the
source only. `input` excludes cached tokens and `output` excludes reasoning, as in 1.x.
Later schemas in anomalyco/opencode (packages/core/src/session/sql.ts @02ce4a33) have no
`session_v2`: the `session` table itself takes `fork_session_id` / `fork_message_id` beside
the `session_message` rows, so the fork link and the children are sought in both tables.

`show --tail` reads a 2.x session's last rows (`last_rows`), a compaction's note among
them settled by the rows since the compaction row before it; but reads whole a session with child sessions
(a spawn naming no child takes the oldest one the spawns before it left), a fork, and one
whose rows are merged with 1.x messages.

Checked against opencode 2.0.15's schema and rows as a public third-party reader's tests
quote them (no real 2.x database seen here): Medium-Low confidence. The row types and
fields above match anomalyco/opencode's packages/schema/src/session-message.ts @0ceb3dd5
(source only; it adds `retry`, `rawFinish` and `native` to assistant rows, not read).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from typing import Protocol, Unpack

import orjson

from .. import databases
from ..diagnostics import Diagnostics, odd_in
from ..model import Event, EventKind, JSONValue, Usage
from ._opencode_folds import Folds
from ._values import (
    EventFields,
    as_dict,
    as_int,
    as_list,
    as_str,
    json_copy,
    json_object,
    ms_time,
    odd_count,
)
from .base import WholeRead

SESSION_TABLE = "session_v2"
EXTRA_COLUMNS = ("fork_session_id",)
# A sub-agent session's first prompt is written by OpenCode, not typed.
SUBAGENT_PROMPT = "You are a subagent spawned by another session."
SPAWN_TOOLS = frozenset({"task", "subagent"})
_META_TYPES = frozenset({"synthetic", "system", "skill"})
_IDLE_ENDS = {"interrupted": "interrupted", "cancelled": "interrupted"}
_IDS_CAP = 200_000  # message ids held to recognise copies, per session
# a `!` command that did not end well: 2.x shell rows end `exited` (with `exit`), `timeout`
# or `killed`; older ones said `failed` or `error`
_SHELL_FAILED = frozenset({"failed", "error", "timeout", "killed"})


# Reads a child session's events: (child session id, agent id to tag them with).
Children = Callable[[str, str], Iterator[Event]] | None


class Reader(Protocol):
    """What the 1.x reader lends: its event maker, its reading of tool parts and of rows."""

    diagnostics: Diagnostics
    db: str  # the database read: where a row's odd count is said
    folds: Folds  # what each compaction summarized
    unsure: set[int]  # the `seq` of each event earlier rows may change (`last_rows`)

    def event(
        self,
        kind: EventKind,
        time: datetime | None,
        agent: str | None,
        **fields: Unpack[EventFields],
    ) -> Event: ...

    def tool(
        self,
        part: dict[str, object],
        when: datetime | None,
        agent: str | None,
        children: Children,
    ) -> Iterator[Event]: ...

    def value(
        self,
        connection: sqlite3.Connection,
        table: str,
        rowid: object,
        key: object,
        listed: tuple[object, object] | None = None,
    ) -> dict[str, object]: ...

    def listed(self, table: str, alias: str = "") -> str: ...


def has_rows(connection: sqlite3.Connection, session_id: str) -> bool:
    """Whether the session has 2.x rows (native, continued after the upgrade, or copied)."""
    row = connection.execute(
        "SELECT 1 FROM session_message WHERE session_id = ? LIMIT 1", (session_id,)
    ).fetchone()
    return row is not None


def has_row_data(connection: sqlite3.Connection) -> bool:
    """Whether the database has the 2.x rows' table, with their data."""
    return "data" in databases.table_columns(connection, "session_message")


def last_written(
    connection: sqlite3.Connection, tables: Sequence[str]
) -> dict[str, int | float]:
    """When each session of `tables` had its newest 2.x row (by `seq`) last written: a
    prompt is a row, and moves none of the session's own times. One seek per session
    through OpenCode's unique index on (session_id, seq); none where a database has no
    such index (a scan per session)."""
    columns = databases.table_columns(connection, "session_message")
    if not {"session_id", "seq", "time_updated"} <= columns or not databases.indexed(
        connection, "session_message", "session_id", "seq"
    ):
        return {}
    found: dict[str, int | float] = {}
    for table in tables:
        query = (
            "SELECT s.id, (SELECT m.time_updated FROM session_message m"
            " WHERE m.session_id = s.id ORDER BY m.seq DESC LIMIT 1)"
            f" FROM {databases.quote_identifier(table)} s"
        )
        for session_id, stamp in connection.execute(query):
            if isinstance(session_id, str) and isinstance(stamp, int | float):
                found[session_id] = max(stamp, found.get(session_id, stamp))
    return found


def first_prompts(
    connection: sqlite3.Connection, session_ids: Sequence[str]
) -> dict[str, str]:
    """A title for each session OpenCode has not titled yet: its first typed prompt,
    by the session (the caller checked `has_row_data`). The first three user rows of
    them all in one pass (`databases.first_rows`), not a look-up a session: each
    scanned a view without an index."""
    rows = databases.first_rows(
        connection, "session_message", "session_id", session_ids, "seq", 3,
        where="AND type = 'user'",
    )  # fmt: skip
    prompts = {}
    for session_id, firsts in rows.items():
        for row_id, rowid, listed in firsts:
            text = as_str(_data(connection, rowid, row_id, listed).get("text"))
            if (
                text
                and not text.startswith(SUBAGENT_PROMPT)
                and isinstance(session_id, str)
            ):
                prompts[session_id] = text
                break
    return prompts


class LegacyMessage(Protocol):
    def __call__(self, message_id: str, created: int | None) -> Iterator[Event]: ...


def history(
    reader: Reader,
    connection: sqlite3.Connection,
    session_id: str,
    agent: str | None,
    children: Children,
    legacy_rows: list[tuple[int, str, str]],
    legacy_message: LegacyMessage,
) -> Iterator[Event]:
    """The session's events: its 2.x rows, merged by time with the messages the 1.x
    tables hold (`legacy_rows`: created ms, id and role of each; `legacy_message` reads one)."""
    copied = _billed_calls(connection, _fork_source(connection, session_id))
    known_ids = {row_id for _, row_id, _ in legacy_rows[:_IDS_CAP]}
    known_times = {(created, role) for created, _, role in legacy_rows[:_IDS_CAP]}
    spawned = _Spawned(connection, session_id)
    rows = connection.execute(
        f"SELECT id, type, time_created, rowid, {reader.listed('session_message')} FROM session_message WHERE session_id = ? ORDER BY seq",
        (session_id,),
    )
    waiting = iter(legacy_rows)
    legacy = next(waiting, None)
    for row_id, kind, created, rowid, *listed in rows:
        kind = as_str(kind) or ""
        if row_id in known_ids or (created, _role(kind)) in known_times:
            continue  # the upgrade's copy of a 1.x message
        while legacy is not None and isinstance(created, int) and legacy[0] <= created:
            yield from legacy_message(legacy[1], legacy[0])  # written before this row
            legacy = next(waiting, None)
        data = reader.value(
            connection, "session_message", rowid, row_id, (listed[0], listed[1])
        )
        where = f"{reader.db}#session_message/{rowid}"
        if kind in ("user", "assistant", "compaction"):  # a compaction folds messages
            reader.folds.message(agent, row_id, kind == "compaction")
        yield from _row(
            reader, kind, data, created, agent, children, copied, spawned, where
        )
    while legacy is not None:
        yield from legacy_message(legacy[1], legacy[0])
        legacy = next(waiting, None)


def last_rows(
    reader: Reader,
    connection: sqlite3.Connection,
    session_id: str,
    last: int,
    settle: bool = False,
) -> Iterator[Event]:
    """The lead's events of the session's last `last` 2.x rows (where `settle`, as many
    more as `_fold_reach` says), in the order `history` reads them (raises WholeRead
    where that is not exact: a fork, a session with child sessions, one no longer than
    that). A compaction's note whose fold starts before them goes to `reader.unsure`."""
    if _fork_source(connection, session_id) is not None:
        raise WholeRead("a fork: its copies are known from its source")
    for table in _session_tables(connection, "parent_id"):
        if connection.execute(
            f"SELECT 1 FROM {table} WHERE parent_id = ? LIMIT 1", (session_id,)
        ).fetchone():
            raise WholeRead("a spawn naming no child takes one the spawns before left")
    query = f"SELECT id, type, time_created, rowid, {reader.listed('session_message')} FROM session_message WHERE session_id = ? ORDER BY seq DESC LIMIT ?"
    rows = connection.execute(query, (session_id, last + 1)).fetchall()
    if len(rows) <= last:
        raise WholeRead("no more rows than asked for")
    reader.folds = Folds(whole=False)
    reach = _fold_reach(connection, session_id, rows[last - 1][3]) if settle else 0
    if reach:  # from the row after the compaction row before them: its fold is known
        if reach > last:
            rows = connection.execute(query, (session_id, reach)).fetchall()
            last = len(rows)
        reader.folds.known.add(None)
    spawned = _Spawned(connection, session_id)
    for row_id, kind, created, rowid, *listed in reversed(rows[:last]):
        kind = as_str(kind) or ""
        data = reader.value(
            connection, "session_message", rowid, row_id, (listed[0], listed[1])
        )
        where = f"{reader.db}#session_message/{rowid}"
        if kind in ("user", "assistant", "compaction"):
            reader.folds.message(None, row_id, kind == "compaction")
        yield from _row(reader, kind, data, created, None, None, set(), spawned, where)


def _fold_reach(connection: sqlite3.Connection, session_id: str, first: object) -> int:
    """How many of the session's last rows, from the one after the compaction row before
    the first compaction from row `first` (a rowid) on, to read for that compaction's
    note to be sure: every row before a 2.x compaction is folded into it, so the next
    one folds from there. 0 where no compaction is among them; raises WholeRead where
    none is before it (it folds from the session's start) or where that is more than
    half the session: its whole read costs at most twice as much."""
    # a compaction that failed (or has not ended) folds nothing: the next one folds
    # from the one before it (`_compaction`); one whose data is no JSON, from itself
    status = "CASE WHEN json_valid(data) AND json_type(data, '$.status') = 'text' THEN json_extract(data, '$.status') END"
    compaction = f"SELECT seq FROM session_message WHERE session_id = ? AND type = 'compaction' AND coalesce({status}, 'completed') = 'completed' AND seq {{}} ? ORDER BY seq {{}} LIMIT 1"
    try:
        found = connection.execute(
            compaction.format(">=", ""),
            (session_id, _seq_of(connection, first)),
        ).fetchone()
        if found is None:
            return 0
        before = connection.execute(
            compaction.format("<", "DESC"), (session_id, found[0])
        ).fetchone()
        if before is None:
            raise WholeRead("its compaction folds from the session's start")
        reach, total = connection.execute(
            "SELECT count(*) FILTER (WHERE seq > ?), count(*) FROM session_message "
            "WHERE session_id = ?",
            (before[0], session_id),
        ).fetchone()
    except sqlite3.Error:  # widen, as for more events
        return 0
    if 2 * reach > total:
        raise WholeRead("most of the session")
    return int(reach)


def _seq_of(connection: sqlite3.Connection, rowid: object) -> object:
    row = connection.execute(
        "SELECT seq FROM session_message WHERE rowid = ?", (rowid,)
    ).fetchone()
    return row[0] if row else None


def _session_tables(connection: sqlite3.Connection, *needed: str) -> list[str]:
    """The session tables holding these columns: 2.x's `session_v2`, and `session`, which
    took the same columns in later 1.x schemas (`fork_session_id` beside `parent_id`)."""
    return [
        table
        for table in (SESSION_TABLE, "session")
        if set(needed) <= databases.table_columns(connection, table)
    ]


def _fork_source(connection: sqlite3.Connection, session_id: str) -> str | None:
    """The session a fork copied its rows from, from the first session row naming one."""
    for table in _session_tables(connection, "id", "fork_session_id"):
        row = connection.execute(
            f"SELECT fork_session_id FROM {table} WHERE id = ?", (session_id,)
        ).fetchone()
        if row and (source := as_str(row[0])):
            return source
    return None


def _role(kind: str) -> str:
    return kind if kind in ("user", "assistant") else ""


class _Spawned:
    """Child sessions of a session, oldest first, for spawns that do not name theirs."""

    def __init__(self, connection: sqlite3.Connection, session_id: str) -> None:
        self.connection = connection
        self.session_id = session_id
        self.waiting: list[str] | None = None

    def claim(self, named: str | None) -> str | None:
        if self.waiting is None:
            found: set[tuple[int, str]] = set()
            for table in _session_tables(self.connection, "parent_id", "time_created"):
                found.update(
                    (created if isinstance(created, int) else 0, child)
                    for child, created in self.connection.execute(
                        f"SELECT id, time_created FROM {table} WHERE parent_id = ? LIMIT 10000",
                        (self.session_id,),
                    )
                    if isinstance(child, str)
                )
            # a child in both tables (an upgraded 1.x one) is waited for once
            self.waiting = list(dict.fromkeys(child for _, child in sorted(found)))
        if named is not None:
            if named in self.waiting:
                self.waiting.remove(named)
            return named
        return self.waiting.pop(0) if self.waiting else None


def _row(
    reader: Reader,
    kind: str,
    data: dict[str, object],
    created: object,
    agent: str | None,
    children: Children,
    copied: set[bytes],
    spawned: _Spawned,
    where: str,  # the row, as --verbose names it
) -> Iterator[Event]:
    times = as_dict(data.get("time"))
    time = ms_time(times.get("created")) or ms_time(created)
    if kind == "user":
        text = as_str(data.get("text"))
        if text:
            reader.folds.prompt(agent, text)
            yield reader.event("user", time, agent, text=text)
        for file in as_list(data.get("files")):
            yield reader.event("user", time, agent, text=file_label(file))
    elif kind == "assistant":
        yield from _assistant(
            reader, data, time, agent, children, copied, spawned, where
        )
    elif kind in _META_TYPES:
        text = as_str(data.get("text"))
        if text:
            yield reader.event("meta", time, agent, text=text, extra={"row": kind})
    elif kind == "shell":
        yield from _shell(reader, data, time, agent)
    elif kind == "compaction":
        yield from _compaction(reader, data, time, agent, copied, where)
    elif kind == "idle":
        outcome = as_str(data.get("outcome"))
        if outcome == "failed":
            yield reader.event("error", time, agent, text="the turn failed")
        elif outcome in _IDLE_ENDS:  # the user stopped it: not the model's turn end
            yield reader.event(
                "turn_end",
                time,
                agent,
                extra={"reason": _IDLE_ENDS[outcome], "interrupted": True},
            )
    elif kind == "agent-switched":
        name = as_str(data.get("agent"))
        if name:
            yield reader.event(
                "meta", time, agent, text=f"agent: {name}", extra={"agent": name}
            )
    elif kind == "model-switched":
        model = as_str(as_dict(data.get("model")).get("id"))
        if model:
            yield reader.event(
                "meta", time, agent, text=f"model: {model}", extra={"model": model}
            )
    elif kind == "location-switched":
        folder = as_str(as_dict(data.get("location")).get("directory"))
        if folder:
            yield reader.event(
                "meta", time, agent, text=f"cwd: {folder}", extra={"cwd": folder}
            )
    else:
        reader.diagnostics.unknown_type(f"session_message:{kind}")


def _assistant(
    reader: Reader,
    data: dict[str, object],
    time: datetime | None,
    agent: str | None,
    children: Children,
    copied: set[bytes],
    spawned: _Spawned,
    where: str,
) -> Iterator[Event]:
    for block in as_list(data.get("content")):
        block = as_dict(block)
        kind = as_str(block.get("type"))
        text = as_str(block.get("text"))
        if kind == "text" and text:
            # text the harness put in the answer (a model fallback notice, a synthetic
            # or ignored part) is not what the model said
            notice = as_str(block.get("fallbackNotice"))
            if notice or block.get("synthetic") is True or block.get("ignored") is True:
                extra: dict[str, JSONValue] = {"synthetic": True}
                if notice:
                    extra["fallback"] = notice
                yield reader.event("meta", time, agent, text=text, extra=extra)
            else:
                yield reader.event("assistant", time, agent, text=text)
        elif kind == "reasoning" and text:
            yield reader.event("thinking", time, agent, text=text)
        elif kind == "tool":
            part = _tool_part(block, spawned)
            yield from reader.tool(part, time, agent, children)
        elif kind is not None:
            reader.diagnostics.unknown_type(f"session_message:assistant/{kind}")
    times = as_dict(data.get("time"))
    done = ms_time(times.get("completed")) or time
    model = as_str(as_dict(data.get("model")).get("id"))
    tokens = data.get("tokens")
    if isinstance(tokens, dict) and _call_key(data) not in copied:
        say_odd(reader.diagnostics, tokens, where)
        usage = usage_of(tokens, model)
        if usage is not None:
            billing_ = billing(
                as_dict(data.get("model")).get("providerID"), data.get("cost")
            )
            yield reader.event("usage", done, agent, usage=usage, extra=billing_)
    error = as_dict(data.get("error"))
    if error:
        text = as_str(error.get("message")) or as_str(error.get("type")) or "error"
        yield reader.event(
            "error", done, agent, text=text, extra={"name": as_str(error.get("type"))}
        )
    finish = as_str(data.get("finish"))
    if finish in ("stop", "length", "end-turn", "end_turn"):
        yield reader.event("turn_end", done, agent, extra={"reason": finish})


def _tool_part(block: dict[str, object], spawned: _Spawned) -> dict[str, object]:
    """A 2.x tool block in the 1.x part shape the shared tool reader takes."""
    state = as_dict(block.get("state"))
    name = as_str(block.get("name"))
    output: JSONValue = None
    texts = [
        as_str(as_dict(item).get("text")) or ""
        for item in as_list(state.get("content"))
        if as_dict(item).get("type") == "text"
    ]
    if texts:
        output = "\n".join(texts)
    elif state.get("result") is not None:
        output = json_copy(state.get("result"))
    # a file in the content (an image `read` gave the model) as 1.x keeps it
    attachments = [
        item
        for item in as_list(state.get("content"))
        if as_dict(item).get("type") == "file"
    ]
    error = state.get("error")
    message = as_str(as_dict(error).get("message")) or as_str(error)
    child: str | None = None
    if name in SPAWN_TOOLS:
        # `subagent` names its child in `metadata.sessionID` once it runs, and in its
        # input when it continues one (packages/core/src/tool/plugin/subagent.ts)
        for holder in (
            state.get("metadata"),
            state.get("structured"),
            state.get("result"),
            state.get("input"),
        ):
            found = as_dict(holder)
            child = (
                child
                or as_str(found.get("sessionID"))
                or as_str(found.get("sessionId"))
            )
        child = spawned.claim(child)
    return {
        "tool": name,
        "callID": as_str(block.get("id")),
        "state": {
            "status": as_str(state.get("status")),
            "input": json_copy(state.get("input")),
            "output": output,
            "error": message or "error",
            "metadata": {"sessionId": child} if child else {},
            "time": json_copy(state.get("time")),
            "attachments": json_copy(attachments),
        },
    }


def _shell(
    reader: Reader, data: dict[str, object], time: datetime | None, agent: str | None
) -> Iterator[Event]:
    """A `!` command the user ran in the session."""
    command = as_str(data.get("command"))
    yield reader.event(
        "tool_call", time, agent, tool="shell", extra={"input": {"command": command}}
    )
    output = data.get("output")
    text = as_str(as_dict(output).get("output")) or as_str(output)
    status = as_str(data.get("status"))
    exit_code = data.get("exit")
    if status not in ("running", "pending") and (status or text is not None):
        yield reader.event(
            "tool_result",
            time,
            agent,
            tool="shell",
            text=text,
            is_error=status in _SHELL_FAILED
            or (isinstance(exit_code, int) and exit_code != 0),
        )


def file_name(file: object) -> str:
    """A prompt's attachment by name: 2.x `{uri, mime, name}`, older `{filename, url}`;
    never a `data:` URI (the file itself, base64)."""
    found = as_dict(file)
    name = as_str(found.get("name")) or as_str(found.get("filename"))
    if name:
        return name
    uri = as_str(found.get("uri")) or as_str(found.get("url")) or ""
    if uri.startswith("file://"):
        return uri.rstrip("/").rpartition("/")[2] or "file"
    return as_str(found.get("mime")) or "file"


def file_label(file: object) -> str:
    """A file a prompt or a tool result holds, as the transcript names it: `[file
    shot.png, image/png]`."""
    name = file_name(file)  # never a pasted image's data: URI
    mime = as_str(as_dict(file).get("mime"))
    return f"[file {name}{', ' + mime if mime and mime != name else ''}]"


def _compaction(
    reader: Reader,
    data: dict[str, object],
    time: datetime | None,
    agent: str | None,
    copied: set[bytes],
    where: str,
) -> Iterator[Event]:
    status = as_str(data.get("status"))
    if status == "failed":
        message = as_str(as_dict(data.get("error")).get("message"))
        yield reader.event("error", time, agent, text=message or "compaction failed")
    elif status in (None, "completed"):
        # who started it and what it kept, as a 1.x compaction's note says
        reason = data.get("reason")
        sure = reader.folds.sure(agent)
        note = reader.folds.row(agent, reason, data.get("recent"))
        if note:
            event = reader.event(
                "meta", time, agent, text=note, extra={"compaction": True}
            )
            if not sure:  # what it folded may start before the rows read
                reader.unsure.add(event.seq)
            yield event
        extra: dict[str, JSONValue] = {}
        if reason in ("auto", "manual"):
            extra["auto"] = reason == "auto"
        yield reader.event(
            "compaction", time, agent, text=as_str(data.get("summary")), extra=extra
        )
    tokens = data.get("tokens")
    if isinstance(tokens, dict) and _call_key(data) not in copied:
        say_odd(reader.diagnostics, tokens, where)
        model = as_dict(data.get("model"))
        usage = usage_of(tokens, as_str(model.get("id")))
        if usage is not None:
            # a compaction request is billed like an answer: keep whom it went to and
            # the cost OpenCode recorded
            extra = billing(model.get("providerID"), data.get("cost"))
            yield reader.event("usage", time, agent, usage=usage, extra=extra)


def _billed_calls(connection: sqlite3.Connection, source: str | None) -> set[bytes]:
    """The model calls of a fork's source: a fork's copy of one is billed there, not here."""
    if source is None:
        return set()
    view = databases.is_view(connection, "session_message")
    values = databases.view_values("data") if view else "NULL, NULL"
    rows = connection.execute(
        f"SELECT rowid, id, {values} FROM session_message WHERE session_id = ? AND type IN ('assistant', 'compaction') LIMIT ?",
        (source, _IDS_CAP),
    )
    return {
        _call_key(_data(connection, rowid, row_id, (value, size) if view else None))
        for rowid, row_id, value, size in rows
    }


def _data(
    connection: sqlite3.Connection,
    rowid: object,
    row_id: object,
    listed: tuple[object, object] | None = None,
) -> dict[str, object]:
    """A row's data, a huge one with its long strings elided (`databases.bounded_value`);
    a view's row (no rowid) given with it (`listed`), else found by its id."""
    return json_object(
        databases.bounded_value(
            connection,
            "session_message",
            "data",
            rowid if isinstance(rowid, int) else None,
            key=("id", row_id),
            listed=listed,
        )
    )


def _call_key(data: dict[str, object]) -> bytes:
    """A call as its copies keep it: when it started, the model, what it counted."""
    return orjson.dumps(
        [
            as_dict(data.get("time")).get("created"),
            as_dict(data.get("model")).get("id"),
            data.get("tokens"),
        ],
        option=orjson.OPT_SORT_KEYS,
        default=str,
    )


def billing(provider: object, cost: object) -> dict[str, JSONValue]:
    """A usage event's `provider` (whom the request went to, for its price list) and
    `cost_usd` (the cost OpenCode recorded, from its models.dev prices: `usage` takes it
    where its own price list has none; 0, a price OpenCode did not know, is left out)."""
    extra: dict[str, JSONValue] = {}
    if name := as_str(provider):
        extra["provider"] = name
    if isinstance(cost, int | float) and not isinstance(cost, bool) and cost > 0:
        extra["cost_usd"] = float(cost)
    return extra


def _count(value: object) -> int:
    return max(0, as_int(value))


def say_odd(diagnostics: Diagnostics, tokens: dict[str, object], where: str) -> None:
    """Say a billed response's `tokens` holding a count no app writes (`odd_count`)."""
    cache = as_dict(tokens.get("cache"))
    if any(odd_count(tokens.get(key)) for key in _TOKENS) or any(
        odd_count(cache.get(key)) for key in ("read", "write")
    ):
        diagnostics.damage(where, 0, odd_in("response"))


# a response's `tokens` counts, beside its `cache` {read, write}
_TOKENS = ("input", "output", "reasoning", "total")


def usage_of(tokens: dict[str, object], model: str | None) -> Usage | None:
    """A response's usage from OpenCode's `tokens` (1.x messages and 2.x rows alike)."""
    cache = tokens.get("cache") if isinstance(tokens.get("cache"), dict) else {}
    assert isinstance(cache, dict)
    # each 0 below 0 (broken): a negative reasoning count took as much off the output
    reasoning = _count(tokens.get("reasoning"))
    output = _count(tokens.get("output"))
    read, write = _count(cache.get("read")), _count(cache.get("write"))
    inside = _count(tokens.get("input")) + output + read + write
    if not (reasoning and as_int(tokens.get("total")) == inside):
        # current releases keep reasoning out of `output` (their total adds it apart);
        # releases before PR 21047 kept an OpenAI model's inside, which the total shows
        output += reasoning
    usage = Usage(
        input_tokens=_count(tokens.get("input")),
        output_tokens=output,
        cache_read_tokens=read,
        cache_write_tokens=write,
        reasoning_tokens=reasoning,
        model=model,
    )
    return usage if usage.total else None
