"""A warm `sessdex list --json` (or `--nl`), answered from the index alone.

Scripts and editor plugins run `sessdex list --json` all the time, almost always when
nothing has changed. The full command would import click, the model and every source just
to find that out. This path imports only the standard library and checks, in one read
transaction of the index:

1. every selected app has a noted scan (`freshness`): the environment its `locate` read is
   unchanged, and every folder its scan listed, every path it probed, looks the same;
2. every file the index holds for those apps has its recorded size, mtime, inode and WAL
   (a top-level listing skips files that hold only sub-agents, and their folders).

Then the index's ready-made records are the answer, byte for byte what the full command
prints. Anything else (an option this path does not handle, a changed file, a new folder,
no index yet) returns False, and the full command runs and refreshes the index.
"""

from __future__ import annotations

import marshal
import os
import sqlite3
import sys
from collections.abc import Mapping, Sequence

from . import freshness
from .indexfile import SCHEMA_VERSION, cache_folder, index_name
from .sources import BUILTIN


class _Request:
    """What `sessdex list` was asked for, when this path can answer it."""

    def __init__(self) -> None:
        self.as_json = False
        self.as_nl = False
        self.home: str | None = None
        self.apps: list[str] = []
        self.limit: int | None = None
        self.include_subagents = False


def _parse(args: Sequence[str]) -> _Request | None:
    """The request, or None for anything the full command should handle (or reject)."""
    request = _Request()
    position = 0
    while position < len(args):
        arg = args[position]
        name, equals, value = arg.partition("=")
        if name in ("--home", "--app", "--limit", "-n") and not equals:
            position += 1
            if position == len(args):
                return None
            value = args[position]
        elif equals and name not in ("--home", "--app", "--limit"):
            return None
        if arg == "--json":
            request.as_json = True
        elif arg == "--nl":
            request.as_nl = True
        elif arg == "--all":
            request.include_subagents = True
        elif name == "--home":
            if request.home is not None:
                return None
            request.home = value
        elif name == "--app":
            if value not in BUILTIN:
                return None  # the full command explains
            request.apps.append(value)
        elif name in ("--limit", "-n"):
            if not value.isdigit() or int(value) < 1 or request.limit is not None:
                return None
            request.limit = int(value)
        else:
            return None
        position += 1
    if request.as_json == request.as_nl:
        return None  # the table is for people: the full command draws it
    return request


def _home(request: _Request) -> tuple[str, Mapping[str, str]] | None:
    """(home folder, environment) as `Home.at`/`Home.current` would make them."""
    environ: Mapping[str, str] = os.environ if request.home is None else {}
    path = os.path.expanduser("~") if request.home is None else request.home
    # only a plain absolute path reads the same through pathlib: leave the rest to it
    if not os.path.isabs(path) or os.path.normpath(path) != path or path[:2] == "//":
        return None
    if request.home is not None and os.path.isfile(path):
        return None
    return path, environ


def answer(args: Sequence[str]) -> bool:
    """Print the listing for `sessdex list ARGS` if the index can answer it unchanged."""
    request = _parse(args)
    if request is None:
        return False
    home = _home(request)
    if home is None:
        return False
    path = os.path.join(cache_folder(), index_name(*home))
    if not os.path.isfile(path):
        return False
    try:
        found = _records(path, request, home[1])
    except sqlite3.Error:
        return False  # busy, being migrated, damaged: the full command copes
    if found is None:
        return False
    try:
        sys.stdout.buffer.write(found)
        sys.stdout.buffer.flush()
    except BrokenPipeError:
        sys.stderr.close()
    return True


def _records(path: str, request: _Request, environ: Mapping[str, str]) -> bytes | None:
    """What to print, or None when the index cannot vouch for it."""
    apps = sorted(set(request.apps or BUILTIN))
    marks = ",".join("?" * len(apps))
    db = sqlite3.connect(path, isolation_level=None, timeout=0.2)
    try:
        if db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
            return None
        db.execute("BEGIN")  # one snapshot for the checks and the records
        scans = db.execute(
            f"SELECT app, environ FROM scans WHERE app IN ({marks})", apps
        ).fetchall()
        if len(scans) != len(apps):
            return None  # an app not scanned yet, or one whose scan cannot be noted
        if not all(freshness.environ_holds(key, environ) for _, key in scans):
            return None
        nested = "" if request.include_subagents else " AND nested = 0"
        for noted, what, value, inode in db.execute(
            f"SELECT path, what, value, inode FROM scan_paths WHERE app IN ({marks})"
            + nested,
            apps,
        ):
            if not freshness.still_holds(noted, what, value, inode):
                return None
        if not _files_unchanged(db, apps, nested):
            return None
        key = _request_key(request, apps)
        (generation,) = db.execute("SELECT value FROM generation").fetchone()
        cached = db.execute(
            "SELECT body FROM listings WHERE request = ? AND generation = ?",
            (key, generation),
        ).fetchone()
        if cached is not None:
            return bytes(cached[0])
        # the same filter and order as `Index.rows`; `+app` keeps SQLite on the index
        # that yields rows in order (filtering 10,000 rows costs less than sorting them)
        sql = f"SELECT record FROM sessions WHERE +app IN ({marks})"
        if not request.include_subagents:
            sql += " AND parent_id IS NULL"
        sql += " ORDER BY updated DESC, app, id"
        args: list[object] = list(apps)
        if request.limit is not None:
            sql += " LIMIT ?"
            args.append(request.limit)
        body = _body([record for (record,) in db.execute(sql, args)], request)
        db.execute("COMMIT")
        _remember(db, key, generation, body)
        return body
    finally:
        db.close()


def _files_unchanged(db: sqlite3.Connection, apps: list[str], nested: str) -> bool:
    marks = ",".join("?" * len(apps))
    packed = db.execute(
        f"SELECT python, packed FROM signatures WHERE app IN ({marks})" + nested, apps
    ).fetchall()
    if len(packed) == len(apps) * (1 if nested else 2) and all(
        python == freshness.PACKED_FORMAT for python, _ in packed
    ):
        return all(_unchanged(marshal.loads(blob)) for _, blob in packed)
    signatures = db.execute(  # an index written by another Python
        f"SELECT path, size, mtime_ns, inode, wal FROM files WHERE app IN ({marks})"
        + nested,
        apps,
    ).fetchall()
    return _unchanged(signatures)


def _request_key(request: _Request, apps: list[str]) -> str:
    form = "json" if request.as_json else "nl"
    return (
        f"{form} {','.join(apps)} all={request.include_subagents} limit={request.limit}"
    )


def _body(records: list[bytes], request: _Request) -> bytes:
    if request.as_json:
        return b"[" + b",".join(records) + b"]\n"
    return b"".join(record + b"\n" for record in records)


def _remember(db: sqlite3.Connection, key: str, generation: int, body: bytes) -> None:
    """Keep the body for the next identical request, unless the index is busy or moved on."""
    try:
        db.execute("PRAGMA busy_timeout = 0")
        db.execute("BEGIN IMMEDIATE")
        try:
            if db.execute("SELECT value FROM generation").fetchone()[0] == generation:
                db.execute(
                    "INSERT OR REPLACE INTO listings VALUES (?, ?, ?)",
                    (key, generation, body),
                )
                db.execute(  # a handful of requests is all a machine repeats
                    "DELETE FROM listings WHERE rowid NOT IN "
                    "(SELECT rowid FROM listings ORDER BY rowid DESC LIMIT 4)"
                )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
    except sqlite3.Error:
        pass  # another process is writing: the next run will try again


def _unchanged(signatures: list[tuple[str, int, int, int, str]]) -> bool:
    """Whether every file still has its recorded signature (the loop a warm list is)."""
    stat, suffixes = os.stat, freshness.DB_SUFFIXES
    for name, size, mtime_ns, inode, wal in signatures:
        try:
            st = stat(name)
        except OSError:
            return False
        if st.st_mtime_ns != mtime_ns or st.st_size != size or st.st_ino != inode:
            return False
        if (wal or name.endswith(suffixes)) and wal != freshness.wal_signature(name):
            return False
    return True
