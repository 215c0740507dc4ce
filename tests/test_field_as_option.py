"""`list --branch main`, `find retry --title x`: a field `find` narrows by with a word
(`branch:`, `dir:`, `title:`, `id:`), typed as an option, is answered with the line
that finds it, the other words and options kept."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from sessdex.cli import main


@pytest.mark.parametrize(
    ("args", "meant"),
    [
        (("list", "--branch", "main"), "Did you mean 'sessdex find branch:main'?"),
        (("list", "--branch=main"), "Did you mean 'sessdex find branch:main'?"),
        (
            ("list", "--limit", "2", "--cwd", "/w/shop"),
            "Did you mean 'sessdex find --limit 2 dir:/w/shop'?",
        ),
        (
            ("find", "smoke", "--branch", "feature"),
            "Did you mean 'sessdex find smoke branch:feature'?",
        ),
        (("find", "--title", "smoke"), "Did you mean 'sessdex find title:smoke'?"),
        (
            ("find", "--id", "7f3a", "--json"),
            "Did you mean 'sessdex find --json id:7f3a'?",
        ),
    ],
)
def test_a_field_typed_as_an_option_names_finds_word(
    args: tuple[str, ...], meant: str
) -> None:
    # `list --branch main` said "No such option '--branch'." and no more; `find smoke
    # --branch feature` offered 'sessdex find -- smoke --branch feature', which looks
    # for the words '--branch' and 'feature'
    result = CliRunner().invoke(main, list(args))
    assert (result.exit_code, result.stdout) == (2, "")
    assert meant in result.stderr, result.stderr


def test_a_title_of_words_is_each_word_in_the_title() -> None:
    # it offered 'sessdex find "title:fix login"', which find reads as title:fix and the
    # word login anywhere (a session's folder, its branch)
    result = CliRunner().invoke(
        main, ["list", "--title", "fix login"], env={"SESSDEX_SHELL": "bash"}
    )
    assert "Did you mean 'sessdex find title:fix title:login'?" in result.stderr, (
        result.stderr
    )


def test_a_folder_with_a_space_is_offered_no_line_that_splits_it() -> None:
    # `dir:` takes no space: 'sessdex find "dir:/w/my app"' looked in /w/my for 'app'
    for command in (["list"], ["find", "x"]):
        result = CliRunner().invoke(
            main, [*command, "--dir", "/w/my app"], env={"SESSDEX_SHELL": "bash"}
        )
        assert result.exit_code == 2
        assert "dir:/w/my" not in result.stderr, result.stderr
        assert "-- x --dir" not in result.stderr  # no line looking for '--dir'
        assert "dir:WORD, one word with no space in it" in result.stderr
