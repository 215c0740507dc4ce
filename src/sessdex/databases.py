"""Other apps' SQLite databases, read without writing a byte into their folders.

With no `-wal` file a database is opened `immutable=1` (no locks, no `-shm`), and a read
that saw the app commit meanwhile is done again (inplace.py). With one,
the newest rows live only in the WAL, which `immutable=1` ignores: a snapshot of the
database and its WAL is copied into sessdex's cache and opened there, read-only.

A snapshot costs a copy of the database, which can weigh GBs, so:
- the copy of the database file (a *base*, named by the file's size and mtime) is made
  once, atomically, and shared: each process links it into a folder of its own beside
  its own copy of the WAL, so two sessdex processes never pull files from under each
  other. Of the WAL only the frames of its current generation (the salts in its header)
  up to its last commit are copied: the app reuses its file after a checkpoint, and
  older frames stay behind the new ones;
- within one process, a snapshot serves every read of its database for the whole run
  of a one-shot command (`usage` reads thousands of sessions of one database: one
  consistent view, copied once). `watch` and `follow` ask for fresh ones (`keep_fresh`):
  the WAL is topped up with the frames the app committed since, and a database file a
  checkpoint changed is patched, block by block, into the process's own copy, at most
  every REFRESH_DATABASE_SECONDS, sooner where the last patch was cheap (PATCH_SHARE);
  where a connection of this process still reads the copy, what changed goes into a
  file of its own (`_read_now`), as often;
  `snapshot_current` says when a read may have missed the newest rows. One connection
  stays open on each snapshot, so that opening it again does not rebuild its WAL index
  from the whole WAL;
- a copy is made only when the disk has room to spare for it, and one cut short (a
  full disk, or a process killed mid-copy) is removed;
- snapshots no read needs any more (their database is gone or has no WAL now, or they
  were not used for a week) are pruned, as are bases no process links to;
- a database its adapter says holds the app's login (tokens beside the sessions) is
  copied so that no copy of the login outlives the process that made it. Where the login
  lives in tables the adapter never reads (`login=("auth_kv",)`), the shared base keeps
  those tables' pages and its free pages blanked (zeros): the WAL and this process's own
  copies, which hold them, go at its exit. Where it lives among rows the adapter reads
  (`login=True`), every copy goes at exit. On Ctrl-C and SIGTERM too
  (`drop_login_copies`); the next run removes what a killed one left
  (`sweep_login_copies`).
"""

from __future__ import annotations

import contextlib
import errno
import functools
import math
import os
import shutil
import sqlite3
import stat
import sys
import threading
import time
import weakref
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, TypeVar, cast

from . import files, freshness, inplace
from .diagnostics import read_failed
from .indexfile import SNAPSHOTS_SWEPT, sqlite_uri

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterator, Sequence

    from .diagnostics import Diagnostics


def open_sqlite(
    path: str | os.PathLike[str], *, login: bool | tuple[str, ...] = False
) -> sqlite3.Connection:
    """Open another app's SQLite database without writing a byte into its folder.

    With no `-wal` file, `immutable=1` is safe (no locks, no `-shm`). With one, the newest
    rows live only in the WAL, which `immutable=1` ignores and `mode=ro` needs a `-shm`
    for: so a snapshot of the database and its WAL is copied into sessdex's cache and
    opened there (an empty WAL too: the app that keeps it open checkpoints into the
    database file at any moment). A hot rollback journal (a write under way, its pages
    partly in the file) is copied with the database, and the copy rolled back to what was
    committed.

    Opened in place during a read (`inplace.Reading`), its state is noted for the read to
    tell whether the app committed meanwhile; a read done again after that is given
    copies of one committed state.

    Text that is not UTF-8 (a name an app cut in the middle of a character) comes back
    with U+FFFD in its place: Python's default refuses the whole query for one such cell,
    and every session of the database went missing with it.

    `login`: the database also holds the app's login, which the adapter never reads. The
    tables that hold it, where no row the adapter reads shares them: the copy of the
    database file kept for the next run has their pages blanked, and what else holds them
    (the WAL's copy) is removed when the process ends. True where the login shares a
    table with what is read: every copy is removed when the process ends.
    """
    name = os.fspath(path)
    if login:
        _hold_login(name, login if isinstance(login, tuple) else ())
    # what a parse depends on, as it is before the read (see freshness.depending)
    freshness.note_depended(name)
    freshness.note_depended(name + "-wal")
    try:
        connection = _connect(name)
    except OSError as error:
        reading = inplace.current()
        if error.errno in _FOR_NOW and reading is not None:
            reading.for_now = True  # the database itself may be whole: kept as it was
        raise
    connection.text_factory = _lenient_text
    # what a read depended on: the database, and its WAL (its newest rows), there or not
    freshness.note_opened(name)
    freshness.note_opened(name + "-wal")
    return connection


def open_or_say(
    path: str | os.PathLike[str],
    app: str,
    diagnostics: Diagnostics,
    *,
    login: bool | tuple[str, ...] = False,
) -> sqlite3.Connection | None:
    """`open_sqlite`, or None where the database cannot be opened, the problem said in
    the words every app uses (`<app>: cannot open <path>: <why>`, or that it was refused)."""
    try:
        return open_sqlite(path, login=login)
    except (OSError, sqlite3.Error) as error:
        diagnostics.problem(read_failed(app, path, error, "cannot open"))
        return None


# what keeps a copy from being made for now (a full disk, a database changing under every
# try), not anything in the database
_FOR_NOW = frozenset(
    getattr(errno, name)
    for name in (
        "ENOSPC",
        "EDQUOT",
        "EAGAIN",
        "EIO",
        "EROFS",
        "EMFILE",
        "ENFILE",
        "ENOMEM",
        "EBUSY",
    )
    if hasattr(errno, name)
)

_lenient_text = functools.partial(str, encoding="utf-8", errors="replace")


def _connect(name: str) -> sqlite3.Connection:
    wal = name + "-wal"
    _refuse_special(name)
    reading = inplace.current()
    if reading is not None and reading.copied and not os.path.exists(wal):
        # read again after the app committed during the read in place: a copy, one state
        copy = reading.copies.get(name) or _committed_copy(name)
        reading.copies[name] = copy
        return sqlite3.connect(sqlite_uri(copy), uri=True, check_same_thread=False)
    if inplace.hot_journal(name):
        # a rollback-journal write in progress: the file holds pages not committed yet,
        # which `immutable=1` would read. A copy of both, opened as a database (in the
        # cache), is rolled back by SQLite to what was committed.
        uri = sqlite_uri(_committed_copy(name))
        return sqlite3.connect(uri, uri=True, check_same_thread=False)
    if os.path.exists(wal):
        # even an empty WAL: the app has the database open, and its next commit and
        # checkpoint would rewrite pages under a read in place (half a transaction seen).
        # Read-only: closing it never checkpoints the WAL into the copied database, which
        # the next snapshot reuses while the app's own database file has not changed
        with _lock:  # opened and read before another thread may patch the copy
            return _open_snapshot(name)
    else:
        key = os.path.abspath(name)
        token = inplace.state(name) if inplace.passing() else None
        kept = inplace.held(key, token) if token is not None else None
        if kept is None:
            _drop_snapshot(name)  # the app closed its WAL: no read needs its snapshot
        if reading is not None and not reading.open_in_place(name):
            uri = sqlite_uri(_committed_copy(name))  # a write began meanwhile
            return sqlite3.connect(uri, uri=True, check_same_thread=False)
        if kept is not None:
            return cast(sqlite3.Connection, kept)
        # mode=ro: else SQLite opens it read-write, and creates an empty database file in
        # the app's folder when the app removed it since it was listed
        uri = sqlite_uri(key, "mode=ro&immutable=1")
        try:
            connection = sqlite3.connect(
                uri, uri=True, check_same_thread=False, factory=_Held
            )
        except sqlite3.OperationalError as error:
            _raise_refused(name, error)
            raise
        if token is not None:
            connection.held = True
            inplace.hold(key, connection, token)
    return connection


def _open_snapshot(name: str) -> sqlite3.Connection:
    """A connection on this process's snapshot of WAL database `name`, with `_lock`
    held: counted among the copy's `_readers`, and its first read done, which opens the
    WAL and the wal-index it reads from then on. Unread, it held the database file
    only: a patch since put the copy in a new file, and its first read opened that
    file's new WAL beside the old file ("no such table")."""
    copy = _snapshot_locked(name)
    taken = _taken.get(copy)  # a new one each time the copy is taken or topped up
    kept = inplace.held(copy, taken)
    if kept is not None:
        return cast(sqlite3.Connection, kept)
    uri = sqlite_uri(copy, "mode=ro")
    connection = sqlite3.connect(uri, uri=True, check_same_thread=False, factory=_Held)
    connection.copy = copy
    _readers.setdefault(copy, weakref.WeakSet()).add(connection)
    with contextlib.suppress(sqlite3.Error):  # not a database: the caller's read says
        connection.execute("PRAGMA schema_version").fetchall()
    if taken is not None and inplace.passing():
        connection.held = True
        inplace.hold(copy, connection, taken)
    return connection


class _Held(sqlite3.Connection):
    """A connection a pass may keep for the next read of its database
    (`inplace.one_pass`): a reader's `close` leaves it open while the pass holds it,
    and `release` (the pass's end) closes it."""

    held = False
    copy = ""  # the snapshot it reads, where it reads one (`_readers`)

    def close(self) -> None:
        if not self.held:
            super().close()
            if self.copy in _readers:  # another thread may add a snapshot meanwhile
                _readers[self.copy].discard(self)

    def release(self) -> None:
        self.held = False
        self.close()


def _raise_refused(name: str, error: sqlite3.Error) -> None:
    """Raise PermissionError when the system refused SQLite the database `name`: SQLite
    says only "unable to open database file", where a copy of it (a WAL beside it) and
    every other file say "permission denied"."""
    if files.refuses_reading(name):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), name) from error


def _refuse_special(name: str) -> None:
    """Raise `files.NotAFile` when the database, its WAL or its journal is a pipe, a
    socket, a device or a folder: SQLite, and a copy of the WAL, would open a pipe
    and wait for a writer for ever."""
    for suffix in ("", "-wal", "-journal"):
        try:
            mode = os.stat(name + suffix).st_mode
        except OSError:  # missing (most WALs and journals), or unreadable: SQLite says
            continue
        if not stat.S_ISREG(mode):
            raise files.NotAFile(errno.EINVAL, "not a regular file", name + suffix)


def _snapshot_key(name: str) -> str:
    import hashlib  # here: OpenSSL loads only where a hash is taken

    return hashlib.sha256(os.path.abspath(name).encode()).hexdigest()[:16]


def _folder_of(name: str, kind: str = "") -> Path:
    """The cache folder that holds copies of database `name` (`kind` tells the WAL
    snapshot's from a journal copy's), or its stand-in for this run; nothing made or
    written."""
    from .paths import cache_dir

    folder = cache_dir() / "snapshots" / f"{_snapshot_key(name)}{kind}"
    return _stand_ins.get(folder, folder)


# snapshot folders this process may not write (one a `sudo sessdex` left, owned by root)
# -> the temporary folder that stands in for each during this run
_stand_ins: dict[Path, Path] = {}
_stand_in_root: Path | None = None


def _snapshot_folder(name: str, kind: str = "") -> Path:
    """`_folder_of(name, kind)`, made if missing and marked with what it copies and when
    it was last used, for `prune_snapshots`. One sessdex cannot use is left alone:
    a temporary folder stands in for it this run, with a warning that names it."""
    folder = _folder_of(name, kind)
    try:
        _mark(folder, name)
    except OSError as error:  # not ours to write, or something else in its place
        folder = _stand_in_for(folder, error)
        _mark(folder, name)
    return folder


def _mark(folder: Path, name: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    _keep_private(folder)
    source_file = folder / SOURCE_FILE  # which database this is a copy of (pruning)
    if _read_text(source_file) != os.path.abspath(name):
        source_file.write_text(os.path.abspath(name), encoding="utf-8")
    tables = _logins.get(os.path.abspath(name))
    if tables is not None:  # what the sweep may keep: bases blanked, or nothing
        marker = folder / LOGIN_FILE
        said = BLANKED if tables and not folder.name.endswith("-journal") else ""
        if _read_text(marker) != said:
            marker.write_text(said, encoding="utf-8")
    os.utime(folder)  # last used now: snapshots unused for a while are pruned


def _keep_private(folder: Path) -> None:
    """Take group and others' access off a database's copy folder: an app's database
    may hold its login beside its sessions (a table of tokens in a 0600 file), and a
    copy must not be readable where the original is not. Only bits are taken off, never
    added (a folder left read-only stays so)."""
    with contextlib.suppress(OSError):  # not ours: the stand-in then serves
        mode = stat.S_IMODE(folder.stat().st_mode)
        if mode & 0o077:
            folder.chmod(mode & 0o700)


def _stand_in_for(folder: Path, error: OSError) -> Path:
    """A temporary folder for the snapshot folder `folder`, which `error` refused, for
    the rest of the run; the first one warns, naming what to remove."""
    global _stand_in_root
    from .paths import stand_in

    if _stand_in_root is None:
        _stand_in_root = stand_in("sessdex-snapshots-")
        import logging

        # the cache itself is writable (paths.cache_dir): the folder refused is the
        # database's own, or `snapshots` above it where that one is not made yet
        blocked = folder if os.path.lexists(folder) else folder.parent
        logging.getLogger(__name__).warning(
            "sessdex cannot keep database copies in %s (%s): using a "
            "temporary folder for this run (remove it to keep them again)",
            blocked,
            error.strerror or error,
        )
    _stand_ins[folder] = _stand_in_root / folder.name
    return _stand_ins[folder]


def _drop_snapshot(name: str) -> None:
    """Remove the WAL snapshot of a database that has no WAL now (it may weigh GBs):
    this process's copies, and the whole folder once no other live process has one
    there (another may be reading its own right now)."""
    with _lock:
        _drop_locked(name)


def _drop_locked(name: str, kind: str = "") -> None:
    folder = _folder_of(name, kind)
    if not folder.is_dir():
        return
    for key in [k for k in _taken if Path(k).parent.parent == folder]:
        _release(_taken.pop(key))
    shutil.rmtree(folder / str(os.getpid()), ignore_errors=True)
    if not _held_by_others(folder):
        shutil.rmtree(folder, ignore_errors=True)


# the databases this process read that hold the app's login (`open_sqlite(login=...)`)
# -> the tables that hold it, blanked in the bases kept; () where none may be kept
_logins: dict[str, tuple[str, ...]] = {}
# the snapshots folder swept at exit, once a read may have copied a login-holding
# database (in this process, or in the workers it forked, which run no `atexit`)
_exit_root: Path | None = None
LOGIN_FILE = "login"  # in a copy folder: its database holds a login (for the sweep)
BLANKED = "blanked"  # what LOGIN_FILE says where the bases are kept, blanked
# in the snapshots folder: the copies an earlier sessdex kept have been swept (it kept
# those of login-holding databases for a week, and marked none)
_SWEPT_MARK = SNAPSHOTS_SWEPT


def sweep_at_exit() -> None:
    """Have this process remove, at its exit, the copies of login-holding databases that
    no live process uses: its own, and those of the workers it forked for a refresh."""
    global _exit_root
    if _exit_root is None:
        import atexit

        from .paths import snapshot_dir

        _exit_root = snapshot_dir()
        atexit.unregister(drop_login_copies)  # once, whatever a library caller did
        atexit.register(drop_login_copies)


def _hold_login(name: str, tables: tuple[str, ...]) -> None:
    sweep_at_exit()
    key = os.path.abspath(name)
    if _logins.get(key) != ():  # once a base could not be blanked, none is kept
        _logins[key] = tables


def drop_login_copies() -> None:
    """Remove the copies this process made of databases that hold a login, and those
    another process shares only once none runs: at exit (`launch` calls it on Ctrl-C
    and SIGTERM, which end the process without `atexit`). Bounded wait for the lock:
    a thread stopped mid-copy must not hang the exit."""
    if _exit_root is None:
        return  # no read of a database: nothing to remove
    locked = _lock.acquire(timeout=5)
    try:
        for name, tables in sorted(_logins.items()):
            for kind in ("", "-journal"):
                with contextlib.suppress(OSError):
                    if tables and not kind:  # the bases, blanked, stay for the next run
                        _drop_own(name)
                    else:
                        _drop_locked(name, kind)
    finally:
        if locked:
            _lock.release()
    with contextlib.suppress(OSError):
        sweep_login_copies(_exit_root, earlier=False)


def _drop_own(name: str) -> None:
    """Remove this process's own copies of a database (its WAL's, and its database file
    once patched), keeping the shared bases."""
    folder = _folder_of(name)
    for key in [k for k in _taken if Path(k).parent.parent == folder]:
        _release(_taken.pop(key))
    shutil.rmtree(folder / str(os.getpid()), ignore_errors=True)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(folder / f".partial-{os.getpid()}")


def sweep_login_copies(root: Path | None = None, *, earlier: bool = True) -> None:
    """Remove the copies of login-holding databases that no live process uses (those a
    killed sessdex left, and its copy cut short, not blanked yet); and, once (`earlier`:
    before this run took any), every copy an earlier sessdex kept, which marked none of
    them as holding a login (the next read of each database copies it again)."""
    from .paths import snapshot_dir

    root = snapshot_dir() if root is None else root
    first = earlier and not (root / _SWEPT_MARK).exists()
    kept = False
    for entry in os.scandir(root):
        if entry.name.startswith(".") or not entry.is_dir(follow_symlinks=False):
            continue
        folder = Path(entry.path)
        if not first and not (folder / LOGIN_FILE).exists():
            continue
        if _read_text(folder / LOGIN_FILE) == BLANKED:
            _tidy(folder, keep="")  # the folders and copies of processes that ended
            continue
        if (folder / str(os.getpid())).exists() or _held_by_others(folder):
            kept = True  # in use: removed when it is not
            continue
        shutil.rmtree(folder, ignore_errors=True)
    if first and not kept:
        (root / _SWEPT_MARK).touch()


def _held_by_others(folder: Path) -> bool:
    """Whether another live process keeps a folder of its own in a snapshot folder."""
    try:
        entries = os.listdir(folder)
    except OSError:
        return False
    return any(
        name.isdigit() and int(name) != os.getpid() and _alive(int(name))
        for name in entries
    )


def _own_folder(folder: Path) -> Path:
    """This process's folder inside a snapshot folder (other processes have theirs)."""
    mine = folder / str(os.getpid())
    mine.mkdir(exist_ok=True)
    return mine


def _committed_copy(name: str, attempts: int = 5) -> str:
    """A copy of database `name` in the cache as one commit left it: copied again while
    the app commits during the copy. A write under way is copied with its journal, which
    SQLite rolls back when the copy is opened."""
    for _ in range(attempts):
        before = inplace.state(name), inplace.hot_journal(name)
        if before[0] is None:
            raise FileNotFoundError(errno.ENOENT, "cannot read the database", name)
        copy = _journal_snapshot(name)
        # the journal looked at after the header: a commit that ended before is whole
        after = inplace.state(name), inplace.hot_journal(name)
        if after == before:
            return copy
    raise OSError(
        errno.EAGAIN, f"{name} changed during every try to copy it; try again"
    )


def _journal_snapshot(name: str) -> str:
    """A copy of the database and its journal in the cache (a fresh one each time: the
    journal lives only while a write is under way)."""
    folder = _snapshot_folder(name, "-journal")
    _tidy(folder, keep="")  # the copies processes that ended left
    target_dir = _own_folder(folder)
    target = target_dir / os.path.basename(name)
    _unlink(target, "", "-journal")
    _make_room(target_dir, os.path.getsize(name))
    _copy(name, target)
    with contextlib.suppress(FileNotFoundError):  # committed meanwhile: nothing to undo
        _copy(name + "-journal", Path(str(target) + "-journal"))
    return str(target)


# (size, change time, what its headers say) of the app's database file and of its WAL
Fingerprint = tuple[tuple[int, int, str], ...]


def _fingerprint(name: str) -> Fingerprint:
    """How the app's database and WAL look now. The change time too: a rewrite of the
    same size whose mtime was set back (a clock stepped back, `touch -r`, `cp -p`) would
    be served the old copy. And their headers: two writes of the same size within one
    tick of the file system's clock (a whole second on some) leave both times as they
    were. The database's copy is taken for the WAL's generation too: after a checkpoint
    the app starts the WAL again, and the pages the checkpoint moved into the database
    file (unseen where its header and size stay) are then in no copy of the WAL."""
    stats = []
    for suffix in ("", "-wal"):
        try:
            st = os.stat(name + suffix)
            stats.append((st.st_size, freshness.changed_ns(st)))
        except FileNotFoundError:
            stats.append((-1, -1))
    wal = freshness.wal_state(name + "-wal") if stats[1][0] >= 0 else ""
    generation = wal.partition(".")[0]
    database = f"{freshness.database_state(name)}.{generation}"
    return (*stats[0], database), (*stats[1], wal)


# How long one snapshot serves every read of its database in this process while the app
# keeps writing: the whole run of a one-shot command (one consistent view, one copy);
# `watch` and `follow` ask for fresh ones (`keep_fresh`).
FRESH_SECONDS = float("inf")
# in a long run, how often at most the database file (which a checkpoint rewrote) is read
# again to bring this process's copy up to date; until then the snapshot is behind
REFRESH_DATABASE_SECONDS = 10.0
# ... and sooner where that costs little: after a patch of this process's copy that took
# t seconds of CPU, the next one waits t / PATCH_SHARE (patching then takes at most 1 %
# of a core), at least REFRESH_FLOOR_SECONDS, at most REFRESH_DATABASE_SECONDS. Only
# when, never what: the copy is still compared with the file block by block, no stamp
# trusted.
PATCH_SHARE = 0.01
# ... and at most this share of the wall clock: reads that wait on a slow disk (a network
# home) cost little CPU
PATCH_WALL_SHARE = 0.1
REFRESH_FLOOR_SECONDS = 0.5
# what the first patch is taken to cost, before one was timed: it copies the shared base
# into a copy of this process's own, then reads the whole file again (4 ms a MB)
PATCH_SECONDS_PER_BYTE = 4e-3 / 1e6
SPARE_BYTES = 256 * 1024 * 1024  # room a copy must leave free on the cache's disk
BASE_GRACE_SECONDS = 60.0  # a base no one links to yet may be about to be linked
PAGE = 4096  # the blocks a database copy is compared and patched by
CHUNK = 1024 * 1024


def new_view() -> None:
    """Begin a new call's view: a snapshot taken before serves it only while its
    database is unchanged (a library caller lists again an hour later, in the same
    process: a one-shot command's snapshot must not answer for the app's writes since).
    Not in a process that asked for fresh snapshots (`keep_fresh`): `watch` lists at
    every tick, and its own limit says how often a changed database is copied again."""
    global _view
    if math.isinf(FRESH_SECONDS):
        _view += 1


def keep_fresh(seconds: float) -> None:
    """Let a snapshot serve this process's reads for at most `seconds` once its database
    changed (a long-running view that follows the apps as they write)."""
    global FRESH_SECONDS
    FRESH_SECONDS = min(FRESH_SECONDS, seconds)


@dataclass(slots=True)
class _Wal:
    """What this process's copy of a WAL holds: its generation's header, and where the
    next top-up starts (its last commit frame, copied again in case it was torn)."""

    header: bytes
    resume: int


@dataclass(slots=True)
class _Taken:
    fingerprint: Fingerprint  # the app's database and WAL as this snapshot copied them
    at: float  # time.monotonic() when it was taken
    database_at: float  # when the copy of the database file was last made or patched
    wal: _Wal | None = None
    patch_seconds: float = 0.0  # what that cost (`_patch_cost`), or the first will
    settled: bool = True  # False: the app wrote during every try; take it again
    view: int = 0  # the `new_view` it was taken in
    # an open connection that keeps the copy's wal-index, so that every other open of
    # the snapshot skips rebuilding it from the whole WAL
    keeper: sqlite3.Connection | None = None


_taken: dict[str, _Taken] = {}  # this process's snapshots: copy path -> what it holds
# the connections open on each snapshot, by its copy's path (`_database_copy`)
_readers: dict[str, weakref.WeakSet[_Held]] = {}
_view = 0  # counts `new_view`: the call whose reads one snapshot serves whole
_lock = threading.Lock()


def _unlock_in_child() -> None:
    """A worker process forked while another thread of a program held `_lock` (a
    threaded program's other call taking a snapshot) would wait on it for ever: the
    child, where that thread does not run, gets a lock of its own."""
    global _lock
    _lock = threading.Lock()


if hasattr(os, "register_at_fork"):  # not on Windows, which never forks
    os.register_at_fork(after_in_child=_unlock_in_child)


def _snapshot_locked(name: str, attempts: int = 5) -> str:
    """Copy db + wal into the cache, retrying while the app writes between the two copies;
    the path of the copy to open. See the module's notes. With `_lock` held: one thread
    at a time handles this process's copies (`_open_snapshot`)."""
    # a snapshot this process holds answers with a stat or two: `usage` opens one per
    # session read; the folder is marked as used only when something is copied
    folder = _folder_of(name)
    target = folder / str(os.getpid()) / os.path.basename(name)
    key = str(target)
    known = _taken.get(key)
    if known is not None and not target.is_file():  # removed under it: start anew
        _release(_taken.pop(key))
        known = None
    now = time.monotonic()
    if (
        known is not None
        and known.settled
        and known.view == _view
        and now - known.at < FRESH_SECONDS
    ):
        return key  # before the look at the app's files: `usage` asks once per session
    current = _fingerprint(name)
    if known is not None and known.settled:
        if known.fingerprint == current:
            return key
        due = known.database_at + _refresh_wait(known.patch_seconds)
        if (known.fingerprint[0] != current[0] or _read_now(key)) and now < due:
            return key  # the app checkpointed a moment ago: behind until due
    folder = _snapshot_folder(name)  # a stand-in now if the cache's may not be written
    _own_folder(folder)
    if folder / str(os.getpid()) / os.path.basename(name) != target:
        target = folder / str(os.getpid()) / os.path.basename(name)
        key = str(target)
        _release(known)
        known = None
    _tidy(folder, keep=_base_name(current[0]))
    _release(known)
    taken = None
    for _ in range(attempts):
        before = _fingerprint(name)
        database_at = known.database_at if known is not None else 0.0
        cost = known.patch_seconds if known is not None else 0.0
        held = None
        # a WAL topped up under a connection still open is read through its old index
        if known is None or known.fingerprint[0] != before[0] or _read_now(key):
            begun, cpu = time.monotonic(), _cpu_time()
            if not _database_copy(name, folder, target, before[0], fresh=known is None):
                continue  # the app wrote into its database during the copy
            database_at = time.monotonic()
            # a link to the shared base costs nothing; the first patch copies it whole
            cost = (
                max(0, before[0][0]) * PATCH_SECONDS_PER_BYTE
                if known is None
                else _patch_cost(_cpu_time() - cpu, database_at - begun)
            )
        else:
            held = known.wal  # the same database file: top its WAL up
        wal = _wal_copy(name, key, held)
        taken = _Taken(before, time.monotonic(), database_at, wal, cost)
        if _fingerprint(name) == before:
            break
        known = taken  # a write landed meanwhile: go on from what was copied
        known.settled = False
    if taken is None:
        if not target.is_file():
            raise OSError(
                errno.EAGAIN, f"{name} changed during every try to copy it; try again"
            )
        taken = _Taken(
            ((-2, -2, ""), (-2, -2, "")), time.monotonic(), 0.0, settled=False
        )
    elif _fingerprint(name) != taken.fingerprint:
        taken.settled = False
    taken.keeper = _keeper(key)
    taken.view = _view
    _taken[key] = taken
    return key


def _read_now(copy: str) -> bool:
    """Whether a connection of this process has the copy `copy` open: what changed is
    then copied into a file of its own, as a patch is costed (SQLite shares a file's
    wal-index among a process's connections). Not on Windows, which shares it by the
    file's name and replaces no file open."""
    return bool(_readers.get(copy)) and sys.platform != "win32"


def _cpu_time() -> float:
    """This thread's CPU time (where the platform tells none: the process's)."""
    clock = getattr(time, "thread_time", time.process_time)
    return float(clock())


def _patch_cost(cpu: float, wall: float) -> float:
    """What a patch that took `cpu` seconds of CPU in `wall` seconds costs, in seconds of
    CPU (PATCH_SHARE): the wall clock alone counts the time a loaded machine gave other
    processes (a patch of 3 ms timed 80 ms waited 8 s; now 0.8 s)."""
    return max(cpu, wall * PATCH_SHARE / PATCH_WALL_SHARE)


def _refresh_wait(patch_seconds: float) -> float:
    """How long after its last patch this process's copy of a database file waits before
    it is patched again (see PATCH_SHARE)."""
    wait = max(REFRESH_FLOOR_SECONDS, patch_seconds / PATCH_SHARE)
    return min(REFRESH_DATABASE_SECONDS, wait)


def _database_copy(
    name: str,
    folder: Path,
    target: Path,
    database: tuple[int, int, str],
    *,
    fresh: bool,
) -> bool:
    """Make `target` the app's database file as `database` says it is: at a process's
    first snapshot, a link to the shared base (copied from the app's file if missing);
    later, this process's own copy, patched block by block where a checkpoint changed
    it. False when the app's file changed meanwhile."""
    if fresh or not target.is_file():
        base = _base(name, folder, database)
        if base is None:
            return False
        _unlink(target, "-shm", "-wal", "")
        try:
            os.link(base, target)
        except FileNotFoundError:
            return False  # another process recycled it meanwhile: try again
        except OSError:  # a file system without hard links: a copy of our own
            try:
                _copy(str(base), target)
            except FileNotFoundError:
                return False
        return True
    # still the shared base, or a file a connection of this process has open
    # (`_read_now`: the next one read the new WAL through the old one's index): patched
    # in a copy of our own
    if target.stat().st_nlink > 1 or _read_now(str(target)):
        _make_room(folder, target.stat().st_size)
        own = target.with_name(target.name + ".own")
        _copy(str(target), own)
        os.replace(own, target)
    _unlink(target, "-shm")
    _patch(name, target)
    return _fingerprint(name)[0] == database


def _unlink(path: Path, *suffixes: str) -> None:
    """Remove `path` + each suffix ("" for the file itself) that exists."""
    for suffix in suffixes:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(str(path) + suffix)


def _patch(name: str, target: Path) -> None:
    """Rewrite the blocks of `target` that differ from the app's file `name`: a
    checkpoint changes a few pages of a database that may weigh GBs."""
    with files.open_regular(name) as source, open(target, "r+b") as copy:
        offset = 0
        while chunk := source.read(CHUNK):
            held = copy.read(len(chunk))
            if held != chunk:
                for at in range(0, len(chunk), PAGE):
                    if held[at : at + PAGE] != chunk[at : at + PAGE]:
                        copy.seek(offset + at)
                        copy.write(chunk[at : at + PAGE])
                copy.seek(offset + len(chunk))
            offset += len(chunk)
        copy.truncate(offset)


WAL_HEADER = 32  # bytes: a WAL's magic, page size, checkpoint sequence and salts
FRAME_HEADER = 24  # page number, database size after a commit, salts, checksums


def _wal_copy(name: str, copy: str, held: _Wal | None) -> _Wal | None:
    """Bring this process's copy of the app's WAL up to date: the frames of the WAL's
    current generation up to its last commit. While the app appends to the same
    generation, only what follows the last commit copied (`held`); after a checkpoint
    restarted it (new header) the whole generation. The app's file keeps the frames of
    older generations behind the new ones, which SQLite ignores: they are not copied."""
    try:
        source = files.open_regular(name + "-wal")  # closed below
    except FileNotFoundError:
        _unlink(Path(copy), "-wal")
        return None
    with source:
        header = source.read(WAL_HEADER)
        if len(header) < WAL_HEADER:
            _unlink(Path(copy), "-wal")
            return None
        topping_up = (
            held is not None and held.header == header and os.path.isfile(copy + "-wal")
        )
        start = held.resume if topping_up and held is not None else WAL_HEADER
        end, last = _wal_commits(source, header, start)
        _make_room(Path(copy).parent, end - start)
        # topped up in place (the frames a connection may read stay as they were), or
        # written anew beside it: a connection still open keeps the WAL it opened
        written = copy + "-wal" if topping_up else copy + "-wal.new"
        try:
            with open(written, "r+b" if topping_up else "wb") as mine:
                if not topping_up:
                    mine.write(header)
                mine.seek(start)
                source.seek(start)
                left = end - start
                while left > 0 and (chunk := source.read(min(CHUNK, left))):
                    mine.write(chunk)
                    left -= len(chunk)
                mine.truncate(max(end, WAL_HEADER))
        except BaseException:
            if not topping_up:
                Path(written).unlink(missing_ok=True)
            raise
        if not topping_up:
            os.replace(written, copy + "-wal")
    # the wal-index in -shm knows the old frames only: the next connection rebuilds it
    _unlink(Path(copy), "-shm")
    return _Wal(header, last)


def _wal_commits(stream: BinaryIO, header: bytes, start: int) -> tuple[int, int]:
    """(the end of the last commit frame, that frame's offset) of the generation
    `header` starts, from frame offset `start` on: frames of the generation carry its
    salts; a commit frame says the database's size after it."""
    page = int.from_bytes(header[8:12], "big")
    page = 65536 if page == 1 else page
    if page < 512 or page & (page - 1):
        return WAL_HEADER, WAL_HEADER  # not a WAL we know: none of its frames
    frame = FRAME_HEADER + page
    size = stream.seek(0, os.SEEK_END)
    salts = header[16:24]
    end = last = start
    position = start
    while position + frame <= size:
        stream.seek(position)
        head = stream.read(FRAME_HEADER)
        if len(head) < FRAME_HEADER or head[8:16] != salts:
            break
        if head[4:8] != b"\0\0\0\0":  # a commit: the database's pages after it
            end, last = position + frame, position
        position += frame
    return end, last


def _keeper(copy: str) -> sqlite3.Connection | None:
    """A connection that stays open on the snapshot (see `_Taken.keeper`)."""
    try:
        keeper = sqlite3.connect(
            sqlite_uri(copy, "mode=ro"), uri=True, check_same_thread=False
        )
        keeper.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.Error:
        return None
    return keeper


def _release(taken: _Taken | None) -> None:
    if taken is not None and taken.keeper is not None:
        with contextlib.suppress(sqlite3.Error):
            taken.keeper.close()
        taken.keeper = None


def forget_snapshots() -> None:
    """Close the connections this process keeps on its snapshots and forget them (the
    next read of each database takes a snapshot anew)."""
    with _lock:
        for taken in _taken.values():
            _release(taken)
        _taken.clear()


def snapshot_current(path: str | os.PathLike[str]) -> bool:
    """Whether this process's snapshot of database `path` (if it took one) still shows
    it as it is now: False when a young snapshot served a read after the app wrote."""
    name = os.fspath(path)
    for key, taken in _taken.items():
        if Path(key).parent.parent.name == _snapshot_key(name):
            return taken.settled and taken.fingerprint == _fingerprint(name)
    return True


def written_before(path: str | os.PathLike[str], since_ns: int) -> bool:
    """Whether the app's database `path` and its WAL were last written before
    `since_ns` (wall clock) by REFRESH_DATABASE_SECONDS and a coarse clock's tick: every
    read of it since, in place or through a snapshot (one a checkpoint left behind
    serves at most that long), saw the same rows. False where either cannot be looked
    at."""
    name = os.fspath(path)
    bound = since_ns - int(REFRESH_DATABASE_SECONDS * 1e9) - freshness.RACY_NS
    for suffix in ("", "-wal"):
        try:
            st = os.stat(name + suffix)
        except FileNotFoundError:
            continue
        except OSError:
            return False
        if freshness.changed_ns(st) >= bound:
            return False
    return True


def _base(name: str, folder: Path, database: tuple[int, int, str]) -> Path | None:
    """The shared copy of the app's database file as `database` (size, mtime, headers)
    says it is, made now if missing; None when the file changed while it was copied."""
    size = database[0]
    base = folder / _base_name(database)
    if base.is_file():
        return base
    partial = folder / f".partial-{os.getpid()}"
    # an older base no one uses: patched where it differs, rather than copied whole
    if _recycled(folder, partial):
        try:
            _make_room(folder, 0)
            _patch(name, partial)
        except BaseException:
            partial.unlink(missing_ok=True)
            raise
    else:
        _make_room(folder, max(0, size))
        _copy(name, partial)
    if _fingerprint(name)[0] != database:
        partial.unlink(missing_ok=True)
        return None
    _blank_login(name, partial)
    os.replace(partial, base)  # whole or not at all, for every process
    return base


def _blank_login(name: str, copy: Path) -> None:
    """Write zeros over the pages of `copy` (a copy of database `name`'s file) that hold
    the app's login: those of the tables its adapter named (and their indexes), and the
    free pages, where a login the app replaced may linger. Every other page stays as it
    is, so the app's WAL still reads over the copy (it holds any page of those tables the
    app wrote since: it goes at exit). Where SQLite cannot say which pages they are (no
    `dbstat` in its build), no base of the database is kept past the process."""
    key = os.path.abspath(name)
    tables = _logins.get(key)
    if not tables:
        return
    try:
        pages, size = _login_pages(copy, tables)
        with open(copy, "r+b") as handle:
            pages |= _free_pages(handle, size)
            blank = bytes(size)
            for page in sorted(pages):
                if page > 1:  # the header and the schema are no login
                    handle.seek((page - 1) * size)
                    handle.write(blank)
    except (sqlite3.Error, OSError, ValueError):
        _logins[key] = ()  # not blanked: the whole folder goes, at exit or by the sweep
        with contextlib.suppress(OSError):
            (copy.parent / LOGIN_FILE).write_text("", encoding="utf-8")


def _login_pages(copy: Path, tables: tuple[str, ...]) -> tuple[set[int], int]:
    """The pages of `tables` and their indexes in the database file `copy`, and its page
    size."""
    uri = sqlite_uri(str(copy), "mode=ro&immutable=1")
    with contextlib.closing(sqlite3.connect(uri, uri=True)) as db:
        marks = ",".join("?" * len(tables))
        trees = [
            row[0]
            for row in db.execute(
                f"SELECT name FROM sqlite_master WHERE tbl_name IN ({marks})", tables
            )
        ]
        pages: set[int] = set()
        for tree in trees:  # one at a time: dbstat seeks a name, scans for a list
            pages.update(
                row[0]
                for row in db.execute(
                    "SELECT pageno FROM dbstat WHERE name = ?", (tree,)
                )
            )
        size = int(db.execute("PRAGMA page_size").fetchone()[0])
    return pages, size


def _free_pages(handle: BinaryIO, size: int) -> set[int]:
    """The free-list's leaf pages of the database file open in `handle`; the unused end
    of each trunk page is blanked here (its list of leaves stays). Bounded by the count
    the header gives, against a damaged list that loops."""
    handle.seek(0)
    header = handle.read(100)
    if len(header) < 100:
        return set()
    trunk = int.from_bytes(header[32:36], "big")
    left = int.from_bytes(header[36:40], "big")
    pages = handle.seek(0, os.SEEK_END) // size
    leaves: set[int] = set()
    while 1 < trunk <= pages and left > 0:
        handle.seek((trunk - 1) * size)
        page = handle.read(size)
        count = min(int.from_bytes(page[4:8], "big"), (size - 8) // 4)
        for at in range(8, 8 + 4 * count, 4):
            leaf = int.from_bytes(page[at : at + 4], "big")
            if 1 < leaf <= pages:
                leaves.add(leaf)
        handle.seek((trunk - 1) * size + 8 + 4 * count)
        handle.write(bytes(size - 8 - 4 * count))
        left -= count + 1
        trunk = int.from_bytes(page[0:4], "big")
    return leaves


def _recycled(folder: Path, partial: Path) -> bool:
    """Take the newest base no process links (an older state of the database: after a
    checkpoint, most of its blocks are still right) as `partial`; False when none."""
    for _, path in reversed(_unused_bases(folder)):
        try:
            os.rename(path, partial)  # atomic: one process gets it
        except OSError:
            continue
        if os.stat(partial).st_nlink <= 1:
            return True
        os.unlink(partial)  # linked meanwhile: it is that process's now
        return False
    return False


def _base_name(database: tuple[int, int, str]) -> str:
    return f"base-{database[0]}-{database[1]}-{database[2]}"


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
    ended, and bases no one links to (but `keep`, the database as it is now, the newest
    minute's, about to be linked, and the newest other, to be patched into the next)."""
    now = time.time()
    for entry in os.scandir(folder):
        owner = entry.name.removeprefix(".partial-")  # a copy a killed process left
        if owner.isdigit() and not _alive(int(owner)):
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)
    old = [
        (t, path)
        for t, path in _unused_bases(folder, keep)
        if now - t > BASE_GRACE_SECONDS
    ]
    for _, path in old[:-1]:  # the newest is kept, to be patched next time
        with contextlib.suppress(OSError):
            os.unlink(path)


def _unused_bases(folder: Path, keep: str = "") -> list[tuple[float, str]]:
    """(mtime, path) of the bases no process links (but `keep`), oldest first."""
    found = []
    for entry in os.scandir(folder):
        if entry.name.startswith("base-") and entry.name != keep:
            with contextlib.suppress(OSError):
                st = entry.stat(follow_symlinks=False)
                if st.st_nlink <= 1:
                    found.append((st.st_mtime, entry.path))
    return sorted(found)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    if sys.platform == "win32":  # os.kill would end the process, whatever the signal
        return _alive_on_windows(pid)
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
            needed = inplace.hot_journal(source)
        else:  # needed only while the app keeps a WAL
            needed = os.path.exists(source + "-wal")
        if (idle or not needed) and not _held_by_others(folder):
            freed += folder_size(folder)
            shutil.rmtree(folder, ignore_errors=True)
    with contextlib.suppress(OSError):
        mark.touch()
        os.utime(mark, (now, now))
    return freed


def folder_size(folder: os.PathLike[str]) -> int:
    """The bytes of the files in a folder and below (links not followed; a file linked
    under several names counted once)."""
    total = 0
    seen: set[tuple[int, int]] = set()
    for base, _, names in os.walk(folder):
        for entry in names:
            with contextlib.suppress(OSError):
                st = os.lstat(os.path.join(base, entry))
                if (st.st_dev, st.st_ino) not in seen:
                    seen.add((st.st_dev, st.st_ino))
                    total += st.st_size
    return total


def _alive_on_windows(pid: int) -> bool:
    """Whether process `pid` runs, asked of Windows without touching it."""
    if sys.platform != "win32":
        return True
    import ctypes

    kernel = ctypes.windll.kernel32
    handle = kernel.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
    if not handle:
        return (
            kernel.GetLastError() == 5
        )  # ERROR_ACCESS_DENIED: it runs, as another user
    try:
        code = ctypes.c_ulong()
        if not kernel.GetExitCodeProcess(handle, ctypes.byref(code)):
            return True
        return code.value == 259  # STILL_ACTIVE
    finally:
        kernel.CloseHandle(handle)


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


def known_columns(
    connection: sqlite3.Connection,
    table: str,
    needed: set[str],
    diagnostics: Diagnostics,
    where: tuple[str, str | os.PathLike[str]],
    known_as: str,
) -> set[str] | None:
    """`table_columns`, or None where `needed` are not all among them (no such table: the
    database is another's), said as `<app>: <path> has no <table> table; not a
    <known_as> we know` (`where`: the app and the database's path)."""
    available = table_columns(connection, table)
    if needed <= available:
        return available
    app, path = where
    diagnostics.problem(
        f"{app}: {os.fspath(path)} has no {table} table; not a {known_as} we know"
    )
    return None


def indexed(connection: sqlite3.Connection, table: str, *columns: str) -> bool:
    """Whether an index of `table` starts with `columns`, in that order: a look-up by
    them is then a seek, not a scan of the table."""
    for index in connection.execute(
        f"PRAGMA index_list({quote_identifier(table)})"
    ).fetchall():
        keys = connection.execute(
            f"PRAGMA index_info({quote_identifier(str(index[1]))})"
        ).fetchall()
        if tuple(key[2] for key in sorted(keys))[: len(columns)] == columns:
            return True
    return False


def row_marks(
    connection: sqlite3.Connection,
    table: str,
    key: str = "session_id",
    summed: Sequence[str] = (),
    hashed: Sequence[str] = (),
) -> dict[str, str]:
    """Per value of `key`, how many rows of `table` hold it, the newest rowid among them,
    the totals of its `summed` columns and the summed checksums of its `hashed` ones
    (those it has), as one short text: it changes with a row added, removed, counted up
    (`summed`) or rewritten in place (`hashed`), whatever time the row carries (a clock
    stepped back, a session imported), where a session's times may not. One pass over an
    index on `key` where the table has one and nothing is summed or hashed; {} without
    `key`."""
    columns = table_columns(connection, table)
    if key not in columns:
        return {}
    named, keyed = quote_identifier(table), quote_identifier(key)
    totals = "".join(
        f", total({quote_identifier(name)})" for name in summed if name in columns
    )
    if checked := [name for name in hashed if name in columns]:
        # CRC-32 of each value's bytes (a NULL's as none), summed: zlib's own function,
        # not a Python one around it, is called once a row
        connection.create_function("_sessdex_crc32", 1, zlib.crc32, deterministic=True)
        totals += "".join(
            f", sum(_sessdex_crc32(CAST(coalesce({quote_identifier(name)}, '') AS BLOB)))"
            for name in checked
        )
    try:
        rows = connection.execute(
            f"SELECT {keyed}, count(*), max(rowid){totals} FROM {named} GROUP BY {keyed}"
        ).fetchall()
    except sqlite3.OperationalError:  # no rowid (a view, WITHOUT ROWID): the rest
        rows = connection.execute(
            f"SELECT {keyed}, count(*), NULL{totals} FROM {named} GROUP BY {keyed}"
        ).fetchall()
    return {
        row[0]: ":".join(map(str, row[1:])) for row in rows if isinstance(row[0], str)
    }


def quote_identifier(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


# a table whose rowids span at most this many, and that has an index, is counted too (a
# few pages of its smallest index): a sessions table, where a row deleted moves no newest
# rowid. One with no index is not: its count walks every row's page (100,000 rows of a few
# KB: 0.1-0.25 s, once a second while its app writes)
COUNTED_SPAN = 100_000


# a listed table (`rows_mark`) of at most this many rows is checksummed row by row (252
# OpenCode sessions: 0.4 ms of CPU); past it, marked as any other table
LISTED_ROWS = 20_000


def rows_mark(
    path: str | os.PathLike[str],
    listed: Mapping[str, Collection[str]] | Collection[str] = (),
) -> tuple[object, ...]:
    """What moves when a row is added to any table of the database (a session, a
    message) or deleted from a small one (a session), or a table is made, as
    `open_sqlite` reads it now: each table's newest rowid, its count where its rowids
    span at most COUNTED_SPAN, and the schema's version; a few pages read. A row changed
    in place moves none of it, but in the tables named `listed` (those whose rows an
    app's listing shows: a title renamed, a session archived or deleted), whose rows are
    checksummed while they are at most LISTED_ROWS: their columns `listed` maps them to
    (what the listing reads), all where it names none. Opened without naming its login: the
    app's listing opened it first, and named where its login lies."""
    connection = open_sqlite(path)
    try:
        tables = connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
        ).fetchall()
        found: list[object] = [connection.execute("PRAGMA schema_version").fetchone()]
        for (table,) in tables:
            name = str(table)
            mark = None
            if name in listed:
                columns = listed[name] if isinstance(listed, Mapping) else ()
                mark = _listed_mark(connection, name, columns)
            found.append(mark if mark is not None else _table_mark(connection, name))
        return tuple(found)
    finally:
        connection.close()


def _listed_mark(
    connection: sqlite3.Connection, name: str, wanted: Collection[str]
) -> object:
    """A listed table's rows, counted and checksummed (each row's `wanted` values, all
    where it names none, with its rowid, so that two titles swapped move it too); None
    where it is too big or has no rowid. The checksum is Python's `hash`, salted per process: a mark is compared only
    with one this process took."""
    table = quote_identifier(name)
    try:
        (count,) = connection.execute(f"SELECT count(*) FROM {table}").fetchone()
        if not isinstance(count, int) or count > LISTED_ROWS:
            return None
        # the listing's columns alone: another may hold whole files (OpenCode's
        # summary_diffs), read again at each mark
        columns = "".join(
            f", {quote_identifier(str(row[1]))}"
            for row in connection.execute(f"PRAGMA table_info({table})")
            if not wanted or row[1] in wanted
        )
        # one call a row (a call a value, or SQLite's quote() and group_concat() of the
        # rows, cost three to five times as much)
        connection.create_function(
            "_sessdex_row_hash", -1, _row_hash, deterministic=True
        )
        (total,) = connection.execute(
            f"SELECT sum(_sessdex_row_hash(rowid{columns})) FROM {table}"
        ).fetchone()
    except sqlite3.Error:  # WITHOUT ROWID, a module this SQLite lacks
        return None
    return "listed", count, total


def _row_hash(*values: object) -> int:
    return hash(values) & 0xFFFFFFFF  # summed over 20,000 rows at most: no overflow


def _table_mark(connection: sqlite3.Connection, name: str) -> object:
    table = quote_identifier(name)
    try:
        # apart, each is one seek; together in one SELECT, a scan
        low, high = connection.execute(
            f"SELECT (SELECT min(rowid) FROM {table}), (SELECT max(rowid) FROM {table})"
        ).fetchone()
        if not isinstance(low, int) or not isinstance(high, int):
            return high
        if high - low >= COUNTED_SPAN or not _indexed(connection, table):
            return high
        return high, connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    except sqlite3.Error:  # WITHOUT ROWID, a module this SQLite lacks
        return None


def _indexed(connection: sqlite3.Connection, table: str) -> bool:
    """Whether `table` has an index its count can walk instead of its rows."""
    return connection.execute(f"PRAGMA index_list({table})").fetchone() is not None


NO_ROWID = "no rowid (a view, not a table): not read"
_VIEW_PIECES = 8  # a view's huge value is cut in about this many pieces
_BLOBS_PRUNED = 1024  # a connection's blob handles between two prunes of the dead ones
# id(connection) -> the blob handles it opened since its dead ones were last dropped (a
# connection takes no weak reference, so those of connections gone stay: all are
# forgotten when one more than `_CONNECTIONS_COUNTED` begins)
_blobs_opened: dict[int, int] = {}
_CONNECTIONS_COUNTED = 64


# (the file a connection reads, as it stood, a query, the shape) -> (what `shape` made of
# its rows, their size as `_held` estimates it), oldest first
_SCANS: dict[tuple[str, str, str, str], tuple[object, int]] = {}
SCANS_KEPT = 8  # scans a process keeps at most...
SCANS_KEPT_BYTES = 64 * 2**20  # ...holding at most this much together (a long `watch`)
T = TypeVar("T")


def scanned(
    connection: sqlite3.Connection,
    query: str,
    shape: Callable[[list[tuple[object, ...]]], T],
) -> T:
    """`shape` of the rows of `query`, run once for all the reads of a run while the
    file the connection reads (an app's database, or sessdex's copy of it) stands as it
    stood: for a scan each read would make again, by a column no index leads with (a
    scan a read, over a database of thousands of sessions, cost the squares of their
    number). The value kept is `shape`'s own: another shaping the same query's rows
    (told apart by its module, name and first line, not by what it closes over: a
    shape is of the rows alone) scans for its own. Scans kept hold at most
    `SCANS_KEPT_BYTES` together, the oldest dropped for a new one; one past it alone is
    not kept (each read scans again, and holds it only while it reads). Raises what
    SQLite raises."""
    file = next(
        (str(row[2]) for row in connection.execute("PRAGMA database_list")
         if row[1] == "main"), "",
    )  # fmt: skip
    key = (file, freshness.read_signature(file) if file else "", query, _named(shape))
    # one look-up: a worker thread may drop the scan between two
    kept = _SCANS.get(key)
    if kept is not None:
        return cast(T, kept[0])
    rows = connection.execute(query).fetchall()
    size = _held(rows)
    found = shape(rows)
    # kept where the file stood still during the scan (and is a file)
    if file and key[1] == freshness.read_signature(file) and size <= SCANS_KEPT_BYTES:
        _room_for_scan(size)
        _SCANS[key] = (found, size)
    return found


def _held(rows: list[tuple[object, ...]]) -> int:
    """About what a shape of `rows` holds: their values, and their tuples twice (a
    shape keeps them, or one of its own a row, and a place in a list or dict)."""
    import itertools

    cells = sum(map(sys.getsizeof, itertools.chain.from_iterable(rows)))
    return cells + 2 * sum(map(sys.getsizeof, rows)) + sys.getsizeof(rows)


def _room_for_scan(size: int) -> None:
    """Drop the oldest scans kept until one more of `size` bytes fits both bounds."""
    for old in list(_SCANS):  # a copy: a worker thread may drop some meanwhile
        kept = list(_SCANS.values())
        if (
            len(kept) < SCANS_KEPT
            and sum(s for _, s in kept) + size <= SCANS_KEPT_BYTES
        ):
            return
        _SCANS.pop(old, None)


def _named(shape: Callable[..., object]) -> str:
    """What tells one shape from another across the run: its module and name, and its
    first line (two lambdas of one function share a name)."""
    code = getattr(shape, "__code__", None)
    line = getattr(code, "co_firstlineno", "")
    name = getattr(shape, "__qualname__", None) or repr(shape)
    return f"{getattr(shape, '__module__', '')}:{name}:{line}"


def bounded_value(
    connection: sqlite3.Connection,
    table: str,
    column: str,
    rowid: int | None,
    *,
    full: bool = False,
    diagnostics: Diagnostics | None = None,
    where: str = "",
    key: tuple[str, object] | None = None,
    listed: tuple[object, object] | None = None,
    keys: tuple[tuple[str, object], ...] = (),
) -> bytes | str | None:
    """One row's JSON text without ever holding a huge one whole.

    A value up to `files.READ_LINE_CAP` (or any, with `full`) comes back as it is; a longer
    one (a pasted image, a huge tool output) streams through `files.Compactor`, its long
    strings elided as a transcript's are, and is None if it stays too long even so (counted
    in `diagnostics` as "too long" at `where`). Read through SQLite's incremental blob IO,
    which learns a value's size without loading it (`length()` and every other SQL function
    load it whole). A value that IO cannot open (NULL, a number), or text in a UTF-16
    database (blob IO gives its raw bytes), is read the plain way; a view's row, which
    has no rowid to find it by, is read by its `key` (column, value) where one is given,
    with `keys`, the other columns of a key of several (`_keyed_value`), else None
    (counted as `NO_ROWID`). `listed` is what the query that
    listed a view's row selected with it (`view_values`): a value that fits comes from
    there, with no look-up of its own.
    """
    from . import files

    if not isinstance(rowid, int):  # a view's rows have none (NULL): nothing opens them
        if listed is not None:
            value, size = listed
            if value is not None or not isinstance(size, int):  # all but a huge one
                return value if isinstance(value, bytes | str) else None
        if key is not None:
            return _keyed_value(
                connection, table, column, (key, *keys), full, diagnostics, where
            )
        if diagnostics is not None:
            diagnostics.skip(where, 0, NO_ROWID)
        return None
    try:
        blob = open_blob(connection, table, column, rowid)
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


def _keyed_value(
    connection: sqlite3.Connection,
    table: str,
    column: str,
    key: tuple[tuple[str, object], ...],
    full: bool,
    diagnostics: Diagnostics | None,
    where: str,
) -> bytes | str | None:
    """A view's value found by its key (each column's value): no blob IO opens it, so its size is asked first
    (the cast makes `length` count bytes) and one past `files.READ_LINE_CAP` is read a
    piece at a time and compacted as a table's is (`files.compacted`: its long strings
    cut, their size said), None and counted "too long" where it stays too long even so."""
    from . import files

    matched = " AND ".join(f"{quote_identifier(name)} = ?" for name, _ in key)
    found = f"FROM {quote_identifier(table)} WHERE {matched} LIMIT 1"
    values = tuple(value for _, value in key)
    value = quote_identifier(column)
    if not full:
        row = connection.execute(
            f"SELECT length(CAST({value} AS BLOB)) {found}", values
        ).fetchone()
        if row and isinstance(row[0], int) and row[0] > files.READ_LINE_CAP:
            # UTF-8 text is cut as bytes (SQLite need not count characters); UTF-16
            # text as characters, since its bytes are not the JSON's
            utf8 = connection.execute("PRAGMA encoding").fetchone()[0] == "UTF-8"
            piece = f"CAST({value} AS BLOB)" if utf8 else value
            query = f"SELECT substr({piece}, ?, ?) {found}"
            compact = files.compacted(_pieces(connection, query, values, row[0]))
            if compact is None and diagnostics is not None:
                diagnostics.skip(where, 0, "too long")
            return compact
    row = connection.execute(f"SELECT {value} {found}", values).fetchone()
    data = row[0] if row else None
    return data if isinstance(data, bytes | str) else None


def _pieces(
    connection: sqlite3.Connection, query: str, key: tuple[object, ...], size: int
) -> Iterator[bytes]:
    """A view's value of `size` bytes in at most about `_VIEW_PIECES` pieces (of
    `files.CHUNK` bytes at least; characters of UTF-16 text), as UTF-8. SQLite loads the
    whole value to cut each piece from it (no blob IO opens a view's row): few pieces
    keep that time down, and Python never holds more than one of them."""
    from . import files

    length = max(files.CHUNK, -(-size // _VIEW_PIECES))
    at = 1
    # Stop at the size measured: a value made anew at each read (a view over
    # randomblob()) must not keep the loop asking for more. Characters of text are
    # never more than its bytes, so `size` bounds both.
    while at <= size:
        row = connection.execute(query, (at, length, *key)).fetchone()
        piece = row[0] if row else None
        if not isinstance(piece, bytes | str) or not piece:
            return
        yield piece.encode(errors="replace") if isinstance(piece, str) else piece
        at += len(piece)


def view_values(column: str, full: bool = False) -> str:
    """The SQL selecting, beside a view's row, its `column` where that is at most
    `files.READ_LINE_CAP` bytes (any, with `full`), then its size: the `listed` pair of
    `bounded_value`. Rows read in the pass that lists them: a look-up by key of each
    would scan a view without an index once per row."""
    from . import files

    size = f"length(CAST({column} AS BLOB))"
    if full:
        return f"{column}, {size}"
    return f"CASE WHEN {size} <= {files.READ_LINE_CAP} THEN {column} END, {size}"


def first_rows(
    connection: sqlite3.Connection,
    table: str,
    by: str,
    wanted: Sequence[object],
    order: str,
    most: int,
    where: str = "",
) -> dict[object, list[tuple[object, int | None, tuple[object, object] | None]]]:
    """The first `most` rows (by `order`) of each value of column `by` in `wanted`, in
    one query (and one more for a view's data): where a look-up of each value would scan a view without an index once
    a value. Each row as (its `id`, its rowid, `listed`: `view_values` of its `data`
    where `table` is a view, else None) for `bounded_value`, in order, by the value its
    `by` holds. A value other than text or an integer (a blob, a float) finds no row."""
    import json

    wanted = [
        value
        for value in wanted
        if isinstance(value, str) or type(value) is int  # what JSON carries as it is
    ]
    if not wanted:
        return {}
    view = is_view(connection, table)
    quoted, by = quote_identifier(table), quote_identifier(by)
    # the window sorts every row of the values wanted: their ids alone, a view's data
    # only for the rows listed (sorted with them, a 64 MB value in a row never listed
    # took 400 MB)
    query = (
        f"SELECT {by}, id, listed_rowid FROM (SELECT {by}, id, rowid AS listed_rowid,"
        f" row_number() OVER (PARTITION BY {by} ORDER BY {order}) AS listed_n"
        f" FROM {quoted} WHERE {by} IN (SELECT value FROM json_each(?)) {where})"
        f" WHERE listed_n <= {int(most)} ORDER BY {by}, listed_n"
    )
    found = connection.execute(
        query, (json.dumps(list(dict.fromkeys(wanted)), ensure_ascii=False),)
    ).fetchall()
    values = _listed_values(connection, table, by, found, where) if view else {}
    rows: dict[object, list[tuple[object, int | None, tuple[object, object] | None]]]
    rows = {}
    for key, row_id, rowid in found:
        rows.setdefault(key, []).append(
            (
                row_id,
                rowid if isinstance(rowid, int) else None,
                values.get((key, row_id)) if view else None,
            )
        )
    return rows


def _listed_values(
    connection: sqlite3.Connection,
    table: str,
    by: str,
    found: Sequence[tuple[object, object, object]],
    where: str,
) -> dict[tuple[object, object], tuple[object, object]]:
    """(`by`'s value, id) -> `view_values` of `data`, of the rows `first_rows` found in a
    view, in one more pass over it. A row whose id JSON cannot carry (a blob) is looked
    up by `bounded_value` on its own."""
    import json

    ids = [
        row_id
        for _, row_id, _ in found
        if isinstance(row_id, str) or type(row_id) is int
    ]
    if not ids:
        return {}
    keys = list(dict.fromkeys(key for key, _, _ in found))
    query = (
        f"SELECT {by}, id, {view_values('data')} FROM {quote_identifier(table)}"
        f" WHERE {by} IN (SELECT value FROM json_each(?))"
        f" AND id IN (SELECT value FROM json_each(?)) {where}"
    )
    values: dict[tuple[object, object], tuple[object, object]] = {}
    for key, row_id, value, size in connection.execute(
        query,
        (
            json.dumps(keys, ensure_ascii=False),
            json.dumps(list(dict.fromkeys(ids)), ensure_ascii=False),
        ),
    ):
        values.setdefault((key, row_id), (value, size))
    return values


def is_view(connection: sqlite3.Connection, table: str) -> bool:
    """Whether `table` is a view: its rows have no rowid (NULL) for blob IO to open."""
    row = connection.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'view' AND name = ?", (table,)
    ).fetchone()
    return row is not None


def value_opening(
    connection: sqlite3.Connection, table: str, column: str, rowid: int, size: int
) -> bytes | None:
    """The first `size` bytes of one row's value, read through blob IO (never the rest);
    None where that IO cannot open it (NULL, a number, a view's row)."""
    try:
        with open_blob(connection, table, column, rowid) as blob:
            return blob.read(size)
    except sqlite3.Error:
        return None


def open_blob(
    connection: sqlite3.Connection, table: str, column: str, rowid: int
) -> sqlite3.Blob:
    """A read-only blob IO handle on one row's value (`connection.blobopen`), without
    what Python's sqlite3 leaves behind each: a weak reference to the handle, in a list
    on the connection that it never prunes (CPython gh-144424), about 88 bytes a row read
    (a session of 200,000 parts held 17 MB of them). Every `_BLOBS_PRUNED` handles a
    connection opens, its dead ones are dropped (`_drop_dead_references`): counted for
    each connection, as a count of all connections' handles pruned only the one that
    opened each 1,024th (of two read in turn, the same one each time)."""
    key = id(connection)
    opened = _blobs_opened.get(key, 0) + 1
    if opened >= _BLOBS_PRUNED:
        _drop_dead_references(connection)
        opened = 0
    elif opened == 1 and len(_blobs_opened) >= _CONNECTIONS_COUNTED:
        _blobs_opened.clear()
    _blobs_opened[key] = opened
    return connection.blobopen(table, column, rowid, readonly=True)


def _drop_dead_references(connection: sqlite3.Connection) -> None:
    """Drop the dead weak references from each list of them the connection holds (its
    blob handles', and its cursors' in the Pythons that keep those): a dead one refers
    to nothing, so nothing that walks the list (closing the connection closes each live
    handle) misses it. The list is reached as the garbage collector reaches it: no API
    gives it."""
    import gc

    for held in gc.get_referents(connection):
        if type(held) is list and held and all(type(r) is weakref.ref for r in held):
            held[:] = [r for r in held if r() is not None]


def _plain_value(
    connection: sqlite3.Connection, table: str, column: str, rowid: int
) -> bytes | str | None:
    row = connection.execute(
        f"SELECT {quote_identifier(column)} FROM {quote_identifier(table)} WHERE rowid = ?",
        (rowid,),
    ).fetchone()
    value = row[0] if row else None
    return value if isinstance(value, bytes | str) else None
