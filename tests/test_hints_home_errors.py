"""A command given --home names that --home in every sessdex command its messages point
at: a plain 'sessdex list' would list the user's own home, not the one read."""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import api, quick
from sessdex.cli import main
from sessdex.errors import SessionNotFound
from sessdex.sources import Home
from tests.helpers import write_claude_session

SESSION = "51515151-0000-4000-8000-000000000001"


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def pointed_at(said: str) -> list[str]:
    """The argv of the sessdex command a message points at, as the user would paste it."""
    found = re.search(r"(['\"`])(sessdex .*?)\1", said)
    assert found, said
    return shlex.split(found.group(2))


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A copied home, its name one a shell needs quoted (a space, an apostrophe)."""
    folder = tmp_path / "a home's copy"
    write_claude_session(folder, SESSION, "/home/u/p")
    return folder


@pytest.mark.parametrize(
    "args",
    [
        ["show", "Codex:"],  # the id after an app was left out
        ["show", "claude:"],
        ["show", " "],  # no id at all
    ],
)
@pytest.mark.parametrize("home_first", [False, True])
def test_an_id_left_out_points_at_a_list_of_that_home(
    home: Path, args: list[str], home_first: bool
) -> None:
    where = ["--home", str(home)]
    typed = [args[0], *where, *args[1:]] if home_first else [*args, *where]
    code, out, err = invoke(*typed)
    assert (code, out) == (2, "")
    argv = pointed_at(err)
    assert argv[:2] == ["sessdex", "list"] and argv[-2:] == where
    code, out, err = invoke(*argv[1:])
    assert code == 0, err
    if "codex" not in argv:  # the home holds a claude session, and no codex one
        assert SESSION[:8] in out, err


def test_a_file_given_for_an_id_points_at_a_list_of_that_home(home: Path) -> None:
    stray = home / "notes.txt"
    stray.write_text("not a session\n")
    code, out, err = invoke("show", str(stray), "--home", str(home))
    assert (code, out) == (1, "")
    assert "that is a file, not an id" in err
    assert pointed_at(err) == ["sessdex", "list", "--home", str(home)]


def test_an_unknown_id_under_home_points_at_a_list_of_that_home(home: Path) -> None:
    code, out, err = invoke("show", "ffffffffffff", "--home", str(home))
    assert (code, out) == (1, "")
    assert pointed_at(err) == ["sessdex", "list", "--home", str(home)]


@pytest.mark.parametrize(
    "args", [["find", "zzzqqqxxx"], ["list", "--since", "2999-01-01"]]
)
def test_nothing_found_under_home_points_at_a_list_of_that_home(
    home: Path, args: list[str]
) -> None:
    code, out, err = invoke(*args, "--home", str(home))
    assert (code, out) == (0, "")
    assert "No session matches" in err
    pointed = pointed_at(err)
    # a --since that left every session out names the one that reaches the newest
    if args[0] == "list":
        assert pointed[2] == "--since", err
        del pointed[2:4]
    assert pointed == ["sessdex", "list", "--home", str(home)]


def test_a_warm_find_under_home_points_at_a_list_of_that_home(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The quick path says the full command's hint, --home and all."""
    for folder, _, _ in os.walk(home):  # a folder changed just now is never trusted
        os.utime(folder, (1_767_225_600, 1_767_225_600))
    invoke("list", "--home", str(home))  # the index, for the quick path to answer from
    capsys.readouterr()
    assert quick.answer("find", ["zzzqqqxxx", "--home", str(home)])
    said = capsys.readouterr().err
    assert pointed_at(said) == ["sessdex", "list", "--home", str(home)]


def test_a_home_given_once_is_not_named_by_the_next_command_or_the_library(
    home: Path, tmp_path: Path
) -> None:
    """The --home named is the running command's: the next command without one, and a
    library call made after it, name none."""
    code, _, err = invoke("show", "Codex:", "--home", str(home))
    assert "--home" in err
    code, _, err = invoke("show", "Codex:")
    assert code == 2 and pointed_at(err) == ["sessdex", "list", "--app", "codex"]
    with pytest.raises(SessionNotFound) as raised:
        api.resolve(Home.at(str(home)), "ffffffffffff")
    assert "--home" not in str(raised.value)
