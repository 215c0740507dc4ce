"""A Vibe 3 sub-agent whose `CURRENT` is gone (deleted, or mid-rewrite) is read from its
newest generation, as a lead is: its lead's `show` reads it after its spawn. Before, the
lead's read took it for missing and showed it only as an orphan, after the lead's end."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

UNIFIED = Path(".vibe") / "logs" / "session" / "unified"
HOME = Path(__file__).parent / "data" / "vibe" / "home"
LEAD = "11e8c9f6-0261-4b81-c506-fc5d45ed7a3a"
CHILD = "child-d6d2c0b9d4b3f893638acbd9"


def _shown(home: Path) -> list[dict[str, object]]:
    shown = CliRunner().invoke(main, ["show", LEAD[:8], "--json", "--home", str(home)])
    assert shown.exit_code == 0, shown.output
    events: list[dict[str, object]] = json.loads(shown.stdout)
    return events


def test_a_lead_shows_its_sub_agent_whose_current_is_gone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    whole = _shown(home)
    (home / UNIFIED / CHILD / "CURRENT").unlink()

    shown = _shown(home)
    assert any(e.get("agent_id") == CHILD for e in shown)
    assert shown == whole  # after its spawn, not as an orphan at the end
