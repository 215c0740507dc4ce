"""Crush's project database with `sessions.parent_session_id` gone (a migration undone,
another fork of its schema): the transcript is shown whole, its sub-agent calls as plain
tool calls, not cut at the first one."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main

HOME = Path(__file__).parent / "data" / "crush" / "home"
DB = "code/shop-api/.crush/crush.db"
LEAD = "8c1f2e3d"


def show(home: Path) -> tuple[list[tuple[str, str]], str]:
    result = CliRunner().invoke(
        main, ["show", LEAD, "--json", "--subagents", "none", "--home", str(home)]
    )
    assert result.exit_code == 0, result.output
    events = [(e["kind"], e["text"] or "") for e in json.loads(result.stdout)]
    return events, result.stderr


def test_a_lead_without_parent_links_is_shown_whole(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    clean, _ = show(home)
    with sqlite3.connect(home / DB) as db:
        for (name,) in db.execute(
            "SELECT name FROM sqlite_master WHERE type='trigger'"
        ):
            db.execute(f'DROP TRIGGER "{name}"')
        db.execute("ALTER TABLE sessions DROP COLUMN parent_session_id")
    db.close()
    events, err = show(home)
    assert "cannot read" not in err
    said = [e for e in clean if e[0] in ("user", "assistant", "tool_call")]
    assert [e for e in events if e[0] in ("user", "assistant", "tool_call")] == said
