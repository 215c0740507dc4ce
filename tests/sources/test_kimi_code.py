"""Kimi Code quirks: `~/.kimi-code` sessions listed beside Kimi CLI's, one wire per agent."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from datetime import UTC, datetime
from functools import reduce
from pathlib import Path

import pytest

from sessdex import api
from sessdex.diagnostics import Diagnostics
from sessdex.index import Index
from sessdex.model import Event, Session, Usage, merge
from sessdex.sources import Home, kimi

DATA = Path(__file__).parent.parent / "data" / "kimi"
WORKSPACE = ".kimi-code/sessions/wd_project_ac3bb318f98e"
SMALL = "9eb1bf57-c1af-48a5-b658-0e8d9fe794f5"  # retries, a steer, cancelled turns
TOOLS = (
    "1bcbe023-4f7e-4971-9dc9-43b8756045b0"  # tools, a sub-agent, plan mode, compaction
)
PROJECT = "/private/tmp/as-agent-lab/kimi/project"
REAL_CLI = "4126cee7-7a8d-40e9-b56e-546048ada69f"  # a kimi-cli 1.51 session (../real)


def sessions(home: Home, diagnostics: Diagnostics | None = None) -> dict[str, Session]:
    location = kimi.locate(home)
    parts: dict[str, list[Session]] = {}
    for path in kimi.scan(location):
        for session in kimi.parse(Path(path), location, diagnostics or Diagnostics()):
            parts.setdefault(session.id, []).append(session)
    merged = {key: merge(value) for key, value in parts.items()}
    return {key: s for key, s in merged.items() if s.listed}


def events(
    session: Session, diagnostics: Diagnostics | None = None, **kw: int
) -> list[Event]:
    return list(kimi.read(session, diagnostics or Diagnostics(), **kw))  # type: ignore[arg-type]


def total(found: list[Event]) -> Usage:
    return reduce(lambda a, b: a + b, (e.usage for e in found if e.usage), Usage())


def test_kimi_code_is_found_beside_kimi_cli_and_its_override_is_honoured(
    tmp_path: Path,
) -> None:
    location = kimi.locate(Home.at(DATA / "home"))
    assert location.also[0] == DATA / "home" / ".kimi-code"
    found = sessions(Home.at(DATA / "home"))
    assert {SMALL, TOOLS} <= set(found)
    moved = Home(
        tmp_path / "nobody", {"KIMI_CODE_HOME": str(DATA / "home" / ".kimi-code")}
    )
    assert (
        kimi.locate(moved).override == f"KIMI_CODE_HOME={DATA / 'home' / '.kimi-code'}"
    )
    assert set(sessions(moved)) == {SMALL, TOOLS}


def test_listing_shows_title_folder_model_and_effort() -> None:
    found = sessions(Home.at(DATA / "home"))
    tools, small = found[TOOLS], found[SMALL]
    assert (tools.title, tools.cwd, tools.model, tools.effort) == (
        "hi",
        PROJECT,
        "moonshot-ai/kimi-k2.7-code",
        "on",
    )
    assert tools.path and tools.path.endswith(f"session_{TOOLS}/agents/main/wire.jsonl")
    assert (
        tools.created
        and tools.created.isoformat() == "2026-08-01T19:33:23.256000+00:00"
    )
    assert small.permission_mode == "auto"  # the wire's last permission.set_mode
    assert tools.parent_id is None and small.parent_id is None


def test_the_state_title_wins_and_the_first_prompt_stands_in(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    state = home / WORKSPACE / f"session_{TOOLS}" / "state.json"
    value = json.loads(state.read_text())
    state.write_text(json.dumps({**value, "title": "Count the Swift files"}))
    assert sessions(Home.at(home))[TOOLS].title == "Count the Swift files"
    state.unlink()
    found = sessions(Home.at(home))[TOOLS]
    assert found.title == "hi"  # the first turn.prompt of origin user
    assert found.cwd is None  # only state.json keeps the work directory in 0.3x


def test_events_of_a_tool_session_in_order() -> None:
    got = events(sessions(Home.at(DATA / "home"))[TOOLS])
    kinds = [e.kind for e in got if e.agent_id is None]
    assert kinds[:9] == [
        "meta",  # model and thinking effort
        "user",
        "user",
        "user",
        "thinking",
        "assistant",
        "usage",  # the step's usage record, then the turn's end
        "turn_end",
        "user",
    ]
    assert kinds[-3:] == [
        "turn_end",
        "usage",
        "compaction",
    ]  # the compaction's own call
    assert [e.seq for e in got] == list(range(len(got)))
    plan = [e.extra.get("plan_mode") for e in got if "plan_mode" in e.extra]
    assert plan == [True, False]
    compaction = got[-1]
    assert compaction.text and compaction.text.startswith(
        "I am writing this handoff note"
    )
    assert compaction.extra["compacted"] == 56


def test_usage_counts_each_model_response_once() -> None:
    """23 usage.record lines (22 turn-scoped, 1 session-scoped compaction) in the main wire,
    3 in the sub-agent's; the 22 + 3 step.end usages repeat turn records and are not counted."""
    got = events(sessions(Home.at(DATA / "home"))[TOOLS])
    main = [e for e in got if e.kind == "usage" and e.agent_id is None]
    child = [e for e in got if e.kind == "usage" and e.agent_id == "agent-0"]
    assert len(main) == 23 and len(child) == 3
    assert [e.extra["scope"] for e in main].count("session") == 1
    assert total(main) == Usage(
        30174, 5515, 661504, 0, model="moonshot-ai/kimi-k2.7-code"
    )
    assert total(child) == Usage(
        12905, 330, 28416, 0, model="moonshot-ai/kimi-k2.7-code"
    )
    assert total(main + child).total == 43079 + 5845 + 689920
    first = main[0].usage
    assert first is not None and (first.input_tokens, first.cache_read_tokens) == (
        9431,
        14848,
    )
    assert not [
        e for e in events(sessions(Home.at(DATA / "home"))[SMALL]) if e.kind == "usage"
    ]


def test_tool_calls_are_linked_to_their_results() -> None:
    got = events(sessions(Home.at(DATA / "home"))[TOOLS])
    calls = {(e.agent_id, e.call_id): e for e in got if e.kind == "tool_call"}
    results = [e for e in got if e.kind == "tool_result"]
    assert len(calls) == 21 and len(results) == 21
    for result in results:
        call = calls[(result.agent_id, result.call_id)]
        assert call.seq < result.seq
    bash = calls[(None, "Bash_0")]
    assert bash.tool == "Bash" and bash.extra["input"] == {"command": "ls"}
    failed = next(e for e in results if e.call_id == "Bash_2")
    assert failed.is_error and failed.text and "No such file" in failed.text


def test_the_sub_agent_follows_the_agent_call_that_named_it() -> None:
    got = events(sessions(Home.at(DATA / "home"))[TOOLS])
    spawn = next(e for e in got if e.kind == "subagent")
    assert (spawn.agent_id, spawn.call_id, spawn.text) == (
        None,
        "Agent_3",
        "Count Swift files in repo",
    )
    assert spawn.extra == {"child_id": "agent-0", "agent_type": "explore"}
    call = next(e for e in got if e.kind == "tool_call" and e.call_id == "Agent_3")
    result = next(e for e in got if e.kind == "tool_result" and e.call_id == "Agent_3")
    inside = [e for e in got if e.agent_id == "agent-0"]
    assert call.seq < spawn.seq < inside[0].seq and inside[-1].seq < result.seq
    brief = next(e for e in inside if e.kind == "user")
    assert brief.extra == {"origin": "system_trigger"}
    assert brief.text and brief.text.startswith("<git-context>")
    assert inside[-1].kind == "turn_end"


def test_an_agent_no_result_names_is_appended(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    agents = home / WORKSPACE / f"session_{TOOLS}" / "agents"
    shutil.copytree(agents / "agent-0", agents / "agent-1")
    got = events(sessions(Home.at(home))[TOOLS])
    spawns = [e for e in got if e.kind == "subagent"]
    assert [e.extra["child_id"] for e in spawns] == ["agent-0", "agent-1"]
    assert spawns[1].call_id is None and spawns[1].seq > got.index(spawns[0])
    assert got[-1].agent_id == "agent-1"


def test_reading_from_an_offset_reads_no_sub_agent_file() -> None:
    session = sessions(Home.at(DATA / "home"))[TOOLS]
    assert session.path
    data = Path(session.path).read_bytes()
    offset = data.index(b'"run subagent to count swift files')
    got = events(session, offset=offset)
    assert got[0].kind != "user"  # the cut line is dropped
    assert [e.extra["child_id"] for e in got if e.kind == "subagent"] == ["agent-0"]
    assert not [e for e in got if e.agent_id is not None]


def test_retries_steers_and_cancelled_turns() -> None:
    got = events(sessions(Home.at(DATA / "home"))[SMALL])
    kinds = [e.kind for e in got]
    assert kinds == [
        "meta",
        "user",
        *["error"] * 6,  # model request attempts 2/10 to 7/10
        "user",  # the steer
        "error",  # cancelled
        "user",
        *["error"] * 5,
        "error",
        "meta",  # permission mode auto
        "turn_end",
    ]
    assert (
        got[2].text == "model request retried (attempt 2/10)" and got[2].extra["retry"]
    )
    assert got[8].extra == {"steer": True} and got[8].text == "stop"
    assert [e.text for e in got if e.text == "turn cancelled"] == ["turn cancelled"] * 2


def test_a_torn_last_line_is_noted_and_an_unknown_record_counted_not_raised() -> None:
    found = sessions(Home.at(DATA / "malformed" / "home"))
    diagnostics = Diagnostics()
    got = events(found[SMALL], diagnostics)
    assert [e.kind for e in got] == ["meta", "user", "assistant"]
    assert diagnostics.unknown["hologram.render"] == 1
    assert diagnostics.skipped == {"not JSON": 1}
    assert len(diagnostics.unfinished) == 1  # the app may still be writing it


IMPORTED = "5b7e2a10-1c3d-4e5f-8a9b-0c1d2e3f4a5b"  # a Kimi CLI session Kimi Code copied


def imported_home(tmp_path: Path) -> Path:
    """Kimi Code's copy of a Kimi CLI session (`ses_<old uuid>`, bare messages), beside
    the Kimi CLI session it was copied from."""
    folder = (
        tmp_path
        / ".kimi-code/sessions/wd_api_0123456789ab/ses_5b7e2a10-1c3d-4e5f-8a9b-0c1d2e3f4a5b"
    )
    (folder / "agents" / "main").mkdir(parents=True)
    (folder / "state.json").write_text(
        json.dumps(
            {
                "createdAt": "2026-07-01T10:00:00.000Z",
                "updatedAt": "2026-07-01T10:05:00.000Z",
                "title": "Add a /health endpoint",
                "agents": {"main": {"type": "main", "parentAgentId": None}},
                "custom": {
                    "imported_from_kimi_cli": True,
                    "kimi_cli_session_id": "5b7e2a10-1c3d-4e5f-8a9b-0c1d2e3f4a5b",
                },
                "workDir": "/home/dev/code/api",
            }
        )
    )
    lines = [
        {"type": "metadata", "protocol_version": "1.0", "created_at": 1782900000000},
        {
            "type": "context.append_message",
            "message": {
                "role": "user",
                "content": [{"type": "text", "text": "Add a /health endpoint"}],
                "toolCalls": [],
            },
        },
        {
            "type": "context.append_message",
            "message": {
                "role": "assistant",
                "content": [{"type": "text", "text": "Reading the routes."}],
                "toolCalls": [
                    {
                        "type": "function",
                        "id": "c1",
                        "function": {"name": "Read", "arguments": '{"path": "app.py"}'},
                    }
                ],
            },
        },
        {
            "type": "context.append_message",
            "message": {
                "role": "tool",
                "content": [{"type": "text", "text": "from flask import Flask"}],
                "toolCalls": [],
                "toolCallId": "c1",
            },
        },
    ]
    (folder / "agents/main/wire.jsonl").write_text(
        "".join(json.dumps(x) + "\n" for x in lines)
    )
    # the Kimi CLI session it was copied from, still on disk
    shutil.copytree(DATA / "home" / ".kimi", tmp_path / ".kimi")
    return tmp_path


def test_an_imported_session_is_read_from_its_messages(tmp_path: Path) -> None:
    """Kimi Code copies Kimi CLI sessions into `ses_<old uuid>` folders as bare messages."""
    imported_home(tmp_path)
    old = "5b7e2a10-1c3d-4e5f-8a9b-0c1d2e3f4a5b"
    assert old in sessions(Home.at(DATA / "home"))
    found = sessions(Home.at(tmp_path))
    session = found[
        "ses_5b7e2a10-1c3d-4e5f-8a9b-0c1d2e3f4a5b"
    ]  # apart from the Kimi CLI session it came from
    # listed once: as the copy, which `kimi` (Kimi Code since the upgrade) can resume
    assert old not in found
    assert (session.title, session.cwd) == (
        "Add a /health endpoint",
        "/home/dev/code/api",
    )
    assert session.extra["imported_from"] == "5b7e2a10-1c3d-4e5f-8a9b-0c1d2e3f4a5b"
    got = events(session)
    assert [(e.kind, e.call_id) for e in got] == [
        ("user", None),
        ("assistant", None),
        ("tool_call", "c1"),
        ("tool_result", "c1"),
    ]
    assert got[2].extra["input"] == {"path": "app.py"}
    plan = kimi.resume(session)
    assert plan is not None and plan.argv == (
        "kimi",
        "--session",
        "ses_5b7e2a10-1c3d-4e5f-8a9b-0c1d2e3f4a5b",
    )


def test_the_copied_sessions_old_id_opens_and_resumes_the_copy(tmp_path: Path) -> None:
    """An id noted before the upgrade still works: `kimi --session <old id>` would fail."""
    home = Home.at(imported_home(tmp_path))
    assert api.resolve(home, IMPORTED[:8]).id == f"ses_{IMPORTED}"
    assert api.resolve(home, f"kimi:{IMPORTED}").title == "Add a /health endpoint"
    check = api.check_resume(home, IMPORTED)
    assert check.plan.argv == ("kimi", "--session", f"ses_{IMPORTED}")
    assert [e.kind for e in api.transcript(home, IMPORTED).events][:2] == [
        "user",
        "assistant",
    ]


def test_a_session_without_a_prompt_is_not_listed(tmp_path: Path) -> None:
    folder = tmp_path / ".kimi-code/sessions/wd_x_0123456789ab/session_0b0b0b0b"
    (folder / "agents" / "main").mkdir(parents=True)
    (folder / "state.json").write_text('{"title": "", "workDir": "/home/dev/x"}')
    (folder / "agents/main/wire.jsonl").write_text(
        '{"type":"metadata","protocol_version":"1.4","created_at":1782900000000}\n'
        '{"type":"config.update","modelAlias":"kimi-code/kimi-for-coding","time":1782900000001}\n'
    )
    assert sessions(Home.at(tmp_path)) == {}


def test_resume_reopens_the_session_folder_and_withholds_looser_modes() -> None:
    found = sessions(Home.at(DATA / "home"))
    plan = kimi.resume(found[TOOLS])
    assert plan is not None
    assert plan.argv == ("kimi", "--session", f"session_{TOOLS}")
    assert (plan.cwd, plan.program, plan.withheld) == (PROJECT, "kimi", ())
    auto = kimi.resume(found[SMALL])
    assert auto is not None
    assert auto.argv == ("kimi", "--session", f"session_{SMALL}")
    # Kimi Code restores the saved mode itself: refused unless kept, never "left out"
    assert auto.withheld == () and auto.restores_looser == "auto permission mode"
    kept = kimi.resume(found[SMALL], keep_permissions=True)
    assert kept is not None and kept.argv[-1] == "--auto" and not kept.withheld
    assert not kept.restores_looser


def test_a_fork_names_its_source_not_the_import_it_copied(tmp_path: Path) -> None:
    """kimi-code's fork (sessionLifecycleService) copies a session under a new id, with
    `forkedFrom: <source id>` in its state and its source's `custom`, the Kimi CLI import
    mark included: the fork names its source, and is no import of its own."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    source = home / WORKSPACE / f"session_{TOOLS}"
    fork_id = "0f0f0f0f-1111-4222-8333-444455556666"
    fork = source.parent / f"session_{fork_id}"
    shutil.copytree(source, fork)
    state = json.loads((fork / "state.json").read_text())
    state.update(forkedFrom=f"session_{TOOLS}", title=f"Fork: {state.get('title')}",
                 custom={"kimi_cli_session_id": "0a0a0a0a-old"})  # fmt: skip
    (fork / "state.json").write_text(json.dumps(state))
    found = sessions(Home.at(home))
    assert found[fork_id].extra["forked_from_id"] == TOOLS
    assert "imported_from" not in found[fork_id].extra
    assert "forked_from_id" not in found[TOOLS].extra


def test_kimi_code_2_names_its_sub_agents_in_the_parents_wire(tmp_path: Path) -> None:
    """Kimi Code 2.x (@moonshot-ai/kimi-code 2.1.0, the durable `SubagentSpawned`,
    `SubagentCompleted`, `SubagentFailed` records of agent-core-v2's mirrorAgentRun.ts):
    the parent's wire says when a sub-agent starts, for which call, and how it ended; the
    `usage` of `subagent.completed` repeats the child's own records."""

    def records(time: object) -> list[dict[str, object]]:
        spawned = {"type": "subagent.spawned", "subagentId": "agent-0",
                   "subagentName": "explore", "parentToolCallId": "Agent_3",
                   "parentAgentId": "main", "description": "Count Swift files in repo",
                   "runInBackground": False, "time": time}  # fmt: skip
        done = {"type": "subagent.completed", "subagentId": "agent-0",
                "resultSummary": "3,124", "time": time,
                "usage": {"inputOther": 999999, "output": 999999}}  # fmt: skip
        failed = {"type": "subagent.failed", "subagentId": "agent-1",
                  "error": "rate limited", "time": time}  # fmt: skip
        return [spawned, done, failed]

    home = _with_a_second_agent(tmp_path, records)
    before = total(events(sessions(Home.at(DATA / "home"))[TOOLS]))
    diagnostics = Diagnostics()
    got = events(sessions(Home.at(home))[TOOLS], diagnostics)
    assert not diagnostics.unknown
    spawns = [e for e in got if e.kind == "subagent"]
    assert [(e.extra["child_id"], e.call_id) for e in spawns] == [
        ("agent-0", "Agent_3"),
        ("agent-1", None),
    ]
    call = next(e for e in got if e.kind == "tool_call" and e.call_id == "Agent_3")
    assert call.seq < spawns[0].seq
    note = next(e for e in got if e.extra.get("status") == "failed")
    assert (note.kind, note.text) == ("meta", "sub-agent agent-1 failed: rate limited")
    agent_1 = total([e for e in got if e.agent_id == "agent-1"])
    assert total(got) == before + agent_1  # nothing billed twice


def test_a_sub_agent_kimi_says_failed_is_failed_in_the_tree(tmp_path: Path) -> None:
    # 2.x notes a background sub-agent's end in its parent's wire (`subagent.failed`):
    # the tree said it was still running
    def records(time: object) -> list[dict[str, object]]:
        spawned = {"type": "subagent.spawned", "subagentId": "agent-1",
                   "subagentName": "explore", "parentAgentId": "main",
                   "description": "Watch the tests", "runInBackground": True,
                   "time": time}  # fmt: skip
        failed = {"type": "subagent.failed", "subagentId": "agent-1",
                  "error": "rate limited", "time": time}  # fmt: skip
        return [spawned, failed]

    home = _with_a_second_agent(tmp_path, records)
    _, root = api.agent_tree(Home.at(home), TOOLS)
    assert {c.id: c.status for c in root.children} == {
        "agent-0": "done",
        "agent-1": "failed",
    }


def _with_a_second_agent(
    tmp_path: Path, records: Callable[[object], list[dict[str, object]]]
) -> Path:
    """A copy of the fixture home whose tools session has a second sub-agent (agent-1, a
    copy of agent-0) and, after the lead's Agent_3 call, the wire records `records`
    makes for that call's time."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    agents = home / WORKSPACE / f"session_{TOOLS}" / "agents"
    shutil.copytree(agents / "agent-0", agents / "agent-1")
    wire = agents / "main" / "wire.jsonl"
    lines = wire.read_text().splitlines(keepends=True)
    at = next(
        i for i, line in enumerate(lines) if '"toolCallId":"Agent_3","name"' in line
    )
    added = [json.dumps(r) + "\n" for r in records(json.loads(lines[at])["time"])]
    wire.write_text("".join([*lines[: at + 1], *added, *lines[at + 1 :]]))
    return home


def _status_after(got: list[Event], last: int, later: float) -> tuple[str, str]:
    """The live status `later` seconds after event `last` was written, the CLI alive."""
    from sessdex.status import Tracker, decide

    tracker = Tracker()
    for event in got[: last + 1]:
        assert event.time is not None
        tracker.add(event, event.time.timestamp())
    at = got[last].time
    assert at is not None
    status = decide(tracker, at.timestamp() + later, at.timestamp(), True)
    return status.status, status.reason


def test_a_retried_model_request_is_no_failure_on_the_board() -> None:
    """Kimi Code notes each retried model request: `watch` read it as the turn's error,
    and once the retry's back-off was 10 s long the session showed `failed` (`error:
    model request retried (attempt 7/10)`) while kimi was still trying."""
    got = events(sessions(Home.at(DATA / "home"))[SMALL])
    retried = max(i for i, e in enumerate(got[:8]) if e.kind == "error")
    assert got[retried].text == "model request retried (attempt 7/10)"
    assert _status_after(got, retried, 30) == ("working", "model responding")


def test_a_turn_the_user_cancelled_is_an_interruption_not_a_failure() -> None:
    """Kimi Code writes `turn.cancel` when the user stops a turn: `watch` showed the
    session `failed` (`error: turn cancelled`) where another app's abort waits for the
    user, and a turn ended after a cancel still ended 'on its error'."""
    got = events(sessions(Home.at(DATA / "home"))[SMALL])
    cancelled = next(i for i, e in enumerate(got) if e.text == "turn cancelled")
    assert _status_after(got, cancelled, 60) == (
        "waiting_for_user",
        "interrupted 1m ago",
    )
    assert _status_after(got, len(got) - 1, 60) == (
        "waiting_for_user",
        "turn ended 1m ago",
    )


REAL_CODE = DATA / "real-code" / "home"  # a kimi-code 2.1.0 run (PROVENANCE.md)
REAL_CODE_LEAD = "6701cc78-5e70-4edf-ae07-2cf66679335e"


def test_a_real_kimi_code_2_1_session_has_no_unrecognised_records() -> None:
    """kimi-code 2.1.0 also writes each agent's messages and turns a second time
    (`agent.message.appended`, `agent.turn.started`, `.ended`): `show -v` and `doctor
    --deep` called them record types sessdex does not know, on every session."""
    diagnostics = Diagnostics()
    lead = sessions(Home.at(REAL_CODE))[REAL_CODE_LEAD]
    got = events(lead, diagnostics)
    assert dict(diagnostics.unknown) == {}
    assert (lead.title, lead.cwd, lead.model) == (
        "SCENARIO=subagent Please delegate the greeting command to a sub-agent and report back.",
        "/home/dev/code/shop-api",
        "mock",
    )
    said = [(e.agent_id, e.text) for e in got if e.kind == "assistant"]
    assert said == [
        (
            "agent-0",
            "Sub-agent report: the greeting command printed hello-from-subagent.",
        ),
        (None, "The sub-agent reported back: hello-from-subagent."),
    ]
    # four model responses, each billed once (the copies carry their usage again)
    billed = reduce(Usage.__add__, (e.usage for e in got if e.usage), Usage())
    assert (billed.input_tokens, billed.output_tokens) == (4000, 100)


def test_a_fork_kimi_code_just_made_is_listed_as_new(tmp_path: Path) -> None:
    """`kimi fork` (2.1.0) writes the new session's `createdAt` as the time of the fork
    but copies its source's `updatedAt`: `list` put a fork made a moment ago among the
    old sessions, last active minutes before it existed."""
    home = tmp_path / "home"
    shutil.copytree(REAL_CODE, home)
    source = next(home.glob(f".kimi-code/sessions/*/session_{REAL_CODE_LEAD}"))
    fork_id = "59cc7712-cb1a-4912-a1a7-203f1cb1d772"
    fork = source.parent / f"session_{fork_id}"
    (fork / "agents" / "main").mkdir(parents=True)
    state = json.loads((source / "state.json").read_text())
    forked_at = state["updatedAt"] + 5 * 60 * 1000
    # the fields a real 2.1.0 fork wrote, its source's times and agents kept
    state.update(id=f"session_{fork_id}", forkedFrom=f"session_{REAL_CODE_LEAD}",
                 title=f"Fork: session_{REAL_CODE_LEAD}", titleKind="replaceable",
                 createdAt=forked_at)  # fmt: skip
    del state["agents"]["agent-0"]
    state["agents"]["main"]["homedir"] = str(fork / "agents" / "main")
    (fork / "state.json").write_text(json.dumps(state))
    wire = (source / "agents" / "main" / "wire.jsonl").read_text()
    forked = {"type": "forked", "agentId": "main", "time": forked_at - 25}
    (fork / "agents" / "main" / "wire.jsonl").write_text(
        wire + json.dumps(forked) + "\n"
    )
    found = sessions(Home.at(home))
    made = found[fork_id]
    assert made.extra["forked_from_id"] == REAL_CODE_LEAD
    assert made.created is not None and made.updated is not None
    assert made.updated >= made.created
    assert made.updated > found[REAL_CODE_LEAD].updated


def test_doctor_counts_a_main_wire_that_is_a_pipe(tmp_path: Path) -> None:
    # the session's wire.jsonl is looked up by name, not listed: a pipe there lost the
    # session with no word in doctor, which counts a pipe among listed files
    import os

    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    wire = home / WORKSPACE / f"session_{SMALL}" / "agents" / "main" / "wire.jsonl"
    wire.unlink()
    os.mkfifo(wire)
    [report] = api.doctor(Home.at(home), ["kimi"])
    assert report.diagnostics.passed_over == {"pipe": 1}


def _wire_end(wire: Path) -> datetime:
    """The time of the wire's last record."""
    last = json.loads(wire.read_text().splitlines()[-1])
    return datetime.fromtimestamp(last["time"] / 1000, UTC)


def _listed(home: Path, session_id: str) -> datetime | None:
    [found] = [
        s
        for s in api.list_sessions(Home.at(home), apps=["kimi"]).sessions()
        if s.id == session_id
    ]
    return found.updated


def test_kimi_code_is_last_active_when_its_wire_last_wrote(tmp_path: Path) -> None:
    """kimi-code writes `state.json`'s `updatedAt` as the prompt is sent; the answer goes
    on in the wire (here 1.5 minutes more): `list` said the session was last active at the
    prompt, while `watch` said the end of the answer."""
    folder = DATA / "home" / WORKSPACE / f"session_{TOOLS}"
    state = json.loads((folder / "state.json").read_text())
    ended = _wire_end(folder / "agents" / "main" / "wire.jsonl")
    assert ended > datetime.fromisoformat(state["updatedAt"])
    assert sessions(Home.at(DATA / "home"))[TOOLS].updated == ended
    assert _listed(DATA / "home", TOOLS) == ended


def test_kimi_code_is_last_active_when_it_was_renamed_after_its_last_turn(
    tmp_path: Path,
) -> None:
    """A rename writes only `state.json`: its `updatedAt`, later than the wire's end,
    is when the session was last active."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    state_path = home / WORKSPACE / f"session_{TOOLS}" / "state.json"
    state = json.loads(state_path.read_text())
    state.update(title="Grep for Kimi", updatedAt="2026-08-03T10:00:00.000Z")
    state_path.write_text(json.dumps(state))
    renamed = datetime(2026, 8, 3, 10, tzinfo=UTC)
    assert sessions(Home.at(home))[TOOLS].updated == renamed
    assert _listed(home, TOOLS) == renamed


def test_the_index_keeps_a_kimi_code_sessions_last_activity_as_either_file_changes(
    tmp_path: Path,
) -> None:
    """The index re-reads only the files that changed: the wire growing (the answer
    written) and `state.json` alone rewritten (a rename) each move `updated` on, through
    a refresh and through the re-read of one file that a warm `list` does."""
    home = tmp_path / "home"
    shutil.copytree(REAL_CODE, home)
    folder = next(home.glob(f".kimi-code/sessions/*/session_{REAL_CODE_LEAD}"))
    wire = folder / "agents" / "main" / "wire.jsonl"
    state_path = folder / "state.json"
    state = json.loads(state_path.read_text())
    assert _listed(home, REAL_CODE_LEAD) == _wire_end(wire)

    def answered(at: int, long: bool = False) -> None:  # the answer's next part
        part = {"type": "text", "text": f"More at {at}." + " and more" * long * 5000}
        event = {"type": "content.part", "part": part}
        record = {"type": "context.append_loop_event", "event": event, "time": at}
        with wire.open("a") as out:
            out.write(json.dumps(record) + "\n")

    def renamed(at: int) -> None:  # a longer name each time: the file's size changes
        state.update(
            title="Renamed" + " again" * ((at - start) // 100_000), updatedAt=at
        )
        state_path.write_text(json.dumps(state))

    def moment(at: int) -> datetime:
        return datetime.fromtimestamp(at / 1000, UTC)

    start = state["updatedAt"]
    answered(start + 90_000)
    assert _listed(home, REAL_CODE_LEAD) == moment(start + 90_000)
    renamed(start + 200_000)
    assert _listed(home, REAL_CODE_LEAD) == moment(start + 200_000)
    # a warm `list` re-reads just the file that changed (Index.refresh_file)
    index = Index(Home.at(home))
    try:
        for change, path, at in (
            (answered, wire, start + 300_000),
            (renamed, state_path, start + 400_000),
            (lambda at: answered(at, long=True), wire, start + 500_000),
        ):
            change(at)
            assert index.refresh_file(kimi, str(path))
            [row] = [r for r in index.rows(apps=["kimi"]) if r.id == REAL_CODE_LEAD]
            assert row.session().updated == moment(at)
    finally:
        index.close()


def test_a_kimi_that_is_kimi_cli_is_not_given_a_kimi_code_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Kimi CLI (kimi-cli, Python) and Kimi Code both install `kimi`. Kimi CLI takes an id
    it does not know as a new session's (cli/__init__.py: "Session … not found, creating
    new session"), so a Kimi Code session's command run by it would open an empty session
    unsaid: that `kimi` is refused for it, and still runs Kimi CLI's own sessions."""
    import stat

    script = tmp_path / "kimi"
    script.write_text(
        "#!/opt/kimi-cli/bin/python\nimport sys\nfrom kimi_cli.__main__ import main\n"
        "sys.exit(main())\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", str(tmp_path))
    code_plan = kimi.resume(sessions(Home.at(DATA / "home"))[TOOLS])
    assert code_plan is not None
    refused, program = kimi.resume_program(code_plan)
    assert program is None and refused.argv == code_plan.argv
    assert "Kimi CLI's (kimi-cli)" in refused.notes[-1]
    told = api.check_resume(Home.at(DATA / "home"), TOOLS)
    assert told.cli_path is None
    assert any("Kimi CLI's (kimi-cli)" in w for w in told.warnings)
    assert any("is another program" in r for r in told.refusals)
    cli_plan = kimi.resume(sessions(Home.at(DATA / "real" / "home"))[REAL_CLI])
    assert cli_plan is not None
    assert kimi.resume_program(cli_plan) == (cli_plan, str(script))
    # Kimi Code's own `kimi` (its npm package's script, or any other): run as before
    script.write_text(
        "#!/usr/bin/env node\nimport '@moonshot-ai/kimi-code/dist/main.mjs'\n"
    )
    assert kimi.resume_program(code_plan) == (code_plan, str(script))
