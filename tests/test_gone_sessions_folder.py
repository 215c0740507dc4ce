"""An app's folder of sessions that is a broken link (`~/.gemini/tmp -> gone`,
`~/.qwen/projects -> gone`, moved to a disk not mounted) hides every session of that
app: list, usage and doctor name it and where it leads, as they name `~/.codex/sessions
-> gone`. It was said nowhere, not even by -v: the app looked as if never used."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main


@pytest.mark.parametrize("folder", [".gemini/tmp", ".qwen/projects", ".qwen/tmp"])
def test_a_sessions_folder_linked_to_one_gone_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, folder: str
) -> None:
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    home = tmp_path / "home"
    (home / folder).parent.mkdir(parents=True)
    (home / folder).symlink_to(tmp_path / "gone")
    said = f"{home / folder} is a link to '{tmp_path / 'gone'}', which does not exist"
    run = CliRunner()
    for command in (["list", "-v"], ["list"], ["usage"], ["doctor"]):
        result = run.invoke(main, [*command, "--home", str(home)])
        assert result.exit_code == 0, result.output
        assert said in result.output, (command, result.output)
