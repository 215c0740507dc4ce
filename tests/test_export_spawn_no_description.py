"""A spawn that says nothing of what it was for is named alone in the exports, as `show`
names it: no dash or colon left hanging before nothing."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from tests.helpers import claude_line, write_claude_session

SESSION = "41414141-0000-4000-8000-000000000001"


def _export(home: Path, fmt: str) -> str:
    result = CliRunner().invoke(
        main, ["export", "4141", "-f", fmt, "--home", str(home)], catch_exceptions=False
    )
    assert result.exit_code == 0, result.stderr
    return result.stdout


def _spawning(tmp_path: Path, kind: str) -> Path:
    """A home of one Claude Code session whose last answer spawns a `kind` sub-agent with
    a Task call that gives no description."""
    home = tmp_path / "home"
    path = write_claude_session(home, SESSION, str(tmp_path))
    call = {"type": "tool_use", "id": "toolu_1", "name": "Task",
            "input": {"subagent_type": kind, "prompt": "Run the tests."}}  # fmt: skip
    line = claude_line(
        SESSION, str(tmp_path), type="assistant", uuid="a2", parentUuid="a1",
        timestamp="2026-11-20T10:00:06.000Z", requestId="req_2",
        message={"id": "msg_2", "role": "assistant", "content": [call]},
    )  # fmt: skip
    with path.open("a") as out:
        out.write(json.dumps(line) + "\n")
    return home


def test_a_spawn_without_a_description_is_named_alone(tmp_path: Path) -> None:
    home = _spawning(tmp_path, "tester")
    shown = (
        CliRunner()
        .invoke(main, ["show", "4141", "--no-pager", "--home", str(home)])
        .stdout
    )
    assert "Spawned sub-agent tester\n" in shown
    assert "- 🤖 sub-agent **tester**\n" in _export(home, "md")
    assert "spawned sub-agent <b>tester</b></div>" in _export(home, "html")


def test_a_spawn_type_of_any_length_is_one_short_name_in_every_export(
    tmp_path: Path,
) -> None:
    """A type is the model's words: one of 5,000 characters went whole into the Markdown
    and HTML exports (`show` cut it at 30 columns)."""
    home = _spawning(tmp_path, "tester-" + "x" * 5000)
    for fmt, marker in (("md", "🤖 sub-agent"), ("html", "spawned sub-agent")):
        # the call's arguments are shown as given (capped as results are), not its name
        (named,) = [line for line in _export(home, fmt).splitlines() if marker in line]
        assert "tester-xxxx" in named, fmt
        assert "x" * 100 not in named, fmt
