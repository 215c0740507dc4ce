"""The index: a SQLite cache in sessdex's own cache dir of every session the sources list.

A refresh stats every candidate file and re-parses only those whose size, mtime or inode
(or, for a database, its WAL) changed, and those changed within a tick of their clock
before the last refresh read them (`freshness.settled`); vanished files drop out. What
several files say about one session is kept per file (`fragments`) and merged into
`sessions`, whose rows hold the ready-made JSON record so that listing never re-reads a
transcript.

Each app's scan is noted while it runs (`freshness`: the folders it listed, the paths it
probed, the environment it read), with each app's file signatures packed in one value and
a generation bumped by every write that changes a session: what the quick path (`quick`)
checks instead of scanning.

Two sessdex processes may refresh at once: parsing happens outside any transaction, and
writes are short IMMEDIATE transactions (a big refresh writes in parts while it parses),
each waiting on the other's lock.

A refresh runs through `indexscan` (what changed), `indexparse` (read, on every core) and
`indexrows` (written); `indexdb` opens the file and `indexschema` holds its tables.
"""

from __future__ import annotations

import itertools
import os
import sqlite3
import time
from collections import Counter
from collections.abc import Callable, Container, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Literal

import orjson

from . import freshness, indexrows, selection
from .diagnostics import MAX_DETAILS, NOT_LINES, Diagnostics
from .indexdb import (
    connect,
    copy_of,
    index_file,
    new_stand_in,
    no_room,
    once_more_if_damaged,
    prune_older_builds,
    warn_not_updated,
)
from .indexfile import rehomed, rehomed_records
from .indexparse import (
    FUTURE_SLACK,
    context_folder,
    owner_file,
    parse_one,
    parse_stream,
)
from .indexrows import Parsed
from .indexscan import (
    Job,
    Notes,
    RefreshReport,
    Said,
    answered,
    same_meaning,
    scan_all,
    unsaid,
)
from .indexschema import begin_write
from .model import Session
from .sources import Home, Location, Source
from .views.records import session_from_state
from .workers import quiet_on_interrupt, signals_held

# what other modules take from here, wherever it is defined
__all__ = [
    "FUTURE_SLACK",
    "Index",
    "Progress",
    "RefreshReport",
    "Row",
    "connect",
    "index_file",
    "once_more_if_damaged",
    "quiet_on_interrupt",
    "signals_held",
]

Progress = Callable[[int, int], None]

# parsed files per write transaction of a big refresh: small enough that what is left to
# write once the workers are done (up to one batch, with nothing else to run beside it) is short
WRITE_BATCH = 512


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


def read_by(db: sqlite3.Connection, home: Home) -> Home:
    """`home` as the index `db` reads it: by the path its rows were read by, where `home`
    is the same folder reached by another (a link; the index is named by the real path);
    else as given. Reading the files by one path keeps their rows; what is shown stays
    the user's (`~` stands for either name, `pathnames.home_names`)."""
    try:
        row = db.execute("SELECT path FROM home").fetchone()
    except sqlite3.Error:
        return home
    given = str(home.path)
    if row is None or row[0] == given or not os.path.isabs(row[0]):
        return home
    if os.path.realpath(row[0]) != os.path.realpath(given):
        return home
    return Home(Path(row[0]), home.environ)


def _noted(blob: bytes) -> Diagnostics:
    """What a file's parse met, as `indexrows.write` keeps it (`files.diagnostics`): the
    counts, its problems and the lines it named."""
    value = orjson.loads(blob)
    noted = Diagnostics.from_json(value)
    noted.details = [(p, n, r) for p, n, r in value.get("details", [])]
    noted.problems = list(value.get("problems", []))
    return noted


class Index:
    """The index of one home. Use `refresh()` then the query methods."""

    def __init__(
        self, home: Home, path: Path | None = None, *, stand_in: bool = True
    ) -> None:
        """`stand_in=False`: an index that cannot be written raises, where this run
        would otherwise go on in a stand-in (`_stand_in`)."""
        self.home = home
        self.given = home  # `home` is read by the path the index was built by
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
            why = no_room(error, self.path)
            if why is None or not stand_in:
                raise
            self.db = copy_of(self.path, "", why)
            self.stood_in = ""
            self.home = read_by(self.db, home)
            return
        if fresh and path is None:
            prune_older_builds(self.path)
        self.home = read_by(self.db, home)

    def shown(self, session: Session) -> Session:
        """`session` with its file and folder under the home as the user gave it, where
        the index reads that home by another path to it (`indexfile.rehomed`)."""
        recorded, given = str(self.home.path), str(self.given.path)
        if recorded == given:
            return session
        path, cwd = (
            rehomed(value, recorded, given) if value else value
            for value in (session.path, session.cwd)
        )
        return replace(session, path=path, cwd=cwd)

    def shown_rows(self, rows: list[Row]) -> list[Row]:
        """`rows` with their paths under the home as the user gave it (`shown`)."""
        recorded, given = str(self.home.path), str(self.given.path)
        if recorded == given:
            return rows
        return [
            Row(
                row.app,
                row.id,
                rehomed_records(row.record, recorded, given),
                row.state and rehomed_records(row.state, recorded, given),
            )
            for row in rows
        ]

    def _stand_in(self, error: sqlite3.OperationalError) -> bool:
        """Whether a write that failed with `error` can be done again in a stand-in: the
        index (or the temporary stand-in, its folder full too) copied into the next one,
        with the warning once."""
        if not self.may_stand_in:
            return False
        if self.stood_in is None:
            why = no_room(error, self.path)
            if why is None:
                return False
            warn_not_updated(self.path, why)
            target = ""
        elif self.stood_in == "" and no_room(error, None) is not None:
            target = ":memory:"
        else:
            return False
        copy = new_stand_in(target)
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

    def refresh_changed(
        self, apps: Sequence[str], progress: Progress | None = None
    ) -> RefreshReport:
        """`refresh` of the apps of `apps` (names) a refresh would change: those it would
        leave as they are (`unchanged`) are named in the report's `kept`, their sources
        not even loaded (a home holds the files of a few apps, and sessdex reads many).
        Their scans are not run, nor in `locations` (in `kept_locations`, as their last
        scans said where they looked): what their last scans passed over
        (a socket in the app's folder) is put in the report as a scan would put it."""
        from . import sources

        kept = self.unchanged(apps)
        said = self._said(kept)
        # an app whose noted scan lacks the answers a scan now keeps (an index written
        # before they were) is scanned again, once: they are noted for the next run
        kept &= {app for app, noted in said.items() if answered(noted)}
        report = self.refresh(
            [sources.get(app) for app in apps if app not in kept], progress
        )
        report.kept = [app for app in apps if app in kept]
        report.kept_locations = {app: said[app][0] for app in report.kept}
        for app in report.kept:
            told = said[app][2]
            if isinstance(found := told.get("found"), bool):
                report.kept_found[app] = found
            if isinstance(looked := told.get("looked"), list):
                report.kept_looked[app] = tuple(str(place) for place in looked)
        # what their scans said, said again: in the order a scan of them all says it
        for app in report.kept:
            passed = said[app][1]
            if passed:
                diagnostics = report.diagnostics.setdefault(app, Diagnostics())
                diagnostics.names_passed_over(app, passed)
                report.passed_over.setdefault(app, Counter()).update(
                    why for _, why in passed if why not in NOT_LINES
                )
        report.diagnostics = {
            app: report.diagnostics[app] for app in apps if app in report.diagnostics
        }
        report.passed_over = {
            app: report.passed_over[app] for app in apps if app in report.passed_over
        }
        return report

    def passed_over(self, apps: Sequence[str] = ()) -> list[tuple[str, str, str]]:
        """(app, path, why) of what the noted scans of `apps` (of all, where none is
        named) passed over in their listings (a pipe or a folder in a file's place, a
        folder refused), as `list -v` names them."""
        if not apps:
            apps = [app for (app,) in self.db.execute("SELECT app FROM scans")]
        return [
            (app, str(path), str(why))
            for app, noted in self._said(apps).items()
            for path, why in noted[1]
        ]

    def _said(self, apps: Iterable[str]) -> dict[str, Said]:
        """What the noted scan of each of `apps` said (`indexscan.said`), by the app."""
        marks = ",".join("?" * len(apps := list(apps)))
        return {
            app: unsaid(bytes(blob))
            for app, blob in self.db.execute(
                f"SELECT app, said FROM scans WHERE app IN ({marks})", apps
            )
            if blob
        }

    def kept_locations(self, apps: Sequence[str]) -> dict[str, Location]:
        """Where each of `apps` looked (a `Location`: an app's own kind of it is not
        kept), as its last noted scan said, for those whose `locate` would say it again:
        their noted scan holds (`_scans_hold`; a noted `locate` reads the variables and
        the files noted, nothing else). Their sources are not loaded."""
        return {
            app: said[0] for app, said in self._said(self._scans_hold(apps)).items()
        }

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
        started, since_ns = time.perf_counter(), time.time_ns()
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
        notes: dict[str, Notes | None] = {}
        late: list[bool] = []  # the scan stopped at the deadline
        digests = self._digests()
        depends = self._depends(names)
        scan = scan_all(
            self.home,
            sources,
            known,
            seen,
            notes,
            report,
            (deadline, late),
            digests,
            depends,
        )
        jobs: Iterator[Job] = scan
        if most is not None:  # the whole scan first, and only so many files read
            head = list(itertools.islice(scan, most + 1))
            if len(head) > most or late:
                scan.close()
                return None
            jobs = iter(head)
        # Workers start on the first changed files while the scan still lists the rest.
        total, results = parse_stream(jobs)
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
                unpacked |= self._write(
                    batch, vanished, pack=False, digests=digests, since_ns=since_ns
                )
                batch, vanished = [], []
        new_notes = self._changed_notes(notes)
        if batch or vanished or new_notes or unpacked:
            self._write(
                batch,
                vanished,
                new_notes,
                pack=True,
                also=unpacked,
                digests=digests,
                since_ns=since_ns,
            )
        report.seconds = time.perf_counter() - started
        return report

    def _depends(self, apps: Sequence[str]) -> dict[str, list[tuple[str, str]]]:
        """The other files each file of `apps` was read with, and how each looked
        (`freshness.depending`), by the file."""
        marks = ",".join("?" * len(apps))
        found: dict[str, list[tuple[str, str]]] = {}
        for path, depended, signature in self.db.execute(
            f"SELECT path, depended, signature FROM depends WHERE app IN ({marks})",
            list(apps),
        ):
            found.setdefault(path, []).append((depended, signature))
        return found

    def _digests(self) -> dict[str, bytes]:
        """The stored digest of each context file (`context_digest`, see base.py)."""
        rows = self.db.execute("SELECT path, digest FROM contexts")
        return {path: bytes(digest) for path, digest in rows}

    def _broke_off(self, result: Parsed, known: Container[str]) -> bool:
        """Whether a file the index holds sessions of gave none, with a problem that is
        not in the file (no room for a copy of its database, or it changed under every
        read: `Diagnostics.for_now`): its sessions stay listed as they were, the problem
        is said, and it is read again next time. A file that is damaged (a cut database
        or document) drops them, as a first listing of it would not show them."""
        _, name, _, fragments, diagnostics, _ = result
        if fragments or not (diagnostics.problems and diagnostics.for_now):
            return False
        if name not in known:
            return False
        held = self.db.execute(
            "SELECT 1 FROM fragments WHERE path = ? LIMIT 1", (name,)
        )
        return held.fetchone() is not None

    def _changed_notes(self, notes: dict[str, Notes | None]) -> dict[str, Notes | None]:
        """The apps whose noted scan differs from the stored one (None: forget it)."""
        if not notes:
            return {}
        marks = ",".join("?" * len(notes))
        stored: dict[str, Notes] = {
            app: (bytes(environ), {}, bytes(said or b""))
            for app, environ, said in self.db.execute(
                f"SELECT app, environ, said FROM scans WHERE app IN ({marks})",
                list(notes),
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

    def idle(self, apps: Sequence[str]) -> set[str]:
        """The apps of `apps` that hold nothing here (no file, session or usage sums) and
        whose noted scan still holds: a scan would find nothing again, so a warm run need
        not load their sources."""
        marks = ",".join("?" * len(apps))
        found = self._scans_hold(apps)
        for table in ("files", "sessions", "usage_files"):
            found -= {
                app
                for (app,) in self.db.execute(
                    f"SELECT DISTINCT app FROM {table} WHERE app IN ({marks})",
                    list(apps),
                )
            }
        return found

    def apps_held(self) -> set[str]:
        """The apps that have a session here (an error's hint asks which apps a home has)."""
        return {app for (app,) in self.db.execute("SELECT DISTINCT app FROM sessions")}

    def _scans_hold(self, apps: Sequence[str]) -> set[str]:
        """The apps of `apps` whose noted scan still holds: the variables their `locate`
        read are as they were, and every path their scan looked at as it was then."""
        marks = ",".join("?" * len(apps))
        found = {
            app
            for app, key in self.db.execute(
                f"SELECT app, environ FROM scans WHERE app IN ({marks})", list(apps)
            )
            if freshness.environ_holds(bytes(key), self.home.environ)
        }
        for app, path, what, value, inode in self.db.execute(
            f"SELECT app, path, what, value, inode FROM scan_paths WHERE app IN ({marks})",
            list(apps),
        ):
            if app in found and not freshness.still_holds(path, what, value, inode):
                found.discard(app)
        return found

    def unchanged(self, apps: Sequence[str]) -> set[str]:
        """The apps of `apps` that a refresh would leave as they are: their noted scan
        holds (see `idle`; sub-agents' folders too) and every file the index holds of
        them has its recorded signature, none refused, read but for a file beside it, or
        due to be read again (those a refresh looks at again). Their sources need not load."""
        marks = ",".join("?" * len(apps))
        found = self._scans_hold(apps)
        for app, path, size, mtime_ns, inode, wal in self.db.execute(
            f"SELECT app, path, size, mtime_ns, inode, wal FROM files WHERE app IN ({marks})",
            list(apps),
        ):
            if app not in found:
                continue
            # one refused, read but for a file beside it, or due: a refresh looks again
            again = wal.startswith((freshness.REFUSED, freshness.DUE))
            if again or freshness.SIDE in wal:
                found.discard(app)
                continue
            if freshness.file_signature(path) != (size, mtime_ns, inode, wal):
                found.discard(app)
        looks: dict[str, str] = {}  # nor has any file their parses read changed
        marks = ",".join("?" * len(found))
        for app, depended, signature in self.db.execute(
            f"SELECT app, depended, signature FROM depends WHERE app IN ({marks})",
            sorted(found),
        ):
            if app in found and freshness.read_again([(depended, signature)], looks):
                found.discard(app)
        return found

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
        since_ns = time.time_ns()  # before the stat: see `freshness.settled`
        signature = freshness.file_signature(path)
        if signature is None:
            return False
        if tuple(row) == signature and not freshness.read_again(
            self.db.execute(
                "SELECT depended, signature FROM depends WHERE path = ?", (path,)
            ).fetchall(),
            {},
        ):
            return True  # nor has any file its parse read changed
        location = source.locate(self.home)
        if context_folder(source.NAME, path, location) is not None:
            # many files' sessions changed, which a scan finds, unless its meaning did not
            stored = self.db.execute(
                "SELECT digest FROM contexts WHERE path = ?", (path,)
            ).fetchone()
            digests = {} if stored is None else {path: bytes(stored[0])}
            if not same_meaning(source, path, True, digests):
                return False
            unread: Parsed = (source.NAME, path, signature, [], Diagnostics(), [])
            self._write([unread], [], digests=digests, since_ns=since_ns)
            return True
        jobs: list[Job] = [(source.NAME, location, path, signature)]
        owner = owner_file(source.NAME, path)
        if owner is not None:  # a companion changed: its owner's sessions did
            owned = freshness.file_signature(owner)
            held = self.db.execute("SELECT 1 FROM files WHERE path = ?", (owner,))
            if owned is not None and held.fetchone() is not None:
                jobs.append((source.NAME, location, owner, owned))
        jobs += self._kin_jobs(source, location, path)
        report = RefreshReport() if report is None else report
        parsed = [parse_one(job) for job in jobs]
        for result in parsed:
            _count(report, result)
        indexed = {job[2] for job in jobs}  # each a file the index holds
        self._write(
            [r for r in parsed if not self._broke_off(r, indexed)],
            [],
            since_ns=since_ns,
        )
        return True

    def _kin_jobs(self, source: Source, location: Location, path: str) -> list[Job]:
        """The other files the index holds that are read together with `path` (`kin_of`,
        see base.py), to parse again with it."""
        kin_of: Callable[[str], str | None] | None = getattr(source, "kin_of", None)
        kin = kin_of(path) if kin_of is not None else None
        if kin_of is None or kin is None or getattr(source, "KIN_GONE", False):
            return []
        jobs: list[Job] = []
        for (other,) in self.db.execute(
            "SELECT path FROM files WHERE app = ? AND path != ?", (source.NAME, path)
        ):
            if kin_of(other) != kin:
                continue
            held = freshness.file_signature(other)
            if held is not None:
                jobs.append((source.NAME, location, other, held))
        return jobs

    def _write(
        self,
        parsed: list[Parsed],
        vanished: list[str],
        notes: dict[str, Notes | None] | None = None,
        *,
        pack: bool = True,
        also: Iterable[str] = (),
        digests: Mapping[str, bytes] | None = None,
        since_ns: int,
    ) -> set[str]:
        """`indexrows.write`, done in a stand-in for this run where the index's disk has no
        room left (or is read-only): the listing is still answered. `since_ns`: when the
        reads of `parsed` began, before any stat of them."""
        while True:
            try:
                return indexrows.write(
                    self.db,
                    self.path,
                    parsed,
                    vanished,
                    notes,
                    pack=pack,
                    also=also,
                    home=str(self.home.path),
                    digests=digests,
                    since_ns=since_ns,
                )
            except sqlite3.OperationalError as error:
                if not self._stand_in(error):
                    raise

    # --- queries -----------------------------------------------------------------------

    def rows(
        self,
        *,
        apps: Sequence[str] = (),
        since: datetime | None = None,
        until: datetime | None = None,
        under: str | Sequence[str] | None = None,
        words: Sequence[str] = (),
        scoped: Sequence[tuple[str, str]] = (),
        include_subagents: bool = False,
        limit: int | None = None,
        first_prefix: str | None = None,
        first_under: str | Sequence[str] | None = None,
        with_state: bool = False,
        grouped: bool = False,
    ) -> list[Row]:
        """Sessions newest first, filtered; `first_prefix` ranks id-prefix matches first,
        then `first_under` those in that folder or below it.
        `grouped`: each sub-agent right after its lead, as `list --all` shows them
        (`selection.under_leads`), `limit` taking the first rows of that order."""
        columns = f"app, id, record, {'state' if with_state else 'NULL'}"
        if grouped:
            columns += ", " + selection.LEAD_COLUMNS
        sql, args = selection.sessions_sql(
            columns,
            apps=apps,
            since=since.timestamp() if since is not None else None,
            until=until.timestamp() if until is not None else None,
            under=under,
            words=words,
            scoped=scoped,
            include_subagents=include_subagents,
            limit=None if grouped else limit,
            first_prefix=first_prefix,
            first_under=first_under,
            home=str(self.home.path),
        )
        if scoped:
            self.db.create_function("_field", 2, selection.field, deterministic=True)
        if not grouped:
            return [Row(*r) for r in self.db.execute(sql, args)]
        found = self.db.execute(sql, args).fetchall()
        order = selection.under_leads([(r[0], r[1], r[4], r[5]) for r in found])
        return [Row(*found[n][:4]) for n in order[:limit]]

    def folders_named(self, name: str, limit: int = 50) -> list[tuple[str, float]]:
        """(folder, its newest lead session's update) of the folders whose last part is
        `name`, newest first, under the home as the user gave it: where a project that
        left its folder may have gone."""
        tail = "/" + name
        rows = self.db.execute(
            "SELECT cwd, max(updated) FROM sessions WHERE parent_id IS NULL"
            " AND updated IS NOT NULL AND substr(cwd, -?) = ?"
            " GROUP BY cwd ORDER BY 2 DESC LIMIT ?",
            (len(tail), tail, limit),
        )
        recorded, given = str(self.home.path), str(self.given.path)
        return [(rehomed(cwd, recorded, given), updated) for cwd, updated in rows]

    def count(
        self,
        *,
        apps: Sequence[str] = (),
        words: Sequence[str] = (),
        scoped: Sequence[tuple[str, str]] = (),
        include_subagents: bool = False,
        under: str | Sequence[str] | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> int:
        """How many sessions `rows` would give for these filters, none of them read."""
        sql, args = selection.sessions_sql(
            "count(*)",
            apps=apps,
            since=since.timestamp() if since is not None else None,
            until=until.timestamp() if until is not None else None,
            under=under,
            words=words,
            scoped=scoped,
            include_subagents=include_subagents,
            home=str(self.home.path),
        )
        if scoped:
            self.db.create_function("_field", 2, selection.field, deterministic=True)
        return int(self.db.execute(sql, args).fetchone()[0])

    def searches(
        self, apps: Sequence[str], include_subagents: bool = False
    ) -> Iterator[str]:
        """The search text of each session of `apps` (`selection.searches_sql`): what
        the words `find` suggests when nothing matched are taken from."""
        sql, args = selection.searches_sql(apps, include_subagents)
        for (search,) in self.db.execute(sql, args):
            yield search

    def ids(self) -> list[str]:
        """Every session id (sub-agents too), lowercased and sorted: what a prefix
        given to `resolve` is matched against."""
        return sorted(i for (i,) in self.db.execute("SELECT lower(id) FROM sessions"))

    def newest(
        self,
        apps: Sequence[str] = (),
        under: str | Sequence[str] | None = None,
        include_subagents: bool = False,
    ) -> float | None:
        """When the newest session (of `apps`, or any; in a folder `under`, or any;
        sub-agents left out, as a listing leaves them, unless `include_subagents`, as
        `--all` lists them) last changed, as a POSIX time; None where none has a time."""
        sql, args = selection.sessions_sql(
            "updated",
            apps=apps,
            under=under,
            include_subagents=include_subagents,
            limit=1,
        )
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

    def folders(self, ids: Iterable[tuple[str, str]]) -> dict[tuple[str, str], str]:
        """The folder of each of these (app, id) sessions the index holds with one,
        under the home as given (`shown`). Read from the column where it is the
        session's own text; from the record where that column could not hold it."""
        wanted = set(ids)
        found: dict[tuple[str, str], str] = {}
        names = sorted({session_id for _, session_id in wanted})
        for start in range(0, len(names), 500):  # SQLite's limit on bound values
            part = names[start : start + 500]
            for app, session_id, cwd, record in self.db.execute(
                "SELECT app, id, cwd, CASE WHEN instr(cwd, char(65533)) THEN record END"
                f" FROM sessions WHERE id IN ({', '.join('?' * len(part))})",
                part,
            ):
                if (app, session_id) in wanted and cwd:
                    if record is not None:  # a lone surrogate the column replaced
                        cwd = Row(app, session_id, record, None).session().cwd
                    found[(app, session_id)] = cwd
        recorded, given = str(self.home.path), str(self.given.path)
        if recorded != given:
            found = {k: rehomed(v, recorded, given) for k, v in found.items()}
        return found

    def under(
        self, app: str, parent_ids: Sequence[str], *, state: bool = False
    ) -> list[tuple[str, Row]]:
        """(parent id, row) of each session of `app` listed under one of `parent_ids`
        (their sub-agents), oldest first; with `state`, each row's full state too (what
        a read of the session needs: the app's `extra` facts)."""
        found: list[tuple[str, Row]] = []
        held = "state" if state else "NULL"
        for start in range(0, len(parent_ids), 500):  # SQLite's limit on bound values
            part = parent_ids[start : start + 500]
            found += [
                (r[0], Row(*r[1:]))
                for r in self.db.execute(
                    f"SELECT parent_id, app, id, record, {held} FROM sessions WHERE app = ?"
                    f" AND parent_id IN ({', '.join('?' * len(part))})"
                    " ORDER BY updated",
                    [app, *part],
                )
            ]
        return found

    def written_since(self, ids: Sequence[str], app: str, since: float) -> bool:
        """Whether one of the sessions `ids` of `app` was updated at `since` (epoch
        seconds) or after, or is listed with no time."""
        for start in range(0, len(ids), 500):  # SQLite's limit on bound values
            part = ids[start : start + 500]
            if self.db.execute(
                "SELECT 1 FROM sessions WHERE app = ? AND id IN"
                f" ({', '.join('?' * len(part))}) AND (updated IS NULL OR updated >= ?)"
                " LIMIT 1",
                [app, *part, since],
            ).fetchone():
                return True
        return False

    def ids_lowered(self, app: str) -> list[tuple[str, str]]:
        """(id lowered as `by_prefix` compares it, id) of every session of `app`, sorted:
        many ids matched against all the others in one query, not a scan each."""
        return sorted(
            self.db.execute("SELECT lower(id), id FROM sessions WHERE app = ?", (app,))
        )

    def by_prefix(
        self, prefix: str, app: str | None = None, limit: int = 20
    ) -> list[Row]:
        """Sessions (sub-agents too; of `app`, or any) whose id starts with `prefix`,
        case-insensitively: those whose id it is whole first (past `limit` newer ones
        it starts, an app's short ids), then newest first."""
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
        return sql + " ORDER BY length(id) = ? DESC, updated DESC", [*args, len(prefix)]

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

    def leads_in_folder(
        self, folders: Iterable[str], limit: int = 20
    ) -> list[tuple[str, str]]:
        """(app, id) of the lead sessions (`limit` at most, newest first) a file below one
        of `folders` holds a part of, a sub-agent's file standing for its lead: what a
        folder given for an id holds (a session's own folder, as some apps keep one)."""
        found: dict[tuple[str, str], None] = {}
        for folder in folders:
            start = folder.rstrip(os.sep) + os.sep
            for app, lead in self.db.execute(
                "SELECT s.app, coalesce(s.parent_id, s.id) AS lead FROM fragments f"
                " JOIN sessions s ON s.app = f.app AND s.id = f.id"
                " WHERE substr(f.path, 1, ?) = ?"
                " GROUP BY s.app, lead ORDER BY max(s.updated) DESC LIMIT ?",
                (len(start), start, limit),
            ):
                found[(app, lead)] = None
        return list(found)[:limit]

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

    def noted_diagnostics(
        self, apps: Sequence[str], besides: Container[str] = ()
    ) -> dict[str, Diagnostics]:
        """Per app, what the parses of its files the index holds met (but those named in
        `besides`: parsed this run, their news said), as each parse noted it: a warm
        refresh parses nothing again, and a command that says it each run says it."""
        marks = ",".join("?" * len(apps))
        found: dict[str, Diagnostics] = {}
        for app, path, blob in self.db.execute(
            "SELECT app, path, diagnostics FROM files WHERE diagnostics IS NOT NULL"
            f" AND app IN ({marks}) ORDER BY app, path",
            list(apps),
        ):
            if path in besides:
                continue
            found.setdefault(app, Diagnostics()).update(_noted(blob))
        return found

    def not_read(self, apps: Sequence[str] = ()) -> Iterator[tuple[str, str]]:
        """(path, reason) of each file the indexed ones noted as not read at all (a note
        at line 0: UTF-16 text, a pipe in its place), every one: `skipped_details` stops
        at MAX_DETAILS, of lines too, and may not reach a file asked after."""
        sql = "SELECT diagnostics FROM files WHERE diagnostics IS NOT NULL"
        if apps:
            sql += f" AND app IN ({','.join('?' * len(apps))})"
        for (blob,) in self.db.execute(sql, list(apps)):
            for path, line, reason in orjson.loads(blob).get("details", []):
                if not line:
                    yield str(path), str(reason)

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
        # by path: a file read again since is named where a cold run names it
        for app, blob in self.db.execute(
            "SELECT app, diagnostics FROM files WHERE diagnostics IS NOT NULL"
            " ORDER BY app, path"
        ):
            entry = stats.setdefault(app, {})
            diagnostics = entry.setdefault("diagnostics", Diagnostics())
            assert isinstance(diagnostics, Diagnostics)
            diagnostics.update(_noted(blob))  # its details up to MAX_DETAILS
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

    def each_usage_keys(self, app: str) -> Iterator[tuple[str, bytes]]:
        """(path, its responses' keys) of each of the app's files that stored any, one
        at a time."""
        for path, blob in self.db.execute(
            "SELECT path, keys FROM usage_files WHERE app = ? AND length(keys) > 0",
            (app,),
        ):
            yield path, bytes(blob)

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
        begin_write(db, self.path)
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

    def usage_meta_names(self, prefix: str) -> list[str]:
        """The names of the `usage_meta` rows that start with `prefix`."""
        return [
            name
            for (name,) in self.db.execute(
                "SELECT name FROM usage_meta WHERE substr(name, 1, ?) = ?",
                (len(prefix), prefix),
            )
        ]

    def listed(self, app: str, ids: Iterable[str]) -> set[str]:
        """The ids of `ids` the index holds a session of `app` by."""
        names = sorted(set(ids))
        found: set[str] = set()
        for start in range(0, len(names), 500):  # SQLite's limit on bound values
            part = names[start : start + 500]
            found.update(
                session_id
                for (session_id,) in self.db.execute(
                    "SELECT id FROM sessions WHERE app = ? AND id IN "
                    f"({', '.join('?' * len(part))})",
                    [app, *part],
                )
            )
        return found

    def listed_files(self, app: str, ids: Iterable[str]) -> dict[str, str]:
        """Id -> how the file that session of `app` is listed by (its `path`; for a row
        of a database, the database) looked to the last refresh (`file_looks`). Nothing
        is stat'ed; an id whose file the index holds no row of is left out."""
        names = sorted(set(ids))
        paths: dict[str, str] = {}
        for start in range(0, len(names), 500):  # SQLite's limit on bound values
            part = names[start : start + 500]
            for session_id, path in self.db.execute(
                "SELECT id, json_extract(record, '$.path') FROM sessions WHERE app = ?"
                f" AND id IN ({', '.join('?' * len(part))})",
                [app, *part],
            ):
                if isinstance(path, str) and path:
                    paths[session_id] = path
        # a database's session is listed by `<database>#<its row>`
        databases = (p.rpartition("#")[0] for p in paths.values() if "#" in p)
        looks = self.file_looks({*paths.values(), *databases})
        found: dict[str, str] = {}
        for session_id, path in paths.items():
            look = looks.get(path) or looks.get(path.rpartition("#")[0])
            if look is not None:
                found[session_id] = look
        return found

    def file_looks(self, paths: Iterable[str]) -> dict[str, str]:
        """Path -> how that file looked to the last refresh: its size, change time, inode
        and WAL as `files` holds them, and its path; a path it holds no row of is left
        out. A file the refresh could not trust (`freshness.settled`) looks new each time."""
        wanted = sorted(set(paths))
        looks: dict[str, str] = {}
        for start in range(0, len(wanted), 500):  # SQLite's limit on bound values
            part = wanted[start : start + 500]
            for path, size, mtime_ns, inode, wal in self.db.execute(
                "SELECT path, size, mtime_ns, inode, wal FROM files WHERE path IN "
                f"({', '.join('?' * len(part))})",
                part,
            ):
                changed = str(mtime_ns)
                if mtime_ns == freshness.UNKNOWN:  # changed in its clock's tick: a
                    # look that matches none, so what is kept by it is read again
                    changed = f"unsettled {time.time_ns()}"
                looks[path] = f"{size} {changed} {inode} {wal} {path}"
        return looks


def _count(report: RefreshReport, result: Parsed) -> None:
    report.parsed += 1
    report.parsed_paths.add(result[1])
    said = report.diagnostics.get(result[0])
    if said is None:  # one an app: `setdefault` made one (eight containers) a file
        said = report.diagnostics[result[0]] = Diagnostics()
    said.update(result[4])
