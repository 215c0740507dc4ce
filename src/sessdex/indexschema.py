"""The index's tables, grown by small numbered migrations, and an opened index brought
to this build's schema. Not where the file lives or how it is opened (`indexdb`), nor
what a refresh writes into it (`indexrows`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from .errors import IndexBusy
from .indexfile import SCHEMA_VERSION


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


def _m004_home(db: sqlite3.Connection) -> None:
    """The path the index reads its home by: the same home reached by another (a link)
    is read by this one, so its rows stay those of the files it holds."""
    _script(db, "CREATE TABLE home (path TEXT NOT NULL)")


def _m005_sessions_parent(db: sqlite3.Connection) -> None:
    """Sessions by their lead: a lead written again retypes its sub-agents' rows
    (`indexrows`), found without reading every row."""
    _script(
        db,
        "CREATE INDEX sessions_parent ON sessions(app, parent_id)"
        " WHERE parent_id IS NOT NULL",
    )


def _m006_contexts(db: sqlite3.Connection) -> None:
    """What each context file meant to the files read with it (`context_digest`, see
    sources/base.py): one rewritten with the same meaning reads none of them again."""
    _script(db, "CREATE TABLE contexts (path TEXT PRIMARY KEY, digest BLOB NOT NULL)")


def _m007_depends(db: sqlite3.Connection) -> None:
    """The other files each file's parse read or looked for, and how each looked then
    (`freshness.depending`): a warm listing reads the file again when one changed, came
    or went. `nested` as its file's, so that a top-level listing stats only its own;
    `depends_app` holds every column, so that a warm listing reads the index alone."""
    _script(
        db,
        """
        CREATE TABLE depends (
            path TEXT NOT NULL,
            app TEXT NOT NULL,
            nested INTEGER NOT NULL,
            depended TEXT NOT NULL,
            signature TEXT NOT NULL
        );
        CREATE INDEX depends_path ON depends(path);
        CREATE INDEX depends_app ON depends(app, nested, path, depended, signature)
        """,
    )


# Numbered migrations: append, never edit a released one.
def _m008_scans_said(db: sqlite3.Connection) -> None:
    """What each noted scan said (`indexscan.said`): where it looked and what its
    listings passed over, said again by a run that need not scan the app."""
    _script(db, "ALTER TABLE scans ADD COLUMN said BLOB")


def _m009_codes(db: sqlite3.Connection) -> None:
    """Each app's code digest, as the build that made the index had it
    (`indexcarry`): the next build keeps the rows of the apps whose code is the same."""
    _script(db, "CREATE TABLE codes (app TEXT PRIMARY KEY, digest TEXT NOT NULL)")


MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (
    _m001_initial,
    _m002_usage,
    _m003_notes,
    _m004_home,
    _m005_sessions_parent,
    _m006_contexts,
    _m007_depends,
    _m008_scans_said,
    _m009_codes,
)
assert len(MIGRATIONS) == SCHEMA_VERSION, "update indexfile.SCHEMA_VERSION"


def held_elsewhere(error: sqlite3.OperationalError) -> bool:
    """Whether the index could not be written because another sessdex holds it."""
    return "locked" in str(error) or "busy" in str(error)


def begin_write(db: sqlite3.Connection, path: Path) -> None:
    """Start a write transaction on the index at `path`: IndexBusy where another sessdex
    holds it; any other failure (a full disk, ...) raised with its own message."""
    try:
        db.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as error:
        if held_elsewhere(error):
            raise IndexBusy(str(path)) from error
        raise


def migrate(db: sqlite3.Connection, path: Path) -> None:
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
    begin_write(db, path)
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
