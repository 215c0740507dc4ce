"""Zed quirks: one threads.db (WAL while Zed runs), zstd or JSON rows, the current and the
first agent's thread shapes, sub-agent threads read inside their lead, usage from Zed's
counters, no command to resume a thread."""

from __future__ import annotations

import base64
import json
import shutil
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest
import zstandard
from click.testing import CliRunner

from sessdex import files, usage
from sessdex.cli import main
from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Session, merge
from sessdex.sources import Home, zed
from tests.helpers import cli_over, tables_as_views

DATA = Path(__file__).parent.parent / "data" / "zed"
HOME = DATA / "home"
THREADS = Path(".local/share/zed/threads")
LEAD = "8c1f4e2a-6b3d-4c5e-9f70-1a2b3c4d5e6f"
CHILD = "5d2e7a90-3c4b-4d6e-8f1a-2b3c4d5e6f70"
LEGACY = "2f9a8b7c-1d2e-4f3a-8b4c-5d6e7f8a9b0c"
OLDEST = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
FIRST = "7e6d5c4b-3a29-4180-9f7e-6d5c4b3a2918"


def sessions(
    home: Path = HOME,
    diagnostics: Diagnostics | None = None,
    environ: dict[str, str] | None = None,
) -> dict[str, Session]:
    diagnostics = diagnostics if diagnostics is not None else Diagnostics()
    location = zed.locate(Home(home, environ) if environ is not None else Home.at(home))
    fragments: dict[str, list[Session]] = {}
    for path in zed.scan(location):
        for session in zed.parse(path, location, diagnostics):
            fragments.setdefault(session.id, []).append(session)
    return {key: merge(parts) for key, parts in fragments.items()}


def events(session: Session) -> list[Event]:
    diagnostics = Diagnostics()
    found = list(zed.read(session, diagnostics))
    assert not diagnostics.skipped_total and not diagnostics.unknown
    assert not diagnostics.problems
    return found


def copy(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    return home


def test_threads_are_listed_with_their_title_folder_and_times() -> None:
    found = sessions()
    lead = found[LEAD]
    assert lead.title == "Add retry to checkout"
    # two folders: the first opened (folder_paths_order "1,0"), not the first sorted
    assert lead.cwd == "/home/alex/code/shop-api"
    assert lead.extra["folders"] == [
        "/home/alex/code/shop-api",
        "/home/alex/code/lib-retry",
    ]
    assert (
        lead.created is not None
        and lead.created.isoformat() == "2026-12-01T11:00:00+00:00"
    )
    assert (
        lead.updated is not None
        and lead.updated.isoformat() == "2026-12-01T11:05:30.250000+00:00"
    )
    assert (found[CHILD].parent_id, found[CHILD].agent_type) == (LEAD, "subagent")
    # rows from before the folder columns: the folder (and branch) the thread started in
    assert (found[LEGACY].cwd, found[LEGACY].branch) == ("/home/alex/code/blog", "main")
    assert (
        found[FIRST].cwd == "/home/alex/code/shop-api" and found[FIRST].created is None
    )
    assert found[OLDEST].cwd is None  # the first shape kept no project snapshot


def test_the_lead_thread_reads_in_order_with_its_sub_agent_inside() -> None:
    found = events(sessions()[LEAD])
    kinds = [(e.kind, e.agent_id is not None) for e in found]
    assert [k for k, child in kinds if not child] == [
        "user", "thinking", "assistant", "tool_call", "tool_result",
        "tool_call", "tool_call", "subagent", "tool_result", "tool_result",
        "thinking", "assistant", "usage", "turn_end",
        "user", "tool_call", "tool_result", "meta", "assistant", "usage", "turn_end",
        "usage",  # what the running sum holds beyond the turns' last requests
    ]  # fmt: skip
    user = found[0]
    assert (
        user.text
        == "Add a retry to the checkout call in @checkout.py and find who calls it."
    )
    assert user.extra["mentions"] == ["/home/alex/code/shop-api/src/checkout.py"]
    second = next(
        e for e in found if e.kind == "user" and e is not user and e.agent_id is None
    )
    assert second.text == "Thanks, run the tests; mind @diff against main"
    calls = {e.call_id: e for e in found if e.kind == "tool_call"}
    results = {e.call_id: e for e in found if e.kind == "tool_result"}
    assert (
        set(calls)
        == set(results)
        == {"toolu_01", "toolu_02", "toolu_03", "toolu_04", "toolu_11"}
    )
    assert calls["toolu_04"].tool == "terminal" and calls["toolu_04"].extra["input"] == {"command": "pytest -q", "cd": "shop-api"}  # fmt: skip
    assert results["toolu_03"].is_error and not results["toolu_01"].is_error
    # the sub-agent's events come between its spawn and the spawn's result, by its own id
    spawn = next(e for e in found if e.kind == "subagent")
    assert (spawn.call_id, spawn.extra["child_id"]) == ("toolu_02", CHILD)
    assert spawn.text == "List every caller of checkout()."  # the task it was given
    assert spawn.extra["agent_name"] == "Find callers of checkout"  # the call's label
    # the result is the sub-agent's last answer, as Zed hands it to the model
    assert results["toolu_02"].text == "Two callers: api/views.py and jobs/nightly.py."
    inside = [e for e in found if e.agent_id == CHILD]
    assert spawn.seq < inside[0].seq and inside[-1].seq < results["toolu_02"].seq
    assert inside[0].kind == "user" and inside[0].extra["from_agent"] == "the lead"
    assert [e.kind for e in inside] == ["user", "tool_call", "tool_result", "assistant", "usage", "turn_end"]  # fmt: skip
    redacted = [e for e in found if e.kind == "thinking" and e.extra.get("redacted")]
    assert [e.text for e in redacted] == ["[redacted thinking]"]


def test_legacy_threads_read_as_zed_upgrades_them() -> None:
    found = sessions()
    legacy = events(found[LEGACY])
    assert [e.kind for e in legacy] == ["user", "thinking", "assistant", "tool_call", "tool_result", "assistant", "usage", "turn_end", "usage"]  # fmt: skip
    call, result = legacy[3], legacy[4]
    assert (call.tool, call.call_id, result.call_id, result.tool) == ("read_file", "toolu_21", "toolu_21", "read_file")  # fmt: skip
    # 0.1.0: the tool's result rode on the next user message, which is no prompt
    first = events(found[FIRST])
    assert [e.kind for e in first] == ["user", "assistant", "tool_call", "tool_result", "assistant", "turn_end", "usage"]  # fmt: skip
    assert first[3].text == "0001_init.sql\n0002_orders.sql"
    oldest = events(found[OLDEST])
    assert [(e.kind, e.text) for e in oldest[:2]] == [
        ("user", "Rename load_cfg to load_config everywhere."),
        ("assistant", "Renamed in 3 files."),
    ]


def test_usage_totals_are_zeds_counters_hand_checked() -> None:
    lead = [e for e in events(sessions()[LEAD]) if e.kind == "usage"]
    # the sub-agent's one turn (no running sum: a floor), the lead's two turns (each its
    # last request), then what the lead's running sum holds beyond them
    assert [(e.agent_id, e.extra["scope"]) for e in lead] == [(CHILD, "turn"), (None, "turn"), (None, "turn"), (None, "session")]  # fmt: skip
    child, rest = lead[0].usage, lead[3].usage
    assert child is not None and rest is not None
    turns = [(u.input_tokens, u.output_tokens, u.cache_read_tokens, u.model) for u in (e.usage for e in lead[1:3]) if u]  # fmt: skip
    assert turns == [(900, 400, 6000, "claude-sonnet-4-5"), (300, 60, 6000, "claude-sonnet-4-5")]  # fmt: skip
    assert (rest.input_tokens, rest.output_tokens, rest.cache_read_tokens, rest.cache_write_tokens) == (2000, 450, 0, 1500)  # fmt: skip
    assert (rest.model, lead[3].extra["provider"], lead[3].extra["summed"]) == (
        "claude-sonnet-4-5",
        "anthropic",
        True,
    )
    assert (child.input_tokens, child.output_tokens, child.model) == (
        700,
        90,
        "claude-haiku-4-5",
    )
    assert (
        lead[3].time is not None and lead[3].time_estimated
    )  # the thread's last write
    result = usage.run(Home.at(HOME), "model", apps=("zed",), filters=usage.Filters())
    by_model = {
        row.key: (row.input_tokens, row.output_tokens, row.cache_read_tokens)
        for row in result.rows
    }
    # the sub-agent counts once, inside its lead; each thread's total its running sum
    assert by_model["claude-sonnet-4-5"] == (3200, 910, 12000)
    assert by_model["claude-haiku-4-5"] == (700, 90, 0)
    assert by_model["claude-3-7-sonnet-latest"] == (2400, 350, 0)


def test_resume_gives_no_command_and_says_how_to_reopen_the_thread(
    tmp_path: Path,
) -> None:
    found = sessions()
    assert all(zed.resume(s) is None for s in found.values())
    said = zed.resume_refusal(found[LEAD])
    assert said is not None
    assert "no command" in said and "Agent Panel" in said
    assert "/home/alex/code/shop-api" in said and '"Add retry to checkout"' in said
    child = zed.resume_refusal(found[CHILD])
    assert child is not None and f"zed:{LEAD}" in child
    result = CliRunner().invoke(
        main, ["resume", LEAD[:8], "--home", str(copy(tmp_path))]
    )
    assert result.exit_code == 1
    assert "Agent Panel" in result.stderr
    assert "zed " not in result.stdout  # no command to run is printed


def test_newest_rows_in_the_wal_are_listed_and_nothing_is_written(
    tmp_path: Path,
) -> None:
    home = copy(tmp_path)
    folder = home / THREADS
    writer = sqlite3.connect(folder / "threads.db")
    try:
        writer.execute("PRAGMA journal_mode=WAL")
        writer.execute("PRAGMA wal_autocheckpoint=0")
        thread = {"title": "Only in the WAL", "messages": [{"User": {"id": "u", "content": [{"Text": "hello"}]}}],
                  "updated_at": "2026-12-02T08:00:05+00:00", "version": "0.3.0"}  # fmt: skip
        data = zstandard.ZstdCompressor(level=3).compress(json.dumps(thread).encode())
        writer.execute(
            "INSERT INTO threads (id, summary, updated_at, data_type, data, folder_paths, "
            "folder_paths_order, created_at) VALUES ('wal-1', 'Only in the WAL', "
            "'2026-12-02T08:00:05+00:00', 'zstd', ?, '/home/alex/code/new', '0', "
            "'2026-12-02T08:00:00+00:00')",
            (data,),
        )
        writer.commit()
        assert (folder / "threads.db-wal").stat().st_size > 0
        before = {
            p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.iterdir()
        }
        found = sessions(home)
        assert found["wal-1"].title == "Only in the WAL"
        assert found["wal-1"].cwd == "/home/alex/code/new"
        assert [e.text for e in events(found["wal-1"])] == ["hello"]
        assert LEAD in found
        after = {
            p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.iterdir()
        }
        assert after == before
    finally:
        writer.close()


def test_damaged_rows_are_counted_never_raised() -> None:
    diagnostics = Diagnostics()
    found = sessions(DATA / "malformed" / "home", diagnostics)
    # every row is listed from its columns, whatever its data holds
    assert {"bad-zstd", "cut-json", "cut-frame", "not-object", "odd-kinds", "lz4-data", "42", "orphan"} <= set(found)  # fmt: skip
    assert found["orphan"].parent_id is None  # its lead is gone: listed on its own
    for session in found.values():
        list(zed.read(session, diagnostics))
    reasons = {
        path.rpartition("/")[2]: reason for path, _, reason in diagnostics.details
    }
    assert reasons == {
        "bad-zstd": "unreadable",
        "cut-json": "truncated",
        "cut-frame": "unreadable",
        "not-object": "not an object",
        "lz4-data": "bad value",
    }
    assert diagnostics.unknown == {
        "thread version 0.4.0": 1,
        "user content Video": 1,
        "agent content Diagram": 1,
        "tool_results": 1,
        "compaction summary": 1,  # Zed's variant is `Summary`
        "message int": 1,
        "data_type lz4": 1,
    }
    assert not diagnostics.problems


def test_a_huge_pasted_image_is_elided_not_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(files, "READ_LINE_CAP", 4096)
    home = copy(tmp_path)
    image = base64.b64encode(bytes(range(256)) * 1200).decode()  # ~400 KB of base64
    thread = {"title": "A screenshot", "version": "0.3.0", "updated_at": "2026-12-03T09:00:00+00:00",
              "messages": [{"User": {"id": "u", "content": [{"Text": "What is wrong here? "},
                                                             {"Image": {"source": image}}]}},
                           {"Agent": {"content": [{"Text": "The button overlaps."}], "tool_results": {}}}]}  # fmt: skip
    db = sqlite3.connect(home / THREADS / "threads.db")
    db.execute(
        "INSERT INTO threads (id, summary, updated_at, data_type, data) VALUES "
        "('img', 'A screenshot', '2026-12-03T09:00:00+00:00', 'zstd', ?)",
        (zstandard.ZstdCompressor(level=3).compress(json.dumps(thread).encode()),),
    )
    db.commit()
    db.close()
    session = sessions(home)["img"]
    found = events(session)
    assert (
        found[0].text
        == f"What is wrong here? [image, {files.human_bytes(len(image) * 3 // 4)}]"
    )
    assert found[1].text == "The button overlaps."


def test_an_old_database_without_the_added_columns_lists(tmp_path: Path) -> None:
    folder = tmp_path / "home" / THREADS
    folder.mkdir(parents=True)
    db = sqlite3.connect(folder / "threads.db")
    db.execute("CREATE TABLE threads (id TEXT PRIMARY KEY, summary TEXT NOT NULL, "
               "updated_at TEXT NOT NULL, data_type TEXT NOT NULL, data BLOB NOT NULL)")  # fmt: skip
    source = sqlite3.connect(HOME / THREADS / "threads.db")
    rows = source.execute(f"SELECT id, summary, updated_at, data_type, data FROM threads WHERE id = '{LEGACY}'").fetchall()  # fmt: skip
    source.close()
    db.executemany("INSERT INTO threads VALUES (?, ?, ?, ?, ?)", rows)
    db.commit()
    db.close()
    found = sessions(tmp_path / "home")
    assert list(found) == [LEGACY] and found[LEGACY].cwd == "/home/alex/code/blog"
    assert found[LEGACY].created is None


@pytest.mark.parametrize(
    "where",
    [
        "Library/Application Support/Zed",  # macOS
        "AppData/Local/Zed",  # Windows (%LOCALAPPDATA%)
        ".var/app/dev.zed.Zed/data/zed",  # the Flatpak's, seen from outside
    ],
)
def test_each_platforms_data_folder_is_found(where: str, tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(HOME / ".local/share/zed", home / where)
    assert LEAD in sessions(home)


def test_flatpaks_variable_wins_and_zed_stateless_is_noted(tmp_path: Path) -> None:
    environ = {
        "FLATPAK_XDG_DATA_HOME": str(HOME / ".local/share"),
        "ZED_STATELESS": "1",
    }
    location = zed.locate(Home(tmp_path, environ))
    assert location.override == f"FLATPAK_XDG_DATA_HOME={HOME / '.local/share'}"
    assert location.notes and "ZED_STATELESS" in location.notes[0]
    assert LEAD in sessions(tmp_path, environ=environ)


def test_doctor_says_when_zeds_folder_holds_no_threads(tmp_path: Path) -> None:
    (tmp_path / ".local/share/zed/db").mkdir(parents=True)
    location = zed.locate(Home.at(tmp_path))
    assert location.exists and list(zed.scan(location)) == []
    [note] = zed.doctor_notes(location)
    assert "threads/threads.db" in note and "--user-data-dir" in note
    assert zed.doctor_notes(zed.locate(Home.at(HOME))) == []


def test_doctors_advice_for_a_user_data_dir_finds_its_threads(tmp_path: Path) -> None:
    """`zed --user-data-dir <dir>` keeps its threads in `<dir>/threads/threads.db`, not
    below a home: `--home <dir>` finds none; XDG_DATA_HOME above a <dir> named zed does."""
    (tmp_path / "home/.local/share/zed/db").mkdir(parents=True)
    [note] = zed.doctor_notes(zed.locate(Home.at(tmp_path / "home")))
    assert "<dir>/threads/threads.db" in note and "--home" not in note
    custom = tmp_path / "elsewhere" / "zed"
    shutil.copytree(HOME / THREADS, custom / "threads")
    assert sessions(custom) == {}  # read as a home: nothing there
    found = sessions(tmp_path / "home", environ={"XDG_DATA_HOME": str(custom.parent)})
    assert LEAD in found


def test_a_field_a_newer_zed_adds_is_counted(tmp_path: Path) -> None:
    home = copy(tmp_path)
    thread = {"title": "Newer", "version": "0.3.0", "updated_at": "2026-12-04T09:00:00Z",
              "messages": [{"User": {"id": "u", "content": [{"Text": "hi"}]}}],
              "worktree_branch": "feature"}  # fmt: skip
    db = sqlite3.connect(home / THREADS / "threads.db")
    db.execute(
        "INSERT INTO threads (id, summary, updated_at, data_type, data) VALUES "
        "('newer', 'Newer', '2026-12-04T09:00:00Z', 'json', ?)",
        (json.dumps(thread).encode(),),
    )
    db.commit()
    db.close()
    diagnostics = Diagnostics()
    found = list(zed.read(sessions(home)["newer"], diagnostics))
    assert [e.text for e in found] == ["hi"]
    assert diagnostics.unknown == {"thread field worktree_branch": 1}


def test_watch_tells_a_thread_mid_turn_from_one_whose_turn_ended(
    tmp_path: Path,
) -> None:
    """Zed writes no time per message and no turn end: the row's `updated_at` dates the
    thread, an open tool call means working, an answer with none a turn that ended."""
    home = copy(tmp_path)
    now = datetime.now(UTC).isoformat()
    thread = {"title": "Mid turn", "version": "0.3.0", "updated_at": now,
              "messages": [{"User": {"id": "u", "content": [{"Text": "run it"}]}},
                           {"Agent": {"content": [{"ToolUse": {"id": "t1", "name": "terminal", "raw_input": "{}",
                                                               "input": {"command": "make"}, "is_input_complete": True}}],
                                      "tool_results": {}}}]}  # fmt: skip
    db = sqlite3.connect(home / THREADS / "threads.db")
    db.execute("UPDATE threads SET updated_at = ? WHERE id = ?", (now, LEAD))
    db.execute(
        "INSERT INTO threads (id, summary, updated_at, data_type, data) VALUES "
        "('mid', 'Mid turn', ?, 'zstd', ?)",
        (now, zstandard.ZstdCompressor(level=3).compress(json.dumps(thread).encode())),
    )
    db.commit()
    db.close()
    result = CliRunner().invoke(
        main, ["watch", "--json", "--app", "zed", "--home", str(home)]
    )
    assert result.exit_code == 0, result.output
    status = {row["id"]: row["status"] for row in json.loads(result.stdout)}
    assert status["mid"] == "working"
    assert status[LEAD] == "waiting_for_user"


def test_a_row_whose_data_is_a_number_is_counted(tmp_path: Path) -> None:
    home = copy(tmp_path)
    db = sqlite3.connect(home / THREADS / "threads.db")
    db.execute(
        "INSERT INTO threads (id, summary, updated_at, data_type, data) VALUES "
        "('number', 'A number', '2026-12-04T09:00:00Z', 'zstd', 7)"
    )
    db.commit()
    db.close()
    diagnostics = Diagnostics()
    assert list(zed.read(sessions(home)["number"], diagnostics)) == []
    assert [reason for _, _, reason in diagnostics.details] == ["unreadable"]


def test_a_folderless_row_over_the_peek_size_lists_without_its_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A row from before `folder_paths` is decompressed for its folder only while small:
    a huge one lists at once, without a folder, and its read still shows it whole."""
    monkeypatch.setattr(zed, "PEEK_BYTES", 200)
    found = sessions()
    assert found[FIRST].cwd is None and found[LEGACY].cwd is None  # over 200 bytes
    assert found[LEAD].cwd == "/home/alex/code/shop-api"  # from its column, as ever
    assert [e.kind for e in events(found[FIRST])][:2] == ["user", "assistant"]


def test_a_running_sum_that_missed_turns_gives_way_to_the_turns(tmp_path: Path) -> None:
    """A first-agent thread Zed upgraded keeps its old running sum; turns added before
    Zed kept the sum only have their per-prompt figures: the larger count is taken."""
    home = copy(tmp_path)
    thread = {"title": "Upgraded", "version": "0.3.0", "updated_at": "2026-12-04T09:00:00Z",
              "messages": [{"User": {"id": "a", "content": [{"Text": "one"}]}},
                           {"Agent": {"content": [{"Text": "1"}], "tool_results": {}}},
                           {"User": {"id": "b", "content": [{"Text": "two"}]}},
                           {"Agent": {"content": [{"Text": "2"}], "tool_results": {}}}],
              "cumulative_token_usage": {"input_tokens": 100, "output_tokens": 10},
              "request_token_usage": {"a": {"input_tokens": 100, "output_tokens": 10},
                                      "b": {"input_tokens": 400, "output_tokens": 40}},
              "model": {"provider": "zed.dev", "model": "claude-sonnet-4-5"}}  # fmt: skip
    db = sqlite3.connect(home / THREADS / "threads.db")
    db.execute(
        "INSERT INTO threads (id, summary, updated_at, data_type, data) VALUES "
        "('upgraded', 'Upgraded', '2026-12-04T09:00:00Z', 'json', ?)",
        (json.dumps(thread).encode(),),
    )
    db.commit()
    db.close()
    found = [e for e in events(sessions(home)["upgraded"]) if e.kind == "usage"]
    assert [
        (e.extra["scope"], e.usage.input_tokens if e.usage else 0) for e in found
    ] == [
        ("turn", 100),
        ("turn", 400),
    ]


def test_an_imported_shared_thread_says_so(tmp_path: Path) -> None:
    home = copy(tmp_path)
    thread = {"title": "\U0001f517 Shared fix", "version": "0.3.0", "updated_at": "2026-12-04T09:00:00Z",
              "imported": True, "messages": [{"User": {"id": "a", "content": [{"Text": "one"}]}}]}  # fmt: skip
    db = sqlite3.connect(home / THREADS / "threads.db")
    db.execute(
        "INSERT INTO threads (id, summary, updated_at, data_type, data) VALUES "
        "('shared', ?, '2026-12-04T09:00:00Z', 'json', ?)",
        (thread["title"], json.dumps(thread).encode()),
    )
    db.commit()
    db.close()
    found = events(sessions(home)["shared"])
    assert [(e.kind, e.extra.get("imported")) for e in found] == [
        ("meta", True),
        ("user", None),
    ]


def test_a_compacted_thread_shows_its_summary_in_place(tmp_path: Path) -> None:
    """Zed compacts a long thread into `Message::Compaction(CompactionInfo)`: a summary it
    wrote, or the provider's own compacted items (no text); a `Skill` mention names it."""
    home = copy(tmp_path)
    thread = {"title": "Long", "version": "0.3.0", "updated_at": "2026-12-04T09:00:00Z",
              "messages": [{"User": {"id": "a", "content": [{"Text": "one"}]}},
                           {"Agent": {"content": [{"Text": "1"}], "tool_results": {}}},
                           {"Compaction": {"Summary": "We fixed the retry loop."}},
                           {"Compaction": {"ProviderNative": {"provider": "anthropic",
                                                              "items": [{"type": "compaction"}]}}},
                           {"User": {"id": "b", "content": [
                               {"Text": "use "},
                               {"Mention": {"uri": {"Skill": {"name": "pdf", "source": "user"}},
                                            "content": "…"}}]}},
                           {"Agent": {"content": [{"Text": "2"}], "tool_results": {}}}]}  # fmt: skip
    db = sqlite3.connect(home / THREADS / "threads.db")
    db.execute(
        "INSERT INTO threads (id, summary, updated_at, data_type, data) VALUES "
        "('long', 'Long', '2026-12-04T09:00:00Z', 'json', ?)",
        (json.dumps(thread).encode(),),
    )
    db.commit()
    db.close()
    found = events(sessions(home)["long"])  # nothing unknown, nothing skipped
    assert [(e.kind, e.text) for e in found if e.kind != "turn_end"] == [
        ("user", "one"),
        ("assistant", "1"),
        ("compaction", "We fixed the retry loop."),
        ("compaction", None),
        ("user", "use @pdf"),
        ("assistant", "2"),
    ]
    native = [e for e in found if e.kind == "compaction"][1]
    assert native.extra == {"provider": "anthropic"}


def test_folders_are_in_the_order_opened_whatever_their_names(tmp_path: Path) -> None:
    """`PathList` keeps its paths sorted as Rust orders paths, by component: `/x/app/sub`
    before `/x/app.v2`, which a string sorts the other way round."""
    home = copy(tmp_path)
    db = sqlite3.connect(home / THREADS / "threads.db")
    for thread_id, order in (("sub-first", "0,1"), ("v2-first", "1,0")):
        db.execute(
            "INSERT INTO threads (id, summary, updated_at, data_type, data, folder_paths,"
            " folder_paths_order) VALUES (?, 'Two folders', '2026-12-04T09:00:00Z',"
            " 'json', '{}', ?, ?)",
            (thread_id, "/x/app/sub\n/x/app.v2", order),
        )
    db.commit()
    db.close()
    found = sessions(home)
    assert found["sub-first"].cwd == "/x/app/sub"
    assert found["sub-first"].extra["folders"] == ["/x/app/sub", "/x/app.v2"]
    assert found["v2-first"].cwd == "/x/app.v2"
    assert found["v2-first"].extra["folders"] == ["/x/app.v2", "/x/app/sub"]


def test_a_loop_of_leads_is_listed_not_hidden(tmp_path: Path) -> None:
    """A damaged `parent_id` that leads back to the thread (its own id, or a sub-agent of
    its sub-agent) would list it as a sub-agent only: it is listed on its own instead, a
    loop's least id as the lead of the others (each read held the other's events: `usage`
    counted both twice)."""
    home = copy(tmp_path)
    db = sqlite3.connect(home / THREADS / "threads.db")
    for thread_id, parent in (("self", "self"), ("a", "b"), ("b", "a"), ("c", "a")):
        db.execute(
            "INSERT INTO threads (id, summary, updated_at, data_type, data, parent_id)"
            " VALUES (?, ?, '2026-12-04T09:00:00Z', 'json', '{}', ?)",
            (thread_id, thread_id, parent),
        )
    db.commit()
    db.close()
    found = sessions(home)
    assert found["self"].parent_id is None
    assert found["a"].parent_id is None and found["b"].parent_id == "a"
    assert found["c"].parent_id == "a"  # under a, which is listed
    assert found[CHILD].parent_id == LEAD  # a real sub-agent, as ever


def test_a_threads_table_made_a_view_lists_its_threads_and_counts_what_it_hides(
    tmp_path: Path,
) -> None:
    """A view's rows have no rowid (SQLite gives NULL) for blob IO to open: the threads
    list from the view's columns and each one's data is counted as not read."""
    home = copy(tmp_path)
    tables_as_views(home / THREADS / "threads.db", "threads")
    listed = cli_over(home, "list", "--json", "--all", "--app", "zed")
    assert LEAD in {row["id"] for row in json.loads(listed.stdout)}
    assert cli_over(home, "show", LEAD).exit_code == 0
    doctor = cli_over(home, "doctor", "--deep", "--json", "--app", "zed")
    (app,) = json.loads(doctor.stdout)
    assert app["skipped_lines"] and not app["problems"], app


def test_the_leads_of_a_database_of_many_are_read_with_one_scan_for_children(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each thread read looks for the threads it spawned, by a column Zed indexes
    nothing on: looked for once for all the reads of a run, not once a read, which
    `usage` and `doctor --deep` make of every lead (1,600 leads with a sub-agent each:
    5.2 s CPU where 200 took 0.22 s, scripts/fuzz-homes.py --fanout)."""
    from sessdex import databases
    from tests import fuzzing

    home = copy(tmp_path)
    database = home / THREADS / "threads.db"
    for thread in (LEAD, CHILD):  # 300 leads more, each with a sub-agent of its own
        assert fuzzing._fan_rows(database, thread, range(1, 301), messages=False)
    with sqlite3.connect(database) as db:
        db.execute(
            "UPDATE threads SET parent_id = substr(parent_id, 1, 31) || substr(id, 32)"
            " WHERE id LIKE ? AND id != ?",
            (CHILD[:31] + "%", CHILD),
        )
    db.close()
    scans: list[str] = []
    opened = databases.open_or_say

    def traced(*args: object, **kwargs: object) -> sqlite3.Connection | None:
        connection = opened(*args, **kwargs)  # type: ignore[arg-type]
        if connection is not None:
            connection.set_trace_callback(
                lambda sql: scans.append(sql) if "parent_id" in sql else None
            )
        return connection

    monkeypatch.setattr(databases, "open_or_say", traced)
    listed = sessions(home)
    scans.clear()
    leads = [s for s in listed.values() if s.id.startswith(LEAD[:-5])]
    assert len(leads) == 301
    for lead in leads:
        found = events(lead)
        assert any(e.kind == "subagent" for e in found)
        assert any(e.agent_id for e in found)  # its sub-agent's own events, inside
    assert len(scans) <= 2


def test_each_turn_is_billed_with_its_model_and_the_running_sum_keeps_the_rest(
    tmp_path: Path,
) -> None:
    """Zed keeps, per prompt, the usage of that turn's last request
    (`request_token_usage`) and the thread's running sum of every request
    (`cumulative_token_usage`); a thread with both was billed as one sum, its turns never:
    each turn is a usage event of the thread's model before its end, and what the sum
    holds beyond them (a turn's earlier requests) one more, the total Zed's sum."""
    home = copy(tmp_path)
    thread = {"title": "Two turns", "version": "0.3.0", "updated_at": "2026-12-04T09:00:00Z",
              "messages": [{"User": {"id": "a", "content": [{"Text": "one"}]}},
                           {"Agent": {"content": [{"Text": "1"}], "tool_results": {}}},
                           {"User": {"id": "b", "content": [{"Text": "two"}]}},
                           {"Agent": {"content": [{"Text": "2"}], "tool_results": {}}}],
              "cumulative_token_usage": {"input_tokens": 1500, "output_tokens": 130,
                                         "cache_read_input_tokens": 9000},
              "request_token_usage": {"a": {"input_tokens": 100, "output_tokens": 10},
                                      "b": {"input_tokens": 400, "output_tokens": 40,
                                            "cache_read_input_tokens": 3000}},
              "model": {"provider": "anthropic", "model": "claude-sonnet-4-5"}}  # fmt: skip
    data = zstandard.ZstdCompressor(level=3).compress(json.dumps(thread).encode())
    db = sqlite3.connect(home / THREADS / "threads.db")
    db.execute(
        "INSERT INTO threads (id, summary, updated_at, data_type, data) VALUES "
        "('two', 'Two turns', '2026-12-04T09:00:00Z', 'zstd', ?)",
        (data,),
    )
    db.commit()
    db.close()
    state = {"SESSDEX_HOME": str(tmp_path / "state")}
    shown = CliRunner().invoke(
        main, ["show", "zed:two", "--json", "--home", str(home)], env=state
    )
    assert shown.exit_code == 0, shown.output
    found = [
        (e["kind"], e["extra"].get("scope"), e["usage"] and e["usage"]["input_tokens"],
         e["usage"] and e["usage"]["model"])
        for e in json.loads(shown.stdout) if e["kind"] in ("usage", "turn_end")
    ]  # fmt: skip
    assert found == [
        ("usage", "turn", 100, "claude-sonnet-4-5"),
        ("turn_end", None, None, None),
        ("usage", "turn", 400, "claude-sonnet-4-5"),
        ("turn_end", None, None, None),
        ("usage", "session", 1000, "claude-sonnet-4-5"),  # the sum's rest
    ]
    report = CliRunner().invoke(
        main,
        ["usage", "session", "--json", "--app", "zed", "--home", str(home)],
        env=state,
    )
    assert report.exit_code == 0, report.output
    row = {r["id"]: r for r in json.loads(report.stdout)}["two"]
    assert (row["input_tokens"], row["output_tokens"], row["cache_read_tokens"]) == (
        1500,
        130,
        9000,
    )
    assert row["responses"] == 3


def test_turns_over_the_running_sum_in_one_field_bill_zed_s_sum_in_all(
    tmp_path: Path,
) -> None:
    """Turns that hold more output than the thread's running sum, though fewer tokens in
    all: the sum's rest was floored at 0 in that field and billed whole in the others,
    the thread 20 tokens above Zed's own sum. It is billed the sum exactly, the excess
    taken from the rest's other fields, and the sum said as damage."""
    home = copy(tmp_path)
    thread = {"title": "Two turns", "version": "0.3.0", "updated_at": "2026-12-04T09:00:00Z",
              "messages": [{"User": {"id": "a", "content": [{"Text": "one"}]}},
                           {"Agent": {"content": [{"Text": "1"}], "tool_results": {}}},
                           {"User": {"id": "b", "content": [{"Text": "two"}]}},
                           {"Agent": {"content": [{"Text": "2"}], "tool_results": {}}}],
              "cumulative_token_usage": {"input_tokens": 1500, "output_tokens": 30,
                                         "cache_read_input_tokens": 9000},
              "request_token_usage": {"a": {"input_tokens": 100, "output_tokens": 10},
                                      "b": {"input_tokens": 400, "output_tokens": 40,
                                            "cache_read_input_tokens": 3000}},
              "model": {"provider": "anthropic", "model": "claude-sonnet-4-5"}}  # fmt: skip
    data = zstandard.ZstdCompressor(level=3).compress(json.dumps(thread).encode())
    db = sqlite3.connect(home / THREADS / "threads.db")
    db.execute(
        "INSERT INTO threads (id, summary, updated_at, data_type, data) VALUES "
        "('two', 'Two turns', '2026-12-04T09:00:00Z', 'zstd', ?)",
        (data,),
    )
    db.commit()
    db.close()
    state = {"SESSDEX_HOME": str(tmp_path / "state")}
    report = CliRunner().invoke(
        main,
        ["usage", "session", "--json", "-v", "--app", "zed", "--home", str(home)],
        env=state,
    )
    assert report.exit_code == 0, report.output
    row = {r["id"]: r for r in json.loads(report.stdout)}["two"]
    counts = (row["input_tokens"], row["output_tokens"], row["cache_read_tokens"])
    assert sum(counts) + row["cache_write_tokens"] == 1500 + 30 + 9000  # was 10,550
    assert counts[1] == 50  # the turns' own output, each billed as written
    assert "odd token count" in report.stderr, report.stderr
    shown = CliRunner().invoke(
        main, ["show", "zed:two", "--json", "--home", str(home)], env=state
    )
    billed = [e["usage"] for e in json.loads(shown.stdout) if e["kind"] == "usage"]
    assert (
        sum(
            u["input_tokens"] + u["output_tokens"] + u["cache_read_tokens"]
            for u in billed
        )
        == 10530
    )
    assert "odd token count" in shown.stderr, shown.stderr
