"""Which running CLI is a session's, past what the first rules knew: a pid the system gave
to a new process between two scans, a CLI whose options name its folder (`codex -C`), a
`--continue` started before a newer session of its folder, a CLI showing a picker."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

from sessdex.live import LiveSession, Processes, attach_processes

from .test_live_resumed import (
    BOOT,
    CODEX_OLD,
    HOUR,
    OLD,
    OTHER,
    crashed,
    event,
    fake_process,
    idle,
    proc_root,
    session,
)

needs_proc = pytest.mark.skipif(not Path("/proc/self").exists(), reason="needs /proc")


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
    assert old.status(now, processes).reason == "waiting for you for 3h"


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
    assert old.status(now, processes).reason == "exited after its turn, 3h ago"


def _sleeper(
    tmp_path: Path, name: str, words: list[str], cwd: Path
) -> subprocess.Popen[bytes]:
    """A real process whose argv is `name` then `words`, in `cwd`."""
    script = tmp_path / f"{name}-sleep.py"  # a CLI's script is named after it
    script.write_text("import time\ntime.sleep(30)\n")
    line = shlex.join(["exec", "-a", name, sys.executable, str(script), *words])
    return subprocess.Popen(["bash", "-c", line], cwd=cwd)


def _attached(lives: list[LiveSession], wanted: int) -> Processes:
    """The processes, once a scan saw the real process `wanted` after its exec."""
    for _ in range(100):
        processes = Processes()  # a new table: one read before the exec keeps bash
        processes.refresh(force=True)
        found = processes.table.get(wanted)
        # bash's own `-c` line names sleep.py too: wait for the exec'd program
        if found is not None and not found.args.startswith(b"bash"):
            break
        time.sleep(0.05)
    attach_processes(lives, processes)
    return processes


PICKERS = [
    ("claude", OLD, ["--resume"]),
    ("claude", OLD, ["-r", "--model", "opus"]),
    ("codex", CODEX_OLD, ["resume"]),
    ("codex", CODEX_OLD, ["fork"]),
    ("qwen", OLD, ["--resume"]),
    ("vibe", OLD, ["--resume"]),
    ("copilot", OLD, ["--resume"]),
]


@needs_proc
@pytest.mark.parametrize(("app", "sid", "words"), PICKERS)
def test_a_cli_showing_its_picker_has_no_session_yet(
    tmp_path: Path, app: str, sid: str, words: list[str]
) -> None:
    """The user ended a session, then started the CLI's picker in the same folder
    (`claude --resume`, `codex resume`): until a session is chosen the CLI has none open,
    so the one that just ended is not said to be waiting in it."""
    work = tmp_path / "work"
    work.mkdir()
    child = _sleeper(tmp_path, app, words, work)
    try:
        now = float(int(time.time()))  # whole seconds: the age it shows is exact
        ended = idle(app, sid, work, now, now - 20)
        processes = _attached([ended], child.pid)
        assert (ended.alive, ended.pids) == (False, [])
        status = ended.status(now, processes)
        assert (status.status, status.reason) == (
            "ended",
            "exited after its turn, 20s ago",
        )
    finally:
        child.kill()
        child.wait()


@needs_proc
def test_the_session_a_picker_opened_is_its_own_once_written(tmp_path: Path) -> None:
    """Once the user chose a session in the picker and typed, that session is written
    after the CLI started: the CLI is its process."""
    work = tmp_path / "work"
    work.mkdir()
    child = _sleeper(tmp_path, "claude", ["--resume"], work)
    try:
        time.sleep(0.2)
        now = time.time()
        chosen = session(
            "claude",
            OLD,
            work,
            now,
            event("user", now - 3 * HOUR, text="fix the tests"),
            event("turn_end", now - 3 * HOUR + 60),
            event("user", now, text="and now the docs"),
        )
        _attached([chosen], child.pid)
        assert (chosen.alive, chosen.pids) == (True, [child.pid])
    finally:
        child.kill()
        child.wait()


def _created(live: LiveSession, at: float) -> LiveSession:
    """`live`, its session created at `at` (its first record, as `list` reads it)."""
    live.session = replace(live.session, created=datetime.fromtimestamp(at, UTC))
    return live


@needs_proc
def test_continue_is_the_latest_session_there_when_it_started(tmp_path: Path) -> None:
    """`claude --continue` reopened the folder's latest session of three hours ago; then a
    plain `claude` started a new session there, written since. The new one is newer, but
    the `--continue` could not have continued a session that did not exist yet: the old
    session waits in the first CLI, the new one is the second's."""
    work = tmp_path / "work"
    work.mkdir()
    continued = _sleeper(tmp_path, "claude", ["--continue"], work)
    try:
        time.sleep(0.3)
        fresh = _sleeper(tmp_path, "claude", ["--model", "opus"], work)
        try:
            time.sleep(0.3)
            now = float(int(time.time()))
            old = _created(
                idle("claude", OLD, work, now, now - 3 * HOUR), now - 4 * HOUR
            )
            new = idle("claude", OTHER, work, now, now - 1)
            processes = _attached([old, new], continued.pid)
            began = processes.started(continued.pid)  # as /proc tells it
            assert began is not None
            _created(new, began + 1)  # begun after the `--continue` started
            processes = _attached([old, new], fresh.pid)
            assert (old.alive, old.pids) == (True, [continued.pid])
            assert (new.alive, new.pids) == (True, [fresh.pid])
            assert old.status(now, processes).reason == "waiting for you for 3h"
        finally:
            fresh.kill()
            fresh.wait()
    finally:
        continued.kill()
        continued.wait()


def test_continue_with_no_session_there_yet_is_the_one_it_starts(
    tmp_path: Path,
) -> None:
    """`codex resume --last` in a folder with no thread starts one: that thread, written
    after it started, is its own."""
    root, work = proc_root(tmp_path), tmp_path / "work"
    work.mkdir()
    now = BOOT + 4 * HOUR
    fake_process(root, 11, ["codex", "resume", "--last"], work, started=now - 60)
    processes = Processes(root=root)
    processes.refresh(force=True)
    new = _created(idle("codex", CODEX_OLD, work, now, now - 30), now - 50)
    attach_processes([new], processes)
    assert (new.alive, new.pids) == (True, [11])


@needs_proc
def test_resume_is_refused_for_what_a_continue_reopened_not_a_newer_one(
    tmp_path: Path,
) -> None:
    """`claude --continue` reopened the folder's latest session; a session begun there
    since is newer, but not the one it has open: `sessdex resume` refuses the first and
    lets the second be."""
    from sessdex import api
    from sessdex.sources import Home

    from .helpers import write_claude_session

    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    write_claude_session(home, OLD, str(work), when="2026-11-20T10:00:00.000Z")
    child = _sleeper(tmp_path, "claude", ["--continue"], work)
    try:
        started = Processes().started(child.pid)  # as /proc tells it
        assert started is not None
        moment = datetime.fromtimestamp(started + 1, UTC)  # begun after it started
        begun = moment.isoformat(timespec="milliseconds")[:-6] + "Z"
        write_claude_session(home, OTHER, str(work), when=begun)
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


@pytest.mark.parametrize(
    "words",
    [
        ["codex", "-C", "{work}", "resume", "--last"],
        ["codex", "--cd={work}", "resume", "--last"],
        ["codex", "resume", "--last", "-C", "project"],  # relative to where it started
        ["codex", "-m", "gpt-5", "-Cproject", "resume", "--last"],
        ["codex", "exec", "--cd", "project", "resume", "--last", "go on"],
    ],
)
def test_a_codex_given_its_folder_works_there(tmp_path: Path, words: list[str]) -> None:
    """`codex -C <dir>` started in another folder works in <dir>, and its threads are
    that folder's: `resume --last` there reopened the thread of that folder."""
    root, work = proc_root(tmp_path), tmp_path / "project"
    work.mkdir()
    ended_at, now = BOOT + HOUR, BOOT + 4 * HOUR
    args = [word.replace("{work}", str(work)) for word in words]
    fake_process(root, 11, args, tmp_path, started=now - 10)
    processes = Processes(root=root)
    processes.refresh(force=True)
    old = idle("codex", CODEX_OLD, work, now, ended_at)
    attach_processes([old], processes)
    assert (old.alive, old.pids) == (True, [11])
    assert old.status(now, processes).reason == "waiting for you for 3h"


def test_a_codex_given_another_folder_is_not_this_ones(tmp_path: Path) -> None:
    """Started in the session's folder but told to work in another (`-C ../other`), it
    continues that folder's thread: a thread that crashed here is not kept `working`."""
    root, work = proc_root(tmp_path), tmp_path / "project"
    work.mkdir()
    crashed_at, now = BOOT + HOUR, BOOT + 4 * HOUR
    args = ["codex", "-C", "../other", "resume", "--last"]
    fake_process(root, 11, args, work, started=crashed_at - 10)
    processes = Processes(root=root)
    processes.refresh(force=True)
    gone = crashed("codex", CODEX_OLD, work, now, crashed_at)
    attach_processes([gone], processes)
    assert (gone.alive, gone.pids) == (False, [])
    assert gone.status(now, processes).reason == "stopped during Bash (process gone)"


@needs_proc
def test_resume_is_refused_for_the_thread_a_codex_given_its_folder_has_open(
    tmp_path: Path,
) -> None:
    """A real `codex -C <project> resume --last`, started in the home folder: `sessdex
    resume` of the project's latest thread says a running codex has it open."""
    from sessdex import api
    from sessdex.sources import Home

    home, work = tmp_path / "home", tmp_path / "project"
    work.mkdir()
    day = Path(".codex/sessions/2026/11/30")
    name = f"rollout-2026-11-30T08-10-30-{CODEX_OLD}.jsonl"
    fixture = Path(__file__).parent / "data/codex/home" / day / name
    (home / day).mkdir(parents=True)
    text = fixture.read_text().replace("/home/alex/code/shop-api", str(work))
    (home / day / name).write_text(text)  # the thread, moved to this project
    child = _sleeper(tmp_path, "codex", ["-C", str(work), "resume", "--last"], tmp_path)
    try:
        for _ in range(100):
            check = api.check_resume(Home.at(home), CODEX_OLD[:8])
            if check.live_pids:
                break
            time.sleep(0.05)
        assert check.live_pids == [child.pid]
    finally:
        child.kill()
        child.wait()


TITLED = [
    ("claude", OLD, ["--resume", "checkout retry"]),  # a custom title
    ("codex", CODEX_OLD, ["resume", "checkout-retry"]),  # a thread name
    ("gemini", OLD, ["--resume", "5"]),  # an index in its list
    ("qwen", OLD, ["-r", "checkout retry"]),
    ("copilot", OLD, ["--resume=checkout retry"]),
    ("vibe", OLD, ["--resume", "checkout"]),
]


@needs_proc
@pytest.mark.parametrize(("app", "sid", "words"), TITLED)
def test_a_cli_reopened_by_title_is_not_the_one_that_just_ended(
    tmp_path: Path, app: str, sid: str, words: list[str]
) -> None:
    """The user ended a session, then reopened another by its title or its number in
    the list (`claude --resume "checkout retry"`, `gemini --resume 5`) in the same
    folder: which one it has open is not known here, but not the one that ended
    before it started, which is not said to be waiting in it."""
    work = tmp_path / "work"
    work.mkdir()
    child = _sleeper(tmp_path, app, words, work)
    try:
        now = float(int(time.time()))  # whole seconds: the age it shows is exact
        ended = idle(app, sid, work, now, now - 20)
        processes = _attached([ended], child.pid)
        assert (ended.alive, ended.pids) == (False, [])
        assert ended.status(now, processes).reason == "exited after its turn, 20s ago"
    finally:
        child.kill()
        child.wait()


def test_a_pid_that_could_not_be_read_is_read_again(tmp_path: Path) -> None:
    """A process met as it exited (its command line already gone) left its pid to a
    `claude --continue` before the next scan: that scan reads the pid again."""
    root, work = proc_root(tmp_path), tmp_path / "work"
    work.mkdir()
    ended_at, now = BOOT + HOUR, BOOT + 4 * HOUR
    fake_process(root, 11, ["claude", "--continue"], work, started=now - 5)
    (root / "11" / "cmdline").rename(tmp_path / "cmdline")  # gone as it was met
    processes = Processes(root=root)
    processes.refresh(force=True)
    processes.refresh(force=True)
    old = idle("claude", OLD, work, now, ended_at)
    attach_processes([old], processes)
    assert (old.alive, old.pids) == (False, [])
    (tmp_path / "cmdline").rename(root / "11" / "cmdline")  # the new process
    processes.refresh(force=True)
    attach_processes([old], processes)
    assert (old.alive, old.pids) == (True, [11])


def test_a_huge_command_line_is_read_only_as_far_as_it_is_kept(tmp_path: Path) -> None:
    """A tool the model ran with a 32 MB command line (a long `printf`): what watch keeps
    of it is its first 64 KiB, and only that much is read, not 32 MB held at each poll."""
    import tracemalloc

    root, work = proc_root(tmp_path), tmp_path / "work"
    work.mkdir()
    now = BOOT + HOUR
    fake_process(root, 10, ["gemini"], work, started=now - 600)
    fake_process(root, 11, ["printf", "x" * (32 << 20)], work, started=now - 300)
    (root / "10" / "task" / "10" / "children").write_text("11")
    processes = Processes(root=root)
    tracemalloc.start()
    try:
        found = processes.descendants([10], before=now, most=4)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [len(args) for args in found] == [64 * 1024]
    assert peak < 4 << 20


def test_a_child_whose_start_is_unknown_is_looked_through_for_work_not_helpers(
    tmp_path: Path,
) -> None:
    """A CLI's shell whose start /proc does not say (its stat unreadable) ran a tool
    after the answer: that tool is work the CLI started since. The shell and what it
    started are not among the helpers running at the prompt, though: those are only
    what is known to have started before it."""
    root, work = proc_root(tmp_path), tmp_path / "work"
    work.mkdir()
    now = BOOT + HOUR
    fake_process(root, 10, ["gemini"], work, started=now - 600)
    fake_process(root, 11, ["bash"], work, started=now - 500)
    fake_process(root, 12, ["make", "test"], work, started=now - 100)
    (root / "11" / "stat").unlink()
    (root / "10" / "task" / "10" / "children").write_text("11")
    (root / "11" / "task" / "11" / "children").write_text("12")
    processes = Processes(root=root)
    assert processes.spawned_since(10, now - 200) is True
    assert processes.spawned_since(10, now) is False
    assert processes.descendants([10], before=now, most=4) == set()


def test_the_helpers_kept_stop_the_walk_down(tmp_path: Path) -> None:
    """Once `most` command lines are kept, the processes below are not read."""
    root, work = proc_root(tmp_path), tmp_path / "work"
    work.mkdir()
    now = BOOT + HOUR
    fake_process(root, 10, ["gemini"], work, started=now - 600)
    fake_process(root, 11, ["mcp-a"], work, started=now - 500)
    fake_process(root, 12, ["mcp-b"], work, started=now - 500)
    fake_process(root, 13, ["mcp-c"], work, started=now - 400)
    (root / "10" / "task" / "10" / "children").write_text("11 12")
    (root / "11" / "task" / "11" / "children").write_text("13")
    processes = Processes(root=root)
    assert processes.descendants([10], before=now, most=2) == {b"mcp-a", b"mcp-b"}
    assert processes.descendants([10], before=now, most=3) == {
        b"mcp-a",
        b"mcp-b",
        b"mcp-c",
    }


def test_the_scan_keeps_no_more_of_a_command_line_than_it_reads(tmp_path: Path) -> None:
    """A process anywhere on the machine with a huge command line (a linker given every
    object file: 2 MB, Linux's default limit, in half a million words): the scan of
    every process that finds the CLI reads and keeps its first 256 KiB, not all of it
    split into words at each scan and held for as long as it runs."""
    import tracemalloc

    root, work = proc_root(tmp_path), tmp_path / "work"
    work.mkdir()
    now = BOOT + HOUR
    fake_process(root, 10, ["gemini"], work, started=now - 600)
    fake_process(root, 11, ["ld", *["x.o"] * (1 << 19)], work, started=now - 300)
    processes = Processes(root=root)
    tracemalloc.start()
    try:
        processes.refresh(force=True)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20
    assert [pid for pid, _ in processes.running("gemini")] == [10]
    assert [len(args) for pid, args in processes.running("ld")] == [256 * 1024]


@needs_proc
def test_a_real_process_with_a_long_command_line_is_read_as_far_as_it_is_kept() -> None:
    """A process started with a 1.2 MB argv (a tool given a long text in its words):
    each scan that meets it new read its whole command line and kept it, 1.2 MB; now
    its first 256 KiB, still its program's words first."""
    words = [sys.executable, "-c", "import time; time.sleep(60)"]
    words += [f"{n}" + "x" * 100_000 for n in range(12)]
    child = subprocess.Popen(words)
    try:
        processes = Processes()
        deadline = time.monotonic() + 10
        found: dict[int, bytes] = {}
        while child.pid not in found and time.monotonic() < deadline:
            processes.refresh(force=True)  # met first between its fork and its exec
            found = dict(processes.running(Path(sys.executable).name))
        whole = b"\0".join(word.encode() for word in words) + b"\0"
        assert len(whole) > 1_200_000
        assert found[child.pid] == whole[: 256 * 1024]
    finally:
        child.kill()
        child.wait()
