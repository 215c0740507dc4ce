"""`transcripts.sub_agent_ids`: the ids of a session's sub-agents the index lists, which
every view names each sub-agent apart from (`views.text.SiblingIds`), read level by
level, bounded, and never a reason for a view to fail."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sessdex.index import Index
from sessdex.model import Session
from sessdex.sources import Home
from sessdex.transcripts import sub_agent_ids


def _indexed(tmp_path: Path, rows: list[tuple[str, str]]) -> tuple[Home, Path]:
    """A home whose index lists Crush sessions (id, parent id), oldest first."""
    (tmp_path / "home").mkdir()
    home = Home.at(tmp_path / "home")
    index = Index(home)
    index.db.executemany(
        "INSERT INTO sessions (app, id, parent_id, updated, cwd, search, record, state)"
        " VALUES ('crush', ?, ?, ?, '/work', '', x'7b7d', x'')",
        [(child, parent, n) for n, (child, parent) in enumerate(rows)],
    )
    index.db.commit()
    index.close()
    return home, index.path


def test_sub_agents_of_every_level_once_though_the_parents_loop(
    tmp_path: Path,
) -> None:
    """Sub-agents of sub-agents too, each once; a damaged index whose parents loop back
    to the session ends the walk (the session is not its own sub-agent)."""
    rows = [("a", "lead"), ("b", "lead"), ("c", "a"), ("d", "c"), ("lead", "d")]
    home, _ = _indexed(tmp_path, rows)
    assert sub_agent_ids(home, Session("crush", "lead")) == ["a", "b", "c", "d"]
    assert sub_agent_ids(home, Session("crush", "lead"), most=2) == ["a", "b"]
    assert sub_agent_ids(home, Session("crush", "a")) == ["c", "d", "lead", "b"]


def test_an_index_that_cannot_be_read_gives_no_ids_and_no_error(
    tmp_path: Path,
) -> None:
    """Names told apart from fewer ids: no reason to fail `show` or `export`."""
    home, path = _indexed(tmp_path, [("a", "lead")])
    db = sqlite3.connect(path)
    db.execute("ALTER TABLE sessions RENAME TO elsewhere")
    db.commit()
    db.close()
    assert sub_agent_ids(home, Session("crush", "lead")) == []
