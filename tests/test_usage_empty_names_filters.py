"""An empty `usage` report names the options that emptied it, as `list` does: it said "No
token usage matches these options" and pointed at `list` and `doctor`, which show the
sessions the options had left out, whichever option it was."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from sessdex import api

DEMO = str(api.demo_home().path)


@pytest.mark.parametrize("quick", [True, False])
def test_an_empty_report_names_its_filters_and_the_report_without_them(
    tmp_path: Path, quick: bool
) -> None:
    env = {**os.environ, "SESSDEX_HOME": str(tmp_path / "state"), "COLUMNS": "500"}
    env.pop("SESSDEX_NO_QUICK", None)
    if not quick:
        env["SESSDEX_NO_QUICK"] = "1"
    args = ["usage", "--app", "claude", "--until", "2000-01-01", "--home", DEMO]
    for _ in range(2):  # cold, then warm (the quick path answers a warm index)
        done = subprocess.run(
            [sys.executable, "-m", "sessdex", *args],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert (done.returncode, done.stdout) == (0, ""), done.stderr
        assert done.stderr == (
            "No token usage matches --app claude --until 2000-01-01, with days in UTC "
            f"(--tz sets another); 'sessdex usage --home {DEMO}' without them counts "
            "all there is.\n"
        )
    one = [
        "usage",
        "session",
        "--app",
        "codex",
        "--home",
        DEMO,
        "--since",
        "2099-01-01",
    ]
    done = subprocess.run(
        [sys.executable, "-m", "sessdex", *one],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.stderr.startswith(
        "No token usage matches --app codex --since 2099-01-01,"
    )
    assert "without them counts all there is" in done.stderr
