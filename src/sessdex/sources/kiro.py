"""Kiro CLI (`kiro-cli chat`) and the Amazon Q Developer CLI it replaced (`q chat`).

Both keep their chats in one SQLite database, `data.sqlite3`, under `dirs::data_local_dir()`
(`$XDG_DATA_HOME`, default `~/.local/share`, on Linux; `~/Library/Application Support` on
macOS; `%LOCALAPPDATA%` on Windows): in `amazon-q/` for Q (aws/amazon-q-developer-cli
`crates/chat-cli/src/util/paths.rs` `database_path_static`, 1.19.7), in `kiro-cli/` for
Kiro (the same file on the repository's `sync-prod-from-main` branch, 2.2.1). No variable
of the app's moves it. The database is opened through `databases.open_sqlite` only (it
also holds the app's login in `auth_kv`, which is never queried).

Two tables, one per era (`database/sqlite_migrations/`): `conversations (key, value)` (007,
Q 1.10+), one conversation per folder, `key` the folder's path and `value` the serde JSON
of `ConversationState`, replaced as the chat goes on; and `conversations_v2 (key,
conversation_id, value, created_at, updated_at)` (008, Kiro CLI, 2025-12), several per
folder, times in epoch milliseconds. 008 copies the old rows into the new table, dated by
the migration, and leaves the old table behind: a database that has `conversations_v2` is
read from it alone. What a conversation holds is in `_kiro_read.py`: prompts (with a time
since 2025-08), responses, tool calls and their results, the `/compact` summary; a
response is dated by its request's end (since 2025-07), and no token count is kept.
Credits (Kiro CLI): `user_turn_metadata.usage_info` holds those of the last user turn
only, one entry a request since its prompt; the CLI starts it afresh at each prompt and
saves the conversation over the row after each response, so the row's credits are its last
turn's, counted once as one usage event, and an earlier turn's are kept nowhere: a
database chat's `usage` credits are its last turn's, never its whole (the 2.x agent's
session files keep every turn's, `_kiro_sessions`). A compaction in the middle of a turn
forks the conversation under a new id (the old row kept as last saved) and the new row goes
on with the same turn (`continuation_id`): that turn's credits are the newest row's alone.

Resume: Q reopens a folder's one conversation (`q chat --resume` there). Kiro reopens the
folder's newest (`kiro-cli chat --resume`) or, since April 2026 (#1829), any by its id
(`kiro-cli chat --resume-id <id>`); never `--trust-all-tools`.

The Kiro CLI's newer agent (`crates/chat-cli-v2`) keeps its sessions as files in
`~/.kiro/sessions/cli/` (`_kiro_sessions.py`), and copies a chat of this database there,
under the same id, when it reopens one (`v1_export`): the chat goes on in the files and the
row goes stale, so the file session is listed (a higher precedence, merged by id) and read,
and a row never exported stays listed from the database, as the CLI lists them itself
(`agent/acp/session_manager.rs` `ListSessions`: the files' sessions, then the rows whose id
no file has, newest first). A file session reopens with `kiro-cli chat --resume-id <id>` in
its folder; the 2.x `--resume` takes the newest of that merged list (`packages/tui`), so a
row that is the newest of the rows only is told so in a note. A chat saved with `/save` (a JSON file
wherever the user said) is not looked for.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import BinaryIO, cast

from .. import databases, files, folders, jsonstream, programs, shells
from ..diagnostics import Diagnostics, read_failed
from ..errors import NotQuotable
from ..model import Event, JSONValue, ResumePlan, Session
from . import _kiro_sessions
from ._kiro_read import Reader, StreamedHistory, summary
from ._values import as_str, loaded_object, ms_time, one_line, row_number
from .base import Home, Location, Opened

NAME = "kiro"
TITLE = "Kiro CLI / Amazon Q Developer CLI"
SCAN_NOTED = True  # locate reads only the environment; scan only probes
CHECKED_WITH = (
    "the CLIs' source, no real capture (Low/Medium confidence): "
    "aws/amazon-q-developer-cli @15cc8f3c (Q 1.19.7: conversations table) and its "
    "sync-prod-from-main branch @7bc6d258 (Kiro CLI 2.2.1: conversations_v2, and the "
    "~/.kiro/sessions/cli files of its crates/chat-cli-v2 agent); synthetic database, "
    "session files after the source's own test fixture"
)
# KIRO_TEST_SESSIONS_DIR: named "for testing" in the CLI's source, but honoured by every
# build (util/paths.rs `sessions_dir`), so followed here as the CLI would
ENV_VARS = ("XDG_DATA_HOME", "KIRO_TEST_SESSIONS_DIR")
# `q` is left out: other tools go by that name (harelba/q), and `q chat` runs its chat as
# a child, `qchat chat …` (crates/q_cli/src/cli/mod.rs before 09aa3cbad)
CLI = ("kiro-cli", "kiro-cli-chat", "qchat")

KIRO = "kiro-cli"  # the data folder's name, and the command
AMAZON_Q = "amazon-q"
DATABASE = "data.sqlite3"
# where the database keeps the CLI's login (its SSO tokens), never read: blanked in the
# copy sessdex keeps of the database (databases.open_sqlite)
LOGIN = ("auth_kv",)
MACOS_DATA = ("Library", "Application Support")
WINDOWS_DATA = ("AppData", "Local")
SESSIONS = (".kiro", "sessions", "cli")  # the 2.x agent's session files, under the home
SESSIONS_VAR = "KIRO_TEST_SESSIONS_DIR"
V2 = "conversations_v2"
# in a row's `extra`: the newer row whose credits hold this row's last turn's
_TURN_BILLED_IN = "turn_billed_in"
V1 = "conversations"


def locate(home: Home) -> Location:
    xdg = home.env_dir("XDG_DATA_HOME")
    data = home.xdg("data")
    also = [data / AMAZON_Q]
    for parts in (MACOS_DATA, WINDOWS_DATA):
        base = home.path.joinpath(*parts)
        also += [base / KIRO, base / AMAZON_Q]
    # the session files' folder, last: under the home on every system, whatever XDG says
    moved = home.env_dir(SESSIONS_VAR)
    also.append(moved or home.path.joinpath(*SESSIONS))
    said = [f"XDG_DATA_HOME={xdg}"] if xdg else []
    if moved:
        said.append(f"{SESSIONS_VAR}={moved}")
    return Location(
        data / KIRO,
        override=", ".join(said) or None,
        also=tuple(also),
    )


def _sessions_folder(location: Location) -> Path:
    return location.also[-1]


def _data_folders(location: Location) -> list[Path]:
    seen: list[Path] = []
    sessions = _sessions_folder(location)
    for folder in (location.root, *location.also):
        if folder not in seen and folder != sessions:
            seen.append(folder)
    return seen


# where `scan` reads a session (see base.py): a data folder's database, a session's log
# or its metadata in the CLI's sessions folder; a broken link elsewhere hides none
SESSION_NAMES = (DATABASE, f"*{_kiro_sessions.LOG}", f"*{_kiro_sessions.META}")


def scan(location: Location) -> Iterator[Path | str]:
    if not location.exists:
        return
    for folder in _data_folders(location):
        database = folder / DATABASE
        if folders.is_file(database):
            yield database
    sessions = _sessions_folder(location)
    if not folders.is_dir(sessions):
        return
    for entry in folders.entries(sessions):
        # `<id>.jsonl` is the session, `<id>.json` its metadata (a companion); the
        # `.lock` and the CLI's `.json.tmp` are left alone
        if entry.name.endswith(
            (_kiro_sessions.LOG, _kiro_sessions.META)
        ) and folders.file_entry(entry):
            yield entry.path


def companion_of(path: str) -> str | None:
    """The `<id>.jsonl` whose metadata `<id>.json` is (`scan` gives no other `.json`)."""
    if path.endswith(_kiro_sessions.META):
        return path[: -len(_kiro_sessions.META)] + _kiro_sessions.LOG
    return None


def doctor_notes(location: Location) -> list[str]:
    """Where a data folder is there but holds no database, and no session file is."""
    there = [f for f in _data_folders(location) if folders.is_dir(f)]
    if there and not any(folders.is_file(f / DATABASE) for f in there):
        sessions = _sessions_folder(location)
        if folders.entries(sessions):
            return []  # the 2.x agent keeps its sessions in files: read from there
        return [
            f"{there[0]} holds no {DATABASE} and {sessions} no session file: the CLI "
            "has saved no chat yet"
        ]
    return []


def _cli(path: Path) -> str:
    """The command of the app whose data folder holds `path`."""
    return "q" if path.parent.name == AMAZON_Q else KIRO


def _precedence(path: Path) -> int:
    """A chat found in both CLIs' databases (a Q database copied into Kiro's folder) is
    the Kiro CLI's: its copy is the one that goes on."""
    return 0 if path.parent.name == AMAZON_Q else 1


def parse(path: Path, location: Location, diagnostics: Diagnostics) -> list[Session]:
    name = str(path)
    if name.endswith(_kiro_sessions.LOG):
        return _kiro_sessions.listed(Path(path), diagnostics)
    if name.endswith(_kiro_sessions.META):
        return []  # metadata: listed with its log
    connection = databases.open_or_say(path, NAME, diagnostics, login=LOGIN)
    if connection is None:
        return []
    try:
        v2 = databases.table_columns(connection, V2)
        if {"key", "conversation_id", "value"} <= v2:
            return _listed_v2(connection, path, v2, diagnostics)
        v1 = databases.table_columns(connection, V1)
        if {"key", "value"} <= v1:
            if not v2 and _migrated_to_v2(connection):  # dropped, or a damaged schema
                diagnostics.problem(
                    f"{NAME}: {path} has no {V2} table though its migrations made one "
                    f"(008); only the chats of its older {V1} table are listed"
                )
            return _listed_v1(connection, path, diagnostics)
        for table, columns in ((V2, v2), (V1, v1)):
            if columns:  # there, but not as the CLI makes it: its chats go unlisted
                diagnostics.problem(
                    f"{NAME}: {path} has a {table} table without the columns the CLI "
                    f"writes ({', '.join(sorted(columns))}); its chats are not listed"
                )
                return []
        if not databases.table_columns(connection, "migrations"):
            diagnostics.problem(
                f"{NAME}: {path} has no conversations table; not a Kiro or Q CLI "
                "database we know"
            )
        return []  # a CLI that has not saved a chat yet (before migration 007)
    except sqlite3.Error as error:
        diagnostics.problem(read_failed(NAME, path, error))
        return []
    finally:
        connection.close()


def _load(
    connection: sqlite3.Connection,
    table: str,
    rowid: int | None,
    where: str,
    diagnostics: Diagnostics,
    *,
    full: bool = False,
) -> dict[str, object] | None:
    """A row's conversation JSON, its huge strings elided past `files.READ_LINE_CAP`;
    None, counted at `where`, for one that is damaged or not an object. One bigger than
    `files.WHOLE_JSON_CAP` is read in pieces (`_streamed`)."""
    if not full:
        streamed = _streamed(connection, table, rowid, where, diagnostics)
        if streamed is not None:
            return streamed
    data = databases.bounded_value(
        connection,
        table,
        "value",
        rowid,
        full=full,
        diagnostics=diagnostics,
        where=where,
    )
    if data is None:
        return None
    return loaded_object(data, where, diagnostics)


# the members of a conversation passed over unread when it is read in pieces: its history
# is read apart, an entry at a time, and the rest is never shown
_UNREAD = frozenset({
    "history", "transcript", "tools", "context_manager", "file_line_tracker",
    "checkpoint_manager", "next_message", "tangent_state",
    "mcp_registry_cache", "mcp_server_versions",
})  # fmt: skip


def _streamed(
    connection: sqlite3.Connection,
    table: str,
    rowid: int | None,
    where: str,
    diagnostics: Diagnostics,
) -> dict[str, object] | None:
    """A conversation too big to parse whole (a chat where the agent read an image keeps
    its bytes as a JSON array of numbers, which no eliding of strings shortens): its
    top-level members, and its history read one entry at a time when iterated, an entry
    still too long counted and passed over. None where the row is not that big, or not
    UTF-8 text SQLite's blob IO can read (the plain way reads it then)."""
    if not isinstance(rowid, int):  # a view's row: `bounded_value` counts it
        return None
    try:
        with databases.open_blob(connection, table, "value", rowid) as blob:
            if len(blob) <= files.WHOLE_JSON_CAP or b"\x00" in blob.read(64):
                return None
            blob.seek(0)
            members = jsonstream.object_members(
                cast(BinaryIO, blob), _UNREAD, diagnostics=diagnostics, path=where
            )
    except sqlite3.Error:
        return None
    except jsonstream.CutShort as cut:
        diagnostics.skip(where, 0, "truncated")
        members = cut.members
    except jsonstream.NotThisShape:
        diagnostics.skip(where, 0, "not JSON")
        return None

    def history() -> Iterator[object]:
        try:
            with databases.open_blob(connection, table, "value", rowid) as blob:
                yield from jsonstream.array_items(
                    cast(BinaryIO, blob), "history", diagnostics=diagnostics, path=where
                )
        except jsonstream.CutShort:
            pass  # counted with the members: the cut ends them too
        except jsonstream.NotThisShape:
            diagnostics.skip(where, 0, "not JSON")

    members["history"] = StreamedHistory(history)
    return members


def _listed_v2(
    connection: sqlite3.Connection,
    path: Path,
    columns: set[str],
    diagnostics: Diagnostics,
) -> list[Session]:
    times = [c if c in columns else "NULL" for c in ("created_at", "updated_at")]
    rows = [
        (rowid, key, conversation_id, row_number(created), row_number(updated))
        for rowid, key, conversation_id, created, updated in connection.execute(
            f"SELECT rowid, key, conversation_id, {times[0]}, {times[1]} FROM {V2} "
            "ORDER BY rowid"
        )
    ]
    newest: dict[str, tuple[int, str]] = {}  # folder: (updated_at, id) of its newest
    for _, key, conversation_id, _, updated in rows:
        if isinstance(key, str) and isinstance(conversation_id, str):
            mark = (updated if isinstance(updated, int) else 0, conversation_id)
            newest[key] = max(newest.get(key, mark), mark)
    latest = _latest_rows((rowid, cid, updated) for rowid, _, cid, _, updated in rows)
    sessions: list[Session] = []
    turns: dict[str, list[tuple[int, int]]] = {}  # turn id: (updated_at, index) of rows
    for rowid, key, conversation_id, created, updated in rows:
        where = f"{path}#{V2}/{one_line(conversation_id, limit=80)}"
        if not isinstance(conversation_id, str) or not conversation_id:
            diagnostics.skip(where, 0, "bad value")
            continue
        if latest.get(conversation_id) != rowid:
            continue  # an older copy, left in the folder the chat was reopened from
        # listed, damaged or not: the row's own columns say enough (its read counts it)
        value = _load(connection, V2, rowid, where, Diagnostics())
        found = summary(value) if value is not None else None
        extra: dict[str, JSONValue] = {
            "store": "sqlite",
            "table": V2,
            "cli": _cli(path),
        }
        cwd = key if isinstance(key, str) and key else None
        if cwd and newest.get(cwd, (0, ""))[1] == conversation_id:
            extra["newest"] = True
        if found is not None and found.turn:
            at = (updated if isinstance(updated, int) else 0, len(sessions))
            turns.setdefault(found.turn, []).append(at)
        first = found.first if found else None
        row_created = ms_time(created)
        sessions.append(
            Session(
                app=NAME,
                id=conversation_id,
                path=f"{path}#{V2}/{conversation_id}",
                cwd=cwd,
                title=found.title if found else None,
                # a row 008 copied is dated by the migration: its first prompt is older
                created=_earliest(row_created, first),
                updated=ms_time(updated) or (found.last if found else None),
                model=found.model if found else None,
                precedence=_precedence(path),
                extra=extra,
            )
        )
    # a turn two rows keep (a compaction forked the conversation in its middle, the new
    # row going on with it): its credits are the newest row's
    for marks in turns.values():
        newest_row = max(marks)[1]
        for _, index in marks:
            if index != newest_row:
                older = sessions[index]
                billed = {**older.extra, _TURN_BILLED_IN: sessions[newest_row].id}
                sessions[index] = replace(older, extra=billed)
    return sessions


def _latest_rows(rows: Iterable[tuple[int, object, object]]) -> dict[str, int]:
    """Each conversation's row: the one updated last. The table's key is (folder, id), so a
    chat reopened by its id in another folder is saved there as a second row, the first
    left as it was; the CLI goes on in the newer."""
    latest: dict[str, tuple[int, int]] = {}
    for rowid, conversation_id, stamp in rows:
        if isinstance(conversation_id, str):
            updated = row_number(stamp)
            mark = (updated if isinstance(updated, int) else 0, rowid)
            latest[conversation_id] = max(latest.get(conversation_id, mark), mark)
    return {conversation_id: mark[1] for conversation_id, mark in latest.items()}


def _earliest(*moments: datetime | None) -> datetime | None:
    known = [m for m in moments if m is not None]
    return min(known) if known else None


def _migrated_to_v2(connection: sqlite3.Connection) -> bool:
    """Whether the `migrations` table says 008, which makes `conversations_v2`, ran."""
    if "version" not in databases.table_columns(connection, "migrations"):
        return False
    (newest,) = connection.execute("SELECT max(version) FROM migrations").fetchone()
    return isinstance(newest, int) and newest >= 8


def _listed_v1(
    connection: sqlite3.Connection, path: Path, diagnostics: Diagnostics
) -> list[Session]:
    sessions = []
    for rowid, key in connection.execute(
        f"SELECT rowid, key FROM {V1} ORDER BY rowid"
    ).fetchall():
        where = f"{path}#{V1}/{one_line(key, limit=200)}"
        met = Diagnostics()
        value = _load(connection, V1, rowid, where, met)
        diagnostics.update(met)
        found = summary(value) if value is not None else None
        if found is None or not found.conversation_id:
            # no conversation id, or no value (NULL) that `_load` said nothing of
            if value is not None or not met.skipped_total:
                diagnostics.skip(where, 0, "bad value")
            continue
        extra: dict[str, JSONValue] = {
            "store": "sqlite",
            "table": V1,
            "cli": _cli(path),
        }
        cwd = key if isinstance(key, str) and key else None
        extra["newest"] = True  # the folder's one conversation
        sessions.append(
            Session(
                app=NAME,
                id=found.conversation_id,
                path=f"{path}#{V1}/{found.conversation_id}",
                cwd=cwd,
                title=found.title,
                # the table keeps no time: the first prompt's and the last response's
                created=found.first,
                updated=found.last,
                model=found.model,
                precedence=_precedence(path),
                extra=extra,
            )
        )
    return sessions


def read(
    session: Session, diagnostics: Diagnostics, *, full: bool = False, offset: int = 0
) -> Iterator[Event]:
    if session.path and session.path.endswith(_kiro_sessions.LOG):
        turns = _kiro_sessions.turns(session.path)
        log = _kiro_sessions.LogReader(
            session.id, diagnostics, turns, folder=Path(session.path).parent
        )
        yield from log.read(session.path, full=full, offset=offset)
        return
    # `<database>#<table>/<id>`: split where the database's name ends, as the id (any
    # text the row holds) may itself hold `#conversations`
    head, marker, rest = (session.path or "").partition(f"{DATABASE}#")
    table, _, conversation_id = rest.partition("/")
    if not marker or table not in (V1, V2):
        return
    database = head + DATABASE
    connection = databases.open_or_say(database, NAME, diagnostics, login=LOGIN)
    if connection is None:
        return
    try:
        where = f"{database}#{table}/{conversation_id}"
        if table == V2:
            columns = databases.table_columns(connection, V2)
            updated = "updated_at" if "updated_at" in columns else "NULL"
            # no index leads with the id (the key is folder, id): every chat's row
            # found in one scan for the run, not a scan for each chat read
            found = databases.scanned(
                connection,
                f"SELECT rowid, conversation_id, {updated} FROM {V2}",
                lambda rows: _latest_rows(
                    cast("list[tuple[int, object, object]]", rows)
                ),
            ).get(conversation_id)
            row = (found,) if found is not None else None
        else:  # the folder's row, if it still holds this conversation
            row = connection.execute(
                f"SELECT rowid FROM {V1} WHERE key = ? LIMIT 1", (session.cwd or "",)
            ).fetchone()
        if row is None:
            diagnostics.skip(where, 0, "vanished")
            return
        value = _load(connection, table, row[0], where, diagnostics, full=full)
        if value is None:
            return
        if as_str(value.get("conversation_id")) not in (None, conversation_id):
            diagnostics.skip(where, 0, "vanished")  # the folder has a new one since
            return
        reader = Reader(
            session.id,
            where,
            diagnostics,
            updated=session.updated,
            turn_billed_elsewhere=bool(session.extra.get(_TURN_BILLED_IN)),
        )
        yield from reader.conversation(value)
    except sqlite3.Error as error:
        diagnostics.problem(read_failed(NAME, database, error))
    finally:
        connection.close()


# --- resume ------------------------------------------------------------------------------


def resume(session: Session, *, keep_permissions: bool = False) -> ResumePlan | None:
    """In the conversation's folder: `q chat --resume` (Q's one conversation there),
    `kiro-cli chat --resume` (the folder's newest), else `kiro-cli chat --resume-id <id>`.
    Never `--trust-all-tools`: the CLI's own approval rules apply."""
    if resume_refusal(session) is not None or not session.cwd:
        return None
    cli = "q" if session.extra.get("cli") == "q" else KIRO
    notes: list[str] = []
    if session.extra.get("store") == "files":  # the 2.x agent's own session
        argv: tuple[str, ...] = (cli, "chat", "--resume-id", session.id)
    elif session.extra.get("newest") is True:
        argv = (cli, "chat", "--resume")
        if cli == KIRO:  # newest among the rows: the 2.x CLI weighs its files too
            # the line the user may paste: the id quoted for their shell, as any command
            try:
                exact = f"`{shells.run((KIRO, 'chat', '--resume-id', session.id))}`"
            except NotQuotable:
                exact = "`kiro-cli chat --resume-id` with its id"
            notes.append(
                "Kiro CLI 2.x opens the folder's newest chat, its session files' "
                f"included: where one is newer, {exact} opens this one"
            )
    else:
        argv = (cli, "chat", "--resume-id", session.id)
        notes.append(
            "--resume-id came with Kiro CLI releases of April 2026; an older one "
            "reopens it through `kiro-cli chat --resume-picker` in this folder"
        )
    hint = "" if cli == "q" else "curl -fsSL https://cli.kiro.dev/install | bash"
    # no one command installs the old Q CLI everywhere: said as prose
    note = (
        "install the Amazon Q Developer CLI (`brew install --cask amazon-q` on macOS); "
        "it is no longer updated, and its successor is the Kiro CLI"
        if cli == "q"
        else ""
    )
    return ResumePlan(
        argv=argv,
        cwd=session.cwd,
        program=cli,
        install_hint=hint,
        install_note=note,
        notes=tuple(notes),
        process_names=("qchat",) if cli == "q" else ("kiro-cli-chat",),
    )


def resume_refusal(session: Session) -> str | None:
    """Why a conversation has no resume command: its folder is not known."""
    if not session.cwd:
        return (
            "the CLI reopens a conversation from its folder, and this one's folder is "
            "not recorded."
        )
    return None


def resume_program(plan: ResumePlan) -> tuple[ResumePlan, str | None]:
    """The `q` on PATH where it is Amazon's: a compiled program, or a launcher that names
    its chat (`qchat`) or Amazon Q. `q` is also other tools' name (harelba/q, SQL on CSV
    files, a Python script), which is never given `chat --resume`."""
    found = shutil.which(plan.program)
    if found is None or plan.program != "q":
        return plan, found
    judged = programs.wrapped(found) or found
    if programs.is_launcher(judged) and not programs.launcher_names(
        judged, ("qchat", "amazon-q", "amazonq", "kiro-cli")
    ):
        return plan, None
    return plan, found


def process_session(args: Sequence[str]) -> Opened | None:
    """What a running `kiro-cli chat` or `q chat` has open, from the words `resume`
    writes: `--resume-id <id>` that conversation, `--resume`/`-r` the folder's newest,
    `--resume-picker` one the user picks."""
    index = 1
    while index < len(args):
        word = args[index]
        index += 1
        if word == "--":
            break
        name, equals, value = word.partition("=")
        if name == "--resume-id":
            if not equals and index < len(args):
                value = args[index]
            return Opened(value) if value else Opened(chosen=True)
        if word == "--resume-picker":
            return Opened(chosen=True)
        if word in ("--resume", "-r"):
            return Opened(latest=True)
    return None
