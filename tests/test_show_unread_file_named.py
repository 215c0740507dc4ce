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


def test_show_names_a_database_not_read(tmp_path: Path) -> None:
    """OpenCode's opencode.db made a pipe: every session it kept is gone from the list,
    and show names the database, as it names one it may not open. It said "sessdex found
    no sessions at all, of any app", the home holding no other app's."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "opencode" / "home", home)
    (path,) = home.rglob("opencode.db")
    path.unlink()
    os.mkfifo(path)
    result = CliRunner().invoke(main, ["show", "ses_dd47cc26", "--home", str(home)])
    assert result.exit_code == 1, result.output
    assert f"could not read {path} (pipe), which may hold it" in result.stderr
    assert "no sessions at all" not in result.stderr, result.stderr


def test_show_names_the_only_file_not_read(tmp_path: Path) -> None:
    """pi's one session re-saved as UTF-16, in a home that holds nothing else: show
    names it, where it said "sessdex found no sessions at all, of any app"."""
    session = "01a22b83-eeaa-75d4-a59d-adc5e4fb9817"
    (source,) = (DATA / "pi" / "home").rglob(f"*_{session}.jsonl")
    home = tmp_path / "home"
    path = home / source.relative_to(DATA / "pi" / "home")
    path.parent.mkdir(parents=True)
    path.write_bytes(source.read_text(encoding="utf-8").encode("utf-16"))
    result = CliRunner().invoke(main, ["show", session[:8], "--home", str(home)])
    assert result.exit_code == 1, result.output
    assert f"could not read {path} ({WIDE_TEXT})" in result.stderr, result.stderr
    assert "no sessions at all" not in result.stderr, result.stderr


def test_a_folder_in_a_crush_databases_place_is_named(tmp_path: Path) -> None:
    """A folder made where a project's `.crush/crush.db` was: `list -v` names it, and show
    names it, as a pipe there is named. Both said nothing of it ("no session id starts
    with" alone)."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "crush" / "home", home)
    path = home / "code" / "shop-api" / ".crush" / "crush.db"
    path.unlink()
    path.mkdir()
    named = f"{path}:0: {FOLDER_NOT_FILE}"
    listed = CliRunner().invoke(main, ["list", "-v", "--home", str(home)])
    assert named in listed.stderr, listed.stderr
    result = CliRunner().invoke(main, ["show", "8c1f2e3d", "--home", str(home)])
    assert result.exit_code == 1, result.output
    assert f"could not read {path} ({FOLDER_NOT_FILE})" in result.stderr


def test_named_past_the_first_200_files_the_index_noted(tmp_path: Path) -> None:
    """The file is named where the index noted more than `list -v` names (200) before
    it (201 other files re-saved as UTF-16): the notes looked through stopped there."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "claude" / "home", home)
    (path,) = home.rglob("c0afe25d-*.jsonl")
    wide = path.read_text(encoding="utf-8").encode("utf-16")
    other = home / ".claude" / "projects" / "-a-other"
    other.mkdir()
    for k in range(201):
        (other / f"{k:08x}-0000-4000-8000-000000000000.jsonl").write_bytes(wide)
    path.write_bytes(wide)
    result = CliRunner().invoke(main, ["show", "c0afe25d", "--home", str(home)])
    assert result.exit_code == 1, result.output
    assert f"could not read {path} ({WIDE_TEXT})" in result.stderr, result.stderr


@pytest.mark.parametrize("word", ["session", "json", "2026"])
def test_a_word_of_the_files_name_is_not_taken_for_its_id(
    tmp_path: Path, word: str
) -> None:
    """A word that is not an id ('session', the extension, the year of Gemini's
    `session-2026-…-b44832f3.jsonl`) is not said to be held by the file: that file was
    named as one "which may hold it" for any of them."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "gemini" / "home", home)
    (path,) = home.rglob("session-*-b44832f3.jsonl")
    path.write_bytes(path.read_text(encoding="utf-8").encode("utf-16"))
    result = CliRunner().invoke(main, ["show", word, "--home", str(home)])
    assert result.exit_code == 1, result.output
    assert f"no session id starts with '{word}'" in result.stderr, result.stderr
    assert str(path) not in result.stderr, result.stderr
