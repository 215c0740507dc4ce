"""Goose: a session copied with `copy_session` (Desktop's duplicate) holds its source's turns.

Follows aaif-goose/goose crates/goose/src/session/session_manager.rs, `copy_session`: a new
session row (its `created_at` now, its token counters and `usage_ledger` empty), the
source's extension data, recipe, provider and model, then `replace_conversation` writes
every message of the source again under the new session, each keeping its `message_id`
and `created_timestamp`. No column names the source.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main

HOME = Path(__file__).parent / "data" / "goose" / "home"
DB = Path(".local") / "share" / "goose" / "sessions" / "sessions.db"
SOURCE = "20261201_1"
COPY = "20261203_1"


def _home(tmp_path: Path, *, copy_ids: bool = True) -> str:
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    connection = sqlite3.connect(home / DB)
    with connection:
        columns = [r[1] for r in connection.execute("PRAGMA table_info(sessions)")]
        row = dict(
            zip(
                columns,
                connection.execute(
                    "SELECT * FROM sessions WHERE id = ?", (SOURCE,)
                ).fetchone(),
                strict=True,
            )
        )
        row.update(id=COPY, name="Copy of the first one", created_at="2026-12-03 09:00:00",
                   updated_at="2026-12-03 09:00:00")  # fmt: skip
        for name in columns:
            if name.endswith("_tokens"):
                row[name] = None
        connection.execute(
            f"INSERT INTO sessions ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
            list(row.values()),
        )
        connection.execute(
            "INSERT INTO messages (session_id, role, content_json, created_timestamp, "
            "timestamp, tokens, metadata_json, message_id) "
            "SELECT ?, role, content_json, created_timestamp, timestamp, tokens, "
            "metadata_json, CASE WHEN ? THEN message_id ELSE 'new-' || id END "
            "FROM messages WHERE session_id = ? ORDER BY id",
            (COPY, copy_ids, SOURCE),
        )
    connection.close()
    return str(home)


def _show(run: CliRunner, home: str, session: str) -> str:
    result = run.invoke(main, ["show", session, "--home", home, "--no-pager"])
    assert result.exit_code == 0, result.output
    return result.stdout.split("\n\n", 1)[1]


def test_the_copy_shows_its_turns_after_a_note_naming_the_source(
    tmp_path: Path, run: CliRunner
) -> None:
    home = _home(tmp_path)
    copy, source = _show(run, home, COPY), _show(run, home, SOURCE)
    note = f"started from a copy of {SOURCE}'s conversation"
    assert copy.startswith("· " + note)
    assert copy.split("\n", 1)[1].strip() and note not in source


def test_the_copy_bills_nothing_it_did_not_spend(
    tmp_path: Path, run: CliRunner
) -> None:
    argv = ["usage", "session", "--json", "--app", "goose", "--home", _home(tmp_path)]
    result = run.invoke(main, argv)
    assert result.exit_code == 0, result.output
    assert COPY not in {row["key"] for row in json.loads(result.stdout)}


def test_messages_of_their_own_are_no_copy(tmp_path: Path, run: CliRunner) -> None:
    home = _home(tmp_path, copy_ids=False)
    assert "started from a copy" not in _show(run, home, COPY)
