"""Amp's old VS Code extension kept its threads in the editor's user folder
(`<user folder>/User/globalStorage/sourcegraph.amp/threads3/`), which VS Code and its
forks put under `$VSCODE_APPDATA/<product>` when that variable is set, and under
`$VSCODE_PORTABLE/user-data` in portable mode (`getUserDataPath`), as sessdex already
finds Cline's, Roo's and Kilo's tasks there."""

from __future__ import annotations

import shutil
from pathlib import Path

from sessdex.sources import Home, amp
from tests.sources.test_amp import DATA, THREAD, sessions

STORE = Path("User/globalStorage/sourcegraph.amp/threads3")
SAMPLE = DATA / "home" / ".local/share/amp/threads" / f"{THREAD}.json"


def _thread_in(user_folder: Path) -> None:
    (user_folder / STORE).mkdir(parents=True)
    shutil.copy(SAMPLE, user_folder / STORE / SAMPLE.name)


def test_threads_under_vscode_appdata_are_found(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".config").mkdir(parents=True)  # the usual folder is there, empty
    _thread_in(tmp_path / "appdata" / "Code")
    environ = {"VSCODE_APPDATA": str(tmp_path / "appdata")}
    assert list(sessions(Home(home, environ))) == [THREAD]
    assert "VSCODE_APPDATA" in (amp.locate(Home(home, environ)).override or "")
    assert list(sessions(Home(home, {}))) == []  # not without the variable


def test_threads_of_a_portable_editor_are_found(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    _thread_in(tmp_path / "VSCode" / "data" / "user-data")
    environ = {"VSCODE_PORTABLE": str(tmp_path / "VSCode" / "data")}
    assert list(sessions(Home(home, environ))) == [THREAD]
    assert "VSCODE_PORTABLE" in (amp.locate(Home(home, environ)).override or "")
