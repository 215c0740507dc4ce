"""`watch`: a lead whose turn ended while a sub-agent it launched in the background writes
on says "turn ended 30s ago (1 sub-agent working)", its age and `since` counting from the
lead's record that ended the turn. Both counted from the sub-agent's last write: the board
said "turn ended 0s ago" though no turn had just ended, and `since` moved at each write."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from tests.test_watch_nl_since_moves import CWD, SESSION, _sidechain, _turn


def _home(tmp_path: Path, ended: int) -> tuple[Path, Path]:
    """A home whose lead's turn ended at `ended` (epoch seconds) and whose sub-agent was
    written just now; (the home, the sub-agent's file)."""
    home = tmp_path / "home"
    path = home / ".claude" / "projects" / CWD.replace("/", "-") / f"{SESSION}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(_turn(0, ended))
    child = path.with_suffix("") / "subagents" / "agent-a1.jsonl"
    child.parent.mkdir(parents=True)
    child.write_bytes(_sidechain(0))
    return home, child


def _iso(at: int) -> str:
    return datetime.fromtimestamp(at, UTC).isoformat().replace("+00:00", "Z")


def test_watch_counts_a_turns_end_from_the_lead_not_its_sub_agents_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    ended = int(time.time()) - 30
    home, _ = _home(tmp_path, ended)
    args = ["watch", "--json", "--since", "1d", "--home", str(home)]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    [row] = json.loads(result.stdout)
    assert (row["status"], row["reason"]) == (
        "waiting_for_user",
        "turn ended (1 sub-agent working)",
    ), row
    assert row["since"].startswith(_iso(ended)[:19]), (row["since"], _iso(ended))
    args = ["watch", "--once", "--since", "1d", "--home", str(home)]
    board = CliRunner(env={"COLUMNS": "300"}).invoke(main, args).stdout
    assert re.search(r"turn ended 3[0-2]s ago \(1 sub-agent working\)", board), board


def test_watch_nl_prints_no_line_for_a_sub_agents_writes(tmp_path: Path) -> None:
    """A sub-agent writing every 0.5 s after its lead's turn ended changes nothing the
    board says: no line after the first."""
    home, child = _home(tmp_path, int(time.time()) - 2)
    env = {**os.environ, "SESSDEX_HOME": str(tmp_path / "state")}
    args = ["watch", "--nl", "--duration", "4", "--since", "1d", "--home", str(home)]
    with subprocess.Popen(
        [sys.executable, "-m", "sessdex", *args], env=env, stdout=subprocess.PIPE
    ) as watching:
        assert watching.stdout is not None
        first = json.loads(watching.stdout.readline())
        for n in range(1, 7):  # 3 s of writes
            with child.open("ab") as stream:
                stream.write(_sidechain(n))
            time.sleep(0.5)
        rest = [json.loads(line) for line in watching.stdout]
    assert first["reason"] == "turn ended (1 sub-agent working)", first
    assert rest == [], [(r["reason"], r["since"]) for r in rest]
