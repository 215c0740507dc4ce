"""resume never takes a recorded folder from where the user happens to be."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from sessdex import api
from sessdex.sources import Home

from .helpers import write_claude_session

SESSION = "71717171-0000-4000-8000-000000000071"


def sessdex(
    args: list[str], cwd: Path, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sessdex", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
        check=False,
    )


def test_a_relative_recorded_folder_is_not_looked_up_below_the_current_one(
    tmp_path: Path,
) -> None:
    """A file that says its folder is `shop`: `sessdex resume` run where a `shop`
    folder happens to be started the CLI in it, and `--print` wrote `cd shop`."""
    home = tmp_path / "home"
    write_claude_session(home, SESSION, "shop")
    here = tmp_path / "elsewhere"
    (here / "shop").mkdir(parents=True)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    ran = tmp_path / "ran"
    (bin_dir / "claude").write_text(f"#!/bin/sh\npwd > '{ran}'\n")
    (bin_dir / "claude").chmod(0o755)
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "SESSDEX_HOME": str(tmp_path / "state"),
    }
    plan = json.loads(
        sessdex(["resume", "7171", "--json", "--home", str(home)], here, env).stdout
    )
    assert any("shop" in refusal for refusal in plan["refusals"]), plan
    result = sessdex(["resume", "7171", "--home", str(home)], here, env)
    assert result.returncode == 1
    assert "shop" in result.stderr and "never resumes elsewhere" in result.stderr
    assert not ran.exists()
    # an export's line, written without checking this machine, has no `cd shop` either
    assert api.resume_command(api.resolve(Home.at(home), "7171")) is None
