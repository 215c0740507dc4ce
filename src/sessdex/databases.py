"""Other apps' SQLite databases, read without writing a byte into their folders.

With no `-wal` file a database is opened `immutable=1` (no locks, no `-shm`). With one,
the newest rows live only in the WAL, which `immutable=1` ignores: a snapshot of the
database and its WAL is copied into sessdex's cache and opened there, read-only.

A snapshot costs a copy of the database, which can weigh GBs, so:
- the copy of the database file (a *base*, named by the file's size and mtime) is made
  once, atomically, and shared: each process links it into a folder of its own beside
  its own copy of the WAL, so two sessdex processes never pull files from under each
  other. While the app only appends to its WAL (it checkpoints now and then), a new
  snapshot copies the WAL alone;
- within one process, a snapshot serves every read of its database while the database
  is unchanged, or for FRESH_SECONDS while the app keeps writing (`usage` reads
  thousands of sessions of one database; `watch` re-reads each live one):
  `snapshot_current` says when a read may have missed the newest rows;
- a base is copied only when the disk has room to spare for it, and a copy cut short
  is removed;
- snapshots no read needs any more (their database is gone or has no WAL now, or they
  were not used for a week) are pruned, as are bases no process links to.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import shutil
import sqlite3
import sys
import threading
import time
from dataclasses import dataclass
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
        _drop_snapshot(name)  # the app closed its WAL: its snapshot serves no read now
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


def _snapshot_key(name: str) -> str:
    return hashlib.sha256(os.path.abspath(name).encode()).hexdigest()[:16]


def _snapshot_folder(name: str, kind: str = "") -> Path:
    """The cache folder that holds copies of database `name` (`kind` tells the WAL
    snapshot's from a journal copy's), marked with what it copies and when it was last
    used, for `prune_snapshots`."""
    from .paths import snapshot_dir

    folder = snapshot_dir() / f"{_snapshot_key(name)}{kind}"
    folder.mkdir(parents=True, exist_ok=True)
    source_file = folder / SOURCE_FILE  # which database this is a copy of (pruning)
    if _read_text(source_file) != os.path.abspath(name):
        source_file.write_text(os.path.abspath(name), encoding="utf-8")
    os.utime(folder)  # last used now: snapshots unused for a while are pruned
    return folder


def _drop_snapshot(name: str) -> None:
    """Remove the WAL snapshot of a database that has no WAL now (it may weigh GBs)."""
    from .paths import cache_dir

    folder = cache_dir() / "snapshots" / _snapshot_key(name)
    if folder.is_dir():
        shutil.rmtree(folder, ignore_errors=True)
        _taken.clear()


def _own_folder(folder: Path) -> Path:
    """This process's folder inside a snapshot folder (other processes have theirs)."""
    mine = folder / str(os.getpid())
    mine.mkdir(exist_ok=True)
    return mine


def _journal_snapshot(name: str) -> str:
    """A copy of the database and its journal in the cache (a fresh one each time: the
    journal lives only while a write is under way)."""
    target_dir = _own_folder(_snapshot_folder(name, "-journal"))
    target = target_dir / os.path.basename(name)
    for suffix in ("", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            (target_dir / (target.name + suffix)).unlink()
    _make_room(target_dir, os.path.getsize(name))
    _copy(name, target)
    with contextlib.suppress(FileNotFoundError):  # committed meanwhile: nothing to undo
        _copy(name + "-journal", Path(str(target) + "-journal"))
    return str(target)


Fingerprint = tuple[tuple[int, int], ...]


def _fingerprint(name: str) -> Fingerprint:
    result = []
    for suffix in ("", "-wal"):
        try:
            st = os.stat(name + suffix)
            result.append((st.st_size, st.st_mtime_ns))
        except FileNotFoundError:
            result.append((-1, -1))
    return tuple(result)


FRESH_SECONDS = 1.0  # a snapshot this young serves every read of its database
SPARE_BYTES = 256 * 1024 * 1024  # room a copy must leave free on the cache's disk
BASE_GRACE_SECONDS = 60.0  # a base no one links to yet may be about to be linked


@dataclass(slots=True)
class _Taken:
    fingerprint: Fingerprint  # the app's database and WAL as this snapshot copied them
    at: float  # time.monotonic() when it was taken
    base: str  # the name of the base the copy of the database file was made from


_taken: dict[str, _Taken] = {}  # this process's snapshots: copy path -> what it holds
_lock = threading.Lock()


def _snapshot(name: str, attempts: int = 5) -> str:
    """Copy db + wal into the cache, retrying while the app writes between the two copies;
    the path of the copy to open. See the module's notes: the database file is copied
    only when it changed (into a base shared by every process); of the WAL, only what the
    app appended since this process last copied it, unless the app started it anew."""
    with _lock:  # one thread at a time handles this process's copies
        return _snapshot_locked(name, attempts)


def _snapshot_locked(name: str, attempts: int) -> str:
    folder = _snapshot_folder(name)
    target = folder / str(os.getpid()) / os.path.basename(name)
    key = str(target)
    known = _taken.get(key)
    if (
        known is not None
        and target.is_file()
        and (
            known.fingerprint == _fingerprint(name)
            or time.monotonic() - known.at < FRESH_SECONDS
        )
    ):
        return key
    mine = _own_folder(folder)
    before = _fingerprint(name)
    _tidy(folder, keep=_base_name(before[0]))
    made = known.base if known is not None and target.is_file() else ""
    for _ in range(attempts):
        before = _fingerprint(name)
        base = _base(name, folder, before[0])
        if base is None:  # the app wrote into its database during the copy
            continue
        ours = made == base.name or _same_file(target, base)
        if not (ours and _wal_appended(name, key)):
            for suffix in ("-shm", "-wal", ""):
                with contextlib.suppress(FileNotFoundError):
                    (mine / (target.name + suffix)).unlink()
            made = ""
            try:
                os.link(base, target)
            except OSError:  # a file system without hard links: a copy of our own
                _copy(str(base), target)
            with contextlib.suppress(FileNotFoundError):
                _copy(name + "-wal", Path(key + "-wal"))
        made = base.name
        if _fingerprint(name) == before:
            break
    _taken[key] = _Taken(before, time.monotonic(), made)
    return key


WAL_HEADER = 32  # bytes: a WAL's magic, page size, checkpoint sequence and salts


def _wal_appended(name: str, copy: str) -> bool:
    """Bring this process's copy of the WAL up to the app's by appending what the app
    wrote since, when the app only appended (same header, at least as long); False when
    it started its WAL anew (a checkpoint reset it), which needs a whole copy."""
    try:
        with open(name + "-wal", "rb") as source, open(copy + "-wal", "r+b") as mine:
            if source.read(WAL_HEADER) != mine.read(WAL_HEADER):
                return False
            end = mine.seek(0, os.SEEK_END)
            if source.seek(0, os.SEEK_END) < end or end < WAL_HEADER:
                return False
            source.seek(end)
            while chunk := source.read(1024 * 1024):
                mine.write(chunk)
    except OSError:
        return False
    # the wal-index in -shm knows the old end only: the next connection rebuilds it
    with contextlib.suppress(OSError):
        os.unlink(copy + "-shm")
    return True


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def snapshot_current(path: str | os.PathLike[str]) -> bool:
    """Whether this process's snapshot of database `path` (if it took one) still shows
    it as it is now: False when a young snapshot served a read after the app wrote."""
    name = os.fspath(path)
    for key, taken in _taken.items():
        if Path(key).parent.parent.name == _snapshot_key(name):
            return taken.fingerprint == _fingerprint(name)
    return True


def _base(name: str, folder: Path, database: tuple[int, int]) -> Path | None:
    """The shared copy of the app's database file as `database` (size, mtime) says it
    is, made now if missing; None when the file changed while it was copied."""
    size = database[0]
    base = folder / _base_name(database)
    if base.is_file():
        return base
    _make_room(folder, max(0, size))
    partial = folder / f".base-{os.getpid()}.partial"
    _copy(name, partial)
    if _fingerprint(name)[0] != database:
        partial.unlink(missing_ok=True)
        return None
    os.replace(partial, base)  # whole or not at all, for every process
    return base


def _base_name(database: tuple[int, int]) -> str:
    return f"base-{database[0]}-{database[1]}"


def _copy(source: str, target: Path) -> None:
    """shutil.copyfile, leaving nothing behind when it fails (a full disk)."""
    try:
        shutil.copyfile(source, target)
    except BaseException:
        target.unlink(missing_ok=True)
        raise


def _make_room(folder: Path, size: int) -> None:
    """Refuse a copy that would leave the cache's disk with less than SPARE_BYTES free
    (sessdex's cache usually shares a disk with the apps themselves)."""
    try:
        free = shutil.disk_usage(folder).free
    except OSError:
        return
    if free - size < SPARE_BYTES:
        from .files import human_bytes

        raise OSError(
            errno.ENOSPC,
            f"no room for a {human_bytes(size)} snapshot in {folder} "
            f"({human_bytes(free)} free); free some space, or point SESSDEX_HOME "
            "to a bigger disk",
        )


def _tidy(folder: Path, keep: str) -> None:
    """Remove what no process needs in a snapshot folder: the folders of processes that
    ended, and bases no one links to (but `keep`, the database as it is now, and the
    newest minute's, about to be linked)."""
    now = time.time()
    for entry in os.scandir(folder):
        dead = entry.name.isdigit() and not _alive(int(entry.name))
        if dead and entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path, ignore_errors=True)
    for entry in os.scandir(folder):
        if entry.name.startswith("base-") and entry.name != keep:
            with contextlib.suppress(OSError):
                st = entry.stat(follow_symlinks=False)
                if st.st_nlink <= 1 and now - st.st_mtime > BASE_GRACE_SECONDS:
                    os.unlink(entry.path)


def _alive(pid: int) -> bool:
    if pid == os.getpid() or sys.platform == "win32":
        # (Windows' os.kill ends the process whatever the signal: never ask it there)
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process, or a platform that cannot tell: keep it
        return True
    return True


SOURCE_FILE = "source"
SNAPSHOT_IDLE_SECONDS = 7 * 24 * 3600  # a snapshot unused this long is removed
_PRUNED_MARK = ".pruned"  # when snapshots were last pruned: at most once a day


def prune_snapshots(now: float | None = None) -> int:
    """Remove the snapshots no read needs any more: those of a database that is gone or
    has no WAL (or hot journal) now, and those unused for a week (the next read of their
    database copies it again). Runs at most once a day; returns the bytes freed.

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
        if source is None:
            needed = True
        elif folder.name.endswith("-journal"):  # needed only while a write is under way
            needed = _hot_journal(source)
        else:  # needed only while the app keeps a WAL
            needed = os.path.exists(source + "-wal")
        if idle or not needed:
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
