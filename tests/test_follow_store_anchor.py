"""`follow -n N` of a store draws its history from the session's last messages; what
the next whole read finds new is what the old whole-read follow drew, even where the
events that first read gave are rewritten in place (an answer streamed into its row,
`follow -n 1` while the model writes it) or deleted (an OpenCode revert)."""

from __future__ import annotations

import json
import shutil
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from sessdex import api, sources
from sessdex.diagnostics import Diagnostics
from sessdex.live_feeds import History, ReadFeed, Seen
from sessdex.model import Event
from sessdex.sources import Home
from sessdex.status import Tracker
from tests.conftest import app_home
from tests.test_follow_store_tail import OPENCODE_SESSION, _copy_opencode, _shown
from tests.test_show_document_tail import SESSION as GEMINI_SESSION
from tests.test_show_document_tail import _chat

SPACING = 3.0  # between two writes: more than a store's read interval (STORE_SECONDS)
Write = Callable[[], None]
NOW_MS = int(time.time() * 1000)  # the same in the copy each follow reads


def _follow(
    home: Home, prefix: str, writes: list[Write], history: int | None
) -> tuple[list[Event], list[Event]]:
    """The first batch `follow` draws, and all it draws while `writes` are made, each
    once the read before has been made (after the first batch, SPACING apart)."""
    done: list[float] = []  # when the last write was made

    def stop() -> bool:  # two intervals after the last write: a loaded machine's
        # read of it may come a poll late, and a follow stopped before it drew less
        return bool(done) and time.monotonic() > done[0] + 2 * SPACING

    _, batches = api.follow_session(
        home, prefix, duration=60, notify=False, history=history, stop=stop
    )
    first = next(batches)

    def writer() -> None:
        for write in writes:
            time.sleep(SPACING)
            write()
        done.append(time.monotonic())

    thread = threading.Thread(target=writer)
    thread.start()
    drawn = [e for batch in batches for e in batch]
    thread.join()
    return first, drawn


def _alike(
    make: Callable[[Path], tuple[Home, str, list[Write]]], tmp_path: Path
) -> None:
    """What `follow -n 1` draws and what a whole-read follow draws, each of its copy."""
    found: dict[int | None, tuple[list[Event], list[Event]]] = {}

    def run(history: int | None) -> None:
        home, prefix, writes = make(tmp_path / str(history))
        found[history] = _follow(home, prefix, writes, history)

    threads = [threading.Thread(target=run, args=(n,)) for n in (1, None)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    (tail, drawn), (whole, expected) = found[1], found[None]
    assert _shown(tail[-1:]) == _shown(whole[-1:])
    assert expected  # the writes were drawn
    assert _shown(drawn) == _shown(expected)


# --- OpenCode: a database and its -wal ------------------------------------------------


def _opencode(folder: Path, scenario: str) -> tuple[Home, str, list[Write]]:
    shutil.copytree(app_home("opencode"), folder, symlinks=True)
    db_path = folder / ".local" / "share" / "opencode" / "opencode.db"
    db = sqlite3.connect(db_path, check_same_thread=False, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")  # kept open: its -wal stays, as the app's
    _copy_opencode(db_path, range(1, 121))  # 726 messages: its end read from 64
    # its writes left in the -wal, one there already: where a write starts the -wal
    # again, follow reads the database file again, at most every 10 s
    # (REFRESH_DATABASE_SECONDS)
    db.execute("PRAGMA wal_autocheckpoint=0")
    db.execute("UPDATE session SET time_updated = time_updated + 1")
    like = (OPENCODE_SESSION + "%",)
    ((last_part,),) = db.execute(
        "SELECT id FROM part WHERE session_id LIKE ? AND data LIKE '%Resumed fine%' "
        "ORDER BY id DESC LIMIT 1",
        like,
    ).fetchall()

    def stream(words: str) -> Write:
        def write() -> None:  # the app's update of the part being streamed into
            part = {"type": "text", "text": f"Resumed fine. {words}"}
            db.execute(
                "UPDATE part SET data = ? WHERE id = ?", (json.dumps(part), last_part)
            )

        return write

    def append() -> None:
        _copy_opencode(db_path, range(130, 131))

    def revert() -> None:
        """The last 72 messages deleted, and a prompt written, in one transaction."""
        db.execute("BEGIN")
        gone = db.execute(
            "SELECT id FROM message WHERE session_id LIKE ? "
            "ORDER BY time_created DESC, id DESC LIMIT 72",
            like,
        ).fetchall()
        for (message,) in gone:
            db.execute("DELETE FROM part WHERE message_id = ?", (message,))
            db.execute("DELETE FROM message WHERE id = ?", (message,))
        ((session,),) = db.execute(
            "SELECT DISTINCT session_id FROM message WHERE session_id LIKE ?", like
        ).fetchall()
        at = NOW_MS  # written now: after every message deleted
        info = {"role": "user", "time": {"created": at}}
        db.execute(
            "INSERT INTO message VALUES (?, ?, ?, ?, ?)",
            ("msg_zz_after_revert", session, at, at, json.dumps(info)),
        )
        db.execute(
            "INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
            ("prt_zz_after_revert", "msg_zz_after_revert", session, at, at,
             json.dumps({"type": "text", "text": "try it another way"})),
        )  # fmt: skip
        db.execute("COMMIT")

    writes = {
        "streamed": [stream("It printed"), stream("It printed hello."), append],
        "reverted": [revert],
    }[scenario]
    return Home.at(folder), OPENCODE_SESSION, writes


@pytest.mark.parametrize("scenario", ["streamed", "reverted"])
def test_follow_n_1_of_an_opencode_database_draws_what_a_whole_read_drew(
    tmp_path: Path, scenario: str
) -> None:
    _alike(lambda folder: _opencode(folder, scenario), tmp_path)


# --- Gemini CLI: one JSON document written again whole --------------------------------


def _gemini(folder: Path, scenario: str) -> tuple[Home, str, list[Write]]:
    path = _chat(folder, 600)

    def save(change: Callable[[list[dict[str, object]]], None]) -> Write:
        def write() -> None:
            chat = json.loads(path.read_text())
            change(chat["messages"])
            path.write_text(json.dumps(chat, indent=2))

        return write

    def answer(words: str, name: str = "m597") -> Write:
        def change(messages: list[dict[str, object]]) -> None:
            (message,) = [m for m in messages if m["id"] == name]
            message["content"] = f"{message['content']} {words}"

        return save(change)

    def prompt(messages: list[dict[str, object]]) -> None:
        stamp = f"2025-11-02T12:00:{len(messages) % 60:02}.000Z"
        messages.append(
            {"id": f"new{len(messages)}", "timestamp": stamp, "type": "user",
             "content": "a later prompt"}
        )  # fmt: skip

    def rewind(messages: list[dict[str, object]]) -> None:
        del messages[-70:]
        prompt(messages)

    writes = {
        "streamed": [answer("more"), answer("and more"), save(prompt)],
        # the first message its end was read from (of m536 to m599) rewritten, and the
        # last
        "rewritten": [answer("again", "m536"), answer("more"), save(prompt)],
        "reverted": [save(rewind)],
    }[scenario]
    return Home.at(folder), GEMINI_SESSION[:8], writes


@pytest.mark.parametrize("scenario", ["streamed", "rewritten", "reverted"])
def test_follow_n_1_of_a_gemini_chat_draws_what_a_whole_read_drew(
    tmp_path: Path, scenario: str
) -> None:
    _alike(lambda folder: _gemini(folder, scenario), tmp_path)


@pytest.mark.parametrize("cut", [0, 100, 50_000])
def test_follow_n_1_of_a_gemini_chat_read_mid_save_draws_what_was_written(
    tmp_path: Path, cut: int
) -> None:
    """The first whole read after `follow -n 1`'s read of the chat's end catches the CLI
    between its truncate and its write (none of the events the first read gave is
    there yet): the next read, of the chat saved, still tells what is older from what
    is new, and draws the one prompt rewritten, not the whole chat."""
    path = _chat(tmp_path, 600)
    home = Home.at(tmp_path)
    session = api.resolve(home, GEMINI_SESSION[:8])
    source = sources.get(session.app)
    tracker = Tracker(lead_id=session.id)
    feed = ReadFeed(session, source, Diagnostics(), tracker, history=History(1))
    seen, now = Seen(), time.time()
    feed.poll(now, seen)
    chat = json.loads(path.read_text())
    (prompt,) = [m for m in chat["messages"] if m["id"] == "m536"]
    prompt["content"] = f"{prompt['content']} again"
    saved = json.dumps(chat, indent=2)
    path.write_text(saved[:cut])
    feed.poll(now + 10, seen)
    path.write_text(saved)
    drawn = feed.poll(now + 20, seen)
    assert [(e.kind, e.text) for e in drawn] == [("user", prompt["content"])]
