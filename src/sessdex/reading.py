"""Reading one session's events: a reader's failure stops the read, not the program, and
a store the app rewrote during the read is read again from where it broke."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

from . import files, inplace
from .diagnostics import Diagnostics

if TYPE_CHECKING:
    from .model import Event, Session
    from .sources import Source

# how often a store read whole is read again when the app wrote into it during a read that
# came out broken (as the index does)
REREADS = 2
_SQLITE_MAGIC = b"SQLite format 3\x00"
LEAD = "the lead"  # who told a sub-agent what it was told


def read_session(
    source: Source,
    session: Session,
    diagnostics: Diagnostics,
    *,
    full: bool = False,
    spawner: str | None = None,
) -> Iterator[Event]:
    """The session's events, read again from where they broke off when the file they
    come from is a store read whole (a database, a JSON document) that the app rewrote
    during the read.

    A database without a WAL is read lock-free, so a commit during the read can show it
    half a transaction, or tear the pages it meets ("database disk image is malformed"),
    and a document rewritten in place reads as cut short; the same read a moment later is
    whole. No event read after the app committed is given (`inplace.watched`); the last
    read again after a commit is of a copy of one committed state. The events already
    given are not given twice: the read again is skipped up to them, and stops with a
    problem noted when it holds fewer, or they are not what it holds in their places now
    (the app rewrote what was given, an earlier message as well as the last: a running
    digest of the events given is compared with one of as many events read again).
    A line log (JSONL) is never read again: it grows under the reader, and a bad line in
    it stays bad. `spawner`: what a sub-agent's session calls the agent that told it its
    task (`from_its_lead`)."""
    store = whole_store(session.path)
    if store is None:
        size = _size(session.path)
        found = Diagnostics()
        try:
            yield from guarded(
                source.read(session, found, full=full), found, session, spawner
            )
        finally:  # a file re-saved as UTF-16 is said so, not as its lines not JSON
            diagnostics.update(files.wide_read(found))
        # a log only grows: one smaller now was rewritten under the reader (its app's
        # truncate, then its write), and what it held then may be missing here
        left = _size(session.path)
        if size is not None and left is not None and left < size:
            diagnostics.problem(
                f"{session.app}: {session.path} was cut short while it was read "
                f"({size} bytes, then {left}); read it again"
            )
        return
    from .freshness import file_signature

    given, digest = 0, 0  # the events given, and a running digest of them
    found = Diagnostics()
    moves = 0  # reads the app committed during
    try:
        for attempt in range(REREADS + 1):
            found = Diagnostics()  # only the last read's findings are reported
            before = file_signature(store)
            copied = moves > 1 or (moves > 0 and attempt == REREADS)
            reading = inplace.Reading(copied=copied)
            events = guarded(
                source.read(session, found, full=full), found, session, spawner
            )
            watching = inplace.watched(events, reading)
            count, running, mismatch = 0, 0, False
            try:
                for event in watching:
                    count += 1
                    running = hash((running, _digest(event)))
                    if count > given:  # those before were given by the read that broke
                        given, digest = count, running
                        yield event
                    elif count == given and running != digest:
                        mismatch = True  # what was given is not what is there now
                        break
                moved = reading.moved()
            finally:
                watching.close()
                reading.close()
            moves += moved
            settled = not (moved or found.problems or found.skipped)
            # what was given is not what the store holds now at its place
            differs = count < given or mismatch
            last = attempt == REREADS or settled
            if differs and (settled or attempt == REREADS):
                found.problem(
                    f"{session.app}: {store} changed while it was read, in what was "
                    "given already; read the session again for what it holds now"
                )
                break
            if last:
                if moved:
                    found.problem(
                        f"{session.app}: {store} changed during every read of it; "
                        "what was given stops there"
                    )
                break
            now = file_signature(store)
            if not moved and (now is None or now == before):
                break  # gone, or as it was: what could not be read is in the file
    finally:
        diagnostics.update(files.wide_read(found))


def _size(path: str | None) -> int | None:
    """A plain file's size; None for anything else, or nothing there."""
    if path is None:
        return None
    try:
        return os.stat(path).st_size
    except (OSError, ValueError):  # gone, or a NUL in a name an app recorded
        return None


def _digest(event: Event) -> int:
    """What tells an event a read gave from the one at its place in a read again: where
    its text changed, its length, start or end (cheap on a long one)."""
    text = event.text or ""
    return hash((event.kind, event.tool, event.call_id, event.is_error, event.usage,
                 len(text), text[:64], text[-64:], len(event.extra)))  # fmt: skip


def guarded(
    events: Iterator[Event],
    diagnostics: Diagnostics,
    session: Session,
    spawner: str | None = None,
) -> Iterator[Event]:
    """Stop cleanly, with a problem noted, if the file vanishes or breaks mid-read, or
    the reader meets a shape it cannot handle: the events read so far stay given. A
    sub-agent's prompts come `from_its_lead`, or from `spawner` where it is named."""
    if session.parent_id:
        events = from_its_lead(events, spawner or LEAD, called(session))
    try:
        yield from events
    except OSError as error:
        diagnostics.problem(files.stopped_problem(session.app, session.path, error))
    except Exception as error:
        if os.environ.get("SESSDEX_DEBUG"):
            raise
        diagnostics.reader_failed(session.app, session.path, error)


def from_its_lead(
    events: Iterable[Event], spawner: str = LEAD, itself: str | None = None
) -> Iterator[Event]:
    """A sub-agent's session read on its own: what it was told, a person did not type;
    the agent that started it did (as `sender_name` says when the lead's view holds it):
    the lead, or `spawner`, what a sub-agent that another sub-agent started calls it.
    The sub-agents it started itself were told theirs by it, `itself` (its name), not
    by the lead."""
    told = FromItsLead(spawner, itself)
    for event in events:
        yield told(event)


class FromItsLead:
    """`from_its_lead` one event at a time, for reads that come in pieces (`follow`): it
    remembers the sub-agents the session started itself."""

    def __init__(self, spawner: str = LEAD, itself: str | None = None) -> None:
        self.spawner = spawner
        self.itself = itself
        self.own: set[str] = set()  # the sub-agents this one started

    def __call__(self, event: Event) -> Event:
        from dataclasses import replace

        if event.kind == "subagent" and event.agent_id is None:
            child = event.extra.get("child_id")
            if child is not None:
                self.own.add(str(child))
        if (
            event.kind == "user"
            and not event.extra.get("from_agent")
            and not event.extra.get("injected")
        ):
            if event.agent_id is None:
                return replace(event, extra={**event.extra, "from_agent": self.spawner})
            if self.itself and event.agent_id in self.own:
                return replace(event, extra={**event.extra, "from_agent": self.itself})
        return event


def called(session: Session) -> str:
    """What the views call a sub-agent `session` when it tells another its task: its
    type, else the start of its id."""
    from .views.text import one_line

    return one_line(session.agent_type or "", 24) or one_line(session.id)[:8]


def whole_store(path: str | None) -> str | None:
    """The database or JSON document a session is read from whole, or None (a line log,
    a folder, nothing)."""
    if not path:
        return None
    if path.endswith((".jsonl", ".jsonl.zst")):
        return None  # a line log: no need to look inside
    name = path if os.path.isfile(path) else path.rpartition("#")[0]
    if not name or not os.path.isfile(name):
        return None
    if name.endswith(".json"):
        return name
    try:
        with files.open_regular(name) as file:
            return name if file.read(len(_SQLITE_MAGIC)) == _SQLITE_MAGIC else None
    except OSError:
        return None


def last_events(
    source: Source,
    session: Session,
    diagnostics: Diagnostics,
    rows: int,
    keep: Callable[[Event], bool],
    count: int,
    *,
    full: bool = False,
    spawner: str | None = None,
    unsure: set[int] | None = None,
    settle: bool = False,
    settles: list[bool] | None = None,
) -> list[Event] | None:
    """The last `count` events `keep` accepts among those of the session's last `rows`
    messages, from the source's `read_last` (their `seq` counts from the first of those
    rows; `settle`, base.py); none where one of them is an event earlier rows may change
    (`unsure`, base.py); None where the whole session is to be read instead: the source
    has no such hook or says it cannot give them exactly, the app wrote into the database
    during the read, or the read broke or met a problem (the whole read, with its checks,
    says it). Rows skipped as unreadable are counted in `diagnostics`, as a file's tail
    counts them. `settles` is given False where `settle` would read no more (base.py).
    Given `unsure`, the `seq` of each event earlier rows may change is added
    to it, and the events are given all the same: the caller keeps those after the last
    of them."""
    from collections import deque

    from .sources.base import WholeRead

    hook = getattr(source, "read_last", None)
    if hook is None:
        return None
    found = Diagnostics()
    given = unsure is not None
    unsure = set() if unsure is None else unsure  # events earlier rows may change
    if getattr(source, "READ_LAST_UNSURE", False):
        events: Iterator[Event] = hook(
            session, found, rows, full=full, unsure=unsure, settle=settle,
            settles=settles,
        )  # fmt: skip
    else:
        events = hook(session, found, rows, full=full)
    if session.parent_id:
        events = from_its_lead(events, spawner or LEAD, called(session))
    kept: deque[Event] = deque(maxlen=count)
    reading = inplace.Reading()
    watching = inplace.watched(events, reading)
    try:
        for event in watching:
            if keep(event):
                kept.append(event)
        moved = reading.moved()
    except WholeRead:
        return None
    except Exception:
        if os.environ.get("SESSDEX_DEBUG"):
            raise
        return None  # the whole read meets it again, and says what it was
    finally:
        watching.close()
        reading.close()
    if moved or found.problems:
        return None
    if not given and any(event.seq in unsure for event in kept):
        return []  # fewer than asked for: more rows settle it
    # what the rows read hold, as a file's tail says (a UTF-16 one: that)
    diagnostics.update(files.wide_read(found))
    return list(kept)
