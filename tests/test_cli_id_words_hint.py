"""`sessdex show 7f3a -- --dry-run` (words past `--` after an id) names the `find` that
looks for those words; a word starting with `-` went into that line bare, so pasted it
read as find's option (`-n` its limit) and failed. It now comes after find's `--`."""

from __future__ import annotations

import shlex

from click.testing import CliRunner

from sessdex.cli import main
from tests.conftest import app_home

HOME = str(app_home("claude"))


def _hint(*args: str) -> list[str]:
    result = CliRunner().invoke(main, list(args))
    assert (result.exit_code, result.stdout) == (2, "")
    line = result.stderr.split("; 'sessdex ", 1)[1].split("' finds", 1)[0]
    return shlex.split(line)


def test_a_word_like_an_option_goes_after_finds_double_dash() -> None:
    words = _hint("resume", "--home", HOME, "c0afe25d", "--", "-n")
    assert words == ["find", "--home", HOME, "--", "c0afe25d", "-n"]
    result = CliRunner().invoke(main, words)
    assert result.exit_code == 0, result.stderr


def test_plain_words_keep_their_line() -> None:
    assert _hint("show", "c0afe25d", "retry", "--home", HOME) == [
        "find",
        "c0afe25d",
        "retry",
        "--home",
        HOME,
    ]
