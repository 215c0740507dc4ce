"""The Cursor IDE's and the Antigravity IDE's own stores (`<user folder>/User/globalStorage/
state.vscdb`) are in the editor's user folder, which VS Code and its forks put under
`$VSCODE_APPDATA/<product>` when that variable is set (`getUserDataPath`), as sessdex
already finds Cline's, Roo's, Kilo's and Amp's stores there. (`VSCODE_PORTABLE` is left
out: it names one portable editor's folder, whichever editor that is, so its
`globalStorage/state.vscdb` may be another editor's.)"""

from __future__ import annotations

import shutil
from pathlib import Path

from sessdex.model import Session
from sessdex.sources import Home
from tests.sources import test_antigravity, test_cursor, test_cursor_ide

ANTIGRAVITY = test_antigravity.DATA / "home"


def _shown(found: dict[str, Session]) -> set[tuple[str, str | None, str | None]]:
    """What `list` shows of each session: its id, title and folder."""
    return {(s.id, s.title, s.cwd) for s in found.values()}


def test_the_cursor_ide_store_under_vscode_appdata_is_found(tmp_path: Path) -> None:
    built = tmp_path / "built"
    test_cursor_ide.sample(built)
    home = tmp_path / "home"
    (home / ".config").mkdir(parents=True)
    shutil.move(built / ".config" / "Cursor", tmp_path / "appdata" / "Cursor")
    environ = {"VSCODE_APPDATA": str(tmp_path / "appdata")}
    expected = {test_cursor_ide.AGENT, test_cursor_ide.CHAT, test_cursor_ide.CHILD}
    assert set(test_cursor.sessions(Home(home, environ))) >= expected
    assert not set(test_cursor.sessions(Home(home, {}))) & expected


def test_the_antigravity_ide_store_under_vscode_appdata_is_found(
    tmp_path: Path,
) -> None:
    everything = _shown(test_antigravity.sessions(Home.at(ANTIGRAVITY)))
    home = tmp_path / "home"
    shutil.copytree(ANTIGRAVITY, home)
    shutil.move(home / ".config" / "Antigravity", tmp_path / "appdata" / "Antigravity")
    environ = {"VSCODE_APPDATA": str(tmp_path / "appdata")}
    without = _shown(test_antigravity.sessions(Home(home, {})))
    assert without != everything  # the IDE's store held some of it
    assert _shown(test_antigravity.sessions(Home(home, environ))) == everything
