"""Live sessions: follow a session's files as they are written, and tell its status.

`LiveSession` reads only what was appended to each of a session's files (`follow.Follower`):
through the source's optional `follow` hook, per-file readers that keep their state between
lines; otherwise by calling the source's `read` again (from the last offset while the main
file only grows) and keeping the events not seen before. `Processes` finds the app's CLI in
/proc; `Waiter` sleeps until a watched folder changes (watchfiles, when it is installed) or
the next poll. The rules themselves are in `status.py`. Nothing here names an app.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from . import databases, files, reading, sources
from .diagnostics import FILE_REFUSED, NOT_LINES, Diagnostics, refused, why
from .follow import Change, Follower, tail_offset
from .model import Event, Session
from .sources.base import FollowFile, LineReader, Opened, SessionFollow
from .status import ENDED_AFTER, QUIET_WORKING, STATUSES, Status, Tracker, decide

log = logging.getLogger(__name__)

# History read when a session is first followed: from its main file, and from each
# sub-agent file that is already there.
HISTORY_BYTES = 256 * 1024
CHILD_HISTORY = 64 * 1024
FULL_REREAD_MAX = 1024 * 1024  # without a follow hook, smaller files are re-read whole
# a followed file rewritten (an atomic save, a copy back): read again from its start up to
# this size, keeping only events not seen before; a bigger one from its last window
REWRITE_REREAD_MAX = 64 * 1024 * 1024
POLL_SECONDS = 0.25  # stat every followed file this often (no notifications)
SAFETY_POLL = 2.0  # with notifications: stat everything this often all the same
LISTING_SECONDS = 2.0  # list a session's sub-agent files again this often
# files beside a main file looked at for a sub-agent's writes (its folder and the folders in
# it: a sub-agent's transcript beside its lead's, or in a folder named by the session)
BESIDE_CAP = 2000
STORE_SECONDS = 2.0  # re-read a database-backed session at most this often
PROCESS_SECONDS = 5.0  # scan /proc this often
# a CLI found only by its folder that started this long after a session's last write is
# not that session's writer (a fresh one, with nothing written yet; the session crashed)
STARTED_AFTER = 30.0
SEEN_CAP = 50_000  # event identities kept to drop what a re-read repeats
SKIPS_CAP = 10_000  # unreadable lines remembered to count each once across re-reads
# kinds an app may write again, grown, in the same row or document (a streamed answer)
GROWING = frozenset({"assistant", "thinking", "tool_call", "tool_result"})
BOOKKEEPING = frozenset({"usage", "meta"})  # what an app may note after its last event
HISTORY_EVENTS = 5_000  # of a store's session read whole, the recent history kept
RESCAN_SECONDS = 10.0  # the board looks for new sessions this often (polling)
RESCAN_NOTIFIED = 30.0  # ... and this often when notifications name new files
TICK_SECONDS = 1.0  # the board is redrawn at least this often (ages move)
REWATCH = 5.0  # with notifications: the set of watched folders is renewed this often
# a file's mtime is taken for a write of the app's only when it is later than the moment
# following began, less this (the file system's clock lags time.time() by a tick or so);
# an older one may be a copy's (`cp -r`), and the records say when things happened
MTIME_SLACK = 1.0
# ... and only while it is at most this much later than the newest record: a file modified
# long after its newest record was copied (`cp -r`, a restore from a backup) or touched, not
# written by its app; within it, a clock a little off, or an answer streamed into a line or
# a row dated when it began
MTIME_AHEAD = 3600.0


# --- events seen ----------------------------------------------------------------------


class _Seen:
    """The identities of the last SEEN_CAP events, to drop what a re-read repeats."""

    def __init__(self, cap: int = SEEN_CAP) -> None:
        self.cap = cap
        self.keys: set[int] = set()
        self.order: deque[int] = deque()

    @staticmethod
    def key(event: Event) -> int:
        return hash(
            (
                event.agent_id,
                event.kind,
                event.time,
                event.call_id,
                event.tool,
                event.text,
                event.usage,
                event.is_error,
                # a spawn read again once it names its sub-agent is news: it links them
                event.extra.get("child_id") if event.kind == "subagent" else None,
            )
        )

    def add(self, event: Event) -> bool:
        """Remember `event`; False if it was seen already."""
        key = self.key(event)
        if key in self.keys:
            return False
        self.keys.add(key)
        self.order.append(key)
        if len(self.order) > self.cap:
            self.keys.discard(self.order.popleft())
        return True

    def forget(self, event: Event) -> None:
        """Unsee `event`, one of the last added: a later read may give it again."""
        key = self.key(event)
        self.keys.discard(key)
        for index in range(len(self.order) - 1, max(-1, len(self.order) - 9), -1):
            if self.order[index] == key:
                del self.order[index]
                return


# --- feeds: where a session's new events come from --------------------------------------


@dataclass(frozen=True, slots=True)
class Changed:
    """A followed file found changed: its modification time, and whether it grew or gave
    events not seen before (a file copied or restored over itself gives none)."""

    agent_id: str | None
    modified: float  # epoch seconds
    appended: bool


@dataclass(slots=True)
class _File:
    file: FollowFile
    follower: Follower
    reader: LineReader | None = None
    repeats: bool = False  # rewritten: its events so far were seen once already
    # how far the file was read before it was rewritten: until the new file is read as
    # far, it may hold what was shown (a save in place empties the file, then writes it)
    shown: int = 0


class _HookFeed:
    """A source with a `follow` hook: each file followed alone, only appended lines read."""

    def __init__(
        self,
        follow: SessionFollow,
        diagnostics: Diagnostics,
        tracker: Tracker,
        app: str = "",
        told: reading.FromItsLead | None = None,
    ) -> None:
        self.follow = follow
        self.app = app  # whose files: one it may not open is said so
        self.told = told  # a sub-agent's session: who told it, and its own, their tasks
        self.diagnostics = diagnostics
        self.tracker = tracker
        self.changes: list[Changed] = []
        self.files: dict[Path, _File] = {}
        self.children: set[str] = set()
        self.listed_at = float("-inf")
        self.started = False
        self.lead_gone = False
        self._folders: tuple[int, set[Path]] | None = None

    def _list(self, now: float) -> None:
        self.listed_at = now
        try:
            found = self.follow.files(frozenset(self.children))
        except OSError as error:
            self.diagnostics.problem(
                f"could not list the session's files: {why(error)}"
            )
            return
        for file in found:
            if file.path in self.files:
                continue
            offset = 0
            if not self.started:  # already there: read only its recent history
                window = HISTORY_BYTES if file.agent_id is None else CHILD_HISTORY
                offset = tail_offset(file.path, window)
                if file.agent_id is None and offset:
                    self.tracker.partial = True
            follower = Follower(
                file.path, offset, diagnostics=self.diagnostics, app=self.app
            )
            self.files[file.path] = _File(file, follower)
            if file.agent_id is not None:
                self.tracker.link(
                    file.agent_id, file.call_id, file.agent_type, file.description
                )
                self.children.add(file.agent_id)
        self.started = True

    def poll(self, now: float, seen: _Seen) -> list[Event]:
        open_calls = self.tracker.lead.open_calls
        blind = (
            bool(open_calls)
            and any(
                child is None and call in open_calls
                for call, child in self.tracker.spawns.items()
            )
            and now - self.last_write() < QUIET_WORKING
        )
        if blind or now - self.listed_at >= LISTING_SECONDS:
            self._list(now)  # a spawn without its child yet: look for the child's file
        found: list[Event] = []
        relist = False
        for entry in list(self.files.values()):
            change = entry.follower.check()
            if change is Change.NONE:
                continue
            is_lead = entry.file.agent_id is None
            if change is Change.VANISHED:
                entry.reader = None
                self.lead_gone = self.lead_gone or is_lead
                continue
            if is_lead:
                self.lead_gone = False
            if change is Change.REWRITTEN:
                entry.reader, entry.repeats = None, True
                if entry.follower.size > REWRITE_REREAD_MAX:  # what is older was shown
                    window = HISTORY_BYTES if is_lead else CHILD_HISTORY
                    entry.follower.skip_to_tail(window)
            # bytes appended, or events not seen before: written, not copied over it
            appended = change is Change.GROWN and not entry.repeats
            for line in entry.follower.lines():
                if entry.reader is None:
                    entry.reader = self.follow.reader(entry.file, line.offset)
                for event in entry.reader(line):
                    if self.told is not None:
                        event = self.told(event)
                    if seen.add(event) or not entry.repeats:
                        found.append(event)
                        appended = True
                    child = event.extra.get("child_id")
                    if event.kind == "subagent" and isinstance(child, str):
                        relist = relist or child not in self.children
                        self.children.add(child)
            # the rewritten file is read through, as far as before: what is appended from
            # now on is new, even where it looks like an earlier event (same time, counts)
            follower = entry.follower
            entry.repeats = entry.repeats and (
                follower.pending > 0 or follower.offset < entry.shown
            )
            if not entry.repeats:
                entry.shown = follower.offset
            modified = follower.mtime_ns / 1e9
            self.changes.append(Changed(entry.file.agent_id, modified, appended))
        if relist:
            self._list(now)
        return found

    def last_write(self) -> float:
        return max(
            (e.follower.mtime_ns / 1e9 for e in self.files.values()), default=0.0
        )

    def folders(self) -> set[Path]:
        if self._folders is None or self._folders[0] != len(self.files):
            found = {e.file.path.parent for e in self.files.values()}
            lead = next(
                (e for e in self.files.values() if e.file.agent_id is None), None
            )
            if lead is not None:  # where sub-agent files of this session appear
                found.add(lead.file.path.with_suffix(""))
                found.add(lead.file.path.with_suffix("") / "subagents")
            self._folders = (len(self.files), found)
        return self._folders[1]

    def bytes_read(self) -> int:
        return sum(e.follower.bytes_read for e in self.files.values())

    def followed(self) -> set[Path]:
        return set(self.files)


class _Skips:
    """The unreadable lines a session's reads met, each counted once in `diagnostics`: a
    store or a small file is read whole again at each change. A cut last line
    ("truncated") is not counted: it is most often a line still being written."""

    def __init__(self, diagnostics: Diagnostics, app: str) -> None:
        self.diagnostics = diagnostics
        self.app = app
        self.counted: set[tuple[str, int, str]] = set()

    def add(self, read: Diagnostics) -> None:
        for detail in read.details:
            path, line, reason = detail
            if reason in NOT_LINES or reason == "truncated" or detail in self.counted:
                continue
            if reason == FILE_REFUSED:  # a side file: nothing of it read, no line
                self.diagnostics.problem(f"{self.app}: {refused(path)}")
                continue
            if len(self.counted) >= SKIPS_CAP:
                return  # bounded: what a huge broken home shows past this goes uncounted
            self.counted.add(detail)
            self.diagnostics.skip(path, line, reason)


class _ReadFeed:
    """A source without a hook: `read` again when the session's files change.

    A JSON-lines main file that only grows is read from the last complete line on (when it
    is over FULL_REREAD_MAX; a smaller one is re-read whole, sub-agents included, also when
    only a file beside it was written while its lead is mid-turn: its sub-agent's); any
    other store is re-read whole, at most every STORE_SECONDS. Either way only events not
    seen before are kept.
    """

    def __init__(
        self,
        session: Session,
        source: sources.Source,
        diagnostics: Diagnostics,
        tracker: Tracker,
        told: reading.FromItsLead | None = None,
    ) -> None:
        self.session = session
        self.source = source
        self.told = told
        self.diagnostics = diagnostics
        self.skips = _Skips(diagnostics, session.app)
        self.tracker = tracker
        path = session.path or ""
        self.store = path.split("#", 1)[0]
        # a row of a store many sessions share: its file's mtime is any session's write
        self.shared = "#" in path
        self.appended = not self.shared and path.endswith(".jsonl")
        self.follower: Follower | None = None
        if self.appended:
            start = tail_offset(path, HISTORY_BYTES)
            if start + HISTORY_BYTES <= FULL_REREAD_MAX:
                start = 0
            self.tracker.partial = start > 0
            # its own lines are counted by the read; a file refused is said from here
            self.follower = Follower(
                path, start, diagnostics=Diagnostics(), app=session.app
            )
        self.signature: tuple[tuple[int, int, int], ...] | None = None
        # the store as the last read found it
        self.read_signature: tuple[tuple[int, int, int], ...] | None = None
        self.read_at = float("-inf")
        self.read_before = False
        self.covered = 0  # events the last whole read of a store's session yielded
        self.held: Event | None = None  # its last event, shown once read again alike
        # the usage the last whole read sums (and, of a main file, what it read on since)
        self.tokens: int | None = None
        # a database's snapshot serves a one-shot command's whole run; here it must
        # follow the app's writes
        databases.keep_fresh(STORE_SECONDS / 2)
        self.written = 0.0
        if self.shared and session.updated is not None:
            self.written = session.updated.timestamp()
        self.lead_gone = False
        self.changes: list[Changed] = []
        self._folders = {Path(self.store).parent} if self.store else set()
        # when the main file was last read whole (its sub-agents' files with it), and when
        # the files beside it were last looked at (ns and s since the epoch)
        self.whole_read_ns = 0
        self.beside_at = float("-inf")

    def poll(self, now: float, seen: _Seen) -> list[Event]:
        if self.follower is not None:
            return self._poll_file(seen, now)
        signature = self._signature()
        if signature == self.signature or now - self.read_at < STORE_SECONDS:
            return []
        # nothing written since the last read: what it held is as complete as it gets
        # (a source whose last event differs at every read must not be held for ever)
        settled = signature == self.read_signature
        self.signature = self.read_signature = signature
        self.read_at = now
        self.lead_gone = not signature or signature[0] == (-1, -1, -1)
        events = self._read(seen, 0, settled=settled)
        if not self.shared:  # a shared store's mtime is any of its sessions' write
            self.changes.append(Changed(None, self.written, bool(events)))
        if self.held is not None or not databases.snapshot_current(self.store):
            # a snapshot of the database a moment older than its last write served the
            # read, or its last event may still grow: read again at the next poll,
            # whether or not the app writes more
            self.signature = None
        return events

    def _poll_file(self, seen: _Seen, now: float) -> list[Event]:
        follower = self.follower
        assert follower is not None
        before = follower.offset
        change = follower.check()
        if change is Change.NONE:
            # the lead waits in a call while its sub-agent's own file is written
            return self._read(seen, 0) if self._beside_written(now) else []
        if change is Change.VANISHED:
            self.lead_gone = True
            return []
        self.lead_gone = False
        self.written = follower.mtime_ns / 1e9
        if change is Change.REWRITTEN and follower.size > FULL_REREAD_MAX:
            follower.skip_to_tail(HISTORY_BYTES)  # what is older was shown already
        first = None
        for line in follower.lines():
            first = line.offset if first is None else first
        if follower.diagnostics is not None:
            for problem in follower.diagnostics.problems:
                self.diagnostics.problem(problem)
        if first is None:
            events = []  # only a partial line so far
        elif follower.size <= FULL_REREAD_MAX:
            events = self._read(seen, 0)  # its sub-agents' files too
        elif change is Change.REWRITTEN:
            events = self._read(seen, first)
        else:
            events = self._read(seen, max(first, before))
        grown = change is Change.GROWN or bool(events)
        self.changes.append(Changed(None, self.written, grown))
        return events

    def _beside_written(self, now: float) -> bool:
        """Whether a file beside the main one was written since the main file was last
        read whole, while its lead is mid-turn: a sub-agent's transcript, which a whole
        read takes in (another session's there gives no new event). Looked at every
        LISTING_SECONDS; never for a main file read from its last line on, nor for a
        session none of whose agents wrote for ENDED_AFTER (a crash mid-turn, an app that
        writes no turn end): a board of such sessions would list their folders for ever."""
        follower = self.follower
        if (
            follower is None
            or follower.size > FULL_REREAD_MAX
            or self.tracker.lead.turn_ended
            or now - max(self.tracker.recorded, self.written) >= ENDED_AFTER
            or now - self.beside_at < LISTING_SECONDS
        ):
            return False
        self.beside_at = now
        # a file system's clock lags time.time() a little: a write as the read began counts
        since = self.whole_read_ns - int(MTIME_SLACK * 1e9)
        return _newest_beside(Path(self.store)) > since

    def _read(self, seen: _Seen, offset: int, *, settled: bool = False) -> list[Event]:
        # one byte early: that line is cut, so every source starts at the next line start
        start = max(0, offset - 1) if offset else 0
        if offset == 0:
            self.whole_read_ns = time.time_ns()
        scratch = Diagnostics()  # a line being written is not a broken line
        # new events only; of a first read, the recent history only, as for a file read
        # from its tail: a store's session of a million events is not held whole
        kept: deque[Event] = deque(maxlen=None if self.read_before else HISTORY_EVENTS)
        # a store's session read whole again: what the last read covered, but for its
        # end (where an update in place lands), is not new, whether or not `seen`, which
        # keeps SEEN_CAP events, still holds it
        whole = offset == 0 and self.follower is None
        skip = max(0, self.covered - SEEN_CAP // 2) if whole else 0
        count = tokens = 0
        first = not self.read_before
        last: Event | None = None
        try:
            if whole and reading.whole_store(self.session.path):
                # re-read after the app committed during the read, as `show` does: never
                # half of one transaction beside half of the next
                read = reading.read_session(self.source, self.session, scratch)
            else:
                read = self.source.read(self.session, scratch, offset=start)
            told = self.told
            for event in read:
                if told is not None:
                    event = told(event)
                count += 1
                if event.kind not in BOOKKEEPING:
                    last = event
                elif event.kind == "usage" and event.usage is not None:
                    tokens += event.usage.plausible().total  # a broken count adds 0
                if count > skip and seen.add(event):
                    if len(kept) == kept.maxlen:
                        self.tracker.partial = True
                    kept.append(event)
        except OSError as error:
            self.diagnostics.problem(
                files.stopped_problem(self.session.app, self.session.path, error)
            )
            return []
        self.read_before = True
        if whole:
            self.covered, self.tokens = count, tokens
            if not first:
                self._hold(kept, last, seen, settled)
        elif not offset:
            # a main file read whole: its sum is the session's, and a running total the
            # app rewrites beside it (a settings file) counts once, not once per read
            self.tokens = tokens
        elif self.tokens is not None:  # read on from a line: what it adds
            self.tokens += sum(
                e.usage.plausible().total
                for e in kept
                if e.kind == "usage" and e.usage is not None
            )
        events = list(kept)
        self.diagnostics.problems.extend(
            p for p in scratch.problems if p not in self.diagnostics.problems
        )
        self.skips.add(scratch)
        if self.shared:  # this session's own last write: its newest event
            times = [e.time.timestamp() for e in events if e.time is not None]
            self.written = max([self.written, *times])
        return events

    def _hold(
        self, kept: deque[Event], last: Event | None, seen: _Seen, settled: bool
    ) -> None:
        """Keep back a store's new last event while it may still grow: an app that
        streams an answer into its row writes it again and again, and each version
        would be new. It is shown once a read finds it as the one before did, or finds
        more after it, or the store was not written since; what the first read found is
        history, shown as it is."""
        held, self.held = self.held, None
        if last is None or last.kind not in GROWING or (settled and held is not None):
            return
        if held is not None and _Seen.key(held) == _Seen.key(last):
            return  # read twice alike: complete
        for index in range(len(kept) - 1, -1, -1):  # after it, bookkeeping at most
            if kept[index] is last:
                del kept[index]
                seen.forget(last)
                self.held = last
                return
            if kept[index].kind not in BOOKKEEPING:
                return

    def _signature(self) -> tuple[tuple[int, int, int], ...]:
        found = []
        for name in (self.store, self.store + "-wal"):
            try:
                st = os.stat(name)
            except OSError:
                found.append((-1, -1, -1))
                continue
            found.append((st.st_ino, st.st_size, st.st_mtime_ns))
            if not self.shared:
                self.written = max(self.written, st.st_mtime_ns / 1e9)
        folder = Path(self.store).parent
        if self.session.id and self.session.id in folder.name:  # a folder per session
            for entry in _entries(folder):
                try:
                    st = entry.stat()
                except OSError:
                    continue
                found.append((st.st_ino, st.st_size, st.st_mtime_ns))
                self.written = max(self.written, st.st_mtime_ns / 1e9)
        return tuple(found)

    def last_write(self) -> float:
        return self.written

    def folders(self) -> set[Path]:
        return self._folders

    def bytes_read(self) -> int:
        return self.follower.bytes_read if self.follower is not None else 0

    def followed(self) -> set[Path]:
        return {Path(self.store)} if self.store else set()


def _newest_beside(path: Path) -> int:
    """The newest modification time (ns) of the files in `path`'s folder and in the
    folders in it, `path` left out; of the first BESIDE_CAP entries, 0 for none."""
    newest, seen = 0, 0
    pending = [(path.parent, True)]
    while pending and seen < BESIDE_CAP:
        folder, top = pending.pop()
        try:
            with os.scandir(folder) as it:
                for entry in it:
                    seen += 1
                    if seen > BESIDE_CAP:
                        break
                    if entry.is_dir(follow_symlinks=False):
                        if top:
                            pending.append((Path(entry.path), False))
                    elif entry.path != str(path):
                        with contextlib.suppress(OSError):
                            newest = max(newest, entry.stat().st_mtime_ns)
        except OSError:
            continue
    return newest


def _entries(folder: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as it:
            return [entry for entry in it if entry.is_file()]
    except OSError:
        return []


# --- one live session ---------------------------------------------------------------------


class LiveSession:
    """A session being followed: its new events, and what they say of its status."""

    modified = 0.0  # the newest of its files' mtimes taken for its app's write

    def __init__(
        self,
        session: Session,
        source: sources.Source | None = None,
        spawner: str | None = None,
    ) -> None:
        """`spawner`: what a sub-agent's session calls the sub-agent that started it (as
        `show` does); the lead where None."""
        self.session = session
        self.source = source or sources.get(session.app)
        self.diagnostics = Diagnostics()
        self.tracker = Tracker()
        self.seen = _Seen()
        self.since = time.time() - MTIME_SLACK  # a file modified later was seen written
        hook = getattr(self.source, "follow", None)
        told = None
        if session.parent_id:  # what it was told, a person did not type
            told = reading.FromItsLead(spawner or reading.LEAD, reading.called(session))
        self.feed: _HookFeed | _ReadFeed
        # a compressed file is archived: it does not grow, a re-read on change is enough;
        # a JSON document is rewritten whole, never appended to: read again on change too
        if callable(hook) and not (session.path or "").endswith((".zst", ".json")):
            self.feed = _HookFeed(
                hook(session, self.diagnostics),
                self.diagnostics,
                self.tracker,
                app=session.app,
                told=told,
            )
        else:
            self.feed = _ReadFeed(
                session, self.source, self.diagnostics, self.tracker, told
            )
        self.program, self.aliases = _program(self.source, session)
        self.pids: list[int] = []
        self.alive: bool | None = None

    def poll(self, now: float | None = None) -> list[Event]:
        """The events written since the last poll (the recent history, the first time)."""
        now = time.time() if now is None else now
        events = self.feed.poll(now, self.seen)
        events = _by_time(events)
        for event in events:
            self.tracker.add(event, now)
        for changed in self.feed.changes:
            if self._wrote(changed):
                self.modified = max(self.modified, changed.modified)
                if isinstance(self.feed, _HookFeed):
                    self.tracker.touch(changed.agent_id, changed.modified)
        self.feed.changes.clear()
        if isinstance(self.feed, _ReadFeed) and self.feed.tokens is not None:
            # a session read whole is counted afresh: a running total an app keeps in a
            # row or a file and updates in place would be added again at every read
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
            spawned = _spawned_checker(processes, pids)
        # how long the session has been quiet is measured as the board's age column is
        # (`updated`), from the records: a file's mtime only says that something changed.
        # It counts once the file is seen to change while followed; before that it may be
        # a copy's (a home copied with `cp -r` has every file written just now)
        return decide(self.tracker, now, self.written, self.alive, spawned)

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
        if self.session.updated is not None:
            recorded = max(recorded, self.session.updated.timestamp())
        return recorded or max(self.feed.last_write(), self.tracker.lead.active)

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
        recorded = self.tracker.recorded
        if self.session.updated is not None:
            recorded = max(recorded, self.session.updated.timestamp())
        return not recorded or changed.modified - recorded <= MTIME_AHEAD

    def folders(self) -> set[Path]:
        return self.feed.folders()

    def files(self) -> set[Path]:
        return self.feed.followed()

    def bytes_read(self) -> int:
        return self.feed.bytes_read()


def _spawned_checker(
    processes: Processes, pids: list[int]
) -> Callable[[float], bool | None]:
    def spawned(since: float) -> bool | None:
        answers = [processes.spawned_since(pid, since) for pid in pids]
        if any(answers):
            return True
        return None if None in answers else False

    return spawned


def _by_time(events: list[Event]) -> list[Event]:
    """Events of several files in time order; an event without a time keeps its place."""
    if len(events) < 2:
        return events
    keyed = []
    last = float("-inf")
    for index, event in enumerate(events):
        if event.time is not None:
            last = event.time.timestamp()
        keyed.append((last, index, event))
    keyed.sort(key=lambda item: (item[0], item[1]))
    return [event for _, _, event in keyed]


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


# --- processes ------------------------------------------------------------------------------


@dataclass(slots=True)
class _Process:
    names: frozenset[str]  # basenames of the first arguments (none: a kernel thread)
    args: bytes
    start: int | None = None  # clock ticks after boot: another start, another process
    cwd: str | None = None
    cwd_read: bool = False


@dataclass(slots=True)
class Processes:
    """The running processes, from /proc, scanned at most every PROCESS_SECONDS."""

    root: Path = Path("/proc")
    table: dict[int, _Process | None] = field(default_factory=dict)
    scanned_at: float = float("-inf")
    boot: float | None = None
    # the processes the last scan met first: one may have been between its fork and its
    # exec (a shell's command line), so the next scan reads theirs again
    young: set[int] = field(default_factory=set)

    @property
    def available(self) -> bool:
        return self.root.is_dir() and (self.root / "self").exists()

    def refresh(self, now: float | None = None, *, force: bool = False) -> bool:
        """Scan again if PROCESS_SECONDS passed (or `force`); whether it scanned."""
        now = time.monotonic() if now is None else now
        if not force and now - self.scanned_at < PROCESS_SECONDS:
            return False
        self.scanned_at = now
        me = os.getpid()
        try:
            pids = {int(name) for name in os.listdir(self.root) if name.isdigit()}
        except OSError:
            return True
        pids.discard(me)
        for pid in list(self.table):
            if pid not in pids:
                del self.table[pid]
        again, self.young = self.young & pids, pids - self.table.keys()
        for pid, known in self.table.items():
            # a pid the system gave to a new process since the last scan: what was read
            # of the old one (its words, its folder) is not the new one's; one that
            # could not be read, gone as it was met, may have been given again too
            if pid not in again and (known is None or self._start(pid) != known.start):
                again.add(pid)
        for pid in self.young | again:
            self.table[pid] = self._read(pid)
        return True

    def _read(self, pid: int) -> _Process | None:
        start = self._start(pid)
        try:
            raw = (self.root / str(pid) / "cmdline").read_bytes()
        except OSError:
            return None
        args = raw.split(b"\0")
        names = frozenset(
            os.path.basename(a.decode(errors="replace")) for a in args[:3] if a
        )
        return _Process(names, raw, start)  # no words: a kernel thread or a zombie

    def cwd(self, pid: int) -> str | None:
        found = self.table.get(pid)
        if found is None:
            return None
        if not found.cwd_read:
            found.cwd_read = True
            try:
                found.cwd = os.readlink(self.root / str(pid) / "cwd")
            except OSError:
                found.cwd = None
        return found.cwd

    def running(
        self, program: str, aliases: Sequence[str] = ()
    ) -> list[tuple[int, bytes]]:
        """(pid, command line) of each process running `program` (or one of `aliases`)."""
        names = {program, *aliases}
        return [
            (pid, found.args)
            for pid, found in self.table.items()
            if found is not None and not names.isdisjoint(found.names)
        ]

    def spawned_since(self, pid: int, since: float) -> bool | None:
        """Whether `pid` has a descendant process started after `since` (epoch seconds)."""
        boot = self._boot()
        if boot is None:
            return None
        ticks = os.sysconf("SC_CLK_TCK")
        todo, seen = [pid], set()
        while todo:
            current = todo.pop()
            if current in seen:
                continue
            seen.add(current)
            for child in self._children(current):
                started = self._start(child)
                if started is not None and boot + started / ticks >= since:
                    return True
                todo.append(child)
        return False

    def parent(self, pid: int) -> int | None:
        """The pid of `pid`'s parent, where /proc says."""
        fields = self._stat(pid)
        return int(fields[1]) if len(fields) > 1 and fields[1].isdigit() else None

    def started(self, pid: int) -> float | None:
        """When `pid` started (epoch seconds), where /proc says."""
        boot, ticks = self._boot(), self._start(pid)
        if boot is None or ticks is None:
            return None
        return boot + ticks / os.sysconf("SC_CLK_TCK")

    def _children(self, pid: int) -> list[int]:
        found: list[int] = []
        try:
            tasks = os.listdir(self.root / str(pid) / "task")
        except OSError:
            return found
        for task in tasks:
            try:
                text = (self.root / str(pid) / "task" / task / "children").read_text()
            except OSError:
                continue
            found.extend(int(part) for part in text.split())
        return found

    def _start(self, pid: int) -> int | None:
        fields = self._stat(pid)
        return int(fields[19]) if len(fields) > 19 and fields[19].isdigit() else None

    def _stat(self, pid: int) -> list[bytes]:
        """The fields of /proc/<pid>/stat after the command's name, the state first."""
        # read at every scan for every process: os.read costs a third of read_text
        try:
            handle = os.open(self.root / str(pid) / "stat", os.O_RDONLY)
        except OSError:
            return []
        try:
            text = os.read(handle, 4096)
        except OSError:
            return []
        finally:
            os.close(handle)
        return text.rpartition(b")")[2].split()

    def _boot(self) -> float | None:
        if self.boot is None:
            try:
                for line in (self.root / "stat").read_text().splitlines():
                    if line.startswith("btime "):
                        self.boot = float(line.split()[1])
            except OSError:
                return None
        return self.boot


# (app, the start of an id a CLI was given) -> the ids of every session of that app that
# start so (the index's: a session off the board makes the start name none)
Sharing = Callable[[str, str], Sequence[str]]


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


def existed(session: Session, started: float | None) -> bool:
    """Whether `session` was there when a process that started at `started` (epoch
    seconds) did; where either time is unknown, it may have been."""
    created = session.created
    return created is None or started is None or created.timestamp() <= started


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


def opened_by(source: sources.Source, args: bytes) -> Opened | None:
    """What a process whose command line is `args` (NUL-separated) has open, in the words
    of `source`'s CLI (its `process_session`), or None where it cannot say."""
    hook = getattr(source, "process_session", None)
    if not callable(hook):
        return None
    found = hook(_words(args))
    return found if isinstance(found, Opened) else None


def process_folder(source: sources.Source, cwd: str, args: bytes) -> str:
    """The folder a process of `source`'s CLI whose command line is `args`, started in
    `cwd`, works in: the one its options name (`codex -C <dir>`, its `process_folder`),
    or `cwd`."""
    hook = getattr(source, "process_folder", None)
    named = hook(_words(args)) if callable(hook) else None
    if not isinstance(named, str) or not named:
        return cwd
    return os.path.normpath(os.path.join(cwd, named))


def _words(args: bytes) -> list[str]:
    words = [word.decode(errors="replace") for word in args.split(b"\0")]
    return words[:-1] if words and not words[-1] else words


def names(
    source: sources.Source,
    session_id: str,
    args: bytes,
    sharing: Callable[[str], Sequence[str]] | None = None,
) -> bool:
    """Whether a process whose command line is `args` has session `session_id` open: as
    `source`'s CLI reads its words, or where it cannot say, the id anywhere in them. The
    start of an id names it where no other session `sharing` gives (the ids of the
    app's sessions that start so) does."""
    opened = opened_by(source, args)
    known: list[str] = [session_id]
    if opened is not None and opened.prefix is not None and sharing is not None:
        known.extend(sharing(opened.prefix))
    return _named(opened, session_id, args, known)


def _named(
    opened: Opened | None, session_id: str, args: bytes, known: Iterable[str] = ()
) -> bool:
    if opened is not None and opened.prefix is not None:
        # the start of an id, the CLI's where one of its app's sessions `known` alone
        # starts so; else a name
        starting = {other for other in known if other.startswith(opened.prefix)}
        if len(starting) == 1:
            return starting.pop() == session_id
    if opened is None or opened.chosen:  # a title may be an id it does not know as one
        return session_id.encode() in args
    return opened.session_id is not None and opened.session_id == session_id


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
    """`_named`; the start of an id read against `known` and what `sharing` gives,
    asked once per process and app (kept in `shared`)."""
    opened = _opened(live, args, said)
    ids: Iterable[str] = known
    if opened is not None and opened.prefix is not None and sharing is not None:
        app = live.session.app
        shared = {} if shared is None else shared
        if app not in shared:
            shared[app] = sharing(app, opened.prefix)
        ids = [*known, *shared[app]]
    return _named(opened, live.session.id, args, ids)


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
        wanted = frozenset(f for f in folders if f.is_dir())
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


def follow(
    session: Session,
    *,
    duration: float | None = None,
    notify: bool | None = None,
    stop: Callable[[], bool] | None = None,
    diagnostics: Diagnostics | None = None,
    spawner: str | None = None,
) -> Iterator[list[Event]]:
    """Batches of new events as they are written: the recent history first.

    Ends after `duration` seconds, or when `stop()` says so; sub-agents' events are
    interleaved by time and carry their `agent_id`. What the reads could not use is
    added to `diagnostics` as the generator ends (closed, or interrupted). `spawner`:
    what a sub-agent's session calls the sub-agent that started it (the lead where None).
    """
    live = LiveSession(session, spawner=spawner)
    waiter = Waiter(notify)
    deadline = None if duration is None else time.monotonic() + duration
    try:
        yield live.poll()
        while True:
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                return
            if stop is not None and stop():
                return
            if waiter.backend == "watchfiles":
                waiter.watch(live.folders())
            step = interval(waiter)
            waiter.wait(step if remaining is None else min(step, remaining))
            events = live.poll()
            if events:
                yield events
    finally:
        waiter.close()
        if diagnostics is not None:
            diagnostics.update(live.diagnostics)


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
    (`attach_processes`)."""

    def __init__(
        self,
        list_sessions: Callable[[], Sequence[Session]],
        processes: Processes | None = None,
        clis: Sequence[sources.Source] = (),
        since: Callable[[], float | None] | None = None,
        sharing: Sharing | None = None,
    ) -> None:
        self.list_sessions = list_sessions
        self.processes = processes if processes is not None else Processes()
        self.clis = clis
        self.since = since
        self.sharing = sharing
        self.starting: list[Starting] = []
        self.lives: dict[tuple[str, str], LiveSession] = {}
        self.changed = True  # sessions came or went since processes were attached
        self.left = Diagnostics()  # what the reads of sessions no longer shown met

    def rescan(self) -> None:
        """Follow the sessions `list_sessions` gives now; drop those it no longer gives."""
        wanted = {(s.app, s.id): s for s in self.list_sessions()}
        for key in list(self.lives):
            if key not in wanted:
                self.left.update(self.lives.pop(key).diagnostics)
                self.changed = True
        for key, session in wanted.items():
            if key in self.lives:
                self.lives[key].session = session  # a new title, say
            else:
                try:
                    self.lives[key] = LiveSession(session)
                    self.changed = True
                except OSError as error:
                    log.debug("cannot follow %s: %s", session.id, error)

    def poll(self, now: float | None = None) -> int:
        """Read what was appended everywhere; the number of new events."""
        now = time.time() if now is None else now
        count = 0
        for live in self.lives.values():
            try:
                count += len(live.poll(now))
            except Exception as error:  # one broken session never stops the board
                if os.environ.get("SESSDEX_DEBUG"):
                    raise
                message = f"{live.session.app}: stopped following {live.session.path}: {why(error, live.session.path)}"
                if message not in live.diagnostics.problems:
                    live.diagnostics.problem(message)
                    log.warning("%s", message)
        if self.processes.refresh() or self.changed:
            lives = list(self.lives.values())
            attach_processes(lives, self.processes, self.sharing)
            self.changed = False
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
        for live in self.lives.values():
            rows.append(
                BoardRow(
                    live.session,
                    live.status(now, self.processes),
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

    def diagnostics(self) -> Diagnostics:
        """What the reads of every session shown so far could not use."""
        met = Diagnostics()
        met.update(self.left)
        for live in self.lives.values():
            met.update(live.diagnostics)
        return met

    def followed(self) -> set[Path]:
        found: set[Path] = set()
        for live in self.lives.values():
            found |= live.files()
        return found


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
) -> Iterator[list[BoardRow]]:
    """The board now, then again whenever something changed (at least every `tick` s),
    until `duration` s passed or `stop()` says so. `roots` names the folders where new
    sessions appear: watched too, so that one in a folder no followed session is in is
    seen at once, not at the next rescan. What the reads could not use is added to
    `diagnostics` as the generator ends (closed, or interrupted). The CLIs of `clis`
    running with no session yet, started since `since()`, are rows too (`Starting`);
    `sharing` gives the sessions of every age whose id starts as a CLI was told."""
    board = Board(list_sessions, clis=clis, since=since, sharing=sharing)
    waiter = Waiter(notify)
    if rescan is None:
        rescan = RESCAN_NOTIFIED if waiter.backend == "watchfiles" else RESCAN_SECONDS
    started = time.monotonic()
    deadline = None if duration is None else started + duration
    try:
        board.rescan()
        board.poll()
        scanned = shown = time.monotonic()
        yield board.rows()
        watched = float("-inf")
        known: set[Path] = set()
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
            waiter.wait(step if remaining is None else max(0.0, min(step, remaining)))
            now = time.monotonic()
            # a file nobody follows changed in a watched folder: maybe a new session
            news = waiter.changed()
            news = news - board.followed() if news else news
            if now - scanned >= rescan or (news and now - scanned >= 1.0):
                board.rescan()
                scanned, watched = now, float("-inf")
            changed = board.poll()
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
