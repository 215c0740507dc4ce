"""A title of any size: a hostile home (or an app that took a whole pasted log for a
title) gives sessions 1 MB titles. The listing keeps a bounded start of each, marked as
cut, so that what `list` holds and prints stays small however many there are."""

from __future__ import annotations

import contextlib
import json
import shutil
import sqlite3
import tracemalloc
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main

DATA = Path(__file__).parent / "data"
SESSIONS = 30
TITLE = "retry " * 200_000  # 1.2 MB


def _home(root: Path) -> Path:
    """The OpenCode fixture home, its database given SESSIONS more sessions, each with
    a title of over a megabyte."""
    shutil.copytree(DATA / "opencode" / "home", root, symlinks=True)
    database = root / ".local/share/opencode/opencode.db"
    with contextlib.closing(sqlite3.connect(database)) as db:
        columns = [row[1] for row in db.execute("PRAGMA table_info(session)")]
        template = db.execute(
            "SELECT * FROM session WHERE parent_id IS NULL LIMIT 1"
        ).fetchone()
        for number in range(SESSIONS):
            row = dict(zip(columns, template, strict=True))
            row["id"] = f"ses_long{number:04d}"
            row["title"] = TITLE
            db.execute(
                f"INSERT INTO session ({', '.join(columns)})"
                f" VALUES ({', '.join('?' * len(columns))})",
                [row[column] for column in columns],
            )
        db.commit()
    return root


def test_a_megabyte_title_is_listed_cut(tmp_path: Path) -> None:
    home = _home(tmp_path / "home")
    runner = CliRunner()
    args = ["--home", str(home)]
    first = runner.invoke(main, ["list", "--json", *args])
    assert first.exit_code == 0, first.output
    titles = [
        s["title"] for s in json.loads(first.stdout) if s["id"].startswith("ses_long")
    ]
    assert len(titles) == SESSIONS
    for title in titles:
        assert TITLE.startswith(title[:-1]) and title.endswith("\u2026")
        assert len(title) <= 1000
    # once indexed, a listing holds no title whole
    tracemalloc.start()
    try:
        for command in (["list"], ["list", "--json"], ["find", "retry"]):
            result = runner.invoke(main, [*command, *args])
            assert result.exit_code == 0, result.output
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8 * 1024 * 1024, f"peak {peak / 2**20:.0f} MiB"


def test_a_long_model_and_branch_are_listed_and_said_cut(tmp_path: Path) -> None:
    """A model and a branch of 200 KB each (lines short enough to be read whole): the
    listing keeps their start, and `show`'s header and `resume`'s note about the model it
    leaves out (no plain name) say no more than that."""
    folder = tmp_path / "home/.claude/projects/-w"
    folder.mkdir(parents=True)
    session = "88888888-0000-4000-8000-000000000001"
    model, branch = "m" * 200_000, "b" * 200_000
    lines = [
        {
            "type": "user",
            "sessionId": session,
            "cwd": "/w",
            "gitBranch": branch,
            "uuid": "u1",
            "parentUuid": None,
            "timestamp": "2026-11-20T10:00:00.000Z",
            "message": {"role": "user", "content": "hi"},
        },
        {
            "type": "assistant",
            "sessionId": session,
            "cwd": "/w",
            "uuid": "a1",
            "parentUuid": "u1",
            "timestamp": "2026-11-20T10:00:05.000Z",
            "message": {
                "id": "m1",
                "role": "assistant",
                "model": model,
                "content": [{"type": "text", "text": "ok"}],
            },
        },
    ]
    (folder / f"{session}.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in lines)
    )
    runner = CliRunner()
    home = ["--home", str(tmp_path / "home")]
    (listed,) = json.loads(runner.invoke(main, ["list", "--json", *home]).stdout)
    for name, whole in (("model", model), ("branch", branch)):
        assert whole.startswith(listed[name][:-1]) and listed[name].endswith("\u2026")
        assert len(listed[name]) <= 1000
    for command in (["show", "8888", "--no-pager"], ["resume", "8888", "--print"]):
        result = runner.invoke(main, [*command, *home])
        assert len(result.output) < 5000, command
