"""An OpenCode database whose `session` table lacks `title` (a migration gone wrong, a
build we have not seen): `list -v` says so, as it says a lacking `directory`. Every
session was listed as "(untitled)" and nothing said why."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from tests.conftest import DATA


def test_list_says_the_session_table_lacks_title(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA / "opencode" / "home", home)
    db = sqlite3.connect(home / ".local/share/opencode/opencode.db")
    db.execute("ALTER TABLE session DROP COLUMN title")
    db.commit()
    db.close()
    result = CliRunner().invoke(
        main, ["list", "-v", "--app", "opencode", "--home", str(home)]
    )
    assert result.exit_code == 0, result.output
    assert "(untitled)" in result.stdout
    assert "session table lacks title" in result.stderr, result.stderr
