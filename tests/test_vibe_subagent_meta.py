"""Mistral Vibe (legacy folders): a sub-agent whose own meta.json cannot be read (cut
short mid-write, or a folder in its place) is listed and shown from its messages.jsonl,
under the id, lead, folder and branch its lead's meta.json gives it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

HOME = Path(__file__).parent / "data" / "vibe" / "home"
LEAD_FOLDER = Path(".vibe/logs/session/session_20261130_081129_fe38b8f5")
CHILD_FOLDER = LEAD_FOLDER / "agents" / "explore_20261130_081129_ad739610"
LEAD = "fe38b8f5-4dba-d4fd-b461-4ef8b3ed7078"
CHILD = "ad739610-b155-6747-3b00-d8fe0a8cc57b"


def _damaged(tmp_path: Path, how: str) -> Path:
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    meta = home / CHILD_FOLDER / "meta.json"
    if how == "cut short":
        meta.write_bytes(meta.read_bytes()[:200])
    elif how == "empty":
        meta.write_bytes(b"")
    else:  # a folder in its place
        meta.unlink()
        meta.mkdir()
    return home


def _listed(run: CliRunner, home: Path) -> dict[str, dict[str, object]]:
    argv = ["list", "--all", "--json", "--app", "vibe", "--home", str(home)]
    result = run.invoke(main, argv)
    assert result.exit_code == 0, result.output
    return {row["id"]: row for row in json.loads(result.stdout)}


@pytest.mark.parametrize("how", ["cut short", "empty", "a folder"])
def test_a_sub_agent_with_an_unreadable_meta_json_is_listed_under_its_lead(
    tmp_path: Path, run: CliRunner, how: str
) -> None:
    intact = _listed(run, HOME)[CHILD]
    listed = _listed(run, _damaged(tmp_path, how))
    assert CHILD in listed  # its full id, as the lead names it
    child = listed[CHILD]
    assert child["parent_id"] == LEAD
    assert child["cwd"] == intact["cwd"] and child["branch"] == intact["branch"]
    assert child["title"] == intact["title"]
    assert child["agent_type"] == "explore"


@pytest.mark.parametrize("how", ["cut short", "a folder"])
def test_a_sub_agent_with_an_unreadable_meta_json_shows_its_messages(
    tmp_path: Path, run: CliRunner, how: str
) -> None:
    def shown(home: Path) -> tuple[list[tuple[object, ...]], str]:
        argv = ["show", CHILD[:13], "--json", "--home", str(home)]
        result = run.invoke(main, argv)
        assert result.exit_code == 0, result.output
        events = json.loads(result.stdout)
        assert {e["session_id"] for e in events} == {CHILD}
        return [(e["kind"], e["text"], e["tool"]) for e in events], result.stderr

    intact, _ = shown(HOME)
    read, warned = shown(_damaged(tmp_path, how))
    # what it did, all of it; only the token count its meta.json held is lost
    assert [e for e in read if e[0] != "usage"] == [
        e for e in intact if e[0] != "usage"
    ]
    assert any(kind == "tool_result" for kind, *_ in read)
    assert "meta.json" in warned  # the damage is said
