"""`resume --json` under a `SESSDEX_SHELL` sessdex does not know: the plan still, its
`command` null (argv and cwd need no shell), and a warning on stderr naming the shell."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

from .helpers import write_claude_session


def test_json_gives_the_plan_with_no_command_under_an_unknown_shell(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "work"
    folder.mkdir()
    home = tmp_path / "home"
    write_claude_session(home, "abc123", str(folder))
    monkeypatch.setenv("SESSDEX_SHELL", "nushell")
    result = CliRunner().invoke(
        main, ["resume", "abc123", "--json", "--home", str(home)]
    )
    assert result.exit_code == 0, result.output
    plan = json.loads(result.stdout)
    assert plan["command"] is None
    assert plan["cwd"] == str(folder)
    assert "abc123" in plan["argv"]
    assert "'nushell'" in result.stderr
    assert any("nushell" in warning for warning in plan["warnings"])
