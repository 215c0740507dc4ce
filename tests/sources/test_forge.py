"""Forge Code quirks: one .forge.db (WAL while forge runs) in ~/.forge, the legacy ~/forge or
$FORGE_CONFIG; each conversation's context one JSON document in a row; sub-agents are
conversations of their own, read inside the lead whose agent result names them; usage kept
per response; resume with --conversation-id in the conversation's folder."""

from __future__ import annotations

import json
import shutil
import sqlite3
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import files, usage
from sessdex.cli import main
from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Session, merge
from sessdex.sources import Home, forge

DATA = Path(__file__).parent.parent / "data" / "forge"
HOME = DATA / "home"
LEAD = "3f2a1b0c-9d8e-4f7a-8b6c-5d4e3f2a1b0c"
CHILD = "7c6b5a49-3827-4165-9f4e-3d2c1b0a9f8e"
OLD = "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d"


def sessions(
    home: Path = HOME,
    diagnostics: Diagnostics | None = None,
    environ: dict[str, str] | None = None,
) -> dict[str, Session]:
    diagnostics = diagnostics if diagnostics is not None else Diagnostics()
    location = forge.locate(
        Home(home, environ) if environ is not None else Home.at(home)
    )
    fragments: dict[str, list[Session]] = {}
    for path in forge.scan(location):
        for session in forge.parse(path, location, diagnostics):
            fragments.setdefault(session.id, []).append(session)
    return {key: merge(parts) for key, parts in fragments.items()}


def events(session: Session) -> list[Event]:
    diagnostics = Diagnostics()
    found = list(forge.read(session, diagnostics))
    assert not diagnostics.skipped_total and not diagnostics.unknown
    assert not diagnostics.problems
    return found


def copy(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    return home


def add_row(home: Path, conversation_id: str, title: str | None, context: object,
            updated: str = "2026-12-02 08:00:05") -> None:  # fmt: skip
    db = sqlite3.connect(home / ".forge" / ".forge.db")
    db.execute(
        "INSERT INTO conversations (conversation_id, title, workspace_id, context, "
        "created_at, updated_at) VALUES (?, ?, 1, ?, '2026-12-02 08:00:00', ?)",
        (conversation_id, title, json.dumps(context, separators=(",", ":")), updated),
    )
    db.commit()
    db.close()


def test_conversations_are_listed_with_folder_model_and_sub_agent_lead() -> None:
    diagnostics = Diagnostics()
    found = sessions(diagnostics=diagnostics)
    # a row with no context yet (a conversation forge created but never wrote) is not
    # listed, as forge lists none, nor warned of on every listing (it is no damage):
    # doctor counts it
    assert set(found) == {LEAD, CHILD, OLD}
    assert not diagnostics.details and not diagnostics.skipped
    assert forge.doctor_notes(forge.locate(Home(HOME))) == [
        f"{HOME / '.forge' / '.forge.db'}: 1 conversation {forge.UNWRITTEN}"
    ]
    lead, child, old = found[LEAD], found[CHILD], found[OLD]
    assert (lead.cwd, lead.model, lead.parent_id) == ("/home/alex/code/shop-api", "claude-sonnet-4-5-20250929", None)  # fmt: skip
    assert (child.parent_id, child.agent_type, child.title) == (LEAD, "subagent", "Find every caller of checkout()")  # fmt: skip
    # no title column: the first prompt, out of the <task> forge wraps it in
    assert (old.title, old.cwd, old.model) == ("Why is the blog build slow?", "/home/alex/code/blog", "gpt-5")  # fmt: skip
    assert lead.created == datetime(2026, 12, 1, 11, 0, 0, 250000, tzinfo=UTC)


def test_the_lead_reads_in_order_with_its_sub_agent_inside() -> None:
    found = events(sessions()[LEAD])
    shown = [(e.kind, e.agent_id, e.tool or e.call_id) for e in found]
    assert shown == [
        ("user", None, None),
        ("thinking", None, None),
        ("assistant", None, None),
        ("tool_call", None, "read"),
        ("tool_call", None, "sage"),
        ("usage", None, None),
        ("tool_result", None, "read"),
        ("subagent", None, "toolu_02"),
        ("user", CHILD, None),
        ("assistant", CHILD, None),
        ("turn_end", CHILD, None),
        ("usage", CHILD, None),
        ("tool_result", None, "sage"),
        ("tool_call", None, "patch"),
        ("usage", None, None),
        ("tool_result", None, "patch"),
        ("assistant", None, None),
        ("turn_end", None, None),
        ("usage", None, None),
    ]
    assert (
        found[0].text == "Add retry to checkout"
    )  # the prompt as typed, not the <task> wrapper
    spawn = found[7]
    assert spawn.extra == {"child_id": CHILD, "agent_type": "sage", "agent_name": "Find every caller of checkout()"}  # fmt: skip
    assert found[8].extra["from_agent"] == "the lead"
    patch = found[13]
    assert patch.extra["input"]["old_string"] == "return pay(cart)"
    assert found[15].is_error and found[15].call_id == "toolu_03"
    assert (
        found[-2].time is not None and found[-2].time_estimated
    )  # the row's updated_at


def test_usage_is_per_response_with_cache_reads_apart_hand_checked() -> None:
    found = [e for e in events(sessions()[LEAD]) if e.kind == "usage"]
    tokens = [(u.input_tokens, u.output_tokens, u.cache_read_tokens, u.model) for e in found if (u := e.usage)]  # fmt: skip
    # prompt_tokens counts the cached ones: input is what was not read from the cache
    assert tokens == [
        (200, 80, 1000, "claude-sonnet-4-5-20250929"),
        (900, 30, 0, "claude-haiku-4-5"),
        (200, 60, 2200, "claude-sonnet-4-5-20250929"),
        (200, 40, 2400, "claude-sonnet-4-5-20250929"),
    ]
    assert [e.extra.get("cost_usd") for e in found] == [0.0042, None, 0.0031, 0.002]
    result = usage.run(Home.at(HOME), "model", apps=("forge",), filters=usage.Filters())
    by_model = {
        row.key: (row.input_tokens, row.output_tokens, row.cache_read_tokens)
        for row in result.rows
    }
    # the sub-agent counts once, inside its lead
    assert by_model["claude-sonnet-4-5-20250929"] == (600, 180, 5600)
    assert by_model["claude-haiku-4-5"] == (900, 30, 0)


def test_an_old_unwrapped_context_with_compaction_and_legacy_values_reads() -> None:
    found = events(sessions()[OLD])
    assert [e.kind for e in found] == [
        "compaction", "user", "meta", "user", "tool_call", "tool_result", "user",
        "assistant", "turn_end",
    ]  # fmt: skip
    assert found[0].text is not None and "## Summary" in found[0].text
    assert found[2].extra == {"attachment": True}
    assert found[3].text == "[image/png, 9 B]"  # its size, never its data
    assert found[4].extra["input"] == {"command": "make build"}
    # markdown, the first of a pair, a file diff's note; `empty` adds nothing
    assert found[5].text == "built in 94s\nimages: 80s\n[File diff: Makefile]"
    assert found[6].text == "/compact"


def test_resume_is_forge_conversation_id_in_the_folder(tmp_path: Path) -> None:
    found = sessions()
    plan = forge.resume(found[LEAD])
    assert plan is not None
    assert plan.argv == ("forge", "--conversation-id", LEAD)
    assert plan.cwd == "/home/alex/code/shop-api"
    child = forge.resume(found[CHILD])
    assert child is not None and any("sub-agent" in note for note in child.notes)
    odd = Session(app="forge", id="--help", cwd="/tmp")
    assert forge.resume(odd) is None
    result = CliRunner().invoke(
        main, ["resume", LEAD[:8], "--print", "--home", str(copy(tmp_path))]
    )
    assert result.exit_code == 1, result.output  # printed; its folder is not here
    assert f"forge --conversation-id {LEAD}" in result.stdout


def test_a_running_forge_names_its_conversation() -> None:
    assert forge.process_session(["forge", "--conversation-id", LEAD]) is not None
    opened = forge.process_session(["forge", "--cid", LEAD])
    assert opened is not None and opened.session_id == LEAD
    resumed = forge.process_session(["forge", "conversation", "resume", LEAD])
    assert resumed is not None and resumed.session_id == LEAD
    assert forge.process_session(["forge", "-p", "hello"]) is None


def test_newest_rows_in_the_wal_are_listed_and_nothing_is_written(
    tmp_path: Path,
) -> None:
    home = copy(tmp_path)
    folder = home / ".forge"
    (folder / ".credentials.json").write_text('{"api_key": "secret"}')
    writer = sqlite3.connect(folder / ".forge.db")
    try:
        writer.execute("PRAGMA journal_mode=WAL")
        writer.execute("PRAGMA wal_autocheckpoint=0")
        context = {"conversation_id": "x", "messages": [
            {"message": {"text": {"role": "System", "content": "<current_working_directory>/home/alex/code/new</current_working_directory>"}}},
            {"message": {"text": {"role": "User", "content": "<task>hello</task>", "raw_content": {"Text": "hello"}}}},
        ]}  # fmt: skip
        wal = "11111111-2222-4333-8444-555555555555"
        writer.execute(
            "INSERT INTO conversations (conversation_id, title, workspace_id, context, "
            "created_at, updated_at) VALUES (?, 'Only in the WAL', 1, ?, "
            "'2026-12-02 08:00:00', '2026-12-02 08:00:05')",
            (wal, json.dumps(context, separators=(",", ":"))),
        )
        writer.commit()
        assert (folder / ".forge.db-wal").stat().st_size > 0
        before = {
            p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.iterdir()
        }
        found = sessions(home)
        assert (found[wal].title, found[wal].cwd) == (
            "Only in the WAL",
            "/home/alex/code/new",
        )
        assert [e.text for e in events(found[wal])] == ["hello"]
        after = {
            p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.iterdir()
        }
        assert after == before
    finally:
        writer.close()


def test_forge_config_the_legacy_folder_and_the_default(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "forge").mkdir(parents=True)
    shutil.copy(HOME / ".forge" / ".forge.db", home / "forge" / ".forge.db")
    assert set(sessions(home)) == {LEAD, CHILD, OLD}  # ~/forge, forge's legacy folder
    elsewhere = tmp_path / "cfg"
    shutil.copytree(HOME / ".forge", elsewhere)
    found = sessions(tmp_path / "nobody", environ={"FORGE_CONFIG": str(elsewhere)})
    assert set(found) == {LEAD, CHILD, OLD}
    location = forge.locate(Home(tmp_path, {"FORGE_CONFIG": str(elsewhere)}))
    assert location.override == f"FORGE_CONFIG={elsewhere}"


def test_damaged_rows_are_counted_never_raised() -> None:
    diagnostics = Diagnostics()
    found = sessions(DATA / "malformed" / "home", diagnostics)
    assert len(found) == 6  # every row is listed from its columns, whatever its context
    for session in found.values():
        list(forge.read(session, diagnostics))
    reasons = sorted(reason for _, _, reason in diagnostics.details)
    assert reasons == ["not an object", "truncated", "truncated"]
    assert diagnostics.unknown == {
        "message without one kind": 3,
        "context field future_field": 1,
        "role None": 1,
        "role Robot": 1,
        "message video": 1,
        "tool value blob": 1,
        "tool value": 1,
    }
    assert not diagnostics.problems


def test_a_huge_tool_output_is_elided_not_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(files, "READ_LINE_CAP", 4096)
    home = copy(tmp_path)
    huge = "x" * 400_000
    big = "22222222-3333-4444-8555-666666666666"
    add_row(home, big, "Big output", {"messages": [
        {"message": {"text": {"role": "User", "content": "<task>cat it</task>", "raw_content": {"Text": "cat it"}}}},
        {"message": {"text": {"role": "Assistant", "content": "", "tool_calls": [{"name": "shell", "call_id": "c1", "arguments": {"command": "cat big"}}]}}},
        {"message": {"tool": {"name": "shell", "call_id": "c1", "output": {"is_error": False, "values": [{"text": huge}]}}}},
    ]})  # fmt: skip
    found = events(sessions(home)[big])
    result = found[-1]
    assert result.kind == "tool_result" and result.text is not None
    # the output is elided to a note of its size; the answer around it still reads
    assert result.text == f"[text, {files.human_bytes(len(huge))}]"


def test_a_sub_agent_loop_is_listed_and_read_once(tmp_path: Path) -> None:
    home = copy(tmp_path)
    a, b = (
        "aaaaaaaa-0000-4000-8000-000000000001",
        "aaaaaaaa-0000-4000-8000-000000000002",
    )

    def names(other: str) -> dict[str, object]:
        return {"initiator": "agent", "messages": [
            {"message": {"text": {"role": "Assistant", "content": "", "tool_calls": [{"name": "sage", "call_id": "c", "arguments": {}}]}}},
            {"message": {"tool": {"name": "sage", "call_id": "c", "output": {"is_error": False, "values": [{"aI": {"value": "done", "conversation_id": other}}]}}}},
        ]}  # fmt: skip

    add_row(home, a, "A", names(b))
    add_row(home, b, "B", names(a))
    found = sessions(home)
    # a loop: its least id on its own, the lead of the other (each read holds both)
    assert found[a].parent_id is None and found[b].parent_id == a
    kinds = [e.kind for e in events(found[a])]
    assert kinds.count("subagent") == 2  # a names b, b names a: a is not read again


def test_watch_tells_a_call_running_from_a_turn_that_ended(tmp_path: Path) -> None:
    """Forge writes no time per message: the row's `updated_at` dates its usage and last
    turn end; a sub-agent that finished inside the lead is not still working."""
    home = copy(tmp_path)
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
    mid = "99999999-2222-4333-8444-555555555555"
    add_row(home, mid, "Mid", {"messages": [
        {"message": {"text": {"role": "User", "content": "<task>run</task>", "raw_content": {"Text": "run"}}}},
        {"message": {"text": {"role": "Assistant", "content": "", "tool_calls": [{"name": "shell", "call_id": "c1", "arguments": {"command": "make"}}]}}},
    ]}, updated=now)  # fmt: skip
    db = sqlite3.connect(home / ".forge" / ".forge.db")
    db.execute("UPDATE conversations SET updated_at = ? WHERE conversation_id = ?", (now, LEAD))  # fmt: skip
    db.commit()
    db.close()
    result = CliRunner().invoke(
        main, ["watch", "--json", "--app", "forge", "--home", str(home)]
    )
    assert result.exit_code == 0, result.output
    rows = {row["id"]: row for row in json.loads(result.stdout)}
    assert (rows[mid]["status"], rows[mid]["reason"]) == ("working", "tool shell running")  # fmt: skip
    started = datetime.fromisoformat(rows[mid]["since"]).timestamp()  # the call's
    assert abs(time.time() - started) < 60, rows[mid]
    assert rows[LEAD]["status"] == "waiting_for_user"
    assert "sub-agent" not in rows[LEAD]["reason"]


def test_a_document_and_a_messages_own_timestamp_are_taken(tmp_path: Path) -> None:
    """Neither is in forge's main branch as read (a PDF `document` is in its pending pdf
    branch; a per-message `timestamp` is what a third-party reader expects): where a row
    holds them, they show, and nothing is counted as unknown."""
    home = copy(tmp_path)
    dated = "33333333-4444-4555-8666-777777777777"
    pdf = "JVBERi0xLjcK" * 100
    add_row(home, dated, "A report", {"messages": [
        {"message": {"text": {"role": "User", "content": "<task>read it</task>", "raw_content": {"Text": "read it"}, "timestamp": "2026-12-02T08:00:01Z"}}},
        {"message": {"document": {"data": pdf, "mime_type": "application/pdf", "filename": "q3.pdf"}}},
        {"message": {"text": {"role": "Assistant", "content": "Revenue grew.", "timestamp": "2026-12-02T08:00:09Z"}},
         "usage": {"prompt_tokens": {"approx": 50}, "completion_tokens": {"actual": 5}, "total_tokens": {"actual": 55}, "cached_tokens": {"actual": 0}}},
    ]})  # fmt: skip
    found = events(sessions(home)[dated])
    assert [(e.kind, e.time, e.time_estimated) for e in found] == [
        ("user", datetime(2026, 12, 2, 8, 0, 1, tzinfo=UTC), False),
        ("user", None, False),
        ("assistant", datetime(2026, 12, 2, 8, 0, 9, tzinfo=UTC), False),
        ("turn_end", datetime(2026, 12, 2, 8, 0, 9, tzinfo=UTC), False),
        ("usage", datetime(2026, 12, 2, 8, 0, 9, tzinfo=UTC), False),
    ]
    assert (
        found[1].text
        == f"[application/pdf, {files.human_bytes(len(pdf) * 3 // 4)}] q3.pdf"
    )
    usage_event = found[-1].usage
    assert usage_event is not None and (
        usage_event.input_tokens,
        usage_event.output_tokens,
    ) == (50, 5)


def _spawn_lead(
    task_args: dict[str, object], values: list[object]
) -> dict[str, object]:
    return {"messages": [
        {"message": {"text": {"role": "User", "content": "<task>split it</task>", "raw_content": {"Text": "split it"}, "model": "gpt-5"}}},
        {"message": {"text": {"role": "Assistant", "content": "", "tool_calls": [{"name": "task", "call_id": "t1", "arguments": task_args}]}},
         "usage": {"prompt_tokens": {"actual": 100}, "completion_tokens": {"actual": 10}, "total_tokens": {"actual": 110}, "cached_tokens": {"actual": 0}}},
        {"message": {"tool": {"name": "task", "call_id": "t1", "output": {"is_error": False, "values": values}}}},
    ]}  # fmt: skip


def _child_context(task: str, initiator: bool) -> dict[str, object]:
    context: dict[str, object] = {"messages": [
        {"message": {"text": {"role": "User", "content": f"<task>{task}</task>", "raw_content": {"Text": task}, "model": "gpt-5"}}},
        {"message": {"text": {"role": "Assistant", "content": f"did {task}"}},
         "usage": {"prompt_tokens": {"actual": 40}, "completion_tokens": {"actual": 4}, "total_tokens": {"actual": 44}, "cached_tokens": {"actual": 0}}},
    ]}  # fmt: skip
    return {"initiator": "agent", **context} if initiator else context


def test_each_task_of_one_call_labels_its_own_sub_agent(tmp_path: Path) -> None:
    """The task tool runs every task of its `tasks` list in a conversation of its own and
    returns one `aI` value per task, in order: each spawn is labelled by its own task."""
    home = copy(tmp_path)
    lead, one, two = (
        "bbbbbbbb-0000-4000-8000-000000000001",
        "bbbbbbbb-0000-4000-8000-000000000002",
        "bbbbbbbb-0000-4000-8000-000000000003",
    )
    add_row(home, one, "Count the tests", _child_context("Count the tests", True))
    add_row(home, two, "List the routes", _child_context("List the routes", True))
    add_row(home, lead, "Split", _spawn_lead(
        {"tasks": ["Count the tests", "List the routes"], "agent_id": "sage"},
        [{"aI": {"value": "done 1", "conversation_id": one}},
         {"aI": {"value": "done 2", "conversation_id": two}}],
    ))  # fmt: skip
    spawns = [e for e in events(sessions(home)[lead]) if e.kind == "subagent"]
    assert [(e.text, e.extra["child_id"]) for e in spawns] == [
        ("Count the tests", one),
        ("List the routes", two),
    ]


def test_a_sub_agent_without_initiator_is_listed_under_its_lead_and_counted_once(
    tmp_path: Path,
) -> None:
    """forge 1.11 to 2.5.1 (Dec 2025 to Apr 2026) named a sub-agent's conversation in its
    lead's `aI` value but wrote no `initiator` into it (that came with 2.5.2): it is still
    the lead's sub-agent, and its usage counts once, inside the lead."""
    home = tmp_path / "home"
    (home / ".forge").mkdir(parents=True)
    shutil.copy(HOME / ".forge" / ".forge.db", home / ".forge" / ".forge.db")
    db = sqlite3.connect(home / ".forge" / ".forge.db")
    db.execute("DELETE FROM conversations")
    db.commit()
    db.close()
    lead, child = (
        "cccccccc-0000-4000-8000-000000000001",
        "cccccccc-0000-4000-8000-000000000002",
    )
    add_row(home, child, "Count the tests", _child_context("Count the tests", False))
    add_row(home, lead, "Split", _spawn_lead(
        {"tasks": ["Count the tests"], "agent_id": "sage"},
        [{"aI": {"value": "done", "conversation_id": child}}],
    ))  # fmt: skip
    found = sessions(home)
    assert (found[child].parent_id, found[child].agent_type) == (lead, "subagent")
    result = usage.run(Home.at(home), "model", apps=("forge",), filters=usage.Filters())
    assert [(r.input_tokens, r.output_tokens) for r in result.rows] == [(140, 14)]


def test_a_compaction_before_forge_1_4_reads_as_one(tmp_path: Path) -> None:
    """Before 1.4 (Nov 2025) forge's summary frame began "Use the following summary as the
    authoritative reference" (no "frames"): it is a compaction, not a prompt."""
    home = copy(tmp_path)
    old = "dddddddd-0000-4000-8000-000000000001"
    summary = (
        "Use the following summary as the authoritative reference for all coding "
        "suggestions and decisions. Do not re-explain or revisit it unless I ask.\n\n"
        "## Summary\n\nThe build was slow.\n\nProceed with implementation based on this context."
    )
    add_row(home, old, "Old", {"messages": [
        {"text": {"role": "User", "content": "<task>why slow</task>", "raw_content": {"Text": "why slow"}}},
        {"text": {"role": "User", "content": summary}},
        {"text": {"role": "Assistant", "content": "Images."}},
    ]})  # fmt: skip
    assert [e.kind for e in events(sessions(home)[old])] == [
        "user", "compaction", "assistant", "turn_end",
    ]  # fmt: skip


def test_the_last_response_usage_of_a_context_before_forge_1_11_counts(
    tmp_path: Path,
) -> None:
    """Before 1.11 (Dec 2025) forge kept no usage per message, only the context's `usage`:
    the last response's, overwritten by each. That one response counts (not unknown)."""
    home = copy(tmp_path)
    old = "eeeeeeee-0000-4000-8000-000000000001"
    add_row(home, old, "Old", {
        "conversation_id": old,
        "messages": [
            {"text": {"role": "User", "content": "<task>hi</task>", "raw_content": {"Text": "hi"}, "model": "gpt-5"}},
            {"text": {"role": "Assistant", "content": "Hello."}},
        ],
        "usage": {"prompt_tokens": {"Actual": 500}, "completion_tokens": {"Actual": 20},
                  "total_tokens": {"Actual": 520}, "cached_tokens": {"Actual": 300}, "cost": None},
        "stream": True,
    })  # fmt: skip
    found = events(sessions(home)[old])
    used = [e for e in found if e.kind == "usage"]
    assert len(used) == 1 and used[0].usage is not None
    assert (used[0].usage.input_tokens, used[0].usage.output_tokens,
            used[0].usage.cache_read_tokens, used[0].usage.model) == (200, 20, 300, "gpt-5")  # fmt: skip
    assert used[0].time_estimated


def test_a_follow_up_prompt_before_forge_1_1_shows_as_typed(tmp_path: Path) -> None:
    """Before 1.1 (Oct 2025) forge kept no `raw_content`: the first prompt is wrapped in
    `<task>`, each later one in `<feedback>` (forge.md's user_prompt, `<{{event.name}}>`),
    both followed by a `<system_date>`: the prompt shows without either."""
    home = copy(tmp_path)
    old = "ffffffff-0000-4000-8000-000000000001"
    add_row(home, old, None, {"messages": [
        {"text": {"role": "User", "content": "<task>why slow</task>\n<system_date>2025-10-02</system_date>", "model": "gpt-5"}},
        {"text": {"role": "Assistant", "content": "Images."}},
        {"text": {"role": "User", "content": "<feedback>shrink them</feedback>\n<system_date>2025-10-03</system_date>", "model": "gpt-5"}},
        {"text": {"role": "Assistant", "content": "Done."}},
    ]})  # fmt: skip
    found = sessions(home)[old]
    assert found.title == "why slow"
    prompts = [e.text for e in events(found) if e.kind == "user"]
    assert prompts == ["why slow", "shrink them"]


def test_a_sub_agent_resumed_by_session_id_shows_each_task_after_its_own_call(
    tmp_path: Path,
) -> None:
    """The task tool's `session_id` (forge 2.7 on) runs a new task in a sub-agent's own
    conversation again, and the result names it again: each call shows the part of that
    conversation its own task began, not the whole of it at the first call."""
    home = copy(tmp_path)
    lead, child = (
        "abababab-0000-4000-8000-000000000001",
        "abababab-0000-4000-8000-000000000002",
    )

    def used(n: int) -> dict[str, object]:
        return {"prompt_tokens": {"actual": n}, "completion_tokens": {"actual": 1}, "total_tokens": {"actual": n + 1}, "cached_tokens": {"actual": 0}}  # fmt: skip

    def call(call_id: str, args: dict[str, object]) -> list[dict[str, object]]:
        return [
            {"message": {"text": {"role": "Assistant", "content": "", "tool_calls": [{"name": "task", "call_id": call_id, "arguments": args}]}}, "usage": used(10)},
            {"message": {"tool": {"name": "task", "call_id": call_id, "output": {"is_error": False, "values": [{"aI": {"value": "ok", "conversation_id": child}}]}}}},
        ]  # fmt: skip

    add_row(home, child, "Find the bug", {"initiator": "agent", "messages": [
        {"message": {"text": {"role": "User", "content": "<task>Find the bug</task>", "raw_content": {"Text": "Find the bug"}, "model": "gpt-5"}}},
        {"message": {"text": {"role": "Assistant", "content": "It is in a.py"}}, "usage": used(100)},
        {"message": {"text": {"role": "User", "content": "<feedback>Now fix it</feedback>", "raw_content": {"Text": "Now fix it"}, "model": "gpt-5"}}},
        {"message": {"text": {"role": "Assistant", "content": "Fixed"}}, "usage": used(200)},
    ]})  # fmt: skip
    add_row(home, lead, "Bug", {"messages": [
        {"message": {"text": {"role": "User", "content": "<task>bug</task>", "raw_content": {"Text": "bug"}, "model": "gpt-5"}}},
        *call("t1", {"tasks": ["Find the bug"], "agent_id": "sage"}),
        *call("t2", {"tasks": ["Now fix it"], "agent_id": "sage", "session_id": child}),
        {"message": {"text": {"role": "Assistant", "content": "Done"}}, "usage": used(30)},
    ]})  # fmt: skip
    shown = [
        (e.kind, e.call_id or e.text or (e.usage.input_tokens if e.usage else None))
        for e in events(sessions(home)[lead])
        if e.agent_id == child or e.kind in ("subagent", "tool_result")
    ]
    assert shown == [
        ("subagent", "t1"),
        ("user", "Find the bug"),
        ("assistant", "It is in a.py"),
        ("turn_end", None),
        ("usage", 100),
        ("tool_result", "t1"),
        ("subagent", "t2"),
        ("user", "Now fix it"),
        ("assistant", "Fixed"),
        ("turn_end", None),
        ("usage", 200),
        ("tool_result", "t2"),
    ]


def test_a_sub_agent_named_once_shows_whole_even_when_continued(tmp_path: Path) -> None:
    """A sub-agent's conversation someone went on with (`forge --conversation-id`) after
    its one call holds later prompts no call of the lead gave: shown inline all the same,
    and its usage counted, in the lead."""
    home = copy(tmp_path)
    lead, child = (
        "acacacac-0000-4000-8000-000000000001",
        "acacacac-0000-4000-8000-000000000002",
    )
    add_row(home, child, "Find the bug", {"initiator": "agent", "messages": [
        {"message": {"text": {"role": "User", "content": "<task>Find the bug</task>", "raw_content": {"Text": "Find the bug"}, "model": "gpt-5"}}},
        {"message": {"text": {"role": "Assistant", "content": "In a.py"}}, "usage": {"prompt_tokens": {"actual": 100}, "completion_tokens": {"actual": 1}, "total_tokens": {"actual": 101}, "cached_tokens": {"actual": 0}}},
        {"message": {"text": {"role": "User", "content": "<feedback>and b.py?</feedback>", "raw_content": {"Text": "and b.py?"}, "model": "gpt-5"}}},
        {"message": {"text": {"role": "Assistant", "content": "Clean"}}, "usage": {"prompt_tokens": {"actual": 200}, "completion_tokens": {"actual": 1}, "total_tokens": {"actual": 201}, "cached_tokens": {"actual": 0}}},
    ]})  # fmt: skip
    add_row(home, lead, "Bug", _spawn_lead(
        {"tasks": ["Find the bug"], "agent_id": "sage"},
        [{"aI": {"value": "In a.py", "conversation_id": child}}],
    ))  # fmt: skip
    inside = [e.text for e in events(sessions(home)[lead]) if e.agent_id == child]
    assert [t for t in inside if t] == ["Find the bug", "In a.py", "and b.py?", "Clean"]
