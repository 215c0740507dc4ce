"""A session's title given where an id goes (`sessdex show 'Fix the login bug'`, quoted,
the first thing a new user tries) names the session whose title holds those words, or
the `find` that lists the several; it said only that no id starts with the title. An id's
start found inside other ids is no title: `list` is still where to look."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from tests.helpers import write_claude_session

LOGIN = "5a1e0000-0000-4000-8000-000000000001"
RETRY = "5a1e0000-0000-4000-8000-000000000002"
RETRY_TOO = "5a1e0000-0000-4000-8000-000000000003"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    cwd = str(tmp_path / "shop")
    write_claude_session(home, LOGIN, cwd, title="Fix the login bug")
    write_claude_session(home, RETRY, cwd, title="Retry checkout payments")
    write_claude_session(home, RETRY_TOO, cwd, title="Retry checkout, again")
    return home


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), prog_name="sessdex")
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("command", ["show", "resume"])
def test_a_title_of_one_session_names_its_id(home: Path, command: str) -> None:
    code, out, err = _run(command, "Fix the login bug", "--home", str(home))
    assert code == 1 and out == ""
    assert err == (
        "Error: no session id starts with 'Fix the login bug'; these words are in the "
        f"title of the claude session '{LOGIN}' ('Fix the login bug'): give its id.\n"
    )


def test_words_of_several_sessions_name_the_find_that_lists_them(home: Path) -> None:
    code, out, err = _run("show", "retry checkout", "--home", str(home))
    assert code == 1 and out == ""
    assert err == (
        "Error: no session id starts with 'retry checkout'; 'sessdex find retry "
        f"checkout --home {home}' finds the sessions whose titles hold these words, "
        "with their ids.\n"
    )


def test_a_word_like_an_option_goes_after_the_double_dash(home: Path) -> None:
    write_claude_session(
        home, "5a1e0000-0000-4000-8000-000000000004", "/x", title="try --dry-run"
    )
    write_claude_session(
        home, "5a1e0000-0000-4000-8000-000000000005", "/x", title="no --dry-run"
    )
    code, _, err = _run("show", "--home", str(home), "--", "--dry-run")
    assert code == 1
    assert f"'sessdex find --home {home} -- --dry-run' finds" in err


def test_words_no_session_holds_still_point_at_list(home: Path) -> None:
    code, _, err = _run("show", "nothing like this", "--home", str(home))
    assert code == 1
    assert err == (
        "Error: no session id starts with 'nothing like this'. Run "
        f"'sessdex list --home {home}' to see recent ones.\n"
    )


def test_the_start_of_an_id_inside_other_ids_still_points_at_list(home: Path) -> None:
    code, _, err = _run("show", "0000-4000", "--home", str(home))
    assert code == 1 and "to see recent ones" in err and "find" not in err
