"""The library as a program that builds on it meets it: several calls in one process,
from any thread, and each wrong value an ordinary `SessdexError`."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from sessdex import api
from sessdex.errors import BadValue, SessionNotFound
from sessdex.sources import Home

from .conftest import app_home


def _running_opencode(tmp_path: Path) -> tuple[Home, sqlite3.Connection]:
    """A copied home whose OpenCode database its app holds open, in WAL mode."""
    home = tmp_path / "home"
    shutil.copytree(app_home("opencode"), home)
    writer = sqlite3.connect(home / ".local/share/opencode/opencode.db")
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")  # its writes stay in the WAL
    return Home.at(home), writer


def test_a_second_call_in_one_process_sees_what_the_app_wrote_since(
    tmp_path: Path,
) -> None:
    """A dashboard lists every minute: each listing shows the app's sessions as they are
    then (the first call's database snapshot served every later one, and the title
    the app gave since was never seen, by that process or by the next one)."""
    titles = _titles_before_and_after_a_rename(tmp_path)
    assert "renamed" in titles and "before" not in titles


def _titles_before_and_after_a_rename(tmp_path: Path) -> set[str | None]:
    """The titles a second listing shows, after OpenCode, its database held open,
    renamed the session the first listing showed as 'before'."""
    home, writer = _running_opencode(tmp_path)
    with writer:
        writer.execute("UPDATE session SET title = 'before' WHERE parent_id IS NULL")
    assert "before" in {s.title for s in api.list_sessions(home).sessions()}
    with writer:
        writer.execute(
            "UPDATE session SET title = 'renamed', time_updated = time_updated + 1"
            " WHERE parent_id IS NULL"
        )
    titles = {s.title for s in api.list_sessions(home).sessions()}
    writer.close()
    return titles


def test_a_long_running_view_copies_a_changed_database_at_its_own_pace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`watch` lists at every tick and says how often a changed database may be copied
    again (`keep_fresh`): a listing is no new view there (each tick copied it again)."""
    from sessdex import databases

    monkeypatch.setattr(databases, "FRESH_SECONDS", float("inf"))  # restored after
    databases.keep_fresh(3600)
    assert "before" in _titles_before_and_after_a_rename(tmp_path)


def test_a_word_or_folder_that_is_no_utf8_matches_nothing_without_a_traceback() -> None:
    """`sessdex show caf$'\\xe9'` typed in a Latin-1 terminal, or `--here` in a folder so
    named, reach the library as lone surrogates: no session has them (the index's SQLite
    refused to take them: UnicodeEncodeError)."""
    home = api.demo_home()
    with pytest.raises(SessionNotFound, match="no session id starts with"):
        api.resolve(home, "019a\udce9")
    with pytest.raises(SessionNotFound):
        api.transcript(home, "codex:019a\udce9")
    assert api.find_sessions(home, "caf\udce9").rows == []
    assert api.find_sessions(home, "half a pair \ud83d").rows == []
    assert api.list_sessions(home, here="/home/demo/caf\udce9").rows == []
    assert api.find_sessions(home, "shop", here=["/home/\udce9"]).rows == []
    assert api.list_sessions(home, here="/home/demo").rows  # the others still match


@pytest.mark.parametrize(
    "call",
    [
        lambda home: api.usage_report(home, "models"),  # grouped by app, without a word
        lambda home: api.transcript(home, "019a", subagents="flat"),  # inline, unsaid
        lambda home: api.transcript(home, "019a", tail=-1),  # ValueError: maxlen
        lambda home: list(api.replay_session(home, "019a", speed=0).events),  # ÷ 0
        lambda home: list(api.replay_session(home, "019a", max_gap=-1).events),
        lambda home: api.replay_session(home, "019a", duration=float("nan")),
        lambda home: api.follow_session(
            home, "019a", duration=float("nan")
        ),  # for ever
        lambda home: api.watch_sessions(home, duration=-1),
    ],
)
def test_a_value_the_command_line_refuses_is_a_bad_value(
    call: Callable[[Home], object],
) -> None:
    """What the CLI's options refuse, a caller passing it is told as plainly: a BadValue
    (a report quietly grouped by app, a ZeroDivisionError, a follow that never ends)."""
    with pytest.raises(BadValue, match="not"):
        call(api.demo_home())


FORKS_WHILE_A_THREAD_SNAPSHOTS = """
import sys, threading, time
from sessdex import api, databases, indexparse
from sessdex.sources import Home

indexparse.PARALLEL_FROM = 1  # worker processes parse even a small home
indexparse._busy_cores = lambda cores: 0  # however loaded the machine
held = threading.Event()

def another_request():  # a snapshot under way in another thread as the workers fork
    with databases._lock:
        held.set()
        time.sleep(1)

thread = threading.Thread(target=another_request)
thread.start()
held.wait()
print(len(api.list_sessions(Home.at(sys.argv[1])).rows))
thread.join()
"""


def test_a_listing_that_forks_workers_beside_another_thread_ends(
    tmp_path: Path,
) -> None:
    """A threaded program (a dashboard serving two requests) lists a home big enough for
    worker processes while another call takes a database snapshot: the workers parse
    and the listing ends (a worker forked with the snapshot lock held waited for ever,
    and the listing with it)."""
    home, writer = _running_opencode(tmp_path)
    with writer:
        writer.execute("UPDATE session SET title = title")  # the WAL holds a write
    program = [sys.executable, "-c", FORKS_WHILE_A_THREAD_SNAPSHOTS, str(home.path)]
    listing = subprocess.Popen(
        program, stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        printed, _ = listing.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(listing.pid, signal.SIGKILL)  # its workers too
        listing.communicate()
        pytest.fail("the listing never ended")
    finally:
        writer.close()
    assert listing.returncode == 0 and int(printed) >= 3


def test_one_app_given_as_a_string_is_that_app() -> None:
    """`apps="codex"` type-checks (a str is a sequence of str) and means the one app (it
    was read letter by letter: "unknown app 'c'")."""
    home = api.demo_home()
    codex = [s.id for s in api.list_sessions(home, apps=["codex"]).sessions()]
    assert (
        codex
        and [s.id for s in api.list_sessions(home, apps="codex").sessions()] == codex
    )
    assert [r.id for r in api.find_sessions(home, "", apps="codex").rows] == codex
    assert [r.app for r in api.doctor(home, "codex")] == ["codex"]
    assert [row.key for row in api.usage_report(home, "app", apps="codex").rows] == [
        "codex"
    ]
    assert [
        r.session.app for r in next(api.watch_sessions(home, apps="codex", duration=0))
    ] == ["codex"]


def test_usage_takes_its_bounds_as_list_sessions_takes_since() -> None:
    """`since=` a datetime, as `list_sessions` takes it, or a date: the same report as
    the text (an AttributeError: 'datetime' object has no attribute 'strip')."""
    from datetime import UTC, date, datetime

    home = api.demo_home()

    def tokens(**bounds: object) -> list[tuple[str, int]]:
        report = api.usage_report(home, "daily", **bounds)  # type: ignore[arg-type]
        return [(row.key, row.input_tokens) for row in report.rows]

    assert tokens(since=date(2026, 11, 29)) == tokens(since="2026-11-29") != []
    assert tokens(until=date(2026, 11, 28)) == tokens(until="2026-11-28")
    assert tokens(since=datetime(2026, 11, 1, tzinfo=UTC)) == tokens()
    assert tokens(since=datetime(2099, 1, 1, tzinfo=UTC)) == []


def test_list_and_find_take_since_as_text_as_watch_does() -> None:
    """`since="3d"`, as `watch_sessions` and `usage_report` take it (an AttributeError:
    'str' object has no attribute 'timestamp'); text it cannot read is a BadValue."""
    home = api.demo_home()
    day = api.parse_since("2026-11-29T10:00:00Z")
    listed = [s.id for s in api.list_sessions(home, since=day).sessions()]
    assert listed and listed != [s.id for s in api.list_sessions(home).sessions()]
    assert [
        s.id for s in api.list_sessions(home, since="2026-11-29T10:00:00Z").sessions()
    ] == listed
    assert [
        r.id for r in api.find_sessions(home, "", since="2026-11-29T10:00:00Z").rows
    ] == listed
    with pytest.raises(BadValue):
        api.list_sessions(home, since="yesterday-ish")


def test_a_nul_in_the_words_is_no_word_that_matches_everything() -> None:
    """A NUL splits words as a blank does (the index joins a session's fields with NUL: a
    word holding one was matched across two of them)."""
    demo = api.demo_home()
    everything = [(s.app, s.id) for s in api.find_sessions(demo, "").rows]
    assert [(s.app, s.id) for s in api.find_sessions(demo, "\x00").rows] == everything
    first = api.find_sessions(demo, "").sessions()[0]
    word = (first.title or "").split()[0]
    spaced = api.find_sessions(demo, f"{first.app} {word}").rows
    assert spaced and api.find_sessions(demo, f"{first.app}\x00{word}").rows == spaced
