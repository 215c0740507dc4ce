"""Small terminal and message gaps: what comes first on stderr, and where."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import api
from sessdex.cli import main

from .conftest import app_home
from .helpers import on_a_terminal


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


@pytest.mark.parametrize(
    "args",
    [
        ["list", "--since", "3000d"],
        ["show", "3f2b9c1e", "--no-pager"],
        ["tree", "3f2b9c1e"],
        ["usage", "session", "--since", "3000d"],
    ],
)
def test_an_empty_force_color_leaves_a_terminal_its_colour(args: list[str]) -> None:
    """FORCE_COLOR set but empty is unset (force-color.org): every command is coloured
    on a terminal, as `list` was, where Rich took it for "no terminal"."""
    env = {**os.environ, "SESSDEX_PROGRESS_AFTER": "600", "FORCE_COLOR": ""}
    env.pop("NO_COLOR", None)
    result, shown = on_a_terminal(
        [*args, "--home", str(api.demo_home().path)], env, stdout_too=True
    )
    assert result.returncode == 0, shown
    assert "\x1b[" in shown, shown[:400]
