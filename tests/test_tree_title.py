"""`sessdex tree ID` names the session it draws: the lead's line carries its title, as
`list` shows it. It said "lead [done]" alone, and a tree of a one-agent session said
nothing of which session it was."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main

from .helpers import write_claude_session

DATA = Path(__file__).parent / "data"


def test_the_lead_line_holds_the_session_title() -> None:
    result = CliRunner().invoke(
        main, ["tree", "82d9f90c", "--home", str(DATA / "claude" / "home")]
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "lead [done] Sub-agent smoke test"
    # a sub-agent keeps the task its lead gave it
    assert "general-purpose [done] Greeting sub-agent" in result.stdout


def test_a_title_holding_escape_sequences_is_shown_without_them(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    (tmp_path / "proj").mkdir()
    write_claude_session(
        home, "7e57", str(tmp_path / "proj"), prompt="Fix \x1b]0;owned\x07\x1b[31mit"
    )
    result = CliRunner().invoke(main, ["tree", "7e57", "--home", str(home)])
    assert result.exit_code == 0, result.output
    first = result.stdout.splitlines()[0]
    assert first.startswith("lead [done] Fix ") and first.endswith("it"), first
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout


def test_json_is_unchanged_by_it() -> None:
    result = CliRunner().invoke(
        main, ["tree", "82d9f90c", "--json", "--home", str(DATA / "claude" / "home")]
    )
    assert '"description":null' in result.stdout.split('"children"')[0]


def test_json_lead_has_the_title_list_json_has() -> None:
    # list, watch and usage --json carry `title`; tree's lead had only a null description
    import json

    home = str(DATA / "claude" / "home")
    tree = json.loads(
        CliRunner().invoke(main, ["tree", "82d9f90c", "--json", "--home", home]).stdout
    )
    listed = json.loads(
        CliRunner().invoke(main, ["list", "--json", "--home", home]).stdout
    )
    title = next(row["title"] for row in listed if row["id"] == tree["id"])
    assert tree["title"] == title == "Sub-agent smoke test"
    # a sub-agent's task stays its description; it has no title of its own here
    assert [child["title"] for child in tree["children"]] == [None]
    lines = CliRunner().invoke(main, ["tree", "82d9f90c", "--nl", "--home", home])
    assert json.loads(lines.stdout.splitlines()[0])["title"] == title
