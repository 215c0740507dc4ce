"""`show --tail N` of a big OpenCode session whose sub-agent the index lists reads the
session's last rows, as it does of one without: the sub-agent's events are placed at its
spawn, far before them. It read the whole session (22 s of a 500 MB database)."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import api, sources
from sessdex.cli import main
from sessdex.sources import Home
from tests.conftest import app_home

LEAD = "ses_dd47cc97dffecuMitBkETrvX9v"  # spawns a sub-agent in its first answer
COPIES = 1000
PAD = "lorem ipsum dolor sit amet " * 200  # 5.4 KB an answer: 11 MB in all


def _grow(home: Path) -> Path:
    """The lead's prompt and answers written again `COPIES` times after it, its
    sub-agent's `task` call left out of the copies: one spawn, at the start."""
    path = home / ".local" / "share" / "opencode" / "opencode.db"
    db = sqlite3.connect(path)
    messages = db.execute(
        "SELECT id, time_created, data FROM message WHERE session_id = ?", (LEAD,)
    ).fetchall()
    for copy in range(1, COPIES + 1):
        later = copy * 1_000_000
        for message_id, created, data in messages:
            new = f"{message_id}_{copy:04d}"
            db.execute(
                "INSERT INTO message VALUES (?, ?, ?, ?, ?)",
                (new, LEAD, created + later, created + later, data),
            )
            db.execute(
                "INSERT INTO part SELECT id || ?, ?, session_id, time_created + ?, "
                "time_updated + ?, CASE json_extract(data, '$.type') WHEN 'text' "
                "THEN json_set(data, '$.text', json_extract(data, '$.text') || ?) "
                "ELSE data END FROM part WHERE message_id = ? "
                "AND json_extract(data, '$.tool') IS NOT 'task'",
                (f"_{copy:04d}", new, later, later, f" {copy} {PAD}", message_id),
            )
    db.commit()
    db.close()
    return path


def _read_bytes() -> int:
    with open("/proc/self/io") as io:
        return next(int(line.split()[1]) for line in io if line.startswith("rchar:"))


@pytest.mark.skipif(not Path("/proc/self/io").exists(), reason="counts /proc's rchar")
def test_show_tail_of_a_big_session_with_a_listed_sub_agent_reads_its_last_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(app_home("opencode"), tmp_path / "home", symlinks=True)
    database = _grow(tmp_path / "home")
    home = Home.at(tmp_path / "home")
    where = ["--home", str(home.path)]
    runner = CliRunner()
    assert runner.invoke(main, ["list", *where]).exit_code == 0  # the index built
    lead = api.resolve(home, LEAD)
    assert any(row.id for _, row in _under(home, lead.id))  # its sub-agent is listed

    before = _read_bytes()
    result = runner.invoke(main, ["show", LEAD, "--tail", "5", "--no-pager", *where])
    read = _read_bytes() - before
    assert result.exit_code == 0, result.output
    assert f"{COPIES} lorem" in result.stdout  # the last answer
    # its last rows: a few pages, not the 11 MB the whole read goes through
    assert read < database.stat().st_size / 4, (read, database.stat().st_size)

    # what the whole read ends with, drawn alike
    monkeypatch.delattr(sources.get("opencode"), "read_last")
    whole = runner.invoke(main, ["show", LEAD, "--tail", "5", "--no-pager", *where])
    assert whole.stdout == result.stdout


def _under(home: Home, session_id: str) -> list[tuple[str, object]]:
    from sessdex.index import Index

    index = Index(home)
    try:
        return list(index.under("opencode", [session_id]))
    finally:
        index.close()


CHILDREN = 8  # sub-agents spawned late in the lead's rows


def _spawn_late(path: Path, child: str) -> None:
    """`CHILDREN` more sub-agents, each a copy of `child` that a `task` call halfway
    through the lead starts, its row written after all the others (the last a scan of
    the lead's rows comes to)."""
    db = sqlite3.connect(path)
    [(task_id, data)] = db.execute(
        "SELECT id, data FROM part WHERE session_id = ? AND "
        "json_extract(data, '$.tool') = 'task'",
        (LEAD,),
    ).fetchall()
    [(message_id, created)] = db.execute(
        "SELECT id, time_created FROM message WHERE session_id = ? "
        "ORDER BY time_created LIMIT 1 OFFSET ?",
        (LEAD, COPIES),
    ).fetchall()
    columns = [row[1] for row in db.execute("PRAGMA table_info(session)")]
    for n in range(CHILDREN):
        copy = f"{child}{n:02d}"
        picked = ", ".join("?" if name == "id" else f"`{name}`" for name in columns)
        db.execute(
            f"INSERT INTO session SELECT {picked} FROM session WHERE id = ?",
            (copy, child),
        )
        for table in ("message", "part"):
            names = [row[1] for row in db.execute(f"PRAGMA table_info({table})")]
            chosen = ", ".join(
                "id || ?"
                if name == "id"
                else "?"
                if name == "session_id"
                else ("message_id || ?" if name == "message_id" else f"`{name}`")
                for name in names
            )
            values: tuple[str, ...] = (f"_{n}", copy)
            if "message_id" in names:
                values += (f"_{n}",)
            db.execute(
                f"INSERT INTO {table} SELECT {chosen} FROM {table} WHERE session_id = ?",
                (*values, child),
            )
        db.execute(
            "INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
            (
                f"{task_id}_late{n}",
                message_id,
                LEAD,
                created,
                created,
                data.replace(child, copy),
            ),
        )
    db.commit()
    db.close()


@pytest.mark.skipif(not Path("/proc/self/io").exists(), reason="counts /proc's rchar")
def test_show_tail_looks_for_many_sub_agents_spawns_in_one_pass(tmp_path: Path) -> None:
    """Each sub-agent's spawn looked for in the lead's rows once, not a pass a
    sub-agent: 8 spawned late read the lead's 11 MB 8 times, more than the whole read."""
    shutil.copytree(app_home("opencode"), tmp_path / "home", symlinks=True)
    database = _grow(tmp_path / "home")
    home = Home.at(tmp_path / "home")
    where = ["--home", str(home.path)]
    runner = CliRunner()
    assert runner.invoke(main, ["list", *where]).exit_code == 0
    [(_, first)] = _under(home, LEAD)
    _spawn_late(database, first.id)  # type: ignore[attr-defined]
    assert runner.invoke(main, ["list", *where]).exit_code == 0
    assert len(_under(home, LEAD)) == CHILDREN + 1  # all listed

    before = _read_bytes()
    result = runner.invoke(main, ["show", LEAD, "--tail", "5", "--no-pager", *where])
    read = _read_bytes() - before
    assert result.exit_code == 0, result.output
    assert f"{COPIES} lorem" in result.stdout
    assert read < 2 * database.stat().st_size, (read, database.stat().st_size)
