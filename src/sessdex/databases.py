"""Other apps' SQLite databases, read without writing a byte into their folders.

With no `-wal` file a database is opened `immutable=1` (no locks, no `-shm`). With one,
the newest rows live only in the WAL, which `immutable=1` ignores: a snapshot of the
database and its WAL is copied into sessdex's cache and opened there, read-only, so that
the copy of the database stays byte for byte what it was. While the app only appends to
its WAL (it checkpoints now and then), the next snapshot copies the WAL alone: a running
app's 500 MB database is not copied again on every `list`. Snapshots no read needs any
more (their database is gone, or they were not used for a week) are pruned.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import sqlite3
import time
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

if TYPE_CHECKING:
    from .diagnostics import Diagnostics


def open_sqlite(path: str | os.PathLike[str]) -> sqlite3.Connection:
    """Open another app's SQLite database without writing a byte into its folder.

    With no `-wal` file, `immutable=1` is safe (no locks, no `-shm`). With one, the newest
    rows live only in the WAL, which `immutable=1` ignores and `mode=ro` needs a `-shm`
    for: so a snapshot of the database and its WAL is copied into sessdex's cache and
    opened there. A hot rollback journal (a write under way, its pages partly in the
    file) is copied with the database, and the copy rolled back to what was committed.
    """
    name = os.fspath(path)
    wal = name + "-wal"
    if _hot_journal(name):
        # a rollback-journal write in progress: the file holds pages not committed yet,
        # which `immutable=1` would read. A copy of both, opened as a database (in the
        # cache), is rolled back by SQLite to what was committed.
        uri = "file:" + quote(_journal_snapshot(name))
        return sqlite3.connect(uri, uri=True, check_same_thread=False)
    if os.path.exists(wal) and os.path.getsize(wal) > 0:
        # read-only: closing it never checkpoints the WAL into the copied database, which
        # the next snapshot reuses while the app's own database file has not changed
        uri = "file:" + quote(_snapshot(name)) + "?mode=ro"
        connection = sqlite3.connect(uri, uri=True, check_same_thread=False)
    else:
        uri = "file:" + quote(os.path.abspath(name)) + "?immutable=1"
        connection = sqlite3.connect(uri, uri=True, check_same_thread=False)
    return connection


# The first bytes of a rollback journal that holds pages to roll back (a persisted or
# finished one has a zeroed header): SQLite's journal magic.
_JOURNAL_MAGIC = bytes.fromhex("d9d505f920a163d7")


def _hot_journal(name: str) -> bool:
    try:
        with open(name + "-journal", "rb") as journal:
            return journal.read(8) == _JOURNAL_MAGIC
    except OSError:
        return False


def _snapshot_folder(name: str, kind: str = "") -> Path:
    """The cache folder that holds copies of database `name` (`kind` tells the WAL
    snapshot's from a journal copy's), marked with what it copies and when it was last
    used, for `prune_snapshots`."""
    from .paths import snapshot_dir

    key = hashlib.sha256(os.path.abspath(name).encode()).hexdigest()[:16]
    folder = snapshot_dir() / f"{key}{kind}"
    folder.mkdir(parents=True, exist_ok=True)
    source_file = folder / SOURCE_FILE  # which database this is a copy of (pruning)
    if _read_text(source_file) != os.path.abspath(name):
        source_file.write_text(os.path.abspath(name), encoding="utf-8")
    os.utime(folder)  # last used now: snapshots unused for a while are pruned
    return folder


def _journal_snapshot(name: str) -> str:
    """A copy of the database and its journal in the cache (a fresh one each time: the
    journal lives only while a write is under way)."""
    target_dir = _snapshot_folder(name, "-journal")
    target = target_dir / os.path.basename(name)
    for suffix in ("", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            (target_dir / (target.name + suffix)).unlink()
    shutil.copyfile(name, target)
    with contextlib.suppress(FileNotFoundError):  # committed meanwhile: nothing to undo
        shutil.copyfile(name + "-journal", str(target) + "-journal")
    return str(target)


def _fingerprint(name: str) -> tuple[tuple[int, int], ...]:
    result = []
    for suffix in ("", "-wal"):
        try:
            st = os.stat(name + suffix)
            result.append((st.st_size, st.st_mtime_ns))
        except FileNotFoundError:
            result.append((-1, -1))
    return tuple(result)


def _snapshot(name: str, attempts: int = 5) -> str:
    """Copy db + wal into the cache, retrying while the app writes between the two copies.

    The database file is copied only when it changed since the last snapshot (a checkpoint
    wrote into it); otherwise the copy already there is still its twin, and only the WAL,
    where the app appends, is copied again."""
    target_dir = _snapshot_folder(name)
    target = target_dir / os.path.basename(name)
    copied_from = target_dir / "copied-from"  # the app's database file as last copied
    for _ in range(attempts):
        before = _fingerprint(name)
        source = f"{before[0][0]} {before[0][1]}"
        reuse = target.is_file() and _read_text(copied_from) == source
        for suffix in ("-shm", "-wal") if reuse else ("-shm", "-wal", ""):
            with contextlib.suppress(FileNotFoundError):
                (target_dir / (target.name + suffix)).unlink()
        with contextlib.suppress(FileNotFoundError):
            copied_from.unlink()
        if not reuse:
            shutil.copyfile(name, target)
        with contextlib.suppress(FileNotFoundError):
            shutil.copyfile(name + "-wal", str(target) + "-wal")
        if _fingerprint(name) == before:
            copied_from.write_text(source)
            break
    return str(target)


SOURCE_FILE = "source"
SNAPSHOT_IDLE_SECONDS = 7 * 24 * 3600  # a snapshot unused this long is removed
_PRUNED_MARK = ".pruned"  # when snapshots were last pruned: at most once a day


def prune_snapshots(now: float | None = None) -> int:
    """Remove the snapshots no read needs any more: those of a database that is gone, and
    those unused for a week (the next read of their database copies it again). Runs at
    most once a day; returns the bytes freed.

    Each snapshot holds a whole copy of an app's database, which can weigh GBs."""
    from .paths import snapshot_dir

    now = time.time() if now is None else now
    root = snapshot_dir()
    mark = root / _PRUNED_MARK
    with contextlib.suppress(OSError):
        if now - mark.stat().st_mtime < 24 * 3600:
            return 0
    freed = 0
    for folder in root.iterdir():
        if folder.name.startswith(".") or not folder.is_dir():
            continue
        source = _read_text(folder / SOURCE_FILE)
        try:
            idle = now - folder.stat().st_mtime > SNAPSHOT_IDLE_SECONDS
        except OSError:
            continue
        if idle or (source is not None and not os.path.exists(source)):
            freed += folder_size(folder)
            shutil.rmtree(folder, ignore_errors=True)
    with contextlib.suppress(OSError):
        mark.touch()
        os.utime(mark, (now, now))
    return freed


def folder_size(folder: os.PathLike[str]) -> int:
    """The bytes of the files in a folder and below (links not followed)."""
    total = 0
    for base, _, names in os.walk(folder):
        for entry in names:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(base, entry)).st_size
    return total


def _read_text(path: os.PathLike[str]) -> str | None:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read(200)
    except (OSError, UnicodeDecodeError):
        return None


def table_columns(connection: sqlite3.Connection, table: str) -> set[str]:
    """The columns `table` has (empty if it does not exist): readers tolerate missing ones."""
    rows = connection.execute(
        f"PRAGMA table_info({quote_identifier(table)})"
    ).fetchall()
    return {row[1] for row in rows}


def quote_identifier(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def bounded_value(
    connection: sqlite3.Connection,
    table: str,
    column: str,
    rowid: int,
    *,
    full: bool = False,
    diagnostics: Diagnostics | None = None,
    where: str = "",
) -> bytes | str | None:
    """One row's JSON text without ever holding a huge one whole.

    A value up to `files.READ_LINE_CAP` (or any, with `full`) comes back as it is; a longer
    one (a pasted image, a huge tool output) streams through `files.Compactor`, its long
    strings elided as a transcript's are, and is None if it stays too long even so (counted
    in `diagnostics` as "too long" at `where`). Read through SQLite's incremental blob IO,
    which learns a value's size without loading it (`length()` and every other SQL function
    load it whole). A value that IO cannot open (NULL, a number), or text in a UTF-16
    database (blob IO gives its raw bytes), is read the plain way.
    """
    from . import files

    try:
        blob = connection.blobopen(table, column, rowid, readonly=True)
    except sqlite3.Error:
        return _plain_value(connection, table, column, rowid)
    with blob:
        if b"\x00" in blob.read(64):  # no UTF-8 JSON holds a NUL byte: UTF-16 text
            return _plain_value(connection, table, column, rowid)
        blob.seek(0)
        if full or len(blob) <= files.READ_LINE_CAP:
            return blob.read()
        compact = files.compacted(iter(lambda: blob.read(files.CHUNK), b""))
        if compact is None and diagnostics is not None:
            diagnostics.skip(where, 0, "too long")
        return compact


def _plain_value(
    connection: sqlite3.Connection, table: str, column: str, rowid: int
) -> bytes | str | None:
    row = connection.execute(
        f"SELECT {quote_identifier(column)} FROM {quote_identifier(table)} WHERE rowid = ?",
        (rowid,),
    ).fetchone()
    value = row[0] if row else None
    return value if isinstance(value, bytes | str) else None
