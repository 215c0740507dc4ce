"""Mistral Vibe quirks: legacy compaction chains, estimated times, the unified store's replay."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from sessdex.cli import main
from sessdex.diagnostics import WIDE_TEXT, Diagnostics
from sessdex.model import Event, Session, Usage, merge, typed_by_leads
from sessdex.sources import Home, vibe
from tests.helpers import LIST_PATHS, list_rows, opened_files

HOME = Path(__file__).parent.parent / "data" / "vibe" / "home"
SAVE_DIR = Path(".vibe") / "logs" / "session"
SHOP = "/home/alex/code/shop-api"
OLDER = "3f1c2a9e-0b1d-4e2f-a3b4-5d6e7f8a9b0c"  # compacted into NEWER
NEWER = "7a8b9c0d-1e2f-4a3b-8c4d-5d6e7f8a9b0c"
FORK = "9e8d7c6b-5a4f-4e3d-9c2b-5d6e7f8a9b0c"
LEGACY_LEAD = "fe38b8f5-4dba-d4fd-b461-4ef8b3ed7078"
LEGACY_CHILD = "ad739610-b155-6747-3b00-d8fe0a8cc57b"
RESUMED = "a63ab208-5aab-fb2c-9a25-672f66edb7ae"
LEAD = "11e8c9f6-0261-4b81-c506-fc5d45ed7a3a"
CHILD = "child-d6d2c0b9d4b3f893638acbd9"
UNIFIED_FORK = "a63ab208-5aab-fb2c-9a25-672f66edb7ae"
TUI = "fdf5294e-9715-7217-12e1-46cae3e60fe9"


def sessions(home: Path = HOME) -> dict[str, Session]:
    location = vibe.locate(Home.at(home))
    fragments: dict[str, list[Session]] = {}
    for path in vibe.scan(location):
        for session in vibe.parse(path, location, Diagnostics()):
            fragments.setdefault(session.id, []).append(session)
    merged = typed_by_leads({key: merge(parts) for key, parts in fragments.items()})
    return {key: session for key, session in merged.items() if session.listed}


def events(session: Session) -> list[Event]:
    diagnostics = Diagnostics()
    found = list(vibe.read(session, diagnostics))
    assert (
        diagnostics.skipped_total == 0
        and not diagnostics.unknown
        and not diagnostics.problems
    )
    assert [e.seq for e in found] == list(range(len(found)))
    return found


def texts(found: list[Event], kind: str, agent: str | None = None) -> list[str]:
    return [e.text or "" for e in found if e.kind == kind and e.agent_id == agent]


def usages(found: list[Event], agent: str | None = None) -> list[Usage]:
    return [e.usage for e in found if e.usage is not None and e.agent_id == agent]


def total(found: list[Event], agent: str | None = None) -> Usage:
    result = Usage()
    for usage in usages(found, agent):
        result += usage
    return result


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def test_legacy_compaction_chain_is_one_session_with_estimated_times() -> None:
    listed = sessions()
    assert OLDER not in listed
    session = listed[NEWER]
    assert session.extra["chain"] == [
        "session_20261201_100000_3f1c2a9e",
        "session_20261201_101005_7a8b9c0d",
    ]
    assert session.title == "Payment client retries"  # the older folder's title
    assert session.created == at("2026-12-01T10:00:00") and session.updated == at(
        "2026-12-01T10:20:05"
    )
    found = events(session)
    assert texts(found, "user") == [
        "Refactor the payment client to retry failed charges",
        "Also log each retry",
        "Now add a test for the retry limit",
    ]
    kinds = [e.kind for e in found]
    compaction = found[kinds.index("compaction")]
    assert compaction.text and compaction.text.startswith(
        "Summary of the conversation so far"
    )
    assert kinds.index("compaction") > kinds.index(
        "assistant"
    )  # the older folder comes first
    messages = [e for e in found if e.kind != "usage"]
    assert all(e.time_estimated for e in messages)
    # six messages spread over 10:00-10:10, then five over 10:10:05-10:20:05
    assert [e.time for e in found if e.kind == "user"] == [
        at("2026-12-01T10:00:00"),
        at("2026-12-01T10:08:00"),
        at("2026-12-01T10:12:35"),
    ]
    failed = next(e for e in found if e.kind == "tool_result")
    assert failed.is_error and failed.call_id == "c1"


def test_legacy_chain_usage_counts_each_folder_once() -> None:
    found = events(sessions()[NEWER])
    # stats carry across compaction: 10000/800/6000 cached, then 16000/1300/9500 cumulative
    assert usages(found) == [
        Usage(
            input_tokens=4000,
            output_tokens=800,
            cache_read_tokens=6000,
            model="devstral-2512",
        ),
        Usage(
            input_tokens=2500,
            output_tokens=500,
            cache_read_tokens=3500,
            model="devstral-2512",
        ),
    ]
    assert not any(e.time_estimated for e in found if e.kind == "usage")


def test_fork_points_at_the_chain_that_holds_its_parent() -> None:
    fork = sessions()[FORK]
    assert fork.parent_id is None  # the user's own session, not a sub-agent
    # forked from the older folder, which the chain now lists
    assert fork.extra["forked_from_id"] == NEWER
    plan = vibe.resume(fork)
    assert plan is not None and plan.argv == (
        "vibe",
        "--resume",
        FORK,
        "--agent",
        "ask",  # it ran in Vibe 2's plan agent, which Vibe 3 no longer has
    )


def test_resume_names_only_agents_vibe_3_knows() -> None:
    """Vibe 3 refuses `--agent plan`, `default` and `chat` ("Agent 'plan' not found"):
    a session that ran in one resumes in `ask`, which asks before every tool, and `ask`
    itself is kept: it is stricter than Vibe 3's default, accept-edits."""
    found = sessions()
    for agent in ("default", "plan", "chat"):
        plan = vibe.resume(replace(found[FORK], permission_mode=agent))
        assert plan is not None and plan.argv[-2:] == ("--agent", "ask")
        assert plan.withheld == ()
        assert any(f"'{agent}' became ask" in note for note in plan.notes)
    strict = vibe.resume(replace(found[RESUMED], permission_mode="ask"))
    assert strict is not None and strict.argv[-2:] == ("--agent", "ask")
    assert strict.withheld == ()


def test_legacy_subagent_folder_is_linked_and_read_after_its_task_call() -> None:
    listed = sessions()
    child = listed[LEGACY_CHILD]
    assert child.parent_id == LEGACY_LEAD and child.agent_type == "explore"
    assert child.title and child.title.startswith(
        "SCENARIO=child"
    )  # the scratchpad preamble dropped
    found = events(listed[LEGACY_LEAD])
    spawn = next(e for e in found if e.kind == "subagent")
    assert spawn.call_id == "9c9c895ad"
    assert spawn.extra == {"child_id": LEGACY_CHILD, "agent_type": "explore"}
    inside = [e for e in found if e.agent_id == LEGACY_CHILD]
    result = next(
        e for e in found if e.kind == "tool_result" and e.call_id == spawn.call_id
    )
    assert spawn.seq < inside[0].seq and inside[-1].seq < result.seq
    assert total(found) == Usage(
        input_tokens=2400, output_tokens=60, model="mock-model"
    )
    assert total(found, LEGACY_CHILD) == Usage(
        input_tokens=2400, output_tokens=60, model="mock-model"
    )


def test_legacy_resumed_session_reads_both_turns_with_session_totals() -> None:
    found = events(sessions()["ee760971-cfa6-f226-7c29-06e4b527a63c"])
    assert texts(found, "assistant") == [
        "Done. The shell command printed hello-from-tool.",
        "Resumed fine. The shell command printed hello-after-resume.",
    ]
    assert usages(found) == [
        Usage(input_tokens=4800, output_tokens=120, model="mock-model")
    ]


def test_unified_store_replays_snapshot_without_refolding_old_journals() -> None:
    found = events(sessions()[RESUMED])
    # generation 42 already holds the resume turn that the older journal segment 22 describes
    assert texts(found, "user") == [
        "SCENARIO=basic Please run the greeting shell command and tell me what it printed.",
        "SCENARIO=resume Please run the greeting command once more after resuming.",
    ]
    assert [e.tool for e in found if e.kind == "tool_call"] == [
        "file_system.bash",
        "file_system.bash",
    ]
    assert [e.kind for e in found].count("turn_end") == 2
    assert usages(found) == [
        Usage(input_tokens=4800, output_tokens=120, model="mock-model")
    ]


def test_unified_store_replays_the_live_journal(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    store = home / SAVE_DIR / "unified" / RESUMED
    # as if Vibe stopped before publishing generation 42: CURRENT still names 21
    current = json.loads((store / "CURRENT").read_text())
    current.update(generation="0000000000000021", snapshot_sequence=21)
    (store / "CURRENT").write_text(json.dumps(current))
    shutil.rmtree(store / "generations" / "0000000000000042")
    session = sessions(home)[RESUMED]
    found = events(session)
    assert (
        texts(found, "user")[-1]
        == "SCENARIO=resume Please run the greeting command once more after resuming."
    )
    assert (
        texts(found, "assistant")[-1]
        == "Resumed fine. The shell command printed hello-after-resume."
    )
    # the effect was appended running, then replaced once done: one call, one result
    assert [e.kind for e in found].count("tool_result") == 2
    assert usages(found) == [
        Usage(input_tokens=4800, output_tokens=120, model="mock-model")
    ]
    (store / "journal" / "0000000000000022.jsonl").unlink()
    assert len(texts(events(session), "user")) == 1


def test_unified_listing_follows_a_live_journal_rename(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    store = home / SAVE_DIR / "unified" / TUI
    envelope = json.loads(
        (
            store / "generations" / "0000000000000022" / "projection-state.json"
        ).read_text()
    )
    state = envelope["snapshot"]
    state["session"].update(title="Renamed later", updatedAt=1796030000000)
    record = {
        "type": "projection_delta",
        "sequence": 23,
        "payload": {"delta": [{"op": "set_envelope", "state": state}]},
    }
    (store / "journal" / "0000000000000023.jsonl").write_text(json.dumps(record) + "\n")
    session = sessions(home)[TUI]
    assert session.title == "Renamed later"
    assert session.updated == datetime.fromtimestamp(1796030000, UTC)
    assert session.path and session.path.endswith("CURRENT")


def test_unified_subagent_is_a_sibling_folder_linked_both_ways() -> None:
    listed = sessions()
    assert listed[CHILD].parent_id == LEAD
    found = events(listed[LEAD])
    spawn = next(e for e in found if e.kind == "subagent")
    assert spawn.extra == {
        "child_id": CHILD,
        "agent_type": "generic",
        "agent_name": "greeter",
    }
    assert spawn.text and spawn.text.startswith("SCENARIO=child")
    inside = [e for e in found if e.agent_id == CHILD]
    assert texts(found, "assistant", CHILD) == [
        "Sub-agent report: the command printed hello-from-subagent."
    ]
    # a shell result reads as the shell printed it, not as its JSON record
    assert texts(found, "tool_result", CHILD) == ["hello-from-subagent"]
    assert spawn.seq < inside[0].seq
    assert [e.tool for e in found if e.kind == "tool_call" and e.agent_id is None] == [
        "agents.spawn",
        "self.wait",
    ]
    assert usages(found) == [
        Usage(input_tokens=2400, output_tokens=60, model="mock-model")
    ]
    assert total(found, CHILD) == Usage(
        input_tokens=2400, output_tokens=60, model="mock-model"
    )


def test_unified_subagent_without_a_spawn_link_is_still_found(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    for chunk in (home / SAVE_DIR / "unified" / LEAD / "chunks").iterdir():
        text = chunk.read_text()
        if CHILD in text:
            chunk.write_text(text.replace(CHILD, "child-gone"))
    diagnostics = Diagnostics()
    found = list(vibe.read(sessions(home)[LEAD], diagnostics))
    # the store the spawn names is not there, and the read says so
    assert diagnostics.problems == ["vibe: sub-agent child-gone: transcript not found"]
    orphan = [
        e for e in found if e.kind == "subagent" and e.extra.get("child_id") == CHILD
    ]
    assert len(orphan) == 1
    assert texts(found, "assistant", CHILD) == [
        "Sub-agent report: the command printed hello-from-subagent."
    ]


def test_resume_withholds_loose_agent_profiles() -> None:
    listed = sessions()
    unified_plan = vibe.resume(listed[RESUMED])
    assert unified_plan is not None
    assert (
        unified_plan.argv == ("vibe", "--resume", RESUMED) and unified_plan.cwd == SHOP
    )
    assert unified_plan.withheld == ("--agent accept-edits",)
    kept = vibe.resume(listed[RESUMED], keep_permissions=True)
    assert kept is not None and kept.argv[-2:] == ("--agent", "accept-edits")
    legacy_plan = vibe.resume(listed["ee760971-cfa6-f226-7c29-06e4b527a63c"])
    assert legacy_plan is not None and legacy_plan.withheld == ("--agent auto-approve",)
    chain_plan = vibe.resume(listed[NEWER])
    assert chain_plan is not None and chain_plan.argv == (
        "vibe",
        "--resume",
        NEWER,
        "--agent",
        "ask",  # Vibe 2's default agent, which Vibe 3 no longer has
    )
    assert (
        vibe.resume(listed[CHILD]) is None and vibe.resume(listed[LEGACY_CHILD]) is None
    )
    assert vibe.resume(replace(listed[TUI], cwd=None)) is None


def test_tail_read_starts_at_an_offset_in_the_newest_folder() -> None:
    session = sessions()[NEWER]
    assert session.path
    data = Path(session.path).read_bytes()
    offset = data.index(b'{"role": "assistant"') - 5  # inside the line before: dropped
    found = list(vibe.read(session, Diagnostics(), offset=offset))
    assert [e.kind for e in found][:2] == ["tool_call", "tool_result"]
    assert texts(found, "user") == [] and not usages(found)
    assert found[0].time == at("2026-12-01T10:15:05") and found[0].time_estimated


def test_save_dir_from_config_toml_is_honoured(tmp_path: Path) -> None:
    vibe_home = tmp_path / "vibehome"
    shutil.copytree(HOME / SAVE_DIR, tmp_path / "elsewhere")
    vibe_home.mkdir()
    (vibe_home / "config.toml").write_text(
        f'[session_logging]\nsave_dir = "{tmp_path / "elsewhere"}"\n'
    )
    location = vibe.locate(Home(tmp_path / "nobody", {"VIBE_HOME": str(vibe_home)}))
    assert location.root == tmp_path / "elsewhere"
    assert location.override == f"VIBE_HOME={vibe_home}"
    assert any(path.name == "CURRENT" for path in vibe.scan(location))


def test_a_failing_shell_result_shows_its_stderr_and_exit_code() -> None:
    from sessdex.sources._vibe_unified import _effect_output

    state: dict[str, object] = {
        "status": "failed",
        "output": {
            "content": [],
            "structured_content": {
                "command": "make test",
                "returncode": 2,
                "stdout": "",
                "stderr": "make: *** [test] Error 2\n",
                "timed_out": False,
            },
        },
    }
    assert _effect_output(state) == "make: *** [test] Error 2\nexit code 2"
    state["output"] = {"structured_content": {"stdout": "", "returncode": 0}}
    assert _effect_output(state) is None  # shown as "(no output)"


LEGACY = "ee760971-cfa6-f226-7c29-06e4b527a63c"


def test_legacy_in_place_compaction_and_a_users_shell_command(tmp_path: Path) -> None:
    """2.26 (mistral-vibe compaction/manager.py) compacts in the same file: a user message
    marked `context_boundary: "compaction"`; a `!` command is a user message carrying
    `manual_shell` (types.py ManualShellContext)."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    folder = home / SAVE_DIR / "session_20261130_081121_ee760971"
    summary = {"role": "user", "injected": True, "context_boundary": "compaction",
               "content": "Earlier: ran the greeting. Summary: it printed hello-from-tool.",
               "message_id": "m-compact"}  # fmt: skip
    shell = {"role": "user", "injected": True, "content": "<shell context>",
             "manual_shell": {"operation_id": "op-1", "command": "make test", "cwd": "/w",
                              "stdout": "", "stderr": "Error 2", "output_text": "make: *** Error 2",
                              "exit_code": 2, "timed_out": False, "interrupted": False}}  # fmt: skip
    with (folder / "messages.jsonl").open("a") as out:
        out.writelines(json.dumps(line) + "\n" for line in (summary, shell))
    found = events(sessions(home)[LEGACY])
    [compaction] = [e for e in found if e.kind == "compaction"]
    assert compaction.text == summary["content"]
    call, result = [e for e in found if e.call_id == "op-1"]
    assert (call.kind, call.tool, call.extra["input"]) == (
        "tool_call",
        "bash",
        {"command": "make test"},
    )
    assert (result.text, result.is_error) == ("make: *** Error 2", True)
    assert "<shell context>" not in [e.text for e in found]


def test_a_unified_session_moved_to_another_folder_lists_and_resumes_there(
    tmp_path: Path,
) -> None:
    """mistral-vibe 3.0.3 `_storage.py` SessionRelocatedRecordV1: new metadata and a delta
    appending a "Moved to" checkpoint, in the live journal."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    store = home / SAVE_DIR / "unified" / TUI
    current = json.loads((store / "CURRENT").read_text())
    segment = store / "journal" / f"{current['snapshot_sequence'] + 1:016d}.jsonl"
    moved = "/home/alex/code/shop-api-wt"
    record = {
        "type": "session_relocated",
        "sequence": current["snapshot_sequence"] + 50,
        "payload": {
            "metadata": {"cwd": moved, "origin_cwd": SHOP, "active_model": "devstral-2"},
            "watermark": 30,
            "delta": [{"op": "append_entry", "entry": {
                "type": "checkpoint", "id": "checkpoint:relocation:1", "kind": "relocation",
                "message": f"Moved to {moved}", "details": {"cwd": moved, "previousCwd": SHOP},
                "createdAt": 1796030000000}}],
        },
    }  # fmt: skip
    with segment.open("a") as out:
        out.write(json.dumps(record) + "\n")
    session = sessions(home)[TUI]
    assert session.cwd == moved
    plan = vibe.resume(session)
    assert plan is not None and plan.cwd == moved
    assert f"Moved to {moved}" in [e.text for e in events(session)]


def test_a_transcript_chunk_too_big_to_parse_at_once_is_read_an_entry_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past CHUNK_CAP a chunk is not parsed whole (nor dropped as broken): its entries
    are read one at a time, and the session reads as it did."""
    from sessdex.sources import _vibe_unified

    whole = events(sessions()[LEAD])
    monkeypatch.setattr(_vibe_unified, "CHUNK_CAP", 64)
    assert events(sessions()[LEAD]) == whole


def test_a_unified_user_message_shows_what_the_user_typed(tmp_path: Path) -> None:
    """Where Vibe 3 expands what the user typed for the model (a skill's body), its
    projection keeps the typed text beside the content, as `userDisplayContent {version,
    host, content}` (mistral-vibe 3.0.2, vibe/_projection.py `_message_entry`)."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    expanded = "SCENARIO=basic (interactive) Please run the greeting shell command"
    for chunk in (home / SAVE_DIR / "unified" / TUI / "chunks").iterdir():
        entries = json.loads(chunk.read_text())
        for entry in entries if isinstance(entries, list) else []:
            content = json.dumps(entry.get("content"))
            if entry.get("role") == "user" and expanded in content:
                entry["userDisplayContent"] = {"version": "1", "host": "vibe",
                    "content": [{"type": "text", "text": "/greet"}]}  # fmt: skip
        chunk.write_text(json.dumps(entries))
    found = events(sessions(home)[TUI])
    assert texts(found, "user")[0] == "/greet"
    [typed] = [e for e in found if e.text == "/greet"]
    assert str(typed.extra["sent"]).startswith(expanded)  # kept for --json
    assert expanded not in " ".join(texts(found, "user"))


def test_a_sub_agent_on_a_model_of_its_own_is_billed_to_it(tmp_path: Path) -> None:
    """Vibe 3.0.3 lets a sub-agent profile name its own model; the child session pins it
    (`session_metadata.active_model` of its runtime state, `_storage.py`): its usage is
    billed to that model, the lead's to its own."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    for state in (home / SAVE_DIR / "unified" / CHILD).rglob("runtime-state.json"):
        value = json.loads(state.read_text())
        value.setdefault("session_metadata", {})["active_model"] = "devstral-small"
        state.write_text(json.dumps(value))
    found = events(sessions(home)[LEAD])
    assert {u.model for u in usages(found, CHILD)} == {"devstral-small"}
    assert {u.model for u in usages(found)} == {"mock-model"}


def test_a_sub_agents_session_points_at_the_session_to_resume() -> None:
    """Vibe resumes top-level sessions only: `resume` on a sub-agent's names its lead
    (it said Vibe had no resume command at all)."""
    from click.testing import CliRunner

    from sessdex.cli import main

    for child, lead in (("ad739610", "fe38b8f5"), ("child-d6", "11e8c9f6")):
        result = CliRunner().invoke(
            main, ["resume", child, "--print", "--home", str(HOME)]
        )
        assert result.exit_code == 1
        assert "a sub-agent's session" in result.output
        assert f"sessdex resume vibe:{lead}" in result.output


def test_a_vibe_1_session_file_is_listed_and_read(tmp_path: Path) -> None:
    """Vibe 1.x wrote `session_<local time>_<id8>.json`, `{metadata, messages}` rewritten
    whole (interaction_logger.py); Vibe 2 moves it into a folder only when it runs, so
    a home where it never ran keeps it as it was."""
    save_dir = tmp_path / SAVE_DIR
    save_dir.mkdir(parents=True)
    session_id = "5b0e7c1a-2d3f-4a5b-9c6d-7e8f9a0b1c2d"
    document = {
        "metadata": {
            "session_id": session_id,
            "start_time": "2025-12-12T10:00:00.000000",
            "end_time": "2025-12-12T10:02:00.000000",
            "git_commit": None,
            "git_branch": "main",
            "auto_approve": True,
            "username": "alex",
            "environment": {"working_directory": SHOP},
            "stats": {"steps": 2, "session_prompt_tokens": 5200,
                      "session_completion_tokens": 310},
            "total_messages": 5,
            "tools_available": [],
            "agent_config": {"active_model": "devstral",
                             "models": [{"name": "devstral-2512", "alias": "devstral"}]},
        },
        "messages": [
            {"role": "system", "content": "You are Vibe."},
            {"role": "user", "content": "Count the routes"},
            {"role": "assistant", "content": "", "tool_calls": [
                {"id": "c1", "index": 0, "type": "function",
                 "function": {"name": "grep", "arguments": "{\"pattern\": \"@app\"}"}}]},
            {"role": "tool", "content": "3 matches", "name": "grep", "tool_call_id": "c1"},
            {"role": "assistant", "content": "There are 3 routes."},
        ],
    }  # fmt: skip
    (save_dir / "session_20251212_100000_5b0e7c1a.json").write_text(
        json.dumps(document, indent=2)
    )
    [session] = sessions(tmp_path).values()
    assert (session.id, session.title, session.cwd, session.model) == (
        session_id,
        "Count the routes",
        SHOP,
        "devstral-2512",
    )
    assert session.permission_mode == "auto-approve"
    found = events(session)
    assert [e.kind for e in found] == [
        "user", "tool_call", "tool_result", "assistant", "turn_end", "usage",
    ]  # fmt: skip
    assert found[1].tool == "grep" and found[2].text == "3 matches"
    assert found[-1].usage == Usage(5200, 310, model="devstral-2512")
    plan = vibe.resume(session)
    assert plan is not None and plan.argv == ("vibe", "--resume", session_id)


def test_a_vibe_1_session_file_is_read_one_message_at_a_time(tmp_path: Path) -> None:
    """A 1.x file is one JSON document; reading it holds a message, not the whole list."""
    import tracemalloc

    save_dir = tmp_path / SAVE_DIR
    save_dir.mkdir(parents=True)
    session_id = "6c1f8d2b-3e4a-4b5c-8d7e-8f9a0b1c2d3e"
    count, body = 4000, "x" * 2000
    messages = [{"role": "user", "content": "Count the routes"}] + [
        {"role": "assistant", "content": f"{n} {body}"} for n in range(count)
    ]
    document = {
        "metadata": {
            "session_id": session_id,
            "start_time": "2025-12-12T10:00:00.000000",
            "end_time": "2025-12-12T11:00:00.000000",
            "environment": {"working_directory": SHOP},
            "agent_config": {"active_model": "devstral"},
        },
        "messages": messages,
    }
    path = save_dir / "session_20251212_100000_6c1f8d2b.json"
    path.write_text(json.dumps(document))
    [session] = sessions(tmp_path).values()
    tracemalloc.start()
    try:
        said = 0
        for event in vibe.read(session, Diagnostics()):
            said += event.kind == "assistant"
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert said == count
    assert (
        peak < path.stat().st_size / 2
    )  # the list alone would take more than the file


def test_a_fork_is_listed_and_counted_as_the_users_own_session(
    tmp_path: Path, run: CliRunner
) -> None:
    """A legacy `/branch` folder (its agent loop's stats start at zero) and a unified
    store whose identity is a fork (Vibe 3.0.3's ForkSessionIdentity, depth 0) are
    sessions of the user's: `list` shows them and `usage` counts what they billed."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home, symlinks=True)
    unified = home / ".vibe/logs/session/unified" / UNIFIED_FORK
    for state in unified.glob("generations/*/runtime-state.json"):
        value = json.loads(state.read_text())
        value["identity"].update(kind="fork", parent_session_id=LEAD)
        state.write_text(json.dumps(value))
    found = sessions(home)
    assert found[UNIFIED_FORK].parent_id is None
    assert found[UNIFIED_FORK].extra["forked_from_id"] == LEAD
    listed = run.invoke(main, ["list", "--json", "--app", "vibe", "--home", str(home)])
    assert {FORK, UNIFIED_FORK} <= {row["id"] for row in json.loads(listed.output)}
    counted = run.invoke(
        main, ["usage", "session", "--json", "--app", "vibe", "--home", str(home)]
    )
    by_session = {row["key"]: row["input_tokens"] for row in json.loads(counted.output)}
    billed = [e.usage for e in events(found[FORK]) if e.kind == "usage" and e.usage]
    assert by_session[FORK] == sum(u.input_tokens for u in billed) > 0
    assert by_session[UNIFIED_FORK] > 0


def test_a_sub_agent_whose_meta_json_is_cut_short_is_not_called_gone(
    tmp_path: Path,
) -> None:
    # its folder is there, only its meta.json is half written: the warning says that,
    # not that its transcript is gone
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    lead = home / SAVE_DIR / "session_20261130_081129_fe38b8f5"
    meta = lead / "agents" / "explore_20261130_081129_ad739610" / "meta.json"
    meta.write_bytes(meta.read_bytes()[:200])
    child = "ad739610-b155-6747-3b00-d8fe0a8cc57b"
    diagnostics = Diagnostics()
    found = list(
        vibe.read(sessions(home)["fe38b8f5-4dba-d4fd-b461-4ef8b3ed7078"], diagnostics)
    )
    assert [e.extra["child_id"] for e in found if e.kind == "subagent"] == [child]
    assert diagnostics.problems == [f"vibe: sub-agent {child}: meta.json unreadable"]
    # what it did is still read from its messages.jsonl, under its own id
    lead_session = sessions(HOME)["fe38b8f5-4dba-d4fd-b461-4ef8b3ed7078"]
    intact = list(vibe.read(lead_session, Diagnostics()))
    kinds = [e.kind for e in intact if e.agent_id == child and e.kind != "usage"]
    assert kinds and [e.kind for e in found if e.agent_id == child] == kinds


def test_a_unified_turn_the_user_interrupted_says_interrupted_on_watch(
    tmp_path: Path,
) -> None:
    """The unified store keeps an aborted turn as `latestTurn.status: interrupted`
    (vibe/_projection.py): the board says `interrupted`, as for other apps, not
    `turn ended`."""
    from sessdex.live import LiveSession

    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    state = (
        home / SAVE_DIR / "unified" / TUI / "generations" / "0000000000000022"
        / "projection-state.json"
    )  # fmt: skip
    document = json.loads(state.read_text())
    latest = document["snapshot"]["latestTurn"]
    assert latest["status"] == "completed"
    latest.update(status="interrupted", reason="Turn interrupted")
    state.write_text(json.dumps(document))
    session = sessions(home)[TUI]
    ends = [e for e in events(session) if e.kind == "turn_end"]
    assert ends[-1].extra == {"reason": "interrupted", "interrupted": True}
    live = LiveSession(session)
    live.poll()
    ended = latest["completedAt"] / 1000
    status = live.status(ended + 5)
    assert status.status == "waiting_for_user"
    assert status.reason.startswith("interrupted "), status.reason  # not "turn ended"


@LIST_PATHS
def test_a_legacy_messages_file_changed_alone_is_read_again_by_a_warm_list(
    listing: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Vibe appends to messages.jsonl, then rewrites meta.json: a crash between the two
    # (or a repair that cuts the transcript) changes the messages alone. A warm `list`
    # said the size and title of what was there before, a cold one what is there now.
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    messages = home / SAVE_DIR / "session_20261130_081129_fe38b8f5" / "messages.jsonl"

    def listed(state: str) -> dict[str, object]:
        return list_rows(home, tmp_path / state, monkeypatch, listing=listing)[
            LEGACY_LEAD
        ]

    assert listed("warm")["bytes"] == messages.stat().st_size
    messages.write_bytes(messages.read_bytes()[:9])
    warm = listed("warm")
    assert warm == listed("cold")
    assert warm["bytes"] == 9


@LIST_PATHS
def test_a_vibe_3_store_file_changed_alone_is_read_again_by_a_warm_list(
    listing: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the live generation's runtime state (effort, agent) changed with CURRENT as it
    # was: a warm list kept what it said before
    from tests.helpers import list_rows

    home = tmp_path / "home"
    shutil.copytree(Path(__file__).parent.parent / "data" / "vibe" / "home", home)
    store = home / ".vibe/logs/session/unified/a63ab208-5aab-fb2c-9a25-672f66edb7ae"
    state = tmp_path / "state"
    assert (
        list_rows(home, state, monkeypatch, "--all", listing=listing)[store.name][
            "effort"
        ]
        == "off"
    )
    runtime = store / "generations/0000000000000042/runtime-state.json"
    value = json.loads(runtime.read_text())
    value["session_metadata"] |= {"agent_name": "plan", "reasoning_effort": "high"}
    runtime.write_text(json.dumps(value))
    warm = list_rows(home, state, monkeypatch, "--all", listing=listing)[store.name]
    cold = list_rows(home, tmp_path / "cold", monkeypatch, "--all", listing=listing)[
        store.name
    ]
    said = ("effort", "permission_mode")
    assert (
        [warm[key] for key in said] == [cold[key] for key in said] == ["high", "plan"]
    )


@LIST_PATHS
def test_a_grown_journal_counts_in_bytes_warm_as_cold(
    listing: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Vibe 3 session's journal segment, grown by a turn, counts in its `bytes` on a
    warm list too: the size came from CURRENT's listing, read again only at the next
    generation, so a warm list stayed behind by what each turn appended."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    list_rows(home, tmp_path / "warm", monkeypatch, listing=listing)
    segment = home / SAVE_DIR / "unified" / LEAD / "journal" / "0000000000000037.jsonl"
    with segment.open("ab") as stream:
        stream.write(b'{"type": "core_input", "payload": {}}\n' * 20)
    warm = list_rows(home, tmp_path / "warm", monkeypatch, listing=listing)
    assert warm == list_rows(home, tmp_path / "cold", monkeypatch, listing=listing)


def test_a_unified_sub_agent_lists_warm_as_cold_when_its_lead_alone_writes_its_spawn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Vibe 3 sub-agent's type is in its lead's spawn: a warm `list` read the sub-agent
    again only when its own files changed, so a spawn the lead's journal gained after the
    sub-agent was listed typed it in a cold list alone."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    lead = home / ".vibe" / "logs" / "session" / "unified" / LEAD
    for chunk in lead.glob("chunks/*.json"):  # the spawn not written yet
        chunk.write_text(chunk.read_text().replace(CHILD, "child-other"))

    def listed(state: str) -> dict[str, object]:
        return list_rows(home, tmp_path / state, monkeypatch, "--all")[CHILD]

    assert listed("warm")["agent_type"] is None
    effect = {"type": "effect", "id": "effect-9", "detail": {
        "kind": "subagent", "childSessionId": CHILD, "toolName": "agents.spawn",
        "input": {"agent": "reviewer", "task": "Review."}}}  # fmt: skip
    record = {"type": "projection_delta", "sequence": 37,
              "payload": {"delta": [{"op": "append_entry", "entry": effect}]}}  # fmt: skip
    with open(lead / "journal" / "0000000000000037.jsonl", "a") as journal:
        journal.write(json.dumps(record, separators=(",", ":")) + "\n")
    warm = listed("warm")
    assert warm == listed("cold")
    assert warm["agent_type"] == "reviewer"


def _listed_quick(home: Path, state: Path) -> dict[str, dict[str, object]]:
    """`sessdex list --json --all` run as itself: its warm list takes the quick path."""
    import os
    import subprocess
    import sys

    command = [sys.executable, "-m", "sessdex", "list", "--json", "--all", "--home"]
    done = subprocess.run(
        [*command, str(home)],
        env={**os.environ, "SESSDEX_HOME": str(state)},
        capture_output=True,
        check=True,
    )
    return {row["id"]: row for row in json.loads(done.stdout)}


@pytest.mark.parametrize("quick", [False, True])
@pytest.mark.parametrize("session", [LEAD, CHILD])
def test_a_unified_transcript_chunk_deleted_lists_warm_as_cold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, session: str, quick: bool
) -> None:
    """A Vibe 3 session's bytes are its chunks' and its lead's spawns (its sub-agents'
    types) lie in them: a warm `list` after a chunk was deleted kept both (the lead's
    sub-agent typed 'generic', the bytes counted) where a cold one has neither."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)

    def listed(state: str) -> dict[str, dict[str, object]]:
        if quick:
            return _listed_quick(home, tmp_path / state)
        return list_rows(home, tmp_path / state, monkeypatch, "--all")

    before = listed("warm")
    assert before[CHILD]["agent_type"] == "generic"
    for chunk in (home / SAVE_DIR / "unified" / session / "chunks").iterdir():
        chunk.unlink()
    warm = listed("warm")
    assert warm == listed("cold")
    assert warm[session]["bytes"] == 0
    assert warm[CHILD]["agent_type"] == (None if session == LEAD else "generic")


@LIST_PATHS
def test_an_older_legacy_folder_changed_alone_lists_its_chain_warm_as_cold(
    listing: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a compacted conversation is listed under its newest folder, whose listing reads the
    # older folders: the title from an older meta.json, the bytes of every messages.jsonl.
    # A warm `list` kept what they said before, a cold one reads them now.
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    older = home / SAVE_DIR / "session_20261201_100000_3f1c2a9e"

    def listed(state: str) -> dict[str, object]:
        return list_rows(home, tmp_path / state, monkeypatch, listing=listing)[NEWER]

    assert listed("warm")["title"] == "Payment client retries"
    meta = older / "meta.json"
    meta.write_text(meta.read_text().replace("Payment client retries", "Retry charges"))
    warm = listed("warm")
    assert warm == listed("cold")
    assert warm["title"] == "Retry charges"
    messages = older / "messages.jsonl"
    messages.write_bytes(
        messages.read_bytes() + b'{"role": "user", "content": "more"}\n'
    )
    warm = listed("warm")
    assert warm == listed("cold2")
    assert warm["bytes"] == listed("cold3")["bytes"]


def test_a_legacy_shell_result_shows_what_the_command_printed(tmp_path: Path) -> None:
    """The legacy harness gives the model a shell call's fields as `key: value` lines
    (`command:`, `shell:`, `exit_code:` before `stdout:`), so the folded result showed
    the command again and hid its output; its `tool_result.output` keeps the fields:
    what it printed (stdout, then stderr) is the result, failed on a non-zero exit."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    path = home / SAVE_DIR / "session_20261130_081121_ee760971" / "messages.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines()]
    second = [r for r in records if r.get("role") == "tool"][1]
    second["tool_result"]["output"].update(
        exit_code=2, returncode=2, stdout="", stderr="sh: no such file\n"
    )
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    shown = CliRunner().invoke(
        main, ["show", "ee760971", "--json", "--home", str(home)]
    )
    assert shown.exit_code == 0, shown.output
    results = [e for e in json.loads(shown.stdout) if e["kind"] == "tool_result"]
    assert [(e["text"], e["is_error"]) for e in results] == [
        ("hello-from-tool", False),
        ("sh: no such file", True),
    ]
    text = CliRunner().invoke(main, ["show", "ee760971", "--home", str(home)]).stdout
    assert "  ⎿ hello-from-tool\n" in text and "exit_code" not in text


def test_a_legacy_task_result_is_the_sub_agents_response() -> None:
    """The legacy harness gives the model a `task` call's outcome as `response:`,
    `turns_used:` and `completed:` lines; its `tool_result.output` keeps them apart: the
    result is the response (real run), so `export -f md` can point at the sub-agent's
    last reply instead of repeating it."""
    shown = CliRunner().invoke(
        main, ["show", LEGACY_LEAD, "--json", "--home", str(HOME)]
    )
    assert shown.exit_code == 0, shown.output
    [answer] = [
        (e["text"], e["is_error"]) for e in json.loads(shown.stdout)
        if e["kind"] == "tool_result" and e["agent_id"] is None
    ]  # fmt: skip
    assert answer == ("Report: README.md starts with '# shop'.", False)
    exported = (
        CliRunner()
        .invoke(main, ["export", LEGACY_LEAD, "-f", "md", "--home", str(HOME)])
        .stdout
    )
    assert "turns_used" not in exported and "its last reply, above" in exported


def test_a_legacy_read_file_result_is_the_files_lines() -> None:
    """The legacy harness gives the model a `read_file` call's fields as `key: value`
    lines (`file_path:`, then `content:`, then `num_lines:` … `was_truncated:`); the
    result is the lines read (real run), not the path again."""
    shown = CliRunner().invoke(
        main, ["show", LEGACY_CHILD, "--json", "--home", str(HOME)]
    )
    assert shown.exit_code == 0, shown.output
    [result] = [
        e["text"] for e in json.loads(shown.stdout) if e["kind"] == "tool_result"
    ]
    assert result == (
        "        1→# shop\n        2→\n"
        "        3→A tiny throwaway repo for session-format fixtures."
    )


def test_a_wait_shows_why_it_ended_not_its_json() -> None:
    """`self.wait` answers the lead with why it stopped waiting (`{"reason":
    "input_available"}`): said in words in `show`, its deadline and timeout by name."""
    shown = CliRunner().invoke(main, ["show", LEAD, "--home", str(HOME)])
    assert shown.exit_code == 0, shown.output
    at = shown.stdout.index("Using self.wait")
    assert shown.stdout[at:].splitlines()[:2] == [
        "Using self.wait — deadline_unix_ms: 1796026266512, timeout_ms: 5000",
        "  ⎿ stopped waiting: input available",
    ]


@pytest.mark.parametrize("damage", ["too long", "not JSON"])
def test_a_current_too_long_to_hold_lists_the_session_from_its_newest_generation(
    tmp_path: Path, damage: str
) -> None:
    """A CURRENT past the size sessdex reads whole (a 30 MB `manifest_sha256`), or cut
    short, lost its whole session (counted as skipped). It is listed and read from its
    newest generation, as it is undamaged, and `list -v` says what was wrong with the
    file (too long, not no JSON) and where its session was read from."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    current = home / SAVE_DIR / "unified" / RESUMED / "CURRENT"
    if damage == "too long":
        pointer = json.loads(current.read_bytes())
        pointer["manifest_sha256"] = "\u00e9" * 15 * 1024 * 1024
        current.write_text(json.dumps(pointer, ensure_ascii=False))
    else:
        current.write_bytes(current.read_bytes()[:40])

    def run(*args: str, at: Path = home) -> Result:
        result = CliRunner().invoke(main, [*args, "--home", str(at)])
        assert result.exit_code == 0, result.output
        return result

    said = run("list", "-v", "--all", "--app", "vibe").stderr
    assert f"{current}:1: {damage}" in said
    assert "newest generation, 0000000000000042" in said
    assert said.count("not JSON") == (damage == "not JSON") * 2
    listing = ("list", "--json", "--all", "--app", "vibe")
    [row] = [r for r in json.loads(run(*listing).stdout) if r["id"] == RESUMED]
    [sound] = [
        r for r in json.loads(run(*listing, at=HOME).stdout) if r["id"] == RESUMED
    ]
    assert row.pop("path").startswith(str(home)) and sound.pop("path")
    assert row == sound
    shown = json.loads(run("show", RESUMED, "--json").stdout)
    assert shown == json.loads(run("show", RESUMED, "--json", at=HOME).stdout)
    said = run("doctor", "--app", "vibe").stdout
    assert f"skipped     1 {damage}" in said
    assert (
        f"{current} is unreadable ({damage}): its session is read from its newest generation, 0000000000000042"
        in said
    )


@LIST_PATHS
def test_a_folder_continued_by_one_whose_meta_json_went_lists_warm_as_cold(
    listing: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A compacted folder is listed under the folder that continues it; that folder's
    meta.json deleted, a cold `list` shows the older one again, where a warm one kept it
    hidden (its listing had read the newer folder's head, and nothing it noted changed)."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)

    def listed(state: str) -> dict[str, dict[str, object]]:
        return list_rows(home, tmp_path / state, monkeypatch, listing=listing)

    assert OLDER not in listed("warm")
    (home / SAVE_DIR / "session_20261201_101005_7a8b9c0d" / "meta.json").unlink()
    warm = listed("warm")
    assert warm == listed("cold")
    assert OLDER in warm and NEWER not in warm


def test_an_older_folders_id_opens_the_conversation_it_continues_in() -> None:
    shown = CliRunner().invoke(main, ["show", OLDER[:8], "--home", str(HOME)])
    assert shown.exit_code == 0, shown.output
    assert f"vibe · {NEWER}" in shown.stdout


def test_a_store_of_a_newer_format_minor_is_read_and_named_by_doctor(
    tmp_path: Path,
) -> None:
    """A Vibe 3 store of a format minor newer than any checked (3.0.3 writes 10) is read
    as far as it goes, and `doctor` names the minor, where new records are likeliest;
    before, nothing said that the store was newer than sessdex knows."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    current = home / SAVE_DIR / "unified" / RESUMED / "CURRENT"
    current.write_text(
        current.read_text().replace('"store_format_minor":9', '"store_format_minor":11')
    )
    doctor = CliRunner().invoke(main, ["doctor", "--app", "vibe", "--home", str(home)])
    assert doctor.exit_code == 0, doctor.output
    assert "unknown     store_format_minor:11 (1)" in doctor.stdout
    assert RESUMED in sessions(home)


def test_a_content_block_of_an_unknown_type_is_named_and_counted(
    tmp_path: Path,
) -> None:
    """A Vibe 3 message block of a type sessdex does not know (audio) was dropped without
    a word: the message showed less than was sent. It is named where it stood, and
    counted for `show -v` and `doctor`."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    entry = {"type": "message", "id": "m-audio", "role": "user", "content": [
        {"type": "text", "text": "Listen to this:"},
        {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"}]}  # fmt: skip
    record = {"type": "projection_delta", "sequence": 43,
              "payload": {"delta": [{"op": "append_entry", "entry": entry}]}}  # fmt: skip
    segment = (
        home / SAVE_DIR / "unified" / RESUMED / "journal" / "0000000000000043.jsonl"
    )
    segment.write_text(json.dumps(record) + "\n")
    diagnostics = Diagnostics()
    found = list(vibe.read(sessions(home)[RESUMED], diagnostics))
    assert texts(found, "user")[-1] == "Listen to this:\n[audio]"
    assert diagnostics.unknown == {"content:audio": 1}


def test_a_vibe_1_session_file_without_a_session_id_is_counted(tmp_path: Path) -> None:
    """A Vibe 1.x session file whose metadata names no session id (or is no object)
    lists nothing: it was passed over without a word; it is counted and named by
    `list -v`, as every file that gives nothing is."""
    save_dir = tmp_path / SAVE_DIR
    save_dir.mkdir(parents=True)
    document = {"metadata": {"start_time": "2025-12-12T10:00:00"},
                "messages": [{"role": "user", "content": "Count the routes"}]}  # fmt: skip
    path = save_dir / "session_20251212_100000_5b0e7c1a.json"
    path.write_text(json.dumps(document))
    result = CliRunner().invoke(
        main, ["list", "-v", "--app", "vibe", "--home", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    assert "skipped 1 unreadable line in 1 vibe file" in result.stderr
    assert f"{path}:1: bad value" in result.stderr


def test_a_legacy_message_part_of_an_unknown_type_is_named_and_counted(
    tmp_path: Path,
) -> None:
    """A message kept as a list of parts (before Vibe 2.0) showed their text alone: an
    image or an audio part was dropped without a word. An image is named, and a part of
    a type sessdex does not know is named and counted for `show -v` and `doctor`."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    parts = [{"type": "text", "text": "Look at this:"},
             {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
             {"type": "input_audio", "input_audio": {"data": "AAAA"}}]  # fmt: skip
    folder = home / SAVE_DIR / "session_20261130_081121_ee760971"
    with open(folder / "messages.jsonl", "a") as messages:
        messages.write(json.dumps({"role": "user", "content": parts}) + "\n")
    diagnostics = Diagnostics()
    session = sessions(home)["ee760971-cfa6-f226-7c29-06e4b527a63c"]
    found = list(vibe.read(session, diagnostics))
    assert texts(found, "user")[-1] == "Look at this:\n[image]\n[input_audio]"
    assert diagnostics.unknown == {"content:input_audio": 1}


@LIST_PATHS
def test_a_fork_of_an_older_folder_follows_the_newer_ones_first_line_warm_as_cold(
    listing: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fork names the chain that holds its parent by its newest folder, from that
    folder's ids and first line alone: a turn of the newer folder (a line appended) reads
    the fork again no more, and its messages cut before their first line (no summary
    left: no continuation) make a warm `list` say what a cold one does."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    messages = home / SAVE_DIR / "session_20261201_101005_7a8b9c0d" / "messages.jsonl"

    def forked_from(state: str) -> object:
        rows = list_rows(home, tmp_path / state, monkeypatch, listing=listing)
        return rows[FORK]["forked_from"]

    assert forked_from("warm") == NEWER
    with messages.open("a") as more:
        more.write('{"role": "user", "content": "one more turn"}\n')
    assert forked_from("warm") == forked_from("cold") == NEWER
    messages.write_bytes(messages.read_bytes()[:20])
    assert forked_from("warm") == forked_from("cold2") == OLDER


@LIST_PATHS
def test_a_fork_follows_its_chain_compacted_again_warm_as_cold(
    listing: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The chain holding a fork's parent is compacted once more after a warm list: its
    new folder, which hides the older ones, is the one the fork names, warm as cold (it
    named the hidden folder before: no row of the listing had that id)."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    assert (
        list_rows(home, tmp_path / "warm", monkeypatch, listing=listing)[FORK][
            "forked_from"
        ]
        == NEWER
    )
    newest = "5a5a5a5a-1e2f-4a3b-8c4d-5d6e7f8a9b0c"
    newer = home / SAVE_DIR / "session_20261201_101005_7a8b9c0d"
    folder = home / SAVE_DIR / "session_20261201_110000_5a5a5a5a"
    folder.mkdir()
    meta = json.loads((newer / "meta.json").read_text())
    meta.update(session_id=newest, parent_session_id=NEWER)
    (folder / "meta.json").write_text(json.dumps(meta))
    (folder / "messages.jsonl").write_text(
        '{"role": "user", "content": "Summary: retries", "injected": true}\n'
        '{"role": "user", "content": "go on", "injected": false}\n'
    )
    for state in ("warm", "cold"):
        rows = list_rows(home, tmp_path / state, monkeypatch, listing=listing)
        assert NEWER not in rows, state
        assert rows[FORK]["forked_from"] == newest, state


def test_a_long_running_process_sees_a_meta_json_written_after_its_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Vibe makes a compaction's new folder, then writes its meta.json: a process that
    listed in between (`watch`, a library user) kept its links while the save folder
    looked the same, so a fork still named the older folder; it now says what a fresh
    run says, the newer one."""
    from sessdex import api
    from tests.helpers import settle

    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    meta = home / SAVE_DIR / "session_20261201_101005_7a8b9c0d" / "meta.json"
    written = meta.read_bytes()
    meta.unlink()  # made, not yet written
    settle(home)
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))

    def forked_from() -> object:
        rows = {row.id: row for row in api.list_sessions(Home(home)).rows}
        return json.loads(rows[FORK].record)["forked_from"]

    assert forked_from() == OLDER
    meta.write_bytes(written)
    assert forked_from() == NEWER
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "fresh"))
    assert forked_from() == NEWER


def _cut_loose(home: Path) -> None:
    """The newer folder's meta.json rewritten (as Vibe saves it: a new file renamed)
    with other ids: it no longer continues the older folder."""
    meta = home / SAVE_DIR / "session_20261201_101005_7a8b9c0d" / "meta.json"
    written = json.loads(meta.read_text())
    written["parent_session_id"] = None
    replaced = meta.with_name("meta.json.tmp")
    replaced.write_text(json.dumps(written, indent=2))
    replaced.replace(meta)


@LIST_PATHS
def test_a_meta_json_rewritten_with_other_ids_lists_warm_as_cold(
    listing: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fork names the chain holding its parent by the newer folder's ids; that
    meta.json rewritten to name no parent, a cold `list` says the fork came from the
    older folder, where a warm one kept naming the newer (it had noted only that the
    newer meta.json was there)."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)

    def listed(state: str) -> dict[str, dict[str, object]]:
        return list_rows(home, tmp_path / state, monkeypatch, listing=listing)

    assert listed("warm")[FORK]["forked_from"] == NEWER
    _cut_loose(home)
    warm = listed("warm")
    assert warm == listed("cold")
    assert warm[FORK]["forked_from"] == OLDER


def test_a_long_running_process_sees_a_meta_json_rewritten_with_other_ids(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process that listed before (`watch`, a library user) kept the save folder's
    links while the folder listed the same entries: a meta.json rewritten with other
    ids left a fork naming the newer folder, where a fresh run names the older."""
    from sessdex import api

    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))

    def forked_from() -> object:
        rows = {row.id: row for row in api.list_sessions(Home(home)).rows}
        return json.loads(rows[FORK].record)["forked_from"]

    assert forked_from() == NEWER
    _cut_loose(home)
    assert forked_from() == OLDER
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "fresh"))
    assert forked_from() == OLDER


def test_vibes_own_caches_beside_its_sessions_read_no_fork_or_sub_agent_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Vibe rewrites its listing's cache (`.session_index.json`) and keeps
    `.last_session/` in the save folder: a warm `list` read every fork and legacy
    sub-agent again for it, as if a folder that may continue their chain had come. It
    now reads none of them, and lists as a cold one does; a new session folder still
    reads them again (its meta.json alone says whether it continues their chain)."""
    from collections import Counter

    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    save = home / SAVE_DIR
    parsed: Counter[str] = Counter()
    parse = vibe.parse

    def counted(path: Path, *args: object) -> list[Session]:
        parsed["agents" in path.parts or path.parent.name[-8:]] += 1
        return parse(path, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(vibe, "parse", counted)

    def listed(state: str) -> dict[str, dict[str, object]]:
        return list_rows(home, tmp_path / state, monkeypatch, "--all")

    listed("warm")
    assert parsed[FORK[:8]] and parsed[True]  # the fork's and the sub-agent's
    parsed.clear()
    (save / ".session_index.json").write_text("{}")
    (save / ".last_session").mkdir()
    (save / ".last_session" / "pts-0").write_text(NEWER)
    warm = listed("warm")
    assert (parsed[FORK[:8]], parsed[True]) == (0, 0)
    assert warm == listed("cold")
    parsed.clear()
    shutil.copytree(save / "session_20261130_081121_ee760971", save / "session_x_1")
    listed("warm")
    assert parsed[FORK[:8]] == 1


def test_a_meta_json_rewritten_with_other_ids_while_listed_is_no_crash(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A meta.json that gives other ids each time the links are checked (rewritten
    again while they are read again) lists the chain from the links as read, where
    the parse raised."""
    before = sessions()

    def rewritten(links: object, root: Path, name: str, now: str | None = None) -> None:
        if getattr(links, "ids", None):  # links that know the ids they were read with
            raise vibe._Stale(name)

    monkeypatch.setattr(vibe._Links, "check", rewritten)
    after = sessions()
    assert after[FORK].extra["forked_from_id"] == NEWER
    assert after == before


@LIST_PATHS
def test_a_meta_json_rewritten_with_other_ids_during_the_listing_lists_warm_as_cold(
    listing: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The newer folder's meta.json rewritten with other ids after the fork's listing
    read its ids, before it noted them: the note took the file as it looked after the
    rewrite, so the next warm `list` kept the fork naming the newer folder, where a
    cold one names the older."""
    from sessdex import freshness

    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    note_start = freshness.note_start
    written: list[bool] = []

    def rewritten_first(path: str, *args: object, **kwargs: object) -> None:
        if not written and "7a8b9c0d" in str(path):
            written.append(True)
            _cut_loose(home)  # Vibe saves it between the read and the note
        note_start(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(freshness, "note_start", rewritten_first)
    list_rows(home, tmp_path / "warm", monkeypatch, listing=listing)
    assert written
    monkeypatch.setattr(freshness, "note_start", note_start)
    warm = list_rows(home, tmp_path / "warm", monkeypatch, listing=listing)
    assert warm[FORK]["forked_from"] == OLDER
    assert warm == list_rows(home, tmp_path / "cold", monkeypatch, listing=listing)


@LIST_PATHS
def test_a_folder_continuing_the_chain_made_during_the_listing_lists_warm_as_cold(
    listing: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Vibe compacts the chain a fork came from (a new folder naming its newest) while
    a `list` reads the fork, after the save folder's links were read, before the fork's
    listing noted the folder: the note took the folder as it looked with the new one,
    so the next warm `list` kept the fork naming the older newest folder, where a cold
    one names the new folder."""
    from sessdex import freshness

    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    save = home / SAVE_DIR
    newest = "aaaabbbb-1e2f-4a3b-8c4d-5d6e7f8a9b0c"

    def compacted() -> None:
        made = save / "session_20261201_110000_aaaabbbb"
        shutil.copytree(save / "session_20261201_101005_7a8b9c0d", made)
        meta = json.loads((made / "meta.json").read_text())
        meta["session_id"], meta["parent_session_id"] = newest, NEWER
        (made / "meta.json").write_text(json.dumps(meta, indent=2))

    note_folders = freshness.note_folders
    made: list[bool] = []
    parsing: list[Path] = []
    parse = vibe.parse

    def parsed(path: Path, *args: object) -> list[Session]:
        parsing.append(path)
        return parse(path, *args)  # type: ignore[arg-type]

    def made_first(path: str, *args: object, **kwargs: object) -> None:
        if not made and FORK[:8] in str(parsing[-1]):  # the fork's listing
            made.append(True)
            compacted()
        note_folders(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(freshness, "note_folders", made_first)
    monkeypatch.setattr(vibe, "parse", parsed)
    list_rows(home, tmp_path / "warm", monkeypatch, listing=listing)
    assert made
    monkeypatch.setattr(freshness, "note_folders", note_folders)
    warm = list_rows(home, tmp_path / "warm", monkeypatch, listing=listing)
    assert warm[FORK]["forked_from"] == newest
    assert warm == list_rows(home, tmp_path / "cold", monkeypatch, listing=listing)


def test_a_meta_json_made_a_link_to_a_credential_file_is_never_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A newer folder's meta.json that a fork's listing noted by its first bytes, made
    a link to an agent's login: the warm `list` that checked whether they were the same
    opened the login to read them."""
    import os

    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    listed = list_rows(home, tmp_path / "warm", monkeypatch)
    assert listed[FORK]["forked_from"] == NEWER
    secret = home / ".codex" / "auth.json"
    secret.parent.mkdir(parents=True)
    secret.write_text('{"OPENAI_API_KEY": "sk-secret"}')
    meta = home / SAVE_DIR / "session_20261201_101005_7a8b9c0d" / "meta.json"
    meta.unlink()
    meta.symlink_to(secret)
    with opened_files() as opened:
        warm = list_rows(home, tmp_path / "warm", monkeypatch)
    assert opened, "the audit hook saw the run's own reads"
    assert os.path.realpath(secret) not in opened
    assert warm == list_rows(home, tmp_path / "cold", monkeypatch)


@pytest.mark.parametrize("damage", ["cut", "gone"])
def test_a_damaged_transcript_chunk_is_counted_by_the_list(
    tmp_path: Path, damage: str
) -> None:
    """A unified session's transcript chunk cut short (mid-JSON) or deleted is counted
    and named by `list -v` and doctor, as show says it ("missing or broken"): the list
    said nothing, and doctor counted nothing skipped."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    chunks = home / SAVE_DIR / "unified" / RESUMED / "chunks"
    (chunk,) = chunks.glob("76bda879*.json")
    if damage == "cut":
        chunk.write_bytes(chunk.read_bytes()[:100])
    else:
        chunk.unlink()
    run = CliRunner()
    listed = run.invoke(main, ["list", "-v", "--app", "vibe", "--home", str(home)])
    assert listed.exit_code == 0, listed.output
    assert RESUMED[:8] in listed.stdout  # still listed: its envelope reads
    assert str(chunk) in listed.stderr, listed.stderr
    doctor = run.invoke(main, ["doctor", "--home", str(home)])
    assert doctor.exit_code == 0, doctor.output
    assert "skipped     1" in doctor.stdout, doctor.stdout


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le"])
def test_a_legacy_transcript_resaved_as_utf16_is_said_by_the_list(
    tmp_path: Path, encoding: str
) -> None:
    """A legacy folder's messages.jsonl a tool re-saved as UTF-16 is named by `list -v`
    and counted by doctor as not UTF-8, not read, as show names it: the list (which
    reads meta.json) said nothing, though show found no turn in it."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    (messages,) = home.glob(f"{SAVE_DIR}/session_*_{LEGACY_LEAD[:8]}/messages.jsonl")
    messages.write_bytes(messages.read_text(encoding="utf-8").encode(encoding))
    run = CliRunner()
    listed = run.invoke(main, ["list", "-v", "--app", "vibe", "--home", str(home)])
    assert listed.exit_code == 0, listed.output
    assert f"{messages}:0: {WIDE_TEXT}" in listed.stderr, listed.stderr
    doctor = run.invoke(main, ["doctor", "--home", str(home)])
    assert f"skipped     1 {WIDE_TEXT}" in doctor.stdout, doctor.stdout


@pytest.mark.parametrize("damage", ["cut", "gone"])
def test_a_damaged_transcript_chunk_is_reported_once_by_usage(
    tmp_path: Path, damage: str
) -> None:
    """`usage -v` names a unified session's damaged transcript chunk once: it named it
    twice, once from the read ("missing or broken") and once from the listing's count."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    chunks = home / SAVE_DIR / "unified" / RESUMED / "chunks"
    (chunk,) = chunks.glob("76bda879*.json")
    if damage == "cut":
        chunk.write_bytes(chunk.read_bytes()[:100])
    else:
        chunk.unlink()
    result = CliRunner().invoke(
        main, ["usage", "-v", "--app", "vibe", "--home", str(home)]
    )
    assert result.exit_code == 0, result.output
    assert result.stderr.count(chunk.name) == 1, result.stderr
