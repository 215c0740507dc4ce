"""A home's index opened: its file (one per home and build, others' pruned), damage set
aside and built again, and a stand-in for the run where its disk has no room. Not the
tables (`indexschema`) nor what is read from them (`index`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import ParamSpec, TypeVar

from . import indexfile
from .indexfile import index_name
from .indexschema import migrate
from .paths import index_dir
from .sources import Home

log = logging.getLogger(__name__)

_T = TypeVar("_T")
_P = ParamSpec("_P")
BUSY_TIMEOUT_MS = 15_000


def index_file(home: Home) -> Path:
    """One index per home (and app overrides), so a copied home never mixes with yours,
    and per build of sessdex (`indexfile.code_stamp`)."""
    return index_dir() / index_name(str(home.path), home.environ)


# another build's index of this home, unused this long, goes
OTHER_BUILD_KEPT = 7 * 24 * 3600.0
# ... and so does any other index (another home's) after this
OTHER_HOME_KEPT = 28 * 24 * 3600.0


# what an index is kept with; ".carried": `indexcarry.MADE`, the mark that its build
# made it once; ".making": `indexcarry.MAKING`, what a run cut short left of its making;
# ".placing": `indexcarry.PLACING`, the lock a run killed holding it left; ".maker":
# `indexcarry.MAKER`, the lock its maker holds while it lives
_BESIDE = (
    "",
    "-wal",
    "-shm",
    ".damaged",
    ".carried",
    ".making",
    ".placing",
    ".maker",
)


def prune_older_builds(path: Path, now: float | None = None) -> None:
    """Remove this home's indexes that other builds of sessdex wrote and have not used for
    a week (a new build starts its own: what an older reader made of the files is not
    kept; two installs used side by side each keep theirs), and any other home's index
    unused for four weeks (a copied home read once with --home; those an older sessdex
    named after variables no app reads, one per working folder), and what was set aside
    as damaged with them. What is left of an index gone (deleted by hand: its mark, its
    damaged copy) goes after as long, from when it was last written."""
    now = time.time() if now is None else now
    prefix = path.name.rsplit("-", 1)[0]  # index-<home hash>
    for other in _indexes(path.parent):
        if other == path:
            continue
        kept = (
            OTHER_BUILD_KEPT if other.name.startswith(f"{prefix}-") else OTHER_HOME_KEPT
        )
        if now - _used(other) < kept:
            continue
        for suffix in _BESIDE:
            with contextlib.suppress(OSError):
                os.unlink(f"{other}{suffix}")


def _indexes(folder: Path) -> set[Path]:
    """The indexes in `folder`, by their own name, and those of which only a file kept
    beside one is left."""
    found = set()
    for each in folder.glob("index-*.sqlite*"):
        for suffix in _BESIDE:
            if suffix and each.name.endswith(f".sqlite{suffix}"):
                found.add(each.with_name(each.name[: -len(suffix)]))
                break
        else:
            if each.name.endswith(".sqlite"):
                found.add(each)
    return found


def _used(index: Path) -> float:
    """When the index was last written; where it is gone, when what is left of it was."""
    for suffixes in (("", "-wal"), _BESIDE):
        used = 0.0
        for suffix in suffixes:
            with contextlib.suppress(OSError):
                used = max(used, os.stat(f"{index}{suffix}").st_mtime)
        if used:
            return used
    return 0.0


def connect(path: Path) -> sqlite3.Connection:
    """The index at `path`, created or migrated as needed. A damaged file (sessdex's
    own cache: a disk error, a copy cut short) is moved aside and built again, with a
    warning, instead of failing every command. Something else in its place (a folder,
    a pipe), or an index sessdex may not write (one a `sudo sessdex` left), is left
    alone: a temporary index stands in for this run."""
    if os.path.lexists(path) and (not path.is_file() or not os.access(path, os.W_OK)):
        from .paths import stand_in

        log.warning(
            "sessdex's index %s is %s: using a temporary one for this run "
            "(remove it to keep an index again)",
            path,
            "not a file" if not path.is_file() else "not writable",
        )
        path = stand_in("sessdex-index-") / path.name
    try:
        return _connect(path)
    except sqlite3.OperationalError:
        raise  # busy, locked, or no room: not damage
    except sqlite3.DatabaseError as error:
        with contextlib.suppress(FileNotFoundError):  # another sessdex was first
            indexfile.set_aside(os.fspath(path), error)
        return _connect(path)


_opened: set[Path] = set()  # the indexes this process has opened


def once_more_if_damaged(function: Callable[_P, _T]) -> Callable[_P, _T]:
    """`function`, run once more on an index built again when one of its queries found
    the index damaged (`set_aside_if_damaged`): library callers recover as the CLI
    does, instead of meeting a raw `sqlite3.DatabaseError` at every call."""
    import functools

    @functools.wraps(function)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _T:
        try:
            return function(*args, **kwargs)
        except sqlite3.DatabaseError as error:
            if not set_aside_if_damaged(error):
                raise
            return function(*args, **kwargs)

    return wrapper


def set_aside_if_damaged(error: BaseException) -> bool:
    """Whether `error`, raised by a query, came from an index this process opened that
    is damaged (`indexfile.set_aside_if_damaged`): it is then moved aside, with the
    warning, and the next `Index` builds it again."""
    found = False
    for path in list(_opened):
        if indexfile.set_aside_if_damaged(os.fspath(path), error):
            _opened.discard(path)
            found = True
    return found


def _connect(path: Path) -> sqlite3.Connection:
    if not os.path.lexists(path):  # a new build's first, with an older build's rows
        from .indexcarry import create, make

        make(path)
        create(path)  # where `make` made none: never where it renames one meanwhile
    elif os.path.lexists(f"{path}.making"):  # `indexcarry.MAKING`, left by a run
        from .indexcarry import tidy

        tidy(path)  # before this run opens the index: Windows removes no name of it
    db = sqlite3.connect(
        path,
        timeout=BUSY_TIMEOUT_MS / 1000,
        isolation_level=None,
        check_same_thread=False,
    )
    db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
        try:
            db.execute("PRAGMA journal_mode = WAL")
        except (
            sqlite3.OperationalError
        ) as error:  # another process is switching it right now
            log.debug("journal mode unchanged: %s", error)
    db.execute("PRAGMA synchronous = NORMAL")
    db.execute("SELECT count(*) FROM sqlite_master").fetchone()  # reads the schema
    made = db.execute("PRAGMA user_version").fetchone()[0] == 0
    migrate(db, path)
    if made:  # one `make` did not make: its code digests stored
        from .indexcarry import carry_over

        carry_over(db, path)
    _opened.add(path)
    return db


# less free on the index's disk, and its I/O error is for want of room
ROOM_LEFT = 1 << 20


def no_room(error: sqlite3.OperationalError, path: Path | None) -> str | None:
    """Why the index (at `path`; None: a stand-in) cannot be written, where it is for
    want of room or a read-only disk: SQLite says so, or (the WAL's shared memory file
    cannot grow) it says "disk I/O error" on a disk that is all but full. None for
    anything else (busy, locked, damage)."""
    name = getattr(error, "sqlite_errorname", "")
    if name == "SQLITE_FULL":
        return "no room left on its disk"
    if name.startswith("SQLITE_READONLY"):
        return "it is read-only"
    if path is not None and name.startswith(("SQLITE_IOERR", "SQLITE_CANTOPEN")):
        import shutil

        try:
            if shutil.disk_usage(path.parent).free < ROOM_LEFT:
                return "no room left on its disk"
        except OSError:
            return None
    return None


def warn_not_updated(path: Path, why: str) -> None:
    log.warning(
        "sessdex could not update its index %s (%s): this run reads what changed "
        "without keeping it; free some space, or point SESSDEX_HOME to a bigger disk",
        path,
        why,
    )


def new_stand_in(target: str) -> sqlite3.Connection:
    return sqlite3.connect(target, isolation_level=None, check_same_thread=False)


def copy_of(path: Path, target: str, why: str) -> sqlite3.Connection:
    """A stand-in holding what the index at `path` holds, as far as it can be read
    without writing a byte (an index it cannot read: an empty one), with the warning."""
    warn_not_updated(path, why)
    copy = new_stand_in(target)
    # mode=ro needs the WAL's shared memory; immutable=1 does not, and misses only
    # what the WAL holds: those files are read again, as changed ones are
    for options in ("mode=ro", "immutable=1"):
        try:
            uri = indexfile.sqlite_uri(path, options)
            with contextlib.closing(sqlite3.connect(uri, uri=True, timeout=1)) as db:
                db.backup(copy)
            migrate(copy, path)
            return copy
        except sqlite3.Error:
            copy.close()
            copy = new_stand_in(target)
    migrate(copy, path)
    return copy
