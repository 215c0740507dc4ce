"""A Codex thread the state db lists whose rollout is a pipe or a folder in its place
(tests/data/codex, from shared/corpus/realcli/codex-0.171.0): show and follow name that
rollout and what is there, as `list -v` does. They said the thread "has no rollout file
left to read" and "the session's own file is not there", though something is there."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from sessdex.folders import FOLDER_NOT_FILE
from tests.conftest import DATA

THREAD = "01a22b81-5c00-7801-8b1e-2012418ca986"


@pytest.mark.parametrize("command", ["show", "follow"])
@pytest.mark.parametrize("kind", ["pipe", "folder"])
def test_a_rollout_not_a_file_is_named(tmp_path: Path, command: str, kind: str) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA / "codex" / "home", home)
    (rollout,) = home.rglob(f"rollout-*-{THREAD}.jsonl")
    rollout.unlink()
    if kind == "pipe":
        os.mkfifo(rollout)
    else:
        rollout.mkdir()
    extra = ["--duration", "0"] if command == "follow" else []
    result = CliRunner().invoke(main, [command, THREAD, "--home", str(home), *extra])
    reason = "pipe" if kind == "pipe" else FOLDER_NOT_FILE
    assert f"could not read {rollout} ({reason})" in result.stderr, result.stderr
    assert "left to read" not in result.stderr, result.stderr
    assert "is not there" not in result.stderr, result.stderr
