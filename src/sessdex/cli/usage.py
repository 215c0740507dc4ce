"""Tokens and cost: usage."""

from __future__ import annotations

import itertools

import click

from .. import api
from ..errors import typed
from ..hints import named
from ..selection import here_folders
from ..views.text import stderr_is_terminal
from . import main
from ._common import (
    CONTEXT,
    ZONED_DATE,
    Example,
    apps_meant,
    apps_option,
    count_option,
    echo,
    err,
    fail_nicely,
    home_option,
    not_blank,
    output_options_or_object,
    progress_bar,
    report_diagnostics,
    resolve_home,
    stdout_bytes,
)

REPORTS = ("daily", "weekly", "monthly", "session", "project", "model", "app")


class _Report(click.Choice):  # type: ignore[type-arg]
    """The report's name, in any case (as `--app` takes an app's); any other word is let
    through, for `_Usage` to say what it is once every option (`--home`) is read:
    click's "'hourly' is not one of …" pointed nowhere when the word was an app's name."""

    def convert(
        self, value: object, param: click.Parameter | None, ctx: click.Context | None
    ) -> object:
        if isinstance(value, str) and value.lower() in self.choices:
            value = value.lower()
        return (
            value
            if isinstance(value, str) and value not in self.choices
            else super().convert(value, param, ctx)
        )


class _Usage(click.Command):
    """`sessdex usage hourly` says which reports there are, and `sessdex usage claude`
    (or `usage session claude`) the `--app` line that counts that app alone."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.allow_extra_args = True  # kept in ctx.args, said below
        given = list(args)  # the parser takes words off the list it is given
        try:
            rest = super().parse_args(ctx, args)
        except click.NoSuchOption as error:
            raise _report_meant(error, given) or error from None
        if ctx.resilient_parsing:
            return rest
        report = ctx.params.get("report")
        reports = f"{', '.join(REPORTS[:-1])} or {REPORTS[-1]} (daily when left out)"
        if report not in REPORTS:
            told = apps_meant(("usage",), [str(report), *ctx.args])
            if told is not None:
                raise click.UsageError(f"{typed(str(report))} is an app, not a report: {told} The reports are {reports}.", ctx)  # fmt: skip
            near = _near_report(str(report))
            if near is not None:
                raise click.UsageError(f"{typed(str(report))} is no usage report. Did you mean {named('usage', near)}?", ctx)  # fmt: skip
            row = _row_meant(_dated_report(str(report)), [str(report)], ctx)
            raise click.UsageError(f"{typed(str(report))} is no usage report; the reports are {reports}.{row and ' ' + row[0].upper() + row[1:]}", ctx)  # fmt: skip
        if ctx.args:
            told = apps_meant(("usage", str(report)), ctx.args)
            told = told or _row_meant(str(report), ctx.args, ctx)
            raise click.UsageError(
                f"sessdex usage takes one report, {typed(str(report))}, and no other words; "
                + (
                    told or "an app's name goes after --app, and the rest is in --help."
                ),
                ctx,
            )
        return rest


def _dated_report(word: str) -> str:
    """The report whose rows a word typed where the report goes is keyed like: a month
    (`2026-11`) is monthly's, anything else (a day) daily's."""
    import re

    return "monthly" if re.fullmatch(r"\d{4}-\d{2}", word.strip()) else "daily"


def _row_meant(report: str, words: list[str], ctx: click.Context) -> str:
    """What `usage session 7f3a`, `usage 2026-11-30` or `usage daily model` meant, as a
    sentence: another report is one too many; one other word names a row, which
    `--explain` audits (a word in the report's place only where it is a date). "" for
    anything else."""
    import re

    others = [word for word in words if word.lower() in REPORTS]
    if others:
        return f"{typed(others[0])} is a report too: give one."
    if len(words) != 1 or ctx.params.get("explain") is not None:
        return ""
    word = words[0]
    if words == [ctx.params.get("report")] and not re.fullmatch(
        r"\d{4}-\d{2}(-\d{2})?", word.strip()
    ):
        return ""
    line = named("usage", report, "--explain", word)
    return f"for one row, {line} lists what it counted."


# how other tools name the report: `--by session`, `--group-by model`
_REPORT_OPTIONS = frozenset({"--by", "--group-by", "--groupby", "--report", "--per"})


def _near_report(word: str) -> str | None:
    """The report `word` was meant as: `sessions`, `days`, `Model`; else None."""
    import difflib

    word = word.lower()
    singular = {"days": "daily", "day": "daily", "weeks": "weekly", "week": "weekly"}
    singular |= {"months": "monthly", "month": "monthly", "apps": "app"}
    if word in singular:
        return singular[word]
    return next(iter(difflib.get_close_matches(word, REPORTS, n=1, cutoff=0.75)), None)


def _report_meant(
    error: click.NoSuchOption, given: list[str]
) -> click.UsageError | None:
    """`usage --by session` or `usage --daily` as meant, `usage session` and `usage
    daily`: the report is a word, not an option. None for any other option."""
    option = error.option_name.partition("=")[0]
    if option in _REPORT_OPTIONS:
        # its value: in the same word (`--by=model`, which click names `--by`) or next
        at = next((n for n, w in enumerate(given) if w.split("=")[0] == option), None)
        word = given[at] if at is not None else ""
        value = word.partition("=")[2] if "=" in word else ""
        if not value and at is not None and at + 1 < len(given):
            value = given[at + 1]
        report = value if value in REPORTS else _near_report(value) if value else None
        line = named("usage", report or "session")
        return click.UsageError(
            f"{error.message} The report is a word after usage: {line}; "
            f"the reports are {', '.join(REPORTS[:-1])} or {REPORTS[-1]}.",
            error.ctx,
        )
    report = option.lstrip("-")
    meant = None
    if option.startswith("--"):
        meant = report if report in REPORTS else _near_report(report)
    if meant:
        return click.UsageError(
            f"{error.message} Did you mean {named('usage', meant)}?", error.ctx
        )
    return None


@main.command(
    "usage",
    cls=_Usage,
    context_settings=CONTEXT,
    short_help="Count tokens and cost per day, session, model, app and more.",
)
@click.argument("report", required=False, default="daily", type=_Report(REPORTS))
@click.option(
    "--since",
    metavar="WHEN",
    callback=not_blank,
    help="From this day (2026-11-01, today, yesterday: in --tz's zone, UTC by default; "
    f"{ZONED_DATE}), this long ago (3d, 2w, 3 days ago) or now (when the command "
    "starts).",
)
@click.option(
    "--until",
    metavar="WHEN",
    callback=not_blank,
    help="Up to and including this day (2026-11-30, today, yesterday: in --tz's zone; "
    f"{ZONED_DATE}), up to this long ago (3d, 2w, 3 days ago) or up to now (when "
    "the command starts).",
)
@apps_option
@click.option(
    "--here",
    is_flag=True,
    help="Only sessions whose folder is this one or below it, and what a session"
    " moved here from elsewhere spent here.",
)
@click.option(
    "--tz",
    cls=Example,
    needs="a time zone",
    example="--tz Europe/Paris or --tz local",
    metavar="ZONE",
    callback=not_blank,
    help="Days in this time zone (IANA name or 'local'; default UTC).",
)
@click.option(
    "--explain",
    metavar="KEY",
    callback=not_blank,
    help="Audit one row (a day, a model, a session, ...): every response counted and every line dropped, with the rule.",
)
@count_option(
    "--limit",
    "-n",
    help="The N costliest rows of a session, project, model or app report, then one row that sums the rest (the total stays whole); with --explain, at most N responses and N dropped lines (default 1000), the rest counted and summed.",
)
@output_options_or_object("--explain")
@home_option
@fail_nicely
def usage_command(
    report: str,
    since: str | None,
    until: str | None,
    apps: tuple[str, ...],
    here: bool,
    tz: str | None,
    explain: str | None,
    limit: int | None,
    as_json: bool,
    as_nl: bool,
    verbose: bool,
    home_dir: str | None,
) -> None:
    """Count tokens and cost per day (the default), week, month, session, project,
    model or app.

    Each response is counted once, by each app's de-duplication rules (docs/usage.md);
    prices come from the catalogue shipped with sessdex, and a model it cannot price
    shows "unpriced", never $0.

    \b
    Example: sessdex usage daily --since 2026-11-01 --app claude
    """
    from ..usage import CUT_REPORTS
    from ..views import usage as view

    if limit is not None and explain is None and report not in CUT_REPORTS:
        # a day (week, month) is never left out of its report: the rows are never cut
        raise click.UsageError(
            f"--limit goes with the {', '.join(CUT_REPORTS[:-1])} and {CUT_REPORTS[-1]} reports (the costliest rows), or with --explain; a {report} report's rows are never cut."
        )
    home = resolve_home(home_dir)
    with progress_bar("Reading usage") as progress:
        result = api.usage_report(
            home,
            report,
            apps=apps,
            since=since,
            until=until,
            here=here_folders() if here else None,
            tz=tz,
            explain=explain,
            explain_limit=limit if explain is not None else None,
            limit=limit if explain is None else None,
            progress=progress,
        )
    for app, diagnostics in sorted(result.collected.diagnostics.items()):
        report_diagnostics(diagnostics, verbose, app)
    from ..views.records import dumps

    if result.explained is not None:
        if result.explained.empty and not (as_json or as_nl):
            # an empty result, as an empty table is: said on stderr, exit 0
            said = result.explained.notes[0]
            err(said[:1].upper() + said[1:])
            return
        if as_json or as_nl:
            for piece in view.explain_json(result.explained):  # never held whole
                stdout_bytes(piece)
            stdout_bytes(b"\n")
        else:
            from ..usage import parse_tz

            # a line per response: written a thousand at a time, never all joined
            lines = view.explain_lines(
                result.explained, parse_tz(tz), report, str(home.path)
            )
            while batch := list(itertools.islice(lines, 1000)):
                echo("\n".join(batch))
        return
    # the costliest rows and one that sums the rest; the total is still the whole's
    shown = result.rows
    if as_json:
        stdout_bytes(dumps(view.row_records(shown)) + b"\n")
    elif as_nl:
        stdout_bytes(b"".join(dumps(r) + b"\n" for r in view.row_records(shown)))
    as_data = as_json or as_nl
    if not result.rows and (not as_data or stderr_is_terminal()):
        # an empty table of zeros says less than one line; after `[]` a person at a
        # terminal is told why, as `list --json` tells it, a script's log nothing
        from ..selection import filter_words

        filtered = filter_words(apps, since, until, here)
        # a --home a level too high or low: the home meant, and the line that reads it
        meant = None if filtered else api.home_elsewhere(home, "usage")
        err(
            meant
            or view.nothing_counted(
                filtered,
                view.zone_named(tz) if view.names_a_day(since, until) else None,
                result.collected.hiding_links,
                report,
            )
        )
    if as_data or not result.rows:
        return
    # `show` and `list` speak local time, these days UTC unless --tz says: say which
    # (a session report from `--since today` too: today in UTC is not today here)
    dated = report in view.DATED or view.names_a_day(since, until)
    view.print_table(
        report,
        shown,
        result.total,
        result.collected.catalogue,
        str(home.path),
        view.zone_named(tz) if dated else None,
    )
    note = view.unpriced_note(result.total)
    if note:
        err(f"note: {note}")
