"""VS Code and its forks put their user folder under `$VSCODE_APPDATA/<product>` when that
variable is set, and under `$VSCODE_PORTABLE/user-data` in portable mode, ahead of the
platform's folder (`getUserDataPath` in VS Code's
src/vs/platform/environment/node/userDataPath.ts); a portable editor's terminal passes
`VSCODE_PORTABLE` on to the programs run in it."""

from __future__ import annotations

from pathlib import Path

from sessdex.sources import Home, cline
from tests.sources.test_cline import sessions, task

SAY = [{"ts": 1735000000000, "type": "say", "say": "task", "text": "Tidy the imports"}]


def test_cline_tasks_under_vscode_appdata_are_found(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".config").mkdir(parents=True)  # the usual folder is there, empty
    task(tmp_path, "1735000000000", SAY, user_dir="appdata/Code")
    found = sessions(Home(home, {"VSCODE_APPDATA": str(tmp_path / "appdata")}))
    assert found["1735000000000"].title == "Tidy the imports"
    location = cline.locate(Home(home, {"VSCODE_APPDATA": str(tmp_path / "appdata")}))
    assert "VSCODE_APPDATA" in (location.override or "")


def test_cline_tasks_of_a_portable_editor_are_found(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    task(tmp_path, "1735000000001", SAY, user_dir="VSCode/data/user-data")
    portable = str(tmp_path / "VSCode" / "data")
    found = sessions(Home(home, {"VSCODE_PORTABLE": portable}))
    assert found["1735000000001"].title == "Tidy the imports"
