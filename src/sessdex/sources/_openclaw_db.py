"""OpenClaw's per-agent database (2026.8 and later): its sessions and their transcripts.

Where: `<state>/agents/<agentId>/agent/openclaw-agent.sqlite` (src/state/
openclaw-agent-db.paths.ts). From 2026.8 the transcripts live there, not in
`sessions/<id>.jsonl`: `openclaw doctor --fix` imports each `.jsonl` into it and moves the
file to `<agentId>/session-sqlite-import-archive/` (not read: its rows are in the database).
The database also holds the agent's auth profiles (`auth_profile_store`): only the session
tables named here are ever queried.

What it holds (src/state/openclaw-agent-schema.sql):
- `session_nodes`: one row per session key (what `sessions.json` was): `current_session_id`,
  `entry_json` (the old store entry: `subject`, `channel`, the `autoLabel` OpenClaw titles
  a session with, ...), and promoted columns `label`, `display_name`, `spawned_by`,
  `parent_session_key`, `status` (`running`, `done`, `failed`, `killed`, `timeout`: how a
  sub-agent's run ended), `archived_at`, and a fork's `fork_source_session_key` /
  `fork_source_session_id` / `fork_source_entry_id` (the session, and the entry, it was
  copied from: `extra["forked_from_id"]`, the user's own session, no sub-agent); the title
  is the `label`, else a group's `subject`, the `display_name`, the `autoLabel`, as
  OpenClaw's own list shows it;
- `session_windows`: one row per session id (a transcript generation) with its
  `session_key`, `reason` (`initial`, `reset`, `rollover`, `compaction`, `fork`, ...),
  `created_at`/`updated_at` (epoch ms), `channel`, `model`; a key's older windows are
  what a reset (or rollover) left: no key opens them any more;
- `transcript_events`: the transcript, one pi format 3 entry per row (`seq` orders them;
  the first is the `session` header), as `event_json` text, or, from 1 KiB up where Node
  has zstd, as `event_zstd` (a zstd frame of `event_utf8_bytes` bytes, at most 4 MiB);
- `transcript_event_identities`: each entry's `event_id`/`parent_id` (the tree, indexed),
  and its `event_type`;
- `trajectory_runtime_events`: each run's runtime trace (`run_id`, indexed with the
  session), whose `trace.metadata` event, near the run's start, names the OpenClaw that ran
  it (`data.harness.version`): the newest run's is the session's version.
A window's cold archive (opt-in `coldStorage.enabled`: `session_transcript_cold_archives`,
its rows moved to `sessions/cold/<sha256>.jsonl.zst`, wrapped records, or a blob) is not
read: such a session lists with what its window row says, and `doctor` says so.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Mapping
from pathlib import Path

from .. import databases, files
from ..diagnostics import Diagnostics, read_failed
from ..model import JSONValue, Session
from ..wording import count_of
from . import pi
from ._values import as_str, epoch_or_iso_time, ms_time, one_line

DATABASE = "openclaw-agent.sqlite"
# where the database keeps the agent's auth profiles (API keys, OAuth tokens), never
# read: blanked in the copy sessdex keeps of the database (databases.open_sqlite)
LOGIN = ("auth_profile_store",)
WHERE = "#transcript_events/"
_MAX_EVENT = 4 * 1024 * 1024  # OpenClaw's bound on one entry, stored or decompressed
_ENDS = 24  # entries read at each end of a transcript to list it
_WINDOW_COLUMNS = ("status", "channel", "model", "previous_session_id", "reason")
_NODE_COLUMNS = (
    "label",
    "display_name",
    "spawned_by",
    "parent_session_key",
    "status",
    "archived_at",
    "fork_source_session_id",
)


def sessions(
    path: Path,
    app: str,
    diagnostics: Diagnostics,
    synthetic: frozenset[tuple[str, str]],
) -> list[Session]:
    """The sessions (windows) of one agent database; none where it keeps no transcripts
    (an agent database of before 2026.8)."""
    connection = databases.open_or_say(path, app, diagnostics, login=LOGIN)
    if connection is None:
        return []
    try:
        return _sessions(connection, path, app, diagnostics, synthetic)
    except sqlite3.Error as error:
        diagnostics.problem(read_failed(app, path, error))
        return []
    finally:
        connection.close()


def _select(connection: sqlite3.Connection, table: str, wanted: tuple[str, ...]) -> str:
    """`wanted`'s columns, NULL for those this schema lacks."""
    have = databases.table_columns(connection, table)
    return ", ".join(name if name in have else "NULL" for name in wanted)


def _sessions(
    connection: sqlite3.Connection,
    path: Path,
    app: str,
    diagnostics: Diagnostics,
    synthetic: frozenset[tuple[str, str]],
) -> list[Session]:
    windows = databases.table_columns(connection, "session_windows")
    events = databases.table_columns(connection, "transcript_events")
    if not windows and not events:
        return []  # an agent database of before 2026.8: no sessions in it
    if (
        not {"session_id", "session_key"} <= windows
        or not {
            "session_id",
            "seq",
            "event_json",
        }
        <= events
    ):
        diagnostics.problem(
            f"{app}: {path} has no session_windows and transcript_events tables we "
            "know; its sessions are not read"
        )
        return []
    nodes = keys_of(connection)
    found = []
    rows = connection.execute(
        "SELECT session_id, session_key, created_at, updated_at, "
        f"{_select(connection, 'session_windows', _WINDOW_COLUMNS)} FROM session_windows"
    ).fetchall()
    identities = _has_identities(connection)
    trajectory = {"session_id", "seq", "run_id", "event_json"} <= (
        databases.table_columns(connection, "trajectory_runtime_events")
    )
    others = Others(path)
    # a window's successor (`previous_session_id` names it) says why it was left:
    # its `reason` (`reset`, `rollover`, `compaction`, ...)
    left = {row[7]: row[8] for row in rows if isinstance(row[7], str)}
    cold = _cold(connection)
    unread = 0
    for session_id, key, created_at, updated_at, status, channel, model, _, _ in rows:
        if not isinstance(session_id, str) or not session_id:
            diagnostics.skip(f"{path}#session_windows", 0, "bad value")
            continue
        node = nodes.get(key) if isinstance(key, str) else None
        current = node is not None and node["current"] == session_id
        head = _events(connection, session_id, "ASC", diagnostics, path)
        if not head and session_id in cold:
            unread += 1  # moved to cold storage: listed with what its rows say
        header = head[0] if head and head[0].get("type") == "session" else {}
        state = pi.Summary(synthetic)
        for record in head[1:] if header else head:
            state.take(record)
        if identities:
            for record in _named(connection, session_id, diagnostics, path):
                state.take(record)
        tail = _events(connection, session_id, "DESC", diagnostics, path)
        for record in reversed(tail):  # a short one's are the head's again: no harm
            if record.get("type") != "session":
                state.take(record)
        extra: dict[str, JSONValue] = {
            "agent_id": path.parent.parent.name,
            "format_version": v if isinstance(v := header.get("version"), int) else 3,
        }
        if state.provider:
            extra["provider"] = state.provider
        if isinstance(channel, str) and channel:
            extra["channel"] = channel
        title = None
        parent = None
        spawner = None
        if node is not None and current:
            extra["session_key"] = str(key)
            title = node["title"]
            spawner = node["spawner"]
            if node["status"]:
                extra["run_status"] = node["status"]
            if node["archived"]:
                extra["archived_at"] = node["archived"]
            if node["forked_from"] and node["forked_from"] != session_id:
                extra["forked_from_id"] = node["forked_from"]
        elif isinstance(status, str) and status:
            extra["run_status"] = status
        if not current:
            # a reset or rollover moved the key on: no key opens this one
            extra["archived"] = as_str(left.get(session_id)) or "reset"
        if spawner:
            extra["spawned_by"] = spawner
            owner = nodes.get(spawner) if spawner in nodes else None
            # a lead whose node or session is gone is named by its key, as the store's
            parent = (owner["current"] if owner else others.id_of(spawner)) or spawner
        created = epoch_or_iso_time(header.get("timestamp")) or ms_time(created_at)
        updated = max(
            (t for t in (state.updated, ms_time(updated_at), created) if t),
            default=None,
        )
        sub_agent = spawner is not None or ":subagent:" in str(key or "")
        found.append(
            Session(
                app=app,
                id=session_id,
                path=f"{path}{WHERE}{session_id}",
                cli_version=_version(connection, session_id, trajectory),
                cwd=as_str(header.get("cwd")),
                title=title or state.name or task_title(state.first_prompt),
                created=created,
                updated=updated,
                model=state.model or as_str(model),
                effort=state.effort,
                bytes=_size(connection, session_id),
                parent_id=parent if parent != session_id else None,
                agent_type="subagent" if sub_agent else None,
                extra=extra,
            )
        )
    if unread:
        diagnostics.problem(
            f"{app}: {path}: {count_of(unread, 'session')} whose transcript OpenClaw moved to its "
            "cold storage (session_transcript_cold_archives) are listed without their "
            "entries"
        )
    return found


def keys_of(
    connection: sqlite3.Connection, only: str | None = None
) -> dict[str, dict[str, str | None]]:
    """Each session key's node: its current session id, title, spawner, status; that
    of the key `only` alone where one is given (a read asks for its spawns' keys: a look-up each,
    where every node of a database of thousands, read for each of its leads, was a cost
    squared)."""
    columns = databases.table_columns(connection, "session_nodes")
    if not {"session_key", "current_session_id"} <= columns:
        return {}
    entry = (
        ", ".join(
            f"CASE WHEN json_valid(entry_json) THEN json_extract(entry_json, '$.{name}') END"
            for name in ("subject", "spawnDepth", "autoLabel")
        )
        if "entry_json" in columns
        else "NULL, NULL, NULL"
    )
    found: dict[str, dict[str, str | None]] = {}
    rows = connection.execute(
        f"SELECT session_key, current_session_id, {entry}, "
        f"{_select(connection, 'session_nodes', _NODE_COLUMNS)} FROM session_nodes"
        + (" WHERE session_key = ?" if only is not None else ""),
        () if only is None else (only,),
    )
    for key, current, subject_text, depth, auto_label, *rest in rows:
        label, display, spawned_by, parent_key, status, archived, fork = rest
        if not isinstance(key, str) or not isinstance(current, str):
            continue
        found[key] = {
            "current": current,
            "title": title_of(label, subject_text, display, auto_label),
            "spawner": spawner_of(key, spawned_by, parent_key, depth),
            "status": as_str(status),
            "archived": (t.isoformat() if (t := ms_time(archived)) else None),
            "forked_from": as_str(fork) or None,
        }
    return found


def title_of(*names: object) -> str | None:
    """A session's title as OpenClaw shows it (session-utils-display): the user's `label`,
    a group's `subject`, the `displayName`, then the `autoLabel` OpenClaw made itself."""
    return next(
        (shown for value in names if (shown := one_line(value, limit=None))), None
    )


# how OpenClaw wraps a sub-agent's task as its first prompt (sessions-spawn-tool's
# buildSubagentTaskMessage, 2026.9.6), once collapsed to one line
_TASK_HEAD = "[Subagent Context] "
_TASK_MARK = " [Subagent Task] "
_TASK_TAIL = " Begin. Execute the assigned task to completion."


def task_title(prompt: str | None) -> str | None:
    """A first prompt as a title: a sub-agent's task alone, out of the context lines and
    the closing "Begin. …" OpenClaw wraps it in; any other prompt as it is."""
    if not prompt or not prompt.startswith(_TASK_HEAD):
        return prompt
    _, mark, task = prompt.partition(_TASK_MARK)
    task = task.removesuffix(_TASK_TAIL).strip()
    return task if mark and task else prompt


def spawner_of(
    key: str, spawned_by: object, parent_key: object, depth: object
) -> str | None:
    """The key that spawned a sub-agent's session; None for a session that is none, told
    as OpenClaw tells them (subagent-depth-policy.ts, isSubagentSessionFromEntry): a
    `spawnDepth` over 0, or, where the entry has none, a `spawnedBy` or a `:subagent:`
    key. A session the TUI's `/new` (2026.9.6) started from another names that one as its
    `parentSessionKey`, with `spawnDepth` 0 and no `spawnedBy`: the user's own, no spawn."""
    spawner = as_str(spawned_by) or as_str(parent_key)
    if isinstance(depth, int) and not isinstance(depth, bool):
        return spawner if depth > 0 else None
    if as_str(spawned_by) or ":subagent:" in key:
        return spawner
    return None


class Others:
    """Session key -> current id through the other agents' databases (a sub-agent may
    be spawned under another agent than its lead's); each read once, 64 at most."""

    def __init__(self, database: Path, *, one_by_one: bool = False) -> None:
        self.agents = database.parent.parent.parent  # .../agents
        self.own = database.parent.parent.name
        self.read: dict[str, dict[str, str]] = {}
        # a read asks for its spawns' keys alone: each looked up, not each database
        # read whole (once for each lead of thousands)
        self.one_by_one = one_by_one

    def id_of(self, key: str) -> str | None:
        parts = key.split(":")
        if len(parts) < 3 or parts[0] != "agent":
            return None
        agent = parts[1].lower()
        if agent == self.own or not pi_agent(agent):
            return None
        known = self.read.get(agent)
        if known is None and len(self.read) >= 64:
            return None
        if known is None or (self.one_by_one and key not in known):
            if len(known or ()) >= 10_000:
                return None
            known = self.read.setdefault(agent, {})
            known[key] = ""  # asked once, found or not
            known.update(self._nodes(agent, key if self.one_by_one else None))
        return known.get(key) or None

    def _nodes(self, agent: str, key: str | None) -> dict[str, str]:
        """Key -> current id in `agent`'s database: of every node, or of `key`'s."""
        target = self.agents / agent / "agent" / DATABASE
        if not target.is_file():
            return {}
        try:
            connection = databases.open_sqlite(target, login=LOGIN)
        except (OSError, sqlite3.Error):
            return {}
        try:
            return {k: v["current"] or "" for k, v in keys_of(connection, key).items()}
        except sqlite3.Error:
            return {}
        finally:
            connection.close()


def pi_agent(agent: str) -> bool:
    """An agent id as OpenClaw normalizes it: a folder name, never a path."""
    return (
        0 < len(agent) <= 64
        and agent[0].isalnum()
        and all(c.isascii() and (c.isalnum() or c in "_-") for c in agent)
        and agent == agent.lower()
    )


def _cold(connection: sqlite3.Connection) -> set[str]:
    """The windows whose transcript rows OpenClaw moved to cold storage (opt-in:
    `coldStorage.enabled`; a `sessions/cold/<sha256>.jsonl.zst` file or a blob)."""
    if "session_id" not in databases.table_columns(
        connection, "session_transcript_cold_archives"
    ):
        return set()
    return {
        row[0]
        for row in connection.execute(
            "SELECT session_id FROM session_transcript_cold_archives"
        )
        if isinstance(row[0], str)
    }


# a run's `trace.metadata` comes among its first trajectory events (2026.9.6: the second)
_TRACE_HEAD = 8


def _version(
    connection: sqlite3.Connection, session_id: str, trajectory: bool
) -> str | None:
    """The OpenClaw version of the session's newest run: its `trace.metadata` trajectory
    event's `data.harness.version`, looked for among that run's first events (indexed:
    `idx_agent_trajectory_runtime_run`); none where OpenClaw kept no trajectory."""
    if not trajectory:
        return None
    last = connection.execute(
        "SELECT run_id FROM trajectory_runtime_events WHERE session_id = ? "
        "AND run_id IS NOT NULL ORDER BY seq DESC LIMIT 1",
        (session_id,),
    ).fetchone()
    if last is None:
        return None
    for (value,) in connection.execute(
        f"SELECT CASE WHEN length(event_json) <= {_MAX_EVENT} AND json_valid(event_json) AND "
        "json_extract(event_json, '$.type') = 'trace.metadata' "
        "THEN json_extract(event_json, '$.data.harness.version') END "
        "FROM trajectory_runtime_events WHERE session_id = ? AND run_id = ? "
        f"ORDER BY seq LIMIT {_TRACE_HEAD}",
        (session_id, last[0]),
    ):
        if version := one_line(value, limit=64):
            return version
    return None


def _has_identities(connection: sqlite3.Connection) -> bool:
    return {"session_id", "event_id", "parent_id", "seq", "event_type"} <= (
        databases.table_columns(connection, "transcript_event_identities")
    )


def _size(connection: sqlite3.Connection, session_id: str) -> int | None:
    if "event_utf8_bytes" not in databases.table_columns(
        connection, "transcript_events"
    ):
        return None
    row = connection.execute(
        "SELECT sum(event_utf8_bytes) FROM transcript_events WHERE session_id = ?",
        (session_id,),
    ).fetchone()
    return row[0] if row and isinstance(row[0], int) else None


def _compressed(connection: sqlite3.Connection) -> bool:
    return {"event_zstd", "event_utf8_bytes"} <= databases.table_columns(
        connection, "transcript_events"
    )


def _rows_sql(connection: sqlite3.Connection, full: bool = False) -> str:
    # a frame over OpenClaw's bound is never loaded (length() of a blob reads no data)
    zstd = (
        f"CASE WHEN length(event_zstd) <= {_MAX_EVENT} THEN event_zstd END, "
        "event_utf8_bytes"
        if _compressed(connection)
        else "NULL, NULL"
    )
    # a view's rows have no rowid to open their text by: it comes with them (`_decoded`)
    listed = (
        databases.view_values("event_json", full)
        if databases.is_view(connection, "transcript_events")
        else "NULL, NULL"
    )
    return (
        f"SELECT rowid, event_json IS NULL, {zstd}, seq, {listed}, session_id FROM "
        "transcript_events WHERE session_id = ?"
    )


def _events(
    connection: sqlite3.Connection,
    session_id: str,
    order: str,
    diagnostics: Diagnostics,
    path: Path,
) -> list[dict[str, object]]:
    """The first (or last) entries of a transcript, in the order asked."""
    rows = connection.execute(
        f"{_rows_sql(connection)} ORDER BY seq {order} LIMIT {_ENDS}", (session_id,)
    ).fetchall()
    found = []
    for row in rows:
        record = _decoded(connection, row, diagnostics, path)
        if record is not None:
            found.append(record)
    return found


def _named(
    connection: sqlite3.Connection,
    session_id: str,
    diagnostics: Diagnostics,
    path: Path,
) -> list[dict[str, object]]:
    """The newest `session_info` entry (a name given mid-session), through the index."""
    rows = connection.execute(
        _rows_sql(connection).replace(
            "WHERE session_id = ?",
            "WHERE session_id = ? AND seq = (SELECT seq FROM "
            "transcript_event_identities WHERE session_id = ? AND "
            "event_type = 'session_info' ORDER BY seq DESC LIMIT 1)",
        ),
        (session_id, session_id),
    ).fetchall()
    found = [_decoded(connection, row, diagnostics, path) for row in rows]
    return [record for record in found if record is not None]


def _decoded(
    connection: sqlite3.Connection,
    row: tuple[object, ...],
    diagnostics: Diagnostics,
    path: Path,
    *,
    full: bool = False,
) -> dict[str, object] | None:
    """One row's entry: its JSON text (a huge one's long strings elided, unless `full`),
    or its zstd frame decompressed (never past the size OpenClaw recorded, 4 MiB)."""
    # then its `seq`, a view's text and its size, and its session
    rowid, compressed, frame, size = row[:4]
    where = f"{path}#transcript_events" + (
        f"/{rowid}" if isinstance(rowid, int) else ""
    )
    if compressed:
        if frame is None or (isinstance(size, int) and not 0 < size <= _MAX_EVENT):
            diagnostics.skip(where, 0, "too long")
            return None
        if not isinstance(frame, bytes) or not isinstance(size, int):
            diagnostics.skip(where, 0, "bad value")
            return None
        import zstandard

        try:
            data: bytes | str | None = zstandard.ZstdDecompressor().decompress(
                frame, max_output_size=size
            )
        except zstandard.ZstdError:
            diagnostics.skip(where, 0, "unreadable")
            return None
    else:
        data = databases.bounded_value(
            connection,
            "transcript_events",
            "event_json",
            rowid if isinstance(rowid, int) else None,
            full=full,
            diagnostics=diagnostics,
            where=where,
            listed=(row[5], row[6]) if len(row) > 6 else None,
            # a view's entry too long to come with its row: found by its place
            key=("session_id", row[7]) if len(row) > 7 else None,
            keys=(("seq", row[4]),),
        )
    if data is None:
        return None
    try:
        record = files.loads(data.encode() if isinstance(data, str) else data)
    except ValueError:
        diagnostics.skip(where, 0, "not JSON")
        return None
    if not isinstance(record, dict):
        diagnostics.skip(where, 0, "not an object")
        return None
    return record


def branch(connection: sqlite3.Connection, session_id: str) -> set[str] | None:
    """The ids on the transcript's active branch, through its identity rows."""
    if not _has_identities(connection):
        return None
    parents: dict[str, str | None] = {}
    last = None
    kind = seq = None
    for event_id, parent, kind_now, seq_now in connection.execute(
        "SELECT event_id, parent_id, event_type, seq FROM transcript_event_identities "
        "WHERE session_id = ? ORDER BY seq",
        (session_id,),
    ):
        if isinstance(event_id, str):
            parents[event_id] = parent if isinstance(parent, str) else None
            last, kind, seq = event_id, kind_now, seq_now
    moved: str | bool | None = False
    if kind == "leaf":  # a rewind moved the visible leaf: its `targetId` says where
        row = connection.execute(
            f"{_rows_sql(connection)} AND seq = ?", (session_id, seq)
        ).fetchone()
        record = _decoded(connection, row, Diagnostics(), Path()) if row else None
        target = record.get("targetId") if record else False
        moved = target if isinstance(target, str) or target is None else False
    return pi.branch_of(parents, last, moved)


def records(
    connection: sqlite3.Connection,
    session_id: str,
    diagnostics: Diagnostics,
    path: Path,
    *,
    full: bool = False,
    at: list[int] | None = None,
) -> Iterator[Mapping[str, object]]:
    """A transcript's entries in order; `at[0]` the `seq` of the one given last (the
    entry's place in its session, which names it where its rowid may not)."""
    cursor = connection.execute(
        f"{_rows_sql(connection, full)} ORDER BY seq", (session_id,)
    )
    for row in cursor:
        record = _decoded(connection, row, diagnostics, path, full=full)
        if record is not None:
            if at is not None:
                at[0] = row[4] if isinstance(row[4], int) else 0
            yield record
