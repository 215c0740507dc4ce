"""An id typed whole names its session even where many newer sessions' ids start with it
(an app's short ids: `7`, then `70` to `79`, `700`...): the look-up took the 20 newest
matches of the prefix, and the one spelt so could be past them."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main

from .helpers import write_claude_session

SHORT = "7e57ca5e"


def test_an_id_typed_whole_is_found_past_twenty_newer_ids_it_starts(
    tmp_path: Path, run: CliRunner
) -> None:
    home = tmp_path / "home"
    (tmp_path / "w").mkdir()
    write_claude_session(
        home, SHORT, str(tmp_path / "w"), prompt="The short one",
        when="2026-11-01T10:00:00.000Z",
    )  # fmt: skip
    for n in range(25):  # newer, each id starting with the short one
        write_claude_session(
            home, f"{SHORT}-{n:04d}", str(tmp_path / "w"), prompt=f"Longer {n}",
            when=f"2026-11-20T10:{n:02d}:00.000Z",
        )  # fmt: skip
    result = run.invoke(main, ["show", SHORT, "--home", str(home)])
    assert result.exit_code == 0, result.output
    assert "The short one" in result.stdout and "Longer" not in result.stdout
    result = run.invoke(main, ["show", SHORT.upper(), "--home", str(home)])
    assert result.exit_code == 0, result.output  # any case: the one id so spelt
    assert "The short one" in result.stdout
    # a prefix of them all stays ambiguous, every match counted
    result = run.invoke(main, ["show", SHORT[:6], "--home", str(home)])
    assert result.exit_code == 1 and "matches 26 sessions" in result.stderr
