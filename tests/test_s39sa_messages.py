"""Small terminal and message gaps: what comes first on stderr, and where."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main

from .conftest import app_home


def test_a_refused_export_path_gets_the_refusal_alone(tmp_path: Path) -> None:
    """`-o .aider.input.history` names no format and is aider's file: the user reads
    the refusal, not first a note that Markdown is on its way there."""
    home = tmp_path / "home"
    shutil.copytree(app_home("gemini"), home)
    kept = tmp_path / ".aider.input.history"
    kept.write_text("+fix the login redirect\n")
    result = CliRunner().invoke(
        main, ["export", "5a1e", "-o", str(kept), "--home", str(home)]
    )
    assert result.exit_code != 0
    assert "refusing" in result.stderr
    assert "names no format" not in result.stderr


def test_an_export_to_a_name_of_no_format_still_says_so(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(app_home("gemini"), home)
    target = tmp_path / "report.pdf"
    result = CliRunner().invoke(
        main, ["export", "5a1e", "-o", str(target), "--home", str(home)]
    )
    assert result.exit_code == 0
    assert "names no format" in result.stderr
    assert target.read_text().startswith("#")
