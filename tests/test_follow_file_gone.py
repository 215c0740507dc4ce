"""`follow` of a session still listed whose own file is gone (a Codex thread its state
database keeps, its rollout deleted since): it says so, as `show` does. It showed
nothing and said nothing, waiting on a file that is not there."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from tests.conftest import DATA

THREAD = "01a22b81-5c00-7801-8b1e-2012418ca986"


def test_follow_says_the_listed_sessions_file_is_gone(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA / "codex" / "home", home)
    (rollout,) = home.rglob(f"rollout-*{THREAD}.jsonl")
    rollout.unlink()
    run = CliRunner()
    shown = run.invoke(main, ["show", THREAD, "--home", str(home)])
    assert shown.exit_code == 0 and "no rollout file left" in shown.stderr
    followed = run.invoke(
        main, ["follow", THREAD, "-n", "3", "--duration", "0", "--home", str(home)]
    )
    assert followed.exit_code == 0, followed.output
    assert "codex: the session's own file is not there" in followed.stderr, (
        followed.stderr
    )
