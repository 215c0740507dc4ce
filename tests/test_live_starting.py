"""A CLI running with no session yet (just started, nothing written; or showing its
picker) is a row of the board: its app, its folder, its pid; `watch --json` gives it the
session objects' keys, `id` null, and its `pid`; `--nl` streams sessions only."""

from __future__ import annotations

from pathlib import Path

from sessdex.live import Board, Processes, attach_processes, starting
from sessdex.sources import get
from sessdex.views.board import plain, status_record

from .test_live_resumed import BOOT, HOUR, OLD, fake_process, idle, proc_root


def _board(root: Path, since: float | None = None) -> Board:
    board = Board(
        list,
        processes=Processes(root=root),
        clis=[get("claude"), get("codex")],
        since=lambda: since,
    )
    board.rescan()
    board.poll()
    return board


def test_a_cli_with_no_session_is_on_the_board(tmp_path: Path) -> None:
    root, work = proc_root(tmp_path), tmp_path / "work"
    work.mkdir()
    now = BOOT + HOUR
    fake_process(root, 11, ["node", "/usr/bin/claude"], work, started=now - 10)
    fake_process(root, 12, ["claude", "--resume"], work, started=now - 600)
    fake_process(root, 13, ["claude", "--resume", OLD], work, started=now - 5)
    fake_process(root, 14, ["codex", "resume", "--last"], work, started=now - 5)
    fake_process(root, 15, ["codex", "-C", "sub"], work, started=now - 7200)
    fake_process(root, 16, ["vim", "claude"], work, started=now - 5)
    rows = _board(root).rows(now)
    shown = {row.pid: (row.session.app, row.session.cwd, row.status) for row in rows}
    assert set(shown) == {11, 12, 15}
    app, cwd, status = shown[11]
    assert (app, cwd) == ("claude", str(work))
    assert (status.status, status.reason) == ("working", "starting (pid 11)")
    status = shown[12][2]
    assert (status.status, status.reason) == (
        "waiting_for_user",
        "choosing a session (pid 12)",
    )
    app, cwd, status = shown[15]
    assert (app, cwd) == ("codex", str(work / "sub"))  # the folder its options name
    assert (status.status, status.reason) == ("idle", "nothing written yet (pid 15)")
    assert rows[0].pid == 12  # waiting for you comes first
    assert all(row.session.id == "" and row.tokens == 0 for row in rows)


def test_a_cli_older_than_the_window_or_a_sessions_is_not(tmp_path: Path) -> None:
    """A CLI that started before the board's window may hold a session older than it;
    one the board gave a session is that session's line."""
    root, work = proc_root(tmp_path), tmp_path / "work"
    work.mkdir()
    now = BOOT + 4 * HOUR
    fake_process(root, 11, ["claude"], work, started=now - 2 * HOUR)
    assert [row.pid for row in _board(root, since=now - HOUR).rows(now)] == []
    processes = Processes(root=root)
    processes.refresh(force=True)
    written = idle("claude", OLD, work, now, now - HOUR)  # written since it started
    attach_processes([written], processes)
    assert written.pids == [11]
    assert starting([get("claude")], [written], processes) == []


def test_its_json_and_its_line(tmp_path: Path) -> None:
    root, work = proc_root(tmp_path), tmp_path / "work"
    work.mkdir()
    now = BOOT + HOUR
    fake_process(root, 11, ["claude", "-r"], work, started=now - 10)
    rows = _board(root).rows(now)
    record = status_record(rows[0])
    assert record["id"] is None and record["pid"] == 11
    assert record["app"] == "claude" and record["cwd"] == str(work)
    assert record["status"] == "waiting_for_user"
    assert record["tokens"] == 0 and record["tokens_partial"] is False
    text = plain(rows, str(tmp_path))
    assert "(no session yet)" in text and "choosing a session (pid 11)" in text


def test_a_sources_cli_is_the_program_its_resume_runs() -> None:
    from sessdex import sources
    from sessdex.model import Session

    named = [s for s in sources.all_sources() if getattr(s, "CLI", None)]
    assert named
    for source in named:
        session = Session(source.NAME, OLD, cwd="/tmp", path="/tmp/x.jsonl")
        plan = source.resume(session)
        assert plan is not None
        assert source.CLI[0] == plan.program, source.NAME  # type: ignore[attr-defined]
