"""OpenCode 2.x: `session_v2` and `session_message` beside (or instead of) the 1.x tables.

The databases are built here: the 2.0.15 tables as a public third-party reader's tests quote
them from opencode's `schema.gen.ts`, and rows in the shapes those tests and opencode's
`packages/core/src/session/message.ts` give (see _opencode_v2.py). No real 2.x file was seen.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from sessdex import databases
from sessdex.diagnostics import Diagnostics, odd_in
from sessdex.model import Event, Session, Usage
from sessdex.sources import opencode
from tests.helpers import tables_as_views

from .test_opencode import BASIC, DB, sessions

SESSION_V2 = """CREATE TABLE `session_v2` (`id` text PRIMARY KEY, `project_id` text NOT NULL,
    `workspace_id` text, `parent_id` text, `fork_session_id` text, `fork_boundary` text,
    `slug` text NOT NULL, `directory` text NOT NULL, `path` text, `title` text,
    `version` text NOT NULL, `share_url` text, `metadata` text, `cost` real DEFAULT 0 NOT NULL,
    `tokens_input` integer DEFAULT 0 NOT NULL, `tokens_output` integer DEFAULT 0 NOT NULL,
    `agent` text, `model` text, `time_created` integer NOT NULL, `time_updated` integer NOT NULL,
    `time_idle` integer, `idle_outcome` text, `time_compacting` integer, `time_archived` integer)"""
SESSION_MESSAGE = """CREATE TABLE `session_message` (`id` text PRIMARY KEY,
    `session_id` text NOT NULL, `type` text NOT NULL, `seq` integer NOT NULL,
    `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL)"""

T0 = 1796030000000
NATIVE = "ses_f2b662ccdffe16PlkJxD3iQBym"
CHILD = "ses_f2b662462ffe5m3IWk5lDCkJD9"
FORK = "ses_f2b65fb12ffel8KFRA9rRZabhb"
MODEL = {"id": "claude-sonnet-4-5", "providerID": "anthropic"}


def tokens(input_tokens: int, output: int, reasoning: int = 0) -> dict[str, object]:
    return {
        "input": input_tokens,
        "output": output,
        "reasoning": reasoning,
        "cache": {"read": 200, "write": 0},
    }


def add_session(
    db: sqlite3.Connection,
    session_id: str,
    title: str | None,
    *,
    parent: str | None = None,
    fork: str | None = None,
) -> None:
    db.execute(
        "INSERT INTO session_v2 (id, project_id, parent_id, fork_session_id, slug, directory, "
        "title, version, agent, model, time_created, time_updated) "
        "VALUES (?, 'global', ?, ?, 'slug', '/work/proj', ?, '2.0.15', 'build', ?, ?, ?)",
        (session_id, parent, fork, title, json.dumps(MODEL), T0, T0 + 9000),
    )


def add_rows(
    db: sqlite3.Connection,
    session_id: str,
    rows: list[tuple[str, str, dict[str, object]]],
) -> None:
    (start,) = db.execute(
        "SELECT coalesce(max(seq), -1) + 1 FROM session_message WHERE session_id = ?",
        (session_id,),
    ).fetchone()
    for seq, (row_id, kind, data) in enumerate(rows, start):
        created = data["time"]["created"]  # type: ignore[index]
        db.execute(
            "INSERT INTO session_message VALUES (?, ?, ?, ?, ?, ?, ?)",
            (row_id, session_id, kind, seq, created, created, json.dumps(data)),
        )


def assistant(
    at: int, content: list[dict[str, object]], **more: object
) -> dict[str, object]:
    return {
        "time": {"created": at, "completed": at + 400},
        "agent": "build",
        "model": MODEL,
        "content": content,
    } | more


NATIVE_ROWS: list[tuple[str, str, dict[str, object]]] = [
    ("msg_u1", "user", {"time": {"created": T0 + 10}, "text": "run the tests", "files": []}),
    ("msg_a1", "assistant", assistant(T0 + 20, [
        {"type": "reasoning", "id": "r1", "text": "bun test, then report"},
        {"type": "tool", "id": "call_1", "name": "bash", "state": {
            "status": "completed", "input": {"command": "bun test"},
            "content": [{"type": "text", "text": "3 pass"}]}},
    ], finish="tool-calls", tokens=tokens(800, 40, 10))),
    ("msg_a2", "assistant", assistant(T0 + 500, [
        {"type": "tool", "id": "call_2", "name": "subagent", "state": {
            "status": "completed", "input": {"description": "Check the docs", "prompt": "read README"},
            "content": [{"type": "text", "text": "the docs are fine"}]}},
        {"type": "tool", "id": "call_3", "name": "read", "state": {
            "status": "error", "input": {"filePath": "/nope"},
            "error": {"type": "tool.execution", "message": "no such file"}}},
        {"type": "text", "id": "t1", "text": "All 3 tests pass."},
    ], finish="stop", tokens=tokens(805, 55, 10))),
    ("msg_i1", "idle", {"time": {"created": T0 + 1000}, "outcome": "succeeded"}),
    ("msg_sh", "shell", {"time": {"created": T0 + 1100}, "command": "git status",
                         "status": "exited", "output": {"output": "nothing to commit"}}),
    ("msg_sw", "agent-switched", {"time": {"created": T0 + 1200}, "agent": "plan"}),
    ("msg_c1", "compaction", {"time": {"created": T0 + 1300}, "status": "completed",
                              "summary": "## Objective\nkeep tests green", "tokens": tokens(300, 60)}),
    ("msg_a3", "assistant", assistant(T0 + 1400, [], finish="error",
                                      error={"type": "provider.invalid-request", "message": "mock bad request"})),
    ("msg_f1", "future-kind", {"time": {"created": T0 + 1500}, "x": 1}),
]  # fmt: skip
CHILD_ROWS: list[tuple[str, str, dict[str, object]]] = [
    ("msg_cu", "user", {"time": {"created": T0 + 520},
                        "text": "You are a subagent spawned by another session.\nread README"}),
    ("msg_ca", "assistant", assistant(T0 + 530, [{"type": "text", "text": "the docs are fine"}],
                                      finish="stop", tokens=tokens(100, 5))),
]  # fmt: skip


def database_v2(folder: Path, *, legacy: bool = False) -> sqlite3.Connection:
    """opencode.db as 2.0 leaves it: fresh, or (`legacy`) upgraded from the real 1.18.33 one."""
    folder.mkdir(parents=True, exist_ok=True)
    if legacy:
        shutil.copy(DB, folder / "opencode.db")
    db = sqlite3.connect(folder / "opencode.db")
    db.execute("DROP TABLE IF EXISTS session_message")
    db.execute(SESSION_V2)
    db.execute(SESSION_MESSAGE)
    add_session(db, NATIVE, None)  # not titled yet
    add_rows(db, NATIVE, NATIVE_ROWS)
    add_session(db, CHILD, "Check the docs (@general subagent)", parent=NATIVE)
    add_rows(db, CHILD, CHILD_ROWS)
    return db


def read(session: Session) -> tuple[list[Event], Diagnostics]:
    diagnostics = Diagnostics()
    return list(opencode.read(session, diagnostics)), diagnostics


def test_a_2x_only_database_is_listed_and_read(tmp_path: Path) -> None:
    home = tmp_path / "home"
    database_v2(home / ".local/share/opencode").commit()
    listing = Diagnostics()
    found = sessions(home, listing)
    assert not listing.problems
    assert set(found) == {NATIVE, CHILD}
    native = found[NATIVE]
    assert native.title == "run the tests"  # no title yet: the first prompt
    assert (native.cwd, native.cli_version, native.model) == (
        "/work/proj",
        "2.0.15",
        "claude-sonnet-4-5",
    )
    assert found[CHILD].parent_id == NATIVE
    assert found[CHILD].title == "Check the docs (@general subagent)"

    events, diagnostics = read(native)
    lead = [e for e in events if e.agent_id is None]
    assert [
        (e.kind, e.text) for e in lead if e.kind in ("user", "assistant", "thinking")
    ] == [
        ("user", "run the tests"),
        ("thinking", "bun test, then report"),
        ("assistant", "All 3 tests pass."),
    ]
    results = {e.call_id: (e.text, e.is_error) for e in lead if e.kind == "tool_result"}
    assert results["call_1"] == ("3 pass", False)
    assert results["call_3"] == ("no such file", True)
    [spawn] = [e for e in events if e.kind == "subagent"]
    assert spawn.call_id == "call_2" and spawn.extra["child_id"] == CHILD
    child = [e for e in events if e.agent_id == CHILD]
    assert [e.kind for e in child] == ["user", "assistant", "usage", "turn_end"]
    shell = [e for e in lead if e.tool == "shell"]
    assert [e.kind for e in shell] == ["tool_call", "tool_result"]
    assert shell[1].text == "nothing to commit"
    assert any(e.kind == "meta" and e.extra.get("agent") == "plan" for e in lead)
    [compaction] = [e for e in lead if e.kind == "compaction"]
    assert compaction.text == "## Objective\nkeep tests green"
    assert [e.text for e in lead if e.kind == "error"] == ["mock bad request"]
    assert [e.extra["reason"] for e in lead if e.kind == "turn_end"] == ["stop"]
    # two calls and a compaction: input without cache, output with reasoning
    billed = Usage()
    for event in lead:
        if event.usage is not None:
            billed += event.usage
    assert billed == Usage(1905, 175, 600, 0, 20, model="claude-sonnet-4-5")
    assert dict(diagnostics.unknown) == {"session_message:future-kind": 1}


def test_a_fork_shows_its_copies_and_bills_only_its_own_calls(tmp_path: Path) -> None:
    home = tmp_path / "home"
    db = database_v2(home / ".local/share/opencode")
    add_session(db, FORK, "run the tests (fork #1)", fork=NATIVE)
    copies = [
        (f"msg_evt_{n}", kind, data)
        for n, (_, kind, data) in enumerate(NATIVE_ROWS[:3])
    ]
    add_rows(db, FORK, copies)
    add_rows(db, FORK, [
        ("msg_fu", "user", {"time": {"created": T0 + 5000}, "text": "after the fork"}),
        ("msg_fa", "assistant", assistant(T0 + 5100, [{"type": "text", "text": "ok"}],
                                          finish="stop", tokens=tokens(50, 2))),
    ])  # fmt: skip
    db.commit()
    found = sessions(home)
    assert found[FORK].extra["forked_from_id"] == NATIVE
    assert (
        found[FORK].parent_id is None
    )  # a fork is a session of its own, not a sub-agent
    events, _ = read(found[FORK])
    said = [e.text for e in events if e.kind == "user" and e.agent_id is None]
    assert said == ["run the tests", "after the fork"]
    billed = [e.usage.input_tokens for e in events if e.usage and e.agent_id is None]
    assert billed == [50]  # the copied calls are billed to the session they came from


def test_an_upgraded_database_reads_each_message_once_in_time_order(
    tmp_path: Path,
) -> None:
    """2.0 copies a 1.x session's messages into session_message (same ids) and continues it
    there; 1.x builds may go on writing the old tables. Both are read, nothing twice."""
    home = tmp_path / "home"
    db = database_v2(home / ".local/share/opencode", legacy=True)
    db.execute(
        "INSERT INTO session_v2 (id, project_id, parent_id, slug, directory, title, version, "
        "agent, model, time_created, time_updated) SELECT id, project_id, parent_id, slug, "
        "directory, title, '2.0.15', agent, model, time_created, time_updated FROM session "
        "WHERE id = ?",
        (BASIC,),
    )
    legacy = db.execute(
        "SELECT id, time_created, data FROM message WHERE session_id = ? ORDER BY time_created",
        (BASIC,),
    ).fetchall()
    copies = [
        (
            row_id,
            json.loads(data)["role"],
            {"time": {"created": created}, "text": "copy"},
        )
        for row_id, created, data in legacy
    ]
    add_rows(db, BASIC, copies)
    later = legacy[-1][1] + 60_000
    add_rows(db, BASIC, [
        ("msg_after_upgrade", "user", {"time": {"created": later}, "text": "typed in 2.0"}),
        ("msg_after_upgrade_a", "assistant", assistant(later + 10, [{"type": "text", "text": "2.0 answers"}],
                                                       finish="stop", tokens=tokens(10, 1))),
    ])  # fmt: skip
    db.commit()
    before, _ = read(sessions(DB.parents[3])[BASIC])
    found = sessions(home)
    assert found[BASIC].cli_version == "2.0.15"  # the 2.x row wins over the 1.x one
    events, diagnostics = read(found[BASIC])
    assert not diagnostics.problems and not diagnostics.unknown
    assert "copy" not in [e.text for e in events]
    texts = [(e.kind, e.text) for e in events if e.kind in ("user", "assistant")]
    assert texts == [
        *((e.kind, e.text) for e in before if e.kind in ("user", "assistant")),
        ("user", "typed in 2.0"),
        ("assistant", "2.0 answers"),
    ]
    times = [e.time for e in events if e.time is not None]
    assert times == sorted(times)


def test_rows_in_a_database_without_session_v2_are_read(tmp_path: Path) -> None:
    """1.18 already made `session_message` (empty); rows there for a 1.x session, without
    the 2.x session table, are still read, a spawn naming no child included."""
    folder = tmp_path / "home" / ".local/share/opencode"
    folder.mkdir(parents=True)
    shutil.copy(DB, folder / "opencode.db")
    db = sqlite3.connect(folder / "opencode.db")
    add_rows(db, BASIC, [NATIVE_ROWS[2]])
    db.commit()
    events, diagnostics = read(sessions(tmp_path / "home")[BASIC])
    assert not diagnostics.problems
    assert "All 3 tests pass." in [e.text for e in events]
    [spawn] = [e for e in events if e.kind == "subagent"]
    assert "child_id" not in spawn.extra or spawn.extra["child_id"] is None


def test_subagent_spawns_link_their_named_child_and_a_continued_one_shows_once(
    tmp_path: Path,
) -> None:
    """2.x `subagent` (packages/core/src/tool/plugin/subagent.ts): input `{agent,
    description, prompt, sessionID?, background?}`, and once it runs `metadata {sessionID,
    status}`. Two children here, the spawn of the newer one first: each spawn shows the
    child it names (not the oldest unclaimed one), with its agent type; a spawn that
    continues a child names it in its input and does not show the child twice. A tool
    still streaming its input has no result yet; a `!` command that exited 1, timed out
    or was killed failed; an attachment is shown by name, never as its data URI."""
    home = tmp_path / "home"
    db = database_v2(home / ".local/share/opencode")
    second = "ses_f2b662462ffe5m3IWk5lDCkJE0"
    add_session(db, second, "Review the API (@review subagent)", parent=NATIVE)
    add_rows(db, second, [
        ("msg_du", "user", {"time": {"created": T0 + 2520},
                            "text": "You are a subagent spawned by another session.\nreview api"}),
        ("msg_da", "assistant", assistant(T0 + 2530, [{"type": "text", "text": "api ok"}],
                                          finish="stop", tokens=tokens(100, 5))),
    ])  # fmt: skip
    spawn = {"type": "tool", "id": "call_9", "name": "subagent", "state": {
        "status": "completed", "metadata": {"sessionID": second, "status": "completed"},
        "input": {"agent": "review", "description": "Review the API", "prompt": "review api"},
        "content": [{"type": "text", "text": "api ok"}]}}  # fmt: skip
    again = {"type": "tool", "id": "call_10", "name": "subagent", "state": {
        "status": "completed", "metadata": {"sessionID": second, "status": "completed"},
        "input": {"agent": "review", "description": "Review again", "prompt": "and now?",
                  "sessionID": second},
        "content": [{"type": "text", "text": "still ok"}]}}  # fmt: skip
    streaming = {"type": "tool", "id": "call_11", "name": "write",
                 "state": {"status": "streaming", "input": '{"filePath": "/x'}}  # fmt: skip
    add_rows(db, NATIVE, [
        ("msg_a4", "assistant", assistant(T0 + 2000, [spawn, again, streaming])),
        ("msg_u9", "user", {"time": {"created": T0 + 3000}, "text": "see this",
                            "files": [{"uri": "data:image/png;base64," + "A" * 4000,
                                       "mime": "image/png", "name": "screen.png"},
                                      {"uri": "file:///work/proj/notes.md", "mime": "text/markdown"}]}),
        ("msg_s1", "shell", {"time": {"created": T0 + 3100}, "command": "false",
                             "status": "exited", "exit": 1, "output": {"output": ""}}),
        ("msg_s2", "shell", {"time": {"created": T0 + 3200}, "command": "sleep 999",
                             "status": "timeout", "output": {"output": "…"}}),
    ])  # fmt: skip
    db.commit()
    events, diagnostics = read(sessions(home)[NATIVE])
    assert not diagnostics.problems
    spawns = {e.call_id: e.extra for e in events if e.kind == "subagent"}
    assert spawns["call_9"] == {"child_id": second, "agent_type": "review"}
    assert spawns["call_10"]["child_id"] == second
    assert spawns["call_2"]["child_id"] == CHILD  # unnamed: the child left unclaimed
    said = [e.text for e in events if e.agent_id == second and e.kind == "user"]
    assert said == ["You are a subagent spawned by another session.\nreview api"]
    assert not [e for e in events if e.kind == "tool_result" and e.call_id == "call_11"]
    attached = [e.text for e in events if e.kind == "user" and e.agent_id is None]
    # named as 1.x names a prompt's file, its mime too; before, `[file screen.png]`
    assert attached[-2:] == [
        "[file screen.png, image/png]",
        "[file notes.md, text/markdown]",
    ]
    shell = [
        e.is_error for e in events if e.kind == "tool_result" and e.tool == "shell"
    ]
    assert shell == [False, True, True]  # git status exited 0; false; the timeout


def test_a_turn_the_user_stopped_is_an_interruption(tmp_path: Path) -> None:
    """2.x ends a turn the user stopped with an `idle` row whose outcome is
    `interrupted` or `cancelled`: the live board says interrupted, not turn ended."""
    home = tmp_path / "home"
    db = database_v2(home / ".local/share/opencode")
    add_rows(db, NATIVE, [
        ("msg_u9", "user", {"time": {"created": T0 + 2000}, "text": "and the docs"}),
        ("msg_i9", "idle", {"time": {"created": T0 + 2100}, "outcome": "cancelled"}),
    ])  # fmt: skip
    db.commit()
    events, _ = read(sessions(home)[NATIVE])
    last = [e for e in events if e.agent_id is None][-1]
    assert (last.kind, last.extra) == (
        "turn_end",
        {"reason": "interrupted", "interrupted": True},
    )


def test_a_fallback_notice_in_the_answer_is_not_the_models_text(tmp_path: Path) -> None:
    """2.x puts a model-fallback notice in the assistant's content (`fallbackNotice`), as
    it does synthetic text (message.ts): the harness's words, not the model's."""
    home = tmp_path / "home"
    db = database_v2(home / ".local/share/opencode")
    add_rows(db, NATIVE, [
        ("msg_u9", "user", {"time": {"created": T0 + 2000}, "text": "and the docs"}),
        ("msg_a9", "assistant", assistant(T0 + 2100, [
            {"type": "text", "id": "n1", "text": "Switched to claude-haiku-4-5", "fallbackNotice": "switch"},
            {"type": "text", "id": "t9", "text": "The docs are fine."},
        ], finish="stop")),
    ])  # fmt: skip
    db.commit()
    events, _ = read(sessions(home)[NATIVE])
    said = [
        (e.kind, e.text)
        for e in events
        if e.time and e.time.timestamp() * 1000 >= T0 + 2100
    ]
    assert ("meta", "Switched to claude-haiku-4-5") in said
    assert [t for k, t in said if k == "assistant"] == ["The docs are fine."]


def test_a_fork_in_the_1x_session_table_bills_only_its_own_calls(
    tmp_path: Path,
) -> None:
    """anomalyco/opencode's packages/core/src/session/sql.ts (@02ce4a33) keeps the fork
    link in the `session` table itself (`fork_session_id`, `fork_message_id`) beside
    `session_message` rows, with no `session_v2`: a fork's copies are still billed to
    its source only, and a spawn naming no child finds it among the `session` rows."""
    folder = tmp_path / "home" / ".local/share/opencode"
    folder.mkdir(parents=True)
    shutil.copy(DB, folder / "opencode.db")
    db = sqlite3.connect(folder / "opencode.db")
    db.execute("ALTER TABLE session ADD COLUMN fork_session_id text")
    db.execute("ALTER TABLE session ADD COLUMN fork_message_id text")
    (project,) = db.execute("SELECT project_id FROM session LIMIT 1").fetchone()
    for session_id, title, fork, parent in (
        (NATIVE, "run the tests", None, None),
        (CHILD, "Check the docs (@general subagent)", None, NATIVE),
        (FORK, "run the tests (fork #1)", NATIVE, None),
    ):
        db.execute(
            "INSERT INTO session (id, project_id, parent_id, fork_session_id, slug, "
            "directory, title, version, agent, model, time_created, time_updated) "
            "VALUES (?, ?, ?, ?, 'slug', '/work/proj', ?, '1.19.0', 'build', ?, ?, ?)",
            (
                session_id,
                project,
                parent,
                fork,
                title,
                json.dumps(MODEL),
                T0,
                T0 + 9000,
            ),
        )
    add_rows(db, NATIVE, NATIVE_ROWS[:3])
    add_rows(db, CHILD, CHILD_ROWS)
    copies = [
        (f"msg_evt_{n}", kind, data)
        for n, (_, kind, data) in enumerate(NATIVE_ROWS[:3])
    ]
    add_rows(db, FORK, copies)
    add_rows(db, FORK, [
        ("msg_fu", "user", {"time": {"created": T0 + 5000}, "text": "after the fork"}),
        ("msg_fa", "assistant", assistant(T0 + 5100, [{"type": "text", "text": "ok"}],
                                          finish="stop", tokens=tokens(50, 2))),
    ])  # fmt: skip
    db.commit()
    found = sessions(tmp_path / "home")
    assert found[FORK].extra["forked_from_id"] == NATIVE
    events, diagnostics = read(found[FORK])
    assert not diagnostics.problems
    said = [e.text for e in events if e.kind == "user" and e.agent_id is None]
    assert said == ["run the tests", "after the fork"]
    billed = [e.usage.input_tokens for e in events if e.usage and e.agent_id is None]
    assert billed == [50]  # the copied calls are billed to the session they came from
    [spawn] = [e for e in read(found[NATIVE])[0] if e.kind == "subagent"]
    assert spawn.extra["child_id"] == CHILD


def test_a_compaction_keeps_the_cost_opencode_recorded(tmp_path: Path) -> None:
    """A completed compaction row carries its request's `model`, `cost` and `tokens`
    (anomalyco/opencode packages/schema/src/session-message.ts @0ceb3dd5): its usage keeps
    the provider and cost, as an assistant row's does, for a model no price list knows."""
    home = tmp_path / "home"
    db = database_v2(home / ".local/share/opencode")
    add_rows(db, NATIVE, [
        ("msg_c2", "compaction", {"time": {"created": T0 + 2000}, "status": "completed",
                                  "reason": "auto", "summary": "short", "recent": "",
                                  "model": {"id": "in-house-9", "providerID": "acme"},
                                  "cost": 0.0125, "tokens": tokens(300, 60)}),
    ])  # fmt: skip
    db.commit()
    events, _ = read(sessions(home)[NATIVE])
    [usage] = [
        e for e in events if e.usage is not None and e.usage.model == "in-house-9"
    ]
    assert usage.extra == {"provider": "acme", "cost_usd": 0.0125}


def test_an_automatic_compaction_row_says_the_context_was_full(tmp_path: Path) -> None:
    """OpenCode 2.x compacts on its own (`reason: auto`) only when the context is full:
    its estimate reached the model's limit, or the provider refused the request as too
    long (anomalyco/opencode packages/core/src/session/runner/llm.ts, `required` and
    `recoverOverflow`). Its note said "compacted automatically" alone, where a 1.x
    compaction of a full context says "the context being full": the same words now."""
    home = tmp_path / "home"
    db = database_v2(home / ".local/share/opencode")
    add_rows(db, NATIVE, [
        ("msg_u5", "user", {"time": {"created": T0 + 1600}, "text": "now the docs"}),
        ("msg_a5", "assistant", assistant(T0 + 1700, [{"type": "text", "text": "Done."}],
                                          finish="stop")),
        ("msg_c5", "compaction", {"time": {"created": T0 + 1800}, "status": "completed",
                                  "reason": "auto", "summary": "## Objective\ndocs",
                                  "recent": "[User]: now the docs\n\n[Assistant]: Done."}),
    ])  # fmt: skip
    db.commit()
    events, _ = read(sessions(home)[NATIVE])
    notes = [e.text for e in events if e.extra.get("compaction") is True]
    assert notes == [
        "compacted automatically, the context being full: 1 message summarized, 2 kept "
        'as they were, from the prompt "now the docs"',
    ]


def test_a_session_message_table_that_is_a_view_is_read_as_the_table_is(
    tmp_path: Path,
) -> None:
    """2.x rows in a view (no rowid for blob IO) read by their ids: the same events, the
    same title; before, every row was an empty object and the session said nothing."""
    home = tmp_path / "home"
    database_v2(home / ".local/share/opencode").commit()
    expected = [(e.kind, e.text, e.call_id) for e in read(sessions(home)[NATIVE])[0]]
    tables_as_views(home / ".local/share/opencode/opencode.db", "session_message")
    found = sessions(home)
    assert found[NATIVE].title == "run the tests"
    events, diagnostics = read(found[NATIVE])
    assert [(e.kind, e.text, e.call_id) for e in events] == expected
    assert not diagnostics.skipped_total


def test_a_file_in_a_tool_results_content_is_named_after_its_text(
    tmp_path: Path,
) -> None:
    """2.x keeps what a tool gave the model as `content` items, `{type: file, uri, mime,
    name}` beside the text ones (Tool.FileContent): named, never the data: URI."""
    home = tmp_path / "home"
    db = database_v2(home / ".local/share/opencode")
    add_rows(db, NATIVE, [
        ("msg_a4", "assistant", assistant(T0 + 1600, [
            {"type": "tool", "id": "call_4", "name": "read", "state": {
                "status": "completed", "input": {"filePath": "/work/proj/shot.png"},
                "content": [
                    {"type": "text", "text": "Image read successfully"},
                    {"type": "file", "uri": "data:image/png;base64,iVBORw0KGgo=",
                     "mime": "image/png", "name": "shot.png"},
                ]}},
        ], finish="tool-calls")),
    ])  # fmt: skip
    db.commit()
    events, _ = read(sessions(home)[NATIVE])
    [result] = [e for e in events if e.kind == "tool_result" and e.call_id == "call_4"]
    assert result.text == "Image read successfully\n[file shot.png, image/png]"


def _rows_work(tmp_path: Path, more: int) -> tuple[int, int]:
    """SQLite's steps (thousands of VM instructions) to read NATIVE with `more` user rows
    more, `session_message` a view over a copy with no key or index; and its events."""
    home = tmp_path / f"home-{more}"
    db = database_v2(home / ".local/share/opencode")
    add_rows(db, NATIVE, [
        (f"msg_m{n:06d}", "user", {"time": {"created": T0 + 2000 + n}, "text": f"line {n}"})
        for n in range(more)
    ])  # fmt: skip
    db.execute("CREATE TABLE session_message_copy AS SELECT * FROM session_message")
    db.execute("DROP TABLE session_message")
    db.execute("CREATE VIEW session_message AS SELECT * FROM session_message_copy")
    db.commit()
    db.close()
    session = sessions(home)[NATIVE]
    steps = [0]
    opened = databases.open_or_say

    def counted(*args: object, **options: object) -> sqlite3.Connection | None:
        connection = opened(*args, **options)  # type: ignore[arg-type]
        if connection is not None:
            connection.set_progress_handler(
                lambda: steps.__setitem__(0, steps[0] + 1), 1000
            )
        return connection

    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(databases, "open_or_say", counted)
        events, _ = read(session)
    return steps[0], len(events)


def test_rows_in_an_unindexed_view_are_read_in_one_pass(tmp_path: Path) -> None:
    """2.x rows in a view over a table with no index: each row's data comes with the
    query listing them, so four times the rows cost about four times the work; before,
    each row was looked up by its id, a scan of the view each (16 times the work)."""
    small, small_events = _rows_work(tmp_path, 500)
    large, large_events = _rows_work(tmp_path, 2000)
    assert large_events - small_events == 1500
    assert large < 6 * small, (small, large)


def _untitled_work(tmp_path: Path, count: int) -> tuple[int, dict[str, str | None]]:
    """SQLite's steps (thousands of VM instructions) to list `count` more 2.x sessions
    not titled yet (a prompt and an answer each), `session_message` a view over a copy
    with no key or index; and their titles."""
    home = tmp_path / f"untitled-{count}"
    folder = home / ".local/share/opencode"
    db = database_v2(folder)
    for n in range(count):
        add_session(db, f"ses_u{n:06d}", None)
        add_rows(db, f"ses_u{n:06d}", [
            (f"msg_u{n:06d}", "user", {"time": {"created": T0 + 2 * n}, "text": f"ask {n}"}),
            (f"msg_a{n:06d}", "assistant", assistant(T0 + 2 * n + 1, [], finish="stop")),
        ])  # fmt: skip
    db.execute("CREATE TABLE session_message_copy AS SELECT * FROM session_message")
    db.execute("DROP TABLE session_message")
    db.execute("CREATE VIEW session_message AS SELECT * FROM session_message_copy")
    db.commit()
    db.close()
    steps = [0]
    opened = databases.open_or_say

    def counted(*args: object, **options: object) -> sqlite3.Connection | None:
        connection = opened(*args, **options)  # type: ignore[arg-type]
        if connection is not None:
            connection.set_progress_handler(
                lambda: steps.__setitem__(0, steps[0] + 1), 1000
            )
        return connection

    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(databases, "open_or_say", counted)
        listed = opencode.parse_database(folder / "opencode.db", Diagnostics())
    return steps[0], {s.id: s.title for s in listed if s.id.startswith("ses_u")}


def test_untitled_sessions_in_an_unindexed_view_are_listed_in_one_pass(
    tmp_path: Path,
) -> None:
    """2.x sessions not titled yet are listed by their first prompt, read for them all
    in one pass over a `session_message` view without an index: four times the sessions
    cost about four times the work; before, each one's prompt was looked up by its id,
    a scan of the view each (16 times the work)."""
    small, small_titles = _untitled_work(tmp_path, 150)
    large, large_titles = _untitled_work(tmp_path, 600)
    assert large_titles == {f"ses_u{n:06d}": f"ask {n}" for n in range(600)}
    assert len(small_titles) == 150
    assert large < 6 * small, (small, large)


def test_an_odd_token_count_in_a_row_is_said(tmp_path: Path) -> None:
    """A count no app writes (text "55") is damage, said where its row is; the row's
    other counts still bill."""
    home = tmp_path / "home"
    db = database_v2(home / ".local/share/opencode")
    db.execute(
        "UPDATE session_message SET data = json_set(data, '$.tokens.output', '55') "
        "WHERE id = 'msg_a2'"
    )
    db.commit()
    (rowid,) = db.execute(
        "SELECT rowid FROM session_message WHERE id = 'msg_a2'"
    ).fetchone()
    events, diagnostics = read(sessions(home, Diagnostics())[NATIVE])
    assert diagnostics.damaged == {odd_in("response"): 1}
    [(where, _, _)] = diagnostics.details
    assert where.endswith(f"opencode.db#session_message/{rowid}")
    billed = sum(e.usage.input_tokens for e in events if e.usage and not e.agent_id)
    assert billed == 1905


def test_a_compaction_row_says_who_started_it_and_what_it_kept(tmp_path: Path) -> None:
    """A 2.x `compaction` row gives `reason` (auto or manual) and its kept tail as text
    (`recent`, from a prompt: "[User]: …"; anomalyco/opencode packages/core/src/session/
    compaction.ts): its note counts as a 1.x one's, the prompt found by its text; the row
    is one compaction, holding its summary."""
    home = tmp_path / "home"
    db = database_v2(home / ".local/share/opencode")
    add_rows(db, NATIVE, [
        ("msg_u5", "user", {"time": {"created": T0 + 1600}, "text": "now the docs"}),
        ("msg_a5", "assistant", assistant(T0 + 1700, [{"type": "text", "text": "Done."}],
                                          finish="stop")),
        ("msg_c5", "compaction", {"time": {"created": T0 + 1800}, "status": "completed",
                                  "reason": "manual", "summary": "## Objective\ndocs",
                                  "recent": "[User]: now the docs\n\n[Assistant]: Done."}),
    ])  # fmt: skip
    db.commit()
    events, _ = read(sessions(home)[NATIVE])
    notes = [e.text for e in events if e.extra.get("compaction") is True]
    # the first compaction gives neither `reason` nor `recent`: no note
    assert notes == [
        "compacted on request: 1 message summarized, 2 kept as they were, from the "
        'prompt "now the docs"',
    ]  # msg_a3 (an error, after the first) is summarized
    compactions = [e for e in events if e.kind == "compaction"]
    assert [(e.text, e.extra) for e in compactions] == [
        ("## Objective\nkeep tests green", {}),
        ("## Objective\ndocs", {"auto": False}),
    ]
