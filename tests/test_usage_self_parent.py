"""A session whose start names itself as its parent (a damaged or hand-edited Factory Droid
transcript): `usage` took it for a sub-agent whose lead counts it, and no lead did, so its
tokens were in no row. It counts as a lead of its own."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main


def _write(folder: Path, sid: str, parent: str | None, tokens: int) -> None:
    start: dict[str, object] = {
        "type": "session_start",
        "id": sid,
        "title": sid,
        "cwd": "/tmp",
        "owner": "u",
        "version": "0.81.0",
    }
    if parent:
        start |= {"callingSessionId": parent, "callingToolUseId": "tu9"}
    lines = [
        start,
        {
            "type": "message",
            "id": "m1",
            "timestamp": "2025-12-26T23:50:00.000Z",
            "message": {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        },
        {
            "type": "message",
            "id": "m2",
            "timestamp": "2025-12-26T23:50:01.000Z",
            "message": {
                "role": "assistant",
                "content": [{"type": "text", "text": "ok"}],
            },
        },
    ]
    (folder / f"{sid}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    settings = {
        "model": "claude-sonnet-4-5",
        "tokenUsage": {"inputTokens": tokens, "outputTokens": 10},
    }
    (folder / f"{sid}.settings.json").write_text(json.dumps(settings))


def test_a_session_naming_itself_its_parent_is_counted(tmp_path: Path) -> None:
    home = tmp_path / "home"
    folder = home / ".factory" / "sessions" / "-tmp"
    folder.mkdir(parents=True)
    _write(folder, "a-lead", None, 100)
    _write(folder, "self-made", "self-made", 7)
    args = ["usage", "session", "--json", "--app", "droid", "--home", str(home)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    inputs = {row["key"].rpartition(":")[2]: row["input_tokens"] for row in rows}
    assert inputs == {"a-lead": 100, "self-made": 7}


def test_explain_lists_the_responses_of_a_session_naming_itself_its_parent(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    folder = home / ".factory" / "sessions" / "-tmp"
    folder.mkdir(parents=True)
    _write(folder, "self-made", "self-made", 7)
    args = ["usage", "session", "--app", "droid", "--home", str(home)]
    result = CliRunner().invoke(main, [*args, "--explain", "self-made"])
    assert result.exit_code == 0, result.output
    assert "counted (1)" in result.output  # the row's response, listed
    assert "self-made.jsonl" in result.output
