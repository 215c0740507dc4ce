"""Goose's token counts as sessdex usage: a session's counters and its `usage_ledger` rows.

What each counter means, and why the ledger wins where it holds a call, is told in
`goose.py`'s docstring and in `_unledgered`; this module reads and sums, it emits nothing.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping

from .. import databases
from ..model import Usage
from ._values import as_int, as_str, db_time, odd_count

_COUNTS = ("input", "output", "cache_read", "cache_write")

# input (cache reads and writes included, as Goose counts it), output, cache read, cache write
Counts = tuple[int, int, int, int]


def _counter_prefix(values: Mapping[str, object]) -> str:
    """`accumulated_` (the session's sum) where Goose wrote it, else the plain counters."""
    accumulated = any(
        isinstance(values.get(f"accumulated_{name}_tokens"), int)
        for name in ("input", "output")
    )
    return "accumulated_" if accumulated else ""


def _counters(values: Mapping[str, object], prefix: str) -> Counts:
    given, made, read, written = (
        max(0, as_int(values.get(f"{prefix}{name}_tokens"), floats=False))
        for name in _COUNTS
    )
    return given, made, read, written


def _odd(values: Mapping[str, object], prefix: str) -> bool:
    """Whether a counter `_counters` or `_total` reads is one no app writes
    (`odd_count`: text, a fraction, below 0, past 2**53), which they take as 0: the
    reader says it."""
    return any(
        odd_count(values.get(f"{prefix}{name}_tokens")) for name in (*_COUNTS, "total")
    )


def _usage(counts: Counts, model: str | None, total: int | None = None) -> Usage | None:
    """sessdex's usage from Goose's counts: Goose's input includes the cache reads and
    writes (goose-provider-types token_usage.rs: both are subsets of it). Its Google
    format counts `candidatesTokenCount` as output, leaving out the thinking tokens that
    Gemini's `totalTokenCount` (Goose's total) holds: what the total has beyond input
    and output is that thinking, added to the output as reasoning."""
    given, made, read, written = counts
    thinking = max(0, total - given - made) if total else 0
    usage = Usage(
        input_tokens=max(0, given - read - written),
        output_tokens=made + thinking,
        cache_read_tokens=read,
        cache_write_tokens=written,
        reasoning_tokens=thinking,
        model=model,
    )
    return usage if usage.total else None


def _total(values: Mapping[str, object], prefix: str) -> int | None:
    return _positive(values.get(f"{prefix}total_tokens"))


def _positive(value: object) -> int | None:
    return value if isinstance(value, int) and value > 0 else None


class _Call:
    """One `usage_ledger` row: one model call Goose billed."""

    __slots__ = ("carried", "compaction", "counts", "model", "odd", "time", "total")

    def __init__(self, row: tuple[object, ...]) -> None:
        stamp, model, given, made, read, written, total, compaction, source = row
        self.time = db_time(stamp)
        self.model = as_str(model)
        self.counts: Counts = _counters(
            {"input_tokens": given, "output_tokens": made,
             "cache_read_tokens": read, "cache_write_tokens": written}, "",
        )  # fmt: skip
        self.total = _positive(total)
        self.odd = any(odd_count(v) for v in (given, made, read, written, total))
        self.compaction = compaction == 1
        # Goose's sum of the calls before the ledger, moved into it on the next call
        self.carried = source == "carried_forward"


def _ledger(
    connection: sqlite3.Connection, session_id: str, after: int = 0
) -> list[_Call] | None:
    """The session's model calls, oldest first (but for the first `after`); None where
    the database has no ledger."""
    available = databases.table_columns(connection, "usage_ledger")
    if not {"session_id", "input_tokens", "output_tokens"} <= available:
        return None
    wanted = ("created_timestamp", "model", "input_tokens", "output_tokens",
              "cache_read_tokens", "cache_write_tokens", "total_tokens", "is_compaction",
              "cost_source")  # fmt: skip
    columns = [c if c in available else "NULL" for c in wanted]
    rows = connection.execute(
        f"SELECT {', '.join(columns)} FROM usage_ledger WHERE session_id = ? "
        f"ORDER BY {columns[0]}, rowid LIMIT -1 OFFSET ?",
        (session_id, after),
    ).fetchall()
    return [_Call(row) for row in rows]


class _Spent:
    """What a session's ledger rows sum to: counts, totals, whether a row has none."""

    __slots__ = ("counts", "total", "untotalled")

    def __init__(self, counts: Counts, total: int, untotalled: bool) -> None:
        self.counts = counts
        self.total = total
        self.untotalled = untotalled


def _spent(calls: list[_Call] | None) -> _Spent | None:
    if calls is None:
        return None
    given, made, read, written = (sum(c.counts[i] for c in calls) for i in range(4))
    return _Spent(
        (given, made, read, written),
        sum(call.total or 0 for call in calls),
        any(call.total is None for call in calls),
    )


def _ledger_spent(connection: sqlite3.Connection, session_id: str) -> _Spent | None:
    """`_spent` of every ledger row, summed in SQL as `_Call` reads each value: an
    integer up to 2**53, else nothing (counts), a positive integer (totals)."""
    available = databases.table_columns(connection, "usage_ledger")
    if not {"session_id", "input_tokens", "output_tokens"} <= available:
        return None
    sums = [
        f"SUM(CASE WHEN typeof({c}) = 'integer' AND {c} > 0 AND {c} <= {2**53} "
        f"THEN {c} ELSE 0 END)"
        if c in available
        else "0"
        for c in (f"{name}_tokens" for name in _COUNTS)
    ]
    positive = "typeof(total_tokens) = 'integer' AND total_tokens > 0"
    if "total_tokens" in available:
        sums += [f"SUM(CASE WHEN {positive} THEN total_tokens ELSE 0 END)",
                 f"SUM(CASE WHEN {positive} THEN 0 ELSE 1 END)"]  # fmt: skip
    else:
        sums += ["0", "COUNT(*)"]
    row = connection.execute(
        f"SELECT {', '.join(sums)} FROM usage_ledger WHERE session_id = ?",
        (session_id,),
    ).fetchone()
    given, made, read, written, total, untotalled = (
        v if isinstance(v, int) else 0 for v in row
    )
    return _Spent((given, made, read, written), total, untotalled > 0)


def _ledger_odd(connection: sqlite3.Connection, session_id: str) -> int:
    """How many of the session's ledger rows hold a value `odd_count` finds odd (text,
    a blob, a fraction, below 0, past 2**53), counted in SQL as `_Call` reads them."""
    available = databases.table_columns(connection, "usage_ledger")
    columns = [
        c for c in (*(f"{n}_tokens" for n in _COUNTS), "total_tokens") if c in available
    ]
    if "session_id" not in available or not columns:
        return 0
    odd = " OR ".join(
        f"({c} IS NOT NULL AND NOT (typeof({c}) IN ('integer', 'real') "
        f"AND {c} = CAST({c} AS INTEGER) AND {c} BETWEEN 0 AND {2**53}))"
        for c in columns
    )
    (count,) = connection.execute(
        f"SELECT COUNT(*) FROM usage_ledger WHERE session_id = ? AND ({odd})",
        (session_id,),
    ).fetchone()
    return count if isinstance(count, int) else 0


def _unledgered(info: Mapping[str, object], spent: _Spent | None) -> Counts:
    """What the session's counters hold beyond its ledger rows.

    Goose (schema v15) writes every model call to `usage_ledger` and adds it to the
    `accumulated_*` counters in the same transaction; spend from before the ledger is
    moved into it as one `carried_forward` row on the session's next call. So the ledger
    is the better source (per call, with its time and model: what `sessdex usage` splits
    by day and model), and the counters add only what it does not hold yet, column by
    column, as Goose's own totals do (the larger of the two): nothing is counted twice.
    The per-message `metadata_json.usage` is not read: it repeats ledger rows, and misses
    compaction calls and calls whose usage a later one on the same message replaced.
    """
    if spent is None:  # before the ledger: the counters are all there is
        return _counters(info, _counter_prefix(info))
    recorded = _counters(info, "accumulated_")
    given, made, read, written = (
        max(0, total - spent.counts[i]) for i, total in enumerate(recorded)
    )
    return given, made, read, written


def _unledgered_total(info: Mapping[str, object], spent: _Spent | None) -> int | None:
    """The session total beyond its ledger rows, as `_unledgered` counts the rest; None
    where a ledger row has no total to take away (the remainder would be all of it)."""
    if spent is None:
        return _total(info, _counter_prefix(info))
    recorded = _total(info, "accumulated_")
    if recorded is None or spent.untotalled:
        return None
    return max(0, recorded - spent.total)
