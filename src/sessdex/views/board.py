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
from .text import age, app_width, one_line, short_path, tokens

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


def _cells(row: BoardRow, home: str, now: datetime) -> tuple[str, ...]:
    session = row.session
    when = datetime.fromtimestamp(row.updated, UTC) if row.updated else None
    count = tokens(row.tokens) + ("+" if row.partial and row.tokens else "")
    return (
        session.app,
        one_line(session.title or "(untitled)", 48),
        one_line(short_path(session.cwd, home), 28),
        one_line(row.status.reason, 44),
        age(when, now),
        count if row.tokens else "-",
    )


def render(rows: Sequence[BoardRow], home: str, now: datetime | None = None) -> object:
    """A Rich renderable: one table, most urgent first, a rule between status groups."""
    from rich.table import Table
    from rich.text import Text

    now = now or datetime.now(UTC)
    table = Table(box=None, pad_edge=False, show_edge=False, expand=False)
    table.add_column("status", no_wrap=True)
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
            *(Text(cell) for cell in _cells(row, home, now)),
            end_section=last,
        )
    return table


def plain(rows: Sequence[BoardRow], home: str, now: datetime | None = None) -> str:
    """The board as plain text (for a pipe or a file)."""
    now = now or datetime.now(UTC)
    if not rows:
        return "no recent sessions\n"
    lines = []
    app_column = app_width(row.session.app for row in rows)
    for status in STATUSES:
        group = [row for row in rows if row.status.status == status]
        if not group:
            continue
        lines.append(f"{LABELS[status]} ({len(group)})")
        for row in group:
            app, title, folder, why, when, count = _cells(row, home, now)
            lines.append(
                f"  {app:<{app_column}} {title:<48.48} {folder:<28.28} {why:<44.44} "
                f"{when:>4} {count:>7}"
            )
    return "\n".join(lines) + "\n"
