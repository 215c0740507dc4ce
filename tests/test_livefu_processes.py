"""Which running CLI is a session's, past what the first rules knew: a pid the system gave
to a new process between two scans, a CLI whose options name its folder (`codex -C`), a
`--continue` started before a newer session of its folder, a CLI showing a picker."""

from __future__ import annotations

import shutil
from pathlib import Path

from sessdex.live import Processes, attach_processes

from .test_live_resumed import BOOT, HOUR, OLD, fake_process, idle, proc_root


def test_a_pid_given_to_a_new_process_is_read_again(tmp_path: Path) -> None:
    """A shell ran as pid 11; it exited and, between two scans, the system gave 11 to a
    `claude --continue`: its start time changed, so it is a new process, and the board
    finds the CLI instead of the shell it remembered."""
    root, work = proc_root(tmp_path), tmp_path / "work"
    work.mkdir()
    ended_at, now = BOOT + HOUR, BOOT + 4 * HOUR
    fake_process(root, 11, ["bash"], work, started=now - 600)
    processes = Processes(root=root)
    processes.refresh(force=True)
    processes.refresh(force=True)  # no longer a young process: its words are kept
    old = idle("claude", OLD, work, now, ended_at)
    attach_processes([old], processes)
    assert (old.alive, old.pids) == (False, [])
    shutil.rmtree(root / "11")
    fake_process(root, 11, ["claude", "--continue"], work, started=now - 5)
    processes.refresh(force=True)
    attach_processes([old], processes)
    assert (old.alive, old.pids) == (True, [11])
    assert old.status(now, processes).reason == "waiting for you for 3 h"


def test_a_cli_whose_pid_went_to_another_program_is_gone(tmp_path: Path) -> None:
    """The reverse: the `claude --continue` exited and its pid now runs a shell; the
    session is no longer said to be open in a CLI."""
    root, work = proc_root(tmp_path), tmp_path / "work"
    work.mkdir()
    ended_at, now = BOOT + HOUR, BOOT + 4 * HOUR
    fake_process(root, 11, ["claude", "--continue"], work, started=now - 600)
    processes = Processes(root=root)
    processes.refresh(force=True)
    processes.refresh(force=True)
    old = idle("claude", OLD, work, now, ended_at)
    attach_processes([old], processes)
    assert (old.alive, old.pids) == (True, [11])
    shutil.rmtree(root / "11")
    fake_process(root, 11, ["bash"], work, started=now - 5)
    processes.refresh(force=True)
    attach_processes([old], processes)
    assert (old.alive, old.pids) == (False, [])
    assert old.status(now, processes).reason == "exited after its turn, 3 h ago"
