"""A broken Crush `projects.json` (a torn write, lines out of place) must not hide every
Crush session: the project folders it still names are read, and the damage is said."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main

HOME = Path(__file__).parent / "data" / "crush" / "home"
REGISTRY = Path(".local/share/crush/projects.json")


def _broken_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    registry = home / REGISTRY
    lines = registry.read_text().splitlines()
    # two lines swapped: the document no longer parses, every folder is still named
    lines[6], lines[14] = lines[14], lines[6]
    registry.write_text("\n".join(lines))
    return home


def _crush_ids(home: Path, *extra: str) -> tuple[set[str], str]:
    result = CliRunner().invoke(
        main, ["list", "--json", "--all", "--home", str(home), *extra]
    )
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    return {r["id"] for r in rows if r["app"] == "crush"}, result.stderr


def test_a_torn_registry_still_lists_the_projects_it_names(tmp_path: Path) -> None:
    good, _ = _crush_ids(HOME)
    assert good  # the fixture has Crush sessions to lose
    found, _ = _crush_ids(_broken_home(tmp_path))
    assert found == good


def test_a_torn_registry_is_said(tmp_path: Path) -> None:
    _, stderr = _crush_ids(_broken_home(tmp_path), "--verbose")
    assert "projects.json" in stderr


def test_a_registry_folder_with_a_nul_in_it_names_none(tmp_path: Path) -> None:
    """A `data_dir` with `\\u0000` in it (valid JSON; no path holds a NUL): the list
    stopped on "embedded null byte" (a warning, no Crush session listed) when the scan
    noted that folder for the index; now it names no folder, and every session is found
    where the others say."""
    good, _ = _crush_ids(HOME)
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    registry = home / REGISTRY
    text = registry.read_text()
    registry.write_text(text.replace("noora/.crush", "noora\\u0000/.crush", 1))
    found, stderr = _crush_ids(home)
    assert "Error" not in stderr and "sessdex bug" not in stderr
    assert found == good  # noora's are found in its project folder too
