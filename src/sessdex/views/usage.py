"""How `sessdex usage` looks: tables of usage rows (drawn by `table.Layout`), the JSON shape, and `--explain` text.

The JSON shape (`row_records`) is the one `--json` prints. Nothing here reads files.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime, tzinfo

from ..audit import Explained
from ..hints import folder_said, named, where
from ..sources.base import UsageRecord
from ..usage import TOKENS, Row
from ..zones import zone_name
from .table import Column, Layout, cell_width
from .text import (
    credits_amount,
    flat,
    id_start,
    left_cut,
    one_line,
    pasted,
    pasted_id,
    short_id_width,
    short_path,
    start_typed,
    tokens,
)

HEADERS = {
    "daily": "Day",
    "weekly": "Week of",
    "monthly": "Month",
    "session": "Session",
    "project": "Folder",
    "model": "Model",
    "app": "App",
}
LABELS = ("Input", "Output", "Cache write", "Cache read", "Reasoning")


OWN_MARK = "*"  # after a cost that holds an app's own figure (`own_cost_note`)


def money(row: Row) -> str:
    """The row's cost; "$1.20+" when unpriced models (or responses billed in credits
    alone) add an unknown amount to it, "$1.20*" when some of it is what an app recorded
    rather than a price, and "in credits" for a row of responses billed in credits alone."""
    own = OWN_MARK if row.app_recorded_cost_usd > 0 else ""
    if row.partly_priced:
        return _dollars(row.priced_cost_usd) + "+" + own
    cost = row.cost_usd
    if cost is None:  # billed in credits alone: the credits are its cost
        return "unpriced" if row.unpriced else "in credits"
    return _dollars(cost) + own


def _dollars(cost: float) -> str:
    return f"${cost:,.2f}" if cost >= 0.01 or cost == 0 else f"${cost:.5f}"


def credits_text(
    credits: dict[str, float], named: bool = True, between: str = " + "
) -> str:
    """A row's credits, each app's apart, named as `--app` names it ("12.5 amp + 3 warp";
    the table puts each on a line of its own): two apps' credits are two units, never one
    sum; `named` False for a column that names its only app."""
    if not named:
        return between.join(credits_amount(value) for value in credits.values())
    return between.join(f"{credits_amount(v)} {app}" for app, v in credits.items())


def credits_header(total: Row) -> str | None:
    """The credits column's header, where some row has credits (None: no column): it
    names the app when only one app's credits are in the report."""
    apps = list(total.credits_by_app)
    if not apps:
        return None
    return f"Credits ({apps[0]})" if len(apps) == 1 else "Credits"


def row_records(rows: Sequence[Row]) -> list[dict[str, object]]:
    return [row.record() for row in rows]


# the headers a narrow table uses, and how it gives way, step by step, until it fits:
# columns of zeros go, the models list goes, headers shorten, reasoning (already inside
# output) goes and the two cache columns become one, the sessions' app goes, then every
# count is one total.
# The key and the cost are never left out, and a number is never cut.
SHORT = {
    "Input": "In",
    "Output": "Out",
    "Cache write": "Cache w",
    "Cache read": "Cache r",
    # not "Reason": `watch` has a reason column (why a session is listed)
    "Reasoning": "Reas.",
}
# a session's title in its row at most, on a terminal wide enough
TITLE_MAX = 120

_STEPS = (
    # (zero columns go, short headers, models shown, counts: "each", "cache", "total",
    # the app of each session shown)
    (False, False, True, "each", True),
    (True, False, True, "each", True),
    (True, False, False, "each", True),
    (True, True, False, "each", True),
    (True, True, False, "cache", True),
    (True, True, False, "cache", False),
    (True, True, False, "total", False),
)
APP_HEADER = "App"  # a session's app, where the report holds several apps' sessions


def table(
    kind: str,
    rows: Sequence[Row],
    total: Row,
    width: int | None = None,
    home: str | None = None,
    roomy: bool = True,
) -> Layout:
    """One line per row (sub-agents indented under their session), then the total; a
    folder under `home` as `list` shows it, `~/code/shop`; a session's title takes the
    room `width` leaves where `roomy` (a terminal's width, not a pipe's default).

    Fitted to `width` where it is given: columns give way as `_STEPS` says; then the key
    is cut (never a session's short id); then counts are written short (`1.2M`), and
    the borders go."""
    # long enough to tell the rows apart for --explain, and from their sub-agents'
    # sessions, for `show` (time-ordered ids share their first characters)
    # (the rows `--limit` left out among them: --explain takes their ids too)
    every = [r for row in rows for r in (row.folded or [row])]
    keys = sorted(
        {row.key.lower() for row in every}
        | {str(agent).lower() for row in every for agent in row.agents}
    )
    shown_ids = [k for row in rows if not row.folded for k in (row.key, *row.agents) if k != "lead"]  # fmt: skip
    id_width = short_id_width(shown_ids, keys)
    lines: list[tuple[Row, str, str, bool]] = []  # row, label, style, models shown
    for row in rows:
        if row.folded:  # the rows --limit left out, summed: no models, one line
            lines.append((row, row.key, "dim", False))
            continue
        lines.append((row, _label(kind, row, id_width, home), "", True))
        for agent, sub in row.agents.items():
            # the lead's own share is the session's, not a child of it: no branch mark
            mark = "  " if agent == "lead" else "  └ "
            lines.append((sub, f"{mark}{_agent_label(agent, sub, id_width)}", "dim", False))  # fmt: skip
    lines.append((total, "Total", "bold", False))
    key_header = HEADERS.get(kind, "Key")
    whole = max(cell_width(header) for header in [key_header, *(label for _, label, _, _ in lines)])  # fmt: skip
    # what the columns give way for; a session's title takes more only where there is room
    key_width = min(whole, 48) if kind == "session" else whole
    least = min(key_width, id_width if kind == "session" else 12)
    columns: list[tuple[str, list[str], int]] = []
    made: dict[tuple[object, ...], tuple[list[str], int]] = {}  # cells, for every step
    boxed = True
    for step in _STEPS:
        columns = _columns(kind, lines, total, made, *step)
        if width is None or width - _width(columns) >= key_width:
            if width is not None and roomy:
                key_width = min(whole, width - _width(columns))
            break
    else:
        assert width is not None
        if width - _width(columns) < least:  # counts written short: whole, never cut
            columns = _columns(kind, lines, total, made, *_STEPS[-1], short_counts=True)  # fmt: skip
        if width - _width(columns) < least:  # no borders: the columns' room is all left
            boxed = False
        key_width = max(least, min(key_width, width - _width(columns, boxed)))
    key = Column(
        key_header,
        [
            label if style else _fit(label, key_width, kind, len(_short(row, id_width)))
            for row, label, style, _ in lines
        ],
        [style for _, _, style, _ in lines],
        max_width=key_width,
    )
    shown = [
        Column(header, cells, right=header not in ("Models", APP_HEADER))
        for header, cells, _ in columns[:-1]
    ]
    cost = Column(
        "Cost",
        columns[-1][1],
        ["yellow" if row.cost_usd is None else "" for row, *_ in lines],
        right=True,
    )
    # a line across above the total
    sections = frozenset({len(lines) - 2}) if len(lines) > 1 else frozenset()
    return Layout([key, *shown, cost], boxed, sections)


def _columns(
    kind: str,
    lines: Sequence[tuple[Row, str, str, bool]],
    total: Row,
    made: dict[tuple[object, ...], tuple[list[str], int]],
    drop_zeros: bool,
    short: bool,
    models: bool,
    counts: str,
    apps: bool,
    short_counts: bool = False,
) -> list[tuple[str, list[str], int]]:
    """The columns after the key, each a header, one cell per line and the width of the
    widest cell; the cost last. A column's cells are made once, kept in `made` for the
    next step that shows it."""
    sums: list[tuple[str, tuple[str, ...]]]
    if counts == "each":
        sums = [(label, (name,)) for label, name in zip(LABELS, TOKENS, strict=True)]
    elif counts == "cache":
        sums = [
            ("Input", ("input_tokens",)),
            ("Output", ("output_tokens",)),
            ("Cache", ("cache_write_tokens", "cache_read_tokens")),
        ]
    else:  # reasoning is inside output: not added again
        sums = [("Tokens", ("input_tokens", "output_tokens", "cache_write_tokens", "cache_read_tokens"))]  # fmt: skip
    out: list[tuple[str, list[str], int]] = []
    if apps and kind == "session" and len(total.apps) > 1:
        if (APP_HEADER,) not in made:  # a sub-agent's line and the total: no app
            cells = [
                next(iter(row.apps)) if first and len(row.apps) == 1 else ""
                for row, _, _, first in lines
            ]
            made[APP_HEADER,] = cells, _widest(cells)
        out.append((APP_HEADER, *made[APP_HEADER,]))
    if models and kind != "model":
        if ("Models",) not in made:
            cells = [
                "\n".join(one_line(m) for m in sorted(row.models)) if first else ""
                for row, _, _, first in lines
            ]
            made["Models",] = cells, _widest(line for cell in cells for line in cell.split("\n"))  # fmt: skip
        out.append(("Models", *made["Models",]))
    for label, names in sums:
        if drop_zeros and not any(getattr(total, name) for name in names):
            continue
        if (names, short_counts) not in made:
            shown = tokens if short_counts else "{:,}".format
            if len(names) == 1:  # most columns: no sum of one to make
                values: list[int] = [getattr(row, names[0]) for row, *_ in lines]
            else:
                values = [sum(getattr(row, n) for n in names) for row, *_ in lines]
            cells = [shown(value) for value in values]
            # ASCII: a character is a cell
            made[names, short_counts] = cells, max(map(len, cells))
        out.append((SHORT.get(label, label) if short else label, *made[names, short_counts]))  # fmt: skip
    header = credits_header(total)
    if header is not None:  # only where some row has credits
        if ("Credits",) not in made:
            named = header == "Credits"  # several apps: each amount says whose it is
            # one app's a line (as the models): a row of several apps stays narrow
            cells = [credits_text(row.credits_by_app, named, "\n") for row, *_ in lines]
            made["Credits",] = cells, _widest(line for cell in cells for line in cell.split("\n"))  # fmt: skip
        out.append((header, *made["Credits",]))
    if ("Cost",) not in made:
        cells = [money(row) for row, *_ in lines]
        made["Cost",] = cells, max(map(len, cells))  # ASCII too
    out.append(("Cost", *made["Cost",]))
    return out


def _widest(texts: Iterable[str]) -> int:
    return max((cell_width(text) for text in texts), default=0)


def _width(
    columns: Sequence[tuple[str, Sequence[str], int]], boxed: bool = True
) -> int:
    """What these columns, and the key's borders and spaces, take beside the key's own
    width: in a box, each column is as wide as its widest line, a space either side and
    a border after it (the key: a border either side and its spaces); unboxed, the
    columns are two spaces apart."""
    widths = [max(cell_width(header), widest) for header, _, widest in columns]
    return 4 + sum(w + 3 for w in widths) if boxed else sum(w + 2 for w in widths)


def _fit(label: str, width: int, kind: str, id_width: int) -> str:
    """A row's key in `width` cells: a folder loses its start, a session keeps its short
    id whole; anything else is cut at its end by the column (`max_width`)."""
    if cell_width(label) <= width:
        return label
    if kind == "project":
        return left_cut(label, width)
    if kind == "session" and width < id_width + 2:  # no room for "…" after the id
        return label[:id_width]
    return label


def _label(kind: str, row: Row, id_width: int, home: str | None = None) -> str:
    """The row's key; a session's short id and title (its app before an id two apps'
    sessions share), a folder under `home` from `~` (`--explain` takes either), a long
    one without its start."""
    title = row.about.get("title") if kind == "session" else None
    if title:
        return f"{_short(row, id_width)}  {one_line(title, TITLE_MAX)}"
    if kind == "session":
        named = _app(row) + row.key
        if one_line(named) != named:  # cleaned, it was another session's id
            return pasted_id(named)
        return pasted(one_line(named, 80))
    if kind == "project":  # a folder's end names the project: its start goes
        return left_cut(one_line(short_path(row.key, home) if home else row.key), 80)
    return one_line(row.key, 80)


def _short(row: Row, id_width: int) -> str:
    """A session's short id, as pasted into `--explain` or `show`: quoted where the
    shell reads a character of it (`pasted`)."""
    app = _app(row)
    return pasted_id(app + row.key, len(app) + id_width)


def _app(row: Row) -> str:
    """`roo:` before a session's id that another app's session shares (as `--json` keys
    it, and `--explain` takes it); else nothing."""
    return f"{row.label.split(':', 1)[0]}:" if row.label else ""


def _agent_label(key: str, agent: Row, id_width: int) -> str:
    """A sub-agent's line under its session: its short id (`--explain` and `show` take
    it) and what `tree` calls it, its type and task, as its session's row has its
    title; the lead, and an agent the index holds nothing of, by their key alone."""
    kind, title = agent.about.get("agent_type"), agent.about.get("title")
    if key == "lead" or not (kind or title):
        return one_line(key, 40)
    said = (
        f"{kind}: {title}"
        if kind and title and _apart(str(kind), str(title))
        else title or kind
    )
    # its id's start as every command says it: past its type, where the id starts so
    start = start_typed(key, id_start(key, str(kind) if kind else None, id_width))
    return f"{start}  {one_line(str(said), TITLE_MAX)}"


def _apart(kind: str, title: str) -> bool:
    """Whether a title does not say the type already ("greeter (Kierkegaard)" does)."""
    return kind != title and not title.startswith(f"{kind} (")


def own_cost_note(total: Row) -> str | None:
    """The footnote to the table's `OWN_MARK`, when a cost shown holds one."""
    if total.app_recorded_cost_usd <= 0:
        return None
    return (
        f"{OWN_MARK} includes costs the apps recorded themselves "
        f"({_dollars(total.app_recorded_cost_usd)} in all): where the price list has "
        "no price for the model, or the app's tokens are too rough to price"
    )


def unpriced_note(total: Row) -> str | None:
    if not total.unpriced:
        return None
    # a model's name comes from a file: one line, cut, and a few of them (a home may
    # record hundreds of names no price list has, or one of a megabyte)
    names = [one_line(model, 60) for model in sorted(total.unpriced)]
    if len(names) > UNPRICED_NAMED:
        more = len(names) - UNPRICED_NAMED + 1
        names[UNPRICED_NAMED - 1 :] = [f"and {more} more ('usage model' lists them)"]
    return (
        "no price for: "
        + ", ".join(names)
        + "; their rows say unpriced, never $0, and a cost with + leaves them out"
    )


UNPRICED_NAMED = 12  # models the note names
DATED = ("daily", "weekly", "monthly")  # the reports whose caption names the days' zone
UTC_DAYS = "UTC (--tz sets another)"  # that caption's zone where --tz is not given


def names_a_day(*bounds: str | None) -> bool:
    """Whether `--since`/`--until` name a day or a time of day (2026-11-30, today,
    2026-11-30T09:00), which the report's zone places, rather than a span back (3d) or
    `now`, the same moment in every zone."""
    import re

    from ..selection import SPAN

    return any(
        bound is not None
        and not re.fullmatch(SPAN, bound)
        and bound.strip().lower() != "now"
        for bound in bounds
    )


def zone_named(tz: str | None) -> str:
    """The zone a dated report's days were cut in, as its caption names it: UTC (the
    default) with the option that changes it, or the zone --tz named."""
    from ..zones import parse_tz

    if tz is None:
        return UTC_DAYS
    zone = zone_name(parse_tz(tz))
    return f"{zone} (local)" if tz == "local" and zone != "local time" else zone


def periods_of(kind: str) -> str:
    """What a report's rows are cut into, as its caption names them: `weeks` of a
    weekly report, `months` of a monthly one, else `days`."""
    return {"weekly": "weeks", "monthly": "months"}.get(kind, "days")


def nothing_counted(
    filters: Sequence[str],
    zone: str | None,
    hiding_links: Mapping[str, Sequence[str]] | None = None,
    kind: str = "daily",
) -> str:
    """What an empty report says on stderr: `filters` the options that narrowed it as
    typed (`--since 3d`), `zone` the one whose days emptied it (a day named) or None,
    `hiding_links` the broken links that hide an app's files, by app
    (`Collected.hiding_links`), `kind` the report (weeks or months cut in the zone)."""
    # today in UTC may have begun an hour ago here: the zone is what emptied it
    days = f", with {periods_of(kind)} in {zone}" if zone is not None else ""
    if filters:  # as `list` says it: what emptied it, and the report without it
        them = "it" if len(filters) == 1 else "them"
        asked = " ".join(filters)
        if "--here" in filters:  # which folder: the shell's may not be the one meant
            from ..selection import here_folders

            here_said = folder_said(here_folders()[-1])
            asked = asked.replace("--here", f"--here (in {here_said})", 1)
        return (
            f"No token usage matches {asked}{days}; "
            f"{named('usage')} without {them} counts all there is."
        )
    links = [words for said in (hiding_links or {}).values() for words in said]
    if links:  # what hides the usage, said as `list` says it
        return (
            f"No token usage found {where()}{days}: {links[0]}. {named('doctor')} shows "
            "where sessdex looked and what it skipped."
        )
    return (
        f"No token usage found {where()}{days}. {named('list')} shows the sessions "
        f"sessdex sees; {named('doctor')} where it looked."
    )


def print_table(
    kind: str,
    rows: Sequence[Row],
    total: Row,
    catalogue: str,
    home: str,
    zone: str | None,
) -> None:
    """The report's table on stdout, then its captions: the footnote to an app's own
    cost, the zone its days, weeks or months were cut in (`zone`; None: not said) and
    the price list's name."""
    from . import terminal
    from .text import columns_asked

    out = terminal.console()
    asked = columns_asked()
    if not out.is_terminal:
        # a pipe gets whole numbers and names, not folds, unless $COLUMNS says a width
        out.width = asked or max(out.width, 160)
    roomy = out.is_terminal or asked is not None  # a title may take the width given
    table(kind, rows, total, out.width, home, roomy).print(out)
    # apart from the table: a caption would be padded with spaces to the table's width;
    # wrapped at its words to the width the table fits (a terminal's, $COLUMNS), where
    # the terminal would break a long one mid-word
    import textwrap

    captions = [own_cost_note(total), f"{periods_of(kind)}: {zone}" if zone else None]
    for caption in filter(None, [*captions, f"prices: {catalogue}"]):
        lines = [caption] if not roomy else textwrap.wrap(caption, out.width, break_long_words=False, break_on_hyphens=False)  # fmt: skip
        for line in lines:
            out.print(line, style="table.caption", markup=False, soft_wrap=True)


def _when(time: float | None, tz: tzinfo) -> str:
    if time is None:
        return "(no time)"
    try:
        return datetime.fromtimestamp(time, tz).strftime("%Y-%m-%d %H:%M:%S")
    except (OverflowError, OSError, ValueError):  # the year 1 west of UTC: shown in UTC
        try:
            return datetime.fromtimestamp(time, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        except (OverflowError, OSError, ValueError):
            return "(no time)"


def explain_lines(
    explained: Explained,
    tz: tzinfo = UTC,
    kind: str | None = None,
    home: str | None = None,
) -> Iterator[str]:
    """Plain lines: what was counted (file:line, time, tokens, cost, why), what was dropped
    and why, and what the lists leave out; one at a time. What they quote from files (a
    model, a response's id, a path) is cleaned: no escape sequence reaches the terminal,
    no newline starts a line of its own. A `project` row under `home` is named as the
    table names it (`~/code/shop`), and a file there so too (`~/.claude/…`)."""
    for line in _explain_lines(explained, tz, kind, home):
        yield flat(line)


def _explain_lines(
    explained: Explained, tz: tzinfo, kind: str | None, home: str | None
) -> Iterator[str]:
    row = explained.row
    more = explained.more
    named = short_path(row.key, home) if kind == "project" and home else row.key
    yield from [
        f"row {named}: {row.responses:,} response{'' if row.responses == 1 else 's'}, "
        f"input {row.input_tokens:,}, output {row.output_tokens:,}, "
        f"cache write {row.cache_write_tokens:,}, cache read {row.cache_read_tokens:,}, cost {money(row)}"
        + _credits_said(row),
        *(f"note: {note}" for note in explained.notes[: explained.said_first]),
        "",
        # the day of a time near midnight depends on it: said once, not on every line
        f"counted ({len(explained.counted) + more.responses}): times in {zone_name(tz)}",
    ]
    for app, path, record, cost in explained.counted:
        path = _file_named(path, home)
        u = record.usage.plausible()  # what the row counts of it
        price = "unpriced" if cost is None else f"${cost:.6f}"
        agent = f" agent {record.agent_id}" if record.agent_id else ""
        yield (
            f"  {app} {_at(path, record.line)}  {_when(record.time, tz)}  {u.model or '(unknown model)'}{agent}  "
            f"in {u.input_tokens:,} out {u.output_tokens:,} cw {u.cache_write_tokens:,} cr {u.cache_read_tokens:,} "
            f"rs {u.reasoning_tokens:,}  {price}"
            + (f"  credits {credits_amount(u.credits)}" if u.credits else "")
        )
        if note := _note(record):
            yield f"      {note}"
    if more.responses:
        yield (
            f"  … and {more.responses:,} more, not listed (--limit lists more): input {more.input_tokens:,}, "
            f"output {more.output_tokens:,}, cache write {more.cache_write_tokens:,}, "
            f"cache read {more.cache_read_tokens:,}, reasoning {more.reasoning_tokens:,}, cost {money(more)}"
            + _credits_said(more)
        )
    yield ""
    yield f"dropped ({len(explained.dropped) + explained.more_dropped}):"
    for app, path, dropped in explained.dropped:
        path = _file_named(path, home)
        yield f"  {app} {path}:{dropped.line}  {dropped.rule}: {dropped.note}"
    if explained.more_dropped:
        rules = ", ".join(f"{rule} {n:,}" for rule, n in explained.rules.items())
        yield f"  … and {explained.more_dropped:,} more, not listed; every line dropped, by rule: {rules}"
    for note in explained.notes[explained.said_first :]:
        yield f"note: {note}"


def _credits_said(row: Row) -> str:
    credits = row.credits_by_app
    return f", credits {credits_text(credits)}" if credits else ""


def _iso(time: float | None) -> str | None:
    """`time` in UTC, or None where no date holds it (the year 1 east of UTC), as
    `_when` writes `(no time)` for the table."""
    from .records import iso

    try:
        return iso(datetime.fromtimestamp(time, UTC)) if time is not None else None
    except (OverflowError, OSError, ValueError):
        return None


def explain_record(explained: Explained) -> dict[str, object]:
    """The audit as one JSON object (`usage --explain --json`)."""
    return {
        "row": explained.row.record(),
        "counted": list(_counted_records(explained)),
        "dropped": _dropped_records(explained),
        "notes": explained.notes,
        **_left_out(explained),
    }


def _left_out(explained: Explained) -> dict[str, object]:
    """What the lists leave out (at most `limit` each): how many, and the responses' sums."""
    more = explained.more
    sums: dict[str, object] = {"responses": more.responses}
    sums.update((name, getattr(more, name)) for name in TOKENS)
    sums["cost_usd"] = more.cost_usd
    sums["priced_cost_usd"] = more.priced_cost_usd
    sums["unpriced_models"] = sorted(more.unpriced)
    sums["credits"] = more.credits_by_app
    return {
        "limit": explained.limit,
        "counted_not_listed": sums,
        "dropped_not_listed": explained.more_dropped,
        "dropped_by_rule": explained.rules,
    }


def explain_json(explained: Explained) -> Iterator[bytes]:
    """`explain_record` as JSON bytes, in pieces: a big session's audit has an object per
    response, and neither the objects nor the document are held whole."""
    from .records import dumps

    yield b'{"row":' + dumps(explained.row.record()) + b',"counted":['
    counted = _counted_records(explained)
    comma = b""
    while batch := list(itertools.islice(counted, 1000)):
        yield comma + dumps(batch)[1:-1]  # the objects without the list's brackets
        comma = b","
    yield (
        b'],"dropped":'
        + dumps(_dropped_records(explained))
        + b',"notes":'
        + dumps(explained.notes)
        + b","
        + dumps(_left_out(explained))[1:]
    )


def _counted_records(explained: Explained) -> Iterator[dict[str, object]]:
    for app, path, record, cost in explained.counted:
        u = record.usage.plausible()  # what the row counts of it
        yield {
            "app": app,
            "file": path,
            # 0: its app is counted through its reader, which says no line
            "line": record.line or None,
            "time": _iso(record.time),
            "session_id": record.session_id,
            "agent_id": record.agent_id,
            "model": u.model,
            "input_tokens": u.input_tokens,
            "output_tokens": u.output_tokens,
            "cache_write_tokens": u.cache_write_tokens,
            "cache_read_tokens": u.cache_read_tokens,
            "reasoning_tokens": u.reasoning_tokens,
            # to the millionth, as the rows: a sum of float products ends in noise
            "cost_usd": cost if cost is None else round(cost, 6),
            # the app's own unit (`app` says whose), never a cost
            "credits": round(u.credits, 6),
            "note": _note(record),
        }


_COUNTS = (
    ("in", "input_tokens"),
    ("out", "output_tokens"),
    ("cw", "cache_write_tokens"),
    ("cr", "cache_read_tokens"),
    ("rs", "reasoning_tokens"),
)


def _file_named(path: str, home: str | None) -> str:
    """A file as `list` names a folder (`~/…` under `home`), each character of its name
    that is not printable written out (`\\x1b`), as `--verbose` names it: dropped, an
    escape sequence took its payload with it, and the name was not the file's."""
    from ..cells import written_out

    return written_out(short_path(path, home) if home else path)


def _at(path: str, line: int) -> str:
    """Where a response was read: its file and line, or the file alone where the app is
    counted through its reader, which says no line (its note names the usage event)."""
    return f"{path}:{line}" if line else path


def _note(record: UsageRecord) -> str | None:
    """The record's note, and the counts no response can have that its line held (below
    zero, past any response's), which the row counts as 0: the lines then add up to it."""
    raw, counted = record.usage, record.usage.plausible()
    broken = [
        f"{short} {getattr(raw, name)}"
        for short, name in _COUNTS
        if getattr(raw, name) != getattr(counted, name)
    ]
    if raw.credits != counted.credits:
        broken.append(f"credits {raw.credits}")
    said = f"counts no response has, taken as 0: {', '.join(broken)}" if broken else ""
    return "; ".join(n for n in (record.note, said) if n) or None


def _dropped_records(explained: Explained) -> list[dict[str, object]]:
    return [
        {"app": app, "file": path, "line": d.line, "rule": d.rule, "note": d.note}
        for app, path, d in explained.dropped
    ]
