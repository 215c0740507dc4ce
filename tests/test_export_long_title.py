"""A title longer than the index keeps (200 characters) is shown cut, with the "…"
that says so."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from tests.helpers import write_claude_session


def test_an_exports_heading_says_a_long_title_was_cut(tmp_path: Path) -> None:
    """The heading of a session whose first prompt is 300 characters showed its first
    200 with nothing after them: read as the whole title."""
    home = tmp_path / "home"
    long = "word " * 60
    write_claude_session(
        home, "5e1c7a11-0000-4000-8000-000000000001", "/w/a", title=long
    )
    done = CliRunner().invoke(
        main, ["export", "-f", "md", "5e1c7a11", "--home", str(home)]
    )
    assert done.exit_code == 0, done.output
    heading = done.stdout.splitlines()[0]
    assert heading.startswith("# word word"), heading
    assert heading.endswith("…"), heading
    assert len(heading) <= 2 + 200, heading
