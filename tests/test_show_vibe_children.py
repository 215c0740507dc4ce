"""A Vibe 3 lead's sub-agents whose spawn its transcript leaves out are found by their
own snapshots naming it; each sub-agent's read looked through every sibling's snapshot
again for its own, so reading a lead with thousands of them cost their count squared."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from sessdex.sources import _vibe_unified

UNIFIED = Path(".vibe") / "logs" / "session" / "unified"
HOME = Path(__file__).parent / "data" / "vibe" / "home"
LEAD = "11e8c9f6-0261-4b81-c506-fc5d45ed7a3a"
CHILD = "child-d6d2c0b9d4b3f893638acbd9"


def test_a_lead_with_many_sub_agents_loads_each_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    unified = home / UNIFIED
    many = 40
    for n in range(many):  # copies the lead's spawns do not name: found by their parent
        new = f"{CHILD[:-5]}{n:05d}"
        shutil.copytree(unified / CHILD, unified / new)
        for path in (unified / new).rglob("*"):
            if path.is_file():
                path.write_bytes(path.read_bytes().replace(CHILD.encode(), new.encode()))  # fmt: skip
    real = _vibe_unified.load
    loaded: list[str] = []

    def counted(folder: Path, *args: object, **kwargs: bool) -> object:
        loaded.append(folder.name)
        return real(folder, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(_vibe_unified, "load", counted)
    shown = CliRunner().invoke(main, ["show", LEAD[:8], "--json", "--home", str(home)])
    assert shown.exit_code == 0, shown.output
    children = {
        event["extra"]["child_id"]
        for event in json.loads(shown.stdout)
        if event["kind"] == "subagent"
    }
    assert len(children) == many + 1  # every copy, and the child the lead spawned
    assert len(loaded) < 4 * (many + 1), f"{len(loaded)} loads of {many + 1} stores"
