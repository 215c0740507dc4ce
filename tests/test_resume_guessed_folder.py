"""`resume` of a session that recorded no folder, where sessdex only guessed one (an
Antigravity agy conversation: the first folder its agent listed): refused, as it never
resumes on a guess, but the guess is offered as a line to paste, quoted for the shell."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import shells
from sessdex.cli import main

DATA = Path(__file__).parent / "data" / "antigravity" / "home"
CLI = "3f6c2d1a-8b4e-4c7f-9a10-2b3c4d5e6f70"  # agy; lists /tmp/repo first
LOGS = f".gemini/antigravity-cli/brain/{CLI}/.system_generated/logs/transcript.jsonl"


@pytest.mark.parametrize("how", [["--print"], []])
def test_a_guessed_folder_is_offered_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: list[str]
) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA, home)
    guess = tmp_path / "it's a repo"  # a quote and a space: the line must quote it
    guess.mkdir()
    transcript = home / LOGS
    transcript.write_text(
        transcript.read_text().replace("/tmp/repo", str(guess)), encoding="utf-8"
    )
    monkeypatch.setenv("SESSDEX_SHELL", "sh")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(
        main, ["resume", *how, "--home", str(home), f"antigravity:{CLI[:8]}"]
    )
    assert result.exit_code == 1, result.output
    assert result.stdout == ""  # no line for a script to run
    line = shells.cd_then_run(str(guess), ("agy", f"--conversation={CLI}"), "sh")
    assert "'" in line.split(" && ")[0][3:]  # quoted
    assert line in result.stderr
    assert "recorded no folder" in result.stderr


def test_an_unknown_shell_still_gives_the_refusal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under a SESSDEX_SHELL sessdex does not know, the guess cannot be offered as a
    line, but the session is still refused for what it is: --json gives the refusal's
    object (exit 0), as it does under any shell; it said only that the shell is unknown."""
    home = tmp_path / "home"
    shutil.copytree(DATA, home)
    monkeypatch.setenv("SESSDEX_SHELL", "nushell")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(
        main, ["resume", "--json", "--home", str(home), f"antigravity:{CLI[:8]}"]
    )
    assert result.exit_code == 0, result.output
    refused = json.loads(result.stdout)
    assert refused["id"] == CLI
    assert refused["argv"] is None
    assert any("recorded no folder" in why for why in refused["refusals"])
    plain = CliRunner().invoke(
        main, ["resume", "--home", str(home), f"antigravity:{CLI[:8]}"]
    )
    assert plain.exit_code == 1
    assert "recorded no folder" in plain.stderr


def test_a_guessed_folder_holding_a_nul_is_offered_no_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A guessed folder with a NUL in it (a damaged or crafted transcript) is offered as
    no line: bash ends `$'…'` at the NUL, so `cd $'/srv\\000/x'` enters `/srv` and the
    session would be resumed elsewhere than the folder shown."""
    home = tmp_path / "home"
    shutil.copytree(DATA, home)
    transcript = home / LOGS
    transcript.write_text(
        transcript.read_text().replace('\\"/tmp/repo\\"', '\\"/tmp\\\\u0000/repo\\"'),
        encoding="utf-8",
    )
    monkeypatch.setenv("SESSDEX_SHELL", "bash")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(
        main, ["resume", "--print", "--home", str(home), f"antigravity:{CLI[:8]}"]
    )
    assert result.exit_code == 1, result.output
    assert result.stdout == ""
    assert "recorded no folder" in result.stderr
    assert "\\000" not in result.stderr  # no `cd $'/tmp\000/repo'` to paste
    assert "agy --conversation" not in result.stderr
