"""Crush's project database with a column of `sessions` gone (a migration undone, another
fork of its schema): its sessions are listed and shown whole, as where any other is gone."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
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


def without(home: Path, column: str, table: str = "sessions") -> None:
    """`column` of the home's shop-api database's `table` dropped."""
    with sqlite3.connect(home / DB) as db:
        for kind, name in db.execute(
            "SELECT type, name FROM sqlite_master WHERE type IN ('trigger', 'index') "
            "AND sql IS NOT NULL"
        ).fetchall():
            db.execute(f'DROP {kind.upper()} "{name}"')
        db.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    db.close()


def listed(home: Path) -> set[str]:
    result = CliRunner().invoke(main, ["list", "--json", "--all", "--home", str(home)])
    assert result.exit_code == 0, result.output
    return {row["id"] for row in json.loads(result.stdout)}


def test_a_lead_without_parent_links_is_shown_whole(tmp_path: Path) -> None:
    """Its sub-agent calls as plain tool calls, not the transcript cut at the first."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    clean, _ = show(home)
    without(home, "parent_session_id")
    events, err = show(home)
    assert "cannot read" not in err
    said = [e for e in clean if e[0] in ("user", "assistant", "tool_call")]
    assert [e for e in events if e[0] in ("user", "assistant", "tool_call")] == said


@pytest.mark.parametrize(
    ("table", "column"),
    [("sessions", "created_at"), ("messages", "role")],
)
def test_sessions_are_listed_without_a_column(
    tmp_path: Path, table: str, column: str
) -> None:
    """The sessions table whole, a column its listing only sorts or enriches by gone."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    before = listed(home)
    assert any(i.startswith(LEAD) for i in before)
    without(home, column, table)
    assert listed(home) == before
