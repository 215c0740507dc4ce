"""Goose quirks: a WAL sessions.db, legacy JSONL files, session-level usage, sub-agent sessions."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from sessdex import files
from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Session, Usage, merge
from sessdex.sources import Home, goose

HOME = Path(__file__).parent.parent / "data" / "goose" / "home"
SESSIONS = HOME / ".local" / "share" / "goose" / "sessions"
SHOP = "/home/alex/code/shop-api"
MAIN = "20261201_1"
SUB = "20261201_2"
LEGACY = "refactor-notes"


def sessions(
    home: Path = HOME,
    diagnostics: Diagnostics | None = None,
    environ: dict[str, str] | None = None,
) -> dict[str, Session]:
    diagnostics = diagnostics if diagnostics is not None else Diagnostics()
    location = goose.locate(
        Home(home, environ) if environ is not None else Home.at(home)
    )
    fragments: dict[str, list[Session]] = {}
    for path in goose.scan(location):
        for session in goose.parse(path, location, diagnostics):
            fragments.setdefault(session.id, []).append(session)
    return {key: merge(parts) for key, parts in fragments.items()}


def events(session: Session) -> list[Event]:
    diagnostics = Diagnostics()
    found = list(goose.read(session, diagnostics))
    assert (
        diagnostics.skipped_total == 0
        and not diagnostics.unknown
        and not diagnostics.problems
    )
    return found


def total(found: list[Event]) -> Usage:
    usage = Usage()
    for event in found:
        if event.usage is not None:
            usage += event.usage
    return usage


def test_hidden_sessions_are_skipped_and_sub_agents_marked() -> None:
    found = sessions()
    assert sorted(found) == [MAIN, SUB, LEGACY]
    assert found[SUB].agent_type == "sub_agent" and found[SUB].parent_id is None
    assert (
        found[MAIN].permission_mode == "smart_approve"
        and found[MAIN].model == "claude-sonnet-4-5"
    )
    assert found[MAIN].extra["provider_name"] == "anthropic"


def test_usage_is_the_accumulated_session_counters() -> None:
    found = sessions()
    main = events(found[MAIN])
    assert [e.extra for e in main if e.kind == "usage"] == [{"scope": "session"}]
    assert total(main) == Usage(8200, 450, model="claude-sonnet-4-5")
    assert total(events(found[SUB])) == Usage(1500, 60, model="claude-sonnet-4-5")
    assert total(events(found[LEGACY])) == Usage(700, 200)


def test_message_content_becomes_events() -> None:
    found = events(sessions()[MAIN])
    assert [e.kind for e in found] == [
        "user", "thinking", "assistant", "tool_call", "tool_result", "tool_call", "tool_result",
        "tool_call", "tool_result", "meta", "user", "assistant", "usage",
    ]  # fmt: skip
    failed = next(
        e for e in found if e.call_id == "toolu_02" and e.kind == "tool_result"
    )
    assert failed.is_error and failed.text == "Execution failed: old_str not found"
    shell = next(e for e in found if e.call_id == "toolu_03" and e.kind == "tool_call")
    assert shell.tool == "developer__shell" and shell.extra["input"] == {
        "command": "pytest -q"
    }
    hidden = found[10]
    assert (
        hidden.extra == {"hidden": True}
        and hidden.text
        and hidden.text.startswith("Summary so far")
    )


def test_legacy_jsonl_is_read_and_the_database_row_wins(tmp_path: Path) -> None:
    legacy = sessions()[LEGACY]
    assert (
        legacy.title == "Refactor notes"
        and legacy.cwd == SHOP
        and legacy.extra["store"] == "jsonl"
    )
    found = events(legacy)
    assert [e.kind for e in found] == [
        "user",
        "tool_call",
        "tool_result",
        "assistant",
        "usage",
    ]
    assert (
        found[2].text == "api.py\ncheckout.py"
    )  # older tool results: a bare content list
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    folder = home / ".local" / "share" / "goose" / "sessions"
    shutil.copy(
        folder / f"{LEGACY}.jsonl", folder / f"{MAIN}.jsonl"
    )  # imported, then left behind
    merged = sessions(home)[MAIN]
    assert merged.title == "Add retry to checkout" and merged.extra["store"] == "sqlite"


def test_goose_path_root_moves_everything(tmp_path: Path) -> None:
    root = tmp_path / "goose-root"
    shutil.copytree(SESSIONS, root / "data" / "sessions")
    location = goose.locate(Home(tmp_path / "nobody", {"GOOSE_PATH_ROOT": str(root)}))
    assert (
        location.root == root / "data" / "sessions"
        and location.override == f"GOOSE_PATH_ROOT={root}"
    )
    assert sorted(
        sessions(tmp_path / "nobody", environ={"GOOSE_PATH_ROOT": str(root)})
    ) == [MAIN, SUB, LEGACY]
    # Goose ignores a relative root, and so do we
    relative = goose.locate(Home(tmp_path, {"GOOSE_PATH_ROOT": "relative/root"}))
    assert relative.root == tmp_path / ".local" / "share" / "goose" / "sessions"


def test_newest_rows_in_the_wal_are_listed_and_nothing_is_written(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "home" / ".local" / "share" / "goose" / "sessions"
    folder.mkdir(parents=True)
    shutil.copy(SESSIONS / "sessions.db", folder / "sessions.db")
    writer = sqlite3.connect(folder / "sessions.db")
    try:
        writer.execute("PRAGMA journal_mode=WAL")
        writer.execute("PRAGMA wal_autocheckpoint=0")
        writer.execute(
            "INSERT INTO sessions (id, name, session_type, working_dir, created_at, updated_at) "
            "VALUES ('20261202_1', 'Only in the WAL', 'user', '/home/alex/code/new', '2026-12-02 08:00:00', "
            "'2026-12-02 08:00:05')"
        )
        writer.commit()
        assert (folder / "sessions.db-wal").stat().st_size > 0
        before = {
            p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.iterdir()
        }
        found = sessions(tmp_path / "home")
        assert found["20261202_1"].title == "Only in the WAL"
        assert (
            found["20261202_1"].updated is not None
            and found["20261202_1"].updated.isoformat() == "2026-12-02T08:00:05+00:00"
        )
        assert MAIN in found
        assert {
            p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.iterdir()
        } == before
    finally:
        writer.close()


def test_an_old_schema_and_a_corrupt_database(tmp_path: Path) -> None:
    folder = tmp_path / "old" / ".local" / "share" / "goose" / "sessions"
    folder.mkdir(parents=True)
    db = sqlite3.connect(folder / "sessions.db")
    # before migrations 4 and 6: `description`, no name, no model, no mode
    db.execute(
        "CREATE TABLE sessions (id TEXT PRIMARY KEY, description TEXT, working_dir TEXT, created_at TEXT, updated_at TEXT)"
    )
    db.execute(
        "CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, role TEXT, content_json TEXT)"
    )
    db.execute(
        "INSERT INTO sessions VALUES ('20250901_1', 'An old session', '/srv/app', '2025-09-01 10:00:00', '2025-09-01 10:05:00')"
    )
    db.execute(
        """INSERT INTO messages VALUES (1, '20250901_1', 'user', '[{"type":"text","text":"hi"}]')"""
    )
    db.commit()
    db.close()
    found = sessions(tmp_path / "old")["20250901_1"]
    assert (
        found.title == "An old session"
        and found.model is None
        and found.permission_mode is None
    )
    assert [e.kind for e in events(found)] == ["user"]

    broken = tmp_path / "broken" / ".local" / "share" / "goose" / "sessions"
    broken.mkdir(parents=True)
    (broken / "sessions.db").write_bytes(b"SQLite format 3\x00" + b"\xff" * 2000)
    diagnostics = Diagnostics()
    assert sessions(tmp_path / "broken", diagnostics) == {}
    assert diagnostics.problems and "sessions.db" in diagnostics.problems[0]


def test_resume_argv() -> None:
    found = sessions()
    plan = goose.resume(found[MAIN])
    assert plan is not None and plan.argv == (
        "goose",
        "session",
        "--resume",
        "--session-id",
        MAIN,
    )
    assert plan.cwd == SHOP and plan.program == "goose" and not plan.withheld
    assert any("GOOSE_MODE=smart_approve" in note for note in plan.notes)
    legacy = goose.resume(found[LEGACY])
    assert legacy is not None and legacy.argv == (
        "goose",
        "session",
        "--resume",
        "--name",
        LEGACY,
    )


def test_a_legacy_file_without_metadata_line(tmp_path: Path) -> None:
    folder = tmp_path / ".local" / "share" / "goose" / "sessions"
    folder.mkdir(parents=True)
    message = {
        "role": "user",
        "created": 1740830400,
        "content": [{"type": "text", "text": "no header"}],
    }
    (folder / "bare.jsonl").write_text(json.dumps(message) + "\n")
    found = sessions(tmp_path)["bare"]
    assert found.cwd is None and found.created is not None
    assert [e.kind for e in events(found)] == ["user"]


def test_a_question_the_agent_asked_and_the_answer_are_shown(tmp_path: Path) -> None:
    """goose message.rs `ActionRequired`: `elicitation` (the agent asks) and
    `elicitationResponse` (the user answers); a tool confirmation repeats the request."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    db = sqlite3.connect(home / ".local/share/goose/sessions/sessions.db")
    asked = [{"type": "actionRequired", "data": {"actionType": "elicitation", "id": "e1",
              "message": "Which environment?", "requested_schema": {}}}]  # fmt: skip
    answered = [{"type": "actionRequired", "data": {"actionType": "elicitationResponse",
                 "id": "e1", "user_data": {"env": "prod"}}}]  # fmt: skip
    confirm = [{"type": "actionRequired", "data": {"actionType": "toolConfirmation", "id": "t9",
                "tool_name": "shell", "arguments": {}, "prompt": None}}]  # fmt: skip
    for role, content, at in (("assistant", asked, 1796123200), ("user", answered, 1796123210),
                              ("assistant", confirm, 1796123220)):  # fmt: skip
        db.execute(
            "INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES (?, ?, ?, ?)",
            (MAIN, role, json.dumps(content), at),
        )
    db.commit()
    db.close()
    found = events(sessions(home)[MAIN])
    question, answer = [
        e for e in found if e.extra.get("elicitation") or e.extra.get("answers")
    ]
    assert (question.kind, question.text) == ("meta", "Which environment?")
    assert (answer.kind, answer.text) == ("user", '{"env":"prod"}')


def test_a_huge_message_is_read_with_its_long_output_elided(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A message holding a huge tool output is shown by the output's size, as a
    transcript's huge line is, and never held whole; `full` keeps it."""
    monkeypatch.setattr(files, "READ_LINE_CAP", 4096)
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    output = "g" * 300_000
    db = sqlite3.connect(home / ".local/share/goose/sessions/sessions.db")
    (content,) = db.execute("SELECT content_json FROM messages WHERE id = 7").fetchone()
    db.execute(
        "UPDATE messages SET content_json = ? WHERE id = 7",
        (content.replace("3 passed in 0.12s", output),),
    )
    db.commit()
    db.close()
    session = sessions(home)[MAIN]
    found = events(session)
    [result] = [e for e in found if e.kind == "tool_result" and e.call_id == "toolu_03"]
    assert result.text == f"[text, {files.human_bytes(len(output))}]"
    assert [e.kind for e in found] == [e.kind for e in events(sessions()[MAIN])]
    whole = list(goose.read(session, Diagnostics(), full=True))
    assert output in [e.text for e in whole]
