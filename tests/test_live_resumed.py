"""A CLI reopened on an old session (`claude --continue`, `codex resume <id>`) is that
session's process whatever its start time; one whose command line names another session,
or a new one, is not: the words are the source's own (`process_session`)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from sessdex.live import LiveSession, Processes, attach_processes
from sessdex.model import Event, Session

OLD = "7d1c2a4e-5b6f-4a3d-9e8c-1f2a3b4c5d6e"  # the session the CLI was reopened on
OTHER = "0b9e8d7c-6a5f-4e3d-8c2b-1a0f9e8d7c6b"  # a session that is not on the board
CODEX_OLD = "01a22b81-666a-7993-963b-4b7cc4e806e9"
OPENCODE_OLD = "ses_4f1c9a2b7e3dXq8ZkLmN0pR5sT"
HERMES_OLD = "20261201_100000_a1b2c3"
CODEBUFF_OLD = "2026-12-01T10-00-00.000Z"  # a Codebuff chat id: the time it began
OPENCODE_OTHER = "ses_4f1c9a2b7e3eAb1CdEfGhIjKlM"
BOOT = 1000.0
HOUR = 3600.0


def event(kind: str, seconds: float, **fields: object) -> Event:
    return Event(
        "s",
        0,
        kind,  # type: ignore[arg-type]
        time=datetime.fromtimestamp(seconds, UTC),
        **fields,  # type: ignore[arg-type]
    )


def proc_root(tmp_path: Path) -> Path:
    root = tmp_path / "proc"
    (root / "self").mkdir(parents=True)
    (root / "stat").write_text(f"cpu 0\nbtime {BOOT:.0f}\n")
    return root


def fake_process(
    root: Path, pid: int, args: list[str], cwd: Path, started: float
) -> None:
    """A process of `args` in `cwd` that started at `started` (epoch seconds)."""
    ticks = int((started - BOOT) * os.sysconf("SC_CLK_TCK"))
    folder = root / str(pid)
    (folder / "task" / str(pid)).mkdir(parents=True)
    (folder / "cmdline").write_bytes(b"\0".join(a.encode() for a in args) + b"\0")
    (folder / "cwd").symlink_to(cwd)
    (folder / "stat").write_text(
        f"{pid} (x) S 1 " + " ".join(["0"] * 17) + f" {ticks} 0\n"
    )
    (folder / "task" / str(pid) / "children").write_text("")


def session(app: str, sid: str, work: Path, now: float, *events: Event) -> LiveSession:
    """A session of `app` in `work`, followed from `now`, whose records are `events`."""
    found = LiveSession(Session(app, sid, cwd=str(work)))
    found.since = now
    for item in events:
        found.tracker.add(item, now)
    return found


def idle(app: str, sid: str, work: Path, now: float, at: float) -> LiveSession:
    """A session whose last turn ended at `at`."""
    return session(
        app,
        sid,
        work,
        now,
        event("user", at - 20, text="fix the tests"),
        event("assistant", at - 5, text="done"),
        event("turn_end", at),
    )


def crashed(app: str, sid: str, work: Path, now: float, at: float) -> LiveSession:
    """A session that stopped during a tool call at `at` (its CLI crashed)."""
    return session(
        app,
        sid,
        work,
        now,
        event("user", at - 5, text="run the tests"),
        event("tool_call", at, tool="Bash", call_id="c"),
    )


REOPENED = [
    ("claude", OLD, ["claude", "--continue"]),
    ("claude", OLD, ["claude", "-c", "--model", "opus"]),
    ("claude", OLD, ["node", "/usr/local/bin/claude", "--resume", OLD]),
    ("claude", OLD, ["claude", f"--resume={OLD}"]),
    ("codex", CODEX_OLD, ["codex", "resume", "--last"]),
    ("codex", CODEX_OLD, ["codex", "-m", "gpt-5", "resume", CODEX_OLD]),
    ("codex", CODEX_OLD, ["codex", "exec", "resume", "--last", "go on"]),
    ("gemini", OLD, ["node", "/usr/local/bin/gemini", "--resume"]),
    ("gemini", OLD, ["gemini", "-r", "latest", "--model", "gemini-3.8-flash"]),
    ("gemini", OLD, ["gemini", "--resume", OLD]),
    ("qwen", OLD, ["qwen", "--continue"]),
    ("qwen", OLD, ["qwen", "-r", OLD, "--approval-mode", "plan"]),
    ("copilot", OLD, ["copilot", f"--resume={OLD}"]),
    ("copilot", OLD, ["copilot", "--session-id", OLD]),
    ("vibe", OLD, ["python3", "/home/dev/.local/bin/vibe", "-c"]),
    ("vibe", OLD, ["vibe", "--resume", OLD, "--agent", "plan"]),
    ("opencode", OPENCODE_OLD, ["opencode", "-s", OPENCODE_OLD]),
    ("hermes", HERMES_OLD, ["python3", "/home/dev/.local/bin/hermes", "-c"]),
    ("hermes", HERMES_OLD, ["hermes", "--resume", HERMES_OLD, "--tui"]),
    ("codebuff", CODEBUFF_OLD, ["codebuff", "--continue", CODEBUFF_OLD]),
    ("codebuff", CODEBUFF_OLD, ["node", "/usr/local/bin/codebuff", "--continue"]),
    ("qoder", OLD, ["node", "/usr/local/bin/qodercli", "-c"]),
    ("qoder", OLD, ["qodercli", "--resume", OLD, "--permission-mode", "default"]),
    ("nanocoder", OLD, ["nanocoder", "--resume", OLD]),
    ("nanocoder", OLD, ["node", "/usr/local/bin/nanocoder", "-c"]),
    ("nanocoder", OLD, ["nanocoder", "--resume", "last", "--mode", "plan"]),
]


@pytest.mark.parametrize(("app", "sid", "args"), REOPENED)
def test_a_cli_reopened_on_an_old_session_is_waiting_for_you(
    tmp_path: Path, app: str, sid: str, args: list[str]
) -> None:
    """Its last turn ended three hours ago; the user reopened it just now and has not
    typed yet: the CLI is open on it, so it waits, it did not exit."""
    root, work = proc_root(tmp_path), tmp_path / "work"
    work.mkdir()
    ended_at, now = BOOT + HOUR, BOOT + 4 * HOUR
    fake_process(root, 11, args, work, started=now - 10)
    processes = Processes(root=root)
    processes.refresh(force=True)
    old = idle(app, sid, work, now, ended_at)
    attach_processes([old], processes)
    assert (old.alive, old.pids) == (True, [11])
    status = old.status(now, processes)
    assert (status.status, status.reason) == ("idle", "waiting for you for 3h")


def test_a_new_cli_in_the_folder_still_leaves_an_old_session_exited(
    tmp_path: Path,
) -> None:
    """A plain `claude` (a new session) started long after: the old one exited."""
    root, work = proc_root(tmp_path), tmp_path / "work"
    work.mkdir()
    ended_at, now = BOOT + HOUR, BOOT + 4 * HOUR
    fake_process(root, 11, ["claude", "--model", "opus"], work, started=now - 10)
    processes = Processes(root=root)
    processes.refresh(force=True)
    old = idle("claude", OLD, work, now, ended_at)
    attach_processes([old], processes)
    assert (old.alive, old.pids) == (False, [])
    assert old.status(now, processes).reason == "exited after its turn, 3h ago"


@pytest.mark.parametrize(
    ("app", "sid", "args"),
    [
        ("claude", OLD, ["claude", "--resume", OTHER]),
        ("claude", OLD, ["claude", "--resume", OLD, "--fork-session"]),
        ("codex", CODEX_OLD, ["codex", "resume", OTHER]),
        ("codex", CODEX_OLD, ["codex", "fork", CODEX_OLD]),
        ("gemini", OLD, ["gemini", "--resume", OTHER]),
        ("qwen", OLD, ["qwen", "--resume", OLD, "--fork-session"]),
        ("copilot", OLD, ["copilot", "--resume", OTHER]),
        ("vibe", OLD, ["vibe", f"--resume={OTHER}"]),
        ("opencode", OPENCODE_OLD, ["opencode", "--session", OPENCODE_OTHER]),
        ("opencode", OPENCODE_OLD, ["opencode", "-s", OPENCODE_OLD, "--fork"]),
        ("nanocoder", OLD, ["nanocoder", "--resume", OTHER]),
    ],
)
def test_a_cli_open_on_another_session_does_not_keep_a_crashed_one_working(
    tmp_path: Path, app: str, sid: str, args: list[str]
) -> None:
    """The session crashed during a tool call; seconds before, the user had opened
    another session (or a fork of this one) in the same folder: that CLI is not this
    session's writer, however close its start is to the crash."""
    root, work = proc_root(tmp_path), tmp_path / "work"
    work.mkdir()
    crashed_at, now = BOOT + HOUR, BOOT + 4 * HOUR
    fake_process(root, 11, args, work, started=crashed_at - 10)
    processes = Processes(root=root)
    processes.refresh(force=True)
    gone = crashed(app, sid, work, now, crashed_at)
    attach_processes([gone], processes)
    assert (gone.alive, gone.pids) == (False, [])
    status = gone.status(now, processes)
    assert (status.status, status.reason) == (
        "ended",
        "stopped during Bash (process gone)",
    )


def test_a_fork_is_the_new_sessions_process_not_the_one_it_names(
    tmp_path: Path,
) -> None:
    """`claude --resume X --fork-session` writes a new session: once it is on the board,
    the process is that one's, not X's."""
    root, work = proc_root(tmp_path), tmp_path / "work"
    work.mkdir()
    now = BOOT + 4 * HOUR
    fake_process(
        root, 11, ["claude", "--resume", OLD, "--fork-session"], work, started=now - 60
    )
    processes = Processes(root=root)
    processes.refresh(force=True)
    old = idle("claude", OLD, work, now, BOOT + HOUR)
    fork = idle("claude", OTHER, work, now, now - 30)
    attach_processes([old, fork], processes)
    assert (old.alive, old.pids) == (False, [])
    assert (fork.alive, fork.pids) == (True, [11])


@pytest.mark.skipif(not Path("/proc/self").exists(), reason="needs /proc")
def test_a_real_claude_continue_started_now_keeps_an_old_session_waiting(
    tmp_path: Path,
) -> None:
    """A real process named `claude`, started with `--continue` in the session's folder
    hours after its last turn ended, found through the real /proc."""
    work = tmp_path / "work"
    work.mkdir()
    child = subprocess.Popen(
        [
            "bash",
            "-c",
            f'exec -a claude {sys.executable} -c "import time; time.sleep(30)" --continue',
        ],
        cwd=work,
    )
    try:
        now = time.time()
        old = idle("claude", OLD, work, now, now - 3 * HOUR - 60)
        for _ in range(100):
            processes = Processes()  # a new table: one read before the exec keeps bash
            processes.refresh(force=True)
            attach_processes([old], processes)
            if old.pids:
                break
            time.sleep(0.05)
        assert (old.alive, old.pids) == (True, [child.pid])
        assert old.status(now, processes).reason == "waiting for you for 3h"
    finally:
        child.kill()
        child.wait()


@pytest.mark.parametrize(
    ("app", "args"),
    [
        ("claude", ["claude", "--resume", "checkout retry"]),  # a name: which one?
        ("claude", ["claude", "--resume"]),  # a picker
        ("codex", ["codex", "resume"]),
        ("codex", ["codex", "resume the checkout work"]),  # a prompt
        ("gemini", ["gemini", "--resume", "5"]),  # an index
        ("copilot", ["copilot", "--continue"]),  # its scope is not known
        ("opencode", ["opencode", "--continue"]),  # nor this one's
        ("vibe", ["vibe", "--resume"]),  # a picker
    ],
)
def test_a_cli_whose_words_name_no_session_is_still_judged_by_its_start(
    tmp_path: Path, app: str, args: list[str]
) -> None:
    """Words that say nothing sure of which session is open leave the rule as it was:
    a CLI started hours after the session's last turn is not its process."""
    root, work = proc_root(tmp_path), tmp_path / "work"
    work.mkdir()
    ended_at, now = BOOT + HOUR, BOOT + 4 * HOUR
    fake_process(root, 11, args, work, started=now - 10)
    processes = Processes(root=root)
    processes.refresh(force=True)
    sid = {"codex": CODEX_OLD, "opencode": OPENCODE_OLD}.get(app, OLD)
    old = idle(app, sid, work, now, ended_at)
    attach_processes([old], processes)
    assert (old.alive, old.pids) == (False, [])
    assert old.status(now, processes).reason == "exited after its turn, 3h ago"


@pytest.mark.skipif(not Path("/proc/self").exists(), reason="needs /proc")
def test_resume_is_not_refused_for_a_fork_of_the_session_running(
    tmp_path: Path,
) -> None:
    """`claude --resume X --fork-session` writes a new session: `sessdex resume X` does
    not say a running claude has X open (it does for `claude --resume X`)."""
    from sessdex import api
    from sessdex.sources import Home

    from .helpers import write_claude_session

    home = tmp_path / "home"
    write_claude_session(home, OLD, str(tmp_path))
    sleeper = f'{sys.executable} -c "import time; time.sleep(30)"'
    fork = subprocess.Popen(
        ["bash", "-c", f"exec -a claude {sleeper} --resume {OLD} --fork-session"]
    )
    opened = subprocess.Popen(["bash", "-c", f"exec -a claude {sleeper} -r {OLD}"])
    try:
        for _ in range(100):
            check = api.check_resume(Home.at(home), OLD[:8])
            if opened.pid in check.live_pids and fork.pid not in check.live_pids:
                break
            time.sleep(0.05)
        assert check.live_pids == [opened.pid]
    finally:
        for child in (fork, opened):
            child.kill()
            child.wait()


@pytest.mark.skipif(not Path("/proc/self").exists(), reason="needs /proc")
def test_resume_is_refused_while_a_continue_has_the_folders_latest_open(
    tmp_path: Path,
) -> None:
    """`claude --continue` runs in the folder: it has the folder's latest session open,
    so `sessdex resume` of that one says so; an older session there is free."""
    from sessdex import api
    from sessdex.sources import Home

    from .helpers import write_claude_session

    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    write_claude_session(home, OTHER, str(work), when="2026-11-20T09:00:00.000Z")
    write_claude_session(home, OLD, str(work), when="2026-11-20T10:00:00.000Z")
    sleeper = f'{sys.executable} -c "import time; time.sleep(30)"'
    child = subprocess.Popen(
        ["bash", "-c", f"exec -a claude {sleeper} --continue"], cwd=work
    )
    try:
        for _ in range(100):
            check = api.check_resume(Home.at(home), OLD[:8])
            if check.live_pids:
                break
            time.sleep(0.05)
        assert check.live_pids == [child.pid]
        assert api.check_resume(Home.at(home), OTHER[:8]).live_pids == []
    finally:
        child.kill()
        child.wait()


def test_a_cli_seen_before_its_exec_is_found_at_the_next_scan(tmp_path: Path) -> None:
    """A scan that met the process between its fork and its exec read the shell's
    command line: the next scan reads it again and finds the CLI."""
    root, work = proc_root(tmp_path), tmp_path / "work"
    work.mkdir()
    ended_at, now = BOOT + HOUR, BOOT + 4 * HOUR
    fake_process(root, 11, ["bash", "-c", "exec claude --continue"], work, now - 1)
    processes = Processes(root=root)
    processes.refresh(force=True)
    old = idle("claude", OLD, work, now, ended_at)
    attach_processes([old], processes)
    assert (old.alive, old.pids) == (False, [])
    (root / "11" / "cmdline").write_bytes(b"claude\0--continue\0")  # it exec'd
    processes.refresh(force=True)
    attach_processes([old], processes)
    assert (old.alive, old.pids) == (True, [11])
    assert old.status(now, processes).reason == "waiting for you for 3h"
