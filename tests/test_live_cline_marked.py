"""Cline CLI: a session its stale-session check marked failed is failed at once, not retrying.

Seen in the conformance suite's live check: a new `cline` run marks the session a closed TUI
left open as failed (`status: failed`, `metadata.terminal_marker`), writing its manifest; for
the next 10 s `watch` called that session `working` ("retrying after an error"). The fixture
is the real Cline 3.0.65 session so marked (tests/data/cline/PROVENANCE.md).
"""

from __future__ import annotations

import json
import shutil
from datetime import datetime
from pathlib import Path

from sessdex import api
from sessdex.live import LiveSession
from sessdex.sources import Home

HOME = Path(__file__).parent / "data" / "cline" / "real" / "home"
MARKED = "1796199537105_fpxn5"


def test_a_session_marked_failed_by_cline_is_failed_as_soon_as_it_is_marked(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    shutil.copytree(HOME, home, symlinks=True)
    manifest = home / ".cline/data/sessions" / MARKED / f"{MARKED}.json"
    ended = json.loads(manifest.read_text())["ended_at"]
    marked = datetime.fromisoformat(ended.replace("Z", "+00:00")).timestamp()
    follower = LiveSession(api.resolve(Home.at(home), MARKED))
    follower.poll()
    for alive in (None, True):  # no process information; the hub daemon's process
        follower.alive = alive
        status = follower.status(now=marked + 3)
        assert status.status == "failed", status
        assert "marked failed by Cline" in status.reason
