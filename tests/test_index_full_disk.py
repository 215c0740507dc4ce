"""`sessdex list` with the index's disk full: the listing comes all the same, with one warning.

A session that changed must be read again, and the index could not take what was read
(SQLite's "database or disk is full"): the command stopped with "no room left…", so
nothing could be listed until space was freed.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import orjson
import pytest

from sessdex import indexdb, launch
from sessdex.indexfile import cache_folder

from .helpers import write_claude_session
from .test_quick import full, settled


def _full_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every index opened from now on may not grow by a page: its disk is full."""
    opened = indexdb._connect

    def connect(path: Path) -> sqlite3.Connection:
        db = opened(path)
        (pages,) = db.execute("PRAGMA page_count").fetchone()
        db.execute(f"PRAGMA max_page_count = {pages}")
        return db

    monkeypatch.setattr(indexdb, "_connect", connect)


def _listed(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[int | str | None, str, str]:
    monkeypatch.setattr(sys, "argv", ["sessdex", "list", "--json", "--home", str(home)])
    capsys.readouterr()
    code: int | str | None = 0
    try:
        launch.main()
    except SystemExit as exited:
        code = exited.code
    said = capsys.readouterr()
    return code, said.out, said.err


def test_a_full_disk_still_lists_what_changed_with_one_warning(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    home = tmp_path / "home"
    ids = [f"5e55a1a2-0000-4000-8000-00000000000{n}" for n in range(1, 4)]
    for number, session_id in enumerate(ids):
        write_claude_session(home, session_id, f"/w/{number}", title=f"old {number}")
    settled(home)
    full("--json", "--home", str(home))  # builds the index
    (indexed,) = Path(cache_folder()).glob("index-*.sqlite")
    before = indexed.read_bytes()
    grown = write_claude_session(home, ids[0], "/w/0", title="old 0")
    with grown.open("a") as file:  # a live session changed: it must be read again
        file.write(
            orjson.dumps({"type": "custom-title", "customTitle": "renamed"}).decode()
            + "\n"
        )
    started = [  # and new ones were started: more than the index has room for
        f"5e55a1a2-0000-4000-8000-1{n:011d}" for n in range(40)
    ]
    for session_id in started:
        write_claude_session(home, session_id, "/w/new", title="new " + session_id)
    _full_disk(monkeypatch)
    code, out, err = _listed(home, monkeypatch, capsys)
    assert code == 0, err
    titles = {record["id"]: record["title"] for record in orjson.loads(out)}
    assert titles[ids[0]] == "renamed"  # what changed, read all the same
    assert all(titles[new] == "new " + new for new in started)
    assert titles[ids[1]] == "old 1" and titles[ids[2]] == "old 2"
    warnings = [line for line in err.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1, err
    assert "could not update its index" in warnings[0]
    assert "no room left" in warnings[0]
    assert "Error" not in err
    assert (
        indexed.read_bytes()[:100] == before[:100]
    )  # the index itself is left as it was
