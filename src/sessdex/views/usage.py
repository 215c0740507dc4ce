"""How `sessdex usage` looks: Rich tables of usage rows, the JSON shape, and `--explain` text.

The JSON shape (`row_records`) is the one `--json` prints. Nothing here reads files.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, tzinfo

from rich.table import Table
from rich.text import Text

from ..usage import TOKENS, Explained, Row
from .text import one_line, short_id_width

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


def money(row: Row) -> str:
    """The row's cost; "$1.20+" when unpriced models add an unknown amount to it."""
    if row.partly_priced:
        return _dollars(row.priced_cost_usd) + "+"
    cost = row.cost_usd
    if cost is None:
        return "unpriced"
    return _dollars(cost)


def _dollars(cost: float) -> str:
    return f"${cost:,.2f}" if cost >= 0.01 or cost == 0 else f"${cost:.5f}"


def row_records(rows: Sequence[Row]) -> list[dict[str, object]]:
    return [row.record() for row in rows]


def table(kind: str, rows: Sequence[Row], total: Row, catalogue: str) -> Table:
    """One line per row (sub-agents indented under their session), then the total."""
    out = Table(
        caption=f"prices: {catalogue}",
        caption_justify="left",
    )
    out.add_column(
        HEADERS.get(kind, "Key"),
        no_wrap=True,
        max_width=48 if kind == "session" else None,
    )
    if kind not in ("model",):
        out.add_column("Models", no_wrap=True)
    for label in LABELS:
        out.add_column(label, justify="right", no_wrap=True)
    out.add_column("Cost", justify="right", no_wrap=True)

    def cells(row: Row, label: str | Text, models: bool = True) -> list[str | Text]:
        line: list[str | Text] = [label]
        if kind != "model":
            line.append(
                "\n".join(one_line(m) for m in sorted(row.models)) if models else ""
            )
        line.extend(f"{getattr(row, name):,}" for name in TOKENS)
        line.append(
            Text(money(row), style="yellow") if row.cost_usd is None else money(row)
        )
        return line

    # long enough to tell the rows apart for --explain, and from their sub-agents'
    # sessions, for `show` (time-ordered ids share their first characters)
    keys = sorted(
        {row.key.lower() for row in rows}
        | {str(agent).lower() for row in rows for agent in row.agents}
    )
    id_width = short_id_width((row.key for row in rows), keys)
    for row in rows:
        out.add_row(*cells(row, _label(kind, row, id_width)))
        for agent, sub in row.agents.items():
            out.add_row(
                *cells(
                    sub, Text(f"  └ {one_line(agent, 40)}", style="dim"), models=False
                )
            )
    out.add_section()
    out.add_row(*cells(total, Text("Total", style="bold"), models=False))
    return out


def _label(kind: str, row: Row, id_width: int) -> str:
    """The row's key; a session's short id and title (`--explain` takes the short id)."""
    title = row.about.get("title") if kind == "session" else None
    if title:
        return f"{one_line(row.key, 80)[:id_width]}  {one_line(title, 60)}"
    return one_line(row.key, 80)


def unpriced_note(total: Row) -> str | None:
    if not total.unpriced:
        return None
    return (
        "no price for: "
        + ", ".join(sorted(total.unpriced))
        + "; their rows say unpriced, never $0, and a cost with + leaves them out"
    )


def _when(time: float | None, tz: tzinfo) -> str:
    if time is None:
        return "(no time)"
    return datetime.fromtimestamp(time, tz).strftime("%Y-%m-%d %H:%M:%S")


def explain_lines(explained: Explained, tz: tzinfo = UTC) -> list[str]:
    """Plain lines: what was counted (file:line, time, tokens, cost, why), what was dropped and why."""
    row = explained.row
    lines = [
        f"row {row.key}: {row.responses} responses, input {row.input_tokens:,}, output {row.output_tokens:,}, "
        f"cache write {row.cache_write_tokens:,}, cache read {row.cache_read_tokens:,}, cost {money(row)}",
        "",
        f"counted ({len(explained.counted)}):",
    ]
    for app, path, record, cost in explained.counted:
        u = record.usage
        price = "unpriced" if cost is None else f"${cost:.6f}"
        agent = f" agent {record.agent_id}" if record.agent_id else ""
        lines.append(
            f"  {app} {path}:{record.line}  {_when(record.time, tz)}  {u.model or '(unknown model)'}{agent}  "
            f"in {u.input_tokens} out {u.output_tokens} cw {u.cache_write_tokens} cr {u.cache_read_tokens} "
            f"rs {u.reasoning_tokens}  {price}"
        )
        if record.note:
            lines.append(f"      {record.note}")
    lines.append("")
    lines.append(f"dropped ({len(explained.dropped)}):")
    for app, path, dropped in explained.dropped:
        lines.append(f"  {app} {path}:{dropped.line}  {dropped.rule}: {dropped.note}")
    for note in explained.notes:
        lines.append(f"note: {note}")
    return lines


def _iso(time: float | None) -> str | None:
    from .records import iso

    return iso(datetime.fromtimestamp(time, UTC)) if time is not None else None


def explain_record(explained: Explained) -> dict[str, object]:
    return {
        "row": explained.row.record(),
        "counted": [
            {
                "app": app,
                "file": path,
                "line": record.line,
                "time": _iso(record.time),
                "session_id": record.session_id,
                "agent_id": record.agent_id,
                "model": record.usage.model,
                "input_tokens": record.usage.input_tokens,
                "output_tokens": record.usage.output_tokens,
                "cache_write_tokens": record.usage.cache_write_tokens,
                "cache_read_tokens": record.usage.cache_read_tokens,
                "reasoning_tokens": record.usage.reasoning_tokens,
                "cost_usd": cost,
                "note": record.note,
            }
            for app, path, record, cost in explained.counted
        ],
        "dropped": [
            {"app": app, "file": path, "line": d.line, "rule": d.rule, "note": d.note}
            for app, path, d in explained.dropped
        ],
        "notes": explained.notes,
    }
