"""Kiro CLI / Amazon Q Developer CLI quirks: one data.sqlite3 per CLI (`kiro-cli/`,
`amazon-q/`), the Kiro CLI's `conversations_v2` beside the one-per-folder table 008 left
behind, serde's externally tagged messages, a resume per era, damage counted; and the 2.x
agent's session files in `~/.kiro/sessions/cli`, where a chat it reopened goes on."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import files
from sessdex.cli import main
from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, ResumePlan, Session, merge
from sessdex.sources import Home, kiro
from tests.helpers import cli_over, tables_as_views

DATA = Path(__file__).parent.parent / "data" / "kiro"
HOME = DATA / "home"
KIRO_DB = Path(".local/share/kiro-cli/data.sqlite3")
Q_DB = Path(".local/share/amazon-q/data.sqlite3")
SHOP = "/home/alex/code/shop-api"
NEWEST = "3f6b2c1e-8d4a-4e7b-9c2f-5a1d0e9b7c63"
OLDER = "9a0c4e2d-1b3f-4a5c-8d7e-6f1a2b3c4d5e"
MIGRATED = "c2d4e6f8-0a1b-4c3d-8e5f-7a9b1c3d5e7f"
Q_SHOP = "5e7a9c1b-3d5f-4b7a-9c1e-3f5a7b9d1e3f"
Q_BLOG = "1b3d5f7a-9c1e-4a3c-8e5a-7c9e1a3c5e7a"
NATIVE = "4c8e2a6f-7b1d-4e3a-9f5c-2d8b6a4e1c7f"  # begun in the 2.x agent's files
COMPAT = "compat-metering"  # the CLI's own test fixture, copied
BLOG = "/home/alex/code/blog"
CLI_SESSIONS = Path(".kiro/sessions/cli")


def sessions(
    home: Path = HOME,
    diagnostics: Diagnostics | None = None,
    environ: dict[str, str] | None = None,
) -> dict[str, Session]:
    diagnostics = diagnostics if diagnostics is not None else Diagnostics()
    location = kiro.locate(
        Home(home, environ) if environ is not None else Home.at(home)
    )
    fragments: dict[str, list[Session]] = {}
    for path in kiro.scan(location):
        for session in kiro.parse(path, location, diagnostics):
            fragments.setdefault(session.id, []).append(session)
    return {key: merge(parts) for key, parts in fragments.items()}


def rows(home: Path = HOME) -> dict[str, Session]:
    """The sessions the databases alone list (the rows a session file may have replaced)."""
    location = kiro.locate(Home.at(home))
    found: dict[str, Session] = {}
    for path in kiro.scan(location):
        if str(path).endswith(".sqlite3"):
            for session in kiro.parse(Path(path), location, Diagnostics()):
                found[session.id] = session
    return found


def events(session: Session) -> list[Event]:
    diagnostics = Diagnostics()
    found = list(kiro.read(session, diagnostics))
    assert not diagnostics.skipped_total and not diagnostics.unknown
    assert not diagnostics.problems
    return found


def copy(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    return home


def conversation(conversation_id: str, prompt: str, answer: str) -> str:
    """A `ConversationState` of one prompt and one answer, as serde_json writes it."""
    user = {"additional_context": "", "env_context": {"env_state": None},
            "content": {"Prompt": {"prompt": prompt}},
            "timestamp": "2026-12-02T08:00:00+00:00", "images": None}  # fmt: skip
    return json.dumps({
        "conversation_id": conversation_id, "next_message": None,
        "history": [{"user": user, "assistant": {"Response": {"message_id": "m", "content": answer}},
                     "request_metadata": None}],
        "valid_history_range": [0, 1], "transcript": [], "tools": {}, "context_manager": None,
        "context_message_length": None, "latest_summary": None, "file_line_tracker": {},
        "checkpoint_manager": None, "mcp_enabled": True,
    })  # fmt: skip


def add(
    home: Path, folder: str, conversation_id: str, value: str, updated: int
) -> None:
    db = sqlite3.connect(home / KIRO_DB)
    db.execute(
        "INSERT INTO conversations_v2 VALUES (?, ?, ?, ?, ?)",
        (folder, conversation_id, value, updated - 1000, updated),
    )
    db.commit()
    db.close()


def test_chats_are_listed_with_their_title_folder_times_and_model() -> None:
    found = sessions()
    # the `conversations` table 008 left in Kiro's database is not listed again, and
    # OLDER, which the 2.x agent exported to its files, is listed once
    assert sorted(found) == sorted([NEWEST, OLDER, MIGRATED, Q_SHOP, Q_BLOG, NATIVE, COMPAT])  # fmt: skip
    newest = found[NEWEST]
    assert (newest.title, newest.cwd, newest.model) == (
        "Why does checkout time out under load?", SHOP, "claude-sonnet-4.5",
    )  # fmt: skip
    assert newest.created is not None and newest.updated is not None
    assert newest.updated.isoformat() == "2025-11-30T09:00:10.500000+00:00"
    # a row 008 copied is dated by the migration; its prompt has no time of its own
    assert found[MIGRATED].created == found[MIGRATED].updated
    # Q's table keeps no time: the prompts' and responses', where Q wrote them
    assert found[Q_SHOP].created is not None
    assert found[Q_SHOP].created.isoformat() == "2025-10-02T21:00:00+00:00"
    assert found[Q_BLOG].created is None and found[Q_BLOG].updated is None
    assert found[Q_BLOG].model == "CLAUDE_3_7_SONNET_20250219_V1_0"


def test_a_turn_reads_in_order_with_each_call_paired_to_its_result() -> None:
    found = events(sessions()[NEWEST])
    assert [(e.kind, e.tool) for e in found] == [
        ("user", None), ("assistant", None), ("tool_call", "fs_read"),
        ("tool_call", "execute_bash"), ("tool_result", "fs_read"),
        ("tool_result", "execute_bash"), ("assistant", None), ("turn_end", None),
    ]  # fmt: skip
    calls = {e.call_id: e for e in found if e.kind == "tool_call"}
    results = {e.call_id: e for e in found if e.kind == "tool_result"}
    assert calls.keys() == results.keys() == {"tooluse_a1", "tooluse_a2"}
    assert calls["tooluse_a2"].extra["input"] == {
        "command": "grep -rn timeout src/", "summary": "find timeouts",
    }  # fmt: skip
    assert not results["tooluse_a1"].is_error and results["tooluse_a2"].is_error
    assert results["tooluse_a2"].text == "grep: src/legacy: Permission denied"
    assert found[0].time is not None
    assert found[0].time.isoformat() == "2025-11-30T09:00:00.125000+00:00"
    assert found[-2].extra["model"] == "claude-sonnet-4.5"


def test_a_compacted_chat_starts_with_its_summary_and_a_cancelled_call_is_interrupted() -> (
    None
):
    found = events(rows()[OLDER])
    assert [e.kind for e in found] == [
        "compaction", "user", "tool_call", "tool_result", "user", "assistant", "turn_end",
    ]  # fmt: skip
    assert found[0].text is not None and found[0].text.startswith("The user asked")
    cancelled = found[3]
    assert cancelled.is_error and cancelled.extra.get("interrupted") is True
    assert cancelled.tool == "fs_write" and cancelled.call_id == "tooluse_b1"
    assert found[4].text == "Put it in tests/unit instead."


def test_q_history_kept_as_pairs_reads_as_the_newer_shape() -> None:
    found = events(sessions()[Q_BLOG])
    assert [(e.kind, e.text) for e in found] == [
        ("user", "Why is the blog build slow?"),
        ("assistant", "Image resizing runs on every build."),
        ("turn_end", None),
    ]
    assert all(e.time is None for e in found)


def test_resume_is_exact_and_never_trusts_all_tools() -> None:
    found = sessions()
    for keep in (False, True):
        newest = kiro.resume(found[NEWEST], keep_permissions=keep)
        older = kiro.resume(rows()[OLDER], keep_permissions=keep)
        q = kiro.resume(found[Q_SHOP], keep_permissions=keep)
        assert newest == ResumePlan(
            argv=("kiro-cli", "chat", "--resume"), cwd=SHOP, program="kiro-cli",
            install_hint=newest.install_hint if newest else "",
            process_names=("kiro-cli-chat",), notes=newest.notes if newest else (),
        )  # fmt: skip
        # 2.x's --resume picks the newest of rows and files alike (session_manager.rs)
        assert newest is not None and f"--resume-id {NEWEST}" in newest.notes[0]
        assert older is not None
        assert older.argv == ("kiro-cli", "chat", "--resume-id", OLDER)
        assert older.cwd == SHOP and "--resume-picker" in older.notes[0]
        assert q is not None and q.argv == ("q", "chat", "--resume") and q.cwd == SHOP
        for plan in (newest, older, q):
            assert plan is not None
            assert not {"--trust-all-tools", "-a", "--trust-tools"} & set(plan.argv)
    assert kiro.resume_refusal(found[NEWEST]) is None


def test_resume_print_quotes_an_odd_id_and_folder(tmp_path: Path) -> None:
    home = copy(tmp_path)
    work = tmp_path / "my repo"
    work.mkdir()
    add(
        home,
        str(work),
        "x;touch y",
        conversation("x;touch y", "odd", "ok"),
        1764900001000,
    )
    add(home, str(work), "newer", conversation("newer", "new", "ok"), 1764900002000)
    result = CliRunner().invoke(
        main, ["resume", "--print", "x;touch", "--home", str(home)]
    )
    assert result.exit_code == 0, result.output
    assert (
        result.stdout.strip() == f"cd '{work}' && kiro-cli chat --resume-id 'x;touch y'"
    )


def test_the_note_on_the_newest_chat_quotes_its_resume_id_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The note on `kiro-cli chat --resume` names the line that opens this chat for the
    user to paste: its id was written raw, `--resume-id x;touch y`, two commands."""
    monkeypatch.setenv("SESSDEX_SHELL", "sh")
    home = copy(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    add(home, str(work), "x;touch y", conversation("x;touch y", "odd", "ok"), 1764900001000)  # fmt: skip
    result = CliRunner().invoke(
        main, ["resume", "--json", "x;touch", "--home", str(home)]
    )
    assert result.exit_code == 0, result.output
    plan = json.loads(result.stdout)
    assert plan["argv"] == ["kiro-cli", "chat", "--resume"]
    assert any(
        "`kiro-cli chat --resume-id 'x;touch y'`" in note for note in plan["warnings"]
    ), plan["warnings"]


def test_process_session_reads_back_what_resume_writes() -> None:
    opened = kiro.process_session
    assert opened(["kiro-cli", "chat", "--resume"]) == kiro.Opened(latest=True)
    assert opened(["qchat", "chat", "-r"]) == kiro.Opened(latest=True)
    assert opened(["kiro-cli", "chat", "--resume-id", OLDER]) == kiro.Opened(OLDER)
    assert opened(["kiro-cli", "chat", f"--resume-id={OLDER}"]) == kiro.Opened(OLDER)
    assert opened(["kiro-cli", "chat", "--resume-picker"]) == kiro.Opened(chosen=True)
    assert opened(["kiro-cli", "chat", "hello"]) is None


def test_a_q_that_is_another_program_is_not_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`q` is also harelba/q (SQL over CSV files), a Python script."""
    script = tmp_path / "q"
    script.write_text("#!/usr/bin/python3\nfrom qtextasdata import run\nrun()\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", str(tmp_path))
    plan = kiro.resume(sessions()[Q_SHOP])
    assert plan is not None
    assert kiro.resume_program(plan) == (plan, None)
    script.write_text('#!/bin/sh\nexec /opt/amazon-q/bin/qchat "$@"\n')
    assert kiro.resume_program(plan) == (plan, str(script))


def test_damaged_rows_are_counted_never_raised() -> None:
    diagnostics = Diagnostics()
    found = sessions(DATA / "malformed" / "home", diagnostics)
    # Kiro's rows list from their columns, whatever their value holds; Q's need the value
    assert {s for s in found if s.startswith("0f0f0f0f")} == {
        f"0f0f0f0f-0000-4000-8000-00000000000{n}" for n in ("1", "2", "3", "a", "b")
    }
    for session in found.values():
        list(kiro.read(session, diagnostics))
    reasons = sorted((path.rpartition("/")[2], reason) for path, _, reason in diagnostics.details)  # fmt: skip
    assert reasons == [
        ("0f0f0f0f-0000-4000-8000-000000000001", "truncated"),
        ("0f0f0f0f-0000-4000-8000-000000000002", "not JSON"),
        ("0f0f0f0f-0000-4000-8000-00000000000a.jsonl", "not JSON"),  # `{not json`
        ("0f0f0f0f-0000-4000-8000-00000000000b.json", "not JSON"),  # torn metadata
        ("blog", "bad value"),  # a Q row with no conversation id
        ("history", "bad value"),  # an entry that is no entry
        ("shop-api", "truncated"),  # `{not json`: an object never closed
    ]
    assert diagnostics.unknown == {
        "user content Shout": 1,
        "assistant message Mumble": 1,
        "log entry Prompt@v9": 1,  # a log version this reader does not know
        "log entry Hologram@v1": 1,
        "content block hologram": 1,
    }
    # the session file's last line, cut mid-write, is unfinished, not damage
    assert list(diagnostics.unfinished) == [
        str(DATA / "malformed/home" / CLI_SESSIONS / "0f0f0f0f-0000-4000-8000-00000000000a.jsonl")
    ]  # fmt: skip
    # metadata that is not JSON: listed from its log, with no folder to resume in
    torn = found["0f0f0f0f-0000-4000-8000-00000000000b"]
    assert torn.title == "Add an RSS feed to the blog" and torn.cwd is None
    assert kiro.resume(torn) is None and kiro.resume_refusal(torn)
    assert not diagnostics.problems


def test_newest_rows_in_the_wal_are_listed_and_nothing_is_written(
    tmp_path: Path,
) -> None:
    home = copy(tmp_path)
    folder = (home / KIRO_DB).parent
    writer = sqlite3.connect(home / KIRO_DB)
    try:
        writer.execute("PRAGMA journal_mode=WAL")
        writer.execute("PRAGMA wal_autocheckpoint=0")
        writer.execute(
            "INSERT INTO conversations_v2 VALUES (?, 'wal-1', ?, 1764900000000, 1764900005000)",
            ("/home/alex/code/new", conversation("wal-1", "Only in the WAL", "yes")),
        )
        writer.commit()
        assert (folder / "data.sqlite3-wal").stat().st_size > 0
        before = {p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.iterdir()}  # fmt: skip
        found = sessions(home)
        assert found["wal-1"].title == "Only in the WAL"
        assert [e.text for e in events(found["wal-1"])] == [
            "Only in the WAL",
            "yes",
            None,
        ]
        assert NEWEST in found
        after = {p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.iterdir()}  # fmt: skip
        assert after == before
    finally:
        writer.close()


def test_a_huge_tool_result_is_elided_not_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(files, "READ_LINE_CAP", 4096)
    home = copy(tmp_path)
    value = json.loads(conversation("huge", "Dump the log", "Here it is."))
    output = "x" * 400_000
    value["history"].insert(0, {
        "user": value["history"][0]["user"],
        "assistant": {"ToolUse": {"message_id": "m0", "content": "", "tool_uses": [
            {"id": "t1", "name": "execute_bash", "orig_name": "execute_bash",
             "args": {"command": "cat big.log"}, "orig_args": {}}]}},
        "request_metadata": None,
    })  # fmt: skip
    value["history"][1]["user"] = {**value["history"][1]["user"], "content": {
        "ToolUseResults": {"tool_use_results": [
            {"tool_use_id": "t1", "content": [{"Text": output}], "status": "Success"}]}}}  # fmt: skip
    add(home, SHOP, "huge", json.dumps(value), 1764900009000)
    session = sessions(home)["huge"]
    assert session.title == "Dump the log"
    found = events(session)
    result = next(e for e in found if e.kind == "tool_result")
    assert result.call_id == "t1" and result.tool == "execute_bash"
    assert result.text == f"[text, {files.human_bytes(len(output))}]"
    full = list(kiro.read(session, Diagnostics(), full=True))
    assert next(e for e in full if e.kind == "tool_result").text == output


def test_a_kiro_database_before_008_lists_its_one_chat_per_folder(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    database = home / KIRO_DB
    database.parent.mkdir(parents=True)
    db = sqlite3.connect(database)
    db.execute("CREATE TABLE conversations (key TEXT PRIMARY KEY, value TEXT)")
    db.execute("INSERT INTO conversations VALUES (?, ?)", (SHOP, conversation("early", "hi", "hello")))  # fmt: skip
    db.commit()
    db.close()
    found = sessions(home)
    assert list(found) == ["early"]
    plan = kiro.resume(found["early"])
    assert plan is not None and plan.argv == ("kiro-cli", "chat", "--resume")
    assert [e.kind for e in events(found["early"])] == ["user", "assistant", "turn_end"]


@pytest.mark.parametrize(
    "where",
    [
        "Library/Application Support/kiro-cli",
        "Library/Application Support/amazon-q",
        "AppData/Local/kiro-cli",
        "AppData/Local/amazon-q",
    ],
)
def test_each_platforms_data_folder_is_found(where: str, tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / where).mkdir(parents=True)
    shutil.copy(HOME / KIRO_DB, home / where / "data.sqlite3")
    assert NEWEST in sessions(home)


def test_xdg_data_home_moves_both_folders(tmp_path: Path) -> None:
    environ = {"XDG_DATA_HOME": str(HOME / ".local/share")}
    location = kiro.locate(Home(tmp_path / "nobody", environ))
    assert location.override == f"XDG_DATA_HOME={HOME / '.local/share'}"
    assert set(sessions(tmp_path / "nobody", environ=environ)) == {
        NEWEST, OLDER, MIGRATED, Q_SHOP, Q_BLOG,
    }  # fmt: skip


def test_doctor_says_when_the_data_folder_holds_no_database(tmp_path: Path) -> None:
    (tmp_path / ".local/share/kiro-cli").mkdir(parents=True)
    location = kiro.locate(Home.at(tmp_path))
    [note] = kiro.doctor_notes(location)
    assert "holds no data.sqlite3" in note
    assert str(tmp_path / CLI_SESSIONS) + " no session file" in note
    assert kiro.doctor_notes(kiro.locate(Home.at(HOME))) == []
    # the 2.x agent keeps its chats in files alone: nothing is missing
    (tmp_path / CLI_SESSIONS).mkdir(parents=True)
    shutil.copy(HOME / CLI_SESSIONS / f"{NATIVE}.jsonl", tmp_path / CLI_SESSIONS)
    assert kiro.doctor_notes(kiro.locate(Home.at(tmp_path))) == []


def test_a_field_a_newer_cli_adds_is_counted(tmp_path: Path) -> None:
    home = copy(tmp_path)
    value = json.loads(conversation("new", "hi", "hello"))
    value["plan_mode"] = {"on": True}
    add(home, SHOP, "new", json.dumps(value), 1764900009000)
    diagnostics = Diagnostics()
    found = list(kiro.read(sessions(home)["new"], diagnostics))
    assert [e.kind for e in found] == ["user", "assistant", "turn_end"]
    assert diagnostics.unknown == {"conversation field plan_mode": 1}


def test_the_login_table_is_never_read(tmp_path: Path) -> None:
    home = copy(tmp_path)
    db = sqlite3.connect(home / KIRO_DB)
    db.execute(
        "INSERT INTO auth_kv VALUES ('codewhisperer:odic:token', 'secret-token')"
    )
    db.commit()
    db.close()
    statements: list[str] = []
    opened = kiro.databases.open_sqlite

    def traced(path: str | os.PathLike[str], login: bool = False) -> sqlite3.Connection:
        connection = opened(path, login=login)
        connection.set_trace_callback(statements.append)
        return connection

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(kiro.databases, "open_sqlite", traced)
        for session in sessions(home).values():
            list(kiro.read(session, Diagnostics()))
    assert statements and not any("auth" in sql for sql in statements)
    assert os.path.exists(home / KIRO_DB)


def test_a_chat_in_both_databases_is_the_kiro_clis(tmp_path: Path) -> None:
    home = copy(tmp_path)
    mac = home / "Library/Application Support/kiro-cli/data.sqlite3"
    mac.parent.mkdir(parents=True)
    (home / KIRO_DB).rename(mac)  # scanned after Q's folder
    shutil.copy(mac, home / Q_DB)  # as if Q's folder held Kiro's rows
    found = sessions(home)
    assert found[NEWEST].path == f"{mac}#conversations_v2/{NEWEST}"
    assert found[NEWEST].extra["cli"] == "kiro-cli"


def test_a_chat_without_a_folder_is_refused_with_a_reason(tmp_path: Path) -> None:
    home = copy(tmp_path)
    add(home, "", "nowhere", conversation("nowhere", "hi", "hello"), 1764900009000)
    session = sessions(home)["nowhere"]
    assert session.cwd is None and kiro.resume(session) is None
    refusal = kiro.resume_refusal(session)
    assert refusal is not None and "folder is not recorded" in refusal


# --- the 2.x agent's session files ------------------------------------------------------


def test_a_chat_the_new_agent_reopened_is_listed_once_as_its_session_file() -> None:
    found = sessions()
    older = found[OLDER]
    assert older.path == str(HOME / CLI_SESSIONS / f"{OLDER}.jsonl")
    assert older.extra["store"] == "files" and older.extra["exported_from_v1"] is True
    assert older.extra["table"] is None and older.extra["newest"] is False
    # the file goes on where the row stopped: its model, its last turn's time
    assert (older.title, older.cwd, older.model) == (
        "Now write the test for the retry.", SHOP, "claude-sonnet-4.5",
    )  # fmt: skip
    assert older.updated is not None and older.created is not None
    assert older.updated.isoformat() == "2025-12-06T08:01:10.500000+00:00"
    # dated by its first prompt, not by the export
    assert older.created.isoformat() == "2025-11-28T09:00:00+00:00"
    assert [e.text for e in events(older) if e.kind == "user"] == [
        "Now write the test for the retry.", "Put it in tests/unit instead.",
        "Run the tests.",
    ]  # fmt: skip
    # a chat never exported is still the database's
    assert found[NEWEST].path == f"{HOME / KIRO_DB}#conversations_v2/{NEWEST}"


def test_a_session_file_is_listed_from_its_metadata() -> None:
    native = sessions()[NATIVE]
    assert (native.title, native.cwd, native.model) == (
        "Add an RSS feed to the blog", BLOG, "claude-opus-4.5",
    )  # fmt: skip
    assert native.created is not None and native.updated is not None
    assert native.created.isoformat() == "2025-12-07T15:30:00+00:00"
    assert native.updated.isoformat() == "2025-12-07T15:42:05+00:00"
    assert native.extra["agent"] == "blog-writer"
    # no title kept: the first prompt's
    compat = sessions()[COMPAT]
    assert (compat.title, compat.cwd, compat.model) == ("hello", "/test/project", None)


def test_a_session_file_reads_in_order_with_each_call_paired_to_its_result() -> None:
    found = events(sessions()[NATIVE])
    assert [(e.kind, e.tool) for e in found] == [
        ("user", None), ("assistant", None), ("tool_call", "fs_read"),
        ("tool_result", "fs_read"), ("assistant", None), ("turn_end", None),
        ("usage", None), ("compaction", None), ("user", None), ("meta", None),
        ("meta", None), ("user", None), ("assistant", None), ("turn_end", None),
        ("usage", None), ("meta", None),
    ]  # fmt: skip
    assert found[0].text == "Add an RSS feed to the blog\n[1 image]"
    assert found[0].time is not None
    assert found[0].time.isoformat() == "2025-12-07T15:30:00+00:00"
    assert found[2].call_id == found[3].call_id == "tooluse_d1"
    assert found[2].extra["input"] == {"operations": [{"mode": "Line", "path": "config.toml"}]}  # fmt: skip
    assert found[3].text == 'title = "Alex\'s blog"\n' and not found[3].is_error
    assert found[7].text == "We added an RSS feed (feed.xml) to the blog."
    # a turn's tokens and end, from the metadata's turns, after the message that ends it
    usage = [e for e in found if e.kind == "usage"]
    assert [(e.usage.input_tokens, e.usage.output_tokens, e.usage.model) for e in usage if e.usage] == [
        (4100, 210, "claude-opus-4.5"), (2300, 40, "claude-opus-4.5"),
    ]  # fmt: skip
    assert found[5].time is not None and found[5].time == usage[0].time
    assert found[5].time.isoformat() == "2025-12-07T15:30:09+00:00"
    assert [e.extra for e in found if e.kind == "meta"] == [
        {"cancelled": True}, {"reset_to": 4}, {"cleared": True},
    ]  # fmt: skip
    assert [e.seq for e in found] == list(range(len(found)))
    exported = events(sessions()[OLDER])
    # the /compact summary v1_export put in the first prompt's context comes first
    summary = exported[0]
    assert (summary.kind, summary.text) == (
        "compaction",
        "The user asked to add retries to the payment client; we agreed on two.",
    )
    thinking, call, result = exported[8:11]
    assert (
        thinking.kind == "thinking"
        and thinking.text == "Run pytest on the unit folder."
    )
    assert (call.kind, call.tool, result.kind, result.tool) == (
        "tool_call", "execute_bash", "tool_result", "execute_bash",
    )  # fmt: skip
    assert result.text == '{"exit_status":"0","stdout":"14 passed","stderr":""}'
    cancelled = exported[3]
    assert cancelled.kind == "tool_result" and cancelled.is_error


def test_a_session_file_resumes_by_its_id_in_its_folder(tmp_path: Path) -> None:
    found = sessions()
    for keep in (False, True):
        plan = kiro.resume(found[OLDER], keep_permissions=keep)
        assert plan == ResumePlan(
            argv=("kiro-cli", "chat", "--resume-id", OLDER), cwd=SHOP,
            program="kiro-cli", install_hint=plan.install_hint if plan else "",
            process_names=("kiro-cli-chat",),
        )  # fmt: skip
    home = copy(tmp_path)
    work = tmp_path / "it's here"
    work.mkdir()
    meta_file = home / CLI_SESSIONS / f"{NATIVE}.json"
    meta = json.loads(meta_file.read_text())
    meta["cwd"] = str(work)
    meta_file.write_text(json.dumps(meta))
    result = CliRunner().invoke(
        main, ["resume", "--print", NATIVE[:8], "--home", str(home)]
    )
    assert result.exit_code == 0, result.output
    quoted = str(work).replace("'", "'\"'\"'")
    assert (
        result.stdout.strip() == f"cd '{quoted}' && kiro-cli chat --resume-id {NATIVE}"
    )


def test_the_lock_is_never_read_nor_touched(tmp_path: Path) -> None:
    home = copy(tmp_path)
    lock = home / CLI_SESSIONS / f"{NATIVE}.lock"
    lock.chmod(0)  # were it opened, the read would fail
    before = (
        sorted(p.name for p in (home / CLI_SESSIONS).iterdir()),
        lock.stat().st_mtime,
    )
    location = kiro.locate(Home.at(home))
    assert not [p for p in kiro.scan(location) if str(p).endswith(".lock")]
    diagnostics = Diagnostics()
    found = sessions(home, diagnostics)
    list(kiro.read(found[NATIVE], diagnostics))
    assert not diagnostics.problems and not diagnostics.details
    after = (
        sorted(p.name for p in (home / CLI_SESSIONS).iterdir()),
        lock.stat().st_mtime,
    )
    assert before == after


def test_a_growing_session_file_reads_on_from_an_offset(tmp_path: Path) -> None:
    home = copy(tmp_path)
    log = home / CLI_SESSIONS / f"{NATIVE}.jsonl"
    size = log.stat().st_size
    with log.open("a") as stream:
        stream.write(json.dumps({"version": "v1", "kind": "Prompt", "data": {
            "message_id": "n-9", "content": [{"kind": "text", "data": "One more thing"}],
            "meta": {"timestamp": 1765122300}}}) + "\n")  # fmt: skip
    session = sessions(home)[NATIVE]
    new = list(kiro.read(session, Diagnostics(), offset=size))
    assert [(e.kind, e.text) for e in new] == [("user", "One more thing")]
    assert session.updated is not None
    assert session.updated.isoformat() == "2025-12-07T15:45:00+00:00"


def test_a_huge_line_in_a_session_file_is_bounded(tmp_path: Path) -> None:
    home = copy(tmp_path)
    log = home / CLI_SESSIONS / f"{NATIVE}.jsonl"
    output = "x" * (files.READ_LINE_CAP + 1_000_000)
    with log.open("a") as stream:
        stream.write(json.dumps({"version": "v1", "kind": "ToolResults", "data": {
            "message_id": "n-10", "results": {}, "content": [{"kind": "toolResult", "data": {
                "toolUseId": "tooluse_z", "status": "success",
                "content": [{"kind": "text", "data": output}]}}]}}) + "\n")  # fmt: skip
    session = sessions(home)[NATIVE]
    assert session.title == "Add an RSS feed to the blog"
    diagnostics = Diagnostics()
    [result] = [e for e in kiro.read(session, diagnostics) if e.call_id == "tooluse_z"]
    assert result.text == f"[text, {files.human_bytes(len(output))}]"
    assert not diagnostics.skipped_total


def test_a_table_without_the_columns_the_cli_writes_is_said(tmp_path: Path) -> None:
    home = copy(tmp_path)
    db = sqlite3.connect(home / Q_DB)
    db.execute("ALTER TABLE conversations RENAME COLUMN key TO folder")
    db.commit()
    db.close()
    diagnostics = Diagnostics()
    found = sessions(home, diagnostics)
    assert Q_SHOP not in found and Q_BLOG not in found
    [problem] = diagnostics.problems
    assert "conversations table without the columns the CLI writes" in problem


def test_a_kiro_1x_answer_shows_its_reasoning_before_its_text(tmp_path: Path) -> None:
    home = copy(tmp_path)
    value = json.loads(conversation("thought", "Why 42?", "Because."))
    value["history"][0]["assistant"]["Response"]["thinking"] = {
        "text": "The user asks about 42.", "signature": "sig", "redacted_content": [],
    }  # fmt: skip
    add(home, SHOP, "thought", json.dumps(value), 1764900009000)
    found = events(sessions(home)["thought"])
    assert [(e.kind, e.text) for e in found if e.kind in ("thinking", "assistant")] == [
        ("thinking", "The user asks about 42."),
        ("assistant", "Because."),
    ]


def test_a_chat_too_big_to_parse_whole_is_listed_and_read_an_entry_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # an image the agent read is kept as a JSON array of numbers, which no eliding of
    # strings shortens: the chat was dropped from the listing, and could not be read
    monkeypatch.setattr(files, "READ_LINE_CAP", 4096)
    monkeypatch.setattr(files, "WHOLE_JSON_CAP", 4096)
    monkeypatch.setattr(files, "COMPACT_CAP", 16384)
    home = copy(tmp_path)
    value = json.loads(conversation("big", "Look at the screenshot", "A button."))
    pasted = {**value["history"][0]["user"], "images": [
        {"format": "Png", "source": {"Bytes": list(range(256)) * 100}}]}  # fmt: skip
    later = json.loads(conversation("big", "And the header?", "It is blue."))
    value["history"] = [{**value["history"][0], "user": pasted}, later["history"][0]]
    db = sqlite3.connect(home / Q_DB)
    db.execute(
        "INSERT INTO conversations VALUES (?, ?)", ("/tmp/big", json.dumps(value))
    )
    db.commit()
    db.close()
    session = sessions(home)["big"]
    assert session.cwd == "/tmp/big" and session.title == "And the header?"
    diagnostics = Diagnostics()
    found = list(kiro.read(session, diagnostics))
    assert [(e.kind, e.text) for e in found if e.kind in ("user", "assistant")] == [
        ("user", "And the header?"),
        ("assistant", "It is blue."),
    ]
    assert [reason for _, _, reason in diagnostics.details] == ["too long"]


def test_a_cancelled_turns_tokens_are_counted_before_the_next_prompt(
    tmp_path: Path,
) -> None:
    # a turn cancelled mid-request names a response the log never got (and its
    # "interrupted" answer gets an id no turn names): its tokens were never counted
    folder = tmp_path / "sessions"
    folder.mkdir()

    def line(kind: str, message_id: str, content: list[dict[str, object]]) -> str:
        data = {"message_id": message_id, "content": content}
        return json.dumps({"version": "v1", "kind": kind, "data": data})

    def said(text: str) -> list[dict[str, object]]:
        return [{"kind": "text", "data": text}]

    def turn(ids: list[str], tokens: int) -> dict[str, object]:
        return {"message_ids": ids, "end_timestamp": "2026-01-02T10:00:00Z",
                "input_token_count": tokens, "output_token_count": 1}  # fmt: skip

    use = [
        {"kind": "toolUse", "data": {"toolUseId": "t1", "name": "shell", "input": {}}}
    ]
    result = [{"kind": "toolResult", "data": {"toolUseId": "t1", "status": "error",
               "content": [{"kind": "text", "data": "cancelled"}]}}]  # fmt: skip
    (folder / "s1.jsonl").write_text("\n".join([
        line("Prompt", "p1", said("Run it")), line("AssistantMessage", "a1", use),
        line("ToolResults", "r1", result), line("AssistantMessage", "x9", said("Interrupted")),
        line("Prompt", "p2", said("Again")), line("AssistantMessage", "a2", said("Done")),
        line("Prompt", "p3", said("Once more")),
        json.dumps({"version": "v1", "kind": "CancelledPrompt"}),
    ]) + "\n")  # fmt: skip
    (folder / "s1.json").write_text(json.dumps({
        "session_id": "s1", "cwd": "/tmp", "created_at": "2026-01-02T09:00:00Z",
        "updated_at": "2026-01-02T10:00:00Z", "session_state": {"version": "v1",
        "conversation_metadata": {"user_turn_metadatas": [
            turn(["p1", "a1", "r1", "never"], 100), turn(["p2", "a2"], 50),
            turn(["p3", None], 7)]}, "rts_model_state": {"conversation_id": "s1"}}}))  # fmt: skip
    session = sessions(tmp_path, environ={"KIRO_TEST_SESSIONS_DIR": str(folder)})["s1"]
    found = events(session)
    told = [(e.kind, e.usage.input_tokens if e.usage else e.text) for e in found
            if e.kind in ("user", "usage")]  # fmt: skip
    assert told == [
        ("user", "Run it"), ("usage", 100), ("user", "Again"), ("usage", 50),
        ("user", "Once more"), ("usage", 7),
    ]  # fmt: skip


def test_a_chat_whose_id_holds_the_tables_name_is_read(tmp_path: Path) -> None:
    home = copy(tmp_path)
    odd = "x#conversations_v2/y"
    add(home, SHOP, odd, conversation(odd, "An odd id", "Read anyway."), 1764900009000)
    found = events(sessions(home)[odd])
    assert [e.text for e in found if e.kind == "assistant"] == ["Read anyway."]


def test_a_session_files_title_is_one_line_like_every_title(tmp_path: Path) -> None:
    home = copy(tmp_path)
    meta = home / CLI_SESSIONS / f"{OLDER}.json"
    data = json.loads(meta.read_text())
    data["title"] = "First line\nsecond line " + "y" * 300
    meta.write_text(json.dumps(data))
    title = sessions(home)[OLDER].title
    assert title is not None and "\n" not in title and len(title) == 200
    assert title.startswith("First line second line y")


def test_a_chat_reopened_in_another_folder_is_its_newer_row(tmp_path: Path) -> None:
    # the table's key is (folder, id): `--resume-id` in another folder saves a second
    # row there and leaves the first as it was
    home = copy(tmp_path)
    chat = "dddddddd-0000-4000-8000-000000000000"
    first = conversation(chat, "Start here", "First answer.")
    later = json.loads(first)
    later["history"] += json.loads(conversation(chat, "Go on", "Second answer."))[
        "history"
    ]
    add(home, "/work/a", chat, first, 1764900001000)
    add(home, "/work/b", chat, json.dumps(later), 1764900009000)
    session = sessions(home)[chat]
    assert session.cwd == "/work/b" and session.updated is not None
    assert session.updated.isoformat() == "2025-12-05T02:00:09+00:00"
    assert [e.text for e in events(session) if e.kind == "assistant"] == [
        "First answer.", "Second answer.",
    ]  # fmt: skip


def test_a_prompt_with_a_big_image_keeps_its_text(tmp_path: Path) -> None:
    # the CLI keeps an image as its bytes, a JSON array of numbers: a 1.5 MB one made
    # the line too long even with its strings elided, and the typed text was lost
    home = copy(tmp_path)
    log = home / CLI_SESSIONS / f"{NATIVE}.jsonl"
    pixels = [(n * 7) % 256 for n in range(1_500_000)]
    with log.open("a") as stream:
        stream.write(json.dumps({"version": "v1", "kind": "Prompt", "data": {
            "id": "n-big", "role": "user", "content": [
                {"kind": "text", "data": "What is wrong in this screenshot?"},
                {"kind": "image", "data": {"format": "png", "source": {"bytes": pixels}}}],
            "meta": {"timestamp": 1764900900}}}) + "\n")  # fmt: skip
    diagnostics = Diagnostics()
    found = list(kiro.read(sessions(home)[NATIVE], diagnostics))
    assert found[-1].kind == "user"
    assert found[-1].text == "What is wrong in this screenshot?\n[1 image]"
    assert not diagnostics.skipped_total


def _generator() -> object:
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "kiro_make_databases", DATA / "make_databases.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _team(tmp_path: Path) -> tuple[Path, object]:
    """A lead that spawned two sessions: one with its files beside the lead's, one whose
    files are gone (the generator's `team`, as the 2.2.1 CLI writes them)."""
    make = _generator()
    home = tmp_path / "home"
    make.write_team(home)  # type: ignore[attr-defined]
    return home, make


def _cli(home: Path, *args: str) -> str:
    result = CliRunner().invoke(main, [*args, "--home", str(home)])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_a_spawned_session_is_listed_under_its_lead_not_on_its_own(
    tmp_path: Path,
) -> None:
    home, make = _team(tmp_path)
    lead, child = make.LEAD, make.CHILD  # type: ignore[attr-defined]
    shown = {r["id"] for r in json.loads(_cli(home, "list", "--json"))}
    assert lead in shown and child not in shown
    every = {r["id"]: r for r in json.loads(_cli(home, "list", "--json", "--all"))}
    assert every[child]["parent_id"] == lead
    assert every[child]["agent_type"] == "reviewer"
    assert make.GONE not in every  # type: ignore[attr-defined]  # no files: not listed
    # listing found the link by searching the lead's bytes, never reading it whole
    found = sessions(home)
    assert found[child].parent_id == lead and found[child].listed
    assert found[lead].parent_id is None


def test_tree_shows_a_spawned_session_with_its_type_name_and_task(
    tmp_path: Path,
) -> None:
    home, make = _team(tmp_path)
    out = _cli(home, "tree", make.LEAD[:8])  # type: ignore[attr-defined]
    assert "reviewer" in out and "timeouts" in out
    assert "Review checkout.py for missing timeouts" in out
    assert make.CHILD[:8] in out  # type: ignore[attr-defined]


def test_show_reads_a_spawned_sessions_events_inline(tmp_path: Path) -> None:
    home, make = _team(tmp_path)
    lead, child = make.LEAD, make.CHILD  # type: ignore[attr-defined]
    diagnostics = Diagnostics()
    found = list(kiro.read(sessions(home)[lead], diagnostics))
    spawns = [e for e in found if e.kind == "subagent"]
    assert [(e.call_id, e.extra["child_id"], e.extra["agent_type"],
             e.extra["agent_name"]) for e in spawns] == [
        ("ts1", child, "reviewer", "timeouts"),
        ("ts2", make.GONE, "reviewer", "retries"),  # type: ignore[attr-defined]
    ]  # fmt: skip
    assert spawns[0].text == make.TASK  # type: ignore[attr-defined]
    results = [e for e in found if e.kind == "tool_result"]
    assert all(e.extra.get("launched") for e in results)  # it only started them
    own = [(e.kind, e.text) for e in found if e.agent_id == child]
    assert (
        "assistant",
        "checkout() posts with a 2 s timeout; refund() has none.",
    ) in own
    assert ("user", make.TASK) in own  # type: ignore[attr-defined]
    assert any(e.kind == "usage" and e.agent_id == child for e in found)
    assert [e.seq for e in found] == list(range(len(found)))
    # the one whose files are gone is said to be missing, as other apps' are
    assert any(make.GONE in p for p in diagnostics.problems)  # type: ignore[attr-defined]
    shown = json.loads(_cli(home, "show", lead[:8], "--json"))
    events_ = shown["events"] if isinstance(shown, dict) else shown
    assert any(e.get("agent_id") == child for e in events_)


def test_a_spawned_session_read_on_its_own_was_told_by_its_lead(
    tmp_path: Path,
) -> None:
    home, make = _team(tmp_path)
    child = sessions(home)[make.CHILD]  # type: ignore[attr-defined]
    out = _cli(home, "show", child.id[:8], "--json")
    assert "reviewer" in out or "lead" in out
    plan = kiro.resume(child)
    assert plan is not None and child.id in " ".join(plan.argv)


def test_a_spawn_in_the_middle_of_a_long_lead_is_found_when_listing(
    tmp_path: Path,
) -> None:
    home, make = _team(tmp_path)
    log = home / CLI_SESSIONS / f"{make.LEAD}.jsonl"  # type: ignore[attr-defined]
    lines = log.read_text().splitlines(keepends=True)
    filler = [
        json.dumps(make.said(f"f-{n}", "more " * 400, 1765188001))  # type: ignore[attr-defined]
        + "\n"
        for n in range(300)
    ]
    log.write_text("".join([*filler[:40], *lines, *filler[40:]]))
    assert log.stat().st_size > files.TAIL_BYTES
    read: list[str] = []
    original = files.iter_records

    def traced(path: object, *args: object, **kwargs: object) -> object:
        read.append(str(path))
        return original(path, *args, **kwargs)  # type: ignore[arg-type]

    import unittest.mock

    with unittest.mock.patch.object(files, "iter_records", traced):
        found = sessions(home)
    assert not read  # listing never parses a log whole
    assert found[make.CHILD].parent_id == make.LEAD  # type: ignore[attr-defined]


def test_a_turns_metered_credits_are_its_usage(tmp_path: Path) -> None:
    # the 2.x CLI meters each request of a turn in credits (`metering_usage`, one entry
    # a request) and writes its token counts as 0: the turn's credits are its usage
    folder = tmp_path / ".kiro" / "sessions" / "cli"  # where the CLI keeps them
    folder.mkdir(parents=True)
    said = [{"kind": "text", "data": "Done"}]
    lines = [
        {"version": "v1", "kind": "Prompt", "data": {"message_id": "p1", "content": said}},
        {"version": "v1", "kind": "AssistantMessage", "data": {"message_id": "a1", "content": said}},
    ]  # fmt: skip
    (folder / "s1.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    metering = [{"value": 0.25, "unit": "credit", "unitPlural": "credits"},
                {"value": 1, "unit": "credit"}, {"value": 9, "unit": "request"},
                {"value": "many", "unit": "credit"}]  # fmt: skip
    turn = {"message_ids": ["p1", "a1"], "end_timestamp": "2026-01-02T10:00:00Z",
            "input_token_count": 0, "output_token_count": 0, "metering_usage": metering}  # fmt: skip
    (folder / "s1.json").write_text(json.dumps({
        "session_id": "s1", "cwd": "/tmp", "created_at": "2026-01-02T09:00:00Z",
        "updated_at": "2026-01-02T10:00:00Z", "session_state": {"version": "v1",
        "conversation_metadata": {"user_turn_metadatas": [turn]},
        "rts_model_state": {"conversation_id": "s1"}}}))  # fmt: skip
    found = events(sessions(tmp_path)["s1"])
    billed = [e.usage for e in found if e.kind == "usage" and e.usage is not None]
    assert [(u.total, u.credits) for u in billed] == [(0, 1.25)]
    result = CliRunner().invoke(
        main, ["usage", "app", "--json", "--home", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)[0]["credits"] == {"kiro": 1.25}


@pytest.mark.parametrize("streamed", [False, True])
def test_a_database_chat_counts_its_last_turns_credits_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, streamed: bool
) -> None:
    """The CLI keeps a turn's credits in `user_turn_metadata.usage_info` (one `{value,
    unit, unit_plural}` a request since the prompt), starts it afresh at each prompt and
    saves the conversation over its row: the row's credits are its last turn's, one
    usage event dated by the last response; an earlier turn's are kept nowhere. A row
    too big to parse whole keeps them too."""
    if streamed:
        monkeypatch.setattr(files, "WHOLE_JSON_CAP", 256)
    home = copy(tmp_path)
    value = json.loads(conversation("metered", "Fix the test", "Fixed."))
    value["history"][0]["request_metadata"] = {
        "request_id": "r1", "message_id": "m", "request_start_timestamp_ms": 1764900000000,
        "stream_end_timestamp_ms": 1764900004000, "model_id": "claude-sonnet-4.5",
        "time_between_chunks": [], "tool_use_ids_and_names": [], "message_meta_tags": [],
    }  # fmt: skip
    value["user_turn_metadata"] = {
        "continuation_id": "c1",
        "requests": [],
        "usage_info": [
            {"value": 0.25, "unit": "credit", "unit_plural": "credits"},
            {"value": 0.5, "unit": "credit", "unit_plural": "credits"},
            {"value": 9, "unit": "token", "unit_plural": "tokens"},  # no credit
        ],
    }
    add(home, SHOP, "metered", json.dumps(value), 1764900009000)
    found = events(sessions(home)["metered"])
    [billed] = [e for e in found if e.kind == "usage"]
    assert billed.usage is not None
    assert (billed.usage.credits, billed.usage.model) == (0.75, "claude-sonnet-4.5")
    assert billed.time is not None and billed.time.timestamp() == 1764900004
    assert found[-1] is billed  # after the turn it bills


def test_a_turn_a_compaction_forked_counts_its_credits_in_the_newer_row(
    tmp_path: Path,
) -> None:
    """A compaction in the middle of a turn forks the conversation (a new id; the old
    row stays as it was last saved, the turn's credits so far in it) and the new row goes
    on with the same turn (`continuation_id`), its credits growing: they count once, in
    the newer row, whichever order `usage` meets them in."""
    home = copy(tmp_path)
    turn = [{"value": 0.5, "unit": "credit", "unit_plural": "credits"}]
    for conversation_id, metering, updated in (
        ("before-compaction", turn, 1764900009000),
        ("after-compaction", [*turn, *turn], 1764900019000),
    ):
        value = json.loads(conversation(conversation_id, "Fix the test", "Fixed."))
        value["user_turn_metadata"] = {
            "continuation_id": "turn-1",
            "requests": [],
            "usage_info": metering,
        }
        add(home, SHOP, conversation_id, json.dumps(value), updated)
    found = sessions(home)
    credits = {
        name: sum(e.usage.credits for e in events(found[name]) if e.usage)
        for name in ("before-compaction", "after-compaction")
    }
    assert credits == {"before-compaction": 0, "after-compaction": 1.0}
    result = CliRunner().invoke(
        main,
        ["usage", "app", "--json", "--app", "kiro", "--home", str(home)],
        env={"SESSDEX_HOME": str(tmp_path / "sessdex")},
    )
    assert result.exit_code == 0, result.output
    (row,) = json.loads(result.stdout)
    assert row["credits"]["kiro"] == pytest.approx(1.0 + _fixture_credits(tmp_path))


def _fixture_credits(tmp_path: Path) -> float:
    """The credits the fixture home's own sessions count (its 2.x session files')."""
    result = CliRunner().invoke(
        main,
        ["usage", "app", "--json", "--app", "kiro", "--home", str(HOME)],
        env={"SESSDEX_HOME": str(tmp_path / "sessdex-fixture")},
    )
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    return float(rows[0]["credits"].get("kiro", 0)) if rows else 0.0


def test_a_conversations_table_made_a_view_lists_its_chats_and_counts_what_it_hides(
    tmp_path: Path,
) -> None:
    """A view's rows have no rowid (SQLite gives NULL) for blob IO to open: the chats
    list from the view's columns and each value it hides is counted, never a crash."""
    home = copy(tmp_path)
    tables_as_views(home / KIRO_DB, "conversations_v2")
    listed = cli_over(home, "list", "--json", "--all", "--app", "kiro")
    assert NEWEST in {row["id"] for row in json.loads(listed.stdout)}
    assert cli_over(home, "show", NEWEST).exit_code == 0
    doctor = cli_over(home, "doctor", "--deep", "--json", "--app", "kiro")
    (app,) = json.loads(doctor.stdout)
    assert app["skipped_at"] and not app["problems"], app


def test_a_conversations_v2_table_gone_after_its_migration_is_said(
    tmp_path: Path,
) -> None:
    """Its chats go with it, but not unsaid: the older table's are listed, and doctor
    says the newer table its migrations made is missing."""
    home = copy(tmp_path)
    with sqlite3.connect(home / KIRO_DB) as db:
        db.execute("DROP TABLE conversations_v2")
    db.close()
    listed = cli_over(home, "list", "--json", "--all", "--app", "kiro")
    assert NEWEST not in {row["id"] for row in json.loads(listed.stdout)}
    doctor = cli_over(home, "doctor", "--json", "--app", "kiro")
    (app,) = json.loads(doctor.stdout)
    assert any("no conversations_v2 table" in p for p in app["problems"]), app


def test_chat_times_kept_as_text_are_still_its_times(tmp_path: Path) -> None:
    """A database a tool rewrote with TEXT columns (an export and import) keeps each
    epoch as its digits: the list still dates the chat."""
    home = copy(tmp_path)
    listed = cli_over(home, "list", "--json", "--all", "--app", "kiro")
    before = {row["id"]: row for row in json.loads(listed.stdout)}
    with sqlite3.connect(home / KIRO_DB, isolation_level=None) as db:
        columns = [r[1] for r in db.execute("PRAGMA table_info(conversations_v2)")]
        cast = ", ".join(f'CAST("{c}" AS TEXT) AS "{c}"' for c in columns)
        db.execute(f"CREATE TABLE as_text AS SELECT {cast} FROM conversations_v2")
        db.execute("DROP TABLE conversations_v2")
        db.execute("ALTER TABLE as_text RENAME TO conversations_v2")
    db.close()
    listed = cli_over(home, "list", "--json", "--all", "--app", "kiro")
    after = {row["id"]: row for row in json.loads(listed.stdout)}
    for chat in (NEWEST, MIGRATED):
        for field in ("created", "updated"):
            assert after[chat][field] == before[chat][field], (chat, field)


def test_a_cut_emoji_escape_in_a_chat_keeps_the_chat(tmp_path: Path) -> None:
    """Half an emoji (`\\ud83d`, valid JSON that orjson refuses) in a Q chat's value:
    the chat was counted "not JSON" and gone from the list; it is read as U+FFFD."""
    home = copy(tmp_path)
    db = sqlite3.connect(home / Q_DB)
    [(key, value)] = db.execute(
        "SELECT key, value FROM conversations WHERE value LIKE ?", (f"%{Q_SHOP}%",)
    ).fetchall()
    assert '"prompt":"' in value.replace('": "', '":"')
    cut = value.replace('"prompt": "', '"prompt": "\\ud83d', 1).replace(
        '"prompt":"', '"prompt":"\\ud83d', 1
    )
    db.execute("UPDATE conversations SET value = ? WHERE key = ?", (cut, key))
    db.commit()
    db.close()
    diagnostics = Diagnostics()
    found = sessions(home, diagnostics)
    assert Q_SHOP in found
    assert "\ufffd" in "".join(e.text or "" for e in events(found[Q_SHOP]))
    assert not diagnostics.details


@pytest.mark.parametrize("value", [None, "null", "[]"])
def test_a_q_cli_row_with_no_conversation_is_counted_not_passed_over(
    tmp_path: Path, value: str | None
) -> None:
    """A row of Q's `conversations` table whose value is NULL (a damaged row: every
    column NULL, scripts/fuzz-homes.py 90132) is a chat gone with a word in doctor, as
    a value that holds no conversation is."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    with sqlite3.connect(home / Q_DB) as db:
        db.execute(
            "UPDATE conversations SET key = NULL, value = ? WHERE key = ?",
            (value, SHOP),
        )
    db.close()
    diagnostics = Diagnostics()
    found = sessions(home, diagnostics)
    assert Q_SHOP not in found and Q_BLOG in found
    assert diagnostics.skipped_total == 1


def test_the_chats_of_a_database_of_many_are_read_with_one_scan_for_their_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A chat's row is found by its id, which no index of `conversations_v2` leads
    with: the rows of every id looked up once for all the reads of a run, not once a
    read, which `usage` and `doctor --deep` make of each chat (1,600 chats: 5.7 s CPU
    where 200 took 0.22 s, scripts/fuzz-homes.py --fanout)."""
    from sessdex import databases
    from tests import fuzzing

    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    assert fuzzing._fan_rows(home / KIRO_DB, NEWEST, range(1, 301), messages=False)
    scans: list[str] = []
    opened = databases.open_or_say

    def traced(*args: object, **kwargs: object) -> sqlite3.Connection | None:
        connection = opened(*args, **kwargs)  # type: ignore[arg-type]
        if connection is not None:
            connection.set_trace_callback(
                lambda sql: scans.append(sql) if "conversation_id" in sql else None
            )
        return connection

    monkeypatch.setattr(databases, "open_or_say", traced)
    chats = [s for s in sessions(home).values() if s.id.startswith(NEWEST[:-5])]
    assert len(chats) == 301
    scans.clear()
    for chat in chats:
        diagnostics = Diagnostics()
        assert [e for e in kiro.read(chat, diagnostics) if e.kind == "user"]
        assert not diagnostics.skipped_total
    assert len(scans) <= 2  # one scan for all; each chat's own row by its rowid
