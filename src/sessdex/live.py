"""Live sessions: follow one session as it is written (`follow`), or watch the board of
every recent session's status (`watch`), and replay a transcript with its pacing.

`Waiter` sleeps until a watched folder changes (watchfiles, when it is installed) or the
next poll. A session's feeds are in `live_feeds`, `LiveSession` and the matching of CLI
processes to sessions in `live_session`, /proc in `live_processes` (what other modules
import of those from here is re-exported); the status rules in `status.py`. Nothing here
names an app.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from . import databases, sources
from .diagnostics import Diagnostics, why
from .live_feeds import History as History
from .live_feeds import ReadFeed, Signature
from .live_processes import STARTED_AFTER as STARTED_AFTER
from .live_processes import Processes as Processes
from .live_processes import Sharing as Sharing
from .live_processes import existed as existed
from .live_processes import names as names
from .live_processes import opened_by as opened_by
from .live_processes import process_folder as process_folder
from .live_session import LiveSession as LiveSession
from .live_session import Starting as Starting
from .live_session import attach_processes as attach_processes
from .live_session import starting as starting
from .model import Event, Session
from .status import STATUSES, Status

log = logging.getLogger(__name__)

POLL_SECONDS = 0.25  # stat every followed file this often (no notifications)
SAFETY_POLL = 2.0  # with notifications: stat everything this often all the same
RESCAN_SECONDS = 10.0  # the board looks for new sessions this often (polling)
RESCAN_NOTIFIED = 30.0  # ... and this often when notifications name new files
TICK_SECONDS = 1.0  # the board is redrawn at least this often (ages move)
REWATCH = 5.0  # with notifications: the set of watched folders is renewed this often
COLD_AFTER = 3600.0  # a session nothing wrote for this long is looked at less often:
COLD_POLL = 3.0  # its files stat'ed and its status told this often (one resumed shows)
SQLITE_SIDE_FILES = ("-wal", "-journal")  # where a database's writes land first


# --- waiting for changes ------------------------------------------------------------------


class Waiter:
    """Sleeps until a watched folder changes or a timeout passes.

    With watchfiles installed (and `notify` not False), a thread watches the folders of the
    followed files and wakes the waiter at once; otherwise `wait` simply sleeps and the
    caller polls.
    """

    def __init__(self, notify: bool | None = None) -> None:
        self.backend = "polling"
        if notify is not False:
            try:
                import watchfiles  # noqa: F401
            except ImportError:
                if notify:
                    log.warning("watchfiles is not installed: polling instead")
            else:
                self.backend = "watchfiles"
        self.flag = threading.Event()
        self.lock = threading.Lock()
        self.paths: set[Path] = set()  # what changed since `changed()` was last asked
        self.folders: frozenset[Path] = frozenset()
        self.stop: threading.Event | None = None
        self.thread: threading.Thread | None = None

    @property
    def notifying(self) -> bool:
        return self.backend == "watchfiles" and self.thread is not None

    def watch(self, folders: Iterable[Path]) -> None:
        """Watch these folders (those that exist) from now on."""
        if self.backend != "watchfiles":
            return
        # os.path's: Path.is_dir raises where a folder above may not be entered
        wanted = frozenset(f for f in folders if os.path.isdir(f))
        if wanted == self.folders and self.thread is not None:
            return
        self._stop()
        self.folders = wanted
        if not wanted:
            return
        self.stop = threading.Event()
        self.thread = threading.Thread(
            target=self._run,
            args=(sorted(wanted), self.stop),
            name="sessdex-watch",
            daemon=True,
        )
        self.thread.start()

    def _run(self, folders: list[Path], stop: threading.Event) -> None:
        import watchfiles

        try:
            for changes in watchfiles.watch(
                *folders,
                watch_filter=None,
                debounce=20,
                step=50,
                stop_event=stop,
                recursive=False,
                raise_interrupt=False,
                ignore_permission_denied=True,
            ):
                with self.lock:
                    self.paths.update(Path(path) for _, path in changes)
                self.flag.set()
        except (OSError, RuntimeError) as error:
            log.debug("watching folders failed, polling instead: %s", error)
            self.backend = "polling"
        self.flag.set()

    def changed(self) -> set[Path]:
        """The paths notifications named since the last call (empty when polling)."""
        with self.lock:
            paths, self.paths = self.paths, set()
        return paths

    def wait(self, timeout: float) -> bool:
        """True when a watched folder changed before `timeout` seconds passed."""
        woke = self.flag.wait(timeout)
        self.flag.clear()
        return woke

    def _stop(self) -> None:
        if self.stop is not None:
            self.stop.set()
        if self.thread is not None:
            self.thread.join(timeout=2)
        self.stop, self.thread = None, None

    def close(self) -> None:
        self._stop()
        self.folders = frozenset()


def interval(waiter: Waiter) -> float:
    """How long to wait between polls: long when notifications wake us."""
    return SAFETY_POLL if waiter.notifying else POLL_SECONDS


# --- following one session ---------------------------------------------------------------------


RELIST_EVERY = 3.0  # seconds between two looks for sub-agents listed while followed
# a sub-agent listed while followed is read from its start, up to this many bytes of its
# end: the most a look reads of them (`transcripts.LISTED_APART_READ_MOST`)
LATE_READ_MOST = 64 * 1024 * 1024


class Began(list[Session]):
    """What a look for sub-agents listed apart (`follow`'s `relist`) gives where it is
    the first look made again (the index was locked as the follow began): those listed
    then, whose history no read drew. Each is followed as `listed`'s are, its last
    `history` events drawn, not all it wrote from its start (64 MB of it at most)."""


def follow(
    session: Session,
    *,
    duration: float | None = None,
    notify: bool | None = None,
    stop: Callable[[], bool] | None = None,
    diagnostics: Diagnostics | None = None,
    spawner: str | None = None,
    history: History | None = None,
    listed: Sequence[Session] = (),
    relist: Callable[[set[str]], Sequence[Session]] | None = None,
) -> Iterator[list[Event]]:
    """Batches of new events as they are written: the recent history first (`history`:
    what of it is drawn, which a store's session may be read from its end for).

    Ends after `duration` seconds (its last batch what was kept back while it might
    grow, as it is), or when `stop()` says so; sub-agents' events are
    interleaved by time and carry their `agent_id`. What the reads could not use is
    added to `diagnostics` as the generator ends (closed, or interrupted). `spawner`:
    what a sub-agent's session calls the sub-agent that started it (the lead where None).
    `listed`: sub-agents its own files hold nothing of (`transcripts.listed_apart`),
    followed beside it, their events after its own in each batch, as `show` gives them.
    `relist`: those listed since, given the ids followed and those drawn: asked at most
    every RELIST_EVERY seconds, each one it gives that no read followed has drawn by the
    next look followed from then on as the others are, read from its start
    (LATE_READ_MOST bytes of its end at most): what it wrote before the look is drawn;
    those the last look before `duration` ends found are drawn in the last batch. Those
    a look gives as `Began` are drawn as `listed`'s are: their history's last events.
    Each sub-agent is drawn by one read, whatever their timing: the one following it
    apart, else the one that drew its spawn, else the first to draw it.
    """
    live = LiveSession(session, spawner=spawner, history=history)
    apart = [(LiveSession(child, history=history), child.id) for child in listed]
    waiter = Waiter(notify)
    deadline = None if duration is None else time.monotonic() + duration
    relisted = time.monotonic()
    drawn: set[str] = set()  # the sub-agents drawn: a read followed holds them
    waiting: list[Session] = []  # found by the last look, followed at the next
    # the read each sub-agent is drawn by: the one that follows it apart, else the one
    # that drew its spawn (in its block), else the first that drew it. A lead's store
    # read slower than two looks may draw one followed apart since, or both may draw it
    # in one batch: the other's copy is dropped
    owner: dict[str, LiveSession] = {agent: other for other, agent in apart}

    def owned(reader: LiveSession, events: list[Event]) -> list[Event]:
        kept = []
        for e in events:
            if e.agent_id is None:
                kept.append(e)
                continue
            drawer = owner.setdefault(e.agent_id, reader)
            child = e.extra.get("child_id") if e.kind == "subagent" else None
            # a sub-agent's own: drawn in its block by the read that draws the spawn,
            # not by the lead's, first to it, before the spawn
            if isinstance(child, str):
                owner.setdefault(child, drawer)
            if drawer is reader:
                kept.append(e)
        return kept

    began: set[str] = set()  # listed as the follow began: their history is drawn
    uncut: set[LiveSession] = set()  # their reads whose first draw is not cut yet

    def follows(child: Session) -> LiveSession:
        if child.id in began:
            reader = LiveSession(child, history=history)
            uncut.add(reader)
        else:
            reader = LiveSession(child, window=LATE_READ_MOST)
        owner[child.id] = reader
        return reader

    def drawn_by(other: LiveSession, events: list[Event]) -> list[Event]:
        if other not in uncut:
            return events
        uncut.discard(other)
        return _history_of(events, history)

    def gather(take: Callable[[LiveSession], list[Event]]) -> list[Event]:
        events = owned(live, _safely(take, live))
        for other, agent in apart:
            read = drawn_by(other, _safely(take, other))
            told = [_told_apart(e, session.id, agent) for e in read]
            events += owned(other, told)
        drawn.update(e.agent_id for e in events if e.agent_id is not None)
        return events

    def last_found(found: list[Session]) -> list[Event]:
        # those the last look found that no read drew: no look comes after to follow
        # them (never drawn), no read of the lead after to draw them twice
        fresh = [c for c in found if c.id not in drawn]
        last = [(follows(c), c.id) for c in fresh]
        apart.extend(last)  # their diagnostics said too
        events: list[Event] = []
        for other, agent in last:
            read = _safely(LiveSession.poll, other)
            read += _safely(LiveSession.release, other)
            read = drawn_by(other, read)
            events += owned(other, [_told_apart(e, session.id, agent) for e in read])
        return events

    try:
        opening = gather(LiveSession.poll)
        if deadline is not None and time.monotonic() >= deadline:
            # no read comes after it (`--duration 0`): the history as the files hold
            # it, what a view cuts its last events from as `show --tail` does
            yield opening + gather(LiveSession.release)
            return
        yield opening
        while True:
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                held = gather(LiveSession.release)  # no later read finds it whole
                held += last_found(waiting)
                if held:
                    yield held
                return
            if stop is not None and stop():
                return
            if waiter.backend == "watchfiles":
                waiter.watch(set().union(live.folders(), *(o.folders() for o, _ in apart)))  # fmt: skip
            step = interval(waiter)
            waiter.wait(step if remaining is None else min(step, remaining))
            if relist is not None and time.monotonic() - relisted >= RELIST_EVERY:
                followed = {session.id, *drawn, *(agent for _, agent in apart)}
                # one found at the look before that no followed read has drawn since:
                # a read of a store (every STORE_SECONDS) may not yet have held it then
                late = [c for c in waiting if c.id not in followed]
                apart += [(follows(c), c.id) for c in late]
                found = relist(followed | {c.id for c in late})
                if isinstance(found, Began):
                    began.update(c.id for c in found)
                waiting = list(found)
                relisted = time.monotonic()
            events = gather(LiveSession.poll)
            if events:
                yield events
    finally:
        waiter.close()
        if diagnostics is not None:
            diagnostics.update(live.diagnostics)
            for other, _ in apart:
                diagnostics.update(other.diagnostics)


def _safely(
    take: Callable[[LiveSession], list[Event]], live: LiveSession
) -> list[Event]:
    """What `take` reads of `live`; where the read raises (a reader's bug on a record
    only one sub-agent holds), what it found besides (`LiveSession.kept`): said once,
    the follow going on with the others, and this one read again at the next poll, as
    the board does each session."""
    try:
        return take(live)
    except Exception as error:
        if os.environ.get("SESSDEX_DEBUG"):
            raise
        _broken(live, error)
        return live.kept()


def _broken(live: LiveSession, error: Exception) -> None:
    """Say once, in its diagnostics and the log, that a read of `live` raised `error`."""
    path = live.session.path
    message = f"{live.session.app}: stopped following {path}: {why(error, path)}"
    if message not in live.diagnostics.problems:
        live.diagnostics.problem(message)
        log.warning("%s", message)


def _history_of(events: list[Event], history: History | None) -> list[Event]:
    """The events from the last `history.count` of them it draws on (all where None):
    what `follow -n` draws of a sub-agent's history."""
    if history is None:
        return events
    if history.count <= 0:
        return []
    counted = 0
    for index in range(len(events) - 1, -1, -1):
        if history.shown is None or history.shown(events[index]):
            counted += 1
            if counted == history.count:
                return events[index:]
    return events


def _told_apart(event: Event, session_id: str, agent: str) -> Event:
    """A listed sub-agent's event as `show` gives it in its lead: told apart by its id."""
    return replace(event, session_id=session_id, agent_id=event.agent_id or agent)


def renumber(batches: Iterable[list[Event]], start: int = 0) -> Iterator[Event]:
    """The events of `batches` in order, numbered from `start`."""
    seq = start
    for batch in batches:
        for event in batch:
            yield replace(event, seq=seq)
            seq += 1


# --- the board: every recent session's status ---------------------------------------------


@dataclass(frozen=True, slots=True)
class BoardRow:
    session: Session
    status: Status
    updated: float  # epoch seconds of its newest record (LiveSession.updated)
    tokens: int
    partial: bool  # tokens count only the history read, not the whole session
    # a CLI running with no session yet (`Starting`): its pid; `session` then stands in,
    # with no id, its app and the CLI's folder
    pid: int | None = None


_RANK = {name: n for n, name in enumerate(STATUSES)}


def most_urgent_first(rows: list[BoardRow]) -> list[BoardRow]:
    """`rows` by status (STATUSES' order); in a status, a call blocked on the user (an
    approval, a question) before a turn that only ended, then the most recently written."""
    rows.sort(
        key=lambda r: (_RANK.get(r.status.status, 99), not r.status.blocked, -r.updated)
    )
    return rows


class Board:
    """The live sessions of a home: new ones found by `rescan`, all polled together; and
    the CLIs of `clis` (sources) running with no session yet, started since `since()`.
    `sharing` gives every session of the home whose id starts as a CLI was told
    (`attach_processes`). `relists`: its caller lists an app's sessions again when
    `unlisted` names it (`watch`), so an old session of a shared database waits for that
    listing to change before it is read again (`LiveSession.listing`)."""

    def __init__(
        self,
        list_sessions: Callable[[], Sequence[Session]],
        processes: Processes | None = None,
        clis: Sequence[sources.Source] = (),
        since: Callable[[], float | None] | None = None,
        sharing: Sharing | None = None,
        relists: bool = False,
    ) -> None:
        self.list_sessions = list_sessions
        self.relists = relists
        self.processes = processes if processes is not None else Processes()
        self.clis = clis
        self.since = since
        self.sharing = sharing
        self.starting: list[Starting] = []
        self.lives: dict[tuple[str, str], LiveSession] = {}
        self.changed = True  # sessions came or went since processes were attached
        self.left = Diagnostics()  # what the reads of sessions no longer shown met
        # a cold session's next poll (epoch seconds), and its status told until then
        self.due: dict[tuple[str, str], float] = {}
        self.told: dict[tuple[str, str], tuple[float, Status]] = {}
        # a followed file (a main file, a sub-agent's, a store) -> its sessions: a
        # notification naming it wakes them; and each session's files so registered
        self.owners: dict[Path, set[tuple[str, str]]] = {}
        self.owned: dict[tuple[str, str], set[Path]] = {}
        # of each shared database followed, its rows as its apps were last listed
        # (`databases.rows_mark`): a write that added or deleted none added no session,
        # nor a message to an old one, and needs no listing anew (`relist`)
        self.marks: dict[str, tuple[object, ...] | None] = {}

    def rescan(
        self,
        apps: set[str] | None = None,
        list_apps: Callable[[set[str]], Sequence[Session]] | None = None,
        marks: dict[str, tuple[object, ...] | None] | None = None,
    ) -> None:
        """Follow the sessions `list_sessions` gives now; drop those it no longer gives.
        With `apps`, those `list_apps` gives: the same, only those apps' listed anew.
        `marks`: of their databases, taken just now (`relist`'s), not taken again."""
        some = apps is not None and list_apps is not None
        # taken before the listing: a row added during it moves them after
        if marks is None:
            marks = self._marks(apps if some else None) if self.relists else {}
        begun = time.time_ns()
        if apps is not None and list_apps is not None:
            listed = list_apps(apps)
        else:
            listed = self.list_sessions()
        self.marks.update(marks)
        current: dict[str, bool] = {}  # by database: its snapshot as it is now
        wanted = {(s.app, s.id): s for s in listed}
        for key, live in list(self.lives.items()):
            # one whose app moved its file (same id): followed anew, from its new place
            if key not in wanted or wanted[key].path != live.session.path:
                gone = self.lives.pop(key)
                self.left.update(gone.diagnostics)
                self.due.pop(key, None)
                self.told.pop(key, None)
                self._own(key, set())
                self.changed = True
        for key, session in wanted.items():
            if key in self.lives:
                if self.lives[key].session != session:  # a new title, a new message
                    self.lives[key].session = session
                    self.due.pop(key, None)  # looked at now, cold or not
                elif apps is None or session.app in apps:
                    live = self.lives[key]
                    if live.relist and isinstance(live.feed, ReadFeed):
                        store = live.feed.store
                        if store not in current:
                            current[store] = databases.snapshot_current(store)
                        live.listed_again(current[store])
            else:
                try:
                    self.lives[key] = LiveSession(session)
                    self.lives[key].listing = self.relists
                    self._own(key, self.lives[key].files() | {Path(session.path or "")})
                    self.changed = True
                except OSError as error:
                    log.debug("cannot follow %s: %s", session.id, error)
        if self.relists:
            self._mark_quiet(begun, apps if some else None)

    def _mark_quiet(self, begun: int, apps: set[str] | None) -> None:
        """Mark the shared databases of `apps` (all, where None), listed anew at `begun`
        (ns), which had no mark before (the first listing's): taken after the listing, a
        mark is
        kept only where nothing wrote the database from before the listing began until
        after the mark was taken (`databases.written_before`), so that both saw the same
        rows. Elsewhere the first write lists their apps again, as a moved mark does."""
        for store in self._stores(apps) - self.marks.keys():
            try:
                mark = databases.rows_mark(store, self._listed(store))
            except (OSError, sqlite3.Error) as error:
                log.debug("cannot mark %s: %s", store, error)
                continue
            if databases.written_before(store, begun) and databases.snapshot_current(
                store
            ):
                self.marks[store] = mark

    def relist(
        self, apps: set[str], list_apps: Callable[[set[str]], Sequence[Session]]
    ) -> tuple[bool, bool]:
        """List again those of `apps` whose shared databases may hold a session, or a
        message of an old session, that their last listing missed: a row was added or
        deleted since (`marks`), or it cannot be told. Of the others, the old sessions that wait for a
        listing take theirs as it was. Whether it listed; and whether a database's
        snapshot was behind the app's last write (what it says is not the last word: to
        be asked again)."""
        moved: set[str] = set()
        kept: set[str] = set()
        behind = False
        taken: dict[str, tuple[object, ...] | None] = {}
        for app in apps:
            stores = self._stores({app})
            marks = self._marks({app})
            taken.update(marks)
            if not stores or any(
                marks[store] is None or marks[store] != self.marks.get(store)
                for store in stores
            ):
                moved.add(app)
            if all(databases.snapshot_current(store) for store in stores):
                kept.add(app)
            else:
                behind = True
        if moved:  # with the marks just taken: one look at a database a write
            ours = {store: taken[store] for store in self._stores(moved)}
            self.rescan(moved, list_apps, ours)
        for live in self.lives.values():
            if live.session.app in kept - moved:
                live.listed_again(True)
        return bool(moved), behind

    def _stores(self, apps: set[str] | None) -> set[str]:
        """The shared databases the sessions of `apps` (every app, where None) are in."""
        return {
            live.feed.store
            for live in self.lives.values()
            if isinstance(live.feed, ReadFeed)
            and live.feed.shared
            and (apps is None or live.session.app in apps)
        }

    def _marks(self, apps: set[str] | None) -> dict[str, tuple[object, ...] | None]:
        """The rows of the shared databases of `apps` now (`databases.rows_mark`); None
        for one that cannot be read (its listing says why)."""
        marks: dict[str, tuple[object, ...] | None] = {}
        for store in self._stores(apps):
            try:
                marks[store] = databases.rows_mark(store, self._listed(store))
            except (OSError, sqlite3.Error) as error:
                log.debug("cannot mark %s: %s", store, error)
                marks[store] = None
        return marks

    def _listed(self, store: str) -> dict[str, set[str]]:
        """The tables of `store` whose rows its apps' listings show, with the columns
        they read (their sources' LISTED_TABLES): of every app in it, so that a mark
        taken for one app compares with one taken for all."""
        found: dict[str, set[str]] = {}
        for live in self.lives.values():
            if isinstance(live.feed, ReadFeed) and live.feed.store == store:
                tables = getattr(live.feed.source, "LISTED_TABLES", {})
                for table, columns in tables.items():
                    found.setdefault(table, set()).update(columns)
        return found

    def _own(self, key: tuple[str, str], paths: set[Path]) -> None:
        """Register `paths` as the files whose notification wakes session `key`."""
        before = self.owned.pop(key, set())
        for path in before - paths:
            held = self.owners.get(path)
            if held is not None:
                held.discard(key)
                if not held:
                    del self.owners[path]
        for path in paths - before:
            self.owners.setdefault(path, set()).add(key)
        if paths:
            self.owned[key] = paths

    def poll(self, now: float | None = None, touched: set[Path] | None = None) -> int:
        """Read what was appended everywhere; the number of new events. A session nothing
        wrote for COLD_AFTER is looked at every COLD_POLL seconds, or when a notification
        names one of its files (`touched`)."""
        now = time.time() if now is None else now
        count = 0
        stores: dict[str, Signature] = {}  # a stat of a store 1000 sessions share, once
        woken = {
            key
            for path in touched or ()
            for name in (path, _written(path))
            for key in self.owners.get(name, ())
        }
        for key, live in self.lives.items():
            # not due yet; one due further on than a cold poll: the clock was set back
            if now < self.due.get(key, 0.0) <= now + COLD_POLL and key not in woken:
                continue
            try:
                new = len(live.poll(now, stores))
                count += new
                if new:  # a sub-agent's file it follows since, say
                    self._own(key, live.files() | {Path(live.session.path or "")})
                cold = not new and now - live.written >= COLD_AFTER
                self.due[key] = now + COLD_POLL if cold else 0.0
            except Exception as error:  # one broken session never stops the board
                if os.environ.get("SESSDEX_DEBUG"):
                    raise
                _broken(live, error)
                # what the poll found besides: its status now, not held while each
                # poll raises (a bug on a record its sub-agent writes at each)
                count += len(live.kept())
        if self.processes.refresh() or self.changed:
            lives = list(self.lives.values())
            attach_processes(lives, self.processes, self.sharing)
            self.changed = False
            self.told.clear()  # a CLI came or went: every status is told again
            if self.clis:
                since = self.since() if self.since is not None else None
                self.starting = starting(
                    self.clis, lives, self.processes, since, self.sharing
                )
        return count

    def rows(self, now: float | None = None) -> list[BoardRow]:
        """Every session's status, most urgent first, then most recently written."""
        now = time.time() if now is None else now
        rows = []
        for key, live in self.lives.items():
            # a cold session's status, told once between two of its polls
            due = self.due.get(key, 0.0)
            told = self.told.get(key)
            if told is not None and told[0] == due > now:
                status = told[1]
            else:
                status = live.status(now, self.processes)
                if due > now:
                    self.told[key] = (due, status)
            rows.append(
                BoardRow(
                    live.session,
                    status,
                    live.updated,
                    live.tracker.tokens,
                    live.tracker.partial,
                )
            )
        for cli in self.starting:
            stand_in = Session(cli.app, "", cwd=cli.cwd)
            when = cli.started or 0.0
            rows.append(BoardRow(stand_in, cli.status(now), when, 0, False, cli.pid))
        return most_urgent_first(rows)

    def folders(self) -> set[Path]:
        found: set[Path] = set()
        for live in self.lives.values():
            found |= live.folders()
        return found

    def unlisted(self) -> set[str]:
        """The apps of sessions whose shared database was written and which wait for a
        listing anew to tell whether the write was theirs (`LiveSession.relist`)."""
        return {live.session.app for live in self.lives.values() if live.relist}

    def diagnostics(self) -> Diagnostics:
        """What the reads of every session shown so far could not use."""
        met = Diagnostics()
        met.update(self.left)
        for live in self.lives.values():
            met.update(live.diagnostics)
        return met

    def ready(self, touched: set[Path]) -> float | None:
        """When a poll may read what the writes `touched` names added, where every one
        is of a store whose sessions read it whole, again only STORE_SECONDS after their
        last read (epoch seconds): a poll before then would read nothing of them. None
        where a poll now may read something (a file followed line by line, one nobody
        follows), or nothing is named."""
        at = None
        for path in touched:
            owners = self.owners.get(path) or self.owners.get(_written(path))
            if not owners:
                return None
            for key in owners:
                live = self.lives.get(key)
                if live is None:
                    return None
                ready = live.ready()
                if ready <= time.time():
                    return None
                at = ready if at is None else min(at, ready)
        return at

    def databases_of(self, paths: set[Path]) -> set[str] | None:
        """The apps whose followed databases `paths` are the -wal or -journal of; None
        where one of `paths` is anything else (a new file: any app's)."""
        apps: set[str] = set()
        for path in paths:
            database = _written(path)
            owners = self.owners.get(database) if database != path else None
            if not owners:
                return None
            apps.update(app for app, _ in owners)
        return apps

    def followed(self) -> set[Path]:
        found: set[Path] = set()
        for live in self.lives.values():
            found |= live.files()
        return found


def _written(path: Path) -> Path:
    """The file a notification naming `path` says was written: a SQLite database's own
    where it names its -wal or -journal (a write in WAL mode leaves the database alone
    until a checkpoint)."""
    for suffix in SQLITE_SIDE_FILES:
        if path.name.endswith(suffix) and len(path.name) > len(suffix):
            return path.with_name(path.name[: -len(suffix)])
    return path


def watch(
    list_sessions: Callable[[], Sequence[Session]],
    *,
    duration: float | None = None,
    notify: bool | None = None,
    rescan: float | None = None,
    tick: float = TICK_SECONDS,
    roots: Callable[[], set[Path]] | None = None,
    stop: Callable[[], bool] | None = None,
    diagnostics: Diagnostics | None = None,
    clis: Sequence[sources.Source] = (),
    since: Callable[[], float | None] | None = None,
    sharing: Sharing | None = None,
    list_apps: Callable[[set[str]], Sequence[Session]] | None = None,
) -> Iterator[list[BoardRow]]:
    """The board now, then again whenever something changed (at least every `tick` s),
    until `duration` s passed or `stop()` says so. `roots` names the folders where new
    sessions appear: watched too, so that one in a folder no followed session is in is
    seen at once, not at the next rescan. What the reads could not use is added to
    `diagnostics` as the generator ends (closed, or interrupted). The CLIs of `clis`
    running with no session yet, started since `since()`, are rows too (`Starting`);
    `sharing` gives the sessions of every age whose id starts as a CLI was told.
    `list_apps` gives what `list_sessions` would, only some apps' sessions listed
    anew (the others' as the last listing gave them): a database written in WAL mode (a
    notification at each write, naming its -wal) then has only its apps' sessions
    listed again, not the whole home's."""
    board = Board(
        list_sessions,
        clis=clis,
        since=since,
        sharing=sharing,
        relists=list_apps is not None,
    )
    waiter = Waiter(notify)
    if rescan is None:
        rescan = RESCAN_NOTIFIED if waiter.backend == "watchfiles" else RESCAN_SECONDS
    started = time.monotonic()
    deadline = None if duration is None else started + duration
    try:
        board.rescan()
        board.poll()
        scanned = shown = relisted = polled = time.monotonic()
        yield board.rows()
        watched = float("-inf")
        known: set[Path] = set()
        # new files named too soon after a listing: looked for at the next one, not lost
        # (a notification names a new session's file once)
        pending: set[Path] = set()
        # writes of stores whose sessions may not read them yet (a database written 20
        # times a second), polled for once they may (`due`, monotonic), or at a step
        held: set[Path] = set()
        due: float | None = None
        while deadline is None or time.monotonic() < deadline:
            if stop is not None and stop():
                return
            if waiter.backend == "watchfiles" and time.monotonic() - watched >= REWATCH:
                if roots is not None and watched == float("-inf"):  # after a rescan
                    known = roots()
                waiter.watch(board.folders() | known)  # new sub-agents, new sessions
                watched = time.monotonic()
            remaining = None if deadline is None else deadline - time.monotonic()
            step = min(interval(waiter), tick)
            timeout = step if remaining is None else max(0.0, min(step, remaining))
            if due is not None:
                timeout = max(0.0, min(timeout, due - time.monotonic()))
            waiter.wait(timeout)
            now = time.monotonic()
            # a file nobody follows changed in a watched folder: maybe a new session
            touched = waiter.changed()
            news = {path for path in touched | pending if path not in board.owners}
            pending = set()
            # a followed database's -wal (each write of an app in WAL mode names it): a
            # new session in it, maybe; else a file the board follows but has not
            # registered yet, told apart from all it follows only then
            apps = board.databases_of(news) if news else None
            if news and apps is None:
                news -= board.followed()
            listed = True
            if now - scanned >= rescan:
                board.rescan()
                scanned, watched = now, float("-inf")
            elif news and apps is not None and list_apps is not None:
                # only the apps of a database whose -wal it is listed again, where they
                # may be, at most once a second; their relists hold back no other's
                if now - relisted >= 1.0:
                    listed, behind = board.relist(apps, list_apps)
                    relisted = now
                    if behind:  # looked at again once the snapshot caught up
                        pending = news
                else:
                    pending, listed = news, False
            elif news:
                if now - scanned >= 1.0:  # at most once a second, as a new file
                    board.rescan()
                    scanned, relisted, watched = now, now, float("-inf")
                else:
                    pending, listed = news, False
            elif list_apps is not None and now - relisted >= 1.0 and board.unlisted():
                # a shared database written: its old sessions wait for a listing anew
                listed, _ = board.relist(board.unlisted(), list_apps)
                relisted = now
            else:
                listed = False
            touched |= held
            # woken only by writes no session may read yet: polled for when one may,
            # or at the next step, not at each write
            ready = None
            if touched and not listed and not board.changed and now - polled < step:
                ready = board.ready(touched)
            if ready is not None:
                held, due = touched, now + max(0.0, ready - time.time())
                changed = 0
            else:
                held, due, polled = set(), None, now
                changed = board.poll(touched=touched)
            if changed or now - shown >= tick:
                shown = now
                yield board.rows()
    finally:
        waiter.close()
        if diagnostics is not None:
            diagnostics.update(board.diagnostics())


# --- replay ----------------------------------------------------------------------------------

REPLAY_MIN_PAUSE = 0.01  # seconds: shorter pauses are added to the next one


def replay(
    events: Iterable[Event],
    *,
    speed: float = 10.0,
    max_gap: float = 2.0,
    sleep: Callable[[float], None] = time.sleep,
) -> Iterator[Event]:
    """`events` again with their original pacing, `speed` times faster, no pause over `max_gap` s.

    Pauses shorter than REPLAY_MIN_PAUSE add up until they reach it: a sleep lasts at
    least some 50 µs whatever it is asked, so a sleep per event would make a sped-up
    replay of a big transcript take longer than reading it (and a pause of 0 is none)."""
    previous: float | None = None
    owed = 0.0
    for event in events:
        if event.time is not None:
            moment = event.time.timestamp()
            if previous is not None and moment > previous:
                owed += min((moment - previous) / speed, max_gap)
                if owed >= REPLAY_MIN_PAUSE:
                    sleep(owed)
                    owed = 0.0
            previous = moment if previous is None else max(previous, moment)
        yield event
