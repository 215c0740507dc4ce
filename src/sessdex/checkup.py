"""What `doctor` reports: per app, where sessdex looked, what it found and what it could
not read; what sessdex keeps of its own; and the one-line warnings that point a run's
skipped input to it.

Not the reading itself (the index and the sources do that). Nothing here names an app.
"""

from __future__ import annotations

import contextlib
import os
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, cast

from . import files, folders, hints, reading, sources
from .calls import app_names, open_index
from .diagnostics import (
    AT_BYTE,
    FILE_REFUSED,
    NOT_LINES,
    UNDATED,
    Diagnostics,
    damaged_lines,
    is_damage,
    numbered,
    place,
    undated,
    unreadable_lines,
)
from .index import Progress, RefreshReport, Row, once_more_if_damaged
from .indexscan import locate_source
from .selection import refused_files
from .sources import Home

if TYPE_CHECKING:
    from .sources import Location


@dataclass(frozen=True, slots=True)
class OwnFiles:
    """What sessdex keeps of its own, in its cache folder (all of it rebuildable)."""

    folder: str  # the cache folder, as set (SESSDEX_HOME, XDG_CACHE_HOME)
    index: str  # this home's index
    index_bytes: int
    other_indexes: int  # other homes indexed (--home, other overrides)
    other_index_bytes: int  # what their indexes, and those of other builds, weigh
    snapshots: int  # copies of apps' databases in WAL mode
    snapshot_bytes: int
    passes: int = 0  # big transcripts' first-pass state (`passcache`)
    pass_bytes: int = 0
    other_builds: int = 0  # indexes other builds of sessdex wrote (kept a week)
    # why the cache folder cannot be written: its files go to temporary folders then
    problem: str | None = None
    index_kept: bool = True  # False: a temporary index stands in for each run
    index_sessions: int = 0  # sub-agents' own sessions included
    index_subagents: int = 0
    snapshot_folder: str = ""

    def record(self) -> dict[str, object]:
        """What `doctor --own --json` prints: where the files are, never what they hold."""
        return {
            "cache_folder": self.folder,
            "cache_problem": self.problem,
            "index": self.index,
            "index_kept": self.index_kept,
            "index_bytes": self.index_bytes,
            "index_sessions": self.index_sessions,
            "index_subagents": self.index_subagents,
            "other_indexes": self.other_indexes,
            "other_builds": self.other_builds,
            "other_index_bytes": self.other_index_bytes,
            "snapshots_folder": self.snapshot_folder,
            "snapshots": self.snapshots,
            "snapshot_bytes": self.snapshot_bytes,
            "passes": self.passes,
            "pass_bytes": self.pass_bytes,
        }


def own_files(home: Home) -> OwnFiles:
    """Where sessdex's index and database snapshots are, and what they weigh."""
    from . import passcache
    from .index import index_file
    from .indexfile import cache_folder
    from .paths import cache_problem, index_kept, snapshot_dir

    mine = index_file(home)
    key, build = mine.stem.rsplit("-", 1)  # index-<home>-<build>.sqlite
    homes: set[str] = set()
    builds = others_bytes = 0
    for path in mine.parent.glob("index-*.sqlite"):  # the cache's, or `index_dir`'s
        if path != mine:
            other_key, other_build = path.stem.rsplit("-", 1)
            homes.add(other_key)
            builds += other_build != build
            others_bytes += _file_bytes(path)
    from .databases import folder_size

    snapshot_folder = snapshot_dir()
    snapshots = [f for f in snapshot_folder.iterdir() if f.is_dir()]
    passes, pass_bytes = passcache.usage()
    sessions, subagents = _sessions_held(mine)
    return OwnFiles(
        folder=cache_folder(),
        index=str(mine),
        index_bytes=_file_bytes(mine),
        other_indexes=len(homes - {key}),  # an upgrade's old index is no other home
        other_index_bytes=others_bytes,
        snapshots=len(snapshots),
        snapshot_bytes=sum(folder_size(f) for f in snapshots),
        passes=passes,
        pass_bytes=pass_bytes,
        other_builds=builds,
        problem=cache_problem(),
        index_kept=index_kept(),
        index_sessions=sessions,
        index_subagents=subagents,
        snapshot_folder=str(snapshot_folder),
    )


def _sessions_held(path: Path) -> tuple[int, int]:
    """(sessions, of them sub-agents') the index at `path` holds; (0, 0) for none yet.
    Read only: `doctor --own` builds nothing."""
    import sqlite3

    from .indexfile import sqlite_uri

    if not path.is_file():
        return 0, 0
    try:
        uri = sqlite_uri(path, "mode=ro")
        with contextlib.closing(sqlite3.connect(uri, uri=True, timeout=1)) as db:
            total, nested = db.execute(
                "SELECT count(*), count(parent_id) FROM sessions"
            ).fetchone()
    except sqlite3.Error:  # busy, damaged, an older build's schema: nothing to count
        return 0, 0
    return int(total), int(nested)


def _file_bytes(path: Path) -> int:
    """A SQLite file's size with its WAL."""
    total = 0
    for suffix in ("", "-wal"):
        with contextlib.suppress(OSError):
            total += os.stat(f"{path}{suffix}").st_size
    return total


@dataclass(slots=True)
class AppReport:
    """What `doctor` found of one app: where it looked, what it found and could not read."""

    app: str
    title: str  # the app's name for people (its source's TITLE), no session's title
    checked_with: str
    # None: the source could not say where (see `diagnostics.problems`)
    root: str | None
    override: str | None
    exists: bool
    sessions: int  # sub-agents' own sessions included
    files: int
    versions: dict[str, int]
    diagnostics: Diagnostics
    also: tuple[str, ...] = ()  # other folders the app writes to that exist here
    newer: dict[str, int] = field(
        default_factory=dict
    )  # versions past what was checked
    subagents: int = 0  # of `sessions`, those a sub-agent ran
    # what the app keeps where sessdex cannot read it (a source's `doctor_notes`)
    notes: tuple[str, ...] = ()
    # the variables the app (and so sessdex) reads for a folder kept elsewhere
    env_vars: tuple[str, ...] = ()
    # where it looked, in words, for a source whose files are not under `root` (its
    # `looked_in`); empty: `root`
    looked: tuple[str, ...] = ()

    def record(self) -> dict[str, object]:
        """The report as `doctor --json` prints it."""
        return {
            "app": self.app,
            "title": self.title,
            "checked_with": self.checked_with,
            "root": self.root,
            "looked_in": list(self.looked) or ([self.root] if self.root else []),
            "also": list(self.also),
            "override": self.override,
            "exists": self.exists,
            "sessions": self.sessions,
            "subagents": self.subagents,
            "files": self.files,
            "versions": self.versions,
            "newer_than_checked": self.newer,
            "skipped_lines": dict(self.diagnostics.skipped),
            # where, as -v names them (line 0: the whole file); bounded like -v
            "skipped_at": [
                place(path, line, reason)
                for path, line, reason in self.diagnostics.details
                if not is_damage(reason)
            ],
            # lines read and shown with damage (bytes not UTF-8 shown as U+FFFD)
            "damaged_lines": dict(self.diagnostics.damaged),
            "damaged_at": [
                place(path, line, reason)
                for path, line, reason in self.diagnostics.details
                if is_damage(reason)
            ],
            "unknown_record_types": dict(self.diagnostics.unknown),
            "problems": list(self.diagnostics.problems),
            "passed_over": dict(self.diagnostics.passed_over),
            # files whose last line has no newline yet and does not parse (no skipped line)
            "unfinished_last_lines": dict(sorted(self.diagnostics.unfinished.items())),
            "notes": list(self.notes),
            "env_vars": list(self.env_vars),
        }


@once_more_if_damaged
def doctor(
    home: Home,
    apps: Sequence[str] = (),
    progress: Progress | None = None,
    *,
    read_all: bool = False,
    read_progress: Progress | None = None,
) -> list[AppReport]:
    """Per app: where sessdex looked, what it found, what it skipped and why.

    With `read_all`, every transcript is read too (one at a time, as `show` reads it), so
    that record types only the middle of a transcript holds, and the lines it could not
    read, are counted as well. The apps with a problem come first, then those with
    sessions, then those whose folder holds none, then those not found, each group in
    the registry's order; each app's versions go oldest first, by number.

    An app the refresh left as it was (`RefreshReport.kept`) is said without loading
    its source where it can: where its last noted scan looked, and what `_facts` keeps
    of it; its source loads only for a hook it has (`found`, `doctor_notes`, `looked_in`)
    that its noted scan did not answer (`indexscan.answers`)."""
    from .sources import _facts

    apps = app_names(apps)
    index, report = open_index(home, apps, progress)
    # the index may read this home by another path to it (a link): where it looked is
    # said by the path the user gave
    relinked = index.home.path != home.path
    scanned_home = index.home
    try:
        stats = index.app_stats()
        rows = index.rows(apps=list(apps), include_subagents=True) if read_all else []
    finally:
        index.close()
    deep = _reader(rows, read_progress) if read_all else None
    reports = []
    if relinked:  # said by the other path: each source asked again
        report.kept_found, report.kept_looked = {}, {}
    for name in apps or sources.BUILTIN:
        entry = stats.get(name, {})
        location = report.locations.get(name)
        if name in report.kept:  # left as it was: where its noted scan looked
            location = report.kept_locations[name]
            if _hooked(name, location, report, bool(entry.get("files"))):
                # its source loads: located as its scan would
                locate_source(scanned_home, sources.get(name), report)
                location = report.locations.get(name)
        if location is not None and relinked:
            location = sources.get(name).locate(home)
        diagnostics = entry.get("diagnostics")
        if not isinstance(diagnostics, Diagnostics):
            diagnostics = Diagnostics()
        if name in report.failures:
            diagnostics.problem(report.failures[name])
        if location is not None and (missing := _missing_override(location)):
            diagnostics.problem(missing)
        # what this refresh's scan met (the files it parsed are in the stats already)
        scanned = report.diagnostics.get(name, Diagnostics())
        for problem in scanned.problems:
            diagnostics.problem(problem)
        # what a parse's own listing passed over is in the stats, this run's too
        diagnostics.passed_over.update(report.passed_over.get(name, {}))
        kept = set(diagnostics.details)
        diagnostics.details.extend(
            d
            for d in scanned.details
            if (d[2] in scanned.passed_over or d[2] in NOT_LINES) and d not in kept
        )
        versions = entry.get("versions", {})
        if not isinstance(versions, dict):
            versions = {}
        versions = dict(
            sorted(versions.items(), key=lambda item: version_order(item[0]))
        )
        if deep is not None:
            # a line the listing met (a broken head line) is met again by the read:
            # counted once
            read = Diagnostics()
            deep(name, read)
            _number_by_bytes(diagnostics, read)
            diagnostics.update_unseen(read)
        reports.append(
            AppReport(
                app=name,
                title=sources.TITLES[name],
                checked_with=_facts.CHECKED_WITH[name],
                root=str(location.root) if location else None,
                override=location.override if location else None,
                exists=bool(
                    location and (entry.get("files") or _found(name, location, report))
                ),
                sessions=int(entry.get("sessions", 0)),  # type: ignore[call-overload]
                subagents=int(entry.get("subagents", 0)),  # type: ignore[call-overload]
                files=int(entry.get("files", 0)),  # type: ignore[call-overload]
                versions=versions,
                diagnostics=diagnostics,
                # os.path's: Path.is_dir raises where a folder above may not be entered
                also=tuple(str(p) for p in location.also if os.path.isdir(p))
                if location
                else (),
                newer=_newer_than_checked(_facts.NEWEST_CHECKED[name], versions),
                notes=_notes(name, location, diagnostics),
                env_vars=_facts.ENV_VARS[name],
                looked=report.kept_looked[name]
                if name in report.kept_looked
                else _looked(name, location, diagnostics),
            )
        )
    # a stable sort: what the user has to act on first
    reports.sort(
        key=lambda r: (not r.diagnostics.problems, r.sessions == 0, not r.exists)
    )
    return reports


def _missing_override(location: Location) -> str | None:
    """A variable that sends sessdex (and the app) to a folder that is not there: every
    session kept in the usual place is hidden, which reads as "not installed"."""
    if not location.override or location.exists:
        return None
    for said in location.override.split(", "):
        name, equals, value = said.partition("=")
        if equals and value and name.isupper() and not os.path.lexists(value):
            return (
                f"{said} names a folder that does not exist, and sessdex looks only "
                f"there: point {name} at the folder the app writes to, or unset it"
            )
    return None


# The folders of a --home looked in for the home it may have meant: one copied with its
# `home/` inside, given one level too high. A folder of thousands is not read through.
CHILDREN_LOOKED = 64


def home_below(home: Home) -> tuple[Path, list[str]] | None:
    """The first folder directly in `home` (of its first CHILDREN_LOOKED, by name; a
    hidden one, an app's own `.claude`, is none) in which an app's folder is, as a
    --home given that folder would find it, and the titles of those apps; None where
    there is none. One level only, and cheap: the folders the sources' facts name are
    stat-ed, and only a source whose folder is there and shared is loaded to say."""
    try:
        with os.scandir(home.path) as listing:
            children = sorted(
                entry.path
                for entry, _ in zip(listing, range(CHILDREN_LOOKED), strict=False)
                if not entry.name.startswith(".")
                and entry.is_dir(follow_symlinks=False)
            )
    except OSError:
        return None
    for child in children:
        below = Home.at(child)
        titles = [
            sources.TITLES[name] for name in sources.BUILTIN if _found_in(below, name)
        ]
        if titles:
            return below.path, titles
    return None


def home_elsewhere(home: Home, command: str, opening: str | None = None) -> str | None:
    """Where a --home holds no app's folder, what a folder just inside it holds and the
    line that reads it (a copied home given one level too high), or the home above it
    whose app's folder it is (`~/.claude` given, one level too low), said as a hint
    after `opening` (by default "No agent sessions in the --home folder yet") ending
    with the line of `command` that reads it; else None."""
    if hints.given_home() is None:  # the user's own home: no copy given too high
        return None
    # one holding an app's files (`usage` of sessions that counted no token) is meant
    if any(_found_in(home, name) for name in sources.BUILTIN):
        return None
    from .views.text import one_line

    opening = opening or f"No agent sessions {hints.where()} yet"
    found = home_below(home)
    if found is not None:
        folder, titles = found
        return (
            f"{opening}; its folder {one_line(folder.name)!r} holds "
            f"{', '.join(titles)}'s: {hints.named_at(str(folder), command)} reads them."
        )
    found = home_above(home)
    if found is None:
        return None
    folder, titles = found
    return (
        f"{opening}: it is part of {', '.join(titles)}'s folder, and --home takes the "
        f"home that folder is in: {hints.named_at(str(folder), command)} reads them."
    )


# How far above a --home given as an app's own folder, or a folder in it (`~/.claude`,
# `~/.codex/sessions`, `~/.local/share/opencode`), the home around it is looked for.
LEVELS_LOOKED_UP = 4


def home_above(home: Home) -> tuple[Path, list[str]] | None:
    """The nearest folder above `home` (up to LEVELS_LOOKED_UP levels) that is a home
    in which `home` is part of an app's folder, as a --home given that folder would find
    it, and the titles of those apps; None where there is none. `home` must be on the
    way to an app's folder (`.local/share` of `.local/share/goose`) or in it, so that a
    home given beside the apps' folders (`.local/share/myproject`) is sent nowhere."""
    for above in list(home.path.parents)[:LEVELS_LOOKED_UP]:
        around = Home.at(above)
        titles = [
            sources.TITLES[name]
            for name in sources.BUILTIN
            if _on_the_way(home.path, around, name) and _found_in(around, name)
        ]
        if titles:
            return around.path, titles
    return None


def _on_the_way(given: Path, home: Home, name: str) -> bool:
    """Whether `given` is a folder above app `name`'s folder in `home`, or in it, as its
    facts say. A folder other programs share (`.config`, Cline's) is the app's only
    from above: `.config/foo` is no part of Cline's."""
    from .exports import declared_location
    from .sources import _facts

    location = declared_location(home, name)
    if location is None or not location.root.is_relative_to(home.path):
        return False
    if location.root.is_relative_to(given):
        return True
    return given.is_relative_to(location.root) and "found" not in _facts.HOOKS[name]


def _found_in(home: Home, name: str) -> bool:
    """Whether app `name`'s folder is in `home` (one no variable moves) and holds a file
    its scan lists: a project's `.claude/` holds its settings, no session. Its source
    is loaded only where the folder is there."""
    from .exports import declared_location

    location = declared_location(home, name) or sources.get(name).locate(home)
    if not location.exists:
        return False
    # a folder other programs share (`.config`, Cline's): the app's own folders in it,
    # as its facts name them, are looked for before its source is loaded (a warm
    # `list` of a home holding only `.config/fontconfig` loaded Cline, Kilo, Roo)
    if location.owned is not None and not any(map(folders.is_dir, location.owned)):
        return False
    source = sources.get(name)
    if not app_found(source, location):
        return False
    from .errors import SessdexError

    try:  # the first file alone: a scan lists folders and opens nothing
        return next(iter(source.scan(location)), None) is not None
    except (OSError, SessdexError):  # a hint is no reason to fail
        return False


def app_found(source: sources.Source, location: Location) -> bool:
    """Whether the app is there: its folder, or, where that folder is one other programs
    share, a folder of its own (a source's `found`)."""
    if not location.exists:
        return False
    found = getattr(source, "found", None)
    return bool(found(location)) if callable(found) else True


def _hook(name: str, hook: str) -> Callable[[Location], Iterable[object]] | None:
    """The source's `hook` where it has one (`_facts` says which), else None: a source
    with none of them is not loaded to say so."""
    from .sources import _facts

    if hook not in _facts.HOOKS[name]:
        return None
    found = getattr(sources.get(name), hook, None)
    return (
        cast("Callable[[Location], Iterable[object]]", found)
        if callable(found)
        else None
    )


def _hooked(name: str, location: Location, report: RefreshReport, files: bool) -> bool:
    """Whether doctor calls a hook of the kept source for `location` (see `_hook`): it
    is loaded then, and given the location its `locate` says (an app's own kind of it).
    What its noted scan answered (`report.kept_found`, `kept_looked`) is not asked
    again, nor `found` of an app with files."""
    from .sources import _facts

    hooks = _facts.HOOKS[name]
    if "looked_in" in hooks and name not in report.kept_looked:
        return True
    if not location.exists:
        return False
    asks = "found" in hooks and not files and name not in report.kept_found
    return asks or "doctor_notes" in hooks


def _found(name: str, location: Location, report: RefreshReport) -> bool:
    """`app_found`, loading the source only where it has a `found` of its own that
    its noted scan did not answer."""
    if not location.exists:
        return False
    if name in report.kept_found:
        return report.kept_found[name]
    found = _hook(name, "found")
    return bool(found(location)) if found is not None else True


def kept_app_found(home: Home, name: str, report: RefreshReport) -> bool:
    """`app_found` of an app the refresh left as it was (`report.kept`), from where
    its noted scan looked and what it answered: its source loads only where that scan
    answered nothing (an index noted before it kept the answer)."""
    from .sources import _facts

    location = report.kept_locations[name]
    if not location.exists:
        return False
    if name not in report.kept_found and "found" in _facts.HOOKS[name]:
        source = sources.get(name)
        return app_found(source, source.locate(home))
    return _found(name, location, report)


def _notes(
    name: str, location: Location | None, diagnostics: Diagnostics
) -> tuple[str, ...]:
    """What a source's `doctor_notes` says of the app's store; a failure is a problem."""
    given = location.notes if location is not None else ()
    if location is None or not location.exists:
        return given
    notes = _hook(name, "doctor_notes")
    if notes is None:
        return given
    try:
        return given + tuple(str(note) for note in notes(location))
    except Exception as error:  # one app's odd store never hides the others' reports
        if os.environ.get("SESSDEX_DEBUG"):
            raise
        diagnostics.reader_failed(name, str(location.root), error)
        return given


def _looked(
    name: str, location: Location | None, diagnostics: Diagnostics
) -> tuple[str, ...]:
    """Where a source whose files are not under its root looked, as its `looked_in`
    says (Aider: history files in the home and in project folders); a failure is a
    problem, and the root is said instead."""
    if location is None:
        return ()
    looked = _hook(name, "looked_in")
    if looked is None:
        return ()
    try:
        return tuple(str(place) for place in looked(location))
    except Exception as error:  # one app's odd store never hides the others' reports
        if os.environ.get("SESSDEX_DEBUG"):
            raise
        diagnostics.reader_failed(name, str(location.root), error)
        return ()


def checked_briefly(report: AppReport) -> str:
    """What an app was checked with, on one short line, as plain `doctor` says it: the
    first clause of `checked_with` (`Claude Code 1.0.98 to 2.1.332`), and the newest
    version checked where that clause stops short of it (the rest is provenance)."""
    import re

    from .sources import _facts

    first = re.split(r" \(|; |, ", report.checked_with, maxsplit=1)[0]
    newest = _facts.NEWEST_CHECKED.get(report.app)
    if not newest:
        return first
    # named whole: 2.1.3 is not named by 2.1.332, nor by 2.1.3-beta
    named = re.search(rf"(?<![\w.-]){re.escape(newest)}(?![\w-]|\.\w)", first)
    return first if named else f"{first}; newest {newest}"


def _newer_than_checked(newest: str | None, versions: object) -> dict[str, int]:
    """The app versions seen in files that are newer than any sessdex was checked with:
    where records it does not know yet are likeliest (a source's `NEWEST_CHECKED`)."""
    if not newest or not isinstance(versions, dict):
        return {}
    limit = version_key(newest)
    return {
        version: count
        for version, count in versions.items()
        if isinstance(version, str)
        and isinstance(count, int)
        and (key := version_key(version))
        and key > limit
    }


def version_order(version: object) -> tuple[bool, tuple[int, ...], str]:
    """A sort key putting versions in numeric order (`0.50.0` before `0.106.0`), the
    ones with no leading number last."""
    text = str(version)
    key = version_key(text)
    return (not key, key, text)


def version_key(version: str) -> tuple[int, ...]:
    """`2.1.220` -> (2, 1, 220); `v0.171.0-alpha.3` -> (0, 171, 0); () when no number leads."""
    import re

    found = re.match(r"v?(\d+(?:\.\d+)*)", version.strip())
    return tuple(int(part) for part in found.group(1).split(".")) if found else ()


def refused_summaries(report: RefreshReport) -> list[str]:
    """One warning line per app with files this refresh was not let open: the sessions
    in them may be missing from the listing (an unreadable line only cuts one short)."""
    said = []
    for app, diagnostics in sorted(report.diagnostics.items()):
        count = diagnostics.skipped[FILE_REFUSED]
        if not count:
            continue
        # past MAX_DETAILS no file is named: the count alone is said
        named = [p for p, _, why in diagnostics.details if why == FILE_REFUSED]
        example = named[0] if named else None
        said.append(refused_files(app, count, example, hints.see_each()))
    return said


def undated_summary(report: RefreshReport) -> str | None:
    """One warning line for the sessions this refresh listed without an odd time (past
    the clock and its slack, or not after 1970), or None: kept, not unreadable lines."""
    count = sum(d.undated_total for d in report.diagnostics.values())
    if not count:
        return None
    said = undated(count, "session", "listed without that time")
    return f"{said}; see {hints.see_each()}"


def damaged_summary(report: RefreshReport) -> str | None:
    """One warning line for the lines this refresh read with damage (bytes that are not
    UTF-8, shown as U+FFFD), or None: read and shown, not unreadable lines."""
    damaged: Counter[str] = Counter()
    files: dict[str, set[str]] = {}
    for app, diagnostics in report.diagnostics.items():
        damaged.update(diagnostics.damaged)
        for path, _, reason in diagnostics.details:
            if is_damage(reason):
                files.setdefault(app, set()).add(path)
    if not damaged:
        return None
    where = _files_per_app(files)
    where = f" in {where}" if where else ""  # past MAX_DETAILS no file is named
    return f"{damaged_lines(damaged)}{where}; see {hints.see_each()} or {hints.named('doctor')}"


def _files_per_app(files: dict[str, set[str]]) -> str:
    """`2 claude files, 1 codex file`: where a warning's lines are."""
    return ", ".join(
        f"{len(paths)} {app} file{'s' if len(paths) != 1 else ''}"
        for app, paths in sorted(files.items())
    )


def skipped_summary(report: RefreshReport) -> str | None:
    """One warning line for what this refresh could not read, or None (the files it
    was not let open are `refused_summaries`)."""
    lines = 0
    files: dict[str, set[str]] = {}
    for app, diagnostics in report.diagnostics.items():
        lines += (
            diagnostics.skipped_total
            - diagnostics.skipped[FILE_REFUSED]
            - diagnostics.undated_total
        )
        for path, _, reason in diagnostics.details:
            # a name passed over is no unreadable line (said by its own warning, if any)
            if (
                reason not in NOT_LINES
                and reason not in diagnostics.passed_over
                and reason != FILE_REFUSED
                and reason not in UNDATED
                and not is_damage(reason)
            ):
                files.setdefault(app, set()).add(path)
    if not lines:
        return None
    where = _files_per_app(files)
    see = hints.see_each()
    return f"{unreadable_lines(lines)} in {where}; see {see} or {hints.named('doctor')}"


def _reader(
    rows: Sequence[Row], progress: Progress | None
) -> Callable[[str, Diagnostics], None]:
    """Reads every top-level session of an app into its diagnostics (sub-agents come
    with their parent, as `show` reads them)."""
    ids = {(row.app, row.id) for row in rows}
    chosen = [
        row
        for row in rows
        if not ((parent := row.session().parent_id) and (row.app, parent) in ids)
    ]
    done = [0]
    if progress is not None:  # the reading begins (its first file may be 2 GB)
        progress(0, len(chosen))

    def read(name: str, diagnostics: Diagnostics) -> None:
        # each read may look through its folder for a thread's other files (its parent,
        # its children): the folder's listing kept for the app's reads, not made again
        # for each of its thousands of sessions
        with folders.one_pass():
            for row in chosen:
                if row.app != name:
                    continue
                source = sources.get(name)  # loaded for an app with sessions alone
                session = row.session()
                events = source.read(session, diagnostics)
                for _event in reading.guarded(
                    events, diagnostics, session
                ):  # a broken one: noted
                    pass
                done[0] += 1
                if progress is not None:
                    progress(done[0], len(chosen))

    return read


def _number_by_bytes(listed: Diagnostics, read: Diagnostics) -> None:
    """Name by its number each line `listed` named by the byte it starts at (a listing
    reads a big file's tail, where lines have no number) where the full `read` numbered
    lines of that file for that reason: the same line then has the same name in both,
    and is counted once (`update_unseen`), not once by its byte and again by its number.
    The number is the one the read gave the line starting there (`Diagnostics.starts`);
    only where its reader did not say where its lines start is the file read again, up
    to the last such line (`files.line_numbers`)."""
    numbered_in_read = {(p, r) for p, n, r in read.details if numbered(n)}
    by_file: dict[str, list[int]] = {}
    for path, line, reason in listed.details:
        if line >= AT_BYTE and (path, reason) in numbered_in_read:
            by_file.setdefault(path, []).append(line - AT_BYTE)
    if not by_file:
        return
    started = {(p, start): n for (p, n), start in read.starts.items() if p in by_file}
    numbers: dict[tuple[str, int], int] = {}
    for path, offsets in by_file.items():
        unknown = [o for o in offsets if (path, o) not in started]
        try:
            counted = files.line_numbers(path, unknown) if unknown else {}
        except OSError:  # gone or changed since: each keeps its byte
            counted = {}
        for offset in offsets:
            number = started.get((path, offset), counted.get(offset))
            if number is not None:
                numbers[(path, offset)] = number
    # one pass over the details, whatever the number of files
    listed.details[:] = [
        (p, numbers.get((p, n - AT_BYTE), n), r)
        if n >= AT_BYTE and (p, r) in numbered_in_read
        else (p, n, r)
        for p, n, r in listed.details
    ]
