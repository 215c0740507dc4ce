"""An id `sessdex demo` showed, typed on the user's own home (its `--home` left off): it
said only that no session starts with it, or that sessdex found none at all, where the
user was one `--home` away from the session the demo had just listed."""

from __future__ import annotations

from click.testing import CliRunner

from sessdex import api
from sessdex.cli import main

DEMO = str(api.demo_home().path)


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stderr


def test_a_demo_id_on_another_home_says_it_is_the_demos() -> None:
    assert _run("demo")[0] == 0  # the tour lists it (and indexes the demo home)
    for command in ("show", "tree", "resume"):
        code, err = _run(command, "3f2b")
        assert code == 1
        assert "no session id starts with '3f2b'" in err
        assert "a session of the demo home" in err
        assert f"'sessdex list --home {DEMO}'" in err


def test_a_short_or_unknown_id_says_nothing_of_the_demo() -> None:
    _run("demo")
    for given in ("3f2", "3f2bzz"):
        code, err = _run("show", given)
        assert code == 1 and "demo" not in err
