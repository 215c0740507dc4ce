"""`show` of a session whose file sessdex lists but could not read at all (re-saved as
UTF-16, a pipe in its place) names that file and why, as it names one it may not open:
it said "no session id starts with …" alone, or, of a Gemini lead whose sub-agent's
file is left, that the lead "has no transcript left (moved or deleted)", though it is
there."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from sessdex.diagnostics import WIDE_TEXT
from sessdex.folders import FOLDER_NOT_FILE
from tests.conftest import DATA

CASES = [
    ("claude", "c0afe25d-*.jsonl", "c0afe25d"),
    ("gemini", "session-*-b44832f3.jsonl", "b44832f3"),
]


@pytest.mark.parametrize(("app", "name", "session"), CASES)
@pytest.mark.parametrize("damage", ["utf-16", "pipe"])
def test_show_names_the_file_it_could_not_read(
    tmp_path: Path, app: str, name: str, session: str, damage: str
) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA / app / "home", home)
    (path,) = home.rglob(name)
    if damage == "pipe":
        path.unlink()
        os.mkfifo(path)
    else:
        path.write_bytes(path.read_text(encoding="utf-8").encode("utf-16"))
    result = CliRunner().invoke(main, ["show", session, "--home", str(home)])
    assert result.exit_code == 1, result.output
    reason = WIDE_TEXT if damage == "utf-16" else "pipe"
    assert f"could not read {path} ({reason})" in result.stderr, result.stderr
    assert "moved or deleted" not in result.stderr, result.stderr


@pytest.mark.parametrize("damage", ["pipe", "folder"])
def test_show_names_a_file_in_a_folder_named_after_the_session(
    tmp_path: Path, damage: str
) -> None:
    """Copilot CLI's `session-state/<id>/events.jsonl` holds no id in its own name: a
    pipe or a folder there is named all the same. show said "no session id starts with"
    alone."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "copilot" / "home", home)
    session = "52ee9297-7cb3-468f-8ca4-46f6b927c8c7"
    path = home / ".copilot" / "session-state" / session / "events.jsonl"
    path.unlink()
    if damage == "pipe":
        os.mkfifo(path)
    else:
        path.mkdir()
    result = CliRunner().invoke(main, ["show", session[:8], "--home", str(home)])
    assert result.exit_code == 1, result.output
    reason = "pipe" if damage == "pipe" else FOLDER_NOT_FILE
    assert f"could not read {path} ({reason})" in result.stderr, result.stderr
