"""What a first-time user meets running the README's commands as written: help that names
things as the README does, and a way on from every mistake."""

from __future__ import annotations

from click.testing import CliRunner

from sessdex import api
from sessdex.cli import main

DEMO = str(api.demo_home().path)


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_find_with_no_words_at_all_says_what_to_give() -> None:
    """`sessdex find` alone gave click's bare "Missing argument 'QUERY...'", while
    `sessdex find ""` said what to type and where every session is listed."""
    code, out, err = invoke("find", "--home", DEMO)
    assert (code, out) == (2, "")
    assert (
        f"give a word to find; 'sessdex list --home {DEMO}' shows every session" in err
    )


def test_find_help_names_its_words_as_the_readme_does() -> None:
    """The README's table has `sessdex find WORDS…`; the help's usage line said QUERY."""
    code, out, _ = invoke("find", "--help")
    assert code == 0
    assert "find [OPTIONS] WORDS...\n" in out


# the names click gives a value by its type, which tell a reader nothing of what to type
_TYPE_NAMES = {
    "TEXT",
    "INTEGER",
    "FLOAT",
    "DIRECTORY",
    "PATH",
    "INTEGER RANGE",
    "FLOAT RANGE",
}


def test_every_option_names_the_value_it_takes_as_the_readme_does() -> None:
    """`--home DIRECTORY`, `--since TEXT`, `--limit INTEGER RANGE` in the help, where the
    README and the other options say `--home DIR`, `--since 3d`, `--limit N`, `--tz ZONE`."""
    import click

    vague = []
    for name, command in sorted(main.commands.items()):
        context = click.Context(command, info_name=name)
        for param in command.params:
            if isinstance(param, click.Option) and not param.is_flag:
                metavar = param.make_metavar(context)
                if metavar in _TYPE_NAMES:
                    vague.append(f"{name} {param.opts[0]} {metavar}")
    assert not vague
    _, out, _ = invoke("list", "--help")
    assert "--home DIR " in out and "-n, --limit N " in out and "--since WHEN " in out


def test_the_fuzz_script_help_says_its_whole_first_sentence() -> None:
    """CONTRIBUTING names `scripts/fuzz-homes.py`; its --help stopped mid-sentence ("the
    long run of") and called --first "number of the first"."""
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).parent.parent / "scripts" / "fuzz-homes.py"
    shown = subprocess.run(
        [sys.executable, str(script), "--help"],
        capture_output=True,
        text=True,
        check=True,
        env={"COLUMNS": "200", "PATH": ""},
    ).stdout
    assert "(the long run of tests/test_fuzz_homes.py)" in shown
    assert "number of the first case" in shown


def test_since_takes_years_as_the_age_column_writes_them() -> None:
    """`list` writes an age of a year or more `1y`; `--since 1y` was refused ("cannot read
    the time '1y'"). A year is the age column's 365 days."""
    from datetime import UTC, datetime, timedelta

    from sessdex import selection
    from sessdex.views.board import empty_board

    now = datetime(2026, 12, 5, tzinfo=UTC)
    assert selection.parse_since("1y", now) == (now - timedelta(days=365)).timestamp()
    assert selection.parse_since("2Y", now) == (now - timedelta(days=730)).timestamp()
    code, out, err = invoke("list", "--since", "1y", "--home", DEMO)
    assert code == 0 and len(out.splitlines()) == 3, err
    said = empty_board("1y", now - timedelta(days=400), now)
    assert said.startswith("No session changed in the last 1y;"), said


def test_an_app_named_where_a_command_takes_no_words_points_at_app() -> None:
    """`sessdex doctor claude` and `sessdex watch codex` gave click's bare "Got unexpected
    extra argument (claude)"; `sessdex list claude` pointed at `find`. An app's name there
    is what `--app` takes: the error gives that line."""
    for command in ("doctor", "watch", "list"):
        code, out, err = invoke(command, "Claude", "codex", "--home", DEMO)
        assert (code, out) == (2, ""), command
        line = f"'sessdex {command} --app claude --app codex --home {DEMO}'"
        assert f"sessdex {command} takes no words; {line} keeps to those apps." in err
    code, _, err = invoke("doctor", "everything", "--home", DEMO)
    assert code == 2
    assert "sessdex doctor takes no words; an app's name goes after --app" in err
    code, _, err = invoke("list", "checkout", "--home", DEMO)  # a word find looks for
    assert code == 2 and f"'sessdex find checkout --home {DEMO}' finds" in err
