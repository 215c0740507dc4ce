"""`show --tail` of a Goose database session: its last messages, and what the whole read
would carry into them from the rows before.

`_Tail` is the `_Reader` of `_goose_read` that reads only those messages; `_Earlier` reads
the rows before them, newest first and only as far as needed. Where the result could
differ from the whole read's last events it raises `WholeRead`, and the session is read
whole.
"""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Iterable, Iterator
from datetime import datetime

from .. import databases
from ..diagnostics import Diagnostics
from ..model import Event, JSONValue
from ._goose_read import _message_rows, _noted, _Reader, _result, _session_row
from ._goose_usage import (
    _Call,
    _ledger,
    _ledger_odd,
    _ledger_spent,
    _spent,
    _unledgered,
    _unledgered_total,
    _usage,
)
from ._values import MS_ABOVE, as_str, db_time, json_copy, json_object, type_tag
from .base import WholeRead

# the rows before the last ones looked at for what they carry, before reading whole
_LOOK_BACK = 16


class _Earlier:
    """The rows before the last ones a tail reads, newest first, for what the whole read
    carries from them into those: each is read only when asked, most not at all."""

    def __init__(
        self,
        reader: _Reader,
        connection: sqlite3.Connection,
        first: object,
        rows: Iterator[tuple[object, ...]],
    ) -> None:
        self.reader = reader
        self.connection = connection
        self.first = first  # the id of the first of the last rows
        self.rows = rows
        self.seen: list[tuple[object, ...]] = []  # those taken from `rows` so far
        self.known = False  # the lead's compaction state at the first row is settled

    def row(self, n: int) -> tuple[object, ...] | None:
        """The n-th row before the last ones (0: the one just before)."""
        while len(self.seen) <= n:
            row = next(self.rows, None)
            if row is None:
                return None
            self.seen.append(row)
        return self.seen[n]

    def readable(self, row: tuple[object, ...]) -> tuple[object] | None:
        """The row's content where the whole read reads it (its findings are not this
        read's: the rows it counts are the last ones)."""
        return self.reader.items(self.connection, row[0], row[2], Diagnostics())

    def compacted_known(self) -> None:
        self.known = True

    def compacted(self) -> bool:
        """Whether a compaction had hidden the lead's history and its summary was still to
        come, after the earlier rows: the newest readable one that sets or clears it says."""
        if self.known:
            return False  # settled by the last rows themselves
        n = 0
        while (row := self.row(n)) is not None:
            n += 1
            role, meta = row[1], json_object(row[4])
            hides = meta.get("agentVisible") is False
            clears = role == "user" and meta.get("userVisible") is False
            if (hides or clears) and self.readable(row) is not None:
                return hides
        return False

    def calls_counted(self) -> int | None:
        """`calls_given` counted in SQL, where every time of the ledger and of the earlier
        messages is a positive integer of epoch seconds (as Goose writes them): the calls
        are then in time order, and those before the latest earlier message are given;
        None where that does not hold, and `calls_given` counts them."""
        connection, session_id = self.connection, self.reader.session_id
        ledger = databases.table_columns(connection, "usage_ledger")
        if not {"session_id", "created_timestamp"} <= ledger or (
            "created_timestamp" not in databases.table_columns(connection, "messages")
        ):
            return None
        seconds = (
            "SUM(typeof(created_timestamp) = 'integer' AND created_timestamp > 0 "
            f"AND created_timestamp <= {int(MS_ABOVE)}) = COUNT(*)"
        )
        (clean,) = connection.execute(
            f"SELECT {seconds} FROM usage_ledger WHERE session_id = ?", (session_id,)
        ).fetchone()
        latest, earlier_clean = connection.execute(
            f"SELECT max(created_timestamp), {seconds} FROM messages "
            "WHERE session_id = ? AND id < ?",
            (session_id, self.first),
        ).fetchone()
        if not clean or not earlier_clean or not isinstance(latest, int):
            return None

        def before(time: object) -> int:
            (count,) = connection.execute(
                "SELECT COUNT(*) FROM usage_ledger WHERE session_id = ? "
                "AND created_timestamp < ?",
                (session_id, time),
            ).fetchone()
            return int(count)

        every = before(latest)  # as if every earlier row were readable
        newest = 0  # the latest time of the newest readable rows
        for n in range(_LOOK_BACK):
            row = self.row(n)
            if row is None:
                break
            if self.readable(row) is not None and isinstance(row[3], int):
                newest = max(newest, row[3])
                if before(newest) == every:
                    return every
        raise WholeRead("an unreadable earlier message may have held the calls back")

    def calls_given(self, calls: list[_Call]) -> int:
        """How many of the ledger's calls the whole read gives before the first of the
        last rows: those before the time of a readable earlier message (the readable ones
        alone move it). Counted over every earlier row's time, then over the few newest
        read: where both agree, no unreadable row between could change it."""
        if not calls:
            return 0
        columns = databases.table_columns(self.connection, "messages")
        created = "created_timestamp" if "created_timestamp" in columns else "NULL"
        times = self.connection.execute(
            f"SELECT {created} FROM messages WHERE session_id = ? AND id < ? ORDER BY id",
            (self.reader.session_id, self.first),
        )
        every = _given(calls, (db_time(t) for (t,) in times))
        newest: list[datetime | None] = []
        for n in range(_LOOK_BACK):
            row = self.row(n)
            if row is None:
                break
            if self.readable(row) is not None:
                newest.insert(0, db_time(row[3]))
                if _given(calls, newest) == every:
                    return every
        raise WholeRead("an unreadable earlier message may have held the calls back")

    def requests(
        self, messages: list[tuple[datetime | None, object, object, dict[str, object]]]
    ) -> None:
        """Note the earlier tool calls that the last rows' results answer (a delegate's
        result is told by its call): they are among the few rows just before."""
        asked: set[str] = set()
        open_: set[str] = set()
        for _, _, items, _ in messages:
            for item in _dicts(items):
                kind = type_tag(item.get("type"))
                call_id = as_str(item.get("id"))
                if call_id is None:
                    continue
                if kind in ("toolRequest", "frontendToolRequest"):
                    asked.add(call_id)
                elif kind == "toolResponse" and call_id not in asked:
                    open_.add(call_id)
        n = 0
        while open_:
            row = self.row(n) if n < _LOOK_BACK else None
            if row is None:
                raise WholeRead("a result whose call is not among the rows just before")
            n += 1
            content = self.readable(row)
            found = [
                item
                for item in _dicts(content[0] if content else None)
                if type_tag(item.get("type")) in ("toolRequest", "frontendToolRequest")
                and as_str(item.get("id")) in open_
            ]
            for item in found:  # as the whole read notes them, in their order
                call = _result(item.get("toolCall"))
                arguments = json_copy(
                    call.get("arguments") if isinstance(call, dict) else None
                )
                self.reader.requested(as_str(item.get("id")), arguments)
            open_ -= {as_str(item.get("id")) for item in found}


def _dicts(items: object) -> list[dict[str, object]]:
    return [
        i for i in (items if isinstance(items, list) else []) if isinstance(i, dict)
    ]


def _given(calls: list[_Call], times: Iterable[datetime | None]) -> int:
    """How many calls `session` gives before messages of these times come to an end."""
    given = 0
    for time in times:
        while given < len(calls):
            when = calls[given].time
            if when is not None and (time is None or when >= time):
                break
            given += 1
    return given


class _Tail(_Reader):
    """A `_Reader` of the session's last `rows` messages, the lead's only."""

    def __init__(
        self, session_id: str, diagnostics: Diagnostics, rows: int, full: bool = False
    ) -> None:
        super().__init__(session_id, diagnostics, full)
        self.rows = rows
        # the rows before the last ones, once `last_messages` has found them
        self.earlier: _Earlier | None = None

    def lead(self, connection: sqlite3.Connection) -> Iterator[Event]:
        return self.last_messages(connection, self.rows)

    def last_messages(
        self, connection: sqlite3.Connection, last: int
    ) -> Iterator[Event]:
        """The lead's events of the session's last `last` messages, as `session` reads
        them (raises WholeRead where that is not exact)."""
        session_id = self.session_id
        if (
            self.linked
            and connection.execute(
                "SELECT 1 FROM sessions WHERE parent_session_id = ? LIMIT 1",
                (session_id,),
            ).fetchone()
        ):
            raise WholeRead("its sub-agents are read among its messages")
        backwards = connection.execute(
            _message_rows(connection) + "ORDER BY id DESC", (session_id,)
        )
        newest = backwards.fetchmany(last + 1)
        if len(newest) <= last:
            raise WholeRead("no more messages than asked for")
        window = list(reversed(newest[:last]))
        earlier = _Earlier(
            self, connection, window[0][0], itertools.chain(newest[last:], backwards)
        )
        self.earlier = earlier
        info = _session_row(connection, session_id)
        model = as_str(json_object(info.get("model_config_json")).get("model_name"))
        provider = as_str(info.get("provider_name"))
        billing: dict[str, JSONValue] = {"provider": provider} if provider else {}
        given = earlier.calls_counted()
        if given is not None:  # counted in SQL: only the calls after are read
            calls = _ledger(connection, session_id, after=given)
            spent = _ledger_spent(connection, session_id)
            odd = _ledger_odd(connection, session_id) - sum(c.odd for c in calls or [])
        else:
            calls = _ledger(connection, session_id)
            spent = _spent(calls)
            before = earlier.calls_given(calls or [])
            odd = sum(call.odd for call in (calls or [])[:before])
            calls = (calls or [])[before:]
        for _ in range(odd):  # the rows before, which the whole read says as it bills
            self.odd_call()
        pending = iter(calls or [])
        call = next(pending, None)
        messages = list(self.messages(connection, session_id, window))
        earlier.requests(messages)
        for time, role, items, meta in messages:
            while call is not None and (
                call.time is None or (time is not None and call.time < time)
            ):
                yield from self.call(call, model, None, billing)
                call = next(pending, None)
            yield from self.message(role, items, time, meta, None, 0)
        while call is not None:
            yield from self.call(call, model, None, billing)
            call = next(pending, None)
        self.odd_counters(info, spent is not None)
        usage = _usage(_unledgered(info, spent), model, _unledgered_total(info, spent))
        if usage is not None:
            when = db_time(info.get("updated_at")) or self.last_time
            if when is None:
                raise WholeRead("the usage takes its time from an earlier message")
            yield self.say(
                "usage",
                when,
                None,
                usage=usage,
                extra={"scope": "session", "summed": True, **billing},
            )

    def message(
        self,
        role: object,
        items: object,
        time: datetime | None,
        meta: dict[str, object],
        agent: str | None,
        depth: int,
    ) -> Iterator[Event]:
        hidden_from_model = meta.get("agentVisible") is False
        if (
            agent is None
            and self.earlier is not None
            and (
                hidden_from_model
                or (role == "user" and meta.get("userVisible") is False)
            )
        ):
            # the first message of the last rows read that the state of a compaction
            # matters to, or that sets it: where the rows before left it
            if not hidden_from_model and self.earlier.compacted():
                self.compacted.add(None)
            self.earlier.compacted_known()
        yield from super().message(role, items, time, meta, agent, depth)

    def content(
        self,
        item: dict[str, object],
        role: object,
        time: datetime | None,
        flags: dict[str, JSONValue],
        agent: str | None,
        depth: int,
    ) -> Iterator[Event]:
        if (
            type_tag(item.get("type")) == "toolResponse"
            and self.earlier is not None
            and self.linked
            and isinstance(
                _noted(item.get("toolResult")).get("subagent_session_id"), str
            )
        ):
            raise WholeRead("a sub-agent is read with the result that names it")
        yield from super().content(item, role, time, flags, agent, depth)
