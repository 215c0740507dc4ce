"""`watch` while an app writes its SQLite database in WAL mode, many times a second.

Each write changes only the database's -wal, which no session follows: a notification
naming it may say a new session is in the database, so the board lists sessions again, at
most once a second. It listed the whole home's (every app's files looked at again, 26 ms of
CPU on a home of 1000 sessions, bench/bench_watch_wal.py); now only the apps whose followed
database it is, and a new session in it still shows within a second.
"""

from __future__ import annotations

import shutil
import sqlite3
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest

from sessdex import api, live
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
) -> list[tuple[float, set[str]]]:
    """What `watch` shows for 3.5 s (when, and the ids on the board) while `writer`
    writes; `begin` runs `at` seconds in. `writer` is closed after."""
    _Writes.wal = Path(f"{home / DATABASE}-wal")
    monkeypatch.setattr(_Writes, "begin", begin)
    monkeypatch.setattr(_Writes, "at", at)
    monkeypatch.setattr(live, "Waiter", _Writes)
    shown: list[tuple[float, set[str]]] = []
    try:
        for rows in api.watch_sessions(
            Home.at(home), since="100000d", duration=3.5, notify=True
        ):
            shown.append((time.monotonic(), {r.session.id for r in rows}))
    finally:
        writer.close()
    return shown


def test_a_database_written_many_times_a_second_relists_only_its_app(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, writer = _writing(tmp_path)
    inserted: list[float] = []

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

    listed: list[Sequence[str]] = []
    real = api.list_sessions

    def counted(*args: Any, **kwargs: Any) -> Any:
        listed.append(tuple(kwargs.get("apps") or ()))
        return real(*args, **kwargs)

    monkeypatch.setattr(api, "list_sessions", counted)
    shown = _watch(monkeypatch, home, writer, new_session)
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
