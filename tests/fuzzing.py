"""Mutants of a whole fixture home, and what the CLI's commands make of each.

A mutant is a copy of one app's home with one file damaged the way drifting formats and
failing disks damage them: a value of another type, a key gone or renamed, a record type
never seen, a time in another format, a value nested past any parser's depth, a cut or
stray byte, CRLF, a BOM, terminal controls in a text, an empty file, a directory in a
file's place, a SQLite column or table gone or of another type, a row of NULLs. Or,
drawn apart (`tree=True`, so content cases keep their numbers), one file's place damaged
(`TREE_WAYS`): a pipe, a broken or looping link in it, a link to /dev/zero, a name
that is not UTF-8, a looping link beside it. Or (`odd=True`, `ODD_WAYS`) a file as odd writers and failing
systems leave one: in UTF-16, with Latin-1 bytes, CRLF or a BOM, a run of NULs a crash
left, its last line cut inside a character; a database with its newest rows in a `-wal`
beside it and a stale `-shm`, or locked by a writer (a child process that holds `BEGIN
EXCLUSIVE` while the commands run); a folder or a dangling link in a file's place; a
file that shrinks as it is opened, or one its app appends to while it is read. Or
(`hostile`, of `HOSTILE_WAYS`) a value a broken or hostile writer leaves: a token count
as a string, below zero or past any count, a time in s, ms, us or ns or in an odd zone,
an id with a path in it, a 30 MB string; a `-wal` without its `-shm`, another database's
`-wal`, a page of junk, its tables made views of themselves. Or (`strange`, of
`STRANGE_WAYS`) a file's kind, size or bytes as no writer of its app leaves them: a
socket, a device or a link to /dev/tty in its place, its folder a link to itself or a
file, a 2 GB hole, a database emptied, cut or beside a crashed writer's hot journal, a
`-wal` whose database is gone, a database's JSON cell cut in half, a BOM mid-file, CR
line ends, a count NaN, 1e999 or 5000 digits long, 100k levels of nesting, 1 MB of
zero-width joiners (and nothing in the home may change while the commands run, nor may
`usage` count more tokens than over the undamaged home). Or, apart, a session's
file swapped after a warm list and before the show that follows (`run_late_case`), a
folder its user may not enter (`run_denied_case`), a file or database written while the
commands read it (`run_writing_case`), the home or a folder of it reached through a
link (`run_linked_case`), a session beside its twin id in the other case
(`run_cased_case`), and, for `warm_cold`, a change whose
stamps lie (`SKEW_CHANGES`) or a database's migration (`SCHEMA_CHANGES`). `check`
runs the commands a user runs over it, in this process, and says what went wrong: a
traceback, or the words sessdex says of its own bugs (each then run again with
SESSDEX_DEBUG=1, to show where it was raised). With `more`, every other command, in text
and JSON too: no terminal control may reach what is shown, and `list --json` warm and
cold must agree. Used by tests/test_fuzz_homes.py (a few mutants per home) and
scripts/fuzz-homes.py (many).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import shutil
import sqlite3
import stat
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from click.testing import CliRunner

from tests.helpers import deadline, settle

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
REALCLI = ROOT.parent / "shared" / "corpus" / "realcli"
SQLITE = b"SQLite format 3\x00"
Json = object


def homes() -> dict[str, Path]:
    """Every fixture home: tests/data/<app>/home, the homes real CLIs wrote that the
    fixtures keep (tests/data/<app>/real/home), and the real CLIs' homes where the shared
    corpus sits beside the checkout."""
    found = {p.parent.name: p for p in sorted(DATA.glob("*/home")) if p.is_dir()}
    found.update(
        {f"real-{p.parents[1].name}": p for p in sorted(DATA.glob("*/real/home"))}
    )
    if REALCLI.is_dir():
        found.update(
            {f"realcli-{p.parent.name}": p for p in sorted(REALCLI.glob("*/home"))}
        )
    return found


# --- values --------------------------------------------------------------------------


def _deep(depth: int) -> Json:
    value: Json = "bottom"
    for _ in range(depth):
        value = {"a": [value]}
    return value


ODD: list[Callable[[], Json]] = [
    lambda: "text",
    lambda: {"unexpected": {"nested": 1}},
    lambda: ["a", 1, None],
    lambda: None,
    lambda: 42,
    lambda: -1.5,
    lambda: True,
    lambda: 10**30,  # past 64 bits: readers built on fixed-width ints fail on it
    lambda: _deep(60),
    lambda: "",
    lambda: [],
    lambda: {},
]

# what a terminal acts on: a link, a screen clear, a C1 CSI, a bell, a carriage return
CONTROLS = "\x1b]8;;https://example.invalid\x07\x1b[2J\x9b31m\x07\r"

TIMES: list[Json] = [
    1764490211371,  # epoch ms
    1764490211,  # epoch s
    1764490211.5,
    "1764490211371",
    "2026-11-30T08:10:11",  # no zone
    "2026-11-30T08:10:11+05:30",
    "2026-11-30T08:10:11.123456789Z",
    "2026-11-30 08:10:11",
    "Mon, 30 Nov 2026 08:10:11 GMT",
    -1,
    0,
    "9999-12-31T23:59:59Z",
    253402300800000,  # the year 10000, in ms
    10**20,
    "0000-00-00T00:00:00Z",
    "yesterday",
]

_ISO = re.compile(r"^\d{4}-\d\d-\d\d[T ]\d\d:\d\d")
_TIME_KEY = re.compile(r"(?i)(time|date|_at$|At$|created|updated|start|end|ts$)")


def _nodes(value: Json) -> list[tuple[Json, object, Json]]:
    """(parent, key, node) for every node under the top one."""
    out: list[tuple[Json, object, Json]] = []
    stack: list[Json] = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, child in node.items():
                out.append((node, key, child))
                stack.append(child)
        elif isinstance(node, list):
            for at, child in enumerate(node):
                out.append((node, at, child))
                stack.append(child)
    return out


def _timelike(key: object, node: Json) -> bool:
    if isinstance(node, str):
        return bool(_ISO.match(node))
    if isinstance(node, int | float) and not isinstance(node, bool):
        return 1e9 <= node <= 1e13 * 1000 and isinstance(key, str)
    return False


def change_value(value: Json, how: str, draw: random.Random) -> tuple[Json, str] | None:
    """`value` with one thing changed `how`; None when it has nothing to change so."""
    nodes = _nodes(value)
    if how == "nest deep":  # deeper than a parser's recursion limit: written by `dumps`
        if not nodes:
            return None
        parent, key, node = draw.choice(nodes)
        parent[key] = DEEP  # type: ignore[index]
        return value, f"{key!r} became {DEEP_LEVELS} nested lists"
    if how == "retype":
        if not nodes:
            return ODD[draw.randrange(len(ODD))](), "the whole value retyped"
        parent, key, node = draw.choice(nodes)
        odd = draw.choice(ODD)()
        while type(odd) is type(node) and draw.random() < 0.9:
            odd = draw.choice(ODD)()
        parent[key] = odd  # type: ignore[index]
        return value, f"{key!r} ({type(node).__name__}) became {type(odd).__name__}"
    if how == "controls":  # text a terminal acts on, kept around the text it was
        texts = [(p, k, n) for p, k, n in nodes if isinstance(n, str) and n]
        if not texts:
            return None
        parent, key, node = draw.choice(texts)
        parent[key] = CONTROLS + node + CONTROLS  # type: ignore[index]
        return value, f"{key!r} wrapped in terminal controls"
    keyed = [(p, k, n) for p, k, n in nodes if isinstance(p, dict)]
    if how in ("drop", "rename"):
        if not keyed:
            return None
        parent, key, node = draw.choice(keyed)
        assert isinstance(parent, dict)
        del parent[key]
        if how == "rename":
            parent[f"{key}V2" if draw.random() < 0.5 else str(key).upper()] = node
        return value, f"key {key!r} {'dropped' if how == 'drop' else 'renamed'}"
    if how == "retime":
        times = [(p, k, n) for p, k, n in nodes if _timelike(k, n)]
        times += [
            (p, k, n)
            for p, k, n in keyed
            if isinstance(k, str) and _TIME_KEY.search(k) and (p, k, n) not in times
        ]
        if not times:
            return None
        parent, key, node = draw.choice(times)
        new = draw.choice(TIMES)
        parent[key] = new  # type: ignore[index]
        return value, f"time {key!r} {node!r} became {new!r}"
    raise ValueError(how)


DEEP = "\x00deep\x00"
DEEP_LEVELS = 5000


def dumps(value: Json) -> bytes:
    # the standard library writes ints of any size, as some writers do
    data = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
    mark = json.dumps(DEEP).encode()
    return data.replace(mark, b"[" * DEEP_LEVELS + b"]" * DEEP_LEVELS)


def _loads(data: bytes) -> Json:
    return json.loads(data)


# --- files ---------------------------------------------------------------------------


@dataclass
class Mutant:
    """One change made to one file of a home: whether the file's sessions stay."""

    path: Path
    what: str
    keeps: bool = False  # the file still holds every session it held: none may go
    gone: bool = False  # nothing is left of it to read: its sessions may go unsaid
    # what goes on while the commands run (a writer holding a lock), when anything does
    during: Callable[[], contextlib.AbstractContextManager[None]] | None = None


VALUE_WAYS = ("retype", "drop", "rename", "retime", "nest deep", "controls")
BYTE_WAYS = (
    "unknown record",
    "cut last line",
    "cut mid-UTF-8",
    "NUL byte",
    "bad UTF-8",
    "NUL tail",
    "CRLF",
    "BOM",
    "empty",
    "directory",
)
SQL_WAYS = (
    "drop column",
    "rename column",
    "retype column",
    "drop table",
    "NULL row",
    "retime column",
    "cell value",
)


def _lines(data: bytes) -> list[bytes] | None:
    """The JSON lines of a JSONL file; None when it is not one."""
    lines = data.split(b"\n")
    parsed = 0
    for line in lines:
        if line.strip():
            try:
                _loads(line)
            except ValueError:
                return None
            parsed += 1
    return lines if parsed > 1 else None


def _whole_json(data: bytes) -> Json | None:
    try:
        value = _loads(data)
    except ValueError:
        return None
    return value if isinstance(value, dict | list) else None


def mutate(path: Path, way: str, draw: random.Random) -> Mutant | None:
    """Change `path` one `way`; None when that way does not apply to it."""
    data = path.read_bytes()
    if data.startswith(SQLITE):
        return _mutate_sqlite(path, way, draw) if way in SQL_WAYS else None
    if way in SQL_WAYS:
        return None
    lines = _lines(data)
    if way in VALUE_WAYS:
        if lines is not None:
            at = draw.choice([n for n, line in enumerate(lines) if line.strip()])
            changed = change_value(_loads(lines[at]), way, draw)
            if changed is None:
                return None
            lines[at] = dumps(changed[0])
            path.write_bytes(b"\n".join(lines))
            return Mutant(path, f"line {at + 1}: {changed[1]}")
        whole = _whole_json(data)
        if whole is None:
            return None
        changed = change_value(whole, way, draw)
        if changed is None:
            return None
        path.write_bytes(dumps(changed[0]))
        return Mutant(path, changed[1])
    return _mutate_bytes(path, data, lines, way, draw)


def _mutate_bytes(
    path: Path, data: bytes, lines: list[bytes] | None, way: str, draw: random.Random
) -> Mutant | None:
    if way == "unknown record":
        if lines is None:
            return None
        records = [n for n, line in enumerate(lines) if line.strip()]
        model = _loads(lines[draw.choice(records)])
        if not isinstance(model, dict):
            return None
        for key in ("type", "kind", "event", "role", "recordType"):
            if isinstance(model.get(key), str):
                model[key] = "zz_future_record"
                break
        else:
            model = {"type": "zz_future_record", "payload": {"new": True}}
        at = draw.randrange(records[0] + 1, len(lines) + 1)  # never the first record
        lines.insert(at, dumps(model))
        path.write_bytes(b"\n".join(lines))
        return Mutant(path, f"unknown record inserted as line {at + 1}", keeps=True)
    if way == "cut last line":
        body = data.rstrip(b"\n")
        start = body.rfind(b"\n") + 1
        if len(body) - start < 2:
            return None
        path.write_bytes(body[: start + (len(body) - start) // 2])
        return Mutant(path, "last line cut in half", keeps=lines is not None)
    if way == "cut mid-UTF-8":
        wide = [n for n, byte in enumerate(data) if byte >= 0xC2 and byte < 0xF5]
        if wide:
            at = draw.choice(wide) + 1
            path.write_bytes(data[:at])
            return Mutant(path, f"cut inside a UTF-8 character at byte {at}")
        path.write_bytes(data + b"\xe2\x82")
        return Mutant(path, "ends inside a UTF-8 character")
    if way == "NUL byte":
        if not data:
            return None
        at = draw.randrange(len(data))
        path.write_bytes(data[:at] + b"\x00" + data[at:])
        return Mutant(path, f"NUL byte at {at}")
    if way == "bad UTF-8":  # a byte a copy or a disk flipped: no character starts so
        if not data:
            return None
        at = draw.randrange(len(data))
        path.write_bytes(data[:at] + b"\xc3\x28\xff" + data[at:])
        return Mutant(path, f"bytes that are not UTF-8 at {at}")
    if way == "NUL tail":  # a block written as zeros by a crash before the data
        path.write_bytes(data + b"\x00" * draw.choice([1, 512, 4096]))
        return Mutant(path, "NUL bytes after the end", keeps=lines is not None)
    if way == "CRLF":
        if b"\n" not in data or b"\r\n" in data:
            return None
        path.write_bytes(data.replace(b"\n", b"\r\n"))
        return Mutant(path, "CRLF line ends", keeps=lines is not None)
    if way == "BOM":
        path.write_bytes(b"\xef\xbb\xbf" + data)
        return Mutant(path, "a UTF-8 BOM first")
    if way == "empty":
        path.write_bytes(b"")
        return Mutant(path, "emptied", gone=True)
    if way == "directory":
        path.unlink()
        path.mkdir()
        (path / "inside").write_bytes(data[:100])
        return Mutant(path, "a directory in its place", gone=True)
    raise ValueError(way)


TREE_WAYS = (
    "pipe",
    "link loop",
    "broken link",
    "odd name",
    "loop beside",
    "endless link",
)


def mutate_tree(path: Path, way: str) -> Mutant:
    """Damage `path`'s place in its folder one `way`, leaving its bytes alone."""
    if way == "odd name":  # a name a copy from another system wrote in Latin-1
        name = os.fsencode(path.name)
        odd = path.with_name(os.fsdecode(name[:1] + b"\xff" + name[1:]))
        path.rename(odd)
        # an app that looks the file up by name no longer finds it either: as deleted
        return Mutant(path, f"renamed to {odd.name!r}", gone=True)
    if way == "loop beside":
        (path.parent / "zz-loop").symlink_to(".")
        return Mutant(path, "a link to its own folder beside it", keeps=True)
    path.unlink()
    if way == "pipe":  # opening it waits for a writer: it is passed over, and counted
        os.mkfifo(path)
        return Mutant(path, "a pipe in its place")
    if way == "link loop":
        path.symlink_to(path.name)
        return Mutant(path, "a link to itself in its place")
    if way == "broken link":  # a dotfiles link whose target moved
        path.symlink_to(path.with_name(path.name + ".moved"))
        return Mutant(path, "a link to a file that is gone in its place")
    if way == "endless link":  # a read that never ends, nor ever blocks
        path.symlink_to("/dev/zero")
        return Mutant(path, "a link to /dev/zero in its place")
    raise ValueError(way)


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _mutate_sqlite(path: Path, way: str, draw: random.Random) -> Mutant | None:
    db = sqlite3.connect(path, isolation_level=None)
    try:
        tables = [
            row[0]
            for row in db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'"
                " AND name NOT LIKE 'sqlite_%'"
            )
        ]
        if not tables:
            return None
        table = draw.choice(tables)
        columns = [row[1] for row in db.execute(f"PRAGMA table_info({_quoted(table)})")]
        what = _change_table(db, table, columns, way, draw)
        return None if what is None else Mutant(path, f"{table}: {what}")
    except sqlite3.Error as error:
        return Mutant(
            path, f"{way}: refused by SQLite ({error}): unchanged", keeps=True
        )
    finally:
        db.close()


def _change_table(
    db: sqlite3.Connection,
    table: str,
    columns: list[str],
    way: str,
    draw: random.Random,
) -> str | None:
    name = _quoted(table)
    if way == "drop table":
        db.execute("PRAGMA foreign_keys = OFF")
        db.execute(f"DROP TABLE {name}")
        return "table dropped"
    if not columns:
        return None
    column = draw.choice(columns)
    times = [c for c in columns if _TIME_KEY.search(c)]
    if way == "drop column":
        # a column's indexes and views stop ALTER TABLE: the table is built anew
        kept = ", ".join(_quoted(c) for c in columns if c != column) or "NULL AS x"
        db.execute("PRAGMA foreign_keys = OFF")
        db.execute("PRAGMA legacy_alter_table = ON")
        db.execute(f"CREATE TABLE zz_new AS SELECT {kept} FROM {name}")
        db.execute(f"DROP TABLE {name}")
        db.execute(f"ALTER TABLE zz_new RENAME TO {name}")
        return f"column {column!r} dropped"
    if way == "rename column":
        db.execute(
            f"ALTER TABLE {name} RENAME COLUMN {_quoted(column)} "
            f"TO {_quoted(column + '_v2')}"
        )
        return f"column {column!r} renamed"
    if way in ("retype column", "retime column", "cell value"):
        if way == "retime column":
            if not times:
                return None
            column = draw.choice(times)
            new: object = draw.choice(TIMES)
            new = new if isinstance(new, str | float) or abs(new) < 2**63 else "9e99"  # type: ignore[arg-type]
        else:
            new = draw.choice(
                ["text", 7, -(2**63), 1e300, b"\x00\xff", "{", "[]", None]
            )
        rows = [r[0] for r in db.execute(f"SELECT rowid FROM {name}")]
        if not rows:
            return None
        where = "" if way != "cell value" else f" WHERE rowid = {draw.choice(rows)}"
        # a CHECK or NOT NULL constraint refuses: the column is then left as it was
        db.execute(f"UPDATE OR IGNORE {name} SET {_quoted(column)} = ?{where}", (new,))
        return f"column {column!r} set to {new!r}{where}"
    if way == "NULL row":
        rows = [r[0] for r in db.execute(f"SELECT rowid FROM {name}")]
        if not rows:
            return None
        rowid = draw.choice(rows)
        for column in columns:
            with contextlib.suppress(sqlite3.Error):
                db.execute(
                    f"UPDATE {name} SET {_quoted(column)} = NULL WHERE rowid = ?",
                    (rowid,),
                )
        return f"row {rowid}: every column it allows set to NULL"
    raise ValueError(way)


ODD_WAYS = (
    "UTF-16 LE",
    "UTF-16 BE",
    "Latin-1 bytes",
    "CRLF",
    "BOM",
    "NUL run",
    "last line cut mid-UTF-8",
    "WAL beside",
    "locked",
    "locked mid-write",
    "directory",
    "dangling link",
    "shrinks",
    "grows",
)


def mutate_odd(path: Path, way: str, draw: random.Random) -> Mutant | None:
    """Change `path` one of the `ODD_WAYS`; None when that way does not apply to it."""
    data = path.read_bytes()
    database = data.startswith(SQLITE)
    if way in ("WAL beside", "locked", "locked mid-write"):
        if not database:
            return None
        if way == "WAL beside":
            return _wal_beside(path, data, draw)
        return _locked(path, write=way == "locked mid-write")
    if way in ("CRLF", "BOM", "directory"):
        return None if database else _mutate_bytes(path, data, _lines(data), way, draw)
    if way == "dangling link":
        return mutate_tree(path, "broken link")
    if database:
        return None
    if way == "shrinks":
        return _shrinks(path, data, draw)
    if way == "grows":
        return _grows(path, data)
    try:
        text = data.decode()
    except UnicodeDecodeError:
        return None
    lines = _lines(data)
    if way.startswith("UTF-16"):  # as PowerShell's `>` or a Windows editor saves it
        if not text:
            return None
        codec = "utf-16-le" if way.endswith("LE") else "utf-16-be"
        bom = "\ufeff" if not text.startswith("\ufeff") else ""
        path.write_bytes((bom + text).encode(codec))
        return Mutant(path, f"saved as {way} with a BOM")
    if way == "Latin-1 bytes":  # text a Latin-1 tool wrote into a UTF-8 file
        wide = [m.start() for m in re.finditer(r"[\u00a0-\u00ff]", text)]
        if wide:
            at = draw.choice(wide)
            changed = (
                text[:at].encode()
                + text[at].encode("latin-1")
                + text[at + 1 :].encode()
            )
            path.write_bytes(changed)
            return Mutant(path, f"{text[at]!r} at character {at} written in Latin-1")
        quotes = [m.end() for m in re.finditer(rb'":"', data)]
        if not quotes:
            return None
        at = draw.choice(quotes)
        path.write_bytes(data[:at] + b"caf\xe9 " + data[at:])
        return Mutant(path, f"'caf\\xe9' (Latin-1) at byte {at}")
    if way == "NUL run":  # blocks a crash left unwritten, in the middle of the data
        if not data:
            return None
        ends = [n + 1 for n, byte in enumerate(data[:-1]) if byte == 0x0A]
        at = draw.choice(ends) if ends else draw.randrange(len(data))
        size = draw.choice([16, 512, 4096])
        path.write_bytes(data[:at] + b"\x00" * size + data[at:])
        return Mutant(path, f"{size} NUL bytes at {at}")
    if way == "last line cut mid-UTF-8":
        if lines is None:
            return None
        body = data.rstrip(b"\n")
        start = body.rfind(b"\n") + 1
        wide = [n for n in range(start, len(body)) if 0xC2 <= body[n] < 0xF5]
        if not wide:  # a value of the last line given a character it is then cut in
            quotes = [start + m.end() for m in re.finditer(rb'":"', body[start:])]
            if not quotes:
                return None
            at = draw.choice(quotes)
            body = body[:at] + "\u2192".encode() + body[at:]
            wide = [at]
        at = draw.choice(wide) + 1
        path.write_bytes(body[:at])
        return Mutant(
            path, f"last line cut inside a character at byte {at}", keeps=True
        )
    raise ValueError(way)


def _wal_beside(path: Path, data: bytes, draw: random.Random) -> Mutant | None:
    """The database in WAL mode with its every row rewritten into a `-wal` beside it
    (the app has it open, no checkpoint yet), a stale `-shm` and maybe a torn frame."""
    wal, shm = Path(f"{path}-wal"), Path(f"{path}-shm")
    if wal.exists() or Path(f"{path}-journal").exists():
        return None
    rewritten = _rows_into_wal(path)
    if rewritten is None:
        return None
    database, frames = rewritten
    path.write_bytes(database)
    torn = draw.random() < 0.5
    wal.write_bytes(frames + (os.urandom(draw.choice([24, 1000])) if torn else b""))
    shm.write_bytes(bytes(draw.randrange(256) for _ in range(64)) * 512)
    torn_said = ", a torn frame after its last commit" if torn else ""
    return Mutant(
        path,
        f"rows rewritten into a -wal beside it{torn_said}, a stale -shm",
        keeps=True,
    )


def _rows_into_wal(source: Path) -> tuple[bytes, bytes] | None:
    """`source` in WAL mode with its every row rewritten into its `-wal` (no checkpoint
    yet): the database's bytes and the WAL's, read before the last connection closes
    (SQLite then checkpoints, and removes the WAL); None where it keeps no WAL."""
    db = sqlite3.connect(source, isolation_level=None)
    try:
        if db.execute("PRAGMA journal_mode = WAL").fetchone()[0] != "wal":
            return None
        db.execute("PRAGMA wal_autocheckpoint = 0")
        tables = [
            row[0]
            for row in db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'"
                " AND name NOT LIKE 'sqlite_%'"
            )
        ]
        db.execute("BEGIN")
        for table in tables:
            columns = [r[1] for r in db.execute(f"PRAGMA table_info({_quoted(table)})")]
            if columns:
                column = _quoted(columns[0])
                with contextlib.suppress(sqlite3.Error):  # a view, a virtual table
                    db.execute(f"UPDATE {_quoted(table)} SET {column} = {column}")
        db.execute("COMMIT")
        return source.read_bytes(), Path(f"{source}-wal").read_bytes()
    finally:
        db.close()


_HOLD = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=0)
db.execute("BEGIN EXCLUSIVE")
if sys.argv[2] == "write":
    db.execute("PRAGMA cache_size = 1")  # pages spill into the file, the journal hot
    for (table,) in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
    ).fetchall():
        columns = [r[1] for r in db.execute(f'PRAGMA table_info("{table}")')]
        if columns:
            try:
                db.execute(f'UPDATE "{table}" SET "{columns[0]}" = "{columns[0]}"')
            except sqlite3.Error:
                pass
print("held", flush=True)
sys.stdin.read()
"""


def _locked(path: Path, *, write: bool) -> Mutant:
    @contextlib.contextmanager
    def held() -> Iterator[None]:
        # a writer of our own, stopped by its own pid when the commands are done
        with subprocess.Popen(
            [sys.executable, "-c", _HOLD, str(path), "write" if write else "hold"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        ) as child:
            assert child.stdin is not None and child.stdout is not None
            try:
                if child.stdout.readline() != b"held\n":
                    raise AssertionError(f"no lock held on {path}")
                yield
            finally:
                child.stdin.close()  # it reads its end, lets go of the lock and exits
                try:
                    child.wait(10)
                except subprocess.TimeoutExpired:
                    child.kill()
                    child.wait()

    what = "a writer holds BEGIN EXCLUSIVE" + (
        ", its pages spilled into the file, its journal hot" if write else ""
    )
    return Mutant(path, what, keeps=True, during=held)


def _shrinks(path: Path, data: bytes, draw: random.Random) -> Mutant | None:
    """The file cut to part of itself the first time sessdex opens it: between the
    listing's look at its size and the read, as an app rewriting it leaves it."""
    if len(data) < 2:
        return None
    size = draw.randrange(len(data))

    @contextlib.contextmanager
    def shrinking() -> Iterator[None]:
        from sessdex import files

        opened = files.open_regular

        def open_regular(name: str | os.PathLike[str], buffering: int = -1):  # type: ignore[no-untyped-def]
            if os.fspath(name) == str(path) and path.stat().st_size > size:
                with open(path, "r+b") as stream:
                    stream.truncate(size)
            return opened(name, buffering)

        files.open_regular = open_regular  # type: ignore[assignment]
        try:
            yield
        finally:
            files.open_regular = opened  # type: ignore[assignment]

    # what was cut is gone for the app too: the sessions it held may go; the rest stays
    what = f"cut to {size} of {len(data)} bytes as it is opened"
    return Mutant(path, what, gone=True, during=shrinking)


def _grows(path: Path, data: bytes) -> Mutant | None:
    """A JSON lines file its app appends to while sessdex reads it: each time sessdex
    opens it the first time, half of a copy of its last line is written; the second time, the
    rest of that line."""
    body = data.rstrip(b"\n")
    if _lines(data) is None or not data.endswith(b"\n"):
        return None
    last = body[body.rfind(b"\n") + 1 :]
    halves = [last[: len(last) // 2], last[len(last) // 2 :] + b"\n"]

    @contextlib.contextmanager
    def growing() -> Iterator[None]:
        from sessdex import files

        opened = files.open_regular
        written = 0

        def open_regular(name: str | os.PathLike[str], buffering: int = -1):  # type: ignore[no-untyped-def]
            nonlocal written
            stream = opened(name, buffering)
            if os.fspath(name) == str(path) and written < 2:
                with open(path, "ab") as writer:  # after the open: while it reads
                    writer.write(halves[written % 2])
                written += 1
            return stream

        files.open_regular = open_regular  # type: ignore[assignment]
        try:
            yield
        finally:
            files.open_regular = opened  # type: ignore[assignment]

    what = "its last line written again, half at a time, as it is opened twice"
    return Mutant(path, what, keeps=True, during=growing)


HOSTILE_WAYS = (
    "token count",
    "odd time",
    "odd id",
    "huge string",
    "WAL no shm",
    "foreign WAL",
    "corrupt page",
    "tables as views",
)
_COUNT_KEY = re.compile(r"(?i)(tokens?$|_count$|^count$|cost|credits)")
_ID_KEY = re.compile(
    r"(?i)^(id|uuid|session_?id|parent_?uuid|parent_?id|thread_?id|conversation_?id)$"
)
# a count as no app means it: a string, below zero, past any count, a fraction, a bool
COUNTS: list[Json] = ["123", -5, 1e308, 10**30, 2**64, 5.5, True]
# a time in seconds, ms, µs or ns since 1970, with odd zones, a leap second, past any year
ODD_TIMES: list[Json] = [
    1764490211,
    1764490211371,
    1764490211371000,
    1764490211371000000,
    "1764490211.5",
    "2026-11-30T08:10:11+14:00",
    "2026-11-30T08:10:11-12:00",
    "2026-11-30T08:10:11+0530",
    "2026-11-30T08:10:11+25:00",
    "2026-11-30T23:59:60Z",
    "2026-02-30T08:10:11Z",
    "2026-11-30T08:10:11 UTC",
    "+275760-09-13T00:00:00Z",
    1e308,
]
# an id that is a path, climbs out of one, or is no id at all
ODD_IDS: list[Json] = [
    "../../../etc/passwd",
    "a/b",
    "..",
    "/abs/path",
    "a\\b",
    "",
    "-rf",
]
HUGE = 15 * 1024 * 1024  # characters of two bytes: a 30 MB string


def mutate_hostile(path: Path, way: str, draw: random.Random) -> Mutant | None:
    """Change `path` one of the `HOSTILE_WAYS`; None when that way does not apply."""
    data = path.read_bytes()
    if way in ("WAL no shm", "foreign WAL", "corrupt page", "tables as views"):
        if not data.startswith(SQLITE) or Path(f"{path}-wal").exists():
            return None
        if way == "corrupt page":
            return _corrupt_page(path, data, draw)
        if way == "tables as views":
            return _tables_as_views(path)
        return _wal_alone(path, foreign=way == "foreign WAL")
    if data.startswith(SQLITE):
        return None
    found = _json_values(data)
    if found is None:
        return None
    lines, values = found
    draw.shuffle(values)
    for at, value in values:
        changed = _hostile_value(value, way, draw)
        if changed is None:
            continue
        if at < 0:
            path.write_bytes(dumps(value))
            return Mutant(path, changed[0], keeps=changed[1])
        assert lines is not None
        lines[at] = dumps(value)
        path.write_bytes(b"\n".join(lines))
        return Mutant(path, f"line {at + 1}: {changed[0]}", keeps=changed[1])
    return None


def _hostile_value(
    value: Json, way: str, draw: random.Random
) -> tuple[str, bool] | None:
    """Change one node of `value` `way`: what changed, and whether the file still holds
    every session it held (an id changed may merge two, or name none)."""
    nodes = _nodes(value)
    if way == "huge string":
        texts = [(p, k, n) for p, k, n in nodes if isinstance(n, str) and n]
        if not texts:
            return None
        parent, key, node = max(texts, key=lambda text: len(text[2]))  # type: ignore[arg-type]
        parent[key] = "\u00e9" * HUGE  # type: ignore[index]
        # an id of 30 MB is no id: its session may go (said)
        return f"{key!r} became a 30 MB string", not _ID_KEY.search(str(key))
    keyed, new, keeps = {
        "token count": (_COUNT_KEY, COUNTS, True),
        "odd time": (_TIME_KEY, ODD_TIMES, True),
        "odd id": (_ID_KEY, ODD_IDS, False),
    }[way]
    leaves = [
        (p, k, n)
        for p, k, n in nodes
        if isinstance(p, dict)
        and isinstance(k, str)
        and keyed.search(k)
        and not isinstance(n, dict | list)
    ]
    if not leaves:
        return None
    parent, key, node = draw.choice(leaves)
    parent[key] = draw.choice(new)  # type: ignore[index]
    return f"{key!r} {node!r} became {parent[key]!r}", keeps  # type: ignore[index]


def _corrupt_page(path: Path, data: bytes, draw: random.Random) -> Mutant | None:
    """One page past the first overwritten with junk, as a bad sector or a torn write
    leaves it."""
    size = int.from_bytes(data[16:18], "big") or 65536  # 1 means 65536
    pages = len(data) // size
    if pages < 2:
        return None
    page = draw.randrange(1, pages)
    junk = bytes(draw.randrange(256) for _ in range(size))
    path.write_bytes(data[: page * size] + junk + data[(page + 1) * size :])
    return Mutant(path, f"page {page + 1} of {pages} overwritten with junk")


def _tables_as_views(path: Path) -> Mutant | None:
    """Each table renamed, a view of it in its place (a hand-made migration, a tool's
    rewrite): the same rows, which SQLite gives no rowid (NULL) for blob IO to open."""
    db = sqlite3.connect(path, isolation_level=None)
    try:
        tables = [
            row[0]
            for row in db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'"
                " AND name NOT LIKE 'sqlite_%'"
            )
        ]
        db.execute("PRAGMA legacy_alter_table = ON")  # views of them keep their names
        made = []
        for table in tables:
            with contextlib.suppress(sqlite3.Error):  # a virtual table's shadow tables
                db.execute(
                    f"ALTER TABLE {_quoted(table)} RENAME TO {_quoted(table + '_zz')}"
                )
                db.execute(
                    f"CREATE VIEW {_quoted(table)} AS SELECT * FROM {_quoted(table + '_zz')}"
                )
                made.append(table)
    finally:
        db.close()
    return Mutant(path, f"tables made views: {made}") if made else None


# a database every app's home lacks: its WAL's pages are of another schema
_OTHER_DB = DATA / "codex" / "home" / ".codex" / "state_5.sqlite"


def _wal_alone(path: Path, *, foreign: bool) -> Mutant | None:
    """A `-wal` and no `-shm` beside the database (the app crashed, a copy took the WAL
    and left the index): its own rows rewritten into it, or another database's WAL."""
    work = path.with_name(path.name + ".zz-other")
    source = work if foreign else path
    if foreign:
        shutil.copyfile(_OTHER_DB, work)
    try:
        rewritten = _rows_into_wal(source)
    finally:
        for leftover in (work, Path(f"{work}-wal"), Path(f"{work}-shm")):
            leftover.unlink(missing_ok=True)
    if rewritten is None:
        return None
    database, frames = rewritten
    if not foreign:
        path.write_bytes(database)
    Path(f"{path}-wal").write_bytes(frames)
    Path(f"{path}-shm").unlink(missing_ok=True)
    if foreign:
        return Mutant(path, "another database's -wal beside it, no -shm")
    return Mutant(path, "its rows rewritten into a -wal beside it, no -shm", keeps=True)


# --- escapes: a text given a character JSON can spell and no file name or terminal can -

ESCAPE_WAYS = (
    "lone high surrogate",
    "lone low surrogate",
    "reversed pair",
    "NUL escape",
    "line separators",
    "bidi override",
)
# what each way puts into a text, as the JSON escape an app's JSON.stringify writes: half
# an emoji a `slice` cut (at the end, where a cut leaves it, or inside), the halves of a
# pair swapped, a NUL (C strings end there; os calls refuse it), U+2028/U+2029 (a line
# break to some and none to others), a right-to-left override (text shown reversed)
_ESCAPES = {
    "lone high surrogate": b"\\ud83d",
    "lone low surrogate": b"\\ude00",
    "reversed pair": b"\\ude00\\ud83d",
    "NUL escape": b"\\u0000",
    "line separators": b"\\u2028\\u2029",
    "bidi override": b"\\u202e",
}
_NAMED_KEY = re.compile(r"(?i)(id|cwd|path|dir|directory|title|name|model|branch)$")
# a text that names a file, a format or a record's kind (Vibe's `generation`, its
# `store_format`, a session header's `type`): changed, it names none, and what it led to
# may go (said, as any file gone)
_POINTER_KEY = re.compile(r"(?i)(generation|format|version|file|filename|type|kind)$")
_PLACE_KEY = re.compile(r"(?i)(cwd|path|dir|directory|root|folder|workspace)$")
_MARK = "\x01zz-escape\x01"  # json.dumps writes it as `\u0001zz-escape\u0001`


def _escaped_dumps(value: Json, way: str) -> bytes:
    return dumps(value).replace(json.dumps(_MARK).strip('"').encode(), _ESCAPES[way])


def _escape_value(
    value: Json, way: str, draw: random.Random
) -> tuple[str, bool, bool] | None:
    """Put `way`'s escape into one text of `value` (an id's, a path's, a title's): what
    changed, and whether the file still holds every session it held (an id so changed
    may name another session, or none), and whether it named a place (a folder then
    named nowhere: what was in it may go unsaid, as a project deleted)."""
    texts = [
        (p, k, n)
        for p, k, n in _nodes(value)
        if isinstance(n, str) and isinstance(p, dict | list)
    ]
    if not texts:
        return None
    # half the time a text that names something (an id, a folder, a title, a model):
    # what is looked up, joined, stored and shown, not only shown
    named = [t for t in texts if _NAMED_KEY.search(str(t[1]))]
    parent, key, node = draw.choice(named if named and draw.random() < 0.5 else texts)
    assert isinstance(node, str)
    at = len(node) if draw.random() < 0.5 else draw.randrange(len(node) + 1)
    parent[key] = node[:at] + _MARK + node[at:]  # type: ignore[index]
    place = bool(_PLACE_KEY.search(str(key)))
    keeps = not _ID_KEY.search(str(key)) and not _POINTER_KEY.search(str(key))
    return f"{key!r} given {way} at {at}", keeps, place


def _json_values(
    data: bytes,
) -> tuple[list[bytes] | None, list[tuple[int, Json]]] | None:
    """A JSON file's values to change: (its lines, (line number, value) of each) for
    JSON lines, (None, [(-1, the document)]) for one document; None for neither."""
    lines = _lines(data)
    if lines is not None:
        return lines, [
            (n, _loads(line)) for n, line in enumerate(lines) if line.strip()
        ]
    if (whole := _whole_json(data)) is not None:
        return None, [(-1, whole)]
    return None


def mutate_escaped(path: Path, way: str, draw: random.Random) -> Mutant | None:
    """Change `path` one of the `ESCAPE_WAYS`: a JSON file's text, or a text cell of a
    database that holds JSON; None when that way does not apply to it."""
    data = path.read_bytes()
    if data.startswith(SQLITE):
        return _escaped_cell(path, way, draw)
    found = _json_values(data)
    if found is None:
        return None
    lines, values = found
    draw.shuffle(values)
    for at, value in values:
        changed = _escape_value(value, way, draw)
        if changed is None:
            continue
        if at < 0:
            path.write_bytes(_escaped_dumps(value, way))
            return Mutant(path, changed[0], keeps=changed[1], gone=changed[2])
        assert lines is not None
        lines[at] = _escaped_dumps(value, way)
        path.write_bytes(b"\n".join(lines))
        what = f"line {at + 1}: {changed[0]}"
        return Mutant(path, what, keeps=changed[1], gone=changed[2])
    return None


def _text_cells(
    db: sqlite3.Connection, json_only: bool = False
) -> list[tuple[str, str, int]]:
    """(table, column, rowid) of up to 50 text cells of each column (holding JSON, with
    `json_only`), virtual tables passed over."""
    also = ""
    cells: list[tuple[str, str, int]] = []
    for table in _tables(db):
        columns = [r[1] for r in db.execute(f"PRAGMA table_info({_quoted(table)})")]
        for column in columns:
            if json_only:
                also = f" AND substr({_quoted(column)}, 1, 1) IN ('{{', '[')"
            with contextlib.suppress(sqlite3.Error):  # a virtual table's
                cells += [
                    (table, column, rowid)
                    for (rowid,) in db.execute(
                        f"SELECT rowid FROM {_quoted(table)} WHERE typeof("
                        f"{_quoted(column)}) = 'text'{also} AND rowid IS NOT NULL LIMIT 50"
                    )
                ]
    return cells


def _escaped_cell(path: Path, way: str, draw: random.Random) -> Mutant | None:
    """A text cell of a database changed `way`: in a JSON text, as its escape; in any
    other text, as the character itself where UTF-8 holds one, or as the bytes a writer
    that encodes UTF-16 halves one by one (CESU-8) leaves."""
    db = sqlite3.connect(path, isolation_level=None)
    try:
        cells = _text_cells(db)
        if not cells:
            return None
        table, column, rowid = draw.choice(cells)
        where = f"FROM {_quoted(table)} WHERE rowid = ?"
        (text,) = db.execute(f"SELECT {_quoted(column)} {where}", (rowid,)).fetchone()
        value = _whole_json(text.encode())
        if value is not None and (changed := _escape_value(value, way, draw)):
            new: object = _escaped_dumps(value, way).decode()
            what, keeps, place = changed
            keeps = keeps and not _ID_KEY.search(column)
        else:
            # no JSON: maybe an encoding (base64) or a key, whose sessions may go
            keeps = place = False
            character = json.loads('"' + _ESCAPES[way].decode() + '"')
            at = draw.randrange(len(text) + 1)
            new = (text[:at] + character + text[at:]).encode("utf-8", "surrogatepass")
            what = f"{way} at {at}"
        with contextlib.suppress(sqlite3.Error):  # a CHECK, a UNIQUE refuses it
            db.execute(
                f"UPDATE {_quoted(table)} SET {_quoted(column)} = CAST(? AS TEXT)"
                " WHERE rowid = ?",
                (new, rowid),
            )
            where = f"{table}.{column} row {rowid}"
            return Mutant(path, f"{where}: {what}", keeps=keeps, gone=place)
        return None
    finally:
        db.close()


# --- strange: a file's kind, size or bytes as no writer of that app leaves them ---------

STRANGE_WAYS = (
    "socket",
    "device",
    "tty link",
    "folder loop",
    "folder links up",
    "folder a file",
    "sparse tail",
    "sparse middle",
    "database emptied",
    "database cut",
    "hot journal",
    "WAL no database",
    "cell cut",
    "BOM mid-file",
    "CR line ends",
    "NaN count",
    "infinite count",
    "long int count",
    "deep 100k",
    "zero-width title",
)
HOLE = 2**31  # bytes of a sparse file's hole: 2 GB that take no disk
# what Python's json.dumps writes of a float no JSON holds, and a number past any float
# or int: a reader that falls back to the standard library takes it, and int() of it fails
_NUMBERS = {
    "NaN count": [b"NaN", b"Infinity", b"-Infinity"],
    "infinite count": [b"1e999", b"-1e999"],
    "long int count": [b"9" * 5000, b"-" + b"9" * 400],
}
_NUMBER_MARK = "\x01zz-number\x01"
# zero-width joiners, bidi overrides and combining marks: 1 MB that takes no columns, where
# a cut to a width that adds characters until it is wide enough never gets there
_ZERO_WIDTH = ("x\u200d\u202e\u0301\u200b" * 210_000)[: 1 << 20]
# a writer that crashed in a rollback-journal write: its pages spilled into the file,
# the journal hot, and no process holding a lock (os._exit skips the rollback)
_CRASH = """
import os, sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA journal_mode = DELETE")
db.execute("PRAGMA cache_size = 1")
db.execute("BEGIN IMMEDIATE")
for (table,) in db.execute(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
).fetchall():
    columns = [r[1] for r in db.execute(f'PRAGMA table_info("{table}")')]
    if columns:
        try:
            db.execute(f'UPDATE "{table}" SET "{columns[0]}" = "{columns[0]}"')
            db.execute(f'DELETE FROM "{table}" WHERE rowid % 2 = 0')
        except sqlite3.Error:
            pass
os._exit(0)
"""


def mutate_strange(path: Path, way: str, draw: random.Random) -> Mutant | None:
    """Change `path` one of the `STRANGE_WAYS`; None when that way does not apply."""
    data = path.read_bytes()
    database = data.startswith(SQLITE)
    if way in ("socket", "device", "tty link"):
        path.unlink()
        if way == "socket":  # as a crashed app's control socket under a reused name
            os.mknod(path, 0o644 | stat.S_IFSOCK)
            return Mutant(path, "a socket in its place")
        if way == "tty link":  # opened and read plainly, it waits for the keyboard
            path.symlink_to("/dev/tty")
            return Mutant(path, "a link to /dev/tty in its place")
        try:  # as a restore or a container's bind mount leaves one
            os.mknod(path, 0o644 | stat.S_IFCHR, os.makedev(1, 3))
            return Mutant(path, "a character device (/dev/null's) in its place")
        except PermissionError:
            path.symlink_to("/dev/null")
            return Mutant(path, "a link to /dev/null in its place")
    if way.startswith("folder"):
        return _strange_folder(path, way, data)
    if way == "cell cut":
        return _cut_cell(path, draw) if database else None
    if way in ("database emptied", "database cut", "hot journal", "WAL no database"):
        return _strange_database(path, way, data) if database else None
    if way.startswith("sparse"):
        return _sparse(path, way, data, draw)
    if database:
        return None
    lines = _lines(data)
    if way == "BOM mid-file":  # two files, each with a BOM, joined by `cat`
        if lines is None:
            return None
        at = draw.choice([n for n, line in enumerate(lines) if line.strip()][1:] or [0])
        lines[at] = b"\xef\xbb\xbf" + lines[at]
        path.write_bytes(b"\n".join(lines))
        return Mutant(path, f"a BOM before line {at + 1}", keeps=True)
    if way == "CR line ends":  # a file saved by a classic Mac OS editor
        if lines is None:
            return None
        path.write_bytes(data.replace(b"\n", b"\r"))
        return Mutant(path, "CR line ends (no LF)")
    if way == "deep 100k":
        levels = 100_000
        body = b"[" * levels + b"]" * levels
        if lines is None:
            if _whole_json(data) is None:
                return None
            path.write_bytes(body)
            return Mutant(path, f"a document nested {levels} levels")
        at = draw.choice([n for n, line in enumerate(lines) if line.strip()])
        lines.insert(at + 1, b'{"type":"zz","a":' + body + b"}")
        path.write_bytes(b"\n".join(lines))
        return Mutant(path, f"a line nested {levels} levels after line {at + 1}")
    found = _json_values(data)
    if found is None:
        return None
    values = found[1]
    draw.shuffle(values)
    for at, value in values:
        changed = _strange_value(value, way, draw)
        if changed is None:
            continue
        what, text, keeps = changed
        if at < 0:
            path.write_bytes(text)
            return Mutant(path, what, keeps=keeps)
        assert found[0] is not None
        found[0][at] = text
        path.write_bytes(b"\n".join(found[0]))
        return Mutant(path, f"line {at + 1}: {what}", keeps=keeps)
    return None


def _strange_value(
    value: Json, way: str, draw: random.Random
) -> tuple[str, bytes, bool] | None:
    """One node of `value` changed `way`: what changed, the JSON text, and whether the
    file still holds every session it held."""
    nodes = _nodes(value)
    if way == "zero-width title":
        texts = [
            (p, k, n)
            for p, k, n in nodes
            if isinstance(n, str) and n and isinstance(k, str) and not _ID_KEY.search(k)
        ]
        if not texts:
            return None
        named = [t for t in texts if re.search(r"(?i)(title|name|summary)", t[1])]  # type: ignore[arg-type]
        parent, key, _ = draw.choice(named or texts)
        parent[key] = _ZERO_WIDTH  # type: ignore[index]
        return (
            f"{key!r} became 1 MB of zero-width joiners and bidi overrides",
            dumps(value),
            not _PLACE_KEY.search(str(key)) and not _POINTER_KEY.search(str(key)),
        )
    leaves = [
        (p, k, n)
        for p, k, n in nodes
        if isinstance(p, dict)
        and isinstance(k, str)
        and _COUNT_KEY.search(k)
        and isinstance(n, int | float)
        and not isinstance(n, bool)
    ]
    if not leaves:
        return None
    parent, key, node = draw.choice(leaves)
    number = draw.choice(_NUMBERS[way])
    parent[key] = _NUMBER_MARK  # type: ignore[index]
    text = dumps(value).replace(json.dumps(_NUMBER_MARK).encode(), number)
    shown = (
        number if len(number) < 20 else number[:8] + b"... (%d digits)" % len(number)
    )
    # no JSON parser need take it: the record may be lost, but never unsaid
    return f"{key!r} {node!r} became {shown.decode()}", text, False


def _strange_folder(path: Path, way: str, data: bytes) -> Mutant | None:
    """The file's folder replaced by a link to itself or to its own parent, or by a
    file: everything in it is gone (as a folder deleted), but nothing may hang."""
    folder = path.parent
    if folder.name in ("home", "") or not any(folder.parent.iterdir()):
        return None
    if folder.parent.name == "home" and folder.name.startswith("."):
        return None  # an app's own root: nothing of it is left to say what was lost
    shutil.rmtree(folder)
    if way == "folder loop":
        folder.symlink_to(folder.name)
        return Mutant(path, f"its folder {folder.name!r} a link to itself", gone=True)
    if way == "folder links up":  # its own name inside it, without end
        folder.symlink_to(".")
        return Mutant(path, f"its folder {folder.name!r} a link to '.'", gone=True)
    folder.write_bytes(data[:4096])  # a copy that took the first file for the folder
    return Mutant(path, f"its folder {folder.name!r} a file", gone=True)


def _strange_database(path: Path, way: str, data: bytes) -> Mutant | None:
    wal, shm = Path(f"{path}-wal"), Path(f"{path}-shm")
    if way == "database emptied":  # a sync tool's placeholder, a full disk's copy
        path.write_bytes(b"")
        wal.unlink(missing_ok=True)
        shm.unlink(missing_ok=True)
        return Mutant(path, "emptied (0 bytes)", gone=True)
    if way == "database cut":  # a copy cut short: its header counts pages it lacks
        size = int.from_bytes(data[16:18], "big") or 65536
        pages = len(data) // size
        if pages < 2:
            return None
        path.write_bytes(data[: (pages // 2) * size])
        return Mutant(path, f"cut to {pages // 2} of {pages} pages")
    if wal.exists() or Path(f"{path}-journal").exists():
        return None
    if way == "WAL no database":  # the database deleted, its -wal left behind
        rewritten = _rows_into_wal(path)
        if rewritten is None:
            return None
        path.unlink()
        wal.write_bytes(rewritten[1])
        return Mutant(path, "deleted, its -wal left", gone=True)
    subprocess.run([sys.executable, "-c", _CRASH, str(path)], check=True)
    if not Path(f"{path}-journal").exists():
        return None
    # the journal rolls back what the crash left: every row it held is still there
    return Mutant(path, "a crashed writer's hot -journal beside it", keeps=True)


def _cut_cell(path: Path, draw: random.Random) -> Mutant | None:
    """A text cell that holds JSON cut in half, as a torn write or a bad sector leaves it:
    no JSON function of SQLite's may fail a query over its table."""
    db = sqlite3.connect(path, isolation_level=None)
    try:
        cells = _text_cells(db, json_only=True)
        if not cells:
            return None
        table, column, rowid = draw.choice(cells)
        with contextlib.suppress(sqlite3.Error):  # a CHECK refuses it
            db.execute(
                f"UPDATE {_quoted(table)} SET {_quoted(column)} = "
                f"substr({_quoted(column)}, 1, length({_quoted(column)}) / 2) "
                "WHERE rowid = ?",
                (rowid,),
            )
            return Mutant(path, f"{table}.{column} row {rowid}: its JSON cut in half")
        return None
    finally:
        db.close()


def _sparse(path: Path, way: str, data: bytes, draw: random.Random) -> Mutant | None:
    """A 2 GB hole (no disk) after the file's end, or between two of its lines."""
    if way == "sparse tail":
        with open(path, "r+b") as stream:
            stream.truncate(len(data) + HOLE)
        # JSON lines keep every line before the NULs; a document or database is
        # damaged, and what it held may go, but never unsaid
        return Mutant(path, "a 2 GB hole after its end", keeps=_lines(data) is not None)
    lines = _lines(data)
    if lines is None or data.startswith(SQLITE):
        return None
    ends = [n + 1 for n, byte in enumerate(data[:-1]) if byte == 0x0A]
    if not ends:
        return None
    at = draw.choice(ends)
    with open(path, "wb") as stream:
        stream.write(data[:at])
        stream.seek(HOLE, os.SEEK_CUR)
        stream.write(b"\n" + data[at:])
    # a listing reads a head of 64 MB at most: a session whose lines all lie past the
    # hole may go, but never unsaid (its 2 GB line is counted as too long)
    return Mutant(path, f"a 2 GB hole as a line of its own at byte {at}")


def _tokens(home: Path, state: Path) -> int:
    """The tokens `usage app --json` counts over `home`, in and out (0 where it fails:
    `check` says why)."""
    from sessdex.cli import main

    args = ["usage", "app", "--json", "--home", str(home)]
    result = CliRunner().invoke(main, args, env={"SESSDEX_HOME": str(state)})
    if result.exit_code != 0:
        return 0
    rows = json.loads(result.stdout)
    return sum(int(r["input_tokens"]) + int(r["output_tokens"]) for r in rows)


def home_stamps(
    home: Path, through_links: bool = False
) -> dict[str, tuple[int, int, int]]:
    """Every entry under `home` (through its links, and each folder itself, with
    `through_links`): (size, mtime, mode) by path."""
    seen: dict[str, tuple[int, int, int]] = {}
    itself = ["."] if through_links else []
    for folder, names, files in os.walk(home, followlinks=through_links):
        for name in [*names, *files, *itself]:
            path = os.path.join(folder, name)
            with contextlib.suppress(OSError):
                st = os.lstat(path)
                seen[os.path.relpath(path, home)] = (
                    st.st_size,
                    st.st_mtime_ns,
                    st.st_mode,
                )
    return seen


class NoWay(AssertionError):
    """No hostile way applies to any file of a home (one of text files alone: Aider's)."""


def draw_mutant(
    home: Path,
    draw: random.Random,
    *,
    tree: bool = False,
    odd: bool = False,
    hostile: tuple[str, ...] = (),
    escapes: bool = False,
    strange: tuple[str, ...] = (),
) -> Mutant:
    """Change one file of `home` one way, both drawn; tries until one applies. With
    `tree`, one of `TREE_WAYS` instead; with `odd`, one of `ODD_WAYS`; with `hostile`,
    one of those ways (of `HOSTILE_WAYS`); with `escapes`, one of `ESCAPE_WAYS`; with
    `strange`, one of those ways (of `STRANGE_WAYS`)."""
    # not a database's -wal or -shm: SQLite itself reads a damaged one as none (the
    # app loses those rows too), and nothing sessdex reads can tell
    candidates = sorted(
        p
        for p in home.rglob("*")
        if p.is_file() and not p.is_symlink() and not p.name.endswith(("-wal", "-shm"))
    )
    if tree:
        return mutate_tree(draw.choice(candidates), draw.choice(TREE_WAYS))
    if strange:
        for _ in range(200):
            path, way = draw.choice(candidates), draw.choice(strange)
            if path.is_file() and (mutant := mutate_strange(path, way, draw)):
                return mutant
        raise NoWay(f"no strange way applies to {home}")
    if escapes:
        for _ in range(200):
            path, way = draw.choice(candidates), draw.choice(ESCAPE_WAYS)
            if path.is_file() and (mutant := mutate_escaped(path, way, draw)):
                return mutant
        raise NoWay(f"no escape applies to {home}")
    if hostile:
        for _ in range(200):
            path, way = draw.choice(candidates), draw.choice(hostile)
            if path.is_file() and (mutant := mutate_hostile(path, way, draw)):
                return mutant
        raise NoWay(f"no hostile way applies to {home}")
    if odd:
        for _ in range(200):
            path, way = draw.choice(candidates), draw.choice(ODD_WAYS)
            if path.is_file() and (mutant := mutate_odd(path, way, draw)) is not None:
                return mutant
        raise AssertionError(f"no odd way applies to {home}")
    ways = VALUE_WAYS + BYTE_WAYS + SQL_WAYS
    for _ in range(200):
        path = draw.choice(candidates)
        way = draw.choice(ways)
        if not path.is_file():  # a -wal or -shm file SQLite folded into its database
            continue
        mutant = mutate(path, way, draw)
        if mutant is not None:
            return mutant
    raise AssertionError(f"no mutation applies to {home}")


# --- what the commands make of it ----------------------------------------------------


@dataclass
class Outcome:
    """What went wrong over one mutant (nothing, when `failures` is empty)."""

    failures: list[str] = field(default_factory=list)
    listed: dict[str, str] = field(default_factory=dict)  # id -> its file
    parents: dict[str, str] = field(default_factory=dict)  # id -> its lead's id
    counted: bool = (
        False  # doctor counted something skipped, damaged, unknown or failed
    )


# what sessdex says of a failure it did not expect: its type's name ("TypeError: ..."),
# as `diagnostics.why` words every error but the system's and SQLite's
BUG = re.compile(r"a sessdex bug|\b[A-Z]\w*(Error|Exception): ")


def _invoke(
    runner: CliRunner, args: list[str], outcome: Outcome, state: Path
) -> str | None:
    """Run `sessdex *args`; note a traceback, an odd exit or a bug's words in stderr."""
    from sessdex.cli import main

    result = runner.invoke(main, args, catch_exceptions=True)
    said = ""
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        error = result.exception
        where = "".join(traceback.format_tb(error.__traceback__)[-3:])
        said = f"{type(error).__name__}: {error}\n{where}"
    elif result.exit_code not in (0, 1):
        said = f"exit {result.exit_code}"
    elif found := BUG.search(result.stderr):
        line = result.stderr[: found.end() + 200].rpartition("\n")[2]
        said = f"said {line!r}\n{_debugged(runner, args, state)}"
    if said:
        outcome.failures.append(f"sessdex {' '.join(args[:2])}: {said}")
        return None
    return result.stdout if result.exit_code == 0 else None


def _debugged(runner: CliRunner, args: list[str], state: Path) -> str:
    """Where the error was raised: the command again, on a fresh index, with
    SESSDEX_DEBUG=1 (which lets every error out)."""
    from sessdex import databases
    from sessdex.cli import main

    databases.forget_snapshots()
    os.environ["SESSDEX_HOME"] = str(state.with_name(state.name + "-debug"))
    os.environ["SESSDEX_DEBUG"] = "1"
    try:
        result = runner.invoke(main, args, catch_exceptions=True)
    finally:
        os.environ["SESSDEX_HOME"] = str(state)
        del os.environ["SESSDEX_DEBUG"]
    error = result.exception
    if error is None or isinstance(error, SystemExit):
        return "(not raised again with SESSDEX_DEBUG=1)"
    where = "".join(traceback.format_tb(error.__traceback__)[-3:])
    return f"{type(error).__name__}: {error}\n{where}"


def check(
    home: Path,
    state: Path,
    *,
    sessions: int = 2,
    seconds: int = 60,
    more: bool = False,
    steady: bool = True,
) -> Outcome:
    """Run list, show --json, tree, export md, usage daily, watch --once and doctor
    --deep over `home`, each in this process, with `state` as sessdex's own folder.
    With `more`, every other command a user runs too (`_check_more`); `steady`: nothing
    changes the home while they run, so the first listing must match the later ones."""
    from sessdex import databases

    outcome = Outcome()
    runner = CliRunner()
    saved = {k: os.environ.get(k) for k in ("SESSDEX_HOME", "SESSDEX_DEBUG")}
    os.environ["SESSDEX_HOME"] = str(state)
    os.environ.pop("SESSDEX_DEBUG", None)
    at = ["--home", str(home)]
    try:
        with deadline(seconds, str(home)):
            listed = _invoke(runner, ["list", "--json", "--all", *at], outcome, state)
            for row in json.loads(listed) if listed else []:
                outcome.listed[f"{row['app']}:{row['id']}"] = row.get("path") or ""
                if row.get("parent_id"):
                    outcome.parents[f"{row['app']}:{row['id']}"] = row["parent_id"]
            for ref in list(outcome.listed)[:sessions]:
                for command in (["show", ref, "--json"], ["tree", ref, "--json"]):
                    _invoke(runner, [*command, *at], outcome, state)
                _invoke(runner, ["export", ref, "-f", "md", *at], outcome, state)
            for command in (
                ["usage", "daily", "--json"],
                ["watch", "--once", "--json"],
            ):
                _invoke(runner, [*command, *at], outcome, state)
            doctor = _invoke(
                runner, ["doctor", "--deep", "--json", *at], outcome, state
            )
            for app in json.loads(doctor) if doctor else []:
                said = (
                    app.get("skipped_lines"),
                    app.get("damaged_lines"),
                    app.get("unknown_record_types"),
                    app.get("problems"),
                    app.get("passed_over"),
                    app.get("unfinished_last_lines"),
                    app.get("notes"),
                )
                outcome.counted = outcome.counted or any(said)
                for problem in app.get("problems") or ():
                    if BUG.search(problem):
                        outcome.failures.append(f"doctor: {problem}")
            if more:
                _check_more(runner, home, state, listed, outcome, sessions, steady)
    except TimeoutError as error:
        outcome.failures.append(str(error))
    finally:
        databases.forget_snapshots()
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return outcome


SLOW = 10  # seconds: a command this slow on a small home is stuck, not busy

# what a terminal acts on rather than shows: ESC, BEL, backspace, CR, C1 controls; and
# what reorders or breaks what a reader sees: bidi controls, the line separators
_CONTROL = re.compile(
    "[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f\x80-\x9f"
    "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]"
)


def _shown(
    runner: CliRunner, args: list[str], outcome: Outcome, state: Path
) -> str | None:
    """`_invoke` for output a person reads: a control character in it is a failure."""
    from sessdex.cli import main

    started = time.monotonic()
    result = runner.invoke(main, args, catch_exceptions=True)
    if (took := time.monotonic() - started) > SLOW:
        outcome.failures.append(f"sessdex {' '.join(args[:2])}: took {took:.0f} s")
    for stream, text in (("stdout", result.stdout), ("stderr", result.stderr)):
        if found := _CONTROL.search(text):
            outcome.failures.append(
                f"sessdex {' '.join(args[:2])}: {found.group()!r} reached {stream}"
            )
            break
    return _invoke(runner, args, outcome, state)


def _differ(warm: str | None, cold: str | None) -> str:
    """The rows one of two `list --json` outputs has and the other lacks."""
    rows = [
        {json.dumps(r, sort_keys=True) for r in json.loads(out or "[]")}
        for out in (warm, cold)
    ]
    only = [f"  warm only: {r}" for r in sorted(rows[0] - rows[1])]
    return "\n".join(only + [f"  cold only: {r}" for r in sorted(rows[1] - rows[0])])


def _check_more(
    runner: CliRunner,
    home: Path,
    state: Path,
    listed: str | None,
    outcome: Outcome,
    sessions: int,
    steady: bool,
) -> None:
    """The commands `check` leaves out: each in text and JSON, find, usage --explain,
    resume --print; and `list --json` again warm, and cold in a fresh folder, which
    must say what the first run said."""
    at = ["--home", str(home)]
    # the first run may have seen the file as a mutant's `during` left it mid-change
    warm = _invoke(runner, ["list", "--json", "--all", *at], outcome, state)
    fresh = state.with_name(state.name + "-cold")
    os.environ["SESSDEX_HOME"] = str(fresh)
    try:
        cold = _invoke(runner, ["list", "--json", "--all", *at], outcome, fresh)
    finally:
        os.environ["SESSDEX_HOME"] = str(state)
        shutil.rmtree(fresh, ignore_errors=True)
    if steady and listed != warm:
        outcome.failures.append(
            f"list --json: cold then warm differ:\n{_differ(listed, warm)}"
        )
    if warm != cold:
        outcome.failures.append(
            f"list --json: warm and cold differ:\n{_differ(warm, cold)}"
        )
    for command in (
        ["list", "--all"],
        ["list", "--all", "--verbose"],
        ["usage"],
        ["usage", "session", "--json"],
        ["watch", "--once"],
        ["doctor", "--deep"],
        ["doctor", "--verbose"],
    ):
        _shown(runner, [*command, *at], outcome, state)
    for ref in list(outcome.listed)[:sessions]:
        id_ = ref.partition(":")[2]
        for command in (
            ["show", ref],
            ["show", ref, "--detail", "full"],
            ["tree", ref],
            ["export", ref, "-f", "json"],
            ["export", ref, "-f", "html"],
            ["resume", ref, "--print"],
            ["resume", ref, "--json"],
            ["find", f"id:{id_[:8]}"],
            ["find", "--json", f"id:{id_[:8]}"],
            ["usage", "session", "--explain", id_],
            ["usage", "session", "--explain", id_, "--json"],
        ):
            _shown(runner, [*command, *at], outcome, state)


def copy_home(original: Path, home: Path) -> None:
    shutil.rmtree(home, ignore_errors=True)
    shutil.copytree(original, home, symlinks=True)
    for folder, _, names in os.walk(home):  # the shared corpus is read-only
        for entry in [folder, *(os.path.join(folder, n) for n in names)]:
            if not os.path.islink(entry):
                os.chmod(entry, 0o755 if os.path.isdir(entry) else 0o644)


def run_case(
    name: str,
    original: Path,
    case: int,
    work: Path,
    *,
    tree: bool = False,
    odd: bool = False,
    more: bool = False,
    hostile: tuple[str, ...] = (),
    escapes: bool = False,
    strange: tuple[str, ...] = (),
) -> list[str]:
    """Mutant `case` of home `name` (of its tree, with `tree`; an odd file, with `odd`;
    changed one of the `hostile` ways, with those; a text given an odd escape, with
    `escapes`): the failures found, each naming the case. Every case is copied to the same folder, as some apps' ids are made from their
    paths."""
    kind = (
        "tree"
        if tree
        else "odd"
        if odd
        else "hostile"
        if hostile
        else "escapes"
        if escapes
        else "strange"
        if strange
        else "fuzz"
    )
    draw = random.Random(f"{name}-{kind}-{case}")
    home = work / "home"
    listed_file = work / "listed.json"
    if not listed_file.exists():
        copy_home(original, home)
        before = check(home, work / "state-base", sessions=0)
        assert not before.failures, before.failures
        listed_file.write_text(json.dumps(before.listed))
    listed_before: dict[str, str] = json.loads(listed_file.read_text())
    copy_home(original, home)
    try:
        mutant = draw_mutant(
            home,
            draw,
            tree=tree,
            odd=odd,
            hostile=hostile,
            escapes=escapes,
            strange=strange,
        )
    except NoWay:
        return []  # nothing in this home holds a JSON value or a database
    changed = str(mutant.path)
    label = f"{name} {'' if kind == 'fuzz' else kind + ' '}case {case}: {mutant.path.relative_to(home)}: {mutant.what}"
    state = work / f"state-{case}"
    stamps = home_stamps(home) if strange else {}
    tokens_before = _tokens(original, work / "state-tokens") if strange else 0
    with mutant.during() if mutant.during else contextlib.nullcontext():
        outcome = check(home, state, more=more, steady=mutant.during is None)
    failures = [f"{label}: {failure}" for failure in outcome.failures]
    if strange and (now := home_stamps(home)) != stamps:  # read only, whatever it meets
        written = sorted(
            k for k in stamps.keys() | now.keys() if stamps.get(k) != now.get(k)
        )
        failures.append(f"{label}: wrote inside the home: {written}")
    if strange and (tokens := _tokens(home, state)) > tokens_before:
        # damage takes tokens away, or none; it never bills a response twice
        failures.append(
            f"{label}: usage counts {tokens} tokens, {tokens_before} undamaged"
        )
    # some apps make an id of a file's content (a CRLF changes it), and a session one
    # file no longer fills in may be listed by another: what is compared is how many
    before = Counter(path.partition("#")[0] for path in listed_before.values())
    after = Counter(path.partition("#")[0] for path in outcome.listed.values())
    if mutant.keeps and before[changed] > after[changed]:
        failures.append(f"{label}: lost sessions though the file still holds them")
    elif (
        len(outcome.listed) < len(listed_before)
        and not mutant.gone
        and not outcome.counted
        and not outcome.failures
    ):
        # a file that says where sessions are (a registry) may take others along, but
        # never without a word
        lost = sorted(set(listed_before) - set(outcome.listed))
        failures.append(f"{label}: lost {lost} without a word in doctor")
    shutil.rmtree(state, ignore_errors=True)
    return failures


# --- warm = cold after one file changes alone ------------------------------------------

CHANGES = ("cut to half", "its last line again", "deleted")
# a change whose file's stamps lie (`--skew`): a clock stepped back or far ahead, a
# `touch -r`, `cp -p` or `rsync -t` from a backup, a home copied from a machine whose
# clock was wrong; its folder stamped so too where marked "folder"
SKEW_CHANGES = (
    "same size, mtime kept",
    "cut to half, stamped 1970",
    "its last line again, stamped 2100",
    "cut to half, folder stamped 2100",
    "its last line again, stamped before 1970",
)
# a database's schema changed by its app's migration (`--schema`), the index warm
SCHEMA_CHANGES = (
    "column added",
    "column dropped",
    "table renamed",
    "table added",
    "every column text",
)
_STAMPS = {"1970": 0, "2100": 4_102_444_800, "before 1970": -86_400 * 365}


def _skewed(path: Path, how: str) -> None:
    """Change `path` one of the `SKEW_CHANGES`."""
    before = path.stat()
    if how == "same size, mtime kept":
        if path.read_bytes().startswith(SQLITE):
            _same_size_sql(path)
        else:  # a byte of a text swapped for another: the size as it was
            data = bytearray(path.read_bytes())
            letters = [n for n, byte in enumerate(data) if 0x61 <= byte <= 0x7A]
            for at in letters[len(letters) // 2 :]:
                data[at] -= 0x20
            path.write_bytes(bytes(data))
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
        return
    change, _, stamp = how.partition(", ")
    _change(path, change)
    at = _STAMPS[stamp.rpartition("stamped ")[2]]
    os.utime(path.parent if stamp.startswith("folder") else path, (at, at))


def _same_size_sql(path: Path) -> None:
    """Each run of 12 or more letters and spaces (text in a row, as a title) in the
    database file put in upper case, byte for byte: what a checkpoint of a same-size
    update leaves, with the `-wal` beside it (the app has it open) left as it was."""
    data = path.read_bytes()
    path.write_bytes(
        re.sub(rb"[a-z][a-z ]{11,}", lambda found: found.group().upper(), data)
    )


def _tables(db: sqlite3.Connection) -> list[str]:
    return [
        row[0]
        for row in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'"
            " AND name NOT LIKE 'sqlite_%'"
        )
    ]


def _migrated(path: Path, how: str, draw: random.Random) -> None:
    """Change a database's schema one of the `SCHEMA_CHANGES`, as an app's migration."""
    db = sqlite3.connect(path, isolation_level=None)
    try:
        tables = _tables(db)
        if not tables:
            return
        table = draw.choice(tables)
        name = _quoted(table)
        columns = [r[1] for r in db.execute(f"PRAGMA table_info({name})")]
        with contextlib.suppress(sqlite3.Error):  # a migration SQLite refuses: none
            if how == "column added":
                db.execute(f"ALTER TABLE {name} ADD COLUMN zz_new TEXT DEFAULT 'x'")
            elif how == "table added":
                db.execute("CREATE TABLE zz_added (id TEXT PRIMARY KEY, data TEXT)")
                db.execute("INSERT INTO zz_added VALUES ('a', '{}')")
            elif how == "table renamed":
                db.execute(f"ALTER TABLE {name} RENAME TO {_quoted(table + '_v2')}")
            elif how == "column dropped" and columns:
                _change_table(db, table, columns, "drop column", draw)
            elif how == "every column text" and columns:
                kept = ", ".join(
                    f"CAST({_quoted(c)} AS TEXT) AS {_quoted(c)}" for c in columns
                )
                db.execute("PRAGMA foreign_keys = OFF")
                db.execute(f"CREATE TABLE zz_new AS SELECT {kept} FROM {name}")
                db.execute(f"DROP TABLE {name}")
                db.execute(f"ALTER TABLE zz_new RENAME TO {name}")
    finally:
        db.close()


def _change(path: Path, how: str, draw: random.Random | None = None) -> None:
    """Change `path` as an app (or a crash) changes one file and nothing else."""
    if how in SKEW_CHANGES:
        _skewed(path, how)
        return
    if how in SCHEMA_CHANGES:
        _migrated(path, how, draw or random.Random(0))
        return
    if how == "deleted":
        path.unlink()
        return
    data = path.read_bytes()
    if how == "cut to half":
        path.write_bytes(data[: len(data) // 2])
    else:
        last = data.rstrip(b"\n").rpartition(b"\n")[2]
        path.write_bytes(data + (b"" if data.endswith(b"\n") else b"\n") + last + b"\n")


def _listing(
    runner: CliRunner, home: Path, state: Path, real: bool = False
) -> dict[str, dict[str, Json]]:
    """`list --json --all` of `home` with `state` as sessdex's folder, rows by app:id;
    `real`: through `python -m sessdex`, whose warm list takes the quick path."""
    from sessdex import databases
    from sessdex.cli import main

    os.environ["SESSDEX_HOME"] = str(state)
    args = ["list", "--json", "--all", "--home", str(home)]
    if real:
        done = subprocess.run(
            [sys.executable, "-m", "sessdex", *args], capture_output=True, text=True
        )
        if done.returncode != 0:
            return {"(list failed)": {"output": done.stderr[-300:]}}
        return {f"{r['app']}:{r['id']}": r for r in json.loads(done.stdout)}
    try:
        result = runner.invoke(main, args)
    finally:
        databases.forget_snapshots()
    if result.exit_code != 0:
        return {"(list failed)": {"output": result.output[-300:]}}
    return {f"{r['app']}:{r['id']}": r for r in json.loads(result.stdout)}


def _mismatches(
    warm: dict[str, dict[str, Json]], cold: dict[str, dict[str, Json]]
) -> list[str]:
    """Each row one listing has and the other lacks, and each field they disagree on."""
    said = [f"{key} only warm" for key in sorted(warm.keys() - cold.keys())]
    said += [f"{key} only cold" for key in sorted(cold.keys() - warm.keys())]
    for key in sorted(warm.keys() & cold.keys()):
        for name in sorted(warm[key].keys() | cold[key].keys()):
            w, c = warm[key].get(name), cold[key].get(name)
            if w != c:
                said.append(f"{key} {name}: warm {w!r}, cold {c!r}")
    return said


def warm_cold(
    name: str,
    original: Path,
    work: Path,
    files: int,
    seed: int = 0,
    quick: bool = False,
    ways: tuple[str, ...] = CHANGES,
    upgrade: bool = False,
) -> list[str]:
    """For up to `files` files of home `name` (drawn from its name, and `seed` where it is
    not 0), one at a time: list warm, change that file alone one of `ways` (`CHANGES`,
    `SKEW_CHANGES`, or `SCHEMA_CHANGES` to databases alone), then
    list warm again and cold (a fresh state), which must agree; each disagreement names
    the file, the row and the field. `quick`: the second warm list is also the real
    command's (`python -m sessdex`, whose warm list re-reads a changed file alone), which
    must agree too. `upgrade`: before the change, a new build of sessdex whose one
    drawn app's reader changed (`indexcarry`: the other apps' rows kept)."""
    draw = random.Random(f"{name}-warm-cold" + (f"-{seed}" if seed else ""))
    home = work / "home"
    copy_home(original, home)
    candidates = sorted(
        str(p.relative_to(home))
        for p in home.rglob("*")
        if p.is_file()
        and not p.is_symlink()
        and not p.name.endswith(("-wal", "-shm"))
        and (ways != SCHEMA_CHANGES or p.read_bytes()[:16] == SQLITE)
    )
    runner = CliRunner()
    saved = os.environ.get("SESSDEX_HOME")
    failures: list[str] = []
    try:
        for relative in draw.sample(candidates, min(files, len(candidates))):
            copy_home(original, home)
            if upgrade:  # the older build lists first
                _upgraded_back()
            state = work / "state-warm"
            if quick:
                settle(home)  # folders the copy just made: not trusted by a scan
            _listing(runner, home, state)
            if quick:  # the same index for the real command's warm list
                shutil.rmtree(work / "state-real", ignore_errors=True)
                shutil.copytree(state, work / "state-real")
            if upgrade:
                _upgrade(work, draw)
            how = draw.choice(ways)
            _change(home / relative, how, draw)
            if quick and how not in SKEW_CHANGES:  # (which would undo a folder's stamp)
                settle(home)  # a user's list a moment later, not this instant
            warm = _listing(runner, home, state)
            cold = _listing(runner, home, work / "state-cold")
            for state_folder in (state, work / "state-cold"):
                shutil.rmtree(state_folder, ignore_errors=True)
            failures += [
                f"{name}: {relative} {how}: {said}" for said in _mismatches(warm, cold)
            ]
            if quick:
                real = _listing(runner, home, work / "state-real", real=True)
                shutil.rmtree(work / "state-real", ignore_errors=True)
                failures += [
                    f"{name}: {relative} {how} (real warm list): "
                    + said.replace("warm", "real warm", 1)
                    for said in _mismatches(real, cold)
                ]
    finally:
        if saved is None:
            os.environ.pop("SESSDEX_HOME", None)
        else:
            os.environ["SESSDEX_HOME"] = saved
        if upgrade:
            _upgraded_back()
    return failures


_BUILT: list[tuple[str, str | None]] = []  # this build: its code, its index name


def _upgrade(work: Path, draw: random.Random) -> None:
    """A new build of sessdex (its own index name) whose copy of one drawn app's reader
    differs from this one's: the next run's new index keeps the other apps' rows."""
    from sessdex import indexcarry, indexfile
    from sessdex.sources import BUILTIN, MODULES

    if not _BUILT:
        _BUILT.append((indexcarry.ROOT, indexfile._STAMP))
    app = draw.choice(BUILTIN)
    build = work / f"build-{app}"
    if not build.exists():
        shutil.copytree(
            _BUILT[0][0], build, ignore=shutil.ignore_patterns("__pycache__")
        )
        with open(build / "sources" / f"{MODULES.get(app, app)}.py", "a") as file:
            file.write("\n# a fix\n")
    indexcarry.ROOT = str(build)
    indexfile._STAMP = indexfile.stamp_of(str(build))


def _upgraded_back() -> None:
    from sessdex import indexcarry, indexfile

    if _BUILT:
        indexcarry.ROOT, indexfile._STAMP = _BUILT.pop()


# --- late: a listed file swapped before the commands that follow the list --------------

LATE_WAYS = (
    "directory",
    "pipe",
    "link loop",
    "broken link",
    "endless link",
    "emptied",
    "newline name",
    "escape name",
    "long name",
    "emptied mid-read",
)
# names a copy, a sync tool or a hostile repository leaves: a line break, a terminal's
# escape (what ls shows as '?'), the longest name most file systems take (255 bytes)
_ODD_NAMES = {
    "newline name": lambda name: name[:1] + "\n" + name[1:],
    "escape name": lambda name: name[:1] + "\x1b]0;owned\x07\x1b[2J" + name[1:],
    "long name": lambda name: (name[:1] + "x" * 255)[: 255 - len(name) + 1] + name[1:],
}


def swap_late(path: Path, way: str) -> Mutant:
    """`path` (a session's file a list just showed) changed one of the `LATE_WAYS`: its
    place taken by a folder, a pipe or a link, cut to nothing, or renamed oddly."""
    if way in _ODD_NAMES:
        odd = path.with_name(_ODD_NAMES[way](path.name))
        path.rename(odd)
        return Mutant(path, f"renamed to {odd.name[:40]!r}", gone=True)
    if way == "emptied mid-read":
        return Mutant(
            path, "cut to nothing after its first read", during=_emptied(path)
        )
    if way == "emptied":  # an app rewriting it, between its truncate and its write
        path.write_bytes(b"")
        return Mutant(path, "cut to nothing", gone=True)
    if way == "directory":
        data = path.read_bytes()[:100]
        path.unlink()
        path.mkdir()
        (path / "inside").write_bytes(data)
        return Mutant(path, "a directory in its place", gone=True)
    mutant = mutate_tree(path, way)
    mutant.gone = True
    return mutant


class _Emptying:
    """A stream of `path` that cuts the file to nothing once its first read is done (an
    app's rewrite, between its truncate and its write), as the reader goes on."""

    def __init__(self, stream: BinaryIO, path: Path) -> None:
        self._stream, self._path, self._cut = stream, path, False

    def _after_read(self) -> None:
        if not self._cut:
            self._cut = True
            with open(self._path, "r+b") as writer:
                writer.truncate(0)

    def __getattr__(self, name: str) -> object:
        value = getattr(self._stream, name)
        if not name.startswith("read") or not callable(value):
            return value

        def reading(*args: object, **kwargs: object) -> object:
            try:
                return value(*args, **kwargs)
            finally:
                self._after_read()

        return reading

    def __iter__(self) -> Iterator[bytes]:
        for line in self._stream:
            yield line
            self._after_read()

    def __enter__(self) -> _Emptying:
        return self

    def __exit__(self, *exc: object) -> None:
        self._stream.close()


def _emptied(path: Path) -> Callable[[], contextlib.AbstractContextManager[None]]:
    @contextlib.contextmanager
    def emptying() -> Iterator[None]:
        from sessdex import files

        opened = files.open_regular

        def open_regular(name: str | os.PathLike[str], buffering: int = -1):  # type: ignore[no-untyped-def]
            stream = opened(name, buffering)
            if os.fspath(name) == str(path) and path.stat().st_size:
                return _Emptying(stream, path)
            return stream

        files.open_regular = open_regular  # type: ignore[assignment]
        try:
            yield
        finally:
            files.open_regular = opened  # type: ignore[assignment]

    return emptying


def run_late_case(name: str, original: Path, case: int, work: Path) -> list[str]:
    """Late case `case` of home `name`: a warm `list --json`, then the file of one
    session it listed (drawn) swapped one of the `LATE_WAYS`, then show, tree, export,
    resume, usage --explain and find on that session, as a user types them next, and
    every command after (`check` with `more`: text and JSON, warm list = cold list)."""
    draw = random.Random(f"{name}-late-{case}")
    home = work / "home"
    copy_home(original, home)
    state = work / f"state-late-{case}"
    first = check(home, state, sessions=0)
    files = sorted(
        {
            (ref, path.partition("#")[0])
            for ref, path in first.listed.items()
            if path.partition("#")[0].startswith(str(home))
            and os.path.isfile(path.partition("#")[0])
            and not os.path.islink(path.partition("#")[0])
        }
    )
    if first.failures or not files:
        shutil.rmtree(state, ignore_errors=True)
        return [f"{name} late case {case}: {said}" for said in first.failures]
    ref, path = draw.choice(files)
    mutant = swap_late(Path(path), draw.choice(LATE_WAYS))
    label = (
        f"{name} late case {case}: {ref} {mutant.path.relative_to(home)}: {mutant.what}"
    )
    outcome = Outcome()
    runner = CliRunner()
    saved = os.environ.get("SESSDEX_HOME")
    os.environ["SESSDEX_HOME"] = str(state)
    at = ["--home", str(home)]
    id_ = ref.partition(":")[2]
    try:
        with (
            deadline(60, label),
            mutant.during() if mutant.during else contextlib.nullcontext(),
        ):
            for command in (
                ["show", ref],
                ["show", ref, "--json"],
                ["tree", ref],
                ["export", ref, "-f", "md"],
                ["export", ref, "-f", "html"],
                ["resume", ref, "--print"],
                ["usage", "session", "--explain", id_],
                ["find", f"id:{id_[:8]}"],
            ):
                _shown(runner, [*command, *at], outcome, state)
    except TimeoutError as error:
        outcome.failures.append(str(error))
    finally:
        from sessdex import databases

        databases.forget_snapshots()
        if saved is None:
            os.environ.pop("SESSDEX_HOME", None)
        else:
            os.environ["SESSDEX_HOME"] = saved
    outcome.failures += check(home, state, more=True).failures
    shutil.rmtree(state, ignore_errors=True)
    return [f"{label}: {failure}" for failure in outcome.failures]


# --- denied: a folder or file its user may not enter or read ---------------------------

# root enters any folder: the commands then run as nobody, where setpriv can make them
AS_NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def can_deny() -> bool:
    """Whether a chmod 000 keeps the commands out here (not root, or root with setpriv)."""
    return os.geteuid() != 0 or shutil.which("setpriv") is not None


def denied_work() -> Path:
    """A new folder the commands' user owns and may pass through (a tmp_path is root's
    alone: this one is in /tmp, which any user may enter)."""
    below = "/tmp" if os.geteuid() == 0 else None
    work = Path(tempfile.mkdtemp(prefix="sessdex-denied-", dir=below))
    work.chmod(0o755)
    return work


def give_to_user(folder: Path) -> None:
    """Everything in `folder` made nobody's where this runs as root (see `as_user`)."""
    if os.geteuid() != 0:
        return
    for path, names, files in os.walk(folder):
        for entry in [path, *(os.path.join(path, n) for n in names + files)]:
            os.lchown(entry, 65534, 65534)


def remove_denied(work: Path) -> None:
    """`work` removed, whatever was chmod 000 in it."""
    for folder, _, _ in os.walk(work):
        with contextlib.suppress(OSError):
            os.chmod(folder, 0o755)
    shutil.rmtree(work, ignore_errors=True)


def as_user(
    work: Path, home: Path, args: list[str]
) -> subprocess.CompletedProcess[str]:
    """`python -m sessdex ARGS --home HOME`, as nobody where this runs as root."""
    prefix = AS_NOBODY if os.geteuid() == 0 else []
    return subprocess.run(
        [*prefix, sys.executable, "-m", "sessdex", *args, "--home", str(home)],
        env={
            "PATH": os.environ["PATH"],
            "SESSDEX_HOME": str(work / "state"),
            "HOME": str(work),
        },
        capture_output=True,
        text=True,
        timeout=120,
    )


def run_denied_case(name: str, original: Path, case: int) -> list[str]:
    """Denied case `case` of home `name`: one folder (two times in three) or file of it
    made one its user may not enter or read (chmod 000, as `sudo` or a backup tool
    leaves one), then list, show, usage daily and doctor --deep, as that user: none may
    end in a traceback or a bug's words, and a session gone is never gone unsaid."""
    draw = random.Random(f"{name}-denied-{case}")
    work = denied_work()
    home = work / "home"
    try:
        copy_home(original, home)
        give_to_user(work)
        entries = sorted(p for p in home.rglob("*") if not p.is_symlink())
        folders = [p for p in entries if p.is_dir()]
        pick = draw.choice(folders if folders and draw.random() < 2 / 3 else entries)
        before = as_user(work, home, ["list", "--json", "--all"])
        listed_before = len(json.loads(before.stdout)) if before.returncode == 0 else 0
        pick.chmod(0)
        label = f"{name} denied case {case}: {pick.relative_to(home)} chmod 000"
        failures: list[str] = []
        said = False
        listed = 0
        commands = [["list", "--json", "--all"], ["usage", "daily", "--json"]]
        commands.append(["doctor", "--deep", "--json"])
        for args in commands:
            done = as_user(work, home, args)
            if done.returncode not in (0, 1) or "Traceback" in done.stderr:
                failures.append(f"{label}: {args[0]}: {done.stderr.strip()[-600:]}")
            elif found := BUG.search(done.stderr):
                failures.append(f"{label}: {args[0]}: said {found.group()!r}")
            elif done.returncode == 0 and args[0] == "list":
                rows = json.loads(done.stdout)
                listed = len(rows)
                for row in rows[:2]:
                    ref = f"{row['app']}:{row['id']}"
                    shown = as_user(work, home, ["show", ref])
                    if shown.returncode not in (0, 1) or "Traceback" in shown.stderr:
                        failures.append(f"{label}: show {ref}: {shown.stderr[-600:]}")
            elif done.returncode == 0 and args[0] == "doctor":
                said = any(
                    app.get(key)
                    for app in json.loads(done.stdout)
                    for key in ("problems", "passed_over", "notes", "skipped_lines")
                )
        if listed < listed_before and not said and not failures:
            failures.append(f"{label}: {listed_before - listed} sessions lost unsaid")
        return failures
    finally:
        remove_denied(work)


# --- fan-out: one session copied into thousands beside it ------------------------------

FANOUT = (
    1600  # copies at the full size: what a long-used home or a swarm of agents makes
)
FANOUT_SMALL = 200  # copies at the size each command's cost at the full size is held to
# a command may cost this many times more at the full size than at the small one (8
# times the copies: linear is 8) before it is said to grow faster than its input
FANOUT_GROWTH = 16
FANOUT_SLACK = 1.0  # CPU seconds below which a command's growth is not judged


def _fan_id(session_id: str, number: int) -> str:
    """`session_id` with its last five characters made `number`, in digits: an id of
    the same length and alphabet (hex, a UUID's, a ULID's, base62) that no other has."""
    return session_id[:-5] + f"{number:05d}"


def _fan_out(home: Path, path: Path, session_id: str, numbers: range) -> int:
    """Copies of the session whose file is `path`, each under an id `_fan_id` made, its
    name and every mention of the id in its bytes changed: the file itself where its
    name holds the id, else the folder above it that is named by the id. How many were
    made (none where neither holds the id)."""
    old = session_id.encode()
    source = next(
        (p for p in [path, *path.parents] if session_id in p.name and p != home), None
    )
    if source is None or home not in source.parents:
        return 0
    for number in numbers:
        new = _fan_id(session_id, number)
        target = source.with_name(source.name.replace(session_id, new))
        if source.is_file():
            target.write_bytes(source.read_bytes().replace(old, new.encode()))
            continue
        for folder, _, names in os.walk(source):
            into = target / Path(folder).relative_to(source)
            into = Path(str(into).replace(session_id, new))
            into.mkdir(parents=True, exist_ok=True)
            for name in names:
                data = (Path(folder) / name).read_bytes()
                (into / name.replace(session_id, new)).write_bytes(
                    data.replace(old, new.encode())
                )
    return len(numbers)


def _databases(home: Path) -> list[Path]:
    """Every SQLite database under `home` (known by its first bytes), links left."""
    found = []
    for folder, _, names in os.walk(home):
        for name in names:
            path = Path(folder, name)
            if path.is_file() and not path.is_symlink():
                with path.open("rb") as handle:
                    if handle.read(16) == SQLITE:
                        found.append(path)
    return sorted(found)


def _folded(db: Path) -> bytes:
    """The bytes of `db` with what its `-wal` held folded in (the `-wal` gone)."""
    connection = sqlite3.connect(db)
    try:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        connection.close()
    return db.read_bytes()


@dataclass
class _Rows:
    """The rows of a database that name one session (a cell, or text inside one), to
    copy: under the id `_fan_id` makes, a session of its own; with `messages`, the
    session's own row left alone and the rest copied into it, the session grown. A
    copied row's text key is made new, and each mention of it in the rows copied with
    it, so that a message's parts follow their copy; an integer key is SQLite's."""

    session_id: str
    messages: bool
    tables: list[tuple[str, list[str], list[int], list[tuple[object, ...]]]] = field(
        default_factory=list
    )
    keys: set[str] = field(default_factory=set)

    @classmethod
    def find(
        cls, connection: sqlite3.Connection, session_id: str, *, messages: bool
    ) -> _Rows:
        found = cls(session_id, messages)
        schema = connection.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'table'"
        ).fetchall()
        virtual = [n for n, sql in schema if (sql or "").upper().startswith("CREATE V")]
        for table, _ in schema:
            # a full-text index's own tables follow its triggers, not a copy
            if table.startswith("sqlite_") or table in virtual:
                continue
            if any(table.startswith(f"{v}_") for v in virtual):
                continue
            info = connection.execute(f"PRAGMA table_info({_quoted(table)})").fetchall()
            columns = [row[1] for row in info]
            where = " OR ".join(
                f"instr(CAST({_quoted(c)} AS TEXT), ?) > 0" for c in columns
            )
            rows = connection.execute(
                f"SELECT * FROM {_quoted(table)} WHERE {where}",
                [session_id] * len(columns),
            ).fetchall()
            primary = [row[5] for row in info]
            alone = [n for n, k in enumerate(primary) if k] if sum(primary) == 1 else []
            if alone and any(row[alone[0]] == session_id for row in rows):
                # the sessions' table: the session's own row, or (growing it) none
                rows = [r for r in rows if r[alone[0]] == session_id and not messages]
            if alone and info[alone[0]][2].upper() != "INTEGER":
                found.keys |= {str(r[alone[0]]) for r in rows} - {session_id}
            if rows:
                found.tables.append((table, columns, primary, rows))
        return found

    def copy(self, connection: sqlite3.Connection, number: int) -> int:
        """Copy number `number` of the rows, written (not committed); how many."""
        new = {k: f"{k}-{number}" for k in self.keys}
        if not self.messages:
            new[self.session_id] = _fan_id(self.session_id, number)
        # a short key (an "a", a "1") is made new where it is a key, and only there
        named = sorted((k for k in new if len(k) >= 8), key=len, reverse=True)
        pattern = re.compile("|".join(map(re.escape, named)) or "(?!)")
        binary = re.compile(pattern.pattern.encode())
        made = 0
        for table, columns, primary, rows in self.tables:
            single = sum(primary) == 1
            time_of = [bool(_TIME_KEY.search(c)) for c in columns]
            for row in rows:
                cells: list[object] = []
                for n, (cell, key) in enumerate(zip(row, primary, strict=True)):
                    if isinstance(cell, str):
                        cell = new.get(cell) or pattern.sub(
                            lambda m: new[m.group()], cell
                        )
                    elif isinstance(cell, bytes):
                        cell = binary.sub(
                            lambda m: new[m.group().decode()].encode(), cell
                        )
                    elif isinstance(cell, int) and key and single:
                        cell = None  # an integer key: SQLite draws the next
                    elif self.messages and isinstance(cell, int) and key:
                        cell += number * 1_000_000  # a `seq` beside the session's id
                    elif self.messages and isinstance(cell, int | float) and time_of[n]:
                        # a message added later is stamped later (s, ms or us)
                        cell += number * (cell // 10**9 if cell > 10**11 else 1)
                    cells.append(cell)
                names = ", ".join(map(_quoted, columns))
                marks = ", ".join("?" * len(cells))
                made += connection.execute(
                    f"INSERT OR IGNORE INTO {_quoted(table)} ({names}) VALUES ({marks})",
                    cells,
                ).rowcount
        return made


def _writable(db: Path, timeout: float = 5.0) -> sqlite3.Connection:
    """A connection to write a copy of an app's database, with the functions newer
    SQLite has that its triggers may call (Codex's `octet_length`)."""
    connection = sqlite3.connect(db, timeout=timeout)
    connection.create_function(
        "octet_length",
        1,
        lambda value: (
            len(value.encode("utf-8", "surrogatepass"))
            if isinstance(value, str)
            else len(value)
            if isinstance(value, bytes)
            else None
        ),
        deterministic=True,
    )
    return connection


def _fan_rows(db: Path, session_id: str, numbers: range, *, messages: bool) -> int:
    """`_Rows` of `session_id` in `db` copied once per number; how many rows made."""
    connection = _writable(db)
    try:
        rows = _Rows.find(connection, session_id, messages=messages)
        made = sum(rows.copy(connection, number) for number in numbers)
        connection.commit()
    finally:
        connection.close()
    return made


def _timed(
    runner: CliRunner, args: list[str], outcome: Outcome, state: Path
) -> tuple[float, str | None]:
    """`_invoke`, and the CPU seconds it took (this process's: what the other users of
    a shared machine take does not count)."""
    started = time.process_time()
    said = _invoke(runner, args, outcome, state)
    return time.process_time() - started, said


def _fan_commands(ref: str, copy: str, lead: str) -> list[list[str]]:
    return [
        ["list", "--json", "--all"],
        ["list", "--json", "--all"],  # again: warm
        ["list", "--all"],
        ["tree", lead, "--json"],
        ["show", copy, "--json"],
        ["find", "--json", f"id:{copy.partition(':')[2][:12]}"],
        ["usage", "daily", "--json"],
        ["usage", "session", "--json"],
        ["usage", "project", "--json"],
        ["watch", "--once", "--json"],
        ["doctor", "--deep", "--json"],
    ]


def run_fanout_case(
    name: str,
    original: Path,
    case: int,
    work: Path,
    count: int = FANOUT,
    small: int = FANOUT_SMALL,
    spent_said: list[str] | None = None,
) -> list[str]:
    """Fan-out case `case` of home `name`: one listed session (drawn; a sub-agent half
    the time, where the home has one: thousands under one lead) copied `small` times
    beside itself, then `count` times, each under a new id. At each size list (cold,
    warm, text), tree of its lead, show and find of a copy, usage, watch and doctor
    run: none may fail, none may cost more than `FANOUT_GROWTH` times what it cost at
    the small size, and the copies each size lists grow as the copies do. A session a
    database keeps is copied in its rows (`_fan_rows`), or grown there, by the case's
    number. `spent_said`, where given, gets each command's CPU at both sizes."""
    draw = random.Random(f"{name}-fanout-{case}")
    home = work / "home"
    copy_home(original, home)
    first = check(home, work / "state-fan-base", sessions=0)
    shutil.rmtree(work / "state-fan-base", ignore_errors=True)
    if first.failures:
        return [f"{name} fanout case {case}: {said}" for said in first.failures]
    rows = [
        (ref, Path(path.partition("#")[0]))
        for ref, path in first.listed.items()
        if len(ref.partition(":")[2]) >= 8
        and ref.partition(":")[2] in path
        and path.partition("#")[0].startswith(str(home))
    ]
    if not rows:
        return []  # no session here is named by its id: no copy would be another
    ids = {ref.partition(":")[2] for ref in first.listed}
    # a session kept in a database's rows: cases 0, 1 and 2 of every four copy it
    # (a lead, or one on its own), grow it (its messages copied into it) or copy a
    # sub-agent of one (thousands under one lead)
    kept = [(ref, path) for ref, path in rows if path in _databases(path.parent)]
    way = ("sessions", "messages", "sub-agents", "files")[case % 4] if kept else "files"
    if way != "files":
        rows = kept
    subagents = [
        (ref, path)
        for ref, path in rows
        if ref in first.parents
        or any(i in str(path.parent) for i in ids - {ref.partition(":")[2]})
    ]
    if way == "files":
        ref, path = draw.choice(
            subagents if subagents and draw.random() < 0.5 else rows
        )
    else:
        ref, path = draw.choice(
            subagents if subagents and way == "sub-agents" else rows
        )
    app, _, session_id = ref.partition(":")
    lead = next(
        (
            f"{app}:{i}"
            for i in sorted(ids)
            if i != session_id
            and (i in str(path.parent) or first.parents.get(ref) == i)
        ),
        ref,
    )
    label = f"{name} fanout case {case}: {ref} ({path.relative_to(home)}, {way})"
    failures: list[str] = []
    runner = CliRunner()
    saved = os.environ.get("SESSDEX_HOME")
    costs: list[list[float]] = []
    gains: list[int] = []
    copy = ref if way == "messages" else f"{app}:{_fan_id(session_id, 1)}"
    # a session grown is grown from its first rows at each size, not from its copies
    pristine = {db: _folded(db) for db in _databases(home) if way == "messages"}
    try:
        for size, numbers in (
            (small, range(1, small + 1)),
            (count, range(small + 1, count + 1)),
        ):
            made = 0 if way != "files" else _fan_out(home, path, session_id, numbers)
            if way == "files" and not made:
                return []
            # the rows a database keeps of each copy too (Codex's state beside its files)
            for db in _databases(home):
                if db in pristine:
                    db.write_bytes(pristine[db])
                    numbers = range(1, size + 1)
                made += _fan_rows(db, session_id, numbers, messages=way == "messages")
            if not made:
                return []
            state = work / f"state-fan-{size}"
            os.environ["SESSDEX_HOME"] = str(state)
            outcome = Outcome()
            spent: list[float] = []
            with deadline(240, label):
                for command in _fan_commands(ref, copy, lead):
                    took, said = _timed(
                        runner, [*command, "--home", str(home)], outcome, state
                    )
                    spent.append(took)
                    if command[0] == "list" and len(command) == 3 and said:
                        listed = {f"{r['app']}:{r['id']}" for r in json.loads(said)}
                        lost = sorted(set(first.listed) - listed)
                        if lost:
                            failures.append(f"{label}: {size} copies: lost {lost[:3]}")
                        if not gains or len(gains) < len(costs) + 1:
                            gains.append(len(listed) - len(first.listed))
            from sessdex import databases

            databases.forget_snapshots()
            shutil.rmtree(state, ignore_errors=True)
            failures += [f"{label}: {size} copies: {said}" for said in outcome.failures]
            costs.append(spent)
    except TimeoutError as error:
        failures.append(str(error))
    finally:
        if saved is None:
            os.environ.pop("SESSDEX_HOME", None)
        else:
            os.environ["SESSDEX_HOME"] = saved
    if len(costs) == 2:
        for command, few, many in zip(
            _fan_commands(ref, copy, lead), *costs, strict=True
        ):
            if spent_said is not None:
                spent_said.append(
                    f"{label}: {' '.join(command[:2])}: {few:.2f} s -> {many:.2f} s "
                    f"CPU, x{many / max(few, 0.01):.1f}"
                )
            if many > FANOUT_SLACK and many > FANOUT_GROWTH * max(few, 0.05):
                failures.append(
                    f"{label}: {' '.join(command[:2])}: {few:.2f} s CPU at {small} "
                    f"copies, {many:.2f} s at {count}"
                )
    if len(gains) == 2 and gains[1] != gains[0] * count // small:
        failures.append(
            f"{label}: {small} copies listed {gains[0]} more, {count} listed {gains[1]}"
        )
    return failures


# --- written while read: a file its app appends to, a database it inserts into -------

WRITES = 400  # lines (or copies of a session's rows) a writer adds at most


def _append_lines(path: Path, stop: threading.Event, draw: random.Random) -> None:
    """Append the file's own last lines again, cut anywhere into pieces a few ms
    apart, as its app writes them, until `stop` or `WRITES` lines; then end the line."""
    lines = path.read_bytes().rstrip(b"\n").split(b"\n")[-3:]
    payload = b"".join(line + b"\n" for line in lines)
    at = written = 0
    with path.open("ab") as writer:
        while not stop.is_set() and written < WRITES:
            piece = payload[at : at + draw.randint(1, max(1, len(payload) // 2))]
            writer.write(piece)
            writer.flush()
            written += piece.count(b"\n")
            at = (at + len(piece)) % len(payload)
            time.sleep(draw.uniform(0.0005, 0.004))
        if at:  # the last line whole, as its app leaves it
            writer.write(payload[at:].partition(b"\n")[0] + b"\n")


def _insert_rows(
    path: Path, session_id: str, stop: threading.Event, draw: random.Random, wal: bool
) -> None:
    """Copy the session's messages into it again, one transaction a copy a few ms
    apart, as its app inserts them, until `stop` or `WRITES` copies; with `wal`, in
    WAL mode (a `-wal` beside it that grows as sessdex copies it), as most apps write."""
    connection = _writable(path)
    try:
        if wal:
            connection.execute("PRAGMA journal_mode = WAL")
        rows = _Rows.find(connection, session_id, messages=True)
        for number in range(1, WRITES + 1):
            if stop.is_set():
                break
            rows.copy(connection, 90_000 + number)
            connection.commit()
            time.sleep(draw.uniform(0.0005, 0.004))
    finally:
        connection.close()


def _as_seen(
    runner: CliRunner, args: list[str], outcome: Outcome, state: Path
) -> str | None:
    from sessdex import databases

    os.environ["SESSDEX_HOME"] = str(state)
    try:
        return _invoke(runner, args, outcome, state)
    finally:
        databases.forget_snapshots()


def _fields_apart(one: Json, other: Json) -> Json:
    """The fields of a row of JSON output that another row says otherwise."""
    if not isinstance(one, dict) or not isinstance(other, dict):
        return one
    return {k: v for k, v in one.items() if other.get(k) != v}


def run_writing_case(name: str, original: Path, case: int, work: Path) -> list[str]:
    """Writing case `case` of home `name`: one listed session's file appended to (JSON
    lines, cut anywhere) or its database inserted into (its messages copied into it)
    by a thread WHILE list, show, tree and usage read it, each run again as the
    writes go on. None may fail; a session listed during the writes is listed after
    them; and after them warm and cold must agree. (What show said during them is no
    beginning of what it says after: a copied line re-branches a tree of entries, as
    pi's, and a first event may sum the whole file, as Vibe's.)"""
    draw = random.Random(f"{name}-writing-{case}")
    home = work / "home"
    copy_home(original, home)
    first = check(home, work / "state-writing-base", sessions=0)
    shutil.rmtree(work / "state-writing-base", ignore_errors=True)
    if first.failures:
        return [f"{name} writing case {case}: {said}" for said in first.failures]
    rows = []
    for ref, path in first.listed.items():
        file = Path(path.partition("#")[0])
        if not file.is_file() or home not in file.parents:
            continue
        data = file.read_bytes()
        if data.startswith(SQLITE) or (_lines(data) and data.endswith(b"\n")):
            rows.append((ref, file))
    if not rows:
        return []
    ref, path = draw.choice(rows)
    database = path.read_bytes().startswith(SQLITE)
    wal = database and draw.random() < 0.75
    how = "in WAL mode" if wal else "as journalled" if database else ""
    label = (
        f"{name} writing case {case}: {ref} ({path.relative_to(home)}, "
        f"{f'rows inserted {how}' if database else 'lines appended'})"
    )
    at = ["--home", str(home)]
    commands = [
        ["list", "--json", "--all"],
        ["show", ref, "--json"],
        ["tree", ref, "--json"],
        ["usage", "daily", "--json"],
        ["usage", "session", "--json"],
    ]
    runner = CliRunner()
    outcome = Outcome()
    warm = work / f"state-writing-{case}"
    stop = threading.Event()
    errors: list[BaseException] = []

    def write() -> None:
        try:
            if database:
                _insert_rows(
                    path, ref.partition(":")[2], stop, random.Random(case), wal
                )
            else:
                _append_lines(path, stop, random.Random(case))
        except BaseException as error:  # the writer's own failure, said below
            errors.append(error)

    saved = os.environ.get("SESSDEX_HOME")
    seen: list[tuple[int, str]] = []  # during the writes: (command, what it said)
    writer = threading.Thread(target=write, daemon=True)
    settle(home)  # the real command's warm list takes its quick path
    try:
        with deadline(240, label):
            writer.start()
            for _ in range(2):
                for number, command in enumerate(commands):
                    said = _as_seen(runner, [*command, *at], outcome, warm)
                    if said is not None:
                        seen.append((number, said))
                quick = _listing(runner, home, warm, real=True)
                seen.append((0, json.dumps(list(quick.values()))))
            stop.set()
            writer.join()
            settle(home)  # a user's list a moment after the app wrote
            real = _listing(runner, home, warm, real=True)
            after = [_as_seen(runner, [*c, *at], outcome, warm) for c in commands]
            cold = work / f"state-writing-{case}-cold"
            fresh = [_as_seen(runner, [*c, *at], outcome, cold) for c in commands]
            shutil.rmtree(cold, ignore_errors=True)
    except TimeoutError as error:
        outcome.failures.append(str(error))
    finally:
        stop.set()
        writer.join()
        if saved is None:
            os.environ.pop("SESSDEX_HOME", None)
        else:
            os.environ["SESSDEX_HOME"] = saved
        shutil.rmtree(warm, ignore_errors=True)
    failures = [f"{label}: {said}" for said in outcome.failures]
    failures += [f"{label}: the writer failed: {error!r}" for error in errors]
    if outcome.failures or errors:
        return failures
    for command, late, cold_said in zip(commands, after, fresh, strict=True):
        if late != cold_said:
            apart = [
                f"  warm: {_fields_apart(a, b)}\n  cold: {_fields_apart(b, a)}"
                for a, b in zip(
                    json.loads(late or "[]"),
                    json.loads(cold_said or "[]"),
                    strict=False,
                )
                if a != b
            ]
            failures.append(
                f"{label}: {' '.join(command[:2])} warm and cold differ after the"
                f" writes:\n{chr(10).join(apart[:3])}"
            )
    rows = {f"{r['app']}:{r['id']}": r for r in json.loads(fresh[0] or "[]")}
    failures += [
        f"{label}: after the writes (real warm list): {said}"
        for said in _mismatches(real, rows)
    ]
    listed = set(rows)
    for number, said in seen:
        if number == 0:
            gone = {f"{r['app']}:{r['id']}" for r in json.loads(said)} - listed
            if gone:
                failures.append(
                    f"{label}: listed during the writes only: {sorted(gone)[:3]}"
                )
    return failures


# --- linked: a home, or a folder of it, reached through a link --------------------------

# where a user keeps a home or an app's folder elsewhere and links it back: a home on
# another disk (`/home/alex` -> `/data/alex`), dotfiles (`~/.claude` -> `~/dotfiles/
# claude`, stow writes the link relative), a project folder moved to a bigger disk, a
# link to a link (a synced folder's mount); "moved warm": the index built before the
# move, and "grown": a session file there then appended to through the link
LINKED_WAYS = (
    "home a link",
    "app folder a link",
    "folder a link",
    "relative link",
    "dotfiles link",
    "link to a link",
    "moved warm",
    "moved warm, grown",
)


def _holds_files(folder: Path, *, directly: bool) -> bool:
    found = folder.iterdir() if directly else folder.rglob("*")
    return any(p.is_file() and not p.is_symlink() for p in found)


def link_elsewhere(home: Path, disk: Path, way: str, draw: random.Random) -> str | None:
    """Move a folder of `home` (or `home` itself) under `disk` and link it back one of
    the `LINKED_WAYS`; what was done, or None where the home has no such folder."""
    disk.mkdir(parents=True)
    if way == "home a link":
        home.rename(disk / "home")
        home.symlink_to(disk / "home")
        return "the home a link to another disk"
    deep = way == "folder a link"
    folders = sorted(
        p
        for p in (home.rglob("*") if deep else home.iterdir())
        if p.is_dir()
        and not p.is_symlink()
        and (len(p.relative_to(home).parts) > 1 or not deep)
        and _holds_files(p, directly=deep)
    )
    if not folders:
        return None
    folder = draw.choice(folders)
    moved = disk / "moved"
    if way == "dotfiles link":  # kept in the home itself, as stow keeps it
        moved = home / "dotfiles" / folder.name.lstrip(".")
        moved.parent.mkdir(exist_ok=True)
        disk.rmdir()
        disk.symlink_to(moved)  # where "grown" and the clean-up find it
    folder.rename(moved)
    target: Path = moved
    if way == "link to a link":
        (disk / "hop").symlink_to(moved)
        target = disk / "hop"
    if way in ("relative link", "dotfiles link"):
        folder.symlink_to(os.path.relpath(moved, folder.parent))
    else:
        folder.symlink_to(target)
    return f"{folder.relative_to(home)} moved, linked back ({way})"


def run_linked_case(name: str, original: Path, case: int, work: Path) -> list[str]:
    """Linked case `case` of home `name`: the home, or one folder of it, moved to another
    disk and linked back one of the `LINKED_WAYS`; then every command (`check` with
    `more`: text and JSON, warm list = cold list), whose list must be the unlinked
    home's, row for row, and which write nothing in the home or where its links lead."""
    draw = random.Random(f"{name}-linked-{case}")
    home, disk = work / "home", work / "disk"
    runner = CliRunner()
    saved = os.environ.get("SESSDEX_HOME")
    base_file = work / "linked-base.json"
    try:
        for link in (home, disk):
            if link.is_symlink():
                link.unlink()
        shutil.rmtree(disk, ignore_errors=True)
        copy_home(original, home)
        if not base_file.exists():
            base_file.write_text(
                json.dumps(_listing(runner, home, work / "state-linked-base"))
            )
            shutil.rmtree(work / "state-linked-base", ignore_errors=True)
        base: dict[str, dict[str, Json]] = json.loads(base_file.read_text())
        way = draw.choice(LINKED_WAYS)
        state, real = work / f"state-linked-{case}", work / f"state-linked-{case}-real"
        warm = way.startswith("moved warm")
        if warm:
            settle(home)
            _listing(runner, home, state)
            shutil.copytree(state, real)
        what = link_elsewhere(home, disk, way, draw)
        if what is None:
            return []
        if way.endswith("grown"):
            grown = sorted(p for p in (disk / "moved").rglob("*") if p.is_file())
            path = draw.choice(grown)
            _change(path, "its last line again")
            what += f", {path.relative_to(disk)} its last line again"
        settle(home)
        settle(disk)
        label = f"{name} linked case {case}: {what}"
        before = home_stamps(home, through_links=True)
        # the real command's warm list (the quick path) first, while the index knows
        # the home only as it was before the move
        quick = _listing(runner, home, real, real=True) if warm else None
        failures = check(home, state, more=True).failures
        cold = _listing(runner, home, work / f"state-linked-{case}-cold")
        if quick is None:  # the quick path over an index built through the links
            quick = _listing(runner, home, state, real=True)
        failures += [
            f"real warm list: {s.replace('warm', 'real warm', 1)}"
            for s in _mismatches(quick, cold)
        ]
        if not way.endswith("grown"):
            failures += [
                f"list --json, not as unlinked: {s}" for s in _mismatches(cold, base)
            ]
        after = home_stamps(home, through_links=True)
        failures += [
            f"{path} {'made' if path not in before else 'gone' if path not in after else 'changed'} in the home"
            for path in sorted(before.keys() ^ after.keys())
            + [p for p in sorted(before.keys() & after.keys()) if before[p] != after[p]]
        ]
        for folder in (state, real, work / f"state-linked-{case}-cold"):
            shutil.rmtree(folder, ignore_errors=True)
        return [f"{label}: {failure}" for failure in failures]
    finally:
        if saved is None:
            os.environ.pop("SESSDEX_HOME", None)
        else:
            os.environ["SESSDEX_HOME"] = saved
        for link in (home, disk):
            if link.is_symlink():
                link.unlink()
        shutil.rmtree(disk, ignore_errors=True)


# --- cased: a session beside it whose id differs from its own only in case -------------


def run_cased_case(name: str, original: Path, case: int, work: Path) -> list[str]:
    """Cased case `case` of home `name`: one listed session's file copied beside it
    with its id in the other case (in its name and its text: a copy a tool put in upper
    case, an app's mixed-case ids), then every command (`check` with `more`), and show,
    tree, export and usage --explain on each id typed whole, which names its own
    session: never "matches 2 sessions" of an id typed to its end."""
    draw = random.Random(f"{name}-cased-{case}")
    home = work / "home"
    copy_home(original, home)
    state = work / f"state-cased-{case}"
    first = check(home, state, sessions=0)
    shutil.rmtree(state, ignore_errors=True)
    files = sorted(
        (ref, Path(path))
        for ref, path in first.listed.items()
        if "#" not in path
        and path.startswith(str(home))
        and os.path.isfile(path)
        and not os.path.islink(path)
        and (id_ := ref.partition(":")[2]) != id_.swapcase()
        and id_ in os.path.basename(path)
    )
    if first.failures or not files:
        return [f"{name} cased case {case}: {said}" for said in first.failures]
    ref, path = draw.choice(files)
    app, _, id_ = ref.partition(":")
    other = id_.swapcase()
    copy = path.with_name(path.name.replace(id_, other))
    copy.write_bytes(path.read_bytes().replace(id_.encode(), other.encode()))
    label = f"{name} cased case {case}: {copy.relative_to(home)} beside {path.name}"
    outcome = check(home, state, more=True)
    failures = list(outcome.failures)
    if f"{app}:{other}" in outcome.listed:
        runner = CliRunner()
        saved = os.environ.get("SESSDEX_HOME")
        os.environ["SESSDEX_HOME"] = str(state)
        try:
            for typed in (id_, other, f"{app}:{other}"):
                for command in (
                    ["show", typed],
                    ["tree", typed],
                    ["export", typed, "-f", "md"],
                    ["usage", "session", "--explain", typed.rpartition(":")[2]],
                ):
                    from sessdex.cli import main

                    result = runner.invoke(main, [*command, "--home", str(home)])
                    if "matches" in result.stderr and result.exit_code == 1:
                        said = result.stderr.strip().splitlines()[0][-200:]
                        failures.append(f"sessdex {' '.join(command)}: {said}")
        finally:
            from sessdex import databases

            databases.forget_snapshots()
            if saved is None:
                os.environ.pop("SESSDEX_HOME", None)
            else:
                os.environ["SESSDEX_HOME"] = saved
    shutil.rmtree(state, ignore_errors=True)
    return [f"{label}: {failure}" for failure in failures]
