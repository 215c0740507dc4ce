"""`resume -v` names what its session's file could not be read at, as show's does."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from tests.helpers import write_claude_session

SESSION = "c0ffee00-0000-4000-8000-00000000000a"


def test_resume_verbose_names_the_unreadable_line_of_its_file(tmp_path: Path) -> None:
    # every other session-reading command took -v; resume said "No such option: -v"
    home, shop = tmp_path / "home", tmp_path / "shop"
    shop.mkdir()
    path = write_claude_session(home, SESSION, str(shop))
    with path.open("a") as file:
        file.write('{"type": "user", "broken\n')
    args = ["resume", SESSION[:8], "--print", "--home", str(home)]
    quiet = CliRunner().invoke(main, args)
    assert quiet.exit_code == 0, quiet.output
    assert "line 3" not in quiet.stderr
    loud = CliRunner().invoke(main, [*args, "-v"])
    assert loud.exit_code == 0, loud.output
    assert loud.stdout == quiet.stdout  # the line to run is the same
    assert "skipped 1 unreadable line" in loud.stderr, loud.stderr
    assert f"{path}:3: not JSON" in loud.stderr, loud.stderr
