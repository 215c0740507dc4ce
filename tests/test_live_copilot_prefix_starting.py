"""`sessdex watch` on your own home: a Copilot CLI reopened by the start of an id
(`copilot --resume=c0de9564`) that one indexed session alone has, older than `--since`,
is that session's CLI, not one "choosing a session": no "no session yet" line for it. A
start two sessions share is a picker (Copilot asks which), and still shown as one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from tests.test_live_copilot_prefix_index import (
    _copilot_home,
    _copilot_process,
    needs_proc,
)


def _starting_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, twin: bool, words: list[str]
) -> tuple[int, list[dict[str, object]]]:
    """The CLI's pid, and the rows without a session `watch --json` shows for it; the
    home's sessions were written a day ago and more, off a board of `--since 1h`."""
    work, elsewhere = tmp_path / "work", tmp_path / "elsewhere"
    work.mkdir()
    elsewhere.mkdir()
    home = _copilot_home(tmp_path, work, twin=twin)
    monkeypatch.setenv("HOME", str(home))  # your own home: its CLIs are shown
    child = _copilot_process(tmp_path, elsewhere, words)
    try:
        assert Path(f"/proc/{child.pid}/cmdline").read_bytes().startswith(b"copilot\0")
        result = CliRunner().invoke(
            main, ["watch", "--json", "--since", "1h", "--app", "copilot"]
        )
        assert result.exit_code == 0, result.output
        rows = json.loads(result.stdout)
    finally:
        child.kill()
        child.wait()
    assert all(row["id"] is None for row in rows), rows  # nothing else on the board
    return child.pid, [row for row in rows if row.get("pid") == child.pid]


@needs_proc
@pytest.mark.parametrize("words", [["--resume=c0de9564"], ["-r", "c0de9564-bb2"]])
def test_a_start_one_older_session_alone_has_is_no_cli_choosing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, words: list[str]
) -> None:
    _, rows = _starting_rows(tmp_path, monkeypatch, False, words)
    assert rows == []


@needs_proc
def test_a_start_two_sessions_share_is_a_picker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pid, rows = _starting_rows(tmp_path, monkeypatch, True, ["--resume=c0de9564"])
    assert [(row["status"], row["reason"]) for row in rows] == [
        ("waiting_for_user", f"choosing a session (pid {pid})")
    ]
