"""gptme before 0.35 writes no registry entry (`subagent-meta.json`) for a sub-agent: the
lead's `subagent(...)` call alone says whose it is. It is listed under that lead and read
into its events, as a registered one is, and its usage counted once."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.helpers import cli_over

DATA = Path(__file__).parent.parent / "data" / "gptme" / "home"
LEAD = "2026-11-30-happy-blue-fish"
CHILD = "subagent-impl-k3x9"


def test_a_sub_agent_with_no_registry_entry_is_read_into_its_lead(
    tmp_path: Path,
) -> None:
    """`show` of the lead said "Spawned sub-agent impl" and nothing the sub-agent did;
    `tree` gave it no tokens; `list` listed it beside its lead, as a session of its own."""
    shown = cli_over(DATA, "show", LEAD).output
    assert "print(1 + 1)" in shown  # the sub-agent's own call, under its name
    tree = json.loads(cli_over(DATA, "tree", LEAD, "--json").output)
    [child] = tree["children"]
    assert child["id"] == CHILD and child["usage"]["input_tokens"] == 50
    listed = json.loads(cli_over(DATA, "list", "--all", "--json").output)
    parents = {row["id"]: row.get("parent_id") for row in listed}
    assert parents[CHILD] == LEAD
    assert CHILD not in {
        r["id"] for r in json.loads(cli_over(DATA, "list", "--json").output)
    }
    assert "sub-agent of " + LEAD in cli_over(DATA, "show", CHILD).output


def test_its_usage_is_counted_once(tmp_path: Path) -> None:
    """Read into its lead, its response is billed in the lead's row (3,100 input tokens
    and its 50), not in a row of its own."""
    rows = json.loads(cli_over(DATA, "usage", "session", "--json").output)
    inputs = {row["id"]: row["input_tokens"] for row in rows}
    assert inputs == {LEAD: 3150, "2026-12-02-brave-red-owl": 900}


def test_a_registered_sub_agent_of_another_lead_is_not_claimed(tmp_path: Path) -> None:
    """A conversation of the same agent id whose registry entry names another lead is
    that lead's, whatever this lead's call says."""
    home = tmp_path / "home"
    shutil.copytree(DATA, home)
    folder = home / ".local/share/gptme/logs" / CHILD
    (folder / "subagent-meta.json").write_text(
        json.dumps({"parent_logdir": "/x/logs/2026-12-02-brave-red-owl"})
    )
    listed = json.loads(cli_over(home, "list", "--all", "--json").output)
    parents = {row["id"]: row.get("parent_id") for row in listed}
    assert parents[CHILD] == "2026-12-02-brave-red-owl"


def _nested(tmp_path: Path) -> Path:
    """The fixture home, its sub-agent starting one of its own ("deep"), neither with
    a registry entry."""
    home = tmp_path / "home"
    shutil.copytree(DATA, home)
    logs = home / ".local/share/gptme/logs"
    child = logs / CHILD / "conversation.jsonl"
    call = {
        "role": "assistant",
        "timestamp": "2026-11-30T10:05:05",
        "content": '```ipython\nsubagent("deep", "Check the edge cases")\n```',
        "metadata": {
            "model": "anthropic/claude-haiku-4-5",
            "usage": {"input_tokens": 60, "output_tokens": 8},
        },
    }
    said = {
        "role": "system",
        "timestamp": "2026-11-30T10:05:06",
        "content": "Executed code block.\n\n```result\nStarted subagent 'deep'\n```",
    }
    deep = [
        {"role": "user", "content": "Check the edge cases",
         "timestamp": "2026-11-30T10:05:07"},
        {"role": "assistant", "content": "```ipython\nprint('edge')\n```",
         "timestamp": "2026-11-30T10:05:08",
         "metadata": {"model": "anthropic/claude-haiku-4-5",
                      "usage": {"input_tokens": 70, "output_tokens": 7}}},
    ]  # fmt: skip
    with child.open("a") as out:
        out.write(json.dumps(call) + "\n" + json.dumps(said) + "\n")
    (logs / "subagent-deep-q7w2").mkdir()
    (logs / "subagent-deep-q7w2" / "conversation.jsonl").write_text(
        "".join(json.dumps(one) + "\n" for one in deep)
    )
    return home


def test_a_sub_agent_of_a_claimed_sub_agent_is_read_into_the_top_lead(
    tmp_path: Path,
) -> None:
    """Listed under the sub-agent whose call started it, it was left out of the lead's
    `show` and `tree` (the sub-agent's read claimed none), its tokens in no row of
    `usage`; it is read in under the sub-agent, as a registered one is."""
    home = _nested(tmp_path)
    listed = json.loads(cli_over(home, "list", "--all", "--json").output)
    parents = {row["id"]: row.get("parent_id") for row in listed}
    assert parents["subagent-deep-q7w2"] == CHILD
    assert "print('edge')" in cli_over(home, "show", LEAD).output
    tree = json.loads(cli_over(home, "tree", LEAD, "--json").output)
    [child] = tree["children"]
    [deep] = child["children"]
    assert deep["id"] == "subagent-deep-q7w2" and deep["usage"]["input_tokens"] == 70
    rows = json.loads(cli_over(home, "usage", "session", "--json").output)
    inputs = {row["id"]: row["input_tokens"] for row in rows}
    assert inputs[LEAD] == 3150 + 60 + 70


def test_watch_follows_a_sub_agent_with_no_registry_entry_as_show_reads_it(
    tmp_path: Path,
) -> None:
    """`show` reads it into its lead; `watch` of the lead said its spawn and nothing it
    did, nor what it wrote later (its own sub-agent's either)."""
    from sessdex import api
    from sessdex.live import LiveSession
    from sessdex.sources import Home

    home = tmp_path / "home"
    shutil.copytree(DATA, home)
    follower = LiveSession(api.resolve(Home.at(home), LEAD))
    first = follower.poll(now=1.0) + follower.poll(now=2.0)
    mine = [e for e in first if e.agent_id == CHILD]
    assert any(e.kind == "tool_call" for e in mine)  # its print(1 + 1)
    nested = _nested(tmp_path / "later")  # the sub-agent goes on, starts one of its own
    shutil.copy(
        nested / ".local/share/gptme/logs" / CHILD / "conversation.jsonl",
        home / ".local/share/gptme/logs" / CHILD / "conversation.jsonl",
    )
    shutil.copytree(
        nested / ".local/share/gptme/logs/subagent-deep-q7w2",
        home / ".local/share/gptme/logs/subagent-deep-q7w2",
    )
    later = follower.poll(now=5.0) + follower.poll(now=9.0)
    deep = [e for e in later if e.agent_id == "subagent-deep-q7w2"]
    assert any(e.kind == "tool_call" and "edge" in str(e.extra) for e in deep), later
