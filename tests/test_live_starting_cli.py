"""`sessdex watch` shows a CLI just started, with no session yet, on this machine: on the
board and in `--json` (`id` null, its `pid`), not in `--nl`, nor for another `--home`."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

needs_proc = pytest.mark.skipif(not Path("/proc/self").exists(), reason="needs /proc")


def _claude_process(tmp_path: Path, cwd: Path) -> subprocess.Popen[bytes]:
    script = tmp_path / "claude-sleep.py"
    script.write_text("import time\ntime.sleep(30)\n")
    line = shlex.join(["exec", "-a", "claude", sys.executable, str(script)])
    child = subprocess.Popen(["bash", "-c", line], cwd=cwd)
    for _ in range(100):  # until it runs the script, not bash
        cmdline = Path(f"/proc/{child.pid}/cmdline")
        if cmdline.exists() and cmdline.read_bytes().startswith(b"claude\0"):
            break
        time.sleep(0.05)
    return child


@needs_proc
def test_watch_shows_a_claude_just_started(tmp_path: Path, run: CliRunner) -> None:
    work = tmp_path / "work"
    work.mkdir()
    child = _claude_process(tmp_path, work)
    try:
        result = run.invoke(main, ["watch", "--json", "--app", "claude"])
        assert result.exit_code == 0, result.output
        found = [
            row for row in json.loads(result.stdout) if row.get("pid") == child.pid
        ]
        assert len(found) == 1, result.stdout
        assert found[0]["id"] is None and found[0]["cwd"] == str(work)
        assert (found[0]["status"], found[0]["reason"]) == (
            "working",
            f"starting (pid {child.pid})",
        )
        result = run.invoke(main, ["watch", "--once", "--app", "claude"])
        assert f"starting (pid {child.pid})" in result.stdout
        # `--nl` streams sessions only; another home's board has no CLI of this machine
        result = run.invoke(main, ["watch", "--nl", "--once", "--app", "claude"])
        assert str(child.pid) not in result.stdout
        other = tmp_path / "other"
        other.mkdir()
        result = run.invoke(main, ["watch", "--json", "--home", str(other)])
        assert json.loads(result.stdout) == []
    finally:
        child.kill()
        child.wait()
