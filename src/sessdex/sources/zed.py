"""Zed's Agent Panel: the editor's own agent keeps its threads in one SQLite database.

Zed writes `threads/threads.db` in its data folder (`paths::data_dir()` in
`crates/paths/src/paths.rs`): `$FLATPAK_XDG_DATA_HOME/zed` inside its Flatpak, else
`$XDG_DATA_HOME/zed` (default `~/.local/share/zed`) on Linux and FreeBSD,
`~/Library/Application Support/Zed` on macOS, `%LOCALAPPDATA%\\Zed` on Windows; the
`--user-data-dir <dir>` flag moves it to `<dir>` (a flag, which sessdex cannot see: doctor
says so), and `ZED_STATELESS` keeps threads in memory only. The Flatpak's folder as seen
from outside (`~/.var/app/dev.zed.Zed/data/zed`) is looked in too. The database is in WAL
mode while Zed runs: it is read through `databases.open_sqlite` (a snapshot in sessdex's
cache), never opened in place.

The `threads` table (`crates/agent/src/db.rs`): `id` (the ACP session id, a UUID),
`summary` (the title), `updated_at` and `created_at` (RFC 3339), `data_type` ("zstd" or
"json") and `data` (the thread as serde JSON), and, added by later migrations,
`parent_id` (a sub-agent's lead thread), `folder_paths` (the project's folders, sorted,
one a line) with `folder_paths_order` (the order they were opened in, comma-separated
indices). Listing reads only these columns; a row without `folder_paths` (written before
that column) has its folder from the thread's `initial_project_snapshot`, which takes
decompressing the row (rows up to `PEEK_BYTES` stored; cached by the index with the rest
of the listing).

What a thread holds, and how it reads, is in `_zed_read.py`. Zed keeps no time per
message: events carry none but the thread's last write (`updated_at`), given to its usage
and last turn end as an estimate. Usage: each prompt's turn bills the usage of its last
request (`request_token_usage`, which Zed overwrites per request), with the thread's model,
before the turn's end (`extra["scope"] = "turn"`); what Zed's `cumulative_token_usage` (a
running sum of every request, kept by the first agent and by newer releases of the current
one) holds beyond those turns (their earlier requests) is one more `usage` event, summed
(`"session"`), so that the thread totals Zed's sum. A thread without the sum (or whose sum
is below its turns', a first-agent thread continued before Zed kept one) has the turns
alone: a turn of several requests counts less than it spent, a floor. Sub-agent threads
(`spawn_agent`, `parent_id`) are read inside their lead, where the call's result names
them, with their own id as `agent_id`.

Zed has no command line to reopen a thread: `resume` gives none, and says to open the
folder in Zed and pick the thread in the Agent Panel's history. Zed's older "text
threads" (`conversations/*.zed.json`) and the threads of external agents run through the
Agent Panel (Claude Code, Gemini CLI over ACP: those apps keep their own sessions) are not
read here.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from .. import databases, folders
from ..diagnostics import Diagnostics, read_failed
from ..model import Event, JSONValue, ResumePlan, Session
from ._values import as_str, db_time, one_line
from ._zed_read import Reader, folder_of, load
from .base import Home, Location

NAME = "zed"
TITLE = "Zed Agent Panel"
SCAN_NOTED = True  # locate reads only the environment; scan only probes
CHECKED_WITH = (
    "Zed's source, no real capture (Low/Medium confidence): threads.db of "
    "zed-industries/zed crates/agent/src/db.rs @0642ec7e (DbThread 0.3.0, columns "
    "parent_id, folder_paths, folder_paths_order, created_at) and legacy_thread.rs "
    "@4410b970 (SerializedThread 0.2.0, 0.1.0, unversioned); synthetic DB"
)
ENV_VARS = ("FLATPAK_XDG_DATA_HOME", "XDG_DATA_HOME", "ZED_STATELESS")

# Zed's data folder below the home, where no variable moves it: macOS's, Windows'
# (`dirs::data_local_dir()`, `%LOCALAPPDATA%`), and the Flatpak's seen from outside
MACOS_DATA = ("Library", "Application Support", "Zed")
WINDOWS_DATA = ("AppData", "Local", "Zed")
FLATPAK_DATA = (".var", "app", "dev.zed.Zed", "data", "zed")
THREADS = ("threads", "threads.db")

# a row without `folder_paths` is decompressed for its folder when listed only up to this
# size in the database: a bigger one (pasted images) is listed without a folder, which its
# read still shows
PEEK_BYTES = 8 * 1024 * 1024
_CHAIN_STEPS = 64  # leads followed up from a thread to find a loop back to it
_COLUMNS = ("id", "summary", "updated_at", "created_at", "data_type", "parent_id",
            "folder_paths", "folder_paths_order")  # fmt: skip


def locate(home: Home) -> Location:
    flatpak = home.env_dir("FLATPAK_XDG_DATA_HOME")
    xdg = home.env_dir("XDG_DATA_HOME")
    override: str | None
    if flatpak is not None:
        root, override = flatpak / "zed", f"FLATPAK_XDG_DATA_HOME={flatpak}"
    else:
        root = home.xdg("data") / "zed"
        override = f"XDG_DATA_HOME={xdg}" if xdg else None
    notes: tuple[str, ...] = ()
    if home.environ.get("ZED_STATELESS"):
        notes = (
            "ZED_STATELESS is set: a Zed started with it keeps its threads in memory "
            "and writes none to threads.db",
        )
    also = tuple(
        home.path.joinpath(*parts) for parts in (MACOS_DATA, WINDOWS_DATA, FLATPAK_DATA)
    )
    return Location(root, override=override, also=also, notes=notes)


def _data_folders(location: Location) -> list[Path]:
    seen: list[Path] = []
    for folder in (location.root, *location.also):
        if folder not in seen:
            seen.append(folder)
    return seen


def scan(location: Location) -> Iterator[Path]:
    if not location.exists:
        return
    for folder in _data_folders(location):
        database = folder.joinpath(*THREADS)
        if folders.is_file(database):
            yield database
        else:
            folders.dir_at(database.parent)  # `threads -> gone` is named


def doctor_notes(location: Location) -> list[str]:
    """Where Zed's data folder is there but holds no threads database."""
    there = [f for f in _data_folders(location) if folders.is_dir(f)]
    if there and not any(folders.is_file(f.joinpath(*THREADS)) for f in there):
        return [
            f"{there[0]} holds no threads/threads.db: the Agent Panel has saved no "
            "thread yet, or Zed runs with --user-data-dir <dir>, which keeps them in "
            "<dir>/threads/threads.db (sessdex reads that only for a <dir> named zed, "
            "with XDG_DATA_HOME set to the folder above it)"
        ]
    return []


def parse(path: Path, location: Location, diagnostics: Diagnostics) -> list[Session]:
    connection = databases.open_or_say(path, NAME, diagnostics)
    if connection is None:
        return []
    try:
        available = databases.known_columns(
            connection,
            "threads",
            {"id"},
            diagnostics,
            (NAME, path),
            "Zed threads database",
        )
        if available is None:
            return []
        columns = [c for c in _COLUMNS if c in available]
        rows = [
            dict(zip(("rowid", *columns), values, strict=True))
            for values in connection.execute(
                f"SELECT rowid, {', '.join(columns)} FROM threads ORDER BY rowid"
            )
        ]
        leads = _leads(rows)
        return [
            session
            for row in rows
            if (session := _session(connection, path, row, leads, diagnostics))
        ]
    except sqlite3.Error as error:
        diagnostics.problem(read_failed(NAME, path, error))
        return []
    finally:
        connection.close()


def _session(
    connection: sqlite3.Connection,
    path: Path,
    row: dict[str, object],
    leads: dict[str, str | None],
    diagnostics: Diagnostics,
) -> Session | None:
    thread_id = as_str(row.get("id"))
    if thread_id is None:
        diagnostics.skip(f"{path}#threads", 0, "bad value")  # a row with no text id
        return None
    cwd, opened = _folders(row.get("folder_paths"), row.get("folder_paths_order"))
    branch = None
    extra: dict[str, JSONValue] = {"store": "sqlite"}
    if as_str(row.get("data_type")):
        extra["data_type"] = row["data_type"]  # type: ignore[assignment]
    if len(opened) > 1:
        extra["folders"] = list(opened)
    if cwd is None and _stored_size(connection, row.get("rowid")) <= PEEK_BYTES:
        # a row from before `folder_paths`: the thread's first worktree (its damage is
        # counted when it is read, not here)
        thread = load(connection, thread_id, Diagnostics(), str(path))
        if thread is not None:
            cwd, branch = folder_of(thread)
    parent = as_str(row.get("parent_id"))
    return Session(
        app=NAME,
        id=thread_id,
        path=f"{path}#threads/{thread_id}",
        cwd=cwd,
        branch=branch,
        title=one_line(row.get("summary"), limit=None),
        created=db_time(row.get("created_at")),
        updated=db_time(row.get("updated_at")),
        # a sub-agent whose lead is gone is listed, and counted, on its own
        parent_id=leads.get(thread_id),
        agent_type="subagent" if parent else None,
        extra=extra,
    )


def _leads(rows: list[dict[str, object]]) -> dict[str, str | None]:
    """Each thread's lead where that row is there; None for a lead that is gone, and for
    the least id of a loop of leads (damaged rows: each a sub-agent of its own sub-agent,
    no thread of that loop would be listed), which leads the others: a read of each
    would hold the other's events, counted twice."""
    parents = {
        thread_id: as_str(row.get("parent_id"))
        for row in rows
        if (thread_id := as_str(row.get("id"))) is not None
    }
    leads: dict[str, str | None] = {}
    for thread_id, parent in parents.items():
        seen = {thread_id}
        above = parent
        # a few steps up: Zed nests sub-agents a few deep, and a long chain costs time
        while above is not None and above in parents and above not in seen:
            if len(seen) > _CHAIN_STEPS:
                break
            seen.add(above)
            above = parents[above]
        looped = above == thread_id and thread_id == min(seen)  # its loop's least
        leads[thread_id] = parent if parent in parents and not looped else None
    return leads


def _stored_size(connection: sqlite3.Connection, rowid: object) -> int:
    """The bytes a row's `data` takes in the database (compressed), found without
    reading them; 0 where SQLite's blob IO cannot open it."""
    if not isinstance(rowid, int):
        return 0
    try:
        with databases.open_blob(connection, "threads", "data", rowid) as blob:
            return len(blob)
    except sqlite3.Error:
        return 0


def _folders(paths: object, order: object) -> tuple[str | None, tuple[str, ...]]:
    """(the folder opened first, every folder in the order opened) from `folder_paths`
    and `folder_paths_order`, read as Zed's `PathList::deserialize` does: an order that
    does not fit the paths is the sorted order."""
    if not isinstance(paths, str) or not paths:
        return None, ()
    listed = paths.split("\n")
    indices = [int(i) for i in str(order or "").split(",") if i.strip().isdigit()]
    if listed != sorted(listed, key=_components) or sorted(indices) != list(
        range(len(listed))
    ):
        listed, indices = sorted(listed, key=_components), list(range(len(listed)))
    opened = tuple(path for _, path in sorted(zip(indices, listed, strict=True)))
    return (opened[0] or None) if opened else None, opened


def _components(path: str) -> tuple[bool, list[str]]:
    """A path as Rust's `Path` orders it (PathList keeps its paths in that order): by
    its components, so `/x/app/sub` comes before `/x/app.v2`, which a string does not."""
    return not path.startswith(("/", "\\")), [
        part for part in re.split(r"[/\\]", path) if part not in ("", ".")
    ]


def read(
    session: Session, diagnostics: Diagnostics, *, full: bool = False, offset: int = 0
) -> Iterator[Event]:
    if not session.path or "#threads/" not in session.path:
        return
    database, _, thread_id = session.path.rpartition("#threads/")
    connection = databases.open_or_say(database, NAME, diagnostics)
    if connection is None:
        return
    try:
        reader = Reader(
            connection,
            session.id,
            database,
            diagnostics,
            full=full,
            updated=session.updated,
        )
        yield from reader.thread(thread_id)
    except sqlite3.Error as error:
        diagnostics.problem(read_failed(NAME, database, error))
    finally:
        connection.close()


def resume(session: Session, *, keep_permissions: bool = False) -> ResumePlan | None:
    """None: Zed opens a thread only from its Agent Panel (see `resume_refusal`)."""
    return None


def resume_refusal(session: Session) -> str | None:
    """How to reopen a thread in Zed, which has no command for it."""
    title = one_line(session.title) if session.title else None
    which = f'"{title}"' if title else "it"
    if session.parent_id:
        return (
            "this is a sub-agent's thread; Zed shows it inside its lead thread's "
            f"spawn_agent call: reopen that thread ({session.app}:{session.parent_id})."
        )
    where = f"open {one_line(session.cwd)} in Zed, then" if session.cwd else "in Zed,"
    return (
        "Zed has no command to reopen an agent thread from the command line; "
        f"{where} pick {which} in the Agent Panel's thread history."
    )
