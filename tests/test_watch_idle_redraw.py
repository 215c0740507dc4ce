"""`watch` on a terminal draws its board again only when what it shows changed.

The live board was drawn again at every tick (each second) even when no session, status,
reason or age on it had changed: a home of sessions that ended days ago sent the whole
board to the terminal once a second (a board of 1000 sessions, 1000 lines a second).
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

from .conftest import app_home
from .helpers import on_a_terminal

TITLE = "Checkout retry smoke test"  # an OpenCode session of the fixture, days old


def _home(tmp_path: Path) -> Path:
    """A copy of the OpenCode home, its database in WAL mode (read through a snapshot)."""
    home = tmp_path / "home"
    shutil.copytree(app_home("opencode"), home, symlinks=True)
    database = home / ".local/share/opencode/opencode.db"
    connection = sqlite3.connect(database)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.close()
    return home


def test_an_idle_board_is_drawn_once(tmp_path: Path) -> None:
    home = _home(tmp_path)
    env = {**os.environ, "SESSDEX_HOME": str(tmp_path / "state")}
    result, shown = on_a_terminal(
        ["watch", "--home", str(home), "--since", "100000d", "--duration", "4.5"],
        env,
        stdout_too=True,
    )
    assert result.returncode == 0, shown
    # four ticks passed with nothing new: the board was drawn as it appeared, and once
    # more as it ended (Rich's Live draws its last board again as it stops); it was 5
    assert shown.count(TITLE) == 2, shown.count(TITLE)


def test_an_idle_board_streams_each_session_once(tmp_path: Path) -> None:
    """`watch --nl` over a quiet home of database sessions: a line per session, then none."""
    home = _home(tmp_path)
    env = {**os.environ, "SESSDEX_HOME": str(tmp_path / "state")}
    argv = ["watch", "--nl", "--home", str(home), "--since", "100000d"]
    result = subprocess.run(
        [sys.executable, "-m", "sessdex", *argv, "--duration", "4.5"],
        env=env,
        capture_output=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    ids = [json.loads(line)["id"] for line in result.stdout.splitlines()]
    assert ids and len(ids) == len(set(ids)), ids


def test_an_idle_board_is_drawn_again_when_the_terminal_grows_taller(
    tmp_path: Path,
) -> None:
    """Its width changed, a board was drawn again, but not its height: a board cut to a
    short terminal ("...") stayed cut after the window grew, until a session changed."""
    import fcntl
    import pty
    import struct
    import termios
    import threading
    import time

    home = _home(tmp_path)
    env = {**os.environ, "SESSDEX_HOME": str(tmp_path / "state"), "TERM": "xterm"}
    env.pop("COLUMNS", None)
    env.pop("LINES", None)
    master, slave = pty.openpty()

    def size(rows: int) -> bytes:  # a window `rows` high, 120 columns wide
        return struct.pack("HHHH", rows, 120, 0, 0)

    fcntl.ioctl(slave, termios.TIOCSWINSZ, size(24))
    seen: list[bytes] = []

    def drain() -> None:
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                return
            if not chunk:
                return
            seen.append(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    argv = ["watch", "--home", str(home), "--since", "100000d", "--duration", "8"]
    process = subprocess.Popen(
        [sys.executable, "-m", "sessdex", *argv],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=slave,
    )
    try:
        deadline = time.monotonic() + 30
        while TITLE.encode() not in b"".join(seen) and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(1.5)
        fcntl.ioctl(slave, termios.TIOCSWINSZ, size(40))  # the window grew taller
        assert process.wait(timeout=60) == 0
    finally:
        os.close(slave)
    reader.join(timeout=5)
    os.close(master)
    shown = b"".join(seen).decode("utf-8", "replace")
    # drawn as it appeared, again at the new height, and once more as it ended
    assert shown.count(TITLE) == 3, shown.count(TITLE)
