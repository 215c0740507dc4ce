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
