"""`show` and `export` of a Codex thread its state database still lists whose rollout
a crash or a full disk left at 0 bytes: they say the file is empty, as they say one
deleted has "no rollout file left". They printed the thread's header and nothing else,
unsaid. One Codex has just created (it makes the file, then writes its first line) is
no damage: nothing is said of it."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from tests.conftest import DATA

THREAD = "01a22b81-5c00-7801-8b1e-2012418ca986"


@pytest.mark.parametrize("command", [["show"], ["export", "-f", "markdown"]])
def test_an_emptied_rollout_is_said_so(tmp_path: Path, command: list[str]) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA / "codex" / "home", home)
    (rollout,) = home.rglob(f"rollout-*{THREAD}.jsonl")
    rollout.write_bytes(b"")
    old = time.time() - 3600  # emptied by a crash an hour ago
    os.utime(rollout, (old, old))
    args = [command[0], THREAD, *command[1:], "--home", str(home)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert f"{rollout} is empty" in result.stderr, result.stderr


@pytest.mark.parametrize(
    "command", [["show"], ["export", "-f", "markdown"], ["usage", "session"]]
)
def test_a_rollout_just_created_is_not_said_to_be_damaged(
    tmp_path: Path, command: list[str]
) -> None:
    """`show` of a thread Codex had just started warned that its rollout "is empty:
    nothing of it to read", as of one a crash emptied."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "codex" / "home", home)
    (rollout,) = home.rglob(f"rollout-*{THREAD}.jsonl")
    rollout.write_bytes(b"")  # now: its first line not written yet
    args = [*command, *([] if command[0] == "usage" else [THREAD])]
    result = CliRunner().invoke(main, [*args, "--home", str(home)])
    assert result.exit_code == 0, result.output
    assert "is empty" not in result.stderr, result.stderr
    assert "warning" not in result.stderr, result.stderr
