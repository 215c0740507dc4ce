"""OpenClaw (openclaw/openclaw, formerly Clawdbot and Moltbot): pi transcripts per agent,
and a store naming each one's session key, under `~/.openclaw/agents/<agentId>/sessions/`.

Where: the state folder is `$OPENCLAW_STATE_DIR` (before the rename `CLAWDBOT_STATE_DIR`),
else `.openclaw` in `$OPENCLAW_HOME` or the home folder; an older install's `.clawdbot`,
`.moldbot` or `.moltbot` is read too (OpenClaw uses one of them while `.openclaw` is
missing: src/config/paths.ts), and so is `.openclaw-dev`, the state of `openclaw --dev`
(`--profile <name>` keeps its own in `.openclaw-<name>`, read where OPENCLAW_STATE_DIR
names it; resume then names the profile). The same on macOS, Linux and Windows.

What it writes (src/config/sessions/paths.ts, artifacts.ts, types.ts): one transcript per
session id, `<sessionId>.jsonl` (a Telegram topic's `<sessionId>-topic-<threadId>.jsonl`),
written by pi-mono's coding-agent SessionManager: pi's format 3, read here by `pi`'s own
reader (header with `cwd`, the workspace; entries in a tree; `model_change`,
`thinking_level_change`, messages with `usage`, `compaction`). Beside them `sessions.json`
maps each session key (`agent:main:main`, a channel's `agent:main:telegram:group:…`, a
sub-agent's `agent:main:subagent:<uuid>`) to its entry: `sessionId`, `sessionFile`,
`updatedAt`, `label`/`displayName`/`subject`, `channel`, `spawnedBy` or `parentSessionKey`
(the key that spawned it, where `spawnDepth` says it is a sub-agent: a session the TUI's
`/new` started from another names that one as `parentSessionKey` too, depth 0), token
counts. `/new` and `/reset` give the key a new session id and
archive the old transcript as `<sessionId>.jsonl.reset.<time>` (2026.9: maybe
`.<generation>` after it, and `.zst`, zstd-compressed, read as such): listed, as the user's own past
conversation (no key reaches it any more: no resume).

What we read: each transcript as pi's (`pi.parse`, `pi.read`), its id the file's name (the
id OpenClaw names it by); `sessions.json` member by member (`jsonstream`: it holds skill
prompts and reports, it can be large), as fill-in fragments: the title a label gives (else
the `subject`, `displayName` or OpenClaw's own `autoLabel`, in the order its list takes
them), the session key, the channel, a fork's source (`forkSource.sessionId`:
`extra["forked_from_id"]`), and a sub-agent's parent (`spawnedBy` resolved through the same
store; the key itself where no store names it any more, its lead gone). Left alone: `.jsonl.deleted.<time>` (a session the user deleted), checkpoint copies
taken before compaction (`<id>.checkpoint.<uuid>.jsonl`), `.trajectory.jsonl` runtime traces,
`.acp-stream.jsonl` relay logs of an ACP child (an external harness's progress),
`sessions.json.bak.*`. Never opened: `openclaw.json` (gateway tokens, API keys),
`credentials/`, each agent's `agent/auth-profiles.json` and `auth.json`; the agent database
also keeps the auth profiles (`auth_profile_store`), a table never queried.

From 2026.8 the sessions and transcripts live in each agent's database,
`agents/<agentId>/agent/openclaw-agent.sqlite` (`_openclaw_db`: a session per window of
`session_windows`, its entries pi's in `transcript_events`, some zstd-compressed; the key's
row in `session_nodes` gives what `sessions.json` gave; each run's trajectory names the
OpenClaw version that ran it); `openclaw doctor --fix` imports the `.jsonl` files and moves
them to `session-sqlite-import-archive/` (not read again). Both layouts are read: an
install upgraded without the import keeps its files. 2026.9.6 itself, run, writes only the
database (its header `version` 4, pi's entries otherwise), no `.jsonl` and no branch.

A sub-agent's end: its store entry's (or node's) `status` (`done`, `failed`, `killed`,
`timeout`) is a `meta` event after its lead's last (`subagent_status`), which `tree` shows.

Resume: `openclaw tui --session <key>` (src/cli/tui-cli.ts) opens the key's session in the
terminal UI, through the gateway (which must be running); a session in the agent database
(2026.8 on) gets `tui --local`, the TUI on the embedded agent, no gateway (run against
2026.9.6: it shows the key's history and its next turn grows the same session; `--local`
is older than the database, 2026.4 at the latest, but not as old as the JSONL layout, so a
JSONL session keeps the gateway form). The key, not the session id, is what OpenClaw
resumes by, so a reset archive has none. `--deliver` (send the replies out to the channel)
is never added.

OpenClaw writes assistant messages of its own into transcripts (provider `openclaw`:
`delivery-mirror`, a copy of what was sent to a channel; `gateway-injected`): shown, but
they name no model of the session and bill nothing. A `custom` entry
`openclaw:prompt-error` (a prompt that failed: `data.error`) is an error event; its other
`custom` entries (`model-snapshot`, `openclaw:bootstrap-context:*`) are state, passed over.
A `reset` entry (2026.9: a `/new` or `/reset` kept as a boundary inside the transcript,
`reason` `new`, `reset`, `idle`, `daily`, `cron-stale`) is a `meta` event.
A `leaf` entry (2026.9, session-entry-navigation.ts: `targetId` moves the visible leaf,
a rewind) is navigation: where it is the newest entry, the active branch runs from its
target. Its finer rules (entries appended on the "side" cursor, logical parents after a
reset) are not followed: a later entry's `parentId` is taken as it is.
"""

from __future__ import annotations

import dataclasses
import os
import re
import sqlite3
from collections.abc import Iterator, Mapping
from pathlib import Path

from .. import databases, files, folders, jsonstream
from ..diagnostics import Diagnostics, odd_in, read_failed
from ..hints import named
from ..model import Event, JSONValue, ResumePlan, Session
from . import _openclaw_db, pi
from ._values import as_dict, as_str, one_line
from .base import Home, Location

NAME = "openclaw"
TITLE = "OpenClaw"
SCAN_NOTED = True  # locate reads only the environment; scan only lists
CHECKED_WITH = (
    "OpenClaw 2026.9.6 (npm `openclaw`), run against a mock model (`openclaw agent "
    "--local`, a turn and its resume by --session-id; a sessions_spawn sub-agent through "
    "the gateway; `tui --local --session`, /new, /reset): its agent database, header "
    "version 4; openclaw/openclaw's source for the JSONL layout before 2026.8 "
    "(src/config/paths.ts @009f1606, src/config/sessions/paths.ts @00358f66, artifacts.ts "
    "@08495516, types.ts @005a4316; src/cli/tui-cli.ts @1dce5197), synthetic fixtures there"
)
NEWEST_CHECKED = "2026.9.6"
ENV_VARS = ("OPENCLAW_STATE_DIR", "CLAWDBOT_STATE_DIR", "OPENCLAW_HOME")

_LEGACY = (".clawdbot", ".moldbot", ".moltbot")
# `openclaw --profile <name>` keeps its state in `~/.openclaw-<name>` (`--dev`: the `dev`
# profile); only `dev`'s is looked for, another where OPENCLAW_STATE_DIR names it
_DEV = ".openclaw-dev"
_PROFILE = re.compile(r"\.openclaw-([A-Za-z0-9_-]+)")
# assistant messages OpenClaw writes itself (provider `openclaw`): a copy of what was sent
# to a channel (`delivery-mirror`), text the gateway put in (`gateway-injected`); no model
# wrote them, they bill nothing and name no model of the session
_SYNTHETIC = frozenset(
    {("openclaw", "delivery-mirror"), ("openclaw", "gateway-injected")}
)
_STORE = "sessions.json"
# `<id>.jsonl.reset.2026-12-01T09-00-00.000Z`: the transcript a reset archived; from
# 2026.9 (artifacts.ts) maybe with a generation (32 hex digits) and zstd-compressed (`.zst`)
_STAMP = (
    r"\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d{3})?Z(?:\.[0-9a-f]{32})?(?:\.zst)?"
)
_RESET = re.compile(rf"(.+)\.jsonl\.reset\.{_STAMP}")
_CHECKPOINT = re.compile(
    r".+\.checkpoint\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl",
    re.IGNORECASE,
)
_ARCHIVED = re.compile(rf".+\.(?:deleted|reset|bak)\.{_STAMP}")


def locate(home: Home) -> Location:
    """`$OPENCLAW_STATE_DIR`, else `~/.openclaw` (and the older names' folders beside it)."""
    for variable in ("OPENCLAW_STATE_DIR", "CLAWDBOT_STATE_DIR"):
        override = home.env_dir(variable)
        if override is not None:
            return Location(override, f"{variable}={override}")
    base = home.env_dir("OPENCLAW_HOME")
    said = f"OPENCLAW_HOME={base}" if base is not None else None
    folder = base if base is not None else home.path
    return Location(
        folder / ".openclaw",
        said,
        also=tuple(folder / name for name in (*_LEGACY, _DEV)),
    )


def _state_folder(where: str) -> str:
    """The name of the state folder a transcript (or the database) is under:
    `<state>/agents/<agentId>/sessions/<id>.jsonl`, `<state>/agents/<agentId>/agent/
    openclaw-agent.sqlite#transcript_events/<id>`."""
    path = Path(where.partition(_openclaw_db.WHERE)[0])
    return path.parent.parent.parent.parent.name


def _is_transcript(name: str) -> bool:
    """A session's own transcript (artifacts.ts's isPrimarySessionTranscriptFileName)."""
    return (
        name.endswith(".jsonl")
        and not name.endswith((".trajectory.jsonl", ".acp-stream.jsonl"))
        and _CHECKPOINT.fullmatch(name) is None
        and _ARCHIVED.fullmatch(name) is None
    )


def scan(location: Location) -> Iterator[Path]:
    if not location.exists:
        return
    for state in (location.root, *location.also):
        for agent in folders.entries(state / "agents", state):
            if not agent.is_dir():
                continue
            for entry in folders.entries(Path(agent.path) / "agent", state):
                if entry.name == _openclaw_db.DATABASE and folders.file_entry(entry):
                    yield Path(entry.path)  # 2026.8 on: the transcripts are in it
            listed = folders.entries(Path(agent.path) / "sessions", state)
            names = {entry.name for entry in listed}
            for entry in listed:
                if _is_listed(entry.name, names) and folders.file_entry(entry):
                    yield Path(entry.path)


def _is_listed(name: str, names: set[str]) -> bool:
    """The store, a transcript, or a reset's archive whose session has no transcript of
    its own beside it."""
    if name == _STORE or _is_transcript(name):
        return True
    reset = _RESET.fullmatch(name)
    return reset is not None and f"{reset.group(1)}.jsonl" not in names


def kin_of(path: str) -> str | None:
    """The `agents/` folder of a `sessions.json`, for each store of the install: a
    sub-agent's parent may be a key of another agent's store (see base.py)."""
    sessions, name = os.path.split(path)
    agents = os.path.dirname(os.path.dirname(sessions))
    if (
        name != _STORE
        or os.path.basename(sessions) != "sessions"
        or os.path.basename(agents) != "agents"
    ):
        return None
    return agents


def parse(path: Path, location: Location, diagnostics: Diagnostics) -> list[Session]:
    if path.name == _STORE:
        return _store(path, diagnostics)
    if path.name == _openclaw_db.DATABASE:
        return _openclaw_db.sessions(path, NAME, diagnostics, _SYNTHETIC)
    reset = _RESET.fullmatch(path.name)
    own_id = reset.group(1) if reset else path.name.removesuffix(".jsonl")
    agent = path.parent.parent.name
    found = []
    for session in pi.parse(path, location, diagnostics, synthetic=_SYNTHETIC):
        extra: dict[str, JSONValue] = {**session.extra, "agent_id": agent}
        if reset:
            extra["archived"] = "reset"
        found.append(
            dataclasses.replace(
                session,
                app=NAME,
                id=own_id,
                title=_openclaw_db.task_title(session.title),
                extra=extra,
            )
        )
    return found


def _store(path: Path, diagnostics: Diagnostics) -> list[Session]:
    """Fill-in fragments from `sessions.json`: one per key whose entry names a session."""
    members, ids = _read_store(path, diagnostics)
    stores = _Stores(path.parent, ids)
    fragments = []
    for key, own in ids.items():
        entry = members[key]
        assert isinstance(entry, dict)
        spawner = _openclaw_db.spawner_of(
            key,
            entry.get("spawnedBy"),
            entry.get("parentSessionKey"),
            entry.get("spawnDepth"),
        )
        # a lead no store names any more (its key removed, its agent's store gone) is
        # named by its key, as another app names a lead whose file is gone by its id
        parent = (stores.id_of(spawner) or spawner) if spawner else None
        extra: dict[str, JSONValue] = {"session_key": key}
        if spawner:
            extra["spawned_by"] = spawner
        if channel := as_str(entry.get("channel")) or as_str(entry.get("lastChannel")):
            extra["channel"] = channel
        title = _openclaw_db.title_of(
            *(
                entry.get(field)
                for field in ("label", "subject", "displayName", "autoLabel")
            )
        )
        fork = as_dict(entry.get("forkSource")).get("sessionId")
        if isinstance(fork, str) and fork and fork != own:
            extra["forked_from_id"] = fork
        sub_agent = spawner is not None or ":subagent:" in key
        fragments.append(
            Session(
                app=NAME,
                id=own,
                title=title,
                parent_id=parent if parent != own else None,
                agent_type="subagent" if sub_agent else None,
                precedence=1,  # a label the user gave beats the first prompt
                listed=False,  # listed through its transcript
                extra=extra,
            )
        )
    return fragments


def _read_store(
    path: Path, diagnostics: Diagnostics
) -> tuple[dict[str, object], dict[str, str]]:
    """A store's members, and the id each key's transcript goes by."""
    members = jsonstream.file_members(path, frozenset(), diagnostics, NAME, cut=True)
    ids: dict[str, str] = {}
    for key, value in (members or {}).items():
        if isinstance(value, dict) and (own := _own_id(value)):
            ids[key] = own
    return members or {}, ids


# an agent id as OpenClaw normalizes it (routing/session-key.ts): a folder name, never a path
_AGENT = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")


class _Stores:
    """Session key -> id through the stores of one install: a key names its agent
    (`agent:<agentId>:…`), whose `sessions.json` holds it; each store read once (a
    sub-agent may be spawned under another agent than its lead's)."""

    def __init__(self, sessions: Path, own: dict[str, str] | None = None) -> None:
        self.sessions = sessions  # .../agents/<agentId>/sessions
        self.read: dict[str, dict[str, str]] = {}
        self.status: dict[str, str] = {}  # key -> its run's status, where it has one
        if own is not None:
            self.read[sessions.parent.name] = own

    def status_of(self, key: str) -> str | None:
        self.id_of(key)  # its store read
        return self.status.get(key)

    def id_of(self, key: str) -> str | None:
        parts = key.split(":")
        agent = (
            parts[1].lower()
            if len(parts) >= 3 and parts[0] == "agent"
            else self.sessions.parent.name
        )
        if agent not in self.read:
            if len(self.read) >= 64 or not (
                agent == self.sessions.parent.name or _AGENT.fullmatch(agent)
            ):
                return None
            store = self.sessions.parent.parent / agent / "sessions" / _STORE
            # what a store cannot give was said when it was listed itself
            members, self.read[agent] = _read_store(store, Diagnostics())
            for known in self.read[agent]:
                entry = members[known]
                if isinstance(entry, dict) and (status := as_str(entry.get("status"))):
                    self.status[known] = status
        return self.read[agent].get(key)


def _own_id(entry: Mapping[str, object]) -> str | None:
    """The id an entry's transcript goes by: its `sessionFile`'s name (a topic's
    `<id>-topic-<thread>`), else its `sessionId`."""
    session_file = as_str(entry.get("sessionFile"))
    if session_file:
        name = session_file.replace("\\", "/").rpartition("/")[2]
        if name.endswith(".jsonl") and _is_transcript(name):
            return name.removesuffix(".jsonl")
    return as_str(entry.get("sessionId"))


def read(
    session: Session, diagnostics: Diagnostics, *, full: bool = False, offset: int = 0
) -> Iterator[Event]:
    """pi's reader: OpenClaw's transcripts are pi's session files. A `sessions_spawn`
    call's result (`{"status": "accepted", "childSessionKey": …}`: the child runs in the
    background) adds a `subagent` event before it, naming the child's session through the
    store beside the transcript; the result is marked `launched`, and the child's own
    events follow it (`agent_id` the child's id): a lead is shown, and its usage counted,
    with its sub-agents', as every app's is."""
    seq: int | None = None
    for event in _read(session, diagnostics, full=full, offset=offset, depth=0):
        seq = event.seq if seq is None else seq + 1
        yield dataclasses.replace(event, seq=seq)


# sub-agents read inside their lead, at most this deep (a loop of keys ends sooner)
_MAX_DEPTH = 8


def _read(
    session: Session,
    diagnostics: Diagnostics,
    *,
    full: bool,
    offset: int,
    depth: int,
    seen: set[str] | None = None,
) -> Iterator[Event]:
    """A transcript's events, its sub-agents' inside; `seq` as read (read() numbers
    them)."""
    seen = seen if seen is not None else set()
    seen.add(session.id)
    spawns: dict[str, Mapping[str, object]] = {}  # call id -> the spawn's arguments
    children = _Children(session)  # session key -> id and end, read at the first spawn
    launched: list[Event] = []  # the spawns, to say the end of each the store knows
    last: Event | None = None
    for event in _events(session, diagnostics, full=full, offset=offset):
        if event.kind == "usage" and _is_synthetic(event):
            continue  # the zero usage of a message no model wrote: not shown
        child: Session | None = None
        if event.kind == "tool_call" and event.tool == _SPAWN and event.call_id:
            given = event.extra.get("input")
            if len(spawns) < 10_000:
                spawns[event.call_id] = given if isinstance(given, dict) else {}
        elif event.kind == "tool_result" and event.call_id in spawns:
            key = _child_key(event.text)
            if key is not None and not event.is_error:
                spawn = spawns.pop(event.call_id or "")
                child_id = children.id_of(key)
                spawned = dataclasses.replace(
                    event,
                    kind="subagent",
                    text=one_line(spawn.get("task"), limit=None) or None,
                    is_error=False,
                    extra={
                        "child_id": child_id,
                        "agent_type": "subagent",
                        "agent_name": as_str(spawn.get("label")),
                        "session_key": key,
                    },
                )
                yield spawned
                if len(launched) < 10_000:
                    launched.append(spawned)
                event = dataclasses.replace(
                    event, extra={**event.extra, "launched": True}
                )
                if child_id and child_id not in seen and depth < _MAX_DEPTH:
                    child = children.session_of(key, child_id)
        last = event
        yield event
        if child is not None:
            for inner in _read(
                child, diagnostics, full=full, offset=0, depth=depth + 1, seen=seen
            ):
                last = dataclasses.replace(
                    inner,
                    session_id=session.id,
                    agent_id=inner.agent_id or child.id,
                )
                yield last
    if last is not None and not offset:
        yield from _ends(launched, children, last)


def _ends(launched: list[Event], children: _Children, last: Event) -> Iterator[Event]:
    """How each spawned child's run ended, as its store entry (or database row) says
    (`status`: `done`, `failed`, `killed`, `timeout`; `running` says nothing): a `meta`
    event after the lead's last, which `tree` takes as the child's end."""
    seq = last.seq
    for spawn in launched:
        key = as_str(spawn.extra.get("session_key")) or ""
        status = children.status_of(key)
        if status not in _ENDED:
            continue
        seq += 1
        name = as_str(spawn.extra.get("agent_name")) or key
        yield dataclasses.replace(
            last,
            seq=seq,
            kind="meta",
            text=f"sub-agent {name}: {status}",
            agent_id=None,  # the lead's (`last` may be a sub-agent's own event)
            tool=None,
            call_id=spawn.call_id,
            is_error=False,
            usage=None,
            extra={
                "child_id": spawn.extra.get("child_id"),
                "subagent_status": "done" if status == "done" else "failed",
                "run_status": status,
            },
        )


# a run's end as OpenClaw records it (SessionEntry.status, session_nodes.status)
_ENDED = frozenset({"done", "failed", "killed", "timeout"})


class _Children:
    """A lead's spawned children: each key's session id and run status, through the
    stores (or the database) its transcript is kept beside, read at the first ask."""

    def __init__(self, session: Session) -> None:
        where = session.path or ""
        self.database = (
            Path(where.rpartition(_openclaw_db.WHERE)[0])
            if _openclaw_db.WHERE in where
            else None
        )
        self.stores = _Stores(Path(where).parent) if self.database is None else None
        # key -> its node, or None where the database has none: each key its spawns
        # name looked up alone (every node, read for each lead of thousands, cost
        # the squares of their number)
        self.nodes: dict[str, dict[str, str | None] | None] = {}
        self.others: _openclaw_db.Others | None = None

    def _node(self, key: str) -> dict[str, str | None] | None:
        if key in self.nodes or len(self.nodes) >= 10_000:
            return self.nodes.get(key)
        self.nodes[key] = None
        assert self.database is not None
        try:
            connection = databases.open_sqlite(self.database, login=_openclaw_db.LOGIN)
        except (OSError, sqlite3.Error):
            return None
        try:
            self.nodes[key] = _openclaw_db.keys_of(connection, key).get(key)
        except sqlite3.Error:
            pass
        finally:
            connection.close()
        return self.nodes[key]

    def id_of(self, key: str) -> str | None:
        if self.stores is not None:
            return self.stores.id_of(key)
        node = self._node(key)
        if node is not None:
            return node["current"]
        if self.others is None and self.database is not None:
            self.others = _openclaw_db.Others(self.database, one_by_one=True)
        return self.others.id_of(key) if self.others else None

    def session_of(self, key: str, child_id: str) -> Session | None:
        """The child's session to read inside its lead: a window of the same database,
        or its transcript in its agent's `sessions/` (the key names the agent)."""
        if self.database is not None:
            return Session(
                app=NAME,
                id=child_id,
                path=f"{self.database}{_openclaw_db.WHERE}{child_id}",
            )
        assert self.stores is not None
        if not folders.plain_name(child_id):  # the store's sessionId: `../..` led out
            return None
        parts = key.split(":")
        agent = parts[1].lower() if len(parts) >= 3 and parts[0] == "agent" else ""
        folders_ = [self.stores.sessions]
        if _AGENT.fullmatch(agent):
            folders_.append(self.stores.sessions.parent.parent / agent / "sessions")
        for folder in folders_:
            path = folder / f"{child_id}.jsonl"
            if _is_transcript(path.name) and folders.is_file(path):
                return Session(app=NAME, id=child_id, path=str(path))
        return None

    def status_of(self, key: str) -> str | None:
        if self.stores is not None:
            return self.stores.status_of(key)
        node = self._node(key)
        return node["status"] if node is not None else None


def _events(
    session: Session, diagnostics: Diagnostics, *, full: bool, offset: int
) -> Iterator[Event]:
    """pi's events of a transcript file, or of a transcript in the agent's database."""
    where = session.path or ""
    if _openclaw_db.WHERE not in where:
        yield from pi.read(
            session,
            diagnostics,
            full=full,
            offset=offset,
            custom_errors=_ERRORS,
            resets=True,
        )
        return
    database, _, session_id = where.rpartition(_openclaw_db.WHERE)
    connection = databases.open_or_say(
        database, NAME, diagnostics, login=_openclaw_db.LOGIN
    )
    if connection is None:
        return
    try:
        branch = _openclaw_db.branch(connection, session_id)
        at = [0]  # the `seq` of the entry read last: where an odd count is said
        records = _openclaw_db.records(
            connection, session_id, diagnostics, Path(database), full=full, at=at
        )
        yield from pi.read_entries(
            session,
            records,
            branch,
            diagnostics,
            custom_errors=_ERRORS,
            resets=True,
            where=lambda: (where, at[0]),
            odd=odd_in("message"),
        )
    except sqlite3.Error as error:
        diagnostics.problem(read_failed(NAME, database, error))
    finally:
        connection.close()


_SPAWN = "sessions_spawn"
# a `custom` entry OpenClaw writes when a prompt failed (`data.error`: why)
_ERRORS = frozenset({"openclaw:prompt-error"})


def _is_synthetic(event: Event) -> bool:
    """A usage event of a message OpenClaw wrote itself, counting nothing."""
    usage = event.usage
    return (
        usage is not None
        and not usage.total
        and (as_str(event.extra.get("provider")) or "", usage.model or "") in _SYNTHETIC
    )


def _child_key(text: str | None) -> str | None:
    """The `childSessionKey` a spawn's result names (a small JSON object)."""
    if not text or len(text) > 100_000 or "childSessionKey" not in text:
        return None
    try:
        value = files.loads(text.strip().encode())
    except ValueError:
        return None
    return as_str(value.get("childSessionKey")) if isinstance(value, dict) else None


def resume_refusal(session: Session) -> str | None:
    """Why a session gets no `openclaw tui --session <key>`: a reset archived it (its key
    opens the newer session), or no store entry names it."""
    if archived := session.extra.get("archived"):
        how = (
            "a reset (/new or /reset) archived this conversation"
            if archived == "reset"
            else f"OpenClaw moved this conversation's key on to a newer session ({archived})"
        )
        return (
            f"{how}: its session key opens the newer session now, and OpenClaw reopens "
            f"no archive; {named('show', f'{session.app}:{session.id}')} reads it."
        )
    if not session.extra.get("session_key"):
        return (
            "no session key in OpenClaw's sessions.json names this session (an older "
            "install's, or one whose entry was removed): `openclaw tui --session <key>` "
            "cannot reach it."
        )
    return None


def resume(session: Session, *, keep_permissions: bool = False) -> ResumePlan | None:
    """`openclaw tui --session <key>`: the key the session store maps to this session
    (a reset archive's key maps to a newer one: none); `tui --local` for a session in the
    agent database (2026.8 on), which needs no gateway."""
    key = session.extra.get("session_key")
    if not isinstance(key, str) or not key or session.extra.get("archived"):
        return None
    if not session.cwd:
        return None
    # a profile's state folder: the same profile opens it (`--dev` is `--profile dev`)
    state = _state_folder(session.path or "")
    profile = found.group(1) if (found := _PROFILE.fullmatch(state)) else None
    chosen = (
        ("--dev",) if profile == "dev" else ("--profile", profile) if profile else ()
    )
    if _openclaw_db.WHERE in (session.path or ""):
        # 2026.8 on (its database): the TUI runs the embedded agent itself, no gateway
        return ResumePlan(
            argv=("openclaw", *chosen, "tui", "--local", "--session", key),
            cwd=session.cwd,
            program="openclaw",
            install_hint="npm install -g openclaw",
        )
    return ResumePlan(
        argv=("openclaw", *chosen, "tui", "--session", key),
        cwd=session.cwd,
        program="openclaw",
        install_hint="npm install -g openclaw",
        notes=("the TUI talks to the OpenClaw gateway: start it (`openclaw gateway`)",),
    )
