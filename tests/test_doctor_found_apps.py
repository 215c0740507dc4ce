"""`sessdex doctor` on a new user's machine: a folder every desktop has (`~/.config`) or
one another app owns (`~/.gemini`) is no sign that an editor extension or Antigravity is
installed; only the app's own folders are."""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
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
        assert not re.search(rf"\({app}, [^()]*\): 0 sessions", text)
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
        assert re.search(rf"\({app}, [^()]*\): 0 sessions", text), text


def test_a_warm_doctor_sees_an_apps_own_folder_come_and_go(tmp_path: Path) -> None:
    """A warm doctor takes whether each app is there from the scans the index kept:
    an app's own folder made or removed since is seen at once, as a cold one sees it."""
    home = a_desktop_home(tmp_path)
    storage = home / ".config/Code/User/globalStorage"
    own = (
        storage / "saoudrizwan.claude-dev",
        storage / "rooveterinaryinc.roo-cline",
        home / ".local/share/kilo",
        home / ".gemini/antigravity",
    )

    def found() -> list[str]:
        reports = json.loads(doctor(home, "--json")[1])
        return [r["app"] for r in reports if r["app"] in SHARED_ONLY and r["exists"]]

    assert found() == [] and found() == []  # cold, then warm
    for folder in own:
        folder.mkdir(parents=True)
    assert sorted(found()) == sorted(SHARED_ONLY)
    assert sorted(found()) == sorted(SHARED_ONLY)  # warm: kept as found
    for folder in own:
        folder.rmdir()
    assert found() == []


def test_an_index_noted_without_the_answers_asks_the_sources_again(
    tmp_path: Path,
) -> None:
    """An index whose noted scans keep no answer to doctor's questions (written before
    they were kept) is no wrong answer: a warm doctor and an empty list ask the sources,
    and say what a cold run says."""
    home = a_desktop_home(tmp_path)
    (home / ".config/Code/User/globalStorage/saoudrizwan.claude-dev").mkdir(
        parents=True
    )
    shutil.rmtree(home / ".gemini")  # no session anywhere: the empty list speaks
    cold = doctor(home)
    assert (
        "(cline, VS Code extension and CLI): 0 sessions" in cold[1]
        and "\n  roo " in cold[1]
    )
    listed = CliRunner().invoke(main, ["list", "--app", "roo", "--home", str(home)])
    state = Path(os.environ["SESSDEX_HOME"])
    (index,) = state.glob("cache/index-*.sqlite")
    rewritten = []
    with sqlite3.connect(index) as db:
        for app, said in db.execute("SELECT app, said FROM scans").fetchall():
            value = json.loads(said)
            if value.pop("found", None) is not None or value.pop("looked", None):
                kept = json.dumps(value, sort_keys=True).encode("ascii")
                db.execute("UPDATE scans SET said = ? WHERE app = ?", (kept, app))
                rewritten.append(app)
    db.close()
    assert {"aider", "cline", "roo", "kilo"} <= set(rewritten)
    # all but the index's size, which the rewrite changed
    assert (
        doctor(home)[1].split("sessdex's own")[0] == cold[1].split("sessdex's own")[0]
    )
    again = CliRunner().invoke(main, ["list", "--app", "roo", "--home", str(home)])
    assert again.stderr == listed.stderr
    assert again.stderr.startswith("No folder of roo in the --home folder."), (
        again.stderr
    )
