"""The library: one function per user action. The command line wraps these.

Functions take a `Home` (whose sessions) and return values or records; they raise
`SessdexError` children (`sessdex.errors`) with messages meant for people. The names in
`__all__` are the library's surface; the others serve the CLI and may change. Nothing
here names an app.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import selection, sources
from .calls import Folders as Folders
from .calls import (
    app_names,
    folder_texts,
    known_apps,
    new_view,
    parse_since,
    refuse_empty_span,
    refuse_unknown,
    refuse_unless,
    since_bound,
    storable,
    storable_folders,
    until_bound,
)
from .calls import open_index as open_index
from .diagnostics import Diagnostics, place
from .errors import BadValue
from .index import Index, Progress, RefreshReport, Row, once_more_if_damaged
from .model import Event, Session
from .resolving import SUBAGENT_SEARCH_BYTES as SUBAGENT_SEARCH_BYTES
from .resolving import SUBAGENT_SEARCH_SESSIONS as SUBAGENT_SEARCH_SESSIONS
from .resolving import id_left_out as id_left_out
from .resolving import resolve
from .selection import parse_query
from .sources import Home
from .transcripts import LINE_HOPS as LINE_HOPS
from .transcripts import (
    SUBAGENT_MODES,
    LeadUnread,
    Transcript,
    agent_tree,
    listed_apart,
    spawner_of,
    transcript,
)
from .transcripts import lead_of as lead_of
from .transcripts import sub_agent_ids as sub_agent_ids

if TYPE_CHECKING:
    from . import usage
    from .checkup import AppReport, OwnFiles, doctor, own_files
    from .checkup import app_found as app_found
    from .checkup import damaged_summary as damaged_summary
    from .checkup import home_above as home_above
    from .checkup import home_below as home_below
    from .checkup import home_elsewhere as home_elsewhere
    from .checkup import refused_summaries as refused_summaries
    from .checkup import skipped_summary as skipped_summary
    from .checkup import undated_summary as undated_summary
    from .checkup import version_key as version_key
    from .checkup import version_order as version_order
    from .exports import refuse_agent_folder as refuse_agent_folder
    from .live import BoardRow
    from .resuming import ResumeCheck, check_resume
    from .resuming import branch_check as branch_check
    from .resuming import current_branch as current_branch
    from .resuming import live_processes as live_processes
    from .resuming import refused_record as refused_record
    from .resuming import resume_command as resume_command

__all__ = [
    "SUBAGENT_MODES",
    "AppReport",
    "Home",
    "Listing",
    "OwnFiles",
    "ResumeCheck",
    "Transcript",
    "agent_tree",
    "check_resume",
    "demo_home",
    "doctor",
    "find_sessions",
    "follow_session",
    "list_sessions",
    "own_files",
    "parse_since",
    "replay_session",
    "resolve",
    "session_ids",
    "transcript",
    "usage_report",
    "watch_sessions",
]

# doctor's, resume's and export's parts, loaded where one is asked for: `show` and a
# full `list` call none of them, and each run paid their imports (some ms)
_LOADED_LATER = {
    **dict.fromkeys(
        (
            "AppReport",
            "OwnFiles",
            "doctor",
            "own_files",
            "app_found",
            "damaged_summary",
            "home_above",
            "home_below",
            "home_elsewhere",
            "refused_summaries",
            "skipped_summary",
            "undated_summary",
            "version_key",
            "version_order",
        ),
        "checkup",
    ),
    "refuse_agent_folder": "exports",
    **dict.fromkeys(
        (
            "ResumeCheck",
            "check_resume",
            "branch_check",
            "current_branch",
            "live_processes",
            "refused_record",
            "resume_command",
        ),
        "resuming",
    ),
}


# hidden from type checkers: a module `__getattr__` is to them every name there may
# be (a misspelt one passed); they take the names from the imports above
if not TYPE_CHECKING:

    def __getattr__(name: str) -> object:
        module = _LOADED_LATER.get(name)
        if module is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        import importlib

        value = getattr(importlib.import_module(f".{module}", __package__), name)
        globals()[name] = value  # asked once: later lookups find it as any other name
        return value

    def __dir__() -> list[str]:
        """The module's names with those not loaded yet: a REPL completes from `dir`."""
        return sorted({*globals(), *_LOADED_LATER})


@dataclass(slots=True)
class Listing:
    """What `list_sessions` and `find_sessions` found: `sessions()` gives them as values,
    `rows` as the index holds them (each row's `record` is its `list --json` object, as
    JSON bytes: `orjson.loads(row.record)`)."""

    rows: list[Row]
    report: RefreshReport
    ids: list[str] = field(default_factory=list)  # every id in the index (Index.ids)
    # (app, path, line, reason) the index noted for the apps listed, when asked for; a
    # line at or past diagnostics.AT_BYTE names a byte: `skipped_places()` says which
    skipped: list[tuple[str, str, int, str]] = field(default_factory=list)
    # when nothing was found and sub-agents were left out: how many of them match
    hidden: int = 0
    # when nothing was found: the apps read hold no session at all, whatever the filters
    empty: bool = False
    # (app, path, bytes) of the files the index noted ending in an unfinished line (a line
    # the app may still be writing), asked for with `skipped`
    unfinished: list[tuple[str, str, int]] = field(default_factory=list)
    # when `find` found nothing: how many sessions its words match without since= and
    # here=, which the hint names
    wider: int = 0
    # when `find` found nothing: its words, each that is in no session swapped for the
    # closest word of a title, folder, branch or app (`selection.did_you_mean`); empty
    # where none is close
    instead: list[str] = field(default_factory=list)
    # when `list` found nothing `here`: the nearest folder above it holding sessions,
    # and how many (`selection.folder_above`)
    above: tuple[str, int] | None = None

    def skipped_places(self) -> list[dict[str, object]]:
        """`skipped` as `doctor --json` gives it: {app, file, line, reason}, or {app, file,
        byte, reason} for a line met by a read from past its file's start."""
        return [
            {"app": app} | place(path, line, why)
            for app, path, line, why in self.skipped
        ]

    def sessions(self) -> list[Session]:
        """The sessions found, as `Session` values, in the listing's order."""
        return [row.session() for row in self.rows]


@once_more_if_damaged
def list_sessions(
    home: Home,
    *,
    apps: Sequence[str] = (),
    since: datetime | date | str | None = None,
    until: datetime | date | str | None = None,
    here: Folders = None,
    limit: int | None = None,
    include_subagents: bool = False,
    progress: Progress | None = None,
    with_state: bool = False,
    with_skipped: bool = False,
) -> Listing:
    """Every session, newest first (top-level only unless `include_subagents`: then each
    sub-agent comes right after its lead, those of one lead in the order they started,
    and `limit` takes the first rows of that order).

    `with_state` keeps each session's `extra` (what a reader needs); listing needs only
    records. `with_skipped` adds what the index noted it could not read (`--verbose`).
    `since` is a datetime, a date, or text as `parse_since` reads it ('3d',
    '2026-11-01'); a time given without a zone, in any of the three, is UTC.
    `until`: only sessions updated before it, read as `since` is, but a day (a date,
    '2026-11-30', 'yesterday') up to its end, as `list --until` reads it.
    `here`: only sessions whose recorded folder is this one or below it (text or a
    path; a list: any of them).
    Raises UnknownApp for an app in `apps` that sessdex does not read, BadValue for a
    `since` or `until` it cannot read (or a `since` not before `until`) or a negative
    `limit`, IndexBusy.
    """
    apps = app_names(apps)
    refuse_unless("limit", limit, 0)
    since, until = _bounds(since, until)
    # what an app's scan passed over (--verbose names it) is kept with the noted scan:
    # an app left as it was says it again, unscanned
    index, report = open_index(home, apps, progress)
    try:
        matching: dict[str, Any] = {
            "apps": apps,
            "since": since,
            "until": until,
            "under": storable_folders(here),
        }
        rows = index.rows(
            **matching,
            include_subagents=include_subagents,
            limit=limit,
            with_state=with_state,
            grouped=include_subagents,
        )
        hidden = _hidden(index, rows, include_subagents, limit, matching)
        rows = index.shown_rows(rows)
        empty = not rows and _holds_none(index, apps)
        above = None
        if here is not None and not (rows or hidden or empty or limit == 0):
            above = selection.folder_above(
                selection.folders_of(matching["under"]),
                lambda folders: index.count(
                    apps=apps,
                    under=folders,
                    include_subagents=include_subagents,
                    since=since,
                    until=until,
                ),
            )
        ids = index.ids()
        skipped = index.skipped_details(apps) if with_skipped else []
        unfinished = index.unfinished_lines(apps) if with_skipped else []
    finally:
        index.close()
    return Listing(rows, report, ids, skipped, hidden, empty, unfinished, above=above)


def _bounds(
    since: datetime | date | str | None, until: datetime | date | str | None
) -> tuple[datetime | None, datetime | None]:
    """`since=` and `until=` as the index takes them; BadValue where no time is both.
    Both spans back (`3d`) from one reading of the clock: `--since 3d --until 3d` is one
    moment, not the microseconds between two readings."""
    now = datetime.now(UTC)
    low, high = since_bound(since, now), until_bound(until, now)
    refuse_empty_span(low, high, (since, until))
    return low, high


def _hidden(
    index: Index,
    rows: list[Row],
    include_subagents: bool,
    limit: int | None,
    matching: dict[str, Any],
) -> int:
    """The sub-agents a listing that found nothing left out, which `--all` would show:
    counted in the same index, not by listing again."""
    if rows or include_subagents or limit == 0:
        return 0
    return len(index.rows(**matching, include_subagents=True))


def _holds_none(index: Index, apps: Sequence[str]) -> bool:
    """Whether the index holds no session (sub-agents too) of `apps` (() for all): an
    empty listing's filters are then not what emptied it."""
    return not index.rows(apps=apps, include_subagents=True, limit=1)


@once_more_if_damaged
def find_sessions(
    home: Home,
    text: str,
    *,
    apps: Sequence[str] = (),
    since: datetime | date | str | None = None,
    until: datetime | date | str | None = None,
    here: Folders = None,
    near: Folders = None,
    limit: int | None = None,
    include_subagents: bool = False,
    progress: Progress | None = None,
    with_skipped: bool = False,
) -> Listing:
    """Sessions matching every word (case-insensitive) in title, folder, branch, app or id
    (`since`, `until`, `with_skipped` as `list_sessions` takes them), newest first, but a
    session whose id starts with the only word first, then those whose folder is `near`
    or below it (`sessdex find` gives the folder it runs in). Raises UnknownApp,
    BadValue, IndexBusy."""
    apps = app_names(apps)
    refuse_unless("limit", limit, 0)
    since, until = _bounds(since, until)
    query = parse_query(storable(text), str(home.path))
    selected = selection.selected_apps(apps, query)
    if selected is None:  # `--app` and `app:` words that exclude each other
        return Listing([], RefreshReport())
    index, report = open_index(home, selected, progress)
    prefix = query.id_prefix
    try:
        matching: dict[str, Any] = {
            "apps": selected,
            "since": since,
            "until": until,
            "under": storable_folders(here),
            "words": query.words,
            "scoped": query.scoped,
        }
        rows = index.rows(
            **matching,
            include_subagents=include_subagents,
            limit=limit,
            first_prefix=prefix,
            first_under=storable_folders(near),
            grouped=include_subagents,
        )
        hidden = _hidden(index, rows, include_subagents, limit, matching)
        rows = index.shown_rows(rows)
        wider = 0
        if not rows and limit != 0 and (since, until, here) != (None, None, None):
            wider = index.count(  # what the words match at any time, in any folder
                apps=selected,
                words=query.words,
                scoped=query.scoped,
                include_subagents=include_subagents,
            )
        empty = not rows and _holds_none(index, selected)
        instead = None
        if not rows and limit != 0 and not hidden and not wider and not empty:
            instead = selection.did_you_mean(
                query, index.searches(selected, include_subagents)
            )
        ids = index.ids()
        skipped = index.skipped_details(selected) if with_skipped else []
        unfinished = index.unfinished_lines(selected) if with_skipped else []
    finally:
        index.close()
    return Listing(
        rows, report, ids, skipped, hidden, empty, unfinished, wider, instead or []
    )


def demo_home() -> Home:
    """The small demo home shipped inside the package."""
    return Home.at(Path(__file__).parent / "demo" / "home")


# --- live sessions ----------------------------------------------------------------------------


def follow_session(
    home: Home,
    prefix: str,
    *,
    duration: float | None = None,
    notify: bool | None = None,
    progress: Progress | None = None,
    stop: Callable[[], bool] | None = None,
    diagnostics: Diagnostics | None = None,
    history: int | None = None,
    shown: Callable[[Event], bool] | None = None,
) -> tuple[Session, Iterator[list[Event]]]:
    """The session, and batches of its events as they are written (recent history first),
    until `duration` seconds passed or `stop()`, asked as it waits, says so. The lines
    its reads could not use are counted in `diagnostics` once the batches end
    (`diagnostics.places()` names them as `doctor --json` does: a read from past a
    file's start gives the byte a line starts at, not its number). `history`: how many events of the recent history are used (of those `shown`
    accepts), where the caller keeps only those: a database's or a JSON document's
    session is then first read from its end, as `show --tail` reads it."""
    from . import live

    refuse_unless("duration", duration, 0)
    session = resolve(home, prefix, progress=progress)
    # no look comes after the first where the follow ends before the next is due
    again = duration is None or duration >= live.RELIST_EVERY
    listed, relist = _listed_since(home, session, diagnostics, again)
    batches = live.follow(
        session,
        duration=duration,
        notify=notify,
        stop=stop,
        diagnostics=diagnostics,
        spawner=spawner_of(home, session),
        history=None if history is None else live.History(history, shown),
        listed=listed,
        relist=relist,
    )
    return session, batches


def _listed_since(
    home: Home,
    session: Session,
    diagnostics: Diagnostics | None = None,
    again: bool = True,
) -> tuple[list[Session], Callable[[set[str]], list[Session]] | None]:
    """The sub-agents listed apart under the session now (`listed_apart`), and what
    gives those listed under it (at any depth) since the last look, given the ids
    followed or drawn: its app's index refreshed where its files changed, and the new
    ones read (`listed_apart`, those past its bound counted in `diagnostics`) only
    where the index lists an id under it that it did not list before, not at each
    look; the lead and those followed are not read again. None and no look for an app
    whose sub-agents come with the lead's read (`SUBAGENTS_BY_TIME`): `listed_apart`
    gives none of them, and each look refreshed the index as the lead grew, for
    nothing. A look the index does not let be made (locked, damaged, not
    readable), the first one included, is made again at the next, the follow going
    on, and said once in `diagnostics`: the sub-agents a first look that failed did not
    find, listed as it began (a sub-agent's own below it among them), come then, as
    `live.Began` (their history's last events drawn, as the start's are). A first look
    that could not read the lead's file (`LeadUnread`: gone, most often for good) is
    made again STORE_SECONDS later, twice as long each time up to RETRY_MOST, as a
    store's failed read is. `again`: whether the follow looks again at all (what is
    said of a look that failed says so only then)."""
    import sqlite3
    import time

    from .errors import SessdexError
    from .live import Began
    from .live_feeds import RETRY_MOST, STORE_SECONDS

    if getattr(sources.get(session.app), "SUBAGENTS_BY_TIME", False):
        return [], None
    failed = (SessdexError, OSError, sqlite3.Error)
    # said once each: a look the index kept from, a read of the lead's file that failed
    said: set[bool] = set()
    known: set[str] | None = None  # the ids listed as the follow started
    # the lead's file unread: when the first look is made again, and the wait before it
    later = [float("-inf"), 0.0]

    def unable(error: Exception) -> None:
        kind = isinstance(error, LeadUnread)
        if kind not in said and diagnostics is not None:
            diagnostics.problem(_could_not_look(session.app, error, again))
        said.add(kind)
        if kind:  # not each look: a file gone stays gone
            later[1] = min(RETRY_MOST, later[1] * 2 or STORE_SECONDS)
            later[0] = time.monotonic() + later[1]

    def start() -> list[Session]:
        """The first look: the ids listed, then those followed apart of them."""
        nonlocal known
        index = Index(home)  # as the follow's start refreshed it
        try:
            below = _ids_below(index, session)
        finally:
            index.close()
        listed = listed_apart(home, session, diagnostics)
        known = below
        return listed

    listed: list[Session] = []
    try:
        listed = start()
    except failed as error:  # made at the next look, the index as the start left it
        unable(error)

    def since(followed: set[str]) -> list[Session]:
        # the index held by another program (`database is locked`: SQLite's own error,
        # no SessdexError), a file gone: looked for again at the next turn, the follow
        # going on (it ended with a traceback)
        if known is None and time.monotonic() < later[0]:
            return []
        try:
            if known is None:  # those it finds followed from the next look, their
                return Began(start())  # history drawn as the start would have
            return _listed_new(followed, known)
        except failed as error:
            unable(error)
            return []

    def _listed_new(followed: set[str], known: set[str]) -> list[Session]:
        index, _ = open_index(home, [session.app])
        try:
            below = _ids_below(index, session)
        finally:
            index.close()
        if below <= known:
            return []
        # those listed before (followed, held, or left out and said) are not read again
        before = known | followed
        listed = listed_apart(home, session, diagnostics, before)
        known.update(below)  # once read: one whose read failed is looked for again
        return listed

    return listed, since


def _could_not_look(app: str, error: Exception, again: bool = True) -> str:
    """What follow says, once, of a look for sub-agents the index kept it from; how it
    looks again where it does (`again`)."""
    from .diagnostics import why
    from .errors import SessdexError
    from .live import RELIST_EVERY
    from .live_feeds import RETRY_MOST, STORE_SECONDS

    if isinstance(error, LeadUnread):
        cause = error.cause
        reason = (
            str(cause) if isinstance(cause, SessdexError) else why(cause, error.path)
        )
        then = (
            f"; it read it again {STORE_SECONDS:g} s later, then twice as long each "
            f"time, up to every {RETRY_MOST:g} s"
        )
        return (
            f"{app}: follow could not read the session's own file {error.path} for the "
            f"sub-agents listed apart under it ({reason}){then if again else ''}"
        )
    reason = str(error) if isinstance(error, SessdexError) else why(error)
    then = f"; it looked again every {RELIST_EVERY:g} s"
    return (
        f"{app}: follow could not look in sessdex's index for the sub-agents listed "
        f"apart under the session ({reason}){then if again else ''}"
    )


def _ids_below(index: Index, session: Session) -> set[str]:
    """The ids the index lists under the session, level by level, the session's too."""
    found, level = {session.id}, [session.id]
    while level:
        level = [
            row.session().id
            for _, row in index.under(session.app, level)
            if row.session().id not in found
        ]
        found.update(level)
    return found


def read_problems(session: Session) -> Diagnostics:
    """What reading `session`'s events whole meets (lines skipped, damage), the events
    themselves dropped as read: what `resume --verbose` says, as `show --verbose` would."""
    from .reading import read_session

    diagnostics = Diagnostics()
    for _ in read_session(sources.get(session.app), session, diagnostics):
        pass
    return diagnostics


@once_more_if_damaged
def session_ids(home: Home) -> list[str]:
    """Every session id the index holds, sub-agents too, lowercased and sorted: what
    a printed prefix must tell apart (`views.text.short_id_width`). The index is not
    refreshed: the ids as the last call that read the apps' files left them (none
    before any; `list_sessions(...).ids` gives them fresh)."""
    index = Index(home)
    try:
        return index.ids()
    finally:
        index.close()


def newest_change(
    home: Home,
    apps: Sequence[str] = (),
    here: Folders = None,
    include_subagents: bool = False,
) -> datetime | None:
    """When the newest session of `apps` (or of any app; whose folder is `here` or
    below it, where given; sub-agents too with `include_subagents`, as `--all` lists
    them) last changed, as the index last left it (not refreshed: one indexed query);
    None where it holds none with a time."""
    index = Index(home)
    try:
        folders = storable_folders(here)
        newest = index.newest(app_names(apps), folders, include_subagents)
    finally:
        index.close()
    return None if newest is None else datetime.fromtimestamp(newest, UTC)


def watch_sessions(
    home: Home,
    *,
    apps: Sequence[str] = (),
    since: datetime | date | str | None = None,
    limit: int | None = None,
    here: Folders = None,
    duration: float | None = None,
    notify: bool | None = None,
    progress: Progress | None = None,
    stop: Callable[[], bool] | None = None,
    diagnostics: Diagnostics | None = None,
) -> Iterator[list[BoardRow]]:
    """The status of every recent session (whose folder is `here` or below it, where
    given), again whenever one changes, until `duration`
    seconds passed or `stop()` says so; in the user's own home, a row too for each CLI
    running with no session yet (`BoardRow.pid`). `progress` follows the first listing (the one
    that may index every session first). A `since` given as text ('1d') moves with the
    clock: a board left running drops a session once it is older than that; 'now' is the
    moment the board starts (it shows the sessions written since). The lines
    the sessions' reads could not use are counted in `diagnostics` once the boards end
    (`diagnostics.places()` names them as `doctor --json` does)."""
    from . import live
    from .resuming import ids_starting

    apps = app_names(apps)
    known_apps(apps)  # an unknown app fails now, not inside the loop
    refuse_unless("limit", limit, 0)
    refuse_unless("duration", duration, 0)
    if isinstance(since, str) and selection.is_now(since):
        # the moment the board starts: read again at each listing, it let none in
        since = datetime.now(UTC)
    first = [progress]
    # what the board follows, as the last listing gave it, each in its place there
    last: list[tuple[_Place, Session]] = []

    def recent() -> list[Session]:
        cutoff = since_bound(since)
        listing = list_sessions(
            home, apps=apps, since=cutoff, here=here, limit=limit, with_state=True,
            progress=first.pop() if first else None,
        )  # fmt: skip
        last[:] = _placed(listing.sessions())
        return [session for _, session in last]

    def recent_of(some: set[str]) -> list[Session]:
        listing = list_sessions(
            home, apps=sorted(some), since=since_bound(since), here=here,
            limit=limit, with_state=True,
        )  # fmt: skip
        merged = _relisted(last, _placed(listing.sessions()), some, limit)
        if merged is None:
            return recent()
        last[:] = merged
        return [session for _, session in merged]

    def roots() -> set[Path]:
        """Where a new session's file appears: the folders the apps' scans list (a
        new project's folder, a new day's), watched so that it is seen at once."""
        index = Index(home)
        try:
            return {Path(path) for path in index.listed_folders(apps)}
        finally:
            index.close()

    def window() -> float | None:
        cutoff = since_bound(since)
        return cutoff.timestamp() if cutoff is not None else None

    # a CLI running with no session yet writes into this machine's own home: not into
    # another one `--home` reads
    own = home.path.resolve() == Path.home().resolve()
    boards = live.watch(
        recent,
        duration=duration,
        notify=notify,
        roots=roots,
        stop=stop,
        diagnostics=diagnostics,
        clis=sources.all_sources(apps) if own else (),
        since=window,
        sharing=lambda app, start: ids_starting(home, app, start),
        list_apps=recent_of,
    )
    if here is None:
        return boards
    from . import pathnames

    # a CLI with no session yet, kept where it runs in the folder, as a session is
    folders = selection.folders_of(storable_folders(here) or ())
    return (
        [
            row
            for row in rows
            if row.pid is None
            or any(pathnames.under(row.session.cwd or "", f) for f in folders)
        ]
        for rows in boards
    )


_Place = tuple[bool, float, str, str]  # where a session comes in a listing


def _relisted(
    last: Sequence[tuple[_Place, Session]],
    fresh: Sequence[tuple[_Place, Session]],
    apps: set[str],
    limit: int | None,
) -> list[tuple[_Place, Session]] | None:
    """The sessions a listing of every app would give, from the last one (`last`) with
    the sessions of `apps` listed anew (`fresh`, as many as `limit`): newest first, as
    the index orders them. None where the last listing was cut at `limit` and the new
    last place may be a session it left out: every app must be listed again."""
    # both in order already, their places known: merged, not sorted (a board of 1000)
    others = (placed for placed in last if placed[1].app not in apps)
    merged = list(heapq.merge(fresh, others, key=lambda placed: placed[0]))
    if limit is None or not limit or len(last) < limit:  # none was left out
        return merged[:limit]
    # each session it left out comes after its last one: so does the new last place
    if len(merged) < limit or merged[limit - 1][0] > last[-1][0]:
        return None
    return merged[:limit]


def _placed(sessions: Sequence[Session]) -> list[tuple[_Place, Session]]:
    """Each session with its place in a listing: the index's order (`updated DESC, app,
    id`, a session with no time last), by the time it keeps."""
    from .indexrows import order_time

    placed = []
    for session in sessions:
        moment = order_time(session.updated or session.created)
        place = (moment is None, -(moment or 0.0), session.app, session.id)
        placed.append((place, session))
    return placed


LONGEST_SLEEP = 86400.0  # one day: far below any limit of time.sleep


def replay_session(
    home: Home,
    prefix: str,
    *,
    speed: float = 10.0,
    max_gap: float = 2.0,
    duration: float | None = None,
    before_pause: Callable[[], None] | None = None,
    progress: Progress | None = None,
) -> Transcript:
    """The session's events (sub-agents interleaved) paced like the original, sped up;
    with `duration`, only those due within that many seconds (a pause is cut short).
    `before_pause` runs before each pause (to flush what was shown so far)."""
    import time

    from . import live

    refuse_unless("speed", speed, 0, above=True)
    refuse_unless("max_gap", max_gap, 0)
    refuse_unless("duration", duration, 0)
    found = transcript(home, prefix, progress=progress)
    deadline = None if duration is None else time.monotonic() + duration

    def sleep(seconds: float) -> None:
        if before_pause is not None:
            before_pause()
        if deadline is not None:
            seconds = max(0.0, min(seconds, deadline - time.monotonic()))
        # a pause of centuries (a bogus date, a slow --speed, --max-gap inf) is waited in
        # steps: time.sleep refuses one past ~292 years, or its deadline, with an error
        while seconds > LONGEST_SLEEP:
            time.sleep(LONGEST_SLEEP)
            seconds -= LONGEST_SLEEP
        time.sleep(seconds)

    paced = live.replay(found.events, speed=speed, max_gap=max_gap, sleep=sleep)
    if deadline is not None:
        until = deadline  # (a name mypy sees as a float in the lambda)
        paced = itertools.takewhile(lambda _: time.monotonic() < until, paced)
    found.events = paced
    return found


# --- usage --------------------------------------------------------------------------------


@once_more_if_damaged
def usage_report(
    home: Home,
    kind: str = "daily",
    *,
    apps: Sequence[str] = (),
    since: str | date | None = None,
    until: str | date | None = None,
    here: Folders = None,
    tz: str | None = None,
    explain: str | None = None,
    explain_limit: int | None = None,
    limit: int | None = None,
    progress: Progress | None = None,
) -> usage.Result:
    """Tokens and cost per day, week, month, session, project, model or app (see usage.py):
    `kind` is one of `usage.REPORTS`; `since`/`until` as `usage --since` takes them, or
    a date (a whole day in `tz`) or a datetime (one without a zone is in `tz`).
    Raises BadValue (a kind, time, zone or `explain` date it cannot use), UnknownApp, and, with
    `explain`, SessdexError when no row has that key (a day, week or month with nothing
    in it, or a session that counted nothing, is no error: an `Explained` whose `empty`
    is true, its note saying so) and AmbiguousId (an id several sessions start).
    `limit` (session, project, model and app reports, as `usage --limit`): the rows are
    the `limit` costliest, then one that sums the rest; the total stays the whole's."""
    from . import usage as usage_module

    refuse_unknown("kind", kind, usage_module.REPORTS)
    refuse_unless("explain_limit", explain_limit, 0)
    refuse_unless("limit", limit, 0)
    if explain is not None:
        from .audit import refuse_impossible_date

        refuse_impossible_date(kind, explain)
    if limit is not None and kind not in usage_module.CUT_REPORTS:
        raise BadValue(
            f"limit goes with the {', '.join(usage_module.CUT_REPORTS)} reports (the "
            f"costliest rows); a {kind} report's rows are never cut."
        )
    apps = app_names(apps)
    zone = usage_module.parse_tz(tz)
    now = datetime.now(UTC)  # one reading: `since="3d", until="3d"` is one moment
    if explain is not None:  # `today`, as `since=` takes it: that day's row in `tz`
        from .audit import period_named

        explain = period_named(kind, explain, zone, now)
    filters = usage_module.Filters(
        since=_usage_bound(since, zone, now),
        until=_usage_bound(until, zone, now, end=True),
        here=folder_texts(here),
        tz=zone,
    )
    refuse_empty_span(filters.since, filters.until, (since, until))
    new_view()
    return usage_module.run(
        home,
        kind,
        apps=apps,
        filters=filters,
        explain_key=explain,
        explain_limit=explain_limit,
        limit=limit,
        progress=progress,
    )


def _usage_bound(
    value: str | date | None, zone: tzinfo, now: datetime, *, end: bool = False
) -> datetime | None:
    """A `usage_report` bound as its filters take it: text as `usage --since` reads it
    (a span back from `now`), a date as that day, a datetime as it is (`list_sessions`
    takes one)."""
    from .usage import parse_day

    if isinstance(value, datetime):
        return value if value.tzinfo is not None else value.replace(tzinfo=zone)
    if isinstance(value, date):
        value = value.isoformat()
    return parse_day(value, zone, end=end, now=now) if value else None
