"""`show` and `tree` of a sub-agent whose app keeps it in a file of its own (Qwen Code
0.21+: `projects/<project>/subagents/<lead>/agent-<id>.jsonl`) name the session it
belongs to, as the message for a sub-agent kept inside its lead's file does."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main

HOME = Path(__file__).parent / "data" / "qwen" / "subagents" / "home"
FOLDER = Path(".qwen/projects/-home-alex-code-shop-api/subagents")
LEAD = "7b3c1f0e-5a2d-4c8b-9e6f-1a2b3c4d5e6f"
CHILD = "general-purpose-call_8f2b1c9d0e"
NESTED = "Explore-call_77aa00bb11"


def _said(run: CliRunner, *argv: str, home: Path = HOME) -> str:
    result = run.invoke(main, [*argv, "--home", str(home)])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_show_of_a_sub_agent_in_its_own_file_names_its_lead(run: CliRunner) -> None:
    shown = _said(run, "show", CHILD, "--no-pager")
    assert f"sub-agent of {LEAD}" in shown.splitlines()[:5]
    lead = _said(run, "show", LEAD[:8], "--no-pager")
    assert "sub-agent of" not in lead  # a lead is no one's sub-agent


def test_tree_of_a_sub_agent_in_its_own_file_names_its_lead(run: CliRunner) -> None:
    assert f"sub-agent of {LEAD}" in _said(run, "tree", CHILD).splitlines()
    assert "sub-agent of" not in _said(run, "tree", LEAD[:8])
    assert LEAD not in json.dumps(json.loads(_said(run, "tree", CHILD, "--json")))


def test_a_nested_sub_agent_names_the_session_at_the_top(
    tmp_path: Path, run: CliRunner
) -> None:
    """A sub-agent another one spawned (`parentAgentId`) is listed under that one; the
    session named is the lead at the top of the line."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    folder = home / FOLDER / LEAD
    lines = (folder / f"agent-{CHILD}.jsonl").read_text(encoding="utf-8")
    (folder / f"agent-{NESTED}.jsonl").write_text(
        lines.replace(CHILD, NESTED).replace("general-purpose", "Explore"),
        encoding="utf-8",
    )
    meta = json.loads((folder / f"agent-{CHILD}.meta.json").read_text("utf-8"))
    meta.update(agentId=NESTED, agentType="Explore", subagentName="Explore",
                parentAgentId=CHILD, toolUseId="call_77aa00bb11")  # fmt: skip
    (folder / f"agent-{NESTED}.meta.json").write_text(json.dumps(meta), "utf-8")
    listed = _said(run, "list", "--all", "--json", "--app", "qwen", home=home)
    parents = {row["id"]: row.get("parent_id") for row in json.loads(listed)}
    assert parents[NESTED] == CHILD
    assert f"sub-agent of {LEAD}" in _said(run, "tree", NESTED, home=home).splitlines()
    shown = _said(run, "show", NESTED, "--no-pager", home=home)
    assert f"sub-agent of {LEAD}" in shown.splitlines()[:5]
