"""A Mistral Vibe 3 child store whose snapshot names another lead than the session whose
spawn made it (hostile or damaged): it was counted in both leads' rows, the spawner's
read holding it at its spawn, the named lead's as a child that names it. It counts once,
in the lead it names (where `list --all` puts it), warm as cold."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main

HOME = Path(__file__).parent / "data" / "vibe" / "home"
UNIFIED = Path(".vibe") / "logs" / "session" / "unified"
SPAWNER = "11e8c9f6-0261-4b81-c506-fc5d45ed7a3a"
OTHER = "fdf5294e-9715-7217-12e1-46cae3e60fe9"
CHILD = "child-d6d2c0b9d4b3f893638acbd9"


def _sessions(home: Path) -> dict[str, int]:
    args = ["usage", "session", "--json", "--app", "vibe", "--home", str(home)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    return {row["key"]: row["input_tokens"] for row in json.loads(result.output)}


def _daily(home: Path) -> int:
    args = ["usage", "daily", "--json", "--app", "vibe", "--home", str(home)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    return sum(row["input_tokens"] for row in json.loads(result.output))


def _name_other_lead(home: Path) -> None:
    [state] = (home / UNIFIED / CHILD / "generations").glob("*/projection-state.json")
    text = state.read_text()
    assert f'"parentSessionId":"{SPAWNER}"' in text
    state.write_text(text.replace(SPAWNER, OTHER))


def test_a_child_store_naming_another_lead_counts_once(tmp_path: Path) -> None:
    warm, cold = tmp_path / "warm", tmp_path / "cold"
    shutil.copytree(HOME, warm)
    shutil.copytree(HOME, cold)
    before = _sessions(warm)
    every = _daily(warm)
    assert (before[SPAWNER], before[OTHER], every) == (4_800, 2_400, 31_700)
    _name_other_lead(warm)
    _name_other_lead(cold)
    for home in (warm, cold, warm):
        rows = _sessions(home)
        assert (rows[SPAWNER], rows[OTHER]) == (2_400, 4_800)
        assert sum(rows.values()) == every
        assert _daily(home) == every
