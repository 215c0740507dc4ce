"""`find` matches what the table shows: a title, branch or folder holding escape
sequences, invisible characters or a NUL is found by the words a user reads in it, and
the filters (`title:`, `dir:`, `branch:`) still look at their own field."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import quick
from sessdex.cli import main

from .helpers import write_claude_session

SESSION = "5e55a0a0-0000-4000-8000-000000000001"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    write_claude_session(
        home,
        SESSION,
        "/work/x\x1b[2Jdemo",
        prompt="Fix \x1b[31merror\x1b[0m: zero\u200bwidth before\x00after",
        branch="fea\x1b[1mture/nul",
    )
    return home


WORDS = [
    "error:",  # shown `error:`, written `error<ESC>[0m:`
    "zerowidth",  # a zero-width space is drawn as nothing
    "beforeafter",  # a NUL too
    "title:beforeafter",
    "branch:feature/nul",
    "dir:/work/xdemo",
    "xdemo",
]


@pytest.mark.parametrize("word", WORDS)
def test_a_word_as_the_table_shows_it_finds_the_session(
    home: Path, run: CliRunner, word: str
) -> None:
    result = run.invoke(main, ["find", "--home", str(home), "--json", word])
    assert result.exit_code == 0, result.output
    assert SESSION in result.stdout, word


@pytest.mark.parametrize("word", ["31m", "2J"])
def test_what_an_escape_hides_finds_nothing(
    home: Path, run: CliRunner, word: str
) -> None:
    result = run.invoke(main, ["find", "--home", str(home), "--json", word])
    assert result.exit_code == 0, result.output
    assert SESSION not in result.stdout


def test_the_quick_path_finds_them_too(
    home: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    for folder, _, _ in os.walk(home):  # a folder changed just now is never trusted
        os.utime(folder, (1_767_225_600, 1_767_225_600))
    subprocess.run(  # builds the index: what follows is answered from it
        [sys.executable, "-m", "sessdex", "list", "--home", str(home)],
        capture_output=True,
        check=True,
    )
    for word in WORDS:
        capsysbinary.readouterr()
        assert quick.answer("find", ["--home", str(home), word]), word
        assert SESSION[:8].encode() in capsysbinary.readouterr().out, word
