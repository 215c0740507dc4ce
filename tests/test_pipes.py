"""A pipe where an app keeps a file must never stop sessdex: opening a pipe for reading
waits for a writer, forever. Listings pass pipes over; these are the files an adapter
names itself (a project marker, a session's metadata, a database's journal, a task's
history), each replaced by a pipe in a copy of its fixture home. Each command runs in its
own process, under a deadline, so a hang fails the test instead of the suite."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
VIBE_SESSION = ".vibe/logs/session/session_20261201_100000_3f1c2a9e"
CLINE_TASK = (
    ".config/Cursor/User/globalStorage/saoudrizwan.claude-dev/tasks/1790940000000"
)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
@pytest.mark.parametrize(
    ("app", "piped"),
    [
        ("gemini", ".gemini/tmp/shop-api/.project_root"),
        ("vibe", f"{VIBE_SESSION}/meta.json"),
        ("opencode", ".local/share/opencode/opencode.db-journal"),
        ("opencode", ".local/share/opencode/opencode.db-wal"),
        ("codex", ".codex/state_5.sqlite-wal"),
        ("codex", ".codex/state_5.sqlite-journal"),
        ("cline", f"{CLINE_TASK}/api_conversation_history.json"),
    ],
)
@pytest.mark.parametrize("command", [["list", "--all", "--json"], ["usage", "--json"]])
def test_a_pipe_where_a_file_is_expected_is_passed_over_never_waited_on(
    tmp_path: Path, app: str, piped: str, command: list[str]
) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA / app / "home", home, symlinks=True)
    fifo = home / piped
    fifo.unlink(missing_ok=True)
    os.mkfifo(fifo)
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"))
    try:
        done = subprocess.run(
            [sys.executable, "-m", "sessdex", *command, "--home", str(home)],
            capture_output=True,
            env=env,
            timeout=30,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{' '.join(command)} waited on the pipe at {piped}")
    assert done.returncode == 0, done.stderr.decode()
    assert b"Traceback" not in done.stderr
    assert fifo.is_fifo()  # left as it was
