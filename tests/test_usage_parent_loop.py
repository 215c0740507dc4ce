"""A loop of parents longer than one (a damaged Factory Droid home: A's start names B as
its parent, B's names A): each was taken for a sub-agent its lead counts, and no session
of the loop was a lead, so no row held their tokens. The loop's least id leads it now;
every session counts once, in every report and in `--explain`, warm as cold."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main


def _droid(folder: Path, sid: str, parent: str | None, tokens: int) -> None:
    start: dict[str, object] = {
        "type": "session_start",
        "id": sid,
        "title": sid,
        "cwd": "/tmp",
        "owner": "u",
        "version": "0.81.0",
    }
    if parent:
        start |= {"callingSessionId": parent, "callingToolUseId": f"tu-{sid}"}
    lines = [
        start,
        {
            "type": "message",
            "id": "m1",
            "timestamp": "2025-12-26T23:50:00.000Z",
            "message": {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        },
    ]
    (folder / f"{sid}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    settings = {
        "model": "claude-sonnet-4-5",
        "tokenUsage": {"inputTokens": tokens, "outputTokens": 10},
    }
    (folder / f"{sid}.settings.json").write_text(json.dumps(settings))


def _usage(home: Path, *args: str) -> str:
    result = CliRunner().invoke(main, ["usage", *args, "--home", str(home)])
    assert result.exit_code == 0, result.output
    return result.output


def _droid_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    folder = home / ".factory" / "sessions" / "-tmp"
    folder.mkdir(parents=True)
    _droid(folder, "a-lead", None, 100)
    _droid(folder, "loop-b", "loop-c", 7)
    _droid(folder, "loop-c", "loop-b", 30)
    _droid(folder, "three-1", "three-2", 1000)
    _droid(folder, "three-2", "three-3", 2000)
    _droid(folder, "three-3", "three-1", 4000)
    _droid(folder, "below", "three-2", 50000)  # a sub-agent of a loop's session
    return home


def _inputs(home: Path, kind: str) -> dict[str, int]:
    rows = json.loads(_usage(home, kind, "--json", "--app", "droid"))
    return {row["key"]: row["input_tokens"] for row in rows}


def test_every_session_of_a_loop_of_parents_counts_once(tmp_path: Path) -> None:
    home = _droid_home(tmp_path)
    every = 100 + 7 + 30 + 1000 + 2000 + 4000 + 50000
    for _ in ("cold", "warm"):
        assert _inputs(home, "session") == {
            "a-lead": 100,
            "loop-b": 37,
            "three-1": 57000,
        }
        assert _inputs(home, "daily") == {"2025-12-26": every}
        assert _inputs(home, "project") == {"/tmp": every}
    rows = json.loads(_usage(home, "session", "--json", "--app", "droid"))
    agents = {a["id"]: a["input_tokens"] for r in rows for a in r.get("agents", [])}
    assert agents == {
        "loop-b": 7,
        "loop-c": 30,
        "three-1": 1000,
        "three-2": 2000,
        "three-3": 4000,
        "below": 50000,
    }


def test_explain_counts_a_loop_of_parents_once(tmp_path: Path) -> None:
    home = _droid_home(tmp_path)
    daily = _usage(home, "daily", "--app", "droid", "--explain", "2025-12-26")
    assert "row 2025-12-26: 7 responses, input 57,137" in daily
    looped = _usage(home, "session", "--app", "droid", "--explain", "loop-b")
    assert "row loop-b: 2 responses, input 37," in looped
    agent = _usage(home, "session", "--app", "droid", "--explain", "three-3")
    assert "row three-3: 1 responses, input 4,000," in agent
