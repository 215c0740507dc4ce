"""`watch --since` reads a time as `list --since` does: a date with a zone is that whole
day where the zone is, and a time whose zone moves it before year 1 or past 9999 in UTC is
the first or last moment a time holds, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import api
from sessdex.cli import main

DEMO = str(api.demo_home().path)
# the demo's sessions, last updated 2026-11-29 10:05 (codex), 2026-11-28 14:03 and
# 2026-11-26 09:01 UTC (claude)
NEWEST, MIDDLE, OLDEST = "019a7e21", "3f2b9c1e", "a7c41d05"


@pytest.mark.parametrize(
    ("since", "board"),
    [
        ("2026-11-28Z", [NEWEST, MIDDLE]),
        # the 29th in +12:00 starts at 12:00 UTC on the 28th, not at 12:00 on the 29th
        ("2026-11-29+12:00", [NEWEST, MIDDLE]),
        # the 29th in -12:00 starts at 12:00 UTC on the 29th, after the newest
        ("2026-11-29-12:00", []),
        ("0001-01-01T00:00+14:00", [NEWEST, MIDDLE, OLDEST]),  # year 0 in UTC
        ("0001-01-01+14:00", [NEWEST, MIDDLE, OLDEST]),
        ("9999-12-31T23:00-14:00", []),  # year 10000 in UTC
    ],
)
def test_watch_since_a_zoned_time_shows_the_board_list_shows(
    since: str, board: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path))
    for command in (["watch", "--json"], ["list", "--json"]):
        args = [*command, "--since", since, "--home", DEMO]
        result = CliRunner().invoke(main, args, catch_exceptions=False)
        assert result.exit_code == 0, (command, result.output)
        assert [row["id"][:8] for row in json.loads(result.stdout)] == board, command
