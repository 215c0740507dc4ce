"""`watch` for a session whose records carry no times (the 2025 Codex rollout: one dated
session header, undated items): only its start is dated, so whether it still works goes by
its file's time, as `tree` judges it (tests/test_tree_undated_records.py). A row of a
database many sessions share has no file of its own: its listing's time stays."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from sessdex.cli import main

from .conftest import app_home

DATA = Path(__file__).parent / "data"
ROLLOUT = "rollout-2025-04-17-3c9e7d21-5f4a-4b8c-8d6e-0a1b2c3d4e5f.json"
OPENCODE = ".local/share/opencode/opencode.db"
UNDATED = "ses_dd47cef52ffe38O37iH1Ffe05b"
AGO = 45 * 60


def _started_mid_call(home: Path, started: float) -> Path:
    """The fixture's rollout begun at `started`, its last item a shell call not answered."""
    document = json.loads((DATA / "codex/home/.codex/sessions" / ROLLOUT).read_text())
    begun = datetime.fromtimestamp(started, UTC)
    document["session"]["timestamp"] = begun.strftime("%Y-%m-%dT%H:%M:%S.%f")[:23] + "Z"
    call = {"type": "function_call", "name": "shell", "call_id": "c1"}
    document["items"] = [
        document["items"][0],
        {**call, "arguments": '{"command":["make"]}'},
    ]
    path = home / ".codex/sessions" / ROLLOUT
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(document))
    return path


def _row(home: Path, session: str) -> dict[str, Any]:
    """`session`'s row of `watch --once --json`."""
    result = CliRunner().invoke(
        main, ["watch", "--once", "--json", "--home", str(home)]
    )
    assert result.exit_code == 0, result.output
    rows = [r for r in json.loads(result.stdout) if r["id"].startswith(session)]
    assert len(rows) == 1, result.stdout
    row: dict[str, Any] = rows[0]
    return row


def _age(row: dict[str, Any]) -> float:
    """Seconds since the row's `updated`."""
    updated = datetime.fromisoformat(row["updated"].replace("Z", "+00:00"))
    return time.time() - updated.timestamp()


def test_a_session_begun_long_ago_and_written_now_works(tmp_path: Path) -> None:
    """Begun 45 minutes ago, its file written a moment ago: working, updated now."""
    path = _started_mid_call(tmp_path, time.time() - AGO)
    moment = time.time() - 5  # before `watch` began: not seen written while followed
    os.utime(path, (moment, moment))
    row = _row(tmp_path, "3c9e7d21")
    assert row["status"] == "working", row
    assert _age(row) < 60, row


def test_one_neither_dated_nor_written_for_long_has_ended(tmp_path: Path) -> None:
    """Begun and last written 45 minutes ago: ended, as before."""
    path = _started_mid_call(tmp_path, time.time() - AGO)
    old = time.time() - AGO
    os.utime(path, (old, old))
    row = _row(tmp_path, "3c9e7d21")
    assert row["status"] == "ended", row
    assert _age(row) > AGO - 60, row


def test_a_shared_database_row_keeps_its_listing_time(tmp_path: Path) -> None:
    """An OpenCode session listed 45 minutes ago, its messages undated, its database
    written a moment ago (another session's write): ended, as old as its listing."""
    home = tmp_path / "home"
    shutil.copytree(app_home("opencode"), home)
    listed = int((time.time() - AGO) * 1000)
    with sqlite3.connect(home / OPENCODE) as connection:
        for table in ("message", "part"):
            connection.execute(
                f"UPDATE {table} SET time_created = 0, time_updated = 0,"
                " data = json_remove(data, '$.time', '$.state.time')"
                " WHERE session_id = ?",
                (UNDATED,),
            )
        connection.execute(
            "UPDATE session SET time_updated = ? WHERE id = ?", (listed, UNDATED)
        )
    connection.close()
    os.utime(home / OPENCODE)  # written now
    row = _row(home, UNDATED)
    assert row["status"] == "ended", row
    assert abs(_age(row) - AGO) < 60, row


def test_a_copied_chat_whose_listing_dates_its_last_write_keeps_that_time(
    tmp_path: Path,
) -> None:
    """A nanocoder chat's messages are undated, but its listing's `updated` is later
    than its start, so it is when the chat last wrote: a home copied just now (every
    file's time now) shows those chats ended at that time, as before; they showed
    "waiting for you", updated now, when the files' time was taken instead."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "nanocoder/real/home", home)
    result = CliRunner().invoke(
        main, ["watch", "--once", "--json", "--since", "20y", "--home", str(home)]
    )
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert len(rows) == 3, rows
    for row in rows:
        assert row["status"] == "ended", row
        assert row["updated"].startswith("2026-12-05T19:2"), row
