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
    assert "row three-3: 1 response, input 4,000," in agent


def _input_total(home: Path, app: str) -> int:
    rows = json.loads(_usage(home, "daily", "--json", "--app", app))
    return sum(row["input_tokens"] for row in rows)


def test_a_zed_loop_of_leads_counts_each_thread_once(tmp_path: Path) -> None:
    """Zed listed both threads of a loop on their own, and the read of each held the
    other, a sub-agent by its `parent_id`: both were counted twice."""
    import sqlite3

    from tests.sources import test_zed

    home = test_zed.copy(tmp_path)
    before = _input_total(home, "zed")
    db = sqlite3.connect(home / test_zed.THREADS / "threads.db")
    db.execute(
        "UPDATE threads SET parent_id = ? WHERE id = ?",
        (test_zed.CHILD, test_zed.LEAD),
    )
    db.commit()
    db.close()
    assert before == 7100  # the fixture's threads, sub-agent included
    for _ in ("cold", "warm"):
        assert _input_total(home, "zed") == before


def test_a_forge_loop_of_sub_agents_counts_each_conversation_once(
    tmp_path: Path,
) -> None:
    """Each conversation of a loop names the other in its agent result: Forge listed both
    on their own, and the read of each held the other's responses too."""
    from tests.sources import test_forge

    home = test_forge.copy(tmp_path)
    before = _input_total(home, "forge")
    ids = (
        "aaaaaaaa-0000-4000-8000-000000000001",
        "aaaaaaaa-0000-4000-8000-000000000002",
    )
    for own, other, tokens in ((ids[0], ids[1], 50), (ids[1], ids[0], 700)):
        test_forge.add_row(home, own, own, {"initiator": "agent", "messages": [
            {"message": {"text": {"role": "Assistant", "content": "", "tool_calls": [{"name": "sage", "call_id": "c", "arguments": {}}]}},
             "usage": {"prompt_tokens": {"actual": tokens}, "completion_tokens": {"actual": 5}, "total_tokens": {"actual": tokens + 5}, "cached_tokens": {"actual": 0}}},
            {"message": {"tool": {"name": "sage", "call_id": "c", "output": {"is_error": False, "values": [{"aI": {"value": "done", "conversation_id": other}}]}}}},
        ]})  # fmt: skip
    for _ in ("cold", "warm"):
        assert _input_total(home, "forge") == before + 750


def test_an_opencode_loop_of_parents_counts_each_session_once(tmp_path: Path) -> None:
    """The loop's lead is read, and its other session on its own: that read holds the
    lead again, as its sub-agent (OpenCode's task call names it), counted twice."""
    import shutil
    import sqlite3

    home = tmp_path / "home"
    shutil.copytree(Path(__file__).parent / "data" / "opencode" / "home", home)
    before = _input_total(home, "opencode")
    db = sqlite3.connect(home / ".local" / "share" / "opencode" / "opencode.db")
    lead, child = "ses_dd47cc97dffecuMitBkETrvX9v", "ses_dd47cc26cffeODfwLbHNPwBmj1"
    assert db.execute("SELECT parent_id FROM session WHERE id = ?", (child,)).fetchone() == (lead,)  # fmt: skip
    db.execute("UPDATE session SET parent_id = ? WHERE id = ?", (child, lead))
    db.commit()
    db.close()
    assert before == 10_970
    for _ in ("cold", "warm"):
        assert _input_total(home, "opencode") == before
        rows = json.loads(_usage(home, "session", "--json", "--app", "opencode"))
        [looped] = [row for row in rows if row["key"] == child]
        assert looped["input_tokens"] == 4_800  # each session's 2,400, once
