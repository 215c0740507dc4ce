"""`sessdex tree <sub-agent id>` tells the sub-agent as the tree of the session that
started it does: its type (not "lead") and its status (not "running" or "stopped" for
one its lead's call already answered)."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main

DATA = Path(__file__).parent / "data"


def _tree(home: Path, session_id: str) -> dict[str, object]:
    result = CliRunner().invoke(
        main,
        ["tree", session_id, "--json", "--home", str(home)],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.stderr
    value: dict[str, object] = json.loads(result.stdout)
    return value


def _walk(node: dict[str, object]) -> Iterator[dict[str, object]]:
    yield node
    for child in node["children"]:  # type: ignore[attr-defined]
        yield from _walk(child)


def _old_home(tmp_path: Path) -> Path:
    """Claude Code's fixtures, last written a day ago (an ended session's files)."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "claude" / "home", home)
    for folder, _, names in os.walk(home):
        for name in names:
            os.utime(Path(folder) / name, (1_700_000_000, 1_700_000_000))
    return home


def test_a_sub_agents_own_tree_agrees_with_its_leads(tmp_path: Path) -> None:
    home = _old_home(tmp_path)
    for lead, child in (
        ("0a1b2c3d", "a0ad4f44468bdf20d"),  # answered by the lead's call: done
        ("22222222", "b0b0b0b0"),  # a 2.0 sub-agent file with no type of its own
    ):
        [seen] = [n for n in _walk(_tree(home, lead)) if n["id"] == child]
        alone = _tree(home, child)
        assert alone["id"] == child
        assert alone["agent_type"] != "lead"
        for key in ("agent_type", "status", "description", "tool_calls", "usage"):
            assert alone[key] == seen[key], (child, key)


def test_a_sub_agent_whose_lead_is_gone_is_not_called_the_lead(tmp_path: Path) -> None:
    """Its lead's file is not there (deleted, or never copied): it is still a sub-agent."""
    home = _old_home(tmp_path)
    alone = _tree(home, "test-hash-123")
    assert alone["id"] == "test-hash-123"
    assert alone["agent_type"] != "lead"
