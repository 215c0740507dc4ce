"""`sessdex usage --explain`: one row read again, with the rule for every line, in bounded memory.

Each response counted and each line dropped is tallied as it is read, and only the first
`limit` of each (by time; by file and line) are kept to be listed: a row fed by a 2 GB
transcript lists a thousand responses and says how many more there were and what they add
up to. The row itself is the report's (usage.py); this module only reads again.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Any, Generic, TypeVar

from . import idtext, pathnames, sources
from .diagnostics import Diagnostics
from .errors import AmbiguousId, BadValue, SessdexError, SessionNotFound
from .hints import id_typed, named, option
from .index import Index, Progress
from .indexfile import rehomed
from .model import Session
from .pricing import Catalogue, plain_name
from .sources import Home, Source
from .sources.base import DroppedLine, FoldedTooSoon, UsageRecord, UsageScan
from .usage import (
    NO_SLOT,
    Bucket,
    Collected,
    Filters,
    Row,
    _bucket_key,
    _decode,
    _descendant_states,
    _key_for,
    _local_days,
    _priced,
    _slot,
    _tops,
    counted_folder,
    cross_file_losers,
    describe_sessions,
    keep,
    latest_slot,
    lead_records,
    odd_slot,
    report,
    total,
)

LIMIT = 1000  # responses, and dropped lines, listed unless --limit says otherwise

Counted = tuple[str, str, UsageRecord, float | None]  # app, file, record, cost
Dropped = tuple[str, str, DroppedLine]  # app, file, line
T = TypeVar("T")


@dataclass(slots=True)
class Explained:
    """For one row: the responses counted (file, line, tokens, how) and the lines dropped
    (rule), the first `limit` of each listed; those not listed are counted and summed."""

    row: Row
    counted: list[Counted] = field(default_factory=list)
    dropped: list[Dropped] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    more: Row = field(default_factory=lambda: Row("more"))  # counted, not listed
    more_dropped: int = 0  # dropped lines not listed
    rules: dict[str, int] = field(default_factory=dict)  # every dropped line, per rule
    limit: int = LIMIT
    # a day, week or month with nothing in it, or a session that counted nothing: `notes`
    # says so
    empty: bool = False
    # how many of `notes`, from the first, the text says under the row's line rather
    # than last: which week a day is in names the row itself
    said_first: int = 0


def _counted(catalogue: Catalogue, app: str, path: str, record: UsageRecord) -> Counted:
    """A response as --explain lists it, priced; a cost the app recorded is said with
    whether it is the one counted (the price list had no price) or not."""
    cost, own = _priced(catalogue, record)
    recorded = record.recorded_cost_usd
    if recorded:
        said = (
            f"its cost as the app recorded it, ${recorded:.6f}: the price list has no price"
            if own
            else f"the app recorded ${recorded:.6f}; the price list's price is used"
        )
        note = f"{record.note}, {said}" if record.note else said
        record = replace(record, note=note)
    return app, path, record, cost


class _Last:
    """A key that sorts backwards, so that heapq's least item is the greatest key kept."""

    __slots__ = ("key",)

    def __init__(self, key: tuple[Any, ...]) -> None:
        self.key = key

    def __lt__(self, other: _Last) -> bool:
        return other.key < self.key


class _Firsts(Generic[T]):
    """The `limit` items of least key seen so far (keys are unique); every other item is
    handed to `spill`, at once or when a lesser one takes its place."""

    def __init__(self, limit: int, spill: Callable[[T], None]) -> None:
        self.limit = limit
        self.spill = spill
        self.heap: list[tuple[_Last, T]] = []

    def add(self, key: tuple[Any, ...], item: T) -> None:
        heap = self.heap
        if len(heap) < self.limit:
            heapq.heappush(heap, (_Last(key), item))
        elif heap and key < heap[0][0].key:
            self.spill(heapq.heapreplace(heap, (_Last(key), item))[1])
        else:
            self.spill(item)

    def items(self) -> list[tuple[tuple[Any, ...], T]]:
        return sorted(
            ((last.key, item) for last, item in self.heap), key=lambda kv: kv[0]
        )


class _Tally:
    """What one read (a file, or the whole row) counted and dropped: the first of each kept
    to be listed, the rest summed."""

    def __init__(self, limit: int) -> None:
        self.fed = False  # a response of the row was read (counted or not)
        self.more = Row("more")
        self.more_dropped = 0
        self.rules: dict[str, int] = {}
        self.counted: _Firsts[Counted] = _Firsts(limit, self._more)
        self.dropped: _Firsts[Dropped] = _Firsts(limit, self._more_dropped)

    def _more(self, item: Counted) -> None:
        app, _, record, cost = item
        self.more.add(app, _bucket(record, cost))

    def _more_dropped(self, _item: Dropped) -> None:
        self.more_dropped += 1

    def count(self, key: tuple[Any, ...], item: Counted) -> None:
        self.counted.add(key, item)

    def drop(self, key: tuple[Any, ...], item: Dropped) -> None:
        rule = item[2].rule
        self.rules[rule] = self.rules.get(rule, 0) + 1
        self.dropped.add(key, item)

    def take(self, other: _Tally) -> None:
        """Add what another read found (its listed items compete with these)."""
        for key, item in other.counted.items():
            self.counted.add(key, item)
        for key, line in other.dropped.items():
            self.dropped.add(key, line)
        merged = total([self.more, other.more])
        merged.key = self.more.key
        self.more = merged
        self.more_dropped += other.more_dropped
        for rule, n in other.rules.items():
            self.rules[rule] = self.rules.get(rule, 0) + n


def _bucket(record: UsageRecord, cost: float | None) -> Bucket:
    u = record.usage.plausible()
    return [
        *_bucket_key(record), u.input_tokens, u.output_tokens, u.cache_read_tokens,
        u.cache_write_tokens, u.reasoning_tokens, cost, 1, 0.0,
        0.0 if cost is None else cost, u.credits,
    ]  # fmt: skip


# Of the lines dropped at one place, in the order they were found: a response repeated in
# another file, then what the file's own read said, then the copies of a response.
_PHASE = {"repeated-in-another-file": 0, "copy-of-response": 2}


class _NoRow(SessdexError):
    """No row of the report is keyed so; the message names those there are."""


def _row_key(
    kind: str,
    key: str,
    rows: dict[str, Row],
    home: Home | None = None,
    buckets: Sequence[tuple[str, Bucket]] = (),
    filtered: bool = True,
) -> str:
    """The row `key` names: the row itself, a model's own spelling, a session id's prefix
    (several: each named, with its title where `home` is given to look it up). Where it
    names none, the error says which other report's row it names, of `buckets` too, and
    where there is none, whether `filtered` (a filter was given) may be why."""
    if key not in rows and kind == "model" and plain_name(key) in rows:
        key = plain_name(key)  # the app's own spelling of the row's model
    if key not in rows and kind == "app" and key.strip().lower() in rows:
        key = key.strip().lower()  # in any case, as --app takes it
    if key not in rows and kind == "session":  # an id prefix, as every command takes
        matching = _sessions_named(key, rows)
        if len(matching) == 1:
            key = matching[0]
        elif len(matching) > 1:  # named as every other command names them
            if home is not None:
                describe_sessions(home, [rows[name] for name in matching])
            raise AmbiguousId(
                key,
                [
                    (
                        min(rows[name].apps, default="?"),
                        name,
                        str(rows[name].about.get("title") or ""),
                    )
                    for name in matching
                ],
            )
    if key not in rows and kind == "session":
        _no_subagent_row(key, rows)
    if key not in rows and kind == "project" and home is not None:
        key = _folder_named(key, rows, str(home.path))
    if key not in rows:  # a key holding what no terminal shows: as the table printed it
        shown = [name for name in rows if not name.isprintable() and _as_shown(name, key, kind)]  # fmt: skip
        key = shown[0] if len(shown) == 1 else key
    if key not in rows:
        if kind == "project" and home is not None:  # as the table shows them
            from .views.text import short_path

            known = ", ".join(
                short_path(name, str(home.path)) for name in list(rows)[:8]
            )
        else:
            known = ", ".join(list(rows)[:8])
        if not rows and not filtered:  # nothing at all, nor anything to show
            raise _NoRow(f"no {kind} row is keyed {key!r}: no token usage was found.")
        if not rows:  # nothing to choose from: say so, not "Rows: " and nothing
            raise _NoRow(
                f"no {kind} row is keyed {key!r}: no token usage was found "
                f"(with these filters). {_report(kind)} shows the rows there are."
            )
        raise _NoRow(
            f"no {kind} row is keyed {key!r}. Rows: {known}{', …' if len(rows) > 8 else ''}"
            f"{_of_another_kind(key, kind, rows, buckets) or '.'}"
        )
    return key


def _session_named(home: Home, key: str) -> Session | None:
    """The one session `key` names as every other command takes an id (its start,
    `app:id`); None where it names none. Raises AmbiguousId where it starts several."""
    from .resolving import resolve

    try:
        return resolve(home, key)
    except (SessionNotFound, BadValue):
        return None


def _nothing_for(home: Home, session: Session, filtered: bool) -> Explained:
    """What an `--explain` of a session that counted no response says: an empty result,
    its row of zeros named as a session row is."""
    row = Row(session.id)
    row.about = {
        "id": session.id,
        "app": session.app,
        "title": session.title,
        "cwd": session.cwd,
    }
    # each id as the user's shell takes it, to paste back into `--explain`
    what = (
        f"sub-agent {id_typed(session.id)} of {id_typed(session.parent_id)}"
        if session.parent_id
        else f"session {id_typed(session.id)}"
    )
    these = " with these filters" if filtered else ""
    said = f"no token usage was counted for {what} ({session.app}){these}: nothing to explain."
    if (original := _counted_in(home, session)) is not None:
        said = (
            f"no token usage was counted for {what} ({session.app}){these}: its responses"
            f" were counted in session {id_typed(original)}, which holds them too (the"
            " same responses, counted once); explain that one."
        )
    return Explained(row, notes=[said], empty=True)


def _counted_in(home: Home, session: Session) -> str | None:
    """The session that counted the responses of `session`'s file, where another file
    repeats them (a copy, their ids kept) and wins (`cross_file_losers`); None where
    none does. Only for an empty `--explain`: the app's stored keys are read whole."""
    if not session.path or session.app not in sources.names():
        return None
    index = Index(home)
    try:
        keys = index.usage_blobs([session.app], "keys")
        if session.path not in keys:
            return None
        source = sources.get(session.app)
        winners = {
            w for p, _, w in cross_file_losers(source, keys) if p == session.path
        }
        found = [
            found_id
            for app, found_id in index.in_file(sorted(winners))
            if app == session.app and found_id != session.id
        ]
    finally:
        index.close()
    return found[0] if found else None


def _period(kind: str, key: str) -> str | None:
    """The row key `key` is for a day, week or month report, where it is one such a
    report could have (`2026-11-20`; a week's Monday; `2026-11`); else None."""
    from datetime import date

    text = key.strip()
    try:
        if kind == "monthly":
            return date.fromisoformat(f"{text}-01").strftime("%Y-%m") if len(text) == 7 else None  # fmt: skip
        day = date.fromisoformat(text) if len(text) == 10 else None
    except ValueError:
        return None
    if day is None or kind not in ("daily", "weekly"):
        return None
    return day.isoformat() if kind == "daily" or day.weekday() == 0 else None


def period_named(kind: str, key: str, zone: tzinfo, now: datetime | None = None) -> str:
    """The key of a day, week or month report named by a word for a day (`today`,
    `yesterday`, as `--since` takes them): that day in the report's zone `zone`, or
    its week's Monday, or its month; `key` as it is for any other."""
    from datetime import UTC, datetime, timedelta

    from .selection import DAYS_BACK

    back = DAYS_BACK.get(key.strip().lower())
    if back is None or kind not in ("daily", "weekly", "monthly"):
        return key
    day = (now or datetime.now(UTC)).astimezone(zone).date() - timedelta(days=back)
    if kind == "monthly":
        return f"{day:%Y-%m}"
    return (day - timedelta(days=day.weekday() if kind == "weekly" else 0)).isoformat()


def refuse_impossible_date(kind: str, key: str) -> None:
    """BadValue for a day or month key of a dated report that no calendar has
    (`--explain 2026-11-31`): a typo, said as one before any file is read, where it was
    "no daily row is keyed" as if that day had had no use."""
    import calendar
    import re

    if kind not in ("daily", "weekly", "monthly"):
        return
    shape = r"(\d{4})-(\d{2})" if kind == "monthly" else r"(\d{4})-(\d{2})-(\d{2})"
    parts = re.fullmatch(shape, key.strip())
    if parts is None or _period(kind if kind == "monthly" else "daily", key):
        return
    year, month = int(parts[1]), int(parts[2])
    given = option("explain", key)
    if year < 1:
        raise BadValue(f"{given} is not a date: the years start at 0001.")
    if not 1 <= month <= 12:
        raise BadValue(f"{given} is not a date: a month is 01 to 12.")
    days = calendar.monthrange(year, month)[1]
    name = f"{calendar.month_name[month]} {year}"
    raise BadValue(f"{given} is not a date: {name} has {days} days.")


def _nothing_in(kind: str, period: str, rows: dict[str, Row], filtered: bool) -> str:
    """What an `--explain` of a day, week or month with no response says."""
    what = {"daily": "on", "weekly": "in the week of", "monthly": "in"}[kind]
    these = " with these filters" if filtered else ""
    known = _rows_around(period, list(rows))
    there = (
        f" Rows: {known}." if rows else f" {_report(kind)} shows the rows there are."
    )
    return (
        f"no token usage was counted {what} {period}{these}: nothing to explain.{there}"
    )


def _report(kind: str) -> str:
    """The command that shows `kind`'s rows, without the filters that left none: a
    month's key is none of the daily rows plain `usage` shows."""
    return named("usage") if kind == "daily" else named("usage", kind)


def _rows_around(period: str, keys: list[str], count: int = 8) -> str:
    """The `count` rows of a dated report nearest `period`, in order, "…" where more lie
    before or after: a day asked about a year into a home's history is told the days
    around it, not the home's first eight."""
    dated = sorted(key for key in keys if key[:1].isdigit())  # "(no time)" aside
    at = bisect.bisect_left(dated, period)
    start = max(0, min(at - count // 2, len(dated) - count))
    shown = dated[start : start + count]
    return ", ".join(
        (["…"] if start else []) + shown + (["…"] if start + count < len(dated) else [])
    )


def _of_another_kind(
    key: str,
    kind: str,
    rows: dict[str, Row],
    buckets: Sequence[tuple[str, Bucket]] = (),
) -> str:
    """Where `key` names a model or an app these rows counted (`--explain gpt-5` on the
    daily rows), or the start of a session's id (`--explain 7f3a`, the report's kind
    left out), the command that explains that row; else nothing."""
    models = {model for row in rows.values() for model in row.models}
    apps = {app for row in rows.values() for app in row.apps}
    if kind != "model" and (key in models or plain_name(key) in models):
        return f"; {named('usage', 'model', '--explain', key)} explains a model's row."
    if kind != "app" and key.strip().lower() in apps:
        return f"; {named('usage', 'app', '--explain', key)} explains an app's row."
    if kind != "session" and _starts_an_id(key, buckets):
        return (
            f"; {named('usage', 'session', '--explain', key.strip())} explains a "
            "session's row."
        )
    return _of_a_month(key, kind)


def _of_a_month(key: str, kind: str) -> str:
    """Where `key` is a month given to the daily or weekly rows (`--explain 2026-11`,
    the report's kind left out), or a day given to the monthly rows, the command that
    explains that month's row; else nothing."""
    if kind != "monthly" and (month := _period("monthly", key)) is not None:
        return f"; a month is a row of the monthly report: {named('usage', 'monthly', '--explain', month)} explains it."  # fmt: skip
    if kind == "monthly" and (day := _period("daily", key)) is not None:
        return f"; a month is keyed by its year and month: {named('usage', 'monthly', '--explain', day[:7])} explains the month of {day}."  # fmt: skip
    return ""


def _starts_an_id(key: str, buckets: Sequence[tuple[str, Bucket]]) -> bool:
    """Whether `key` starts the id of a session that `buckets` counted (4 characters at
    least: a day's or a model's start is no id)."""
    prefix = key.strip().lower()
    if len(prefix) < 4 or _period("daily", prefix) or _period("monthly", prefix):
        return False
    return any(str(bucket[0]).lower().startswith(prefix) for _, bucket in buckets)


def _folder_named(key: str, rows: dict[str, Row], home: str) -> str:
    """The project row `key` names: its folder as the table (and `list`) shows it
    (`~/code/shop`), a path from the current folder, or, read from another home, the
    path a shell made of `~/code/shop` in the user's own; `key` itself where none is."""
    import os

    from .views.text import short_path

    typed = key.rstrip("/\\") or key
    if typed in rows:
        return typed
    tried = [typed]
    if typed.startswith(("~/", "~\\")) or typed == "~":
        tried.append(typed.replace("\\", "/"))
    else:
        own = str(Path.home())
        if (below := pathnames.below_home(typed, own)) is not None:
            tried.append("~" + below)  # the shell's ~ is the user's home, not --home
        if not os.path.isabs(typed) and not pathnames.is_windows(typed):
            folder = os.path.abspath(typed)
            if folder in rows:
                return folder
            tried.append(short_path(folder, home))
    for name in rows:
        shown = short_path(name, home)
        if shown in tried or shown.replace("\\", "/") in tried:
            return name
    return key


def _sessions_named(key: str, rows: dict[str, Row]) -> list[str]:
    """The session rows `key` names as `show` takes an id: a start of it in any case,
    after an app's name and a colon (`codex:019a`) where two apps' ids might share it,
    or, where it starts none, as pasted (`idtext`: without its dashes, in quotes)."""
    for given in (key, *idtext.loose_forms(key)):  # `"codex:019a"`: the app inside
        app, colon, rest = given.partition(":")
        app = app.lower()
        named = bool(colon) and app in sources.names()
        spelt = (rest if named else given).strip()
        start = spelt.lower()
        if not start:  # `codex:` or a blank: no id given, not every session (as `show`)
            if given is key:
                return []
            continue
        for form in (start, *idtext.loose_forms(start)):  # as typed, then as pasted
            start = form.lower()
            matching = [
                name
                for name, row in rows.items()
                if name.lower().startswith(start) and (not named or app in row.apps)
            ]
            # the id as spelt first: two ids may differ only in case
            for exact in (
                [name for name in matching if name == spelt],
                [name for name in matching if name.lower() == start],
            ):
                if len(exact) == 1:
                    return exact
            if matching:
                return matching
    return []


class _SubAgent(SessdexError):
    """A session key that names a sub-agent, listed under its lead's row (not an error
    where it is explained: its own responses are)."""

    def __init__(self, key: str, lead: str, agent: str) -> None:
        super().__init__(
            f"{key!r} is a sub-agent of {id_typed(lead)}; its responses are counted in that "
            f"session's row: {named('usage', 'session', '--explain', lead)}."
        )
        self.lead = lead
        self.agent = agent


def _no_subagent_row(key: str, rows: dict[str, Row]) -> None:
    """A sub-agent's id (the table lists each under its lead) has no row of its own:
    say whose row counts its responses, where one lead's sub-agents alone match."""
    found = {
        (name, agent)
        for name, row in rows.items()
        for agent in _sessions_named(
            key, {agent: row for agent in row.agents if agent != "lead"}
        )
    }
    if len({lead for lead, _ in found}) == 1:
        agents = sorted(found)
        if len(agents) > 1:  # two of one lead's sub-agents: named as the leads are
            about = [(min(rows[lead].apps, default="?"), agent, "") for lead, agent in agents]  # fmt: skip
            raise AmbiguousId(key, about)
        ((lead, agent),) = agents
        raise _SubAgent(key, lead, agent)


def _as_shown(name: str, key: str, kind: str) -> bool:
    """Whether the row keyed `name`, cleaned as the usage table prints it, is `key` (or,
    for a session, starts with it)."""
    from .views.text import one_line

    shown = one_line(name)
    return shown == key or (kind == "session" and shown.startswith(key))


def explain(
    home: Home,
    collected: Collected,
    kind: str,
    key: str,
    filters: Filters,
    apps: Sequence[str] = (),
    limit: int = LIMIT,
    progress: Progress | None = None,
    kept: list[tuple[str, Bucket]] | None = None,
) -> Explained:
    """Read again, with reasons, every file that fed the row `key` of report `kind`
    (`progress`: files done out of the files of the apps read file by file; `kept`: the
    collected buckets the filters keep, if already picked out)."""
    if kept is None:
        kept = keep(collected.buckets, filters)
    if (monday := _monday_of(kind, key)) is not None:  # a week is keyed by its Monday
        explained = explain(
            home, collected, kind, monday, filters, apps, limit, progress, kept
        )
        said = f"{key.strip()} is in the week of Monday {monday}"
        if explained.empty:  # its one note says the week had nothing: said after
            explained.notes[0] = f"{said}; {explained.notes[0]}"
        else:
            explained.notes.insert(0, f"{said}, whose row this is")
            explained.said_first += 1
        return explained
    try:
        return _explain(
            home, collected, kind, key, filters, apps, limit, progress, kept
        )
    except _SubAgent as sub:  # its own responses, read from its lead's files
        explained = _explain(
            home,
            collected,
            kind,
            sub.lead,
            filters,
            apps,
            limit,
            progress,
            kept,
            sub.agent,
        )
        explained.notes.insert(
            0,
            f"{id_typed(sub.agent)} is a sub-agent of {id_typed(sub.lead)}: its own responses; "
            f"{named('usage', 'session', '--explain', sub.lead)} explains the whole session",
        )
        return explained


def _monday_of(kind: str, key: str) -> str | None:
    """The Monday of the week holding the day `key` names, for the weekly report where
    that day is no Monday (`2026-11-25`: `2026-11-23`); else None."""
    from datetime import date, timedelta

    if kind != "weekly" or (day := _period("daily", key)) is None:
        return None
    monday = date.fromisoformat(day) - timedelta(days=date.fromisoformat(day).weekday())
    return None if monday.isoformat() == day else monday.isoformat()


def _explain(
    home: Home,
    collected: Collected,
    kind: str,
    key: str,
    filters: Filters,
    apps: Sequence[str],
    limit: int,
    progress: Progress | None,
    kept: list[tuple[str, Bucket]],
    agent: str | None = None,
) -> Explained:
    """`explain`, of the row `key` names; with `agent`, of that sub-agent's part of it."""
    # an id two apps share (a task Kilo copied from Roo) is two rows, one per app
    given, whole, asked = key, kept, apps
    if kind == "session":
        kept, apps = _one_app(kept, key, apps)
    rows: dict[str, Row] = {}
    # the rows `key` may name, not every row; all of them only to say none is named so
    every = list(
        report(_maybe_named(kind, kept, key, filters.tz, home), kind, filters.tz)
    )
    for r in every:
        rows.setdefault(r.key, r)
    try:
        key = _row_key(kind, key, rows, home)
    except SessdexError:  # said as the whole report says it (the rows there are)
        rows = {}
    if not rows:
        every = list(report(kept, kind, filters.tz))
        for r in every:
            rows.setdefault(r.key, r)
        if (period := _period(kind, key)) is not None and period not in rows:
            # a day (week, month) with nothing in it: an empty result, said as such
            filtered = bool(apps or filters.since or filters.until or filters.here)
            said = _nothing_in(kind, period, rows, filtered)
            return Explained(Row(period), notes=[said], empty=True)
        try:
            filtered = bool(asked or filters.since or filters.until or filters.here)
            key = _row_key(kind, key, rows, home, kept, filtered)
        except _NoRow:
            # a session that is there but counted nothing (no answer yet, none billed,
            # none in the filters) is an empty result, as a day with nothing in it is
            if kind != "session" or (session := _session_named(home, given)) is None:
                raise
            if session.id not in rows:
                return _nothing_for(home, session, filtered)
            key = session.id  # named as other commands take it (a copy it went on in)
    if len(shared := [r for r in every if r.key == key]) > 1:  # an id, several apps
        describe_sessions(home, shared, fresh=collected.refreshed)
        about = [
            (min(r.apps, default="?"), key, str(r.about.get("title") or ""))
            for r in shared
        ]
        raise AmbiguousId(given, about)
    if kind == "session":  # keyed `app:id`, as the whole report keys it (`report`)
        row = rows[key]
        if any(b[0] == key and app not in row.apps for app, b in whole):
            row.label = f"{min(row.apps)}:{key}"
    del kept, whole
    if kind == "session" and home is not None and "title" not in rows[key].about:
        # its title and folder, as --json gives
        describe_sessions(home, [rows[key]], fresh=collected.refreshed)
    reader = _Reader(
        home, kind, key, filters, limit, collected.lifted, collected.folders, agent
    )
    selected = sources.all_sources(apps)
    if progress is not None:
        total = sum(
            len(collected.files.get(s.NAME, []))
            for s in selected
            if hasattr(s, "usage_records")
        )
        reader.progress = lambda done: progress(done, total)
    notes = []
    for source in selected:
        if hasattr(source, "usage_records"):
            reader.files(source, collected.files.get(source.NAME, []))
        # another app's row reads none of it; the note is said only of an app that fed it
        elif (kind != "app" or key == source.NAME) and reader.sessions(source):
            notes.append(
                f"{source.TITLE}: responses come from its reader's usage events, de-duplicated there (docs/usage.md)"
            )
    tally = reader.tally
    return Explained(
        rows[key] if agent is None else rows[key].agents[agent],
        [item for _, item in tally.counted.items()],
        [item for _, item in tally.dropped.items()],
        notes,
        tally.more,
        tally.more_dropped,
        dict(sorted(tally.rules.items())),
        limit,
    )


def _one_app(
    kept: list[tuple[str, Bucket]], key: str, apps: Sequence[str]
) -> tuple[list[tuple[str, Bucket]], Sequence[str]]:
    """The buckets and apps of the one app a session `key` names (`roo:2b9d`), if any."""
    app, colon, _ = key.partition(":")
    app = app.lower()
    if not colon or app not in sources.names():
        return kept, apps
    return [b for b in kept if b[0] == app], [a for a in apps or [app] if a == app]


def _maybe_named(
    kind: str,
    buckets: list[tuple[str, Bucket]],
    key: str,
    tz: tzinfo,
    home: Home | None = None,
) -> list[tuple[str, Bucket]]:
    """The buckets of the rows `_row_key` could take `key` to name: the row keyed so, a
    model's or app's own spelling of it, the sessions whose id starts with it (or with
    what follows `app:`) in any case, the folders it names as `_folder_named` takes it,
    and the rows whose key no terminal shows as it is. Every bucket of each such row, in
    order, so that their sums and order are the whole report's."""
    could: set[str] = {key}
    if kind == "model":
        could.add(plain_name(key))
    elif kind == "app":
        could.add(key.strip().lower())
    prefixes: tuple[str, ...] = ()
    if kind == "session":
        app, colon, rest = key.partition(":")
        starts = {key.strip().lower()}
        if colon and app.lower() in sources.names():
            starts.add(rest.strip().lower())
        prefixes = tuple(starts)
    days = (
        _local_days({b[4] for _, b in buckets}, tz)
        if kind in ("daily", "weekly", "monthly")
        else {}
    )
    named: dict[str, bool] = {}
    out = []
    for app, bucket in buckets:
        name = (
            bucket[0]  # a session's row is keyed by its id
            if kind == "session"
            else _key_for(kind, app, bucket, days).rpartition("\0")[2]
        )
        chosen = named.get(name)
        if chosen is None:
            chosen = named[name] = (
                name in could
                or not name.isprintable()
                or (kind == "session" and name.lower().startswith(prefixes))
                or (
                    kind == "project"
                    and home is not None
                    and _folder_named(key, {name: Row(name)}, str(home.path)) == name
                )
            )
        if chosen:
            out.append((app, bucket))
    return out


class _Reader:
    """Reads one row's files again and tallies what each line did."""

    def __init__(
        self,
        home: Home,
        kind: str,
        key: str,
        filters: Filters,
        limit: int,
        lifted: dict[tuple[str, str], str] | None = None,
        folders: dict[tuple[str, str], str] | None = None,
        agent: str | None = None,
    ) -> None:
        self.home = home
        self.agent = agent  # a session's sub-agent: its buckets alone
        # a sub-agent's sub-agent's session id -> the session it counts in
        self.lifted = lifted or {}
        # (app, session id) -> its folder, where the report keys one (`counted_folder`)
        self.folders = folders or {}
        self.kind = kind
        self.key = key
        self.filters = filters
        self.limit = limit
        self.catalogue = Catalogue.load()
        self.tally = _Tally(limit)
        self.order = itertools.count()  # ties keep the order things were found in
        self.progress: Callable[[int], None] | None = None  # files done so far
        self.done = 0
        # the path the index reads the home by (a link's, or the real): a folder under it
        # is keyed under the home as given, as the report's rows are (`usage._rehome`)
        self.recorded = str(home.path)

    def in_row(self, app: str, bucket: Bucket) -> bool:
        top = self.lifted.get((app, bucket[0]))
        if self.kind == "session" and (bucket[0] if top is None else top) != self.key:
            return False  # another session's: its id says so, whatever its time
        if self.agent is not None and bucket[1] != self.agent:
            return False  # the lead's, or another sub-agent's
        if top is not None:  # a sub-agent's sub-agent: counted in the top session
            bucket = [top, *bucket[1:]]
        if bucket[3] and self.recorded != str(self.home.path):
            bucket = [*bucket[:3], self.shown(bucket[3]), *bucket[4:]]
        if folder := self.folders.get((app, bucket[0])):
            bucket = [*bucket[:3], counted_folder(bucket[3], folder), *bucket[4:]]
        kept = keep([(app, bucket)], self.filters)  # an odd time taken as none
        if not kept:
            return False
        bucket = kept[0][1]
        days = _local_days([bucket[4]], self.filters.tz)
        return _key_for(self.kind, app, bucket, days).rpartition("\0")[2] == self.key

    def shown(self, path: str) -> str:
        """`path` under the home as given, where the index reads it by another path."""
        return rehomed(path, self.recorded, str(self.home.path))

    def record_in_row(self, app: str, record: UsageRecord) -> bool:
        return self.in_row(app, [*_bucket_key(record), 0, 0, 0, 0, 0, 0.0, 1])

    def dropped_in_row(self, dropped: DroppedLine) -> bool:
        if self.kind not in ("daily", "weekly", "monthly") or dropped.time is None:
            return True  # other rows take every dropped line of the files that fed them
        slot = _slot(dropped.time)
        if odd_slot(slot, latest_slot()):
            slot = NO_SLOT
        days = _local_days([slot], self.filters.tz)
        return _key_for(self.kind, "", [None, None, None, None, slot], days) == self.key

    def files(self, source: Source, paths: list[str]) -> None:
        """An app read file by file: only the files whose stored sums touch the row."""
        app = source.NAME
        index = Index(self.home)
        self.recorded = str(index.home.path)
        try:
            # one file's sums at a time: those of a whole home are hundreds of MB
            listed = set(paths)
            summed: set[str] = set()
            touching: set[str] = set()
            for path, blob in index.each_usage_blob([app], "buckets"):
                if path in listed:
                    summed.add(path)
                    if any(self.in_row(app, b) for b in _decode(blob)):
                        touching.add(path)
            stored = index.usage_meta(f"corrections:{app}")
            corrections = _decode(stored)[1] if stored else []
            # a response another file repeats and counts instead: only when one is in the row
            keys = (
                index.usage_blobs([app], "keys")
                if any(self.in_row(app, b) for b in corrections)
                else {}
            )
        finally:
            index.close()
        fed = [path for path in paths if path not in summed or path in touching]
        del summed, touching
        self._advance(len(paths) - len(fed))  # those whose sums miss the row: not read
        losers: dict[tuple[str, str], str] = {}
        if keys:
            mine = {p: blob for p, blob in keys.items() if p in listed}
            del keys
            for path, record, winner in cross_file_losers(source, mine):
                if record.key and self.record_in_row(app, record):
                    losers[(path, record.key)] = winner
        for path in fed:
            self._file(source, path, losers)
            self._advance(1)

    def _advance(self, files: int) -> None:
        self.done += files
        if self.progress is not None and files:
            self.progress(self.done)

    def _file(
        self, source: Source, path: str, losers: dict[tuple[str, str], str]
    ) -> None:
        app = source.NAME
        tally = _Tally(self.limit)
        shown = self.shown(path)  # read by the index's path, shown by the one given

        def counted(record: UsageRecord) -> None:
            if not self.record_in_row(app, record):
                return
            tally.fed = True
            winner = losers.get((path, record.key or ""))
            if winner is not None:
                note = f"{record.key}: {winner} counts it"
                dropped(DroppedLine(record.line, "repeated-in-another-file", note, record.time))  # fmt: skip
                return
            at = (record.time or 0, shown, record.line, next(self.order))
            tally.count(at, _counted(self.catalogue, app, shown, record))

        def dropped(line: DroppedLine) -> None:
            if self.dropped_in_row(line):
                at = (shown, line.line, _PHASE.get(line.rule, 1), next(self.order))
                tally.drop(at, (app, shown, line))

        def read(fold: Callable[[UsageRecord], None] | None) -> UsageScan:
            return source.usage_records(  # type: ignore[no-any-return, attr-defined]
                Path(path), Diagnostics(), fold=fold, drop=dropped
            )

        try:
            scan = read(counted)
        except FoldedTooSoon:
            # a line changed a response already tallied: again, every record listed
            tally = _Tally(self.limit)
            scan = read(None)
        for record in scan.records:
            counted(record)
        if tally.fed:
            self.tally.take(tally)

    def sessions(self, source: Source) -> bool:
        """An app counted from its reader's usage events, session by session; whether any
        of them fed the row."""
        index = Index(self.home)
        self.recorded = str(index.home.path)
        try:
            session_rows = index.rows(
                apps=[source.NAME], include_subagents=True, with_state=True
            )
        finally:
            index.close()
        decoded = [(r, r.session()) for r in session_rows]
        tops = _tops(decoded, {(r.app, r.id) for r in session_rows})
        kin = _descendant_states(decoded, tops)
        fed = False
        for row in session_rows:
            if self.kind == "session" and row.id != self.key:
                continue  # not decoded: only the row's session is read
            if (row.app, row.id) in tops:
                continue  # read with its lead's
            session = row.session()
            if (
                self.kind == "session" and session.id != self.key
            ):  # its records carry its id
                continue
            path = self.shown(session.path) if session.path else row.id
            descendants = kin.get((row.app, row.id), [])
            for record in lead_records(source, session, descendants, Diagnostics()):
                if self.record_in_row(source.NAME, record):
                    fed = True
                    at = (record.time or 0, str(path), record.line, next(self.order))
                    counted = _counted(self.catalogue, source.NAME, str(path), record)
                    self.tally.count(at, counted)
        return fed
