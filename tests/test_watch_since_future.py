"""`watch` of a session whose records are dated in the future (a clock set ahead, a
record copied from another machine; the index keeps up to a day of it): the time its
reason's age counts from, `since`, is now at the latest, as the age the board says is
never negative. JSON gave a `since` hours after the board was drawn."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from tests.helpers import write_claude_session

SESSION = "a9e0a9e0-0000-4000-8000-0000000000f7"


def _ahead(hours: int) -> str:
    """ISO-8601 UTC, as our JSON writes it, of `hours` from now at a minute's start."""
    at = int(time.time()) // 60 * 60 + hours * 3600
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def test_watch_json_never_gives_a_since_after_now(tmp_path: Path) -> None:
    write_claude_session(tmp_path, SESSION, "/w/ahead", when=_ahead(2))
    args = ["watch", "--once", "--since", "2d", "--home", str(tmp_path)]
    before = time.time()
    result = CliRunner().invoke(main, [*args, "--json"])
    after = time.time()
    assert result.exit_code == 0, result.output
    [row] = json.loads(result.stdout)
    since = datetime.fromisoformat(str(row["since"])).timestamp()
    assert before - 1 <= since <= after, (row, before, after)
    [line] = [json.loads(x) for x in CliRunner().invoke(main, [*args, "--nl"]).stdout.splitlines()]  # fmt: skip
    assert datetime.fromisoformat(str(line["since"])).timestamp() <= time.time(), line
    said = CliRunner().invoke(main, args).stdout
    assert "turn ended 0s ago" in said, said
