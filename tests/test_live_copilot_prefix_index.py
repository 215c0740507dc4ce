"""A Copilot CLI reopened by the start of a session id (`copilot --resume=c0de9564`) is
read against every session the index holds, not only those `watch` shows: an old session
sharing that start makes the CLI's session unknown, and `resume` of the one it alone
names refuses as for `--resume <full id>`."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path
from unittest.mock import patch

import pytest
from click.testing import CliRunner

from sessdex.cli import main, sessions

needs_proc = pytest.mark.skipif(not Path("/proc/self").exists(), reason="needs /proc")

FIXTURE = Path(__file__).parent / "data" / "copilot" / "home" / ".copilot"
OLD = "c0de9564-bb27-4c05-8bfc-c62a3925f092"
DAY = 86400.0
TWIN = "c0de9564-0000-4000-8000-000000000001"  # shares OLD's first 8 characters


def _copilot_home(tmp_path: Path, work: Path, twin: bool) -> Path:
    """A home with Copilot's session OLD in `work`; with `twin`, also TWIN, a day newer."""
    home = tmp_path / "home"
    states = home / ".copilot" / "session-state"
    states.mkdir(parents=True)
    original = FIXTURE / "session-state" / OLD
    copies = [(OLD, OLD, "")]
    if twin:
        copies.append((TWIN, OLD, "2026-12-01"))
    for sid, source, day in copies:
        folder = states / sid
        shutil.copytree(original, folder)
        for name in ("workspace.yaml", "events.jsonl"):
            text = (folder / name).read_text()
            text = text.replace(source, sid).replace(
                "/home/alex/code/shop-api", str(work)
            )
            if day:
                text = text.replace("2026-11-30", day)
            # still open in a CLI: no shutdown written yet
            lines = text.splitlines(keepends=True)
            text = "".join(x for x in lines if '"session.shutdown"' not in x)
            (folder / name).write_text(text)
            os.utime(folder / name, (time.time() - DAY, time.time() - DAY))
    return home


def _copilot_process(
    tmp_path: Path, cwd: Path, words: list[str]
) -> subprocess.Popen[bytes]:
    script = tmp_path / "copilot-sleep.py"
    script.write_text("import time\ntime.sleep(30)\n")
    line = shlex.join(["exec", "-a", "copilot", sys.executable, str(script), *words])
    child = subprocess.Popen(["bash", "-c", line], cwd=cwd)
    for _ in range(100):  # until it runs the script, not bash
        cmdline = Path(f"/proc/{child.pid}/cmdline")
        if cmdline.exists() and cmdline.read_bytes().startswith(b"copilot\0"):
            break
        time.sleep(0.05)
    return child


def _resume_json(run: CliRunner, home: Path, prefix: str) -> tuple[list[int], str]:
    # stderr a terminal: where --json's warnings are said there too
    with patch.object(sessions, "stderr_is_terminal", lambda: True):
        result = run.invoke(main, ["resume", prefix, "--json", "--home", str(home)])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["live_pids"], result.stderr


@needs_proc
@pytest.mark.parametrize("words", [["--resume=c0de9564"], ["-r", "c0de9564-bb2"]])
def test_resume_refuses_a_session_a_copilot_has_open_by_its_start(
    tmp_path: Path, run: CliRunner, words: list[str]
) -> None:
    work, elsewhere = tmp_path / "work", tmp_path / "elsewhere"
    work.mkdir()
    elsewhere.mkdir()
    home = _copilot_home(tmp_path, work, twin=False)
    child = _copilot_process(tmp_path, elsewhere, words)
    try:
        pids, said = _resume_json(run, home, OLD[:8])
        assert pids == [child.pid]
        assert f"(pid {child.pid}) has this session open" in said
    finally:
        child.kill()
        child.wait()


@needs_proc
def test_a_start_two_indexed_sessions_share_holds_neither(
    tmp_path: Path, run: CliRunner
) -> None:
    """The board shows only the newest session (`--limit 1`), TWIN; OLD, off the board,
    starts as it does: the CLI's is not known, TWIN is not waiting on it."""
    work, elsewhere = tmp_path / "work", tmp_path / "elsewhere"
    work.mkdir()
    elsewhere.mkdir()
    home = _copilot_home(tmp_path, work, twin=True)
    child = _copilot_process(tmp_path, elsewhere, ["--resume=c0de9564"])
    try:
        result = run.invoke(
            main,
            [
                "watch",
                "--json",
                "--since",
                "100000d",
                "--limit",
                "1",
                "--home",
                str(home),
            ],
        )
        assert result.exit_code == 0, result.output
        rows = json.loads(result.stdout)
        assert [row["id"] for row in rows] == [TWIN]
        assert rows[0]["status"] == "ended", rows[0]
        assert _resume_json(run, home, TWIN[:12])[0] == []
        assert _resume_json(run, home, OLD[:12])[0] == []
    finally:
        child.kill()
        child.wait()
