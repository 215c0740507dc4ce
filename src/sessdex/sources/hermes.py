"""Hermes Agent (NousResearch/hermes-agent): every session of a home in one SQLite database.

Hermes keeps its state in its home: `$HERMES_HOME`, else `~/.hermes` (Windows:
`%LOCALAPPDATA%\\hermes`); each named profile is a home of its own under
`<home>/profiles/<name>/`. Its `state.db` (SQLite, WAL: opened through
`databases.open_sqlite`, never written) holds the CLI's sessions and the messaging
gateway's (`source`: cli, telegram, discord, ..., tool) in `sessions` rows (`id`,
`source`, `model`, `model_config` JSON, `parent_session_id`, `started_at` / `ended_at` /
`last_activity_at` in unix seconds, `end_reason`, `message_count`, token counters,
`estimated_cost_usd` / `actual_cost_usd`, `cwd`, `git_branch`, `title`) and `messages`
rows in OpenAI's chat shape (`role` user / assistant / tool / system, `content`,
`tool_calls` JSON `[{id, function: {name, arguments}}]`, `tool_call_id`, `tool_name`,
`reasoning`, `finish_reason`, `timestamp`, and since schema v2x `active` / `compacted` /
`_compressed_summary` / `display_kind` / `display_identity`; multimodal `content` is
`\\x00json:` and the JSON of its parts, shown as their text with pictures marked;
the gateway's first row, role `session_meta`, holds its tools and is not shown). Messages
are read in the order Hermes wrote them (by id, as its own views do: a timestamp may go
back, and a compaction dates its summary after the rows it keeps).
Columns missing from older databases are tolerated; the FTS tables, `system_prompts`, the
gateway's routing and lock tables are never read. A message row names who wrote it only by
its `role`, `display_kind` and `observed`: `messages` has no `origin` column (SCHEMA_SQL of
hermes_state_common.py at @f31cf971 and @00704d08, from which hermes_state_schema.py adds
missing columns, and the one INSERT every writer shares, hermes_state_messages.py
`_INSERT_MESSAGE_SQL` at @d7bc0f3a and @01e8a2d0). The `origin_json` of a gateway's
`sessions` row is where its replies go (platform, chat, profile), for routing: not read; a
cron job's session is told by its `source`.

A compression ends a session (`end_reason` 'compression') and goes on in a child row
whose `parent_session_id` names it, its first message the summary (`_compressed_summary`).
As Hermes' own list shows such a chain once, under its newest link
(`_project_compression_tips`), and `hermes --resume` of any link opens that one
(`resolve_resume_session_id`), the chain is one session here: the newest link's id,
title, folder and model, the first link's start, `extra["chain"]` its links, read one
after the other (a `compaction` event opens each continuation; a link's end is no exit);
each older link's id leads to it (`superseded_by`). Where a session was compressed twice,
the chain goes on in the later started continuation, as Hermes resumes it; the other is
listed as a session that continues it (`extra["continues"]`). A continuation inherits its
parent's `model_config`, markers too: only a marker that names the parent makes a child
no continuation, as in Hermes. A `/branch` or a reset child (`model_config._branched_from`
/ `_reset_from`; in a database older than the markers, a child started after its parent
ended 'branched', or sharing the gateway chat key of a parent that ended at a reset) is
listed as a session of its own that names where it came from. Any other child is a
`delegate_task` sub-agent (`_delegate_from`, source `subagent`, `tool` or the gateway's):
listed under its lead's session (`parent_id`, agent type `subagent`; a compressed one as
its chain), in its lead's folder where its row names none (Hermes records one for a `cli`
session only), and read with the link that started it, after its call (no row names its
call: the calls take the children in the order they started, one for each task of a
batch). Rows a rewind dropped (`active` 0 and not `compacted`) are not shown. A
compaction inside a session keeps the rows it folded (`compacted`) and writes the summary
and the rows it keeps after it, each copy with its original's `display_identity` (the
originals of the kept tail flagged as rewound): as in Hermes' own view, each is shown
once, where it came first. A summary is told by its flag, else (a database without it)
by how Hermes opens one (`[CONTEXT COMPACTION`, `[CONTEXT SUMMARY]:`), as its own preview
tells it; a user's turn after a summary's end line (`--- END OF CONTEXT SUMMARY`) is a
prompt of its own. A user row Hermes wrote itself (`display_kind` hidden scaffolding, a
gateway's `internal_notification`, a background delegate's `async_delegation_complete`, a
background process's `process_complete`, a `personality_switch`, the `auto_continue` turn
it starts after an interrupted one, a mission's `mission_callback_wake`; in a database
without the column, schema v22, told by how Hermes opens them: `[ASYNC DELEGATION (BATCH)
COMPLETE`, `[IMPORTANT: Background process`; the prompt of its background skill and memory
review, which older builds wrote into the session reviewed, told by its opening as
Hermes' resume tells it) is injected input (`meta`), not a prompt nor a title; a live
`model_switch` marker is a `meta` change to the model it names; a `steer` row is the
user's, and a kind newer than these is shown as the user's and counted for `doctor`. A
gateway watching a group (`observe_unmentioned_group_messages`, schema v13 on) keeps the
chatter not addressed to it as user rows flagged `observed` (`"observed": true` in a JSONL
transcript): what others said, shown as `meta` (`extra["observed"]`), never a prompt or a
title. A bare `[tool]` marker an older loop saved as the text of a turn that called tools
is no answer (Hermes' resume blanks it). A tool result Hermes would paint as failed (a
JSON object with an `error`, or a failed `status`) is a failed result.

Sessions are listed from the database (what `hermes sessions` and `--resume` read), but
a session's messages come from a file of its own in `<home>/sessions/` where that holds
more of it: older releases (seen in a real home of 2026-04 to 07, schema v6) wrote a
gateway chat to `<id>.jsonl` first, one OpenAI-shaped message a line with an ISO
`timestamp` in local time (the database row keeping few messages or none), and every
session's JSON log to `session_<id>.json` (its `messages`, no times; read where the
database holds none); current ones write `<id>.jsonl` only with what a refusing database
could not take (`divert_session_transcript_jsonl`), and the database, holding more, wins.
Such a session is titled by the first prompt there and read whole. A session only such a
file holds (a database Hermes set aside as damaged and began again keeps no row of what
came before) is listed from it too (`extra["file"]`; its times, model and platform from
the JSONL's lines and `session_meta`, or the log's header), its resume said uncertain.
The gateway's routing index (`sessions.json`), its request dumps and `<home>/logs/` are
not read.

Usage: per model from `session_model_usage` (schema v2x, with its task: the main loop,
compression, titles, vision), then one `usage` event of what the session's counters hold
beyond its main-loop rows (`extra["scope"] = "session"`, `unrouted` where rows split part
of them). The counters hold the main loop only: an auxiliary call writes its row alone
(`record_auxiliary_usage`), and the gateway sets the counters whole with no main-loop row
(`update_token_counts(absolute=True)`), so a gateway session's tokens are its counters
plus its auxiliary rows. Hermes' own cost (actual, else estimated) is the one `usage`
shows. Hermes' input count leaves out cache reads and writes (`agent/usage_pricing.py`
CanonicalUsage), as sessdex's does. The home's `.env` (API keys), `auth.json` (logins)
and `config.yaml` sit beside the database and are never opened.
"""

from __future__ import annotations

import io
import itertools
import os
import re
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import orjson

from .. import databases, files, folders, jsonstream
from ..diagnostics import Diagnostics, odd_in, read_failed
from ..model import (
    Event,
    JSONValue,
    ResumePlan,
    Session,
    Usage,
    superseded,
)
from ._values import (
    Emitter,
    as_dict,
    as_int,
    as_list,
    as_str,
    db_time,
    iso_time,
    odd_count,
    one_line,
    parsed_arguments,
    shown_text,
)
from .base import (
    Home,
    Location,
    Opened,
    ResumeFlags,
    WholeRead,
    is_uuid,
    opened_by_flags,
)

NAME = "hermes"
# `hermes --resume <id>` finds a session in its one database from any folder
RESUMES_ANYWHERE = True
TITLE = "Hermes Agent"
SCAN_NOTED = True  # locate reads only the environment; scan only lists and probes
CHECKED_WITH = (
    "hermes-agent 0.19.0 (PyPI; state.db schema v22), run for real against a mock model "
    "(`chat -q`, `chat -q --resume`, `-z` with a delegate_task, the REPL, which titles its "
    "session and runs a delegate_task in the background); schema v30 "
    "(hermes_state_common.py SCHEMA_SQL at NousResearch/hermes-agent@00704d08, 2026-11; "
    "synthetic DB from a generator that follows it); a real home's schema-v6 state.db and "
    "sessions/ files of 2026-04 to 07 (a public backup, read, not copied); resume flags "
    "checked against 0.19.0's --help, `--profile` and `active_profile` against its "
    "hermes_cli/main.py `_apply_profile_override`; messages' columns rechecked at "
    "hermes_state_messages.py @01e8a2d0 (no `origin`), recency at hermes_state_common.py "
    "`_sql_freshest_of` @00704d08; 0.19.0 is still the newest release (PyPI, 2026-12-07)"
)
ENV_VARS = ("HERMES_HOME",)

CLI = ("hermes",)
# `hermes --resume <id or title>`, `--resume latest`, `-c [name]` (hermes_cli/_parser.py)
RESUME_FLAGS = ResumeFlags(
    resume=("-r", "--resume", "-c", "--continue"),
    latest_values=("latest",),
    bare_latest=True,
)
_SESSION_ID = re.compile(r"\d{8}_\d{6}_[0-9a-f]{4,32}")

INSTALL_HINT = (  # the README's installer (Windows: scripts/install.ps1)
    "curl -fsSL https://raw.githubusercontent.com/NousResearch/hermes-agent/main/scripts/"
    "install.sh | bash"
)

DB_NAME = "state.db"
# a broken link in place of a transcripts folder hides the chats only it holds, beside
# a database listed (base.py's HIDDEN_BESIDE)
HIDDEN_BESIDE = ("sessions", "profiles/*/sessions")
WINDOWS_HOME = ("AppData", "Local", "hermes")
_PROFILES = "profiles"
_ACTIVE_PROFILE = (
    "active_profile"  # the profile a bare `hermes` opens, where not the home's
)
_TEXT_CAP = 256 * 1024  # a message's text shown: the head of a longer one, and a note
_CONTENT_JSON = "\x00json:"  # before the JSON of a message's multimodal parts
_PARTS_HEAD = 64 * 1024  # of multimodal parts read for a title, at most
_SESSION_COLUMNS = ("id", "source", "session_key", "model", "model_config",
                    "parent_session_id", "started_at", "ended_at", "end_reason",
                    "message_count", "cwd", "git_branch", "title", "last_activity_at",
                    "billing_provider",
                    "input_tokens", "output_tokens", "cache_read_tokens",
                    "cache_write_tokens", "reasoning_tokens", "estimated_cost_usd",
                    "actual_cost_usd", "archived", "hidden")  # fmt: skip
_MESSAGE_COLUMNS = ("role", "tool_call_id", "tool_calls", "tool_name", "timestamp",
                    "finish_reason", "reasoning", "reasoning_content",
                    "_compressed_summary", "display_kind", "display_identity",
                    "observed")  # fmt: skip
_LARGE = frozenset({"tool_calls", "reasoning", "reasoning_content"})
# the prompt of Hermes' background skill and memory review (agent/background_review.py),
# which older builds wrote into the session it reviewed: sessdex's name, no Hermes kind
_BACKGROUND_REVIEW = "background_review"
# a user row's `display_kind` where Hermes wrote it, not the user: scaffolding the model
# sees but no view paints, a self-injected gateway notification, a background delegate's
# result delivered between turns, a personality switch's pivot, the turn Hermes starts
# itself to go on after an interrupted one, and a finished mission's wake-up
_INJECTED_KINDS = frozenset(
    {"hidden", "internal_notification", "async_delegation_complete", "process_complete",
     "personality_switch", "auto_continue", "mission_callback_wake", _BACKGROUND_REVIEW}
)  # fmt: skip
# the model a live switch names (tui_gateway's `model_switch` marker, a user row)
_MODEL_SWITCH = "model_switch"
_SWITCHED_TO = re.compile(
    r"\[System: The active model for this chat has changed to (.+?)"
    r"(?: via provider [^\n]+?)?\. From this point forward"
)
# kinds of a user row that is the user's own: typed while a turn ran (`steer`)
_USER_KINDS = frozenset({"steer"})
# the kinds no title is taken from: all but the user's own
_NOT_PROMPTS = _INJECTED_KINDS | {_MODEL_SWITCH}
# How Hermes opens the notices it writes as user rows (tools/process_registry.py), for a
# database without `display_kind` (schema v22, hermes-agent 0.19): a background
# delegation's result, and a background process's exit or watched output
_NOTICES = (
    ("[ASYNC DELEGATION COMPLETE", "async_delegation_complete"),
    ("[ASYNC DELEGATION BATCH COMPLETE", "async_delegation_complete"),
    ("[IMPORTANT: Background process ", "process_complete"),
    # as Hermes' resume tells them and drops them (hermes_state.py
    # `_REVIEW_HARNESS_PREFIXES` @00025f69), the reply after one kept as said
    ("Review the conversation above and update the skill library", _BACKGROUND_REVIEW),
    ("Review the conversation above and consider saving to memory", _BACKGROUND_REVIEW),
)
# how a session ended where the child that shares its gateway chat key is a new
# conversation (a reset), in databases older than the `_reset_from` marker
_RESET_END_REASONS = frozenset(
    {"session_reset", "session_switch", "idle", "daily", "suspended",
     "resume_pending_expired"}
)  # fmt: skip
_CONTINUATIONS = (
    "_branched_from",
    "_reset_from",
)  # markers of a child that is no sub-agent
_DELEGATE_TOOLS = frozenset({"delegate_task"})
# the `source` of a session not begun on a messaging platform
# (and the producers Hermes itself owns, hermes_state.py `_AUTO_PRUNE_STALE_OPEN_SOURCES`
# @00025f69: its kanban board, its API server, `hermes sessions recover`'s placeholders)
_LOCAL_SOURCES = frozenset(
    {"cli", "tui", "subagent", "tool", "cron", "acp", "api", "api_server", "kanban",
     "recovered"}
)  # fmt: skip
_DEPTH = 4  # sub-agents read inside sub-agents, at most
_EPOCH_END = (
    4102444800.0  # 2100-01-01: Hermes writes unix seconds; a later one is damage
)


def locate(home: Home) -> Location:
    value = home.env_dir("HERMES_HOME")
    if value is not None:
        return Location(value, override=f"HERMES_HOME={value}")
    root = home.path / ".hermes"
    windows = home.path.joinpath(*WINDOWS_HOME)
    if not folders.is_dir(root) and folders.is_dir(windows):
        root = windows
    return Location(root)


def scan(location: Location) -> Iterator[Path]:
    """The home's `state.db`, then each named profile's, each with its companions."""
    if not location.exists:
        return
    homes = [location.root]
    for entry in folders.entries(location.root / _PROFILES):
        if not entry.name.startswith("."):
            homes.append(Path(entry.path))
    for home in homes:
        db = home / DB_NAME
        if folders.is_file(db):
            yield db
            yield from _transcript_files(home / _TRANSCRIPTS)


def _transcript_files(folder: Path) -> Iterator[Path]:
    """The files of `<home>/sessions/` a listing of the database reads (a session's
    JSONL transcript and JSON log): companions of the database, as a title or a session
    comes from them and goes with them."""
    for entry in folders.entries(folder):
        if companion_of(entry.path) is not None:
            yield Path(entry.path)


def companion_of(path: str) -> str | None:
    """The `state.db` a `<home>/sessions/` transcript or log is read with (see base.py)."""
    folder, name = os.path.split(path)
    if os.path.basename(folder) != _TRANSCRIPTS:
        return None
    if name.endswith(".jsonl") or (
        name.startswith("session_") and name.endswith(".json")
    ):
        return os.path.join(os.path.dirname(folder), DB_NAME)
    return None


def parse(path: Path, location: Location, diagnostics: Diagnostics) -> list[Session]:
    if companion_of(str(path)) is not None:
        return []  # read with its database
    connection = databases.open_or_say(path, NAME, diagnostics)
    if connection is None:
        return []
    try:
        available = databases.known_columns(
            connection, "sessions", {"id"}, diagnostics, (NAME, path), "Hermes database"
        )
        if available is None:
            return []
        columns = [c for c in _SESSION_COLUMNS if c in available]
        order = "started_at, id" if "started_at" in available else "id"
        rows = connection.execute(
            f"SELECT {', '.join(columns)} FROM sessions ORDER BY {order}"
        ).fetchall()
        last_written = _last_written(connection)
        marks = _usage_marks(connection, path, diagnostics)
        prompts = _first_prompts(
            connection, [dict(zip(columns, r, strict=True)) for r in rows]
        )
    except sqlite3.Error as error:
        diagnostics.problem(read_failed(NAME, path, error))
        return []
    finally:
        connection.close()
    infos = {str(r[0]): dict(zip(columns, r, strict=True)) for r in rows if r[0]}
    own: dict[str, Session] = {}
    lineage: dict[str, tuple[str | None, str | None]] = {}
    for info in (dict(zip(columns, r, strict=True)) for r in rows):
        session_id = info.get("id")
        if not isinstance(session_id, str) or not session_id:
            diagnostics.skip(f"{path}#sessions", 0, "bad value")
            continue
        kind, parent = lineage[session_id] = _lineage(info, infos)
        extra: dict[str, JSONValue] = {}
        for key in (
            "archived",
            "hidden",
        ):  # kept out of Hermes' own list; still resumable
            if info.get(key):
                extra[key] = True
        for key in ("source", "message_count", "end_reason", "billing_provider"):
            value = info.get(key)
            if (
                isinstance(value, str | int)
                and not isinstance(value, bool)
                and value != ""
            ):
                extra[key] = value
        if mark := marks.get(session_id):
            extra["rows"] = mark
        if path.parent.parent.name == _PROFILES:  # `hermes --profile <name>` opens it
            extra["profile"] = path.parent.name
        if kind is not None and kind != "subagent" and parent:
            extra["continues" if kind == "compression" else kind] = parent
        own[session_id] = Session(
            app=NAME,
            id=session_id,
            path=f"{path}#sessions/{session_id}",
            cwd=as_str(info.get("cwd")) or None,
            branch=as_str(info.get("git_branch")) or None,
            title=one_line(info.get("title")) or None,  # else its first prompt, below
            created=db_time(info.get("started_at")),
            updated=_latest(
                db_time(info.get("ended_at")),
                db_time(info.get("last_activity_at")),
                db_time(last_written.get(session_id)),
            )
            or db_time(info.get("started_at")),
            model=as_str(info.get("model")) or None,
            parent_id=parent if kind == "subagent" else None,
            agent_type="subagent" if kind == "subagent" else None,
            extra=extra,
        )
    _in_leads_folder(own, lineage)
    for session_id, session in own.items():  # a chat only a file of its own holds
        if session.title is None and session_id not in prompts:
            said = _file_prompt(path.parent / _TRANSCRIPTS, session_id)
            if said:
                prompts[session_id] = said
    found = _chained(own, lineage, prompts)
    return found + _file_sessions(path, set(own), diagnostics)


def _usage_marks(
    connection: sqlite3.Connection, path: Path, diagnostics: Diagnostics
) -> dict[str, str]:
    """What each session's usage rows hold: an auxiliary call's row moves none of its
    session's times (nor its row) where its clock stepped back. A damaged usage table
    loses these marks alone, not the sessions listed beside them."""
    try:
        return databases.row_marks(
            connection, "session_model_usage", summed=(*_COUNTERS, "actual_cost_usd")
        )
    except sqlite3.Error as error:
        diagnostics.problem(read_failed(NAME, f"{path}#session_model_usage", error))
        return {}


def _in_leads_folder(
    own: dict[str, Session], lineage: dict[str, tuple[str | None, str | None]]
) -> None:
    """A `delegate_task` sub-agent's folder and branch, where its row has none, from its
    lead's: Hermes records a folder for a `cli` session only, and the sub-agent runs in its
    lead's process and folder (a sub-agent of a sub-agent, in its lead's lead's)."""
    for session_id, session in own.items():
        lead, seen = session, {session_id}
        while lead.cwd is None:
            kind, parent = lineage[lead.id]
            if kind != "subagent" or parent not in own or parent in seen:
                break
            lead = own[parent]
            seen.add(parent)
        if lead is not session and lead.cwd is not None:
            own[session_id] = replace(session, cwd=lead.cwd, branch=lead.branch)


def _file_sessions(
    db: Path, known: set[str], diagnostics: Diagnostics
) -> list[Session]:
    """Sessions only a file of their own in `<home>/sessions/` holds: an older release's
    JSONL transcript or JSON log whose session the database has no row of (a database
    Hermes set aside as damaged and began again holds none of what came before). What
    the listing passed over (a pipe or a looping link in a file's place) the scan, which
    lists the folder too, counts."""
    folder = db.parent / _TRANSCRIPTS
    ids: dict[str, Path] = {}
    listed = folders.entries(folder)
    folders.take_passed_over()  # the scan's own listing of the folder says them
    for entry in listed:
        name = entry.name
        if name.endswith(".jsonl"):
            session_id = name[: -len(".jsonl")]
        elif name.startswith("session_") and name.endswith(".json"):
            session_id = name[len("session_") : -len(".json")]
        else:
            continue  # the routing index (sessions.json), request dumps
        if (
            session_id in known
            or not _SAFE_ID.fullmatch(session_id)
            or ".." in session_id
        ):
            continue
        if session_id not in ids or name.endswith(".jsonl"):  # the JSONL has times
            ids[session_id] = Path(entry.path)
    sessions = []
    for session_id, file in ids.items():
        created, updated, model, source = None, None, None, None
        log = folder / f"session_{session_id}.json"
        if folders.is_file(log):
            created, updated, model, source = _log_head(log)
        if file.suffix == ".jsonl":  # its times, else the log's
            started, ended, named, platform = _jsonl_span(file)
            created, updated = started or created, ended or updated
            model, source = named or model, platform or source
        extra: dict[str, JSONValue] = {"file": file.name}
        if source:
            extra["source"] = source
        if db.parent.parent.name == _PROFILES:
            extra["profile"] = db.parent.name
        sessions.append(
            Session(
                app=NAME,
                id=session_id,
                path=f"{db}#sessions/{session_id}",
                title=one_line(_file_prompt(folder, session_id)),
                created=created,
                updated=updated or created,
                model=model,
                extra=extra,
            )
        )
    return sessions


_HEAD = 64 * 1024  # of a JSON log read for its header (its model, platform and times)


def _log_head(
    path: Path,
) -> tuple[datetime | None, datetime | None, str | None, str | None]:
    """A JSON log's start and last update (local times), model and platform, from the
    members before its prompt and messages."""
    head = files.read_start(path, _HEAD)
    if not head:
        return None, None, None, None
    try:
        members = jsonstream.object_members(
            io.BytesIO(head), frozenset({"system_prompt", "tools", "messages"})
        )
    except jsonstream.CutShort as cut:
        members = cut.members
    except jsonstream.NotThisShape:
        return None, None, None, None
    return (
        iso_time(members.get("session_start"), naive="local"),
        iso_time(members.get("last_updated"), naive="local"),
        as_str(members.get("model")) or None,
        as_str(members.get("platform")) or None,
    )


def _jsonl_span(
    path: Path,
) -> tuple[datetime | None, datetime | None, str | None, str | None]:
    """A JSONL transcript's first and last message times, and the model and platform of
    its `session_meta` line where it opens with one."""
    first: dict[str, object] = {}
    for _, record in files.iter_records(path, Diagnostics()):
        first = record
        break
    last = [
        record
        for record in (
            files.parse_json(line, None, str(path)) for line in files.tail_lines(path)
        )
        if isinstance(record, dict)
    ]
    meta = first if first.get("role") == "session_meta" else {}
    return (
        _stamp(first.get("timestamp")),
        _stamp(last[-1].get("timestamp")) if last else None,
        as_str(meta.get("model")) or None,
        as_str(meta.get("platform")) or None,
    )


def _stamp(value: object) -> datetime | None:
    """A transcript line's time: epoch seconds, or ISO text in local time (older
    releases wrote the machine's, with no offset)."""
    if isinstance(value, str):
        return iso_time(value, naive="local")
    return db_time(value)


def _file_prompt(folder: Path, session_id: str) -> str | None:
    """The first prompt of a session's JSONL transcript or JSON log (older releases),
    among its first records."""
    if not _SAFE_ID.fullmatch(session_id) or ".." in session_id:
        return None
    jsonl, log = folder / f"{session_id}.jsonl", folder / f"session_{session_id}.json"
    quiet = Diagnostics()  # read again, and counted, when the session is shown
    records: Iterator[object]
    if folders.is_file(jsonl):
        records = (record for _, record in files.iter_records(jsonl, quiet))
    elif folders.is_file(log):
        records = jsonstream.file_items(log, "messages", quiet, NAME)
    else:
        return None
    for record in itertools.islice(records, 50):
        item = as_dict(record)
        content = item.get("content")
        if item.get("role") != "user" or not isinstance(content, str):
            continue
        if (
            item.get("_compressed_summary")
            or item.get("observed")
            or item.get("display_kind") in _NOT_PROMPTS
        ):
            continue
        said = _split_summary(content)[1] if _is_summary(content) else content
        if said and said.strip():
            return said[:2000]
    return None


def _chained(
    own: dict[str, Session],
    lineage: dict[str, tuple[str | None, str | None]],
    prompts: dict[str, str],
) -> list[Session]:
    """Each compression chain as one session, as Hermes lists and resumes it: under its
    newest link's id (what `hermes --resume` of any link opens), from its first link's
    start, read link after link (`extra["chain"]`); the older links' ids lead to it."""
    chains = _chains(own, lineage)
    listed_as = {link: chain[-1] for chain in chains.values() for link in chain}
    found: list[Session] = []
    for session_id, session in own.items():
        chain = chains.get(session_id)
        if session_id in listed_as and chain is None:
            continue  # a later link of a chain: listed with its first
        if chain is not None and len(chain) > 1:
            session = _whole_chain([own[link] for link in chain])
            found.extend(superseded(NAME, link, chain[-1]) for link in chain[:-1])
        if session.title is None:  # untitled: its first prompt, as Hermes' preview
            session = replace(session, title=one_line(prompts.get(session_id)) or None)
        kind, parent = lineage[session_id]
        if kind == "subagent" and parent in listed_as:  # spawned by an older link
            session = replace(session, parent_id=listed_as[parent])
        found.append(session)
    return found


def _chains(
    own: dict[str, Session], lineage: dict[str, tuple[str | None, str | None]]
) -> dict[str, list[str]]:
    """The links of each compression chain (two or more sessions), by its first link:
    each goes on in the continuation Hermes resumes (the latest started)."""
    following: dict[str, str] = {}
    for session_id, (kind, parent) in lineage.items():
        if kind != "compression" or parent not in own:
            continue
        other = following.get(parent)
        if other is None or _started(own[session_id]) >= _started(own[other]):
            following[parent] = session_id
    chains: dict[str, list[str]] = {}
    for first in own:
        kind, parent = lineage[first]
        if kind == "compression" and parent in own and following.get(parent) == first:
            continue  # inside a chain
        chain, link = [first], first
        while (link := following.get(link, "")) and link not in chain:
            chain.append(link)
        if len(chain) > 1:
            chains[first] = chain
    return chains


def _started_at(info: dict[str, object]) -> float:
    started = info.get("started_at")
    return float(started) if isinstance(started, int | float) else 0.0


def _started(session: Session) -> tuple[datetime, str]:
    return (session.created or datetime.min.replace(tzinfo=UTC), session.id)


def _whole_chain(links: list[Session]) -> Session:
    first, tip = links[0], links[-1]
    extra = dict(tip.extra)
    extra.pop("continues", None)
    for key in ("branched_from", "reset_from"):  # how the first link began
        if key in first.extra:
            extra[key] = first.extra[key]
    counts = [
        c for link in links if isinstance(c := link.extra.get("message_count"), int)
    ]
    if counts:
        extra["message_count"] = sum(counts)
    if marks := [m for link in links if isinstance(m := link.extra.get("rows"), str)]:
        extra["rows"] = " ".join(marks)  # the chain's usage is all its links'
    for key in ("archived", "hidden"):
        if any(link.extra.get(key) for link in links):
            extra[key] = True
    extra["chain"] = [link.id for link in links]
    return replace(
        tip,
        parent_id=first.parent_id,  # a sub-agent's chain is listed under its lead
        agent_type=first.agent_type,
        cwd=tip.cwd or first.cwd,
        branch=tip.branch or first.branch,
        title=next((link.title for link in reversed(links) if link.title), None),
        created=first.created or tip.created,
        updated=_latest(*(link.updated for link in links)),
        model=tip.model or first.model,
        extra=extra,
    )


def _lineage(
    info: dict[str, object], infos: dict[str, dict[str, object]]
) -> tuple[str | None, str | None]:
    """What kind of child a session is ("compression", "branched_from", "reset_from",
    "subagent"), and its parent's id; (None, None) for a root. As Hermes judges it
    (hermes_state_common.py): a child of a session that ended by compression continues
    it unless a marker names that parent (a continuation inherits its parent's
    `model_config`, markers and all) or it is a tool's own session; then a marker, else,
    in databases older than the markers, a branch or reset told by how its parent
    ended."""
    parent = as_str(info.get("parent_session_id"))
    if not parent:
        return None, None
    config = _json_dict(info.get("model_config"))
    above = infos.get(parent, {})
    if (
        above.get("end_reason") == "compression"
        and all(config.get(m) != parent for m in (*_CONTINUATIONS, "_delegate_from"))
        and info.get("source") != "tool"  # a tool's own session: no continuation
    ):
        return "compression", parent
    for marker in _CONTINUATIONS:
        if config.get(marker) is not None:
            return marker.strip("_"), parent
    started, ended = info.get("started_at"), above.get("ended_at")
    if (
        above.get("end_reason") == "branched"
        and isinstance(started, int | float)
        and isinstance(ended, int | float)
        and started >= ended
    ):
        return "branched_from", parent
    key = info.get("session_key")
    if (
        above.get("end_reason") in _RESET_END_REASONS
        and key
        and key == above.get("session_key")
    ):
        return "reset_from", parent
    return "subagent", parent


def _json_dict(value: object) -> dict[str, object]:
    if not isinstance(value, str | bytes) or not value:
        return {}
    try:
        return as_dict(orjson.loads(value))
    except orjson.JSONDecodeError:
        return {}


def _latest(*times: datetime | None) -> datetime | None:
    known = [t for t in times if t is not None]
    return max(known) if known else None


def _last_written(connection: sqlite3.Connection) -> dict[str, object]:
    """Each session's newest message time, one index seek a session (Hermes indexes
    `messages(session_id, timestamp)`); none where that index is missing."""
    columns = databases.table_columns(connection, "messages")
    if not {"session_id", "timestamp"} <= columns or not databases.indexed(
        connection, "messages", "session_id"
    ):
        return {}
    # a cell outside the window (a garbage double salvaged from a damaged page, a TEXT
    # cell, which SQLite sorts above every number) would be the max and hide the real
    # newest time: Hermes' own recency skips such cells too (hermes_state_common.py
    # `_sql_freshest_of`); the range keeps it one index seek
    rows = connection.execute(
        "SELECT s.id, (SELECT max(m.timestamp) FROM messages m WHERE m.session_id = s.id"
        " AND m.timestamp > 0 AND m.timestamp < ?) FROM sessions s",
        (_EPOCH_END,),
    ).fetchall()
    return {session_id: stamp for session_id, stamp in rows if stamp is not None}


def _first_prompts(
    connection: sqlite3.Connection, infos: list[dict[str, object]]
) -> dict[str, str]:
    """The head of the first user message of each untitled session, as Hermes' own preview
    takes it: not a compaction's summary, nor scaffolding Hermes hides."""
    columns = databases.table_columns(connection, "messages")
    if not {"session_id", "role", "content"} <= columns:
        return {}
    order = "timestamp, id" if {"timestamp", "id"} <= columns else "rowid"
    skip = "".join(
        clause
        for column, clause in (
            ("_compressed_summary", " AND NOT _compressed_summary"),
            (
                "display_kind",
                " AND coalesce(display_kind, '') NOT IN"
                f" ({', '.join(repr(k) for k in sorted(_NOT_PROMPTS))})",
            ),
            (
                "observed",
                " AND NOT coalesce(observed, 0)",
            ),  # others' chatter in a group
            ("compacted", " AND (active = 1 OR compacted = 1)"),  # not a rewound one
        )
        if column in columns
    )
    # nor a summary of a database without the flag, unless a user's turn follows it
    skip += "".join(
        f" AND NOT (ltrim(content) LIKE '{prefix}%'"
        f" AND instr(content, '{_SUMMARY_END}') = 0)"
        for prefix in _SUMMARY_PREFIXES
    )
    found = {}
    for info in infos[:10_000]:
        session_id = info.get("id")
        if info.get("title") or not isinstance(session_id, str):
            continue
        # in bytes: a multimodal message starts with a NUL, where SQL's text ends; its
        # text part may follow an image's data, so more of it is read
        text = None
        for size in (2000, _PARTS_HEAD):
            row = connection.execute(
                "SELECT substr(CAST(content AS BLOB), 1, ?) FROM messages WHERE session_id = ?"
                f" AND role = 'user' AND content IS NOT NULL{skip} ORDER BY {order} LIMIT 1",
                (size, session_id),
            ).fetchone()
            head = row[0] if row else None
            if not isinstance(head, bytes):
                break
            text = _prompt_text(head.decode("utf-8", "ignore"))
            if text or not head.startswith(_CONTENT_JSON.encode()) or len(head) < size:
                break
        if text:
            found[session_id] = text
    return found


_TEXT_PART = re.compile(r'"text"\s*:\s*("(?:\\.|[^"\\])*")')


def _prompt_text(head: str) -> str | None:
    """A prompt's text from its head: as it is, or the first text part of multimodal
    content (whose JSON the head may cut)."""
    if _is_summary(head):  # the user's turn after it, where the head holds it
        return _split_summary(head)[1]
    if not head.startswith(_CONTENT_JSON):
        return head if head.strip() else None
    match = _TEXT_PART.search(head)
    if match is None:
        return None
    try:
        text = orjson.loads(match.group(1))
    except orjson.JSONDecodeError:
        return None
    return text if isinstance(text, str) and text.strip() else None


# --- reading ------------------------------------------------------------------------


def read(
    session: Session, diagnostics: Diagnostics, *, full: bool = False, offset: int = 0
) -> Iterator[Event]:
    yield from _read(session, diagnostics, full, None)


def read_last(
    session: Session, diagnostics: Diagnostics, rows: int, *, full: bool = False
) -> Iterator[Event]:
    """`read` of only the session's last `rows` messages (see base.py), newest found
    through the `(session_id, id)` index: no sub-agent is read inside them."""
    yield from _read(session, diagnostics, full, rows)


def _read(
    session: Session, diagnostics: Diagnostics, full: bool, last: int | None
) -> Iterator[Event]:
    if not session.path or "#sessions/" not in session.path:
        return
    db = session.path.split("#sessions/")[0]
    connection = databases.open_or_say(db, NAME, diagnostics)
    if connection is None:
        return
    reader = _Reader(session.id, diagnostics, connection, db, full, last)
    chain = [
        link for link in as_list(session.extra.get("chain")) if isinstance(link, str)
    ]
    links = chain[-1:] if last is not None else chain  # the tail: in the newest link
    try:
        if len(links) > 1:
            for n, link in enumerate(links):
                yield from reader.session(
                    link, None, 0, linked=(n > 0, n < len(links) - 1)
                )
        else:
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
        full: bool,
        last: int | None,
    ) -> None:
        self.session_id = session_id
        self.diagnostics = diagnostics
        self.connection = connection
        self.db = db
        self.full = full
        self.last = last
        self.emit = Emitter(session_id)
        self.event = self.emit.by
        self.message_columns = databases.table_columns(connection, "messages")
        self.session_columns = databases.table_columns(connection, "sessions")

    def session(
        self,
        session_id: str,
        agent: str | None,
        depth: int,
        linked: tuple[bool, bool] = (False, False),
    ) -> Iterator[Event]:
        """One session's events; `linked`: whether a compression chain read whole has a
        link before this one (its summary opens this one) and after it (this one's end
        is no exit)."""
        wanted = [c for c in _SESSION_COLUMNS if c in self.session_columns]
        row = self.connection.execute(
            f"SELECT {', '.join(wanted)} FROM sessions WHERE id = ?", (session_id,)
        ).fetchone()
        info = dict(zip(wanted, row, strict=True)) if row else {}
        continues = None if linked[0] else self._continues(info)
        if continues and self.last is None:
            yield self.event(
                "meta",
                db_time(info.get("started_at")),
                agent,
                text=f"continues session {continues}",
                extra={"continues": continues},
            )
        children = self._children(session_id) if depth < _DEPTH else []
        if children and self.last is not None:  # each is read at its call: all calls
            raise WholeRead("a session with sub-agents is read whole")
        last_time: datetime | None = None
        transcript = self._transcript(session_id)
        if transcript is not None and self.last is not None:
            raise WholeRead("a session read from a file of its own is read whole")
        messages = (
            transcript() if transcript is not None else self._messages(session_id)
        )
        for message in messages:
            time = db_time(message.get("timestamp")) or last_time
            last_time = time or last_time
            yield from self.message(message, time, agent, children, depth)
        for child_id, _ in children:  # spawned by no call seen: after the lead's turns
            links = self._links(child_id)
            yield self.event(
                "subagent",
                None,
                agent,
                extra={"child_id": links[-1], "agent_type": "subagent"},
            )
            yield from self.sub_agent(links, depth + 1)
        children.clear()
        yield from self.usage(session_id, info, agent, last_time)
        ended = db_time(info.get("ended_at"))
        reason = as_str(info.get("end_reason"))
        if ended is not None and agent is None and not linked[1]:
            yield self.event(
                "meta",
                ended,
                agent,
                text=f"session ended ({reason})" if reason else "session ended",
                extra={"exited": True, "reason": reason}
                if reason
                else {"exited": True},
            )

    def _continues(self, info: dict[str, object]) -> str | None:
        """The session this one continues (a compression's, a branch's or a reset's)."""
        parent = as_str(info.get("parent_session_id"))
        if not parent:
            return None
        wanted = [c for c in _SESSION_COLUMNS if c in self.session_columns]
        row = self.connection.execute(
            f"SELECT {', '.join(wanted)} FROM sessions WHERE id = ?", (parent,)
        ).fetchone()
        above = {parent: dict(zip(wanted, row, strict=True))} if row else {}
        kind, _ = _lineage(info, above)
        return parent if kind not in (None, "subagent") else None

    def _kin(self, session_id: str) -> list[tuple[str | None, dict[str, object]]]:
        """The session's child rows, each with what kind of child it is (`_lineage`)."""
        if "parent_session_id" not in self.session_columns:
            return []
        wanted = [c for c in _SESSION_COLUMNS if c in self.session_columns]
        rows = self.connection.execute(
            f"SELECT {', '.join(wanted)} FROM sessions WHERE parent_session_id = ? AND id != ?",
            (session_id, session_id),
        ).fetchall()
        infos = {}
        parent_row = self.connection.execute(
            f"SELECT {', '.join(wanted)} FROM sessions WHERE id = ?", (session_id,)
        ).fetchone()
        if parent_row:
            infos[session_id] = dict(zip(wanted, parent_row, strict=True))
        found = []
        for row in rows:
            info = dict(zip(wanted, row, strict=True))
            if isinstance(info.get("id"), str):
                found.append((_lineage(info, infos)[0], info))
        return found

    def _children(self, session_id: str) -> list[tuple[str, datetime | None]]:
        """The session's sub-agent children, oldest first: its `delegate_task` calls
        take them in that order, one for each task."""
        children = [
            (str(info["id"]), db_time(info.get("started_at")))
            for kind, info in self._kin(session_id)
            if kind == "subagent"
        ]
        children.sort(key=lambda c: (c[1] is None, c[1] or datetime.min, c[0]))
        return children

    def _links(self, session_id: str) -> list[str]:
        """A sub-agent's compression chain from its first link: each goes on in its
        latest started continuation, as `_chains` follows them when listing."""
        links = [session_id]
        while len(links) < 64:
            following = [
                (_started_at(info), str(info["id"]))
                for kind, info in self._kin(links[-1])
                if kind == "compression"
            ]
            if not following or max(following)[1] in links:
                break
            links.append(max(following)[1])
        return links

    def sub_agent(self, links: list[str], depth: int) -> Iterator[Event]:
        """A sub-agent's events, each link of its compression chain (`_links`), under
        the id it is listed by (its newest link's)."""
        for n, link in enumerate(links):
            linked = (n > 0, n < len(links) - 1)
            yield from self.session(link, links[-1], depth, linked=linked)

    def _transcript(
        self, session_id: str
    ) -> Callable[[], Iterator[dict[str, object]]] | None:
        """The session's messages from a file of its own where that holds more of it
        than the database: `<home>/sessions/<id>.jsonl`, where older releases' gateway
        wrote its chats first (and some rows or none to the database) and current ones
        divert what the database refused; else, for a session the database holds no
        message of, the JSON log older releases kept of each session
        (`sessions/session_<id>.json`, its `messages`)."""
        if not _SAFE_ID.fullmatch(session_id) or ".." in session_id:
            return None
        folder = Path(self.db).parent / _TRANSCRIPTS
        jsonl, log = (
            folder / f"{session_id}.jsonl",
            folder / f"session_{session_id}.json",
        )
        if not folders.is_file(jsonl) and not folders.is_file(log):
            return None
        rows = 0
        if {"session_id", "role"} <= self.message_columns:
            shown = ""
            if {"active", "compacted"} <= self.message_columns:
                shown = " AND (active = 1 OR compacted = 1)"
            row = self.connection.execute(
                f"SELECT count(*) FROM messages WHERE session_id = ?{shown}",
                (session_id,),
            ).fetchone()
            rows = int(row[0]) if row else 0
        try:
            if folders.is_file(jsonl) and _line_count(jsonl) > rows:
                return lambda: self._jsonl_messages(jsonl)
        except OSError:
            return None
        if not rows and folders.is_file(log):
            return lambda: self._log_messages(log)
        return None

    def _jsonl_messages(self, path: Path) -> Iterator[dict[str, object]]:
        """A transcript's lines as message rows (what `message` reads of a row)."""
        for line, record in files.iter_records(path, self.diagnostics, full=self.full):
            yield _row_of(record, f"{path}:{line.number}")

    def _log_messages(self, path: Path) -> Iterator[dict[str, object]]:
        """A session log's `messages` as message rows (they keep no time)."""
        items = jsonstream.file_items(path, "messages", self.diagnostics, NAME)
        for number, item in enumerate(items, 1):
            if isinstance(item, dict):
                yield _row_of(item, f"{path}#messages/{number}")
            else:
                self.diagnostics.skip(str(path), number, "bad value")

    def _messages(self, session_id: str) -> Iterator[dict[str, object]]:
        if not {"session_id", "role"} <= self.message_columns:
            self.diagnostics.problem(f"{NAME}: {self.db} has no messages table we know")
            return
        # the columns that may be huge (a written file's text among a call's arguments,
        # long reasoning) only say whether they are there: each is read by itself, bounded
        optional = [
            (f"{c} IS NOT NULL AND {c} != ''" if c in _LARGE else c)
            if c in self.message_columns
            else "NULL"
            for c in _MESSAGE_COLUMNS
        ]
        shown = ""
        if {"active", "compacted"} <= self.message_columns:
            shown = " AND (active = 1 OR compacted = 1)"  # a rewind's dropped rows: not shown
        # in the order Hermes wrote them, as its own views read them (by id: a message's
        # timestamp may go back, and a compaction's summary is dated after the rows it
        # keeps, which are written again after it)
        order = "rowid"
        query = f"SELECT rowid, {', '.join(optional)} FROM messages WHERE session_id = ?{shown}"
        names = ("rowid", *_MESSAGE_COLUMNS)
        if self.last is None:
            seen: set[object] = set()
            cursor = self.connection.execute(f"{query} ORDER BY {order}", (session_id,))
            for row in cursor:
                message = dict(zip(names, row, strict=True))
                identity = message.get("display_identity")
                if identity is not None and identity in seen:
                    continue  # a copy a compaction kept of a row shown already
                seen.add(identity)
                yield message
            return
        backwards = "rowid DESC"
        newest = self.connection.execute(
            f"{query} ORDER BY {backwards} LIMIT ?", (session_id, self.last + 1)
        ).fetchall()
        if len(newest) <= self.last:
            raise WholeRead("no more messages than asked for")
        for row in reversed(newest[: self.last]):
            message = dict(zip(names, row, strict=True))
            if not self._copied(session_id, message, shown):
                yield message

    def _copied(self, session_id: str, message: dict[str, object], shown: str) -> bool:
        """Whether a row is the copy of an earlier one (its `display_identity`): an
        in-place compaction keeps the old rows for display and writes the ones it kept
        again; Hermes shows each once, where it came first."""
        identity = message.get("display_identity")
        if identity is None:
            return False
        row = self.connection.execute(
            f"SELECT 1 FROM messages WHERE session_id = ? AND display_identity = ?{shown}"
            " AND rowid < ? LIMIT 1",
            (session_id, identity, message.get("rowid")),
        ).fetchone()
        return row is not None

    def text(self, rowid: object, column: str) -> str | None:
        """A message's text column, its head only where it is huge (read through blob
        IO, which never loads the value whole)."""
        if isinstance(rowid, _Record):
            value = rowid.record.get(column)
            if column == "content" and isinstance(value, list | dict):
                return _CONTENT_JSON + orjson.dumps(value).decode()
            if not isinstance(value, str):
                return None
            if self.full or len(value) <= _TEXT_CAP:
                return value
            rest = len(value.encode()) - _TEXT_CAP
            return f"{value[:_TEXT_CAP]}\n[… {files.human_bytes(rest)} more not shown]"
        if column not in self.message_columns or not isinstance(rowid, int):
            return None
        try:
            blob = databases.open_blob(self.connection, "messages", column, rowid)
        except sqlite3.Error:  # NULL, a number: read the plain way
            row = self.connection.execute(
                f"SELECT {databases.quote_identifier(column)} FROM messages WHERE rowid = ?",
                (rowid,),
            ).fetchone()
            value = row[0] if row else None
            return value if isinstance(value, str) else None
        with blob:
            size = len(blob)
            if self.full or size <= _TEXT_CAP:
                return blob.read().decode("utf-8", "replace")
            head = blob.read(_TEXT_CAP).decode("utf-8", "ignore")
            return f"{head}\n[… {files.human_bytes(size - _TEXT_CAP)} more not shown]"

    def content(self, rowid: object) -> str | None:
        """A message's `content` as text: Hermes keeps multimodal parts as JSON behind a
        NUL sentinel (`\\x00json:`), shown as their text with each image or file marked."""
        text = self.text(rowid, "content")
        if text is None or not text.startswith(_CONTENT_JSON):
            return shown_text(text, keep_empty=False)
        try:
            parts = orjson.loads(text[len(_CONTENT_JSON) :])
        except orjson.JSONDecodeError:  # cut at the cap, or torn
            return "[structured content]"
        shown = []
        for part in parts if isinstance(parts, list) else [parts]:
            item = as_dict(part)
            kind = as_str(item.get("type")) or "part"
            said = item.get("text")
            if isinstance(said, str):
                shown.append(said)
            elif kind in ("image_url", "image", "input_image"):
                shown.append("[image]")
            else:
                shown.append(f"[{kind}]")
        return shown_text("\n".join(shown), keep_empty=False)

    def message(
        self,
        message: dict[str, object],
        time: datetime | None,
        agent: str | None,
        children: list[tuple[str, datetime | None]],
        depth: int,
    ) -> Iterator[Event]:
        role = message.get("role")
        rowid = message.get("rowid")
        if message.get("_compressed_summary") or role == "user":
            text = self.content(rowid)
            if message.get("_compressed_summary") or _is_summary(text):
                summary, said = _split_summary(text or "")
                yield self.event("compaction", time, agent, text=summary)
                if said is None:  # the user's turn Hermes put after the summary
                    return
                text = said
            if text is None:
                return
            if message.get("observed"):  # a group's chatter the gateway watched
                yield self.event(
                    "meta", time, agent, text=text, extra={"observed": True}
                )
                return
            kind = message.get("display_kind") or _notice_kind(text)
            if kind == _MODEL_SWITCH:
                yield self._switch(time, agent, text)
            elif kind in _INJECTED_KINDS:  # Hermes' own input, not the user's typing
                extra: dict[str, JSONValue] = {"injected": True}
                if kind != "hidden":
                    extra["display_kind"] = str(kind)
                yield self.event("meta", time, agent, text=text, extra=extra)
            else:
                if kind and kind not in _USER_KINDS:  # a kind newer than we know
                    self.diagnostics.unknown_type(f"display_kind:{kind}")
                yield self.event("user", time, agent, text=text)
        elif role == "assistant":
            thinking = next(
                (
                    self.text(rowid, column)
                    for column in ("reasoning", "reasoning_content")
                    if message.get(column)
                ),
                None,
            )
            if thinking and thinking.strip():
                yield self.event("thinking", time, agent, text=thinking)
            text = self.content(rowid)
            if text and not (
                message.get("tool_calls") and _MARKER.fullmatch(text.strip())
            ):
                yield self.event("assistant", time, agent, text=text)
            yield from self.calls(message, time, agent, children, depth)
            reason = as_str(message.get("finish_reason"))
            if reason and reason != "tool_calls":
                yield self.event("turn_end", time, agent, extra={"reason": reason})
        elif role == "tool":
            text = self.content(rowid)
            yield self.event(
                "tool_result",
                time,
                agent,
                call_id=as_str(message.get("tool_call_id")),
                tool=as_str(message.get("tool_name")),
                text=_shown_result(text),
                is_error=_failed(text),
            )
        elif role == "system":
            text = self.content(rowid)
            if text and message.get("display_kind") == _MODEL_SWITCH:
                yield self._switch(time, agent, text)
            elif text:
                yield self.event(
                    "meta", time, agent, text=text, extra={"role": "system"}
                )
        elif role == "session_meta":
            return  # the gateway's first row (its tools, model, platform): never shown
        else:
            self.diagnostics.unknown_type(
                f"role:{role}" if isinstance(role, str) else "role"
            )

    def _switch(self, time: datetime | None, agent: str | None, text: str) -> Event:
        """A live model switch's marker: the model it names, else the marker as said."""
        extra: dict[str, JSONValue] = {"display_kind": _MODEL_SWITCH}
        named = _SWITCHED_TO.search(text)
        if named is None:
            return self.event("meta", time, agent, text=text, extra=extra)
        model = named.group(1).strip()
        extra["model"] = model
        return self.event("meta", time, agent, text=f"model: {model}", extra=extra)

    def calls(
        self,
        message: dict[str, object],
        time: datetime | None,
        agent: str | None,
        children: list[tuple[str, datetime | None]],
        depth: int,
    ) -> Iterator[Event]:
        rowid = message.get("rowid")
        if not message.get("tool_calls"):
            return
        if isinstance(rowid, _Record):
            where, calls = rowid.where, rowid.record.get("tool_calls")
        elif isinstance(rowid, int):
            where = f"{self.db}#messages/{rowid}"
            raw = databases.bounded_value(
                self.connection, "messages", "tool_calls", rowid, full=self.full,
                diagnostics=self.diagnostics, where=where,
            )  # fmt: skip
            if raw is None:  # too long even with its long strings elided: counted so
                return
            try:
                calls = orjson.loads(raw) if isinstance(raw, str | bytes) else None
            except orjson.JSONDecodeError:
                self.diagnostics.skip(where, 0, "not JSON")
                return
        else:
            return
        if not isinstance(calls, list):
            self.diagnostics.skip(where, 0, "bad value")
            return
        for call in calls:
            function = as_dict(call).get("function")
            if not isinstance(function, dict) or not as_str(function.get("name")):
                self.diagnostics.skip(where, 0, "bad value")
                continue
            name = as_str(function.get("name"))
            call_id = as_str(as_dict(call).get("id"))
            arguments = parsed_arguments(function.get("arguments"))
            yield self.event(
                "tool_call",
                time,
                agent,
                tool=name,
                call_id=call_id,
                text=arguments if isinstance(arguments, str) else None,
                extra={"input": arguments},
            )
            if name not in _DELEGATE_TOOLS or not children:
                continue
            goal = (
                as_dict(arguments).get("goal") if isinstance(arguments, dict) else None
            )
            # each call takes the next children in the order they started, one for each
            # task of a batch: the rows name no call, and a message's time may be when
            # Hermes wrote it (after its children ran), not when it was made
            for task in _tasks(arguments) or [None]:
                if not children:
                    break
                links = self._links(children.pop(0)[0])
                said = task if isinstance(task, str) else goal
                yield self.event(
                    "subagent",
                    time,
                    agent,
                    call_id=call_id,
                    text=said if isinstance(said, str) else None,
                    extra={"child_id": links[-1], "agent_type": "subagent"},
                )
                yield from self.sub_agent(links, depth + 1)

    def usage(
        self,
        session_id: str,
        info: dict[str, object],
        agent: str | None,
        last_time: datetime | None,
    ) -> Iterator[Event]:
        when = (
            db_time(info.get("ended_at"))
            or db_time(info.get("last_activity_at"))
            or last_time
        )
        provider = as_str(info.get("billing_provider"))
        routed: list[Usage] = []  # the main loop's rows: the session's counters split
        routed_cost = 0.0
        for row in self._model_usage(session_id):
            usage = _usage_of(row)
            if not usage.total:
                continue
            self.say_odd(row, "session_model_usage")
            extra: dict[str, JSONValue] = {"scope": "session", "summed": True}
            task = as_str(row.get("task"))
            if task:
                extra["task"] = task
            used = as_str(row.get("billing_provider")) or provider
            if used:
                extra["provider"] = used
            _cost(extra, row.get("actual_cost_usd"), row.get("estimated_cost_usd"))
            if not task:
                routed.append(usage)
                cost = extra.get("app_cost_usd")
                routed_cost += cost if isinstance(cost, float) else 0.0
            yield self.event(
                "usage",
                db_time(row.get("last_seen")) or when,
                agent,
                usage=usage,
                extra=extra,
            )
        # the session's counters hold the main loop only (an auxiliary call, a title's or
        # a compression's, has its row alone); where the gateway set them whole, or rows
        # began mid-session, no row splits part of them: that part, once, as Hermes'
        # Insights reconciles it
        counters = _usage_of(info)
        self.say_odd(info, "sessions")
        left = [
            max(0, getattr(counters, name) - sum(getattr(u, name) for u in routed))
            for name in _COUNTERS
        ]
        rest = Usage(left[0], left[1], left[2], left[3], left[4], counters.model)
        if not rest.total:
            return
        extra = {"scope": "session", "summed": True}
        if routed:
            extra["unrouted"] = True
        if provider:
            extra["provider"] = provider
        whole: dict[str, JSONValue] = {}
        _cost(whole, info.get("actual_cost_usd"), info.get("estimated_cost_usd"))
        cost = whole.get("app_cost_usd")
        if isinstance(cost, float) and cost - routed_cost > 1e-9:
            extra["app_cost_usd"] = cost - routed_cost
        yield self.event("usage", when, agent, usage=rest, extra=extra)

    def say_odd(self, row: dict[str, object], table: str) -> None:
        """Say a row's count no app writes (`odd_count`): `_usage_of` bills it as 0 (or
        its whole part). A row is a set of totals, with no line."""
        if any(odd_count(row.get(name)) for name in _COUNTERS):
            self.diagnostics.damage(f"{self.db}#{table}", 0, odd_in("set of totals"))

    def _model_usage(self, session_id: str) -> list[dict[str, object]]:
        columns = databases.table_columns(self.connection, "session_model_usage")
        wanted = ("model", "billing_provider", "task", "input_tokens", "output_tokens",
                  "cache_read_tokens", "cache_write_tokens", "reasoning_tokens",
                  "estimated_cost_usd", "actual_cost_usd", "last_seen")  # fmt: skip
        if not {"session_id", "model"} <= columns:
            return []
        chosen = [c if c in columns else "NULL" for c in wanted]
        order = "first_seen, rowid" if "first_seen" in columns else "rowid"
        rows = self.connection.execute(
            f"SELECT {', '.join(chosen)} FROM session_model_usage WHERE session_id = ?"
            f" ORDER BY {order}",
            (session_id,),
        ).fetchall()
        return [dict(zip(wanted, row, strict=True)) for row in rows]


# a bare `[tool]` marker an older loop saved as the text of a turn that called tools: no
# answer, blanked as Hermes' resume blanks it (hermes_state.py
# `_STALE_TOOL_CALL_MARKER_RE` @00025f69)
_MARKER = re.compile(r"\[[A-Za-z_][A-Za-z0-9_.-]*\]")


# how a compaction's summary opens (agent/context_compressor.py SUMMARY_PREFIX, and the
# older ones), and the line it may end with before the user's turn it carries
_SUMMARY_PREFIXES = ("[CONTEXT COMPACTION", "[CONTEXT SUMMARY]:")
_SUMMARY_END = "--- END OF CONTEXT SUMMARY"


def _notice_kind(text: str | None) -> str | None:
    """The `display_kind` of a notice Hermes wrote as a user row, told by its opening."""
    for opening, kind in _NOTICES:
        if text is not None and text.lstrip().startswith(opening):
            return kind
    return None


def _is_summary(text: str | None) -> bool:
    """A summary Hermes wrote as a user row, in a database without the
    `_compressed_summary` flag (its own preview tells it by its opening too)."""
    return text is not None and text.lstrip().startswith(_SUMMARY_PREFIXES)


def _split_summary(text: str) -> tuple[str | None, str | None]:
    """A summary row's summary, and the user's turn after its end line, if any."""
    at = text.find(_SUMMARY_END)
    if at < 0:
        return text or None, None
    end = text.find("\n", at)
    said = text[end + 1 :].strip() if end >= 0 else ""
    return text[:at].rstrip() or None, said or None


_TRANSCRIPTS = "sessions"  # <home>/sessions/<id>.jsonl
_SAFE_ID = re.compile(r"[\w.-]+")


def _row_of(record: dict[str, object], where: str) -> dict[str, object]:
    """A message of a transcript or log, as the row `_Reader.message` reads."""
    moment = _stamp(record.get("timestamp"))
    stamp = moment.timestamp() if moment else None
    return {
        "rowid": _Record(record, where),
        "role": record.get("role"),
        "tool_call_id": record.get("tool_call_id"),
        "tool_calls": bool(record.get("tool_calls")),
        "tool_name": record.get("tool_name"),
        "timestamp": stamp,
        "finish_reason": record.get("finish_reason"),
        "reasoning": bool(record.get("reasoning")),
        "reasoning_content": bool(record.get("reasoning_content")),
        "_compressed_summary": record.get("_compressed_summary"),
        "display_kind": record.get("display_kind"),
        "display_identity": None,
        "observed": record.get("observed"),
    }


class _Record:
    """A transcript line read as a message row: its JSON, and where it came from."""

    __slots__ = ("record", "where")

    def __init__(self, record: dict[str, object], where: str) -> None:
        self.record = record
        self.where = where


def _line_count(path: Path) -> int:
    """Lines in a file (a last one without its newline too), read in bounded chunks."""
    count, last = 0, b"\n"
    with files.open_binary(path) as stream:
        while True:
            if files.skip_hole(stream):  # NULs: no newline, passed over
                last = b"\x00"
            chunk = stream.read(1 << 20)
            if not chunk:
                break
            count += chunk.count(b"\n")
            last = chunk[-1:]
    return count + (last != b"\n")


_COUNTERS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens",
             "reasoning_tokens")  # fmt: skip


def _usage_of(row: dict[str, object]) -> Usage:
    """A `sessions` or `session_model_usage` row's token counters, each 0 below 0: a
    per-model row's broken count grew the session's unsplit rest by as much."""
    given, output, cache_read, cache_write, reasoning = (
        max(0, as_int(row.get(name))) for name in _COUNTERS
    )
    model = as_str(row.get("model")) or None
    return Usage(given, output, cache_read, cache_write, reasoning, model)


def _cost(extra: dict[str, JSONValue], actual: object, estimated: object) -> None:
    """Hermes' own cost of the tokens: what the provider billed, else its estimate."""
    for value in (actual, estimated):
        if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
            extra["app_cost_usd"] = float(value)
            return


def _shown_result(text: str | None) -> str | None:
    """What a tool's JSON answer to the model says: a command's `output` (and `error`),
    a delegation's `results` as each sub-agent's `summary` (its status where it did not
    complete); any other answer as it is."""
    if not text or not text.startswith("{") or len(text) > _TEXT_CAP:
        return text
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return text
    if not isinstance(value, dict):
        return text
    output, error = value.get("output"), value.get("error")
    if isinstance(output, str) and "exit_code" in value:  # `terminal`
        said = [output.rstrip("\n"), error if isinstance(error, str) else ""]
        return shown_text("\n".join(part for part in said if part), keep_empty=False)
    results = value.get("results")
    if (
        isinstance(results, list)
        and results
        and all(
            isinstance(r, dict) and isinstance(r.get("summary"), str) for r in results
        )
    ):  # `delegate_task`
        replies = []
        for result in results:
            status = as_str(result.get("status"))
            mark = f"\n[{status}]" if status and status != "completed" else ""
            replies.append(f"{result['summary']}{mark}")
        return shown_text("\n\n".join(replies), keep_empty=False)
    return text


def _failed(text: str | None) -> bool:
    """Whether a tool's result says it failed, as Hermes' own display judges one: a JSON
    object with a truthy `error`, or a `status` of error / failed / timeout."""
    if not text or not text.lstrip().startswith("{") or len(text) > _TEXT_CAP:
        return False
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return False
    if not isinstance(value, dict):
        return False
    status = value.get("status")
    return bool(value.get("error")) or (
        isinstance(status, str)
        and status.strip().lower() in ("error", "failed", "failure", "timeout")
    )


def _tasks(arguments: JSONValue) -> list[object]:
    """The goals of a batch `delegate_task` call (`tasks: [{goal}]`), one a child."""
    if not isinstance(arguments, dict):
        return []
    return [as_dict(task).get("goal") for task in as_list(arguments.get("tasks"))]


def resume(session: Session, *, keep_permissions: bool = False) -> ResumePlan | None:
    """`hermes --resume <id>` in the session's folder (`hermes --profile <name> --resume
    <id>` for a profile's session).

    Hermes' `--yolo` (run every command without asking) loosens the default and is never
    added. A gateway session (Telegram, Discord, ...) reopens in the terminal with its
    history. Hermes itself changes into the folder a session recorded.
    """
    notes: list[str] = []
    profile = session.extra.get("profile")
    argv: tuple[str, ...] = ("hermes", "--resume", session.id)
    if isinstance(profile, str) and profile:
        argv = ("hermes", "--profile", profile, "--resume", session.id)
    elif (active := _active_profile(session)) is not None:
        argv = ("hermes", "--profile", "default", "--resume", session.id)
        notes.append(
            f"your active Hermes profile is {active!r} (`hermes profile use`), where "
            "this session is not: --profile default opens the home's own"
        )
    if session.parent_id:
        notes.append(
            "a sub-agent session: it reopens on its own, not inside its parent"
        )
    if session.extra.get("file"):
        notes.append(
            "kept only in a file of an older release: Hermes' database has no row of it,"
            " and `hermes --resume` may not find it"
        )
    source = session.extra.get("source")
    if isinstance(source, str) and source not in _LOCAL_SOURCES:
        notes.append(f"a {source} gateway session: it reopens in the terminal")
    return ResumePlan(
        argv=argv,
        cwd=session.cwd or ".",
        program="hermes",
        install_hint=INSTALL_HINT,
        notes=tuple(notes),
    )


def _active_profile(session: Session) -> str | None:
    """The named profile a bare `hermes` opens instead of the home's own database, where
    the session is from that database: `hermes profile use <name>` writes it into the
    home's `active_profile` (hermes_cli/main.py `_apply_profile_override`, 0.19.0)."""
    if not session.path or "#" not in session.path:
        return None
    db = Path(session.path.split("#", 1)[0])
    if db.name != DB_NAME:
        return None
    data = files.read_small(db.parent / _ACTIVE_PROFILE, 4096)
    name = data.decode("utf-8", "replace").strip() if data else ""
    return None if name.casefold() in ("", "default") else name


def process_session(args: Sequence[str]) -> Opened | None:
    """What a running `hermes` has open, read back from the words `resume` writes:
    `--resume <id>` (`-r`) that session; `--resume latest` or a bare `-c` the folder's
    latest; a title or a `-c <name>`, one chosen by name."""
    return opened_by_flags(args, RESUME_FLAGS, _is_session_id)


def _is_session_id(word: str) -> bool:
    return _SESSION_ID.fullmatch(word) is not None or is_uuid(word)
