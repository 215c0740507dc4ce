"""`sessdex usage [REPORT]` (its table, `--json` or `--nl`), answered without click or
the library's other commands: a person, a script, a status bar or an editor asks for it
again and again, and those imports cost a warm report more than counting it did.

The report is the full command's own (`usage.run`, the rows as `views.usage` writes
and draws them, what the read met said by the command line's `report_diagnostics`), with
the same options left at their defaults, and the same progress on a terminal. Anything
else returns False before a byte is printed, and the full command runs: another option
or word, a home it would refuse, and an error, which it says.
"""

from __future__ import annotations

import os
import sqlite3
import sys
from collections.abc import Sequence

from . import folders, hints
from .errors import IndexBusy, SessdexError
from .sources import BUILTIN

# `typing` costs this path time it does not spend otherwise (see launch.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from .sources.base import Home
    from .usage import Result

# usage.REPORTS, without loading that module to parse the command (a test pins it)
REPORTS = ("daily", "weekly", "monthly", "session", "project", "model", "app")


def _parse(
    args: Sequence[str],
) -> tuple[str, list[str], str | None, str] | None:
    """(report, apps, --home, "json", "nl" or "table"), or None for what the full
    command should take."""
    report: str | None = None
    apps: list[str] = []
    home: str | None = None
    as_json = as_nl = False
    position = 0
    while position < len(args):
        arg = args[position]
        name, equals, value = arg.partition("=")
        if name in ("--home", "--app") and not equals:
            position += 1
            if position == len(args):
                return None
            value = args[position]
        if not arg.startswith("-") and report is None and arg in REPORTS:
            report = arg
        elif arg == "--json":
            as_json = True
        elif arg == "--nl":
            as_nl = True
        elif name == "--home" and home is None and value.strip():
            home = value
        elif name == "--app" and value.lower() in BUILTIN:
            apps.append(value.lower())
        else:
            return None  # unknown, repeated or refused: the full command explains
        position += 1
    form = "nl" if as_nl else "json" if as_json else "table"
    return report or "daily", apps, home, form


def answer(args: Sequence[str]) -> bool:
    """Print what `sessdex usage ARGS` would print, where this path can; else False."""
    request = _parse(args)
    if request is None or sys.stderr is None:
        return False
    report, apps, home_dir, form = request
    from .sources.base import Home

    if home_dir is None:
        home = Home.current()
    elif os.path.isdir(os.path.expanduser(home_dir)):
        home = Home.at(home_dir)
    else:
        return False  # the full command says it is no folder
    if not folders.is_text(str(home.path)):
        return False
    from .launch import warnings_said

    done = warnings_said()  # what the library logs, said as the full command says it
    # as the command line names things: its options, and the commands to run on this home
    hints.on_command_line(True)
    hints.reading_home(home_dir)
    try:
        try:
            result = _report(home, report, apps)
        except IndexBusy as error:  # waited the whole busy timeout: not again
            from .views.text import flat

            sys.stdout.flush()
            sys.stderr.write(f"Error: {flat(str(error))}\n")
            sys.exit(1)
        except (sqlite3.Error, SessdexError, OSError, UnicodeError):
            return False  # the full command says what, or sets a damaged index aside
        # written once counted: a write that fails is not run again by the full command
        _write(result, report, form, str(home.path), bool(apps))
    finally:
        done()
        hints.reading_home(None)
        hints.on_command_line(False)
    return True


def _report(home: Home, report: str, apps: list[str]) -> Result:
    """The report, what the read met said first on stderr, as the full command says it."""
    from . import usage
    from .calls import new_view

    new_view()
    if sys.stderr.isatty():
        from .views.progress import progress_bar

        with progress_bar("Reading usage") as progress:  # after a second's work
            result = usage.run(home, report, apps=apps, progress=progress)
    else:
        result = usage.run(home, report, apps=apps)
    said = sorted(result.collected.diagnostics.items())
    if any(d.problems or d.skipped or d.damaged for _, d in said):
        # said as the full command says it (the read is not done again: a file's sums
        # kept from an earlier run come with what that read met)
        from .cli._common import report_diagnostics

        for app, diagnostics in said:
            report_diagnostics(diagnostics, False, app)
    return result


def _write(result: Result, report: str, form: str, home: str, filtered: bool) -> None:
    """The report on stdout as the full command writes it: its rows in JSON (one
    document, or one a line), else its table and captions, a note on stderr after it;
    `filtered`: by --app (an empty report says so)."""
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
        return
    if not result.rows:
        _say(view.nothing_counted(filtered, None))
        return
    zone = view.UTC_DAYS if report in view.DATED else None
    view.print_table(
        report, result.rows, result.total, result.collected.catalogue, home, zone
    )
    note = view.unpriced_note(result.total)
    if note:
        _say(f"note: {note}")


def _say(message: str) -> None:
    """A line on stderr, as the full command's `err` writes it."""
    from .views.text import for_stderr

    sys.stdout.flush()
    sys.stderr.write(for_stderr(message) + "\n")
    sys.stderr.flush()
