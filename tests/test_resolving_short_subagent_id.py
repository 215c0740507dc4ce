"""A sub-agent an app keeps inside its lead's file is searched for by 6 or more
characters of its id: a shorter one said only that no session starts with it."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main

HOME = str(Path(__file__).parent / "data" / "copilot" / "home")


def test_a_short_id_of_an_in_file_sub_agent_says_how_many_characters_find_it() -> None:
    shown = CliRunner().invoke(main, ["show", "875a", "--home", HOME])
    assert shown.exit_code == 1
    assert "no session id starts with '875a'" in shown.output
    assert "6 or more characters" in shown.output
    # the whole hint of 6+ characters still finds it
    found = CliRunner().invoke(main, ["show", "875a18", "--home", HOME])
    assert "sub-agent inside the copilot session" in found.output
