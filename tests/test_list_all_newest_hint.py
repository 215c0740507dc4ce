"""`list --all --since 2d` that leaves every session out names the newest one's age and
the `--since` that reaches it: with `--all`, a sub-agent is listed as its lead is, and
the newest may be one. The line named the lead's age alone (`--since 4w --all`, where
`--since 1w --all` listed the sub-agents changed 5 days ago)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

from .helpers import nested_claude_run, real_list, settle

STAMP = re.compile(r"2026-11-30T\d\d:\d\d:\d\d(?:\.\d+)?Z")


def _days_ago(text: str, days: int) -> str:
    """`text`'s times moved together so that its newest is `days` days ago to the
    minute (moving the date alone left its age a day short before the fixture's hour)."""
    stamps = [_parsed(stamp) for stamp in STAMP.findall(text)]
    shift = datetime.now(UTC) - timedelta(days=days, minutes=1) - max(stamps)
    return STAMP.sub(
        lambda m: (
            (_parsed(m.group()) + shift).strftime("%Y-%m-%dT%H:%M:%S.%f")[:23] + "Z"
        ),
        text,
    )


def _parsed(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00"))


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A lead changed 20 days ago, its sub-agents 5 days ago."""
    home = tmp_path / "home"
    lead = nested_claude_run(home)
    for path in home.rglob("*.jsonl"):
        days = 20 if path == lead else 5
        path.write_text(_days_ago(path.read_text(), days))
    settle(home)
    return home


def _hint(home: Path, *options: str) -> str:
    result = CliRunner().invoke(main, ["list", *options, "--home", str(home)])
    assert result.exit_code == 0 and result.stdout == "", result.output
    return result.stderr


def test_the_newest_with_all_is_the_newest_sub_agent(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    assert "the newest changed 2w ago" in _hint(home, "--since", "2d")
    said = _hint(home, "--all", "--since", "2d")
    assert "the newest changed 5d ago: 'sessdex list --since 1w --all" in said, said
    # warm, the quick path says the same
    args = ["list", "--all", "--since", "2d", "--home", str(home)]
    assert "the newest changed 5d ago" in real_list(home, args).stderr
