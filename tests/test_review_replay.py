"""`sessdex replay` as a user meets it: its warnings point at an option it has."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from tests.helpers import write_claude_session

SESSION = "41414141-0000-4000-8000-000000000001"


def test_replay_names_the_unreadable_lines_its_warning_points_at(
    tmp_path: Path,
) -> None:
    """The warning says 'see --verbose': replay takes -v and names file and line (it
    refused -v as an unknown option)."""
    home = tmp_path / "home"
    path = write_claude_session(home, SESSION, str(tmp_path))
    with path.open("a") as out:
        out.write("{not json at all\n")
    runner = CliRunner()
    args = ["replay", "4141", "--speed", "1000", "--max-gap", "0", "--home", str(home)]
    plain = runner.invoke(main, args, catch_exceptions=False)
    assert plain.exit_code == 0, plain.stderr
    assert "see --verbose" in plain.stderr
    named = runner.invoke(main, [*args, "-v"], catch_exceptions=False)
    assert named.exit_code == 0, named.stderr
    assert f"{path}:3: not JSON" in named.stderr
    assert "see --verbose" not in named.stderr
    assert "hi" in named.stdout  # the transcript still played
