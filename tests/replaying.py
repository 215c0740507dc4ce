"""A captured session written again into a temporary home as its app wrote it, a step at a
time, with the live view asked its status after each step.

The steps are the session's lines (each file's in order, the files merged by the times
their records carry) or, for an app keeping SQLite, its rows (inserted as first written:
a tool part still running, a message not yet finished, then updated to what the capture
holds) through one writer connection in WAL mode, as the apps keep it. The live modules'
clock (`time.time`) is the replay's, set to each step's own time, so that every age the
status rules measure is the transcript's; sub-agent files are looked for at every poll
(the live view lists them every few seconds: a mock model's run lasts less).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import sqlite3
import time
import types
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from sessdex import api, live_beside, live_feeds, live_session
from sessdex.live_session import LiveSession
from sessdex.model import Session
from sessdex.sources import Home
from sessdex.status import Status

DATA = Path(__file__).parent / "data"


@dataclass
class Clock:
    now: float = 0.0


def patch_clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """The live modules' `time.time` made the replay's, and sub-agent files and stores
    looked at every poll."""
    clock = Clock()
    fake = types.SimpleNamespace(
        **{name: getattr(time, name) for name in dir(time) if not name.startswith("_")}
    )
    fake.time = lambda: clock.now
    fake.time_ns = lambda: int(clock.now * 1e9)
    for module in (live_feeds, live_session, live_beside):
        monkeypatch.setattr(module, "time", fake)
    monkeypatch.setattr(live_feeds, "LISTING_SECONDS", 0.0)
    monkeypatch.setattr(live_feeds, "STORE_SECONDS", 0.0)
    return clock


@dataclass(frozen=True)
class Step:
    """One write: a line appended to `path`, or a row put into `table`."""

    when: float
    agent: int  # which of the session's files or sessions: 0 is the lead's
    record: dict[str, Any]  # the line's JSON value, or the row
    path: Path | None = None
    data: bytes = b""
    table: str | None = None


def _parsed(line: bytes) -> dict[str, Any]:
    try:
        value = json.loads(line)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _stamp(record: dict[str, Any]) -> float | None:
    """When a record says it was written: its `timestamp` (ISO or epoch ms), a header's
    `startTime`, a metadata update's `lastUpdated`."""
    update = record.get("$set")
    stamp = (
        record.get("timestamp")
        or record.get("startTime")
        or (update.get("lastUpdated") if isinstance(update, dict) else None)
    )
    if isinstance(stamp, int | float) and not isinstance(stamp, bool):
        return stamp / 1000 if stamp > 1e11 else float(stamp)
    if isinstance(stamp, str) and stamp:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    return None


def file_steps(paths: list[Path]) -> list[Step]:
    """Every line of the files (the lead's first) in the order they were written: by the
    time each record carries, never before the line above it; a record written again
    under the same id (Gemini CLI adds a response's tool calls once they have run) no
    earlier than the line after it; a line with no time at the time of the one above."""
    steps: list[Step] = []
    for agent, path in enumerate(paths):
        lines = path.read_bytes().splitlines(keepends=True)
        records = [_parsed(line) for line in lines]
        times: list[float] = []
        for record in records:
            stamp = _stamp(record)
            times.append(stamp if stamp is not None else (times[-1] if times else 0.0))
        seen: set[object] = set()
        last = 0.0
        for n, (line, record) in enumerate(zip(lines, records, strict=True)):
            when = times[n]
            key = record.get("id")
            if key is not None and key in seen and n + 1 < len(lines):
                when = max(when, times[n + 1] - 0.001)
            if key is not None:
                seen.add(key)
            last = max(last, when)
            steps.append(Step(last, agent, record, path=path, data=line))
    first = min((s.when for s in steps if s.when), default=0.0)
    steps = [dataclasses.replace(s, when=s.when or first) for s in steps]
    order = {id(s): n for n, s in enumerate(steps)}
    return sorted(steps, key=lambda s: (s.when, s.agent, order[id(s)]))


def shifted(step: Step, seconds: float) -> Step:
    """The step `seconds` later, the times inside its line moved with it."""

    def iso(match: re.Match[bytes]) -> bytes:
        moment = datetime.fromisoformat(match.group(1).decode().replace("Z", "+00:00"))
        moved = (moment + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S.%f")
        return b'"' + moved[:-3].encode() + b'Z"'

    data = re.sub(rb'"(20\d\d-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z)"', iso, step.data)
    data = re.sub(
        rb"(?<![\d.])(1[78]\d{11})(?![\d.])",
        lambda m: str(int(m.group(1)) + int(seconds * 1000)).encode(),
        data,
    )
    return dataclasses.replace(step, when=step.when + seconds, data=data)


def paused(steps: list[Step], after: int, seconds: float) -> list[Step]:
    """The steps with a silence of `seconds` after step `after` (a long tool, a slow model)."""
    return steps[: after + 1] + [shifted(s, seconds) for s in steps[after + 1 :]]


# --- SQLite apps: rows as first written, then as they ended --------------------------------


def _first_state(table: str, row: dict[str, Any]) -> dict[str, Any]:
    """A row as its app first wrote it: an OpenCode tool part running (no output), a
    message not finished; a Crush message before its finish part."""
    first = dict(row)
    if table == "part":
        data = json.loads(row["data"])
        state = data.get("state")
        if data.get("type") == "tool" and isinstance(state, dict):
            data["state"] = {
                key: value
                for key, value in state.items()
                if key not in ("output", "metadata", "title", "error")
            } | {"status": "running"}
            first["data"] = json.dumps(data)
    elif table == "message":
        data = json.loads(row["data"])
        if isinstance(data.get("time"), dict):
            data["time"].pop("completed", None)
        data.pop("finish", None)
        first["data"] = json.dumps(data)
    elif table == "messages":
        parts = [p for p in json.loads(row["parts"]) if p.get("type") != "finish"]
        first["parts"] = json.dumps(parts)
        first["finished_at"] = None
    return first


@dataclass(frozen=True)
class Store:
    """Where an app keeps its sessions' rows: tables in the order a session's rows are
    written (its session, messages, parts), their id, session and time columns."""

    tables: tuple[str, ...]
    created: str
    updated: str
    per_second: int  # time units a second: 1000 for epoch ms


OPENCODE = Store(("session", "message", "part"), "time_created", "time_updated", 1000)
CRUSH = Store(("sessions", "messages"), "created_at", "updated_at", 1)


def row_steps(database: Path, store: Store, lead: str, ids: set[str]) -> list[Step]:
    """The rows of the sessions `ids` (the lead's and its sub-agents'), each as first
    written then as it ended, by time; every other row is written at once by `rebuild`.
    `agent` is 0 for the lead's rows, 1 for a sub-agent's."""
    connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    connection.row_factory = sqlite3.Row
    steps: list[tuple[int, int, int, Step]] = []
    n = 0
    try:
        for order, table in enumerate(store.tables):
            for found in connection.execute(f"SELECT * FROM {table}"):
                row = dict(found)
                owner = row["id"] if order == 0 else row["session_id"]
                if owner not in ids:
                    continue
                agent = 0 if owner == lead else 1
                first = _first_state(table, row)
                first[store.updated] = row[store.created]
                begun = row[store.created]
                ended = max(begun, row[store.updated], row.get("finished_at") or 0)
                writes = [(begun, first)]
                if ended != begun or first != row:
                    writes.append((ended, row))
                for when, value in writes:
                    step = Step(when / store.per_second, agent, value, table=table)
                    steps.append((when, order, n, step))
                    n += 1
    finally:
        connection.close()
    steps.sort(key=lambda s: s[:3])
    return [s[3] for s in steps]


def rebuild(database: Path, store: Store, ids: set[str]) -> sqlite3.Connection:
    """The database again with the same schema and every row but those of `ids`, in WAL
    mode; the connection that writes the replay's rows (held open, as the app does)."""
    old = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    old.row_factory = sqlite3.Row
    schema = [
        sql
        for (sql,) in old.execute(
            "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL"
            " AND name NOT LIKE 'sqlite_%' ORDER BY type = 'table' DESC"
        )
    ]
    kept: dict[str, list[dict[str, Any]]] = {}
    for (table,) in old.execute("SELECT name FROM sqlite_master WHERE type = 'table'"):
        if table.startswith("sqlite_"):
            continue
        rows = [dict(r) for r in old.execute(f"SELECT * FROM {table}")]
        if table in store.tables:
            key = "id" if table == store.tables[0] else "session_id"
            rows = [r for r in rows if r[key] not in ids]
        kept[table] = rows
    old.close()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{database}{suffix}").unlink(missing_ok=True)
    writer = sqlite3.connect(database, isolation_level=None)
    writer.execute("PRAGMA journal_mode=WAL")
    for sql in schema:
        writer.execute(sql)
    for table, rows in kept.items():
        for row in rows:
            put(writer, table, row)
    return writer


def put(writer: sqlite3.Connection, table: str, row: dict[str, Any]) -> None:
    columns = ",".join(row)
    marks = ",".join("?" * len(row))
    writer.execute("BEGIN")
    writer.execute(
        f"INSERT OR REPLACE INTO {table} ({columns}) VALUES ({marks})",
        list(row.values()),
    )
    writer.execute("COMMIT")


# --- the replay ------------------------------------------------------------------------------


def copy_home(source: Path, tmp_path: Path) -> Home:
    target = tmp_path / "home"
    shutil.copytree(source, target, symlinks=True)
    return Home.at(target)


def sessions(home: Home, app: str, lead: str) -> tuple[Session, list[Session]]:
    """The lead whose id starts with `lead`, and its sub-agents, as the index lists them."""
    found = api.list_sessions(
        home, apps=[app], include_subagents=True, with_state=True
    ).sessions()
    leader = next(s for s in found if s.id.startswith(lead))
    return leader, [s for s in found if s.parent_id == leader.id]


@dataclass
class Replay:
    """A lead session written again step by step, followed as `watch` follows it."""

    session: Session
    steps: list[Step]
    clock: Clock
    alive: bool | None = True  # the CLI runs (a process search found it), or unknown
    writer: sqlite3.Connection | None = None
    follower: LiveSession = field(init=False)

    def __post_init__(self) -> None:
        start = self.steps[0].when
        self.clock.now = start - 1.0
        # listed as the session began: the capture's last time is still to come
        self.session = dataclasses.replace(
            self.session, updated=datetime.fromtimestamp(start, UTC)
        )
        self.follower = LiveSession(self.session)
        self.follower.alive = self.alive

    def write(self, step: Step, data: bytes | None = None) -> None:
        """`step` written (or `data`, a part of its line), the file's time set to it."""
        if step.table is not None:
            assert self.writer is not None
            put(self.writer, step.table, step.record)
            return
        assert step.path is not None
        step.path.parent.mkdir(parents=True, exist_ok=True)
        with step.path.open("ab") as handle:
            handle.write(step.data if data is None else data)
        os.utime(step.path, (step.when, step.when))

    def status(self, at: float) -> Status:
        """What `watch` says at `at` (epoch seconds), having read what is written."""
        self.clock.now = at
        self.follower.poll(at)
        return self.follower.status(at)

    def run(self, settle: float = 0.05) -> Iterator[tuple[Step, Status]]:
        """Every step written, and the status just after it."""
        return self.run_from(0, settle)

    def run_from(
        self, first: int, settle: float = 0.05
    ) -> Iterator[tuple[Step, Status]]:
        for step in self.steps[first:]:
            self.write(step)
            yield step, self.status(step.when + settle)


def emptied(paths: Iterable[Path]) -> None:
    """The files gone, as before their app wrote them (the steps keep their lines)."""
    for path in paths:
        path.unlink()
