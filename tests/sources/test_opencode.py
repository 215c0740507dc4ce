"""OpenCode quirks: one WAL database for every session, child sessions, the older JSON tree."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
from datetime import datetime
from pathlib import Path

import pytest

from sessdex import databases, files
from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Session, Usage, merge
from sessdex.sources import Home, opencode
from tests.helpers import LIST_PATHS, cli_over, tables_as_views

HOME = Path(__file__).parent.parent / "data" / "opencode" / "home"
DB = HOME / ".local" / "share" / "opencode" / "opencode.db"
SHOP = "/home/alex/code/shop-api"
BASIC = "ses_dd47cef52ffe38O37iH1Ffe05b"
PARENT = "ses_dd47cc97dffecuMitBkETrvX9v"
CHILD = "ses_dd47cc26cffeODfwLbHNPwBmj1"
CACHED = "ses_dd40000000ffeSynthCache01"


def sessions(
    home: Path = HOME, diagnostics: Diagnostics | None = None
) -> dict[str, Session]:
    diagnostics = diagnostics if diagnostics is not None else Diagnostics()
    location = opencode.locate(Home.at(home))
    fragments: dict[str, list[Session]] = {}
    for path in opencode.scan(location):
        for session in opencode.parse(path, location, diagnostics):
            fragments.setdefault(session.id, []).append(session)
    return {key: merge(parts) for key, parts in fragments.items()}


def events(session_id: str, home: Path = HOME) -> list[Event]:
    diagnostics = Diagnostics()
    found = list(opencode.read(sessions(home)[session_id], diagnostics))
    assert (
        diagnostics.skipped_total == 0
        and not diagnostics.unknown
        and not diagnostics.problems
    )
    return found


def total(found: list[Event], agent: str | None = None) -> Usage:
    usage = Usage()
    for event in found:
        if event.usage is not None and event.agent_id == agent:
            usage += event.usage
    return usage


def folder_state(folder: Path) -> dict[str, tuple[int, int]]:
    return {p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.iterdir()}


def test_usage_totals_per_session() -> None:
    # two resumed turns of two model responses each, 1200 in / 30 out (the session row says 4800 / 120)
    assert total(events(BASIC)) == Usage(4800, 120, model="mock-model")
    # input excludes the cache already; output adds the reasoning OpenCode keeps apart
    assert total(events(CACHED)) == Usage(
        50, 28, 900, 100, 8, model="claude-sonnet-4-5"
    )
    assert total(events("s_stage0_large")) == Usage(120, 16, model="gpt-4o-mini")


def test_reasoning_is_added_to_output_once_whichever_release_wrote_it() -> None:
    """Current OpenCode keeps reasoning out of `output` (its `total` adds it apart);
    releases before PR 21047 kept an OpenAI model's reasoning inside `output`, and their
    `total` is input, output and cache alone: adding it again billed it twice."""
    from sessdex.sources._opencode_v2 import usage_of

    cache = {"read": 4000, "write": 0}
    old = {
        "total": 5500,
        "input": 1000,
        "output": 500,
        "reasoning": 400,
        "cache": cache,
    }
    new = {
        "total": 5500,
        "input": 1000,
        "output": 100,
        "reasoning": 400,
        "cache": cache,
    }
    bare = {"input": 1000, "output": 100, "reasoning": 400, "cache": cache}
    for tokens in (old, new, bare):
        usage = usage_of(tokens, "gpt-5")
        assert usage is not None
        assert (usage.output_tokens, usage.reasoning_tokens) == (500, 400), tokens


def test_task_tool_spawns_a_child_session_read_inline() -> None:
    found = sessions()
    assert found[CHILD].parent_id == PARENT and found[CHILD].agent_type == "general"
    assert found[PARENT].parent_id is None
    parent_events = events(PARENT)
    spawn = next(e for e in parent_events if e.kind == "subagent")
    assert spawn.call_id == "f0d316dd3" and spawn.text == "Greeting sub-agent"
    assert spawn.extra == {"child_id": CHILD, "agent_type": "general"}
    child_events = [e for e in parent_events if e.agent_id == CHILD]
    assert [e.kind for e in child_events] == [
        "user", "tool_call", "tool_result", "usage", "assistant", "usage", "turn_end"
    ]  # fmt: skip
    # the child's events come between the spawn and the task tool's result
    result = next(
        e for e in parent_events if e.kind == "tool_result" and e.call_id == "f0d316dd3"
    )
    assert spawn.seq < child_events[0].seq and child_events[-1].seq < result.seq
    assert total(parent_events) == Usage(2400, 60, model="mock-model")
    assert total(parent_events, CHILD) == Usage(2400, 60, model="mock-model")
    # read on its own, the child's events carry no agent id
    assert {e.agent_id for e in events(CHILD)} == {None}


def test_json_tree_parts_become_events() -> None:
    found = events("s_stage0_large")
    assert [e.kind for e in found] == [
        "user", "tool_call", "tool_result", "meta", "assistant", "thinking", "meta",
        "compaction", "usage", "meta", "turn_end", "user", "assistant",
    ]  # fmt: skip
    assert found[3].extra == {"synthetic": True}
    assert found[4].text == "[file error.log, text/plain]"
    # the compaction part's note: what it folded (its `tail_start_id` names the prompt)
    assert found[6].text == (
        "compacted automatically, the context being full: 0 messages summarized, 1 kept "
        'as they were, from the prompt "Step 1"'
    )
    # the user stopping the answer (MessageAbortedError) is an interruption, not a failure
    assert found[9].text == "The operation was aborted."
    assert found[10].extra == {"reason": "stop", "interrupted": True}


def test_a_pasted_image_is_named_not_written_out(tmp_path: Path) -> None:
    """An attachment with no file name whose url is the image itself (a `data:` URI, MBs
    of base64) shows as its type: show and export printed every byte of it."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    part = home / ".local/share/opencode/storage/part/m_assistant_large_1/003.json"
    value = json.loads(part.read_text())
    del value["filename"]
    value.update(mime="image/png", url="data:image/png;base64," + "iVBORw0K" * 200_000)
    part.chmod(0o644)
    part.write_text(json.dumps(value))
    found = events("s_stage0_large", home)
    assert found[4].text == "[file image/png]"
    value.update(url="file:///tmp/large/shot.png")  # a file on disk: named by its name
    part.write_text(json.dumps(value))
    assert events("s_stage0_large", home)[4].text == "[file shot.png, image/png]"


EARLY = "ses_8a2f1c0d9ffeVbQm3kXw2LrT7n"  # early 0.x: project/global/storage/session/


def test_an_early_per_project_store_is_listed_and_read() -> None:
    session = sessions()[EARLY]
    # no `directory` in that session file: the folder comes from the assistant's path.cwd
    assert session.cwd == "/home/dev/notes" and session.cli_version == "0.3.58"
    assert session.model == "claude-sonnet-4-20250514"
    found = events(EARLY)
    assert [e.kind for e in found] == [
        "user", "tool_call", "tool_result", "assistant", "usage"
    ]  # fmt: skip
    assert found[0].text == "Rename loadConfig to readConfig in src/"
    assert found[2].text == "src/config.ts\nsrc/main.ts\n"
    assert total(found) == Usage(
        input_tokens=1200, output_tokens=80, cache_read_tokens=3000,
        model="claude-sonnet-4-20250514",
    )  # fmt: skip
    plan = opencode.resume(session)
    assert plan is not None and plan.cwd == "/home/dev/notes"
    assert any("per-project store" in note for note in plan.notes)


def test_a_session_the_upgrade_copied_is_listed_once_from_the_newer_store(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    data = home / ".local/share/opencode"
    early = data / "project/global/storage/session"
    copy = data / "storage/session/0f1e2d3c" / f"{EARLY}.json"
    copy.parent.mkdir(parents=True)
    info = json.loads((early / "info" / f"{EARLY}.json").read_text())
    copy.write_text(json.dumps(info | {"directory": "/home/dev/notes-moved"}))
    for kind in ("message", "part"):  # the copy's messages and parts, flattened
        for file in (early / kind / EARLY).rglob("*.json"):
            target = data / "storage" / kind / file.parent.name / file.name
            if kind == "message":
                target = data / "storage/message" / EARLY / file.name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(file, target)
    session = sessions(home)[EARLY]
    assert session.path == str(copy) and session.cwd == "/home/dev/notes-moved"
    plan = opencode.resume(session)
    assert plan is not None and not any("per-project" in n for n in plan.notes)
    assert [e.kind for e in events(EARLY, home)] == [
        "user", "tool_call", "tool_result", "assistant", "usage"
    ]  # fmt: skip


def test_a_database_row_wins_over_the_json_file_of_the_same_session(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    session_file = home / ".local/share/opencode/storage/session/proj_test/copy.json"
    session_file.write_text(json.dumps({"id": BASIC, "directory": "/elsewhere", "title": "Old JSON title",
                                        "time": {"created": 1, "updated": 2}}))  # fmt: skip
    found = sessions(home)[BASIC]
    assert found.title == "Checkout retry smoke test" and found.cwd == SHOP
    assert found.path is not None and "#session/" in found.path


def _wal_database(folder: Path) -> sqlite3.Connection:
    """A live OpenCode-like database whose newest rows sit only in the WAL."""
    folder.mkdir(parents=True)
    writer = sqlite3.connect(folder / "opencode.db")
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    source = sqlite3.connect(f"file:{DB}?immutable=1", uri=True)
    for table in ("session", "message", "part"):
        (ddl,) = source.execute(
            "SELECT sql FROM sqlite_master WHERE name = ?", (table,)
        ).fetchone()
        writer.execute(ddl)
        rows = source.execute(f"SELECT * FROM {table}").fetchall()
        writer.executemany(
            f"INSERT INTO {table} VALUES ({', '.join('?' * len(rows[0]))})", rows
        )
    source.close()
    writer.commit()
    writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    writer.execute(
        "INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) "
        "VALUES ('ses_newest_only_in_wal', 'p', 's', '/home/alex/code/new', 'Written a moment ago', '1.18.33', "
        "1796040000000, 1796040001000)"
    )
    writer.commit()
    return writer


def test_newest_rows_in_the_wal_are_listed_and_nothing_is_written(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "home" / ".local" / "share" / "opencode"
    writer = _wal_database(folder)
    try:
        assert (folder / "opencode.db-wal").stat().st_size > 0
        before = folder_state(folder)
        found = sessions(tmp_path / "home")
        assert found["ses_newest_only_in_wal"].title == "Written a moment ago"
        assert found["ses_newest_only_in_wal"].cwd == "/home/alex/code/new"
        assert total(events(BASIC, tmp_path / "home")) == Usage(
            4800, 120, model="mock-model"
        )
        assert folder_state(folder) == before
    finally:
        writer.close()


def test_a_locked_database_is_still_read(tmp_path: Path) -> None:
    folder = tmp_path / "home" / ".local" / "share" / "opencode"
    folder.mkdir(parents=True)
    shutil.copy(DB, folder / "opencode.db")
    locker = sqlite3.connect(folder / "opencode.db")
    locker.execute("BEGIN EXCLUSIVE")
    try:
        diagnostics = Diagnostics()
        found = sessions(tmp_path / "home", diagnostics)
        assert BASIC in found or diagnostics.problems
    finally:
        locker.rollback()
        locker.close()


def test_missing_columns_are_tolerated(tmp_path: Path) -> None:
    folder = tmp_path / "home" / ".local" / "share" / "opencode"
    folder.mkdir(parents=True)
    old = sqlite3.connect(folder / "opencode.db")
    old.execute(
        "CREATE TABLE session (id TEXT PRIMARY KEY, title TEXT, time_created INTEGER)"
    )
    old.execute("INSERT INTO session VALUES ('ses_old', 'An old one', 1730000000000)")
    old.commit()
    old.close()
    diagnostics = Diagnostics()
    found = sessions(tmp_path / "home", diagnostics)
    assert found["ses_old"].title == "An old one" and found["ses_old"].cwd is None
    assert any("lacks directory, time_updated" in p for p in diagnostics.problems)
    read = Diagnostics()
    assert list(opencode.read(found["ses_old"], read)) == []
    assert read.problems  # no message table: reported, not raised


def test_message_tables_of_an_unknown_shape_beside_2x_ones_are_reported(
    tmp_path: Path,
) -> None:
    """A database with 2.x's `session_message` and 1.x tables lacking a column we read:
    the transcript came out empty with no word of why."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    db = home / DB.relative_to(HOME)
    with contextlib.closing(sqlite3.connect(db)) as connection, connection:
        connection.execute("ALTER TABLE part RENAME COLUMN data TO payload")
        assert databases.table_columns(connection, "session_message")  # 2.x's too
    connection.close()
    diagnostics = Diagnostics()
    found = sessions(home, diagnostics)
    read = Diagnostics()
    list(opencode.read(found[BASIC], read))
    assert any("lacks part.data" in p for p in read.problems), read.problems


def test_a_corrupt_database_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    folder = tmp_path / "home" / ".local" / "share" / "opencode"
    folder.mkdir(parents=True)
    (folder / "opencode.db").write_bytes(b"SQLite format 3\x00" + os.urandom(3000))
    diagnostics = Diagnostics()
    assert sessions(tmp_path / "home", diagnostics) == {}
    assert diagnostics.problems and "opencode.db" in diagnostics.problems[0]


def test_channel_databases_are_scanned_and_sidecar_files_are_not(
    tmp_path: Path,
) -> None:
    folder = tmp_path / ".local" / "share" / "opencode"
    folder.mkdir(parents=True)
    for name in (
        "opencode.db",
        "opencode-dev.db",
        "opencode.db-wal",
        "opencode.db-shm",
        "other.db",
    ):
        (folder / name).write_bytes(b"")
    names = [p.name for p in opencode.scan(opencode.locate(Home.at(tmp_path)))]
    assert names == ["opencode-dev.db", "opencode.db"]


def test_resume_argv() -> None:
    found = sessions()
    plan = opencode.resume(found[BASIC])
    assert plan is not None
    assert plan.argv == ("opencode", "--session", BASIC, "--model", "mock/mock-model")
    assert plan.cwd == SHOP and plan.program == "opencode" and not plan.withheld
    cached = opencode.resume(found[CACHED])
    assert cached is not None and cached.argv[-1] == "anthropic/claude-sonnet-4-5"
    assert found[CACHED].effort == "high"
    # the TUI has no --variant (only `opencode run` does): said, not silently dropped
    assert "--variant" not in cached.argv
    assert any("'high' not passed" in note for note in cached.notes)
    assert plan.notes == ()


def test_a_huge_part_is_read_with_its_long_output_elided(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tool part holding a huge output (a pasted image, a file read whole) is shown by
    its size, as a transcript's huge line is, and never held whole; `full` keeps it."""
    monkeypatch.setattr(files, "READ_LINE_CAP", 4096)
    folder = tmp_path / "home" / ".local" / "share" / "opencode"
    folder.mkdir(parents=True)
    shutil.copy(DB, folder / "opencode.db")
    output = "z" * 200_000
    part = {
        "type": "tool",
        "callID": "call_huge",
        "tool": "read",
        "state": {
            "status": "completed",
            "input": {"filePath": "/srv/huge.log"},
            "output": output,
            "time": {"start": 1, "end": 2},
        },
    }
    writer = sqlite3.connect(folder / "opencode.db")
    message_id, created = writer.execute(
        "SELECT message_id, time_created FROM part WHERE session_id = ? ORDER BY id DESC",
        (BASIC,),
    ).fetchone()
    writer.execute(
        "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) "
        "VALUES ('prt_zzzz_huge', ?, ?, ?, ?, ?)",
        (message_id, BASIC, created, created, json.dumps(part)),
    )
    writer.commit()
    writer.close()
    found = events(BASIC, tmp_path / "home")
    [result] = [
        e for e in found if e.call_id == "call_huge" and e.kind == "tool_result"
    ]
    assert result.text == f"[text, {files.human_bytes(len(output))}]"
    assert total(found) == total(events(BASIC))  # the rest read as before
    session = sessions(tmp_path / "home")[BASIC]
    whole = list(opencode.read(session, Diagnostics(), full=True))
    [result] = [
        e for e in whole if e.call_id == "call_huge" and e.kind == "tool_result"
    ]
    assert result.text == output


def test_a_huge_part_file_in_the_json_tree_is_read_with_its_output_elided(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The older JSON tree keeps each part in its own file: a huge one is streamed with
    its long strings elided (not held whole, nor dropped as "not JSON")."""
    monkeypatch.setattr(files, "READ_LINE_CAP", 4096)
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    part = home / ".local/share/opencode/storage/part/m_assistant_large_1/001.json"
    output = "w" * 300_000
    value = json.loads(part.read_text())
    value["state"]["output"] = output
    part.chmod(0o644)
    part.write_text(json.dumps(value))
    info = home / ".local/share/opencode/storage/message/s_stage0_large/msg_0002.json"
    message = json.loads(info.read_text())  # and a message with a huge summary diff
    message["summary"] = {"diffs": [{"file": "big.txt", "after": "d" * 5_000_000}]}
    info.chmod(0o644)
    info.write_text(json.dumps(message))
    found = events("s_stage0_large", home)
    assert [e.kind for e in found] == [e.kind for e in events("s_stage0_large")]
    [result] = [
        e for e in found if e.kind == "tool_result" and e.call_id == "call_large_1"
    ]
    assert result.text == f"[text, {files.human_bytes(len(output))}]"
    session = sessions(home)["s_stage0_large"]
    whole = list(opencode.read(session, Diagnostics(), full=True))
    assert output in [e.text for e in whole]


def test_opencode_db_names_the_database_and_early_2x_builds_are_read(
    tmp_path: Path,
) -> None:
    """`OPENCODE_DB` names the database: an absolute path anywhere, or a name in the data
    folder; early 2.x builds run beside 1.x wrote `opencode2.db`."""
    location = opencode.locate(Home.at(HOME))
    listed = {s.id for s in opencode.parse(DB, location, Diagnostics())}
    data = tmp_path / "home" / ".local" / "share" / "opencode"
    data.mkdir(parents=True)
    elsewhere = tmp_path / "db" / "mine.db"
    elsewhere.parent.mkdir()
    shutil.copy(DB, elsewhere)

    def found(environ: dict[str, str]) -> set[str]:
        location = opencode.locate(Home(tmp_path / "home", environ))
        return {
            s.id
            for path in opencode.scan(location)
            for s in opencode.parse(path, location, Diagnostics())
        }

    assert found({}) == set()
    assert found({"OPENCODE_DB": str(elsewhere)}) == listed
    shutil.copy(DB, data / "custom.db")
    assert found({"OPENCODE_DB": "custom.db"}) == listed
    assert opencode.locate(Home(tmp_path, {"OPENCODE_DB": "custom.db"})).override == (
        "OPENCODE_DB=custom.db"
    )
    (data / "custom.db").rename(data / "opencode2.db")
    assert found({}) == listed


def test_an_interrupted_tool_keeps_its_output_and_ignored_text_is_not_said(
    tmp_path: Path,
) -> None:
    """A tool cut short by an abort is an error part whose metadata keeps what it printed
    (`metadata.interrupted`, `metadata.output`: message-v2.ts reads it back); a text part
    marked `ignored` is kept out of the model's context."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    db = sqlite3.connect(home / ".local/share/opencode/opencode.db")
    rows = db.execute(
        "SELECT id, data FROM part WHERE session_id = ? ORDER BY id", (BASIC,)
    ).fetchall()
    for part_id, data in rows:
        part = json.loads(data)
        if part.get("tool") == "bash" and "hello-from-tool" in data:
            part["state"] = {
                **part["state"],
                "status": "error",
                "error": "Tool execution aborted",
                "metadata": {"interrupted": True, "output": "hello-from-tool\n"},
            }
        elif part.get("type") == "text" and "SCENARIO=resume" in data:
            part["ignored"] = True
        else:
            continue
        db.execute("UPDATE part SET data = ? WHERE id = ?", (json.dumps(part), part_id))
    db.commit()
    db.close()
    found = events(BASIC, home)
    [cut] = [
        e
        for e in found
        if e.kind == "tool_result" and "hello-from-tool" in (e.text or "")
    ]
    assert cut.is_error and cut.extra == {"partial": True}
    assert cut.text == "hello-from-tool\n\n[Tool execution aborted]"
    assert not [
        e for e in found if e.kind == "user" and "SCENARIO=resume" in (e.text or "")
    ]
    assert [e.extra for e in found if "SCENARIO=resume" in (e.text or "")] == [
        {"ignored": True}
    ]


def test_a_placeholder_title_gives_way_to_the_first_prompt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session whose title request never came back keeps "New session - <time>"; it is
    listed by its first typed prompt instead, unless that prompt is too big to name it."""
    monkeypatch.setattr(files, "READ_LINE_CAP", 4096)
    folder = tmp_path / "home" / ".local" / "share" / "opencode"
    folder.mkdir(parents=True)
    shutil.copy(DB, folder / "opencode.db")
    writer = sqlite3.connect(folder / "opencode.db")
    titles = {
        BASIC: "New session - 2026-11-30T08:12:19.501Z",
        CHILD: "Child session - 2026-11-30T08:12:40.002Z",
        PARENT: "New session - my own notes",  # the user's title, not the placeholder
    }
    for session_id, title in titles.items():
        writer.execute("UPDATE session SET title = ? WHERE id = ?", (title, session_id))
    (first,) = writer.execute(
        "SELECT p.id FROM part p JOIN message m ON m.id = p.message_id "
        "WHERE p.session_id = ? ORDER BY m.time_created, p.id LIMIT 1",
        (CHILD,),
    ).fetchone()
    huge = {"type": "text", "text": "paste " + "z" * 200_000}
    writer.execute("UPDATE part SET data = ? WHERE id = ?", (json.dumps(huge), first))
    writer.commit()
    writer.close()
    found = sessions(tmp_path / "home")
    assert found[BASIC].title == (
        "SCENARIO=basic Please run the greeting shell command and tell me what it printed."
    )
    assert found[CHILD].title == titles[CHILD]
    assert found[PARENT].title == titles[PARENT]


def test_a_placeholder_title_of_the_json_stores_gives_way_to_the_first_prompt(
    tmp_path: Path,
) -> None:
    """The JSON stores keep the placeholder too: early 0.x wrote "New Session - <time>"
    (capital S), later builds "New session - <time>"; both list by the first prompt."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home, ignore=shutil.ignore_patterns("opencode.db*"))
    share = home / ".local" / "share" / "opencode"
    for path, title in (
        (
            share / f"project/global/storage/session/info/{EARLY}.json",
            "New Session - 2025-07-17T09:30:00.000Z",
        ),
        (
            share / "storage/session/proj_test/ses_s_stage0_small.json",
            "New session - 2024-10-27T03:33:20.000Z",
        ),
    ):
        info = json.loads(path.read_text())
        path.write_text(json.dumps(info | {"title": title}))
    found = sessions(home)
    assert found[EARLY].title == "Rename loadConfig to readConfig in src/"
    assert found["s_stage0_small"].title == "Hello"


def test_a_session_row_with_no_id_is_counted_not_dropped_unsaid(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    db = sqlite3.connect(home / DB.relative_to(HOME))
    db.execute("UPDATE session SET id = NULL WHERE id = ?", (BASIC,))
    db.commit()
    db.close()
    diagnostics = Diagnostics()
    found = sessions(home, diagnostics)
    assert BASIC not in found and PARENT in found
    assert diagnostics.skipped == {"bad value": 1}


def test_resume_keeps_a_read_only_agent_the_session_was_started_with(
    tmp_path: Path,
) -> None:
    """A session started with `--agent plan` (the session row's `agent`) reopens in plan,
    not in the default `build` that may edit files; a custom agent, whose permissions
    only the user's config knows, is named in a note and not passed."""
    folder = tmp_path / ".local" / "share" / "opencode"
    folder.mkdir(parents=True)
    shutil.copy(DB, folder / "opencode.db")
    writer = sqlite3.connect(folder / "opencode.db")
    writer.execute("UPDATE session SET agent = 'plan' WHERE id = ?", (BASIC,))
    writer.execute("UPDATE session SET agent = 'reviewer' WHERE id = ?", (CACHED,))
    writer.commit()
    writer.close()
    found = sessions(tmp_path)
    planned = opencode.resume(found[BASIC])
    assert planned is not None
    assert planned.argv == (
        "opencode",
        "--session",
        BASIC,
        "--model",
        "mock/mock-model",
        "--agent",
        "plan",
    )
    custom = opencode.resume(found[CACHED])
    assert custom is not None and "--agent" not in custom.argv
    assert any("'reviewer' not passed" in note for note in custom.notes)
    # the default agent needs no flag and no note
    plain = opencode.resume(sessions()[BASIC])
    assert plain is not None and "--agent" not in plain.argv and plain.notes == ()


@pytest.mark.parametrize(
    ("session", "messages"),
    [
        ("s_stage0_large", "storage/message/s_stage0_large"),
        (
            "ses_8a2f1c0d9ffeVbQm3kXw2LrT7n",
            "project/global/storage/session/message/ses_8a2f1c0d9ffeVbQm3kXw2LrT7n",
        ),
    ],
)
@LIST_PATHS
def test_a_message_file_written_alone_is_read_again_by_a_warm_list(
    listing: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    session: str,
    messages: str,
) -> None:
    # OpenCode writes a message (its model) without its session file: a warm list read
    # the session again only when the session file changed, and kept the old model
    from tests.helpers import list_rows

    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    root = home / ".local/share/opencode"
    for named in (root / "storage/session").glob("*/ses_s_*.json"):  # named by its id
        named.rename(named.with_name(named.name.removeprefix("ses_")))
    state = tmp_path / "state"
    was = list_rows(home, state, monkeypatch, "--all", listing=listing)[session][
        "model"
    ]
    newest = sorted((root / messages).iterdir())[-1]
    newest.write_text(newest.read_text().replace(was, "gpt-5"))
    warm = list_rows(home, state, monkeypatch, "--all", listing=listing)[session]
    cold = list_rows(home, tmp_path / "cold", monkeypatch, "--all", listing=listing)[
        session
    ]
    assert warm["model"] == cold["model"] == "gpt-5"


def test_a_sub_agents_answer_shows_without_the_task_tags_around_it() -> None:
    """OpenCode 1.18's `task` tool answers with the sub-agent's words inside
    `<task id=… state="completed"><task_result>…` tags for the model (real run): the
    result is the words, so `show` starts with them and `export -f md` points at the
    sub-agent's last reply instead of repeating it, tags and all."""
    from click.testing import CliRunner

    from sessdex.cli import main

    shown = CliRunner().invoke(main, ["show", PARENT, "--json", "--home", str(HOME)])
    assert shown.exit_code == 0, shown.output
    [answer] = [
        e["text"] for e in json.loads(shown.stdout)
        if e["kind"] == "tool_result" and e["tool"] == "task"
    ]  # fmt: skip
    assert answer == "Sub-agent report: the command printed hello-from-subagent."
    exported = (
        CliRunner()
        .invoke(main, ["export", PARENT, "-f", "md", "--home", str(HOME)])
        .stdout
    )
    assert "<task_result>" not in exported and "its last reply, above" in exported


def test_session_times_kept_as_text_are_still_its_times(tmp_path: Path) -> None:
    """A database a tool rewrote with TEXT columns (an export and import) keeps each
    epoch as its digits: the list still dates the session."""
    from click.testing import CliRunner

    from sessdex.cli import main

    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    db = home / DB.relative_to(HOME)
    with contextlib.closing(sqlite3.connect(db, isolation_level=None)) as connection:
        columns = [r[1] for r in connection.execute("PRAGMA table_info(session)")]
        cast = ", ".join(f'CAST("{c}" AS TEXT) AS "{c}"' for c in columns)
        connection.execute("PRAGMA foreign_keys = OFF")
        connection.execute(f"CREATE TABLE session_text AS SELECT {cast} FROM session")
        connection.execute("DROP TABLE session")
        connection.execute("ALTER TABLE session_text RENAME TO session")
        assert connection.execute(
            "SELECT typeof(time_created) FROM session"
        ).fetchone() == ("text",)
    result = CliRunner().invoke(main, ["list", "--json", "--all", "--home", str(home)])
    rows = {row["id"]: row for row in json.loads(result.stdout)}
    assert rows[BASIC]["created"] == "2026-11-30T08:12:19.501Z"
    assert rows[BASIC]["updated"] == "2026-11-30T08:12:26.592Z"


def test_tables_that_are_views_are_shown_as_the_tables_are(tmp_path: Path) -> None:
    """A `message` and `part` made views (fuzzing's "tables as views": their rows have
    no rowid for blob IO) are read by their ids: `show --json` gives the same events,
    where every part was an unknown `part:None` and every message nothing."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    before = cli_over(home, "show", BASIC, "--json").stdout
    tables_as_views(home / ".local/share/opencode/opencode.db", "message", "part")
    after = cli_over(home, "show", BASIC, "--json", "--verbose")
    assert "not recognised" not in after.stderr and "not read" not in after.stderr
    assert json.loads(after.stdout) == json.loads(before)
    assert any(e["kind"] == "tool_result" for e in json.loads(after.stdout))


def test_an_image_a_tool_gave_the_model_is_named_in_its_result(tmp_path: Path) -> None:
    """`read` of an image (or an MCP screenshot) keeps it in the completed state's
    `attachments`, file parts whose url is the image itself: the result names it as a
    prompt's file is named, never its bytes; before, only the tool's text showed."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    pixels = "data:image/png;base64," + "iVBORw0KGgo" * 1000
    part = {
        "type": "tool",
        "callID": "call_shot",
        "tool": "read",
        "state": {
            "status": "completed",
            "input": {"filePath": "/srv/shot.png"},
            "output": "Image read successfully",
            "attachments": [
                {
                    "type": "file",
                    "mime": "image/png",
                    "filename": "shot.png",
                    "url": pixels,
                },
                {"type": "file", "mime": "image/jpeg", "url": pixels},
            ],
            "time": {"start": 1, "end": 2},
        },
    }
    writer = sqlite3.connect(home / ".local/share/opencode/opencode.db")
    message_id, created = writer.execute(
        "SELECT message_id, time_created FROM part WHERE session_id = ? ORDER BY id DESC",
        (BASIC,),
    ).fetchone()
    writer.execute(
        "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) "
        "VALUES ('prt_zzzz_shot', ?, ?, ?, ?, ?)",
        (message_id, BASIC, created, created, json.dumps(part)),
    )
    writer.commit()
    writer.close()
    shown = json.loads(cli_over(home, "show", BASIC, "--json").stdout)
    [result] = [
        e for e in shown if e["kind"] == "tool_result" and e["call_id"] == "call_shot"
    ]
    assert result["text"] == (
        "Image read successfully\n[file shot.png, image/png]\n[file image/jpeg]"
    )


def test_a_huge_value_of_a_view_is_shown_cut_as_a_tables_is(tmp_path: Path) -> None:
    """A part of over 4 MB in a `part` that is a view is shown with its long output cut
    and its size said, as the same part of a table is (`show --json` the same); before,
    the view's part was counted `too long` and its tool result was missing."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    database = home / ".local/share/opencode/opencode.db"
    state = {"status": "completed", "input": {"filePath": "/srv/huge.log"},
             "output": "z" * (5 * 1024 * 1024), "time": {"start": 1, "end": 2}}  # fmt: skip
    part = {"type": "tool", "callID": "call_huge", "tool": "read", "state": state}
    with contextlib.closing(sqlite3.connect(database)) as writer:
        message_id, created = writer.execute(
            "SELECT message_id, time_created FROM part WHERE session_id = ? "
            "ORDER BY id DESC",
            (BASIC,),
        ).fetchone()
        writer.execute(
            "INSERT INTO part (id, message_id, session_id, time_created, time_updated,"
            " data) VALUES ('prt_zzzz_huge', ?, ?, ?, ?, ?)",
            (message_id, BASIC, created, created, json.dumps(part)),
        )
        writer.commit()
    before = json.loads(cli_over(home, "show", BASIC, "--json").stdout)
    [cut] = [
        e for e in before if e["call_id"] == "call_huge" and e["kind"] == "tool_result"
    ]
    assert "5.0 MB" in cut["text"] and len(cut["text"]) < 100_000
    tables_as_views(database, "message", "part")
    after = cli_over(home, "show", BASIC, "--json", "--verbose")
    assert "too long" not in after.stderr
    assert json.loads(after.stdout) == before


def _unindexed_views(database: Path) -> None:
    """`message` and `part` copied into tables without a key or an index (a hand-made
    migration's `CREATE TABLE … AS SELECT`), each a view of its copy under its name."""
    with contextlib.closing(sqlite3.connect(database, isolation_level=None)) as db:
        for table in ("message", "part"):
            db.execute(f"CREATE TABLE {table}_copy AS SELECT * FROM {table}")
            db.execute(f"DROP TABLE {table}")
            db.execute(f"CREATE VIEW {table} AS SELECT * FROM {table}_copy")


def _sqlite_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, messages: int
) -> tuple[int, int]:
    """SQLite's steps (in thousands of VM instructions) to read a session of `messages`
    more messages of two parts each, kept in unindexed views; and its events."""
    home = tmp_path / f"home-{messages}"
    shutil.copytree(HOME, home)
    database = home / ".local/share/opencode/opencode.db"
    with contextlib.closing(sqlite3.connect(database)) as writer:
        (created,) = writer.execute(
            "SELECT max(time_created) FROM message WHERE session_id = ?", (BASIC,)
        ).fetchone()
        for n in range(messages):
            message_id, when = f"msg_zzzz{n:06d}", created + n + 1
            info = {"role": "user", "time": {"created": when}}
            writer.execute(
                "INSERT INTO message (id, session_id, time_created, time_updated, data)"
                " VALUES (?, ?, ?, ?, ?)",
                (message_id, BASIC, when, when, json.dumps(info)),
            )
            for p in range(2):
                text = {"type": "text", "text": f"line {n}.{p}"}
                writer.execute(
                    "INSERT INTO part (id, message_id, session_id, time_created,"
                    " time_updated, data) VALUES (?, ?, ?, ?, ?, ?)",
                    (f"prt_{message_id}_{p}", message_id, BASIC, when, when,
                     json.dumps(text)),
                )  # fmt: skip
        writer.commit()
    _unindexed_views(database)
    session = sessions(home)[BASIC]
    steps = [0]
    opened = databases.open_or_say

    def counted(*args: object, **options: object) -> sqlite3.Connection | None:
        connection = opened(*args, **options)  # type: ignore[arg-type]
        if connection is not None:
            connection.set_progress_handler(
                lambda: steps.__setitem__(0, steps[0] + 1), 1000
            )
        return connection

    with monkeypatch.context() as patched:
        patched.setattr(databases, "open_or_say", counted)
        found = list(opencode.read(session, Diagnostics()))
    return steps[0], len(found)


def test_a_session_in_unindexed_views_is_read_in_one_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Views over tables with no index (no rowid, no key to seek by): four times the
    parts cost SQLite at most about four times the work, each row read in the pass that
    lists it; before, every part and message was looked up by its id, a scan of the view
    each (300 -> 1200 messages: 16 times the work, minutes on a big session)."""
    small, small_events = _sqlite_work(tmp_path, monkeypatch, 300)
    large, large_events = _sqlite_work(tmp_path, monkeypatch, 1200)
    assert large_events - small_events == 900 * 2  # every part shown
    assert large < 6 * small, (small, large)


def _untitled_listing_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, count: int
) -> tuple[int, dict[str, str | None]]:
    """SQLite's steps (in thousands of VM instructions) to list the fixture with `count`
    more sessions of the placeholder title (a prompt and an answer each), `message` and
    `part` kept in unindexed views; and the titles of those sessions."""
    home = tmp_path / f"untitled-{count}"
    shutil.copytree(HOME, home)
    database = home / ".local/share/opencode/opencode.db"
    with contextlib.closing(sqlite3.connect(database)) as writer:
        project, folder, version, created = writer.execute(
            "SELECT project_id, directory, version, time_created FROM session"
        ).fetchone()
        for n in range(count):
            sid, when = f"ses_zzzz{n:06d}", created + 10 * n
            writer.execute(
                "INSERT INTO session (id, project_id, slug, directory, title, version,"
                " time_created, time_updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (sid, project, sid, folder, "New session - 2026-01-01T00:00:00.000Z",
                 version, when, when),
            )  # fmt: skip
            for m, role in enumerate(("user", "assistant")):
                message_id = f"msg_{sid}_{m}"
                info = {"role": role, "time": {"created": when + m}}
                writer.execute(
                    "INSERT INTO message (id, session_id, time_created, time_updated,"
                    " data) VALUES (?, ?, ?, ?, ?)",
                    (message_id, sid, when + m, when + m, json.dumps(info)),
                )  # fmt: skip
                text = {"type": "text", "text": f"{role} {n}"}
                writer.execute(
                    "INSERT INTO part (id, message_id, session_id, time_created,"
                    " time_updated, data) VALUES (?, ?, ?, ?, ?, ?)",
                    (f"prt_{message_id}", message_id, sid, when + m, when + m,
                     json.dumps(text)),
                )  # fmt: skip
        writer.commit()
    _unindexed_views(database)
    steps = [0]
    opened = databases.open_or_say

    def counted(*args: object, **options: object) -> sqlite3.Connection | None:
        connection = opened(*args, **options)  # type: ignore[arg-type]
        if connection is not None:
            connection.set_progress_handler(
                lambda: steps.__setitem__(0, steps[0] + 1), 1000
            )
        return connection

    with monkeypatch.context() as patched:
        patched.setattr(databases, "open_or_say", counted)
        listed = opencode.parse_database(database, Diagnostics())
    titles = {s.id: s.title for s in listed if s.id.startswith("ses_zzzz")}
    return steps[0], titles


def test_untitled_sessions_in_unindexed_views_are_listed_in_one_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sessions with the placeholder title are listed by their first prompt, read for
    them all in one pass over views without an index: four times the sessions cost
    SQLite at most about four times the work; before, each session's prompt was looked
    up by its id, a scan of the views each (100 -> 400 sessions: 16 times the work)."""
    small, small_titles = _untitled_listing_work(tmp_path, monkeypatch, 100)
    large, large_titles = _untitled_listing_work(tmp_path, monkeypatch, 400)
    assert large_titles == {f"ses_zzzz{n:06d}": f"user {n}" for n in range(400)}
    assert len(small_titles) == 100
    assert large < 6 * small, (small, large)


def test_a_retry_is_dated_when_it_happened_and_says_its_attempt(tmp_path: Path) -> None:
    """A `retry` part (OpenCode 1.18.33's message-v2 RetryPart: `attempt`, the API
    error, `time.created`) is shown at its own time with its attempt number; it was
    dated at its message's start, before the answer that failed, and said no attempt."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    with contextlib.closing(
        sqlite3.connect(home / ".local/share/opencode/opencode.db")
    ) as writer:
        message_id, created = writer.execute(
            "SELECT message_id, time_created FROM part WHERE session_id = ? "
            "ORDER BY id DESC",
            (BASIC,),
        ).fetchone()
        error = {"name": "APIError", "data": {"message": "Overloaded", "isRetryable": True}}  # fmt: skip
        part = {"type": "retry", "attempt": 2, "error": error,
                "time": {"created": created + 30_000}}  # fmt: skip
        writer.execute(
            "INSERT INTO part (id, message_id, session_id, time_created, time_updated,"
            " data) VALUES ('prt_zzzz_retry', ?, ?, ?, ?, ?)",
            (message_id, BASIC, created, created, json.dumps(part)),
        )
        writer.commit()
    shown = json.loads(cli_over(home, "show", BASIC, "--json").stdout)
    [retry] = [e for e in shown if e["extra"].get("retry")]
    assert retry["text"] == "Overloaded" and retry["extra"]["attempt"] == 2
    at = datetime.fromisoformat(retry["time"]).timestamp()
    assert at == (created + 30_000) / 1000
