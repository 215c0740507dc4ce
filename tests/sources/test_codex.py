"""Codex CLI quirks: the state db (WAL, missing columns, titles), replayed parent history, usage, resume."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
import tomllib
from pathlib import Path

import pytest

from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Session, Usage, merge
from sessdex.sources import Home, codex
from tests.helpers import LIST_PATHS

DATA = Path(__file__).parent.parent / "data" / "codex"
HOME = DATA / "home"

BASIC = "01a22b81-5c00-7801-8b1e-2012418ca986"  # codex exec, then codex exec resume (0.171.0)
LEAD = "01a22b81-666a-7993-963b-4b7cc4e806e9"  # codex exec --enable multi_agent_v2
CHILD = "01a22b81-66cf-74d0-99b4-ed78fda80cf9"  # the sub-agent it spawned
TUI = "01a22b81-6e0b-7650-ac72-188ccaa967c5"  # the TUI, renamed twice
PARENT = "019b2ea4-1111-7000-8000-00000000a001"  # legacy-era thread with cached tokens
FORK = "019b2ea4-2222-7000-8000-00000000f002"  # its fork, which replays it
BARE = "5f0c2a9e-3b1d-4c8e-9f7a-2d4b6e8a0c13"  # the bare era: no envelope, no times
ZST = "019bd0a1-3333-7000-8000-0000000000c3"  # archived and compressed
TWIN = "019bd5f2-4444-7000-8000-0000000000d4"  # both x.jsonl and x.jsonl.zst
DOCUMENT = "6a1f0c3e-8b2d-4e5f-9a7b-1c2d3e4f5a6b"  # the TypeScript CLI's <id>.json
FIRST_DOCUMENT = "3c9e7d21-5f4a-4b8c-8d6e-0a1b2c3d4e5f"  # its rollout-<date>-<id>.json


def discover(home: Home, diagnostics: Diagnostics | None = None) -> dict[str, Session]:
    diagnostics = diagnostics if diagnostics is not None else Diagnostics()
    location = codex.locate(home)
    fragments: dict[str, list[Session]] = {}
    for path in codex.scan(location):
        for session in codex.parse(Path(path), location, diagnostics):
            fragments.setdefault(session.id, []).append(session)
    merged = {key: merge(parts) for key, parts in fragments.items()}
    return {key: s for key, s in merged.items() if s.listed}


@pytest.fixture(scope="module")
def found() -> dict[str, Session]:
    return discover(Home.at(HOME))


def events(session: Session, diagnostics: Diagnostics | None = None) -> list[Event]:
    return list(
        codex.read(session, diagnostics if diagnostics is not None else Diagnostics())
    )


def usage_total(items: list[Event], agent_id: str | None = None) -> Usage:
    total = Usage()
    for event in items:
        if event.kind == "usage" and event.agent_id == agent_id:
            assert event.usage is not None
            total = total + event.usage
    return total


def counts(usage: Usage) -> tuple[int, int, int, int, int]:
    return (
        usage.input_tokens,
        usage.output_tokens,
        usage.cache_read_tokens,
        usage.cache_write_tokens,
        usage.reasoning_tokens,
    )


THREADS = """CREATE TABLE threads (id TEXT PRIMARY KEY, rollout_path TEXT NOT NULL, created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL, source TEXT NOT NULL, cwd TEXT NOT NULL, title TEXT NOT NULL, name TEXT,
    sandbox_policy TEXT NOT NULL, approval_mode TEXT NOT NULL, git_branch TEXT, model TEXT, reasoning_effort TEXT,
    created_at_ms INTEGER, updated_at_ms INTEGER)"""


def thread_row(
    thread_id: str, title: str, at_ms: int, name: str | None = None
) -> tuple[object, ...]:
    path = f"/home/alex/.codex/sessions/2026/12/01/rollout-2026-12-01T09-00-00-{thread_id}.jsonl"
    return (
        thread_id,
        path,
        at_ms // 1000,
        at_ms // 1000,
        "cli",
        "/home/alex/code/shop-api",
        title,
        name,
        '{"type":"workspace-write"}',
        "on-request",
        "main",
        "gpt-5.5",
        "high",
        at_ms,
        at_ms,
    )


def insert(connection: sqlite3.Connection, *rows: tuple[object, ...]) -> None:
    connection.executemany(
        "INSERT INTO threads (id, rollout_path, created_at, updated_at, source, cwd, title, name, sandbox_policy,"
        " approval_mode, git_branch, model, reasoning_effort, created_at_ms, updated_at_ms)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        rows,
    )
    connection.commit()


def files_state(folder: Path) -> dict[str, tuple[int, int, bytes]]:
    return {
        path.name: (path.stat().st_size, path.stat().st_mtime_ns, path.read_bytes())
        for path in sorted(folder.iterdir())
        if path.is_file()
    }


# --- the state database ------------------------------------------------------------------------


def test_wal_rows_not_yet_checkpointed_are_listed_without_touching_wal_or_shm(
    tmp_path: Path,
) -> None:
    folder = tmp_path / ".codex"
    folder.mkdir()
    writer = sqlite3.connect(folder / "state_5.sqlite")
    try:
        assert writer.execute("PRAGMA journal_mode=WAL").fetchone() == ("wal",)
        writer.execute("PRAGMA wal_autocheckpoint=0")
        writer.execute(THREADS)
        insert(
            writer,
            thread_row(
                "01a22c00-0000-7000-8000-000000000001", "older thread", 1796100000000
            ),
        )
        writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        insert(
            writer,
            thread_row(
                "01a22c00-0000-7000-8000-000000000002", "newest thread", 1796200000000
            ),
        )
        assert (folder / "state_5.sqlite-wal").stat().st_size > 0
        before = files_state(folder)
        diagnostics = Diagnostics()
        found = discover(Home.at(tmp_path), diagnostics)
        after = files_state(folder)
    finally:
        writer.close()
    newest = found["01a22c00-0000-7000-8000-000000000002"]
    assert newest.title == "newest thread"
    assert newest.cwd == "/home/alex/code/shop-api"
    assert newest.permission_mode == "approval=on-request sandbox=workspace-write"
    assert (
        newest.updated is not None
        and newest.updated.isoformat() == "2026-12-02T08:26:40+00:00"
    )
    assert "01a22c00-0000-7000-8000-000000000001" in found
    assert not diagnostics.problems
    assert after == before  # no -shm or -wal created, grown or rewritten by the read


def test_threads_with_missing_columns_still_list(tmp_path: Path) -> None:
    folder = tmp_path / ".codex"
    folder.mkdir()
    with (
        contextlib.closing(sqlite3.connect(folder / "state_3.sqlite")) as connection,
        connection,
    ):
        connection.execute(
            "CREATE TABLE threads (id TEXT PRIMARY KEY, rollout_path TEXT, cwd TEXT, title TEXT)"
        )
        connection.execute(
            "INSERT INTO threads VALUES ('t-old-schema', '/nowhere/rollout.jsonl', '/home/dev/x', 'Hello')"
        )
    connection.close()
    diagnostics = Diagnostics()
    session = discover(Home.at(tmp_path), diagnostics)["t-old-schema"]
    assert (session.title, session.cwd, session.model, session.created) == (
        "Hello",
        "/home/dev/x",
        None,
        None,
    )
    assert session.path == f"{folder / 'state_3.sqlite'}#threads/t-old-schema"
    assert not diagnostics.problems


def test_the_newest_state_db_in_codex_sqlite_home_is_read(tmp_path: Path) -> None:
    (tmp_path / "codex").mkdir()
    databases = tmp_path / "sqlite"
    databases.mkdir()
    for generation, title in (
        (4, "from the old generation"),
        (5, "from the new generation"),
    ):
        with (
            contextlib.closing(
                sqlite3.connect(databases / f"state_{generation}.sqlite")
            ) as connection,
            connection,
        ):
            connection.execute(THREADS)
            insert(
                connection,
                thread_row(
                    "01a22c00-0000-7000-8000-00000000000a", title, 1796100000000
                ),
            )
        connection.close()
    home = Home(
        tmp_path / "nobody",
        {"CODEX_HOME": str(tmp_path / "codex"), "CODEX_SQLITE_HOME": str(databases)},
    )
    assert (
        codex.locate(home).override
        == f"CODEX_HOME={tmp_path / 'codex'}, CODEX_SQLITE_HOME={databases}"
    )
    assert (
        discover(home)["01a22c00-0000-7000-8000-00000000000a"].title
        == "from the new generation"
    )
    # `sqlite_home` in config.toml beats the variable (codex config_toml.rs)
    moved = tmp_path / "moved"
    databases.rename(moved)
    (tmp_path / "codex" / "config.toml").write_text(
        f'model = "gpt-5"\nsqlite_home = "{moved}"\n'
    )
    assert codex.locate(home).override == (
        f"CODEX_HOME={tmp_path / 'codex'}, CODEX_SQLITE_HOME={databases},"
        f" sqlite_home in {tmp_path / 'codex' / 'config.toml'}"
    )
    assert (
        discover(home)["01a22c00-0000-7000-8000-00000000000a"].title
        == "from the new generation"
    )


def test_title_precedence_is_name_then_session_index_then_threads_title(
    tmp_path: Path,
) -> None:
    folder = tmp_path / ".codex"
    folder.mkdir()
    named, indexed, prompted = (
        f"01a22c00-0000-7000-8000-00000000001{n}" for n in range(3)
    )
    with (
        contextlib.closing(sqlite3.connect(folder / "state_5.sqlite")) as connection,
        connection,
    ):
        connection.execute(THREADS)
        insert(
            connection,
            thread_row(named, "first prompt A", 1796100000000, name="Named by /rename"),
            thread_row(indexed, "first prompt B", 1796100000000),
            thread_row(prompted, "first prompt C", 1796100000000),
        )
    connection.close()
    (folder / "session_index.jsonl").write_text(
        f'{{"id":"{named}","thread_name":"Indexed A","updated_at":"2026-12-01T09:00:00Z"}}\n'
        f'{{"id":"{indexed}","thread_name":"Indexed B, first","updated_at":"2026-12-01T09:00:00Z"}}\n'
        f'{{"id":"{indexed}","thread_name":"Indexed B, renamed","updated_at":"2026-12-01T09:05:00Z"}}\n'
    )
    found = discover(Home.at(tmp_path))
    assert found[named].title == "Named by /rename"
    assert found[indexed].title == "Indexed B, renamed"
    assert found[prompted].title == "first prompt C"


def test_db_rows_and_rollouts_merge_into_one_session_at_the_rollout(
    found: dict[str, Session],
) -> None:
    tui = found[TUI]
    assert (
        tui.title == "Checkout retry smoke"
    )  # threads.name, also the last session_index line
    assert tui.path is not None and tui.path.endswith(f"{TUI}.jsonl")
    assert tui.extra["state_db"] == str(HOME / ".codex" / "state_5.sqlite")
    assert (
        tui.bytes
        == (HOME / ".codex" / "sessions/2026/11/30" / Path(tui.path).name)
        .stat()
        .st_size
    )


# --- sub-agents and forks ------------------------------------------------------------------------


def test_multi_agent_v2_child_links_to_its_spawn_and_skips_the_copied_parent(
    found: dict[str, Session],
) -> None:
    child = found[CHILD]
    assert child.parent_id == LEAD
    assert child.extra["agent_path"] == "/root/greeter"
    items = events(found[LEAD])
    spawn = next(e for e in items if e.kind == "tool_call" and e.tool == "spawn_agent")
    link = next(e for e in items if e.kind == "subagent")
    assert link.call_id == spawn.call_id == "call_mock3b89fdf704a142929e7480aa"
    assert link.extra["child_id"] == CHILD
    assert link.text is not None and link.text.startswith("SCENARIO=child")
    own = [e for e in items if e.agent_id == CHILD]
    assert own and items.index(link) < items.index(own[0])
    assert [e.kind for e in own if e.kind != "usage"] == [
        "meta",
        "user",
        "tool_call",
        "tool_result",
        "assistant",
        "turn_end",
    ]
    assert not any(
        e.text and "SCENARIO=subagent" in e.text for e in own
    )  # the parent's prompt, replayed
    assert counts(usage_total(items)) == (
        3600,
        90,
        0,
        0,
        0,
    )  # 3 lead responses of 1200 in, 30 out
    assert counts(usage_total(items, CHILD)) == (
        2400,
        60,
        0,
        0,
        0,
    )  # the child's own 2, not the parent's
    assert [e.seq for e in items] == list(range(len(items)))


def test_the_spawn_link_is_found_without_the_state_db(tmp_path: Path) -> None:
    shutil.copytree(HOME, tmp_path / "home")
    (tmp_path / "home/.codex/state_5.sqlite").unlink()
    found = discover(Home.at(tmp_path / "home"))
    assert (
        found[CHILD].parent_id == LEAD
    )  # from session_meta.source.subagent.thread_spawn
    links = [e for e in events(found[LEAD]) if e.kind == "subagent"]
    assert [(e.call_id, e.extra["child_id"]) for e in links] == [
        ("call_mock3b89fdf704a142929e7480aa", CHILD)
    ]


def test_a_child_only_the_state_db_links_is_announced_where_it_starts(
    tmp_path: Path,
) -> None:
    shutil.copytree(HOME, tmp_path / "home")
    lead = next((tmp_path / "home/.codex/sessions/2026/11/30").glob(f"*{LEAD}.jsonl"))
    lines = lead.read_text().splitlines(keepends=True)
    lead.write_text("".join(line for line in lines if "SubAgentActivity" not in line))
    items = events(discover(Home.at(tmp_path / "home"))[LEAD])
    links = [e for e in items if e.kind == "subagent"]
    assert [(e.call_id, e.extra["child_id"], e.text) for e in links] == [
        (None, CHILD, "/root/greeter")
    ]
    first_own = next(e for e in items if e.agent_id == CHILD)
    assert items.index(links[0]) < items.index(first_own)
    assert links[0].time == first_own.time
    assert counts(usage_total(items, CHILD)) == (2400, 60, 0, 0, 0)


def test_a_fork_counts_only_its_own_usage_and_events(found: dict[str, Session]) -> None:
    fork = found[FORK]
    assert fork.parent_id is None and fork.extra["forked_from_id"] == PARENT
    items = events(fork)
    # hand-checked: own responses 1600/1200 cached/50 out/10 reasoning and 1800/1500/60/0
    assert counts(usage_total(items)) == (700, 110, 2700, 0, 10)
    assert [e.kind for e in items] == [
        "user",
        "meta",
        "tool_call",
        "tool_result",
        "usage",
        "assistant",
        "usage",
        "turn_end",
    ]
    assert items[0].text == "Try the dry run on the March export"
    assert items[1].extra == {"model": "gpt-5.2"}


def test_a_fork_whose_parent_is_gone_still_skips_the_replay(tmp_path: Path) -> None:
    shutil.copytree(HOME, tmp_path / "home")
    (
        tmp_path
        / f"home/.codex/sessions/2025/12/18/rollout-2025-12-18T11-00-00-{PARENT}.jsonl"
    ).unlink()
    items = events(discover(Home.at(tmp_path / "home"))[FORK])
    assert counts(usage_total(items)) == (700, 110, 2700, 0, 10)
    assert items[0].text == "Try the dry run on the March export"


def test_a_forks_own_command_end_still_ends_the_replay(tmp_path: Path) -> None:
    """An `exec_command_end` line is dropped unread, but not while a fork's copy of its
    parent is matched: the fork's own one ends the copy, and what follows is shown, even
    a line with nothing to match (a reasoning item without an id)."""
    shutil.copytree(HOME, tmp_path / "home")
    fork = next((tmp_path / "home/.codex/sessions/2025/12/18").glob(f"*{FORK}.jsonl"))
    lines = fork.read_text().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if "Try the dry run" in line)
    own = [
        {
            "timestamp": "2025-12-18T10:30:20.000Z",
            "type": "event_msg",
            "payload": {
                "type": "exec_command_end",
                "call_id": "call_own",
                "stdout": "",
            },
        },
        {
            "timestamp": "2025-12-18T10:30:20.500Z",
            "type": "response_item",
            "payload": {
                "type": "reasoning",
                "summary": [{"type": "summary_text", "text": "**Planning the run**"}],
            },
        },
    ]
    lines[at:at] = [json.dumps(line, separators=(",", ":")) + "\n" for line in own]
    fork.write_text("".join(lines))
    items = events(discover(Home.at(tmp_path / "home"))[FORK])
    assert [e.text for e in items if e.kind == "thinking"] == ["**Planning the run**"]
    assert counts(usage_total(items)) == (700, 110, 2700, 0, 10)  # still its own only


def test_a_cut_command_end_line_is_still_counted_as_skipped(tmp_path: Path) -> None:
    shutil.copytree(HOME, tmp_path / "home")
    rollout = next(
        (tmp_path / "home/.codex/sessions/2025/12/18").glob(f"*{PARENT}.jsonl")
    )
    lines = rollout.read_text().splitlines(keepends=True)
    cut = (
        '{"timestamp":"2025-12-18T10:00:09.000Z","type":"event_msg","payload":'
        '{"type":"exec_command_end","call_id":"call_p1","stdout":"half a li\n'
    )
    whole = cut.replace("half a li\n", 'whole"}}\n')
    diagnostics = Diagnostics()
    rollout.write_text("".join([*lines[:20], cut, whole, *lines[20:]]))
    items = events(discover(Home.at(tmp_path / "home"))[PARENT], diagnostics)
    assert diagnostics.skipped_total == 1  # the cut line, not the whole one
    assert counts(usage_total(items)) == (1700, 190, 2200, 0, 40)


# --- usage ----------------------------------------------------------------------------------------


def test_usage_comes_from_cumulative_token_counts_once_per_response(
    found: dict[str, Session],
) -> None:
    items = events(found[PARENT])
    usage = [e for e in items if e.kind == "usage"]
    assert len(usage) == 3  # four token_count lines, one of them a repeat
    # hand-checked: totals 3900 in (2200 cached), 190 out (40 reasoning); input excludes cached
    assert counts(usage_total(items)) == (1700, 190, 2200, 0, 40)
    assert {e.usage.model for e in usage if e.usage} == {"gpt-5.2-codex"}
    basic = events(found[BASIC])
    assert (
        len([e for e in basic if e.kind == "usage"]) == 4
    )  # exec, then exec resume: 2 responses each
    assert counts(usage_total(basic)) == (4800, 120, 0, 0, 0)


def test_each_message_written_twice_is_emitted_once(found: dict[str, Session]) -> None:
    for thread, prompts in ((BASIC, 2), (PARENT, 2), (ZST, 2), (TUI, 1)):
        items = events(found[thread])
        users = [e for e in items if e.kind == "user"]
        assert len(users) == prompts, thread
        assert not any(
            e.text and e.text.startswith(("<environment_context>", "# AGENTS.md"))
            for e in users
        )
        texts = [e.text for e in items if e.kind in ("assistant", "thinking")]
        assert len(texts) == len(set(texts)), thread


# --- files and eras ---------------------------------------------------------------------------------


def test_compressed_rollouts_are_listed_and_read_and_a_plain_twin_wins(
    found: dict[str, Session],
) -> None:
    archived = found[ZST]
    assert archived.path is not None and archived.path.endswith(".jsonl.zst")
    assert archived.extra["archived"] is True
    items = events(archived)
    assert [e.kind for e in items] == [
        "user",
        "thinking",
        "tool_call",
        "tool_result",
        "usage",
        "assistant",
        "turn_end",
        "user",
        "compaction",
        "turn_end",
    ]
    assert items[-1].extra == {"reason": "interrupted"}
    assert (
        items[-2].text
        == "The user asked for a summary of CHANGES.md 2.4.0: three fixes, one feature."
    )
    twin = found[TWIN]
    assert twin.path is not None and twin.path.endswith(".jsonl")
    assert twin.title == "Plain copy wins"


def test_bare_era_lines_without_envelope_are_read(found: dict[str, Session]) -> None:
    bare = found[BARE]
    assert bare.cwd == "/home/dev/code/notes"  # from <environment_context>
    items = events(bare)
    assert [e.kind for e in items] == [
        "user",
        "thinking",
        "tool_call",
        "tool_result",
        "assistant",
    ]
    assert items[2].extra["input"] == {"command": ["sed", "-n", "1,40p", "parser.py"]}
    assert all(e.time is None for e in items)


def test_typescript_cli_documents_are_listed_and_read(
    found: dict[str, Session],
) -> None:
    # codex-cli before the Rust rewrite kept a conversation as one JSON document
    document, first = found[DOCUMENT], found[FIRST_DOCUMENT]
    assert document.title == "Why is the todo list test flaky?"
    assert document.updated is not None and document.updated.isoformat().startswith(
        "2025-05-14T16:02:11"
    )
    assert first.title == "explain this codebase to me"
    diagnostics = Diagnostics()
    items = events(document, diagnostics)
    assert [e.kind for e in items] == [
        "user",
        "thinking",
        "tool_call",
        "tool_result",
        "assistant",
    ]
    assert items[2].extra["input"] == {
        "command": ["bash", "-lc", "cat tests/todo.test.js"]
    }
    assert items[4].text == (
        "The test shares one list between runs; reset it in beforeEach."
    )
    assert not diagnostics.unknown and not diagnostics.skipped_total
    # today's `codex resume` cannot open them
    assert codex.resume(document) is None


def test_a_typescript_document_named_by_the_agent_loops_id_is_listed(
    tmp_path: Path,
) -> None:
    # the copy saved with the last response id is named by the agent loop's session id,
    # a UUID without its dashes
    sessions = tmp_path / ".codex" / "sessions"
    sessions.mkdir(parents=True)
    compact = DOCUMENT.replace("-", "")
    document = json.loads(
        (HOME / ".codex" / "sessions" / f"{DOCUMENT}.json").read_text()
    )
    document["session"]["id"] = compact
    (sessions / f"{compact}.json").write_text(json.dumps(document, indent=2))
    found = discover(Home.at(tmp_path))
    assert list(found) == [compact]
    assert found[compact].title == "Why is the todo list test flaky?"
    assert len(events(found[compact])) == 5


def test_a_json_file_that_is_no_typescript_document_is_skipped(
    tmp_path: Path,
) -> None:
    sessions = tmp_path / ".codex" / "sessions"
    sessions.mkdir(parents=True)
    (sessions / f"{DOCUMENT}.json").write_text('{"not": "a session"}')
    (sessions / "notes.json").write_text("{}")
    diagnostics = Diagnostics()
    assert discover(Home.at(tmp_path), diagnostics) == {}
    assert diagnostics.skipped_total == 1


def test_every_record_of_the_0_146_catalogue_is_known() -> None:
    diagnostics = Diagnostics()
    session = Session(
        app="codex",
        id="019fc8be-3658-7ca3-9e29-000000000000",
        path=str(DATA / "catalogue-0.146.jsonl"),
    )
    kinds = {e.kind for e in events(session, diagnostics)}
    assert not diagnostics.unknown and not diagnostics.skipped_total
    assert {
        "user",
        "assistant",
        "thinking",
        "tool_call",
        "tool_result",
        "usage",
        "turn_end",
        "compaction",
        "error",
    } <= kinds


def test_reading_from_an_offset_stays_in_the_main_file_and_drops_the_partial_line(
    found: dict[str, Session],
) -> None:
    lead = found[LEAD]
    assert lead.path is not None
    data = Path(lead.path).read_bytes()
    cut = data.index(b'"name":"wait_agent"')  # mid-line
    diagnostics = Diagnostics()
    items = list(codex.read(lead, diagnostics, offset=cut))
    assert items and all(e.agent_id is None for e in items)
    assert items[0].kind == "tool_result" and items[0].time is not None
    assert items[0].time.isoformat() == "2026-11-30T08:10:30.645000+00:00"
    assert diagnostics.skipped_total == 0


def test_a_vanished_rollout_is_a_problem_not_an_error(
    found: dict[str, Session], tmp_path: Path
) -> None:
    gone = Session(app="codex", id=BASIC, path=str(tmp_path / "rollout-gone.jsonl"))
    diagnostics = Diagnostics()
    assert events(gone, diagnostics) == []
    assert diagnostics.problems


# --- listing a rollout from its head and tail ------------------------------------------------


ROLLOUT_ID = "01a23000-0000-7000-8000-00000000000a"


def record(second: int, kind: str, payload: dict[str, object], ordinal: int) -> bytes:
    return json.dumps(
        {
            "timestamp": f"2026-12-01T09:00:{second:02d}.000Z",
            "ordinal": ordinal,
            "type": kind,
            "payload": payload,
        }
    ).encode()


def context(model: str, **more: object) -> dict[str, object]:
    return {
        "cwd": "/home/dev/code/app",
        "approval_policy": "on-request",
        "sandbox_policy": {"type": "workspace-write"},
        "model": model,
    } | more


def rollout(
    tmp_path: Path,
    lines: list[bytes],
    *,
    meta: dict[str, object] | None = None,
    ending: bytes = b"\n",
    zst: bool = False,
) -> tuple[list[Session], Diagnostics]:
    """Write a rollout (after its session_meta) and list it."""
    first = record(0, "session_meta", {"id": ROLLOUT_ID} | (meta or {}), 0)
    data = b"\n".join([first, *lines]) + ending
    name = f"rollout-2026-12-01T09-00-00-{ROLLOUT_ID}.jsonl"
    path = tmp_path / ".codex" / "sessions" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if zst:
        import zstandard

        path = path.with_name(name + ".zst")
        data = zstandard.ZstdCompressor().compress(data)
    path.write_bytes(data)
    diagnostics = Diagnostics()
    location = codex.locate(Home.at(tmp_path))
    return codex.parse(path, location, diagnostics), diagnostics


def prompt(second: int, text: str, ordinal: int) -> bytes:
    return record(
        second, "event_msg", {"type": "user_message", "message": text}, ordinal
    )


def rename(second: int, name: str, ordinal: int) -> bytes:
    payload = {"type": "thread_name_updated", "thread_id": ROLLOUT_ID}
    return record(second, "event_msg", payload | {"thread_name": name}, ordinal)


def output(second: int, text: str, ordinal: int) -> bytes:
    payload = {"type": "function_call_output", "call_id": "c", "output": text}
    return record(second, "response_item", payload, ordinal)


def test_the_tail_passes_over_settings_and_renames_a_sub_agent_copied_from_its_parent(
    tmp_path: Path,
) -> None:
    # the newest lines carry ordinals below the start ordinal: the parent's, replayed
    sessions, _ = rollout(
        tmp_path,
        [
            prompt(1, "the parent's prompt", 1),
            prompt(2, "the child's task", 5),
            record(3, "turn_context", context("child-model"), 6),
            rename(4, "the child's name", 7),
            record(5, "turn_context", context("parent-model"), 3),
            rename(6, "the parent's name", 4),
        ],
        meta={"subagent_history_start_ordinal": 5},
    )
    session, name = sessions
    assert (session.model, session.title, name.title) == (
        "child-model",
        "the child's task",
        "the child's name",
    )
    assert session.updated is not None and session.updated.second == 6


def test_keys_named_inside_another_records_text_and_an_unfinished_line_are_passed_over(
    tmp_path: Path,
) -> None:
    quoted = '{"type":"turn_context","payload":{"model":"quoted"}} thread_name_updated'
    for zst in (False, True):
        sessions, diagnostics = rollout(
            tmp_path,
            [
                prompt(1, "hello", 1),
                record(2, "turn_context", context("real-model"), 2),
                output(3, quoted, 3),
                record(4, "turn_context", context("unfinished"), 4)[:-2],
            ],
            ending=b"",
            zst=zst,
        )
        assert [(s.model, s.title) for s in sessions] == [("real-model", "hello")]
        assert sessions[0].updated is not None and sessions[0].updated.second == 3
        assert not diagnostics.skipped_total


def test_a_rollout_past_the_tail_with_no_turn_context_there_takes_the_heads_newest(
    tmp_path: Path,
) -> None:
    filler = "x" * 8000
    head = [
        prompt(1, "first prompt", 1),
        record(2, "turn_context", context("older"), 2),
        *(output(3, filler, 3 + n) for n in range(10)),
        prompt(4, "second prompt", 13),
        record(5, "turn_context", context("newer"), 14),
    ]
    tail = [output(6, filler, 15 + n) for n in range(80)]  # more than the tail holds
    sessions, _ = rollout(tmp_path, head + tail)
    assert [(s.model, s.title) for s in sessions] == [("newer", "first prompt")]


def test_harness_tags_after_the_first_prompt_still_fill_what_the_context_lacks(
    tmp_path: Path,
) -> None:
    def harness(second: int, body: str, ordinal: int) -> bytes:
        text = f"<environment_context>{body}</environment_context>"
        part = {"type": "input_text", "text": text}
        payload = {"type": "message", "role": "user", "content": [part]}
        return record(second, "response_item", payload, ordinal)

    sessions, _ = rollout(
        tmp_path,
        [
            harness(1, "<sandbox_mode>read-only</sandbox_mode>", 1),
            prompt(2, "hello", 2),
            *(output(3, "x" * 100, 3 + n) for n in range(12)),
            harness(
                4,
                "<cwd>/home/dev/late</cwd><approval_policy>untrusted</approval_policy>",
                15,
            ),
            record(5, "turn_context", {"model": "m"}, 16),
        ],
    )
    assert (sessions[0].cwd, sessions[0].permission_mode) == (
        "/home/dev/late",
        "approval=untrusted sandbox=read-only",
    )


def test_a_head_line_over_the_cap_is_counted_and_the_lines_after_it_still_read(
    tmp_path: Path,
) -> None:
    for zst in (False, True):
        sessions, diagnostics = rollout(
            tmp_path,
            [
                output(1, "x" * (300 * 1024), 1),
                prompt(2, "after the long line", 2),
                record(3, "turn_context", context("m"), 3),
            ],
            zst=zst,
        )
        assert sessions[0].title == "after the long line"
        assert dict(diagnostics.skipped) == {"too long": 1}


def test_the_head_lines_listing_parses_are_those_holding_a_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Listing reads a rollout's two ends in one opening and picks the head lines worth
    parsing by searching the head block stretch by stretch; it must pick what filtering
    `files.head_lines` line by line picks: numbers, offsets, data, ends, completeness,
    and the same "too long" counts. Lines of every awkward length: empty, at the cap and
    just over, several caps long, 80 lines and more, no last newline."""
    import random

    from sessdex import files

    keys = (b"k",)
    monkeypatch.setattr(codex, "_HEAD_KEYS", keys)
    cap = files.LINE_CAP
    lengths = [0, 1, 1000, cap - 1, cap, cap + 1, 2 * cap, 3 * cap + 5]
    draw = random.Random(3)
    for trial in range(40):
        lines = []
        for _ in range(draw.choice([1, 2, 5, 79, 80, 81, 120])):
            size = (
                draw.choice(lengths) if draw.random() < 0.15 else draw.randint(0, 3000)
            )
            lines.append(draw.choice([b"k", b"x"]) * size)
        content = b"\n".join(lines) + (b"\n" if trial % 2 else b"")
        if trial % 3 == 0:  # a file longer than the tail: the head is read on its own
            content += b"\n" + b"y" * 600_000
        path = tmp_path / f"rollout-{trial}.jsonl"
        path.write_bytes(content)
        expected_diagnostics = Diagnostics()
        expected = [
            tuple(line)
            for line in files.head_lines(path, diagnostics=expected_diagnostics)
            if line.number == 1 or any(key in line.data for key in keys)
        ]
        diagnostics = Diagnostics()
        split = codex._read_ends(str(path))[3]
        head = codex._head(str(path), split, diagnostics)
        assert [tuple(line) for line in head or ()] == expected, trial
        assert diagnostics.skipped == expected_diagnostics.skipped, trial


# --- resume ------------------------------------------------------------------------------------------


def test_resume_keeps_model_and_effort_and_withholds_loose_permissions(
    found: dict[str, Session],
) -> None:
    plan = codex.resume(found[BASIC])
    assert plan is not None
    assert plan.argv == ("codex", "resume", BASIC, "-m", "gpt-5.5")
    assert plan.withheld == ("-a never", "-s danger-full-access")
    assert plan.cwd == "/home/alex/code/shop-api"
    assert (plan.program, plan.install_hint) == (
        "codex",
        "npm install -g @openai/codex",
    )
    kept = codex.resume(found[BASIC], keep_permissions=True)
    assert kept is not None and kept.withheld == ()
    assert kept.argv[-4:] == ("-a", "never", "-s", "danger-full-access")


def test_resume_withholds_workspace_write_in_a_folder_codex_does_not_trust(
    found: dict[str, Session], tmp_path: Path
) -> None:
    """Until a folder is trusted (config.toml `[projects]`), Codex runs there
    read-only, asking before every edit: a recorded `-s workspace-write` is looser than
    that default, and is kept only when asked for."""
    import shutil
    from dataclasses import replace

    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    (home / ".codex" / "config.toml").write_text(
        '[projects."/home/alex/code/shop-api"]\ntrust_level = "trusted"\n'
    )
    session = found[ZST]
    moved = replace(
        session, path=str(home / Path(session.path).relative_to(DATA / "home"))
    )
    plan = codex.resume(moved)
    assert plan is not None and plan.withheld == ("-s workspace-write",)
    assert plan.argv[-2:] == ("-a", "on-request")  # the untrusted default's own
    assert any("does not trust this folder" in note for note in plan.notes)
    kept = codex.resume(moved, keep_permissions=True)
    assert kept is not None and kept.argv[-2:] == ("-s", "workspace-write")
    trusted = codex.resume(replace(moved, cwd="/home/alex/code/shop-api/sub"))
    assert trusted is not None and trusted.withheld == ()  # a folder above it is


def test_resume_passes_strict_permissions_and_effort_as_a_toml_string(
    found: dict[str, Session],
) -> None:
    plan = codex.resume(found[ZST])
    assert plan is not None
    assert plan.argv == (
        "codex",
        "resume",
        ZST,
        "-m",
        "gpt-5.6-luna",
        "-c",
        'model_reasoning_effort="medium"',
        "-a",
        "on-request",
        "-s",
        "workspace-write",
    )
    assert plan.withheld == ()
    # codex parses a -c value as TOML, so the effort arrives as the string "medium"
    key, _, value = plan.argv[6].partition("=")
    assert tomllib.loads(f"{key} = {value}") == {"model_reasoning_effort": "medium"}
    read_only = codex.resume(found[TWIN])
    assert read_only is not None
    assert (
        "-s" in read_only.argv
        and read_only.argv[read_only.argv.index("-s") + 1] == "read-only"
    )
    assert read_only.withheld == ("-a never",)


@pytest.mark.parametrize("recorded", ["untrusted", "on-failure"])
def test_resume_turns_a_retired_approval_policy_into_on_request(
    found: dict[str, Session], recorded: str
) -> None:
    """codex-cli 0.149+ rejects `-a untrusted` and `-a on-failure` ("invalid value"), so a
    thread that recorded one resumes with `-a on-request`, at least as strict as the
    default, with or without --keep-permissions, and says why."""
    from dataclasses import replace

    session = found[ZST]
    session = replace(session, extra={**session.extra, "approval_policy": recorded})
    for keep in (False, True):
        plan = codex.resume(session, keep_permissions=keep)
        assert plan is not None
        assert recorded not in plan.argv
        assert plan.argv[plan.argv.index("-a") + 1] == "on-request"
        assert not any(item.startswith("-a") for item in plan.withheld)
        assert any(recorded in note and "0.149" in note for note in plan.notes)


def test_resume_says_codex_asks_to_unarchive_an_archived_thread(
    found: dict[str, Session],
) -> None:
    """`codex resume <id>` of an archived thread (0.171) first asks to unarchive it, or
    says to run `codex unarchive <id>`: the plan says so, and only for archived ones."""
    plan = codex.resume(found[ZST])
    assert plan is not None and found[ZST].extra["archived"] is True
    assert plan.argv[:3] == ("codex", "resume", ZST)
    assert any("archived" in note and "codex unarchive" in note for note in plan.notes)
    active = codex.resume(found[BASIC])
    assert active is not None
    assert not any("archived" in note for note in active.notes)


def test_scan_lists_only_what_parse_needs(found: dict[str, Session]) -> None:
    location = codex.locate(Home.at(HOME))
    names = [os.path.basename(path) for path in codex.scan(location)]
    assert names[:2] == ["state_5.sqlite", "session_index.jsonl"]
    assert f"rollout-2026-01-06T10-00-00-{TWIN}.jsonl.zst" not in names
    assert all(os.path.isfile(path) for path in codex.scan(location))


def test_a_corrupt_compressed_rollout_is_reported_and_the_others_still_count(
    tmp_path: Path,
) -> None:
    """A `.jsonl.zst` whose bytes were damaged: listed as unreadable, counted as a
    warning by usage, and every other session still listed and counted."""
    from click.testing import CliRunner

    from sessdex.cli import main

    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home, symlinks=True)
    (archived,) = (home / ".codex" / "archived_sessions").glob(f"*{ZST}.jsonl.zst")
    data = archived.read_bytes()
    archived.write_bytes(data[: len(data) // 2] + b"\x00" * 64 + data[len(data) // 2 :])
    runner = CliRunner()
    listed = runner.invoke(
        main, ["list", "--json", "--app", "codex", "--home", str(home)]
    )
    assert listed.exit_code == 0
    ids = {row["id"] for row in json.loads(listed.stdout)}
    top_level = {s.id for s in discover(Home.at(HOME)).values() if s.parent_id is None}
    assert ids == top_level - {ZST}
    assert "skipped 1 unreadable line in 1 codex file" in listed.stderr
    usage = runner.invoke(
        main, ["usage", "--json", "--app", "codex", "--home", str(home)]
    )
    assert usage.exit_code == 0
    assert f"could not count {archived}: corrupt zstd data" in usage.stderr
    whole = runner.invoke(
        main, ["usage", "--json", "--app", "codex", "--home", str(HOME)]
    )
    lost = usage_total(events(discover(Home.at(HOME))[ZST])).output_tokens
    assert lost > 0
    assert sum(row["output_tokens"] for row in json.loads(usage.stdout)) == (
        sum(row["output_tokens"] for row in json.loads(whole.stdout)) - lost
    )


def test_newer_rollout_lines_are_read_or_known(tmp_path: Path) -> None:
    """Lines newer builds write (openai/codex history/rollout_payload.rs, protocol items.rs,
    policy.rs): voice transcripts and messages between agents are conversation; tool
    declarations, hooks, risk scores and sleeps are bookkeeping; a reroute changes the
    model the next responses are billed to, in the reader and in `usage` alike."""
    from sessdex.sources import _codex_usage

    def event(second: int, payload: dict[str, object], ordinal: int) -> bytes:
        return record(second, "event_msg", payload, ordinal)

    def tokens(total: int) -> dict[str, object]:
        used = {"input_tokens": total, "output_tokens": 10}
        return {"type": "token_count", "info": {"total_token_usage": used}}

    message = {
        "author": "/root/greeter",
        "recipient": "/root",
        "other_recipients": [],
        "content": "the greeter printed hello",
        "trigger_turn": True,
    }
    lines = [
        record(1, "turn_context", context("gpt-5.5", turn_id="t1"), 1),
        prompt(2, "run the linter", 2),
        record(
            3,
            "realtime_item",
            {
                "id": "rt_1",
                "realtime_session_id": "rs",
                "type": "realtime_session_started",
                "data": {},
            },
            3,
        ),
        record(
            4,
            "realtime_item",
            {
                "id": "rt_2",
                "realtime_session_id": "rs",
                "type": "transcript_segment",
                "data": {"role": "user", "text": "and the tests"},
            },
            4,
        ),
        record(
            5,
            "realtime_item",
            {
                "id": "rt_3",
                "realtime_session_id": "rs",
                "type": "transcript_segment",
                "data": {"role": "assistant", "text": "running both"},
            },
            5,
        ),
        record(6, "inter_agent_communication", message, 6),
        # a build that wrote the newer shape as well says it once
        record(
            6,
            "response_item",
            {
                "type": "agent_message",
                "author": "/root/greeter",
                "recipient": "/root",
                "content": [{"type": "input_text", "text": message["content"]}],
            },
            7,
        ),
        record(7, "retained_context", {"type": "verified_answer", "turn_id": "t1"}, 8),
        record(7, "security_risk_score", {"scores": {"cyber": 0.01}}, 9),
        record(
            7,
            "response_item",
            {
                "type": "additional_tools",
                "id": "at_1",
                "role": "developer",
                "tools": [],
            },
            10,
        ),
        event(8, {"type": "hook_started", "id": "h1"}, 11),
        event(8, {"type": "hook_completed", "id": "h1"}, 12),
        event(
            8,
            {
                "type": "item_completed",
                "thread_id": ROLLOUT_ID,
                "turn_id": "t1",
                "item": {"type": "Sleep", "id": "sl_1", "duration_ms": 3000},
            },
            13,
        ),
        event(9, tokens(100), 14),
        event(
            10,
            {
                "type": "model_reroute",
                "from_model": "gpt-5.5",
                "to_model": "gpt-5.5-mini",
                "reason": "high_risk_cyber_activity",
            },
            15,
        ),
        event(11, tokens(150), 16),
    ]
    [session], _ = rollout(tmp_path, lines)
    diagnostics = Diagnostics()
    found = events(session, diagnostics)
    assert not diagnostics.unknown, diagnostics.unknown
    said = [(e.kind, e.text) for e in found if e.kind in ("user", "assistant")]
    assert said == [
        ("user", "run the linter"),
        ("user", "and the tests"),
        ("assistant", "running both"),
        ("user", "the greeter printed hello"),
    ]
    relayed = next(e for e in found if e.text == "the greeter printed hello")
    assert relayed.extra == {
        "author": "/root/greeter",
        "recipient": "/root",
        "inter_agent": True,
        "from_agent": "greeter",  # as show names it; `author` keeps Codex's path
    }
    [reroute] = [e for e in found if e.kind == "meta" and e.extra.get("rerouted")]
    assert reroute.text == (
        "model: gpt-5.5 -> gpt-5.5-mini (rerouted: high risk cyber activity)"
    )
    billed = [(e.usage.model, e.usage.input_tokens) for e in found if e.usage]
    assert billed == [("gpt-5.5", 100), ("gpt-5.5-mini", 50)]
    scan = _codex_usage.usage_records(Path(session.path or ""), Diagnostics())
    assert [(r.usage.model, r.usage.input_tokens) for r in scan.records] == billed


def test_a_message_between_agents_loses_its_header_and_names_its_sender(
    tmp_path: Path,
) -> None:
    """Codex 0.17x writes "Message Type / Task name / Sender / Payload:" before what one
    agent tells another; the event holds what was said and who sent it. A text that only
    looks like a header (no Payload line) is kept whole."""

    def relayed(n: int, text: str, author: str | None) -> dict[str, object]:
        item: dict[str, object] = {"type": "agent_message", "recipient": "/root",
                                   "content": [{"type": "input_text", "text": text}]}  # fmt: skip
        if author:
            item["author"] = author
        return record(n, "response_item", item, n)

    envelope = (
        "Message Type: FINAL_ANSWER\nTask name: /root\nSender: /root/a\nPayload:\n"
    )
    lines = [
        record(1, "turn_context", context("gpt-5.5", turn_id="t1"), 1),
        prompt(2, "run the greeters", 2),
        relayed(3, envelope + "a says hi\nand bye", "/root/a"),
        relayed(4, envelope.replace("/root/a", "/root/b") + "b says hi", None),
        relayed(5, "Message Type: a note that is not a header", "/root/c"),
    ]
    [session], _ = rollout(tmp_path, lines)
    found = [e for e in events(session) if e.kind == "user"][1:]
    assert [(e.text, e.extra["from_agent"]) for e in found] == [
        ("a says hi\nand bye", "a"),
        ("b says hi", "b"),  # no author field: the header's sender
        ("Message Type: a note that is not a header", "c"),
    ]
    assert [e.extra.get("message_type") for e in found] == ["FINAL_ANSWER"] * 2 + [None]


def test_an_older_message_between_agents_written_as_assistant_json(
    tmp_path: Path,
) -> None:
    """An older build wrote an inter-agent message as an assistant message holding its
    JSON (codex protocol `InterAgentCommunication::to_response_input_item`)."""
    relayed = {"author": "/root/greeter", "recipient": "/root", "other_recipients": [],
               "content": "the greeter printed hello", "trigger_turn": True}  # fmt: skip
    item = {"type": "message", "role": "assistant",
            "content": [{"type": "output_text", "text": json.dumps(relayed)}]}  # fmt: skip
    lines = [
        record(1, "turn_context", context("gpt-5.5", turn_id="t1"), 1),
        prompt(2, "run the greeter", 2),
        record(3, "response_item", item, 3),
    ]
    [session], _ = rollout(tmp_path, lines)
    found = events(session)
    [said] = [e for e in found if e.text == "the greeter printed hello"]
    assert said.kind == "user" and said.extra["inter_agent"] is True
    assert not [e for e in found if e.kind == "assistant"]


@pytest.mark.parametrize("compressed", [False, True], ids=["jsonl", "jsonl.zst"])
def test_a_thread_with_only_a_timer_lists_as_codex_lists_it(
    tmp_path: Path, compressed: bool
) -> None:
    """A thread the scheduler will wake has no prompt yet; Codex's rollout code lists
    it as "(timer configured)" when `<rollout>.timers.json` sits beside it
    (codex-rs/rollout/src/timer_sidecar.rs)."""
    import zstandard

    folder = tmp_path / ".codex" / "sessions" / "2026" / "11" / "30"
    folder.mkdir(parents=True)
    thread = "019bd9f0-5555-7000-8000-0000000000e5"
    plain = folder / f"rollout-2026-11-30T09-00-00-{thread}.jsonl"
    meta = {"timestamp": "2026-11-30T09:00:00.000Z", "type": "session_meta",
            "payload": {"id": thread, "timestamp": "2026-11-30T09:00:00.000Z",
                        "cwd": "/home/dev/app", "cli_version": "0.171.0"}}  # fmt: skip
    data = (json.dumps(meta) + "\n").encode()
    if compressed:
        (folder / (plain.name + ".zst")).write_bytes(zstandard.compress(data))
    else:
        plain.write_bytes(data)
    from sessdex import api

    def listed_title() -> object:
        records = [r.session() for r in api.list_sessions(Home.at(tmp_path)).rows]
        return {r.id: r.title for r in records}.get(thread, "not listed")

    assert listed_title() is None  # indexed before the timer was set
    (folder / (plain.name + ".timers.json")).write_text('{"timers": []}')
    assert discover(Home.at(tmp_path))[thread].title == "(timer configured)"
    assert listed_title() == "(timer configured)"  # the index notices the sidecar
    prompt = {"timestamp": "2026-11-30T09:05:00.000Z", "type": "event_msg",
              "payload": {"type": "user_message", "message": "Nightly: run the tests"}}  # fmt: skip
    data += (json.dumps(prompt) + "\n").encode()
    if compressed:
        (folder / (plain.name + ".zst")).write_bytes(zstandard.compress(data))
    else:
        plain.write_bytes(data)
    assert listed_title() == "Nightly: run the tests"  # a prompt's title wins


_REVERTED = "01a22b81-aaaa-7000-8000-00000000beef"


def _reverted_thread(day: Path) -> tuple[Path, Path, Path]:
    """A thread reverted twice, as Codex 0.154+ writes it (openai/codex thread-store
    `revert_thread`, `rollout_lineage`): each revert starts a file named
    `<thread>_<rollout id>` whose `session_meta.history_base` names the file holding the
    kept turns (by its rollout id: the first file goes by the thread's) and cuts it at an
    ordinal and at the byte offset where that ordinal begins; the new file's own lines go
    on from the cut's ordinal."""
    day.mkdir(parents=True)
    thread = _REVERTED

    def turn(prompt: str, stamp: str, tokens: int) -> list[dict[str, object]]:
        return [
            {"timestamp": stamp, "type": "event_msg",
             "payload": {"type": "user_message", "message": prompt}},
            {"timestamp": stamp, "type": "response_item",
             "payload": {"type": "message", "role": "assistant",
                         "content": [{"type": "output_text", "text": f"re: {prompt}"}]}},
            {"timestamp": stamp, "type": "event_msg",
             "payload": {"type": "token_count",
                         "info": {"last_token_usage": {"input_tokens": tokens,
                                                       "output_tokens": 10}}}},
        ]  # fmt: skip

    def write(name: str, stamp: str, base: dict[str, object] | None,
              turns: list[list[dict[str, object]]]) -> tuple[Path, list[int]]:  # fmt: skip
        meta: dict[str, object] = {"id": thread, "timestamp": "2026-11-30T08:00:00Z",
                                   "cwd": "/w", "cli_version": "0.171.0",
                                   "source": "cli", "history_mode": "paginated"}  # fmt: skip
        first = 0
        if base is not None:
            meta["history_base"] = base
            first = int(str(base["end_ordinal_exclusive"]))
        lines: list[dict[str, object]] = [
            {"timestamp": stamp, "type": "session_meta", "payload": meta}
        ]
        for one in turns:
            lines += one
        offsets, text = [], ""
        for ordinal, line in enumerate(lines, start=first):
            offsets.append(len(text.encode()))
            text += json.dumps({**line, "ordinal": ordinal}) + "\n"
        path = day / name
        path.write_text(text)
        return path, offsets

    first_file, at = write(
        f"rollout-2026-11-30T08-00-00-{thread}.jsonl", "2026-11-30T08:00:00Z", None,
        [turn("Add a health check", "2026-11-30T08:00:01Z", 100),
         turn("Try the risky refactor", "2026-11-30T08:05:00Z", 200)],
    )  # fmt: skip
    # revert to before the second turn: the first file's lines 1-3 are kept
    one = "01a22b81-bbbb-7000-8000-000000000002"
    second_file, at2 = write(
        f"rollout-2026-11-30T09-00-00-{thread}_{one}.jsonl", "2026-11-30T09:00:00Z",
        {"thread_id": thread, "end_ordinal_exclusive": 4, "end_byte_offset": at[4]},
        [turn("Keep the API as it was", "2026-11-30T09:00:01Z", 300),
         turn("Now rename it", "2026-11-30T09:10:00Z", 400)],
    )  # fmt: skip
    # revert again, to before "Now rename it" (the second file's ordinals 8-10)
    two = "01a22b81-cccc-7000-8000-000000000003"
    third_file, _ = write(
        f"rollout-2026-11-30T10-00-00-{thread}_{two}.jsonl", "2026-11-30T10:00:00Z",
        {"thread_id": one, "end_ordinal_exclusive": 8, "end_byte_offset": at2[4]},
        [turn("Add a changelog entry", "2026-11-30T10:00:01Z", 500)],
    )  # fmt: skip
    return first_file, second_file, third_file


def test_a_reverted_thread_reads_as_the_turns_it_kept_then_its_own(
    tmp_path: Path,
) -> None:
    """A thread reverted to an earlier turn (twice) reads as one conversation: the turns
    each revert kept from the older files, then what followed. What a revert undid is not
    shown, but said once where it was left out, and its responses still count."""
    home = tmp_path / "home"
    first_file, second_file, third_file = _reverted_thread(
        home / ".codex" / "sessions" / "2026" / "11" / "30"
    )
    from sessdex.sources._codex_values import rollout_id

    assert {rollout_id(p.name) for p in (first_file, second_file, third_file)} == {
        _REVERTED
    }
    # the state db names the current file (`threads.rollout_path`)
    session = Session(app="codex", id=_REVERTED, path=str(first_file),
                      extra={"rollout_path": str(third_file)})  # fmt: skip
    diagnostics = Diagnostics()
    read = events(session, diagnostics)
    said = [e.text for e in read if e.kind == "user"]
    assert said == [
        "Add a health check",
        "Keep the API as it was",
        "Add a changelog entry",
    ]
    answers = [e.text for e in read if e.kind == "assistant"]
    assert answers == [f"re: {text}" for text in said]
    reverted = [e for e in read if "abandoned_branch" in e.extra]
    assert [e.extra["abandoned_branch"] for e in reverted] == [
        {"rollout": first_file.name, "lines": 3},
        {"rollout": second_file.name, "lines": 3},
    ]
    assert all("not shown" in (e.text or "") for e in reverted)
    # every response was billed, the undone ones too (marked as such)
    billed = [(e.usage.input_tokens, e.extra.get("branch")) for e in read
              if e.kind == "usage" and e.usage is not None]  # fmt: skip
    assert billed == [
        (100, None),
        (200, "abandoned"),
        (300, None),
        (400, "abandoned"),
        (500, None),
    ]
    assert [e.seq for e in read] == list(range(len(read)))
    assert not diagnostics.problems
    # Codex compresses old rollouts: the kept turns are read from the `.zst` just the same
    import zstandard

    packed = first_file.with_name(first_file.name + ".zst")
    packed.write_bytes(zstandard.compress(first_file.read_bytes()))
    first_file.unlink()
    assert [e.text for e in events(session) if e.kind == "user"] == said


def test_a_reverted_thread_is_listed_from_its_current_file_with_its_first_prompt(
    tmp_path: Path,
) -> None:
    """Without a state db, the file the latest revert started is the thread's (its path,
    its last activity); the title stays the thread's first prompt, kept in the first file."""
    home = tmp_path / "home"
    first_file, _, third_file = _reverted_thread(
        home / ".codex" / "sessions" / "2026" / "11" / "30"
    )
    session = discover(Home.at(home))[_REVERTED]
    assert session.path == str(third_file)
    assert session.title == "Add a health check"
    assert session.created is not None and session.created.hour == 8
    said = [e.text for e in events(session) if e.kind == "user"]
    assert said == [
        "Add a health check",
        "Keep the API as it was",
        "Add a changelog entry",
    ]
    # the thread's first file gone: the rest is shown, and the loss is said
    first_file.unlink()
    diagnostics = Diagnostics()
    session = discover(Home.at(home))[_REVERTED]
    assert session.path == str(third_file)
    assert session.title == "Keep the API as it was"  # the oldest prompt still on disk
    read = events(session, diagnostics)
    assert [e.text for e in read if e.kind == "user"] == [
        "Keep the API as it was",
        "Add a changelog entry",
    ]
    assert any("earlier turns" in problem for problem in diagnostics.problems)


def test_lines_codex_marks_as_inherited_or_compaction_output_are_nobodys_words(
    tmp_path: Path,
) -> None:
    """Codex's harness metadata beside a line's payload (`CodexHarnessMetadata`): a user
    message a thread inherited from its parent's context (`inherited_user_message`) is not
    its user's prompt nor its title; a compaction's output (`compaction_output`) is not an
    answer the user saw."""
    home = tmp_path / "home"
    day = home / ".codex" / "sessions" / "2026" / "11" / "30"
    day.mkdir(parents=True)
    thread = "01a22b81-cccc-7000-8000-00000000cafe"
    stamp = "2026-11-30T10:00:00.000Z"

    def message(role: str, text: str) -> dict[str, object]:
        kind = "input_text" if role == "user" else "output_text"
        return {
            "type": "message",
            "role": role,
            "content": [{"type": kind, "text": text}],
        }

    lines = [
        {"timestamp": stamp, "type": "session_meta",
         "payload": {"id": thread, "timestamp": stamp, "cwd": "/w", "cli_version": "0.171.0"}},
        {"timestamp": stamp, "type": "response_item", "payload": message("user", "inherited fork prompt"),
         "metadata": {"client_authored": False, "inherited_user_message": True}},
        {"timestamp": stamp, "type": "response_item",
         "payload": message("assistant", "Summary for the model"),
         "metadata": {"compaction_output": True}},
        {"timestamp": stamp, "type": "response_item", "payload": message("assistant", "Answer")},
    ]  # fmt: skip
    path = day / f"rollout-2026-11-30T10-00-00-{thread}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    session = discover(Home.at(home))[thread]
    assert session.title != "inherited fork prompt"
    found = events(session)
    assert [e.text for e in found if e.kind == "user"] == []
    assert [e.text for e in found if e.kind == "assistant"] == ["Answer"]


def test_a_reviews_findings_are_not_shown_as_typed_by_the_user(tmp_path: Path) -> None:
    """At the end of `/review` Codex records the reviewer's findings as a user-role message
    wrapped in `<user_action>` (core/templates/review/exit_success.xml), then the answer:
    the harness wrote it, not the human."""
    home = tmp_path / "home"
    day = home / ".codex" / "sessions" / "2026" / "11" / "30"
    day.mkdir(parents=True)
    thread = "01a22b81-5c00-7801-8b1e-2012418ca000"
    stamp = "2026-11-30T10:00:00.000Z"
    review = (
        "<user_action>\n  <context>User initiated a review task. Here's the full review "
        "output from reviewer model.</context>\n  <action>review</action>\n  <results>\n"
        "  - app.py:3 unused import\n  </results>\n</user_action>\n"
    )
    lines = [
        {"timestamp": stamp, "type": "session_meta",
         "payload": {"id": thread, "timestamp": stamp, "cwd": "/w", "cli_version": "0.171.0"}},
        {"timestamp": stamp, "type": "response_item",
         "payload": {"type": "message", "id": "review_rollout_user", "role": "user",
                     "content": [{"type": "input_text", "text": review}]}},
        {"timestamp": stamp, "type": "response_item",
         "payload": {"type": "message", "id": "review_rollout_assistant", "role": "assistant",
                     "content": [{"type": "output_text", "text": "Review: one unused import."}]}},
    ]  # fmt: skip
    path = day / f"rollout-2026-11-30T10-00-00-{thread}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    session = discover(Home.at(home))[thread]
    assert session.title is None or "user_action" not in session.title
    found = events(session)
    typed = [
        e for e in found if e.kind == "user" and not (e.extra or {}).get("injected")
    ]
    assert typed == []
    assert [e.text for e in found if e.kind == "assistant"] == [
        "Review: one unused import."
    ]


def test_line_times_in_every_shape_and_echoes_said_once(tmp_path: Path) -> None:
    """Each line's time, whatever ISO shape it has (`…Z`, an offset, none, a bare date
    with `Z`), is the UTC instant it names; a message written twice is shown once even
    where its copies differ in spacing or an image placeholder, and a third, different
    message is not taken for its echo."""
    from datetime import UTC, datetime

    home = tmp_path / "home"
    day = home / ".codex" / "sessions" / "2026" / "11" / "30"
    day.mkdir(parents=True)
    thread = "01a22b81-5c00-7801-8b1e-2012418ca001"

    def said(stamp: str, role: str, text: str) -> dict[str, object]:
        part = "input_text" if role == "user" else "output_text"
        return {"timestamp": stamp, "type": "response_item",
                "payload": {"type": "message", "role": role,
                            "content": [{"type": part, "text": text}]}}  # fmt: skip

    def event(stamp: str, kind: str, text: str) -> dict[str, object]:
        return {"timestamp": stamp, "type": "event_msg",
                "payload": {"type": kind, "message": text}}  # fmt: skip

    lines = [
        {"timestamp": "2026-11-30T10:00:00.000Z", "type": "session_meta",
         "payload": {"id": thread, "timestamp": "2026-11-30T10:00:00.000Z", "cwd": "/w",
                     "cli_version": "0.171.0"}},
        event("2026-11-30T10:00:01.250Z", "user_message", "fix  the\nbug [image 1]"),
        said("2026-11-30T12:00:02+02:00", "user", "fix the bug"),
        said("2026-11-30T10:00:03.5", "assistant", "Done."),
        event("2026-11-30T10:00:04.123456789Z", "agent_message", "Done.  "),
        event("2026-11-30Z", "agent_message", "Something else."),
        event("2026-13-30T10:00:06Z", "agent_message", "A bad time."),
    ]  # fmt: skip
    path = day / f"rollout-2026-11-30T10-00-00-{thread}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    found = [
        (e.kind, e.text, e.time)
        for e in events(discover(Home.at(home))[thread])
        if e.kind in ("user", "assistant")
    ]
    assert found == [
        ("user", "fix  the\nbug [image 1]", datetime(2026, 11, 30, 10, 0, 1, 250000, UTC)),
        ("assistant", "Done.", datetime(2026, 11, 30, 10, 0, 3, 500000, UTC)),
        ("assistant", "Something else.", datetime(2026, 11, 30, 0, 0, tzinfo=UTC)),
        ("assistant", "A bad time.", None),
    ]  # fmt: skip


def test_resume_says_why_a_typescript_document_cannot_be_resumed() -> None:
    from click.testing import CliRunner

    from sessdex.cli import main

    result = CliRunner().invoke(
        main, ["resume", DOCUMENT[:8], "--print", "--home", str(HOME)]
    )
    assert result.exit_code == 1
    assert "TypeScript codex-cli" in result.output
    assert "no command to resume" not in result.output  # codex resumes other sessions


def test_a_sub_agent_whose_rollout_is_gone_is_named(tmp_path: Path) -> None:
    # the spawn's output named the child thread, and its rollout went (deleted, or a
    # home copied without it): its part of the thread is missing, and the read says so
    home = tmp_path / "home"
    shutil.copytree(HOME, home, symlinks=True)
    (child,) = (home / ".codex" / "sessions").rglob(f"*{CHILD}.jsonl")
    child.unlink()
    with (
        contextlib.closing(sqlite3.connect(home / ".codex" / "state_5.sqlite")) as db,
        db,
    ):
        db.execute("DELETE FROM threads WHERE id = ?", (CHILD,))
    db.close()
    kept = Diagnostics()
    lead = discover(Home.at(home))[LEAD]
    assert [
        e.extra["child_id"] for e in events(lead, kept) if e.kind == "subagent"
    ] == [CHILD]
    assert kept.problems == [f"codex: sub-agent {CHILD}: transcript not found"]
    whole = Diagnostics()
    events(discover(Home.at(HOME))[LEAD], whole)
    assert whole.problems == []


def test_usage_passes_over_a_line_nested_past_the_decoders_depth(
    tmp_path: Path,
) -> None:
    # a value nested thousands deep (a damaged or drifted line) raised RecursionError
    # out of the strict decoder: the file's every response went uncounted, "a sessdex
    # bug"
    from sessdex.sources import _codex_usage

    original = DATA / "home" / ".codex" / "sessions" / "2026" / "11" / "30"
    original /= "rollout-2026-11-30T08-10-27-01a22b81-5c00-7801-8b1e-2012418ca986.jsonl"
    path = tmp_path / original.name
    deep = b"[" * 5000 + b"]" * 5000
    drifted = b'{"type":"turn_context","payload":{"drift":' + deep + b"}}"
    lines = original.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:2]) + drifted + b"\n" + b"".join(lines[2:]))
    counted = _codex_usage.usage_records(original, Diagnostics()).records
    assert (
        counted and _codex_usage.usage_records(path, Diagnostics()).records == counted
    )


def test_an_archived_rollout_cut_short_in_its_first_block_is_said_not_lost_unsaid(
    tmp_path: Path,
) -> None:
    # a `.zst` cut inside its first block decoded to nothing and no error: its session
    # went missing, and `doctor` said nothing of it
    from sessdex import api

    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    [archived] = (home / ".codex" / "archived_sessions").glob("*0000000000c3.jsonl.zst")
    archived.write_bytes(archived.read_bytes()[:509])
    [report] = api.doctor(Home.at(home), ["codex"])
    assert report.diagnostics.skipped == {"unreadable": 1}
    assert (str(archived), 0, "unreadable") in report.diagnostics.details


def test_a_side_chat_names_its_thread_and_its_boundary_is_not_the_users_words() -> None:
    """`/side` in the 0.171 TUI (PROVENANCE.md): an attached thread forked from the one
    open, whose rollout opens with Codex's boundary note, written as a user message."""
    found = discover(Home.at(DATA / "side" / "home"))
    owner = "01a24473-21eb-74f1-ac58-b1ea8bdda299"
    side = found["01a24473-4a2c-7621-8c72-b0f44fb747e7"]
    assert side.extra.get("forked_from_id") == owner and side.parent_id is None
    got = events(side)
    said = [e.text or "" for e in got if e.kind == "user"]
    assert said == [
        "SCENARIO=resume Please run the greeting command once more after resuming."
    ]
    assert usage_total(got).input_tokens == 2000  # its own two calls, not the owner's


def test_a_side_chat_with_nothing_asked_is_not_titled_as_its_owner() -> None:
    """`/side`, then back without a question (0.171's TUI, PROVENANCE.md): Codex keeps the
    attached thread and names it as the thread it came from, in session_index.jsonl and
    threads.name. Listed so, it read as that thread twice, and its resume opened the
    empty side chat instead."""
    found = discover(Home.at(DATA / "side-empty" / "home"))
    owner = found["01a244dd-f061-75f3-9f23-6249bbf3b147"]
    side = found["01a244de-1597-7fd0-9627-9fd6e5e372e4"]
    assert owner.title == "SCENARIO=basic (interactive) Please run the greeting shell…"
    assert side.title == codex.EMPTY_SIDE_CHAT_TITLE
    assert side.extra.get("forked_from_id") == owner.id


def test_a_side_chat_is_titled_by_its_own_question_not_a_name_it_inherited(
    tmp_path: Path,
) -> None:
    """A side chat cannot be renamed: the names Codex gives it are its owner's, copied
    when it opens, until one made from its question replaces it (which a thread titled
    without a model may never get). Its question is its title."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "side" / "home", home)
    owner = "01a24473-21eb-74f1-ac58-b1ea8bdda299"
    side = "01a24473-4a2c-7621-8c72-b0f44fb747e7"
    inherited = "SCENARIO=basic (interactive) Please run the greeting shell…"
    index = home / ".codex" / "session_index.jsonl"
    index.write_text(
        "".join(
            json.dumps({"id": i, "thread_name": inherited, "updated_at": t}) + "\n"
            for i, t in (
                (owner, "2026-12-05T04:25:31Z"),
                (side, "2026-12-05T04:25:36Z"),
            )
        )
    )
    with contextlib.closing(sqlite3.connect(home / ".codex" / "state_5.sqlite")) as db:
        db.execute(
            "CREATE TABLE threads (id TEXT PRIMARY KEY, rollout_path TEXT, title TEXT,"
            " name TEXT, attached_thread_parent_id TEXT)"
        )
        db.execute(
            "INSERT INTO threads VALUES (?, '', ?, ?, ?)",
            (side, "", inherited, owner),
        )
        db.commit()
    found = discover(Home.at(home))
    assert found[owner].title == inherited
    assert found[side].title == (
        "SCENARIO=resume Please run the greeting command once more after resuming."
    )


def test_a_side_chat_resumes_on_its_own_as_codex_reopens_it() -> None:
    """Codex 0.171 hides side chats from its picker, yet `codex resume <side id>` opens
    one (as a thread forked from its owner) and `codex exec resume <side id>` grows its
    own rollout (both tried against the conformance mock): `resume` gives that command,
    not the owner's, and no sub-agent's note."""
    side = discover(Home.at(DATA / "side" / "home"))[
        "01a24473-4a2c-7621-8c72-b0f44fb747e7"
    ]
    plan = codex.resume(side)
    assert plan is not None
    assert plan.argv[:3] == ("codex", "resume", side.id)
    assert not [note for note in plan.notes if "sub-agent" in note]


@LIST_PATHS
def test_a_deleted_rollout_lists_warm_as_cold(
    listing: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rollout deleted by hand leaves its thread listed from the state db's row, warm as
    cold: the db, unchanged, was not read again, and a warm list kept the gone file's
    path (what `show` and `resume` then looked for)."""
    from tests.helpers import list_rows

    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    list_rows(home, tmp_path / "warm", monkeypatch, listing=listing)
    (rollout,) = (home / ".codex" / "sessions").rglob(f"rollout-*-{TUI}.jsonl")
    rollout.unlink()
    warm = list_rows(home, tmp_path / "warm", monkeypatch, listing=listing)
    assert warm == list_rows(home, tmp_path / "cold", monkeypatch, listing=listing)
    assert warm[TUI]["path"].endswith(f"#threads/{TUI}")


def test_a_session_that_recorded_no_folder_resumes_where_the_user_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`codex resume <id>` finds a session in `~/.codex/sessions` from any folder (and
    asks which folder to work in where they differ): a session whose folder was not
    recorded gets the command with no `cd`; before, it was refused, as if Codex found a
    session only from the folder it ran in."""
    from sessdex import api

    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    session_id = "019bd5f2-5555-7000-8000-0000000000e5"
    day = tmp_path / "home" / ".codex" / "sessions" / "2026" / "01" / "07"
    day.mkdir(parents=True)
    meta = {
        "id": session_id,
        "timestamp": "2026-01-07T09:00:00.000Z",
        "originator": "codex_cli_rs",
        "cli_version": "0.171.0",
        "source": "cli",
    }
    prompt = {"type": "user_message", "message": "Where was I?", "images": []}
    lines = [
        {"timestamp": "2026-01-07T09:00:00.000Z", "type": "session_meta", "payload": meta},
        {"timestamp": "2026-01-07T09:00:01.000Z", "type": "event_msg", "payload": prompt},
    ]  # fmt: skip
    (day / f"rollout-2026-01-07T09-00-00-{session_id}.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in lines)
    )
    check = api.check_resume(Home.at(tmp_path / "home"), session_id[:18])
    assert check.plan.cwd == "" and check.plan.argv[:3] == (
        "codex",
        "resume",
        session_id,
    )
    assert any("finds it from any folder" in note for note in check.plan.notes)


def test_a_wait_after_its_spawn_returned_waits_on_the_sub_agents(
    tmp_path: Path,
) -> None:
    """The first multi-agent tools' `wait` (as `wait_agent`) is called once `spawn_agent`
    has returned the child's id, its spawn linked: the call is marked `waits`, which the
    live status reads (it said working, not waiting on the silent sub-agent)."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home, symlinks=True)
    rollout = next((home / ".codex" / "sessions").rglob(f"*{LEAD}.jsonl"))
    rollout.write_text(rollout.read_text().replace('"wait_agent"', '"wait"'))
    items = events(discover(Home.at(home))[LEAD])
    link = next(e for e in items if e.kind == "subagent")
    wait = next(e for e in items if e.kind == "tool_call" and e.tool == "wait")
    assert items.index(link) < items.index(wait)  # the spawn returned first
    assert wait.extra.get("waits") is True
