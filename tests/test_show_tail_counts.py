"""What `show --tail N` counts, as its help says: in text, the last N entries drawn; as
JSON, the last N events, token usage and turn ends among them."""

from __future__ import annotations

import json

from click.testing import CliRunner

from sessdex import api
from sessdex.cli import main

DEMO = str(api.demo_home().path)
SESSION = "3f2b9c1e"


def _show(*args: str) -> str:
    result = CliRunner().invoke(main, ["show", SESSION, *args, "--home", DEMO])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_the_help_says_what_text_and_json_each_count() -> None:
    # it said "the lead agent's last N events" for both, where the text counts entries
    text = " ".join(_show("--help").split())
    assert "the last N entries it draws; with --json or --nl, its last N events" in text


def test_text_counts_entries_and_json_counts_events() -> None:
    every = json.loads(_show("--json"))
    tail = json.loads(_show("--tail", "2", "--json"))
    assert tail == every[-2:]
    assert [event["kind"] for event in tail] == ["usage", "turn_end"]
    # the text's last 2 are the last 2 entries a person sees, none of them a usage
    drawn = _show("--tail", "2", "--no-pager").split("\n\n", 1)[1]
    whole = _show("--no-pager")
    assert drawn.strip() and whole.rstrip().endswith(drawn.rstrip())
    assert drawn.strip() != whole.split("\n\n", 1)[1].strip()
