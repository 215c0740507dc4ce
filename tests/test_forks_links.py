"""A fork names the session it was copied from: `list --json`, `show` and `tree` say so.

The fixture is pi's `/fork` (badlogic/pi-mono packages/coding-agent/src/core/
session-manager.ts, format 3: the new file's header names its source file in
`parentSession`), which the pi reader turns into the shared `forked_from_id` fact, as the
Codex, Qwen Code, Vibe, droid, OpenCode and Kimi readers do for theirs.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main

HOME = Path(__file__).parent / "data" / "pi" / "home"
SOURCE = "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
FORK = "0190a1c7-0000-7aaa-8bbb-ccccdddd0001"


def _home(tmp_path: Path) -> str:
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    return str(home)


def test_list_json_names_a_forks_source_and_no_source_for_the_others(
    tmp_path: Path, run: CliRunner
) -> None:
    result = run.invoke(
        main, ["list", "--json", "--app", "pi", "--home", _home(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    records = {r["id"]: r for r in json.loads(result.stdout)}
    assert records[FORK]["forked_from"] == SOURCE
    assert records[SOURCE]["forked_from"] is None


def test_show_says_which_session_the_fork_started_from(
    tmp_path: Path, run: CliRunner
) -> None:
    home = _home(tmp_path)
    fork = run.invoke(main, ["show", FORK, "--home", home, "--no-pager"])
    assert fork.exit_code == 0, fork.output
    header = fork.stdout.split("\n\n")[0]
    assert f"forked from {SOURCE}" in header
    source = run.invoke(main, ["show", SOURCE, "--home", home, "--no-pager"])
    assert "forked from" not in source.stdout


def test_tree_says_which_session_the_fork_started_from(
    tmp_path: Path, run: CliRunner
) -> None:
    result = run.invoke(main, ["tree", FORK, "--home", _home(tmp_path)])
    assert result.exit_code == 0, result.output
    assert f"forked from {SOURCE}" in result.stdout


def test_exports_name_the_forks_source_among_its_facts(
    tmp_path: Path, run: CliRunner
) -> None:
    home = _home(tmp_path)
    markdown = run.invoke(main, ["export", FORK, "-f", "md", "--home", home])
    assert markdown.exit_code == 0, markdown.output
    facts = markdown.stdout.split("\n\n")[1]
    assert f"- **forked from**: `{SOURCE}`" in facts.splitlines()
    html = run.invoke(main, ["export", FORK, "-f", "html", "--home", home])
    assert html.exit_code == 0, html.output
    assert f"forked from {SOURCE}" in html.stdout.split('<div class="facts">')[1]
    source = run.invoke(main, ["export", SOURCE, "-f", "md", "--home", home])
    assert "forked from" not in source.stdout
