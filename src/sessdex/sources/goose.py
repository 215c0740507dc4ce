"""Goose (aaif-goose/goose, once block/goose): a SQLite session store, JSONL files before it.

Goose keeps sessions in its data folder's `sessions/` (Linux and macOS:
`$XDG_DATA_HOME/goose`, default `~/.local/share/goose`; Windows:
`%APPDATA%\\Block\\goose\\data`; `GOOSE_PATH_ROOT=<root>` moves it to `<root>/data`). Current
releases write one SQLite database, `sessions/sessions.db` (WAL, so it is opened through
`databases.open_sqlite`): `sessions` rows (`id` like `20251108_1`, `name` (older `description`),
`session_type` user / scheduled / sub_agent / hidden / terminal / gateway / acp, `working_dir`,
`created_at` / `updated_at` as UTC `YYYY-MM-DD HH:MM:SS`, `model_config_json.model_name`,
`provider_name`, `goose_mode`, token counters, `parent_session_id`) and `messages` rows (`role`,
`content_json`: Goose message content — text, image, toolRequest, toolResponse, thinking (older
`reasoning`, which Goose itself turns into thinking on load), redactedThinking, error,
toolConfirmationRequest, actionRequired, frontendToolRequest, systemNotification —
`created_timestamp` in unix seconds, `metadata_json` visibility and `turnContext`). An
`actionRequired` elicitation (the agent asking the user) is a `meta` event and its
`elicitationResponse` a `user` event; the user's answer to a tool confirmation
(`toolConfirmationResponse`) is a `meta` event on the tool call. The per-turn context Goose
appends as a user message (`turnContext`, `<turn-context>…`) is a `meta` event marked
`injected`, never the user's words; an `error` block is an `error` event. Spinner captions
(`progressMessage`, `thinkingMessage` notifications) are passed over.
Releases before the database wrote `sessions/<id>.jsonl`: line 1 metadata (`working_dir`,
`description`, token counters), then one message per line; the database imports them on
first run under the same id, and the database row wins. Columns and tables missing from older
databases are tolerated. Goose 1.0.0-1.0.10 wrote each content item in serde's default
enum shape (`{"Text": {…}}`, `{"ToolRequest": {"id", "tool_call": {"Ok": …}}}`); it is read
as today's.

Before 1.0.6 sessions lived in `~/.config/goose/sessions/<name>.jsonl` ($HOME as the app
saw it; no override moved it), one message per line and no metadata: Goose 0.8-0.9.11 (the
Python goose-ai, its `exchange` package's `Message.to_dict`: `role`, `id`, `created` in unix
seconds, `content` of `Text` / `ToolUse` (`id`, `name`, `parameters`) / `ToolResult`
(`tool_use_id`, `output`, the tool's return value as JSON, `is_error`)) and the first Rust
releases, 1.0.0-1.0.5, in the serde shape above. They are listed under their name, titled by
their first prompt, with no folder (none is recorded); where the newer folder holds the
same name, one id, its session is the one listed. Goose has not looked in the old folder
since 1.0.6, so they have no resume command (`resume_refusal` says why).

A session Goose has not named yet (`name` and `description` empty: it names one after the
first exchange) is listed by its first prompt, and so is one whose name is still Goose's
placeholder (not `user_set_name`): "New Chat" (an ACP client's new session) or "ACP Session"
(a thread's own session). The v10 `threads` / `thread_messages` tables and
`sessions.thread_id` (PR #8344) were dropped from use by PR #9078 and are ignored on
purpose: a session's messages are read from `messages`, and resume uses `sessions.id`.
`hidden` sessions are Goose's own helpers and are skipped. A `sub_agent` session that Goose's
summon extension delegated to records its parent in `parent_session_id` (schema v15); its
events are read with its parent's, before the delegating tool result (whose `_meta` names it),
with the child's id as `agent_id`, and `sessdex usage` counts it there. A `sub_agent` without
a parent is listed, and counted, on its own. A foreground delegate (schema v17, whose
`parent_delegation` column is not needed) runs after the result that scheduled it
(`_meta.foreground_subagent`): the spawn comes before that result, which is `launched`,
and the sub-agent's events after it.

A session `copy_session` made (Desktop's duplicate) is a new row holding the source's messages
written again, each keeping its `message_id` and `created_timestamp`, and nothing of its
spend (counters and ledger start empty): its turns are shown after one `meta` note naming the
older session that holds its first message (`extra["forked_from"]`); no column names it.

Usage: where the database has a `usage_ledger` table (schema v15), one `usage` event per
model call (its time, model and cache counts); any part of the session's `accumulated_*`
counters that the ledger does not hold yet (spend from before v15) is one more event with
`extra["scope"] = "session"`. Older databases and JSONL files: one `usage` event per session
from `accumulated_input_tokens` / `accumulated_output_tokens` (else the plain counters).
Goose's input counts include cache reads and writes (schema v14 records those), so they are
taken out of `input_tokens`.

No `last_written` (the live view's first read, right after another session wrote, then
holds this one's last answer 2 s, as by the file's time): no column of `messages` is
stamped when a row is written again. `created_timestamp` is the message's own time, kept
when `replace_conversation` (a compaction, an import) deletes a session's rows and inserts
them again; `timestamp` is the database's default at insert only. In the release read
(crates/goose/src/session/session_manager.rs @01643006) a message is inserted whole
(`add_message`) and no row is updated in place, so an answer never grows in its row
there; later releases' writes were not read.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator, Mapping
from pathlib import Path

import orjson

from .. import databases, files, folders, programs, shells
from ..diagnostics import Diagnostics, odd_in, read_failed
from ..errors import NotQuotable
from ..hints import named
from ..model import Event, JSONValue, ResumePlan, Session
from ._goose_read import _current_items, _Reader, _shape
from ._goose_tail import _Tail
from ._goose_usage import _counter_prefix, _counters, _odd, _total, _usage
from ._values import as_str, db_time, json_object, one_line
from .base import Home, Location, WholeRead

NAME = "goose"
# `goose session --resume` finds a session in its one database from any folder
RESUMES_ANYWHERE = True
TITLE = "Goose"
SUBAGENTS_INSIDE = True  # a sub-agent kept in its lead's file, listed as none
SCAN_NOTED = True  # locate reads only the environment; scan only lists and probes
CHECKED_WITH = (
    "goose session schema v5-v17 (source to aaif-goose/goose 2026-08-21, v17 from its "
    "session_manager.rs at 017176d0, synthetic DB); "
    "legacy JSONL (source, synthetic); ~/.config/goose/sessions of goose 0.8-0.9.11 "
    "(block/goose Python source) and 1.0.0-1.0.5 (Rust source), synthetic"
    "; resume flags from goose-cli's cli.rs (not run), rechecked at aaif-goose/goose "
    "@18a7b723 (`session --resume --session-id`, `--name`)"
)
ENV_VARS = ("GOOSE_PATH_ROOT", "XDG_DATA_HOME", "HOME")

INSTALL_HINT = "brew install block-goose-cli"
INSTALL_NOTE = "or: `curl -fsSL https://github.com/aaif-goose/goose/releases/download/stable/download_cli.sh | bash`"

_SESSION_COLUMNS = (
    "id",
    "name",
    "description",
    "user_set_name",
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
# watch: a rename or archive in place lists again (not `recipe_json`, nor the others)
LISTED_TABLES = {"sessions": _SESSION_COLUMNS}
# Goose's data folder on Windows, below the home: etcetera's `AppData/Roaming/<author>/
# <app>/data`, author "Block" kept by Goose so that existing installs are found
WINDOWS_SESSIONS = ("AppData", "Roaming", "Block", "goose", "data", "sessions")


def locate(home: Home) -> Location:
    """The data folder's `sessions/`, and the `~/.config/goose/sessions/` of releases
    before 1.0.6 (Python's `~` and Rust's `dirs::home_dir`: $HOME, whatever XDG says).
    On Windows Goose's data folder is `%APPDATA%\\Block\\goose\\data` (etcetera's Windows
    strategy, which reads no XDG variable), looked for under the home as well."""
    before = (home.env_dir("HOME") or home.path) / ".config" / "goose" / "sessions"
    # Goose keeps an absolute root only, `~` not expanded: `~/x` leaves its default
    value = home.environ.get("GOOSE_PATH_ROOT")
    root = Path(value) if value else None
    if root is not None and root.is_absolute():
        return Location(
            root / "data" / "sessions",
            override=f"GOOSE_PATH_ROOT={root}",
            also=(before,),
            keeps=(before.parent,),  # its config.yaml
        )
    xdg = home.env_dir("XDG_DATA_HOME")
    left = (
        f"GOOSE_PATH_ROOT={value} is not followed: Goose takes an absolute path only "
        "(no `~` expanded) and keeps its sessions in its default folder"
    )
    return Location(
        home.xdg("data") / "goose" / "sessions",
        override=f"XDG_DATA_HOME={xdg}" if xdg else None,
        also=(before, home.path.joinpath(*WINDOWS_SESSIONS)),
        keeps=(before.parent,),  # its config.yaml
        notes=(left,) if value else (),
    )


# where `scan` reads a session (see base.py), in each of its sessions folders: a broken
# link elsewhere hides none
SESSION_NAMES = ("sessions.db", "*.jsonl")


def scan(location: Location) -> Iterator[Path]:
    if not location.exists:
        return
    for folder in _data_folders(location):
        for entry in folders.entries(folder, folder):
            if (
                entry.name == "sessions.db" or entry.name.endswith(".jsonl")
            ) and folders.file_entry(entry):
                yield Path(entry.path)
    before = _before_1_0_6(location)
    if before is not None and before not in _data_folders(location):
        # XDG_DATA_HOME=~/.config: one folder, listed above
        for entry in folders.entries(before, before):
            if entry.name.endswith(".jsonl") and folders.file_entry(entry):
                yield Path(entry.path)


def _before_1_0_6(location: Location) -> Path | None:
    """The `~/.config/goose/sessions/` of releases before 1.0.6 (`also`'s first)."""
    return location.also[0] if location.also else None


def _data_folders(location: Location) -> list[Path]:
    """The `sessions/` folders of Goose's data folder: the root, and on Windows its own."""
    return [location.root, *location.also[1:]]


def parse(path: Path, location: Location, diagnostics: Diagnostics) -> list[Session]:
    if path.suffix == ".jsonl":
        before = path.parent == _before_1_0_6(location) and path.parent not in (
            _data_folders(location)
        )
        return _parse_legacy(path, diagnostics, before_1_0_6=before)
    connection = databases.open_or_say(path, NAME, diagnostics)
    if connection is None:
        return []
    try:
        available = databases.known_columns(
            connection, "sessions", {"id"}, diagnostics, (NAME, path), "Goose database"
        )
        if available is None:
            return []
        if "working_dir" not in available:
            diagnostics.problem(f"{NAME}: {path} sessions table lacks working_dir")
        columns = [c for c in _SESSION_COLUMNS if c in available]
        rows = [
            dict(zip(columns, values, strict=True))
            for values in connection.execute(
                f"SELECT {', '.join(columns)} FROM sessions ORDER BY id"
            )
        ]
        # Goose names a session after its first exchange; until then, the first prompt
        message_columns = databases.table_columns(connection, "messages")
        prompts = {
            session_id: _first_prompt(connection, message_columns, session_id)
            for row in rows
            if not any(_name_of(row)) and (session_id := as_str(row.get("id")))
        }
        spoken = _sessions_with_messages(connection, message_columns)
    except sqlite3.Error as error:
        diagnostics.problem(read_failed(NAME, path, error))
        return []
    finally:
        connection.close()

    sessions = []
    for row in rows:
        session_id = as_str(row.get("id"))
        kind = as_str(row.get("session_type")) or "user"
        if session_id is None:
            diagnostics.skip(f"{path}#sessions", 0, "bad value")  # a row with no id
            continue
        if kind in _SKIPPED_TYPES:
            continue
        name, description = _name_of(row)
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
                title=name or description or prompts.get(session_id),
                created=db_time(row.get("created_at")),
                updated=db_time(row.get("updated_at")),
                model=as_str(config.get("model_name")),
                permission_mode=as_str(row.get("goose_mode")),
                parent_id=parent,
                agent_type="sub_agent" if kind == "sub_agent" else None,
                # a session Goose imported from a JSONL file whose messages it could not
                # parse (1.0.6-1.0.10's shape) has none here: the file, beside it, says more
                precedence=10 if spoken is None or session_id in spoken else -2,
                extra=extra,
            )
        )
    return sessions


# what Goose names a session until it names it after the first exchange: an ACP client's
# new session (acp/server/new_session.rs), a thread's own session (PR #8344 to PR #9078)
_PLACEHOLDER_NAMES = frozenset({"New Chat", "ACP Session"})


def _name_of(row: Mapping[str, object]) -> tuple[str | None, str | None]:
    """The session's name and older description; a placeholder name the user did not
    choose (`user_set_name`, false where the column is missing, as Goose reads it) is
    none."""
    name = one_line(row.get("name"), limit=None)
    if name in _PLACEHOLDER_NAMES and row.get("user_set_name") != 1:
        name = None
    return name, one_line(row.get("description"), limit=None)


_PROMPTS_TRIED = 4  # user messages looked at for an unnamed session's first prompt


def _sessions_with_messages(
    connection: sqlite3.Connection, columns: set[str]
) -> set[str] | None:
    """The ids of the sessions that have a message in the database (None: unknown)."""
    if "session_id" not in columns:
        return None
    return {
        str(row[0])
        for row in connection.execute("SELECT DISTINCT session_id FROM messages")
    }


def _first_prompt(
    connection: sqlite3.Connection, columns: set[str], session_id: str
) -> str | None:
    """The first thing the user typed in a session (not the turn context or other text
    Goose adds for the model), as one line; None where there is none. `columns`: those
    of the messages table."""
    if not {"session_id", "role", "content_json"} <= columns:
        return None
    metadata = "metadata_json" if "metadata_json" in columns else "NULL"
    rows = connection.execute(
        f"SELECT rowid, {metadata} FROM messages WHERE session_id = ? AND role = 'user' "
        "ORDER BY id LIMIT ?",
        (session_id, _PROMPTS_TRIED),
    ).fetchall()
    for rowid, meta in rows:
        flags = json_object(meta)
        if flags.get("userVisible") is False or flags.get("turnContext") is True:
            continue
        content = databases.bounded_value(connection, "messages", "content_json", rowid)
        try:
            items = orjson.loads(content) if content is not None else None
        except orjson.JSONDecodeError:
            continue
        if text := _first_text(items) or _opening_text(connection, rowid, items):
            return text
    return None


def _opening_text(
    connection: sqlite3.Connection, rowid: int, items: object
) -> str | None:
    """The first text of a prompt too long to keep (its text elided): from the value's
    first bytes (files.OPENING) closed up as JSON, never read whole."""
    first = next(iter(items if isinstance(items, list) else []), None)
    text = first.get("text") if isinstance(first, dict) else None
    if not isinstance(text, str) or files.elided(text) is None:
        return None
    opening = databases.value_opening(
        connection, "messages", "content_json", rowid, files.OPENING
    )
    closed = files.closed_opening(b'{"content":' + opening) if opening else None
    return _cut_text(orjson.loads(closed).get("content")) if closed else None


def _first_text(content: object) -> str | None:
    """A message content's first text block as one line; None where there is none or
    it was elided for its size (such a prompt names no session well)."""
    for item in content if isinstance(content, list) else []:
        if (
            isinstance(item, dict)
            and item.get("type") == "text"
            and (text := as_str(item.get("text")))
        ):
            return None if files.elided(text) else one_line(text, limit=None)
    return None


def _cut_text(content: object) -> str | None:
    """The first text of a message cut short (`files.closed_opening`), as one line: Goose
    0.x writes an item's "text" before its "type", so the cut item may have no type;
    an item of another shape is read as today's."""
    for item in content if isinstance(content, list) else []:
        if not isinstance(item, dict):
            continue
        text = as_str(item.get("text"))
        if (
            found := one_line(text, limit=None)
            if text
            else _first_text(_current_items([item]))
        ):
            return found
    return None


def _parse_legacy(
    path: Path, diagnostics: Diagnostics, *, before_1_0_6: bool = False
) -> list[Session]:
    try:
        size = path.stat().st_size
        # a first prompt too long to hold (a pasted log or image) still titles it
        head = files.head_lines(path, 2, openings=True)
        tail = files.tail_lines(path, 256 * 1024)
    except FileNotFoundError:
        diagnostics.skip(str(path), 0, "vanished")
        return []
    except OSError:
        diagnostics.skip(str(path), 0, "unreadable")
        return []
    files.note_unfinished_last(tail, diagnostics, str(path))
    records = [(files.parse_json(line), line.compacted) for line in head]
    meta = (
        records[0][0]
        if records and records[0][0] is not None and "role" not in records[0][0]
        else {}
    )
    # `cut`: the first message is the first bytes of a line too long to hold
    first, cut = next(
        ((r, compacted) for r, compacted in records if r is not None and "role" in r),
        (None, False),
    )
    last = None
    for line in reversed(tail):
        record = files.parse_json(line)
        if record is not None and "role" in record:
            last = record
            break
    if not meta and first is None:
        return []
    prompt = None
    if first is not None and first.get("role") == "user":
        content = first.get("content")
        prompt = _cut_text(content) if cut else _first_text(_current_items(content))
    extra: dict[str, JSONValue] = {"store": "config" if before_1_0_6 else "jsonl"}
    if first is not None and (shape := _shape(first.get("content"))):
        extra["format"] = shape
    for key in (
        "input_tokens",
        "output_tokens",
        "accumulated_input_tokens",
        "accumulated_output_tokens",
    ):
        if isinstance(meta.get(key), int):
            extra[key] = meta[key]  # type: ignore[assignment]
    if _odd(meta, "") or _odd(meta, "accumulated_"):  # taken as 0, said when read
        extra["odd_counts"] = True
    return [
        Session(
            app=NAME,
            id=path.stem,
            path=str(path),
            cwd=as_str(meta.get("working_dir")),
            title=one_line(meta.get("description"), limit=None) or prompt,
            created=db_time(first.get("created")) if first else None,
            updated=db_time(last.get("created")) if last else None,
            bytes=size,
            # the same name in the newer folder: one id, and the newer session wins
            precedence=-1 if before_1_0_6 else 0,
            extra=extra,
        )
    ]


def read(
    session: Session, diagnostics: Diagnostics, *, full: bool = False, offset: int = 0
) -> Iterator[Event]:
    if not session.path:
        return
    reader = _Reader(session.id, diagnostics, full)
    if "#sessions/" in session.path:
        yield from reader.database(session.path.split("#sessions/")[0])
        return
    yield from reader.legacy(session.path, full, offset)
    provider = as_str(session.extra.get("provider_name"))
    extra: dict[str, JSONValue] = {"scope": "session", "summed": True}
    if provider:  # whom its model calls went to, for the price list
        extra["provider"] = provider
    prefix = _counter_prefix(session.extra)
    if session.extra.get("odd_counts") is True or _odd(session.extra, prefix):
        # the metadata line's counters: one no app writes is taken as 0
        diagnostics.damage(session.path, 1, odd_in("set of totals"))
    usage = _usage(
        _counters(session.extra, prefix), session.model, _total(session.extra, prefix)
    )
    if usage is not None:
        yield reader.event(
            "usage",
            session.updated or reader.last_time,
            usage=usage,
            extra=extra,
        )


def read_last(
    session: Session, diagnostics: Diagnostics, rows: int, *, full: bool = False
) -> Iterator[Event]:
    """`read` of only a database session's last `rows` messages (see base.py): what the
    whole read carries from the rows before them (where the model calls go, whether a
    compaction's summary is awaited, which calls were delegates) is taken from those
    rows' small columns and from as few of them as say it; a session with sub-agents,
    or whose last rows name one, is read whole. A result's call is the nearest earlier
    one of its id (providers' call ids name one call each)."""
    if not session.path or "#sessions/" not in session.path:
        raise WholeRead("a JSONL file is read from its end")
    reader = _Tail(session.id, diagnostics, rows, full)
    yield from reader.database(session.path.split("#sessions/")[0])


def resume_refusal(session: Session) -> str | None:
    """Why `resume` gives no command for a session in `~/.config/goose/sessions/`."""
    if session.extra.get("store") != "config":
        return None
    if session.extra.get("format") == "python":
        return (
            "this session was saved by Goose 0.x (the Python goose-ai, which resumed it "
            "with 'goose session resume <name>'); today's Goose reads neither "
            f"~/.config/goose/sessions nor that format. {named('show', f'{session.app}:{session.id}')} reads it."
        )
    return (
        "this session was saved in ~/.config/goose/sessions by Goose 1.0.5 or older; "
        f"Goose has not looked there since 1.0.6. {named('show', f'{session.app}:{session.id}')} reads it."
    )


def _keep_mode(mode: str) -> str:
    """How to keep `mode`: the line that sets GOOSE_MODE in the user's shell, the file's
    word quoted for it (or, where that shell cannot be given the word, what to set)."""
    try:
        return f"run {shells.set_variable('GOOSE_MODE', mode)} first"
    except NotQuotable:
        return "set the environment variable GOOSE_MODE to it before resuming"


def resume(session: Session, *, keep_permissions: bool = False) -> ResumePlan | None:
    """`goose session --resume --session-id <id>` in the session's folder.

    Sessions only in a legacy JSONL file are resumed by name (`--name <file stem>`), as the
    Goose releases that wrote them did; those in `~/.config/goose/sessions/` not at all (no
    Goose since 1.0.6 looks there). Goose's mode (`GOOSE_MODE`) is configuration, not a
    flag, and its default `auto` is already the loosest, so nothing is withheld; a stricter
    recorded mode is mentioned in the notes.
    """
    if session.extra.get("store") == "config":
        return None
    if session.extra.get("store") == "jsonl":
        argv = ("goose", "session", "--resume", "--name", session.id)
    else:
        argv = ("goose", "session", "--resume", "--session-id", session.id)
    notes = []
    mode = session.permission_mode
    if mode and mode != "auto":  # "auto", the default, runs tools without asking
        notes.append(
            f"the session ran in goose mode '{mode}'; to keep it, {_keep_mode(mode)}"
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
        install_note=INSTALL_NOTE,
        notes=tuple(notes),
    )


def resume_program(plan: ResumePlan) -> tuple[ResumePlan, str | None]:
    """The `goose` on PATH where it is Block's: its CLI is compiled Rust (a release,
    Homebrew's block-goose-cli, the desktop app's), or a launcher that names it. `goose`
    is also the SQL migration tool (pressly/goose, a Go program), which is never given
    `session --resume`. A wrapper (Nix's, a Homebrew exec script) is judged by what it
    starts."""
    found = shutil.which(plan.program)
    if found is None:
        return plan, None
    judged = programs.wrapped(found) or found
    if programs.is_go(judged):
        return plan, None
    if programs.is_launcher(judged) and not programs.launcher_names(
        judged, ("goose-cli", "block-goose", "block/goose", "aaif-goose")
    ):
        return plan, None
    return plan, found
