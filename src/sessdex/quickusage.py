"""`sessdex usage [REPORT]` (its table, `--json` or `--nl`), answered without click or
the library's other commands: a person, a script, a status bar or an editor asks for it
again and again, and those imports cost a warm report more than counting it did.

The report is the full command's own (`usage.run`, the rows as `views.usage` writes
and draws them, what the read met said by the command line's `report_diagnostics`), with
--since, --until, --tz, --here, --limit and --explain read as `api.usage_report` reads
them, -v naming what the read met as the full command does, and the same progress on a
terminal. Anything else returns False before a byte is printed, and
the full command runs: another option or word, a value it would refuse (a time, a zone,
a count), a home it would refuse, and an error, which it says.
"""

from __future__ import annotations

import os
import sqlite3
import sys
from collections.abc import Sequence

from . import folders, hints
from .errors import IndexBusy, SessdexError
from .sources import BUILTIN, canonical

# `typing` costs this path time it does not spend otherwise (see launch.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from .index import Progress
    from .sources.base import Home
    from .usage import Filters, Result

# usage.REPORTS, without loading that module to parse the command (a test pins it)
REPORTS = ("daily", "weekly", "monthly", "session", "project", "model", "app")


# the options whose value this path reads (`--since 7d` or `--since=7d`; `-n 5` only)
_VALUED = (
    "--home",
    "--app",
    "--since",
    "--until",
    "--tz",
    "--limit",
    "-n",
    "--explain",
)
_BOUNDS = ("--since", "--until", "--tz")


def _parse(
    args: Sequence[str],
) -> tuple[str, list[str], str | None, str, dict[str, str], bool, bool] | None:
    """(report, apps, --home, "json", "nl" or "table", --since/--until/--tz/--limit/
    --explain by name, --here, -v), or None for what the full command should take."""
    report: str | None = None
    apps: list[str] = []
    home: str | None = None
    given: dict[str, str] = {}
    as_json = as_nl = here = verbose = False
    position = 0
    while position < len(args):
        arg = args[position]
        name, equals, value = arg.partition("=")
        if name in _VALUED and not equals:
            position += 1
            if position == len(args):
                return None
            value = args[position]
        if not arg.startswith("-") and report is None and arg.lower() in REPORTS:
            report = arg.lower()  # in any case, as the full command takes it
        elif arg == "--json":
            as_json = True
        elif arg == "--nl":
            as_nl = True
        elif arg == "--here" and not here:
            here = True
        elif name == "--home" and home is None and value.strip():
            home = value
        elif name == "--app" and canonical(value) in BUILTIN:
            apps.append(canonical(value))  # `claude-code` too, as --app takes it
        elif name in (*_BOUNDS, "--explain") and name not in given and value.strip():
            given[name] = value
        elif arg in ("-v", "--verbose"):
            verbose = True
        elif name in ("--limit", "-n") and not (name == "-n" and equals):
            # a plain count below the full command's cap; any other it reads or refuses
            if "--limit" in given or not (value.isascii() and value.isdigit()):
                return None
            if len(value) > 9:
                return None
            given["--limit"] = value
        else:
            return None  # unknown, repeated or refused: the full command explains
        position += 1
    form = "nl" if as_nl else "json" if as_json else "table"
    return report or "daily", apps, home, form, given, here, verbose


def answer(args: Sequence[str]) -> bool:
    """Print what `sessdex usage ARGS` would print, where this path can; else False."""
    request = _parse(args)
    if request is None or sys.stderr is None:
        return False
    report, apps, home_dir, form, given, here, verbose = request
    from .sources.base import Home

    if home_dir is None:
        home = Home.current()
    elif os.path.isdir(os.path.expanduser(home_dir)):
        home = Home.at(home_dir)
    else:
        return False  # the full command says it is no folder
    if not folders.is_text(str(home.path)):
        return False
    try:
        filters = _filters(given, here)
    except (SessdexError, ValueError, OverflowError, OSError):
        return False  # a time, zone or folder the full command says what is wrong with
    limit = int(given["--limit"]) if "--limit" in given else None
    explain = given.get("--explain")
    from .usage import CUT_REPORTS

    if limit is not None and explain is None and report not in CUT_REPORTS:
        return False  # a usage error the full command says
    if explain is not None:
        from .audit import period_named, refuse_impossible_date

        explain = period_named(report, explain, filters.tz)
        try:
            refuse_impossible_date(report, explain)
        except SessdexError:
            return False  # a date no calendar has, which the full command says
    from .launch import warnings_said

    done = warnings_said()  # what the library logs, said as the full command says it
    # as the command line names things: its options, and the commands to run on this home
    hints.on_command_line(True)
    hints.reading_home(home_dir)
    try:
        try:
            result = _report(home, report, apps, filters, (limit, explain), verbose)
        except IndexBusy as error:  # waited the whole busy timeout: not again
            from .views.text import flat

            sys.stdout.flush()
            sys.stderr.write(f"Error: {flat(str(error))}\n")
            sys.exit(1)
        except (sqlite3.Error, SessdexError, OSError, UnicodeError):
            return False  # the full command says what, or sets a damaged index aside
        # written once counted: a write that fails is not run again by the full command
        since, until, tz = (given.get(name) for name in _BOUNDS)
        from .selection import filter_words

        filtered = filter_words(apps, since, until, here)
        if result.explained is not None:
            _write_explained(result, report, form, str(home.path), tz)
        else:
            _write(result, report, form, str(home.path), filtered, (since, until), tz)
    finally:
        done()
        hints.reading_home(None)
        hints.on_command_line(False)
    return True


def _filters(given: dict[str, str], here: bool) -> Filters:
    """--since, --until, --tz and --here as `api.usage_report` reads them."""
    from datetime import UTC, datetime

    from .calls import folder_texts, refuse_empty_span
    from .usage import Filters, parse_day, parse_tz

    tz = given.get("--tz")
    zone = parse_tz(tz)
    now = datetime.now(UTC)  # one reading: `--since 3d --until 3d` is one moment
    since, until = given.get("--since"), given.get("--until")
    folders_here = None
    if here:
        from .selection import here_folders

        folders_here = folder_texts(here_folders())
    filters = Filters(
        since=parse_day(since, zone, now=now) if since else None,
        until=parse_day(until, zone, end=True, now=now) if until else None,
        here=folders_here,
        tz=zone,
    )
    refuse_empty_span(filters.since, filters.until, (since, until))
    return filters


def _report(
    home: Home,
    report: str,
    apps: list[str],
    filters: Filters,
    cut: tuple[int | None, str | None],
    verbose: bool,
) -> Result:
    """The report (`cut`: --limit and --explain, as the full command passes them), what
    the read met said first on stderr, as the full command says it (`verbose`: -v)."""
    from . import usage
    from .calls import new_view

    limit, explain = cut

    def counted(progress: Progress | None = None) -> Result:
        return usage.run(
            home,
            report,
            apps=apps,
            filters=filters,
            limit=limit if explain is None else None,
            explain_key=explain,
            explain_limit=limit if explain is not None else None,
            progress=progress,
        )

    new_view()
    if sys.stderr.isatty():
        from .views.progress import progress_bar

        with progress_bar("Reading usage") as progress:  # after a second's work
            result = counted(progress)
    else:
        result = counted()
    said = sorted(result.collected.diagnostics.items())
    if any(
        d.problems
        or d.skipped
        or d.damaged
        or (verbose and (d.unfinished or d.unknown))
        for _, d in said
    ):
        # said as the full command says it (the read is not done again: a file's sums
        # kept from an earlier run come with what that read met)
        from .cli._common import report_diagnostics

        for app, diagnostics in said:
            report_diagnostics(diagnostics, verbose, app)
    return result


def _write(
    result: Result,
    report: str,
    form: str,
    home: str,
    filtered: list[str],
    bounds: tuple[str | None, str | None],
    tz: str | None,
) -> None:
    """The report on stdout as the full command writes it: its rows in JSON (one
    document, or one a line), else its table and captions, a note on stderr after it;
    `filtered`: the options that narrowed it (an empty report names them); `bounds`: --since and --until,
    whose days the captions place in `tz`."""
    from .views import usage as view

    if form != "table":
        from .views.records import dumps

        records = view.row_records(result.rows)
        if form == "nl":
            body = b"".join(dumps(r) + b"\n" for r in records)
        else:
            body = dumps(records) + b"\n"
        sys.stdout.flush()
        sys.stdout.buffer.write(body)
        sys.stdout.buffer.flush()
    a_day = view.names_a_day(*bounds)
    if not result.rows and (form == "table" or sys.stderr.isatty()):
        # after `[]` said to a person at a terminal alone, as the full command says it
        zone = view.zone_named(tz) if a_day else None
        _say(
            _home_meant(home, filtered)
            or view.nothing_counted(
                filtered, zone, result.collected.hiding_links, report
            )
        )
    if form != "table" or not result.rows:
        return
    dated = report in view.DATED or a_day
    zone = view.zone_named(tz) if dated else None
    view.print_table(
        report, result.rows, result.total, result.collected.catalogue, home, zone
    )
    note = view.unpriced_note(result.total)
    if note:
        _say(f"note: {note}")


def _write_explained(
    result: Result, report: str, form: str, home: str, tz: str | None
) -> None:
    """`--explain`'s audit on stdout as the full command writes it: its JSON in pieces
    (never held whole), else a line per response, a thousand at a time; an empty one
    (a day with nothing counted) is a line on stderr."""
    import itertools

    from .views import usage as view

    explained = result.explained
    assert explained is not None
    if explained.empty and form == "table":
        said = explained.notes[0]
        _say(said[:1].upper() + said[1:])
        return
    sys.stdout.flush()
    if form != "table":
        for piece in view.explain_json(explained):
            sys.stdout.buffer.write(piece)
        sys.stdout.buffer.write(b"\n")
        sys.stdout.buffer.flush()
        return
    from .usage import parse_tz

    lines = view.explain_lines(explained, parse_tz(tz), report, home)
    while batch := list(itertools.islice(lines, 1000)):
        sys.stdout.write("\n".join(batch) + "\n")
        sys.stdout.flush()


def _say(message: str) -> None:
    """A line on stderr, as the full command's `err` writes it."""
    from .views.text import for_stderr

    sys.stdout.flush()
    sys.stderr.write(for_stderr(message) + "\n")
    sys.stderr.flush()


def _home_meant(home: str, filtered: Sequence[str]) -> str | None:
    """Where no option emptied the report, the home a --home a level too high or low
    most likely meant, and the line that counts it (`checkup.home_elsewhere`)."""
    if filtered:
        return None
    from .checkup import home_elsewhere
    from .sources.base import Home

    return home_elsewhere(Home.at(home), "usage")
