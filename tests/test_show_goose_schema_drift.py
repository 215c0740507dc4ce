"""Goose's session database with a column of `messages` gone or renamed (an older or a
newer goose): the messages are still shown, as they are where any other column is gone."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main

HOME = Path(__file__).parent / "data" / "goose" / "home"
DB = ".local/share/goose/sessions/sessions.db"


def show(home: Path, *args: str) -> tuple[list[tuple[str, str]], str]:
    result = CliRunner().invoke(
        main, ["show", "20261201_1", "--json", *args, "--home", str(home)]
    )
    assert result.exit_code == 0, result.output
    events = [(e["kind"], e["text"] or "") for e in json.loads(result.stdout)]
    return events, result.stderr


def test_messages_without_created_timestamp_are_shown(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    clean, _ = show(home)
    with sqlite3.connect(home / DB) as db:
        db.execute("ALTER TABLE messages RENAME COLUMN created_timestamp TO created")
    db.close()
    events, err = show(home)
    assert [e for e in events if e[0] != "meta"] == [e for e in clean if e[0] != "meta"]
    assert "Traceback" not in err
