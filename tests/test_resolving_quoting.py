"""What `show` says of a reference that is no id, where it names the session meant (its
app's, a folder's, a title's, one typo away): that session's id came from a file, and is
quoted as the user's shell takes it, as every id a message names is, so that pasted it
is the id. They were quoted as Python does (`'7e57ca5e-it\\'s-$(x)'`), which no shell
reads back."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

from .helpers import write_claude_session

ODD = "7e57ca5e-it's-$(x)"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SESSDEX_SHELL", "bash")
    home = tmp_path / "home"
    write_claude_session(home, ODD, "/work/odd", title="Tidy the parser tables")
    return home


def _pasted(word: str) -> str:
    """What bash makes of `word` (as the message quotes it, its outer quotes off)."""
    done = subprocess.run(
        ["bash", "-c", f"printf %s {word[1:-1]}"], capture_output=True, text=True
    )
    return done.stdout


@pytest.mark.parametrize(
    ("reference", "said", "meant"),
    [
        (f"codex:{ODD[:13]}", r"session's does: (.+)\.$", f"claude:{ODD[:13]}"),
        ("TIDY", r"in the title of the claude session (.+) \(", ODD),
        ("7e75ca5e-it's", r"did you mean (.+)\?$", ODD[:13]),
        ("FOLDER", r"the files of the claude session (.+): give its id", ODD),
    ],
)
def test_an_id_a_message_names_pastes_as_that_id(
    home: Path, run: CliRunner, reference: str, said: str, meant: str
) -> None:
    if reference == "FOLDER":
        reference = str(home / ".claude" / "projects" / "-work-odd")
    elif reference == "TIDY":
        reference = "Tidy the parser"
    result = run.invoke(main, ["show", reference, "--home", str(home)])
    assert result.exit_code == 1, result.output
    told = " ".join(result.stderr.split())
    found = re.search(said, told)
    assert found, told
    assert _pasted(found.group(1)) == meant, told
