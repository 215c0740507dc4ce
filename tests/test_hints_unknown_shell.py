"""Where SESSDEX_SHELL names a shell sessdex does not know, a hint leaves out the words
that need its quoting and says what they were: the words `find` looks for, an id, a
folder. It said "'sessdex find' with that id" of words the user typed."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from sessdex import hints
from sessdex.cli import main
from tests.conftest import app_home

WHY = "(SESSDEX_SHELL names a shell sessdex does not know)"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["list", "it's"], f"'sessdex find' with that word {WHY} finds the sessions"),
        (["list", "it's", "x"], f"'sessdex find' with those words {WHY} finds"),
        (
            ["show", "fe5e1c67", "it's"],
            f"'sessdex find' with those words {WHY} finds sessions by their words",
        ),
        (
            ["show", "fe5e1c67", "it's", "--home", str(app_home("claude"))],
            f"'sessdex find' with those words and the same --home {WHY} finds",
        ),
    ],
)
def test_the_find_hint_calls_typed_words_words(args: list[str], said: str) -> None:
    result = CliRunner(env={"SESSDEX_SHELL": "tcsh"}).invoke(main, args)
    assert result.exit_code == 2, result.stderr
    assert said in result.stderr
    assert "that id" not in result.stderr


def test_an_id_or_a_folder_left_out_is_named_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SESSDEX_SHELL", "tcsh")
    assert hints.named("show", "x;y") == f"'sessdex show' with that id {WHY}"
    assert (
        hints.named("list", "--home", "/a b")
        == f"'sessdex list' with that folder {WHY}"
    )
