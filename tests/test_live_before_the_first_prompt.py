"""A session whose CLI wrote its file as it opened, before the first prompt.

Gemini CLI's TUI writes its chat's header and the hidden session context as it starts and
waits for you to type (the realcli 0.61.0 run in tests/data/gemini, `ae189b69`: typed 8 s
later). With no process information (macOS, Windows) that is a silence like a silent
turn's: idle for as long, not ended after a minute.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .replaying import (
    DATA,
    Replay,
    copy_home,
    emptied,
    file_steps,
    patch_clock,
    sessions,
)


@pytest.mark.parametrize("alive", [None, True], ids=["no-process-info", "cli-running"])
def test_a_cli_waiting_for_its_first_prompt_is_idle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, alive: bool | None
) -> None:
    clock = patch_clock(monkeypatch)
    home = copy_home(DATA / "gemini" / "home", tmp_path)
    lead, _ = sessions(home, "gemini", "ae189b69")
    files = [Path(str(lead.path))]
    steps = file_steps(files)
    emptied(files)
    replay = Replay(lead, steps, clock, alive=alive)
    prompt = next(n for n, s in enumerate(steps) if s.record.get("type") == "user")
    for step in steps[:prompt]:  # the header, the session context: as it opened
        replay.write(step)
    opened = steps[prompt - 1].when
    assert replay.status(opened + 5).status == "working"  # starting
    status = replay.status(opened + 5 * 60)
    assert (status.status, status.reason) == ("idle", "nothing written yet")
    later = replay.status(opened + 31 * 60).status
    assert later == ("ended" if alive is None else "idle")
