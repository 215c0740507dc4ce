"""`find -- --dry-run --json`: past `--` every word is one to find, so the options typed
after it were searched for as words (a script got text, a `--home` read the user's own
home). Options after the words are said, with the line that gives them as options."""

from __future__ import annotations

import subprocess
import sys

from click.testing import CliRunner

from sessdex import api
from sessdex.cli import main

DEMO = str(api.demo_home().path)


def _find(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["find", *args], catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_a_home_typed_after_the_words_is_said_with_the_line_that_reads_it() -> None:
    code, out, err = _find("--", "checkout", "--home", DEMO, "--json")
    assert code == 2 and out == ""
    assert "'--home" in err and "came after '--'" in err
    assert f"'sessdex find --home {DEMO} --json -- checkout'" in err


def test_that_line_finds_what_was_meant() -> None:
    code, out, _ = _find("--home", DEMO, "--json", "--", "checkout")
    assert code == 0 and '"app":"codex"' in out


def test_a_lone_word_that_looks_like_an_option_is_still_a_word_to_find() -> None:
    """The example of `find --help`: one word past `--` is what the user looks for."""
    code, out, err = _find("--home", DEMO, "--", "--dry-run")
    assert code == 0 and out == "", err
    assert "No session matches '--dry-run'" in err


def test_words_past_the_options_keep_them_words() -> None:
    """`--limit` alone, without its number, is no option given: a word to find."""
    code, _, err = _find("--home", DEMO, "--", "--dry-run", "--limit")
    assert code == 0 and "No session matches" in err


def test_the_real_command_says_so_too() -> None:
    """`find` answers warm from the index without click: that path says it as well."""
    args = ["find", "--home", DEMO, "--", "checkout", "--json"]
    for _ in range(2):  # the second run finds the index warm
        done = subprocess.run(
            [sys.executable, "-c", "from sessdex.launch import main; main()", *args],
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 2 and done.stdout == ""
        assert "'--json' came after '--'" in done.stderr
