"""A session's transcript as the library gives it: its events read in order (sub-agents
interleaved), only its end (`--tail`), and its tree of sub-agents.

The reading itself is the sources' and `reading`'s; this decides what is read, and
from where. Nothing here names an app.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Container, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, TypeVar

from . import folders, inplace, reading, sources
from .calls import refuse_unknown, refuse_unless
from .diagnostics import Diagnostics
from .errors import SessdexError
from .files import line_start, wide_read
from .index import Index, Progress, Row
from .model import Event, Session
from .resolving import as_given, resolve
from .sources import Home

if TYPE_CHECKING:  # the tree's code loads with `tree` alone, not with every read
    from .tree import AgentNode

SUBAGENT_MODES = ("inline", "tree", "none")
_TAIL_WINDOW = 256 * 1024
_TAIL_ROWS = 64  # the messages a database's tail is first read from


@dataclass(slots=True)
class Transcript:
    """A session and its events (a generator: iterate once)."""

    session: Session
    events: Iterator[Event]
    diagnostics: Diagnostics
    partial: bool = False  # only the end of the session was read (--tail)
    # the read began past the file's start: each `seq` counts from there, not the session's
    seq_relative: bool = False


def transcript(
    home: Home,
    prefix: str,
    *,
    subagents: str = "inline",
    tail: int | None = None,
    full: bool = False,
    progress: Progress | None = None,
    shown: Callable[[Event], bool] | None = None,
    listed: bool = True,
    as_shown: bool = False,
    drawn: bool = False,
) -> Transcript:
    """The session's events, sub-agents included unless `subagents == "none"` (with
    `listed`, those the index lists under it that its own read holds nothing of too,
    after its events: `_with_listed`).

    With `tail`, only the last `tail` events of the lead agent (with `shown` too, of
    those it accepts: those a view shows), read from the end of its file, so a 2 GB
    transcript answers at once. With `as_shown`, the last `tail` as the whole read ends,
    sub-agents too unless `subagents` is "none": where it has some (the index lists one,
    or an event read is one's), read whole (a sub-agent's block is placed by its spawn,
    its events by their times). With `drawn`, what they are drawn from before them too
    (a call before its result, up to TAIL_CONTEXT events; a sub-agent's spawn): the
    caller keeps the last `tail` it draws.
    `full` keeps huge payloads (pasted images, giant outputs) whole, where they are
    otherwise summarised, as `show --full-payloads` does. The events are read
    as they are iterated; a transcript dropped half-way closes its files. Raises what
    `resolve` raises, and BadValue for a `subagents` or `tail` the CLI would refuse.
    """
    refuse_unknown("subagents", subagents, SUBAGENT_MODES)
    refuse_unless("tail", tail, 0)
    session = resolve(home, prefix, progress=progress)
    source = sources.get(session.app)
    diagnostics = Diagnostics()
    spawner = spawner_of(home, session)
    if tail is not None:
        lead_only = subagents == "none" or not as_shown
        by_time = getattr(source, "SUBAGENTS_BY_TIME", False)
        listed = by_time or _lists_subagents(home, session)
        # each listed one placed at its spawn in the lead's rows: the last rows tell
        # (a spawn among them reads it whole, below)
        spawned = listed and not by_time and _spawns_all(home, source, session)
        if lead_only or by_time or not listed or spawned:
            last, relative = _tail_events(
                source, session, diagnostics, tail, full, shown, spawner, lead_only
            )
            # sub-agents the lead's own file keeps, none listed apart: read in its
            # order with it, their events in the tail read as in the whole one
            inside = getattr(source, "SUBAGENTS_INSIDE", False) and not listed
            if lead_only or not (
                (not inside and any(_of_subagents(e) for e in last))
                or (by_time and _listed_since(home, session, last, shown, tail))
            ):
                last = last if drawn else _last(last, shown, tail)
                return Transcript(session, iter(last), diagnostics, True, relative)
            diagnostics = Diagnostics()  # the whole read meets it again
    events = reading.read_session(
        source, session, diagnostics, full=full, spawner=spawner
    )
    if subagents == "none":
        events = (e for e in events if e.agent_id is None)
    elif listed:
        events = _with_listed(home, session, events, diagnostics, full)
    if tail is not None and not drawn:
        events = iter(_last(events, shown, tail))
    return Transcript(session, events, diagnostics)


def _last(
    events: Iterable[Event], shown: Callable[[Event], bool] | None, count: int
) -> list[Event]:
    """The last `count` events `shown` accepts (all, without it)."""
    from collections import deque

    return list(deque(filter(shown, events) if shown else events, maxlen=count))


def _with_listed(
    home: Home,
    session: Session,
    events: Iterator[Event],
    diagnostics: Diagnostics,
    full: bool,
) -> Iterator[Event]:
    """The session's events, then those of each sub-agent the index lists under it (or
    under one of its sub-agents) that its read held no event of (an OpenClaw sub-agent
    another agent's folder keeps, Warp's orchestrated agents), each read on its own and
    told apart by its id, as `usage` counts it in this session's row: what `show` and
    `export` give, and their token totals, are what `usage session` counts."""
    from dataclasses import replace

    seen: set[str] = set()
    seq = -1
    for event in events:
        if event.agent_id is not None:
            seen.add(event.agent_id)
        if event.seq > seq:  # `max`, without a call an event
            seq = event.seq
        yield event
    source = sources.get(session.app)
    # below the sub-agents its read held too: one the index lists under such a one
    asked = [session.id, *(a for a in seen if a)]
    seen.add(session.id)
    under = _sessions_under(home, session.app)
    with inplace.one_pass():  # the store they share opened once, not once a read
        for level in _listed_levels(under, asked, seen):
            for child in level:  # one a sibling's read held is not read again
                for event in reading.read_session(
                    source, child, diagnostics, full=full
                ):
                    seq += 1
                    if event.agent_id is not None:
                        seen.add(event.agent_id)
                    yield replace(
                        event,
                        session_id=session.id,
                        seq=seq,
                        agent_id=event.agent_id or child.id,
                    )


def listed_apart(
    home: Home,
    session: Session,
    diagnostics: Diagnostics | None = None,
    followed: set[str] | None = None,
) -> list[Session]:
    """The sub-agents the index lists under the session (or under one of its sub-agents,
    those its read holds too, level by level) that no read before holds an event of:
    those `show` reads after it (`_with_listed`), for `follow` to follow beside it. None
    where the index lists none (no read), or the source merges its sub-agents in by time;
    a lead over INSIDE_READ_MOST is not read for them (none), a sub-agent over it is
    followed with no one its read holds left out. Each is read whole: of each level the
    most recently changed up to LISTED_APART_READ_MOST bytes in all, those past it left
    out, counted in `diagnostics`. `followed`: the ids a follow already follows or has
    drawn events of (a later look): the lead and those are not read again, only the
    sub-agents listed since, the bound theirs alone. The index met locked raises
    (sqlite3.Error), at the start as at a later look, for the look to be made again:
    what it had not listed yet (a sub-agent's own below it) was never looked for. So
    does a first look whose read of the lead fails (`LeadUnread`)."""
    import sqlite3

    source = sources.get(session.app)
    if getattr(source, "SUBAGENTS_BY_TIME", False):
        return []
    # an index it cannot open now raises, so that its sub-agents are looked for again
    # (none found here: they were taken as known, never drawn)
    if followed is None and not _lists_subagents(home, session, strict=True):
        return []
    if followed is not None:
        held = followed - {session.id}  # their reads' sub-agents are drawn as read
    else:
        try:
            if _over_read_most(session):
                return []
            held = _held_by(source, session)
        except (OSError, SessdexError) as error:
            # raised, for the look to be made again (it was followed without them,
            # none said, those listed taken as known and never drawn)
            raise LeadUnread(session.path or "", error) from error
    found: list[Session] = []
    left: list[Session] = []
    seen = {session.id, *held}
    room = [LISTED_APART_READ_MOST]
    under = _sessions_under(home, session.app)
    with inplace.one_pass():  # the store they share opened once, not once a read
        for level in _listed_levels(under, [session.id, *held], seen):
            listed = list(level)
            kept = _newest_within(listed, room)
            for child in listed:  # one a sibling's read held is not followed apart
                if child.id in held:
                    continue
                if child.id not in kept:
                    left.append(child)
                    continue
                found.append(child)
                try:
                    if not _over_read_most(child):
                        read = _held_by(source, child)
                        held.update(read)
                        seen.update(read)
                except (OSError, SessdexError, sqlite3.Error):  # held: unknown
                    pass
    if left and diagnostics is not None:
        diagnostics.problem(_left_out(session.app, left, followed is not None))
    return found


class LeadUnread(OSError):
    """The lead's own file could not be read for the sub-agents its read holds, as a
    follow began (`listed_apart`): the look is to be made again. `path` is the file,
    `cause` what the read met."""

    def __init__(self, path: str, cause: Exception) -> None:
        super().__init__(str(cause))
        self.path = path
        self.cause = cause


LISTED_APART_READ_MOST = (
    64 * 1024 * 1024
)  # bytes of sub-agents follow reads at its start


def _newest_within(listed: list[Session], room: list[int]) -> set[str]:
    """The ids of the most recently changed of `listed` whose files fit in `room[0]`
    bytes, taken from it."""
    kept: set[str] = set()
    newest = sorted(listed, key=lambda s: s.updated.timestamp() if s.updated else 0)
    for child in reversed(newest):
        size = _size(child)
        if size <= room[0]:
            room[0] -= size
            kept.add(child.id)
    return kept


def _size(session: Session) -> int:
    """The bytes a whole read of the session takes: its own, or its file's (0 unknown)."""
    if session.bytes is not None:
        return session.bytes
    path = session.path or ""
    try:
        return 0 if not path or "#" in path else os.stat(path).st_size
    except OSError:
        return 0


def _left_out(app: str, left: list[Session], late: bool = False) -> str:
    size = sum(_size(child) for child in left)
    when = "as they are listed while it follows" if late else "at its start"
    return (
        f"{app}: {len(left)} sub-agent{'s' if len(left) != 1 else ''} listed apart left "
        f"out ({size:,} bytes), past the {LISTED_APART_READ_MOST:,} bytes follow reads "
        f"of them {when} (the most recent kept); show gives them, such as {left[0].id}"
    )


def _over_read_most(session: Session) -> bool:
    """Whether the session's file is over INSIDE_READ_MOST (raises OSError)."""
    return os.stat((session.path or "").split("#", 1)[0]).st_size > INSIDE_READ_MOST


def _held_by(source: sources.Source, session: Session) -> set[str]:
    """The ids of the sub-agents the session's own whole read holds an event of."""
    return {
        event.agent_id
        for event in reading.read_session(source, session, Diagnostics())
        if event.agent_id is not None
    }


def _sessions_under(home: Home, app: str) -> Callable[[list[str]], list[Session]]:
    """The sessions of `app` the index lists under some ids: an index a level, closed
    before its sub-agents are read (and yielded)."""

    def under(ids: list[str]) -> list[Session]:
        index = Index(home)
        try:
            return [index.shown(row.session()) for _, row in index.under(app, ids)]
        finally:
            index.close()

    return under


LINE_HOPS = 16  # parents walked up to a sub-agent's lead: a loop (a damaged file) ends
# a lead read again for the sub-agents its file keeps, before `show` or `export` reads it:
# the names it gives are worth a second read of a few MB, not of a 64 MB file's seconds
INSIDE_READ_MOST = 8 * 1024 * 1024
# of a view that reads a lead from its end (`show --tail`, `follow`): one read whole
# for them at most, as `follow` reads a file whole at each change (a 50 MB one took 3 s)
TAIL_INSIDE_MOST = 1024 * 1024


# what a walk's `under` lists: the index's rows, or the sessions made of them
_Listed = TypeVar("_Listed", Session, Row)


def _listed_levels(
    under: Callable[[list[str]], Iterable[_Listed]], asked: list[str], seen: set[str]
) -> Iterator[Iterator[_Listed]]:
    """The sub-agents the index lists under `asked` (`under` lists them), then under
    those, level by level: LINE_HOPS levels at most, so that a loop of parents ends.
    Each level gives, as it is iterated, those not in `seen`, adding each to it: an id
    the caller adds while it handles one (met in its read) is not given after it. The
    next level is listed under those given, once the caller has iterated this one
    (whole), and under each listed one it skipped as held by a read (as under `asked`,
    which may name those the lead's read holds): each id is asked once. An empty level
    is given too, before the walk ends."""
    walked = set(asked)
    for _ in range(LINE_HOPS):
        listed = list(under(asked))
        yield _unseen(listed, seen)
        asked = [one.id for one in listed if one.id not in walked]
        if not asked:
            return
        walked.update(asked)


def _unseen(listed: Iterable[_Listed], seen: set[str]) -> Iterator[_Listed]:
    for one in listed:
        if one.id not in seen:
            seen.add(one.id)
            yield one


def _rows_under(index: Index, app: str) -> Callable[[list[str]], list[Row]]:
    """The index's rows of `app` listed under some ids (no session made of them)."""
    return lambda ids: [row for _, row in index.under(app, ids)]


def sub_agent_ids(
    home: Home,
    session: Session,
    most: int = 10_000,
    from_end: bool = False,
) -> list[str]:
    """The ids of the sub-agents the index lists under `session`, and under theirs
    (`LINE_HOPS` levels, `most` ids), then those its own file keeps (for a view that
    reads it `from_end`, of a file of TAIL_INSIDE_MOST at most): what a view names each
    of its sub-agents apart from before it reads them (`views.text.SiblingIds`), so
    that a first sibling's name holds as much of its id as tells it from a later one's,
    as `show` of it takes it."""
    import sqlite3

    found: list[str] = []
    seen = {session.id}  # the walk's, then `_held_inside`'s
    try:
        index = Index(home)
    except sqlite3.Error:  # names told from fewer ids: no reason to fail a view
        return found
    try:
        under = _rows_under(index, session.app)
        for level in _listed_levels(under, [session.id], seen):
            found += [row.id for row in level]
            if len(found) >= most:
                break
    except sqlite3.Error:
        pass
    finally:
        index.close()
    if len(found) < most:
        size_most = TAIL_INSIDE_MOST if from_end else INSIDE_READ_MOST
        found += _held_inside(session, seen, most - len(found), size_most)
    return found[:most]


def _held_inside(
    session: Session, seen: set[str], most: int, size_most: int
) -> list[str]:
    """The ids of the sub-agents its lead's own file keeps (a source's
    SUBAGENTS_INSIDE), which the index lists as no session: read from the lead, one not
    over `size_most` (names told from fewer ids are no reason to read more)."""
    source = sources.get(session.app)
    if not getattr(source, "SUBAGENTS_INSIDE", False) or session.path is None:
        return []
    try:
        if os.stat(session.path).st_size > size_most:
            return []
    except OSError:  # a store's row (`<db>#<table>/<id>`) or a file gone: not read
        return []
    found: list[str] = []
    try:
        for event in reading.read_session(source, session, Diagnostics()):
            for agent in (_child(event), event.agent_id):
                if agent is not None and agent not in seen:
                    seen.add(agent)
                    found.append(agent)
            if len(found) >= most:
                break
    except (OSError, SessdexError):  # names told from fewer ids, not a failed view
        pass
    return found


def _child(event: Event) -> str | None:
    child = event.extra.get("child_id") if event.kind == "subagent" else None
    return child if isinstance(child, str) else None


def lead_of(home: Home, session: Session) -> str | None:
    """The id of the session at the top of a sub-agent's line (its lead, or its lead's
    lead), found in the index alone (no file read, at most `LINE_HOPS` lookups); the
    last parent known where the index lacks the next; None for a session no one spawned."""
    if not session.parent_id:
        return None
    lead = session.parent_id
    index = Index(home)
    try:
        for _ in range(LINE_HOPS):
            key = (session.app, lead)
            row = index.by_ids([key]).get(key)
            above = row.session().parent_id if row is not None else None
            if not above or above in (lead, session.id):
                break
            lead = above
    finally:
        index.close()
    return lead


def spawner_of(home: Home, session: Session) -> str | None:
    """What a sub-agent's session read on its own calls the sub-agent that started it,
    as the lead's view does (its type, else the start of its id); None where the lead
    started it, or it is no sub-agent."""
    if not session.parent_id:
        return None
    key = (session.app, session.parent_id)
    index = Index(home)
    try:
        row = index.by_ids([key]).get(key)
    finally:
        index.close()
    parent = row.session() if row is not None else None
    if parent is None or not parent.parent_id:
        return None
    return reading.called(parent)


TAIL_CONTEXT = 1000  # events kept before a tail's first: what it is drawn from


def _lists_subagents(home: Home, session: Session, strict: bool = False) -> bool:
    """Whether the index lists a sub-agent under the session (its tail is read whole);
    an index that cannot tell raises where `strict`."""
    import sqlite3

    try:
        index = Index(home)
    except sqlite3.Error:  # the tail's own events still tell
        if strict:
            raise
        return False
    try:
        return bool(index.under(session.app, [session.id]))
    except sqlite3.Error:
        if strict:
            raise
        return False
    finally:
        index.close()


def _spawns_all(home: Home, source: sources.Source, session: Session) -> bool:
    """Whether the source's `spawns_all` finds each sub-agent the index lists under the
    session spawned in the lead's own rows (base.py)."""
    import sqlite3

    hook = getattr(source, "spawns_all", None)
    if hook is None:
        return False
    try:
        index = Index(home)
    except sqlite3.Error:
        return False
    try:
        children = [row.id for _, row in index.under(session.app, [session.id])]
    except sqlite3.Error:
        return False
    finally:
        index.close()
    return bool(children) and bool(hook(session, children))


# a sub-agent's listed time and its events' times may be a clock tick and a rounding apart
LISTED_SLACK_SECONDS = 2.0


def _listed_since(
    home: Home,
    session: Session,
    last: list[Event],
    shown: Callable[[Event], bool] | None,
    count: int,
) -> bool:
    """Whether a sub-agent the index lists under `session` (or under one of its own, to
    LINE_HOPS levels) was written since the first of the lead's last `count` events
    (those `shown` accepts), of an app whose reads merge sub-agents' events in by their
    times: only one written since can have an event among the last `count` of the whole
    read (each of those comes no sooner than that first event), so a session whose
    sub-agents all ended before keeps the tail read from its lead's end (a 200 MB lead's
    `--tail 5`: 1.1 s, not a whole read's 8.5 s). Undated events, or an index that
    cannot be read: True (the whole read tells)."""
    import sqlite3

    ends = [e for e in last if shown is None or shown(e)][-count:] if count else []
    if not ends or any(e.time is None or e.time_estimated for e in ends):
        return True
    first = min(e.time for e in ends if e.time is not None)
    since = first.timestamp() - LISTED_SLACK_SECONDS
    try:
        index = Index(home)
    except sqlite3.Error:
        return True
    try:
        under = _rows_under(index, session.app)
        for level in _listed_levels(under, [session.id], {session.id}):
            below = [row.id for row in level]
            if not below:
                return False
            if index.written_since(below, session.app, since):
                return True
        return True  # deeper than LINE_HOPS: a loop, or more than is worth telling
    except sqlite3.Error:
        return True
    finally:
        index.close()


def _every(event: Event) -> bool:
    return True


def _of_subagents(event: Event) -> bool:
    return event.agent_id is not None or event.kind == "subagent"


def _with_context(
    events: Iterator[Event] | list[Event], keep: Callable[[Event], bool], count: int
) -> tuple[list[Event], int]:
    """The events from `TAIL_CONTEXT` before the first of the last `count` that `keep`
    accepts on, and how many it accepted."""
    from collections import deque

    held: deque[tuple[int, Event]] = deque()
    firsts: deque[int] = deque(maxlen=count)  # where the last `count` kept are
    accepted = 0
    for at, event in enumerate(events):
        if keep(event):
            accepted += 1
            firsts.append(at)
        held.append((at, event))
        if len(firsts) < count:
            continue  # fewer than asked for so far: all are drawn
        reach = firsts[0] - TAIL_CONTEXT if count else at + 1
        while held and held[0][0] < reach:
            held.popleft()
    return [event for _, event in held], accepted


def _tail_events(
    source: sources.Source,
    session: Session,
    diagnostics: Diagnostics,
    count: int,
    full: bool,
    shown: Callable[[Event], bool] | None = None,
    spawner: str | None = None,
    lead_only: bool = False,
) -> tuple[list[Event], bool]:
    """The events that draw the last `count` (of those `shown` accepts; with
    `lead_only`, of the lead's), those before them they are drawn from
    (`_with_context`), and whether the read that found them began past the file's start
    (their `seq` then counts from there: what came before is never read to count it)."""

    def keep(event: Event) -> bool:
        return shown is None or shown(event)

    def ends(events: Iterator[Event] | list[Event]) -> tuple[list[Event], int]:
        if lead_only:  # `--subagents none`: theirs are never drawn
            events = (e for e in events if e.agent_id is None)
        return _with_context(events, keep, count)

    if reading.whole_store(session.path):
        # a database whose source reads a session's last rows: as many as give `count`
        # events, as the byte window below widens
        rows, settle = max(count, _TAIL_ROWS), False
        while True:
            met = Diagnostics()  # what this window met: a wider one reads it again
            settles: list[bool] = []
            # every event of those rows (no more than they hold): the context too
            unsure: set[int] = set()
            read = reading.last_events(
                source, session, met, rows, _every, sys.maxsize, full=full,
                spawner=spawner, unsure=unsure, settle=settle, settles=settles,
            )  # fmt: skip
            if read is None:
                break
            last, accepted = ends(read)
            if any(e.seq in unsure for e in _last(last, keep, count)):
                accepted = 0  # one earlier rows may change: more rows settle it
            elif accepted >= count:
                diagnostics.update(met)
                return last, True
            # a note among them unsure (none given): the same rows, and those from
            # where its fold starts, or whole where that is most of the session (x4
            # alone read a compaction that folds from the session's start thrice
            # before the whole read), where settling reads more than them; then x4,
            # each as many more
            if accepted or settle or False in settles:
                rows *= 4
            settle = True
        # else, or a JSON document, which has no end to read back from: read once, whole,
        # with the checks that keep one committed state
        whole = reading.read_session(
            source, session, diagnostics, full=full, spawner=spawner
        )
        return ends(whole)[0], False
    size = 0
    if (
        session.path
        and os.path.isfile(session.path)
        and not session.path.endswith(".zst")
    ):
        size = os.path.getsize(session.path)
    window = _TAIL_WINDOW
    while True:
        # from a line's start: the piece of a line the window cuts is no unreadable line
        offset = 0
        if session.path and size > window:
            offset = line_start(session.path, size - window)
        # what this attempt met: a wider one reads it all again
        seen = Diagnostics()
        kept, accepted = ends(
            reading.guarded(
                source.read(session, seen, full=full, offset=offset),
                seen,
                session,
                spawner,
            )
        )
        if accepted >= count or offset == 0:
            diagnostics.update(wide_read(seen))  # a UTF-16 file: that, once
            return kept, offset > 0
        window *= 4


def agent_tree(
    home: Home,
    prefix: str,
    diagnostics: Diagnostics | None = None,
    *,
    progress: Progress | None = None,
    reading: Callable[[Iterable[Event]], Iterable[Event]] | None = None,
) -> tuple[Session, AgentNode]:
    """The session's sub-agent tree: per node type, description, status, tokens, tool
    calls. What could not be read on the way is added to `diagnostics`. `progress`
    follows the index's refresh; `reading`, given the events as they are read, passes
    them on (the CLI counts them: a big session is read whole here)."""
    from .tree import build_tree, settle

    # the sub-agents its events leave out are placed below, marked so (`_add_listed`)
    found = transcript(home, prefix, progress=progress, listed=False)
    events = found.events if reading is None else reading(found.events)
    root = build_tree(found.session.id, events, found.session.agent_type)
    settle(root, _last_active(found.session, root), datetime.now(UTC))
    if diagnostics is not None:
        diagnostics.update(found.diagnostics)
    unsure = root.agent_type == "lead" or root.status != "done"
    if found.session.parent_id and (unsure or root.description is None):
        # what its own file cannot say (its type, its end, the task its lead gave it, which
        # only the spawn carries): read the lead's line (only then: it may be big)
        seen = _as_its_lead_sees_it(home, found.session)
        if seen is not None and unsure:
            root = seen
        elif seen is not None:
            root.description = seen.description
            root.agent_name = root.agent_name or seen.agent_name
    if found.session.parent_id and root.agent_type == "lead":
        root.agent_type = None  # no file says its type (its lead's is gone): no lead
    _add_listed(home, found.session.app, root, diagnostics)
    for _, node in root.walk():
        node.app = found.session.app
    from .views.records import session_record

    record = session_record(found.session)  # as list's is: the title cut, times iso
    title, created, updated = record["title"], record["created"], record["updated"]
    root.title = title if isinstance(title, str) else None
    root.created = created if isinstance(created, str) else None
    root.updated = updated if isinstance(updated, str) else None
    return found.session, root


def _add_listed(
    home: Home, app: str, root: AgentNode, diagnostics: Diagnostics | None
) -> None:
    """The sub-agents the index lists under this tree's agents that its events did not
    place (a spawn on a rewound branch), each read from its own transcript (its status,
    counts and sub-agents; bare where that cannot be read): `tree` shows what
    `list --all` does.

    Read from their index rows as `transcript` of each id would read them (the index
    brought up to date once, not once a sub-agent: a lead's thousands of sub-agents in
    a database cost a read each, not a refresh each); an id `resolve` would not give as
    it is goes through `transcript`, as before."""
    from .errors import SessdexError
    from .index import Row
    from .tree import AgentNode, add_unplaced, build_tree, settle

    source = sources.get(app)
    spawners: dict[str, str | None] = {}  # parent id -> what its sub-agents call it
    refreshed = False  # every app's files looked at again, once (as `resolve` does)

    def spawner(session: Session) -> str | None:
        """`spawner_of`, its parent looked up once for all its sub-agents."""
        if not session.parent_id:
            return None
        if session.parent_id not in spawners:
            key = (app, session.parent_id)
            row = index.by_ids([key]).get(key)
            parent = row.session() if row is not None else None
            spawners[session.parent_id] = (
                reading.called(parent) if parent and parent.parent_id else None
            )
        return spawners[session.parent_id]

    def fresh(ids: list[str], placed: Container[str]) -> list[tuple[str, Row]]:
        """The rows under `ids` not placed yet, each one's file brought up to date as
        `resolve` brings it (where it is no file the index knows: every app's, once)."""
        nonlocal refreshed
        rows = [
            (p, r) for p, r in index.under(app, ids, state=True) if r.id not in placed
        ]
        if not rows:
            return rows
        again = False
        for _, row in rows:
            if not index.refresh_file(source, row.session().path):
                again = True
        if again and not refreshed:
            refreshed = True
            index.refresh_changed(sources.BUILTIN)
        return [
            (p, r) for p, r in index.under(app, ids, state=True) if r.id not in placed
        ]

    def listed(
        ids: list[str], placed: Container[str]
    ) -> Iterator[tuple[str, AgentNode]]:
        rows = fresh(ids, placed)
        direct = as_given(index, app, [row.id for _, row in rows])
        for parent_id, row in rows:
            if row.id in placed:
                continue
            child = Row(row.app, row.id, row.record, None).session()  # as listed
            try:
                if row.id in direct:
                    session = index.shown(row.session())
                    found = Diagnostics()
                    events = reading.read_session(
                        source, session, found, spawner=spawner(session)
                    )
                else:  # an id `resolve` gives another row for, or none
                    shown = transcript(home, f"{app}:{child.id}", listed=False)
                    session, found, events = (
                        shown.session,
                        shown.diagnostics,
                        shown.events,
                    )
                node = build_tree(child.id, events, child.agent_type)
                settle(node, _last_active(session, node), datetime.now(UTC))
                if diagnostics is not None:
                    diagnostics.update(found)
            except SessdexError:
                node = AgentNode(child.id, status="stopped")
                node.started, node.ended = child.created, child.updated
            node.agent_type = child.agent_type
            node.description = child.title
            yield parent_id, node

    index = Index(home)
    try:
        # each read looks at its siblings for its own sub-agents, and opens the store
        # they share: once, not once a read
        with folders.one_pass(), inplace.one_pass():
            add_unplaced(root, listed)
        _described_by_titles(index, app, root)
    finally:
        index.close()


def _described_by_titles(index: Index, app: str, root: AgentNode) -> None:
    """A sub-agent no spawning call describes (a sidechain file its lead's events announce
    without a call) is told by its own session's title, as `list --all` and `usage` name
    it: its line said "agent [done]" alone, such sub-agents not told apart."""
    bare = [node for depth, node in root.walk() if depth and not node.description]
    if not bare:
        return
    rows = index.by_ids((app, node.id) for node in bare)
    for node in bare:
        row = rows.get((app, node.id))
        if row is not None:
            node.description = row.session().title


def _as_its_lead_sees_it(home: Home, session: Session) -> AgentNode | None:
    """A sub-agent's node in the tree of the session at the top of its line: its type
    (its own file may not say it) and its status (its lead's call answered: done,
    where its own file ends on a tool result); None where the lead is not found."""
    from .tree import build_tree, settle

    top = session
    index = Index(home)
    try:
        for _ in range(16):  # a loop of parents (a damaged file) ends somewhere
            if not top.parent_id:
                break
            key = (top.app, top.parent_id)
            row = index.by_ids([key]).get(key)
            if row is None:
                return None
            top = row.session()
    finally:
        index.close()
    if top.parent_id:
        return None
    events = reading.read_session(sources.get(top.app), top, Diagnostics())
    lead = build_tree(top.id, events, top.agent_type)
    settle(lead, _last_active(top, lead), datetime.now(UTC))
    return next((node for _, node in lead.walk() if node.id == session.id), None)


def _last_active(session: Session, root: AgentNode) -> datetime | None:
    """When the session was last active, as `watch` judges it (`status.last_recorded`):
    its newest dated record (its agents' events', then the listing's `updated`), its
    files' modification time only where none is dated (a copied home's are all now)."""
    from .status import last_recorded, listed_last_write

    dated = [t.timestamp() for _, node in root.walk() if (t := node.ended) is not None]
    listed = session.updated.timestamp() if session.updated is not None else None
    if listed is not None and (
        dated or listed_last_write(session.created, session.updated)
    ):
        dated.append(listed)
    recorded = max(dated, default=0.0)
    # with no record dated, the listing's time may be a header's (the 2025 Codex
    # rollout's start), not when the session last wrote: its own file's time says that,
    # the listing's only for a row of a shared store or where it is later than the
    # session's start (`listed_last_write`)
    when = last_recorded(recorded, lambda: _last_written(session.path) or listed)
    return datetime.fromtimestamp(when, UTC) if when is not None else None


def _last_written(path: str | None) -> float | None:
    """When the session's own file (or database, with its write-ahead log) last changed
    (epoch seconds); None for a row of a store many sessions share, whose changes may be
    any session's."""
    if not path or not os.path.exists(path):
        return None
    newest = None
    for candidate in (path, path + "-wal"):
        try:
            mtime = os.stat(candidate).st_mtime
        except (OSError, ValueError):
            continue
        newest = mtime if newest is None else max(newest, mtime)
    return newest
