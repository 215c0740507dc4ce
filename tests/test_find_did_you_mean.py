"""An empty `find` of a misspelt word suggests the closest word the index holds."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import api, quick
from sessdex.cli import main
from sessdex.selection import did_you_mean, parse_query

from .test_quick import full, full_run, settled

DEMO = str(api.demo_home().path)


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_a_misspelt_word_is_answered_with_the_word_meant() -> None:
    """`find chekout` on a home of checkout sessions names 'checkout' and the command
    that finds them, with the --home and options given; the listing stays empty."""
    code, out, err = run("find", "chekout", "--home", DEMO)
    assert (code, out) == (0, "")
    assert err == (
        "No session matches 'chekout'. Did you mean 'checkout'? "
        f"('sessdex find checkout --home {DEMO}')\n"
    )
    _, _, err = run("find", "chekout", "retry", "--app", "claude", "--home", DEMO)
    assert "Did you mean 'checkout retry'?" in err, err
    assert f"('sessdex find --app claude checkout retry --home {DEMO}')" in err, err
    # the suggested command finds what the misspelt one did not
    code, out, _ = run("find", "checkout", "--home", DEMO)
    assert code == 0 and "checkout" in out.lower()


def test_a_word_like_none_the_index_holds_gets_the_usual_line() -> None:
    code, out, err = run("find", "zzzz", "--home", DEMO)
    assert (code, out) == (0, "")
    assert "Did you mean" not in err and "is not searched" in err, err


def test_json_stays_an_empty_list() -> None:
    code, out, _ = run("find", "chekout", "--json", "--home", DEMO)
    assert (code, out.strip()) == (0, "[]")


def test_the_suggestion_takes_words_of_titles_folders_and_branches_not_ids() -> None:
    searches = ["claude\x00zebra-1234\x00fix the checkout\x00/home/u/shop-api/\x00main"]
    assert did_you_mean(parse_query("chekout"), searches) == ["checkout"]
    assert did_you_mean(parse_query("zebar"), searches) is None  # an id is no word
    assert did_you_mean(parse_query("shop-apj"), searches) is None  # no one word
    assert did_you_mean(parse_query("shpo"), searches) == ["shop"]
    assert did_you_mean(parse_query("mian"), searches) == ["main"]
    # a word that is there is kept; together with a misspelt one it is suggested again
    assert did_you_mean(parse_query("fix chekout"), searches) == ["fix", "checkout"]
    # every word is in some session: nothing to suggest
    assert did_you_mean(parse_query("fix main"), searches) is None
    # narrowed by field: the field kept as typed, the misspelt word mended, in order
    assert did_you_mean(parse_query("chekout branch:main"), searches) == [
        "checkout",
        "branch:main",
    ]


def test_the_warm_quick_path_says_the_same(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    home = settled(Path(shutil.copytree(DEMO, tmp_path / "home", symlinks=True)))
    full("--json", "--home", str(home))
    args = ["chekout", "--home", str(home)]
    expected = full_run(*args, command="find")
    assert expected.stdout == b"" and b"Did you mean 'checkout'?" in expected.stderr
    capsysbinary.readouterr()
    assert quick.answer("find", args)
    printed = capsysbinary.readouterr()
    assert (printed.out, printed.err) == (b"", expected.stderr)
