"""The live board of `sessdex watch`: sessions grouped by urgency, as Rich, plain text or JSON.

Titles, folders and reasons come from transcripts: every one goes through `text.one_line`
and into a Rich `Text`, never into markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from ..live import BoardRow
from ..model import JSONValue
from ..status import STATUSES
from .records import iso
from .text import (
    age,
    app_width,
    cut,
    id_column,
    left_cut,
    one_line,
    pad,
    short_id,
    short_id_width,
    short_path,
    title_line,
    tokens,
)
from .text import cells as text_cells

EMPTY = "No recent sessions."  # what an empty board says, when not told why


def empty_board(
    since: str, newest: datetime | None, now: datetime | None = None, where: str = ""
) -> str:
    """What an empty board says for `--since VALUE`, a sentence of its own line: how far
    it looked, and the shortest --since that reaches the newest session (changed at
    `newest`; None: there is none to reach, so none is suggested); `where` the folder it
    kept to (` in '~/shop'`)."""
    import re

    from ..selection import SPAN, is_now, reaching

    found = re.fullmatch(SPAN, since)
    if is_now(since):  # not "since now", read as if no time had passed
        given = f"No session{where} changed since watch started"
    elif found is None:
        given = f"No session{where} changed since {since}"
    else:  # 3d as typed, a word apart: 3 days
        unit = found[2].lower() if len(found[2]) == 1 else f" {found[2].lower()}"
        given = f"No session{where} changed in the last {found[1]}{unit}"
    if newest is None:
        return f"{given}, nor before: there is no session to show."
    when, reach = reaching(newest, now)
    return f"{given}; the newest changed {when}: --since {reach} shows it."


LABELS = {
    "waiting_for_user": "waiting for you",
    "failed": "failed",
    "waiting_on_subagent": "waiting on a sub-agent",
    "working": "working",
    "idle": "idle",
    "ended": "ended",
}
COLOURS = {
    "waiting_for_user": "bold yellow",
    "failed": "bold red",
    "waiting_on_subagent": "magenta",
    "working": "green",
    "idle": "dim",
    "ended": "dim",
}


def status_record(row: BoardRow) -> dict[str, JSONValue]:
    """The JSON object `watch --nl` prints for one session's status, `pid` null; for a
    CLI running with no session yet (`watch --json` only), the same keys, `id` and
    `title` null, and its `pid`: a script reads the same keys from every row. Its
    `reason` has no age ("exited after its turn"), `since` the time the board's age
    counts from: a saved "3m ago" goes stale, and no script could compare two."""
    session = row.session
    if row.pid is not None:
        return {
            "id": None,
            "app": session.app,
            "title": None,
            "cwd": session.cwd,
            "status": row.status.status,
            "reason": row.status.plain,
            "since": _iso(row.status.since),
            "updated": _iso(row.updated),
            "tokens": 0,
            "tokens_partial": False,
            "pid": row.pid,
        }
    return {
        "id": session.id,
        "app": session.app,
        "title": session.title,
        "cwd": session.cwd,
        "status": row.status.status,
        "reason": row.status.plain,
        "since": _iso(row.status.since),
        "updated": _iso(row.updated),
        "tokens": row.tokens,
        "tokens_partial": row.partial,
        "pid": None,
    }


def _iso(when: float | None) -> str | None:
    """Epoch seconds as our JSON writes a time; None where there is none (0: undated)."""
    return iso(datetime.fromtimestamp(when, UTC)) if when else None


# the plain board's title, folder and reason columns at their widest, and at their
# narrowest when a terminal is too narrow for them (the title and the reason give way
# together, the wider first, then the folder; the reason's column is the first to go)
_WIDEST = (48, 28, 44)
_NARROWEST = (15, 12, 18)
_TITLE_LEAST = 8  # the title's narrowest, once the reason and folder columns are gone


def _cells(row: BoardRow, home: str, now: datetime) -> tuple[str, ...]:
    session = row.session
    when = datetime.fromtimestamp(row.updated, UTC) if row.updated else None
    count = tokens(row.tokens) + ("+" if row.partial and row.tokens else "")
    return (
        session.app,
        "(no session yet)"
        if row.pid is not None
        else title_line(session.title, _WIDEST[0]),
        left_cut(one_line(short_path(session.cwd, home)), _WIDEST[1]),
        one_line(row.status.reason, _WIDEST[2]),
        age(when, now),
        count if row.tokens else "-",
    )


def _id_width(rows: Sequence[BoardRow], every: Sequence[str] | None) -> int:
    """How much of each id the board prints: enough to tell it from every other session
    (`every`: Index.ids, sub-agents included; else the board's own), so that `show`,
    `follow` and `resume` take it."""
    sessions = [row for row in rows if row.pid is None]
    ids = every if every is not None else sorted(r.session.id.lower() for r in sessions)
    return short_id_width((row.session.id for row in sessions), ids)


def render(
    rows: Sequence[BoardRow],
    home: str,
    now: datetime | None = None,
    width: int | None = None,
    ids: Sequence[str] | None = None,
    empty: str = EMPTY,
) -> object:
    """A Rich renderable for the live board: the plain board's lines, fitted to `width`
    (the terminal's) as `plain` fits them, each group's heading in its status's colour
    and each id dim."""
    from rich.text import Text

    if not rows:
        return Text(one_line(empty), style="dim")
    out = Text(no_wrap=True, overflow="crop")
    id_width, lines, start = _lines(rows, home, now or datetime.now(UTC), width, ids)
    for n, (status, line) in enumerate(lines):
        if n:
            out.append("\n")
        if status is not None:
            out.append(line, style=COLOURS.get(status, ""))
        else:  # the id after the app column (where it shows)
            out.append(line[:start])
            out.append(line[start : start + id_width], style="dim")
            out.append(line[start + id_width :])
    return out


def plain(
    rows: Sequence[BoardRow],
    home: str,
    now: datetime | None = None,
    width: int | None = None,
    ids: Sequence[str] | None = None,
    empty: str = EMPTY,
) -> str:
    """The board as plain text (`watch --once`, a pipe, a file): its title, folder and
    reason columns as wide as what they show, and narrower to fit `width` (a terminal's)
    where it is given; a folder cut loses its start."""
    if not rows:
        return one_line(empty) + "\n"
    _, lines, _ = _lines(rows, home, now or datetime.now(UTC), width, ids)
    return "\n".join(line for _, line in lines) + "\n"


def _lines(
    rows: Sequence[BoardRow],
    home: str,
    now: datetime,
    width: int | None,
    ids: Sequence[str] | None = None,
) -> tuple[int, list[tuple[str | None, str]], int]:
    """The id width, the board's lines and where a line's id starts: (status, heading)
    for each status group, (None, line) for each of its sessions, its columns in
    `list`'s order (app, id, age, then the tokens, folder, title and reason). Fitted to `width`: the title and the
    reason narrow together (the wider first), then the folder, to _NARROWEST; where that is not enough, the reason
    column goes, then the folder column, then each app's name is cut to the fewest
    letters that tell the board's apps apart (`cla`, `cod`), and the rest narrow as
    before (the title to _TITLE_LEAST); then the app column goes, for a title; then the
    title, the app's letters back; and last both. Status, id, age and tokens stay whole."""
    apps = {row.session.app for row in rows}
    app_column = app_width(apps)
    id_width = _id_width(rows, ids)
    # the column a quoted id takes (`'m-1$$cal'`, as `list` prints it)
    id_cells = id_column((row.session.id for row in rows), id_width)
    cells = {id(row): _cells(row, home, now) for row in rows}
    widest = [
        max(1, *(text_cells(c[n + 1]) for c in cells.values())) for n in range(3)
    ]  # title, folder, why: as shown
    columns = list(widest)
    if width is not None:
        tag = _tag_width(apps)
        # each try: the app column, the columns left out (2 the reason, 1 the folder, 0
        # the title) and the title's narrowest; the first that fits is kept
        tries = (
            (app_column, (), _NARROWEST[0]),
            (app_column, (2,), _NARROWEST[0]),
            (app_column, (2, 1), _NARROWEST[0]),
            (tag, (2, 1), _NARROWEST[0]),
            (tag, (2, 1), _TITLE_LEAST),
            (0, (2, 1), _TITLE_LEAST),
            (tag, (2, 1, 0), _TITLE_LEAST),
            (0, (2, 1, 0), _TITLE_LEAST),
        )
        for app_column, gone, title_least in tries:
            least = [title_least, *_NARROWEST[1:]]
            for n in gone:
                widest[n] = least[n] = 0
            columns = [min(w, n) for w, n in zip(widest, least, strict=True)]
            if _length(id_cells, app_column, columns) <= width:
                break
        columns = list(widest)
        over = _length(id_cells, app_column, columns) - width
        # the reason and the title together, the wider first; then the folder, then a
        # title without a reason beside it
        for which in ((0, 2), (1,), (0,)) if columns[2] else ((1,), (0,)):
            over -= _narrowed(columns, least, over, which)
    title_w, folder_w, why_w = columns
    lines: list[tuple[str | None, str]] = []
    for status in STATUSES:
        group = [row for row in rows if row.status.status == status]
        if not group:
            continue
        lines.append((status, f"{LABELS[status]} ({len(group)})"))
        for row in group:
            app, title, folder, why, when, count = cells[id(row)]
            # in `list`'s order (app, id, age, folder, title), the tokens beside the
            # age and the reason last; an id is what a file says: cleaned as `list` does
            line = "  " + (
                f"{cut(app, app_column):<{app_column}} " if app_column else ""
            )
            line += f"{pad(short_id(row.session.id, id_width), id_cells)} "
            line += f"{when:>4} {count:>7} "
            if folder_w:
                line += pad(left_cut(folder, folder_w), folder_w) + " "
            if title_w:
                line += pad(cut(title, title_w), title_w) + " "
            if why_w:
                line += pad(cut(why, why_w), why_w)
            lines.append((None, line.rstrip(" ")))
    return id_cells, lines, 2 + (app_column + 1 if app_column else 0)


def _narrowed(
    columns: list[int], least: Sequence[int], over: int, which: Sequence[int]
) -> int:
    """Narrow the columns `which` names by up to `over` cells in all, a cell at a time
    from the widest of them (none below its `least`); how many cells were taken."""
    taken = 0
    while taken < over:
        room = [n for n in which if columns[n] > least[n]]
        if not room:
            break
        widest = max(room, key=lambda n: columns[n])
        columns[widest] -= 1
        taken += 1
    return taken


def _tag_width(apps: set[str]) -> int:
    """The fewest columns that tell these apps apart on a narrow board, a name cut
    there keeping 3 letters or more and ending in "…" as every table cuts: `cla…` and
    `cod…`, `kiro` and `kir…`."""
    longest = max(map(len, apps), default=0)
    return next(
        (
            n
            for n in range(4, longest)
            if len({cut(app, n) for app in apps}) == len(apps)
        ),
        longest,
    )


def _length(id_width: int, app_column: int, columns: Sequence[int]) -> int:
    """How long a session's line is with these columns (0: left out)."""
    shown = sum(column + 1 for column in (app_column, *columns) if column)
    return 2 + id_width + 1 + shown + 4 + 1 + 7
