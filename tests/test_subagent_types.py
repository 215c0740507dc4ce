"""A sub-agent's listing row carries the agent type its lead's tree shows for it: Mistral
Vibe 3's unified sub-agents (their type is in the lead's spawn, not in their own files)
and Claude Code 2.0's `agent-<id>.jsonl` beside the lead (no `.meta.json`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

DATA = Path(__file__).parent / "data"
CASES = [
    ("vibe", "11e8c9f6", "child-d6d2c0b9d4b3f893638acbd9"),
    ("claude", "22222222", "b0b0b0b0"),
]


def _json(run: CliRunner, *argv: str) -> object:
    result = run.invoke(main, [*argv, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _in_tree(node: dict[str, object], child: str) -> dict[str, object]:
    if node["id"] == child:
        return node
    for below in node["children"]:  # type: ignore[attr-defined]
        found = _in_tree(below, child) if isinstance(below, dict) else None
        if found:
            return found
    return {}


@pytest.mark.parametrize(("app", "lead", "child"), CASES)
def test_a_sub_agents_row_has_the_type_its_leads_tree_shows(
    run: CliRunner, app: str, lead: str, child: str
) -> None:
    home = str(DATA / app / "home")
    tree = _json(run, "tree", lead, "--home", home)
    assert isinstance(tree, dict)
    shown = _in_tree(tree, child)["agent_type"]
    assert shown  # the lead's spawn names it
    rows = _json(run, "list", "--all", "--app", app, "--home", home)
    assert isinstance(rows, list)
    row = next(r for r in rows if r["id"] == child)
    assert row["agent_type"] == shown
    # a script filtering sub-agents by type finds it
    assert child in [r["id"] for r in rows if r.get("agent_type") == shown]


def test_a_vibe_sub_agent_whose_leads_transcript_is_broken_is_listed_untyped(
    run: CliRunner, tmp_path: Path
) -> None:
    import shutil

    home = tmp_path / "home"
    shutil.copytree(DATA / "vibe" / "home", home)
    unified = home / ".vibe" / "logs" / "session" / "unified"
    for chunk in unified.glob(f"{CASES[0][1]}*/chunks/*.json"):
        chunk.write_bytes(b"[{not json")
    rows = _json(run, "list", "--all", "--app", "vibe", "--home", str(home))
    assert isinstance(rows, list)
    row = next(r for r in rows if r["id"] == CASES[0][2])
    assert row["parent_id"].startswith(CASES[0][1]) and row["agent_type"] is None
