"""`sessdex watch`: a Copilot CLI reopened by the start of an id no session has
(`copilot --resume=abcdef12`) is not shown as "choosing a session": Copilot shows no
picker for it (it stops with "No session, task, or name matched '…'", as
kinncj/MAPLE#24 quotes 1.0.x). The row says what it was given, and that no session
here has it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_live_copilot_prefix_starting import _starting_rows, needs_proc


@needs_proc
def test_a_start_no_session_has_is_no_picker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pid, rows = _starting_rows(tmp_path, monkeypatch, False, ["--resume=abcdef12"])
    assert [row["reason"] for row in rows] == [
        f"resuming abcdef12, which no session here has (pid {pid})"
    ]
    assert rows[0]["status"] != "waiting_for_user"
