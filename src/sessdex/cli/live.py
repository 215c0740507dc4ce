"""Sessions as they are written: watch, follow, replay."""

from __future__ import annotations

import collections
import contextlib
import functools
import itertools
import sys
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any

import click

from .. import api, hints
from ..diagnostics import Diagnostics
from ..errors import typed
from ..hints import named
from ..model import Event, Session
from ..selection import here_folders
from ..views.text import stderr_is_terminal
from . import main
from ._common import (
    CONTEXT,
    SINCE_HELP,
    F,
    TakesNoWords,
    TakesOneId,
    apps_option,
    at_least,
    count_option,
    counted_events,
    detail_option,
    echo,
    err,
    fail_nicely,
    home_below,
    home_option,
    json_array,
    not_blank,
    output_gone,
    progress_bar,
    reader_left,
    report_diagnostics,
    resolve_home,
    session_id_argument,
    stdout_bytes,
    verbose_option,
)

if TYPE_CHECKING:
    from ..sources import Home


class _Number(click.FloatRange):
    """A number at least `min`; nan, which passes every comparison unseen, is none
    (`--duration nan` stopped `watch` at once and let `follow` run for ever); named as
    people say it, not "float range"."""

    name = "number"

    def __init__(self, least: float, what: str) -> None:
        super().__init__(min=least)
        self.what = what  # what a number below `least` is not, in its refusal

    def _describe_range(self) -> str:
        return f"{self.min:g} or more"  # in words: `--help` said `[x>=0.01]`

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> Any:
        number = at_least(
            click.types.FloatParamType.convert, self, value, param, ctx, self.what
        )
        if number != number:  # nan
            self.fail(f"{typed(str(value))} is not a number.", param, ctx)
        return number


def live_options(f: F) -> F:
    f = click.option(
        "--poll",
        "force_poll",
        is_flag=True,
        help="Poll the files instead of using file-system notifications.",
    )(f)
    f = click.option(
        "--duration",
        type=_Number(0, "a number of seconds"),
        metavar="SECONDS",
        help="Stop after SECONDS (default: until Ctrl-C).",
    )(f)
    return f


class _Unreadable:
    """The lines the feeds of `watch` or `follow` could not read, said in one warning as
    the command ends (at its --duration, --once, a reader that left, or Ctrl-C), in
    `show`'s words: -v/--verbose names each line."""

    def __init__(self, verbose: bool) -> None:
        self.diagnostics = Diagnostics()
        self.feeds: list[Iterator[Any]] = []
        self.verbose = verbose
        self.app: str | None = None  # whose files, once the session is found

    def feed(self, feed: Iterator[Any]) -> Iterator[Any]:
        self.feeds.append(feed)
        return feed

    def __enter__(self) -> _Unreadable:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        for feed in self.feeds:
            if isinstance(feed, Generator):
                feed.close()  # one left waiting (--once) counts what it met as it ends
        from ..files import wide_read  # a file re-saved as UTF-16: that, as show says

        report_diagnostics(wide_read(self.diagnostics), self.verbose, self.app)


_SINCE = "1d"  # watch's default --since, left out of the lines it names


@main.command(
    "watch",
    cls=TakesNoWords,
    context_settings=CONTEXT,
    short_help="Show a live board: who works, who waits for you or a sub-agent.",
)
@apps_option
@click.option(
    "--since",
    metavar="WHEN",
    default=_SINCE,
    callback=not_blank,
    show_default=True,
    help=SINCE_HELP,
)
@click.option(
    "--here", is_flag=True, help="Only sessions whose folder is this one or below it."
)
@count_option(
    "--limit", "-n", default=50, show_default=True, help="Follow at most N sessions."
)
@click.option(
    "--nl",
    "as_nl",
    is_flag=True,
    help="Stream status changes as JSON lines (id, app, title, cwd, status, reason, since, updated, tokens, tokens_partial, pid); with --json or --once, the board once.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="The board once, as one JSON array (the --nl objects; a CLI with no session yet has id null and its pid), then exit; with --nl, one object a line.",
)
@click.option("--once", is_flag=True, help="Print the board once and exit.")
@live_options
@verbose_option
@home_option
@fail_nicely
def watch_command(
    apps: tuple[str, ...],
    since: str,
    here: bool,
    limit: int,
    as_nl: bool,
    as_json: bool,
    once: bool,
    duration: float | None,
    force_poll: bool,
    verbose: bool,
    home_dir: str | None,
) -> None:
    """Show a live board of recent sessions: who works, who waits for you or on a sub-agent.

    Sessions waiting for you come first. --nl prints every session's status, then each
    change, one JSON object per line. Into a pipe or a file, the board is printed again
    whenever a session's status changes, a blank line between boards (--once: one).

    \b
    Example: sessdex watch --since 3h
    """
    home = resolve_home(home_dir)
    # --json is the board once; --nl beside it only makes that board lines, as README
    # says of both given: a script that asked for a snapshot gets control back
    once = once or as_json
    as_json = json_array(as_json, as_nl)
    api.parse_since(since)  # a value it cannot read fails now, not at the first listing
    folders = here_folders() if here else None
    empty = functools.partial(_nothing_recent, home, since, apps, folders)
    with _Unreadable(verbose) as unreadable:
        with progress_bar("Indexing sessions") as progress:
            boards = unreadable.feed(
                api.watch_sessions(
                    home,
                    apps=apps,
                    since=since,  # read again at each listing: '1d' stays the last day
                    limit=limit,
                    here=folders,
                    duration=0 if once or as_json else duration,
                    notify=False if force_poll else None,
                    progress=progress,
                    # `watch --nl | head -1`: a quiet board never writes again
                    stop=_stopping,
                    diagnostics=unreadable.diagnostics,
                )
            )
            first = next(boards, None)  # the board that may index every session first
        shown: Iterable[Sequence[Any]] = boards
        if first is not None:
            shown = itertools.chain([first], boards)
        # Ctrl-C is left to `fail_nicely`: it ends sessdex as killed by SIGINT, which
        # stops a shell loop around it too (an exit 0 let the loop run on)
        if as_json:
            from ..views.board import status_record
            from ..views.records import dumps

            rows = next(iter(shown), [])
            stdout_bytes(dumps([status_record(row) for row in rows]) + b"\n")
            if not rows and limit != 0 and stderr_is_terminal():
                # typed at a terminal, as `list --json` says why it is empty
                err(empty())
        elif as_nl:
            _watch_lines(shown, once, empty if limit != 0 else None)
        elif once or not sys.stdout.isatty():
            _watch_plain(shown, home, once, empty, limit)
        else:
            _watch_live(shown, home, empty, limit)
    if output_gone():
        reader_left()


def _stopping() -> bool:
    """Whether `watch` or `follow` should end now: the reader of their pipe left. A
    SIGTERM whose own exception a callback swallowed is raised again here, at a step:
    `kill` or `timeout` ended such a board only by SIGKILL."""
    from ..launch import raise_if_terminated

    raise_if_terminated()
    return output_gone()


# `watch --nl`: the least time between two lines of a session that say only that its
# `since` moved (its status and reason the same)
SINCE_MOVES_EVERY = 60.0


def _watch_lines(
    boards: Iterable[Sequence[Any]],
    once: bool,
    empty: Callable[[], str] | None = None,
) -> None:
    """Each session's status, then each change, a JSON line each; `empty`: what an
    empty first board says on stderr to a person at a terminal (None: nothing)."""
    import re
    import time

    from ..views.board import status_record
    from ..views.records import dumps

    shown: dict[tuple[str, str], tuple[str, str, float | None]] = {}
    # when a line said only that a session's `since` moved: a turn whose end carries no
    # time counts from the files' last write, which a busy sub-agent moves at every poll
    moved: dict[tuple[str, str], float] = {}
    first = True
    for rows in boards:
        if first and not rows and empty is not None and stderr_is_terminal():
            # typed at a terminal, as `watch --json` says why its `[]` is empty
            err(empty())
        first = False
        out = []
        for row in rows:
            if row.pid is not None:  # a CLI with no session yet: `--json` shows it
                continue
            key = (row.session.app, row.session.id)
            # a reason whose only change is a counting duration is no change, its unit
            # included (59s, then 1m); one whose age starts again (another turn ended,
            # another tool runs) is: its record's `since` moved
            reason = re.sub(r"\d+(?:[smhdwy]\b)?", "#", row.status.reason)
            state = (row.status.status, reason, row.status.since)
            before = shown.get(key)
            if before == state:
                continue
            if before is not None and before[:2] == state[:2]:  # only `since` moved
                now = time.monotonic()
                if now - moved.get(key, float("-inf")) < SINCE_MOVES_EVERY:
                    continue
                moved[key] = now
            shown[key] = state
            out.append(dumps(status_record(row)) + b"\n")
        if out:
            stdout_bytes(b"".join(out))
        if once:
            return
        _forget_gone(rows, shown, moved)


def _forget_gone(rows: Sequence[Any], *said: dict[tuple[str, str], Any]) -> None:
    """Drop from `said` the sessions no longer on the board: a long watch of a busy home
    holds what it said of those on it now, not of every session it ever showed (one that
    comes back is said again, as new)."""
    on = {(row.session.app, row.session.id) for row in rows if row.pid is None}
    for kept in said:
        for key in kept.keys() - on:
            del kept[key]


class _KnownIds:
    """Every session id the index holds (sub-agents too), read again when the board
    shows a session it did not know: the ids printed are prefixes `show` takes."""

    def __init__(self, home: Home) -> None:
        self.home = home
        self.ids: list[str] = []
        self.shown: set[str] = set()

    def of(self, rows: Sequence[Any]) -> list[str]:
        now = {row.session.id.lower() for row in rows if row.pid is None}
        if not now <= self.shown:
            self.ids = api.session_ids(self.home)
            self.shown = now | set(self.ids)
        return self.ids


def _watch_plain(
    boards: Iterable[Sequence[Any]],
    home: Home,
    once: bool,
    empty: Callable[[], str],
    limit: int,
) -> None:
    from ..views.board import plain
    from ..views.text import terminal_width

    width = terminal_width()  # piped: $COLUMNS where it is set, else whole lines
    known = _KnownIds(home)
    last = None
    printed = False
    for rows in boards:
        states = [(r.session.id, r.pid, r.status.status) for r in rows]
        if states != last:
            last = states
            if not rows:  # a hint, not data: a pipe reading the board gets no line
                if limit != 0:  # -n 0 asked for none, as `list -n 0` shows none
                    err(empty())
            else:
                if printed:
                    echo()
                echo(
                    plain(rows, str(home.path), width=width, ids=known.of(rows)),
                    nl=False,
                )
                printed = True
        if once:
            return


def _watch_live(
    boards: Iterable[Sequence[Any]],
    home: Home,
    empty: Callable[[], str],
    limit: int,
) -> None:
    from rich.live import Live

    from ..views import terminal
    from ..views.board import render

    out = terminal.console()
    known = _KnownIds(home)
    # what is written while the board shows goes above it, where it would land anyway:
    # stderr to a file (`2>log`) keeps its own
    with Live(
        console=out,
        auto_refresh=False,
        transient=False,
        redirect_stdout=sys.stdout.isatty(),
        redirect_stderr=sys.stderr.isatty(),
    ) as screen:
        drawn: tuple[object, int, int] | None = None
        for rows in boards:
            # fitted to the terminal's width now: a resized window gets a board that fits
            ids = known.of(rows)
            said = "" if rows or limit == 0 else empty()
            board = render(rows, str(home.path), width=out.width, ids=ids, empty=said)
            # a board like the one on the screen is not sent again: a quiet home's
            # would go to the terminal whole at every tick; one whose terminal grew
            # taller or shorter is (Live cuts it to the height)
            if drawn != (board, out.width, out.height):
                drawn = (board, out.width, out.height)
                screen.update(board, refresh=True)  # type: ignore[arg-type]


def _nothing_recent(
    home: Home, since: str, apps: Sequence[str], here: Sequence[str] | None = None
) -> str:
    """What an empty board says, a sentence as `list`'s is: how far it looked (in which
    folder, with --here) and the --since that reaches the newest session, or, where no
    app has written a session yet, that none is there."""
    from ..views.board import empty_board

    newest = api.newest_change(home, apps, here)
    if here:
        where = f" in {hints.folder_said(here[0])} or below it"
        if newest is None:
            # the user's other filters kept: the line shows what they asked for, elsewhere
            kept = [word for app in apps for word in ("--app", app)]
            if since != _SINCE:
                kept += ["--since", since]
            return (
                f"No session{where} yet; {named('watch', *kept)} shows every folder's."
            )
        return empty_board(since, newest, where=where)
    if apps and newest is None:  # other apps' sessions were not read: none is claimed
        return (
            f"No session of {', '.join(apps)} {hints.where()} yet: each shows here as "
            f"it starts; {named('doctor')} shows where sessdex looked."
        )
    if newest is not None or api.session_ids(home):
        return empty_board(since, newest)
    if (below := home_below(home, "watch")) is not None:
        return below
    return (
        f"No agent sessions {hints.where()} yet: each shows here as it starts; "
        f"{named('doctor')} shows where sessdex looked."
    )


@main.command(
    "follow",
    cls=TakesOneId,
    context_settings=CONTEXT,
    short_help="Stream a session's events as they are written (tail -f).",
)
@session_id_argument
@count_option(
    "--lines",
    "-n",
    "--tail",  # as `show --tail N` takes it
    "history",
    default=10,
    show_default=True,
    help="Show first the last N entries it draws of its recent history (the end of "
    "its files), a sub-agent's among them; with --nl, its last N events, token usage "
    "and turn ends among them (--detail user: those it draws).",
)
@detail_option
@click.option(
    "--nl",
    "as_nl",
    is_flag=True,
    help="One JSON event per line (the show --json shape; seq counts from 0 here).",
)
@live_options
@verbose_option
@home_option
@fail_nicely
def follow_command(
    session_id: str,
    history: int,
    detail: str,
    as_nl: bool,
    duration: float | None,
    force_poll: bool,
    verbose: bool,
    home_dir: str | None,
) -> None:
    """Stream a session's events as they are written (tail -f), sub-agents labelled.

    \b
    Example: sessdex follow 7f3a -n 20
    """
    home = resolve_home(home_dir)
    shows = None  # what the history's last `history` are counted among, as show --tail
    if not as_nl or detail == "user":
        from ..views import terminal

        shows = functools.partial(terminal.shows, detail=detail)
    with _Unreadable(verbose) as unreadable:
        with progress_bar("Indexing sessions") as progress:
            session, batches = api.follow_session(
                home,
                session_id,
                duration=duration,
                notify=False if force_poll else None,
                progress=progress,
                # `follow | head -3`: a quiet session never writes again
                stop=_stopping,
                diagnostics=unreadable.diagnostics,
                history=history,
                shown=shows,
            )
        unreadable.app = session.app
        unreadable.feed(batches)

        # sub-agent labels, from spawns in the unshown history too
        labels: dict[str, str] = {}
        # the sub-agents listed so far, each named apart from all of them, as show does
        known = [] if as_nl else api.sub_agent_ids(home, session, from_end=True)

        def shown(whole_history: bool = False) -> Iterator[list[Event]]:
            """The batches, the history cut to its last `history` events (or whole, for a
            view that keeps its last `history` lines itself)."""
            first = True
            siblings = None  # the ids named apart so far, the index's at the start
            for batch in batches:
                opening, first = first, False
                if not as_nl:  # marked as `show` marks them, late sub-agents too
                    from ..views.terminal import spawn_labels
                    from ..views.text import SiblingIds

                    # a spawn may come after its child's events (Gemini CLI stamps
                    # it once the child is done): its mark is the child's from the start
                    siblings = siblings or SiblingIds(known)
                    spawn_labels(batch, labels, siblings)
                if as_nl and detail == "user":  # as show --nl --detail user
                    batch = [event for event in batch if _typed_or_said(event)]
                if opening and not whole_history:
                    batch = batch[max(0, len(batch) - history) :] if history else []
                yield batch

        if as_nl:  # until Ctrl-C, which `fail_nicely` ends as watch's
            _follow_lines(shown())
        else:
            lead = api.lead_of(home, session) if sys.stdout.isatty() else None
            _follow_text(
                session,
                shown(whole_history=True),
                detail,
                labels,
                history,
                lead,
                str(home.path),
                known,
            )
    if output_gone():
        reader_left()


def _typed_or_said(event: Event) -> bool:
    """Whether `--detail user` keeps the event: what was typed and said, as shown."""
    from ..views import terminal

    return terminal.shows(event, "user")


def _follow_lines(batches: Iterable[list[Event]]) -> None:
    from ..live import renumber
    from ..views.records import dumps, event_record

    for event in renumber(batches):
        record = event_record(event)
        # numbered in the order printed, from 0: a session followed from its tail
        # has no count of what came before, so this is not show's seq
        record["seq_relative"] = True
        stdout_bytes(dumps(record) + b"\n")


def _follow_text(
    session: Session,
    batches: Iterable[list[Event]],
    detail: str,
    labels: dict[str, str],
    history: int,
    lead: str | None = None,
    home: str | None = None,
    known: Sequence[str] = (),
) -> None:
    """The reads of a session drawn as they come; `known`: the ids of its sub-agents
    the index lists (`SiblingIds`)."""
    from ..views import terminal
    from ..views.text import SiblingIds

    out = terminal.LineWriter(terminal.console())
    if sys.stdout.isatty():
        out.line(terminal.session_header(session, lead, home))
        out.line()
    first = True
    unnamed: set[str] = set()
    uncalled: set[str] = set()
    spawners: dict[str, str | None] = {}
    waiting: dict[str | None, dict[str, tuple[str, bool]]] = {}
    siblings = SiblingIds(
        known
    )  # each read's sub-agents named apart from earlier reads'
    for batch in batches:
        lines: Iterable[terminal.Line] = terminal.render_events(
            batch, detail, labels, unnamed, spawners, waiting, uncalled, siblings
        )
        if first:  # the history: its last N lines shown (token counts are none)
            first = False
            lines = collections.deque(lines, maxlen=history) if history else ()
        for line in lines:
            out.line(line)
        out.file.flush()


@main.command(
    "replay",
    cls=TakesOneId,
    context_settings=CONTEXT,
    short_help="Play a session back with its original pacing.",
)
@session_id_argument
@click.option(
    "--speed",
    type=_Number(0.01, "a speed"),
    metavar="TIMES",
    default=10.0,
    show_default=True,
    help="How many times faster than it happened.",
)
@click.option(
    "--max-gap",
    type=_Number(0, "a number of seconds"),
    metavar="SECONDS",
    default=2.0,
    show_default=True,
    help="The longest pause, in seconds.",
)
@click.option(
    "--duration",
    type=_Number(0, "a number of seconds"),
    metavar="SECONDS",
    help="Stop after SECONDS (default: at the session's end, or Ctrl-C).",
)
@detail_option
@click.option(
    "--nl",
    "as_nl",
    is_flag=True,
    help="One JSON event per line (the show --json shape).",
)
@verbose_option
@home_option
@fail_nicely
def replay_command(
    session_id: str,
    speed: float,
    max_gap: float,
    duration: float | None,
    detail: str,
    as_nl: bool,
    verbose: bool,
    home_dir: str | None,
) -> None:
    """Play a session back with its original pacing, sped up, sub-agents interleaved.

    \b
    Example: sessdex replay 7f3a --speed 20
    """
    home = resolve_home(home_dir)
    with progress_bar("Indexing sessions") as progress:
        found = api.replay_session(
            home,
            session_id,
            speed=speed,
            max_gap=max_gap,
            duration=duration,  # as follow and watch take it
            # what was shown is flushed before each pause, not after each line: a
            # sped-up replay of a big transcript would spend its time in writes
            before_pause=_flush_stdout,
            progress=progress,
        )
    from ..views.text import one_line

    # until the first event (a big transcript is surveyed first), a spinner; to a file
    # or a pipe, to the end: nothing else shows on the terminal
    events = counted_events(
        found.events,
        f"Reading {one_line(found.session.id, 40)}",
        show=True,
        until_first=sys.stdout.isatty(),
    )
    with contextlib.closing(events):  # the spinner goes, however the replay ends
        if as_nl:  # until Ctrl-C, which `fail_nicely` ends as watch's
            from ..views.records import dumps, event_record

            for event in events:
                if detail == "user" and not _typed_or_said(event):
                    continue  # as show --nl --detail user leaves it out
                sys.stdout.buffer.write(dumps(event_record(event)) + b"\n")
        else:
            from ..views import terminal

            lead = api.lead_of(home, found.session)
            out = terminal.LineWriter(terminal.console())
            out.line(terminal.session_header(found.session, lead, str(home.path)))
            out.line()
            for line in terminal.render_events(events, detail):
                out.line(line)
    _flush_stdout()
    report_diagnostics(found.diagnostics, verbose, found.session.app)


def _flush_stdout() -> None:
    sys.stdout.flush()
    sys.stdout.buffer.flush()
