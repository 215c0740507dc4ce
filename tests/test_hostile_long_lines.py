"""A Claude Code transcript every line of which is too long to list (a hostile home's
megabyte folder on each line) is not listed, and says why: it went missing unsaid."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main


def test_a_transcript_of_lines_too_long_to_list_is_said(tmp_path: Path) -> None:
    folder = tmp_path / "home/.claude/projects/-w"
    folder.mkdir(parents=True)
    session = "11112222-0000-4000-8000-00000000000a"
    cwd = "/w/" + "d" * 1_000_000
    lines = [
        {
            "type": "user",
            "sessionId": session,
            "cwd": cwd,
            "uuid": "u1",
            "parentUuid": None,
            "timestamp": "2026-11-20T10:00:00.000Z",
            "message": {"role": "user", "content": "hi"},
        },
        {
            "type": "assistant",
            "sessionId": session,
            "cwd": cwd,
            "uuid": "a1",
            "parentUuid": "u1",
            "timestamp": "2026-11-20T10:00:05.000Z",
            "message": {
                "role": "assistant",
                "content": [{"type": "text", "text": "ok"}],
            },
        },
    ]
    (folder / f"{session}.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in lines)
    )
    runner = CliRunner()
    home = ["--home", str(tmp_path / "home")]
    listed = runner.invoke(main, ["list", *home])
    assert "too long" in listed.stderr or "unreadable" in listed.stderr, listed.stderr
    doctor = json.loads(runner.invoke(main, ["doctor", "--json", *home]).stdout)
    (claude,) = [app for app in doctor if app["app"] == "claude"]
    assert claude["skipped_lines"].get("too long", 0) >= 1
