"""Claude Code forks (`--fork-session`, `/branch`): when the fork was made.

The fork's file opens with copies of its source's lines, each keeping the source's
timestamp and stamped `forkedFrom` (see tests/test_forks_claude.py for the shape).
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from tests.helpers import write_claude_session
from tests.test_forks_claude import FORK, SOURCE, _home


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


# The `derived-from` entry's shape is the one Claude Code 2.1.332's own program writes
# (its transcript-entry tables and the writer `/branch` calls, read in its npm bundle
# `@anthropic-ai/claude-code-linux-x64@2.1.332`): hand-made here, no real capture.
ORIGIN = "0b9c5f1e-4c3a-4d2b-9e8f-7a6b5c4d3e2f"


def _derived(tmp_path: Path, via: str) -> str:
    home = tmp_path / "home"
    path = write_claude_session(
        home, FORK, "/home/dev/shop", prompt="Try the other way"
    )
    entry = {
        "type": "derived-from", "v": 1, "sessionId": FORK,
        "sessions": [
            {"type": "unknown", "id": None, "via": "import"},
            {"type": "claude_code_session", "id": ORIGIN, "via": via},
        ],
    }  # fmt: skip
    with path.open("a") as stream:
        stream.write(json.dumps(entry) + "\n")
    return str(home)


def test_a_branch_named_by_derived_from_is_listed_and_shown_as_a_fork(
    tmp_path: Path, run: CliRunner
) -> None:
    home = _derived(tmp_path, "branch")
    assert _listed(run, home)[FORK]["forked_from"] == ORIGIN
    shown = run.invoke(main, ["show", FORK[:8], "--home", home])
    assert shown.exit_code == 0, shown.output
    assert f"forked from {ORIGIN}" in " ".join(shown.output.split())


def test_a_session_derived_from_a_cleared_one_is_not_a_fork(
    tmp_path: Path, run: CliRunner
) -> None:
    # `/clear` starts a new session that names the old one with via "clear"
    assert _listed(run, _derived(tmp_path, "clear"))[FORK]["forked_from"] is None
