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


def test_a_short_id_in_a_home_of_no_such_app_says_nothing_of_sub_agents() -> None:
    """The demo home's apps (Claude Code, Codex) keep each sub-agent in a file of its
    own, listed: no hint that more characters would find one kept in its lead's file."""
    from sessdex import api

    demo = str(api.demo_home().path)
    for typed in ("last", "zz9", "q"):
        shown = CliRunner().invoke(main, ["show", typed, "--home", demo])
        assert shown.exit_code == 1, shown.output
        assert f"no session id starts with '{typed}'" in shown.output
        assert "sub-agent" not in shown.output, typed
