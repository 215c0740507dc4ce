"""`usage --explain` of a row of one response says "1 response"; it said "1 responses"."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from tests.helpers import write_claude_session


def test_a_row_of_one_response_says_one_response(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_claude_session(home, "aaaaaaaa-0000-4000-8000-000000000001", "/w/shop")
    args = ["usage", "daily", "--explain", "2026-11-20", "--home", str(home)]
    result = CliRunner().invoke(main, args, env={"SESSDEX_HOME": str(tmp_path / "s")})
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("row 2026-11-20: 1 response, input 10, output 5"), (
        result.stdout
    )
