"""The rows a refresh writes: what one file says of one session (a fragment), as plain
values a worker sends back, and the one transaction that stores files, fragments and
the sessions they merge into. Not the scan or the parsing (`indexscan`, `indexparse`),
nor the reading (`index`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import TypeVar, cast

import orjson

from . import freshness, pathnames, selection
from .diagnostics import Diagnostics
from .indexscan import Notes
from .indexschema import begin_write
from .model import Session
from .views.records import (
    TITLE_LIMIT,
    merge_states,
    parse_iso,
    session_encodings,
    state_encodings,
    utf8_text,
)

_T = TypeVar("_T")

# What one file says of one session, reduced to plain values where it was parsed: the
# worker sends these instead of Session objects, which cost more to pickle than to parse.
# (app, id, parent_id, listed, updated, cwd, search text, state, record)
Fragment = tuple[
    str, str, str | None, bool, float | None, str | None, str, bytes, bytes
]
# Another file a file's parse read or looked for, and how it looked (`freshness.depending`).
Depended = tuple[str, str]
Parsed = tuple[
    str, str, tuple[int, int, int, str], list[Fragment], Diagnostics, list[Depended]
]


def _search_text(
    app: str,
    session_id: str,
    title: str | None,
    cwd: str | None,
    branch: str | None,
    agent_type: str | None = None,
) -> str:
    """What `find` matches: app, id, title, folder, branch and a sub-agent's type
    (`selection.folded`), as the table shows them (`views.text.clean`): the words read in
    a title (or `list --all`'s `↳ general-purpose:`) are the words that find it, and a
    NUL in one keeps its place among the NUL-separated fields. The folder ends in "/", as
    a shell completes one: `dir:shop-api/` is the folder itself. A Windows folder is held
    with `/` for `\\` (`pathnames.comparable`), as `dir:` takes it."""
    from .views.text import clean

    title, branch, agent_type = (
        clean(title, keep_newlines=False),
        clean(branch, keep_newlines=False),
        clean(agent_type, keep_newlines=False),
    )
    cwd = pathnames.comparable(clean(cwd)) if cwd else cwd
    folder = cwd + "/" if cwd and not cwd.endswith("/") else cwd
    parts = (app, session_id, title, folder, branch, agent_type)
    return selection.folded("\x00".join(part or "" for part in parts))


def order_time(updated: datetime | None) -> float | None:
    """The time a session is listed by, cut to the millisecond as its record says it:
    a read that keeps the microseconds (a file's mtime) and one from the record must
    give one value, so that sessions whose times tie as shown tie in the index too, and
    stay in the order of their app and id, warm or cold."""
    if updated is None:
        return None
    return updated.replace(microsecond=updated.microsecond // 1000 * 1000).timestamp()


def fragment_of(session: Session) -> Fragment:
    state, record = session_encodings(session)
    updated = session.updated or session.created

    def text(value: str | None) -> str | None:  # SQLite's columns take UTF-8 only
        return utf8_text(value) if value else value

    return (
        session.app,
        utf8_text(session.id),
        text(session.parent_id),
        session.listed,
        order_time(updated),
        text(session.cwd),
        utf8_text(
            _search_text(
                session.app,
                session.id,
                session.title,
                session.cwd,
                session.branch,
                session.agent_type,
            )
        ),
        state,
        record,
    )


def merged_fragment(states: list[bytes]) -> Fragment:
    """The fragment of the session merged from these encoded ones, as `fragment` of
    `merge` of them would give, without decoding them into sessions."""
    value = merge_states(states)
    state, record = state_encodings(value)
    updated = parse_iso(value.get("updated")) or parse_iso(value.get("created"))

    def text(name: str) -> str | None:
        found = value.get(name)
        return found if isinstance(found, str) else None

    app, session_id = cast(str, value["app"]), cast(str, value["id"])
    return (
        app,
        session_id,
        text("parent_id"),
        bool(value.get("listed", True)),
        order_time(updated),
        text("cwd"),
        _search_text(
            app,
            session_id,
            text("title"),
            text("cwd"),
            text("branch"),
            text("agent_type"),
        ),
        state,
        record,
    )


def write(
    db: sqlite3.Connection,
    path: Path,
    parsed: list[Parsed],
    vanished: list[str],
    notes: dict[str, Notes | None] | None = None,
    *,
    pack: bool = True,
    also: Iterable[str] = (),
    home: str | None = None,
    digests: Mapping[str, bytes] | None = None,
    since_ns: int,
) -> set[str]:
    """One transaction into `db` (the index at `path`): the files parsed, those vanished,
    the notes, the path the home was read by (`home`), the digests of the context files
    parsed (`digests`, by path: one parsed without is read anew next time); the apps
    touched. A file changed in its clock's tick before `since_ns`, when the reads began,
    is read again next time (`freshness.settled`), as is one whose parse read another so
    changed (`freshness.settled_look`).

    With `pack`, the touched apps' signatures (and those of `also`) are packed anew;
    without, they are dropped, and the quick path reads the rows until a later write
    packs them: a big refresh packs once, not once per batch."""
    begin_write(db, path)
    try:
        if home is not None:
            db.execute("DELETE FROM home")
            db.execute("INSERT INTO home VALUES (?)", (home,))
        affected: set[tuple[str, str]] = set()
        touched = {app for app, *_ in parsed} | set(notes or {})
        gone = [(p,) for p in vanished] + [(name,) for _, name, *_ in parsed]
        if db.execute("SELECT 1 FROM files LIMIT 1").fetchone() is None:
            gone = []  # a first index: nothing to replace
        for chunk in _chunks(gone, 500):
            marks = ",".join("?" * len(chunk))
            held = db.execute(
                f"SELECT path, app FROM files WHERE path IN ({marks})",
                [p for (p,) in chunk],
            ).fetchall()
            if not held:  # new files (every batch of a first index): nothing to replace
                continue
            touched.update(app for _, app in held)
            paths = [path for path, _ in held]  # only files hold rows of the others
            marks = ",".join("?" * len(paths))
            affected.update(
                db.execute(
                    f"SELECT app, id FROM fragments WHERE path IN ({marks})", paths
                ).fetchall()
            )
            db.execute(f"DELETE FROM fragments WHERE path IN ({marks})", paths)
            db.execute(f"DELETE FROM files WHERE path IN ({marks})", paths)
            db.execute(f"DELETE FROM contexts WHERE path IN ({marks})", paths)
            db.execute(f"DELETE FROM depends WHERE path IN ({marks})", paths)
        file_rows = []
        depend_rows = []
        fragment_rows = []
        fresh: dict[tuple[str, str], list[Fragment]] = {}
        for app, name, signature, sessions, diagnostics, read in parsed:
            size, mtime_ns, inode, wal = freshness.settled(signature, since_ns)
            blob = None
            if (
                diagnostics.skipped
                or diagnostics.unknown
                or diagnostics.problems
                or diagnostics.unfinished
                or diagnostics.damaged
                or diagnostics.passed_over
            ):
                blob = orjson.dumps(
                    {
                        **diagnostics.to_json(),
                        "problems": diagnostics.problems,
                        "details": diagnostics.details,
                    }
                )
            # a file that speaks only of sub-agents: a top-level listing need not
            # stat it, unless it has a warning to repeat (freshness.SIDE)
            nested = (
                bool(sessions)
                and all(f[2] for f in sessions)
                and freshness.SIDE not in wal
            )
            file_rows.append((name, app, size, mtime_ns, inode, wal, blob, nested))
            depend_rows += [
                (name, app, nested, depended, freshness.settled_look(look, since_ns))
                for depended, look in read
            ]
            for fragment in sessions:
                key = (fragment[0], fragment[1])
                fragment_rows.append((name, *key, fragment[7]))
                fresh.setdefault(key, []).append(fragment)
                affected.add(key)
        db.executemany(
            "INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            file_rows,
        )
        db.executemany("INSERT INTO depends VALUES (?, ?, ?, ?, ?)", depend_rows)
        if digests:
            db.executemany(
                "INSERT OR REPLACE INTO contexts VALUES (?, ?)",
                [(name, digests[name]) for _, name, *_ in parsed if name in digests],
            )
        _merge(db, affected, fresh)  # before the new fragments join the old
        db.executemany("INSERT INTO fragments VALUES (?, ?, ?, ?)", fragment_rows)
        if pack:
            freshness.pack_signatures(db, touched.union(also))
        else:
            db.executemany(
                "DELETE FROM signatures WHERE app = ?", [(a,) for a in touched]
            )
        if affected:  # the listings saved hold sessions' records alone
            db.execute("UPDATE generation SET value = value + 1")
            db.execute("DELETE FROM listings")
        for app, note in (notes or {}).items():
            db.execute("DELETE FROM scans WHERE app = ?", (app,))
            db.execute("DELETE FROM scan_paths WHERE app = ?", (app,))
            if note is not None:
                db.execute(
                    "INSERT INTO scans VALUES (?, ?, ?)", (app, note[0], note[2])
                )
                db.executemany(
                    "INSERT INTO scan_paths VALUES (?, ?, ?, ?, ?, ?)",
                    [(app, path, *noted) for path, noted in note[1].items()],
                )
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:  # a failed COMMIT (a full disk) has rolled back
            db.execute("ROLLBACK")
        raise
    return touched


def _merge(
    db: sqlite3.Connection,
    keys: set[tuple[str, str]],
    fresh: dict[tuple[str, str], list[Fragment]],
) -> None:
    """Rewrite the `sessions` rows of `keys` from their fragments: the `fresh` ones
    just parsed, and those other files still hold (still in the table)."""
    held: dict[tuple[str, str], list[bytes]] = {}
    if db.execute("SELECT 1 FROM fragments LIMIT 1").fetchone() is not None:
        by_app: dict[str, list[str]] = {}
        for app, session_id in keys:
            by_app.setdefault(app, []).append(session_id)
        for app, ids in by_app.items():
            for chunk in _chunks(sorted(ids), 500):
                # `app = ? AND id IN (…)` is looked up in fragments_key; a row-value
                # IN over VALUES would scan the whole table
                marks = ",".join("?" * len(chunk))
                for session_id, state in db.execute(
                    f"SELECT id, state FROM fragments WHERE app = ? AND id IN ({marks})",
                    [app, *chunk],
                ):
                    held.setdefault((app, session_id), []).append(state)
    gone: list[tuple[str, str]] = []
    rows: list[_Row] = []
    for key in keys:
        new = fresh.get(key, [])
        old = held.get(key, [])
        if len(new) == 1 and not old:  # the common case: one file, one session
            fragment = new[0]
        elif new or old:
            fragment = merged_fragment([f[7] for f in new] + old)
        else:
            gone.append(key)
            continue
        app, session_id, parent_id, listed, updated, cwd, search, state, record = (
            fragment
        )
        if not listed:
            gone.append(key)
            continue
        rows.append((app, session_id, parent_id, updated, cwd, search, record, state))
    rows += _typed_by_leads(db, rows, gone)
    db.executemany("DELETE FROM sessions WHERE app = ? AND id = ?", gone)
    db.executemany(
        "INSERT OR REPLACE INTO sessions VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows
    )


# A sub-agent whose own files name no type may say which of its lead's calls started it
# (`spawn_key` in its extra); a lead says what its calls asked for (`spawn_types` in its
# extra: key -> type). The sub-agent's row takes its type here, where rows are written:
# a lead read again (it grows every turn) retypes its sub-agents' rows, none of their
# files read again, so that a warm list says what a cold one does.
_KEY, _TYPES = b'"spawn_key"', b'"spawn_types"'
_Row = tuple[str, str, str | None, float | None, str | None, str, bytes, bytes]


def _typed_by_leads(
    db: sqlite3.Connection, rows: list[_Row], gone: list[tuple[str, str]]
) -> list[_Row]:
    """Types `rows` that hold a spawn key from their lead's row (among `rows`, else the
    stored one), in place; gives the stored rows of the sub-agents of each lead in
    `rows` or `gone` whose type that lead changes, to write too."""
    written = {(row[0], row[1]): n for n, row in enumerate(rows)}
    dropped = set(gone)
    leads: dict[tuple[str, str], dict[str, object]] = {}

    def types_of(app: str, lead: str) -> dict[str, object]:
        key = (app, lead)
        if key not in leads:
            n = written.get(key)
            state = rows[n][7] if n is not None else None
            if n is None and key not in dropped:
                found = db.execute(
                    "SELECT state FROM sessions WHERE app = ? AND id = ?", key
                ).fetchone()
                state = found[0] if found is not None else None
            leads[key] = _spawn_types(state)
        return leads[key]

    for n, row in enumerate(rows):
        app, _, lead, *_ = row
        if lead is not None and _KEY in row[7]:
            rows[n] = _typed(row, types_of(app, lead)) or row
    retyped: list[_Row] = []
    changed = [key for key, n in written.items() if _TYPES in rows[n][7]]
    for app, lead in [*changed, *dropped]:
        for stored in db.execute(
            "SELECT app, id, parent_id, updated, cwd, search, record, state"
            " FROM sessions WHERE app = ? AND parent_id = ?",
            (app, lead),
        ):
            if (app, stored[1]) not in written and _KEY in stored[7]:
                typed = _typed(stored, types_of(app, lead))
                if typed is not None:
                    retyped.append(typed)
    return retyped


def _spawn_types(state: bytes | None) -> dict[str, object]:
    """A lead's spawn types, from its row's state (none: no such lead)."""
    if state is None or _TYPES not in state:
        return {}
    extra = orjson.loads(state).get("extra")
    types = extra.get("spawn_types") if isinstance(extra, dict) else None
    return types if isinstance(types, dict) else {}


def _typed(row: _Row, types: dict[str, object]) -> _Row | None:
    """`row` with the type `types` gives its spawn key; None where that is its type."""
    value = orjson.loads(row[7])
    extra = value.get("extra")
    key = extra.get("spawn_key") if isinstance(extra, dict) else None
    found = types.get(key) if isinstance(key, str) else None
    agent_type = found if isinstance(found, str) else None
    if agent_type is not None and len(agent_type) > TITLE_LIMIT:  # as a record cuts it
        agent_type = agent_type[: TITLE_LIMIT - 1] + "\u2026"
    if value.get("agent_type") == agent_type:
        return None
    value["agent_type"] = agent_type
    state, record = state_encodings(value)

    def text(name: str) -> str | None:
        found = value.get(name)
        return found if isinstance(found, str) else None

    # its type is found by `find --all` as its title is
    search = _search_text(
        row[0], row[1], text("title"), text("cwd"), text("branch"), agent_type
    )
    return (*row[:5], utf8_text(search), record, state)


def _chunks(items: list[_T], size: int) -> Iterable[list[_T]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
