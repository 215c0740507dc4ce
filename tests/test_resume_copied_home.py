"""`resume --print` from a copied home (--home elsewhere): the note says what the app's
resume command takes. pi is given the session's file, so it opens the copy (and writes
into it); an app given an id looks it up in the user's own home."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from tests.helpers import write_claude_session

PI_HOME = Path(__file__).parent / "data" / "pi" / "home"
PI_ID = "01a22b83"


def _notes(*args: str, code: int = 0) -> tuple[str, list[str]]:
    result = CliRunner().invoke(main, ["resume", *args])
    assert result.exit_code == code, result.output
    notes = [line for line in result.stderr.splitlines() if line.startswith("note: ")]
    return result.stdout, notes


def test_pi_from_a_copied_home_is_told_it_opens_the_copy(tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(PI_HOME, copy)
    # printed, with 1: the session's folder is not on this machine
    out, notes = _notes(PI_ID, "--print", "--home", str(copy), code=1)
    assert f"--session {copy}/" in out  # the file itself, in the copy
    (note,) = [n for n in notes if "not your own home" in n]
    assert "pi opens its file there" in note
    assert "looks it up in your own home" not in note
    assert note.endswith("goes on writing into it."), note  # a sentence, ended


def test_an_app_given_an_id_still_says_it_reads_your_own_home(tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    write_claude_session(copy, "7c7c7c7c-0000-4000-8000-000000000009", str(tmp_path))
    _, notes = _notes("7c7c", "--print", "--home", str(copy))
    (note,) = [n for n in notes if "not your own home" in n]
    assert "claude looks it up in your own home" in note
    # it ended "where a session of another (copied) home is not", no full stop
    assert note.endswith("of another (copied) home is not."), note
