"""An option given an empty value (a script's unset variable: `-o "$OUT"`) is a usage
error, said before anything is read, as `--since ""` is."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import api
from sessdex.cli import main

DEMO = str(api.demo_home().path)
CLAUDE_A = "3f2b9c1e"


@pytest.mark.parametrize(
    "args",
    [
        ("export", CLAUDE_A, "-o", ""),
        ("export", CLAUDE_A, "--output", " "),
        ("usage", "--explain", ""),
        ("usage", "session", "--explain", " "),
        ("list", "--app", ""),
        ("doctor", "--app", " "),
        ("find", "hello", "--app", ""),
        ("show", CLAUDE_A, "--home", ""),
        ("list", "--home", " "),
    ],
    ids=lambda args: " ".join(repr(a) if not a.strip() else a for a in args),
)
def test_an_empty_value_is_a_usage_error(
    args: tuple[str, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`export -o ''` read the whole session, then exited 1 with "could not write '':
    No such file or directory"; `usage --explain ''` said "no daily row is keyed ''"
    (exit 1); `--app ''` "unknown app ''"; `--home ''` "the folder '' does not
    exist". Each is an option left empty: exit 2, and the words `--since ''` uses."""
    monkeypatch.chdir(tmp_path)  # `-o ' '` wrote a file named ' ' here
    home = () if "--home" in args else ("--home", DEMO)
    result = CliRunner().invoke(main, [*args, *home], catch_exceptions=False)
    assert result.exit_code == 2, result.stderr
    option = next(a for a in args if a.startswith("-"))
    assert "it is empty: give a value, or leave the option out." in result.stderr
    assert f"'{option}'" in result.stderr
    assert result.stdout == "" and list(tmp_path.iterdir()) == []
