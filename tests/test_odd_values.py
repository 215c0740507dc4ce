"""Every reader over values it did not expect: real fixture files, one value changed at a time.

Formats drift and files break: a `type` that became an object, an id that became a number
or names its own line, a key that went missing, a line lost, written twice or out of order,
a cell of another type, a cut or scrambled file. Each case copies
one app's fixture home, changes one thing in one file, and runs what sessdex runs over it
(list, read from the start and from an offset, resume, follow, usage). Nothing may raise
but an OSError (a file that cannot be read, which the callers report), and every session
whose own file was left alone must still be listed. The cases are drawn from a fixed seed:
a failure names its case, and rerunning it gives the same files.
"""

from __future__ import annotations

import contextlib
import random
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest

from sessdex import files, sources
from sessdex.diagnostics import Diagnostics
from sessdex.model import Session, merge
from sessdex.sources import Home, Source
from tests.helpers import deadline

DATA = Path(__file__).parent / "data"
CASES_PER_APP = 60
ODD: list[object] = [
    None,
    0,
    -1,
    1.5,
    "",
    "x",
    True,
    [],
    {},
    [1, "a"],
    {"a": None},
    "2026-13-45T99:99",
    2**63 - 1,
    1e300,
    "\x1b[31m",
]


def _strings(value: object) -> list[str]:
    """Every string in a JSON value: the ids, names and texts another line may name."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for child in value.values() for text in _strings(child)]
    if isinstance(value, list):
        return [text for child in value for text in _strings(child)]
    return []


def _change_value(value: object, draw: random.Random, same_file: list[str]) -> object:
    """One node of a JSON value replaced by an odd value, or by another string of the
    same file (an id pointing at itself or at a later line: a cycle), or one key dropped."""
    nodes: list[tuple[dict[str, object] | list[object] | None, object]] = []

    def walk(
        node: object, parent: dict[str, object] | list[object] | None, key: object
    ) -> None:
        nodes.append((parent, key))
        if isinstance(node, dict):
            for k, child in node.items():
                walk(child, node, k)
        elif isinstance(node, list):
            for i, child in enumerate(node):
                walk(child, node, i)

    walk(value, None, None)
    parent, key = draw.choice(nodes)
    odd = draw.choice(same_file) if same_file and draw.random() < 0.3 else None
    odd = odd if odd is not None else draw.choice(ODD)
    if parent is None:
        return odd
    if isinstance(parent, dict):
        assert isinstance(key, str)
        if draw.random() < 0.2:
            del parent[key]
        else:
            parent[key] = odd
    else:
        assert isinstance(key, int)
        parent[key] = odd
    return value


def _change_sqlite(path: Path, draw: random.Random) -> str:
    connection = sqlite3.connect(path)
    try:
        tables = [
            row[0]
            for row in connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'"
                # a WITHOUT ROWID table (an FTS5 index's own) has no rowid to change by
                " AND sql NOT LIKE '%WITHOUT ROWID%'"
            )
        ]
        table = draw.choice(tables)
        columns = [
            row[1] for row in connection.execute(f'PRAGMA table_info("{table}")')
        ]
        rows = [row[0] for row in connection.execute(f'SELECT rowid FROM "{table}"')]
        if not rows or not columns:
            return "unchanged"
        column, rowid = draw.choice(columns), draw.choice(rows)
        (old,) = connection.execute(
            f'SELECT "{column}" FROM "{table}" WHERE rowid = ?', (rowid,)
        ).fetchone()
        new: object = draw.choice([None, "text", -5, 1e300, b"\x00\x01", '{"a":'])
        if isinstance(old, str):
            with contextlib.suppress(orjson.JSONDecodeError):
                value = orjson.loads(old)
                new = orjson.dumps(_change_value(value, draw, _strings(value))).decode()
        try:
            connection.execute(
                f'UPDATE "{table}" SET "{column}" = ? WHERE rowid = ?', (new, rowid)
            )
            connection.commit()
        except sqlite3.Error:
            return "unchanged (constraint)"
        return f"{table}.{column} of row {rowid}"
    finally:
        connection.close()


def _change_file(path: Path, draw: random.Random) -> str:
    """Change one thing in `path`; returns what, for the failure message."""
    data = path.read_bytes()
    if data.startswith(b"SQLite format 3\x00"):
        return "sqlite cell " + _change_sqlite(path, draw)
    roll = draw.random()
    if data and roll < 0.1:
        cut = draw.randrange(len(data))
        path.write_bytes(data[:cut])
        return f"cut at byte {cut}"
    if data and roll < 0.2:
        at = draw.randrange(len(data))
        path.write_bytes(data[:at] + b"\xff\xfe\x00" + data[at:])
        return f"bad bytes at {at}"
    try:
        whole = orjson.loads(data)
    except orjson.JSONDecodeError:
        pass
    else:
        path.write_bytes(orjson.dumps(_change_value(whole, draw, _strings(whole))))
        return "a JSON value"
    lines = data.split(b"\n")
    if len(lines) > 2 and roll < 0.35:  # lines lost, written twice, or out of order
        at, to = draw.randrange(len(lines)), draw.randrange(len(lines))
        how = draw.choice(["dropped", "doubled", "swapped"])
        if how == "dropped":
            del lines[at]
        elif how == "doubled":
            lines.insert(to, lines[at])
        else:
            lines[at], lines[to] = lines[to], lines[at]
        path.write_bytes(b"\n".join(lines))
        return f"line {at + 1} {how} (with line {to + 1})"
    parsed: dict[int, object] = {}
    for number, line in enumerate(lines):
        with contextlib.suppress(orjson.JSONDecodeError):
            parsed[number] = orjson.loads(line)
    same_file = _strings(list(parsed.values()))
    changed = []
    for _ in range(draw.choice([1, 1, 3])) if parsed else ():
        at = draw.choice(sorted(parsed))
        lines[at] = orjson.dumps(_change_value(parsed[at], draw, same_file))
        changed.append(at + 1)
    path.write_bytes(b"\n".join(lines))
    return f"a JSON value on lines {changed}"


def _listed(source: Source, home: Home, diagnostics: Diagnostics) -> list[Session]:
    location = source.locate(home)
    parts: dict[str, list[Session]] = {}
    for path in source.scan(location):
        for session in source.parse(Path(path), location, diagnostics):
            parts.setdefault(session.id, []).append(session)
    return [merged for merged in map(merge, parts.values()) if merged.listed]


def _run_everything(source: Source, home: Home) -> list[Session]:
    """What sessdex does with an app's files; returns the listed sessions."""
    diagnostics = Diagnostics()
    listed = _listed(source, home, diagnostics)
    for session in listed:
        for _ in source.read(session, diagnostics):
            pass
        if session.path and Path(session.path).is_file():
            middle = Path(session.path).stat().st_size // 2
            for _ in source.read(session, diagnostics, offset=middle):
                pass
        source.resume(session)
        follow: Callable[..., object] | None = getattr(source, "follow", None)
        if follow is not None:
            followed = follow(session, diagnostics)
            for file in followed.files(set()):  # type: ignore[attr-defined]
                reader = followed.reader(file, 0)  # type: ignore[attr-defined]
                if Path(file.path).is_file():
                    with files.open_binary(file.path) as stream:
                        for line in files.iter_lines(stream):
                            list(reader(line))
    if hasattr(source, "usage_records"):
        for path in source.usage_files(source.locate(home)):  # type: ignore[attr-defined]
            source.usage_records(Path(path), diagnostics, explain=True)  # type: ignore[attr-defined]
    return listed


@pytest.mark.parametrize("app", sources.names())
def test_a_changed_value_is_never_a_crash_and_loses_no_other_session(
    app: str, tmp_path: Path
) -> None:
    source = sources.get(app)
    original = DATA / app / "home"
    candidates = sorted(
        p for p in original.rglob("*") if p.is_file() and not p.is_symlink()
    )
    draw = random.Random(f"{app}-odd-values")
    for case in range(CASES_PER_APP):
        home = tmp_path / f"case-{case}"
        shutil.copytree(original, home, symlinks=True)
        before = _listed(source, Home.at(home), Diagnostics())
        changed = home / draw.choice(candidates).relative_to(original)
        what = _change_file(changed, draw)
        label = f"case {case}: {changed.relative_to(home)}: {what}"
        try:
            with deadline(30, f"{app} {label}"):
                after = _run_everything(source, Home.at(home))
        except OSError:
            continue  # unreadable: the callers say so and go on (tested elsewhere)
        except Exception as error:
            raise AssertionError(
                f"{app} {label}: {type(error).__name__}: {error}"
            ) from error
        # a broken transcript or database never hides the sessions of the others (a
        # file that only says where the sessions are, such as a registry, may)
        own = {Path(s.path.partition("#")[0]) for s in before if s.path}
        if changed in own:
            kept = {
                s.id
                for s in before
                if Path((s.path or "").partition("#")[0]) != changed
            }
            lost = kept - {s.id for s in after}
            assert not lost, f"{app} {label}: lost {lost}"
        shutil.rmtree(home)


@pytest.mark.parametrize(
    "stamp", ["0001-01-01T00:00:00+05:00", "9999-12-31T23:59:59-05:00"]
)
def test_a_time_past_the_calendar_in_utc_is_skipped_and_the_rest_read_on(
    tmp_path: Path, stamp: str
) -> None:
    # a zero time written with an offset east of UTC is before the year 1 in UTC: it
    # stopped the read with an OverflowError, 'a sessdex bug', the rest of it unshown
    from sessdex import api
    from sessdex.sources import _codex_values, _values
    from tests.helpers import write_claude_session

    assert _values.iso_time(stamp) is None
    assert _values.db_time(stamp) is None
    assert _codex_values.parse_time(stamp) is None
    path = write_claude_session(
        tmp_path / "home", "e" * 8 + "-0000-4000-8000-" + "0" * 12, "/w/a"
    )
    lines = path.read_bytes().splitlines(keepends=True)
    first = orjson.loads(lines[0])
    first["timestamp"] = stamp
    path.write_bytes(orjson.dumps(first) + b"\n" + b"".join(lines[1:]))
    shown = api.transcript(Home.at(tmp_path / "home"), "eeee")
    kinds = [event.kind for event in shown.events]
    assert "assistant" in kinds
    assert shown.diagnostics.problems == []
