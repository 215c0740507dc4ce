"""The sessions an ambiguous id matched, listed under the error: their titles line up
in one column whatever their ids' lengths, and a session with no title says so, as
`list` does."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main

from .helpers import write_claude_session


def _listed(home: Path, prefix: str) -> list[str]:
    result = CliRunner().invoke(main, ["show", prefix, "--home", str(home)])
    assert result.exit_code == 1, result.output
    return result.stderr.splitlines()[1:]


def test_titles_line_up_whatever_the_ids_lengths(tmp_path: Path) -> None:
    """A Vibe child's id (`child-d6d2…`, 30 characters) beside uuids (36) pushed each
    title to its own column, right after its id."""
    home = tmp_path / "home"
    write_claude_session(home, "c0de-short", "/w/a", title="Short one")
    write_claude_session(home, "c0de-a-much-longer-id-here", "/w/a", title="Long one")
    lines = _listed(home, "c0de")
    assert len(lines) == 2, lines
    columns = {
        line.index(title) for line, title in zip(lines, _titles(lines), strict=True)
    }
    assert len(columns) == 1, lines


def test_a_session_without_a_title_says_untitled(tmp_path: Path) -> None:
    """It ended at its id (`codex  019fc8be-…  `), where `list` says `(untitled)`."""
    home = tmp_path / "home"
    write_claude_session(home, "7a1e-one", "/w/a", title="Named")
    write_claude_session(home, "7a1e-two", "/w/a", prompt="")
    listed = CliRunner().invoke(main, ["list", "--home", str(home)]).output
    assert "(untitled)" in listed, listed  # the case this test is about
    lines = _listed(home, "7a1e")
    untitled = next(line for line in lines if "7a1e-two" in line)
    assert untitled.rstrip().endswith("(untitled)"), lines


def _titles(lines: list[str]) -> list[str]:
    return [line.split("  ")[-1].strip() for line in lines]
