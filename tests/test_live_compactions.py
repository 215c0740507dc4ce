"""Two compactions of one followed session that the app dates alike (Kiro CLI dates only
a prompt: a compaction has no time of its own) are two events, each drawn: a compaction's
identity leaves its summary out (OpenCode streams it after its request is read), and the
second, undated as the first, was taken for the first read again and never drawn."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from sessdex import api
from sessdex.live import LiveSession
from sessdex.sources import Home

KIRO = Path(__file__).parent / "data" / "kiro" / "home"
SESSION = "4c8e2a6f-7b1d-4e3a-9f5c-2d8b6a4e1c7f"


def _compaction(summary: str) -> bytes:
    data = {"summary": summary, "strategy": "default", "messages_snapshot": []}
    line = {"version": "v1", "kind": "Compaction", "data": data}
    return json.dumps(line).encode() + b"\n"


def test_two_undated_compactions_of_a_followed_file_are_both_drawn(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    shutil.copytree(KIRO, home)
    log = home / ".kiro" / "sessions" / "cli" / f"{SESSION}.jsonl"
    follower = LiveSession(api.resolve(Home.at(home), SESSION))
    follower.poll()
    shown = []
    for summary in ("Added the RSS feed.", "Added the Atom feed too."):
        with log.open("ab") as stream:
            stream.write(_compaction(summary))
        shown += follower.poll()
    compactions = [event.text for event in shown if event.kind == "compaction"]
    assert compactions == ["Added the RSS feed.", "Added the Atom feed too."]
