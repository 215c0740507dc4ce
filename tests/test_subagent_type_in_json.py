"""A sub-agent's type (or, where its app records none, the name its lead gave it) is in
`list --all --json` and in `usage session --json`'s `agents[]` for every fixture app
whose `tree` names it: a Codex sub-agent's was null while the table said "greeter"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

DATA = Path(__file__).parent / "data"
HOMES = sorted(path.parent.name for path in DATA.glob("*/home"))


def _json(*args: str) -> object:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _named_in_trees(home: str, leads: set[str]) -> dict[str, str]:
    """Each sub-agent's id and what its lead's `tree --json` calls it."""
    named: dict[str, str] = {}
    stack = [_json("tree", lead, "--json", "--home", home) for lead in sorted(leads)]
    while stack:
        node = stack.pop()
        assert isinstance(node, dict)
        stack.extend(node["children"])
        if node["agent_type"] != "lead" and (node["agent_type"] or node["agent_name"]):
            named[node["id"]] = node["agent_type"] or node["agent_name"]
    return named


@pytest.mark.parametrize("app", HOMES)
def test_a_sub_agent_named_by_tree_has_its_type_in_json(app: str) -> None:
    home = str(DATA / app / "home")
    rows = _json("list", "--all", "--json", "--home", home)
    assert isinstance(rows, list)
    subs = {row["id"]: row for row in rows if row.get("parent_id")}
    leads = {row["parent_id"] for row in subs.values()} & {row["id"] for row in rows}
    for agent, name in _named_in_trees(home, leads).items():
        if agent in subs:
            assert subs[agent]["agent_type"], (app, agent, name)


def test_codex_sub_agent_is_greeter_in_list_and_usage() -> None:
    home = str(DATA / "codex" / "home")
    rows = _json("list", "--all", "--json", "--home", home)
    assert isinstance(rows, list)
    assert [r["agent_type"] for r in rows if r.get("parent_id")] == ["greeter"]
    report = _json("usage", "session", "--json", "--home", home)
    assert isinstance(report, list)
    agents = [a for row in report for a in row.get("agents", []) if a["key"] != "lead"]
    assert [a["agent_type"] for a in agents] == ["greeter"]
