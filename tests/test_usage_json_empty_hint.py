"""`usage --json`/`--nl` with nothing counted: `[]` (or no line) on stdout, and, typed
at a terminal, the reason on stderr, as `list --json`, `find --json` and `watch --json`
say theirs; a script's log (stderr no terminal) gets nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from sessdex import api

from .helpers import on_a_terminal

DEMO = str(api.demo_home().path)


@pytest.mark.parametrize("quick", [True, False])
@pytest.mark.parametrize("form", ["--json", "--nl"])
def test_an_empty_usage_json_says_why_at_a_terminal_alone(
    tmp_path: Path, quick: bool, form: str
) -> None:
    env = {**os.environ, "SESSDEX_HOME": str(tmp_path / "state")}
    env.pop("SESSDEX_NO_QUICK", None)
    if not quick:  # the full command, not the warm answer without click
        env["SESSDEX_NO_QUICK"] = "1"
    args = ["usage", "session", form, "--since", "2099-01-01", "--home", DEMO]
    for _ in range(2):  # cold, then warm (the quick path answers a warm index)
        result, terminal = on_a_terminal(args, env)
        assert result.returncode == 0, terminal
        assert result.stdout == (b"[]\n" if form == "--json" else b"")
        assert "No token usage matches --since 2099-01-01" in terminal, terminal
    piped = subprocess.run(
        [sys.executable, "-m", "sessdex", *args],
        env=env,
        capture_output=True,
        check=False,
    )
    assert (piped.returncode, piped.stderr) == (0, b"")
    assert piped.stdout == (b"[]\n" if form == "--json" else b"")
