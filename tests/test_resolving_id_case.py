"""Two sessions whose ids differ only in case (an app's base62 ids, a copy's id put in
upper case): the id typed whole, as it is spelt, names its own session; a prefix both
start stays ambiguous."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

from .helpers import write_claude_session

LOWER = "7e57ca5e-0000-4000-8000-00000000abcd"
UPPER = LOWER.upper()


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    for case, session_id in (("lower", LOWER), ("upper", UPPER)):
        (tmp_path / case).mkdir()  # resume refuses a folder that is gone
        write_claude_session(
            home, session_id, str(tmp_path / case), prompt=f"Fix the {case} case"
        )
    return home


@pytest.mark.parametrize("typed", [LOWER, UPPER, f"claude:{UPPER}"])
def test_an_id_typed_whole_shows_its_own_session(
    home: Path, run: CliRunner, typed: str
) -> None:
    result = run.invoke(main, ["show", typed, "--home", str(home)])
    assert result.exit_code == 0, result.output
    case = "lower" if typed == LOWER else "upper"
    assert f"Fix the {case} case" in result.stdout
    assert (
        f"Fix the {'upper' if case == 'lower' else 'lower'} case" not in result.stdout
    )


def test_resume_of_an_id_typed_whole_resumes_that_session(
    home: Path, run: CliRunner
) -> None:
    result = run.invoke(main, ["resume", UPPER, "--print", "--home", str(home)])
    assert result.exit_code == 0, result.output
    assert UPPER in result.stdout and LOWER not in result.stdout


def test_a_prefix_both_start_is_still_ambiguous(home: Path, run: CliRunner) -> None:
    result = run.invoke(main, ["show", LOWER[:8], "--home", str(home)])
    assert result.exit_code == 1
    assert "matches 2 sessions" in result.stderr


def test_a_prefix_of_ids_differing_only_in_case_says_so(
    home: Path, run: CliRunner
) -> None:
    """Typing more of the id settles nothing (a prefix matches in any case): the error
    said "type more of the id"; it says the ids differ only in case and names them."""
    result = run.invoke(main, ["show", LOWER[:8], "--home", str(home)])
    assert result.exit_code == 1
    said = result.stderr.splitlines()[0]
    assert "whose ids differ only in case" in said, said
    assert f"type the id whole, as it is spelt: '{UPPER}' or '{LOWER}'" in said, said
    assert "type more" not in said


def test_ids_differing_only_in_case_among_others_are_named(
    home: Path, run: CliRunner, tmp_path: Path
) -> None:
    other = "7e57ca5e-1111-4000-8000-00000000abcd"
    write_claude_session(home, other, str(tmp_path / "lower"), prompt="Another")
    result = run.invoke(main, ["show", LOWER[:8], "--home", str(home)])
    assert result.exit_code == 1
    said = result.stderr.splitlines()[0]
    assert said.startswith("Error: '7e57ca5e' matches 3 sessions (3 claude); type more")
    assert f"'{UPPER}' and '{LOWER}' differ only in case" in said, said


def test_ids_differing_only_in_case_are_quoted_safely() -> None:
    from sessdex.errors import AmbiguousId

    said = str(
        AmbiguousId("a", [("x", "a\x1b]0;hi\x07b", ""), ("x", "A\x1b]0;HI\x07B", "")])
    )
    assert "\x1b" not in said and "\x07" not in said
    assert "'A\\x1b]0;HI\\x07B' or 'a\\x1b]0;hi\\x07b'" in said, said


def test_ids_differing_only_in_case_are_quoted_for_the_shell_they_are_typed_in(
    tmp_path: Path, run: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ids a file gave, holding a quote mark and an escape sequence: the error quoted
    them as Python does ("7E57CA5E-IT'S-\\x1b]0;X\\x07-OK"), which no shell reads back;
    they are quoted as the user's shell takes them, as every command a hint names is,
    so that the id pasted is the id."""
    import subprocess

    monkeypatch.setenv("SESSDEX_SHELL", "bash")
    home = tmp_path / "home"
    lower = "7e57ca5e-it's-\x1b]0;x\x07-ok"
    for session_id in (lower, lower.upper()):
        write_claude_session(home, session_id, str(tmp_path))
    result = run.invoke(main, ["show", "7e57", "--home", str(home)])
    assert result.exit_code == 1
    said = result.stderr.splitlines()[0]
    assert "\\x" not in said and "\x1b" not in said, said
    spelt = said.split("as it is spelt: ", 1)[1].removesuffix(".").split(" or ")
    assert spelt == [
        "\"$'7E57CA5E-IT\\'S-\\033]0;X\\007-OK'\"",
        "\"$'7e57ca5e-it\\'s-\\033]0;x\\007-ok'\"",
    ], said
    for word, session_id in zip(spelt, (lower.upper(), lower), strict=True):
        # the word inside the sentence's quotes, pasted into bash, is the id
        pasted = subprocess.run(
            ["bash", "-c", f"printf %s {word[1:-1]}"], capture_output=True, text=True
        )
        assert pasted.stdout == session_id
