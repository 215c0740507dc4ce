"""`tree` for a session whose records carry no times (the 2025 Codex rollout: one dated
session header, undated items): only its start is dated, so whether it still runs goes by
its file's time, as before `tree` went by the records' times."""

from __future__ import annotations

import json
import os
import time
from datetime import UTC, datetime
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main

DATA = Path(__file__).parent / "data"
ROLLOUT = "rollout-2025-04-17-3c9e7d21-5f4a-4b8c-8d6e-0a1b2c3d4e5f.json"


def _started_mid_call(home: Path, started: float) -> Path:
    """The fixture's rollout begun at `started`, its last item a shell call not answered."""
    document = json.loads((DATA / "codex/home/.codex/sessions" / ROLLOUT).read_text())
    begun = datetime.fromtimestamp(started, UTC)
    document["session"]["timestamp"] = begun.strftime("%Y-%m-%dT%H:%M:%S.%f")[:23] + "Z"
    call = {"type": "function_call", "name": "shell", "call_id": "c1"}
    document["items"] = [
        document["items"][0],
        {**call, "arguments": '{"command":["make"]}'},
    ]
    path = home / ".codex/sessions" / ROLLOUT
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(document))
    return path


def _status(home: Path) -> str:
    result = CliRunner().invoke(
        main, ["tree", "3c9e7d21", "--json", "--home", str(home)]
    )
    assert result.exit_code == 0, result.output
    status = json.loads(result.stdout)["status"]
    assert isinstance(status, str)
    return status


def test_a_session_begun_long_ago_and_written_now_runs(tmp_path: Path) -> None:
    """Begun 45 minutes ago, its file written a moment ago: running, not stopped."""
    _started_mid_call(tmp_path, time.time() - 45 * 60)
    assert _status(tmp_path) == "running"


def test_one_neither_dated_nor_written_for_long_has_stopped(tmp_path: Path) -> None:
    """Begun and last written 45 minutes ago: stopped, as before."""
    path = _started_mid_call(tmp_path, time.time() - 45 * 60)
    old = time.time() - 45 * 60
    os.utime(path, (old, old))
    assert _status(tmp_path) == "stopped"
