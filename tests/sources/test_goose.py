"""Goose quirks: a WAL sessions.db, legacy JSONL files, usage from the ledger or the session
counters, sub-agent sessions read with their parent, message content blocks."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

from sessdex import files, usage
from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Session, Usage, merge
from sessdex.sources import Home, goose

HOME = Path(__file__).parent.parent / "data" / "goose" / "home"
SESSIONS = HOME / ".local" / "share" / "goose" / "sessions"
SHOP = "/home/alex/code/shop-api"
MAIN = "20261201_1"
SUB = "20261201_2"
LEGACY = "refactor-notes"
BEFORE = HOME / ".config" / "goose" / "sessions"  # Goose 0.x and 1.0.0-1.0.5
PYTHON = "flaky-tests"  # Goose 0.9 (the Python goose-ai)
EARLY = "Xq7Lm2Pa"  # Goose 1.0.4


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
    assert sorted(found) == [MAIN, SUB, EARLY, PYTHON, LEGACY]
    assert found[SUB].agent_type == "sub_agent" and found[SUB].parent_id is None
    assert (
        found[MAIN].permission_mode == "smart_approve"
        and found[MAIN].model == "claude-sonnet-4-5"
    )
    assert found[MAIN].extra["provider_name"] == "anthropic"


def test_usage_is_the_accumulated_session_counters() -> None:
    found = sessions()
    main = events(found[MAIN])
    assert [e.extra for e in main if e.kind == "usage"] == [
        {"scope": "session", "summed": True, "provider": "anthropic"}
    ]
    assert total(main) == Usage(8200, 450, model="claude-sonnet-4-5")
    assert total(events(found[SUB])) == Usage(1500, 60, model="claude-sonnet-4-5")
    assert total(events(found[LEGACY])) == Usage(700, 200)


def test_message_content_becomes_events() -> None:
    found = events(sessions()[MAIN])
    assert [e.kind for e in found] == [
        "user", "thinking", "assistant", "tool_call", "tool_result", "tool_call", "tool_result",
        "tool_call", "tool_result", "meta", "meta", "assistant", "usage",
    ]  # fmt: skip
    failed = next(
        e for e in found if e.call_id == "toolu_02" and e.kind == "tool_result"
    )
    assert failed.is_error and failed.text == "Execution failed: old_str not found"
    shell = next(e for e in found if e.call_id == "toolu_03" and e.kind == "tool_call")
    assert shell.tool == "developer__shell" and shell.extra["input"] == {
        "command": "pytest -q"
    }
    hidden = found[10]  # only the model sees it: the harness's words, not the user's
    assert (
        hidden.extra == {"hidden": True, "injected": True}
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
    assert found.title == "no header"  # no description: the first prompt
    assert [e.kind for e in events(found)] == ["user"]


def test_sessions_from_before_1_0_6_are_listed_from_the_config_folder(
    tmp_path: Path,
) -> None:
    """`~/.config/goose/sessions/<name>.jsonl` (Goose 0.x and 1.0.0-1.0.5): listed by
    name, titled by the first prompt, timed by the messages; no folder was recorded."""
    found = sessions()
    python, early = found[PYTHON], found[EARLY]
    assert python.title == "test_checkout fails now and then; find out why"
    assert python.created == datetime(2024, 10, 21, 8, 40, tzinfo=UTC)
    assert python.updated == datetime(2024, 10, 21, 8, 40, 40, tzinfo=UTC)
    assert python.cwd is None and python.path == str(BEFORE / f"{PYTHON}.jsonl")
    assert python.extra == {"store": "config", "format": "python"}
    assert early.title == "Add a --dry-run flag to scripts/deploy.sh"
    assert early.created == datetime(2025, 1, 31, 10, 6, 40, tzinfo=UTC)
    assert early.cwd is None and early.extra == {
        "store": "config",
        "format": "untagged",
    }
    # Goose took `~` from $HOME, whatever XDG_CONFIG_HOME says
    moved = tmp_path / "elsewhere"
    shutil.copytree(BEFORE, moved / ".config" / "goose" / "sessions")
    environ = {"HOME": str(moved), "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    assert sorted(sessions(tmp_path / "nobody", environ=environ)) == [EARLY, PYTHON]


def test_a_goose_0x_session_is_shown_with_its_tool_calls() -> None:
    """Goose 0.x `Text`, `ToolUse` and `ToolResult` items; `exchange` stored a tool's
    return value as JSON, so a string output reads as the string it was."""
    found = events(sessions()[PYTHON])
    assert [(e.kind, e.text or e.tool) for e in found] == [
        ("user", "test_checkout fails now and then; find out why"),
        ("assistant", "Let me run it a few times."),
        ("tool_call", "shell"),
        ("tool_result", "..F.F\n2 failed, 3 passed in 4.12s\n"),
        ("tool_call", "patch_file"),
        ("tool_result", "Traceback (most recent call last):\n"
         "ValueError: before text not found in tests/test_checkout.py"),
        ("assistant", "The test shares a wall clock with the cart fixture: it fails "
         "when a second ticks over between them."),
    ]  # fmt: skip
    call, result = found[2], found[3]
    assert call.call_id == result.call_id == "toolu_01QfJ8sXk2c9Wm3Lr7Tp4Vb"
    assert call.extra["input"] == {
        "command": "pytest tests/test_checkout.py -q --count 5"
    }
    assert not result.is_error and found[5].is_error
    assert found[5].call_id == found[4].call_id == "toolu_01Hn5wPq8Zr2Kd6Ys1Xc4Ja"
    assert found[3].time == datetime(2024, 10, 21, 8, 40, 19, tzinfo=UTC)


def test_a_goose_1_0_session_is_shown_from_the_untagged_shape() -> None:
    """Goose 1.0.0-1.0.10 wrote `{"Text": …}`, `{"ToolRequest": {"tool_call": {"Ok": …}}}`
    and a failed tool as `{"Err": {"ExecutionError": …}}`."""
    found = events(sessions()[EARLY])
    assert [e.kind for e in found] == [
        "user", "assistant", "tool_call", "tool_result", "tool_call", "tool_result",
        "assistant",
    ]  # fmt: skip
    shell, output = found[2], found[3]
    assert shell.tool == "developer__shell" and shell.call_id == output.call_id
    assert shell.extra["input"] == {"command": "cat scripts/deploy.sh"}
    assert (
        output.text == "#!/bin/sh\nrsync -a dist/ prod:/srv/app\n"
    )  # the model's copy
    edit, failed = found[4], found[5]
    assert edit.tool == "developer__text_editor" and edit.call_id == failed.call_id
    assert failed.is_error
    assert failed.text == "'old_str' must appear exactly once in the file"


def test_the_untagged_shape_in_the_data_folder(tmp_path: Path) -> None:
    """Goose 1.0.6-1.0.10 wrote that shape in the data folder, still without metadata."""
    folder = tmp_path / ".local" / "share" / "goose" / "sessions"
    folder.mkdir(parents=True)
    shutil.copy(BEFORE / f"{EARLY}.jsonl", folder / "ship-it.jsonl")
    found = sessions(tmp_path)["ship-it"]
    assert found.title == "Add a --dry-run flag to scripts/deploy.sh"
    assert found.extra == {"store": "jsonl", "format": "untagged"}
    assert [e.kind for e in events(found)][:4] == [
        "user", "assistant", "tool_call", "tool_result",
    ]  # fmt: skip


def test_a_session_goose_imported_without_its_messages_is_read_from_its_file(
    tmp_path: Path,
) -> None:
    """Goose's import of a 1.0.6-1.0.10 JSONL file into sessions.db cannot parse that
    shape's messages: the row has none. The file, still there, is what is shown."""
    home, db = v16_home(tmp_path)
    add_session(db, "ship-it", name="Ship it")  # imported: no message rows
    add_session(db, "kept", name="Kept")
    add_message(db, "kept", "user", text("hello"), 0)
    db.commit()
    db.close()
    folder = home / ".local" / "share" / "goose" / "sessions"
    shutil.copy(BEFORE / f"{EARLY}.jsonl", folder / "ship-it.jsonl")
    shutil.copy(BEFORE / f"{EARLY}.jsonl", folder / "kept.jsonl")
    found = sessions(home)
    imported = found["ship-it"]
    assert imported.path == str(folder / "ship-it.jsonl")
    assert imported.cwd == SHOP  # what only the row knows still fills in
    assert [e.kind for e in events(imported)][:4] == [
        "user", "assistant", "tool_call", "tool_result",
    ]  # fmt: skip
    assert found["kept"].extra["store"] == "sqlite"  # a row with messages still wins


def test_the_goose_mode_in_the_note_is_quoted(tmp_path: Path) -> None:
    """The mode is the database's word: `GOOSE_MODE=$(…)` pasted from the note ran it."""
    hostile = "$(touch${IFS}pwned)"
    plan = goose.resume(replace(sessions()[MAIN], permission_mode=hostile))
    assert plan is not None
    (note,) = [n for n in plan.notes if "GOOSE_MODE=" in n]
    assignment = note.partition("to keep it, run ")[2].removesuffix(" first")
    pasted = subprocess.run(
        ["bash", "-c", f'{assignment}; printf %s "$GOOSE_MODE"'],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert pasted.stdout == hostile and not (tmp_path / "pwned").exists()


def test_sessions_from_before_1_0_6_have_no_resume_command() -> None:
    """No Goose since 1.0.6 looks in ~/.config/goose/sessions; sessdex says so."""
    found = sessions()
    assert goose.resume(found[PYTHON]) is None and goose.resume(found[EARLY]) is None
    assert "goose session resume <name>" in (goose.resume_refusal(found[PYTHON]) or "")
    assert "since 1.0.6" in (goose.resume_refusal(found[EARLY]) or "")
    assert goose.resume_refusal(found[MAIN]) is None
    assert goose.resume_refusal(found[LEGACY]) is None


def test_a_name_in_both_folders_is_the_newer_folders_session(tmp_path: Path) -> None:
    """Goose 1.0.x looked for a name in the data folder first, then the old one."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    shutil.copy(
        home / ".local/share/goose/sessions" / f"{LEGACY}.jsonl",
        home / ".config/goose/sessions" / f"{LEGACY}.jsonl",
    )
    shutil.copy(
        home / ".config/goose/sessions" / f"{PYTHON}.jsonl",
        home / ".local/share/goose/sessions" / f"{PYTHON}.jsonl",
    )
    found = sessions(home)
    assert found[LEGACY].extra["store"] == "jsonl" and found[LEGACY].cwd == SHOP
    assert found[PYTHON].extra["store"] == "jsonl"
    assert found[PYTHON].path == str(
        home / ".local/share/goose/sessions/flaky-tests.jsonl"
    )
    assert found[EARLY].extra["store"] == "config"  # the rest of the old folder is read


def test_a_broken_file_from_before_1_0_6_is_counted_not_raised() -> None:
    """What no release wrote is counted, a truncated last line noted (the app may still
    be writing it), the rest is read."""
    home = HOME.parent / "malformed" / "home"
    diagnostics = Diagnostics()
    found = sessions(home, diagnostics)["c7e1"]
    assert found.title == "tidy the imports" and found.extra["format"] == "python"
    read = list(goose.read(found, diagnostics))
    assert [(e.kind, e.text) for e in read] == [
        ("user", "tidy the imports"),
        ("assistant", "Done."),
    ]
    assert diagnostics.unknown == {"content:Reasoning": 1, "line without role": 1}
    assert diagnostics.details == [] and found.path in diagnostics.unfinished


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


# --- schema v14-v16 (aaif-goose/goose session_manager.rs), in synthetic databases --------

V16 = """
CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '',
    user_set_name BOOLEAN DEFAULT FALSE, session_type TEXT NOT NULL DEFAULT 'user',
    working_dir TEXT NOT NULL, created_at TIMESTAMP, updated_at TIMESTAMP,
    extension_data TEXT DEFAULT '{}', total_tokens INTEGER, input_tokens INTEGER,
    output_tokens INTEGER, cache_read_tokens INTEGER, cache_write_tokens INTEGER,
    accumulated_total_tokens INTEGER, accumulated_input_tokens INTEGER,
    accumulated_output_tokens INTEGER, accumulated_cache_read_tokens INTEGER,
    accumulated_cache_write_tokens INTEGER, accumulated_cost REAL, schedule_id TEXT,
    recipe_json TEXT, user_recipe_values_json TEXT, provider_name TEXT, model_config_json TEXT,
    goose_mode TEXT NOT NULL DEFAULT 'auto', archived_at TIMESTAMP, project_id TEXT,
    parent_session_id TEXT);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT, message_id TEXT, session_id TEXT NOT NULL,
    role TEXT NOT NULL, content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL,
    timestamp TIMESTAMP, tokens INTEGER, metadata_json TEXT);
CREATE TABLE usage_ledger (
    id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, created_timestamp INTEGER NOT NULL,
    model TEXT, input_tokens INTEGER, output_tokens INTEGER, total_tokens INTEGER,
    cache_read_tokens INTEGER, cache_write_tokens INTEGER, cost REAL, cost_source TEXT,
    is_compaction INTEGER DEFAULT 0);
"""
T0 = int(datetime(2026, 8, 20, 10, tzinfo=UTC).timestamp())
SONNET = "claude-sonnet-4-5"
VISIBLE = {"userVisible": True, "agentVisible": True}


def at(offset: int) -> datetime:
    return datetime.fromtimestamp(T0 + offset, UTC)


def v16_home(tmp_path: Path) -> tuple[Path, sqlite3.Connection]:
    """A home whose sessions.db has the current (v16) Goose schema, and a connection to fill it."""
    folder = tmp_path / "home" / ".local" / "share" / "goose" / "sessions"
    folder.mkdir(parents=True)
    db = sqlite3.connect(folder / "sessions.db")
    db.executescript(V16)
    return tmp_path / "home", db


def add_session(
    db: sqlite3.Connection,
    session_id: str,
    counts: tuple[int, int, int, int] = (0, 0, 0, 0),
    *,
    name: str = "",
    kind: str = "user",
    parent: str | None = None,
    user_set: bool = False,
) -> None:
    """A session row; `counts` are Goose's accumulated input (cache included), output,
    cache read and cache write; `user_set`: the name is one the user gave."""
    given, made, read, written = counts
    db.execute(
        "INSERT INTO sessions (id, name, session_type, working_dir, created_at, updated_at, "
        "model_config_json, accumulated_input_tokens, accumulated_output_tokens, "
        "accumulated_cache_read_tokens, accumulated_cache_write_tokens, parent_session_id, "
        "user_set_name) "
        "VALUES (?, ?, ?, ?, '2026-08-20 10:00:00', '2026-08-20 10:10:00', ?, ?, ?, ?, ?, ?, ?)",
        (session_id, name, kind, SHOP, json.dumps({"model_name": SONNET}),
         given, made, read, written, parent, user_set),
    )  # fmt: skip


def add_message(
    db: sqlite3.Connection,
    session_id: str,
    role: str,
    content: list[dict[str, object]],
    offset: int,
    meta: dict[str, object] = VISIBLE,
) -> None:
    db.execute(
        "INSERT INTO messages (session_id, role, content_json, created_timestamp, metadata_json) "
        "VALUES (?, ?, ?, ?, ?)",
        (session_id, role, json.dumps(content), T0 + offset, json.dumps(meta)),
    )


def add_call(
    db: sqlite3.Connection,
    session_id: str,
    offset: int,
    model: str | None,
    counts: tuple[int, int, int, int],
    *,
    compaction: bool = False,
    source: str = "estimated",
    total: int | None = None,
) -> None:
    given, made, read, written = counts
    db.execute(
        "INSERT INTO usage_ledger (session_id, created_timestamp, model, input_tokens, "
        "output_tokens, total_tokens, cache_read_tokens, cache_write_tokens, cost_source, "
        "is_compaction) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (session_id, T0 + offset, model, given, made,
         given + made if total is None else total, read, written, source,
         int(compaction)),
    )  # fmt: skip


def text(value: str) -> list[dict[str, object]]:
    return [{"type": "text", "text": value}]


def test_a_tool_result_is_the_models_copy_not_the_persons_too(tmp_path: Path) -> None:
    """Goose's tools answer the model (audience assistant) and the person (audience user)
    apart: a repeat, or a summary of what the model got. The output is the model's copy;
    a result only for the person is still shown."""
    home, db = v16_home(tmp_path)
    add_session(db, "20260820_1", name="Listing")
    request = {"type": "toolRequest", "id": "call_1", "toolCall": {"status": "success",
               "value": {"name": "developer__tree", "arguments": {"path": "src"}}}}  # fmt: skip
    for_model = {"audience": ["assistant"]}
    for_person = {"audience": ["user"], "priority": 0.0}
    answer = {"type": "toolResponse", "id": "call_1", "toolResult": {"status": "success",
              "value": {"content": [
                  {"type": "text", "text": "src/api.py\nsrc/cart.py", "annotations": for_model},
                  {"type": "text", "text": "2 files", "annotations": for_person},
              ], "isError": False}}}  # fmt: skip
    only = {"type": "toolResponse", "id": "call_2", "toolResult": {"status": "success",
            "value": {"content": [{"type": "text", "text": "Shown to you",
                                   "annotations": for_person}], "isError": False}}}  # fmt: skip
    add_message(db, "20260820_1", "user", text("What is in src?"), 0)
    add_message(db, "20260820_1", "assistant", [request], 1)
    # a file view: the model gets an embedded resource, the person the text
    resource = {"type": "resource", "resource": {"uri": "file:///src/api.py",
                "text": "import cart"}, "annotations": for_model}  # fmt: skip
    viewed = {"type": "toolResponse", "id": "call_3", "toolResult": {"status": "success",
              "value": {"content": [resource, {"type": "text", "text": "api.py: import cart",
                        "annotations": for_person}], "isError": False}}}  # fmt: skip
    add_message(db, "20260820_1", "user", [answer, only, viewed], 2)
    db.commit()
    db.close()
    found = events(sessions(home)["20260820_1"])
    assert [e.text for e in found if e.kind == "tool_result"] == [
        "src/api.py\nsrc/cart.py",
        "Shown to you",
        "api.py: import cart",
    ]


def test_cache_reads_and_writes_are_taken_out_of_goose_input(tmp_path: Path) -> None:
    """Schema v14 adds the cache counters; Goose's input includes them (token_usage.rs),
    sessdex's excludes them. A database without the ledger: one session-level event."""
    home, db = v16_home(tmp_path)
    db.execute("DROP TABLE usage_ledger")  # v14: cache columns, no ledger yet
    add_session(db, "20260820_1", (10_000, 500, 6_000, 1_000), name="Cached")
    add_message(db, "20260820_1", "user", text("hi"), 0)
    db.commit()
    db.close()
    found = events(sessions(home)["20260820_1"])
    [counted] = [e for e in found if e.kind == "usage"]
    assert counted.extra == {"scope": "session", "summed": True}
    assert counted.usage == Usage(3_000, 500, 6_000, 1_000, model=SONNET)


def test_each_ledger_row_is_one_usage_event_with_its_time_and_model(
    tmp_path: Path,
) -> None:
    """Schema v15's usage_ledger: one row per model call, compaction calls included; the
    events sit among the messages by time, and the session counters (the same sums) add
    nothing."""
    home, db = v16_home(tmp_path)
    add_session(db, "20260820_1", (6_000, 330, 800, 500), name="Ledger")
    add_message(db, "20260820_1", "user", text("first"), 0)
    add_message(db, "20260820_1", "assistant", text("one"), 5)
    add_message(db, "20260820_1", "user", text("second"), 20)
    add_message(db, "20260820_1", "assistant", text("two"), 30)
    add_call(db, "20260820_1", 6, "claude-haiku-4-5", (1_000, 50, 800, 0))
    add_call(db, "20260820_1", 31, SONNET, (2_000, 80, 0, 500))
    add_call(db, "20260820_1", 40, None, (3_000, 200, 0, 0), compaction=True)
    db.commit()
    db.close()
    found = events(sessions(home)["20260820_1"])
    assert [e.kind for e in found] == [
        "user", "assistant", "usage", "user", "assistant", "usage", "usage",
    ]  # fmt: skip
    calls = [e for e in found if e.kind == "usage"]
    assert [(e.time, e.usage, e.extra) for e in calls] == [
        (at(6), Usage(200, 50, 800, 0, model="claude-haiku-4-5"), {}),
        (at(31), Usage(1_500, 80, 0, 500, model=SONNET), {}),
        (at(40), Usage(3_000, 200, model=SONNET), {"compaction": True}),
    ]
    assert replace(total(found), model=None) == Usage(4_700, 330, 800, 500)


def test_gemini_thinking_goose_leaves_out_of_its_output_is_counted_from_the_total(
    tmp_path: Path,
) -> None:
    """Goose's Google format takes `candidatesTokenCount` as output and
    `totalTokenCount` as total (providers/formats/google.rs `get_usage`); Gemini counts
    thinking in the total only: what the total holds beyond input and output is the
    model's thinking, billed as output. Other providers' totals are input + output."""
    home, db = v16_home(tmp_path)
    add_session(db, "20260820_1", (3_000, 130, 0, 0), name="Gemini")
    db.execute(
        "UPDATE sessions SET accumulated_total_tokens = 3930 WHERE id = '20260820_1'"
    )
    add_message(db, "20260820_1", "user", text("why"), 0)
    add_call(db, "20260820_1", 5, "gemini-2.5-pro", (1_000, 50, 0, 0), total=1_850)
    add_call(db, "20260820_1", 9, SONNET, (2_000, 80, 0, 0))
    db.commit()
    db.close()
    calls = [e.usage for e in events(sessions(home)["20260820_1"]) if e.kind == "usage"]
    assert calls == [
        Usage(1_000, 850, reasoning_tokens=800, model="gemini-2.5-pro"),
        Usage(2_000, 80, model=SONNET),
    ]


def test_spend_from_before_the_ledger_is_counted_once(tmp_path: Path) -> None:
    """Goose moves a session's pre-v15 spend into the ledger as one `carried_forward` row
    on its next call, and its totals take the larger of counters and ledger: a session
    not reopened since has only counters, and counters past the ledger add the rest."""
    home, db = v16_home(tmp_path)
    add_session(db, "20260820_1", (5_600, 1_070, 0, 0), name="Reopened")
    add_call(
        db, "20260820_1", 100, None, (5_000, 1_000, 0, 0), source="carried_forward"
    )
    add_call(db, "20260820_1", 101, SONNET, (100, 20, 0, 0))
    add_session(db, "20260820_2", (700, 70, 0, 0), name="Not reopened")
    db.commit()
    db.close()
    found = sessions(home)
    reopened = [e for e in events(found["20260820_1"]) if e.kind == "usage"]
    assert [(e.usage, e.extra) for e in reopened] == [
        (Usage(5_000, 1_000, model=SONNET), {"scope": "session", "summed": True}),
        (Usage(100, 20, model=SONNET), {}),
        (
            Usage(500, 50, model=SONNET),
            {"scope": "session", "summed": True},
        ),  # counted, never in the ledger
    ]
    assert total(events(found["20260820_2"])) == Usage(700, 70, model=SONNET)


def delegation(home_db: sqlite3.Connection) -> None:
    """A lead session that delegates through summon (its result's `_meta` names the
    child), a second sub-agent of it no result names, and a session a result names that
    does not record the lead as its parent."""
    db = home_db
    add_session(db, "20260820_1", (1_000, 100, 0, 0), name="Lead")
    add_session(db, "20260820_2", (400, 40, 300, 0), name="Delegated task",
                kind="sub_agent", parent="20260820_1")  # fmt: skip
    add_session(db, "20260820_3", (50, 5, 0, 0), name="Background", kind="sub_agent",
                parent="20260820_1")  # fmt: skip
    add_session(db, "20260820_4", (70, 7, 0, 0), name="Elsewhere")
    add_message(db, "20260820_1", "user", text("Find the callers"), 0)
    request = {"type": "toolRequest", "id": "call_1", "toolCall": {"status": "success",
               "value": {"name": "summon__delegate",
                         "arguments": {"instructions": "Find callers of checkout"}}}}  # fmt: skip
    add_message(db, "20260820_1", "assistant", [request], 2)
    add_message(db, "20260820_2", "user", text("Find callers of checkout"), 3)
    add_message(db, "20260820_2", "assistant", text("api.py:12"), 8)
    response = {"type": "toolResponse", "id": "call_1", "toolResult": {"status": "success",
                "value": {"content": [{"type": "text", "text": "api.py:12"}], "isError": False,
                          "_meta": {"subagent_session_id": "20260820_2"}}}}  # fmt: skip
    add_message(db, "20260820_1", "user", [response], 10)
    named = {"type": "toolResponse", "id": "call_2", "toolResult": {"status": "success",
             "value": {"content": [], "_meta": {"subagent_session_id": "20260820_4"}}}}  # fmt: skip
    add_message(db, "20260820_1", "user", [named], 11)
    add_message(db, "20260820_1", "assistant", text("Called from api.py"), 12)
    add_call(db, "20260820_1", 2, SONNET, (600, 60, 0, 0))
    add_call(db, "20260820_1", 12, SONNET, (400, 40, 0, 0))
    add_call(db, "20260820_2", 8, "claude-haiku-4-5", (400, 40, 300, 0))
    add_call(db, "20260820_3", 20, "claude-haiku-4-5", (50, 5, 0, 0))
    add_call(db, "20260820_4", 30, SONNET, (70, 7, 0, 0))


def test_a_sub_agents_session_is_read_with_its_parent(tmp_path: Path) -> None:
    """Schema v15's parent_session_id, which summon sets on the sub-agent session it
    creates: the child's events come before the delegating result, as that agent's."""
    home, db = v16_home(tmp_path)
    delegation(db)
    db.commit()
    db.close()
    found = sessions(home)
    assert found["20260820_2"].parent_id == "20260820_1"
    assert found["20260820_2"].agent_type == "sub_agent"
    lead = events(found["20260820_1"])
    child, late = "20260820_2", "20260820_3"
    assert [(e.kind, e.agent_id) for e in lead] == [
        ("user", None), ("tool_call", None), ("usage", None),
        ("subagent", None), ("user", child), ("assistant", child), ("usage", child),
        ("tool_result", None), ("tool_result", None), ("assistant", None), ("usage", None),
        ("subagent", None), ("usage", late),
    ]  # fmt: skip
    spawn = next(e for e in lead if e.kind == "subagent")
    assert spawn.call_id == "call_1" and spawn.text == "Find callers of checkout"
    assert spawn.extra == {"child_id": "20260820_2", "agent_type": "sub_agent"}
    # the second sub-agent, named by no result, comes at the end; the session a result
    # names that does not record this parent is not read into it (it counts on its own)
    unnamed = [e for e in lead if e.kind == "subagent"][1]
    assert unnamed.extra["child_id"] == late and unnamed.text == "Background"
    assert replace(total(lead), model=None) == Usage(1_150, 145, 300, 0)
    assert [e.kind for e in events(found["20260820_2"])] == [
        "user",
        "assistant",
        "usage",
    ]


def test_sessdex_usage_counts_a_sub_agent_once_per_model(tmp_path: Path) -> None:
    """`sessdex usage` counts a sub-agent with its parent, not on its own: its calls come
    from the parent's read, split by their own model."""
    home, db = v16_home(tmp_path)
    delegation(db)
    db.commit()
    db.close()
    result = usage.run(Home.at(home), "model", apps=("goose",), filters=usage.Filters())
    by_model = {
        row.key: (row.input_tokens, row.output_tokens, row.cache_read_tokens)
        for row in result.rows
    }
    assert by_model == {SONNET: (1_070, 107, 0), "claude-haiku-4-5": (150, 45, 300)}


def test_usage_counts_what_a_sub_agent_spent_after_its_parents_last_write(
    tmp_path: Path,
) -> None:
    """`sessdex usage` keeps each session's sums, its sub-agents' included: a sub-agent
    that spends while its parent's row stays as it was (a background delegate) is a change
    of those sums, not a cached total that stays short."""
    home, db = v16_home(tmp_path)
    delegation(db)
    db.commit()

    def haiku() -> tuple[int, int, int]:
        result = usage.run(
            Home.at(home), "model", apps=("goose",), filters=usage.Filters()
        )
        row = next(r for r in result.rows if r.key == "claude-haiku-4-5")
        return (row.input_tokens, row.output_tokens, row.cache_read_tokens)

    assert haiku() == (150, 45, 300)
    add_call(db, "20260820_3", 40, "claude-haiku-4-5", (100, 10, 0, 0))
    db.execute(
        "UPDATE sessions SET accumulated_input_tokens = 150, accumulated_output_tokens = 15,"
        " updated_at = '2026-08-20 10:20:00' WHERE id = '20260820_3'"
    )
    db.commit()
    db.close()
    assert haiku() == (250, 55, 300)


def content_events(
    tmp_path: Path, *messages: tuple[str, list[dict[str, object]], dict[str, object]]
) -> list[Event]:
    """The events of MAIN after the given messages were appended to it."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    db = sqlite3.connect(home / ".local/share/goose/sessions/sessions.db")
    for role, content, meta in messages:
        db.execute(
            "INSERT INTO messages (session_id, role, content_json, created_timestamp, metadata_json) "
            "VALUES (?, ?, ?, 1796123200, ?)",
            (MAIN, role, json.dumps(content), json.dumps(meta)),
        )
    db.commit()
    db.close()
    found = events(sessions(home)[MAIN])
    return found[len(events(sessions()[MAIN])) - 1 : -1]  # the new ones, before usage


def test_an_error_block_is_an_error_event(tmp_path: Path) -> None:
    """message.rs (unrolled agent loop): a provider error is kept as an `error` block."""
    block = {"type": "error", "kind": "contextLengthExceeded", "message": "too long"}
    [error] = content_events(tmp_path, ("assistant", [block], {"userVisible": True,
                                                              "agentVisible": False}))  # fmt: skip
    assert (error.kind, error.text) == ("error", "too long")
    assert error.extra == {"kind": "contextLengthExceeded"}


def test_the_answer_to_a_tool_confirmation_is_a_meta_event_on_the_call(
    tmp_path: Path,
) -> None:
    """`toolConfirmationResponse` (id: the tool call's) answers a `toolConfirmation`."""
    asked = {"type": "actionRequired", "data": {"actionType": "toolConfirmation", "id": "t1",
             "toolName": "developer__shell", "arguments": {}, "prompt": None}}  # fmt: skip
    answered = {"type": "actionRequired", "data": {"actionType": "toolConfirmationResponse",
                "id": "t1", "permission": "allow_once"}}  # fmt: skip
    request, answer = content_events(
        tmp_path, ("assistant", [asked], VISIBLE), ("user", [answered], VISIBLE)
    )
    # the request (stored by Goose's opt-in state machine) waits for the user
    assert (request.kind, request.tool, request.extra) == (
        "meta",
        "developer__shell",
        {"asks": "approval"},
    )
    assert (answer.kind, answer.call_id, answer.text) == (
        "meta",
        "t1",
        "tool call allowed once",
    )
    assert answer.extra == {"permission": "allow_once", "answered": True}


def test_spinner_notifications_are_passed_over(tmp_path: Path) -> None:
    """Goose shows `progressMessage` and `thinkingMessage` as a passing spinner caption;
    an `inlineMessage` stays a line."""

    def note(
        kind: str, msg: str
    ) -> tuple[str, list[dict[str, object]], dict[str, object]]:
        return (
            "assistant",
            [{"type": "systemNotification", "notificationType": kind, "msg": msg}],
            VISIBLE,
        )

    found = content_events(
        tmp_path,
        note("progressMessage", "Loading local model..."),
        note("thinkingMessage", "Compacting..."),
        note("inlineMessage", "Context limit reached."),
    )
    assert [(e.kind, e.text) for e in found] == [("meta", "Context limit reached.")]


def test_an_old_reasoning_block_is_thinking(tmp_path: Path) -> None:
    """message.rs turns a `reasoning` block into thinking on load, and drops one without text."""
    found = content_events(
        tmp_path,
        (
            "assistant",
            [{"type": "reasoning", "text": "step by step"}, {"type": "reasoning"}],
            VISIBLE,
        ),
    )
    assert [(e.kind, e.text) for e in found] == [("thinking", "step by step")]


def test_turn_context_is_injected_never_the_users_words(tmp_path: Path) -> None:
    """A user message marked `turnContext` is what Goose appends for the model each turn."""
    home, db = v16_home(tmp_path)
    add_session(db, "20260820_1")  # no name yet: listed by the first prompt
    context = "<turn-context>cwd /home/alex/code/shop-api</turn-context>"
    add_message(db, "20260820_1", "user", text(context), 0,
                {"userVisible": False, "agentVisible": True, "turnContext": True})  # fmt: skip
    add_message(db, "20260820_1", "user", text("Add a retry"), 1)
    db.commit()
    db.close()
    session = sessions(home)["20260820_1"]
    assert session.title == "Add a retry"  # the user's words, not the turn context
    injected, typed = events(session)
    assert (injected.kind, injected.text) == ("meta", context)
    assert injected.extra == {"hidden": True, "injected": True, "turn_context": True}
    assert (typed.kind, typed.text) == ("user", "Add a retry")


def test_a_compaction_is_its_summary_not_a_prompt(tmp_path: Path) -> None:
    """Goose 1.x compacts by hiding the history from the model (agentVisible false), then
    adding, for the model only, the summary as a user message, a "context was compacted"
    note and the last prompt again (context_mgmt compact_messages)."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    db = sqlite3.connect(home / ".local/share/goose/sessions/sessions.db")
    db.execute(  # what it had shown the user stays visible to the user
        "UPDATE messages SET metadata_json = json_set(coalesce(metadata_json, '{}'), "
        "'$.agentVisible', json('false')) WHERE session_id = ?",
        (MAIN,),
    )
    only_model = json.dumps({"userVisible": False, "agentVisible": True})
    prompt = "Add a retry with backoff to checkout() and run the tests."
    added = [
        ("user", "# Conversation Summary\n## User Intent\n- add retry", only_model),
        ("assistant", "Your context was compacted. The previous message contains a summary.", only_model),
        ("user", prompt, only_model),
        ("assistant", "Continuing: the retry is in place.", json.dumps({"userVisible": True, "agentVisible": True})),
    ]  # fmt: skip
    for n, (role, text, meta) in enumerate(added):
        db.execute(
            "INSERT INTO messages (session_id, role, content_json, created_timestamp, metadata_json)"
            " VALUES (?, ?, ?, ?, ?)",
            (
                MAIN,
                role,
                json.dumps([{"type": "text", "text": text}]),
                1796123300 + n,
                meta,
            ),
        )
    db.commit()
    db.close()
    found = events(sessions(home)[MAIN])
    typed = [e.text for e in found if e.kind == "user"]
    assert typed == [prompt]  # once, as typed
    [compaction] = [e for e in found if e.kind == "compaction"]
    assert compaction.text == "# Conversation Summary\n## User Intent\n- add retry"
    after = [e for e in found[found.index(compaction) + 1 :] if e.kind != "usage"]
    assert [(e.kind, e.extra.get("injected")) for e in after] == [
        ("meta", True),
        ("meta", True),
        ("assistant", None),
    ]


def test_an_async_delegate_runs_until_load_reports_its_end(tmp_path: Path) -> None:
    """summon's delegate with `async: true` answers at launch ("started in background");
    a later `load` result reports how the task ended (`_meta.task_status`, summon.rs)."""
    from sessdex.tree import build_tree

    home, db = v16_home(tmp_path)
    add_session(db, "20260820_1", name="Lead")
    add_session(db, "20260820_2", name="Callers", kind="sub_agent", parent="20260820_1")
    request = {
        "type": "toolRequest",
        "id": "call_1",
        "toolCall": {
            "status": "success",
            "value": {
                "name": "summon__delegate",
                "arguments": {
                    "instructions": "Find callers of checkout",
                    "async": True,
                },
            },
        },
    }
    started = {
        "type": "toolResponse",
        "id": "call_1",
        "toolResult": {
            "status": "success",
            "value": {
                "content": text(
                    'Task 20260820_2 started in background: "Find callers"'
                ),
                "_meta": {"subagent_session_id": "20260820_2"},
            },
        },
    }
    working = {
        "type": "toolRequest",
        "id": "call_11",
        "toolCall": {
            "status": "success",
            "value": {
                "name": "developer__shell",
                "arguments": {"command": "rg checkout"},
            },
        },
    }
    add_message(db, "20260820_1", "user", text("Find the callers"), 0)
    add_message(db, "20260820_1", "assistant", [request], 2)
    add_message(db, "20260820_2", "user", text("Find callers of checkout"), 3)
    add_message(db, "20260820_2", "assistant", [working], 4)
    add_message(db, "20260820_1", "user", [started], 5)
    add_message(db, "20260820_1", "assistant", text("It runs in the background."), 6)
    db.commit()

    def status() -> str:
        lead = events(sessions(home)["20260820_1"])
        [node] = build_tree("20260820_1", lead).children
        return node.status

    assert status() == "running"  # mid shell call, however the lead's turn ended
    result = {"type": "toolResponse", "id": "call_11", "toolResult": {"status": "success",
              "value": {"content": text("api.py:12"), "isError": False}}}  # fmt: skip
    add_message(db, "20260820_2", "user", [result], 7)
    add_message(db, "20260820_2", "assistant", text("Called from api.py:12"), 8)
    db.commit()
    assert (
        status() == "done"
    )  # Goose writes no turn ends: it answered, the lead is past it
    load = {
        "type": "toolRequest",
        "id": "call_2",
        "toolCall": {
            "status": "success",
            "value": {"name": "summon__load", "arguments": {"source": "20260820_2"}},
        },
    }
    loaded = {
        "type": "toolResponse",
        "id": "call_2",
        "toolResult": {
            "status": "success",
            "value": {
                "content": text("✗ Failed"),
                "_meta": {"subagent_session_id": "20260820_2", "task_status": "failed"},
            },
        },
    }
    add_message(db, "20260820_1", "user", text("and?"), 20)
    add_message(db, "20260820_1", "assistant", [load], 21)
    add_message(db, "20260820_1", "user", [loaded], 22)
    db.commit()
    db.close()
    assert status() == "failed"


def test_a_foreground_delegate_runs_after_the_result_that_scheduled_it(
    tmp_path: Path,
) -> None:
    """Schema v17: summon's foreground delegate answers "Delegated to foreground subagent"
    (`_meta.foreground_subagent`), then Goose runs the sub-agent and hands its outcome to
    the model as a hidden user message. Its events follow that result, which is a launch."""
    from sessdex.tree import build_tree

    home, db = v16_home(tmp_path)
    db.execute("ALTER TABLE sessions ADD COLUMN parent_delegation TEXT")
    add_session(db, "20260820_1", name="Lead")
    add_session(db, "20260820_2", name="Callers", kind="sub_agent", parent="20260820_1")
    request = {"type": "toolRequest", "id": "call_1", "toolCall": {"status": "success",
               "value": {"name": "summon__delegate",
                         "arguments": {"instructions": "Find callers of checkout"}}}}  # fmt: skip
    scheduled = {"type": "toolResponse", "id": "call_1", "toolResult": {"status": "success",
                 "value": {"content": text("Delegated to foreground subagent 20260820_2"),
                           "_meta": {"subagent_session_id": "20260820_2",
                                     "foreground_subagent": True}}}}  # fmt: skip
    add_message(db, "20260820_1", "user", text("Find the callers"), 0)
    add_message(db, "20260820_1", "assistant", [request], 1)
    add_message(db, "20260820_1", "user", [scheduled], 2)
    db.execute(
        "UPDATE sessions SET parent_delegation = ? WHERE id = '20260820_2'",
        (
            json.dumps(
                {"execution_mode": "foreground", "result_delivered_to_parent": False}
            ),
        ),
    )
    add_message(
        db, "20260820_2", "user", text("Subagent ID: 20260820_2\n\nFind callers"), 3
    )
    db.commit()

    def lead() -> list[Event]:
        return events(sessions(home)["20260820_1"])

    def status() -> str:
        [node] = build_tree("20260820_1", lead()).children
        return node.status

    assert status() == "running"  # scheduled, and now at work
    add_message(db, "20260820_2", "assistant", text("api.py:12"), 5)
    hidden = {"userVisible": False, "agentVisible": True}
    delivered = text("Subagent 20260820_2 completed: api.py:12")
    add_message(db, "20260820_1", "user", delivered, 6, hidden)
    add_message(db, "20260820_1", "assistant", text("It is called from api.py:12."), 7)
    db.commit()
    db.close()
    found = lead()
    child = "20260820_2"
    assert [(e.kind, e.agent_id) for e in found] == [
        ("user", None), ("tool_call", None), ("subagent", None), ("tool_result", None),
        ("user", child), ("assistant", child), ("meta", None), ("assistant", None),
    ]  # fmt: skip
    assert found[3].extra == {"launched": True} and found[2].call_id == "call_1"
    assert found[2].extra["child_id"] == child
    assert found[6].extra == {
        "injected": True,
        "hidden": True,
    }  # the outcome, for the model
    assert status() == "done"


def test_an_unnamed_session_is_listed_by_its_first_prompt(tmp_path: Path) -> None:
    """Goose names a session after its first exchange (`name` stays ''): until then the
    list shows what the user typed (of a prompt too long to keep, its first bytes); a
    name wins."""
    home, db = v16_home(tmp_path)
    add_session(db, "20260820_1")
    add_message(db, "20260820_1", "user", [{"type": "image", "data": "AAAA"}], 0)
    add_message(db, "20260820_1", "user", text("Fix the\n  flaky   test"), 1)
    add_session(db, "20260820_2", name="Retry work")
    add_message(db, "20260820_2", "user", text("Add a retry"), 0)
    add_session(db, "20260820_3")
    add_message(db, "20260820_3", "user", text("x" * (files.READ_LINE_CAP + 10)), 0)
    add_session(db, "20260820_4")  # nothing typed yet
    db.commit()
    db.close()
    found = sessions(home)
    titles = [found[f"20260820_{n}"].title for n in range(1, 5)]
    assert titles[:2] == ["Fix the flaky test", "Retry work"] and titles[3] is None
    assert titles[2] and titles[2].startswith("x" * 1000) and len(titles[2]) < 20_000


def test_a_placeholder_name_goose_gave_is_no_title(tmp_path: Path) -> None:
    """Goose names an ACP client's new session "New Chat" (acp/server/new_session.rs)
    and, from PR #8344 to PR #9078, a thread's own session "ACP Session", until it names
    it after the first exchange: `list` shows the first prompt instead, as for a session
    with no name. The same words the user chose (`user_set_name`) stay its title."""
    home, db = v16_home(tmp_path)
    add_session(db, "20260820_1", name="New Chat", kind="acp")
    add_message(db, "20260820_1", "user", text("Why does checkout time out?"), 0)
    add_session(db, "20260820_2", name="ACP Session", kind="acp")
    add_message(db, "20260820_2", "user", text("Rename the billing module"), 0)
    add_session(db, "20260820_3", name="New Chat", user_set=True)
    add_message(db, "20260820_3", "user", text("Start over"), 0)
    add_session(db, "20260820_4", name="New Chat", kind="acp")  # nothing typed yet
    db.commit()
    db.close()
    from click.testing import CliRunner

    from sessdex.cli import main

    result = CliRunner().invoke(main, ["list", "--json", "--all", "--home", str(home)])
    assert result.exit_code == 0, result.output
    titles = {row["id"]: row["title"] for row in json.loads(result.stdout)}
    assert [titles.get(f"20260820_{n}") for n in range(1, 5)] == [
        "Why does checkout time out?",
        "Rename the billing module",
        "New Chat",
        None,
    ]


def test_a_placeholder_name_without_user_set_name_is_no_title(tmp_path: Path) -> None:
    """A database without the `user_set_name` column is read as Goose reads it: the
    name was not the user's."""
    home, db = v16_home(tmp_path)
    db.execute("ALTER TABLE sessions DROP COLUMN user_set_name")
    db.execute(
        "INSERT INTO sessions (id, name, working_dir) VALUES ('20260820_1', 'New Chat', ?)",
        (SHOP,),
    )
    add_message(db, "20260820_1", "user", text("Why does checkout time out?"), 0)
    db.commit()
    db.close()
    diagnostics = Diagnostics()
    found = sessions(home, diagnostics)["20260820_1"]
    assert found.title == "Why does checkout time out?" and not diagnostics.problems


def test_a_windows_homes_goose_sessions_are_listed(tmp_path: Path) -> None:
    """Goose on Windows keeps its data in `%APPDATA%\\Block\\goose\\data` (etcetera's
    Windows strategy): a copy of that home lists them, as `list --home` would."""
    from click.testing import CliRunner

    from sessdex.cli import main

    home = tmp_path / "windows-home"
    windows = home / "AppData" / "Roaming" / "Block" / "goose" / "data" / "sessions"
    shutil.copytree(SESSIONS, windows)
    assert sorted(sessions(home)) == [MAIN, SUB, LEGACY]
    assert sessions(home)[LEGACY].extra["store"] == "jsonl"  # not Goose 0.x's folder
    result = CliRunner().invoke(main, ["list", "--json", "--home", str(home)])
    assert result.exit_code == 0, result.output
    listed = {(s["app"], s["id"]) for s in json.loads(result.stdout)}
    assert ("goose", MAIN) in listed and ("goose", LEGACY) in listed


def test_a_sub_agent_whose_session_is_gone_is_named(tmp_path: Path) -> None:
    # summon's result names the sub-agent's session, which was removed since: the lead
    # still shows the spawn, and the read says what is missing
    from sessdex.tree import build_tree

    home, db = v16_home(tmp_path)
    add_session(db, "20260820_1", name="Lead")
    request = {"type": "toolRequest", "id": "call_1", "toolCall": {"status": "success",
               "value": {"name": "summon__delegate",
                         "arguments": {"instructions": "Find callers of checkout"}}}}  # fmt: skip
    answered = {"type": "toolResponse", "id": "call_1", "toolResult": {"status": "success",
                "value": {"content": text("Called from api.py:12"),
                          "_meta": {"subagent_session_id": "20260820_2"}}}}  # fmt: skip
    add_message(db, "20260820_1", "user", text("Find the callers"), 0)
    add_message(db, "20260820_1", "assistant", [request], 2)
    add_message(db, "20260820_1", "user", [answered], 5)
    add_message(db, "20260820_1", "assistant", text("api.py:12 calls it."), 6)
    db.commit()
    db.close()
    diagnostics = Diagnostics()
    found = list(goose.read(sessions(home)["20260820_1"], diagnostics))
    [node] = build_tree("20260820_1", found).children
    assert (node.id, node.status, node.events) == ("20260820_2", "done", 0)
    assert diagnostics.problems == ["goose: sub-agent 20260820_2: transcript not found"]


def test_a_session_row_with_no_id_is_counted_not_dropped_unsaid(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    db = sqlite3.connect(home / SESSIONS.relative_to(HOME) / "sessions.db")
    db.execute("UPDATE sessions SET id = NULL WHERE id = ?", (SUB,))
    db.commit()
    db.close()
    diagnostics = Diagnostics()
    found = sessions(home, diagnostics)
    assert SUB not in found and MAIN in found
    assert diagnostics.skipped == {"bad value": 1}


def test_an_unnamed_sessions_first_prompt_too_long_to_hold_still_titles_it(
    tmp_path: Path,
) -> None:
    """A 20 MB paste in the first prompt of a session Goose has not named: its
    `content_json` is read no further than its first 16 KB, which title the session."""
    from click.testing import CliRunner

    from sessdex.cli import main

    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    db = sqlite3.connect(home / ".local/share/goose/sessions/sessions.db")
    with db:
        db.execute("UPDATE sessions SET name = '', description = ''")
        prompt = "Find callers of checkout"
        paste = "\n" + "ERROR retry failed\n" * 1_100_000
        content = json.dumps([{"type": "text", "text": prompt + paste}])
        db.execute(
            "UPDATE messages SET content_json = ? WHERE content_json LIKE ?",
            (content, f"%{prompt}%"),
        )
    db.close()
    result = CliRunner().invoke(main, ["list", "--json", "--all", "--home", str(home)])
    assert result.exit_code == 0, result.output
    title = {row["id"]: row["title"] for row in json.loads(result.stdout)}["20261201_2"]
    assert title and title.startswith(f"{prompt} ERROR retry failed"), title


def test_the_last_rows_read_say_an_odd_counter_as_the_whole_read_does(
    tmp_path: Path,
) -> None:
    """`--tail` reads a session's last messages alone (`read_last`): a counter of its
    row no app writes, taken as 0, is said there as the whole read says it."""
    home, db = v16_home(tmp_path)
    add_session(db, "20260820_1", (700, 70, 0, 0), name="Counters alone")
    db.execute("UPDATE sessions SET accumulated_output_tokens = -5")
    for n in range(4):
        add_message(
            db, "20260820_1", "user" if n % 2 == 0 else "assistant", text(f"m{n}"), n
        )
    db.commit()
    db.close()
    session = sessions(home)["20260820_1"]
    whole, last = Diagnostics(), Diagnostics()
    list(goose.read(session, whole))
    list(goose.read_last(session, last, 2))
    assert whole.details == last.details
    assert [reason for _, _, reason in last.details] == [
        "odd token count in a set of totals"
    ]


@pytest.mark.parametrize("odd", ["a dozen", -5, 1.5, 2**60])
@pytest.mark.parametrize("times", ["seconds", "a fraction"])
def test_the_last_rows_say_an_odd_ledger_row_before_them_and_bill_as_the_whole(
    odd: object, times: str, tmp_path: Path
) -> None:
    """A ledger row before the last messages holding a count no app writes was said by
    the whole read (a response's) and by no `--tail` read: each is said, the usage the
    same. `times`: every time whole seconds (the calls before are counted in SQL), or an
    earlier message's a fraction (they are read one by one)."""
    home, db = v16_home(tmp_path)
    add_session(db, "20260820_1", (300, 60, 0, 0), name="Ledgered")
    for n in range(6):
        role = "user" if n % 2 == 0 else "assistant"
        add_message(db, "20260820_1", role, text(f"m{n}"), n * 10)
    add_call(db, "20260820_1", 11, SONNET, (100, 20, 0, 0))
    add_call(db, "20260820_1", 12, SONNET, (100, 20, 0, 0))
    add_call(db, "20260820_1", 51, SONNET, (100, 20, 0, 0))
    db.execute("UPDATE usage_ledger SET output_tokens = ? WHERE id = 2", (odd,))
    if times == "a fraction":
        db.execute(
            "UPDATE messages SET created_timestamp = ? WHERE id = 2", (T0 + 10.5,)
        )
    db.commit()
    db.close()
    session = sessions(home)["20260820_1"]
    whole, last = Diagnostics(), Diagnostics()
    every = [e.usage for e in goose.read(session, whole) if e.usage]
    shown = [e.usage for e in goose.read_last(session, last, 2) if e.usage]
    assert whole.details == last.details
    assert [reason for _, _, reason in last.details] == [
        "odd token count in a response"
    ]
    # the window's call and the counters' rest, as the whole read bills them
    assert [(u.input_tokens, u.output_tokens) for u in shown] == [
        (u.input_tokens, u.output_tokens) for u in every[-len(shown) :]
    ]
