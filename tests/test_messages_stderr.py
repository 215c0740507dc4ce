"""Small terminal and message gaps: what comes first on stderr, and where."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
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


@pytest.mark.parametrize("stderr_on_the_terminal", [False, True])
def test_a_warning_while_the_board_shows_goes_where_stderr_goes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stderr_on_the_terminal: bool
) -> None:
    """`sessdex watch 2>log`: a warning said while the live board shows lands in the
    log, not on the terminal; with stderr on the terminal too it shows above the board."""
    import pty
    import select
    import sys

    from sessdex.cli import live
    from sessdex.cli._common import err
    from sessdex.sources import Home

    master, slave = pty.openpty()
    terminal = open(slave, "w", encoding="utf-8")  # noqa: SIM115
    log = (tmp_path / "log").open("w", encoding="utf-8")
    monkeypatch.setattr(sys, "stdout", terminal)
    monkeypatch.setattr(sys, "stderr", terminal if stderr_on_the_terminal else log)
    home = tmp_path / "home"
    home.mkdir()

    def boards() -> Iterator[list[object]]:
        yield []
        err("warning: a session file could not be read")
        yield []

    try:
        at = Home.at(home)
        live._watch_live(boards(), at, lambda: live._nothing_recent(at, "1d", []), 20)
    finally:
        terminal.close()
        log.close()
    shown = b""
    while select.select([master], [], [], 0.2)[0]:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    logged = (tmp_path / "log").read_text()
    on_the_terminal = b"could not be read" in shown
    assert on_the_terminal == stderr_on_the_terminal, shown.decode()
    assert ("could not be read" in logged) != stderr_on_the_terminal
    assert b"No agent sessions" in shown


@pytest.mark.parametrize(
    "where", [["x.html", "--format", "md"], ["no-such-folder/x.md"]]
)
def test_an_export_into_an_agents_folder_is_refused_before_any_other_word(
    tmp_path: Path, where: list[str]
) -> None:
    """An -o inside an agent's folder is refused as such, whatever else is wrong with
    it (a format its name contradicts, a folder not there): the refusal is the reason."""
    home = tmp_path / "home"
    shutil.copytree(app_home("gemini"), home)
    name, *rest = where
    target = home / ".gemini" / name
    result = CliRunner().invoke(
        main, ["export", "5a1e", "-o", str(target), *rest, "--home", str(home)]
    )
    assert result.exit_code != 0
    assert "refusing" in result.stderr, result.stderr
    assert "disagree" not in result.stderr and "does not exist" not in result.stderr
    assert not target.exists()
