"""`--since now` is the moment the command starts: `watch --since now` shows the sessions
written after it started (it re-read `now` at each listing, so none was ever shown), and an
empty `list --since now` says why in words that fit (not "the newest changed 1w ago")."""

from __future__ import annotations

import json
import os
import shutil
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import api, live
from sessdex.cli import main
from sessdex.sources import Home

DEMO = api.demo_home().path
NEW = "5e55e55e-0000-4000-8000-000000000001"
LEAD = ".claude/projects/-home-demo-code-shop-api/3f2b9c1e-8d4a-4e7b-9a61-0c5d2e7f8a90.jsonl"


def _old_home(tmp_path: Path) -> Path:
    """The demo's Claude Code session, last written a day ago."""
    home = tmp_path / "home"
    path = home / LEAD
    path.parent.mkdir(parents=True)
    shutil.copyfile(DEMO / LEAD, path)
    os.utime(path, (time.time() - 86400, time.time() - 86400))
    return home


def _write_new(folder: Path) -> None:
    """A new session's first prompt, written now."""
    record = {
        "type": "user",
        "uuid": "00000000-0000-4000-8000-000000000001",
        "parentUuid": None,
        "sessionId": NEW,
        "cwd": "/home/demo/code/shop-api",
        "timestamp": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z"),
        "message": {"role": "user", "content": "fix the cart"},
    }
    (folder / f"{NEW}.jsonl").write_text(json.dumps(record) + "\n")


def test_watch_since_now_shows_a_session_written_after_it_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "index"))
    monkeypatch.setattr(live, "RESCAN_SECONDS", 0.5)  # new files looked for soon
    home = _old_home(tmp_path)
    path = home / LEAD
    boards = api.watch_sessions(Home(home), since="now", duration=6, notify=False)
    assert next(boards) == []  # the old session is not shown
    time.sleep(1.1)  # a second later: past the moment the board started
    _write_new(path.parent)
    shown: list[str] = []
    for rows in boards:
        shown = [row.session.id[:8] for row in rows if row.session is not None]
        if shown:
            break
    boards.close()
    assert shown == ["5e55e55e"]


def test_an_empty_list_since_now_names_watch_since_now(tmp_path: Path) -> None:
    home = _old_home(tmp_path)
    result = CliRunner().invoke(main, ["list", "--since", "now", "--home", str(home)])
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr.startswith(
        "No session matches --since now, the moment list ran: 'sessdex watch --since now"
    ), result.stderr
    assert "shows those that change from then on." in result.stderr


def test_find_and_usage_since_now_say_what_the_option_left_out(tmp_path: Path) -> None:
    home = str(_old_home(tmp_path))
    result = CliRunner().invoke(
        main, ["find", "shop", "--since", "now", "--home", home]
    )
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr == (
        "No session matches 'shop' with --since now, but 1 does without --since now.\n"
    )
    result = CliRunner().invoke(main, ["usage", "--since", "now", "--home", home])
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr.startswith("No token usage matches --since now; "), (
        result.stderr
    )


def test_an_empty_watch_since_now_says_since_it_started(tmp_path: Path) -> None:
    home = str(_old_home(tmp_path))
    result = CliRunner().invoke(
        main, ["watch", "--once", "--since", "now", "--home", home]
    )
    assert result.exit_code == 0, result.output
    assert "No session changed since watch started; the newest changed" in result.output


@pytest.mark.parametrize("command", ["list", "find", "watch", "usage"])
def test_since_and_until_help_name_now(command: str) -> None:
    result = CliRunner().invoke(main, [command, "--help"], terminal_width=2000)
    options = ("  --since WHEN", "  --until WHEN")
    lines = [line for line in result.stdout.splitlines() if line.startswith(options)]
    assert len(lines) == (1 if command == "watch" else 2)  # watch has no --until
    assert all(" now " in line for line in lines), lines


def test_a_time_it_cannot_read_names_now_among_the_examples() -> None:
    result = CliRunner().invoke(main, ["list", "--since", "nwo", "--home", str(DEMO)])
    assert result.exit_code == 2
    assert "cannot read the time 'nwo'" in result.stderr
    assert "today, yesterday, now," in result.stderr, result.stderr
