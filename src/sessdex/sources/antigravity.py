"""Google Antigravity: the `agy` CLI's transcripts and databases, and what the IDE leaves readable.

Antigravity keeps its files in `~/.gemini` (beside Gemini CLI's):

- `antigravity*/brain/<id>/.system_generated/logs/transcript.jsonl` — the readable
  mirror (the agy CLI's, and newer IDE builds'), one step per line (`{step_index, source,
  type, status, created_at, content, thinking, tool_calls[{name, args}]}`); user text sits
  in `<USER_REQUEST>`, model changes in `<USER_SETTINGS_CHANGE>`; tool outputs follow the
  calls as typed steps (`RUN_COMMAND`, …), or from agy 1.3 as `GENERIC` ones, answering
  them in order. `transcript_full.jsonl` beside it keeps what this one clips
  (`truncated_fields`): read instead when present. This is what `show` reads.
- `antigravity-cli/conversations/<id>.db` — agy's SQLite store (newer IDE builds write the
  same under `antigravity-ide/`): `steps` rows whose payloads are protobuf (counted, not
  decoded), `trajectory_metadata_blob` (the workspace URI, the start), and `gen_metadata`,
  one protobuf row per model call with its token usage, time and model (field numbers as
  third-party usage readers, tokscale and codeburn, decode them): a `usage` event each.
- `antigravity-cli/conversation_summaries.db` — agy's index (SQLite): one
  `conversation_summaries` row per conversation with its title (or `preview`), step count,
  last change, `workspace_uris` (a JSON array) and, for a sub-agent's, the
  `parent_conversation_id` and `agent_name`; it only fills in those fields.
- `antigravity-cli/cache/last_conversations.json` — `{"<folder>": "<conversation id>"}`,
  the last conversation agy ran in each folder (what `agy --continue` opens; no titles or
  times): the folder of a conversation nothing else places, never more.
- `antigravity/conversations/<id>.pb` — the IDE's conversations, encrypted: listed with
  "encrypted — summary only", never decoded. Newer IDE builds' `antigravity-ide/…/*.db`
  are listed the same way.
- `antigravity*/brain/<id>/*.md` — the agent's artifacts (task, implementation plan,
  walkthrough): listed, and shown as events after the transcript (`*.resolved*` copies and
  `*.metadata.json` are not read).
- the IDE's `<config>/Antigravity/User/globalStorage/state.vscdb` (`Antigravity IDE/` in
  newer builds; VS Code's key/value
  SQLite): `antigravityUnifiedStateSync.trajectorySummaries` holds base64 protobuf
  summaries — title, step count, created/updated times, workspace URI — for about the
  100 newest conversations, and `jetskiStateSync.agentManagerInitState` their last-active
  times. A small protobuf wire-format walker below reads them; both only fill in fields.

Token usage is read from the conversation databases only (transcripts carry none). Times in the IDE
summaries are protobuf Timestamps; transcript times are ISO strings. agy documents no
override variable; it finds `~` through `$HOME`, the one honoured here. Resume: `agy
--conversation=<id>` (reported by reader projects, unverified) for agy conversations; IDE
conversations reopen in the IDE only, so None.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
import re
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import NamedTuple

from .. import databases, files, folders
from ..diagnostics import Diagnostics, odd_in, read_failed
from ..model import Event, JSONValue, ResumePlan, Session, Usage
from . import _protobuf as protobuf
from ._values import (
    Emitter,
    as_str,
    first_line,
    iso_time,
    local_path,
    odd_count,
    stat_size,
    type_tag,
)
from .base import Home, Location

NAME = "antigravity"
TITLE = "Google Antigravity (IDE and agy CLI)"
SCAN_NOTED = True  # locate reads only the environment; scan only lists and probes
CHECKED_WITH = (
    "agy 1.0.x transcript samples (public, trimmed), state.vscdb layout from reverse-engineering notes; "
    "no real install seen — Low confidence; cache/last_conversations.json's shape as "
    "third-party agy wrappers write and read it (said unchanged at agy 1.0.15)"
    "; resume flag as wrappers of agy 1.0.8 use it (not run)"
)
ENV_VARS = ("HOME", "XDG_CONFIG_HOME", "VSCODE_APPDATA")

ENCRYPTED_TITLE = "encrypted conversation — summary only"
SUMMARIES_KEY = "antigravityUnifiedStateSync.trajectorySummaries"
INIT_STATE_KEY = "jetskiStateSync.agentManagerInitState"
IDE_NAMES = ("Antigravity", "Antigravity IDE")  # the IDE's config folder, newer builds'
IDE_CONFIGS = tuple(  # under the home, on Linux, macOS and Windows
    f"{base}/{name}"
    for name in IDE_NAMES
    for base in (".config", "Library/Application Support", "AppData/Roaming")
)
STORES = ("antigravity", "antigravity-cli", "antigravity-ide")
CATALOG = "conversation_summaries.db"  # agy's index of its conversations
# agy's map of each folder to the last conversation run there (what `--continue` opens)
LAST_CONVERSATIONS = Path("antigravity-cli", "cache", "last_conversations.json")
LAST_CONVERSATIONS_CAP = 4 * 1024 * 1024  # one short line per folder agy ran in
ARTIFACT_CAP = 1024 * 1024  # bytes of one brain artifact shown
ARTIFACT_ORDER = ("task.md", "implementation_plan.md", "walkthrough.md")

_REQUEST = re.compile(r"<USER_REQUEST>\s*(.*?)\s*</USER_REQUEST>", re.DOTALL)
_SETTING = re.compile(
    r"<USER_SETTINGS_CHANGE>\s*(.*?)\s*</USER_SETTINGS_CHANGE>", re.DOTALL
)
_MODEL = re.compile(r"`Model Selection` from .*? to (.+?)\.?\s*$", re.MULTILINE)
_METADATA = re.compile(r"<ADDITIONAL_METADATA>.*?</ADDITIONAL_METADATA>", re.DOTALL)
_TOOL_STEPS = frozenset(
    {
        "RUN_COMMAND", "VIEW_FILE", "LIST_DIRECTORY", "CODE_ACTION", "SEARCH_WEB", "GREP_SEARCH", "FIND",
        "READ_URL_CONTENT", "VIEW_CODE_ITEM", "VIEW_FILE_OUTLINE", "COMMAND_STATUS", "SEND_COMMAND_INPUT",
        "MCP_TOOL", "READ_RESOURCE", "LIST_RESOURCES", "WRITE_TO_FILE", "VIEW_CONTENT_CHUNK",
        "TOOL_RESPONSE",
    }
)  # fmt: skip
# A brain's step logs: `transcript_full.jsonl` keeps what `transcript.jsonl` clips.
_TRANSCRIPTS = ("transcript_full.jsonl", "transcript.jsonl")
_IGNORED_STEPS = frozenset(
    {"CONVERSATION_HISTORY", "SYSTEM_MESSAGE", "EPHEMERAL_MESSAGE", "TASK_BOUNDARY"}
)
_FAILED = frozenset({"ERROR", "FAILED", "CANCELED", "CANCELLED"})
_CATALOG_COLUMNS = (
    "conversation_id", "title", "preview", "step_count", "last_modified_time",
    "workspace_uris", "parent_conversation_id", "agent_name",
)  # fmt: skip


def locate(home: Home) -> Location:
    """`~/.gemini`; the IDE's config folders (`IDE_CONFIGS`) beside it, on Linux under
    `$XDG_CONFIG_HOME` when that is set, as Electron resolves it, and under
    `$VSCODE_APPDATA` when that is set, as VS Code and its forks look there first."""
    bases = [home.env_dir(name) for name in ("VSCODE_APPDATA", "XDG_CONFIG_HOME")]
    also = tuple(base / name for base in bases if base for name in IDE_NAMES)
    value = home.env_dir("HOME")
    if value is not None and value != home.path:
        return Location(
            value / ".gemini", override=f"HOME={home.environ['HOME']}", also=also
        )
    return Location(home.path / ".gemini", also=also)


def found(location: Location) -> bool:
    """A store of its own under `~/.gemini` (which Gemini CLI's folder is too), or the
    IDE's config folder."""
    root = location.root
    configs = [root.parent / config for config in IDE_CONFIGS] + list(location.also)
    return any(folders.is_dir(root / store) for store in STORES) or any(
        folders.is_dir(config) for config in configs
    )


def scan(location: Location) -> Iterator[Path]:
    """Transcripts, conversation files, brain artifacts, and the IDE's state database."""
    if not location.exists:
        return
    root = location.root
    if folders.is_file(root / LAST_CONVERSATIONS):
        yield root / LAST_CONVERSATIONS
    for store in STORES:
        folder = root / store
        if folders.is_file(folder / CATALOG):
            yield folder / CATALOG
        for entry in folders.entries(folder / "conversations", root):
            if entry.name.endswith((".pb", ".db")) and folders.file_entry(entry):
                yield Path(entry.path)
        for brain in folders.entries(folder / "brain", root):
            if not brain.is_dir():
                continue
            logs = Path(brain.path) / ".system_generated" / "logs"
            for (
                name
            ) in _TRANSCRIPTS:  # the whole one when it is there, else the clipped
                if folders.is_file(logs / name):
                    yield logs / name
                    break
            for artifact in folders.entries(Path(brain.path), root):
                if _is_artifact(artifact.name) and artifact.is_file():
                    yield Path(artifact.path)
    configs = [root.parent / config for config in IDE_CONFIGS] + list(location.also)
    for config in dict.fromkeys(configs):
        state = config / "User" / "globalStorage" / "state.vscdb"
        if folders.is_file(state):
            yield state


def parse(path: Path, location: Location, diagnostics: Diagnostics) -> list[Session]:
    try:
        if path.name in _TRANSCRIPTS:
            return _parse_transcript(path, diagnostics)
        if path.name == "state.vscdb":
            return _parse_state(path, diagnostics)
        if path.name == CATALOG:
            return _parse_catalog(path, diagnostics)
        if path.name == LAST_CONVERSATIONS.name:
            return _parse_last_conversations(path, diagnostics)
        if path.suffix == ".db":
            return [_parse_database(path, diagnostics), _last_written(path)]
        if path.suffix == ".pb":
            extra: dict[str, JSONValue] = {"conversation": str(path), "encrypted": True}
            return [
                Session(
                    app=NAME,
                    id=path.stem,
                    path=str(path),
                    title=ENCRYPTED_TITLE,
                    bytes=stat_size(path),
                    extra=extra,
                ),
                _last_written(path),
            ]
        return [_parse_artifact(path)]
    except FileNotFoundError:
        diagnostics.problem(f"antigravity: {path} vanished while it was read")
        return []


def read(
    session: Session, diagnostics: Diagnostics, *, full: bool = False, offset: int = 0
) -> Iterator[Event]:
    reader = _Reader(session, diagnostics)
    transcript = _extra_path(session, "transcript")
    if transcript is not None:
        try:
            yield from reader.transcript(transcript, offset, full)
        except FileNotFoundError:
            diagnostics.problem(f"antigravity: {transcript} vanished")
    elif _extra_path(session, "conversation_db") is not None:
        steps = session.extra.get("steps")
        counted = f"{steps} " if isinstance(steps, int) else ""  # not if unreadable
        yield reader.event(
            "meta",
            None,
            text=f"agy stores this conversation's {counted}steps as protobuf; not decoded",
        )
    elif session.extra.get("encrypted"):
        yield reader.event(
            "meta",
            None,
            text="the conversation is encrypted on disk: only its summary and artifacts are readable",
        )
    if offset:
        return
    database = _extra_path(session, "conversation_db")
    if database is not None:
        yield from reader.usage(database)
    brain = _extra_path(session, "brain")
    if brain is not None:
        yield from reader.artifacts(brain)


def resume(session: Session, *, keep_permissions: bool = False) -> ResumePlan | None:
    """`agy --conversation=<id>` for agy conversations; None for the IDE's."""
    if "transcript" not in session.extra and "conversation_db" not in session.extra:
        return None
    hint = session.extra.get("cwd_hint")
    cwd = session.cwd or (hint if isinstance(hint, str) else None)
    if cwd is None:
        return None
    notes = [
        "resume flag as reader projects report it; not checked against an agy install"
    ]
    if session.cwd is None:
        notes.append("folder guessed from the first directory the agent listed")
    return ResumePlan(
        argv=("agy", f"--conversation={session.id}"),
        cwd=cwd,
        program="agy",
        install_hint="",  # no command: the app is installed whole
        install_note="install Google Antigravity, which ships the agy command line",
        notes=tuple(notes),
    )


def _unbase64(value: object) -> bytes | None:
    """The bytes a base64 text or blob stands for; None for anything else."""
    if isinstance(value, str):
        value = value.encode()
    if not isinstance(value, bytes):  # a cell of another type: not this shape
        return None
    try:
        return base64.b64decode(value.strip(), validate=True)
    except (binascii.Error, ValueError):
        return None


def trajectory_summaries(value: object) -> list[dict[str, JSONValue]]:
    """Decode the IDE's trajectory summaries value: base64 protobuf with base64 protobuf inside.

    Each entry is (1: conversation id, 2: {1: base64 of the detail message}); the detail
    holds 1: title, 2: step count, 3: created, 7: updated, 9: {1: workspace URI},
    10: last active. Raises ValueError when the value is not this shape.
    """
    raw = _unbase64(value)
    if raw is None:
        raise ValueError("not base64")
    found: list[dict[str, JSONValue]] = []
    for number, wire, entry in protobuf.fields(raw):
        if number != 1 or wire != 2 or not isinstance(entry, bytes):
            continue
        fields = protobuf.fields(entry)
        ident, wrapper = protobuf.first(fields, 1, 2), protobuf.first(fields, 2, 2)
        if not isinstance(ident, bytes) or not isinstance(wrapper, bytes):
            continue
        inner = protobuf.first(protobuf.fields(wrapper), 1, 2)
        detail = (_unbase64(inner) or inner) if isinstance(inner, bytes) else None
        summary: dict[str, JSONValue] = {"id": ident.decode("utf-8", "replace")}
        if detail is not None:
            summary.update(_detail(protobuf.fields(detail)))
        found.append(summary)
    return found


def _detail(fields: list[tuple[int, int, int | bytes]]) -> dict[str, JSONValue]:
    detail: dict[str, JSONValue] = {}
    title = protobuf.first(fields, 1, 2)
    if isinstance(title, bytes):
        detail["title"] = title.decode("utf-8", "replace")
    steps = protobuf.first(fields, 2, 0)
    if isinstance(steps, int):
        detail["steps"] = steps
    for number, name in ((3, "created"), (7, "updated"), (10, "last_active")):
        moment = protobuf.timestamp(protobuf.first(fields, number, 2))
        if moment is not None:
            detail[name] = moment.isoformat()
    workspace = protobuf.first(fields, 9, 2)
    if isinstance(workspace, bytes):
        uri = protobuf.first(protobuf.fields(workspace), 1, 2)
        if isinstance(uri, bytes):
            detail["workspace"] = uri.decode("utf-8", "replace")
    return detail


def last_active_times(value: object) -> dict[str, datetime]:
    """From agentManagerInitState: field 10 entries (1: conversation id, 2: Timestamp)."""
    raw = _unbase64(value)
    if raw is None:
        raise ValueError("not base64")
    found: dict[str, datetime] = {}
    for number, wire, entry in protobuf.fields(raw):
        if number != 10 or wire != 2 or not isinstance(entry, bytes):
            continue
        fields = protobuf.fields(entry)
        ident, moment = (
            protobuf.first(fields, 1, 2),
            protobuf.timestamp(protobuf.first(fields, 2, 2)),
        )
        if isinstance(ident, bytes) and moment is not None:
            found[ident.decode("utf-8", "replace")] = moment
    return found


# --- listing --------------------------------------------------------------------------


def _parse_state(path: Path, diagnostics: Diagnostics) -> list[Session]:
    """Fill-in fragments from the IDE's summaries; the conversation files are what list."""
    # the IDE's login too (`antigravityUnifiedStateSync.oauthToken`, never read)
    connection = databases.open_or_say(path, "antigravity", diagnostics, login=True)
    if connection is None:
        return []
    try:
        if "key" not in databases.table_columns(connection, "ItemTable"):
            return []
        rows = dict(
            connection.execute(
                "SELECT key, value FROM ItemTable WHERE key IN (?, ?)",
                (SUMMARIES_KEY, INIT_STATE_KEY),
            ).fetchall()
        )
    except sqlite3.Error as error:
        diagnostics.problem(read_failed("antigravity", path, error))
        return []
    finally:
        connection.close()
    sessions: list[Session] = []
    where = f"{path}#ItemTable/"
    if rows.get(SUMMARIES_KEY):
        try:
            summaries = trajectory_summaries(rows[SUMMARIES_KEY])
        except ValueError:
            diagnostics.skip(str(path), 1, "bad value")
            summaries = []
        for summary in summaries:
            workspace = summary.get("workspace")
            extra: dict[str, JSONValue] = {}
            for key in ("steps", "workspace"):
                if key in summary:
                    extra[key] = summary[key]
            sessions.append(
                Session(
                    app=NAME,
                    id=str(summary["id"]),
                    path=where + SUMMARIES_KEY,
                    cwd=local_path(workspace if isinstance(workspace, str) else None),
                    title=first_line(summary.get("title")),
                    created=iso_time(summary.get("created")),
                    updated=iso_time(summary.get("updated"))
                    or iso_time(summary.get("last_active")),
                    precedence=3,
                    listed=False,
                    extra=extra,
                )
            )
    if rows.get(INIT_STATE_KEY):
        try:
            active = last_active_times(rows[INIT_STATE_KEY])
        except ValueError:
            diagnostics.skip(str(path), 1, "bad value")
            active = {}
        for ident, moment in sorted(active.items()):
            sessions.append(
                Session(
                    app=NAME,
                    id=ident,
                    path=where + INIT_STATE_KEY,
                    updated=moment,
                    precedence=-1,
                    listed=False,
                )
            )
    return sessions


def _parse_catalog(path: Path, diagnostics: Diagnostics) -> list[Session]:
    """Fill-in fragments from agy's catalog: the title agy shows (or its preview), the
    workspace, the last change, and the parent of a sub-agent's conversation."""
    connection = databases.open_or_say(path, "antigravity", diagnostics)
    if connection is None:
        return []
    try:
        columns = databases.table_columns(connection, "conversation_summaries")
        if "conversation_id" not in columns:
            return []
        # a column an older catalog lacks is not asked for: its field stays unknown
        wanted = [c for c in _CATALOG_COLUMNS if c in columns]
        rows = connection.execute(
            f"SELECT {', '.join(wanted)} FROM conversation_summaries"
        ).fetchall()
    except sqlite3.Error as error:
        diagnostics.problem(read_failed("antigravity", path, error))
        return []
    finally:
        connection.close()
    sessions: list[Session] = []
    for row in rows:
        value = dict(zip(wanted, row, strict=True))
        ident = value.get("conversation_id")
        if not isinstance(ident, str) or not ident:
            continue
        extra: dict[str, JSONValue] = {}
        if isinstance(value.get("step_count"), int) and value["step_count"]:
            extra["steps"] = value["step_count"]
        agent = value.get("agent_name")
        parent = value.get("parent_conversation_id")
        sessions.append(
            Session(
                app=NAME,
                id=ident,
                path=f"{path}#conversation_summaries/{ident}",
                cwd=local_path(_first_workspace(value.get("workspace_uris"))),
                title=first_line(value.get("title"))
                or first_line(value.get("preview")),
                updated=iso_time(value.get("last_modified_time")),
                parent_id=parent if isinstance(parent, str) and parent else None,
                agent_type=agent if isinstance(agent, str) and agent else None,
                precedence=3,
                listed=False,
                extra=extra,
            )
        )
    return sessions


def _parse_last_conversations(path: Path, diagnostics: Diagnostics) -> list[Session]:
    """Fill-in fragments from agy's folder -> last conversation map: each conversation's
    folder, below what its own files or the catalog say."""
    data = files.read_small(path, LAST_CONVERSATIONS_CAP)
    if data is None and files.say_if_refused("antigravity", path, diagnostics):
        return []
    try:
        value = files.loads(data) if data is not None else None
    except ValueError:
        value = None
    if not isinstance(value, dict):
        diagnostics.problem(
            f"antigravity: {path} is not a JSON object of folders (or is over "
            f"{files.human_bytes(LAST_CONVERSATIONS_CAP)}); its folders are not used"
        )
        return []
    sessions: list[Session] = []
    for key, ident in value.items():
        folder = _folder(key)
        if not isinstance(ident, str) or not ident or folder is None:
            diagnostics.unknown_type("last_conversations entry")
            continue
        sessions.append(
            Session(
                app=NAME,
                id=ident,
                path=str(path),
                cwd=folder,
                precedence=-1,
                listed=False,
            )
        )
    return sessions


def _folder(key: str) -> str | None:
    """An absolute folder (POSIX or a Windows drive's), or one a `file://` URI names."""
    if key.startswith("/") or re.match(r"^[A-Za-z]:[/\\]", key):
        return key
    return local_path(key) if key.startswith("file://") else None


def _first_workspace(value: object) -> str | None:
    """The first of a JSON array of workspace URIs."""
    try:
        uris = json.loads(value) if isinstance(value, str) else None
    except ValueError:
        return None
    first = uris[0] if isinstance(uris, list) and uris else None
    return first if isinstance(first, str) else None


def _parse_transcript(path: Path, diagnostics: Diagnostics) -> list[Session]:
    ident = path.parents[2].name
    head = files.head_lines(path, diagnostics=diagnostics)
    tail = files.tail_lines(path)
    title = model = hint = None
    created = None
    for line in head:
        record = files.parse_json(line, diagnostics, str(path))
        if record is None:
            continue
        created = created or iso_time(record.get("created_at"))
        content = record.get("content")
        if record.get("type") == "USER_INPUT" and isinstance(content, str):
            title = title or first_line(_request(content))
            model = model or _model(content)
        if hint is None and record.get("type") == "PLANNER_RESPONSE":
            hint = _directory_hint(record.get("tool_calls"))
    updated = None
    for line in reversed(tail):
        record = files.parse_json(line)
        if record is not None and iso_time(record.get("created_at")):
            updated = iso_time(record.get("created_at"))
            break
    extra: dict[str, JSONValue] = {
        "transcript": str(path),
        "brain": str(path.parents[2]),
    }
    if hint:
        extra["cwd_hint"] = hint
    found = Session(
        app=NAME,
        id=ident,
        path=str(path),
        title=title,
        created=created,
        updated=updated or created,
        model=model,
        bytes=stat_size(path),
        precedence=2,
        extra=extra,
    )
    return [found] if found.updated else [found, _last_written(path, ident)]


def _parse_database(path: Path, diagnostics: Diagnostics) -> Session:
    """An agy (or newer IDE) conversation database: listed, with its step count, its
    workspace and start (`trajectory_metadata_blob`) and its last model (`gen_metadata`)."""
    extra: dict[str, JSONValue] = {"conversation_db": str(path)}
    workspace: str | None = None
    created: datetime | None = None
    model: str | None = None
    try:
        connection = databases.open_sqlite(path)
        try:
            if databases.table_columns(connection, "steps"):
                (count,) = connection.execute("SELECT COUNT(*) FROM steps").fetchone()
                extra["steps"] = int(count)
            workspace, created = _trajectory(connection)
            last = list(_generations(connection, newest=True))
            model = last[0].model if last else None
        finally:
            connection.close()
    except sqlite3.Error as error:
        diagnostics.problem(read_failed("antigravity", path, error))
    return Session(
        app=NAME,
        id=path.stem,
        path=str(path),
        cwd=local_path(workspace),
        created=created,
        model=model,
        bytes=stat_size(path),
        extra=extra,
    )


def _trajectory(connection: sqlite3.Connection) -> tuple[str | None, datetime | None]:
    """(workspace URI, start) from `trajectory_metadata_blob`: the first `file://` URI in
    it (third-party readers find it at field 1, itself or inside a message), and the
    Timestamp at field 2."""
    if not {"data"} <= databases.table_columns(connection, "trajectory_metadata_blob"):
        return None, None
    for (data,) in connection.execute(
        "SELECT data FROM trajectory_metadata_blob LIMIT 8"
    ):
        if not isinstance(data, bytes):
            continue
        try:
            parts = protobuf.fields(data)
        except ValueError:
            continue
        return _file_uri(parts, 0), protobuf.timestamp(protobuf.first(parts, 2, 2))
    return None, None


def _file_uri(parts: list[protobuf.Field], depth: int) -> str | None:
    for _number, wire, value in parts:
        if wire != 2 or not isinstance(value, bytes):
            continue
        if value.startswith(b"file://"):
            with contextlib.suppress(UnicodeDecodeError):
                return value.decode("utf-8")
        if depth < 3:
            with contextlib.suppress(ValueError):
                if found := _file_uri(protobuf.fields(value), depth + 1):
                    return found
    return None


class _Generation(NamedTuple):
    """One model call as `gen_metadata` keeps it (field numbers as tokscale and codeburn
    decode them: 1 the call; in it 4 usage, 9 generation info, 19/21/3 the model)."""

    usage: Usage
    time: datetime | None
    model: str | None
    response: str | None
    odd: bool = False  # a count no app writes (`odd_count`), billed as 0: said


def _number(parts: list[protobuf.Field], field: int) -> int:
    """A count, 0 where it is none a response can have: past 2**53, a negative int64
    among them (protobuf writes -5 as 2**64 - 5)."""
    value = protobuf.first(parts, field, 0)
    return value if isinstance(value, int) and not odd_count(value) else 0


# the counts a call's usage bills (1 and 2 input, 3 the whole output, 5 cache reads, 9
# the answer, 10 the thinking)
_COUNTS = (1, 2, 3, 5, 9, 10)


def _generations(
    connection: sqlite3.Connection, *, newest: bool = False
) -> Iterator[_Generation]:
    """The conversation's model calls in order (only the last with `newest`). Usage:
    1 system-prompt and 2 other input tokens, 5 cache reads, 9 the answer's output and 10
    the thinking (3, the whole output, holds both), 11 the response id."""
    if not {"idx", "data"} <= databases.table_columns(connection, "gen_metadata"):
        return
    order = "DESC LIMIT 1" if newest else "ASC"
    model: str | None = None
    for (data,) in connection.execute(
        f"SELECT data FROM gen_metadata ORDER BY idx {order}"
    ):
        if not isinstance(data, bytes) or not data:
            continue
        try:
            call = protobuf.first(protobuf.fields(data), 1, 2)
            parts = protobuf.fields(call) if isinstance(call, bytes) else []
            tokens = protobuf.first(parts, 4, 2)
            counts = protobuf.fields(tokens) if isinstance(tokens, bytes) else []
            info = protobuf.first(parts, 9, 2)
            time = protobuf.timestamp(
                protobuf.first(protobuf.fields(info), 4, 2)
                if isinstance(info, bytes)
                else None
            )
        except ValueError:
            continue

        for field in (19, 21, 3):
            named = protobuf.first(parts, field, 2)
            if isinstance(named, bytes) and named.strip():
                with contextlib.suppress(UnicodeDecodeError):
                    model = named.decode("utf-8").strip()
                    break
        # output holds the thinking, billed as output (as everywhere in sessdex): 9 is
        # the answer without it, 3 the whole output
        thinking = _number(counts, 10)
        output = max(_number(counts, 3), _number(counts, 9) + thinking)
        response = protobuf.first(counts, 11, 2)
        yield _Generation(
            Usage(
                input_tokens=_number(counts, 1) + _number(counts, 2),
                output_tokens=output,
                cache_read_tokens=_number(counts, 5),
                reasoning_tokens=thinking,
                model=model,
            ),
            time,
            model,
            response.decode("utf-8", "replace")
            if isinstance(response, bytes)
            else None,
            any(odd_count(protobuf.first(counts, f, 0)) for f in _COUNTS),
        )


def _last_written(path: Path, ident: str | None = None) -> Session:
    """When a conversation was last written, from its file's (and WAL's) modification
    time: the age of a session that records no time of its own (an agy database, an
    encrypted `.pb`, an undated transcript) when nothing better knows it."""
    seconds = path.stat().st_mtime
    with contextlib.suppress(OSError):
        seconds = max(seconds, path.with_name(path.name + "-wal").stat().st_mtime)
    return Session(
        app=NAME,
        id=ident or path.stem,
        path=str(path),
        updated=datetime.fromtimestamp(seconds, UTC),
        precedence=-2,  # below the IDE's own last-active time
        listed=False,
    )


def _parse_artifact(path: Path) -> Session:
    """A brain artifact: the conversation exists (legacy agy wrote nothing else)."""
    title = None
    if path.name == "task.md":
        for line in files.head_lines(path, 40):
            # (an editor may have saved it with a byte order mark)
            text = line.data.decode("utf-8", "replace").lstrip("\ufeff").strip()
            if text.startswith("#"):
                title = text.lstrip("#").strip() or None
                break
    extra: dict[str, JSONValue] = {"brain": str(path.parent)}
    updated = datetime.fromtimestamp(path.stat().st_mtime, UTC)
    return Session(
        app=NAME,
        id=path.parent.name,
        path=str(path),
        title=title,
        updated=updated,
        precedence=1,
        extra=extra,
    )


# --- reading --------------------------------------------------------------------------


class _Reader:
    def __init__(self, session: Session, diagnostics: Diagnostics) -> None:
        self.session = session
        self.diagnostics = diagnostics
        self.event = Emitter(session.id)

    def usage(self, database: Path) -> Iterator[Event]:
        """A `usage` event per model call the conversation's database keeps."""
        connection = databases.open_or_say(database, "antigravity", self.diagnostics)
        if connection is None:
            return
        try:
            for call in _generations(connection):
                if call.usage.total or call.usage.reasoning_tokens:
                    if call.odd:  # a row of a table: a response, with no line
                        where = f"{database}#gen_metadata"
                        self.diagnostics.damage(where, 0, odd_in("response"))
                    extra: dict[str, JSONValue] = (
                        {"response": call.response} if call.response else {}
                    )
                    yield self.event("usage", call.time, usage=call.usage, extra=extra)
        except sqlite3.Error as error:
            self.diagnostics.problem(
                read_failed("antigravity", database, error, "stopped reading")
            )
        finally:
            connection.close()

    def transcript(self, path: Path, offset: int, full: bool) -> Iterator[Event]:
        pending: list[str] = []  # call ids of tool calls still waiting for their step
        for line, record in files.iter_records(
            path, self.diagnostics, offset=offset, full=full
        ):
            if offset and line.offset == offset:
                continue  # the partial line at a --tail offset
            kind = type_tag(record.get("type"))
            time = iso_time(record.get("created_at"))
            raw = record.get("content")
            content = raw if isinstance(raw, str) else None
            failed = type_tag(record.get("status")) in _FAILED
            if kind == "USER_INPUT":
                text = _request(content or "")
                if text:
                    yield self.event("user", time, text=text)
                model = _model(content or "")
                if model:
                    yield self.event(
                        "meta", time, text=f"model: {model}", extra={"model": model}
                    )
            elif kind in ("PLANNER_RESPONSE", "GENERATE_RESPONSE"):
                thinking = record.get("thinking")
                if isinstance(thinking, str) and thinking.strip():
                    yield self.event("thinking", time, text=thinking.strip())
                if content and content.strip():
                    yield self.event("assistant", time, text=content.strip())
                calls = record.get("tool_calls")
                for index, call in enumerate(calls if isinstance(calls, list) else []):
                    if not isinstance(call, dict):
                        continue
                    call_id = f"{record.get('step_index')}.{index}"
                    pending.append(call_id)
                    yield self.event(
                        "tool_call",
                        time,
                        tool=as_str(call.get("name")),
                        call_id=call_id,
                        extra={"input": _args(call.get("args"))},
                    )
            elif kind == "GENERIC" and pending:
                # agy 1.3 logs every tool's output as a GENERIC step, in call order
                yield self.event(
                    "tool_result",
                    time,
                    call_id=pending.pop(0),
                    text=content,
                    is_error=failed,
                    extra={"step": kind},
                )
            elif kind == "GENERIC":
                if content and content.strip():
                    yield self.event("assistant", time, text=content.strip())
            elif kind == "CHECKPOINT":
                yield self.event("compaction", time, text=content)
            elif kind == "ERROR_MESSAGE":
                yield self.event("error", time, text=content or "error")
            elif isinstance(kind, str) and (
                kind in _TOOL_STEPS or kind.startswith("BROWSER_")
            ):
                target = pending.pop(0) if pending else None
                yield self.event(
                    "tool_result",
                    time,
                    call_id=target,
                    text=content,
                    is_error=failed,
                    extra={"step": kind},
                )
            elif kind in _IGNORED_STEPS:
                continue
            else:
                self.diagnostics.unknown_type(str(kind))
                if content:  # keep what the agent did visible, as an unmatched result
                    yield self.event(
                        "tool_result",
                        time,
                        text=content,
                        is_error=failed,
                        extra={"step": str(kind)},
                    )

    def artifacts(self, brain: Path) -> Iterator[Event]:
        names = [
            e.name
            for e in folders.entries(brain)
            if _is_artifact(e.name) and e.is_file()
        ]
        names.sort(
            key=lambda n: (
                ARTIFACT_ORDER.index(n) if n in ARTIFACT_ORDER else len(ARTIFACT_ORDER),
                n,
            )
        )
        for name in names:
            path = brain / name
            try:
                with files.open_regular(path) as stream:
                    data = stream.read(ARTIFACT_CAP + 1)
                mtime = datetime.fromtimestamp(path.stat().st_mtime, UTC)
            except FileNotFoundError:
                self.diagnostics.problem(f"antigravity: {path} vanished")
                continue
            text = data[:ARTIFACT_CAP].decode("utf-8", "replace").strip()
            if len(data) > ARTIFACT_CAP:
                text += f"\n[… cut at {files.human_bytes(ARTIFACT_CAP)}]"
            yield self.event(
                "assistant",
                mtime,
                estimated=True,
                text=text,
                extra={"artifact": name},
            )


# --- small helpers ----------------------------------------------------------------------


def _is_artifact(name: str) -> bool:
    return name.endswith(".md") and ".resolved" not in name


def _request(content: str) -> str | None:
    match = _REQUEST.search(content)
    text = match.group(1) if match else _METADATA.sub("", _SETTING.sub("", content))
    return text.strip() or None


def _model(content: str) -> str | None:
    for block in _SETTING.findall(content):
        match = _MODEL.search(block)
        if match:
            return match.group(1).strip()
    return None


def _args(value: object) -> JSONValue:
    """Tool arguments, whose values agy stores JSON-encoded a second time."""
    if not isinstance(value, dict):
        return None
    decoded: dict[str, JSONValue] = {}
    for key, item in value.items():
        if isinstance(item, str):
            try:
                decoded[str(key)] = json.loads(item)
            except (ValueError, RecursionError):  # too deep for json
                decoded[str(key)] = item
        else:
            decoded[str(key)] = item
    return decoded


def _directory_hint(calls: object) -> str | None:
    args = (
        _args(calls[0].get("args"))
        if isinstance(calls, list) and calls and isinstance(calls[0], dict)
        else None
    )
    if isinstance(args, dict):
        folder = args.get("DirectoryPath") or args.get("Cwd")
        if isinstance(folder, str) and folder.startswith("/"):
            return folder
    return None


def _extra_path(session: Session, key: str) -> Path | None:
    value = session.extra.get(key)
    return Path(value) if isinstance(value, str) else None
