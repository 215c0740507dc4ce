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
    left_cut,
    one_line,
    short_id_width,
    short_path,
    tokens,
)

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
    """The JSON object `watch --nl` prints for one session's status."""
    session = row.session
    return {
        "id": session.id,
        "app": session.app,
        "title": session.title,
        "cwd": session.cwd,
        "status": row.status.status,
        "reason": row.status.reason,
        "updated": iso(datetime.fromtimestamp(row.updated, UTC))
        if row.updated
        else None,
        "tokens": row.tokens,
    }


# the plain board's title, folder and reason columns at their widest, and at their
# narrowest when a terminal is too narrow for them (the reason gives way first)
_WIDEST = (48, 28, 44)
_NARROWEST = (15, 12, 18)


def _cells(row: BoardRow, home: str, now: datetime) -> tuple[str, ...]:
    session = row.session
    when = datetime.fromtimestamp(row.updated, UTC) if row.updated else None
    count = tokens(row.tokens) + ("+" if row.partial and row.tokens else "")
    return (
        session.app,
        one_line(session.title or "(untitled)", _WIDEST[0]),
        left_cut(one_line(short_path(session.cwd, home)), _WIDEST[1]),
        one_line(row.status.reason, _WIDEST[2]),
        age(when, now),
        count if row.tokens else "-",
    )


def _id_width(rows: Sequence[BoardRow]) -> int:
    """How much of each id the board prints: enough to tell its sessions apart, so that
    `show`, `follow` and `resume` take it."""
    ids = sorted(row.session.id.lower() for row in rows)
    return short_id_width((row.session.id for row in rows), ids)


def render(rows: Sequence[BoardRow], home: str, now: datetime | None = None) -> object:
    """A Rich renderable: one table, most urgent first, a rule between status groups."""
    from rich.table import Table
    from rich.text import Text

    now = now or datetime.now(UTC)
    id_width = _id_width(rows)
    table = Table(box=None, pad_edge=False, show_edge=False, expand=False)
    table.add_column("status", no_wrap=True)
    table.add_column("id", no_wrap=True, min_width=id_width)
    table.add_column("app", no_wrap=True, max_width=11)
    table.add_column("title", no_wrap=True, max_width=40)
    table.add_column("folder", no_wrap=True, max_width=24)
    table.add_column("why", no_wrap=True, min_width=20)
    table.add_column("age", justify="right", no_wrap=True)
    table.add_column("tokens", justify="right", no_wrap=True)
    if not rows:
        table.add_row(Text("no recent sessions", style="dim"))
        return table
    for n, row in enumerate(rows):
        status = row.status.status
        last = n + 1 == len(rows) or rows[n + 1].status.status != status
        table.add_row(
            Text(LABELS.get(status, status), style=COLOURS.get(status, "")),
            Text(row.session.id[:id_width], style="dim"),
            *(Text(cell) for cell in _cells(row, home, now)),
            end_section=last,
        )
    return table


def plain(
    rows: Sequence[BoardRow],
    home: str,
    now: datetime | None = None,
    width: int | None = None,
) -> str:
    """The board as plain text (`watch --once`, a pipe, a file): its title, folder and
    reason columns as wide as what they show, and narrower to fit `width` (a terminal's)
    where it is given; a folder cut loses its start."""
    now = now or datetime.now(UTC)
    if not rows:
        return "no recent sessions\n"
    app_column = app_width(row.session.app for row in rows)
    id_width = _id_width(rows)
    cells = {id(row): _cells(row, home, now) for row in rows}
    columns = [
        max(1, *(len(c[n + 1]) for c in cells.values())) for n in range(3)
    ]  # title, folder, why: as shown
    if width is not None:
        over = 2 + id_width + 1 + app_column + 1 + sum(columns) + 3 + 4 + 1 + 7 - width
        for n in (2, 1, 0):  # the reason, then the folder, then the title
            given = min(max(over, 0), max(0, columns[n] - _NARROWEST[n]))
            columns[n] -= given
            over -= given
    title_w, folder_w, why_w = columns
    lines = []
    for status in STATUSES:
        group = [row for row in rows if row.status.status == status]
        if not group:
            continue
        lines.append(f"{LABELS[status]} ({len(group)})")
        for row in group:
            app, title, folder, why, when, count = cells[id(row)]
            lines.append(
                f"  {row.session.id[:id_width]:<{id_width}} "
                f"{app:<{app_column}} {_cut(title, title_w):<{title_w}} "
                f"{left_cut(folder, folder_w):<{folder_w}} {_cut(why, why_w):<{why_w}} "
                f"{when:>4} {count:>7}"
            )
    return "\n".join(lines) + "\n"


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
