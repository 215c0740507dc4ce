"""The variables that send an app to another folder pick the index as the others do:
`VSCODE_APPDATA` and `VSCODE_PORTABLE` (where VS Code and its forks keep the Cline, Roo
and Kilo Code tasks) and pi's old `CODING_AGENT_DIR`. A home where one of them is set
in some shells only (a portable editor's terminal sets `VSCODE_PORTABLE`) shared one
index with the shells that lack it, so each switch dropped and re-read their sessions."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sessdex import api, index, sources
from sessdex.sources import Home

TASK = (
    Path(__file__).parent
    / "data/cline/home/.config/Cursor/User/globalStorage/saoudrizwan.claude-dev/tasks"
    / "1790940000000"
)
STORE = Path("Code/User/globalStorage/saoudrizwan.claude-dev/tasks")


@pytest.mark.parametrize("variable", ["VSCODE_APPDATA", "VSCODE_PORTABLE"])
def test_an_editor_folder_variable_keeps_its_own_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    home_dir = tmp_path / "home"
    (home_dir / ".config").mkdir(parents=True)
    folder = tmp_path / "editor"
    user = folder / ("user-data" if variable == "VSCODE_PORTABLE" else "Code")
    shutil.copytree(TASK, user / STORE.relative_to("Code") / TASK.name)

    def listed(**environ: str) -> list[str]:
        home = Home(home_dir, {"HOME": str(home_dir), **environ})
        return [row.session().id for row in api.list_sessions(home).rows]

    assert listed(**{variable: str(folder)}) == [TASK.name]
    assert listed() == []
    cline = sources.get("cline")
    original = cline.parse
    calls: list[str] = []

    def parse(path, location, diagnostics):  # type: ignore[no-untyped-def]
        calls.append(str(path))
        return original(path, location, diagnostics)

    monkeypatch.setattr(cline, "parse", parse)
    assert listed(**{variable: str(folder)}) == [TASK.name]
    assert calls == []  # its own index still had it: nothing read again


def test_pis_old_folder_variable_keeps_its_own_index(tmp_path: Path) -> None:
    def home(**environ: str) -> Home:
        return Home(tmp_path, {"HOME": str(tmp_path), **environ})

    moved = index.index_file(home(CODING_AGENT_DIR=str(tmp_path / "x")))
    assert moved != index.index_file(home())
