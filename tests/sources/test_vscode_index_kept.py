"""VS Code's chat index (a workspace's state.vscdb), kept per process for the chats listed
one after another, is read again once a commit changed it, however its mtime and size
look: a process that runs on (`watch`, the API) kept a rename committed in the tick of
its last read (the same mtime) at the same size for as long as it ran."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path

from sessdex.sources import vscode
from tests.conftest import DATA

STATE = (
    DATA / "vscode/home/.config/Code/User/workspaceStorage"
    / "7a9c1e3b5d7f9a1c3e5b7d9f1a3c5e7b/state.vscdb"
)  # fmt: skip
CHAT = "c5e7a9b1-3d5f-4b7d-8e9a-1c3e5a7b9d24"


def _title(database: Path) -> object:
    entry = vscode._index(database).get(CHAT)
    return entry.get("title") if isinstance(entry, dict) else None


def test_a_rename_committed_at_the_same_mtime_and_size_is_read(tmp_path: Path) -> None:
    database = tmp_path / "state.vscdb"
    shutil.copy(STATE, database)
    stamp = ((os.stat(database).st_mtime_ns // 10**9) + 60) * 10**9 + 123_456_789
    os.utime(database, ns=(stamp, stamp))
    old = _title(database)
    assert old == "Which build tool does mono use"
    size = os.stat(database).st_size
    with sqlite3.connect(database) as db:  # VS Code's rename: the index rewritten
        (value,) = db.execute(
            "SELECT value FROM ItemTable WHERE key = ?", (vscode.INDEX_KEY,)
        ).fetchone()
        index = json.loads(value)
        index["entries"][CHAT]["title"] = "Which build tool does mono USE"
        db.execute(
            "UPDATE ItemTable SET value = ? WHERE key = ?",
            (json.dumps(index), vscode.INDEX_KEY),
        )
    db.close()
    os.utime(database, ns=(stamp, stamp))
    assert os.stat(database).st_size == size
    assert _title(database) == "Which build tool does mono USE"
