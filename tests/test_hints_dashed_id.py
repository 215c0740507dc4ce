"""A session id that starts with '-' (a file an app named `-abc12345.jsonl`): each hint
that prints it into a `sessdex` line puts it after a `--`. Quoted alone ('-abc12345')
the pasted line still read it as an option ("No such option '-a'"). Each test runs the
line it was given, as a user pasting it would."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

from .helpers import write_claude_session

DASHED = "-abc12345"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    (tmp_path / "proj").mkdir()
    write_claude_session(home, DASHED, str(tmp_path / "proj"), prompt="Dashed id")
    return home


def _invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def _quoted_line(said: str) -> list[str]:
    """The `sessdex …` line a message quotes, as the user's shell splits it."""
    line = said.split("'sessdex ", 1)[1].split("'", 1)[0]
    return shlex.split(line)


def test_export_to_a_folder_names_a_line_that_runs(home: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    code, _, err = _invoke("export", "--home", str(home), "-o", str(out), "--", DASHED)
    assert code == 2, err
    words = _quoted_line(err)
    assert words[-2:] == ["--", DASHED], err
    code, _, err = _invoke(*words)
    assert code == 0, err
    assert "Dashed id" in (out / f"{DASHED}.md").read_text()


@pytest.mark.parametrize("command", ["show", "tree", "export", "resume", "follow"])
def test_a_dashed_id_typed_bare_is_told_to_go_after_double_dash(
    home: Path, command: str
) -> None:
    # `sessdex show -abc12345`, as `list` shows the id: click said only "No such
    # option '-a'", which no new user reads as "put it after --"
    code, _, err = _invoke(command, DASHED, "--home", str(home))
    assert code == 2
    words = _quoted_line(err.splitlines()[-1])
    assert words == [command, "--home", str(home), "--", DASHED], err
    if command in ("show", "tree"):
        code, out, err = _invoke(*words)
        assert code == 0, err
        assert DASHED in out


def test_an_unknown_option_is_no_id(home: Path) -> None:
    # a misspelt option (one click can guess) keeps its own message
    code, _, err = _invoke("show", "--no-pagr", "--home", str(home))
    assert code == 2
    assert "after '--'" not in err


def test_the_options_typed_with_a_bare_dashed_id_stay_in_its_line(home: Path) -> None:
    code, _, err = _invoke("show", DASHED, "--no-pager", "--home", str(home))
    assert code == 2
    words = _quoted_line(err.splitlines()[-1])
    assert words == ["show", "--no-pager", "--home", str(home), "--", DASHED], err


def test_options_typed_past_double_dash_are_moved_before_it(home: Path) -> None:
    # `show -- -abc12345 --home H`, the --home put last as README's lines put it: the
    # hint was `sessdex find -- -abc12345 --home H`, which looks for the word "--home"
    code, _, err = _invoke("show", "--", DASHED, "--home", str(home), "--no-pager")
    assert code == 2
    said = err.splitlines()[-1]
    assert "find" not in said, said
    words = _quoted_line(said)
    assert words == ["show", "--home", str(home), "--no-pager", "--", DASHED], said
    code, out, err = _invoke(*words)
    assert code == 0, err
    assert "Dashed id" in out


def test_words_past_double_dash_that_are_no_options_are_still_found(
    home: Path,
) -> None:
    code, _, err = _invoke("show", "--home", str(home), "--", DASHED, "retry")
    assert code == 2
    assert _quoted_line(err)[0] == "find", err


@pytest.mark.parametrize("dashed", ["-v1abc234", "-home1234"])
def test_a_dashed_id_whose_first_letters_are_options_is_told_so_too(
    tmp_path: Path, dashed: str
) -> None:
    # click took `-v` (or `-h`) as an option and failed at the next letter: the hint
    # looked for a word starting with that letter, found none, and said only "No such
    # option '-1'" (or guessed '--json' for `-o`)
    home = tmp_path / "home"
    (tmp_path / "proj").mkdir()
    write_claude_session(home, dashed, str(tmp_path / "proj"), prompt="Dashed id")
    code, _, err = _invoke("show", dashed, "--home", str(home))
    assert code == 2
    words = _quoted_line(err.splitlines()[-1])
    assert words == ["show", "--home", str(home), "--", dashed], err
    code, out, err = _invoke(*words)
    assert code == 0, err
    assert "Dashed id" in out


VALUED = "-nabc1234"  # its second letter `show`'s -n, which takes a value


@pytest.mark.parametrize("command", ["show", "follow"])
def test_a_dashed_id_whose_letter_takes_a_value_is_told_to_go_after_double_dash(
    tmp_path: Path, command: str
) -> None:
    """`show -nabc1234` got click's "'abc1234' is not a valid whole number" (its `-n`
    took the rest for its value), where every other dashed id gets the `--` line."""
    home = tmp_path / "home"
    write_claude_session(home, VALUED, str(tmp_path), prompt="Valued id")
    code, _, err = _invoke(command, VALUED, "--home", str(home))
    assert code == 2
    words = _quoted_line(err.splitlines()[-1])
    assert words == [command, "--home", str(home), "--", VALUED], err
    if command == "show":
        code, out, err = _invoke(*words)
        assert code == 0, err
        assert VALUED in out


def test_a_valued_options_bad_value_beside_an_id_is_no_dashed_id(home: Path) -> None:
    code, _, err = _invoke("show", DASHED[1:], "-nabc", "--home", str(home))
    assert code == 2
    assert "after '--'" not in err and "valid whole number" in err
