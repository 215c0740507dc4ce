"""What a command says where it found nothing, or wrote a file: the thing it names,
quoted, and what to try next that can help."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

DATA = Path(__file__).parent / "data"


def test_an_id_on_a_home_with_no_sessions_says_there_are_none(tmp_path: Path) -> None:
    # 'Run sessdex list to see recent ones' sent the user to an empty list
    home = tmp_path / "home"
    home.mkdir()
    for ref in ("7f", "claude:7f"):
        result = CliRunner().invoke(main, ["show", ref, "--home", str(home)])
        assert result.exit_code == 1
        assert "no sessions at all" in result.output
        assert "doctor" in result.output and "to see recent ones" not in result.output
    # where there are sessions, the list is still where to look
    result = CliRunner().invoke(
        main, ["show", "7f", "--home", str(DATA / "claude" / "home")]
    )
    assert result.exit_code == 1
    assert "to see recent ones" in result.output
    assert "no sessions at all" not in result.output


def test_list_here_finding_nothing_names_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "No session matches --here" left the user to wonder which folder it took
    here = tmp_path / "my project"
    here.mkdir()
    monkeypatch.chdir(here)
    monkeypatch.delenv("PWD", raising=False)
    home = str(DATA / "claude" / "home")
    for args in (["list", "--here"], ["find", "zzz", "--here"]):
        result = CliRunner().invoke(main, [*args, "--home", home])
        assert result.exit_code == 0, result.output
        assert f"--here (in {str(here)!r})" in result.stderr


@pytest.mark.parametrize(
    ("args", "meant"),
    [
        (["follow", "--limit", "2", "x"], "-n/--lines"),
        (["show", "--lines", "2", "x"], "-n/--tail"),
        (["show", "--limit=2", "x"], "-n/--tail"),
    ],
)
def test_a_count_option_the_command_spells_otherwise_names_its_n(
    args: list[str], meant: str, tmp_path: Path
) -> None:
    # click said only "No such option '--limit'", finding no close spelling
    result = CliRunner().invoke(main, [*args, "--home", str(tmp_path)])
    assert result.exit_code == 2
    assert f"Did you mean '{meant}'?" in result.output
