"""A warm `sessdex list` or `find` (table, `--json` or `--nl`), answered from the index alone.

People, scripts and editor plugins run `sessdex list` all the time, almost always when
nothing has changed. The full command would import click, the model and every source just
to find that out. This path imports only the standard library and checks, in one read
transaction of the index:

1. every selected app has a noted scan (`freshness`): the environment its `locate` read is
   unchanged, and every folder its scan listed, every path it probed, looks the same;
2. every file the index holds for those apps has its recorded size, mtime, inode and WAL
   (a top-level listing skips files that hold only sub-agents, and their folders).

Then the index's ready-made records are the answer, byte for byte what the full command
prints. When only a few files changed (a live session grows all the time), those files
are re-read into the index first, loading just their sources. Anything else (an option
this path does not handle, a new folder, no index yet) returns False, and the full
command runs and refreshes the index.
"""

from __future__ import annotations

import marshal
import os
import sqlite3
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence

from . import charset, freshness, hints, selection
from .errors import IndexBusy, SessdexError
from .indexfile import (
    SCHEMA_VERSION,
    SNAPSHOTS_SWEPT,
    cache_folder,
    index_name,
    kept_elsewhere_said,
    kept_index,
    rehomed_records,
    say_kept_elsewhere,
    set_aside_if_damaged,
)
from .sources import BUILTIN, canonical

# `typing` costs a warm listing time it does not spend otherwise (see launch.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn

    from .freshness import FileSignature


class _Request:
    """What `sessdex list`/`find` was asked for, when this path can answer it."""

    def __init__(self, command: str) -> None:
        self.command = command
        self.words: list[str] = []  # find's query
        self.as_json = False
        self.as_nl = False
        self.home: str | None = None
        self.apps: list[str] = []
        self.limit: int | None = None
        self.since: str | None = None
        self.until: str | None = None
        self.here = False
        self.include_subagents = False


_VALUED = ("--home", "--app", "--limit", "-n", "--since", "--until")
# More changed files than this, and the full command re-reads them, on every core.
MAX_REREAD = 32
# How long a tab press waits for another sessdex writing the index, before it offers
# what the index holds as it stands.
TAB_WAIT_MS = 200
# How long a tab press may spend listing again an app whose folders changed (a session
# begun since): past that (an app of many thousands of files), the index as it stands.
TAB_SCAN_MS = 200


def _parse(command: str, args: Sequence[str]) -> _Request | None:
    """The request, or None for anything the full command should handle (or reject)."""
    request = _Request(command)
    position = 0
    while position < len(args):
        arg = args[position]
        name, equals, value = arg.partition("=")
        if not arg.startswith("-"):
            if command != "find":
                return None
            request.words.append(arg)
            position += 1
            continue
        if name in _VALUED and not equals:
            position += 1
            if position == len(args):
                return None
            value = args[position]
        elif equals and (name not in _VALUED or name == "-n"):
            return None
        if arg == "--json":
            request.as_json = True
        elif arg == "--nl":
            request.as_nl = True
        elif arg == "--all":
            request.include_subagents = True
        elif arg == "--here":
            request.here = True
        elif name == "--home" and request.home is None:
            request.home = value
        elif name == "--since" and request.since is None and value.strip():
            request.since = value
        elif name == "--until" and request.until is None and value.strip():
            request.until = value
        elif name == "--app" and canonical(value) in BUILTIN:
            request.apps.append(
                canonical(value)
            )  # `claude-code` too, as --app takes it
        elif name in ("--limit", "-n") and request.limit is None:
            if not value.isdigit() or int(value) < 1:
                return None
            request.limit = min(int(value), 10**9)  # as the full command clamps it
        else:
            return None  # unknown, repeated or invalid: the full command explains
        position += 1
    if request.as_json and request.as_nl:
        return None
    if command == "find" and not "".join(request.words).strip():
        return None  # no word, or only blank ones: the full command says what to give
    return request


def _home(request: _Request) -> tuple[str, Mapping[str, str]] | None:
    """(home folder, environment) as `Home.at`/`Home.current` would make them."""
    environ: Mapping[str, str] = os.environ if request.home is None else {}
    path = as_home_at(os.path.expanduser("~") if request.home is None else request.home)
    if path is None:
        return None
    if request.home is not None and not os.path.isdir(path):
        return None  # the full command says what is wrong with it
    return path, environ


def as_home_at(given: str) -> str | None:
    """`str(Path(given).expanduser().absolute())`, as `Home.at` names the index, without
    importing pathlib: `~` expanded, relative to the working folder, repeated slashes and
    `.` parts dropped, `..` kept. None where pathlib might differ (or fail): the full command
    takes those."""
    if os.sep != "/" or not given:
        return None
    if given[:1] == "~":
        user, slash, rest = given.partition("/")
        expanded = os.path.expanduser(user)
        if expanded[:1] == "~":
            return None  # an unknown user: pathlib raises, the full command says so
        given = expanded + slash + rest
    if given[:1] != "/":
        try:
            given = os.getcwd() + "/" + given
        except OSError:
            return None  # the working folder is gone
    if given[:2] == "//" and given[2:3] != "/":
        return None  # POSIX leaves a leading "//" to the system; pathlib keeps it
    return "/" + "/".join(part for part in given.split("/") if part not in ("", "."))


class _Plan:
    """The apps whose files must be unchanged, and the query over the index."""

    def __init__(self, request: _Request, home: str) -> None:
        apps: Sequence[str] = request.apps
        self.scoped: Sequence[tuple[str, str]] = ()
        words: Sequence[str] = ()
        first_prefix = None
        self.query: selection.Query | None = None  # find's, for the words it suggests
        if request.command == "find":
            query = self.query = selection.parse_query(" ".join(request.words), home)
            chosen = selection.selected_apps(request.apps, query)
            if chosen is None:
                raise SessdexError("apps exclude each other")  # the full command copes
            apps, words, self.scoped = chosen, query.words, query.scoped
            first_prefix = query.id_prefix
        self.checked = sorted(set(apps or BUILTIN))
        self.table = not (request.as_json or request.as_nl)
        # `list --all`, `find --all`: each sub-agent under its lead
        # (selection.under_leads), the limit taken of that order, so cut here rather
        # than in the query
        self.grouped = request.include_subagents
        self.limit = request.limit
        columns = _TABLE_COLUMNS if self.table else "record"
        if self.grouped and not self.table:
            columns += ", app, id, " + selection.LEAD_COLUMNS
        since, until = selection.parse_bounds(request.since, request.until)
        if since is not None and until is not None and since >= until:
            raise SessdexError("an empty span")  # the full command says so
        under = selection.here_folders() if request.here else None
        near = None
        if request.command == "find" and under is None:
            near = selection.project_folders()
        # where `list --here` matched nothing: the folder above it to name, where
        # sessions of the same span are
        self.above_from = under if request.command == "list" else None
        self.bounds = (since, until)
        self.sql, self.args = selection.sessions_sql(
            columns,
            apps=apps,
            since=since,
            until=until,
            under=under,
            words=words,
            scoped=self.scoped,
            include_subagents=request.include_subagents,
            limit=None if self.grouped else request.limit,
            first_prefix=first_prefix,
            first_under=near,
            home=home,
        )
        # the sub-agents only --all lists, counted when nothing else matches (the hint
        # names them); the same moment and folders as the listing's
        self.hidden_sql, self.hidden_args = (
            ("", [])
            if request.include_subagents
            else selection.sessions_sql(
                "count(*)",
                apps=apps,
                since=since,
                until=until,
                under=under,
                words=words,
                scoped=self.scoped,
                include_subagents=True,
                home=home,
            )
        )
        # what the words match at any time and in any folder, counted when nothing
        # matches within --since or --here (the hint names the option that hid them)
        self.wider_sql, self.wider_args = (
            selection.sessions_sql(
                "count(*)",
                apps=apps,
                words=words,
                scoped=self.scoped,
                include_subagents=request.include_subagents,
                home=home,
            )
            if request.command == "find" and (since, until, under) != (None, None, None)
            else ("", [])
        )
        # the newest session `list --since` left out, whose age the hint names
        self.newest_sql, self.newest_args = (
            selection.sessions_sql(
                "updated",
                apps=apps,
                under=under,
                include_subagents=request.include_subagents,
                limit=1,
            )
            if request.command == "list" and since is not None and until is None
            else ("", [])
        )
        # unchanged files sessdex may not open, met by the checks: said with the answer
        self.refused: list[tuple[str, str]] = []
        # ... and what the reads of unchanged files said of the others they could not open
        self.problems: list[str] = []
        # a relative --since moves with the clock, and so do the table's ages: such an
        # answer is never kept
        self.key = (
            None
            if request.since or request.until or self.table
            else f"{request.as_json} {self.sql} {self.args} {self.limit}"
        )


def answer(command: str, args: Sequence[str]) -> bool:
    """Print what `sessdex COMMAND ARGS` would print, if the index can vouch for it."""
    request = _parse(command, args)
    if request is None:
        return False
    home = _home(request)
    if home is None:
        return False
    # as the full command's: its hints name options (`--since`) and quote ids for the
    # user's shell (`"m-1$$cal"` for cmd.exe), not for the library
    hints.on_command_line(True)
    hints.reading_home(request.home)  # the commands its hints name read that home too
    try:
        return _answer(request, home)
    finally:
        hints.reading_home(None)
        hints.on_command_line(False)


def index_path(home: tuple[str, Mapping[str, str]]) -> tuple[str, str | None] | None:
    """(the home's index file, the problem with the cache folder where the file is the
    one kept below the temporary folder instead), where the file exists: the one the full
    command would open."""
    folder = cache_folder()
    path = os.path.join(folder, index_name(*home))
    # one left in a cache folder made read-only since (a sandbox, a container) is not
    # the one the full command opens and brings up to date
    if os.path.isfile(path) and os.access(folder, os.W_OK | os.X_OK):
        return path, None
    return kept_index(*home)


def _answer(request: _Request, home: tuple[str, Mapping[str, str]]) -> bool:
    found_index = index_path(home)
    if found_index is None:
        return False
    path, problem = found_index
    snapshots = os.path.join(cache_folder(), "snapshots")
    if (
        problem is None
        and os.path.isdir(snapshots)
        and not os.path.exists(os.path.join(snapshots, SNAPSHOTS_SWEPT))
    ):
        # copies an earlier sessdex kept, logins among them: the full command sweeps
        return False
    try:
        plan = _Plan(request, home[0])
        found = _body_from_index(path, request, plan, home)
    except sqlite3.DatabaseError as error:
        # damage the full command might not meet (in what only this path reads) would
        # send every warm listing there: set aside now, the full command builds it again
        _warning_said(set_aside_if_damaged, path, error)
        return False
    except IndexBusy as error:
        # re-reading a grown session waited the whole busy timeout: the full command
        # would wait it again, then say this
        _say_busy(error)
    except (sqlite3.Error, SessdexError, OSError, UnicodeEncodeError):
        # busy, an unknown app, a word or folder that is no UTF-8: the full command
        # explains, or looks for it as text
        return False
    if found is None:
        return False
    if found in (b"[]\n", b"") and not plan.table:
        from .views.text import stderr_is_terminal

        if stderr_is_terminal():
            # the full command says why nothing matched (find chekout: checkout)
            return False
    if problem is not None and not kept_elsewhere_said():  # as the full command says it
        _warning_said(
            say_kept_elsewhere, cache_folder(), problem, os.path.dirname(path)
        )
    _say_refused(plan.refused, plan.problems)
    try:
        sys.stdout.buffer.write(found)
        sys.stdout.buffer.flush()
    except BrokenPipeError:
        sys.stderr.close()
    return True


def _say_busy(error: IndexBusy) -> NoReturn:
    """Say what the full command says of a busy index, and exit 1."""
    from .views.text import flat

    sys.stdout.flush()
    sys.stderr.write(f"Error: {flat(str(error))}\n")
    sys.exit(1)


def _warning_said(call: Callable[..., bool | None], *args: object) -> bool | None:
    """`call(*args)`, what it logs said as the full command says it (`warning: …`)."""
    from .launch import warnings_said

    done = warnings_said()
    try:
        return call(*args)
    finally:
        done()


def _body_from_index(
    path: str,
    request: _Request,
    plan: _Plan,
    home: tuple[str, Mapping[str, str]],
) -> bytes | None:
    """What to print, or None when the index cannot vouch for it."""
    environ = home[1]
    apps = plan.checked
    marks = ",".join("?" * len(apps))
    db = sqlite3.connect(path, isolation_level=None, timeout=0.2)
    try:
        if db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
            return None
        db.execute("BEGIN")  # one snapshot for the checks and the records
        scans = db.execute(
            f"SELECT app, environ FROM scans WHERE app IN ({marks})", apps
        ).fetchall()
        if len(scans) != len(apps):
            return None  # an app not scanned yet, or one whose scan cannot be noted
        if not all(freshness.environ_holds(key, environ) for _, key in scans):
            return None
        nested = "" if request.include_subagents else " AND nested = 0"
        for noted, what, value, inode in db.execute(
            f"SELECT path, what, value, inode FROM scan_paths WHERE app IN ({marks})"
            + nested,
            apps,
        ):
            if not freshness.still_holds(noted, what, value, inode):
                return None
        changed = _changed_files(db, apps, nested, plan.refused, plan.problems)
        if changed is None:
            return None
        if changed:  # a live session grew: re-read just those files, then answer
            db.execute("COMMIT")
            changed = _same_meaning(db, path, changed)
            if changed and not _warning_said(_bring_up_to_date, path, home, changed):
                return None
            db.execute("BEGIN")
        (generation,) = db.execute("SELECT value FROM generation").fetchone()
        if plan.key is not None:
            cached = db.execute(
                "SELECT body FROM listings WHERE request = ? AND generation = ?",
                (plan.key, generation),
            ).fetchone()
            if cached is not None:
                return _rehomed(db, bytes(cached[0]), home[0])
        if plan.scoped:
            db.create_function("_field", 2, selection.field, deterministic=True)
        if plan.table:
            rows = db.execute(plan.sql, plan.args).fetchall()
            if not rows:
                listed = db.execute(
                    f"SELECT 1 FROM sessions WHERE app IN ({marks}) LIMIT 1", apps
                ).fetchone()
                hidden = 0
                if listed and plan.hidden_sql:
                    if not _sub_agents_unchanged(db, apps):
                        return None  # the count would be stale: the full command reads
                    (hidden,) = db.execute(plan.hidden_sql, plan.hidden_args).fetchone()
                wider = 0
                if listed and plan.wider_sql:
                    (wider,) = db.execute(plan.wider_sql, plan.wider_args).fetchone()
                instead = None
                if listed and not hidden and not wider and plan.query is not None:
                    instead = selection.did_you_mean(
                        plan.query, _searches(db, apps, request.include_subagents)
                    )
                above = None
                if listed and not hidden and plan.above_from is not None:
                    above = _folder_above(
                        db, plan.above_from, apps, request, plan.bounds
                    )
                newest = None
                if listed and not hidden and plan.newest_sql:
                    row = db.execute(plan.newest_sql, plan.newest_args).fetchone()
                    newest = None if row is None or row[0] is None else float(row[0])
                db.execute("COMMIT")
                if not listed:
                    return None
                return _nothing_matches(
                    request, hidden, wider, instead or (), above, newest
                )
            ids = sorted(i for (i,) in db.execute("SELECT lower(id) FROM sessions"))
            db.execute("COMMIT")
            if plan.grouped:  # a sub-agent starts when it was created
                order = selection.under_leads([(*r[:2], r[7], r[3]) for r in rows])
                rows = [rows[n] for n in order[: plan.limit]]
            return _table(rows, home[0], ids, plan.grouped)
        if plan.grouped:
            found = db.execute(plan.sql, plan.args).fetchall()
            order = selection.under_leads([r[1:] for r in found])
            records = [found[n][0] for n in order[: plan.limit]]
        else:
            records = [record for (record,) in db.execute(plan.sql, plan.args)]
        body = _body(records, request)
        db.execute("COMMIT")
        if plan.key is not None:
            _remember(db, plan.key, generation, body)
        return _rehomed(db, body, home[0])
    finally:
        db.close()


def _rehomed(db: sqlite3.Connection, body: bytes, home: str) -> bytes:
    """The records of `body` with their paths under `home`, as the full command shows
    them, where the index reads that home by another path to it (`index.read_by`)."""
    try:
        row = db.execute("SELECT path FROM home").fetchone()
    except sqlite3.Error:
        return body
    if row is None or row[0] == home or not os.path.isabs(row[0]):
        return body
    if os.path.realpath(row[0]) != os.path.realpath(home):
        return body
    return rehomed_records(body, row[0], home)


def _sub_agents_unchanged(db: sqlite3.Connection, apps: list[str]) -> bool:
    """Whether the files and folders that hold only sub-agents, which a listing without
    --all never checks, are as the index read them: the hint counts those sub-agents."""
    marks = ",".join("?" * len(apps))
    for noted, what, value, inode in db.execute(
        f"SELECT path, what, value, inode FROM scan_paths WHERE app IN ({marks})"
        " AND nested = 1",
        apps,
    ):
        if not freshness.still_holds(noted, what, value, inode):
            return False
    return _changed_files(db, apps, " AND nested = 1") == []


def _clock() -> float:
    return time.time()


def _say_refused(refused: list[tuple[str, str]], problems: list[str]) -> None:
    """The full command's warning for the unchanged files sessdex may not open, per app:
    said on every listing, their sessions being missing (a refused folder's is, as the
    full command takes those); first the problems their readers said, as it does."""
    if not (refused or problems):
        return
    from .views.text import for_stderr

    for problem in problems:
        sys.stderr.write(for_stderr(f"warning: {problem}") + "\n")

    by_app: dict[str, list[str]] = {}
    for app, name in refused:
        by_app.setdefault(app, []).append(name)
    for app, names in sorted(by_app.items()):
        warning = selection.refused_files(app, len(names), names[0])
        sys.stderr.write(for_stderr(f"warning: {warning}") + "\n")  # as `err` does
    sys.stderr.flush()


def _changed_files(
    db: sqlite3.Connection,
    apps: list[str],
    nested: str,
    refused: list[tuple[str, str]] | None = None,
    problems: list[str] | None = None,
) -> list[tuple[str, str]] | None:
    """(app, path) of the files whose signature changed; None when too many, or gone.
    The unchanged ones sessdex may not open are added to `refused`, and so are the other
    files of their sessions the unchanged ones' reads could not open, with the problems
    those reads said of them added to `problems`."""
    marks = ",".join("?" * len(apps))
    packed = db.execute(
        f"SELECT app, python, packed FROM signatures WHERE app IN ({marks})" + nested,
        apps,
    ).fetchall()
    by_app: list[tuple[str, list[tuple[str, int, int, int, str]]]]
    if len(packed) == len(apps) * (1 if nested else 2) and all(
        python == freshness.PACKED_FORMAT for _, python, _ in packed
    ):
        by_app = [(app, marshal.loads(blob)) for app, _, blob in packed]
    else:  # an index written by another Python
        by_app = [
            (
                app,
                db.execute(
                    "SELECT path, size, mtime_ns, inode, wal FROM files WHERE app = ?"
                    + nested,
                    (app,),
                ).fetchall(),
            )
            for app in apps
        ]
    changed: list[tuple[str, str]] = []
    for app, signatures in by_app:
        shut: list[str] = []
        sides: list[str] = []
        paths = _changed(signatures, MAX_REREAD - len(changed), shut, sides)
        if paths is None:
            return None
        changed += [(app, path) for path in paths]
        if refused is not None:
            refused += [(app, path) for path in shut]
            for name in sides:
                _noted_refusals(db, app, name, refused, problems)
    return _read_again(db, apps, nested, changed)


def _read_again(
    db: sqlite3.Connection,
    apps: list[str],
    nested: str,
    changed: list[tuple[str, str]],
) -> list[tuple[str, str]] | None:
    """`changed`, with the files of `apps` one of whose parse's other files (see
    `freshness.depending`) changed, came or went since; None when too many."""
    marks = ",".join("?" * len(apps))
    looks: dict[str, str] = {}  # each stat'ed once, however many files read it
    more: dict[tuple[str, str], None] = {}
    look = freshness.read_signature
    for app, path, depended, signature in db.execute(
        f"SELECT app, path, depended, signature FROM depends WHERE app IN ({marks})"
        + nested,
        apps,
    ):
        now = looks.get(depended)
        if now is None:
            now = looks[depended] = look(depended)
        if now != signature and not freshness.holds(signature, now, depended):
            more[(app, path)] = None
    if not more:
        return changed
    have = set(changed)
    changed += [key for key in more if key not in have]
    return None if len(changed) > MAX_REREAD else changed


# diagnostics.FILE_REFUSED, the reason a refused file is noted with (that module loads
# dataclasses, which this path does not)
_FILE_REFUSED = "permission denied"


def _noted_refusals(
    db: sqlite3.Connection,
    app: str,
    name: str,
    refused: list[tuple[str, str]],
    problems: list[str] | None,
) -> None:
    """What the read of `name` said of the other files of its sessions it could not
    open, as the index noted it: the files (added to `refused`), and the problems the
    reader put in its own words (a Vibe store's manifest), added to `problems`."""
    diagnostics = "json(CAST(files.diagnostics AS TEXT))"
    (count,) = db.execute(
        f"SELECT json_extract({diagnostics}, '$.skipped.\"{_FILE_REFUSED}\"') "
        "FROM files WHERE path = ?",
        (name,),
    ).fetchone() or (None,)
    named = [
        shut
        for (shut,) in db.execute(
            f"SELECT json_extract(j.value, '$[0]') FROM files, json_each({diagnostics}, "
            "'$.details') AS j WHERE files.path = ? AND json_extract(j.value, '$[2]') = ?",
            (name, _FILE_REFUSED),
        )
    ]
    if isinstance(count, int) and count > 0 and named:  # past MAX_DETAILS: the first
        refused += [(app, named[min(i, len(named) - 1)]) for i in range(count)]
    if problems is not None:
        problems += [
            problem
            for (problem,) in db.execute(
                f"SELECT j.value FROM files, json_each({diagnostics}, '$.problems') "
                "AS j WHERE files.path = ?",
                (name,),
            )
            if problem not in problems
        ]


def freshen(home: tuple[str, Mapping[str, str]]) -> None:
    """Bring the home's index up to date for a tab press, where that is cheap, saying
    nothing: the files of an app whose noted scan holds that changed (a live session
    grew) are re-read, as a warm listing re-reads them; the apps whose folders changed
    (a session begun since) are scanned again, and their new files read, when there are
    at most MAX_REREAD of them and the scan takes at most TAB_SCAN_MS. Anything else (no
    index yet, an app never scanned or its environment changed, a new store of many
    files) leaves the index as it stands: never built, never refreshed whole here.
    Top-level sessions only."""
    found_index = index_path(home)
    if found_index is None:
        return
    path = found_index[0]
    changed: list[tuple[str, str]] = []
    moved: list[str] = []
    db = sqlite3.connect(path, isolation_level=None, timeout=0.2)
    try:
        if db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
            return
        db.execute("BEGIN")
        for app, key in db.execute("SELECT app, environ FROM scans").fetchall():
            if app not in BUILTIN or not freshness.environ_holds(key, home[1]):
                continue  # its folder may be another now: left for the full command
            holds = all(
                freshness.still_holds(noted, what, value, inode)
                for noted, what, value, inode in db.execute(
                    "SELECT path, what, value, inode FROM scan_paths"
                    " WHERE app = ? AND nested = 0",
                    (app,),
                )
            )
            files = _changed_files(db, [app], " AND nested = 0") if holds else None
            if files is None:
                moved.append(app)  # a new (or gone) file: scanned again, below
            else:
                changed += files
        db.execute("COMMIT")
    finally:
        db.close()
    if changed and len(changed) <= MAX_REREAD:
        _bring_up_to_date(path, home, changed, tab=True)
    if moved:
        _refresh_few(path, home, moved)


def _refresh_few(
    path: str, home: tuple[str, Mapping[str, str]], apps: list[str]
) -> None:
    """Scan the apps again, and read what is new or changed there, if that is at most
    MAX_REREAD files and the scan is over within TAB_SCAN_MS; else leave the index as it
    stands."""
    from pathlib import Path

    from .index import Index
    from .sources import get
    from .sources.base import Home

    index = Index(Home(Path(home[0]), dict(home[1])), stand_in=False)
    try:
        index.db.execute(f"PRAGMA busy_timeout = {TAB_WAIT_MS}")
        if os.fspath(index.path) == path:
            chosen = [get(app) for app in apps]
            deadline = time.monotonic() + TAB_SCAN_MS / 1000
            index.refresh_few(chosen, MAX_REREAD, deadline)
    finally:
        index.close()


def session_ids(
    home: tuple[str, Mapping[str, str]],
    typed: str,
    most: int,
    fits: Callable[[str], bool],
) -> list[tuple[str, str, str | None]]:
    """(app, value, title) of the top-level sessions of the home's index, as it stands,
    whose value starts with `typed` (any case) and `fits`: the id, or `app:id` when
    `typed` holds a colon; newest first, at most `most`. None of them without an index."""

    found_index = index_path(home)
    if found_index is None:
        return []
    path = found_index[0]
    typed = typed.lower()
    with_app = ":" in typed
    db = sqlite3.connect(path, isolation_level=None, timeout=0.2)
    try:
        if db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
            return []
        db.execute("BEGIN")  # one snapshot for the ids and their records
        chosen: list[tuple[int, str, str]] = []
        # SQLite leaves out the ASCII values that do not start so (its lower() folds
        # ASCII alone, as Python does for them); the others are told apart here
        start = typed if typed.isascii() else ""
        value_sql = "app || ':' || id" if with_app else "id"
        for rowid, app, session_id in db.execute(
            "SELECT rowid, app, id FROM sessions WHERE parent_id IS NULL AND"
            f" (substr(lower({value_sql}), 1, ?) = ?"
            f" OR length(CAST({value_sql} AS BLOB)) != length({value_sql}))"
            " ORDER BY updated DESC, app, id",
            (len(start), start),
        ):
            value = f"{app}:{session_id}" if with_app else session_id
            if value.lower().startswith(typed) and fits(value):
                chosen.append((rowid, app, value))
                if len(chosen) >= most:
                    break
        found: list[tuple[str, str, str | None]] = []
        for rowid, app, value in chosen:
            # read by SQLite: the json module loads `re`, which a tab press does not
            row = db.execute(_TITLE, (rowid,)).fetchone()
            title = row and (row[0] if row[1] is None else _with_nul(row[1])[2])
            found.append((app, value, title if isinstance(title, str) else None))
        db.execute("COMMIT")
        return found
    finally:
        db.close()


# a session's title, where it is text; the whole record where SQLite's json_extract would
# cut the title at an escaped NUL (see _TABLE_COLUMNS)
_TITLE = (
    "SELECT CASE json_type(record, '$.title') WHEN 'text' "
    "THEN json_extract(record, '$.title') END, "
    "CASE WHEN instr(record, '\\u0000') > 0 THEN record END "
    "FROM sessions WHERE rowid = ?"
)


def _same_meaning(
    db: sqlite3.Connection, path: str, changed: list[tuple[str, str]]
) -> list[tuple[str, str]]:
    """`changed` less the context files rewritten with the same meaning to the files
    read with them (`sources.CONTEXT_DIGESTS`), whose new signatures are written in their
    place: nothing is read again, and no session changed (the listings saved hold)."""
    import importlib

    from .sources import CONTEXT_DIGESTS

    kept: list[tuple[str, FileSignature]] = []
    for app, name in changed:
        module = CONTEXT_DIGESTS.get(app)
        if module is None:  # most changed files: a session that grew
            continue
        row = db.execute("SELECT digest FROM contexts WHERE path = ?", (name,))
        stored = row.fetchone()
        if stored is None:
            continue
        # its signature before the read: a later write shows (one in the same tick of
        # its clock, once `settled` marks it)
        since_ns = time.time_ns()
        signature = freshness.file_signature(name)
        if signature is None:
            continue
        hook = importlib.import_module(f".sources.{module}", __package__).digest
        if hook(name) == bytes(stored[0]):
            kept.append((name, freshness.settled(signature, since_ns)))
    if not kept or not os.access(path, os.W_OK):
        return changed
    names = {name for name, _ in kept}
    try:
        db.execute("BEGIN IMMEDIATE")
        try:
            db.executemany(
                "UPDATE files SET size = ?, mtime_ns = ?, inode = ?, wal = ? "
                "WHERE path = ?",
                [(*signature, name) for name, signature in kept],
            )
            freshness.pack_signatures(db, {app for app, n in changed if n in names})
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
    except sqlite3.Error:  # busy, or a full disk: the full path writes, or says why
        return changed
    return [(app, name) for app, name in changed if name not in names]


def _bring_up_to_date(
    path: str,
    home: tuple[str, Mapping[str, str]],
    changed: list[tuple[str, str]],
    tab: bool = False,
) -> bool:
    """Re-read the changed files into the index, as the full command would; what the
    reads could not read is said as its refresh says it, but for a tab press (`tab`),
    which says nothing and waits on a busy index only TAB_WAIT_MS."""
    from pathlib import Path

    from .index import Index, RefreshReport
    from .sources import get
    from .sources.base import Home

    # an index that cannot take them (a full disk) raises: the full command says so once;
    # one sessdex may not write (a `sudo sessdex` left it) would be stood in for here
    # and warned of, then again by the full command
    if not os.access(path, os.W_OK):
        return False
    index = Index(Home(Path(home[0]), dict(home[1])), stand_in=False)
    report = RefreshReport()
    try:
        if tab:
            index.db.execute(f"PRAGMA busy_timeout = {TAB_WAIT_MS}")
        if os.fspath(index.path) != path:
            return False  # the full command would use another index: let it
        done = all(index.refresh_file(get(app), name, report) for app, name in changed)
    finally:
        index.close()
    if not tab and (
        report.failures
        or any(
            d.problems or d.skipped or d.damaged for d in report.diagnostics.values()
        )
    ):  # warned as the full command's refresh warns (rare: loads click only then)
        from .cli._common import report_skipped

        report_skipped(report, verbose=False)
    return done


def _searches(
    db: sqlite3.Connection, apps: Sequence[str], include_subagents: bool
) -> Iterator[str]:
    """The search text of each session of `apps` the index holds (sub-agents' only with
    --all): what the words `find` suggests are taken from."""
    sql, args = selection.searches_sql(apps, include_subagents)
    for (search,) in db.execute(sql, args):
        yield search


def _folder_above(
    db: sqlite3.Connection,
    here: Sequence[str],
    apps: Sequence[str],
    request: _Request,
    bounds: tuple[float | None, float | None],
) -> tuple[str, int] | None:
    """`selection.folder_above` counted in the index, as the full command counts it,
    within `bounds` (`--since`, `--until`)."""

    def holding(folders: tuple[str, ...]) -> int:
        sql, args = selection.sessions_sql(
            "count(*)",
            apps=apps,
            since=since,
            until=until,
            under=folders,
            include_subagents=request.include_subagents,
        )
        return int(db.execute(sql, args).fetchone()[0])

    since, until = bounds
    return selection.folder_above(here, holding)


def _nothing_matches(
    request: _Request,
    hidden: int,
    wider: int,
    instead: Sequence[str] = (),
    above: tuple[str, int] | None = None,
    newest: float | None = None,
) -> bytes | None:
    """Nothing on stdout and the full command's hint on stderr, when the words or options
    matched no session of apps that have some (so their folders are there): a warm `find`
    of a word in no title answers as fast as one that matches. None (the full command
    explains) when nothing narrowed the listing. `newest`: when the newest session of
    the apps changed (a POSIX time), for `list --since` that left it out."""
    from datetime import UTC, datetime

    from .views.text import for_stderr

    query = " ".join(request.words) if request.command == "find" else None
    kept = selection.kept_options(request.limit, request.include_subagents)
    hint = selection.nothing_matches(
        query,
        request.apps,
        request.since,
        request.here,
        hidden,
        wider,
        instead,
        None,  # a table's: --json and --nl are said by the full command
        kept,
        request.until,
        above,
        None if newest is None else datetime.fromtimestamp(newest, UTC),
    )
    if hint is None:
        return None
    sys.stderr.write(
        for_stderr(hint) + "\n"
    )  # as `err` writes it, on the streams launch fitted
    sys.stderr.flush()
    return b""


# what a table line shows, read from the records by SQLite: no JSON decoding in Python,
# but for a record holding an escaped NUL, whose text SQLite's json_extract cuts there
# (the full command shows `beforeafter` where it gave `before`): that record comes too
_TABLE_COLUMNS = (
    "app, id, json_extract(record, '$.updated'), json_extract(record, '$.created'), "
    "json_extract(record, '$.branch'), json_extract(record, '$.cwd'), "
    "json_extract(record, '$.title'), parent_id, "
    "json_extract(record, '$.observer') IS 1, "
    "CASE WHEN instr(record, '\\u0000') > 0 THEN record END, "
    "json_extract(record, '$.agent_type')"
)


def _with_nul(record: str | bytes) -> tuple[str, ...]:
    """The fields of a table line that `json_extract` would cut at a NUL, read whole."""
    import json

    value = json.loads(record)
    return tuple(value.get(key) for key in ("branch", "cwd", "title"))


def _table(
    rows: list[tuple[str, ...]], home: str, ids: list[str], grouped: bool
) -> bytes:
    """The lines `sessdex list` prints for people (views.text.listing_line); `grouped`:
    in `list --all`'s order, a sub-agent's own marked deeper."""
    from .views.text import (
        app_width,
        coloured,
        id_column,
        listing_columns,
        listing_line,
        short_id_width,
        terminal_width,
    )

    kinds = [row[10] for row in rows]
    rows = [
        (*row[:4], *_with_nul(row[9]), *row[7:9]) if row[9] else row[:9] for row in rows
    ]
    depths = (
        selection.listing_depths((row[0], row[1], row[7]) for row in rows)
        if grouped
        else [int(row[7] is not None) for row in rows]
    )
    width, styled = terminal_width(), coloured(sys.stdout)
    id_width = short_id_width((row[1] for row in rows), ids, kinds)
    id_cells = id_column((row[1] for row in rows), id_width)
    app_column = app_width(row[0] for row in rows)
    branch_column, folder_column = listing_columns(
        ((row[4], row[5]) for row in rows),
        home=home, width=width, app_column=app_column, id_width=id_cells,
    )  # fmt: skip
    lines = [
        listing_line(
            app,
            session_id,
            (updated, created, branch, cwd, title),
            width=width,
            home=home,
            styled=styled,
            sub_agent=depth,
            observer=bool(observer),
            kind=kind,
            id_width=id_width,
            id_cells=id_cells,
            app_column=app_column,
            branch_column=branch_column,
            folder_column=folder_column,
        )
        for (
            app,
            session_id,
            updated,
            created,
            branch,
            cwd,
            title,
            _,
            observer,
        ), depth, kind in zip(rows, depths, kinds, strict=True)
    ]
    charset.register()
    encoding = sys.stdout.encoding or "utf-8"
    return ("\n".join(lines) + "\n").encode(encoding, charset.FALLBACK)


def _body(records: list[bytes], request: _Request) -> bytes:
    if request.as_json:
        return b"[" + b",".join(records) + b"]\n"
    return b"".join(record + b"\n" for record in records)


def _remember(db: sqlite3.Connection, key: str, generation: int, body: bytes) -> None:
    """Keep the body for the next identical request, unless the index is busy or moved on."""
    try:
        db.execute("PRAGMA busy_timeout = 0")
        db.execute("BEGIN IMMEDIATE")
        try:
            if db.execute("SELECT value FROM generation").fetchone()[0] == generation:
                db.execute(
                    "INSERT OR REPLACE INTO listings VALUES (?, ?, ?)",
                    (key, generation, body),
                )
                db.execute(  # a handful of requests is all a machine repeats
                    "DELETE FROM listings WHERE rowid NOT IN "
                    "(SELECT rowid FROM listings ORDER BY rowid DESC LIMIT 4)"
                )
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:  # a failed COMMIT (a full disk) has rolled back
                db.execute("ROLLBACK")
            raise
    except sqlite3.Error:
        pass  # another process is writing: the next run will try again


def _changed(
    signatures: list[tuple[str, int, int, int, str]],
    most: int,
    refused: list[str],
    sides: list[str],
) -> list[str] | None:
    """The files whose signature changed (the loop a warm list is); None past `most`
    of them, or when one is gone. The unchanged ones the index could not open (marked
    `freshness.REFUSED`) are added to `refused`, to be said, not read again, and those
    read but for other files it could not open, as they were (`freshness.SIDE`), to
    `sides`; one that holds a session dated ahead of the clock is read again once the
    clock comes to its time (`freshness.DUE`)."""
    stat, suffixes, shut = os.stat, freshness.DB_SUFFIXES, freshness.REFUSED
    side = freshness.SIDE
    due, now = freshness.DUE, _clock()
    changed: list[str] = []
    for name, size, mtime_ns, inode, wal in signatures:
        try:
            st = stat(name)
        except OSError:
            return None
        if (
            freshness.changed_ns(st) == mtime_ns
            and st.st_size == size
            and st.st_ino == inode
        ):
            if not (wal or name.endswith(suffixes)):
                continue  # a plain file, unchanged: the common case, first
            if wal == shut:
                refused.append(name)
                continue
            if side in wal:  # other files of its sessions it may not open
                wal, _, noted = wal.partition(side)
                if not freshness.sides_hold(noted):
                    changed.append(name)  # one opens now (chmod): read it again
                    if len(changed) > most:
                        return None
                    continue
                sides.append(name)
                if not (wal or name.endswith(suffixes)):
                    continue
            if wal.startswith(due):  # a session dated ahead: read again once it is not
                second, _, wal = wal[len(due) :].partition(" ")
                not_yet = second.isdigit() and now < int(second)
                if not_yet and wal == freshness.wal_signature(name):  # "": plain file
                    continue
            elif wal == freshness.wal_signature(name):
                continue
        changed.append(name)
        if len(changed) > most:
            return None
    return changed
