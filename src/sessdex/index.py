"""The index: a SQLite cache in sessdex's own cache dir of every session the sources list.

A refresh stats every candidate file and re-parses only those whose size, mtime or inode
(or, for a database, its WAL) changed; vanished files drop out. What several files say
about one session is kept per file (`fragments`) and merged into `sessions`, whose rows
hold the ready-made JSON record so that listing never re-reads a transcript.

Each app's scan is noted while it runs (`freshness`: the folders it listed, the paths it
probed, the environment it read), with each app's file signatures packed in one value and
a generation bumped by every write: what the quick path (`quick`) checks instead of
scanning.

Two sessdex processes may refresh at once: parsing happens outside any transaction, and
writes are short IMMEDIATE transactions (a big refresh writes in parts while it parses),
each waiting on the other's lock.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import marshal
import os
import sqlite3
import sys
import time
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Literal, ParamSpec, TypeVar, cast

import orjson

from . import files, freshness, indexfile, inplace, pathnames, selection
from .diagnostics import (
    BEFORE_1970,
    FILE_REFUSED,
    FUTURE,
    MAX_DETAILS,
    NOT_LINES,
    VANISHED,
    WIDE_TEXT,
    Diagnostics,
    read_failed,
    why,
)
from .errors import IndexBusy
from .indexfile import SCHEMA_VERSION, index_name
from .model import Session
from .paths import index_dir
from .sources import Home, Location, Source
from .sources.base import not_text
from .views.records import (
    merge_states,
    parse_iso,
    session_encodings,
    session_from_state,
    state_encodings,
    utf8_text,
)

log = logging.getLogger(__name__)

Progress = Callable[[int, int], None]
_T = TypeVar("_T")
_P = ParamSpec("_P")
BUSY_TIMEOUT_MS = 15_000


def _script(db: sqlite3.Connection, sql: str) -> None:
    """Run several statements inside the caller's transaction (executescript would commit it)."""
    for statement in sql.split(";"):
        if statement.strip():
            db.execute(statement)


def _m001_initial(db: sqlite3.Connection) -> None:
    _script(
        db,
        """
        CREATE TABLE files (
            path TEXT PRIMARY KEY,
            app TEXT NOT NULL,
            size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            inode INTEGER NOT NULL,
            wal TEXT NOT NULL DEFAULT '',
            diagnostics BLOB
        );
        CREATE INDEX files_app ON files(app);
        CREATE TABLE fragments (
            path TEXT NOT NULL,
            app TEXT NOT NULL,
            id TEXT NOT NULL,
            state BLOB NOT NULL
        );
        CREATE INDEX fragments_path ON fragments(path);
        CREATE INDEX fragments_key ON fragments(app, id);
        CREATE TABLE sessions (
            app TEXT NOT NULL,
            id TEXT NOT NULL,
            parent_id TEXT,
            updated REAL,
            cwd TEXT,
            search TEXT NOT NULL,
            record BLOB NOT NULL,
            state BLOB NOT NULL,
            PRIMARY KEY (app, id)
        );
        CREATE INDEX sessions_updated ON sessions(updated DESC);
        CREATE INDEX sessions_id ON sessions(id);
        """,
    )


def _m002_usage(db: sqlite3.Connection) -> None:
    """Per-file token sums for `sessdex usage`, and where each file was read up to."""
    _script(
        db,
        """
        CREATE TABLE usage_files (
            path TEXT PRIMARY KEY,
            app TEXT NOT NULL,
            signature TEXT NOT NULL,
            offset INTEGER NOT NULL,
            state BLOB NOT NULL,
            buckets BLOB NOT NULL,
            keys BLOB NOT NULL
        );
        CREATE INDEX usage_files_app ON usage_files(app);
        CREATE TABLE usage_meta (name TEXT PRIMARY KEY, value BLOB NOT NULL);
        """,
    )


def _m003_notes(db: sqlite3.Connection) -> None:
    """What the quick listing path (`quick`) reads: each app's noted scan (`freshness`),
    which files hold only sub-agents, each app's file signatures packed in one value, and
    listings already printed, valid while `generation` (bumped by every write) is unchanged."""
    _script(
        db,
        """
        ALTER TABLE files ADD COLUMN nested INTEGER NOT NULL DEFAULT 0;
        CREATE TABLE scans (
            app TEXT PRIMARY KEY,
            environ BLOB NOT NULL
        );
        CREATE TABLE scan_paths (
            app TEXT NOT NULL,
            path TEXT NOT NULL,
            what INTEGER NOT NULL,
            value INTEGER NOT NULL,
            inode INTEGER NOT NULL,
            nested INTEGER NOT NULL,
            PRIMARY KEY (app, path)
        );
        CREATE INDEX files_signatures
            ON files(app, nested, path, size, mtime_ns, inode, wal);
        CREATE INDEX sessions_order ON sessions(updated DESC, app, id);
        DROP INDEX files_app;
        DROP INDEX sessions_updated;
        CREATE TABLE signatures (
            app TEXT NOT NULL,
            nested INTEGER NOT NULL,
            python TEXT NOT NULL,
            packed BLOB NOT NULL,
            PRIMARY KEY (app, nested)
        );
        CREATE TABLE generation (value INTEGER NOT NULL);
        INSERT INTO generation VALUES (0);
        CREATE TABLE listings (
            request TEXT PRIMARY KEY,
            generation INTEGER NOT NULL,
            body BLOB NOT NULL
        );
        """,
    )


# Numbered migrations: append, never edit a released one.
MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (
    _m001_initial,
    _m002_usage,
    _m003_notes,
)
assert len(MIGRATIONS) == SCHEMA_VERSION, "update indexfile.SCHEMA_VERSION"


# An app's noted scan: the environment its `locate` read, and the paths its scan looked at.
_Notes = tuple[bytes, dict[str, freshness.Noted]]


@dataclass(slots=True)
class RefreshReport:
    scanned: int = 0
    parsed: int = 0
    vanished: int = 0
    seconds: float = 0.0
    locations: dict[str, Location] = field(default_factory=dict)
    diagnostics: dict[str, Diagnostics] = field(
        default_factory=dict
    )  # app -> this run's news
    failures: dict[str, str] = field(
        default_factory=dict
    )  # app -> why its listing failed


@dataclass(frozen=True, slots=True)
class Row:
    """One indexed session: its public JSON record, and the full state on demand."""

    app: str
    id: str
    record: bytes
    state: bytes | None  # None when only the record was asked for (listing)

    def session(self) -> Session:
        """The session; from a listing row it lacks only the app's `extra` facts."""
        return session_from_state(self.state if self.state is not None else self.record)


def _until(
    names: Iterable[os.PathLike[str] | str], deadline: float | None, late: list[bool]
) -> Iterator[os.PathLike[str] | str]:
    """`names`, cut short once the clock (`time.monotonic`) passes `deadline`, which
    `late` then says: a tab press lists an app again only while that is cheap."""
    for count, name in enumerate(names):
        if deadline is not None and count % 64 == 0 and time.monotonic() >= deadline:
            late.append(True)
            return
        yield name


def index_file(home: Home) -> Path:
    """One index per home (and app overrides), so a copied home never mixes with yours,
    and per build of sessdex (`indexfile.code_stamp`)."""
    return index_dir() / index_name(str(home.path), home.environ)


# another build's index of this home, unused this long, goes
OTHER_BUILD_KEPT = 7 * 24 * 3600.0
# ... and so does any other index (another home's) after this
OTHER_HOME_KEPT = 28 * 24 * 3600.0


def prune_older_builds(path: Path, now: float | None = None) -> None:
    """Remove this home's indexes that other builds of sessdex wrote and have not used for
    a week (a new build starts its own: what an older reader made of the files is not
    kept; two installs used side by side each keep theirs), and any other home's index
    unused for four weeks (a copied home read once with --home; those an older sessdex
    named after variables no app reads, one per working folder), and what was set aside
    as damaged with them."""
    now = time.time() if now is None else now
    prefix = path.name.rsplit("-", 1)[0]  # index-<home hash>
    for other in path.parent.glob("index-*.sqlite"):
        if other == path:
            continue
        kept = (
            OTHER_BUILD_KEPT if other.name.startswith(f"{prefix}-") else OTHER_HOME_KEPT
        )
        used = 0.0
        for suffix in ("", "-wal"):
            with contextlib.suppress(OSError):
                used = max(used, os.stat(f"{other}{suffix}").st_mtime)
        if now - used < kept:
            continue
        for suffix in ("", "-wal", "-shm", ".damaged"):
            with contextlib.suppress(OSError):
                os.unlink(f"{other}{suffix}")


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
    _migrate(db, path)
    _opened.add(path)
    return db


# less free on the index's disk, and its I/O error is for want of room
ROOM_LEFT = 1 << 20


def _no_room(error: sqlite3.OperationalError, path: Path | None) -> str | None:
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


def _warn_not_updated(path: Path, why: str) -> None:
    log.warning(
        "sessdex could not update its index %s (%s): this run reads what changed "
        "without keeping it; free some space, or point SESSDEX_HOME to a bigger disk",
        path,
        why,
    )


def _new_stand_in(target: str) -> sqlite3.Connection:
    return sqlite3.connect(target, isolation_level=None, check_same_thread=False)


def _copy_of(path: Path, target: str, why: str) -> sqlite3.Connection:
    """A stand-in holding what the index at `path` holds, as far as it can be read
    without writing a byte (an index it cannot read: an empty one), with the warning."""
    from urllib.parse import quote

    _warn_not_updated(path, why)
    copy = _new_stand_in(target)
    # mode=ro needs the WAL's shared memory; immutable=1 does not, and misses only
    # what the WAL holds: those files are read again, as changed ones are
    for options in ("mode=ro", "immutable=1"):
        try:
            uri = f"file:{quote(os.fspath(path))}?{options}"
            with contextlib.closing(sqlite3.connect(uri, uri=True, timeout=1)) as db:
                db.backup(copy)
            _migrate(copy, path)
            return copy
        except sqlite3.Error:
            copy.close()
            copy = _new_stand_in(target)
    _migrate(copy, path)
    return copy


def _held_elsewhere(error: sqlite3.OperationalError) -> bool:
    """Whether the index could not be written because another sessdex holds it."""
    return "locked" in str(error) or "busy" in str(error)


def _migrate(db: sqlite3.Connection, path: Path) -> None:
    """Bring the index to this build's schema. One it cannot bring there (a schema
    version above this build's, or tables that are not what its version says: a file
    copied in, a version set by hand) raises `sqlite3.DatabaseError`, as damage does:
    `connect` sets it aside and builds it again."""
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version > len(MIGRATIONS):
        raise sqlite3.DatabaseError(
            f"schema version {version}, newer than this sessdex's {len(MIGRATIONS)}"
        )
    if version == len(MIGRATIONS):
        return
    try:
        db.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as error:
        if _held_elsewhere(error):
            raise IndexBusy(str(path)) from error
        raise  # a full disk, ...: its own message
    try:
        version = db.execute("PRAGMA user_version").fetchone()[
            0
        ]  # another process may have migrated
        for number in range(version, len(MIGRATIONS)):
            try:
                MIGRATIONS[number](db)
            except sqlite3.OperationalError as error:
                if not _schema_mismatch(error):
                    raise  # busy, a full disk: its own message
                raise sqlite3.DatabaseError(
                    f"schema version {version} but other tables ({error})"
                ) from error
            db.execute(f"PRAGMA user_version = {number + 1}")
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:  # a failed COMMIT (a full disk) has rolled back
            db.execute("ROLLBACK")
        raise


def _schema_mismatch(error: sqlite3.OperationalError) -> bool:
    """Whether a migration failed on tables that are not what the version said."""
    return any(
        words in str(error)
        for words in ("already exists", "no such", "duplicate column")
    )


def _search_text(
    app: str, session_id: str, title: str | None, cwd: str | None, branch: str | None
) -> str:
    """What `find` matches: app, id, title, folder and branch (`selection.folded`), as
    the table shows them (`views.text.clean`): the words read in a title are the words
    that find it, and a NUL in one keeps its place among the NUL-separated fields. The
    folder ends in "/", as a shell completes one: `dir:shop-api/` is the folder itself. A
    Windows folder is held with `/` for `\\` (`pathnames.comparable`), as `dir:` takes it."""
    from .views.text import clean

    title, branch = (
        clean(title, keep_newlines=False),
        clean(branch, keep_newlines=False),
    )
    cwd = pathnames.comparable(clean(cwd)) if cwd else cwd
    folder = cwd + "/" if cwd and not cwd.endswith("/") else cwd
    return selection.folded(
        "\x00".join(part or "" for part in (app, session_id, title, folder, branch))
    )


class Index:
    """The index of one home. Use `refresh()` then the query methods."""

    def __init__(
        self, home: Home, path: Path | None = None, *, stand_in: bool = True
    ) -> None:
        """`stand_in=False`: an index that cannot be written raises, where this run
        would otherwise go on in a stand-in (`_stand_in`)."""
        self.home = home
        self.path = path or index_file(home)
        self.may_stand_in = stand_in
        # where this run's writes go instead, when the index cannot take them: a
        # temporary database (kept in memory until it outgrows SQLite's cache, then
        # spilled to the temp folder), then memory alone; None while the index takes them
        self.stood_in: str | None = None
        fresh = not self.path.exists()
        try:
            self.db = connect(self.path)
        except sqlite3.OperationalError as error:
            why = _no_room(error, self.path)
            if why is None or not stand_in:
                raise
            self.db = _copy_of(self.path, "", why)
            self.stood_in = ""
            return
        if fresh and path is None:
            prune_older_builds(self.path)

    def _stand_in(self, error: sqlite3.OperationalError) -> bool:
        """Whether a write that failed with `error` can be done again in a stand-in: the
        index (or the temporary stand-in, its folder full too) copied into the next one,
        with the warning once."""
        if not self.may_stand_in:
            return False
        if self.stood_in is None:
            why = _no_room(error, self.path)
            if why is None:
                return False
            _warn_not_updated(self.path, why)
            target = ""
        elif self.stood_in == "" and _no_room(error, None) is not None:
            target = ":memory:"
        else:
            return False
        copy = _new_stand_in(target)
        try:
            self.db.backup(copy)
        except sqlite3.Error:
            copy.close()
            return False
        self.db.close()
        self.db = copy
        self.stood_in = target
        return True

    def close(self) -> None:
        self.db.close()

    # --- refresh ---------------------------------------------------------------------

    def refresh(
        self, sources: Sequence[Source], progress: Progress | None = None
    ) -> RefreshReport:
        report = self._refresh(sources, progress, None)
        assert report is not None
        return report

    def refresh_few(
        self, sources: Sequence[Source], most: int, deadline: float | None = None
    ) -> RefreshReport | None:
        """`refresh`, when the scan finds at most `most` files new or changed (a session
        begun since the last look), and is over by `deadline` (`time.monotonic`); None,
        with nothing read or written, past either: a new store of thousands of files is
        not read here, nor an app of many thousands listed again (the full command does)."""
        return self._refresh(sources, None, most, deadline)

    def _refresh(
        self,
        sources: Sequence[Source],
        progress: Progress | None,
        most: int | None,
        deadline: float | None = None,
    ) -> RefreshReport | None:
        started = time.perf_counter()
        report = RefreshReport()
        names = [s.NAME for s in sources]
        known: dict[str, tuple[int, int, int, str]] = {}
        marks = ",".join("?" * len(names))
        for path, size, mtime_ns, inode, wal in self.db.execute(
            f"SELECT path, size, mtime_ns, inode, wal FROM files WHERE app IN ({marks})",
            names,
        ):
            known[path] = (size, mtime_ns, inode, wal)
        seen: set[str] = set()
        notes: dict[str, _Notes | None] = {}
        late: list[bool] = []  # the scan stopped at the deadline
        scan = self._scan_all(sources, known, seen, notes, report, (deadline, late))
        jobs: Iterator[Job] = scan
        if most is not None:  # the whole scan first, and only so many files read
            head = list(itertools.islice(scan, most + 1))
            if len(head) > most or late:
                scan.close()
                return None
            jobs = iter(head)
        # Workers start on the first changed files while the scan still lists the rest.
        total, results = _parse_stream(jobs)
        vanished = [p for p in known if p not in seen]  # the scan is over by now
        report.vanished = len(vanished)
        # A big batch is written in parts while the workers parse the rest: each part is
        # one transaction, whole on its own (a file's rows, and the sessions it touches).
        batch: list[Parsed] = []
        unpacked: set[str] = set()  # apps whose signatures the last write packs
        for done, result in enumerate(results, 1):
            _count(report, result)
            if progress is not None:
                progress(done, total)
            if self._broke_off(result, known):
                continue  # kept as it was, and read again at the next refresh
            batch.append(result)
            if len(batch) == WRITE_BATCH:
                unpacked |= self._write(batch, vanished, pack=False)
                batch, vanished = [], []
        new_notes = self._changed_notes(notes)
        if batch or vanished or new_notes or unpacked:
            self._write(batch, vanished, new_notes, pack=True, also=unpacked)
        report.seconds = time.perf_counter() - started
        return report

    def _broke_off(self, result: Parsed, known: Mapping[str, object]) -> bool:
        """Whether a file the index holds sessions of gave none, with a problem (its
        database could not be opened or copied: a full disk, a lock): its sessions stay
        listed as they were, the problem is said, and it is read again next time."""
        _, name, _, fragments, diagnostics = result
        if fragments or not diagnostics.problems or name not in known:
            return False
        held = self.db.execute(
            "SELECT 1 FROM fragments WHERE path = ? LIMIT 1", (name,)
        )
        return held.fetchone() is not None

    def _scan_all(
        self,
        sources: Sequence[Source],
        known: dict[str, tuple[int, int, int, str]],
        seen: set[str],
        notes: dict[str, _Notes | None],
        report: RefreshReport,
        until: tuple[float | None, list[bool]] = (None, []),
    ) -> Generator[Job, None, None]:
        """Every changed file of every source, as a parse job, noting each scan; with a
        deadline in `until`, stopped there, its list then told so."""
        for source in sources:
            environ = freshness.RecordingEnviron(self.home.environ)
            with freshness.recording() as paths:
                location = self._locate(source, report, environ)
                complete = location is not None and (
                    yield from self._scan(source, location, known, seen, report, until)
                )
            noted = complete and getattr(source, "SCAN_NOTED", False)
            notes[source.NAME] = (
                (freshness.environ_key(environ.read), paths) if noted else None
            )

    def _scan(
        self,
        source: Source,
        location: Location,
        known: dict[str, tuple[int, int, int, str]],
        seen: set[str],
        report: RefreshReport,
        until: tuple[float | None, list[bool]] = (None, []),
    ) -> Generator[Job, None, bool]:
        """Stat what the source lists, yielding the changed files; False when its
        listing failed part way, or passed over names that hide sessions (not UTF-8, a
        folder it may not open): such a scan is not noted, so that a warm list, which
        would not scan, never answers without the warning this one gives."""
        if not location.exists:
            return True
        owner_of: Callable[[str], str | None] | None = getattr(
            source, "companion_of", None
        )
        listed: set[str] = set()  # with companions: what this scan listed
        given: set[str] = set()  # ... and yielded
        owners: dict[str, None] = {}  # ... and the owners of those that changed
        try:
            for candidate in _until(source.scan(location), *until):
                name = os.fspath(candidate)
                signature = freshness.file_signature(name)
                if signature is None:
                    continue
                seen.add(name)
                report.scanned += 1
                if owner_of is None:
                    if known.get(name) != signature:
                        yield source.NAME, location, name, signature
                    continue
                listed.add(name)
                if known.get(name) != signature or name in owners:
                    given.add(name)
                    if (owner := owner_of(name)) is not None:
                        owners[owner] = None
                    yield source.NAME, location, name, signature
            if owner_of is not None:  # a companion gone changes its owner too
                owners.update(
                    dict.fromkeys(
                        owner
                        for name in known
                        if name not in seen and (owner := owner_of(name)) is not None
                    )
                )
                for owner in owners:
                    if owner in listed and owner not in given:
                        signature = freshness.file_signature(owner)
                        if signature is not None:
                            yield source.NAME, location, owner, signature

            from . import folders  # here: `sessdex find` never scans, and starts faster

            passed_over = folders.take_passed_over()
            if passed_over:
                report.diagnostics.setdefault(
                    source.NAME, Diagnostics()
                ).names_passed_over(source.NAME, passed_over)
            if any(why in NOT_LINES for _, why in passed_over):
                return False
        except Exception as error:  # one app's broken store never hides the others
            if os.environ.get("SESSDEX_DEBUG"):
                raise
            report.failures[source.NAME] = (
                f"could not list {location.root}: {why(error, location.root)}"
            )
            log.debug(
                "%s: %s", source.NAME, report.failures[source.NAME], exc_info=True
            )
            # keep what the index knew of this app rather than dropping it as vanished
            seen.update(p for p in known if p.startswith(str(location.root)))
            return False
        return True

    def _changed_notes(
        self, notes: dict[str, _Notes | None]
    ) -> dict[str, _Notes | None]:
        """The apps whose noted scan differs from the stored one (None: forget it)."""
        if not notes:
            return {}
        marks = ",".join("?" * len(notes))
        stored: dict[str, _Notes] = {
            app: (bytes(environ), {})
            for app, environ in self.db.execute(
                f"SELECT app, environ FROM scans WHERE app IN ({marks})", list(notes)
            )
        }
        for app, path, what, value, inode, nested in self.db.execute(
            f"SELECT app, path, what, value, inode, nested FROM scan_paths "
            f"WHERE app IN ({marks})",
            list(notes),
        ):
            if app in stored:
                stored[app][1][path] = (what, value, inode, bool(nested))
        return {app: note for app, note in notes.items() if note != stored.get(app)}

    def refresh_file(
        self, source: Source, path: str | None, report: RefreshReport | None = None
    ) -> bool:
        """Bring one indexed file up to date; False when that is not enough (call refresh).

        True means the file is a plain file the index knows, now re-parsed if it changed;
        what the read could not read is added to `report`, for the caller to say.
        """
        if not path or not os.path.isfile(path):
            return False
        row = self.db.execute(
            "SELECT size, mtime_ns, inode, wal FROM files WHERE path = ?", (path,)
        ).fetchone()
        if row is None:
            return False
        signature = freshness.file_signature(path)
        if signature is None:
            return False
        if tuple(row) == signature:
            return True
        location = source.locate(self.home)
        jobs: list[Job] = [(source.NAME, location, path, signature)]
        owner = _owner(source.NAME, path)
        if owner is not None:  # a companion changed: its owner's sessions did
            owned = freshness.file_signature(owner)
            held = self.db.execute("SELECT 1 FROM files WHERE path = ?", (owner,))
            if owned is not None and held.fetchone() is not None:
                jobs.append((source.NAME, location, owner, owned))
        report = RefreshReport() if report is None else report
        parsed = [_parse_one(job) for job in jobs]
        for result in parsed:
            _count(report, result)
        self._write(parsed, [])
        return True

    def _locate(
        self,
        source: Source,
        report: RefreshReport,
        environ: Mapping[str, str] | None = None,
    ) -> Location | None:
        home = self.home if environ is None else replace(self.home, environ=environ)
        try:
            location = source.locate(home)
        except Exception as error:
            if os.environ.get("SESSDEX_DEBUG"):
                raise
            report.failures[source.NAME] = f"could not locate its folder: {error}"
            log.debug(
                "%s: %s", source.NAME, report.failures[source.NAME], exc_info=True
            )
            return None
        unusable = not_text(location)
        if unusable is not None:
            report.failures[source.NAME] = unusable
            return None
        report.locations[source.NAME] = location
        return location

    def _write(
        self,
        parsed: list[Parsed],
        vanished: list[str],
        notes: dict[str, _Notes | None] | None = None,
        *,
        pack: bool = True,
        also: Iterable[str] = (),
    ) -> set[str]:
        """`_write_once`, done in a stand-in for this run where the index's disk has no
        room left (or is read-only): the listing is still answered."""
        while True:
            try:
                return self._write_once(parsed, vanished, notes, pack=pack, also=also)
            except sqlite3.OperationalError as error:
                if not self._stand_in(error):
                    raise

    def _write_once(
        self,
        parsed: list[Parsed],
        vanished: list[str],
        notes: dict[str, _Notes | None] | None = None,
        *,
        pack: bool = True,
        also: Iterable[str] = (),
    ) -> set[str]:
        """One transaction: the files parsed, those vanished, the notes; the apps touched.

        With `pack`, the touched apps' signatures (and those of `also`) are packed anew;
        without, they are dropped, and the quick path reads the rows until a later write
        packs them: a big refresh packs once, not once per batch."""
        db = self.db
        try:
            db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as error:
            if _held_elsewhere(error):
                raise IndexBusy(str(self.path)) from error
            raise  # a full disk, ...: its own message
        try:
            affected: set[tuple[str, str]] = set()
            touched = {app for app, _, _, _, _ in parsed} | set(notes or {})
            gone = [(p,) for p in vanished] + [(name,) for _, name, _, _, _ in parsed]
            if db.execute("SELECT 1 FROM files LIMIT 1").fetchone() is None:
                gone = []  # a first index: nothing to replace
            for chunk in _chunks(gone, 500):
                marks = ",".join("?" * len(chunk))
                paths = [p for (p,) in chunk]
                touched.update(
                    app
                    for (app,) in db.execute(
                        f"SELECT DISTINCT app FROM files WHERE path IN ({marks})", paths
                    )
                )
                affected.update(
                    db.execute(
                        f"SELECT app, id FROM fragments WHERE path IN ({marks})", paths
                    ).fetchall()
                )
                db.execute(f"DELETE FROM fragments WHERE path IN ({marks})", paths)
                db.execute(f"DELETE FROM files WHERE path IN ({marks})", paths)
            file_rows = []
            fragment_rows = []
            fresh: dict[tuple[str, str], list[Fragment]] = {}
            for app, name, (
                size,
                mtime_ns,
                inode,
                wal,
            ), sessions, diagnostics in parsed:
                blob = None
                if (
                    diagnostics.skipped
                    or diagnostics.unknown
                    or diagnostics.problems
                    or diagnostics.unfinished
                ):
                    blob = orjson.dumps(
                        {
                            **diagnostics.to_json(),
                            "problems": diagnostics.problems,
                            "details": diagnostics.details,
                        }
                    )
                # a file that speaks only of sub-agents: a top-level listing need not
                # stat it, unless it has a warning to repeat (freshness.SIDE)
                nested = (
                    bool(sessions)
                    and all(f[2] for f in sessions)
                    and freshness.SIDE not in wal
                )
                file_rows.append((name, app, size, mtime_ns, inode, wal, blob, nested))
                for fragment in sessions:
                    key = (fragment[0], fragment[1])
                    fragment_rows.append((name, *key, fragment[7]))
                    fresh.setdefault(key, []).append(fragment)
                    affected.add(key)
            db.executemany(
                "INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                file_rows,
            )
            self._merge(affected, fresh)  # before the new fragments join the old
            db.executemany("INSERT INTO fragments VALUES (?, ?, ?, ?)", fragment_rows)
            if pack:
                self._pack_signatures(touched.union(also))
            else:
                db.executemany(
                    "DELETE FROM signatures WHERE app = ?", [(a,) for a in touched]
                )
            db.execute("UPDATE generation SET value = value + 1")
            db.execute("DELETE FROM listings")
            for app, note in (notes or {}).items():
                db.execute("DELETE FROM scans WHERE app = ?", (app,))
                db.execute("DELETE FROM scan_paths WHERE app = ?", (app,))
                if note is not None:
                    db.execute("INSERT INTO scans VALUES (?, ?)", (app, note[0]))
                    db.executemany(
                        "INSERT INTO scan_paths VALUES (?, ?, ?, ?, ?, ?)",
                        [(app, path, *noted) for path, noted in note[1].items()],
                    )
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:  # a failed COMMIT (a full disk) has rolled back
                db.execute("ROLLBACK")
            raise
        return touched

    def _pack_signatures(self, apps: set[str]) -> None:
        """Each app's file signatures as one marshalled list per `nested` value: the quick
        path loads 10,000 of them in a few milliseconds, where rows take several times that."""
        db = self.db
        version = freshness.PACKED_FORMAT
        for app in apps:
            db.execute("DELETE FROM signatures WHERE app = ?", (app,))
            for nested in (0, 1):
                rows = db.execute(
                    "SELECT path, size, mtime_ns, inode, wal FROM files "
                    "WHERE app = ? AND nested = ?",
                    (app, nested),
                ).fetchall()
                db.execute(
                    "INSERT INTO signatures VALUES (?, ?, ?, ?)",
                    (app, nested, version, marshal.dumps(rows)),
                )

    def _merge(
        self,
        keys: set[tuple[str, str]],
        fresh: dict[tuple[str, str], list[Fragment]],
    ) -> None:
        """Rewrite the `sessions` rows of `keys` from their fragments: the `fresh` ones
        just parsed, and those other files still hold (still in the table)."""
        db = self.db
        held: dict[tuple[str, str], list[bytes]] = {}
        if db.execute("SELECT 1 FROM fragments LIMIT 1").fetchone() is not None:
            by_app: dict[str, list[str]] = {}
            for app, session_id in keys:
                by_app.setdefault(app, []).append(session_id)
            for app, ids in by_app.items():
                for chunk in _chunks(sorted(ids), 500):
                    # `app = ? AND id IN (…)` is looked up in fragments_key; a row-value
                    # IN over VALUES would scan the whole table
                    marks = ",".join("?" * len(chunk))
                    for session_id, state in db.execute(
                        f"SELECT id, state FROM fragments WHERE app = ? AND id IN ({marks})",
                        [app, *chunk],
                    ):
                        held.setdefault((app, session_id), []).append(state)
        gone: list[tuple[str, str]] = []
        rows: list[tuple[object, ...]] = []
        for key in keys:
            new = fresh.get(key, [])
            old = held.get(key, [])
            if len(new) == 1 and not old:  # the common case: one file, one session
                fragment = new[0]
            elif new or old:
                fragment = _merged_fragment([f[7] for f in new] + old)
            else:
                gone.append(key)
                continue
            app, session_id, parent_id, listed, updated, cwd, search, state, record = (
                fragment
            )
            if not listed:
                gone.append(key)
                continue
            rows.append(
                (app, session_id, parent_id, updated, cwd, search, record, state)
            )
        db.executemany("DELETE FROM sessions WHERE app = ? AND id = ?", gone)
        db.executemany(
            "INSERT OR REPLACE INTO sessions VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows
        )

    # --- queries -----------------------------------------------------------------------

    def rows(
        self,
        *,
        apps: Sequence[str] = (),
        since: datetime | None = None,
        under: str | Sequence[str] | None = None,
        words: Sequence[str] = (),
        scoped: Sequence[tuple[str, str]] = (),
        include_subagents: bool = False,
        limit: int | None = None,
        first_prefix: str | None = None,
        with_state: bool = False,
    ) -> list[Row]:
        """Sessions newest first, filtered; `first_prefix` ranks id-prefix matches first."""
        sql, args = selection.sessions_sql(
            f"app, id, record, {'state' if with_state else 'NULL'}",
            apps=apps,
            since=since.timestamp() if since is not None else None,
            under=under,
            words=words,
            scoped=scoped,
            include_subagents=include_subagents,
            limit=limit,
            first_prefix=first_prefix,
            home=str(self.home.path),
        )
        if scoped:
            self.db.create_function("_field", 2, selection.field, deterministic=True)
        return [Row(*r) for r in self.db.execute(sql, args)]

    def count(
        self,
        *,
        apps: Sequence[str] = (),
        words: Sequence[str] = (),
        scoped: Sequence[tuple[str, str]] = (),
        include_subagents: bool = False,
    ) -> int:
        """How many sessions `rows` would give for these filters, none of them read."""
        sql, args = selection.sessions_sql(
            "count(*)",
            apps=apps,
            words=words,
            scoped=scoped,
            include_subagents=include_subagents,
            home=str(self.home.path),
        )
        if scoped:
            self.db.create_function("_field", 2, selection.field, deterministic=True)
        return int(self.db.execute(sql, args).fetchone()[0])

    def ids(self) -> list[str]:
        """Every session id (sub-agents too), lowercased and sorted: what a prefix
        given to `resolve` is matched against."""
        return sorted(i for (i,) in self.db.execute("SELECT lower(id) FROM sessions"))

    def newest(self, apps: Sequence[str] = ()) -> float | None:
        """When the newest session (of `apps`, or any; sub-agents left out, as a listing
        leaves them) last changed, as a POSIX time; None where none has a time."""
        sql, args = selection.sessions_sql("updated", apps=apps, limit=1)
        row = self.db.execute(sql, args).fetchone()
        return None if row is None or row[0] is None else float(row[0])

    def by_ids(self, ids: Iterable[tuple[str, str]]) -> dict[tuple[str, str], Row]:
        """The listing rows of these (app, id) pairs; ones the index lacks are left out."""
        wanted = set(ids)
        found: dict[tuple[str, str], Row] = {}
        names = sorted({session_id for _, session_id in wanted})
        for start in range(0, len(names), 500):  # SQLite's limit on bound values
            part = names[start : start + 500]
            for r in self.db.execute(
                "SELECT app, id, record, NULL FROM sessions WHERE id IN "
                f"({', '.join('?' * len(part))})",
                part,
            ):
                if (r[0], r[1]) in wanted:
                    found[(r[0], r[1])] = Row(*r)
        return found

    def by_prefix(
        self, prefix: str, app: str | None = None, limit: int = 20
    ) -> list[Row]:
        """Sessions (sub-agents too; of `app`, or any) whose id starts with `prefix`,
        case-insensitively, newest first."""
        sql, args = self._prefixed("app, id, record, state", prefix, app)
        return [Row(*r) for r in self.db.execute(sql + " LIMIT ?", [*args, limit])]

    def prefix_titles(
        self, prefix: str, app: str | None = None
    ) -> list[tuple[str, str, str]]:
        """(app, id, title) of every session `by_prefix` would give, past its limit:
        what an ambiguous prefix names, counted whole."""
        sql, args = self._prefixed(
            "app, id, coalesce(json_extract(record, '$.title'), '')", prefix, app
        )
        return [(a, i, t) for a, i, t in self.db.execute(sql, args)]

    def _prefixed(
        self, columns: str, prefix: str, app: str | None
    ) -> tuple[str, list[object]]:
        sql = f"SELECT {columns} FROM sessions WHERE lower(substr(id, 1, ?)) = ?"
        args: list[object] = [len(prefix), prefix.lower()]
        if app is not None:  # before any limit: an app's match may be past others'
            sql += " AND app = ?"
            args.append(app)
        return sql + " ORDER BY updated DESC", args

    def orphans(
        self, prefix: str, app: str | None = None, limit: int = 20
    ) -> list[tuple[str, str, str]]:
        """(app, lead id, sub-agent id) of sub-agents whose lead's id starts with
        `prefix` and whose lead is no session here (its transcript is gone), newest
        first."""
        sql = (
            "SELECT c.app, c.parent_id, c.id FROM sessions c"
            " WHERE lower(substr(c.parent_id, 1, ?)) = ?"
            " AND NOT EXISTS (SELECT 1 FROM sessions l"
            " WHERE l.app = c.app AND l.id = c.parent_id)"
        )
        args: list[object] = [len(prefix), prefix.lower()]
        if app is not None:
            sql += " AND c.app = ?"
            args.append(app)
        sql += " ORDER BY c.updated DESC LIMIT ?"
        return [(a, p, c) for a, p, c in self.db.execute(sql, [*args, limit])]

    def in_file(self, paths: Iterable[str]) -> list[tuple[str, str]]:
        """(app, id) of the listed sessions a file at one of `paths` holds a part of,
        or whose `path` (as `list --json` shows it) it is, lead sessions first, newest
        first: what a file given for an id meant."""
        found: dict[tuple[str, str], None] = {}
        for path in paths:
            for app, session_id in self.db.execute(
                "SELECT s.app, s.id FROM fragments f JOIN sessions s"
                " ON s.app = f.app AND s.id = f.id WHERE f.path = ?"
                " ORDER BY s.parent_id IS NOT NULL, s.updated DESC",
                (path,),
            ):
                found[(app, session_id)] = None
        # an app whose session is read from several files records one as its path
        # (a folder's transcript beside its metadata): a scan, asked only on a miss
        if not found:
            for path in paths:
                for app, session_id in self.db.execute(
                    "SELECT app, id FROM sessions WHERE json_extract(record, '$.path')"
                    " = ? ORDER BY parent_id IS NOT NULL, updated DESC",
                    (path,),
                ):
                    found[(app, session_id)] = None
        return list(found)

    def by_shown_prefix(
        self,
        prefix: str,
        shown: Callable[[str], str],
        app: str | None = None,
        limit: int = 20,
    ) -> list[Row]:
        """Sessions (of `app`, or any) whose id holds a character no terminal shows (a
        control or bidi character a file put there) and whose id as `shown` prints it
        starts with `prefix`: the id the user copied from `list`. Reads every id: only
        when `by_prefix` failed."""
        low = prefix.lower()
        keys = [
            (row_app, session_id)
            for row_app, session_id in self.db.execute("SELECT app, id FROM sessions")
            if (app is None or row_app == app)
            and not session_id.isprintable()
            and shown(session_id).lower().startswith(low)
        ][:limit]
        return [
            Row(*r)
            for row_app, session_id in keys
            for r in self.db.execute(
                "SELECT app, id, record, state FROM sessions WHERE app = ? AND id = ?",
                (row_app, session_id),
            )
        ]

    def superseded(self, prefix: str, limit: int = 20) -> list[tuple[str, str, str]]:
        """(app, id, replacing id) of sessions whose id starts with `prefix` that a copy the
        app made replaced: they are not listed, so only their fragments hold them."""
        low = prefix.lower()
        found: dict[tuple[str, str], str] = {}
        for app, session_id, state in self.db.execute(
            "SELECT app, id, state FROM fragments WHERE lower(substr(id, 1, ?)) = ? LIMIT ?",
            (len(prefix), low, limit * 4),
        ):
            extra = orjson.loads(state).get("extra") or {}
            if isinstance(by := extra.get("superseded_by"), str):
                found[(app, session_id)] = by
        return [(app, session_id, by) for (app, session_id), by in found.items()][
            :limit
        ]

    def listed_folders(self, apps: Sequence[str] = (), limit: int = 2000) -> list[str]:
        """The folders the apps' last scans listed for their sessions (not the sub-agent
        folders): where a new session's file appears; and the folders of the databases
        sessions were found in, which a scan looks for rather than lists: a new session
        is a row written into one."""
        chosen = ""
        args: list[object] = list(apps)
        if apps:
            chosen = f" AND app IN ({','.join('?' * len(apps))})"
        found = [
            path
            for (path,) in self.db.execute(
                f"SELECT path FROM scan_paths WHERE what = ? AND nested = 0{chosen}"
                " LIMIT ?",
                [freshness.LISTED, *args, limit],
            )
        ]
        suffixes = " OR ".join("path LIKE ?" for _ in freshness.DB_SUFFIXES)
        databases = self.db.execute(
            f"SELECT path FROM files WHERE nested = 0{chosen} AND ({suffixes}) LIMIT ?",
            [*args, *(f"%{suffix}" for suffix in freshness.DB_SUFFIXES), limit],
        )
        found += (os.path.dirname(path) for (path,) in databases)
        return list(dict.fromkeys(found))

    def unfinished_lines(self, apps: Sequence[str] = ()) -> list[tuple[str, str, int]]:
        """(app, path, bytes) of the files indexed that ended in an unfinished line when
        each was parsed (at most MAX_DETAILS): a warm refresh parses nothing again."""
        sql = "SELECT app, diagnostics FROM files WHERE diagnostics IS NOT NULL"
        args: list[str] = list(apps)
        if apps:
            sql += f" AND app IN ({','.join('?' * len(apps))})"
        found: list[tuple[str, str, int]] = []
        for app, blob in self.db.execute(sql + " ORDER BY app, path", args):
            for path, size in orjson.loads(blob).get("unfinished", {}).items():
                if len(found) == MAX_DETAILS:
                    return found
                found.append((app, path, size))
        return found

    def skipped_details(
        self, apps: Sequence[str] = ()
    ) -> list[tuple[str, str, int, str]]:
        """(app, path, line, reason) of what the files indexed could not be read at, as
        noted when each was parsed (at most MAX_DETAILS): a warm refresh parses nothing,
        so has nothing of its own to name."""
        sql = "SELECT app, diagnostics FROM files WHERE diagnostics IS NOT NULL"
        args: list[str] = list(apps)
        if apps:
            sql += f" AND app IN ({','.join('?' * len(apps))})"
        found: list[tuple[str, str, int, str]] = []
        for app, blob in self.db.execute(sql + " ORDER BY app, path", args):
            for path, line, reason in orjson.loads(blob).get("details", []):
                if len(found) == MAX_DETAILS:
                    return found
                found.append((app, path, line, reason))
        return found

    def app_stats(self) -> dict[str, dict[str, object]]:
        """Per app: files, sessions, CLI versions, and the diagnostics stored with each file."""
        stats: dict[str, dict[str, object]] = {}
        for app, count, children in self.db.execute(
            "SELECT app, count(*), count(parent_id) FROM sessions GROUP BY app"
        ):
            entry = stats.setdefault(app, {})
            entry["sessions"], entry["subagents"] = count, children
        for app, state in self.db.execute("SELECT app, state FROM sessions"):
            version = orjson.loads(state).get("cli_version")
            if version:
                versions = stats.setdefault(app, {}).setdefault("versions", {})
                assert isinstance(versions, dict)
                versions[version] = versions.get(version, 0) + 1
        for app, blob in self.db.execute(
            "SELECT app, diagnostics FROM files WHERE diagnostics IS NOT NULL"
        ):
            value = orjson.loads(blob)
            entry = stats.setdefault(app, {})
            diagnostics = entry.setdefault("diagnostics", Diagnostics())
            assert isinstance(diagnostics, Diagnostics)
            diagnostics.update(Diagnostics.from_json(value))
            for problem in value.get("problems", []):
                diagnostics.problem(problem)
            for path, line, reason in value.get("details", []):
                if len(diagnostics.details) < 200:
                    diagnostics.details.append((path, line, reason))
        for app, count in self.db.execute(
            "SELECT app, count(*) FROM files GROUP BY app"
        ):
            stats.setdefault(app, {})["files"] = count
        return stats

    # --- usage sums (see usage.py) ------------------------------------------------------

    def usage_files(
        self, apps: Sequence[str], *, whole: bool = True
    ) -> dict[str, tuple[str, str, int, bytes, bytes, bytes]]:
        """path -> (app, signature, offset, state, buckets, keys) of the selected apps
        (without `whole`, state and keys are b"": `usage_blob` reads one file's)."""
        marks = ",".join("?" * len(apps))
        rest = "state, buckets, keys" if whole else "x'', buckets, x''"
        return {
            row[0]: (
                row[1],
                row[2],
                row[3],
                bytes(row[4]),
                bytes(row[5]),
                bytes(row[6]),
            )
            for row in self.db.execute(
                f"SELECT path, app, signature, offset, {rest} FROM usage_files WHERE app IN ({marks})",
                list(apps),
            )
        }

    def usage_blobs(
        self, apps: Sequence[str], column: Literal["buckets", "keys"]
    ) -> dict[str, bytes]:
        """path -> one stored blob (a file's sums, or its responses' keys) of the selected apps."""
        marks = ",".join("?" * len(apps))
        return {
            row[0]: bytes(row[1])
            for row in self.db.execute(
                f"SELECT path, {column} FROM usage_files WHERE app IN ({marks})",
                list(apps),
            )
        }

    def usage_blob(
        self, path: str, column: Literal["state", "buckets", "keys"]
    ) -> bytes | None:
        """One stored blob (a file's reading state, sums, or responses' keys) of one file, if stored."""
        row = self.db.execute(
            f"SELECT {column} FROM usage_files WHERE path = ?", (path,)
        ).fetchone()
        return None if row is None else bytes(row[0])

    def each_usage_blob(
        self, apps: Sequence[str], column: Literal["buckets", "keys"]
    ) -> Iterator[tuple[str, bytes]]:
        """(path, one stored blob) of the selected apps, one at a time: `usage_blobs`
        without holding them all."""
        marks = ",".join("?" * len(apps))
        for path, blob in self.db.execute(
            f"SELECT path, {column} FROM usage_files WHERE app IN ({marks})",
            list(apps),
        ):
            yield path, bytes(blob)

    def save_usage(
        self,
        rows: Sequence[tuple[str, str, str, int, bytes, bytes, bytes]],
        gone: Sequence[str],
        meta: Sequence[tuple[str, bytes]] = (),
    ) -> None:
        """Store usage sums per file (path, app, signature, offset, state, buckets, keys)."""
        if not rows and not gone and not meta:
            return
        while True:
            try:
                return self._save_usage_once(rows, gone, meta)
            except sqlite3.OperationalError as error:
                if not self._stand_in(error):
                    raise

    def _save_usage_once(
        self,
        rows: Sequence[tuple[str, str, str, int, bytes, bytes, bytes]],
        gone: Sequence[str],
        meta: Sequence[tuple[str, bytes]],
    ) -> None:
        db = self.db
        try:
            db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as error:
            if _held_elsewhere(error):
                raise IndexBusy(str(self.path)) from error
            raise  # a full disk, ...: its own message
        try:
            db.executemany(
                "DELETE FROM usage_files WHERE path = ?", [(p,) for p in gone]
            )
            db.executemany(
                "INSERT OR REPLACE INTO usage_files VALUES (?, ?, ?, ?, ?, ?, ?)", rows
            )
            db.executemany("INSERT OR REPLACE INTO usage_meta VALUES (?, ?)", meta)
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:  # a failed COMMIT (a full disk) has rolled back
                db.execute("ROLLBACK")
            raise

    def usage_meta(self, name: str) -> bytes | None:
        row = self.db.execute(
            "SELECT value FROM usage_meta WHERE name = ?", (name,)
        ).fetchone()
        return None if row is None else bytes(row[0])


Job = tuple[str, Location, str, tuple[int, int, int, str]]
# What one file says of one session, reduced to plain values where it was parsed: the
# worker sends these instead of Session objects, which cost more to pickle than to parse.
# (app, id, parent_id, listed, updated, cwd, search text, state, record)
Fragment = tuple[
    str, str, str | None, bool, float | None, str | None, str, bytes, bytes
]
Parsed = tuple[str, str, tuple[int, int, int, str], list[Fragment], Diagnostics]


def _fragment(session: Session) -> Fragment:
    state, record = session_encodings(session)
    updated = session.updated or session.created

    def text(value: str | None) -> str | None:  # SQLite's columns take UTF-8 only
        return utf8_text(value) if value else value

    return (
        session.app,
        utf8_text(session.id),
        text(session.parent_id),
        session.listed,
        updated.timestamp() if updated else None,
        text(session.cwd),
        utf8_text(
            _search_text(
                session.app, session.id, session.title, session.cwd, session.branch
            )
        ),
        state,
        record,
    )


def _merged_fragment(states: list[bytes]) -> Fragment:
    """The fragment of the session merged from these encoded ones, as `_fragment` of
    `merge` of them would give, without decoding them into sessions."""
    value = merge_states(states)
    state, record = state_encodings(value)
    updated = parse_iso(value.get("updated")) or parse_iso(value.get("created"))

    def text(name: str) -> str | None:
        found = value.get(name)
        return found if isinstance(found, str) else None

    app, session_id = cast(str, value["app"]), cast(str, value["id"])
    return (
        app,
        session_id,
        text("parent_id"),
        bool(value.get("listed", True)),
        updated.timestamp() if updated else None,
        text("cwd"),
        _search_text(app, session_id, text("title"), text("cwd"), text("branch")),
        state,
        record,
    )


# parsed files per write transaction of a big refresh: small enough that what is left to
# write once the workers are done (up to one batch, with nothing else to run beside it) is short
WRITE_BATCH = 512
PARSE_CHUNK = 128  # files per job sent to a worker
PARALLEL_FROM = (
    200  # files: below this, starting worker processes costs more than it saves
)


# Reads again of a file that changed while it was read and could not all be read.
REREADS = 2
# Other files of a file's sessions it may not open, noted with it (freshness.SIDE): a
# warm listing stats each; past these, a `chmod -R` of a folder shows in the first ones.
MAX_SIDES = 32


def _parse_one(job: Job) -> Parsed:
    """Parse one file in isolation: a broken or vanished file never hides the rest.

    A file that changed while it was read, and held something that could not be read,
    is read again: a database the app wrote into during the read (its pages changed under
    a lock-free read) or a JSON document it rewrote in place reads as corrupt, which the
    same file read a moment later is not. A database the app committed to while it was
    read in place is read again even when nothing looked wrong (the read may have seen
    half a transaction); the last time from a copy of one committed state."""
    app, location, name, signature = job
    if _owner(app, name) is not None:  # read with its owner, never on its own
        return app, name, signature, [], Diagnostics()
    moves = 0  # reads the app committed during
    for attempt in range(REREADS + 1):
        copied = moves > 1 or (moves > 0 and attempt == REREADS)
        with (
            inplace.Reading(copied=copied) as reading,
            freshness.refusals() as refused,
        ):
            try:
                sessions, diagnostics = _parse_as_is(app, location, name)
                moved = reading.moved()
            finally:
                reading.close()
        moves += moved
        if not (moved or diagnostics.problems or diagnostics.skipped):
            break
        now = freshness.file_signature(name)
        if now is None or (not moved and now == signature):
            break  # vanished, or as it was: what could not be read is in the file
        signature = now  # the signature of what the next read will see (or newer)
    else:
        if moved:
            diagnostics.problem(f"{app}: {name} changed during every read of it")
    if not sessions and (diagnostics.skipped or diagnostics.problems):
        diagnostics = _refused_or(diagnostics, name)
        if diagnostics.skipped[FILE_REFUSED]:
            signature = _tried_again(signature)
    sessions, ahead = _undated_odd(sessions, name, diagnostics)
    if ahead is not None:  # read again when the clock reaches it, changed or not
        size, mtime_ns, inode, wal = signature
        signature = size, mtime_ns, inode, freshness.due(ahead, wal)
    refused.pop(name, None)
    if refused and signature[3] != freshness.REFUSED:
        # its sessions' other files it may not open: said on every listing, and the
        # file read again once one of them changes (see freshness.SIDE)
        _said_refused(diagnostics, refused)
        size, mtime_ns, inode, wal = signature
        noted = itertools.islice(refused, MAX_SIDES)
        signature = size, mtime_ns, inode, freshness.with_sides(wal, noted)
    return (
        app,
        name,
        signature,
        [_fragment(s) for s in sessions],
        diagnostics,
    )


def _said_refused(diagnostics: Diagnostics, refused: Iterable[str]) -> None:
    """Count as refused each of `refused` (files a read was not let open) that the
    reader said nothing of: one that passed over an optional file it may not open (an
    OpenCode message file, for a session's model) left its sessions short without a word."""
    if len(diagnostics.details) >= MAX_DETAILS:
        return  # the reader's own may be past the details: not counted twice
    said = {path for path, _, reason in diagnostics.details if reason == FILE_REFUSED}
    for path in refused:
        if path not in said and not any(path in p for p in diagnostics.problems):
            diagnostics.refused(path)


def _tried_again(signature: freshness.FileSignature) -> freshness.FileSignature:
    """A refused file's signature, marked so (`freshness.REFUSED`): every listing says it
    again, as it says a refused folder (kept as it was, only its first run said so), a
    warm one without reading it; a full refresh tries to open it again."""
    size, mtime_ns, inode, _ = signature
    return size, mtime_ns, inode, freshness.REFUSED


def _refused_or(diagnostics: Diagnostics, name: str) -> Diagnostics:
    """`diagnostics`, or, when the file gave nothing because it may not be opened, only
    that: each adapter says so in its own words ("unreadable", an OSError's problem),
    where the user must be told its sessions are missing and why."""
    if not files.refuses_reading(name):
        return diagnostics
    refused = Diagnostics()
    refused.refused(name)
    return refused


# How far past the clock a session's time may be and still be its own: a machine whose
# clock ran ahead (a file synced from it), a zone's offset read wrong (14 h at most).
FUTURE_SLACK = 86400.0


def _clock() -> float:
    return time.time()


def _odd(moment: datetime | None, latest: float) -> str | None:
    if moment is None:
        return None
    stamp = moment.timestamp()
    return FUTURE if stamp > latest else BEFORE_1970 if stamp <= 0 else None


def _undated_odd(
    sessions: list[Session], name: str, diagnostics: Diagnostics
) -> tuple[list[Session], float | None]:
    """The sessions with a created or updated time past the clock (and its slack), or
    not after 1970, left undated there, each counted; and the first moment one of those
    times is no longer past the clock (None: none ahead). A bogus year 2099 (a broken
    clock, a value in the wrong unit) kept the session at the top of every listing and
    `watch`, said to be `now`; Go's zero time, 0001-01-01, is no time (as an epoch of 0
    is none), and no local zone could show it."""
    latest = _clock() + FUTURE_SLACK
    kept = []
    ahead: float | None = None
    for session in sessions:
        created, updated = session.created, session.updated
        odd = [_odd(created, latest), _odd(updated, latest)]
        for moment, reason in zip((created, updated), odd, strict=True):
            if reason == FUTURE and moment is not None:
                due = moment.timestamp() - FUTURE_SLACK
                ahead = due if ahead is None else min(ahead, due)
        if odd[0] or odd[1]:
            diagnostics.skip(name, 0, odd[0] or odd[1] or "")
            session = replace(
                session,
                created=None if odd[0] else created,
                updated=None if odd[1] else updated,
            )
        kept.append(session)
    return kept, ahead


def _owner(app: str, name: str) -> str | None:
    """The file whose sessions `name` speaks of, when it is a companion (see base.py)."""
    from .sources import get

    owner_of: Callable[[str], str | None] | None = getattr(
        get(app), "companion_of", None
    )
    return owner_of(name) if owner_of is not None else None


def _parse_as_is(
    app: str, location: Location, name: str
) -> tuple[list[Session], Diagnostics]:
    from .sources import get

    diagnostics = Diagnostics()
    try:
        sessions = get(app).parse(Path(name), location, diagnostics)
        if not sessions:  # 4 bytes more, for files that list nothing only
            diagnostics = _said_wide(name, diagnostics)
        return sessions, diagnostics
    except FileNotFoundError:
        diagnostics.skip(name, 0, VANISHED)
    except Exception as error:
        if os.environ.get("SESSDEX_DEBUG"):
            raise
        diagnostics.problem(read_failed(app, name, error, "could not read"))
    return [], diagnostics


def _said_wide(name: str, diagnostics: Diagnostics) -> Diagnostics:
    """What a file that listed no session is said to hold: where a tool re-saved
    it as UTF-16 (or UTF-32), that, once, in place of its lines' notes (an "unfinished
    last line" of one NUL byte, lines "not JSON"), which would send the user astray."""
    if not files.wide_text(name):
        return diagnostics
    said = Diagnostics()
    said.skip(name, 0, WIDE_TEXT)
    return said


def _count(report: RefreshReport, result: Parsed) -> None:
    report.parsed += 1
    report.diagnostics.setdefault(result[0], Diagnostics()).update(result[4])


def _parse_stream(jobs: Iterator[Job]) -> tuple[int, Iterator[Parsed]]:
    """(how many jobs, their results): on every core for a big batch, where parsing
    starts while `jobs` (the scan) is still being produced. Parsing heads and tails is
    CPU-bound Python, so threads would only take turns on one core."""
    head = list(itertools.islice(jobs, PARALLEL_FROM))
    cores = (
        len(os.sched_getaffinity(0))
        if hasattr(os, "sched_getaffinity")
        else (os.cpu_count() or 1)
    )
    if (
        len(head) < PARALLEL_FROM  # the scan is over: a small batch
        or cores < 2
        or sys.platform != "linux"
        or os.environ.get("SESSDEX_DEBUG")
    ):
        head.extend(jobs)
        return len(head), map(_parse_one, head)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    count = [len(head)]

    def rest() -> Iterator[Job]:
        for job in jobs:
            count[0] += 1
            yield job

    # fork: the workers start with every module already imported and each source's
    # state as is; they only parse and send back values.
    pool = ProcessPoolExecutor(
        cores,
        mp_context=multiprocessing.get_context("fork"),
        initializer=quiet_on_interrupt,
        initargs=(os.getpid(),),
    )
    try:
        # forking, the executor starts every worker at its first submit (and starts no
        # other later): here, and not in map, which runs as long as the scan
        with signals_held():
            pool.submit(_started)
        # map submits each chunk as the scan yields it, and returns once the scan is over
        results = pool.map(
            _parse_one, itertools.chain(head, rest()), chunksize=PARSE_CHUNK
        )
    except BaseException:
        pool.shutdown(cancel_futures=True)
        raise

    def collect() -> Iterator[Parsed]:
        try:
            yield from results
        finally:  # on Ctrl-C, the jobs not started yet are dropped, not waited for
            pool.shutdown(cancel_futures=True)

    return count[0], collect()


def _started() -> None:
    """The first job: the workers' start, under `signals_held`."""


def quiet_on_interrupt(parent: int) -> None:
    """A worker process's start: Ctrl-C (sent to every process of the terminal's
    group) ends it at once, without the traceback each worker would print; the
    parent stops on its own KeyboardInterrupt. It ends with `parent`, however that ends."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the CLI's `Terminated`
    if hasattr(signal, "pthread_sigmask"):  # what came while `signals_held`: taken now
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
    end_with_parent(parent)


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Ctrl-C and SIGTERM held back while workers are forked, until each worker's
    `quiet_on_interrupt` has made their default its own. One that came sooner ran no
    handler: Python noted it for the parent's handler, which the worker's start then
    replaced, and so dropped it (a pool's worker terminated as it started waited for
    work forever, and its parent for it)."""
    import signal

    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield
    finally:  # the parent's own, held meanwhile, reach its handlers now
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def end_with_parent(parent: int) -> None:
    """Have Linux end this worker when `parent` ends. A parent killed outright (SIGKILL,
    the OOM killer) never shuts its pool down, and a worker of `ProcessPoolExecutor`
    holds its task pipe's other end itself: it would wait for work forever."""
    import ctypes
    import signal

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # no prctl: the worker ends as it did before
        return
    if os.getppid() != parent:  # the parent ended before prctl took
        os._exit(1)


def _chunks(items: list[_T], size: int) -> Iterable[list[_T]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
