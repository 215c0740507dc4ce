"""`tree <sub-agent>` run on a sub-agent alone: its root carries the description its
lead's tree gives it (the lead's spawn), as well as its type and name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

DATA = Path(__file__).parent / "data"
CASES = [
    ("claude", "82d9f90c", "a199d630441234c05"),  # 2.1, with its .meta.json
    ("claude", "22222222", "b0b0b0b0"),  # 2.0, beside its lead
    ("vibe", "11e8c9f6", "child-d6d2c0b9d4b3f893638acbd9"),  # Vibe 3, unified
]


def _tree(run: CliRunner, app: str, prefix: str) -> dict[str, object]:
    argv = ["tree", prefix, "--json", "--home", str(DATA / app / "home")]
    result = run.invoke(main, argv)
    assert result.exit_code == 0, result.output
    tree = json.loads(result.stdout)
    assert isinstance(tree, dict)
    return tree


@pytest.mark.parametrize(("app", "lead", "child"), CASES)
def test_a_sub_agents_own_tree_root_has_its_description(
    run: CliRunner, app: str, lead: str, child: str
) -> None:
    children = _tree(run, app, lead)["children"]
    assert isinstance(children, list)
    seen = next(node for node in children if node["id"] == child)
    assert seen["description"]  # the lead's tree says it
    own = _tree(run, app, child)
    assert own["id"] == child
    assert own["description"] == seen["description"]
    assert own["agent_type"] == seen["agent_type"]
    assert own["agent_name"] == seen["agent_name"]
