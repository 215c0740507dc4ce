"""`show --tail N` reads only the last messages of the other database stores too (the Kilo
CLI's, the Cursor IDE's, the Cursor CLI's chat store, Goose's), and shows exactly the last N
lead events of the whole read; where that could differ, the whole read serves."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import api, reading, sources
from sessdex.cli import main
from sessdex.diagnostics import Diagnostics
from sessdex.sources import Home
from tests.conftest import app_home
from tests.sources import test_cursor_ide
from tests.sources.test_cursor import store_with_messages
from tests.test_tail_rows import _lead, _records, _sessions, _unnumbered, _whole

KILO_SESSION = "ses_dca3d578cffeM0KZq5E7M6Frvc"
CURSOR_STORE = "5e5e5e5e-0000-4000-8000-00000000b16b"


def _ends_the_whole_read(home: Home, app: str, rows: range) -> int:
    """For each of the app's sessions in `home` and each window of rows: the events the
    hook gives are those the whole read ends with. How many windows the hook gave."""
    source = sources.get(app)
    exercised = 0
    for session in _sessions(home, app):
        whole = _whole(session)
        for count in rows:
            last = reading.last_events(
                source, session, Diagnostics(), count, _lead, len(whole) + 1
            )
            if last is None:
                continue
            exercised += 1
            assert last, (session.id, count)
            assert _unnumbered(last) == _unnumbered(whole[-len(last) :]), (
                session.id,
                count,
            )
    return exercised


def test_each_kilo_cli_sessions_last_rows_end_its_whole_read() -> None:
    assert _ends_the_whole_read(Home.at(app_home("kilo")), "kilo", range(1, 8)) >= 3


def _grow_kilo(home: Path) -> str:
    db = sqlite3.connect(home / ".local" / "share" / "kilo" / "kilo.db")
    messages = db.execute(
        "SELECT id FROM message WHERE session_id = ?", (KILO_SESSION,)
    ).fetchall()
    for copy in range(1, 121):
        later = copy * 1_000_000
        for (message_id,) in messages:
            new = f"{message_id}_{copy:03d}"
            db.execute(
                "INSERT INTO message SELECT ?, session_id, time_created + ?, "
                "time_updated + ?, data FROM message WHERE id = ?",
                (new, later, later, message_id),
            )
            db.execute(
                "INSERT INTO part SELECT id || ?, ?, session_id, time_created + ?, "
                "time_updated + ?, data FROM part WHERE message_id = ?",
                (f"_{copy:03d}", new, later, later, message_id),
            )
    db.commit()
    db.close()
    return KILO_SESSION


def _bubble(n: int) -> dict[str, object]:
    """The n-th message of a long Cursor IDE conversation: prompts, thinking, tool calls
    with results, failed ones, token counts, a message of an unknown type."""
    at = f"2026-11-29T{10 + n // 3600:02d}:{n // 60 % 60:02d}:{n % 60:02d}.000Z"
    if n % 7 == 0:
        return {"_v": 3, "type": 1, "text": f"prompt {n}", "createdAt": at}
    if n % 11 == 0:
        return {"_v": 3, "type": 9, "createdAt": at}
    tool = {"name": "run_terminal_cmd", "toolCallId": f"call_{n}",
            "rawArgs": json.dumps({"command": f"echo {n}"}),
            "result": json.dumps({"output": f"{n}"}),
            "status": "error" if n % 5 == 0 else "completed"}  # fmt: skip
    return {"_v": 3, "type": 2, "createdAt": at, "text": f"step {n}",
            "thinking": {"text": f"think {n}"}, "toolFormerData": tool,
            "tokenCount": {"inputTokens": n, "outputTokens": 2}}  # fmt: skip


def _grow_cursor_ide(home: Path) -> str:
    """The Cursor IDE sample store, its chat without sub-agents grown to 400 messages."""
    path = test_cursor_ide.sample(home)
    chat = test_cursor_ide.CHAT
    db = sqlite3.connect(path)
    bubbles = [(f"g{n}", 1 if n % 7 == 0 else 2) for n in range(400)]
    db.execute(
        "UPDATE cursorDiskKV SET value = ? WHERE key = ?",
        (json.dumps(test_cursor_ide.composer(chat, bubbles, name="Long chat")),
         f"composerData:{chat}"),
    )  # fmt: skip
    db.executemany(
        "INSERT INTO cursorDiskKV VALUES (?, ?)",
        [(f"bubbleId:{chat}:g{n}", json.dumps(_bubble(n))) for n in range(400)],
    )
    db.commit()
    db.close()
    return chat


def _grow_cursor_store(home: Path) -> str:
    """A Cursor CLI chat no transcript holds, of 400 messages in its store."""
    shutil.copytree(app_home("cursor"), home, dirs_exist_ok=True, symlinks=True)
    messages: list[dict[str, object]] = [{"role": "system", "content": "be brief"}]
    for n in range(400):
        if n % 3 == 0:
            messages.append({"role": "user", "content": [{"type": "text", "text":
                f"<user_query>\nstep {n}?\n</user_query>"}]})  # fmt: skip
        elif n % 3 == 1:
            messages.append({"role": "assistant", "content": [
                {"type": "reasoning", "text": f"think {n}"},
                {"type": "text", "text": f"running {n}"},
                {"type": "tool-call", "toolCallId": f"t{n}", "toolName": "Shell",
                 "args": {"command": f"echo {n}"}}]})  # fmt: skip
        else:
            messages.append({"role": "tool", "content": [{"type": "tool-result",
                "toolCallId": f"t{n - 1}", "toolName": "Shell", "result": f"{n}"}]})  # fmt: skip
    chats = home / ".cursor" / "chats" / "0123456789abcdef0123456789abcdef"
    store_with_messages(chats / CURSOR_STORE, messages, "/workspaces/app",
                        name="New Agent", createdAt=1781256145540)  # fmt: skip
    return CURSOR_STORE


def test_a_cursor_conversation_with_sub_agents_is_read_whole(tmp_path: Path) -> None:
    """A Cursor IDE sub-agent goes in among its lead's messages by when it started: the
    tail of a conversation that has any comes from the whole read."""
    test_cursor_ide.sample(tmp_path)
    home = Home.at(tmp_path)
    session = api.resolve(home, test_cursor_ide.AGENT)
    hook = reading.last_events(
        sources.get("cursor"), session, Diagnostics(), 1, _lead, 9
    )
    assert hook is None
    found = api.transcript(home, test_cursor_ide.AGENT, tail=6)
    shown = list(found.events)
    assert not found.seq_relative
    assert shown == _whole(session)[-6:]
    assert "subagent" in [e.kind for e in shown]  # placed by time, before the last ones


def test_a_missing_blob_in_a_cursor_stores_tail_is_counted_as_the_whole_read_counts_it(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    session_id = _grow_cursor_store(home)
    db_path = next(home.glob(f".cursor/chats/*/{session_id}/store.db"))
    db = sqlite3.connect(db_path)
    gone = hashlib.sha256(
        json.dumps({"role": "tool", "content": [{"type": "tool-result",
            "toolCallId": "t397", "toolName": "Shell", "result": "398"}]}).encode()
    ).hexdigest()  # fmt: skip
    assert db.execute("DELETE FROM blobs WHERE id = ?", (gone,)).rowcount == 1
    db.commit()
    db.close()
    whole = api.transcript(Home.at(home), session_id)
    every = list(whole.events)
    found = api.transcript(Home.at(home), session_id, tail=5)
    assert found.seq_relative
    assert _unnumbered(list(found.events)) == _unnumbered(every[-5:])
    assert whole.diagnostics.to_json() != Diagnostics().to_json()
    assert found.diagnostics.to_json() == whole.diagnostics.to_json()


def test_each_goose_sessions_last_rows_end_its_whole_read() -> None:
    assert _ends_the_whole_read(Home.at(app_home("goose")), "goose", range(1, 12)) >= 5


def _grow_goose(home: Path) -> str:
    """A Goose session (schema v16) of 120 turns: turn contexts, tool calls (some that
    look like async delegates), model calls in the ledger between its messages, two
    compactions whose summaries come some rows after the history was hidden, and an
    unreadable row."""
    from tests.sources import test_goose as g

    root, db = g.v16_home(home.parent / "goose")
    shutil.rmtree(home, ignore_errors=True)
    shutil.move(root, home)
    db.close()
    db = sqlite3.connect(
        home / ".local" / "share" / "goose" / "sessions" / "sessions.db"
    )
    sid = "20260820_1"
    g.add_session(db, sid, (900_000, 90_000, 1_000, 0), name="Long")
    hidden = {"userVisible": True, "agentVisible": False}
    only_model = {"userVisible": False, "agentVisible": True}
    context = {**only_model, "turnContext": True}
    clock = 0
    for turn in range(120):
        clock += 10
        g.add_message(db, sid, "user", g.text(f"prompt {turn}"), clock)
        g.add_message(db, sid, "user", g.text(f"<turn-context>{turn}"), clock, context)
        arguments: dict[str, object] = {"command": f"echo {turn}"}
        if turn % 5 == 0:  # not summon's, but the same arguments
            arguments = {"instructions": f"look {turn}", "async": turn % 10 == 0}
        request = {"type": "toolRequest", "id": f"call_{turn}", "toolCall": {
            "status": "success", "value": {"name": "developer__shell", "arguments": arguments}}}  # fmt: skip
        g.add_message(db, sid, "assistant", [request], clock + 1)
        g.add_call(db, sid, clock + 1, g.SONNET, (1000, 100, 0, 0))
        response = {"type": "toolResponse", "id": f"call_{turn}", "toolResult": {
            "status": "success", "value": {"content": g.text(f"{turn}")}}}  # fmt: skip
        g.add_message(db, sid, "user", [response], clock + 2)
        meta = hidden if turn in (40, 41, 100, 101, 110) else g.VISIBLE
        g.add_message(db, sid, "assistant", g.text(f"done {turn}"), clock + 3, meta)
        g.add_call(db, sid, clock + 3, None, (500, 50, 0, 0), compaction=turn == 43)
        if turn in (43, 103, 114):
            g.add_message(
                db, sid, "user", g.text(f"summary {turn}"), clock + 4, only_model
            )
        if turn in (60, 112):  # unreadable: the whole read passes over its time and
            # its hiding of the history
            db.execute(
                "INSERT INTO messages (session_id, role, content_json, created_timestamp,"
                " metadata_json) VALUES (?, 'assistant', '{broken', ?, ?)",
                (sid, g.T0 + clock + 3, json.dumps(hidden)),
            )
    # a session total to take the ledger's from, and a ledger row of odd values that
    # the whole read counts as nothing: a negative, a fraction, text
    db.execute(
        "UPDATE sessions SET accumulated_total_tokens = 99000000 WHERE id = ?", (sid,)
    )
    db.execute(
        "INSERT INTO usage_ledger (session_id, created_timestamp, model, input_tokens, "
        "output_tokens, total_tokens, cache_read_tokens) VALUES (?, ?, ?, -5, 2.5, 9, '7')",
        (sid, g.T0 + clock, g.SONNET),
    )
    db.commit()
    db.close()
    return sid


def _in_milliseconds(home: Path) -> None:
    """The ledger's times in epoch milliseconds: times the tail cannot compare in SQL."""
    db = sqlite3.connect(
        home / ".local" / "share" / "goose" / "sessions" / "sessions.db"
    )
    db.execute("UPDATE usage_ledger SET created_timestamp = created_timestamp * 1000")
    db.commit()
    db.close()


@pytest.mark.parametrize("ledger", ["seconds", "milliseconds"])
def test_every_window_of_a_big_goose_session_ends_its_whole_read(
    tmp_path: Path, ledger: str
) -> None:
    """Windows that start anywhere: before and after a compaction's hiding and its
    summary, between a call and its result, at an unreadable row."""
    home = tmp_path / "home"
    sid = _grow_goose(home)
    if ledger == "milliseconds":
        _in_milliseconds(home)
    session = api.resolve(Home.at(home), sid)
    whole = _whole(session)
    assert [e.kind for e in whole].count("compaction") >= 2
    source = sources.get("goose")
    whole_reads = []
    for rows in range(1, 160):
        last = reading.last_events(source, session, Diagnostics(), rows, _lead, 10_000)
        if last is None:
            whole_reads.append(rows)
            continue
        assert _unnumbered(last) == _unnumbered(whole[-len(last) :]), rows
    assert whole_reads == []


def test_a_goose_session_with_sub_agents_is_read_whole(tmp_path: Path) -> None:
    """A Goose sub-agent is read with the result that names it, and those no result
    names after its lead's messages: its lead's tail comes from the whole read."""
    from tests.sources import test_goose as g

    root, db = g.v16_home(tmp_path)
    g.delegation(db)
    db.commit()
    db.close()
    home = Home.at(root)
    session = api.resolve(home, "20260820_1")
    hook = reading.last_events(
        sources.get("goose"), session, Diagnostics(), 1, _lead, 9
    )
    assert hook is None
    found = api.transcript(home, "20260820_1", tail=3)
    shown = list(found.events)
    assert not found.seq_relative
    assert shown == _whole(session)[-3:]
    assert "subagent" in [e.kind for e in shown]


@pytest.mark.parametrize("ledger", ["seconds", "milliseconds"])
def test_a_model_call_an_unreadable_goose_row_would_let_pass_keeps_its_place(
    tmp_path: Path, ledger: str
) -> None:
    """The whole read gives a model call before the first readable message dated after
    it; an unreadable row does not count. Here the row just before the last ones is
    unreadable and dated after the call, the messages after it are dated before it and
    then after: the call goes among them, as the whole read has it, never left out."""
    from tests.sources import test_goose as g

    home = tmp_path / "home"
    sid = _grow_goose(home)
    db = sqlite3.connect(
        home / ".local" / "share" / "goose" / "sessions" / "sessions.db"
    )
    (end,) = db.execute("SELECT max(created_timestamp) FROM messages").fetchone()
    end -= g.T0
    g.add_call(db, sid, end + 50, g.SONNET, (7, 7, 0, 0))
    db.execute(
        "INSERT INTO messages (session_id, role, content_json, created_timestamp) "
        "VALUES (?, 'assistant', '{broken', ?)",
        (sid, g.T0 + end + 100),
    )
    for n, offset in enumerate((10, 11, 60)):
        g.add_message(db, sid, "user", g.text(f"and {n}?"), end + offset)
    db.commit()
    db.close()
    if ledger == "milliseconds":
        _in_milliseconds(home)
    session = api.resolve(Home.at(home), sid)
    whole = _whole(session)
    kinds = ["user", "user", "usage", "user", "usage"]
    assert [e.kind for e in whole[-5:]] == kinds
    for rows in range(1, 8):
        last = reading.last_events(
            sources.get("goose"), session, Diagnostics(), rows, _lead, 10_000
        )
        assert last is None or _unnumbered(last) == _unnumbered(whole[-len(last) :])
    found = api.transcript(Home.at(home), sid, tail=5)
    assert _unnumbered(list(found.events)) == _unnumbered(whole[-5:])


GROW: dict[str, tuple[str, Callable[[Path], str]]] = {
    "kilo": ("kilo", _grow_kilo),
    "cursor-ide": ("cursor", _grow_cursor_ide),
    "cursor-store": ("cursor", _grow_cursor_store),
    "goose": ("goose", _grow_goose),
}


@pytest.fixture(params=sorted(GROW))
def big(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Home, str, str]:
    """A home of the app holding one session grown past a window of rows."""
    app, grow = GROW[str(request.param)]
    home = tmp_path / "home"
    if app == "kilo":
        shutil.copytree(app_home(app), home, symlinks=True)
    home.mkdir(exist_ok=True)
    return Home.at(home), grow(home), app


@pytest.mark.parametrize("count", [1, 3, 50, 200])
def test_tail_of_a_big_session_is_the_end_of_its_whole_read(
    big: tuple[Home, str, str], count: int
) -> None:
    home, session_id, _ = big
    whole = _whole(api.resolve(home, session_id))
    assert len(whole) > 300  # more than one window of rows
    found = api.transcript(home, session_id, tail=count)
    shown = list(found.events)
    assert found.seq_relative  # only the last rows were read
    assert _unnumbered(shown) == _unnumbered(whole[-count:])


def test_every_small_window_of_rows_of_a_big_home_ends_the_whole_read(
    big: tuple[Home, str, str],
) -> None:
    home, _, app = big
    assert _ends_the_whole_read(home, app, range(1, 12)) >= 11


def test_show_tail_json_and_text_are_those_of_the_whole_read(
    big: tuple[Home, str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    home, session_id, app = big
    where = ["--home", str(home.path)]
    runner = CliRunner()

    def show(*args: str) -> str:
        result = runner.invoke(main, ["show", session_id, *args, *where])
        assert result.exit_code == 0, result.output
        return result.stdout

    every = [r for r in _records(show("--json")) if r.get("agent_id") is None]
    for count in (2, 40, 150):
        tail = _records(show("--json", "--tail", str(count)))
        assert tail == every[-count:]
    text = show("--tail", "40", "--no-pager")
    monkeypatch.delattr(sources.get(app), "read_last")  # the same tail, read whole
    assert show("--tail", "40", "--no-pager") == text


def test_a_goose_tail_holds_the_rows_still_in_the_wal(tmp_path: Path) -> None:
    """Goose writes in WAL mode: the newest messages may be only in `-wal`. The tail is
    read from the same snapshot as the whole read, so it ends with them."""
    from tests.sources import test_goose as g

    home = tmp_path / "home"
    sid = _grow_goose(home)
    path = home / ".local" / "share" / "goose" / "sessions" / "sessions.db"
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA wal_autocheckpoint=0")
    (end,) = db.execute("SELECT max(created_timestamp) FROM messages").fetchone()
    for n in range(3):
        g.add_message(db, sid, "user", g.text(f"only in the wal {n}"), end - g.T0 + n)
    db.commit()
    try:
        assert path.with_name("sessions.db-wal").stat().st_size > 0
        session = api.resolve(Home.at(home), sid)
        whole = _whole(session)
        found = api.transcript(Home.at(home), sid, tail=4)
        shown = list(found.events)
        assert found.seq_relative
        typed = [e.text for e in shown if e.kind == "user"]
        assert typed[-2:] == ["only in the wal 1", "only in the wal 2"]
        assert _unnumbered(shown) == _unnumbered(whole[-4:])
    finally:
        db.close()
