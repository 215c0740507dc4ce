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
