"""`follow` of an OpenCode database whose -wal the app starts afresh (it was empty at
the last read, or a checkpoint before it restarted it) while the database file stays as
it was: the new prompt is drawn within a read or two, not once the copy of the database
file is due again (10 s after it was made)."""

from __future__ import annotations

import json
import shutil
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from sessdex import api
from sessdex.sources import Home
from tests.conftest import app_home
from tests.test_follow_store_tail import OPENCODE_SESSION

PROMPT = "try it another way"


def _prompt(db: sqlite3.Connection) -> None:
    """The app's write of a new prompt: a message and its part, one transaction."""
    ((session,),) = db.execute(
        "SELECT DISTINCT session_id FROM message WHERE session_id LIKE ?",
        (OPENCODE_SESSION + "%",),
    ).fetchall()
    at = int(time.time() * 1000)
    info = {"role": "user", "time": {"created": at}}
    db.execute("BEGIN")
    db.execute(
        "INSERT INTO message VALUES (?, ?, ?, ?, ?)",
        ("msg_zz_new_prompt", session, at, at, json.dumps(info)),
    )
    db.execute(
        "INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
        ("prt_zz_new_prompt", "msg_zz_new_prompt", session, at, at,
         json.dumps({"type": "text", "text": PROMPT})),
    )  # fmt: skip
    db.execute("COMMIT")


@pytest.mark.parametrize("wal", ["empty", "restarted"])
def test_a_prompt_into_a_wal_started_afresh_is_drawn_within_a_read(
    tmp_path: Path, wal: str
) -> None:
    shutil.copytree(app_home("opencode"), tmp_path / "home", symlinks=True)
    db_path = tmp_path / "home" / ".local" / "share" / "opencode" / "opencode.db"
    db = sqlite3.connect(db_path, check_same_thread=False, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")  # kept open: its -wal stays, as the app's
    db.execute("PRAGMA wal_autocheckpoint=0")
    db.execute("UPDATE session SET time_updated = time_updated + 1")
    if wal == "empty":
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the -wal left at 0 bytes
    else:
        db.execute("PRAGMA wal_checkpoint(PASSIVE)")  # the next write restarts it
    time.sleep(0.1)  # the database file's stamp a tick older than follow's copy
    written: list[float] = []
    drawn: list[float] = []

    def stop() -> bool:
        return bool(drawn) or (bool(written) and time.monotonic() > written[0] + 15)

    _, batches = api.follow_session(
        Home.at(tmp_path / "home"), OPENCODE_SESSION[:12], duration=30,
        notify=False, history=1, stop=stop,
    )  # fmt: skip
    next(batches)  # the copy of the database file is made now

    def writer() -> None:
        time.sleep(0.5)
        _prompt(db)  # the -wal started again from its start
        written.append(time.monotonic())

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        for batch in batches:
            if any(PROMPT in (event.text or "") for event in batch):
                drawn.append(time.monotonic())
    finally:
        thread.join()
        db.close()
    assert drawn, "the prompt was never drawn"
    assert drawn[0] - written[0] < 4.0  # two reads of the store at most; it was ~9 s
