"""Which session of a folder a CLI matched by its folder (`claude` alone) or by
`--continue` has open is the newest as the board tells it, by its records: a session of
days ago copied (`cp -r`) or touched just now is not the newest for its file's time."""

from __future__ import annotations

import json
import os
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from sessdex.live import LiveSession, Processes, attach_processes
from sessdex.model import Session
from sessdex.sources import get

OLDER = "0ade0000-0000-4000-8000-000000000001"
NEWER = "0ade0000-0000-4000-8000-000000000002"
HOUR = 3600.0


def _transcript(folder: Path, sid: str, work: Path, when: float) -> Path:
    """A Claude Code session whose last turn ended at `when`."""
    stamp = datetime.fromtimestamp(when, UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    base = {"sessionId": sid, "cwd": str(work), "timestamp": stamp}
    lines = [
        {
            **base,
            "type": "user",
            "uuid": sid[:-1] + "a",
            "parentUuid": None,
            "message": {"role": "user", "content": "fix the tests"},
        },
        {
            **base,
            "type": "assistant",
            "uuid": sid[:-1] + "b",
            "parentUuid": sid[:-1] + "a",
            "message": {
                "id": "msg_" + sid[-1],
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "content": [{"type": "text", "text": "done"}],
                "stop_reason": "end_turn",
            },
        },
    ]
    path = folder / f"{sid}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    os.utime(path, (when, when))
    return path


def _proc_root(tmp_path: Path, boot: float) -> Path:
    root = tmp_path / "proc"
    (root / "self").mkdir(parents=True)
    (root / "stat").write_text(f"cpu 0\nbtime {boot:.0f}\n")
    return root


@pytest.mark.parametrize(
    ("words", "started_ago"),
    [
        (["claude"], 3 * HOUR),  # a plain start, matched by its folder
        (["claude", "--continue"], 10),  # the folder's latest, reopened just now
    ],
)
def test_a_copied_old_session_is_not_the_folders_newest(
    tmp_path: Path, words: list[str], started_ago: float
) -> None:
    """Two sessions of the folder, written 2 h and 1 h ago; the older one's file was
    copied back over itself a moment ago (its mtime is now). The CLI has the newer open:
    it waits for the user, the older has exited."""
    now = time.time()
    boot = now - 10 * HOUR
    work, folder = tmp_path / "work", tmp_path / "projects"
    work.mkdir()
    folder.mkdir()
    older = _transcript(folder, OLDER, work, now - 2 * HOUR)
    newer = _transcript(folder, NEWER, work, now - HOUR)
    os.utime(older, (now - 1, now - 1))  # `cp -r`, a restore: written just now
    root = _proc_root(tmp_path, boot)
    fake_process_at(root, boot, 11, words, work, now - started_ago)
    processes = Processes(root=root)
    processes.refresh(force=True)
    lives = [
        LiveSession(
            Session("claude", sid, path=str(path), cwd=str(work)), get("claude")
        )
        for sid, path in ((OLDER, older), (NEWER, newer))
    ]
    for live in lives:
        live.poll(now)
    attach_processes(lives, processes)
    old, new = lives
    assert (old.pids, new.pids) == ([], [11])
    assert new.status(now, processes).status == "idle"
    assert old.status(now, processes).status == "ended"


def fake_process_at(
    root: Path, boot: float, pid: int, args: list[str], cwd: Path, started: float
) -> None:
    """A process of `args` in `cwd` that started at `started` (epoch seconds)."""
    ticks = int((started - boot) * os.sysconf("SC_CLK_TCK"))
    folder = root / str(pid)
    (folder / "task" / str(pid)).mkdir(parents=True)
    (folder / "cmdline").write_bytes(b"\0".join(a.encode() for a in args) + b"\0")
    (folder / "cwd").symlink_to(cwd)
    (folder / "stat").write_text(
        f"{pid} (x) S 1 " + " ".join(["0"] * 17) + f" {ticks} 0\n"
    )
    (folder / "task" / str(pid) / "children").write_text("")
