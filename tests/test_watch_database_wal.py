"""`watch` while an app writes its SQLite database in WAL mode, many times a second.

Each write changes only the database's -wal, which no session follows: a notification
naming it may say a new session is in the database, so the board lists sessions again, at
most once a second. It listed the whole home's (every app's files looked at again, 26 ms of
CPU on a home of 1000 sessions, bench/bench_watch_wal.py); now only the apps whose followed
database it is, and a new session in it still shows within a second.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest

from sessdex import api, live, live_feeds
from sessdex.sources import Home

DATA = Path(__file__).parent / "data"
DATABASE = Path(".local/share/opencode/opencode.db")
COPIED = "ses_dd47cef52ffe38O37iH1Ffe05b"
NEW = "ses_dd47ffff0ffeNewSessionAAAA"


class _Writes:
    """The notifications of an app writing its database 20 times a second: each names
    its -wal. `begin` is called once, `at` seconds after the first wait."""

    backend = "watchfiles"
    notifying = True
    wal: Path
    at = 1.2
    begin: Any = None
    also: ClassVar[set[Path]] = set()  # named once by the next notification

    def __init__(self, notify: bool | None = None) -> None:
        self.first: float | None = None

    def watch(self, folders: object) -> None:
        pass

    def wait(self, timeout: float) -> bool:
        time.sleep(min(timeout, 0.05))
        return True

    def changed(self) -> set[Path]:
        now = time.monotonic()
        self.first = self.first or now
        if _Writes.begin is not None and now - self.first >= _Writes.at:
            _Writes.begin()
            _Writes.begin = None
        named, _Writes.also = {_Writes.wal, *_Writes.also}, set()
        return named

    def close(self) -> None:
        pass


def _writing(tmp_path: Path) -> tuple[Path, sqlite3.Connection]:
    """A copy of the OpenCode home, and the app writing its database in WAL mode."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "opencode" / "home", home, symlinks=True)
    writer = sqlite3.connect(home / DATABASE, isolation_level=None)
    writer.execute("PRAGMA journal_mode=WAL")
    return home, writer


def _watch(
    monkeypatch: pytest.MonkeyPatch,
    home: Path,
    writer: sqlite3.Connection,
    begin: Callable[[], None],
    at: float = _Writes.at,
    limit: int | None = None,
    duration: float = 3.5,
) -> list[tuple[float, set[str]]]:
    """What `watch` shows for `duration` s (when, and the ids on the board) while
    `writer` writes; `begin` runs `at` seconds in. `writer` is closed after."""
    _Writes.wal = Path(f"{home / DATABASE}-wal")
    monkeypatch.setattr(_Writes, "begin", begin)
    monkeypatch.setattr(_Writes, "at", at)
    monkeypatch.setattr(live, "Waiter", _Writes)
    shown: list[tuple[float, set[str]]] = []
    try:
        for rows in api.watch_sessions(
            Home.at(home), since="100000d", limit=limit, duration=duration, notify=True
        ):
            shown.append((time.monotonic(), {r.session.id for r in rows}))
    finally:
        writer.close()
    return shown


def _inserting(writer: sqlite3.Connection, inserted: list[float]) -> Callable[[], None]:
    """What inserts a new OpenCode session (NEW, written now), noting when."""

    def new_session() -> None:
        now_ms = int(time.time() * 1000)
        columns = [row[1] for row in writer.execute("PRAGMA table_info(session)")]
        row = dict(
            zip(
                columns,
                writer.execute(
                    "SELECT * FROM session WHERE id = ?", (COPIED,)
                ).fetchone(),
                strict=True,
            )
        )
        row |= {"id": NEW, "slug": "new-one", "title": "A new one"}
        row |= {"time_created": now_ms, "time_updated": now_ms}
        marks = ",".join("?" * len(row))
        writer.execute(
            f"INSERT INTO session ({','.join(row)}) VALUES ({marks})",
            list(row.values()),
        )
        inserted.append(time.monotonic())

    return new_session


def _counted(monkeypatch: pytest.MonkeyPatch) -> list[Sequence[str]]:
    """The apps of each listing `watch` asks for from now on (() for every app)."""
    listed: list[Sequence[str]] = []
    real = api.list_sessions

    def counted(*args: Any, **kwargs: Any) -> Any:
        listed.append(tuple(kwargs.get("apps") or ()))
        return real(*args, **kwargs)

    monkeypatch.setattr(api, "list_sessions", counted)
    return listed


def test_a_database_written_many_times_a_second_relists_only_its_app(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, writer = _writing(tmp_path)
    inserted: list[float] = []

    listed = _counted(monkeypatch)
    shown = _watch(monkeypatch, home, writer, _inserting(writer, inserted))
    assert inserted
    seen = next(at for at, ids in shown if NEW in ids)
    assert seen - inserted[0] <= 1.5  # a second, and a board's tick
    everyone = [apps for apps in listed if apps != ("opencode",)]
    assert len(everyone) == 1, listed  # the first listing alone is the whole home's
    assert listed.count(("opencode",)) >= 2


CLAUDE = DATA / "claude" / "home" / ".claude" / "projects" / "-home-dev-shop"
OLD_CLAUDE = "11111111-1111-4111-8111-111111111111"
NEW_CLAUDE = "44444444-4444-4444-8444-444444444444"


def test_another_apps_new_session_shows_while_a_database_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Claude Code session begun while OpenCode writes its database 20 times a second:
    its new file is named once, between two relists of OpenCode alone. It showed only at
    the next full rescan (30 s), as a new file within a second of a relist was dropped."""
    home, writer = _writing(tmp_path)
    projects = home / ".claude" / "projects" / "-home-dev-shop"
    projects.mkdir(parents=True)
    begun: list[float] = []

    def new_claude_session() -> None:
        text = (CLAUDE / f"{OLD_CLAUDE}.jsonl").read_text(encoding="utf-8")
        now = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
        text = text.replace(OLD_CLAUDE, NEW_CLAUDE).replace("2026-11-20T10", now[:13])
        path = projects / f"{NEW_CLAUDE}.jsonl"
        path.write_text(text, encoding="utf-8")
        _Writes.also = {path}
        begun.append(time.monotonic())

    shown = _watch(monkeypatch, home, writer, new_claude_session, at=1.3)
    assert begun
    seen = [at for at, ids in shown if NEW_CLAUDE in ids]
    assert seen and seen[0] - begun[0] <= 1.5, "not shown within a second and a tick"


def _with_claude(home: Path) -> None:
    """Three Claude Code sessions beside OpenCode's: of 20, 21 and 22 November, older
    than its database's three (30 November), newer than its three others."""
    shutil.copytree(CLAUDE, home / ".claude" / "projects" / CLAUDE.name)


def _listed(home: Path, limit: int) -> list[str]:
    """The ids a listing of every app gives now, as `watch -n <limit>` follows them."""
    listing = api.list_sessions(Home.at(home), since="100000d", limit=limit)
    return [session.id for session in listing.sessions()]


def test_with_a_limit_a_database_written_many_times_a_second_relists_only_its_app(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`watch -n 5`, as the CLI always gives a limit (50 unless told): each write
    relisted every app's sessions once a second (1000 sessions, OpenCode written 20
    times a second: 5.9 % of a core, bench/bench_watch_wal.py), as the sessions
    shown depend on every app's. Now only OpenCode's, the others' kept: a new session
    in the database takes the last place of the five, as a listing of all says."""
    home, writer = _writing(tmp_path)
    _with_claude(home)
    before = _listed(home, 5)
    assert "22222222-2222-4222-8222-222222222222" in before
    inserted: list[float] = []
    listed = _counted(monkeypatch)
    shown = _watch(monkeypatch, home, writer, _inserting(writer, inserted), limit=5)
    everyone = [apps for apps in listed if apps != ("opencode",)]
    assert len(everyone) == 1, listed  # the first listing alone is the whole home's
    assert listed.count(("opencode",)) >= 2
    assert inserted
    seen = next(at for at, ids in shown if NEW in ids)
    assert seen - inserted[0] <= 1.5  # a second, and a board's tick
    assert shown[-1][1] == set(_listed(home, 5))
    assert "22222222-2222-4222-8222-222222222222" not in shown[-1][1]


def test_with_a_limit_a_session_gone_from_the_database_lets_in_one_left_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Listing OpenCode's sessions alone cannot tell what takes the place of one deleted
    from its database, where the five shown left others out (a Claude Code session of
    20 November): every app is listed again, and the board shows it within a second."""
    home, writer = _writing(tmp_path)
    _with_claude(home)
    gone = "ses_dd47cc97dffecuMitBkETrvX9v"
    assert OLD_CLAUDE not in _listed(home, 5)
    deleted: list[float] = []

    def delete() -> None:
        writer.execute("DELETE FROM session WHERE id = ?", (gone,))
        deleted.append(time.monotonic())

    shown = _watch(monkeypatch, home, writer, delete, limit=5)
    assert deleted
    seen = next(at for at, ids in shown if OLD_CLAUDE in ids)
    assert seen - deleted[0] <= 1.5
    assert shown[-1][1] == set(_listed(home, 5))
    assert gone not in shown[-1][1]


def test_a_database_written_many_times_a_second_is_read_at_its_pace_not_each_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each write woke the board, which polled every session it follows, 20 times a
    second, though a session kept in a database is read again only every STORE_SECONDS:
    now such writes wait for the poll at which one may be read (or the next step). A
    prompt written into the database still shows within STORE_SECONDS (its session's
    age on the board is the prompt's)."""
    home, writer = _writing(tmp_path)
    part = writer.execute(
        "SELECT id FROM part WHERE session_id = ? LIMIT 1", (COPIED,)
    ).fetchone()[0]
    # written in WAL mode before: its first write makes a new WAL, whose database file
    # a snapshot takes for one a checkpoint rewrote (copied again only 10 s on)
    writer.execute("UPDATE part SET time_updated = 0 WHERE id = ?", (part,))
    prompted: list[tuple[float, float]] = []  # when (monotonic), and its time

    def prompt() -> None:  # a new prompt, as OpenCode writes it: a message, its text
        now_ms = int(time.time() * 1000)
        data = {"role": "user", "time": {"created": now_ms}, "agent": "build"}
        writer.execute(
            "INSERT INTO message VALUES (?, ?, ?, ?, ?)",
            (
                "msg_ffffffff0001NewPromptAAAAA",
                COPIED,
                now_ms,
                now_ms,
                json.dumps(data),
            ),
        )
        text = {"type": "text", "text": "Run the tests once more."}
        writer.execute(
            "INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
            ("prt_ffffffff0001NewPromptAAAAA", "msg_ffffffff0001NewPromptAAAAA",
             COPIED, now_ms, now_ms, json.dumps(text)),
        )  # fmt: skip
        prompted.append((time.monotonic(), now_ms / 1000))

    named = _Writes.changed
    polls: list[float] = []

    def written(self: _Writes) -> set[Path]:  # OpenCode streams into a part meanwhile
        writer.execute(
            "UPDATE part SET time_updated = ? WHERE id = ?", (len(polls), part)
        )
        return named(self)

    monkeypatch.setattr(_Writes, "changed", written)
    real = live.Board.poll

    def poll(self: live.Board, *args: Any, **kwargs: Any) -> int:
        polls.append(time.monotonic())
        return real(self, *args, **kwargs)

    monkeypatch.setattr(live.Board, "poll", poll)
    ages: list[tuple[float, float]] = []  # when, and the session's updated
    real_rows = live.Board.rows

    def rows(self: live.Board, *args: Any, **kwargs: Any) -> list[live.BoardRow]:
        shown = real_rows(self, *args, **kwargs)
        ages.extend(
            (time.monotonic(), r.updated) for r in shown if r.session.id == COPIED
        )
        return shown

    monkeypatch.setattr(live.Board, "rows", rows)
    _watch(monkeypatch, home, writer, prompt, at=0.3)
    assert prompted
    ((begun, at),) = prompted
    seen = next(when for when, updated in ages if updated >= at - 0.01)
    assert seen - begun <= live_feeds.STORE_SECONDS + 0.5
    # a write each 50 ms for 3.5 s: a poll a step (1 s), one each 2 s read, relists
    assert len(polls) <= 15, len(polls)


def test_a_database_streamed_into_lists_its_app_only_when_a_row_is_added(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """OpenCode streams an answer into a part row, 20 times a second: no row is added,
    no session can be new, yet the app was listed again once a second (its whole
    database parsed: 17.6 % of a core of 1000 sessions beside 1000 in the database,
    bench/bench_watch_wal.py). Now only once a row is added: a new session 3.5 s in
    shows as soon as it did."""
    home, writer = _writing(tmp_path)
    part = writer.execute(
        "SELECT id FROM part WHERE session_id = ? LIMIT 1", (COPIED,)
    ).fetchone()[0]
    # written in WAL mode before: its first write makes a new WAL, whose database file
    # a snapshot takes for one a checkpoint rewrote (copied again only 10 s on)
    writer.execute("UPDATE part SET time_updated = 0 WHERE id = ?", (part,))
    inserted: list[float] = []
    new_session = _inserting(writer, inserted)
    named = _Writes.changed
    streamed = [0]

    def written(self: _Writes) -> set[Path]:  # one write per notification
        streamed[0] += 1
        writer.execute(
            "UPDATE part SET time_updated = ? WHERE id = ?", (streamed[0], part)
        )
        return named(self)

    monkeypatch.setattr(_Writes, "changed", written)
    listed = _counted(monkeypatch)
    before: list[int] = []

    def begin() -> None:
        before.append(len(listed))
        new_session()

    shown = _watch(monkeypatch, home, writer, begin, at=3.5, duration=6.0)
    assert streamed[0] > 20 and before
    # the first listing, and at the first write the one that notes the database's rows
    assert before[0] <= 2, listed[: before[0]]
    assert inserted
    seen = next(at for at, ids in shown if NEW in ids)
    # a look a second, and a tick; the app's writes keep the snapshot up to a second
    # behind (as they kept each listing): 0.5-0.6 s unloaded, before as now
    assert seen - inserted[0] <= 2.5
    assert listed[1:] and set(listed[1:]) == {("opencode",)}
