"""`sessdex doctor` on a new user's machine: a folder every desktop has (`~/.config`) or
one another app owns (`~/.gemini`) is no sign that an editor extension or Antigravity is
installed; only the app's own folders are."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from tests.conftest import app_home

SHARED_ONLY = ("cline", "roo", "kilo", "antigravity")


def doctor(home: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(
        main, ["doctor", *args, "--home", str(home)], catch_exceptions=False
    )
    return result.exit_code, result.stdout


def a_desktop_home(tmp_path: Path) -> Path:
    """A home with the config folders every Linux desktop has and a Gemini CLI install."""
    home = tmp_path / "home"
    for folder in (".config/gtk-3.0", ".config/Code/User", ".local/share"):
        (home / folder).mkdir(parents=True)
    shutil.copytree(app_home("gemini"), home, dirs_exist_ok=True)
    return home


def test_an_app_whose_own_folder_is_missing_is_not_found(tmp_path: Path) -> None:
    home = a_desktop_home(tmp_path)
    code, out = doctor(home, "--json")
    assert code == 0
    reports = {r["app"]: r for r in json.loads(out)}
    assert reports["gemini"]["exists"] and reports["gemini"]["sessions"] > 0
    assert [a for a in SHARED_ONLY if reports[a]["exists"]] == []
    code, text = doctor(home)
    listed = text.split("Not found", 1)[1]  # one line each, not "0 sessions" at length
    for app in SHARED_ONLY:
        assert f"({app}): 0 sessions" not in text
        assert f"\n  {app} " in listed


def test_an_app_with_its_own_folder_and_no_session_is_found(tmp_path: Path) -> None:
    home = a_desktop_home(tmp_path)
    storage = ".config/Code/User/globalStorage"
    (home / storage / "saoudrizwan.claude-dev" / "tasks").mkdir(parents=True)
    (home / storage / "rooveterinaryinc.roo-cline").mkdir(parents=True)
    (home / ".local/share/kilo").mkdir(parents=True)
    (home / ".gemini/antigravity").mkdir(parents=True)
    code, out = doctor(home, "--json")
    assert code == 0
    reports = {r["app"]: r for r in json.loads(out)}
    assert [a for a in SHARED_ONLY if not reports[a]["exists"]] == []
    code, text = doctor(home)
    for app in SHARED_ONLY:
        assert f"({app}): 0 sessions" in text
