"""What `follow -n N` counts, as its help says: in text, the last N entries drawn of its
recent history, a sub-agent's among them; with --nl, the last N events, token usage and
turn ends among them."""

from __future__ import annotations

import json

from click.testing import CliRunner

from sessdex import api
from sessdex.cli import main
from tests.conftest import DATA

DEMO = str(api.demo_home().path)
CLAUDE = str(DATA / "claude" / "home")


def _follow(session: str, home: str, *args: str) -> str:
    result = CliRunner().invoke(
        main, ["follow", session, "--duration", "0", "--home", home, *args]
    )
    assert result.exit_code == 0, result.output
    return result.stdout


def test_the_help_says_what_text_and_nl_each_count() -> None:
    # it said "Show the last N events first" for both, where the text counts entries
    text = " ".join(_follow("3f2b", DEMO, "--help").split())
    assert "the last N entries it draws of its recent history" in text, text
    assert "with --nl, its last N events, token usage and turn ends among them" in text


def test_text_counts_entries_drawn_a_sub_agents_among_them() -> None:
    # a tool's result of 2 lines is one entry: 4 entries, 5 lines
    drawn = _follow("3f2b", DEMO, "-n", "4").splitlines()
    assert len(drawn) == 5 and drawn[0].startswith("  ⎿ "), drawn
    # the sub-agent's interleaved entries count, as they are drawn
    drawn = _follow("82d9f90c", CLAUDE, "-n", "4").splitlines()
    assert len(drawn) == 4 and drawn[0].startswith("  ↳ general-purpose"), drawn


def test_nl_counts_events_usage_and_turn_ends_among_them() -> None:
    tail = [
        json.loads(line)
        for line in _follow("3f2b", DEMO, "-n", "2", "--nl").splitlines()
    ]
    assert [event["kind"] for event in tail] == ["usage", "turn_end"]


def test_nl_keeps_one_files_order_where_its_times_step_back() -> None:
    # Gemini CLI stamps a turn's end with its response's time, before its last tool
    # result's: follow sorted them by time, so its last event was not show's
    gemini = str(DATA / "gemini" / "home")
    child = "85b47322-1c7f-4f31-830e-607bca07767c"
    shown = CliRunner().invoke(main, ["show", child, "--json", "--home", gemini])
    assert shown.exit_code == 0, shown.output
    want = [event["kind"] for event in json.loads(shown.stdout)][-3:]
    lines = _follow(child, gemini, "-n", "3", "--nl").splitlines()
    assert [json.loads(line)["kind"] for line in lines] == want
