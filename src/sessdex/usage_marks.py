"""What the usage of each session kept in a database is read from, as its source's
`usage_marks` says (sources/base.py): a warm `usage` keys the session's kept sums on it,
as a row added with an earlier time than its session's changes nothing its listing keeps.
Asked once per database, and only when the database (or its WAL) changed since the run
that kept the marks. This module knows no app by name.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from . import freshness

if TYPE_CHECKING:
    from .index import Index
    from .sources import Source

_KEY = "marks:"  # + the app: its databases' marks, as the last run kept them
_encode = msgspec.msgpack.Encoder().encode
_decode = msgspec.msgpack.Decoder().decode

# (app, database, session id) -> its mark
Marks = dict[tuple[str, str, str], str]


def database_of(session: Any) -> str | None:
    """The database a session's path names it inside (`<database>#<table>/<id>`)."""
    path = session.path
    if not isinstance(path, str):
        return None
    return path.rpartition("#")[0] or None


def collect(
    index: Index, sessions: Iterable[tuple[Source, Any]], meta: list[tuple[str, bytes]]
) -> Marks:
    """The marks of `sessions` ((its source, the session) pairs) whose sources mark
    their databases; what the next run needs added to `meta` (the index's `usage_meta`
    rows to write), where it changed."""
    wanted: dict[str, tuple[Any, set[str]]] = {}  # app -> (its hook, its databases)
    for source, session in sessions:
        hook = getattr(source, "usage_marks", None)
        if hook is not None and (database := database_of(session)) is not None:
            wanted.setdefault(source.NAME, (hook, set()))[1].add(database)
    found: Marks = {}
    for app, (hook, databases) in wanted.items():
        kept = _kept(index.usage_meta(_KEY + app))
        now: dict[str, tuple[str, dict[str, str]]] = {}
        for database in sorted(databases):
            held = kept.get(database)
            if held is not None and freshness.sides_hold(held[0]):
                now[database] = held
                continue
            # how the files look before the marks are read: a write after it is a
            # change, as is one in the tick of a file's clock before (`settled_side`)
            since_ns = time.time_ns()
            sides = freshness.SIDE.join(
                freshness.settled_side(freshness.side(name), since_ns)
                for name in (database, database + "-wal")
            )
            now[database] = (sides, dict(hook(Path(database))))
        for database, (_, marks) in now.items():
            for session_id, mark in marks.items():
                found[(app, database, session_id)] = mark
        if now != kept:  # a database gone is dropped with it
            meta.append((_KEY + app, _encode(now)))
    return found


def mark(marks: Marks, app: str, session: Any) -> str:
    """A session's mark ("" for none)."""
    database = database_of(session)
    return marks.get((app, database, session.id), "") if database else ""


def _kept(stored: bytes | None) -> dict[str, tuple[str, dict[str, str]]]:
    """The marks a run kept, by database; {} for none or what does not decode."""
    try:
        value = _decode(stored) if stored else {}
    except msgspec.DecodeError:
        return {}
    kept: dict[str, tuple[str, dict[str, str]]] = {}
    for database, held in value.items() if isinstance(value, dict) else ():
        if (
            isinstance(held, list)
            and len(held) == 2
            and isinstance(held[0], str)
            and isinstance(held[1], dict)
        ):
            kept[database] = (held[0], held[1])
    return kept
