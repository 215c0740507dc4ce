"""Warp quirks: one warp.sqlite (WAL while Warp runs) that also holds secrets, queries in
`ai_queries`, titles in `agent_conversations.summary`, answers and tool calls in
`agent_tasks` protobuf, the commands the agent ran in `blocks`, no command to resume."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import sqlite3
from pathlib import Path
from types import ModuleType

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Session, merge
from sessdex.sources import Home, _warp_read, warp
from sessdex.views.diffs import change_counts
from tests.helpers import cli_over, tables_as_views

DATA = Path(__file__).parent.parent / "data" / "warp"
HOME = DATA / "home"
DB = Path(".local/state/warp-terminal/warp.sqlite")
SHOP = "e05f25f4-4e57-411a-b126-f4c9ebca6781"
BLOG = "7a1c9e20-3b4d-4f5e-8a6b-1c2d3e4f5a6b"
LEGACY = "3c2b1a09-8f7e-4d6c-9b5a-0a1b2c3d4e5f"
DIFF = "9d8c7b6a-5e4f-4a3b-8c2d-1e0f9a8b7c6d"
SECRETS = ("mcp_environment_variables", "current_user_information")
FAKE_KEY = "sk-FAKE-warp-fixture-key-never-read"


def sessions(
    home: Path = HOME, diagnostics: Diagnostics | None = None
) -> dict[str, Session]:
    diagnostics = diagnostics if diagnostics is not None else Diagnostics()
    location = warp.locate(Home.at(home))
    fragments: dict[str, list[Session]] = {}
    for path in warp.scan(location):
        for session in warp.parse(path, location, diagnostics):
            fragments.setdefault(session.id, []).append(session)
    return {key: merge(parts) for key, parts in fragments.items()}


def events(session: Session) -> list[Event]:
    diagnostics = Diagnostics()
    found = list(warp.read(session, diagnostics))
    assert not diagnostics.skipped_total and not diagnostics.unknown
    assert not diagnostics.problems
    return found


def copy(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    return home


def test_titles_come_from_the_summary_else_the_first_query() -> None:
    found = sessions()
    assert found[SHOP].title == "Fix failing checkout tests"  # summary's title
    assert found[BLOG].title == "List the drafts"  # no summary: the first query
    assert found[LEGACY].title == "Rename the config loader"  # empty title: its query
    assert found[LEGACY].cwd == "/home/alex/code/tools"  # summary's folder
    assert found[SHOP].extra["exchanges"] == 2


def test_an_automatic_code_diff_conversation_is_not_listed() -> None:
    assert DIFF not in sessions()  # Warp hides it from its own list too


def test_a_conversation_reads_in_order_with_answers_calls_and_turn_ends() -> None:
    found = events(sessions()[SHOP])
    assert [(e.kind, e.text) for e in found if e.kind != "tool_result"][:6] == [
        ("user", "Why do the checkout tests fail?"),
        ("thinking", "Run the tests first."),
        ("assistant", "Let me run the test suite."),
        ("tool_call", None),
        ("assistant", "The discount is applied twice."),
        ("turn_end", None),
    ]
    kinds = [e.kind for e in found]
    # the second exchange: its query (its own row's; the task's copy left out), then its
    # call, answer and the failure Warp recorded for it
    second = kinds[kinds.index("turn_end") + 1 :]
    assert second == [
        "user",
        "tool_call",
        "tool_result",
        "assistant",
        "error",
        "usage",
        "meta",
    ]
    assert found[kinds.index("turn_end") + 1].text == "Then fix it and run them again."
    times = [e.time for e in found if e.time is not None]
    assert times == sorted(times)


def test_a_command_the_agent_ran_pairs_with_its_block() -> None:
    found = events(sessions()[SHOP])
    calls = [e for e in found if e.kind == "tool_call"]
    results = [e for e in found if e.kind == "tool_result"]
    assert [c.call_id for c in calls] == ["toolu_01", "toolu_02"]
    assert [r.call_id for r in results] == ["toolu_01", "toolu_02"]
    assert calls[0].extra["input"] == {"command": "pytest -q tests/test_checkout.py"}
    # the block's output, its terminal colours gone; its exit code makes the error
    assert results[0].text == "F.\n1 failed, 1 passed" and results[0].is_error
    assert results[1].text == "..\n2 passed" and not results[1].is_error
    assert all(e.extra["input"] != {"command": "ls"} for e in calls)  # the user's own


def test_without_tasks_the_blocks_are_the_calls_and_a_cancel_is_an_interruption() -> (
    None
):
    found = events(sessions()[BLOG])
    assert [e.kind for e in found] == [
        "user", "tool_call", "tool_result", "turn_end", "user", "meta", "turn_end",
    ]  # fmt: skip
    assert found[4].text == "Open the first one"
    assert found[1].extra["input"] == {"command": "ls drafts"}
    assert found[1].call_id == found[2].call_id == "toolu_03"
    assert found[-1].extra.get("interrupted") is True


def test_warps_token_count_is_said_never_made_into_input_and_output() -> None:
    found = events(sessions()[SHOP])
    # no token split: the conversation's credits, once, are its only usage
    (billed,) = [e.usage for e in found if e.kind == "usage" and e.usage is not None]
    assert (billed.total, billed.credits) == (0, 12.5)
    meta = found[-1]
    assert meta.kind == "meta" and "12.5 credits spent" in (meta.text or "")
    assert meta.extra["token_usage"] == [
        {"model": "claude 4.5 sonnet", "warp_tokens": 42000, "byok_tokens": 0}
    ]


def older(home: Path) -> Path:
    """The fixture as an older Warp left it: no `summary`, no model ids, blocks with no
    times, and a sub-agent: each query the reader makes of it takes another form."""
    db = sqlite3.connect(home / DB)
    for table, column in (("agent_conversations", "summary"), ("ai_queries", "model_id"),
                          ("blocks", "start_ts"), ("blocks", "completed_ts")):  # fmt: skip
        db.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    db.execute(
        "INSERT INTO agent_conversations (conversation_id, conversation_data) VALUES "
        "('child', ?)",
        (json.dumps({"parent_conversation_id": SHOP}),),
    )
    db.commit()
    db.close()
    return home


@pytest.mark.parametrize("kind", ["fixture", "malformed", "older", "tools"])
def test_the_secret_tables_are_never_read(tmp_path: Path, kind: str) -> None:
    # every path the reader takes (listing, reading in part and in full, damaged rows,
    # an older schema, every kind of task message) queries only its own tables
    if kind == "malformed":
        home = tmp_path / "home"
        shutil.copytree(DATA / "malformed" / "home", home)
    else:
        home = copy(tmp_path)
    if kind == "older":
        older(home)
    if kind == "tools":
        add_task(home, BLOG, tools_task())
    statements: list[str] = []
    opened = warp.databases.open_sqlite

    def traced(path: str | os.PathLike[str], login: bool = False) -> sqlite3.Connection:
        connection = opened(path, login=login)
        connection.set_trace_callback(statements.append)
        return connection

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(warp.databases, "open_sqlite", traced)
        for session in sessions(home).values():
            list(warp.read(session, Diagnostics()))
            list(warp.read(session, Diagnostics(), full=True))
    assert statements
    assert not any(table in sql for sql in statements for table in SECRETS)
    assert not any(
        re.search(r"select\s+\*|sqlite_master", sql, re.I) for sql in statements
    )
    read = {
        m
        for sql in statements
        for m in re.findall(r"\b(?:from|join)\s+(\w+)", sql, re.I)
    }
    assert read <= set(warp.TABLES), read
    if kind == "older":
        assert "summary" not in " ".join(statements)
    # the fake key is there to be found, by this test only
    db = sqlite3.connect(home / DB)
    assert (
        FAKE_KEY
        in db.execute(
            "SELECT environment_variables FROM mcp_environment_variables"
        ).fetchone()[0]
    )
    db.close()


def test_listing_reads_no_task_and_no_block(tmp_path: Path) -> None:
    home = copy(tmp_path)
    statements: list[str] = []
    opened = warp.databases.open_sqlite

    def traced(path: str | os.PathLike[str], login: bool = False) -> sqlite3.Connection:
        connection = opened(path, login=login)
        connection.set_trace_callback(statements.append)
        return connection

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(warp.databases, "open_sqlite", traced)
        sessions(home)
    assert statements
    assert not any("agent_tasks" in sql or "blocks" in sql for sql in statements)


def test_newest_rows_in_the_wal_are_listed_and_nothing_is_written(
    tmp_path: Path,
) -> None:
    home = copy(tmp_path)
    folder = (home / DB).parent
    writer = sqlite3.connect(home / DB)
    try:
        writer.execute("PRAGMA journal_mode=WAL")
        writer.execute("PRAGMA wal_autocheckpoint=0")
        writer.execute(
            "INSERT INTO ai_queries (exchange_id, conversation_id, start_ts, input, "
            "working_directory, output_status, model_id) VALUES ('w1', 'wal-1', "
            "'2026-12-02 08:00:00', ?, '/home/alex/code/new', '\"Completed\"', 'm')",
            (json.dumps([{"Query": {"text": "Only in the WAL", "context": []}}]),),
        )
        writer.commit()
        assert (folder / "warp.sqlite-wal").stat().st_size > 0
        before = {
            p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.iterdir()
        }
        found = sessions(home)
        assert found["wal-1"].title == "Only in the WAL"
        assert found["wal-1"].cwd == "/home/alex/code/new"
        assert [e.kind for e in events(found["wal-1"])] == ["user", "turn_end"]
        assert SHOP in found
        after = {
            p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.iterdir()
        }
        assert after == before
    finally:
        writer.close()


def test_resume_gives_no_command_and_says_how_to_get_back(tmp_path: Path) -> None:
    found = sessions()
    assert all(warp.resume(s) is None for s in found.values())
    said = warp.resume_refusal(found[SHOP])
    assert said is not None
    assert "no command" in said and "conversation list" in said
    assert "/home/alex/code/shop-api" in said and '"Fix failing checkout tests"' in said
    result = CliRunner().invoke(
        main, ["resume", SHOP[:8], "--home", str(copy(tmp_path))]
    )
    assert result.exit_code == 1
    assert "conversation list" in result.stderr
    assert "warp " not in result.stdout


def test_unknown_and_damaged_shapes_are_counted_for_doctor() -> None:
    diagnostics = Diagnostics()
    found = sessions(DATA / "malformed" / "home", diagnostics)
    for session in found.values():
        list(warp.read(session, diagnostics))
    assert diagnostics.unknown["output_status:Exploded"] == 1
    assert diagnostics.unknown["task message field 99"] == 1
    reasons = {
        (path.rsplit("#", 1)[-1], reason) for path, _, reason in diagnostics.details
    }
    assert ("agent_tasks/1", "truncated") in reasons
    assert ("blocks/1", "not JSON") in reasons
    assert ("ai_queries/1", "not JSON") in reasons


def test_a_missing_table_is_said(tmp_path: Path) -> None:
    home = copy(tmp_path)
    db = sqlite3.connect(home / DB)
    db.execute("DROP TABLE ai_queries")
    db.commit()
    db.close()
    diagnostics = Diagnostics()
    found = sessions(home, diagnostics)
    assert SHOP in found and BLOG not in found
    assert any("ai_queries" in problem for problem in diagnostics.problems)


def add_task(home: Path, conversation: str, blob: bytes) -> None:
    db = sqlite3.connect(home / DB)
    db.execute(
        "INSERT INTO agent_tasks (conversation_id, task_id, task) VALUES (?, 'big', ?)",
        (conversation, blob),
    )
    db.commit()
    db.close()


def generator() -> ModuleType:
    """The fixture generator, for its small protobuf writer."""
    spec = importlib.util.spec_from_file_location(
        "make_warp_db", DATA / "make_warp_db.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def answer_task(task_id: str, text: bytes) -> bytes:
    made = generator()
    answer: bytes = made.message(3, made.field(1, text), 0, "m")
    return bytes(made.task(task_id, "a task", answer))


def test_a_huge_answer_is_its_note_unless_read_in_full(tmp_path: Path) -> None:
    home = copy(tmp_path)
    answer = b"x" * (5 * 1024 * 1024)
    add_task(home, BLOG, answer_task("big", answer))
    session = sessions(home)[BLOG]
    shown = [e.text for e in warp.read(session, Diagnostics()) if e.kind == "assistant"]
    assert shown == ["[text, 5.0 MB]"]
    whole = [
        e.text
        for e in warp.read(session, Diagnostics(), full=True)
        if e.kind == "assistant"
    ]
    assert whole == [answer.decode()]


def test_tasks_past_the_reading_budget_are_counted_not_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = copy(tmp_path)
    for n in range(3):
        add_task(home, BLOG, answer_task(f"t{n}", b"a" * 4000))
    monkeypatch.setattr(_warp_read, "TASKS_BUDGET", 9000)
    diagnostics = Diagnostics()
    found = list(warp.read(sessions(home)[BLOG], diagnostics))
    assert len([e for e in found if e.kind == "assistant"]) == 2
    assert [reason for _, _, reason in diagnostics.details] == ["too long"]


def test_a_query_row_without_a_conversation_is_counted(tmp_path: Path) -> None:
    home = copy(tmp_path)
    db = sqlite3.connect(home / DB)
    db.execute("PRAGMA writable_schema = 0")
    db.execute(
        "CREATE TABLE q2 AS SELECT * FROM ai_queries"
    )  # the fixture's NOT NULL would refuse a NULL id: a table without it
    db.execute("DROP TABLE ai_queries")
    db.execute("ALTER TABLE q2 RENAME TO ai_queries")
    db.execute(
        "INSERT INTO ai_queries (id, exchange_id, conversation_id, start_ts, input, "
        "output_status) VALUES (99, 'x', NULL, '2025-01-01 00:00:00', '[]', '')"
    )
    db.commit()
    db.close()
    diagnostics = Diagnostics()
    found = sessions(home, diagnostics)
    assert SHOP in found
    assert [
        (path.rsplit("#", 1)[-1], reason) for path, _, reason in diagnostics.details
    ] == [("ai_queries", "bad value")]


def test_exchanges_go_by_their_time_whatever_its_text_form(tmp_path: Path) -> None:
    # "2025-12-01 10:01:00" sorts before "2025-12-01T10:00:00Z" as text, not as a time
    home = copy(tmp_path)
    db = sqlite3.connect(home / DB)
    db.execute(
        "UPDATE ai_queries SET start_ts = '2025-12-01T10:00:00Z' WHERE exchange_id = 'x1'"
    )
    db.commit()
    db.close()
    found = events(sessions(home)[SHOP])
    assert (
        found[0].kind == "user" and found[0].text == "Why do the checkout tests fail?"
    )
    assert [e.kind for e in found].count("turn_end") == 1
    times = [e.time for e in found if e.time is not None]
    assert times == sorted(times)


@pytest.mark.parametrize(
    "relative",
    [
        # Linux: $XDG_STATE_HOME/<package name> (warp_core paths_tests.rs: warp-terminal,
        # warp-terminal-dev, warp-oss), the TUI's database in its `tui` folder
        ".local/state/warp-terminal-dev/warp.sqlite",
        ".local/state/warp-terminal-local/warp.sqlite",
        ".local/state/warp-oss/warp.sqlite",
        ".local/state/warp-terminal/tui/warp.sqlite",
        # Windows: %LOCALAPPDATA%\warp\<app name>\data (ProjectDirs: warp\WarpDev)
        "AppData/Local/warp/WarpPreview/data/warp.sqlite",
        "AppData/Local/warp/WarpDev/data/warp.sqlite",
        "AppData/Local/warp/WarpOss/data/warp.sqlite",
        # macOS: the group container, else Application Support/<bundle id>
        "Library/Group Containers/2BBY89MBSN.dev.warp/Library/Application Support/"
        "dev.warp.Warp-Local/warp.sqlite",
        "Library/Application Support/dev.warp.Warp-Stable/warp.sqlite",
        "Library/Application Support/dev.warp.WarpOss/tui/warp.sqlite",
    ],
)
def test_every_channel_and_front_end_database_is_found(
    tmp_path: Path, relative: str
) -> None:
    home = tmp_path / "home"
    (home / relative).parent.mkdir(parents=True)
    shutil.copyfile(HOME / DB, home / relative)
    location = warp.locate(Home.at(home))
    assert list(warp.scan(location)) == [home / relative]
    assert SHOP in sessions(home)


CHILD = "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b"


def add_conversation(home: Path, conversation: str, data: dict[str, object]) -> None:
    db = sqlite3.connect(home / DB)
    db.execute(
        "INSERT INTO agent_conversations (conversation_id, conversation_data, "
        "last_modified_at, summary) VALUES (?, ?, '2025-12-01 10:02:00', ?)",
        (conversation, json.dumps(data), json.dumps({"title": "Run the linters"})),
    )
    db.commit()
    db.close()


def test_a_sub_agent_conversation_is_listed_under_its_lead(tmp_path: Path) -> None:
    # Warp's AgentConversationData: `parent_conversation_id`, the lead's own local id
    # (persistence/src/model.rs), and the name the orchestrator gave it
    home = copy(tmp_path)
    add_conversation(
        home,
        CHILD,
        {"server_conversation_token": "t", "parent_conversation_id": SHOP,
         "agent_name": "linter", "parent_agent_id": "run-1"},
    )  # fmt: skip
    add_conversation(
        home,
        "0e0e0e0e-0000-4000-8000-000000000001",
        {"parent_conversation_id": "1f1f1f1f-0000-4000-8000-000000000009"},
    )  # its lead is not in the database: listed on its own
    found = sessions(home)
    assert found[CHILD].parent_id == SHOP
    assert found[CHILD].extra.get("agent_name") == "linter"
    assert found[CHILD].title == "Run the linters"
    assert found["0e0e0e0e-0000-4000-8000-000000000001"].parent_id is None
    assert found[SHOP].parent_id is None


def set_usage(home: Path, usage: dict[str, object]) -> None:
    db = sqlite3.connect(home / DB)
    db.execute(
        "UPDATE agent_conversations SET conversation_data = ? WHERE conversation_id = ?",
        (json.dumps({"conversation_usage_metadata": usage}), SHOP),
    )
    db.commit()
    db.close()


def test_warps_charged_usage_is_the_sessions_input_and_output(tmp_path: Path) -> None:
    # ConversationUsageMetadata.total_charged_usage (persistence/src/model.rs): the whole
    # conversation's tokens by kind, cache apart, and what was charged, in cents
    home = copy(tmp_path)
    set_usage(
        home,
        {"credits_spent": 10.0, "platform_credits_spent": 2.5,
         "token_usage": [{"model_id": "claude-4-5-sonnet", "warp_tokens": 42000}],
         "total_charged_usage": {
             "input_cost_in_cents": 9.0, "output_cost_in_cents": 3.0,
             "input_cache_read_cost_in_cents": 0.5, "input_cache_write_cost_in_cents": 0.5,
             "platform_cost_in_cents": 1.0, "input_tokens": 30000, "output_tokens": 2000,
             "input_cache_read_tokens": 9000, "input_cache_write_tokens": 1000,
             "web_search_count": 0, "web_search_cost_in_cents": 0.0}},
    )  # fmt: skip
    found = events(sessions(home)[SHOP])
    usage = [e for e in found if e.kind == "usage"]
    assert len(usage) == 1 and usage[0].usage is not None
    counted = usage[0].usage
    assert (counted.input_tokens, counted.output_tokens) == (30000, 2000)
    assert (counted.cache_read_tokens, counted.cache_write_tokens) == (9000, 1000)
    assert counted.model == "claude-4-5-sonnet"
    assert usage[0].extra["scope"] == "session" and usage[0].extra["summed"] is True
    assert usage[0].extra["cost_usd"] == pytest.approx(0.14)
    assert counted.credits == 12.5  # Warp shows both kinds summed, on the one event


def test_older_and_custom_endpoint_token_counts_are_said(tmp_path: Path) -> None:
    home = copy(tmp_path)
    set_usage(
        home,
        {"token_usage": [{"model_id": "a", "total_tokens": 500},  # before warp_tokens
                         {"model_id": "b", "custom_endpoint_tokens": 70}]},
    )  # fmt: skip
    found = events(sessions(home)[SHOP])
    assert not [e for e in found if e.kind == "usage"]
    meta = [e for e in found if e.kind == "meta" and "token_usage" in e.extra]
    assert meta[0].extra["token_usage"] == [
        {"model": "a", "warp_tokens": 500},
        {"model": "b", "custom_endpoint_tokens": 70},
    ]


def tools_task() -> bytes:
    """Calls of several tools and their results, as task.proto numbers them."""
    m = generator()
    f = m.field

    def call(n: int, call_id: str, tool: int, body: bytes) -> bytes:
        return bytes(m.message(4, f(1, call_id) + f(tool, body), n, f"c{n}"))

    def done(n: int, call_id: str, result: int, body: bytes) -> bytes:
        return bytes(m.message(5, f(1, call_id) + f(result, body), n, f"r{n}"))

    grep = f(1, f(1, f(1, "src/app.py") + f(2, f(1, 3)) + f(2, f(1, 7))))
    mcp = f(1, f(1, f(1, f(1, "42 open issues"))))
    missing = f(2, f(1, "no such file: nope.py"))
    diff = f(1, "fix") + f(2, f(1, "src/app.py") + f(2, "a = 1") + f(3, "a = 2"))
    messages = [
        call(100, "g1", 9, f(1, "TODO") + f(2, "src")),
        done(101, "g1", 9, grep),
        call(102, "m1", 12, f(1, "list_issues")),
        done(103, "m1", 16, mcp),
        call(104, "r1", 5, f(1, f(1, "nope.py"))),
        done(105, "r1", 5, missing),
        call(106, "d1", 6, diff),
        done(107, "d1", 6, f(1, f(2, f(1, f(1, "src/app.py"))))),
        call(108, "s1", 2, f(1, "rm -rf /")),
        done(109, "s1", 2, f(3, "rm -rf /") + f(6, f(1, b""))),
        call(110, "s2", 2, f(1, "make")),
        done(111, "s2", 14, b""),
        call(112, "o1", 23, f(1, "cmd-1")),
        done(113, "o1", 27, f(1, "make") + f(3, f(1, "built") + f(3, "cmd-1"))),
        call(114, "a1", 29, f(1, "linter") + f(2, "Run the linters.")),  # start_agent
    ]
    return bytes(m.task("tools", "tools", *messages))


def test_each_tools_call_and_result_read_from_the_proto(tmp_path: Path) -> None:
    home = copy(tmp_path)
    add_task(home, BLOG, tools_task())
    found = events(sessions(home)[BLOG])
    calls = {e.call_id: e for e in found if e.kind == "tool_call"}
    results = {e.call_id: e for e in found if e.kind == "tool_result"}
    assert calls["g1"].tool == "grep"
    assert calls["g1"].extra["input"] == {"queries": ["TODO"], "path": "src"}
    assert results["g1"].text == "src/app.py: 3, 7" and not results["g1"].is_error
    assert results["g1"].tool == "grep"
    assert calls["m1"].extra["input"] == {"name": "list_issues"}
    assert results["m1"].text == "42 open issues"
    assert calls["r1"].extra["input"] == {"files": [{"name": "nope.py"}]}
    assert results["r1"].text == "no such file: nope.py" and results["r1"].is_error
    assert calls["d1"].extra["input"]["diffs"] == [
        {"file_path": "src/app.py", "search": "a = 1", "replace": "a = 2"}
    ]
    assert change_counts(calls["d1"].extra["input"]) == (1, 1)  # shown as a diff
    assert results["d1"].text == "updated src/app.py"
    assert results["s1"].text == "permission denied" and results["s1"].is_error
    assert results["s2"].text == "cancelled" and results["s2"].is_error
    assert (
        results["s2"].tool == "run_shell_command"
    )  # the call's tool, not the result's
    assert results["o1"].text == "built" and not results["o1"].is_error
    assert results["o1"].extra["exit_code"] == 0


def test_searches_skills_agents_messages_and_a_pending_request_are_known(
    tmp_path: Path,
) -> None:
    m = generator()
    f = m.field
    search = f(1, f(2, f(1, "sqlite wal") + f(2, f(1, "https://sqlite.org/wal.html"))))
    fetched = f(1, f(2, f(1, f(1, "https://example.com") + f(3, 1))))
    skill = f(2, f(1, "Review this branch"))  # InvokeSkill.user_query
    received = f(1, f(2, "agent-7") + f(4, "done") + f(5, "All 12 tests pass."))
    messages = [
        bytes(m.message(19, search, 200, "w1")),
        bytes(m.message(20, fetched, 201, "w2")),
        bytes(m.message(23, skill, 202, "k1")),
        bytes(m.message(16, f(3, b""), 203, "s1")),  # a tool result's summary
        bytes(m.message(24, received, 204, "a1")),
    ]
    home = copy(tmp_path)
    add_task(home, BLOG, bytes(m.task("more", "more", *messages)))
    db = sqlite3.connect(home / DB)
    db.execute(
        "UPDATE ai_queries SET output_status = '\"Pending\"' WHERE exchange_id = 'y2'"
    )
    db.commit()
    db.close()
    found = events(sessions(home)[BLOG])  # nothing unknown, nothing skipped
    searched = [e for e in found if e.tool == "web_search"]
    assert searched[0].kind == "tool_call"
    assert searched[0].extra["input"] == {"query": "sqlite wal"}
    assert searched[1].kind == "tool_result"
    assert searched[1].text == "https://sqlite.org/wal.html"
    fetches = [e for e in found if e.tool == "web_fetch"]
    assert fetches[1].text == "https://example.com"
    users = [e for e in found if e.kind == "user"]
    assert users[-2].text == "Review this branch"
    assert users[-1].text == "done\nAll 12 tests pass."
    assert users[-1].extra["from_agent"] == "agent-7"
    assert not [e for e in found if e.kind == "compaction"]
    assert [e.kind for e in found][-1] != "turn_end"  # still pending: no end


def test_a_summary_that_does_not_decode_is_still_a_compaction(tmp_path: Path) -> None:
    m = generator()
    torn = m.message(16, m.field(1, b"\x0a\xff\xff"), 5, "s")  # a length past its end
    home = copy(tmp_path)
    add_task(home, BLOG, bytes(m.task("torn", "torn", torn)))
    found = events(sessions(home)[BLOG])
    assert [e.text for e in found if e.kind == "compaction"] == [
        "conversation summarized"
    ]


def test_a_task_bigger_than_the_cap_is_read_message_by_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a long conversation's root task holds every message: past the cap it was lost whole
    m = generator()
    answers = [
        m.message(3, m.field(1, f"answer {n} " + "x" * 3000), n, f"m{n}")
        for n in range(4)
    ]
    huge = m.message(3, m.field(1, "y" * 9000), 9, "huge")
    home = copy(tmp_path)
    add_task(home, BLOG, bytes(m.task("long", "long", *answers, huge)))
    monkeypatch.setattr(_warp_read, "TASK_CAP", 5000)  # one message's cap now
    read: list[int] = []
    opened = warp.databases.open_sqlite

    class Blob:  # a blob that notes how much each read took
        def __init__(self, blob: sqlite3.Blob) -> None:
            self.blob = blob

        def __enter__(self) -> Blob:
            return self

        def __exit__(self, *_: object) -> None:
            self.blob.close()

        def __len__(self) -> int:
            return len(self.blob)

        def __getattr__(self, name: str) -> object:
            return getattr(self.blob, name)

        def read(self, length: int = -1) -> bytes:
            data = self.blob.read(length)
            read.append(len(data))
            return data

    class Connection:
        def __init__(self, connection: sqlite3.Connection) -> None:
            self.connection = connection

        def __getattr__(self, name: str) -> object:
            return getattr(self.connection, name)

        def blobopen(self, *args: object, **kwargs: object) -> Blob:
            return Blob(self.connection.blobopen(*args, **kwargs))  # type: ignore[arg-type]

    monkeypatch.setattr(
        warp.databases,
        "open_sqlite",
        lambda path, login=False: Connection(opened(path, login=login)),
    )
    diagnostics = Diagnostics()
    found = list(warp.read(sessions(home)[BLOG], diagnostics))
    shown = [e.text or "" for e in found if e.kind == "assistant"]
    assert [text.split(" ")[:2] for text in shown] == [
        ["answer", "0"], ["answer", "1"], ["answer", "2"], ["answer", "3"]
    ]  # fmt: skip
    assert [reason for _, _, reason in diagnostics.details] == [
        "too long"
    ]  # the huge one
    assert max(read) <= 5000  # never the whole task


def test_a_blocks_terminal_sequences_are_taken_out_whole(tmp_path: Path) -> None:
    # the terminal's own bytes: a charset switch (ESC ( B, which `tput sgr0` writes), keypad
    # modes, a device control string, C1 introducers: none leaves a remnant in the text
    home = copy(tmp_path)
    db = sqlite3.connect(home / DB)
    db.execute(
        "UPDATE blocks SET stylized_output = ? WHERE block_id = 'b3'",
        (
            b"one.md\x1b(B\x1b[m\x1b=\n\x1bP1$r0m\x1b\\two.md\x1b>"
            b"\x1b]8;;https://x\x1b\\three\x1b]8;;\x1b\\\xc2\x9b1m!",
        ),
    )
    db.commit()
    db.close()
    found = events(sessions(home)[BLOG])
    result = next(e for e in found if e.kind == "tool_result")
    assert result.text == "one.md\ntwo.mdthree!"


def test_a_sub_task_is_a_sub_agent_of_its_conversation(tmp_path: Path) -> None:
    # a `subagent` tool call names the sub-task (Task.id) whose messages Warp interleaves
    # there (app/src/ai/agent/linearization.rs); the sub-task's parent is its dependency
    m = generator()
    f = m.field
    spawn = f(1, "call-sub") + f(19, f(1, "sub-1") + f(2, "{}") + f(4, b""))
    lead = m.task(
        "lead", "lead",
        m.message(4, spawn, 300, "s1"),
        m.message(5, f(1, "call-sub") + f(23, f(1, "found three drafts")), 320, "s2"),
        m.message(3, f(1, "The researcher found three drafts."), 321, "s3"),
    )  # fmt: skip
    sub = (
        f(1, "sub-1") + f(2, "Find the drafts") + f(3, f(1, "lead"))
        + m.message(2, f(1, "Find the drafts in this repository."), 305, "x0")
        + m.message(3, f(1, "Three drafts in drafts/."), 310, "x1")
    )  # fmt: skip
    home = copy(tmp_path)
    add_task(home, BLOG, bytes(lead))
    db = sqlite3.connect(home / DB)
    db.execute(
        "INSERT INTO agent_tasks (conversation_id, task_id, task) VALUES (?, 'sub-1', ?)",
        (BLOG, bytes(sub)),
    )
    db.commit()
    db.close()
    found = events(sessions(home)[BLOG])
    spawned = [e for e in found if e.kind == "subagent"]
    assert len(spawned) == 1 and spawned[0].call_id == "call-sub"
    assert spawned[0].extra["child_id"] == "sub-1"
    assert spawned[0].extra["agent_type"] == "research"
    assert spawned[0].text == "Find the drafts"  # the sub-task's description
    handed = next(e for e in found if e.text == "Find the drafts in this repository.")
    assert handed.kind == "user" and handed.agent_id == "sub-1"
    assert handed.extra["from_agent"] == "the lead"  # not the person's own words
    said = {e.text: e.agent_id for e in found if e.kind == "assistant"}
    assert said["Three drafts in drafts/."] == "sub-1"
    assert said["The researcher found three drafts."] is None
    result = next(
        e for e in found if e.call_id == "call-sub" and e.kind == "tool_result"
    )
    assert result.text == "found three drafts" and result.tool == "subagent"


def test_a_command_a_sub_task_ran_is_the_sub_agents(tmp_path: Path) -> None:
    # SerializedAIMetadata's `subagent_task_id` (serialized_block.rs)
    home = copy(tmp_path)
    db = sqlite3.connect(home / DB)
    db.execute(
        "UPDATE blocks SET ai_metadata = ? WHERE block_id = 'b3'",
        (json.dumps({"requested_command_action_id": "toolu_03",
                     "conversation_id": BLOG, "subagent_task_id": "sub-9"}),),
    )  # fmt: skip
    db.commit()
    db.close()
    found = events(sessions(home)[BLOG])
    ran = [e for e in found if e.call_id == "toolu_03"]
    assert [e.kind for e in ran] == ["tool_call", "tool_result"]
    assert {e.agent_id for e in ran} == {"sub-9"}


def test_conversations_that_name_each_other_as_lead_are_listed_as_leads(
    tmp_path: Path,
) -> None:
    # a loop of leads (a damaged row) would hide every conversation in it from `list`;
    # Warp's own eviction takes a loop's members as roots (`select_conversations_to_evict`)
    home = copy(tmp_path)
    first, second = (
        "a0a0a0a0-0000-4000-8000-000000000001",
        "b0b0b0b0-0000-4000-8000-000000000002",
    )
    add_conversation(home, first, {"parent_conversation_id": second})
    add_conversation(home, second, {"parent_conversation_id": first})
    add_conversation(home, CHILD, {"parent_conversation_id": first})  # below the loop
    found = sessions(home)
    assert found[first].parent_id is None and found[second].parent_id is None
    assert found[CHILD].parent_id == first


def test_messages_with_no_time_follow_their_query(tmp_path: Path) -> None:
    # a task whose messages carry no timestamp (Message.timestamp left out): each answer
    # stays after the query the task puts it after, not all after the last query
    m = generator()
    f = m.field

    def bare(kind: int, text: str, ident: str) -> bytes:
        return bytes(f(5, f(1, ident) + f(kind, f(1, text))))

    home = copy(tmp_path)
    conversation = "c0c0c0c0-0000-4000-8000-000000000003"
    db = sqlite3.connect(home / DB)
    for exchange, start, text in (("q1", "2025-07-01 10:00:00", "First?"),
                                  ("q2", "2025-07-01 10:05:00", "Second?")):  # fmt: skip
        db.execute(
            "INSERT INTO ai_queries (exchange_id, conversation_id, start_ts, input, "
            "working_directory, output_status, model_id) VALUES (?, ?, ?, ?, '/w', "
            "'\"Completed\"', 'm')",
            (exchange, conversation, start, m.query(text, "/w")),
        )
    task = m.task(
        "t", "t", bare(2, "First?", "a"), bare(3, "One.", "b"),
        bare(2, "Second?", "c"), bare(3, "Two.", "d"),
    )  # fmt: skip
    db.execute(
        "INSERT INTO agent_tasks (conversation_id, task_id, task) VALUES (?, 't', ?)",
        (conversation, bytes(task)),
    )
    db.commit()
    db.close()
    found = events(sessions(home)[conversation])
    assert [(e.kind, e.text) for e in found] == [
        ("user", "First?"), ("assistant", "One."), ("turn_end", None),
        ("user", "Second?"), ("assistant", "Two."), ("turn_end", None),
    ]  # fmt: skip


def test_a_block_no_agent_action_asked_for_is_the_users_command(tmp_path: Path) -> None:
    # SerializedAIMetadata: `requested_command_action_id` is left out for a block of the
    # conversation that no agent action asked for: the user ran it
    home = copy(tmp_path)
    db = sqlite3.connect(home / DB)
    db.execute(
        "INSERT INTO blocks (stylized_command, stylized_output, exit_code, start_ts, "
        "completed_ts, block_id, ai_metadata) VALUES (?, ?, 0, ?, ?, 'b9', ?)",
        (b"git status", b"clean", "2025-06-10 09:15:30", "2025-06-10 09:15:31",
         json.dumps({"conversation_id": BLOG, "requested_command_action_id": None})),
    )  # fmt: skip
    db.commit()
    db.close()
    found = events(sessions(home)[BLOG])
    ran = [e for e in found if e.kind in ("tool_call", "tool_result")]
    assert [(e.kind, e.tool) for e in ran] == [
        ("tool_call", "run_shell_command"), ("tool_result", "run_shell_command"),
        ("tool_call", "user_command"), ("tool_result", "user_command"),
    ]  # fmt: skip
    assert ran[2].extra["input"] == {"command": "git status"}
    assert ran[3].text == "clean"


def test_a_lead_starting_an_agent_spawns_its_listed_conversation(
    tmp_path: Path,
) -> None:
    # StartAgent {name, prompt} (task.proto); the child conversation Warp makes keeps the
    # name as its `agent_name` and the lead as its `parent_conversation_id`
    m = generator()
    f = m.field
    start = f(1, "call-start") + f(29, f(1, "linter") + f(2, "Run the linters."))
    lead = m.task(
        "lead", "lead",
        m.message(4, start, 300, "s1"),
        m.message(5, f(1, "call-start") + f(33, f(1, f(1, "run-77"))), 301, "s2"),
    )  # fmt: skip
    home = copy(tmp_path)
    add_task(home, SHOP, bytes(lead))
    add_conversation(
        home, CHILD, {"parent_conversation_id": SHOP, "agent_name": "linter"}
    )
    found = events(sessions(home)[SHOP])
    spawned = [e for e in found if e.kind == "subagent"]
    assert len(spawned) == 1 and spawned[0].call_id == "call-start"
    assert spawned[0].extra["child_id"] == CHILD
    assert spawned[0].extra["agent_name"] == "linter"
    assert spawned[0].text == "Run the linters."
    result = next(
        e for e in found if e.kind == "tool_result" and e.call_id == "call-start"
    )
    assert result.extra.get("launched") is True  # it started; it ends on its own


def test_a_lead_and_its_sub_agents_credits_each_count_once(tmp_path: Path) -> None:
    # Warp totals an orchestration as the lead's credits_spent plus each descendant's
    # (usage/rollup.rs compute_orchestration_rollup): a lead's leaves its sub-agents' out
    from click.testing import CliRunner

    from sessdex.cli import main

    home = copy(tmp_path)
    set_usage(home, {"credits_spent": 10.0, "platform_credits_spent": 0.5})
    add_conversation(
        home,
        CHILD,
        {"parent_conversation_id": SHOP, "agent_name": "linter",
         "conversation_usage_metadata": {"credits_spent": 4.0}},
    )  # fmt: skip
    assert sessions(home)[CHILD].parent_id == SHOP
    result = CliRunner().invoke(
        main, ["usage", "app", "--json", "--app", "warp", "--home", str(home)]
    )
    assert result.exit_code == 0, result.output
    (row,) = json.loads(result.output)
    assert row["credits"] == {"warp": 14.5}
    # the lead's row holds its sub-agent's credits, and --explain lists where they come from
    result = CliRunner().invoke(
        main, ["usage", "session", "--json", "--app", "warp", "--home", str(home)]
    )
    rows = {r["key"]: r for r in json.loads(result.output)}
    assert rows[SHOP]["credits"] == {"warp": 14.5}, result.output
    result = CliRunner().invoke(
        main,
        ["usage", "session", "--app", "warp", "--home", str(home), "--explain", SHOP],
    )
    assert result.exit_code == 0, result.output
    assert "14.5" in result.output, result.output


def test_conversation_rows_that_share_one_id_are_counted(tmp_path: Path) -> None:
    # damage gave every agent_conversations row one id: the conversations are one now,
    # and those gone with it were gone without a word in doctor
    home = copy(tmp_path)
    db = sqlite3.connect(home / DB)
    rows = db.execute("SELECT count(*) FROM agent_conversations").fetchone()[0]
    db.execute("UPDATE agent_conversations SET conversation_id = '{'")
    db.commit()
    db.close()
    diagnostics = Diagnostics()
    found = sessions(home, diagnostics)
    assert LEGACY not in found and "{" in found
    assert diagnostics.skipped["repeated id"] == rows - 1
    assert (f"{home / DB}#agent_conversations", 0, "repeated id") in diagnostics.details


def test_tables_made_views_show_the_conversation_and_count_what_they_hide(
    tmp_path: Path,
) -> None:
    """A view's rows have no rowid (SQLite gives NULL) for blob IO to open: each task
    and block the views hide is counted as not read, never a crash."""
    home = copy(tmp_path)
    tables_as_views(home / DB, "agent_tasks", "blocks")
    assert SHOP in {
        row["id"]
        for row in json.loads(cli_over(home, "list", "--json", "--all").stdout)
    }
    assert cli_over(home, "show", SHOP).exit_code == 0
    doctor = cli_over(home, "doctor", "--deep", "--json", "--app", "warp")
    (app,) = json.loads(doctor.stdout)
    assert app["skipped_lines"] and not app["problems"], app


def test_a_conversation_of_many_exchanges_places_each_item_by_halving(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each item of a conversation goes in the window of the exchange it falls in:
    found by halving the exchanges' starts, not by looking at every one for each item
    (a conversation of 1,600 times the fixture's exchanges: show 3.3 s CPU where 200
    took 0.17 s, scripts/fuzz-homes.py --fanout); what each window holds is as ever."""
    from datetime import datetime

    from tests import fuzzing

    compared = [0]

    class Counted(datetime):
        def __lt__(self, other: object) -> bool:
            compared[0] += 1
            return super().__lt__(other)  # type: ignore[operator]

        def __le__(self, other: object) -> bool:
            compared[0] += 1
            return super().__le__(other)  # type: ignore[operator]

        __gt__ = lambda self, other: not Counted.__le__(self, other)  # noqa: E731
        __ge__ = lambda self, other: not Counted.__lt__(self, other)  # noqa: E731

    db_time = _warp_read.db_time

    def counted(value: object) -> datetime | None:
        found = db_time(value)
        return Counted.fromisoformat(found.isoformat()) if found else None

    home = copy(tmp_path)
    few = events(sessions(home)[SHOP])
    assert fuzzing._fan_rows(home / DB, SHOP, range(1, 301), messages=True)
    monkeypatch.setattr(_warp_read, "db_time", counted)
    found = events(sessions(home)[SHOP])
    assert len(found) > 100 * len([e for e in few if e.kind == "user"])
    exchanges = 301 * len([e for e in few if e.kind == "user"])
    assert compared[0] < 40 * len(found) + 40 * exchanges, (compared[0], len(found))


def test_the_conversations_of_a_database_of_many_are_read_with_a_scan_a_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A conversation's tasks, blocks and totals are found by its id, which no index
    leads with: each table scanned once for all the reads of a run, not once a read,
    which `usage` and `doctor --deep` make of each conversation (1,600 conversations:
    3.0 s CPU where 200 took 0.20 s, scripts/fuzz-homes.py --fanout)."""
    from sessdex import databases
    from tests import fuzzing

    home = copy(tmp_path)
    assert fuzzing._fan_rows(home / DB, SHOP, range(1, 301), messages=False)
    scans: list[str] = []
    opened = databases.open_or_say

    def traced(*args: object, **kwargs: object) -> sqlite3.Connection | None:
        connection = opened(*args, **kwargs)  # type: ignore[arg-type]
        if connection is not None:
            connection.set_trace_callback(
                lambda sql: (
                    scans.append(sql)
                    if re.search("FROM (agent_tasks|agent_conversations|blocks)", sql)
                    and "rowid =" not in sql
                    else None
                )
            )
        return connection

    monkeypatch.setattr(databases, "open_or_say", traced)
    chats = [s for s in sessions(home).values() if s.id.startswith(SHOP[:-5])]
    assert len(chats) == 301
    scans.clear()
    for chat in chats:
        found = events(chat)
        assert [e for e in found if e.kind == "user"]
        assert [e for e in found if e.kind == "usage"]
    assert len(scans) <= 3 * 2


def test_a_huge_block_metadata_of_another_conversation_is_never_held(
    tmp_path: Path,
) -> None:
    """The one scan of `blocks` for a run takes no block's metadata past the reading cap
    into memory: a 24 MB `ai_metadata` (a list of 12 million numbers) took 130 MB to read
    a conversation it is no part of (it was parsed, and kept for the run)."""
    import tracemalloc

    from sessdex import databases, files

    home = copy(tmp_path)
    huge = b"[" + b"0," * (6 * files.READ_LINE_CAP // 2) + b"0]"
    db = sqlite3.connect(home / DB)
    db.execute("INSERT INTO blocks (ai_metadata) VALUES (?)", (huge.decode(),))
    db.commit()
    db.close()
    chat = sessions(home)[SHOP]
    databases._SCANS.clear()
    tracemalloc.start()
    try:
        found = events(chat)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [e for e in found if e.kind == "tool_result"]
    assert peak < len(huge) // 2, peak


def test_a_huge_block_metadata_of_the_conversation_is_counted_too_long(
    tmp_path: Path,
) -> None:
    """A block of the conversation whose metadata passes the reading cap is counted
    (too long), not dropped unsaid."""
    from sessdex import files

    home = copy(tmp_path)
    pad = "0" * (files.READ_LINE_CAP + 1)
    db = sqlite3.connect(home / DB)
    db.execute(
        "INSERT INTO blocks (ai_metadata) VALUES (?)",
        (json.dumps({"conversation_id": SHOP, "pad": pad}),),
    )
    db.commit()
    db.close()
    diagnostics = Diagnostics()
    found = list(warp.read(sessions(home)[SHOP], diagnostics))
    assert [e for e in found if e.kind == "tool_result"]
    assert diagnostics.skipped_total == 1


@pytest.mark.parametrize("odd", ["12", -5, 1.5, True, 2**60])
def test_an_odd_charged_count_is_said_and_bills_0(odd: object, tmp_path: Path) -> None:
    # a count of `total_charged_usage` no app writes was billed as 0 without a word
    home = copy(tmp_path)
    set_usage(
        home,
        {"total_charged_usage": {"input_tokens": 30000, "output_tokens": odd}},
    )
    argv = ["usage", "session", "--json", "--verbose", "--app", "warp"]
    result = CliRunner().invoke(
        main, [*argv, "--home", str(home)], env={"SESSDEX_HOME": str(tmp_path / "s")}
    )
    assert result.exit_code == 0, result.output
    (row,) = [r for r in json.loads(result.stdout) if r["id"] == SHOP]
    assert (row["input_tokens"], row["output_tokens"]) == (30000, 0)
    assert "warning: read 1 set of totals with an odd token count" in result.stderr
    where = f"{home / DB}#agent_conversations:0: odd token count in a set of totals"
    assert where in result.stderr
