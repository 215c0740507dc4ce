"""One live session: `LiveSession` reads its new events through a feed (`live_feeds`)
and tells its status from them (the rules are in `status.py`); `attach_processes` and
`starting` match the running CLIs (`live_processes`) to the sessions followed, and name
those with no session yet.
"""

from __future__ import annotations

import itertools
import logging
import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from . import databases, reading, sources
from .diagnostics import Diagnostics
from .live_feeds import (
    HISTORY_BYTES,
    MTIME_SLACK,
    Changed,
    History,
    HookFeed,
    ReadFeed,
    Seen,
    Signature,
)
from .live_processes import (
    STARTED_AFTER,
    Helper,
    Processes,
    Sharing,
    existed,
    has_open,
    opened_by,
    process_folder,
)
from .model import Event, Session
from .sources.base import Opened
from .status import (
    QUIET_WORKING,
    Status,
    Tracker,
    decide,
    last_recorded,
    listed_last_write,
)

log = logging.getLogger(__name__)

# a file's mtime is taken for a write of the app's (see MTIME_SLACK) only while it is at
# most this much later than the newest record: a file modified long after its newest
# record was copied (`cp -r`, a restore from a backup) or touched, not written by its app;
# within it, a clock a little off, or an answer streamed into a line or a row dated when
# it began
MTIME_AHEAD = 3600.0


HELPERS_KEPT = 64  # command lines of processes a CLI ran at a prompt, kept per session

# a session in a database many sessions share, its records an hour old or more, is read
# again on a write of the database only once the board's listing of it changed (a new
# message moves its time): any session's write changes the file, and a board of 1000 read
# them all whole at each; at least this often all the same (a write the listing misses)
LISTED_AFTER = 3600.0
SHARED_REREAD = 30.0


def _size(path: str | None) -> int:
    try:
        return os.path.getsize(path) if path else 0
    except OSError:
        return 0


# --- one live session ---------------------------------------------------------------------


class LiveSession:
    """A session being followed: its new events, and what they say of its status."""

    modified = 0.0  # the newest of its files' mtimes taken for its app's write

    def __init__(
        self,
        session: Session,
        source: sources.Source | None = None,
        spawner: str | None = None,
        history: History | None = None,
        window: int = HISTORY_BYTES,
    ) -> None:
        """`spawner`: what a sub-agent's session calls the sub-agent that started it (as
        `show` does); the lead where None. `history`: what `follow -n` draws of its
        recent history (a store then first read from its end where it can be).
        `window`: the bytes of its main file's end its first read takes."""
        self.session = session
        self.source = source or sources.get(session.app)
        self.since = time.time() - MTIME_SLACK  # a file modified later was seen written
        self.told = None
        if session.parent_id:  # what it was told, a person did not type
            self.told = reading.FromItsLead(
                spawner or reading.LEAD, reading.called(session)
            )
        self.history = history
        self._start(window)
        self.program, self.aliases = _program(self.source, session)
        self.pids: list[int] = []
        # the command lines of what its CLI ran when the last prompt came (MCP servers, a
        # background job): no tool run of that turn's answers, nor is a copy started again
        self.helpers: set[bytes] = set()
        self._helpers_at = 0.0  # the time of the prompt they were taken at
        self.alive: bool | None = None
        # a board lists its sessions again as their databases change (`follow` does not):
        # an old session of a shared database waits for its listing to change (`_unlisted`)
        self.listing = False
        self.listed: Session | None = None  # the listing's session at the last read
        self.relist = False  # a write of its database awaits a listing anew
        self._unread: Signature | None = None  # that write's
        self._drawn = False  # its history drawn (the first poll)
        self._first_written: float | None = None  # its files' time at the first read
        # a status's start dated ahead of the clock, and the moment it was first seen
        self._ahead: tuple[float, float] | None = None

    def _start(self, window: int) -> None:
        """A feed, and what its reads make, new: its first read takes `window` bytes of
        the main file's end."""
        session = self.session
        self.diagnostics = Diagnostics()
        self.tracker = Tracker(lead_id=session.id)
        self.seen = Seen()
        hook = getattr(self.source, "follow", None)
        self.feed: HookFeed | ReadFeed
        # a compressed file is archived: it does not grow, a re-read on change is enough;
        # a JSON document is rewritten whole, never appended to: read again on change too
        if callable(hook) and not (session.path or "").endswith((".zst", ".json")):
            self.feed = HookFeed(
                hook(session, self.diagnostics),
                self.diagnostics,
                self.tracker,
                app=session.app,
                told=self.told,
                window=window,
            )
        else:
            self.feed = ReadFeed(
                session,
                self.source,
                self.diagnostics,
                self.tracker,
                self.told,
                self.history,
                window,
            )

    def _history(self, now: float, events: list[Event]) -> list[Event]:
        """The first read's events, read again from 4 times as far back while they hold
        fewer than `follow -n` draws and the file goes on before them (one long line, a
        pasted image, filled the window: nothing was drawn), as `show --tail` widens."""
        history, window = self.history, HISTORY_BYTES
        size = _size(self.session.path)  # a window past it read the file whole
        while history is not None and window < size and self._from_its_end():
            drawn = sum(1 for e in events if history.shown is None or history.shown(e))
            if drawn >= history.count:
                break
            window *= 4
            self._start(window)
            events = _by_time(self.feed.poll(now, self.seen))
        return events

    def _from_its_end(self) -> bool:
        """Whether the first read began past the main file's start (a store's session
        read from its last rows widens them itself)."""
        feed = self.feed
        from_end = isinstance(feed, HookFeed) or feed.follower is not None
        return from_end and self.tracker.partial

    def poll(
        self, now: float | None = None, stores: dict[str, Signature] | None = None
    ) -> list[Event]:
        """The events written since the last poll (the recent history, the first time).
        `stores`: the shared stores a board's poll has looked at (`store_signature`)."""
        now = time.time() if now is None else now
        unlisted = self._unlisted(now, stores)
        self.relist = unlisted is True
        if unlisted is not None:  # written, its listing awaited; or not written
            return []
        self.listed = self.session
        events = _by_time(self.feed.poll(now, self.seen))
        if not self._drawn:  # the history, read at once: as `show` reads it
            self._drawn = True
            events = self._history(now, events)
            if not getattr(self.source, "SUBAGENTS_BY_TIME", False):
                events = _at_spawns(events)
        if self._first_written is None:
            self._first_written = self.feed.last_write()
        for event in events:
            self.tracker.add(event, now)
        for changed in self.feed.changes:
            if self._wrote(changed):
                self.modified = max(self.modified, changed.modified)
                if isinstance(self.feed, HookFeed):
                    self.tracker.touch(changed.agent_id, changed.modified)
        self.feed.changes.clear()
        if not isinstance(self.feed, ReadFeed):
            return events
        if self.feed.tokens is not None:
            # a session read whole is counted afresh: a running total an app keeps in a
            # row or a file and updates in place would be added again at every read
            self.tracker.tokens = self.feed.tokens
        # an answer still streamed when following began: drawn once read again
        return [e for e in events if e is not self.feed.undrawn]

    def kept(self) -> list[Event]:
        """What a poll that raised (a reader's bug on one record) found besides, drawn
        now: of the first, the history, which `follow -n` cuts as it cuts the first
        batch (a later poll's history read again would repeat it)."""
        if not isinstance(self.feed, HookFeed):
            return []
        events = _by_time(self.feed.release(self.seen))
        if events and not self._drawn:
            self._drawn = True
            if not getattr(self.source, "SUBAGENTS_BY_TIME", False):
                events = _at_spawns(events)
        now = time.time()
        for event in events:
            self.tracker.add(event, now)
        return events

    def release(self) -> list[Event]:
        """What the feed keeps back while it may still grow, as it is now: `follow`
        ends, and the poll that would draw it whole never comes."""
        undrawn = getattr(self.feed, "undrawn", None)  # the status took it already
        events = self.feed.release(self.seen)
        now = time.time()
        for event in events:
            if event is not undrawn:
                self.tracker.add(event, now)
        if isinstance(self.feed, ReadFeed) and self.feed.tokens is not None:
            self.tracker.tokens = self.feed.tokens
        return events

    def status(
        self, now: float | None = None, processes: Processes | None = None
    ) -> Status:
        now = time.time() if now is None else now
        if self.feed.lead_gone:
            return Status("ended", "its transcript was deleted")
        spawned = None
        if processes is not None and self.pids:
            pids = list(self.pids)
            if self._helpers_at != self.tracker.prompted:
                self._helpers_at = prompted = self.tracker.prompted
                self.helpers = processes.descendants(pids, prompted, HELPERS_KEPT)
            spawned = _spawned_checker(processes, pids, self._helper())
        # how long the session has been quiet is measured as the board's age column is
        # (`updated`), from the records: a file's mtime only says that something changed.
        # It counts once the file is seen to change while followed; before that it may be
        # a copy's (a home copied with `cp -r` has every file written just now)
        status = decide(self.tracker, now, self.written, self.alive, spawned)
        return self._not_ahead(status, now)

    def _not_ahead(self, status: Status, now: float) -> Status:
        """`status` whose `since` is no later than now: a record dated ahead (a clock set
        forward) starts its age when it was first seen, the same at each poll after, once
        the clock has passed that record's time too (its age went back to it: a jump)."""
        if status.since is None:
            return status
        if self._ahead is not None and self._ahead[0] == status.since:
            return replace(status, since=self._ahead[1])
        if status.since <= now:
            return status
        self._ahead = (status.since, now)
        return replace(status, since=now)

    def _helper(self) -> Helper | None:
        """What says a process its CLI started runs no tool call: one whose words are
        those of one it ran when the last prompt came (a helper that outlives turns:
        an MCP server restarted), or one the source's `helper_process` names (an MCP
        server its settings name, a command the user typed)."""
        hook = getattr(self.source, "helper_process", None)
        session, kept = self.session, self.helpers
        if not callable(hook) and not kept:
            return None

        def helper(words: Sequence[str]) -> bool:
            if "\0".join(words).encode(errors="replace") in kept:
                return True  # one it ran when the prompt came, started again
            return callable(hook) and hook(session, words) is True

        return helper

    @property
    def last_write(self) -> float:
        """When the session was last written, as its status tells it (`written`): what
        makes it its folder's newest for a CLI matched by its folder or `--continue`. Not
        its files' raw modification time: a session of days ago copied (`cp -r`) or
        touched just now was not written now."""
        return self.written

    @property
    def updated(self) -> float:
        """When the session was last updated as its records say (what `list` shows and
        `watch --since` chooses by), the files' modification time only where no record
        is dated: a copied home's files all look written just now."""
        recorded = self.tracker.recorded
        listed = self.session
        if (
            recorded
            or not self._own_file()
            or listed_last_write(listed.created, listed.updated)
        ):
            recorded = self._recorded()
        # with no event dated, the listing's time may be a header's (the 2025 Codex
        # rollout's start), not its last write: its own file's time says that, as
        # `tree` judges it (`transcripts._last_active`); a row of a shared database's
        # file's time may be another session's write, so there the listing's stays, as it
        # does where it is later than the session's start (`listed_last_write`)
        return last_recorded(recorded, self._last_written)

    def _last_written(self) -> float:
        """Its files' time as first read, or a write of its app's seen since
        (`modified`): a file touched or copied over while followed (`_wrote`) is none."""
        first = self._first_written
        written = self.feed.last_write() if first is None else max(first, self.modified)
        return max(written, self.tracker.lead.active)

    def _own_file(self) -> bool:
        """Whether the session has a file of its own (not a row of a shared store)."""
        path = self.session.path or ""
        return bool(path) and "#" not in path

    def _recorded(self) -> float:
        """The newest record's time: any agent's event's, or the listing's (0: none)."""
        recorded = self.tracker.recorded
        if self.session.updated is not None:
            recorded = max(recorded, self.session.updated.timestamp())
        return recorded

    @property
    def written(self) -> float:
        """When the session was last written, as far as can be told: its records, and its
        files' modification times once seen to change while followed (not a copy's)."""
        return max(self.modified, self.updated)

    def _wrote(self, changed: Changed) -> bool:
        """Whether a file of the session found changed was written by its app: modified
        since following began (before, it may be a copy's time), and either appended to
        while followed or not long after the newest record (a file copied or restored
        over itself, or touched, is not). Where no record is dated, its time is all
        there is."""
        if changed.modified < self.since:
            return False
        if changed.appended:
            return True
        recorded = self._recorded()
        return not recorded or changed.modified - recorded <= MTIME_AHEAD

    def folders(self) -> set[Path]:
        return self.feed.folders()

    def files(self) -> set[Path]:
        return self.feed.followed()

    def bytes_read(self) -> int:
        return self.feed.bytes_read()

    def ready(self) -> float:
        """When a poll may next read what a write of its files added (epoch seconds)."""
        if self.relist and isinstance(self.feed, ReadFeed):
            return self.feed.read_at + SHARED_REREAD  # a listing anew lets it sooner
        return self.feed.ready()

    def _unlisted(
        self, now: float, stores: dict[str, Signature] | None = None
    ) -> bool | None:
        """Of a session of a shared database whose records are LISTED_AFTER old and whose
        listing stayed as it was at its last read: whether the database was written since
        (the write is most likely another session's, and a listing anew tells: see
        LISTED_AFTER). None for any other session: a poll reads what was written."""
        feed = self.feed
        if not (
            self.listing
            and isinstance(feed, ReadFeed)
            and feed.shared
            and feed.read_before
            and self.session == self.listed
            and now - self.written >= LISTED_AFTER
            and now - feed.read_at < SHARED_REREAD
        ):
            return None
        self._unread = feed.store_signature(stores)
        return self._unread != feed.signature

    def listed_again(self, current: bool | None = None) -> None:
        """The board listed its app anew and found its session as it was: the write that
        waited for it was another session's. Only where that listing read the database
        as it is now (a snapshot a moment old may have missed the write); `current` says
        so where the board asked already (one question per database, not per session)."""
        feed = self.feed
        if (
            self.relist
            and isinstance(feed, ReadFeed)
            and (databases.snapshot_current(feed.store) if current is None else current)
        ):
            feed.signature = self._unread
            self.relist = False


def _spawned_checker(
    processes: Processes, pids: list[int], helper: Helper | None = None
) -> Callable[[float], bool | None]:
    def spawned(since: float) -> bool | None:
        answers = [processes.spawned_since(pid, since, helper) for pid in pids]
        if any(answers):
            return True
        return None if None in answers else False

    return spawned


def _by_time(events: list[Event]) -> list[Event]:
    """Events of several files in time order, each agent's in its own order: a time that
    steps back within one (Gemini CLI's turn end stamped before its last tool result) is
    not moved, as show keeps it. An event without a time keeps its place."""
    if len(events) < 2:
        return events
    keyed = []
    last = float("-inf")
    agents: dict[str | None, float] = {}  # each agent's latest time so far
    for index, event in enumerate(events):
        if event.time is not None:
            last = event.time.timestamp()
            agents[event.agent_id] = max(agents.get(event.agent_id, last), last)
        keyed.append((agents.get(event.agent_id, last), index, event))
    keyed.sort(key=lambda item: (item[0], item[1]))
    return [event for _, _, event in keyed]


def _at_spawns(events: list[Event]) -> list[Event]:
    """The history as `show` reads it: each sub-agent's events as one block after its
    spawn's message (the calls and usage noted with it), its own sub-agents' blocks in it
    at theirs. A sub-agent whose spawn is not among them (before the history's start)
    keeps its place by time."""
    agents = {e.agent_id for e in events if e.agent_id is not None}
    placed = {_child(e) for e in events} & agents
    if not placed:
        return events
    blocks: dict[str | None, list[Event]] = {agent: [] for agent in placed}
    rest: list[Event] = []
    for event in events:
        blocks.get(event.agent_id, rest).append(event)
    ordered: list[Event] = []
    pending = [_Level(iter(rest))]  # a stack, not recursion: sub-agents nested deep
    while pending:
        level = pending[-1]
        found = next(level.events, None)
        if level.held and (found is None or not _of_message(found, level.spawn)):
            if found is not None:  # read again once the blocks held are drawn
                level.events = itertools.chain([found], level.events)
            pending.extend(_Level(iter(block)) for block in reversed(level.held))
            level.held = []
            continue
        if found is None:
            pending.pop()
            continue
        ordered.append(found)
        block = blocks.pop(_child(found), None)
        if block:
            level.held.append(block)
            level.spawn = found
    for block in blocks.values():  # spawned only from within itself: never drawn above
        ordered.extend(block)
    return ordered


@dataclass(slots=True)
class _Level:
    """An agent's events being placed, and the blocks of the sub-agents its last spawn's
    message started, drawn once that message ends."""

    events: Iterator[Event]
    held: list[list[Event]] = field(default_factory=list)
    spawn: Event | None = None


def _of_message(event: Event, spawn: Event | None) -> bool:
    """Whether `event` is of the message that made `spawn`: its agent's, at its time, a
    call or the usage noted with it (gptme's sub-agents come after the message's usage),
    or the spawn's result its app gives as it launches it (OpenClaw's "accepted"), not
    one the sub-agent's answer makes."""
    if spawn is None or spawn.time is None:
        return False
    if event.agent_id != spawn.agent_id or event.time != spawn.time:
        return False
    return event.kind in ("subagent", "tool_call", "usage") or (
        event.kind == "tool_result"
        and event.call_id == spawn.call_id
        and event.extra.get("launched") is True
    )


def _child(event: Event) -> str | None:
    """The sub-agent a spawn started, None for any other event."""
    child = event.extra.get("child_id") if event.kind == "subagent" else None
    return child if isinstance(child, str) else None


def _program(
    source: sources.Source, session: Session
) -> tuple[str | None, tuple[str, ...]]:
    """The CLI that writes this session (from its resume plan), if the app has one, and
    the other names its processes may show."""
    try:
        plan = source.resume(session)
    except Exception as error:  # a plan is a nicety here: its absence is not an error
        log.debug("no resume plan for %s: %s", session.id, error)
        return None, ()
    return (plan.program, plan.process_names) if plan is not None else (None, ())


# --- which running CLI is which session's ---------------------------------------------


def attach_processes(
    lives: Sequence[LiveSession],
    processes: Processes,
    sharing: Sharing | None = None,
) -> None:
    """Set each session's `alive` and `pids` from the processes of its app's CLI.

    A process whose command line names the session is that session's, whatever its start
    time: its id, read by the source's `process_session` (`--resume <id>`), or where the
    source has none, found anywhere in it. One that continues its folder's latest session
    (`--continue`) goes to the most recently written session of that app in that folder
    of those there when it started (a session begun since is another CLI's). One that
    names another session, or none, but works in the session's folder (the one it
    started in, or the one its options name: `codex -C <dir>`) goes there too, unless it
    started well after that session's last write: then it is a fresh CLI that has written
    nothing yet, and a crashed session there is not said to be working for hours. One
    with no session open yet (a picker, a fork) goes only to one written after it started.
    One given the start of an id (`copilot --resume=7d1c2a4`) is the session's whose id
    alone starts so, of those on the board and those `sharing` gives.
    """
    if not processes.available:
        for live in lives:
            live.alive, live.pids = None, []
        return
    ids = {live.session.id.encode() for live in lives if live.session.id}
    by_folder: dict[tuple[str, str], list[tuple[int, LiveSession]]] = {}
    for live in lives:
        live.pids = []
        live.alive = False if live.program else None
    for program in {live.program for live in lives if live.program}:
        aliases = {a for live in lives if live.program == program for a in live.aliases}
        running = processes.running(program, sorted(aliases))
        if not running:
            continue
        mine = [live for live in lives if live.program == program]
        known: dict[str, list[str]] = {}  # by app: the ids an id's start may be of
        for live in mine:
            known.setdefault(live.session.app, []).append(live.session.id)
        for pid, args in running:
            said: dict[str, Opened | None] = {}  # by app: what its words say
            shared: dict[str, Sequence[str]] = {}  # by app: the ids its id's start fits
            named = [
                live
                for live in mine
                if _names(live, args, said, known[live.session.app], sharing, shared)
            ]
            if named:
                for live in named:
                    live.pids.append(pid)
                continue
            cwd: str | None = None
            started: float | None = None
            folders: dict[str, str] = {}  # by app: the folder its words give it
            continuing: list[LiveSession] = []  # sessions its `--continue` may reopen
            for live in mine:
                opened = _opened(live, args, said)
                vague = opened is None or opened.chosen  # its words hold no sure id
                if vague and any(session_id in args for session_id in ids):
                    continue  # it names another session
                if opened is not None and opened.session_id is not None:
                    continue  # it has another session open
                if opened == Opened() and live.session.id.encode() in args:
                    continue  # a new session, forked from this one
                if cwd is None:
                    cwd = processes.cwd(pid)
                    if cwd is None:
                        break
                    started = processes.started(pid)
                app = live.session.app
                if app not in folders:
                    folders[app] = process_folder(live.source, cwd, args)
                if live.session.cwd != folders[app]:
                    continue
                if opened is not None and opened.latest:
                    continuing.append(live)
                    continue
                # nothing known open (a fork, a picker, a title): its session is written
                # after it started, not one that was written just before
                late = 0.0 if opened is not None else STARTED_AFTER
                if started is None or started <= live.written + late:
                    by_folder.setdefault((program, folders[app]), []).append(
                        (pid, live)
                    )
            for live in continued(continuing, started):
                live.pids.append(pid)
    for pairs in by_folder.values():
        newest = max((live for _, live in pairs), key=lambda live: live.last_write)
        newest.pids.extend(pid for pid, live in pairs if live is newest)
    for live in lives:
        if live.program:
            live.alive = bool(live.pids)


@dataclass(frozen=True, slots=True)
class Starting:
    """A running CLI with no session yet: just started, with nothing written, or showing
    its picker (`--resume` with no id)."""

    app: str
    pid: int
    cwd: str  # the folder it works in
    started: float | None  # epoch seconds
    choosing: bool  # it shows its picker, or was given a name: the user chooses
    # the start of an id it was given that no session known here has: no picker shows
    # (a CLI stops on it, or opens a session sessdex does not read)
    unknown: str | None = None

    def status(self, now: float) -> Status:
        since = max(0.0, now - self.started) if self.started is not None else None
        if self.choosing:
            return Status("waiting_for_user", f"choosing a session (pid {self.pid})")
        if self.unknown is not None:
            kind = "working" if since is not None and since < QUIET_WORKING else "idle"
            return Status(
                kind,
                f"resuming {self.unknown}, which no session here has (pid {self.pid})",
            )
        if since is not None and since < QUIET_WORKING:
            return Status("working", f"starting (pid {self.pid})")
        return Status("idle", f"nothing written yet (pid {self.pid})")


def starting(
    clis: Sequence[sources.Source],
    lives: Sequence[LiveSession],
    processes: Processes,
    since: float | None = None,
    sharing: Sharing | None = None,
) -> list[Starting]:
    """The running CLIs of `clis` (sources that name their program in `CLI`) that no
    session in `lives` has (after `attach_processes`) and whose words open none: a plain
    start, a fork, a picker or a name (never `--resume <id>` or `--continue`), started
    after `since` (epoch seconds; a CLI older than the board's window may hold a session
    older than it). A copy run by another copy of the same CLI is its helper. The start
    of an id that one session alone has, on the board or of those `sharing` gives (an
    older one), opens that session; one that several share is a picker; one
    that none has is shown as such (no picker shows for it)."""
    if not processes.available:
        return []
    taken = {pid for live in lives for pid in live.pids}
    ids = [live.session.id.encode() for live in lives if live.session.id]
    shared: dict[tuple[str, str], int] = {}
    found: list[Starting] = []
    for source in clis:
        names = getattr(source, "CLI", None)
        if not isinstance(names, tuple) or not names:
            continue
        running = processes.running(names[0], names[1:])
        pids = {pid for pid, _ in running}
        for pid, args in running:
            if pid in taken or processes.parent(pid) in pids:
                continue
            if not _runs(args, names):
                continue  # a program given the name as a word (`vim claude`)
            opened = opened_by(source, args)
            if opened is not None and (opened.session_id or opened.latest):
                continue  # a session it names, or its folder's latest: not a new one
            if opened != Opened() and any(known in args for known in ids):
                continue  # it names a session (a fork names the one it copies)
            if opened is not None and opened.prefix is not None:
                key = (source.NAME, opened.prefix)
                if key not in shared:
                    shared[key] = _starting_so(
                        source.NAME, opened.prefix, lives, sharing
                    )
                if shared[key] == 1:
                    continue  # the one session whose id starts so, older than the board
            unknown = (
                opened.prefix
                if opened is not None
                and opened.prefix is not None
                and shared[(source.NAME, opened.prefix)] == 0
                else None
            )
            cwd = processes.cwd(pid)
            started = processes.started(pid)
            if cwd is None or (since is not None and (started or 0.0) < since):
                continue
            folder = process_folder(source, cwd, args)
            choosing = opened is not None and opened.chosen and unknown is None
            found.append(Starting(source.NAME, pid, folder, started, choosing, unknown))
    return found


def _starting_so(
    app: str, prefix: str, lives: Sequence[LiveSession], sharing: Sharing | None
) -> int:
    """How many sessions of `app` have an id that starts with `prefix`: those on the
    board, and those `sharing` gives (every one the index holds)."""
    ids = {
        live.session.id
        for live in lives
        if live.session.app == app and live.session.id.startswith(prefix)
    }
    if sharing is not None:
        ids.update(other for other in sharing(app, prefix) if other.startswith(prefix))
    return len(ids)


# programs that run a CLI's script, named next (`node /usr/bin/claude`)
_RUNNERS = ("node", "bun", "deno", "python")


def _runs(args: bytes, names: Sequence[str]) -> bool:
    """Whether a command line runs one of `names`: as its first word, or as the first
    word after a script runner's options."""
    words = [os.path.basename(w.decode(errors="replace")) for w in args.split(b"\0")]
    if not words:
        return False
    if words[0] in names:
        return True
    if not words[0].startswith(_RUNNERS):
        return False
    script = next((word for word in words[1:] if not word.startswith("-")), None)
    return script in names


def continued(lives: Iterable[LiveSession], started: float | None) -> list[LiveSession]:
    """Of the sessions in a folder, the one a CLI that continues its latest (`--continue`)
    and started at `started` reopened, of each app: the most recently written of those
    there when it started, or where there was none, the one it began."""
    chosen: dict[str, LiveSession] = {}
    order = sorted(
        lives, key=lambda live: (existed(live.session, started), live.last_write)
    )
    for live in order:  # the last of each app wins
        chosen[live.session.app] = live
    return list(chosen.values())


def _opened(
    live: LiveSession, args: bytes, said: dict[str, Opened | None]
) -> Opened | None:
    """`opened_by` in the words of `live`'s app, asked once per app and process."""
    app = live.session.app
    if app not in said:
        said[app] = opened_by(live.source, args)
    return said[app]


def _names(
    live: LiveSession,
    args: bytes,
    said: dict[str, Opened | None],
    known: Sequence[str] = (),
    sharing: Sharing | None = None,
    shared: dict[str, Sequence[str]] | None = None,
) -> bool:
    """`has_open`; the start of an id read against `known` and what `sharing` gives,
    asked once per process and app (kept in `shared`)."""
    opened = _opened(live, args, said)
    ids: Iterable[str] = known
    if opened is not None and opened.prefix is not None and sharing is not None:
        app = live.session.app
        shared = {} if shared is None else shared
        if app not in shared:
            shared[app] = sharing(app, opened.prefix)
        ids = [*known, *shared[app]]
    return has_open(opened, live.session.id, args, ids)
