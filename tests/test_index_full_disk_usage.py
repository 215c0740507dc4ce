"""`sessdex usage` when the index cannot even be opened for want of room: counted all the
same, from the stand-in, with the warning; a big read closed the stand-in and opened the
full index again, which failed."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import indexdb, usage
from sessdex.cli import main

from .helpers import write_claude_session


def test_usage_on_a_disk_with_no_room_to_open_the_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    for n in range(3):
        write_claude_session(home, f"5e55a1a2-0000-4000-8000-00000000000{n}", "/w/a")
    assert CliRunner().invoke(main, ["list", "--home", str(home)]).exit_code == 0
    real = indexdb._connect

    def full(path: Path) -> sqlite3.Connection:
        db = real(path)
        (pages,) = db.execute("PRAGMA page_count").fetchone()
        db.execute(f"PRAGMA max_page_count = {pages}")
        try:  # SQLite's own "database or disk is full", as opening met it
            db.execute("CREATE TABLE grown (x)")
        finally:
            db.close()
        raise AssertionError("the page limit let the index grow")

    monkeypatch.setattr(indexdb, "_connect", full)
    monkeypatch.setattr(usage, "PARALLEL_BYTES", 0)  # read as a big home is: in workers
    result = CliRunner().invoke(main, ["usage", "--json", "--home", str(home)])
    assert result.exit_code == 0, result.output
    assert "could not update its index" in result.output
    assert "Traceback" not in result.output
