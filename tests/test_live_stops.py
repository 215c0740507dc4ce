"""How `follow`, `watch` and `replay` end, as a shell user meets it: the reader of their
pipe gone (`| head -3`), Ctrl-C. Real processes, each under a deadline, so that one that
never ends fails its test instead of hanging the suite."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
from pathlib import Path
from typing import IO

import pytest

from tests.helpers import write_claude_session

SESSION = "5e55a0f1-0000-4000-8000-00000000005e"


def start(home: Path, args: list[str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "sessdex", *args, "--home", str(home)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        env={k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"},
        start_new_session=True,
    )


def read_until_quiet(stream: IO[bytes], quiet: float = 1.5) -> bytes:
    """What `stream` gives until nothing more came for `quiet` seconds (after its first
    bytes, which a first index may delay)."""
    seen = b""
    while select.select([stream], [], [], quiet if seen else 60)[0]:
        chunk = os.read(stream.fileno(), 65536)
        if not chunk:
            break
        seen += chunk
    return seen


@pytest.mark.parametrize(
    "args",
    [
        ["follow", SESSION, "--nl", "--poll"],
        ["follow", SESSION, "--poll"],
        ["watch", "--nl", "--poll", "--since", "9999d"],
        ["watch", "--poll", "--since", "9999d"],
    ],
    ids=" ".join,
)
def test_a_quiet_session_piped_into_head_ends_when_head_does(
    tmp_path: Path, args: list[str]
) -> None:
    """`sessdex follow ID | head -3` printed its lines, head left, and sessdex ran on for
    ever: a session nobody writes to gives it no write to fail. It ends once its pipe
    has no reader, quietly, with 0 (as a write into the closed pipe ends it)."""
    path = write_claude_session(tmp_path / "home", SESSION, "/w/quiet")
    os.utime(path, (1.79e9, 1.79e9))  # written long ago: its status no longer changes
    with start(tmp_path / "home", args) as process:
        try:
            assert process.stdout is not None and process.stderr is not None
            assert read_until_quiet(process.stdout)  # what head takes before it leaves
            process.stdout.close()
            code = process.wait(timeout=20)
            assert (code, process.stderr.read()) == (0, b"")
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)


@pytest.mark.parametrize(
    "args",
    [
        ["follow", SESSION, "--poll"],
        ["follow", SESSION, "--nl", "--poll"],
        ["watch", "--poll", "--since", "9999d"],
        ["replay", SESSION, "--speed", "0.01", "--max-gap", "60"],
    ],
    ids=" ".join,
)
def test_ctrl_c_ends_them_as_killed_by_it_so_a_shell_loop_stops_too(
    tmp_path: Path, args: list[str]
) -> None:
    """Ctrl-C ended follow, watch and replay with 0, unlike every other command: a shell
    loop around them (`for id in …; do sessdex replay $id; done`) went on to its next
    turn. They end killed by SIGINT (the shell's 130), having said nothing more."""
    path = write_claude_session(tmp_path / "home", SESSION, "/w/quiet")
    os.utime(path, (1.79e9, 1.79e9))
    with start(tmp_path / "home", args) as process:
        try:
            assert process.stdout is not None and process.stderr is not None
            assert read_until_quiet(process.stdout)
            os.killpg(process.pid, signal.SIGINT)  # as the terminal does on Ctrl-C
            code = process.wait(timeout=20)
            assert (code, process.stderr.read()) == (-signal.SIGINT, b"")
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
