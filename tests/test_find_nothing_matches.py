"""What an empty `find` says: where it looked, and the option that hid the sessions meant."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import api, quick
from sessdex.cli import main

from .test_quick import full, full_run, settled

DEMO = str(api.demo_home().path)


def err_of(*args: str) -> str:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code == 0 and result.stdout == "", result.stdout
    return result.stderr


def test_an_empty_find_names_the_fields_it_looked_in() -> None:
    """A word said in a session, not in its title, finds nothing: the line says what
    `find` looks at, so the user does not take it for a missing session."""
    err = err_of("find", "zzzz", "--home", DEMO)
    assert err == (
        "No session matches 'zzzz' in its title, folder, branch, app or id. What "
        "was said in a session is not searched; 'sessdex list --home "
        f"{DEMO}' shows recent sessions.\n"
    )


@pytest.mark.parametrize(
    ("query", "looked"),
    [
        ("id:zzzz", "in its id;"),
        ("branch:zzzz", "in its branch;"),
        ("dir:zzzz", "in its folder;"),
        ("codex:zzzz", "in its app and id;"),
        ("title:zzzz", "in its title. What was said in a session is not searched;"),
        ("title:zzzz branch:main", "in its title and branch. Fewer words find more;"),
    ],
)
def test_an_empty_narrowed_find_names_only_the_fields_it_looked_in(
    query: str, looked: str
) -> None:
    """`find id:zzzz` said it looked "in its title, folder, branch, app or id" and that
    what was said is not searched, of a word looked for in ids alone."""
    err = err_of("find", *query.split(), "--home", DEMO)
    assert err == (
        f"No session matches {query!r} {looked} 'sessdex list --home {DEMO}' shows "
        "recent sessions.\n"
    )


def test_an_empty_find_names_the_since_that_hid_the_matches() -> None:
    """`find checkout --since 2030-01-01` on a home of older checkout sessions: the user
    is told the words did match, and which option to leave out, not "fewer words"."""
    err = err_of("find", "checkout", "--since", "2030-01-01", "--home", DEMO)
    assert err == (
        "No session matches 'checkout' with --since 2030-01-01, but 2 do without "
        "--since 2030-01-01.\n"
    )
    err = err_of("find", "3f2b9c1e", "--since", "2030-01-01", "--home", DEMO)
    assert "but 1 does without --since 2030-01-01." in err, err
    # words that match nothing at all still say so
    err = err_of("find", "zzzz", "--since", "2030-01-01", "--home", DEMO)
    assert "What was said in a session is not searched" in err, err
    assert "without" not in err, err


def test_an_empty_find_names_the_here_that_hid_the_matches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PWD", raising=False)
    err = err_of("find", "checkout", "--here", "--since", "2030-01-01", "--home", DEMO)
    assert err.endswith(", but 2 do without --since 2030-01-01 --here.\n"), err


def test_the_warm_quick_path_says_the_same(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    home = settled(Path(shutil.copytree(DEMO, tmp_path / "home", symlinks=True)))
    full("--json", "--home", str(home))
    for words in (["checkout"], ["zzzz"]):
        args = [*words, "--since", "2030-01-01", "--home", str(home)]
        expected = full_run(*args, command="find")
        assert expected.stdout == b"" and expected.stderr, expected
        capsysbinary.readouterr()
        assert quick.answer("find", args)
        printed = capsysbinary.readouterr()
        assert (printed.out, printed.err) == (b"", expected.stderr)
    assert (
        b"but 2 do without --since 2030-01-01"
        in full_run(
            "checkout", "--since", "2030-01-01", "--home", str(home), command="find"
        ).stderr
    )
