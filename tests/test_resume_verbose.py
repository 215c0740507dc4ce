"""`resume -v` names what its session's file could not be read at, as show's does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from tests.helpers import claude_line, write_claude_session

SESSION = "c0ffee00-0000-4000-8000-00000000000a"


def test_resume_verbose_names_the_unreadable_line_of_its_file(tmp_path: Path) -> None:
    # every other session-reading command took -v; resume said "No such option: -v"
    home, shop = tmp_path / "home", tmp_path / "shop"
    shop.mkdir()
    path = write_claude_session(home, SESSION, str(shop))
    with path.open("a") as file:
        file.write('{"type": "user", "broken\n')
    args = ["resume", SESSION[:8], "--print", "--home", str(home)]
    quiet = CliRunner().invoke(main, args)
    assert quiet.exit_code == 0, quiet.output
    assert "line 3" not in quiet.stderr
    loud = CliRunner().invoke(main, [*args, "-v"])
    assert loud.exit_code == 0, loud.output
    assert loud.stdout == quiet.stdout  # the line to run is the same
    assert "skipped 1 unreadable line" in loud.stderr, loud.stderr
    assert f"{path}:3: not JSON" in loud.stderr, loud.stderr


def _folderless_session(home: Path) -> Path:
    """A Claude Code session that recorded no folder: refused before any plan exists."""
    path = home / ".claude" / "projects" / "-shop" / f"{SESSION}.jsonl"
    path.parent.mkdir(parents=True)
    line = claude_line(
        SESSION,
        "",
        type="user",
        uuid="u1",
        timestamp="2026-11-20T10:00:00.000Z",
        message={"role": "user", "content": "hello there"},
    )
    del line["cwd"]
    path.write_text(json.dumps(line) + "\n" + '{"type": "user", "broken\n')
    return path


@pytest.mark.parametrize("how", [[], ["--print"], ["--json"]])
def test_resume_verbose_names_the_unreadable_line_when_refused(
    tmp_path: Path, how: list[str]
) -> None:
    # a refusal before a plan existed said only why: -v named none of the lines
    # the app's file could not be read at, though they may be why it has no folder
    home = tmp_path / "home"
    path = _folderless_session(home)
    args = ["resume", SESSION[:8], *how, "--home", str(home)]
    quiet = CliRunner().invoke(main, args)
    assert "recorded no folder" in quiet.output, quiet.output
    assert "line 2" not in quiet.stderr and ":2:" not in quiet.stderr
    loud = CliRunner().invoke(main, [*args, "-v"])
    assert loud.exit_code == quiet.exit_code, loud.output
    assert loud.stdout == quiet.stdout
    assert "skipped 1 unreadable line" in loud.stderr, loud.stderr
    assert f"{path}:2: not JSON" in loud.stderr, loud.stderr
