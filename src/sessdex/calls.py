"""What every library call does first: the values it was given, checked and read as the
command line reads them (apps, times, folders, numbers), and the index opened at a new view.

Shared by the `api` modules; nothing here names an app or prints.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Sequence
from datetime import UTC, date, datetime

from . import hints, selection, sources
from .errors import BadValue
from .index import Index, Progress, RefreshReport
from .sources import Home


def parse_since(value: str, now: datetime | None = None) -> datetime:
    """'3d', '12h', '2w', '1mo', '30min' ago, a month ('2026-11') or a date/time
    ('2026-11-01', ISO 8601); UTC."""
    return datetime.fromtimestamp(selection.parse_since(value, now), UTC)


def parse_until(value: str, now: datetime | None = None) -> datetime:
    """`--until`'s bound: as `parse_since`, but a day counts whole (to its next midnight)."""
    return datetime.fromtimestamp(selection.parse_until(value, now), UTC)


def until_bound(
    value: datetime | date | str | None, now: datetime | None = None
) -> datetime | None:
    """An `until=` bound as the index takes it (sessions updated before it): text as
    `parse_until` reads it (a span back from `now`), a date as that whole day (to its
    next midnight UTC), a datetime as it is (UTC where it names no zone)."""
    if isinstance(value, str | date) and not isinstance(value, datetime):
        return parse_until(value if isinstance(value, str) else value.isoformat(), now)
    return since_bound(value)


def refuse_empty_span(
    since: datetime | None, until: datetime | None, given: tuple[object, object]
) -> None:
    """BadValue where `since` is not before `until`: nothing could match, and an empty
    list would read as no sessions at all."""
    if since is not None and until is not None and since >= until:
        raise BadValue(
            f"{hints.option('since', given[0])} is not before "
            f"{hints.option('until', given[1])}, so nothing can match; swap them."
        )


def since_bound(
    value: datetime | date | str | None, now: datetime | None = None
) -> datetime | None:
    """A `since=` bound as the index takes it: text as `parse_since` reads it, a date
    as that day's start (UTC, as the text '2026-11-01' reads), a datetime as it is; one
    without a zone in UTC too, as the same time written as text (`usage_report` reads
    all three in its `tz=`), not in this machine's zone."""
    if isinstance(value, str):
        return parse_since(value, now)
    if isinstance(value, datetime):
        return value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    if isinstance(value, date):
        return parse_since(value.isoformat())
    return value


def open_index(
    home: Home,
    apps: Sequence[str] = (),
    progress: Progress | None = None,
    *,
    every: bool = False,
) -> tuple[Index, RefreshReport]:
    """The home's index, refreshed for the selected apps: a call's new view of them.
    Without `every`, the apps whose files and folders are as the index read them are
    left as they are, their sources not loaded (`Index.refresh_changed`), what their
    last scans said (where they looked, what they passed over) in the report all the
    same."""
    from . import databases

    names = known_apps(apps)  # an unknown app fails before the index is opened
    databases.new_view()
    with contextlib.suppress(OSError):  # housekeeping: never a reason to fail
        databases.sweep_login_copies()  # before this run copies anything
        databases.sweep_at_exit()  # what it, or its workers, copied
    index = Index(home)
    if every:
        report = index.refresh(sources.all_sources(names), progress)
    else:
        report = index.refresh_changed(names, progress)
    with contextlib.suppress(OSError):
        databases.prune_snapshots()
    return index, report


def known_apps(apps: Sequence[str]) -> Sequence[str]:
    """`apps`, or every app where none is named; UnknownApp for one sessdex does not
    read. No source is loaded: a command loads those of the apps it reads."""
    for name in apps:
        if name not in sources.BUILTIN:
            sources.get(name)  # raises UnknownApp
    return apps or sources.BUILTIN


def new_view() -> None:
    """`databases.new_view`, where this process has loaded that module: one that has not
    holds no snapshot a new view must set aside (and `usage`, which may read no database,
    need not load it)."""
    databases = sys.modules.get(f"{__package__}.databases")
    if databases is not None:
        databases.new_view()


def refuse_unless(
    name: str, value: float | None, least: float, above: bool = False
) -> None:
    """A number the CLI's option would refuse (below `least`, or not `above` it, or nan,
    which passes every comparison unseen) is refused here too, as a BadValue."""
    if value is None:
        return
    if value != value or value < least or (above and value == least):
        bound = "above" if above else "at least"
        raise BadValue(f"{name} must be a number {bound} {least:g}, not {value!r}.")


def refuse_unknown(name: str, value: str, known: Sequence[str]) -> None:
    """A word (a report's kind, a mode) that is none of `known`, as a BadValue."""
    if value not in known:
        raise BadValue(f"{name} {value!r} is not one of {', '.join(known)}.")


def app_names(apps: Sequence[str]) -> Sequence[str]:
    """`apps` as names: one name given alone (`apps="codex"`, which a type checker
    passes as a sequence of str) is that app, not its letters; in any case, as
    `--app` takes them (app names are lower case)."""
    if isinstance(apps, str):
        apps = (apps,)
    return tuple(app.lower() for app in apps) if apps else apps


def storable(text: str) -> str:
    """`text` as a stored value could hold it: bytes a command line or a folder's name
    gave that are not UTF-8 (Python keeps them as lone surrogates, which SQLite refuses
    to take) read as U+FFFD, as a JSON writer records such a name."""
    try:
        text.encode()
    except UnicodeEncodeError:
        try:
            return text.encode(errors="surrogateescape").decode(errors="replace")
        except UnicodeEncodeError:  # half a UTF-16 pair a program gave: no byte behind
            return text.encode(errors="replace").decode()
    return text


# `here=`: a folder, or several (any of them), as text or as a path (`Home.at` takes one)
Folders = str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None


def folder_texts(here: Folders) -> str | list[str] | None:
    """`here` with each folder given as a path in its text."""
    if here is None or isinstance(here, str | os.PathLike):
        return here if here is None else os.fspath(here)
    return [os.fspath(folder) for folder in here]


def storable_folders(here: Folders) -> str | list[str] | None:
    """`here` (`list_sessions`'s, `find_sessions`'s) with each folder `storable`."""
    texts = folder_texts(here)
    if texts is None or isinstance(texts, str):
        return texts if texts is None else storable(texts)
    return [storable(folder) for folder in texts]
