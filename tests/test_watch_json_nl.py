"""`watch --json --nl`: the board once, one JSON object a line, then exit. --json's
help says "then exit" and README says both given print lines; the pair streamed on
forever, so a script that took --json for its snapshot never got control back."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from sessdex import api


def test_watch_json_nl_prints_the_board_once_as_lines_then_exits(
    tmp_path: Path,
) -> None:
    home = shutil.copytree(api.demo_home().path, tmp_path / "home", symlinks=True)
    env = {**os.environ, "SESSDEX_HOME": str(tmp_path / "state")}
    run = [sys.executable, "-m", "sessdex", "watch", "--since", "1000w"]
    done = subprocess.run(
        [*run, "--json", "--nl", "--home", str(home)],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert lines and all(isinstance(line, dict) and line["id"] for line in lines)
    once = subprocess.run(
        [*run, "--nl", "--once", "--home", str(home)],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert [json.loads(line)["id"] for line in once.stdout.splitlines()] == [
        line["id"] for line in lines
    ]
