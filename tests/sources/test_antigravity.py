"""Antigravity quirks: protobuf summaries in state.vscdb, encrypted conversations, agy transcripts."""

from __future__ import annotations

import base64
import json
import os
import shutil
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Session, merge
from sessdex.sources import Home, _protobuf, antigravity
from sessdex.views.records import iso
from tests.helpers import LIST_PATHS, list_rows

DATA = Path(__file__).parent.parent / "data" / "antigravity"
CLI, CLI_DB_ONLY = (
    "3f6c2d1a-8b4e-4c7f-9a10-2b3c4d5e6f70",
    "7d2e9f10-4a5b-4c6d-8e7f-9a0b1c2d3e4f",
)
IDE, IDE_BARE, LEGACY = (
    "a4316ff4-30d1-4849-a87c-facf37f2cb6c",
    "95fec432-25db-4e85-b4a6-9ba9fa8d1398",
    "c0ffee00-1234-4567-89ab-cdef01234567",
)


# a protobuf writer just big enough to build the values Antigravity stores
def varint(n: int) -> bytes:
    out = bytearray()
    while True:
        low, n = n & 0x7F, n >> 7
        out.append(low | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field(number: int, value: int | str | bytes) -> bytes:
    if isinstance(value, int):
        return varint(number << 3) + varint(value)
    data = value.encode() if isinstance(value, str) else value
    return varint(number << 3 | 2) + varint(len(data)) + data


def timestamp(seconds: int, nanos: int = 0) -> bytes:
    return field(1, seconds) + (field(2, nanos) if nanos else b"")


def sessions(home: Home, diagnostics: Diagnostics | None = None) -> dict[str, Session]:
    location = antigravity.locate(home)
    parts: dict[str, list[Session]] = {}
    for path in antigravity.scan(location):
        for session in antigravity.parse(path, location, diagnostics or Diagnostics()):
            parts.setdefault(session.id, []).append(session)
    return {key: merge(value) for key, value in parts.items()}


def events(session: Session) -> list[Event]:
    return list(antigravity.read(session, Diagnostics()))


def test_trajectory_summaries_decode_a_value_built_here() -> None:
    detail = (
        field(1, "Port the parser")
        + field(2, 141)
        + field(3, timestamp(1766194542, 250_000_000))
        + field(4, "28c63c12-1ca9-4a8d-803d-000000000000")
        + field(5, 1)
        + field(7, timestamp(1766194627))
        + field(9, field(1, "file:///home/dev/parser") + field(3, "parser"))
        + field(10, timestamp(1766194606))
        + varint(15 << 3 | 5) + b"\x01\x02\x03\x04"  # a fixed32 field nobody reads
        + varint(16 << 3 | 1) + b"\x00" * 8  # and a fixed64 one
    )  # fmt: skip
    entry = field(1, "0b7c5e4a-0000-4000-8000-000000000001") + field(
        2, field(1, base64.b64encode(detail))
    )
    value = base64.b64encode(
        field(1, entry) + field(1, field(1, "no-detail") + field(2, b""))
    ).decode()
    first, second = antigravity.trajectory_summaries(value)
    assert first == {
        "id": "0b7c5e4a-0000-4000-8000-000000000001",
        "title": "Port the parser",
        "steps": 141,
        "created": "2025-12-20T01:35:42.250000+00:00",
        "updated": "2025-12-20T01:37:07+00:00",
        "last_active": "2025-12-20T01:36:46+00:00",
        "workspace": "file:///home/dev/parser",
    }
    assert second == {"id": "no-detail"}


def test_the_walker_refuses_broken_input() -> None:
    assert _protobuf.fields(b"\x08\x96\x01") == [(1, 0, 150)]
    for broken in (
        b"\x08",
        b"\x0a\x05ab",
        b"\x0b",
        b"\x00\x01",
        b"\x08" + b"\xff" * 11,
    ):
        with pytest.raises(ValueError):
            _protobuf.fields(broken)
    with pytest.raises(ValueError):
        antigravity.trajectory_summaries("%%% not base64")


def test_encrypted_conversations_are_listed_not_failed() -> None:
    diagnostics = Diagnostics()
    found = sessions(Home.at(DATA / "home"), diagnostics)
    bare = found[IDE_BARE]
    assert (
        bare.listed
        and bare.title == antigravity.ENCRYPTED_TITLE
        and bare.extra["encrypted"] is True
    )
    assert (
        bare.updated is not None
        and bare.updated.isoformat() == "2026-10-02T00:13:20.505000+00:00"
    )
    got = events(bare)
    assert (
        [e.kind for e in got] == ["meta"] and got[0].text and "encrypted" in got[0].text
    )
    assert not diagnostics.skipped and not diagnostics.problems


def test_ide_summary_and_brain_artifacts_make_a_readable_session() -> None:
    found = sessions(Home.at(DATA / "home"))
    ide = found[IDE]
    assert (
        ide.title == "Adding Serif Font to AI Replies"
    )  # the summary beats the task.md heading
    assert ide.cwd == "/home/alex/code/site" and ide.extra["steps"] == 141
    got = events(ide)
    assert [(e.kind, e.extra.get("artifact")) for e in got] == [
        ("meta", None),
        ("assistant", "task.md"),
        ("assistant", "implementation_plan.md"),
        ("assistant", "walkthrough.md"),
    ]
    assert all(e.time_estimated for e in got[1:])


def test_a_summary_without_files_does_not_list() -> None:
    found = sessions(Home.at(DATA / "home"))
    assert not found["0e1d2c3b-4a59-4687-9a5b-4c3d2e1f0a98"].listed
    assert found[LEGACY].listed and found[LEGACY].title == "Antigravity fixture"


def test_agy_transcript_events() -> None:
    session = sessions(Home.at(DATA / "home"))[CLI]
    got = events(session)
    assert got[0].kind == "user" and got[0].text == "List the files."
    assert got[1].extra == {"model": "Gemini 3.5 Flash (Medium)"}
    call = next(e for e in got if e.kind == "tool_call")
    assert call.tool == "list_dir"
    assert call.extra["input"] == {
        "DirectoryPath": "/tmp/repo",
        "toolSummary": "Listing contents",
    }
    assert got[got.index(call) + 1].call_id == call.call_id
    assert [e.kind for e in got].count("compaction") == 1
    assert session.extra["steps"] == 12  # from the agy database beside it


def test_agy_database_rows_in_an_unmerged_wal_are_counted(tmp_path: Path) -> None:
    conversations = tmp_path / "home" / ".gemini" / "antigravity-cli" / "conversations"
    conversations.mkdir(parents=True)
    path = conversations / "5a5a5a5a-0000-4000-8000-000000000000.db"
    writer = sqlite3.connect(path)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute(
        "CREATE TABLE steps (idx INTEGER PRIMARY KEY, step_type INTEGER, status INTEGER, metadata BLOB, step_payload BLOB)"
    )
    writer.executemany(
        "INSERT INTO steps VALUES (?, 1, 1, x'', x'')", [(i,) for i in range(4)]
    )
    writer.commit()
    try:
        assert (path.parent / (path.name + "-wal")).stat().st_size > 0
        before = sorted(p.name for p in conversations.iterdir())
        [session] = sessions(Home.at(tmp_path / "home")).values()
        assert session.extra["steps"] == 4
        assert (
            sorted(p.name for p in conversations.iterdir()) == before
        )  # nothing written beside it
    finally:
        writer.close()


def test_resume_only_for_agy_conversations() -> None:
    found = sessions(Home.at(DATA / "home"))
    plan = antigravity.resume(found[CLI])
    assert plan is not None and plan.argv == ("agy", f"--conversation={CLI}")
    assert plan.cwd == "/tmp/repo" and any("guessed" in note for note in plan.notes)
    assert antigravity.resume(found[CLI_DB_ONLY]) is None  # no folder known
    assert (
        antigravity.resume(found[IDE]) is None
    )  # the IDE reopens its own conversations


def copied_transcript(tmp_path: Path) -> tuple[Path, Path, list[dict[str, object]]]:
    """A copy of the fixture home, the agy transcript's folder in it, and its steps."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    logs = home / ".gemini/antigravity-cli/brain" / CLI / ".system_generated/logs"
    lines = (logs / "transcript.jsonl").read_text().splitlines()
    return home, logs, [json.loads(line) for line in lines]


def test_the_whole_transcript_wins_and_newer_step_types(tmp_path: Path) -> None:
    """`transcript_full.jsonl` keeps what `transcript.jsonl` clips (public readers prefer
    it, and the IDE writes it); GENERATE_RESPONSE is a model answer, TOOL_RESPONSE a tool
    step; `<ADDITIONAL_METADATA>` is not what the user typed."""
    home, logs, steps = copied_transcript(tmp_path)
    for step in steps:
        if step.get("truncated_fields"):
            step["content"] += " (and the rest)"
            del step["truncated_fields"]
    steps += [
        {"step_index": 90, "source": "USER_EXPLICIT", "type": "USER_INPUT", "status": "DONE",
         "created_at": "2026-06-26T21:17:00Z",
         "content": "Now count them.\n<ADDITIONAL_METADATA>cursor at a.txt:1</ADDITIONAL_METADATA>"},
        {"step_index": 91, "source": "SYSTEM", "type": "TOOL_RESPONSE", "status": "DONE",
         "created_at": "2026-06-26T21:17:01Z", "content": "2"},
        {"step_index": 92, "source": "MODEL", "type": "GENERATE_RESPONSE", "status": "DONE",
         "created_at": "2026-06-26T21:17:02Z", "content": "There are 2 files."},
    ]  # fmt: skip
    (logs / "transcript_full.jsonl").write_text(
        "".join(json.dumps(s) + "\n" for s in steps)
    )
    location = antigravity.locate(Home.at(home))
    assert [p.name for p in antigravity.scan(location) if p.suffix == ".jsonl"] == [
        "transcript_full.jsonl"
    ]
    diagnostics = Diagnostics()
    got = list(antigravity.read(sessions(Home.at(home))[CLI], diagnostics))
    assert not diagnostics.unknown
    said = [e.text for e in got if e.kind == "assistant"]
    assert said[-2:] == [
        "The directory contains a.txt and b.txt. (and the rest)",
        "There are 2 files.",
    ]
    assert [e.text for e in got if e.kind == "user"][-1] == "Now count them."


def test_a_tool_name_that_is_not_text_is_not_a_crash(tmp_path: Path) -> None:
    home, logs, steps = copied_transcript(tmp_path)
    for step in steps:
        for call in step.get("tool_calls", []):
            call["name"] = 5  # found by the CLI fuzzer
    (logs / "transcript.jsonl").write_text("".join(json.dumps(s) + "\n" for s in steps))
    got = events(sessions(Home.at(home))[CLI])
    assert all(e.tool is None or isinstance(e.tool, str) for e in got)


def test_a_conversation_with_no_time_of_its_own_is_dated_by_its_last_write(
    tmp_path: Path,
) -> None:
    """An agy database records no time: its age comes from when it (or its WAL) was
    last written, instead of '?'; a time the app records still wins."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    conversations = home / ".gemini" / "antigravity-cli" / "conversations"
    database = conversations / f"{CLI_DB_ONLY}.db"
    os.utime(database, (1_790_000_000, 1_790_000_000))
    found = sessions(Home.at(home))
    assert found[CLI_DB_ONLY].updated == datetime.fromtimestamp(1_790_000_000, UTC)
    wal = conversations / f"{CLI_DB_ONLY}.db-wal"
    wal.write_bytes(b"")
    os.utime(wal, (1_790_000_600, 1_790_000_600))
    found = sessions(Home.at(home))
    assert found[CLI_DB_ONLY].updated == datetime.fromtimestamp(1_790_000_600, UTC)
    bare = found[IDE_BARE]  # the IDE's own last-active time beats the file's
    assert bare.updated is not None
    assert bare.updated.isoformat() == "2026-10-02T00:13:20.505000+00:00"


def test_a_conversation_database_gives_its_workspace_start_model_and_usage(
    tmp_path: Path,
) -> None:
    """agy's `conversations/<id>.db` keeps each model call in `gen_metadata` (protobuf:
    1 the call; 4 its usage: 1 system and 2 other input, 5 cache reads, 9 output, 10
    thinking, 11 the response id; 9.4 its time; 19 the model) and the workspace and start
    in `trajectory_metadata_blob` (as tokscale and codeburn decode them). The conversation
    lists in its workspace, and each call is one usage event, its thinking billed as
    output (Google bills thoughts at the output rate)."""
    home = tmp_path / "home"
    folder = home / ".gemini" / "antigravity-cli" / "conversations"
    folder.mkdir(parents=True)
    conversation = "0a0a0a0a-1111-4222-8333-444455556666"
    db = sqlite3.connect(folder / f"{conversation}.db")
    db.execute(
        "CREATE TABLE steps (idx INTEGER PRIMARY KEY, step_type INTEGER, step_payload BLOB)"
    )
    db.execute("CREATE TABLE trajectory_metadata_blob (id TEXT PRIMARY KEY, data BLOB)")
    db.execute(
        "CREATE TABLE gen_metadata (idx INTEGER PRIMARY KEY, data BLOB, size INTEGER)"
    )
    db.execute("INSERT INTO steps VALUES (0, 1, x'00'), (1, 2, x'00')")
    start = 1_785_140_200
    db.execute(
        "INSERT INTO trajectory_metadata_blob VALUES ('main', ?)",
        (field(1, field(1, "file:///home/dev/shop")) + field(2, timestamp(start)),),
    )

    def call(
        seconds: int, system: int, other: int, cached: int, out: int, think: int
    ) -> bytes:
        usage = (field(1, system) + field(2, other) + field(5, cached) + field(9, out)
                 + field(10, think) + field(11, f"resp-{seconds}"))  # fmt: skip
        info = field(4, timestamp(seconds))
        return field(1, field(4, usage) + field(9, info) + field(19, "gemini-3-flash"))

    for idx, row in enumerate(
        [call(start + 5, 900, 100, 0, 40, 10), call(start + 9, 900, 150, 800, 60, 0)]
    ):
        db.execute("INSERT INTO gen_metadata VALUES (?, ?, ?)", (idx, row, len(row)))
    db.commit()
    db.close()
    session = sessions(Home.at(home))[conversation]
    assert (session.cwd, session.model) == ("/home/dev/shop", "gemini-3-flash")
    assert session.created == datetime.fromtimestamp(start, UTC)
    diagnostics = Diagnostics()
    found = list(antigravity.read(session, diagnostics))
    assert not diagnostics.problems
    usage = [e for e in found if e.kind == "usage"]
    assert [(u.usage.input_tokens, u.usage.output_tokens, u.usage.cache_read_tokens,
             u.usage.reasoning_tokens) for u in usage if u.usage] == [
        (1000, 50, 0, 10), (1050, 60, 800, 0)]  # fmt: skip
    assert [u.time for u in usage] == [
        datetime.fromtimestamp(start + 5, UTC),
        datetime.fromtimestamp(start + 9, UTC),
    ]
    assert usage[0].extra == {"response": f"resp-{start + 5}"}


def test_the_newer_ides_config_folder_is_read_too(tmp_path: Path) -> None:
    """Newer IDE builds keep their state under `Antigravity IDE/` (third-party readers of
    macOS, Linux and Windows installs): its summaries name the conversations as well."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    old = home / ".config" / "Antigravity"
    old.rename(home / ".config" / "Antigravity IDE")
    assert sessions(Home.at(home))[IDE].title == "Adding Serif Font to AI Replies"
    # on Linux the IDE follows `XDG_CONFIG_HOME`, as Electron resolves it
    (home / ".config").rename(tmp_path / "xdg")
    assert sessions(Home.at(home))[IDE].title != "Adding Serif Font to AI Replies"
    moved = Home(home, {"XDG_CONFIG_HOME": str(tmp_path / "xdg")})
    assert sessions(moved)[IDE].title == "Adding Serif Font to AI Replies"


def test_a_task_heading_saved_with_a_byte_order_mark_still_titles(
    tmp_path: Path,
) -> None:
    import shutil

    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    task = (
        home / ".gemini/antigravity/brain/c0ffee00-1234-4567-89ab-cdef01234567/task.md"
    )
    before = sessions(Home.at(DATA / "home"))[
        "c0ffee00-1234-4567-89ab-cdef01234567"
    ].title
    task.write_bytes(b"\xef\xbb\xbf" + task.read_bytes())
    after = sessions(Home.at(home))["c0ffee00-1234-4567-89ab-cdef01234567"].title
    assert after == before and after is not None


def test_agy_1_3_tool_outputs_are_generic_steps_that_answer_the_calls_in_order(
    tmp_path: Path,
) -> None:
    """agy 1.3 writes each tool's output as a `GENERIC` step (`Created At: …` then the
    output) after the PLANNER_RESPONSE that made the calls, in call order; a GENERIC step
    with no call waiting is still the model's words (shape from a public agy transcript
    reader's tests, the sibling of Maxteabag/clarp `server/lib/agy_transcript.py`)."""
    home, logs, steps = copied_transcript(tmp_path)
    steps += [
        {"step_index": 90, "source": "USER_EXPLICIT", "type": "USER_INPUT", "status": "DONE",
         "created_at": "2026-06-26T21:17:00Z", "content": "<USER_REQUEST>check</USER_REQUEST>"},
        {"step_index": 91, "source": "MODEL", "type": "PLANNER_RESPONSE", "status": "DONE",
         "created_at": "2026-06-26T21:17:01Z", "content": "Looking.",
         "tool_calls": [
             {"name": "view_file", "args": {"AbsolutePath": '"/tmp/repo/a.txt"'}},
             {"name": "run_command", "args": {"CommandLine": '"false"', "Cwd": '"/tmp/repo"'}},
         ]},
        {"step_index": 92, "source": "MODEL", "type": "GENERIC", "status": "DONE",
         "created_at": "2026-06-26T21:17:02Z",
         "content": "Created At: 2026-06-26T21:17:02Z\n\nFile Path: /tmp/repo/a.txt\n1: hello"},
        {"step_index": 93, "source": "MODEL", "type": "GENERIC", "status": "DONE",
         "created_at": "2026-06-26T21:17:03Z",
         "content": "Created At: 2026-06-26T21:17:03Z\n\nThe command exited with code 1.\nOutput:\nboom"},
        {"step_index": 94, "source": "MODEL", "type": "PLANNER_RESPONSE", "status": "DONE",
         "created_at": "2026-06-26T21:17:04Z", "content": "Done."},
        {"step_index": 95, "source": "MODEL", "type": "GENERIC", "status": "DONE",
         "created_at": "2026-06-26T21:17:05Z", "content": "A closing note."},
    ]  # fmt: skip
    (logs / "transcript.jsonl").write_text("".join(json.dumps(s) + "\n" for s in steps))
    got = events(sessions(Home.at(home))[CLI])
    tail = got[next(i for i, e in enumerate(got) if e.text == "check") :]
    assert [(e.kind, e.tool) for e in tail] == [
        ("user", None),
        ("assistant", None),
        ("tool_call", "view_file"),
        ("tool_call", "run_command"),
        ("tool_result", None),
        ("tool_result", None),
        ("assistant", None),
        ("assistant", None),
    ]
    assert (tail[4].call_id, tail[5].call_id) == (tail[2].call_id, tail[3].call_id)
    assert tail[5].text and tail[5].text.endswith("boom")
    assert [e.text for e in tail[-2:]] == ["Done.", "A closing note."]


def test_agys_catalog_names_title_folder_and_parent(tmp_path: Path) -> None:
    """`antigravity-cli/conversation_summaries.db` (agy's index: SQLite, user_version 3,
    one `conversation_summaries` row per conversation with `title` or `preview`,
    `workspace_uris` as a JSON array, `parent_conversation_id` for a sub-agent's; schema
    as a public agy storage write-up quotes it) fills in what the conversation files
    lack; a catalog row alone lists nothing."""
    home, _logs, _steps = copied_transcript(tmp_path)
    catalog = home / ".gemini/antigravity-cli/conversation_summaries.db"
    db = sqlite3.connect(catalog)
    db.execute(
        "CREATE TABLE conversation_summaries (conversation_id TEXT PRIMARY KEY,"
        " title TEXT NOT NULL DEFAULT '', preview TEXT NOT NULL DEFAULT '',"
        " step_count INTEGER NOT NULL DEFAULT 0, last_modified_time DATETIME NOT NULL,"
        " workspace_uris TEXT NOT NULL, parent_conversation_id TEXT NOT NULL DEFAULT '',"
        " nesting_depth INTEGER NOT NULL DEFAULT 0, agent_name TEXT NOT NULL DEFAULT '',"
        " raw_summary BLOB)"
    )
    db.executemany(
        "INSERT INTO conversation_summaries (conversation_id, title, preview, step_count,"
        " last_modified_time, workspace_uris, parent_conversation_id, nesting_depth,"
        " agent_name) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (CLI, "", "Listing the repo files", 12, "2026-06-26 21:20:00+00:00",
             '["file:///tmp/repo"]', "", 0, ""),
            (CLI_DB_ONLY, "Count the files", "", 3, "2026-06-26 21:21:00+00:00",
             '["file:///tmp/repo"]', CLI, 1, "explorer"),
            ("00000000-0000-4000-8000-0000000000ff", "Gone", "", 1,
             "2026-06-26 21:22:00+00:00", "[]", "", 0, ""),
        ],
    )  # fmt: skip
    db.commit()
    db.close()
    found = sessions(Home.at(home))
    before = sessions(Home.at(DATA / "home"))
    assert {k for k, s in found.items() if s.listed} == {
        k for k, s in before.items() if s.listed
    }
    assert (found[CLI].title, found[CLI].cwd) == ("Listing the repo files", "/tmp/repo")
    assert found[CLI].updated == datetime(2026, 6, 26, 21, 20, tzinfo=UTC)
    child = found[CLI_DB_ONLY]
    assert (child.title, child.cwd, child.parent_id, child.agent_type) == (
        "Count the files",
        "/tmp/repo",
        CLI,
        "explorer",
    )


def test_agys_last_conversation_map_gives_a_folder_nothing_else_does(
    tmp_path: Path,
) -> None:
    """`antigravity-cli/cache/last_conversations.json` maps each folder agy ran in to the
    last conversation there (what `agy --continue` opens; the shape third-party agy
    wrappers read and write, said unchanged at agy 1.0.15). It places a conversation
    whose own files name no folder, so resume opens it there rather than in a folder
    guessed from the first one the agent listed; what the conversation's database or
    agy's catalog say wins, and an entry alone lists nothing."""
    home, _logs, _steps = copied_transcript(tmp_path)
    cache = home / ".gemini/antigravity-cli/cache"
    gone = "00000000-0000-4000-8000-0000000000ee"
    entries = {"/home/dev/shop": CLI, "/home/dev/old": gone, "relative": CLI_DB_ONLY}
    entries["C:\\Users\\dev\\site"] = CLI_DB_ONLY
    (cache / "last_conversations.json").write_text(json.dumps(entries))
    diagnostics = Diagnostics()
    found = sessions(Home.at(home), diagnostics)
    assert found[CLI].cwd == "/home/dev/shop"
    assert found[CLI_DB_ONLY].cwd == "C:\\Users\\dev\\site"
    assert not found[gone].listed
    assert diagnostics.unknown == {"last_conversations entry": 1}  # not a folder
    plan = antigravity.resume(found[CLI])
    assert plan is not None and plan.cwd == "/home/dev/shop" and not plan.notes[1:]
    # agy's catalog knows the folder better
    catalog = home / ".gemini/antigravity-cli/conversation_summaries.db"
    db = sqlite3.connect(catalog)
    db.execute(
        "CREATE TABLE conversation_summaries (conversation_id TEXT PRIMARY KEY,"
        " workspace_uris TEXT NOT NULL)"
    )
    db.execute(
        "INSERT INTO conversation_summaries VALUES (?, ?)",
        (CLI, '["file:///srv/shop"]'),
    )
    db.commit()
    db.close()
    assert sessions(Home.at(home))[CLI].cwd == "/srv/shop"
    # a file that is no such map is said, not a crash
    (cache / "last_conversations.json").write_text("[1, 2]")
    diagnostics = Diagnostics()
    assert sessions(Home.at(home), diagnostics)[CLI].cwd == "/srv/shop"
    assert any("last_conversations.json" in p for p in diagnostics.problems)


def test_a_conversation_whose_steps_are_not_counted_says_no_none(
    tmp_path: Path,
) -> None:
    """A conversation database sessdex cannot count the steps of (a damaged file, one
    with no `steps` table yet): `show` said "this conversation's None steps"."""
    conversations = tmp_path / "home" / ".gemini" / "antigravity-cli" / "conversations"
    conversations.mkdir(parents=True)
    (conversations / "5b5b5b5b-0000-4000-8000-000000000000.db").write_bytes(
        b"not a database, but named like one" * 200
    )
    diagnostics = Diagnostics()
    [session] = sessions(Home.at(tmp_path / "home"), diagnostics).values()
    assert "steps" not in session.extra
    assert any("file is not a database" in p for p in diagnostics.problems)
    said = [e.text or "" for e in events(session) if e.kind == "meta"]
    assert said == ["agy stores this conversation's steps as protobuf; not decoded"]


@LIST_PATHS
def test_a_transcript_cut_to_nothing_dates_its_conversation_warm_as_cold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, listing: str
) -> None:
    """agy cut a conversation's transcript to nothing (a rewrite, between its truncate
    and its write): the transcript's last write and its database's tie as the time it
    was last written, and a warm list said the one read again, a cold one the one
    listed first. Both say the newest now."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    cli = home / ".gemini" / "antigravity-cli"
    database = cli / "conversations" / f"{CLI}.db"
    transcript = next((cli / "brain" / CLI).rglob("transcript.jsonl"))
    os.utime(database, (1_790_000_000, 1_790_000_000))

    def updated(state: str) -> object:
        rows = list_rows(home, tmp_path / state, monkeypatch, "--all", listing=listing)
        return rows[CLI]["updated"]

    assert updated("warm") == "2026-06-26T21:16:26.000Z"  # its last step's time
    transcript.write_bytes(b"")
    os.utime(transcript, (1_790_000_600, 1_790_000_600))
    written = iso(datetime.fromtimestamp(1_790_000_600, UTC))
    assert updated("warm") == updated("cold") == written


def test_an_artifact_rewritten_dates_its_conversation_warm_as_cold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A conversation only its brain's artifacts list is as new as the newest of them:
    one rewritten, a warm list said its time, a cold one the first artifact's."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    brain = home / ".gemini" / "antigravity" / "brain" / LEGACY
    walkthrough = brain / "walkthrough.md"
    walkthrough.write_text("# Walkthrough\n\nDone.\n")
    for artifact in (brain / "task.md", walkthrough):
        os.utime(artifact, (1_790_000_000, 1_790_000_000))

    def updated(state: str) -> object:
        return list_rows(home, tmp_path / state, monkeypatch, "--all")[LEGACY][
            "updated"
        ]

    assert updated("warm") == iso(datetime.fromtimestamp(1_790_000_000, UTC))
    walkthrough.write_text("# Walkthrough\n\nDone, and tested.\n")
    os.utime(walkthrough, (1_790_000_600, 1_790_000_600))
    written = iso(datetime.fromtimestamp(1_790_000_600, UTC))
    assert updated("warm") == updated("cold") == written


def test_a_negative_count_in_a_model_call_is_said_and_bills_0(tmp_path: Path) -> None:
    """A count of -5 (an int64 that protobuf writes as 2**64 - 5) or one past 2**53 is no
    count agy writes: it was summed into the call's input, which `usage` then billed as
    0 whole (the 900 system tokens beside it gone). It bills 0 alone, and is said."""
    from click.testing import CliRunner

    from sessdex.cli import main

    home = tmp_path / "home"
    folder = home / ".gemini" / "antigravity-cli" / "conversations"
    folder.mkdir(parents=True)
    conversation = "0a0a0a0a-1111-4222-8333-444455556666"
    db = sqlite3.connect(folder / f"{conversation}.db")
    db.execute(
        "CREATE TABLE steps (idx INTEGER PRIMARY KEY, step_type INTEGER, step_payload BLOB)"
    )
    db.execute("CREATE TABLE trajectory_metadata_blob (id TEXT PRIMARY KEY, data BLOB)")
    db.execute(
        "CREATE TABLE gen_metadata (idx INTEGER PRIMARY KEY, data BLOB, size INTEGER)"
    )
    db.execute("INSERT INTO steps VALUES (0, 1, x'00')")
    start = 1_785_140_200
    db.execute(
        "INSERT INTO trajectory_metadata_blob VALUES ('main', ?)",
        (field(1, field(1, "file:///home/dev/shop")) + field(2, timestamp(start)),),
    )
    usage = field(1, 900) + field(2, 2**64 - 5) + field(9, 40) + field(10, 10)
    info = field(4, timestamp(start + 5))
    row = field(1, field(4, usage) + field(9, info) + field(19, "gemini-3-flash"))
    db.execute("INSERT INTO gen_metadata VALUES (0, ?, ?)", (row, len(row)))
    db.commit()
    db.close()
    argv = ["usage", "session", "--json", "--verbose", "--app", "antigravity"]
    result = CliRunner().invoke(
        main, [*argv, "--home", str(home)], env={"SESSDEX_HOME": str(tmp_path / "s")}
    )
    assert result.exit_code == 0, result.output
    (found,) = [r for r in json.loads(result.stdout) if r["id"] == conversation]
    assert (found["input_tokens"], found["output_tokens"]) == (900, 50)
    assert "warning: read 1 response with an odd token count" in result.stderr
    where = f"{folder / conversation}.db#gen_metadata:0: odd token count in a response"
    assert where in result.stderr
