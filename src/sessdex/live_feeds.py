"""Feeds: where a followed session's new events come from, and which of them are new.

`HookFeed` follows each of a session's files alone through its source's `follow` hook,
reading only appended lines (a sub-agent's file that what was read names, found by the
listing that follows, is read in the same poll); `ReadFeed` calls the source's `read` again when the files
change (from the last offset while a main file only grows) and keeps the events `Seen`
has not seen. What the events say of a status is `live_session`'s and `status.py`'s job.
"""

from __future__ import annotations

import os
import time
from collections import Counter, OrderedDict, deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from . import databases, files, folders, reading, sources
from .diagnostics import (
    FILE_REFUSED,
    MISSING_CHILD,
    NOT_LINES,
    READER_BUG,
    Diagnostics,
    is_damage,
    refused,
    why,
)
from .follow import Change, Follower, tail_offset
from .live_beside import Beside
from .model import Event, Session
from .sources.base import FollowFile, LineReader, SessionFollow
from .status import ENDED_AFTER, QUIET_WORKING, Tracker

# History read when a session is first followed: from its main file, and from each
# sub-agent file that is already there.
HISTORY_BYTES = 256 * 1024
CHILD_HISTORY = 64 * 1024
FULL_REREAD_MAX = 1024 * 1024  # without a follow hook, smaller files are re-read whole
# a followed file rewritten (an atomic save, a copy back): read again from its start up to
# this size, keeping only events not seen before; a bigger one from its last window
REWRITE_REREAD_MAX = 64 * 1024 * 1024
LISTING_SECONDS = 2.0  # list a session's sub-agent files again this often
STORE_SECONDS = 2.0  # re-read a database-backed session at most this often
# a store's read that failed (an I/O error, the file briefly not a file) is made again
# though the store did not change: after STORE_SECONDS, twice as long at each failure
RETRY_MOST = 60.0
# a followed file's read that raised (a reader's bug on a record) is made again from the
# same place this many times, STORE_SECONDS apart doubling, then what it was handed is
# passed over, said: a bug on one record never re-reads it at every poll for ever
RAISED_MOST = 3
SEEN_CAP = 50_000  # event identities kept to drop what a re-read repeats
Signature = tuple[tuple[int, int, int], ...]  # a store's files as a stat finds them
SKIPS_CAP = 10_000  # unreadable lines remembered to count each once across re-reads
# kinds an app may write again, grown, in the same row or document (a streamed answer,
# a compaction's summary answer after its request)
GROWING = frozenset({"assistant", "thinking", "tool_call", "tool_result", "compaction"})
# of those, what a first read's history may end on still streamed (its drawing is held):
# a Crush summary is streamed into a row already marked the session's summary
STREAMED = frozenset({"assistant", "thinking", "compaction"})
BOOKKEEPING = frozenset({"usage", "meta"})  # what an app may note after its last event
ANSWERS = frozenset({"assistant", "thinking", "tool_call"})  # what an answer writes
HISTORY_EVENTS = 5_000  # of a store's session read whole, the recent history kept
TAIL_ROWS = (
    64  # `follow -n`'s first read of a store: its last messages, as `show --tail`
)
# a file's mtime is taken for a write of the app's only when it is later than the moment
# following began, less this (the file system's clock lags time.time() by a tick or so);
# an older one may be a copy's (`cp -r`), and the records say when things happened
MTIME_SLACK = 1.0


# --- events seen ----------------------------------------------------------------------


class Seen:
    """The identities of the last SEEN_CAP events, to drop what a re-read repeats."""

    def __init__(self, cap: int = SEEN_CAP) -> None:
        self.cap = cap
        self.keys: set[int] = set()
        # an event's key, and what an answer says (`said`) beside it: one place of the
        # cap per event
        self.order: deque[tuple[int, int | None]] = deque()

    @staticmethod
    def key(event: Event, positional: bool = False) -> int:
        """The event's identity. `positional` (a store read whole again, its events
        numbered from its start each time): an undated event, or one whose time is a
        guess, is also told by its place, so that two alike (each turn's end of an app
        that keeps no times, two "Let me look." of one response dated by its request)
        are two."""
        return hash(
            (
                event.seq
                if positional and (event.time is None or event.time_estimated)
                else None,
                event.agent_id,
                event.kind,
                event.time,
                event.call_id,
                event.tool,
                # a dated compaction is one whatever its summary: OpenCode's request is
                # read before the answer that gives it its text. An undated one is told
                # by it: Kiro CLI dates no compaction, and each `/compact` is another
                None
                if event.kind == "compaction" and event.time is not None
                else event.text,
                event.usage,
                event.is_error,
                # a spawn read again once it names its sub-agent is news: it links them
                event.extra.get("child_id") if event.kind == "subagent" else None,
            )
        )

    @staticmethod
    def said(event: Event, positional: bool = False) -> int | None:
        """What an answer and a compaction of the same words, time and agent share: Crush
        marks an answer its session's summary only once it is written, so an answer
        drawn is the compaction read later."""
        if event.kind not in ("assistant", "compaction") or not event.text:
            return None
        undated = positional and (event.time is None or event.time_estimated)
        return hash(
            ("said", event.seq if undated else None, event.agent_id, event.time,
             event.text)
        )  # fmt: skip

    def add(self, event: Event, positional: bool = False) -> bool:
        """Remember `event`; False if it was seen already."""
        if not self.new(event, positional):
            return False
        said = self.said(event, positional)
        self._keep(
            self.key(event, positional), said if event.kind == "assistant" else None
        )
        return True

    def new(self, event: Event, positional: bool = False) -> bool:
        """Whether `add` would find `event` not seen, remembering nothing."""
        if self.key(event, positional) in self.keys:
            return False
        # a compaction drawn as the answer it was until marked
        return (
            event.kind != "compaction" or self.said(event, positional) not in self.keys
        )

    def _keep(self, key: int, said: int | None) -> None:
        self.keys.add(key)
        if said is not None:
            self.keys.add(said)
        self.order.append((key, said))
        if len(self.order) > self.cap:
            for old in self.order.popleft():
                if old is not None:
                    self.keys.discard(old)

    def forget(self, event: Event, positional: bool = False) -> None:
        """Unsee `event`, one of the last added: a later read may give it again."""
        key = self.key(event, positional)
        for index in range(len(self.order) - 1, max(-1, len(self.order) - 9), -1):
            if self.order[index][0] == key:
                for old in self.order[index]:
                    if old is not None:
                        self.keys.discard(old)
                del self.order[index]
                return
        self.keys.discard(key)  # further back: its place goes with the oldest
        said = self.said(event, positional)
        if event.kind == "assistant" and said is not None:
            self.keys.discard(said)


def _may_pass(problem: str) -> bool:
    """Whether a problem a read met may be gone at a read made again (an I/O error, a
    file briefly not a file, a store rewritten during the read): not what the store
    holds (a sub-agent's transcript deleted) nor a reader's bug on a record, which
    each read meets again; a store's read is made again for those once it is written."""
    return not problem.endswith((MISSING_CHILD, READER_BUG))


def _new(seen: Seen, event: Event, positional: bool, met: set[int]) -> bool:
    """Whether `event` is new: not seen, or alike one this read found new (`met`), which
    is another at another place (Cursor's undated tool calls, turn ends); one a read
    before drew stays seen, however many are alike."""
    if seen.add(event, positional):
        met.add(Seen.key(event, positional))
        return True
    return Seen.key(event, positional) in met


# --- feeds: where a session's new events come from --------------------------------------


@dataclass(frozen=True, slots=True)
class History:
    """What `follow -n N` draws of a session's recent history: its last `count` events
    that `shown` accepts (all where None). A store whose source reads a session's last
    rows (`read_last`) is then first read from its end, as `show --tail` reads it."""

    count: int
    shown: Callable[[Event], bool] | None = None


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
    # its read raised: read on at the next poll from past the line it raised on, though
    # the file did not change (the lines after it in that write waited for the next);
    # or its file would not open
    again: bool = False


class HookFeed:
    """A source with a `follow` hook: each file followed alone, only appended lines read."""

    def __init__(
        self,
        follow: SessionFollow,
        diagnostics: Diagnostics,
        tracker: Tracker,
        app: str = "",
        told: reading.FromItsLead | None = None,
        window: int = HISTORY_BYTES,
    ) -> None:
        """`window`: how many bytes of the main file's end its first read takes."""
        self.follow = follow
        self.window = window
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
        # what a poll whose read raised had found: drawn at once by `follow`, else at the
        # next poll (seen already)
        self.kept: list[Event] = []
        # a reader's bug on a record: raised once the poll has read on past it
        self.raised: Exception | None = None

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
                window = self.window if file.agent_id is None else CHILD_HISTORY
                offset = tail_offset(file.path, window)
                if file.agent_id is None and offset:
                    self.tracker.partial = True
            follower = Follower(
                file.path, offset, diagnostics=self.diagnostics, app=self.app
            )
            self.files[file.path] = _File(file, follower)
            if file.agent_id is not None:
                self.tracker.link(
                    file.agent_id, file.call_id, file.agent_type, file.description,
                    observer=file.observer,
                )  # fmt: skip
                self.children.add(file.agent_id)
        odd = [
            f.path
            for f in ([] if self.started else found)
            if f.agent_id is None and folders.odd_at(f.path)
        ]
        if odd:  # something else in its place: named, not "gone"
            self.diagnostics.problem(
                f"{self.app}: could not read {folders.shown(odd[0])} "
                f"({folders.odd_at(odd[0])}), the session's own file: nothing of it "
                "to follow until a file is written there"
            )
        elif not self.started and not any(
            f.agent_id is None and os.path.lexists(f.path) for f in found
        ):  # listed from a store that outlives it (a Codex thread, its rollout deleted)
            self.diagnostics.problem(
                f"{self.app}: the session's own file is not there: nothing of it to "
                "follow until it is written again"
            )
        self.started = True

    def poll(self, now: float, seen: Seen) -> list[Event]:
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
        found, self.kept = self.kept, []
        entries = list(self.files.values())
        try:
            while entries:
                if not self._read(entries, seen, found):
                    break
                # a sub-agent named by what was read: its file, found now, is read now
                # too (its lead may say nothing more while it works)
                before = set(self.files)
                self._list(now)
                entries = [e for path, e in self.files.items() if path not in before]
        except Exception:
            self.kept = found  # a reader's bug on one record: the rest still drawn
            raise
        if self.raised is not None:  # said by the caller, what was found kept
            error, self.raised, self.kept = self.raised, None, found
            raise error
        return found

    def _read(self, entries: list[_File], seen: Seen, found: list[Event]) -> bool:
        """Read what `entries`' files gained into `found`; whether a sub-agent not known
        before was named (its file is then looked for)."""
        relist = False
        for entry in entries:
            change = entry.follower.check()
            if change is Change.NONE and not entry.again:
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
            before = len(found)
            entry.again = True  # until its lines are read through
            for line in entry.follower.lines():
                if entry.reader is None:
                    entry.reader = self.follow.reader(entry.file, line.offset)
                try:
                    relist = (
                        self._take(entry, entry.reader(line), seen, found) or relist
                    )
                except Exception as error:  # a reader's bug: the lines after it read on
                    self.raised = self.raised or error
            settle = getattr(entry.reader, "settle", None)
            if callable(settle) and entry.follower.pending == 0:
                # the end of the file: what waits for a line that may never come
                quiet = time.time() - entry.follower.mtime_ns / 1e9 >= QUIET_WORKING
                try:
                    relist = self._take(entry, settle(quiet), seen, found) or relist
                except Exception as error:  # said once; settled again at its next write
                    self.raised = self.raised or error
            # a file that would not open (too many open): read at the next poll, not
            # once it grows
            entry.again = self._unopened(entry)
            appended = appended or len(found) > before
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
        return relist

    def _unopened(self, entry: _File) -> bool:
        """Whether the entry's file would not open for its lines, said once."""
        error = entry.follower.failed
        if error is not None:
            name = str(entry.file.path)
            self.diagnostics.problem(files.stopped_problem(self.app, name, error))
        return error is not None

    def _take(
        self, entry: _File, events: Iterable[Event], seen: Seen, found: list[Event]
    ) -> bool:
        """Add `events` not seen before (all of a file not rewritten) to `found`; whether
        a sub-agent not known before was named."""
        relist = False
        for event in events:
            if self.told is not None:
                event = self.told(event)
            if seen.add(event) or not entry.repeats:
                found.append(event)
            child = event.extra.get("child_id")
            if event.kind == "subagent" and isinstance(child, str):
                relist = relist or child not in self.children
                self.children.add(child)
        return relist

    def last_write(self) -> float:
        return max(
            (e.follower.mtime_ns / 1e9 for e in self.files.values()), default=0.0
        )

    def ready(self) -> float:
        """When a poll may next read what a write added (epoch seconds): at once."""
        return float("-inf")

    def release(self, seen: Seen) -> list[Event]:
        """What is kept back: what a poll whose read raised found; each line is read once."""
        kept, self.kept = self.kept, []
        return kept

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
    """The lines a session's reads could not read, or read with damage, each counted once
    in `diagnostics`: a store or a small file is read whole again at each change. A cut
    last line ("truncated") is not counted: it is most often a line still being written."""

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
            if is_damage(reason):  # read and shown, with U+FFFD: no line skipped
                self.diagnostics.damage(path, line, reason)
            else:
                self.diagnostics.skip(path, line, reason)


class ReadFeed:
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
        history: History | None = None,
        window: int = HISTORY_BYTES,
    ) -> None:
        """`window`: how many bytes of an appended file's end its first read takes."""
        self.session = session
        self.source = source
        self.told = told
        self.history = history
        # the first read was of the session's last rows (`_read_end`): what it gave,
        # by which the first whole read tells the older events from the new
        self.window: Window | None = None
        self.diagnostics = diagnostics
        self.skips = _Skips(diagnostics, session.app)
        self.tracker = tracker
        path = session.path or ""
        self.store = path.split("#", 1)[0]
        # a row of a store many sessions share: its file's mtime is any session's write
        self.shared = "#" in path
        # a log replayed whole (its lines change what earlier ones wrote) is a store here
        self.appended = (
            not self.shared
            and path.endswith(".jsonl")
            and getattr(source, "REPLAYED_LOGS", False) is not True
        )
        self.follower: Follower | None = None
        if self.appended:
            start = tail_offset(path, window)
            if start + window <= FULL_REREAD_MAX:
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
        self.failed = False  # the last read met a problem: what it missed may be there
        self.failures = 0  # reads that failed in a row (each retried later)
        self.raised = 0  # reads of a followed file's same lines that raised in a row
        self.raise_retry_at = 0.0  # not made again before then
        self.passed_over = False  # lines passed over: the file is read on from them
        self.retry_at: float | None = None  # when a failed read is made again
        self.retry_from: int | None = None  # where a followed file's failed read began
        self.covered = 0  # events the last whole read of a store's session yielded
        # a later read of a store draws on its last rows (`_read_tail`): the key and
        # place (`Window.place`) of the last event the read before found, and the place
        # of the one before it, the usage summed before it, and the events drawn so
        # since the last whole read
        self.anchor: tuple[int, int, int | None] | None = None
        self.anchor_tokens = 0
        self.tail_drawn = 0
        self.inlines = False  # a whole read gave a sub-agent's events: read whole
        # the calls the last read found unanswered, of an app that writes a result into
        # its call's row however far back (`CALLS_END_IN_PLACE`): the next reaches them
        self.in_place = getattr(source, "CALLS_END_IN_PLACE", False) is True
        self.open_calls: frozenset[str] = frozenset()
        self.tail_reads = True  # False: every later read whole (the bench's old path)
        self.held: Event | None = None  # its last event, shown once read again alike
        # of the first read's history, its last event written just now: what a status
        # says takes it, `follow` draws it once read again (it may still grow)
        self.undrawn: Event | None = None
        self.fresh = False  # the store was written just before the read
        # a file's last usage, kept back while the file grows (Qwen Code writes a reply
        # as fragments of one uuid, the last one's counts the reply's), and the offset
        # of the read that found it, which the next read starts from again
        self.held_usage: Event | None = None
        self.held_from = 0
        # where the last read ended on a line the record after it reads by (the source's
        # `leads_on`: Qwen Code's telemetry of the reply its record then carries): the
        # next read starts there again, as a read of the whole file would meet it
        self.lead_in: int | None = None
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
        self.beside: Beside | None = None

    def poll(self, now: float, seen: Seen) -> list[Event]:
        if self.follower is not None:
            return self._poll_file_again(seen, now)
        signature = self._signature()
        retry = self.retry_at is not None and now >= self.retry_at  # it failed
        unchanged = signature == self.signature and not retry
        if unchanged or now - self.read_at < STORE_SECONDS:
            return []
        # nothing written since the last read: what it held is as complete as it gets
        # (a source whose last event differs at every read must not be held for ever)
        settled = signature == self.read_signature
        self.signature = self.read_signature = signature
        self.undrawn = None
        # (a shared store's, by any of its sessions; the file system's clock may lag)
        written = max((mtime / 1e9 for _, _, mtime in signature), default=0.0)
        self.fresh = -MTIME_SLACK <= now - written < STORE_SECONDS
        self.read_at = now
        self.lead_gone = not signature or signature[0] == (-1, -1, -1)
        events = self._read(seen, 0, settled=settled)
        self._after(now)
        if not self.shared:  # a shared store's mtime is any of its sessions' write
            self.changes.append(Changed(None, self.written, bool(events)))
        if self.held is not None or not databases.snapshot_current(self.store):
            # a snapshot of the database a moment older than its last write served the
            # read, or its last event may still grow: read again at the next poll,
            # whether or not the app writes more
            self.signature = None
        return events

    def _after(self, now: float) -> None:
        """Of a store's read that failed: made again later though nothing changes it
        (it waited for a write, and what the app wrote before it, a sub-agent that
        finished, was never drawn); the store's state unknown, not what it read."""
        if not self.failed:
            self.failures, self.retry_at = 0, None
            return
        self.failures += 1
        wait = min(RETRY_MOST, STORE_SECONDS * 2 ** (self.failures - 1))
        self.retry_at = now + wait
        self.read_signature = None

    def _poll_file_again(self, seen: Seen, now: float) -> list[Event]:
        """`_poll_file`, whose read that raises is made again from the same place at a
        later poll (its lines were passed, and lost till the file grew), up to RAISED_MOST
        times; then those lines are passed over, said. One that failed (an I/O error
        partway) is made again from where it began too (`_read_again`), as a store's is,
        though the file does not grow; what is written meanwhile is read as it comes."""
        follower = self.follower
        assert follower is not None
        if now < self.raise_retry_at:
            return []
        again = self._read_again(seen, now)
        mark, start, lead_in = follower.mark(), follower.offset, self.lead_in
        try:
            events = self._poll_file(seen, now)
        except Exception:
            self.raised += 1
            if self.raised <= RAISED_MOST:
                follower.restore(mark)
                self.lead_in = lead_in
                self.raise_retry_at = now + STORE_SECONDS * 2 ** (self.raised - 1)
            else:
                self._passed_over(start, follower.offset)
            raise
        self.raised, self.raise_retry_at = 0, 0.0
        if self.failed:  # what it was handed from `start` on is read again later
            first = self.retry_from is None
            self.retry_from = start if first else min(start, self.retry_from or 0)
            if self.retry_at is None:
                self._back_off(now)
        return again + events

    def _read_again(self, seen: Seen, now: float) -> list[Event]:
        """The lines a read that failed was handed, read again once its wait is over:
        STORE_SECONDS after the failure, twice as long at each failure after it, up to
        RETRY_MOST (a file read whole, whole)."""
        follower = self.follower
        if self.retry_from is None or self.retry_at is None or now < self.retry_at:
            return []
        assert follower is not None
        whole = follower.size <= FULL_REREAD_MAX and not self.passed_over
        try:
            events = self._read(seen, 0 if whole else self.retry_from)
        except Exception:
            # a reader's bug: said, not made again; no failure left pending (a poll
            # that reads nothing would make it again, raising), the next one a first
            self.retry_from = self.retry_at = None
            self.failed, self.failures = False, 0
            raise
        if self.failed:
            self._back_off(now)
        else:
            self.failures, self.retry_from, self.retry_at = 0, None, None
        return events

    def _back_off(self, now: float) -> None:
        self.failures += 1
        self.retry_at = now + min(RETRY_MOST, STORE_SECONDS * 2 ** (self.failures - 1))

    def _passed_over(self, start: int, end: int) -> None:
        self.raised, self.raise_retry_at = 0, 0.0
        self.passed_over = True  # not read whole again: it would raise again
        self.diagnostics.problem(
            f"{self.session.app}: passed over bytes {start:,}-{end:,} of "
            f"{self.session.path}: their read raised {RAISED_MOST + 1} times {READER_BUG}"
        )

    def _poll_file(self, seen: Seen, now: float) -> list[Event]:
        follower = self.follower
        assert follower is not None
        before = follower.offset
        change = follower.check()
        self._follower_said()
        if change is Change.NONE:
            # nothing more written: it is whole, unless its source says a later record
            # still ends it (Qwen Code's fragments may come a tool call's wait apart)
            settled = [] if _unfinished(self.held_usage) else self._settle_usage(seen)
            # the lead waits in a call while its sub-agent's own file is written
            beside = not self.passed_over and self._beside_written(now)
            return settled + (self._read(seen, 0) if beside else [])
        if change is Change.VANISHED:
            self.lead_gone = True
            return self._settle_usage(seen)
        self.lead_gone = False
        self.written = follower.mtime_ns / 1e9
        self.passed_over = self.passed_over and change is not Change.REWRITTEN
        if change is Change.REWRITTEN and follower.size > FULL_REREAD_MAX:
            follower.skip_to_tail(HISTORY_BYTES)  # what is older was shown already
        first = None
        lead_in, self.lead_in = self.lead_in, None
        leads_on = getattr(self.source, "leads_on", None)
        for line in follower.lines():
            first = line.offset if first is None else first
            if leads_on is not None:
                self.lead_in = line.offset if leads_on(line.data) else None
        self._follower_said()
        if follower.failed is not None:  # read again from here later (`_read_again`)
            app, path = self.session.app, self.session.path
            self.diagnostics.problem(files.stopped_problem(app, path, follower.failed))
            self.failed = True
        if first is None:
            events = []  # only a partial line so far
            self.lead_in = lead_in  # the line it leads on is still the last whole one
        elif follower.size <= FULL_REREAD_MAX and not self.passed_over:
            events = self._read(seen, 0)  # its sub-agents' files too
        elif change is Change.REWRITTEN:
            events = self._read(seen, first)
        else:
            start = max(first, before)
            if self.held_usage is not None:
                # from where the usage kept back was read (the start, of a first read
                # from there): it is read again, grown
                start = min(self.held_from, start)
            if lead_in is not None:
                start = min(lead_in, start)
            events = self._read(seen, start)
        grown = change is Change.GROWN or bool(events)
        self.changes.append(Changed(None, self.written, grown))
        return events

    def _follower_said(self) -> None:
        """What the follower met (a file refused, one not a regular file), said here."""
        if self.follower is not None and self.follower.diagnostics is not None:
            for problem in self.follower.diagnostics.problems:
                self.diagnostics.problem(problem)

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
        if self.beside is None:
            self.beside = Beside(Path(self.store))
        return self.beside.newest() > since

    def _read(self, seen: Seen, offset: int, *, settled: bool = False) -> list[Event]:
        # one byte early: that line is cut, so every source starts at the next line start
        start = max(0, offset - 1) if offset else 0
        if offset == 0:
            self.whole_read_ns = time.time_ns()
            if self.follower is not None and self.beside is None:
                self.beside = Beside(Path(self.store))
                self.beside.remember()  # what is there now is read: a name after it is new
        whole = offset == 0 and self.follower is None
        if whole and not self.read_before and self.history is not None:
            end = self._read_end(seen)
            if end is not None:
                return end
        if whole and self.read_before and self.window is None:
            end = self._read_tail(seen, settled)
            if end is not None:
                return end
            self.anchor, self.tail_drawn = None, 0  # set again by this whole read
        scratch = Diagnostics()  # a line being written is not a broken line
        # new events only; of a first read, the recent history only, as for a file read
        # from its tail: a store's session of a million events is not held whole
        kept: deque[Event] = deque(maxlen=None if self.read_before else HISTORY_EVENTS)
        # a store's session read whole again: what the last read covered, but for its
        # end (where an update in place lands), is not new, whether or not `seen`, which
        # keeps SEEN_CAP events, still holds it
        skip = max(0, self.covered - SEEN_CAP // 2) if whole else 0
        # after a first read of its last rows: what comes before the first event it gave
        # (or that event rewritten, or one written after them all) is older, not new (it
        # was never read); the events it gave, as they were, were drawn
        window, opened = (self.window, False) if whole else (None, True)
        left = Counter(window.keys) if window is not None else Counter[int]()
        count = tokens = 0
        inlines = False
        first = not self.read_before
        last: Event | None = None
        final: Event | None = None  # bookkeeping too
        met: set[int] = set()  # the keys this read found new
        ends: deque[Event] = deque(maxlen=3)  # its last events, for `_anchor`
        calls = _Calls() if whole and self.in_place else None
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
                final = event
                ends.append(event)
                if event.agent_id is not None or event.kind == "subagent":
                    inlines = True
                if calls is not None:
                    calls.add(event, count)
                if event.kind not in BOOKKEEPING:
                    last = event
                elif event.kind == "usage" and event.usage is not None:
                    tokens += event.usage.plausible().total  # a broken count adds 0
                if count > skip and window is not None:
                    key = Seen.key(event, True)
                    given = left[key] > 0
                    opened = opened or given or window.opens(event)
                    if not opened or given:
                        if given:  # never a count of an older event: the history's
                            left[key] -= 1  # own, as long as the session, each read
                        seen.add(event, True)
                        continue
                    if key in left:  # alike one given before it: this one is another
                        met.add(key)
                if count > skip and _new(seen, event, whole, met):
                    if len(kept) == kept.maxlen:
                        self.tracker.partial = True
                    kept.append(event)
        except OSError as error:
            self.diagnostics.problem(
                files.stopped_problem(self.session.app, self.session.path, error)
            )
            self.failed = True
            # what it found new is not drawn: unseen, for the read made again to draw
            # (it was taken as drawn, and never was)
            for event in kept:
                seen.forget(event, whole)
            return []
        except Exception:
            for event in kept:  # a reader's bug: likewise unseen, for the read again
                seen.forget(event, whole)
            raise
        self.read_before = True
        # a read that found none of the events the first read gave (the app caught
        # between its truncate and its write) leaves the next to tell them apart
        self.window = None if whole and opened else self.window
        if self.follower is not None:  # before what is read on is summed
            # of a first read, only a file written just now may end mid-reply, or one
            # whose source says the reply it ends on may still grow
            recent = (
                not first
                or time.time() - self.written < STORE_SECONDS
                or _unfinished(final)
            )
            self._hold_usage(kept, final if recent else None, seen, offset)
        if whole:
            self.covered, self.tokens = count, tokens
            self.inlines = inlines
            self.open_calls = (
                frozenset(calls.open) if calls is not None else frozenset()
            )
            self._anchor(list(ends), tokens)
            if not first:
                self._hold(kept, _growing(last, final), seen, settled)
            elif self.fresh:
                self._hold_drawing(kept, _growing(last, final), seen)
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
        return self._taken(events, scratch)

    def _read_end(self, seen: Seen) -> list[Event] | None:
        """`follow -n`'s first read of a store: the session's last rows, as many as hold
        the history's events (`reading.last_events`, as `show --tail` reads them), not
        the whole session. None where it is read whole: a sub-agent's session, a source
        with no `read_last`, a session of too few rows, or one of the rows read holds a
        sub-agent's spawn or events (`read` gives them inline, `read_last` does not) or
        an undated event (a whole read tells two alike by their place, which a read of
        the last rows does not know). Its keys (`window`) tell the first whole read,
        the next, the older events it never read from the new ones."""
        history = self.history
        if history is None or self.told is not None or self.session.parent_id:
            return None
        if getattr(self.source, "read_last", None) is None:
            return None
        shown = history.shown
        rows = max(history.count, TAIL_ROWS)
        while True:
            scratch = Diagnostics()  # what a wider window reads again is counted there
            unsure: set[int] = set()
            found = reading.last_events(
                self.source, self.session, scratch, rows, _every, HISTORY_EVENTS,
                unsure=unsure,
            )  # fmt: skip
            if found is None:
                return None
            # what follows the last event earlier rows may change (an OpenCode
            # compaction's note): what comes before it is read as older at the next read
            sure = [i for i, e in enumerate(found) if e.seq in unsure]
            found = found[sure[-1] + 1 :] if sure else found
            drawn = sum(1 for e in found if shown is None or shown(e))
            if drawn >= history.count or len(found) >= HISTORY_EVENTS:
                break
            rows *= 4
        if len(found) < 2 or any(_whole_only(e) for e in found):
            return None
        met: set[int] = set()  # two alike are two, as a whole read draws them
        kept = deque(e for e in found if _new(seen, e, True, met))
        self.read_before = True
        self.tracker.partial = True  # its earlier tokens are not read
        last = next((e for e in reversed(found) if e.kind not in BOOKKEEPING), None)
        if self.fresh:
            self._hold_drawing(kept, _growing(last, found[-1]), seen)
        self.window = Window(
            Counter(Seen.key(e, True) for e in found if e is not self.held),
            {Window.place(e) for e in found},
            max(e.time for e in found if e.time is not None),
        )
        return self._taken(list(kept), scratch)

    def _taken(self, events: list[Event], scratch: Diagnostics) -> list[Event]:
        """`events`, a read's new ones, handed on: what the read met kept, and, of a
        shared file, its newest time as this session's own last write. Whether the
        read met a problem that may pass (`_may_pass`: it stopped, a file it needs would
        not open) is `failed`."""
        self.failed = any(map(_may_pass, scratch.problems))
        self.diagnostics.problems.extend(
            p for p in scratch.problems if p not in self.diagnostics.problems
        )
        self.skips.add(scratch)
        if self.shared:  # this session's own last write: its newest event
            times = [e.time.timestamp() for e in events if e.time is not None]
            self.written = max([self.written, *times])
        return events

    def _anchor(self, ends: list[Event], tokens: int) -> None:
        """Remember where a read found the session's end (`ends`: its last events, up to
        3): its last event, the one before it, and the usage summed before it (a later
        read of the last rows sums on from there). A session's summed counts it ends on
        (Crush's, written again with a new time at each response) are no anchor, which
        the next read would not find but by reading every row: the event before them is."""
        if len(ends) > 1 and _summed(ends[-1]):
            tokens -= _usage(ends.pop())
        if not ends:
            self.anchor = None
            return
        final, before = ends[-1], (ends[-2] if len(ends) > 1 else None)
        previous = None if before is None else Window.place(before)
        self.anchor = (Seen.key(final, True), Window.place(final), previous)
        self.anchor_tokens = tokens - _usage(final)

    def _read_tail(self, seen: Seen, settled: bool) -> list[Event] | None:
        """A later read of a store: its last rows, as many (x4 each time) as reach back
        to the event the read before ended on (`anchor`: as it was, or rewritten in its
        place), each event of them new or rewritten kept as a whole read keeps it; what
        is older was read before, and an app writes a session at its end. None where it
        is read whole: no anchor among the rows (a revert deleted it, more was written
        than `HISTORY_EVENTS` hold), an event among them a whole read numbers by its
        place or inlines a sub-agent's events beside, one that earlier rows may change
        (`unsure`) at or after the anchor however many are read, or before it where an
        event among the rows was rewritten, or a source with no `read_last`. Of an app
        that writes a call's result into its row (`CALLS_END_IN_PLACE`), the rows reach
        back to each call the read before found unanswered too, where HISTORY_EVENTS
        reach."""
        anchor = self.anchor
        if (
            anchor is None
            or not self.tail_reads
            or self.inlines
            or self.told is not None
            or self.session.parent_id
            or getattr(self.source, "read_last", None) is None
            or self.tail_drawn > SEEN_CAP // 4  # the whole read's `skip` stays sound
        ):
            return None
        rows, before = TAIL_ROWS, 0
        while True:
            scratch = Diagnostics()
            unsure: set[int] = set()
            found = reading.last_events(
                self.source, self.session, scratch, rows, _every, HISTORY_EVENTS,
                unsure=unsure, settle=True,
            )  # fmt: skip
            if not found or any(_whole_only(e) for e in found):
                return None
            start = _anchored(found, anchor)
            if start is None and any(
                Seen.key(e, True) == anchor[0] or Window.place(e) == anchor[1]
                for e in found
            ):
                return None  # its key or place is another's too: no more rows tell
            # the anchor, and after it no event earlier rows may change (a compaction's
            # note names and counts what it folds: one written since is read whole);
            # each call unanswered before among them too, but where more rows give no
            # more (it was deleted, or is further back than HISTORY_EVENTS reach)
            spent = len(found) <= before or len(found) >= HISTORY_EVENTS
            if (
                start is not None
                and not any(e.seq in unsure for e in found[start:])
                and (spent or _reaches(found, self.open_calls))
            ):
                break
            if spent:
                return None  # more rows give no more: the whole read tells
            rows, before = rows * 4, len(found)
        last = next((e for e in reversed(found) if e.kind not in BOOKKEEPING), None)
        if last is None:
            return None
        # a usage before the anchor written again (an answer's counts filled in later):
        # what was summed before the anchor (`anchor_tokens`) no longer holds
        if any(e.kind == "usage" and seen.new(e, True) for e in found[:start]):
            return None
        # a compaction written since may have rewritten rows before these (Goose hides
        # the whole history from the model, an earlier summary becoming a hidden note)
        if any(e.kind == "compaction" and seen.new(e, True) for e in found):
            return None
        # one read before is as it was while what it names, among these rows, is
        older = [e for e in found[:start] if e.seq not in unsure]
        if len(older) < start and any(seen.new(e, True) for e in older):
            return None
        kept: deque[Event] = deque()
        met: set[int] = set()  # two alike new ones are two, as a whole read draws them
        for event in found:
            if event.seq not in unsure and _new(seen, event, True, met):
                kept.append(event)
        tokens = self.anchor_tokens + sum(_usage(e) for e in found[start:])
        self.tokens = tokens
        if self.in_place:
            calls = _Calls()
            for place, event in enumerate(found):
                calls.add(event, place)
            self.open_calls = frozenset(calls.open)
        self._anchor(found[-3:], tokens)
        self.tail_drawn += len(kept)
        self._hold(kept, _growing(last, found[-1]), seen, settled)
        return self._taken(list(kept), scratch)

    def _hold(
        self, kept: deque[Event], last: Event | None, seen: Seen, settled: bool
    ) -> None:
        """Keep back a store's new last event while it may still grow: an app that
        streams an answer into its row writes it again and again, and each version
        would be new (`_growing` says which may). It is shown once a read finds it as the
        one before did, or finds more after it, or the store was not written since; what
        the first read found is history, shown as it is."""
        held, self.held = self.held, None
        if last is None or (settled and held is not None):
            return
        if (
            held is not None
            and Seen.key(held, True) == Seen.key(last, True)
            and held.text == last.text  # a compaction's key leaves its summary out
        ):
            return  # read twice alike: complete
        for index in range(len(kept) - 1, -1, -1):  # after it, bookkeeping at most
            if kept[index] is last:
                del kept[index]
                seen.forget(last, True)
                self.held = last
                return
            if kept[index].kind not in BOOKKEEPING:
                return

    def _hold_drawing(self, kept: deque[Event], last: Event | None, seen: Seen) -> None:
        """Of the first read, written just now, its last event that may still grow (an
        answer streamed into its row): kept in the history a status takes, its drawing
        held (`undrawn`) until a read finds it again, as `_hold` does a later read's. A
        tool call is drawn at once: its input is most often written whole."""
        if last is None or last.kind not in STREAMED or self._settled_here():
            return
        for index in range(len(kept) - 1, -1, -1):  # after it, bookkeeping at most
            if kept[index] is last:
                seen.forget(last, True)
                self.held = self.undrawn = last
                return
            if kept[index].kind not in BOOKKEEPING:
                return

    def _settled_here(self) -> bool:
        """Whether this session of a store many share was last written STORE_SECONDS
        ago or more, as its source reads the stamps of its rows (`last_written`): the
        store's own time is any session's write."""
        hook = getattr(self.source, "last_written", None)
        # the snapshot the read was served shows the store as it is now (not one a
        # checkpoint left behind), and so does the one the stamps are read from
        if (
            hook is None
            or not self.shared
            or not databases.snapshot_current(self.store)
        ):
            return False
        written = hook(self.session)
        if not isinstance(written, float) or not databases.snapshot_current(self.store):
            return False
        # a stamp of whole seconds is up to one early
        return time.time() - written >= STORE_SECONDS + MTIME_SLACK

    def _hold_usage(
        self, kept: deque[Event], final: Event | None, seen: Seen, offset: int
    ) -> None:
        """Keep back the usage a file's read ends on: a reply written in fragments is
        billed its last fragment's counts, and a read that ended between two found the
        first's. It is shown once the file is found unchanged (one its source marks
        `unfinished`: once a read finds it ended), or read again (from where this read
        began) with what the app wrote after it."""
        self.held_usage, self.held_from = None, 0
        if final is None or final.kind != "usage" or not kept or kept[-1] is not final:
            return
        kept.pop()
        seen.forget(final)
        self.held_usage, self.held_from = final, offset

    def _settle_usage(self, seen: Seen) -> list[Event]:
        """The usage kept back, as it is: the file was not written since."""
        held, self.held_usage = self.held_usage, None
        if held is None or not seen.add(held):
            return []
        if self.held_from and self.tokens is not None and held.usage is not None:
            self.tokens += held.usage.plausible().total  # read on from a line: added
        return [held]

    def release(self, seen: Seen) -> list[Event]:
        """What is kept back while it may still grow (a store's last event, a file's
        last usage), as it is: following ends (`--duration`), and the read that would
        find it whole never comes."""
        held, self.held, self.undrawn = self.held, None, None
        events = self._settle_usage(seen)
        if held is not None and seen.add(held, True):
            events.insert(0, held)
        return events

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

    def store_signature(self, known: dict[str, Signature] | None = None) -> Signature:
        """The store as it is now (a stat of it and its -wal): a read is due where it is
        not `signature`. `known`: what one look at each shared store gave, for the many
        sessions in it (a board polls each in turn), kept there too."""
        folder = os.path.basename(os.path.dirname(self.store))
        if known is None or not self.shared or self.session.id in folder:
            return self._signature()  # one of its own, or files of a folder its own
        if self.store not in known:
            known[self.store] = self._signature()
        return known[self.store]

    def ready(self) -> float:
        """When a poll may next read what a write added (epoch seconds): a store read
        whole, STORE_SECONDS after its last read; a file read from a line, at once."""
        return (
            float("-inf") if self.follower is not None else self.read_at + STORE_SECONDS
        )

    def folders(self) -> set[Path]:
        return self._folders

    def bytes_read(self) -> int:
        return self.follower.bytes_read if self.follower is not None else 0

    def followed(self) -> set[Path]:
        return {Path(self.store)} if self.store else set()


@dataclass
class Window:
    """What `follow -n`'s first read of a store's last rows gave (`_read_end`), by which
    the next whole read tells the older events, never read, from the new: the first it
    finds of those events opens what is new. That event may have been rewritten in
    place since (an answer streamed into its row, `follow -n 1` as it is written) or
    deleted with all the others (an OpenCode revert of more rows than were read): then
    the same event at its place (`place`, what a rewrite keeps) opens it, or an event
    dated after all of them (written later)."""

    # `Seen.key` of each event given but the one held back, as many times as given: one
    # held beside another alike (two "Done." in one second) is not taken for it
    keys: Counter[int]
    places: set[int]  # `place` of each event given
    newest: datetime  # the latest time among them (each is dated: `_whole_only`)

    @staticmethod
    def place(event: Event) -> int:
        """An event's identity but for what an app writes again in place: its words,
        counts, error flag."""
        return hash((event.agent_id, event.kind, event.time, event.call_id, event.tool))

    def opens(self, event: Event) -> bool:
        """Whether `event`, read before any given event is found, is no older event."""
        if event.time is None or event.time_estimated:
            return False
        return event.time > self.newest or self.place(event) in self.places


def _growing(last: Event | None, final: Event | None) -> Event | None:
    """Of a store's read, the event at its end that may still grow: its last but for
    bookkeeping, of a kind written again grown; else an undated note it ends with (aider
    quotes what it did a line at a time, `> Applied edit`, then `> Commit …`)."""
    if last is not None and last.kind in GROWING:
        return last
    if final is not None and final.kind == "meta":
        return final if final.time is None or final.time_estimated else None
    return None


def _unfinished(event: Event | None) -> bool:
    """Whether the usage a read ended on is marked a response no record has ended yet
    (`Event`'s `extra["unfinished"]`): kept back until one does, or following ends."""
    return event is not None and event.extra.get("unfinished") is True


def _summed(event: Event) -> bool:
    """Whether `event` is the usage a session's counters give, summed over it."""
    return event.kind == "usage" and event.extra.get("scope") == "session"


class _Calls:
    """The tool calls a read found unanswered, each by its id, among its last
    HISTORY_EVENTS events. One with a prompt after it, and an answer after that, is not
    waiting: the app answers a prompt sent while a tool runs once the tool returned, so
    that call was left running by an app that stopped (killed mid-call, the session
    resumed later), and is not read back to at every poll. Only the lead's events
    count: a sub-agent its read inlines prompts, answers and calls in its own turn,
    which answers none of the lead's calls (its spawn among them)."""

    def __init__(self) -> None:
        self.open: OrderedDict[str, int] = OrderedDict()  # id: its place in the read
        self.prompted: list[str] = []  # the open calls a prompt came after

    def add(self, event: Event, place: int) -> None:
        if event.agent_id is not None:
            return
        if event.kind == "user":
            self.prompted = list(self.open)
        elif event.kind in ANSWERS and self.prompted:
            for call in self.prompted:
                self.open.pop(call, None)
            self.prompted = []
        if event.call_id is not None and event.kind == "tool_call":
            self.open[event.call_id] = place
            self.open.move_to_end(event.call_id)
        elif event.call_id is not None and event.kind == "tool_result":
            self.open.pop(event.call_id, None)
        while self.open and place - next(iter(self.open.values())) >= HISTORY_EVENTS:
            self.open.popitem(last=False)


def _reaches(found: list[Event], calls: frozenset[str]) -> bool:
    """Whether `found` holds each of `calls`, a call a read before found unanswered."""
    if not calls:
        return True
    return calls <= {e.call_id for e in found if e.kind == "tool_call"}


def _usage(event: Event) -> int:
    """The tokens a whole read sums of `event`."""
    if event.kind != "usage" or event.usage is None:
        return 0
    return event.usage.plausible().total  # a broken count adds 0


def _anchored(found: list[Event], anchor: tuple[int, int, int | None]) -> int | None:
    """Where among `found` the event a read before ended on is: the one event as it was,
    else the one event at its place (rewritten there), each after an event at the place
    of the one before it then; None where neither is one (two alike: which one ended
    that read, and where do its usage's sums part?)."""
    key, place, previous = anchor

    def after(index: int) -> bool:
        return index > 0 and Window.place(found[index - 1]) == previous

    keys = [i for i, e in enumerate(found) if Seen.key(e, True) == key]
    if keys:
        return keys[0] if len(keys) == 1 and after(keys[0]) else None
    places = [i for i, e in enumerate(found) if Window.place(e) == place]
    return places[0] if len(places) == 1 and after(places[0]) else None


def _every(event: Event) -> bool:
    return True


def _whole_only(event: Event) -> bool:
    """Whether a read of a session's last rows giving `event` leaves the first draw of
    `follow -n` to a whole read: a sub-agent's spawn or event (`read` inlines what
    `read_last` leaves out), or an event a whole read numbers by its place (undated)."""
    return (
        event.agent_id is not None
        or event.kind == "subagent"
        or event.time is None
        or event.time_estimated
    )


def _entries(folder: Path) -> list[os.DirEntry[str]]:
    """A session folder's files, and its folders: a folder's mtime changes when a file
    is added to it (an app that writes each event as a file of its own, OpenHands' SDK,
    may leave every other file alone meanwhile)."""
    try:
        with os.scandir(folder) as it:
            return [
                entry
                for entry in it
                if entry.is_file() or entry.is_dir(follow_symlinks=False)
            ]
    except OSError:
        return []
