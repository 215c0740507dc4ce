"""Claude Code forks (`--fork-session`, `/branch`): when the fork was made.

The fork's file opens with copies of its source's lines, each keeping the source's
timestamp and stamped `forkedFrom` (see tests/test_s39forks_claude.py for the shape).
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from tests.test_s39forks_claude import FORK, SOURCE, _home


def _listed(run: CliRunner, home: str) -> dict[str, dict[str, object]]:
    result = run.invoke(main, ["list", "--json", "--home", home])
    assert result.exit_code == 0, result.output
    return {r["id"]: r for r in json.loads(result.stdout)}


def test_a_fork_was_created_when_its_own_first_line_was_written(
    tmp_path: Path, run: CliRunner
) -> None:
    records = _listed(run, _home(tmp_path))
    assert str(records[SOURCE]["created"]).startswith("2026-11-20T10:00:00")
    # the copies keep the source's times; the fork's own prompt came a day later
    assert str(records[FORK]["created"]).startswith("2026-11-21T09:00:00")


def test_a_fork_with_only_copies_is_not_as_old_as_its_source(
    tmp_path: Path, run: CliRunner
) -> None:
    home = _home(tmp_path)
    fork = next(Path(home).rglob(f"{FORK}.jsonl"))
    copies = [line for line in fork.read_text().splitlines() if "forkedFrom" in line]
    fork.write_text("".join(line + "\n" for line in copies))  # nothing asked yet
    records = _listed(run, home)
    # made after the last line it copied, not at the source's start
    assert str(records[FORK]["created"]).startswith("2026-11-20T10:00:05")
