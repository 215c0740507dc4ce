"""OpenCode (sst/opencode, now anomalyco/opencode): a SQLite store, and the JSON tree before it.

OpenCode keeps everything under `$XDG_DATA_HOME/opencode` (default
`~/.local/share/opencode`, on macOS too). Since about 1.2 that is one SQLite database,
`opencode.db` (a build of another channel than latest, beta or prod, such as a dev build,
writes `opencode-<channel>.db`: storage/db.ts), in WAL mode: the newest rows
often live only in `opencode.db-wal`, so it is always opened through `databases.open_sqlite`,
which reads a snapshot of db + WAL. One database holds every session: a row of `session`
(`id`, `parent_id` for sub-agent children, `directory`, `title`, `version`, `model` JSON
`{id, providerID, variant}`, epoch-ms `time_created`/`time_updated`, `time_archived`),
its `message` rows (`data` JSON: role, modelID, tokens, finish, error, time) and their
`part` rows (`data` JSON: text, reasoning, tool, file, step-start/-finish, snapshot, patch,
agent, subtask, retry, compaction: a note says what it summarized, `_opencode_folds`; the
compaction is one event with the text of the `summary` answer that follows its request).
Older releases wrote the same records as JSON files:
`storage/session/<project>/<ses>.json`, `storage/message/<ses>/<msg>.json` and
`storage/part/<msg>/<prt>.json`; both are read, and a database row wins over a file for
the same id (the upgrade copies the files into the database). Early 0.x releases kept each
project's files apart, `project/<git root as a-b-c, or global>/storage/session/` with
`info/<ses>.json` (no `directory`: the folder is the assistant messages' `path.cwd`),
`message/<ses>/` and `part/<ses>/<msg>/`; the move to `storage/` copied git projects only,
so a `global` session lives there alone (a copy in `storage/` wins). OpenCode 2.x keeps its
sessions in `session_v2` and their history in `session_message` rows, read by
`_opencode_v2` (a 2.x row wins over the 1.x row of the same session). A session still
titled "New session - <time>" (no title was generated; early 0.x: "New Session - <time>"),
in the database or the JSON files, is listed by its first prompt, as `kilo run` 7.7's
header shows it, but as the user typed it: `kilo run` and `opencode run` store an argument
holding a space in `"…"`, quotes that go (`as_typed`); Kilo's `session list` and its TUI's
session list show the placeholder itself. An empty title (`run --title ""` with no message)
is named so too; a title `run --title ""` made of the prompt (its first 50 characters as
stored, quotes and all, "..." after a longer one) is shown as typed, cut where run cut it
(`run_title`; a prompt with characters outside the BMP, which JavaScript counts twice, is
not recognised and keeps run's quotes). We ignore the `event` log, `todo`, `permission`, `project` and
snapshots.

Usage: one `usage` event per assistant message, from its `tokens` (the per-step
`step-finish` parts repeat them and are not added). OpenCode stores `input` without
cache reads and writes already; recent releases store `output` without `reasoning`,
so output here is `output + reasoning`, unless the message's `total` is input, output
and cache alone: releases before PR 21047 counted an OpenAI model's reasoning inside
`output`, and their total says so. A `task` tool call spawns a child
session (`state.metadata.sessionId`); its events follow the spawn, tagged with the
child's id. A 1.x `/fork` writes every message of its source into the new session under a
new id, its time and counts kept, and records no link: a message dated before its session
was created whose response another session wrote after its own creation is that session's
copy, shown after one note naming it (`meta`, `extra["forked_from"]`) and billed there, not
here (nor are the sub-agents it read inline); in the JSON files as in the database (there
the fork's project folder is searched for the source, a bounded number of files). The git
branch is not recorded.
"""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from pathlib import Path

import orjson

from .. import databases, files, folders
from ..diagnostics import Diagnostics, read_failed
from ..model import Event, JSONValue, ResumePlan, Session
from . import _opencode_folds, _opencode_v2
from ._values import (
    Emitter,
    as_dict,
    as_list,
    as_str,
    copied_note,
    json_copy,
    json_object,
    ms_time,
    one_line,
    row_number,
    shown_text,
    type_tag,
)
from .base import Home, Location, Opened, ResumeFlags, WholeRead, opened_by_flags

NAME = "opencode"
TITLE = "OpenCode"
SCAN_NOTED = True  # locate reads only the environment; scan only lists and probes
READ_LAST_UNSURE = True  # its `read_last` says which events earlier rows may change
# a tool part is written again, completed, once its tool returns (session/processor.ts)
CALLS_END_IN_PLACE = True
CHECKED_WITH = (
    "opencode 1.18.33 (SQLite, real files; its part and session-message schemas and "
    "tables from its npm binary); 1.3 JSON storage tree (public synthetic samples); "
    "early 0.x per-project JSON store (from sst/opencode's app.ts, session/index.ts and "
    "storage.ts of mid-2025; synthetic sample); "
    "2.0.15 tables and rows as a public reader's tests quote them (no real 2.x file seen); "
    "the `session` table's fork columns beside `session_message` from anomalyco/opencode's "
    "packages/core/src/session/sql.ts @02ce4a33 (source only); "
    "resume checked against 1.18.33's --help and anomalyco/opencode's tui/thread.ts "
    "@01d247b9 (`--session`, `--model provider/model`, no variant flag) and 1.18.33's "
    "bundled TUI (`--agent` wins over the agent it restores from the last prompt)"
)
NEWEST_CHECKED = "2.0.15"  # doctor names versions past it
ENV_VARS = ("XDG_DATA_HOME", "OPENCODE_DB")
# its program, as `resume` runs it: `watch` shows a copy running with no session yet
CLI = ("opencode",)

# how a running opencode says which session it has open (1.18.33's --help)
RESUME_FLAGS = ResumeFlags(resume=("-s", "--session"), fork=("--fork",))
_SESSION_ID = re.compile(r"ses_[0-9A-Za-z]{1,64}")

INSTALL_HINT = "npm install -g opencode-ai"
INSTALL_NOTE = "or: `curl -fsSL https://opencode.ai/install | bash`"
# the built-in agents that cannot edit files (1.18.33's agent list: `plan` "disallows all
# edit tools"); `build` is the default, and any other agent's permissions are the user's
# config, which sessdex does not read
READ_ONLY_AGENTS = frozenset({"plan"})
_DEFAULT_AGENT = "build"

_SESSION_COLUMNS = (
    "id",
    "parent_id",
    "directory",
    "title",
    "version",
    "agent",
    "model",
    "cost",
    "time_created",
    "time_updated",
    "time_archived",
    "slug",
)
# where the database keeps the login to OpenCode's console (account/account.sql.ts:
# `access_token`, `refresh_token`; `control_account` before), never read: blanked in the
# copy sessdex keeps of the database (databases.open_sqlite)
LOGIN = ("account", "control_account")
# watch: a title or archive changed in place lists again; the columns its listing reads
# (not `summary_diffs` nor `revert`, which may hold whole files, checksummed each second)
LISTED_TABLES = {
    table: (*_SESSION_COLUMNS, *_opencode_v2.EXTRA_COLUMNS)
    for table in ("session", "session_v2")
}
_IGNORED_PARTS = {"step-start", "step-finish", "snapshot", "patch"}
# a background task's state, as its tool answers at launch and as the synthetic part that
# reports its end to the parent (tool/task.ts `renderOutput`): <task id="ses_…" state="…">
_TASK_STATE = re.compile(r'\s*<task id="([^"<>]{1,200})" state="([a-z_]{1,20})">')
_TASK_REPLY = re.compile(
    r'\s*<task id="[^"<>]{1,200}" state="([a-z_]{1,20})">\n<task_result>\n(.*)\n'
    r"</task_result>\n</task>\s*",
    re.DOTALL,
)
_ATTACHMENTS_NAMED = 20  # of one tool result: past them a result says no more
_MAX_DEPTH = 4  # sub-agents of sub-agents: deep enough, and no loop can run away
_COPIES_CAP = 200_000  # a fork's messages examined as copies of its source's
_JSON_COPIES_CAP = 20_000  # files read to find a JSON fork's source
_CWD_MESSAGES = 8  # message files read for an early 0.x session's folder
# "New session - 2026-12-02T07:57:59.283Z", "Child session - …" (session/index.ts);
# early 0.x wrote "New Session - …"
_PLACEHOLDER_TITLE = re.compile(
    r"(?:New [Ss]ession|Child session) - \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"
)
# a word of a prompt `kilo run`/`opencode run` joined (run.ts): an argument holding a space
# in "…", its own quotes as \" (a backslash before them is one it had), any other as it was
_RUN_TITLE = 50  # the characters of a prompt `run --title ""` keeps for the title
_RUN_WORD = re.compile(r'"((?:\\"|\\(?!")|[^"\\])*)"|[^ "]+')

Children = _opencode_v2.Children


def _row_time(value: object) -> datetime | None:
    """A row's epoch milliseconds, kept as a number or as its digits."""
    return ms_time(row_number(value))


def locate(home: Home) -> Location:
    """`$XDG_DATA_HOME/opencode` (else `~/.local/share/opencode`); `OPENCODE_DB` names
    another database, absolute or in that folder."""
    override = home.env_dir("XDG_DATA_HOME")
    root = home.xdg("data") / "opencode"
    said = [f"XDG_DATA_HOME={override}"] if override else []
    database = home.environ.get("OPENCODE_DB", "").strip()
    also: tuple[Path, ...] = ()
    if database and database != ":memory:":
        also = (root / Path(database).expanduser(),)  # an absolute path stays whole
        said.append(f"OPENCODE_DB={database}")
    # its settings and its state (the TUI's prompt history, its model choices)
    keeps = (home.xdg("config") / "opencode", home.xdg("state") / "opencode")
    return Location(root, override=", ".join(said) or None, also=also, keeps=keeps)


# where `scan` reads a database, a JSON session or a folder of them (see base.py): a
# broken link elsewhere (a note beside the database) hides none
SESSION_NAMES = (
    "opencode*.db",
    "storage",
    "storage/session",
    "storage/session/*",
    "storage/session/*/*.json",
    "storage/message",
    "storage/message/*",
    "storage/message/*/*.json",
    "project",
    "project/*",
    "project/*/storage/session/info/*.json",
    "project/*/storage/session/message/*",
    "project/*/storage/session/message/*/*.json",
)


def scan(location: Location) -> Iterator[Path]:
    if not location.exists:
        return
    root = location.root
    named = [p for p in location.also if folders.is_file(p)]  # OPENCODE_DB
    yield from named
    for entry in folders.entries(root, root):
        if (
            _is_database(entry.name)
            and folders.file_entry(entry)
            and Path(entry.path) not in named
        ):
            yield Path(entry.path)
    messages = root / "storage" / "message"
    for project in folders.entries(root / "storage" / "session", root):
        if not project.is_dir():
            continue
        for entry in folders.entries(Path(project.path), root):
            if entry.name.endswith(".json") and folders.file_entry(entry):
                yield Path(entry.path)
                # the newest only: the first few (a placeholder title's prompt) are written
                # with the session's first lines, and a stat each cost a warm list 40 %
                yield from _read_messages(messages / entry.name[:-5], root, 0)
    for project in folders.entries(root / "project", root):  # early 0.x, per project
        if not project.is_dir():
            continue
        store = Path(project.path) / "storage" / "session"
        for entry in folders.entries(store / "info", root):
            if entry.name.endswith(".json") and folders.file_entry(entry):
                yield Path(entry.path)
                found = store / "message" / entry.name[:-5]
                yield from _read_messages(found, root, _CWD_MESSAGES)


def _read_messages(folder: Path, root: Path, first: int) -> Iterator[Path]:
    """The message files of a JSON session that its listing reads (the `first` few: an
    early 0.x session's folder; the newest: its model), as companions (`companion_of`):
    OpenCode writes a message file without its session file."""
    listed = [
        entry for entry in folders.entries(folder, root) if entry.name.endswith(".json")
    ]
    for entry in listed[:first] + listed[first:][-1:]:
        if entry.is_file():
            yield Path(entry.path)


def companion_of(path: str) -> str | None:
    """The session file whose listing a message file changes: `…/session/message/<ses>/`
    (early 0.x) speaks of `…/session/info/<ses>.json`, `storage/message/<ses>/` of
    `storage/session/<project>/<ses>.json` (the one project folder holding it)."""
    folder, base = os.path.split(path)
    messages, session = os.path.split(folder)
    store, kind = os.path.split(messages)
    if kind != "message" or not base.endswith(".json"):
        return None
    if os.path.basename(store) == "session":  # early 0.x
        return os.path.join(store, "info", session + ".json")
    if os.path.basename(store) != "storage":
        return None
    sessions = os.path.join(store, "session")
    for project in folders.listing(sessions):
        owner = os.path.join(project.path, session + ".json")
        if os.path.isfile(owner):
            return owner
    return os.path.join(sessions, "global", session + ".json")  # gone: none to read


def _is_database(name: str) -> bool:
    """`opencode.db`, a channel's `opencode-<channel>.db`, early 2.x's `opencode2.db`."""
    return name.startswith("opencode") and name.endswith(".db")


def parse(path: Path, location: Location, diagnostics: Diagnostics) -> list[Session]:
    if path.suffix == ".db":
        return parse_database(path, diagnostics)
    if path.parent.parent.name == "message":  # read with its session (`companion_of`)
        return []
    return _parse_json_session(path, diagnostics)


def parse_database(
    path: Path, diagnostics: Diagnostics, app: str = NAME
) -> list[Session]:
    """The sessions of one database; `app` names a fork that keeps the same tables (Kilo)."""
    connection = databases.open_or_say(path, app, diagnostics, login=LOGIN)
    if connection is None:
        return []
    try:
        tables = [
            table
            for table in ("session", _opencode_v2.SESSION_TABLE)
            if "id" in databases.table_columns(connection, table)
        ]
        if not tables:
            diagnostics.problem(
                f"{app}: {path} has no session table; not an OpenCode database we know"
            )
            return []
        messages = databases.table_columns(connection, "message")
        # the messages a read will not read (a renamed `message.data`): said here too
        said = _lacking_words(
            app, path, *_message_tables(connection, messages), messages
        )
        if said is not None:
            diagnostics.problem(said)
        rows: dict[str, dict[str, object]] = {}
        for table in tables:  # a 2.x row wins over the 1.x row it was copied from
            for row in _session_rows(connection, path, table, diagnostics, app):
                session_id = as_str(row.get("id"))
                if session_id is None:  # a row with no id: nothing can name it
                    diagnostics.skip(f"{path}#{table}", 0, "bad value")
                    continue
                rows[session_id] = row
        untitled = [
            (session_id, row)
            for session_id, row in rows.items()
            if row.get("table") == _opencode_v2.SESSION_TABLE and not row.get("title")
        ]
        # the first prompts each title below may take, read in one pass for them all
        asked = {
            table: [
                session_id
                for session_id, row in rows.items()
                if row.get("table") == table and _wants_prompt(row.get("title"))
            ]
            for table in ("session", _opencode_v2.SESSION_TABLE)
        }
        v2_rows = _opencode_v2.has_row_data(connection)
        v2_prompts = (
            _opencode_v2.first_prompts(connection, asked[_opencode_v2.SESSION_TABLE])
            if v2_rows and asked[_opencode_v2.SESSION_TABLE]
            else {}
        )
        stored = (
            _stored_first_prompts(connection, asked["session"])
            if asked["session"]
            else {}
        )
        for session_id, row in untitled:
            prompt = v2_prompts.get(session_id)
            row["title"] = as_typed(prompt) if prompt else prompt
        for session_id, row in rows.items():
            title = row.get("title")
            if row.get("table") == "session" and (
                _is_placeholder(title) or title == ""
            ):
                text = stored.get(session_id)
                typed = one_line(as_typed(text), limit=None) if text else None
                row["title"] = typed or title
            elif isinstance(title, str) and '"' in title:  # `run --title ""`'s, maybe
                prompt = (
                    stored.get(session_id)
                    if row.get("table") == "session"
                    else v2_prompts.get(session_id)
                )
                row["title"] = run_title(title, prompt)
        answered = _last_written(
            connection, [i for i, row in rows.items() if row.get("table") == "session"]
        )
        for session_id, stamp in _opencode_v2.last_written(connection, tables).items():
            if session_id in rows:  # a 2.x row as a 1.x message: the newest dates it
                answered[session_id] = max(stamp, answered.get(session_id, stamp))
        for session_id, stamp in answered.items():
            stamped = row_number(rows[session_id].get("time_updated"))
            if not isinstance(stamped, int | float) or stamp > stamped:
                rows[session_id]["time_updated"] = stamp
    except sqlite3.Error as error:
        diagnostics.problem(read_failed(app, path, error))
        return []
    finally:
        connection.close()

    sessions = []
    for session_id, row in rows.items():
        model = json_object(row.get("model"))
        version = as_str(row.get("version"))
        if version:
            diagnostics.versions[version] += 1
        extra: dict[str, JSONValue] = {"store": "sqlite"}
        provider = as_str(model.get("providerID"))
        if provider:
            extra["provider"] = provider
        if row.get("agent"):
            extra["agent"] = as_str(row.get("agent"))
        if isinstance(row.get("cost"), int | float) and row.get("cost"):
            extra["cost"] = json_copy(row["cost"])
        if row.get("time_archived"):
            extra["archived"] = True
        if fork := as_str(row.get("fork_session_id")):
            extra["forked_from_id"] = fork
        # Kilo Code 7 copies each older extension task into its database: version "v2",
        # the task's id as the slug (legacy-migration/sessions/lib/session.ts)
        slug = as_str(row.get("slug"))
        if version == "v2" and slug and slug != session_id:
            extra["migrated_from"] = slug
        parent = as_str(row.get("parent_id"))
        variant = as_str(model.get("variant"))
        sessions.append(
            Session(
                app=app,
                id=session_id,
                path=f"{path}#session/{session_id}",
                cwd=as_str(row.get("directory")),
                title=one_line(row.get("title"), limit=None),
                created=_row_time(row.get("time_created")),
                updated=_row_time(row.get("time_updated")),
                model=as_str(model.get("id")),
                effort=variant if variant != "default" else None,
                cli_version=version,
                parent_id=parent,
                agent_type=as_str(row.get("agent")) if parent else None,
                precedence=10,
                extra=extra,
            )
        )
    return sessions


def usage_marks(path: Path) -> dict[str, str]:
    """Per session of the database at `path`, what its usage is read from (its history
    rows: how many, the newest, a checksum of their data), for a warm `usage` to key its
    sums on: a message added with an earlier time (a clock stepped back, an import) moves
    none of its session's times, nor does an older message saved again in place with its
    counts (OpenCode writes an answer's row again as its stream finishes, and its times
    may stay). One pass over each history table; {} where the database cannot be read
    (its sums are then kept on its sessions' rows alone)."""
    found: dict[str, str] = {}
    try:
        connection = databases.open_sqlite(path, login=LOGIN)
    except (OSError, sqlite3.Error):
        return found
    try:
        for history in ("message", "session_message"):
            for session_id, mark in databases.row_marks(
                connection, history, hashed=("data",)
            ).items():
                found[session_id] = f"{found.get(session_id, '')}{history[0]}{mark}"
    except sqlite3.Error:
        return {}
    finally:
        connection.close()
    return found


def _last_written(
    connection: sqlite3.Connection, session_ids: list[str]
) -> dict[str, int | float]:
    """When each session's newest message row was last written. The Kilo CLI (7.7) stamps
    a session's row when its last answer starts and the answer's own row when it ends, so
    the session's `time_updated` is early by that answer's length; OpenCode stamps both
    at the end. One seek per session through OpenCode's index on (session_id,
    time_created); where a database has no such index, none (a scan per session)."""
    columns = databases.table_columns(connection, "message")
    if not session_ids or not {"session_id", "time_created", "time_updated"} <= columns:
        return {}
    if not databases.indexed(connection, "message", "session_id", "time_created"):
        return {}
    wanted = set(session_ids)
    query = (
        "SELECT s.id, (SELECT m.time_updated FROM message m WHERE m.session_id = s.id"
        " ORDER BY m.time_created DESC LIMIT 1) FROM session s"
    )
    return {
        session_id: stamp
        for session_id, stamp in connection.execute(query)
        if session_id in wanted and isinstance(stamp, int | float)
    }


# a session's tables of 1.x rows, each with its index on `session_id` (session.sql.ts)
_STAMPED = ("message", "part")


def last_written(session: Session) -> float | None:
    """When a 1.x row of `session` or of its sub-agents (whose answers its read shows
    inline) was last written (epoch seconds), from the `time_updated` of their `message`
    and `part` rows: OpenCode writes them through Drizzle, whose `$onUpdate` on that
    column (storage/schema.sql.ts `Timestamps`) stamps it at every insert and at every
    upsert, a streamed part's included (session/projectors.ts: `onConflictDoUpdate`,
    whose SET Drizzle's `buildUpdateSet` fills with it); a streamed answer's deltas
    themselves are never written (`updatePartDelta` only tells the bus). None for a
    session kept as JSON files or with 2.x rows (`session_message`, whose writes were not
    read), where a table lacks the column or an index on `session_id`, or where the
    database cannot be read. The live view's first read takes it for this session's last
    write (the database's is any session's)."""
    if not session.path or "#session/" not in session.path:
        return None
    try:
        connection = databases.open_sqlite(
            session.path.split("#session/")[0], login=LOGIN
        )
    except (OSError, sqlite3.Error):
        return None
    try:
        return _family_written(connection, session.id)
    except sqlite3.Error:
        return None
    finally:
        connection.close()


def _family_written(connection: sqlite3.Connection, session_id: str) -> float | None:
    for table in _STAMPED:
        if not {"session_id", "time_updated"} <= databases.table_columns(
            connection, table
        ) or not databases.indexed(connection, table, "session_id"):
            return None
    if "parent_id" not in databases.table_columns(connection, "session"):
        return None
    family = (
        "WITH RECURSIVE family(id) AS (SELECT ? UNION"
        " SELECT s.id FROM session s JOIN family f ON s.parent_id = f.id)"
    )
    if "session_id" in databases.table_columns(connection, "session_message"):
        row = connection.execute(
            f"{family} SELECT 1 FROM family f"
            " WHERE EXISTS (SELECT 1 FROM session_message m WHERE m.session_id = f.id)",
            (session_id,),
        ).fetchone()
        if row is not None:
            return None
    stamps = " UNION ALL ".join(
        f"SELECT max(t.time_updated) FROM family f JOIN {table} t"
        " ON t.session_id = f.id"
        for table in _STAMPED
    )
    times = [
        value
        for (value,) in connection.execute(f"{family} {stamps}", (session_id,))
        if isinstance(value, int | float) and not isinstance(value, bool)
    ]
    return max(times) / 1000 if times else None  # epoch milliseconds


def _wants_prompt(title: object) -> bool:
    """Whether a session titled `title` may be titled by its first prompt in
    `parse_database`: none yet, a placeholder, or a `run --title ""`'s."""
    return (
        not title or _is_placeholder(title) or (isinstance(title, str) and '"' in title)
    )


def _is_placeholder(title: object) -> bool:
    """The title a session gets before one is generated (session/index.ts
    `createDefaultTitle`): `kilo run` 7.7 asks for no title and keeps it, and a title
    request that failed leaves it too. `kilo run`'s header shows the first prompt instead
    (its session lists show the placeholder): a time is no title, so sessdex does too."""
    return isinstance(title, str) and bool(_PLACEHOLDER_TITLE.fullmatch(title))


def as_typed(prompt: str) -> str:
    """A first prompt as the user typed it to `kilo run`/`opencode run`: `run` joins its
    arguments with spaces, wrapping each one that holds a space in quotes; those quotes go
    (their words joined as the shell passed them). A prompt `run` could not have written
    so (a quote of the user's own) stays as it is."""
    if '"' not in prompt:
        return prompt
    words = []
    at = 0
    while True:
        word = _RUN_WORD.match(prompt, at)
        if word is None:
            return prompt
        quoted = word.group(1)
        if quoted is None:
            words.append(word.group())
        elif " " in quoted:
            words.append(quoted.replace('\\"', '"'))
        else:  # run quotes only an argument holding a space
            return prompt
        at = word.end()
        if at == len(prompt):
            return " ".join(words)
        if prompt[at] != " ":
            return prompt
        at += 1


def run_title(title: str, prompt: str | None) -> str:
    """The title shown for a session titled `title` whose first prompt, as stored, is
    `prompt`. `kilo run --title ""` (and `opencode run`'s) titles a session with the first
    50 characters of the prompt as `run` stored it, its quotes around an argument holding a
    space included, and "..." after a longer one: that title is shown as the user typed
    the prompt (`as_typed`), cut as `run` cut it. Any other title stays as it is."""
    if prompt is None or title != prompt[:_RUN_TITLE] + (
        "..." if len(prompt) > _RUN_TITLE else ""
    ):
        return title
    typed = as_typed(prompt)
    return typed[:_RUN_TITLE] + "..." if len(typed) > _RUN_TITLE else typed


def _stored_first_prompts(
    connection: sqlite3.Connection, session_ids: Sequence[str]
) -> dict[str, str | None]:
    """The text of each session's first user message as stored, from the 1.x tables,
    by the session (None: its prompt was elided for its size; no entry: no prompt). The
    first four messages of them all in one pass, then the first eight parts of the users'
    among them in another (`databases.first_rows`), not a look-up a session: each
    scanned a view without an index."""
    columns = databases.table_columns(connection, "message")
    parts_known = {"message_id", "data"} <= databases.table_columns(connection, "part")
    if not parts_known or not {"id", "session_id", "data"} <= columns:
        return {}
    order = "time_created, id" if "time_created" in columns else "id"
    messages = databases.first_rows(
        connection, "message", "session_id", session_ids, order, 4
    )
    users: dict[object, list[object]] = {}
    for session_id, rows in messages.items():
        for message_id, rowid, listed in rows:
            value = databases.bounded_value(
                connection,
                "message",
                "data",
                rowid,
                key=("id", message_id),
                listed=listed,
            )
            if json_object(value).get("role") == "user":
                users.setdefault(session_id, []).append(message_id)
    asked = [message_id for ids in users.values() for message_id in ids]
    parts = databases.first_rows(connection, "part", "message_id", asked, "id", 8)
    prompts: dict[str, str | None] = {}
    for session_id, message_ids in users.items():
        for message_id in message_ids:
            for part_id, rowid, listed in parts.get(message_id, ()):
                part = json_object(
                    databases.bounded_value(
                        connection,
                        "part",
                        "data",
                        rowid,
                        key=("id", part_id),
                        listed=listed,
                    )
                )
                text = as_str(part.get("text"))
                if part.get("type") == "text" and not part.get("synthetic") and text:
                    break
            else:
                continue
            # a prompt elided for its size names no session well: the placeholder stays
            if isinstance(session_id, str):
                prompts[session_id] = None if files.elided(text) else text
            break
    return prompts


def _message_tables(
    connection: sqlite3.Connection, messages: set[str]
) -> tuple[list[str], bool]:
    """(the 1.x message and part columns a read needs that the database lacks, whether
    it holds 2.x `session_message` rows to read instead); `messages`: `message`'s
    columns."""
    parts = databases.table_columns(connection, "part")
    lacking = [
        f"message.{c}" for c in ("id", "session_id", "data") if c not in messages
    ]
    lacking += [f"part.{c}" for c in ("message_id", "data") if c not in parts]
    rows = {"session_id", "type", "seq", "data"} <= (
        databases.table_columns(connection, "session_message")
    )
    return lacking, rows


def _lacking_words(
    app: str, db: str | Path, lacking: list[str], rows: bool, messages: set[str]
) -> str | None:
    """What a read of the database's messages says it cannot read (`_message_tables`),
    and `list -v` and `doctor` with it; None where it reads them."""
    if lacking and not rows:
        return f"{app}: {db} lacks the message tables we know"
    if lacking and messages:  # 1.x tables of a shape we do not know
        return f"{app}: {db} lacks {', '.join(lacking)}: the messages kept there are not read"
    return None


def _session_rows(
    connection: sqlite3.Connection,
    path: Path,
    table: str,
    diagnostics: Diagnostics,
    app: str = NAME,
) -> Iterator[dict[str, object]]:
    """The rows of a session table (1.x `session` or 2.x `session_v2`), as column -> value."""
    available = databases.table_columns(connection, table)
    # a title lacking lists every session "(untitled)": said, as a folder lacking is
    needed = ("directory", "title", "time_created", "time_updated")
    missing = [c for c in needed if c not in available]
    if missing:
        diagnostics.problem(f"{app}: {path} {table} table lacks {', '.join(missing)}")
    wanted = (*_SESSION_COLUMNS, *_opencode_v2.EXTRA_COLUMNS)
    columns = [c for c in wanted if c in available]
    query = f"SELECT {', '.join(databases.quote_identifier(c) for c in columns)} FROM {databases.quote_identifier(table)} ORDER BY id"
    for values in connection.execute(query):
        yield dict(zip(columns, values, strict=True)) | {"table": table}


def _parse_json_session(path: Path, diagnostics: Diagnostics) -> list[Session]:
    # past READ_LINE_CAP (a pasted prompt kept as the title) its long strings are elided
    skipped = diagnostics.skipped_total
    value = files.read_json_compacted(path, diagnostics=diagnostics)
    if not isinstance(value, dict):
        if not path.exists():
            diagnostics.skip(str(path), 1, "vanished")
        elif value is not None or diagnostics.skipped_total == skipped:
            # JSON but no object, or no file to read (a folder): the read counted none
            diagnostics.skip(str(path), 1, "not JSON")
        return []
    session_id = as_str(value.get("id"))
    if session_id is None or files.elided(session_id):
        diagnostics.skip(str(path), 1, "bad value")
        return []
    times = value.get("time") if isinstance(value.get("time"), dict) else {}
    assert isinstance(times, dict)
    project_store = _project_store(path)
    # the id names the session's folders only where it is one plain name (`..` leads out)
    plain = folders.plain_name(session_id)
    messages = (project_store or path.parents[2]) / "message" / session_id
    model, provider = _last_model(messages, diagnostics) if plain else (None, None)
    version = as_str(value.get("version"))
    if version:
        diagnostics.versions[version] += 1
    extra: dict[str, JSONValue] = {"store": "json"}
    if provider:
        extra["provider"] = provider
    cwd = as_str(value.get("directory"))
    parts = path.parents[2] / "part"
    if project_store is not None:
        extra["store"] = "json-project"
        cwd = cwd or (_message_cwd(messages, diagnostics) if plain else None)
        parts = project_store / "part" / session_id
    title = value.get("title")
    if _is_placeholder(title) and plain:
        title = _json_first_prompt(messages, parts, diagnostics) or title
    return [
        Session(
            app=NAME,
            id=session_id,
            path=str(path),
            cwd=cwd,
            title=one_line(title, limit=None),
            created=ms_time(times.get("created")),
            updated=ms_time(times.get("updated")),
            model=model,
            cli_version=version,
            bytes=path.stat().st_size if path.exists() else None,
            parent_id=as_str(value.get("parentID")),
            # the upgrade copied a git project's sessions into `storage/`: that copy wins
            precedence=-1 if project_store is not None else 0,
            extra=extra,
        )
    ]


def _json_first_prompt(
    messages: Path, parts: Path, diagnostics: Diagnostics
) -> str | None:
    """What the session's first user message was typed with, from the JSON files: its
    message files in `messages`, each message's parts in `parts/<message id>/`."""
    for entry in folders.entries(messages)[:4]:
        info = files.read_json_file(entry.path, limit=1024 * 1024)
        if not isinstance(info, dict) or info.get("role") != "user":
            continue
        message_id = as_str(info.get("id")) or entry.name.removesuffix(".json")
        if not folders.plain_name(message_id):
            continue
        for part_entry in folders.entries(parts / message_id)[:8]:
            part = files.read_json_file(
                part_entry.path, limit=1024 * 1024, diagnostics=diagnostics
            )
            part = part if isinstance(part, dict) else {}
            text = as_str(part.get("text"))
            if part.get("type") == "text" and not part.get("synthetic") and text:
                return one_line(as_typed(text), limit=None)
    return None


def _message_entries(storage: Path, session_id: str) -> list[os.DirEntry[str]]:
    """The entries of a session's folder of message files of the JSON tree; none where
    its id is no plain name (an id names a folder only so: `..` leads out)."""
    if not folders.plain_name(session_id):
        return []
    return folders.entries(storage / "message" / session_id)


def _project_store(path: Path) -> Path | None:
    """The `project/<folder>/storage/session` store a session file of early 0.x lies in
    (`…/session/info/<ses>.json`), else None (the later `storage/session/<project>/`)."""
    parents = path.parents
    if len(parents) < 6 or parents[0].name != "info" or parents[4].name != "project":
        return None
    return parents[1] if parents[2].name == "storage" else None


def _message_cwd(folder: Path, diagnostics: Diagnostics) -> str | None:
    """Where an early 0.x session ran: its session file has no `directory`, but each
    assistant message has `path.cwd`; the first few messages are enough."""
    for entry in folders.entries(folder)[:_CWD_MESSAGES]:
        info = files.read_json_file(
            entry.path, limit=1024 * 1024, diagnostics=diagnostics
        )
        where = info.get("path") if isinstance(info, dict) else None
        if isinstance(where, dict) and (cwd := as_str(where.get("cwd"))):
            return cwd
    return None


def _last_model(
    folder: Path, diagnostics: Diagnostics
) -> tuple[str | None, str | None]:
    """The model of a session's newest message file (message ids sort by time)."""
    for entry in reversed(folders.entries(folder)):
        info = files.read_json_file(
            entry.path, limit=1024 * 1024, diagnostics=diagnostics
        )
        if isinstance(info, dict):
            model = info.get("model") if isinstance(info.get("model"), dict) else {}
            assert isinstance(model, dict)
            return (
                as_str(info.get("modelID")) or as_str(model.get("modelID")),
                as_str(info.get("providerID")) or as_str(model.get("providerID")),
            )
    return None, None


# --- reading ------------------------------------------------------------------------


def read(
    session: Session, diagnostics: Diagnostics, *, full: bool = False, offset: int = 0
) -> Iterator[Event]:
    if not session.path:
        return
    reader = _Reader(session.id, diagnostics, full, app=session.app)
    if "#session/" in session.path:
        yield from reader.database(session.path.split("#session/")[0])
    else:
        yield from reader.json_tree(Path(session.path))


def read_last(
    session: Session,
    diagnostics: Diagnostics,
    rows: int,
    *,
    full: bool = False,
    unsure: set[int] | None = None,
    settle: bool = False,
    settles: list[bool] | None = None,
) -> Iterator[Event]:
    """`read` of only a session's last `rows` messages (see base.py), of a database or
    of the JSON files (every message file read, the last ones' parts alone). A
    compaction among them whose note counts messages before them, or whose request is
    before them, has its `seq` put in `unsure`: more rows settle it, those from the
    compaction before them where `settle` (`fold_reach`; of 2.x rows, the compaction
    row before them: `_opencode_v2._fold_reach`); `settles` is given False where
    `settle` reads no more."""
    if not session.path:
        raise WholeRead("no file")
    reader = _Reader(session.id, diagnostics, full, app=session.app)
    if unsure is not None:
        reader.unsure = unsure
    if "#session/" in session.path:
        yield from reader.database(
            session.path.split("#session/")[0], last=rows, settle=settle
        )
    else:
        yield from reader.json_last(Path(session.path), rows, settle)
    if settles is not None:
        settles.append(reader.settles)


def spawns_all(session: Session, children: Sequence[str]) -> bool:
    """Whether a 1.x part row of the lead's own names each of `children` as the session
    its `task` call ran (base.py): `read` gives each child's events at that call. False
    where that is not found at once: JSON files, 2.x rows, a table that cannot be read."""
    wanted = set(children)
    if not session.path or "#session/" not in session.path or session.id in wanted:
        return False
    try:
        connection = databases.open_sqlite(
            session.path.split("#session/")[0], login=LOGIN
        )
    except (OSError, sqlite3.Error):
        return False
    # one pass over the lead's rows, however many children (a pass each read them
    # again and again), a row at a time from the last found: a cursor reads a row
    # ahead, past the last spawn; instr() first: json_extract parses only the rows
    # that may name one
    spawn = (
        "SELECT rowid, json_extract(data, '$.state.metadata.sessionId'), "
        "json_extract(data, '$.state.metadata.sessionID') FROM part "
        "WHERE session_id = ? AND rowid > ? AND instr(data, '\"sessionI') > 0 "
        "AND json_valid(data) ORDER BY rowid LIMIT 1"
    )
    after = -(2**63)
    try:
        while wanted:
            row = connection.execute(spawn, (session.id, after)).fetchone()
            if row is None:
                return False
            after = row[0]
            wanted.difference_update(row[1:])
        return True
    except sqlite3.Error:
        return False
    finally:
        connection.close()


class _Reader:
    """Turns OpenCode messages and parts into events, child sessions included."""

    def __init__(
        self,
        session_id: str,
        diagnostics: Diagnostics,
        full: bool = False,
        app: str = NAME,  # Kilo 7 keeps OpenCode's tables: its warnings name Kilo
    ) -> None:
        self.session_id = session_id
        self.app = app
        self.diagnostics = diagnostics
        self.full = full  # huge values whole, not with their long strings elided
        self.db = ""
        self.emit = Emitter(session_id)
        self.event = self.emit.by
        self.message_time = "time_created"
        self.legacy = True  # the 1.x message and part tables are there
        self.rows = False  # the 2.x session_message table is there
        self.parts_by_session = False  # JSON parts under part/<ses>/<msg>/ (early 0.x)
        self.views: set[str] = set()  # the tables that are views: no rowid finds a row
        # child sessions whose events are shown: a spawn that continues one (2.x
        # `subagent` with a `sessionID`, 1.x `task` with a `session_id`) does not repeat it
        self.inlined: set[str] = set()
        self.copied = False  # the message being read is a fork's copy, billed elsewhere
        self.folds = _opencode_folds.Folds()  # what each compaction summarized
        # each agent's compaction whose request was read, its summary not yet: (time
        # of the request, its `auto`), one event with the summary that follows
        self.held: dict[str | None, tuple[datetime | None, JSONValue]] = {}
        # a read of the last messages: the `seq` of each event the messages before them
        # may change (`read_last`'s `unsure`)
        self.unsure: set[int] = set()
        self.settles = True  # `settle` places a fold (each of OpenCode's stores does)

    # -- SQLite --

    def value(
        self,
        connection: sqlite3.Connection,
        table: str,
        rowid: object,
        key: object,
        listed: tuple[object, object] | None = None,
    ) -> dict[str, object]:
        """A row's `data` object, never held whole when huge (`databases.bounded_value`);
        a table that is a view (no rowid) gives it with the row (`listed`, the columns
        `self.listed` names), else it is found by its `id`, `key`."""
        if not isinstance(rowid, int) and not isinstance(key, str):
            return {}
        return json_object(
            databases.bounded_value(
                connection, table, "data", rowid if isinstance(rowid, int) else None,
                full=self.full, diagnostics=self.diagnostics,
                where=f"{self.db}#{table}/{rowid if isinstance(rowid, int) else key}",
                key=("id", key), listed=listed if table in self.views else None,
            )
        )  # fmt: skip

    def listed(self, table: str, alias: str = "") -> str:
        """The two columns a query listing `table`'s rows selects for `value`'s `listed`:
        a view's `data` (`databases.view_values`), read in that one pass, where a look-up
        of each row by its id would scan a view without an index once a row; NULLs for a
        table, whose values blob IO reads."""
        if table in self.views:
            return databases.view_values(f"{alias}data", self.full)
        return "NULL, NULL"

    def database(
        self, db: str, last: int | None = None, settle: bool = False
    ) -> Iterator[Event]:
        self.db = db
        connection = databases.open_or_say(db, self.app, self.diagnostics, login=LOGIN)
        if connection is None:
            return
        try:
            messages = databases.table_columns(connection, "message")
            lacking, self.rows = _message_tables(connection, messages)
            self.legacy = not lacking
            said = _lacking_words(self.app, db, lacking, self.rows, messages)
            if said is not None:
                self.diagnostics.problem(said)
            if not self.legacy and not self.rows:
                return
            self.message_time = "time_created" if "time_created" in messages else "NULL"
            self.views = {
                table
                for table in ("message", "part", "session_message")
                if databases.is_view(connection, table)
            }
            if last is not None:
                yield from self.last_messages(connection, last, settle)
            else:
                yield from self.database_session(connection, self.session_id, None, 0)
        except sqlite3.Error as error:
            self.diagnostics.problem(read_failed(self.app, db, error))
        finally:
            connection.close()

    def database_session(
        self,
        connection: sqlite3.Connection,
        session_id: str,
        agent: str | None,
        depth: int,
    ) -> Iterator[Event]:
        children: Children = None
        if depth < _MAX_DEPTH:

            def children(child: str, child_agent: str) -> Iterator[Event]:
                return self.database_session(connection, child, child_agent, depth + 1)

        merged = self.rows and _opencode_v2.has_rows(connection, session_id)
        # (id, created, rowid): 1.x messages alone stream, never held (245,000 of
        # them held 75 MB); merged with 2.x rows, held to be merged by time
        messages: Iterable[Sequence[object]] = ()
        rowid_of: dict[object, object] = {}
        if self.legacy:
            messages = connection.execute(
                f"SELECT id, {self.message_time} AS created, rowid FROM message WHERE session_id = ? ORDER BY created, id",
                (session_id,),
            )
            if merged:
                messages = list(messages)
                rowid_of = {message_id: rowid for message_id, _, rowid in messages}
        infos = self.message_values(connection, session_id)
        session_parts = self.session_parts(connection, session_id)

        def legacy_message(
            message_id: str, created: int | None, rowid: object = None
        ) -> Iterator[Event]:
            rowid = rowid_of.get(message_id) if rowid is None else rowid
            if session_parts is None:
                parts: Iterator[Sequence[object]] = connection.execute(
                    "SELECT rowid, id FROM part WHERE message_id = ? ORDER BY id",
                    (message_id,),
                )
            else:
                parts = session_parts.of(message_id)
            yield from self.message(
                self.info(connection, infos, rowid, message_id),
                created,
                (
                    self.value(
                        connection, "part", p[0], p[1],
                        listed=(p[2], p[3]) if len(p) > 2 else None,
                    )
                    for p in parts
                ),
                agent,
                children,
                f"{self.db}#message/{message_id if rowid is None else rowid}",
                message_id,
            )  # fmt: skip

        if merged:
            roles = self.message_values(connection, session_id)
            rows = [
                (
                    created,
                    message_id,
                    as_str(self.info(connection, roles, rowid, message_id).get("role"))
                    or "",
                )
                for message_id, created, rowid in messages
                if isinstance(message_id, str) and isinstance(created, int)
            ]
            yield from _opencode_v2.history(
                self, connection, session_id, agent, children, rows, legacy_message
            )
            yield from self.compaction(agent)
            return
        copies, source = _copies(connection, session_id) if depth == 0 else ({}, None)
        noted = False
        for message_id, created, rowid in messages:
            if not isinstance(message_id, str):
                continue
            when = created if isinstance(created, int) else None
            copied = message_id in copies
            if source is not None and not noted and copied:
                noted = True
                yield self._fork_note(source, copies[message_id], agent)
            # a fork's copy of a response (and of what its sub-agents did, read inline
            # here) is billed in the session it was copied from
            outer, self.copied = self.copied, self.copied or copied
            try:
                yield from legacy_message(message_id, when, rowid)
            finally:
                self.copied = outer
        yield from self.compaction(agent)

    def info(
        self,
        connection: sqlite3.Connection,
        values: _Grouped | None,
        rowid: object,
        message_id: str,
    ) -> dict[str, object]:
        """A message's `data`: from `values` (`message_values`) where `message` is a
        view, else through its rowid."""
        listed = next(values.of(message_id), None) if values is not None else None
        return self.value(
            connection,
            "message",
            rowid,
            message_id,
            (listed[0], listed[1]) if listed is not None else None,
        )

    def message_values(
        self, connection: sqlite3.Connection, session_id: str
    ) -> _Grouped | None:
        """A view `message`'s values, in the order `database_session` lists its rows;
        None for a table."""
        if "message" not in self.views:
            return None
        return _Grouped(
            connection.execute(
                f"SELECT id, {self.listed('message')} FROM message WHERE session_id = ? "
                f"ORDER BY {self.message_time}, id",
                (session_id,),
            )
        )

    def session_parts(
        self, connection: sqlite3.Connection, session_id: str
    ) -> _Grouped | None:
        """A view `part`'s rows for every message of the session, in one pass in the
        order `database_session` reads the messages (each message's by id, as its own
        query would list them); None for a table, whose parts each message's query
        seeks through its index."""
        if "part" not in self.views:
            return None
        created = "m.time_created" if self.message_time == "time_created" else "NULL"
        return _Grouped(
            connection.execute(
                f"SELECT m.id, p.rowid, p.id, {self.listed('part', 'p.')}, "
                "p.message_id IS NULL FROM message AS m "
                "LEFT JOIN part AS p ON p.message_id = m.id WHERE m.session_id = ? "
                f"ORDER BY {created}, m.id, p.id",
                (session_id,),
            ),
            joined=True,
        )

    def last_messages(
        self, connection: sqlite3.Connection, last: int, settle: bool = False
    ) -> Iterator[Event]:
        """The lead's events of the session's last `last` 1.x messages (where `settle`,
        as many more as `fold_reach` says), in the order `database_session` reads them
        (raises WholeRead where that is not exact)."""
        if self.rows and _opencode_v2.has_rows(connection, self.session_id):
            if (
                self.legacy
                and connection.execute(
                    "SELECT 1 FROM message WHERE session_id = ? LIMIT 1",
                    (self.session_id,),
                ).fetchone()
            ):
                raise WholeRead("2.x rows merged with 1.x messages")
            yield from _opencode_v2.last_rows(
                self, connection, self.session_id, last, settle
            )
            return
        if not self.legacy:
            raise WholeRead("no 1.x messages")
        newest = connection.execute(
            f"SELECT id, {self.message_time} AS created, rowid, {self.listed('message')} FROM message WHERE session_id = ? ORDER BY created DESC, id DESC LIMIT ?",
            (self.session_id, last + 1),
        ).fetchall()
        if len(newest) <= last:
            raise WholeRead("no more messages than asked for")
        if _copies(connection, self.session_id)[0]:
            raise WholeRead("a fork: its copies are known from its first messages")
        first = newest[last - 1]
        reach = self.fold_reach(connection, (first[1], first[0]), last) if settle else 0
        if reach > last:  # from the compaction before them: read once, not widened x4
            newest = connection.execute(
                f"SELECT id, {self.message_time} AS created, rowid, {self.listed('message')} FROM message WHERE session_id = ? ORDER BY created DESC, id DESC LIMIT ?",
                (self.session_id, reach),
            ).fetchall()
            last = len(newest)
        self.folds = _opencode_folds.Folds(whole=False)
        for message_id, created, rowid, *listed in reversed(newest[:last]):
            if not isinstance(message_id, str):
                continue
            parts = connection.execute(
                f"SELECT rowid, id, {self.listed('part')} FROM part WHERE message_id = ? ORDER BY id",
                (message_id,),
            )
            yield from self.message(
                self.value(
                    connection, "message", rowid, message_id, (listed[0], listed[1])
                ),
                created if isinstance(created, int) else None,
                (
                    self.value(connection, "part", p[0], p[1], (p[2], p[3]))
                    for p in parts
                ),
                None,
                None,  # no sub-agent is read
                f"{self.db}#message/{rowid}",
                message_id,
            )
        yield from self.compaction(None)

    def fold_reach(
        self, connection: sqlite3.Connection, first: tuple[object, object], last: int
    ) -> int:
        """How many of the session's last messages to read for the compactions among
        its last `last` (the first of them `first`, its time and id) to know where
        their folds start: from the kept tail of the compaction before them. Raises
        WholeRead where none is before them (they fold from the session's first
        message) or where that is more than half of the session: its whole read costs
        at most twice as much, where each wider window would read the last ones again."""
        time, session = self.message_time, self.session_id
        summary = f"SELECT {time}, id FROM message WHERE session_id = ? AND {_json_at('data', '$.summary')} = 1 AND ({time}, id) {{}} (?, ?) ORDER BY {time} {{}}, id {{}} LIMIT 1"
        try:
            ending = connection.execute(
                summary.format(">=", "", ""), (session, *first)
            ).fetchone()
            if ending is None:
                if not self._requested_since(connection, first):
                    return last  # no compaction among them: x4, as for more events
                ending = first  # a request whose summary never came (stopped)
            total = connection.execute(
                "SELECT count(*) FROM message WHERE session_id = ?", (session,)
            ).fetchone()[0]
            if 2 * last > total:
                raise WholeRead("most of the session")
            before = connection.execute(
                summary.format("<", "DESC", "DESC"), (session, *ending)
            ).fetchone()
            if before is None:
                raise WholeRead("its compaction folds from the session's start")
            start = self._kept_from(connection, before)
            reach = connection.execute(
                f"SELECT count(*) FROM message WHERE session_id = ? AND ({time}, id) >= (?, ?)",
                (session, *start),
            ).fetchone()[0]
        except sqlite3.Error:  # widen
            return last
        if 2 * reach > total:
            raise WholeRead("most of the session")
        return max(last, int(reach))

    def _requested_since(
        self, connection: sqlite3.Connection, first: tuple[object, object]
    ) -> bool:
        """Whether a message from `first` (its time and id) on asks for a compaction."""
        time = "NULL" if self.message_time == "NULL" else f"m.{self.message_time}"
        return (
            connection.execute(
                f"SELECT 1 FROM part p JOIN message m ON m.id = p.message_id WHERE m.session_id = ? AND ({time}, m.id) >= (?, ?) AND {_json_at('p.data', '$.type')} = 'compaction' LIMIT 1",
                (self.session_id, *first),
            ).fetchone()
            is not None
        )

    def _kept_from(
        self, connection: sqlite3.Connection, summary: tuple[object, object]
    ) -> tuple[object, object]:
        """The time and id of the first message the compaction whose summary is
        `summary` kept (its request's `tail_start_id`), else of its request."""
        time, session = self.message_time, self.session_id
        request = connection.execute(
            f"SELECT {time}, id FROM message WHERE session_id = ? AND {_json_at('data', '$.role')} = 'user' AND ({time}, id) < (?, ?) ORDER BY {time} DESC, id DESC LIMIT 1",
            (session, *summary),
        ).fetchone()
        if request is None:
            return summary
        kept = connection.execute(
            f"SELECT m.{time}, m.id FROM part p JOIN message m ON m.id = {_json_at('p.data', '$.tail_start_id')} AND m.session_id = ? WHERE p.message_id = ? AND {_json_at('p.data', '$.type')} = 'compaction'",
            (session, request[1]),
        ).fetchone()
        return (kept[0], kept[1]) if kept is not None else (request[0], request[1])

    def _fork_note(self, source: str, copied_at: int, agent: str | None) -> Event:
        """The note opening a fork's first copied message: the session it came from."""
        return self.event(
            "meta",
            ms_time(copied_at),
            agent,
            text=copied_note(source),
            extra={"forked_from": source},
        )

    # -- JSON tree --

    def json_tree(self, path: Path) -> Iterator[Event]:
        project_store = _project_store(path)
        if project_store is not None:  # early 0.x: parts under part/<ses>/<msg>/
            self.parts_by_session = True
            yield from self.json_session(project_store, self.session_id, None, 0)
            return
        storage = path.parents[2] if len(path.parents) > 2 else path.parent
        yield from self.json_session(storage, self.session_id, None, 0, path)

    def json_session(
        self,
        storage: Path,
        session_id: str,
        agent: str | None,
        depth: int,
        path: Path | None = None,  # the session's own file, for a fork's copies
    ) -> Iterator[Event]:
        infos = self.json_infos(storage, session_id)
        children: Children = None
        if depth < _MAX_DEPTH:

            def children(child: str, child_agent: str) -> Iterator[Event]:
                return self.json_session(storage, child, child_agent, depth + 1)

        copies, source = (
            _json_copies(path, [info for info, _ in infos]) if path else ({}, None)
        )
        noted = False
        for info, where in infos:
            message_id = as_str(info.get("id")) or ""
            copied = message_id in copies
            if source is not None and not noted and copied:
                noted = True
                yield self._fork_note(source, copies[message_id], agent)
            parts = self.json_parts(storage, session_id, message_id)
            # a fork's copy is billed in the session it was copied from, as in SQLite
            outer, self.copied = self.copied, self.copied or copied
            try:
                yield from self.message(
                    info, _created(info), iter(parts), agent, children, where
                )
            finally:
                self.copied = outer
        yield from self.compaction(agent)

    def json_infos(
        self,
        storage: Path,
        session_id: str,
        entries: Sequence[os.DirEntry[str]] | None = None,
    ) -> list[tuple[dict[str, object], str]]:
        """Each message file's object and path, in the order OpenCode made them
        (`entries`: its message folder's, where listed already)."""
        infos: list[tuple[dict[str, object], str]] = []
        if entries is None:
            entries = _message_entries(storage, session_id)
        for entry in entries:
            info = files.read_json_compacted(entry.path, diagnostics=self.diagnostics)
            if not isinstance(info, dict):
                if info is not None:  # JSON, but no object (None was counted)
                    self.diagnostics.skip(entry.path, 1, "not JSON")
                continue
            infos.append((info, entry.path))
        infos.sort(key=lambda i: (_created(i[0]) or 0, as_str(i[0].get("id")) or ""))
        return infos

    def json_parts(
        self, storage: Path, session_id: str, message_id: str
    ) -> list[dict[str, object]]:
        """One message's part files' objects, in the order their names give."""
        parts = []
        part_folder = storage / "part"
        if self.parts_by_session:
            part_folder /= session_id
        plain = folders.plain_name(message_id)
        for entry in folders.entries(part_folder / message_id) if plain else ():
            part = files.read_json_compacted(
                entry.path, full=self.full, diagnostics=self.diagnostics
            )
            if not isinstance(part, dict):
                if part is not None:  # JSON, but no object (None was counted)
                    self.diagnostics.skip(entry.path, 1, "not JSON")
                continue
            parts.append(part)
        return parts

    def json_last(self, path: Path, last: int, settle: bool = False) -> Iterator[Event]:
        """The lead's events of the session's last `last` messages of the JSON files:
        every message file is read, for their order (small: a message's text and output
        are in its parts), the parts of the last ones alone (where `settle`, as many more
        as `json_reach` says; raises WholeRead where that is not exact)."""
        storage = _project_store(path)
        self.parts_by_session = storage is not None
        if storage is None:
            storage = path.parents[2] if len(path.parents) > 2 else path.parent
        entries = _message_entries(storage, self.session_id)
        if len(entries) <= last:  # counted by name: the whole read reads each once
            raise WholeRead("no more messages than asked for")
        infos = self.json_infos(storage, self.session_id, entries)
        if len(infos) <= last:
            raise WholeRead("no more messages than asked for")
        if _json_copies(path, [info for info, _ in infos])[0]:
            raise WholeRead("a fork: its copies are known from its first messages")
        read: dict[int, list[dict[str, object]]] = {}  # parts `json_reach` read
        if settle:  # (every message file read: a compaction that folds from the
            # session's start reads all their parts here, not the files again in `read`)
            last = self.json_reach(storage, [info for info, _ in infos], last, read)
        self.folds = _opencode_folds.Folds(whole=last >= len(infos))
        for n in range(len(infos) - last, len(infos)):
            info, where = infos[n]
            message_id = as_str(info.get("id")) or ""
            parts = read.pop(n, None)
            if parts is None:
                parts = self.json_parts(storage, self.session_id, message_id)
            yield from self.message(
                info, _created(info), iter(parts), None, None, where
            )
        yield from self.compaction(None)

    def json_reach(
        self,
        storage: Path,
        infos: list[dict[str, object]],
        last: int,
        read: dict[int, list[dict[str, object]]],
    ) -> int:
        """`fold_reach` of the JSON files, from every message file's object (`infos`,
        read already): the parts of the compaction request before the last ones' alone
        are read twice, for the message it kept. Every message where none is before
        them, or where that is more than half of them (each message file is read
        already: their parts are read here, not every file again by `read`). The parts
        of the last ones it reads are kept in `read`, by message, for the read after."""
        summaries = [n for n, info in enumerate(infos) if info.get("summary") is True]
        ending = next((n for n in summaries if n >= len(infos) - last), None)
        if ending is None:
            if not self._json_requested(storage, infos, len(infos) - last, read):
                return last  # no compaction among them: x4, as for more events
            ending = len(infos) - last  # a request whose summary never came (stopped)
        if 2 * last > len(infos):
            return len(infos)
        before = [n for n in summaries if n < ending]
        if not before:  # it folds from the session's first message
            return len(infos)
        start = before[-1]
        request = next(
            (n for n in range(start - 1, -1, -1) if infos[n].get("role") == "user"),
            None,
        )
        if request is not None:
            start = request
            kept = self._json_kept(storage, as_str(infos[request].get("id")))
            ids = [as_str(info.get("id")) for info in infos[:request]]
            start = ids.index(kept) if kept in ids else start
        reach = len(infos) - start
        return len(infos) if 2 * reach > len(infos) else max(last, reach)

    def _json_requested(
        self,
        storage: Path,
        infos: list[dict[str, object]],
        first: int,
        read: dict[int, list[dict[str, object]]],
    ) -> bool:
        """Whether a message from `first` on asks for a compaction: the parts of its
        prompts, newest first, each kept in `read` (the read after reads them anyway)."""
        for n in range(len(infos) - 1, first - 1, -1):
            if infos[n].get("role") != "user":
                continue
            message_id = as_str(infos[n].get("id")) or ""
            read[n] = self.json_parts(storage, self.session_id, message_id)
            if any(part.get("type") == "compaction" for part in read[n]):
                return True
        return False

    def _json_kept(self, storage: Path, request: str | None) -> str | None:
        """The `tail_start_id` of the compaction part of the message `request`
        (what is unreadable said by the read that follows, not here too)."""
        if not request:
            return None
        said, self.diagnostics = self.diagnostics, Diagnostics()
        try:
            parts = self.json_parts(storage, self.session_id, request)
        finally:
            self.diagnostics = said
        return next(
            (
                as_str(part.get("tail_start_id"))
                for part in parts
                if part.get("type") == "compaction"
            ),
            None,
        )

    # -- shared --

    def message(
        self,
        info: dict[str, object],
        created: object,
        parts: Iterator[dict[str, object]],
        agent: str | None,
        children: Children,
        where: str,  # the message's row or file, as --verbose names it
        message_id: str | None = None,  # a row's id, which its `data` does not hold
    ) -> Iterator[Event]:
        role = info.get("role")
        time = ms_time(created) or ms_time(_created(info))
        summary = bool(info.get("summary") is True)
        self.folds.message(agent, message_id or as_str(info.get("id")), summary)
        if not summary:  # a compaction whose request no summary followed
            yield from self.compaction(agent)
        said: list[tuple[datetime | None, str]] = []  # the summary's text
        for part in parts:
            if summary and type_tag(part.get("type")) == "text":
                said += _said(part, time)
            else:
                yield from self.part(part, role, time, agent, children)
        # the summary answers a request (a user message): one an answer held has none
        if summary or role != "user":
            yield from self.compaction(agent, said, time)
        if role != "assistant":
            return
        tokens = info.get("tokens")
        times = info.get("time") if isinstance(info.get("time"), dict) else {}
        assert isinstance(times, dict)
        done = ms_time(times.get("completed")) or time
        model = as_str(info.get("modelID"))
        if isinstance(tokens, dict) and not self.copied:
            _opencode_v2.say_odd(self.diagnostics, tokens, where)
            usage = _opencode_v2.usage_of(tokens, model)
            if usage is not None:
                billing = _opencode_v2.billing(info.get("providerID"), info.get("cost"))
                yield self.event("usage", done, agent, usage=usage, extra=billing)
        error = info.get("error")
        data = as_dict(error.get("data")) if isinstance(error, dict) else {}
        text = as_str(data.get("message")) or (
            as_str(error.get("name")) if isinstance(error, dict) else None
        )
        # the user stopping the turn is recorded as the answer's error: an interruption
        aborted = isinstance(error, dict) and error.get("name") == "MessageAbortedError"
        if aborted:
            yield self.event("meta", done, agent, text=text or "aborted by the user")
        elif isinstance(error, dict):
            yield self.event(
                "error",
                done,
                agent,
                text=text or "error",
                extra={"name": json_copy(error.get("name"))},
            )
        finish = as_str(info.get("finish"))
        ended = finish and finish not in ("tool-calls", "tool_calls", "unknown")
        if ended or aborted:
            extra: dict[str, JSONValue] = {"reason": finish or "aborted"}
            if aborted:
                extra["interrupted"] = True
            yield self.event("turn_end", done, agent, extra=extra)

    def part(
        self,
        part: dict[str, object],
        role: object,
        time: datetime | None,
        agent: str | None,
        children: Children,
    ) -> Iterator[Event]:
        kind = type_tag(part.get("type"))
        times = part.get("time") if isinstance(part.get("time"), dict) else {}
        assert isinstance(times, dict)
        # a retry part is dated by `time.created`, the others by `time.start`
        when = ms_time(times.get("start")) or ms_time(times.get("created")) or time
        if kind == "text":
            text = shown_text(part.get("text"), keep_empty=False)
            if not text:
                return
            if role == "user" and not part.get("synthetic"):
                self.folds.prompt(agent, text)
            if part.get("ignored") is True:  # kept out of the model's context
                yield self.event(
                    "meta", when, agent, text=text, extra={"ignored": True}
                )
            elif part.get("synthetic"):
                extra: dict[str, JSONValue] = {"synthetic": True}
                task = _TASK_STATE.match(text)
                if task and task.group(2) != "running":  # a background task ended
                    extra["subagent_status"] = (
                        "failed" if task.group(2) in ("error", "failed") else "done"
                    )
                    extra["child_id"] = task.group(1)
                yield self.event("meta", when, agent, text=text, extra=extra)
            else:
                yield self.event(
                    "user" if role == "user" else "assistant", when, agent, text=text
                )
        elif kind == "reasoning":
            text = shown_text(part.get("text"), keep_empty=False)
            if text:
                yield self.event("thinking", when, agent, text=text)
        elif kind == "tool":
            yield from self.tool(part, when, agent, children)
        elif kind == "file":
            yield self.event(
                "user" if role == "user" else "assistant",
                when,
                agent,
                text=_opencode_v2.file_label(part),
            )
        elif kind == "agent":
            agent_name = as_str(part.get("name"))
            yield self.event(
                "meta",
                when,
                agent,
                text=f"agent: {agent_name}",
                extra={"agent": agent_name},
            )
        elif kind == "subtask":
            text = as_str(part.get("description")) or as_str(part.get("prompt"))
            yield self.event(
                "meta",
                when,
                agent,
                text=text,
                extra={"subtask": json_copy(part.get("agent"))},
            )
        elif kind == "retry":
            error = part.get("error")
            data = (
                error.get("data")
                if isinstance(error, dict) and isinstance(error.get("data"), dict)
                else {}
            )
            assert isinstance(data, dict)
            yield self.event(
                "error",
                when,
                agent,
                text=as_str(data.get("message")) or "retry",
                # OpenCode tries again; `attempt` counts from 1
                extra={
                    "retry": True,
                    "retrying": True,
                    "attempt": json_copy(part.get("attempt")),
                },
            )
        elif kind == "compaction":
            # what it folded, from where: `show` draws no field of a compaction event
            sure = self.folds.sure(agent)
            note = self.folds.note(agent, part)
            event = self.event(
                "meta", when, agent, text=note, extra={"compaction": True}
            )
            if not sure:  # what it folded may start before the messages read
                self.unsure.add(event.seq)
            yield event
            yield from self.compaction(agent)  # an earlier one no summary followed
            self.held[agent] = (when, json_copy(part.get("auto")))
        elif kind in _IGNORED_PARTS:
            return
        else:
            self.diagnostics.unknown_type(f"part:{kind}")

    def compaction(
        self,
        agent: str | None,
        said: list[tuple[datetime | None, str]] | None = None,
        time: datetime | None = None,
    ) -> Iterator[Event]:
        """One compaction: the request held for `agent` (its part), with the text of
        the summary answer that follows it (`said`, where one came); a summary with no
        request read (before 1.x, or a read of the last messages) is one alone."""
        held = self.held.pop(agent, None)
        if held is None and not said:
            return
        text = "\n\n".join(text for _, text in said or ()) or None
        when = held[0] if held else None
        when = when or next((at for at, _ in said or () if at), None) or time
        extra: dict[str, JSONValue] = {"auto": held[1]} if held else {}
        event = self.event("compaction", when, agent, text=text, extra=extra)
        if held is None and not self.folds.whole:  # its request may be before them
            self.unsure.add(event.seq)
        yield event

    def tool(
        self,
        part: dict[str, object],
        when: datetime | None,
        agent: str | None,
        children: Children,
    ) -> Iterator[Event]:
        name = as_str(part.get("tool"))
        call_id = as_str(part.get("callID"))
        state = part.get("state") if isinstance(part.get("state"), dict) else {}
        assert isinstance(state, dict)
        args = state.get("input")
        yield self.event(
            "tool_call",
            when,
            agent,
            tool=name,
            call_id=call_id,
            extra={"input": json_copy(args)},
        )
        metadata = (
            state.get("metadata") if isinstance(state.get("metadata"), dict) else {}
        )
        assert isinstance(metadata, dict)
        # 1.x `task` says `sessionId`; 2.x `subagent` says `sessionID`
        child = as_str(metadata.get("sessionId")) or as_str(metadata.get("sessionID"))
        if name in _opencode_v2.SPAWN_TOOLS and isinstance(args, dict):
            yield self.event(
                "subagent",
                when,
                agent,
                call_id=call_id,
                text=as_str(args.get("description")),
                extra={
                    "child_id": child,
                    "agent_type": json_copy(
                        args.get("subagent_type") or args.get("agent")
                    ),
                },
            )
            if (
                child
                and child != self.session_id
                and child not in self.inlined
                and children is not None
            ):
                self.inlined.add(child)
                shown = False
                for event in children(child, child):
                    shown = True
                    yield event
                if not shown and state.get("status") == "completed":
                    # it came back from the child it names, and that session is gone
                    # (removed on its own, or its parent imported without it); a task
                    # that failed may have failed before its child wrote a word
                    self.diagnostics.child_missing(self.app, child)
        status = state.get("status")
        if status in ("pending", "running", "streaming"):  # no result yet
            return
        times = state.get("time") if isinstance(state.get("time"), dict) else {}
        assert isinstance(times, dict)
        is_error = status == "error"
        output = state.get("error") if is_error else state.get("output")
        # a tool cut short by an abort or a retry keeps what it had printed
        partial = (
            metadata.get("output") if metadata.get("interrupted") is True else None
        )
        if is_error and isinstance(partial, str):
            output = f"{partial}\n[{output}]" if isinstance(output, str) else partial
        # a task sent to the background (`background: true`, or one moved there while
        # it ran) is answered at launch; the part reporting its end closes it
        launched = (
            name in _opencode_v2.SPAWN_TOOLS
            and not is_error
            and (
                metadata.get("background") is True
                or (
                    isinstance(output, str)
                    and (task := _TASK_STATE.match(output)) is not None
                    and task.group(2) == "running"
                )
            )
        )
        if name in _opencode_v2.SPAWN_TOOLS and isinstance(output, str):
            output = _task_reply(output)
        text = (
            shown_text(output, keep_empty=False)
            if isinstance(output, str)
            else (orjson.dumps(output).decode() if output else None)
        )
        # what the tool gave the model beside its text (`read` of an image or a PDF,
        # an MCP screenshot): named as a prompt's file is, never its bytes
        attached = [
            _opencode_v2.file_label(file)
            for file in as_list(state.get("attachments"))[:_ATTACHMENTS_NAMED]
        ]
        if attached:
            text = "\n".join([text, *attached] if text else attached)
        yield self.event(
            "tool_result",
            ms_time(times.get("end")) or when,
            agent,
            tool=name,
            call_id=call_id,
            text=text,
            is_error=is_error,
            extra={"launched": True}
            if launched
            else {"partial": True}
            if is_error and isinstance(partial, str)
            else {},
        )


class _Grouped:
    """Rows in the order a session's messages are read, each led by its message's id:
    `of` gives a message's rows, passing over those of the messages before it that were
    not asked for (one pass over a view, the rows it holds read one at a time)."""

    def __init__(self, rows: Iterator[Sequence[object]], joined: bool = False) -> None:
        self.rows = rows
        self.ahead = next(rows, None)
        # the rows of a LEFT JOIN, whose last column says a message had none: one row
        # of NULLs stands for its message in the order
        self.joined = joined

    def of(self, message_id: str) -> Iterator[Sequence[object]]:
        while self.ahead is not None and self.ahead[0] != message_id:
            self.ahead = next(self.rows, None)
        while self.ahead is not None and self.ahead[0] == message_id:
            row, self.ahead = self.ahead, next(self.rows, None)
            if not (self.joined and row[-1]):
                yield row[1:]


def _said(
    part: dict[str, object], time: datetime | None
) -> list[tuple[datetime | None, str]]:
    """A text part's (time, text), none where it is empty."""
    text = shown_text(part.get("text"), keep_empty=False)
    times = part.get("time") if isinstance(part.get("time"), dict) else {}
    assert isinstance(times, dict)
    return [(ms_time(times.get("start")) or time, text)] if text else []


def _task_reply(output: str) -> str:
    """A sub-agent's answer inside the tags `task` gives the model (`<task id=… state=…>
    <task_result>…</task_result></task>`): the words alone, with the state where it is
    not `completed`; any other output as it is."""
    found = _TASK_REPLY.fullmatch(output)
    if found is None:
        return output
    state, reply = found.groups()
    return reply if state == "completed" else f"{reply}\n[{state}]"


def _json_at(column: str, path: str) -> str:
    """SQL for `path` of the JSON in `column`, NULL where that is no JSON: one row the
    reader skips made `json_extract` fail the whole query."""
    return f"CASE WHEN json_valid({column}) THEN json_extract({column}, '{path}') END"


def _copies(
    connection: sqlite3.Connection, session_id: str
) -> tuple[dict[str, int], str | None]:
    """A 1.x fork's copied messages (id -> when the original was written) and the
    session it copied them from; ({}, None) for any other session.

    `/fork` writes every message of its source into the new session under a new id, its
    `info` as it was (`time.created`, `modelID`, `tokens`): the messages of a fork are
    dated before the session itself was created. Such a message is a copy when another
    session of the database wrote the same response (same time, model and counts) after
    that session was created: it is billed there. The source is the one that wrote the
    last response copied (a fork of a fork names the fork it copied)."""
    if "time_created" not in databases.table_columns(connection, "session"):
        return {}, None
    try:
        row = connection.execute(
            "SELECT time_created FROM session WHERE id = ?", (session_id,)
        ).fetchone()
        born = row[0] if row else None
        if not isinstance(born, int):
            return {}, None
        early = connection.execute(
            f"SELECT id, {_field('data', '$.time.created')} AS created, "
            f"{_field('data', '$.role')}, {_field('data', '$.modelID')}, "
            f"{_field('data', '$.tokens')} FROM message "
            "WHERE session_id = ? AND created < ? ORDER BY created, id LIMIT ?",
            (session_id, born, _COPIES_CAP),
        ).fetchall()
        calls = {
            _response(created, model, tokens): message_id
            for message_id, created, role, model, tokens in early
            if role == "assistant" and isinstance(created, int)
        }
        if not calls:
            return {}, None
        times = (min(key[0] for key in calls), max(key[0] for key in calls))
        # each earlier session's messages of those times, found by the row's own time
        # through the (session_id, time_created) index, before any JSON is parsed
        indexed = "time_created" in databases.table_columns(connection, "message")
        narrow = "AND m.time_created BETWEEN ? AND ? " if indexed else ""
        billed = connection.execute(
            f"SELECT m.session_id, {_field('m.data', '$.time.created')} AS created, "
            f"{_field('m.data', '$.modelID')}, {_field('m.data', '$.tokens')} "
            "FROM session AS s CROSS JOIN message AS m ON m.session_id = s.id "
            f"{narrow}WHERE s.id != ? AND s.time_created <= ? "
            "AND created BETWEEN ? AND ? AND created >= s.time_created "
            f"AND {_field('m.data', '$.role')} = 'assistant'",
            (*(times if indexed else ()), session_id, times[1], *times),
        ).fetchall()
    except sqlite3.Error:  # a build of SQLite without JSON functions: billed here
        return {}, None
    where: dict[tuple[int, str, bytes], str] = {}
    for other, created, model, tokens in billed:
        key = _response(created, model, tokens)
        if key in calls:
            where[key] = as_str(other) or ""
    if not where:
        return {}, None
    billed_here = set(calls.values()) - {calls[key] for key in where}
    copies = {
        message_id: created  # the prompts and tool results between them too
        for message_id, created, *_ in early
        if isinstance(created, int) and message_id not in billed_here
    }
    return copies, where[max(where)] or None


def _json_copies(
    path: Path, infos: list[dict[str, object]]
) -> tuple[dict[str, int], str | None]:
    """`_copies` for the JSON storage: `fork` wrote the new session's file, then each
    message of its source under a new id, `info` as it was. The sessions looked at are
    those of the fork's project folder created before the last copied response, newest
    first, until each copied response is found or `_JSON_COPIES_CAP` files were read."""
    session = as_dict(files.read_json_file(path, limit=1024 * 1024))
    born = _created(session)
    if born is None or len(path.parents) < 3:
        return {}, None
    early = [
        (message_id, created, info)
        for info in infos
        if (message_id := as_str(info.get("id")))
        and (created := _created(info)) is not None
        and created < born
    ]
    calls = {
        _response(created, info.get("modelID"), info.get("tokens")): message_id
        for message_id, created, info in early
        if info.get("role") == "assistant"
    }
    if not calls:
        return {}, None
    low, high = min(key[0] for key in calls), max(key[0] for key in calls)
    candidates: list[tuple[int, str]] = []
    for entry in folders.entries(path.parent)[:_JSON_COPIES_CAP]:
        other = as_dict(files.read_json_file(entry.path, limit=1024 * 1024))
        other_id, created = as_str(other.get("id")), _created(other)
        if (
            other_id
            and other_id != session.get("id")
            and created is not None
            and folders.plain_name(other_id)
        ):
            candidates.append((created, other_id))
    where: dict[tuple[int, str, bytes], str] = {}
    examined = len(candidates)
    for created, other_id in sorted(candidates, reverse=True):
        if examined >= _JSON_COPIES_CAP or len(where) == len(calls):
            break
        if created > high:  # made after the last copied response: not its writer
            continue
        for entry in folders.entries(path.parents[2] / "message" / other_id):
            examined += 1
            if examined > _JSON_COPIES_CAP or len(where) == len(calls):
                break
            info = files.read_json_file(entry.path, limit=1024 * 1024)
            when = _created(info) if isinstance(info, dict) else None
            if (
                not isinstance(info, dict)
                or when is None
                or info.get("role") != "assistant"
            ):
                continue
            if created <= when and low <= when <= high:
                key = _response(when, info.get("modelID"), info.get("tokens"))
                if key in calls:
                    where.setdefault(key, other_id)
    if not where:
        return {}, None
    billed_here = set(calls.values()) - {calls[key] for key in where}
    copies = {
        message_id: created  # the prompts and tool results between them too
        for message_id, created, _ in early
        if message_id not in billed_here
    }
    return copies, where[max(where)]


def _field(column: str, path: str) -> str:
    """SQL for `path` of the JSON in `column`, NULL where the cell is no JSON: one torn
    row made json_extract fail the whole query ("malformed JSON")."""
    return f"CASE WHEN json_valid({column}) THEN json_extract({column}, '{path}') END"


def _response(created: object, model: object, tokens: object) -> tuple[int, str, bytes]:
    """A response as a copy keeps it: when it was written, its model, its counts."""
    counts = tokens
    if isinstance(tokens, str):
        try:
            counts = orjson.loads(tokens)
        except orjson.JSONDecodeError:
            counts = tokens
    return (
        created if isinstance(created, int) else -1,
        as_str(model) or "",
        orjson.dumps(counts, option=orjson.OPT_SORT_KEYS, default=str),
    )


def _created(info: dict[str, object]) -> int | None:
    times = info.get("time")
    value = times.get("created") if isinstance(times, dict) else None
    return value if isinstance(value, int) else None


def resume(
    session: Session,
    *,
    keep_permissions: bool = False,
    program: str = "opencode",
    install_hint: str = INSTALL_HINT,
    install_note: str = INSTALL_NOTE,
    read_only_agents: frozenset[str] = READ_ONLY_AGENTS,
) -> ResumePlan | None:
    """`opencode --session <id>` in the session's folder, with `--model provider/model` when known.

    OpenCode sets approvals per tool in its config, not per session, so nothing is withheld.
    The agent of the session's last prompt (its row's `agent`: `--agent plan` at start,
    then each prompt's, as 1.18.33's `Session.setAgentModel` writes it) is passed as
    `--agent` only when it is one of the built-in `read_only_agents`: a session run
    that way must not reopen in the default agent, which edits files. Any other agent is
    named in a note and not passed: a custom agent's permissions are the user's config,
    unknown here, and may allow more than the default. Without `--agent`, 1.18.33's TUI
    goes back to the agent of the session's last prompt where that agent still exists.
    `program` names a fork with the same command line (Kilo's `kilo`).
    """
    argv = [program, "--session", session.id]
    provider = session.extra.get("provider")
    if session.model and isinstance(provider, str):
        argv += ["--model", f"{provider}/{session.model}"]
    notes: list[str] = []
    agent = session.extra.get("agent")
    if isinstance(agent, str) and agent and not session.parent_id:
        if agent in read_only_agents:
            argv += ["--agent", agent]
        elif agent != _DEFAULT_AGENT:
            notes.append(
                f"agent {agent!r} not passed: its permissions come from your config, "
                f"which sessdex does not read; {program} itself goes back to the agent "
                "of the session's last prompt where that agent still exists"
            )
    if session.effort:  # only `run` takes --variant (checked against opencode 1.18.33)
        notes.append(
            f"reasoning variant {session.effort!r} not passed: the {program} TUI takes "
            "no variant flag; pick it there"
        )
    if session.parent_id:
        notes.append(
            "a sub-agent session: it reopens on its own, not inside its parent"
        )
    if session.extra.get("store") == "json-project":
        notes.append(
            f"kept only in the per-project store of an early 0.x {program}: the upgrade "
            "copied git projects' sessions only, so a current build may not find it"
        )
    return ResumePlan(
        argv=tuple(argv),
        cwd=session.cwd or ".",
        program=program,
        install_hint=install_hint,
        install_note=install_note,
        notes=tuple(notes),
    )


def process_session(args: Sequence[str]) -> Opened | None:
    """What a running `opencode` has open, read back from the words `resume` writes:
    `--session <id>` (`-s`) that session; with `--fork`, a new one. `--continue`, whose
    scope its --help does not say, says nothing sure: None."""
    return opened_by_flags(args, RESUME_FLAGS, _is_session_id)


def _is_session_id(word: str) -> bool:
    return _SESSION_ID.fullmatch(word) is not None
