"""An empty result says where sessdex looked: a user's own home is "this machine", a
folder given with --home is not (saying "no sessions on this machine" of a copied home
tells the user something false about their machine)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["list"], "No agent sessions {} yet."),
        (["find", "app:gemini", "x"], "No folder of gemini {}."),
        (["usage"], "No token usage found {}."),
    ],
)
def test_an_empty_result_names_where_it_looked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], said: str
) -> None:
    own, copied = tmp_path / "own", tmp_path / "copied"
    own.mkdir()
    copied.mkdir()
    monkeypatch.setenv("HOME", str(own))
    for name in ("XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.setenv(name, str(tmp_path / "xdg" / name))
    runner = CliRunner()
    result = runner.invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0 and result.stdout == ""
    assert said.format("on this machine") in result.stderr
    result = runner.invoke(main, [*args, "--home", str(copied)], catch_exceptions=False)
    assert result.exit_code == 0 and result.stdout == ""
    assert said.format("in the --home folder") in result.stderr
    assert "on this machine" not in result.stderr


def test_a_home_with_only_the_editors_config_folder_has_no_agent_yet(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every Linux desktop has ~/.config (where Cline, Roo and Kilo keep their tasks,
    in their editors' folders): that folder alone is no agent found, as doctor says;
    a new user is told there is no session yet and shown the demo."""
    home = tmp_path / "home"
    (home / ".config" / "pip").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    for name in ("XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    result = CliRunner().invoke(main, ["list"], catch_exceptions=False)
    assert result.exit_code == 0 and result.stdout == ""
    assert result.stderr.startswith("No agent sessions on this machine yet.")
    assert "'sessdex demo'" in result.stderr
