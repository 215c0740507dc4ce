"""show and export of a lead whose sub-agent its own transcript holds nothing of (an
OpenClaw sub-agent another agent's folder keeps): its events come after the lead's, so
the tokens they add up to are those `usage session` counts in the lead's row."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main

DATA = Path(__file__).parent / "data" / "openclaw" / "home"
MAIN = "a717db17-7bed-408a-8491-a2bb0b190f46"
CODER = "a07e2dd2-a3a4-4616-b863-2f9e2b97b6e0"  # under the `coder` agent's folder
# counted by hand from the three transcripts: the lead's three responses (120+30+60 in,
# 40+20+25 out, 2000+2100+2300 cache read), its sub-agent's (50 in, 18 out) and the
# coder agent's sub-agent's (40 in, 30 out)
HAND = {"input_tokens": 300, "output_tokens": 133, "cache_read_tokens": 6400}


def run(home: Path, *args: str) -> str:
    result = CliRunner().invoke(main, [*args, "--home", str(home)])
    assert result.exit_code == 0, result.output
    return result.output


def test_show_json_counts_the_sub_agent_another_agent_keeps_as_usage_does(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA, home)
    events = json.loads(run(home, "show", MAIN, "--json"))
    shown = {name: sum(e["usage"][name] for e in events if e["usage"]) for name in HAND}
    assert shown == HAND
    coder = [e for e in events if e["agent_id"] == CODER]
    assert [e["kind"] for e in coder if e["kind"] in ("user", "assistant")] == [
        "user",
        "assistant",
    ]
    assert all(e["session_id"] == MAIN for e in coder)
    assert len({e["seq"] for e in events}) == len(events)  # each event its own place
    (row,) = [
        r
        for r in json.loads(
            run(home, "usage", "session", "--json", "--app", "openclaw")
        )
        if r["id"] == MAIN
    ]
    assert {name: row[name] for name in HAND} == HAND


def test_export_markdown_totals_the_sub_agent_another_agent_keeps(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA, home)
    text = run(home, "export", MAIN, "-f", "md")
    assert "prune.sh keeps the last 90 days." in text  # the coder agent's answer
    # input as `usage` counts it, the cache apart
    assert text.rstrip().endswith("*Tokens: 300 in, 6.4k cache, 133 out.*")


def test_tree_still_marks_that_sub_agent_as_placed_from_the_list(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA, home)
    tree = json.loads(run(home, "tree", MAIN, "--json"))
    (coder,) = [c for c in tree["children"] if c["id"] == CODER]
    assert coder["unplaced"] is True
    assert coder["usage"]["input_tokens"] == 40
