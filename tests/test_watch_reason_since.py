"""`watch --json`'s reason holds no age: a saved board went stale ("exited after its turn,
1w ago" a week later) and no script could compare two. The age's start is `since`."""

from __future__ import annotations

import json
import os
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from sessdex.cli import main
from tests.helpers import write_claude_session


def _days_ago(days: int) -> tuple[float, str]:
    """(epoch seconds, ISO-8601 UTC as our JSON writes it) of `days` days ago, at 30
    seconds past a minute (`write_claude_session` dates its answer 5 s after a minute)."""
    at = float(int(time.time()) // 60 * 60 - 30 - days * 86400)
    return at, datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def _board(home: Path, *words: str) -> list[Any]:
    """What `watch` with `words` prints: each line's JSON."""
    args = ["watch", *words, "--since", "100000d", "--home", str(home)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


def test_watch_json_gives_the_reason_without_its_age_and_the_time_it_counts_from(
    tmp_path: Path,
) -> None:
    at, when = _days_ago(3)
    session = "a9e0a9e0-0000-4000-8000-000000000001"
    path = write_claude_session(tmp_path, session, "/w/shop", when=when)
    os.utime(path, (at, at))  # its file written when its records say: days ago
    [row] = _board(tmp_path, "--json")[0]
    # the board says "exited after its turn, 3d ago": JSON, read later, says what and
    # since when
    assert row["status"] == "ended" and "ago" not in str(row["reason"]), row
    assert row["reason"] == "exited after its turn", row
    assert row["since"] == when and row["updated"] == when, row
    assert datetime.fromisoformat(str(row["since"])).timestamp() == at
    # `--nl` gives the same
    [line] = _board(tmp_path, "--nl", "--once")
    assert (line["reason"], line["since"]) == ("exited after its turn", when), line
    # the board itself still says how long ago
    args = ["watch", "--once", "--since", "100000d", "--home", str(tmp_path)]
    said = CliRunner().invoke(main, args).stdout
    assert "exited after its turn, 3d ago" in said, said
