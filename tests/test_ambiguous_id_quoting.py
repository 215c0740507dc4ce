"""An ambiguous id's error names ids and `<app>:<id>` words for the user to type: each is
quoted as their shell takes it (an id comes from a file), never printed bare."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import hints
from sessdex.cli import main
from sessdex.errors import AmbiguousId

from .helpers import write_claude_session

ODD = "4444-it's-$(x)"


@pytest.fixture
def command_line(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("SESSDEX_SHELL", "bash")
    hints.on_command_line(True)
    yield
    hints.on_command_line(False)


def _pasted(word: str) -> str:
    """What bash makes of `word` (as the message quotes it, its outer quotes off)."""
    done = subprocess.run(
        ["bash", "-c", f"printf %s {word[1:-1]}"], capture_output=True, text=True
    )
    return done.stdout


def _as_printed(word: str) -> str:
    """What bash makes of `word` pasted whole, as a line alone gives it."""
    done = subprocess.run(
        ["bash", "-c", f"printf %s {word}"], capture_output=True, text=True
    )
    return done.stdout


def test_the_id_two_apps_share_is_quoted_for_the_shell(command_line: None) -> None:
    """It was printed bare ("which share the id 4444-it's-$(x)"), a command
    substitution if pasted."""
    said = str(AmbiguousId("4444", [("claude", ODD, "a"), ("auggie", ODD, "b")]))
    shared = said.split("which share the id ", 1)[1].split(";", 1)[0]
    assert shared != ODD, said
    assert _pasted(shared) == ODD, said


def test_the_app_put_in_front_is_quoted_for_the_shell(command_line: None) -> None:
    """`claude:4444'x` was printed bare in "put its app in front (claude:4444'x)", a
    quote the shell would wait to see closed."""
    typed = "4444'x"
    candidates = [("roo", "4444'x1", "a"), ("roo", "4444'x2", "b")]
    said = str(AmbiguousId(typed, [*candidates, ("claude", "4444'x3", "c")]))
    word = said.split("put its app in front (", 1)[1].rsplit(")", 1)[0]
    assert _pasted(word) == f"claude:{typed}", said


def test_each_session_it_matched_names_its_id_as_the_shell_takes_it(
    tmp_path: Path,
) -> None:
    """The lines under the error, one a session, give each whole id to type: one a
    file gave holding `$(…)` or a control character was printed bare (`7e57a$(x)`, a
    command substitution pasted) or with the character dropped (`7e57b`, an id no
    session has); it is quoted for the shell. A plain id stays bare."""
    home = tmp_path / "home"
    ids = ["7e57a$(x)", "7e57\x1bb", "7e57c"]
    for session_id in ids:
        write_claude_session(home, session_id, "/w/a", title="T")
    result = CliRunner(env={"SESSDEX_SHELL": "bash"}).invoke(
        main, ["show", "7e57", "--home", str(home)]
    )
    assert result.exit_code == 1, result.output
    listed = [line.split()[1] for line in result.stderr.splitlines()[1:]]
    assert len(listed) == 3, result.stderr
    assert "7e57c" in listed, listed
    quoted = sorted(_as_printed(word) for word in listed if word != "7e57c")
    assert quoted == sorted(ids[:2]), listed


def test_each_session_it_matched_is_pasted_as_printed(tmp_path: Path) -> None:
    """A Crush sibling's id (`<message>$$<call>`) was listed in prose quotes around the
    shell's (`"'m-1$$call_2'"`): copied as printed, bash read `$$` inside the double
    quotes as its process id and the single quotes as part of the id, so `show` of it
    found nothing. The id alone on its line is the shell's word, pasted as it is."""
    home = tmp_path / "home"
    ids = ["m-1$$call_1", "m-1$$call_2"]
    for session_id in ids:
        write_claude_session(home, session_id, "/w/a", title="T")
    result = CliRunner(env={"SESSDEX_SHELL": "bash"}).invoke(
        main, ["show", "m-1", "--home", str(home)]
    )
    assert result.exit_code == 1, result.output
    listed = [line.split()[1] for line in result.stderr.splitlines()[1:]]
    assert sorted(map(_as_printed, listed)) == ids, listed
