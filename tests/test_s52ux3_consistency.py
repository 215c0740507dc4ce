"""Consistency across commands: options alike where commands share them."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from tests.helpers import write_claude_session


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_follow_verbose_names_the_lines_it_skipped(tmp_path: Path) -> None:
    """`follow` took no -v/--verbose, where show, export, tree and replay name each
    broken line with it: it could only send the user to `doctor --deep`."""
    home = tmp_path / "home"
    path = write_claude_session(home, "56565656-0000-4000-8000-000000000005", "/w/a")
    lines = path.read_text().splitlines(keepends=True)
    path.write_text(lines[0] + "{not json\n" + "".join(lines[1:]))
    follow = ("follow", "5656", "--duration", "0", "--home", str(home))
    code, _, err = invoke(*follow, "-v")
    assert code == 0
    assert "warning: skipped 1 unreadable line:\n" in err
    assert f"{path}:2" in err and "not JSON" in err
    code, _, err = invoke(*follow)
    assert code == 0 and "skipped 1 unreadable line; see --verbose" in err
    assert str(path) not in err
