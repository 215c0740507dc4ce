"""Qwen Code quirks: metadata records (last wins), fragments sharing a uuid, sub-agent telemetry."""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
from dataclasses import replace
from datetime import datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import files
from sessdex.cli import main
from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Session, Usage, merge
from sessdex.sources import Home, qwen
from tests.helpers import LIST_PATHS, list_rows

HOME = Path(__file__).parent.parent / "data" / "qwen" / "home"
SHOP = "/home/alex/code/shop-api"
BASIC = "06673cb3-1b6b-451c-9e31-28b1903607da"
DELEGATING = "51ca07c5-86d5-4e2f-bd10-43feff49e3db"
FEATURES = "5d1e0c2a-7b3f-4e8a-9c1d-2f6a8b4e0c11"
PUBLIC = "019f0000-0000-7000-8000-000000000001"


def sessions(home: Path = HOME) -> dict[str, Session]:
    location = qwen.locate(Home.at(home))
    fragments: dict[str, list[Session]] = {}
    for path in qwen.scan(location):
        for session in qwen.parse(path, location, Diagnostics()):
            fragments.setdefault(session.id, []).append(session)
    return {key: merge(parts) for key, parts in fragments.items()}


def events(session_id: str) -> list[Event]:
    diagnostics = Diagnostics()
    found = list(qwen.read(sessions()[session_id], diagnostics))
    assert diagnostics.skipped_total == 0 and not diagnostics.unknown
    return found


def total(found: list[Event], agent: str | None = None) -> Usage:
    usage = Usage()
    for event in found:
        if event.usage is not None and event.agent_id == agent:
            usage += event.usage
    return usage


def test_basic_and_resumed_turns_read_in_order() -> None:
    found = events(BASIC)
    assert [e.kind for e in found[:6]] == [
        "user",
        "tool_call",
        "usage",
        "tool_result",
        "assistant",
        "usage",
    ]
    assert [e.text for e in found if e.kind == "user"] == [
        "SCENARIO=basic Please run the greeting shell command and tell me what it printed.",
        "SCENARIO=resume Please run the greeting command once more after resuming.",
    ]
    call = found[1]
    assert call.tool == "run_shell_command" and call.call_id == "e71671fb0"
    assert call.extra["input"] == {
        "command": "echo hello-from-tool",
        "description": "Print a greeting",
    }
    assert found[3].call_id == "e71671fb0" and "Output: hello-from-tool" in (
        found[3].text or ""
    )


def test_usage_totals_per_fixture() -> None:
    # four model responses of 1200 in / 30 out, checked by hand against usageMetadata
    assert total(events(BASIC)) == Usage(4800, 120, model="mock-model")
    assert total(events("1f538cf4-236e-4575-9a3b-683f2a204349")) == Usage(
        2400, 60, model="mock-model"
    )
    # the synthetic file: 2000 prompt of which 500 cached, 40 + 10 thoughts; then 2100 of which 2000 cached, 20
    assert total(events(FEATURES)) == Usage(
        1600, 70, 2500, 0, 10, model="qwen3-coder-plus"
    )
    assert total(events(PUBLIC)) == Usage()


def test_reasoning_an_openai_compatible_provider_counts_in_its_output_is_not_added_again(
    tmp_path: Path,
) -> None:
    """Qwen maps an OpenAI-compatible provider's usage (its default: Qwen OAuth,
    DashScope, OpenRouter) as `candidatesTokenCount` = completion_tokens, reasoning
    included, `thoughtsTokenCount` = the reasoning part, `totalTokenCount` = prompt +
    completion (openaiContentGenerator/converter.ts). Gemini's own API counts thoughts
    apart, and in its total: those are added (the FEATURES fixture)."""
    lines = (
        HOME / ".qwen/projects/-home-alex-code-shop-api/chats" / f"{FEATURES}.jsonl"
    ).read_text()
    openai = lines.replace('"candidatesTokenCount":40,"thoughtsTokenCount":10,'
                           '"cachedContentTokenCount":500,"totalTokenCount":2050',
                           '"candidatesTokenCount":40,"thoughtsTokenCount":10,'
                           '"cachedContentTokenCount":500,"totalTokenCount":2040')  # fmt: skip
    assert openai != lines
    home = tmp_path / "home"
    chats = home / ".qwen/projects/-home-alex-code-shop-api/chats"
    chats.mkdir(parents=True)
    (chats / f"{FEATURES}.jsonl").write_text(openai)
    found = list(qwen.read(sessions(home)[FEATURES], Diagnostics()))
    usages = [e.usage for e in found if e.kind == "usage"]
    assert usages[0] == Usage(1500, 40, 500, 0, 10, model="qwen3-coder-plus")


def test_a_cleared_title_gives_the_first_prompt_back(tmp_path: Path) -> None:
    """Qwen writes an empty `customTitle` when a title is cleared (its tombstone: "the
    deleted name must never come back"); its picker shows the first prompt again."""
    source = (
        HOME / ".qwen/projects/-home-alex-code-shop-api/chats" / f"{FEATURES}.jsonl"
    )
    lines = source.read_text().splitlines()
    last = json.loads(next(line for line in reversed(lines) if "custom_title" in line))
    last["systemPayload"] = {"customTitle": "", "titleSource": "manual"}
    home = tmp_path / "home"
    chats = home / ".qwen/projects/-home-alex-code-shop-api/chats"
    chats.mkdir(parents=True)
    (chats / source.name).write_text("\n".join([*lines, json.dumps(last)]) + "\n")
    assert sessions(HOME)[FEATURES].title == "Rename checkout helper"
    title = sessions(home)[FEATURES].title
    assert (
        title and title != "Rename checkout helper" and "Checkout helper" not in title
    )


def test_fragments_sharing_a_uuid_count_once_with_the_last_usage() -> None:
    usages = [e.usage for e in events(FEATURES) if e.kind == "usage"]
    assert usages == [
        Usage(1500, 50, 500, 0, 10, model="qwen3-coder-plus"),
        Usage(100, 20, 2000, 0, 0, model="qwen3-coder-plus"),
    ]


def test_sub_agent_spawn_and_its_telemetry_usage() -> None:
    found = events(DELEGATING)
    [spawn] = [e for e in found if e.kind == "subagent"]
    assert spawn.call_id == "9cb191903" and spawn.text == "Greeting sub-agent"
    # the call names no run id: the first unseen run of its type is its child
    assert spawn.extra == {
        "child_id": "general-purpose-eh56xt",
        "agent_type": "general-purpose",
    }
    child = [e for e in found if e.agent_id == "general-purpose-eh56xt"]
    assert child and spawn.seq < child[0].seq
    # the lead agent's own telemetry duplicates its assistant records and is not counted
    assert total(found) == Usage(2400, 60, model="mock-model")
    assert total(found, "general-purpose-eh56xt") == Usage(2400, 60, model="mock-model")
    result = next(e for e in found if e.kind == "tool_result")
    assert result.text == "Sub-agent report: the command printed hello-from-subagent."


def test_a_sub_agents_tool_calls_come_from_its_telemetry() -> None:
    """Qwen keeps no transcript for a sub-agent run: its shell command is known only from
    the `tool_call` telemetry line that names the run in its prompt id. The lead's own
    call (`agent`) is in its records and is not repeated."""
    found = events(DELEGATING)
    calls = [(e.agent_id, e.tool) for e in found if e.kind == "tool_call"]
    assert calls == [(None, "agent"), ("general-purpose-eh56xt", "run_shell_command")]
    shell = next(e for e in found if e.tool == "run_shell_command")
    assert shell.extra["input"] == {
        "command": "echo hello-from-subagent",
        "description": "Print a greeting",
    }
    assert shell.extra["status"] == "success" and shell.extra["duration_ms"] == 2428
    assert not [e for e in found if e.kind == "error"]


def test_a_sub_agents_failed_tool_call_is_an_error_of_that_run(tmp_path: Path) -> None:
    lines = _delegating_lines()
    for line in lines:
        event = line.get("systemPayload", {}).get("uiEvent", {})
        if event.get("function_name") == "run_shell_command":
            event.update(success=False, status="error", error="permission denied")
    found = _read_lines(tmp_path, lines)
    [error] = [e for e in found if e.kind == "error"]
    assert error.agent_id == "general-purpose-eh56xt"
    assert error.text == "permission denied"


def test_a_sub_agents_failed_model_call_is_an_error_of_that_run(tmp_path: Path) -> None:
    """Qwen 0.2x's `api_error` telemetry names the sub-agent run that failed
    (`subagent_name`, `subagent_id`), as `api_response` does: the error is that run's,
    not the lead agent's."""
    lines = _delegating_lines()
    at = next(
        i
        for i, line in enumerate(lines)
        if line.get("systemPayload", {}).get("uiEvent", {}).get("event.name")
        == "qwen-code.api_response"
        and line["systemPayload"]["uiEvent"].get("subagent_name")
    )
    failed = json.loads(json.dumps(lines[at]))
    event = failed["systemPayload"]["uiEvent"]
    event.update({"event.name": "qwen-code.api_error", "error_message": "rate limited",
                  "subagent_id": "general-purpose-eh56xt"})  # fmt: skip
    failed["uuid"] = "api-error-1"
    found = _read_lines(tmp_path, [*lines[: at + 1], failed, *lines[at + 1 :]])
    [error] = [e for e in found if e.kind == "error"]
    assert (error.agent_id, error.text) == ("general-purpose-eh56xt", "rate limited")


def test_metadata_records_last_one_wins() -> None:
    session = sessions()[FEATURES]
    assert (
        session.title == "Rename checkout helper"
    )  # the manual rename after the auto title
    assert session.model == "qwen3-coder-plus"  # session_model
    assert session.permission_mode == "yolo"  # plan, then yolo
    kinds = [e.kind for e in events(FEATURES)]
    assert (
        kinds.count("meta") == 5 and "compaction" in kinds and kinds[-1] == "turn_end"
    )


def test_public_shape_thoughts_hook_context_and_notifications() -> None:
    found = events(PUBLIC)
    assert [e.kind for e in found] == [
        "user",
        "thinking",
        "tool_call",
        "tool_result",
        "assistant",
        "meta",
    ]
    assert (
        found[0].text == "Inspect the synthetic fixture."
    )  # displayText, not the hook context
    assert sessions()[PUBLIC].cwd == "/tmp/as-qwen-fixture/project"


def test_resume_passes_only_an_approval_mode_qwen_takes() -> None:
    """qwen 0.24.4's `--approval-mode` takes plan, default, auto-edit, auto and yolo (its
    --help's choices; `auto` accepted, measured), and any other word makes it print its
    help and start nothing: a recorded mode it does not name (a sub-agent's `bubble`, a
    build's own) is left out, with why, even with --keep-permissions."""
    session = sessions()[FEATURES]
    auto = qwen.resume(replace(session, permission_mode="auto"), keep_permissions=True)
    assert auto is not None and auto.argv[-2:] == ("--approval-mode", "auto")
    for mode in ("bubble", "autoEdit"):
        for keep in (True, False):
            plan = qwen.resume(
                replace(session, permission_mode=mode), keep_permissions=keep
            )
            assert plan is not None and "--approval-mode" not in plan.argv
            assert not plan.withheld
            assert plan.notes == (
                f"left out the approval mode {mode!r}: qwen takes plan, default, "
                "auto-edit, auto or yolo",
            )


def test_resume_keeps_plan_and_withholds_looser_modes() -> None:
    session = sessions()[FEATURES]
    plan = qwen.resume(session)
    assert plan is not None
    assert plan.argv == ("qwen", "--resume", FEATURES, "--model", "qwen3-coder-plus")
    assert plan.cwd == SHOP and plan.program == "qwen"
    assert plan.withheld == ("--approval-mode yolo",)
    kept = qwen.resume(session, keep_permissions=True)
    assert kept is not None and kept.argv[-2:] == ("--approval-mode", "yolo")
    planning = qwen.resume(replace(session, permission_mode="plan"))
    assert (
        planning is not None
        and planning.argv[-2:] == ("--approval-mode", "plan")
        and not planning.withheld
    )
    # qwen's flag wins over a settings.json approvalMode of yolo (0.24.4, measured)
    default = qwen.resume(replace(session, permission_mode="default"))
    assert (
        default is not None
        and default.argv[-2:] == ("--approval-mode", "default")
        and not default.withheld
    )
    edits = qwen.resume(replace(session, permission_mode="auto-edit"))
    assert edits is not None and edits.withheld == ("--approval-mode auto-edit",)
    # 0.24.4 restores no mode and no flag caps the user's setting: auto passes none
    auto = qwen.resume(replace(session, permission_mode="auto"))
    assert auto is not None and auto.withheld == ("--approval-mode auto",)
    assert "--approval-mode" not in auto.argv


def _record(session_id: str, n: int, **fields: object) -> str:
    base = {
        "uuid": f"u{n}",
        "parentUuid": f"u{n - 1}" if n else None,
        "sessionId": session_id,
        "timestamp": f"2026-11-30T10:{n // 60 % 60:02d}:{n % 60:02d}.000Z",
        "type": "user",
        "cwd": SHOP,
        "version": "0.15.10",
        "gitBranch": "main",
    }
    base.update(fields)
    return json.dumps(base, separators=(",", ":")) + "\n"


def test_listing_a_big_file_reads_head_and_tail_only(tmp_path: Path) -> None:
    session_id = "9a9a9a9a-0000-4000-8000-000000000000"
    chats = tmp_path / ".qwen" / "projects" / "-home-alex-code-shop-api" / "chats"
    chats.mkdir(parents=True)
    path = chats / f"{session_id}.jsonl"
    filler = "x" * 4000
    with path.open("w") as out:
        out.write(
            _record(
                session_id, 0, message={"role": "user", "parts": [{"text": "start"}]}
            )
        )
        for n in range(1, 400):  # about 1.6 MB: the middle is never read when listing
            out.write(
                _record(
                    session_id,
                    n,
                    type="assistant",
                    model="old-model",
                    message={"parts": [{"text": filler}]},
                )
            )
        out.write(
            _record(
                session_id,
                400,
                type="system",
                subtype="custom_title",
                systemPayload={"customTitle": "Tail title"},
            )
        )
    assert path.stat().st_size > 3 * files.TAIL_BYTES
    found = sessions(tmp_path)[session_id]
    assert (
        found.title == "Tail title" and found.cwd == SHOP and found.model == "old-model"
    )
    assert (
        found.created is not None
        and found.updated is not None
        and found.updated > found.created
    )


def test_offset_reads_from_the_next_whole_line() -> None:
    session = sessions()[BASIC]
    assert session.path is not None
    data = Path(session.path).read_bytes()
    middle = data.index(b'"SCENARIO=resume') - 10  # inside the resumed user record
    found = list(qwen.read(session, Diagnostics(), offset=middle))
    assert found and found[0].seq == 0
    assert "SCENARIO=resume" not in " ".join(
        e.text or "" for e in found if e.kind == "user"
    )
    assert [e.kind for e in found][:2] == ["tool_call", "usage"]


def test_env_override_order(tmp_path: Path) -> None:
    runtime, home_dir = tmp_path / "runtime", tmp_path / "qwen-home"
    both = Home(
        tmp_path, {"QWEN_RUNTIME_DIR": str(runtime), "QWEN_HOME": str(home_dir)}
    )
    assert (
        qwen.locate(both).root == runtime
        and qwen.locate(both).override == f"QWEN_RUNTIME_DIR={runtime}"
    )
    assert qwen.locate(Home(tmp_path, {"QWEN_HOME": str(home_dir)})).root == home_dir
    assert qwen.locate(Home.at(tmp_path)).root == tmp_path / ".qwen"


def _delegating_lines() -> list[dict[str, object]]:
    path = HOME / ".qwen" / "projects" / "-home-alex-code-shop-api" / "chats"
    return [
        json.loads(line)
        for line in (path / f"{DELEGATING}.jsonl").read_text().splitlines()
    ]


def _read_lines(tmp_path: Path, lines: list[dict[str, object]]) -> list[Event]:
    path = tmp_path / f"{DELEGATING}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    session = replace(sessions()[DELEGATING], path=str(path))
    diagnostics = Diagnostics()
    found = list(qwen.read(session, diagnostics))
    assert not diagnostics.unknown
    return found


def test_a_spawn_whose_child_left_no_trace_is_announced_before_its_answer(
    tmp_path: Path,
) -> None:
    """No telemetry for the sub-agent (turned off, or cut from the file): the spawn is
    still one `subagent` event, before the result that answers it, with no child id."""
    lines = [
        line
        for line in _delegating_lines()
        if "general-purpose-eh56xt" not in json.dumps(line)  # its usage and tool call
    ]
    found = _read_lines(tmp_path, lines)
    [spawn] = [e for e in found if e.kind == "subagent"]
    assert spawn.extra == {"agent_type": "general-purpose"}
    answer = next(e for e in found if e.kind == "tool_result")
    assert spawn.seq < answer.seq and answer.call_id == spawn.call_id
    cut = _read_lines(tmp_path, lines[:4])  # the read ends before the answer
    assert [e.kind for e in cut if e.kind == "subagent"] == ["subagent"]


def test_a_run_whose_spawn_was_not_read_is_announced_without_a_call(
    tmp_path: Path,
) -> None:
    lines = [
        line
        for line in _delegating_lines()
        if '"functionCall"' not in json.dumps(line)
        and '"functionResponse"' not in json.dumps(line)
    ]
    found = _read_lines(tmp_path, lines)
    [spawn] = [e for e in found if e.kind == "subagent"]
    assert spawn.call_id is None and spawn.agent_id is None
    assert spawn.extra == {
        "child_id": "general-purpose-eh56xt",
        "agent_type": "general-purpose",
    }


def test_a_workspace_agents_message_is_shown_and_is_not_a_sub_agent(
    tmp_path: Path,
) -> None:
    """Newer Qwen writes what another agent of the workspace said as a user record
    (`agent_message`, `agent_mention`) that names its author in agentId, without
    isSidechain: a message to show, not a sub-agent."""
    base = _delegating_lines()[0]
    said = dict(base, uuid="x1", subtype="agent_message", agentId="ag_reviewer",
                agentName="reviewer", provenance="external_agent",
                systemPayload={"displayText": "checkout.py retries without backoff",
                               "author": {"agentId": "ag_reviewer", "name": "reviewer"}})  # fmt: skip
    mention = dict(base, uuid="x2", subtype="agent_mention",
                   systemPayload={"displayText": "@reviewer have a look", "mentionedAgentIds": ["ag_reviewer"]})  # fmt: skip
    found = _read_lines(tmp_path, [base, mention, said])
    assert [(e.kind, e.text) for e in found if e.kind == "meta"] == [
        ("meta", "@reviewer have a look"),
    ]
    [message] = [e for e in found if e.extra.get("from_agent")]
    assert message.kind == "user" and message.extra["from_agent"] == "reviewer"
    assert message.text == "checkout.py retries without backoff"
    assert not [e for e in found if e.kind == "subagent" or e.agent_id]


def test_the_approval_mode_each_prompt_was_sent_with_is_listed(tmp_path: Path) -> None:
    lines = _delegating_lines()
    first = dict(lines[0], executionContext={"modelId": "qwen3-coder-plus",
                                             "authType": "openai", "approvalMode": "yolo"})  # fmt: skip
    folder = tmp_path / ".qwen" / "projects" / "-home-alex-code-shop-api" / "chats"
    folder.mkdir(parents=True)
    (folder / f"{DELEGATING}.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in [first, *lines[1:]])
    )
    session = sessions(tmp_path)[DELEGATING]
    assert session.permission_mode == "yolo"
    plan = qwen.resume(session)
    assert plan is not None and plan.withheld == ("--approval-mode yolo",)


def test_a_runtime_folder_set_in_the_settings_is_where_sessions_are(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    chats = home / "qwen-runtime" / "projects" / "-home-alex-code-shop-api" / "chats"
    chats.mkdir(parents=True)
    source = HOME / ".qwen" / "projects" / "-home-alex-code-shop-api" / "chats"
    (chats / f"{BASIC}.jsonl").write_bytes((source / f"{BASIC}.jsonl").read_bytes())
    (home / ".qwen").mkdir()
    assert sessions(home) == {}
    (home / ".qwen" / "settings.json").write_text(
        json.dumps({"advanced": {"runtimeOutputDir": "~/qwen-runtime"}})
    )
    assert list(sessions(home)) == [BASIC]
    location = qwen.locate(Home.at(home))
    assert location.override and "runtimeOutputDir" in location.override
    # Qwen strips comments from its settings before parsing them: so does sessdex
    (home / ".qwen" / "settings.json").write_text(
        '{\n  // where chats go\n  "advanced": {"runtimeOutputDir": "~/qwen-runtime"}'
        " /* moved */\n}\n"
    )
    assert list(sessions(home)) == [BASIC]


def test_a_managed_engine_session_says_why_it_shows_nothing(tmp_path: Path) -> None:
    """Qwen's managed engine keeps a session's conversation in its own records
    (`managed_session_*_v1`): say so rather than show an empty session."""
    base = _delegating_lines()[0]
    header = dict(base, uuid="h1", type="system", subtype="managed_session_header_v1",
                  systemPayload={"version": 1})  # fmt: skip
    event = dict(header, uuid="h2", subtype="managed_session_event_v1")
    found = _read_lines(tmp_path, [header, event])
    assert [(e.kind, e.extra) for e in found] == [("meta", {"engine": "managed"})]


# --- sub-agent transcripts (0.21+) ------------------------------------------------------
#
# tests/data/qwen/subagents/home is synthetic, in the layout and record shapes Qwen Code
# 0.24.4 writes (npm @qwen-code/qwen-code 0.24.4; QwenLM/qwen-code
# packages/core/src/agents/agent-transcript.ts, tools/agent/agent.ts, telemetry/loggers.ts):
# a chat that spawns one sub-agent, the sub-agent's own transcript
# `subagents/<parent>/agent-general-purpose-<call id>.jsonl` (records with isSidechain,
# agentId, agentName, agentColor; one assistant record per model round with usageMetadata,
# agentRunId and agentRound, and no model), its `.meta.json` (toolUseId, stats) and a
# leftover `.jsonl.stream`. The chat carries the same sub-agent calls again as ui_telemetry
# (`api_response` with subagent_name/subagent_id, `tool_call`), naming the run by the
# transcript's agentId, as 0.24.4 does.

SUB_HOME = HOME.parent / "subagents" / "home"
PROJECT = Path(".qwen") / "projects" / "-home-alex-code-shop-api"
PARENT = "7b3c1f0e-5a2d-4c8b-9e6f-1a2b3c4d5e6f"
CALL = "call_8f2b1c9d0e"
CHILD = f"general-purpose-{CALL}"  # Qwen names a run `<config name>-<call id>`
MODEL = "qwen3-coder-plus"
# lead: 1000 + 1100 in, 20 + 25 out; the child's two rounds: 1500 of which 500 cached and
# 1600 in, 40 + 30 out (the same figures its telemetry lines carry)
LEAD_USAGE = Usage(2100, 45, model=MODEL)
CHILD_USAGE = Usage(2600, 70, 500, model=MODEL)
TASK = "Run `echo hello` and report what it printed."


def sub_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    shutil.copytree(SUB_HOME, home)
    return home


def child_folder(home: Path) -> Path:
    return home / PROJECT / "subagents" / PARENT


def read_all(home: Path, session_id: str) -> list[Event]:
    diagnostics = Diagnostics()
    found = list(qwen.read(sessions(home)[session_id], diagnostics))
    assert diagnostics.skipped_total == 0 and not diagnostics.unknown
    assert not diagnostics.problems
    return found


def usage_by_agent(found: list[Event]) -> dict[str | None, Usage]:
    totals: dict[str | None, Usage] = {}
    for event in found:
        if event.usage is not None:
            totals[event.agent_id] = totals.get(event.agent_id, Usage()) + event.usage
    return totals


def test_a_sub_agent_transcript_is_listed_under_its_parent() -> None:
    listed = sessions(SUB_HOME)
    assert sorted(listed) == [PARENT, CHILD]
    child = listed[CHILD]
    assert (child.parent_id, child.agent_type, child.title) == (
        PARENT,
        "general-purpose",
        "Greeting check",  # the meta's description
    )
    assert child.cwd == "/home/alex/code/shop-api" and child.cli_version == "0.24.4"
    assert child.extra == {"status": "completed"}
    assert listed[PARENT].parent_id is None
    assert qwen.resume(child) is None  # its parent is the session to reopen
    runner = CliRunner()
    top = runner.invoke(main, ["list", "--json", "--home", str(SUB_HOME)])
    assert [s["id"] for s in json.loads(top.stdout)] == [PARENT]
    everything = runner.invoke(
        main, ["list", "--all", "--json", "--home", str(SUB_HOME)]
    )
    rows = {s["id"]: s for s in json.loads(everything.stdout)}
    assert rows[CHILD]["parent_id"] == PARENT


def test_the_parents_read_has_the_childs_events_right_after_its_spawn() -> None:
    found = read_all(SUB_HOME, PARENT)
    [spawn] = [e for e in found if e.kind == "subagent"]
    call = found[spawn.seq - 1]
    assert (call.kind, call.tool, call.call_id) == ("tool_call", "agent", CALL)
    assert spawn.call_id == CALL and spawn.text == "Greeting check"
    assert spawn.extra == {"child_id": CHILD, "agent_type": "general-purpose"}
    child = [e for e in found if e.agent_id == CHILD]
    assert [e.seq for e in child] == list(range(spawn.seq + 1, spawn.seq + 8))
    assert [(e.kind, e.tool) for e in child] == [
        ("user", None),
        ("assistant", None),
        ("usage", None),
        ("tool_call", "run_shell_command"),
        ("tool_result", "run_shell_command"),
        ("assistant", None),
        ("usage", None),
    ]
    assert child[0].text == TASK and child[-2].text == "It printed hello."
    answer = next(e for e in found if e.kind == "tool_result" and e.agent_id is None)
    assert answer.call_id == CALL and answer.seq > child[-1].seq
    assert {e.agent_id for e in found} == {
        None,
        CHILD,
    }  # no second child from telemetry


def test_a_sub_agents_usage_counts_once_from_its_own_transcript() -> None:
    """Its calls are in its transcript and, again, in the chat's telemetry: only the
    transcript bills them, each right after the round it belongs to."""
    found = read_all(SUB_HOME, PARENT)
    assert usage_by_agent(found) == {None: LEAD_USAGE, CHILD: CHILD_USAGE}
    billed = [e for e in found if e.kind == "usage" and e.agent_id == CHILD]
    assert [found[e.seq - 1].text for e in billed] == [
        "I will run the command.",
        "It printed hello.",
    ]
    assert [e.time.isoformat() if e.time else None for e in billed] == [
        "2026-12-02T10:00:04.005000+00:00",
        "2026-12-02T10:00:06.005000+00:00",
    ]


def test_usage_counts_once_when_the_telemetry_names_the_run_by_another_id(
    tmp_path: Path,
) -> None:
    """Where the telemetry names the run by the engine's own id (`<type>-<8 hex>`, as
    releases that did not pass the transcript's id down do), its type and times tie it to
    the transcript. With the transcript gone, the telemetry bills the run, as in 0.15.x."""
    home = sub_home(tmp_path)
    chat = home / PROJECT / "chats" / f"{PARENT}.jsonl"
    chat.write_text(chat.read_text().replace(CHILD, "general-purpose-7c1d0e5a"))
    found = read_all(home, PARENT)
    assert usage_by_agent(found) == {None: LEAD_USAGE, CHILD: CHILD_USAGE}
    assert [e.agent_id for e in found if e.kind == "tool_call"] == [None, CHILD]
    assert [e.extra["child_id"] for e in found if e.kind == "subagent"] == [CHILD]
    (child_folder(home) / f"agent-{CHILD}.jsonl").unlink()
    gone = read_all(home, PARENT)
    assert usage_by_agent(gone) == {
        None: LEAD_USAGE,
        "general-purpose-7c1d0e5a": CHILD_USAGE,
    }


@pytest.mark.parametrize("rounds_without_usage", [1, 2])
def test_rounds_a_transcript_left_without_usage_are_billed_from_the_telemetry(
    tmp_path: Path, rounds_without_usage: int
) -> None:
    """Earlier writers left a round's usageMetadata out (a round without text, or every
    round): the telemetry line for such a call is billed, under the transcript's id."""
    home = sub_home(tmp_path)
    transcript = child_folder(home) / f"agent-{CHILD}.jsonl"
    records = [json.loads(line) for line in transcript.read_text().splitlines()]
    with_usage = [r for r in records if "usageMetadata" in r]
    for record in with_usage[:rounds_without_usage]:
        del record["usageMetadata"]
    transcript.write_text("".join(json.dumps(r) + "\n" for r in records))
    found = read_all(home, PARENT)
    assert usage_by_agent(found) == {None: LEAD_USAGE, CHILD: CHILD_USAGE}
    billed = [e for e in found if e.kind == "usage" and e.agent_id == CHILD]
    from_telemetry = ["04.000", "06.000"][:rounds_without_usage]
    from_transcript = ["04.005", "06.005"][rounds_without_usage:]
    assert sorted(e.time.strftime("%S.%f")[:6] for e in billed if e.time) == sorted(
        from_telemetry + from_transcript
    )
    assert [e.kind for e in found if e.kind == "subagent"] == ["subagent"]
    assert [e.text for e in found if e.kind == "assistant" and e.agent_id] == [
        "I will run the command.",
        "It printed hello.",
    ]


def test_a_transcript_no_spawn_claims_is_read_at_the_end_and_billed_once(
    tmp_path: Path,
) -> None:
    """Its meta names a call the chat does not hold: the telemetry bills the run as it
    comes, and the transcript, read after the chat, adds its events but not its calls."""
    home = sub_home(tmp_path)
    meta = child_folder(home) / f"agent-{CHILD}.meta.json"
    meta.write_text(
        meta.read_text().replace(f'"toolUseId": "{CALL}"', '"toolUseId": "x"')
    )
    found = read_all(home, PARENT)
    assert usage_by_agent(found) == {None: LEAD_USAGE, CHILD: CHILD_USAGE}
    last_of_lead = max(
        e.seq for e in found if e.agent_id is None and e.kind != "subagent"
    )
    told = [e for e in found if e.agent_id == CHILD and e.kind != "usage"]
    assert told and all(e.seq > last_of_lead for e in told if e.kind == "assistant")
    assert [e.text for e in told if e.kind == "assistant"] == [
        "I will run the command.",
        "It printed hello.",
    ]


def test_the_stream_file_beside_a_transcript_is_ignored() -> None:
    scanned = [p.name for p in qwen.scan(qwen.locate(Home.at(SUB_HOME)))]
    assert scanned == [f"{PARENT}.jsonl", f"agent-{CHILD}.jsonl"]
    texts = " ".join(e.text or "" for e in read_all(SUB_HOME, PARENT))
    assert "STREAM-ONLY" not in texts and "It printed hello." in texts


@pytest.mark.parametrize("renamed", [None, "general-purpose-ab12cd34"])
def test_a_sub_agent_transcript_without_meta_still_reads(
    tmp_path: Path, renamed: str | None
) -> None:
    """No meta names the spawning call: the transcript named after the call is its
    child; one named otherwise (a random suffix) is guessed: the oldest unread one of
    the spawn's type that did not start before it. Its task is its title."""
    home = sub_home(tmp_path)
    folder = child_folder(home)
    (folder / f"agent-{CHILD}.meta.json").unlink()
    child_id = renamed or CHILD
    for path in folder.iterdir():
        path.rename(folder / path.name.replace(CHILD, child_id))
    child = sessions(home)[child_id]
    assert (child.parent_id, child.agent_type, child.title) == (
        PARENT,
        "general-purpose",
        TASK,
    )
    found = read_all(home, PARENT)
    [spawn] = [e for e in found if e.kind == "subagent"]
    assert spawn.call_id == CALL and spawn.extra["child_id"] == child_id
    assert found[spawn.seq + 1].agent_id == child_id
    assert usage_by_agent(found) == {None: LEAD_USAGE, child_id: CHILD_USAGE}


@pytest.mark.parametrize(
    "meta",
    [
        b"{not json",
        b"[1, 2]",
        b'{"toolUseId": 5, "description": [], "parentAgentId": {}}',
    ],
)
def test_a_broken_meta_file_is_no_crash(tmp_path: Path, meta: bytes) -> None:
    home = sub_home(tmp_path)
    (child_folder(home) / f"agent-{CHILD}.meta.json").write_bytes(meta)
    child = sessions(home)[CHILD]
    assert child.parent_id == PARENT and child.agent_type == "general-purpose"
    found = read_all(home, PARENT)
    assert [e.extra.get("child_id") for e in found if e.kind == "subagent"] == [CHILD]
    assert usage_by_agent(found) == {None: LEAD_USAGE, CHILD: CHILD_USAGE}


def test_sessdex_tree_shows_the_sub_agent_under_its_parent() -> None:
    result = CliRunner().invoke(
        main, ["tree", PARENT[:8], "--json", "--home", str(SUB_HOME)]
    )
    assert result.exit_code == 0, result.output
    root = json.loads(result.stdout)
    assert root["usage"]["input_tokens"] == 2100 and root["tool_calls"] == 1
    [child] = root["children"]
    assert (
        child["id"],
        child["agent_type"],
        child["description"],
        child["status"],
    ) == (CHILD, "general-purpose", "Greeting check", "done")
    assert (
        child["usage"]["input_tokens"],
        child["usage"]["output_tokens"],
        child["usage"]["cache_read_tokens"],
        child["tool_calls"],
    ) == (2600, 70, 500, 1)
    # all of its transcript: its task, two rounds, a tool call and its result
    assert (child["events"], child["started"]) == (7, "2026-12-02T10:00:02.100Z")


def test_a_sub_agent_read_on_its_own_is_the_lead_of_its_read() -> None:
    found = read_all(SUB_HOME, CHILD)
    assert {e.agent_id for e in found} == {None}
    assert [e.kind for e in found if e.kind != "usage"] == [
        "user",
        "assistant",
        "tool_call",
        "tool_result",
        "assistant",
    ]
    assert usage_by_agent(found) == {None: Usage(2600, 70, 500)}


def test_hook_context_is_never_the_users_words_without_a_display_text(
    tmp_path: Path,
) -> None:
    """Qwen (PR #7956) files a UserPromptSubmit hook's context as a part of its own,
    `<qwen:user-prompt-submit-context>…`, after what the user typed. Where no
    `displayText` says what was typed, that part is left out of the prompt and title."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    chat = next(home.rglob(f"{PUBLIC}.jsonl"))
    lines = [json.loads(line) for line in chat.read_text().splitlines() if line.strip()]
    for line in lines:
        if line.get("type") == "user" and "systemPayload" in line:
            line.pop("systemPayload")
            line["message"]["parts"] = [
                {"text": "Inspect the synthetic fixture."},
                {"text": "<qwen:user-prompt-submit-context>\nhook-only context\n"
                         "</qwen:user-prompt-submit-context>"},
            ]  # fmt: skip
            break
    else:
        raise AssertionError("no user line with a displayText")
    chat.write_text("".join(json.dumps(line) + "\n" for line in lines))
    session = sessions(home)[PUBLIC]
    found = list(qwen.read(session, Diagnostics()))
    said = [e.text for e in found if e.kind == "user"]
    assert said[0] == "Inspect the synthetic fixture."
    assert "hook-only" not in (session.title or "")


def test_the_prompt_ledger_beside_a_chat_is_not_a_chat(tmp_path: Path) -> None:
    """`qwen serve` keeps a prompt ledger beside each chat (`<id>.ledger.jsonl`: prompt
    states, no conversation): it is not scanned as a chat."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    chat = next(home.rglob(f"{BASIC}.jsonl"))
    ledger = chat.with_name(f"{BASIC}.ledger.jsonl")
    ledger.write_text(json.dumps({"v": 1, "promptId": "p1", "state": "in_flight",
                                  "tailUuid": "u1", "at": 1790000000000}) + "\n")  # fmt: skip
    scanned = {Path(p).name for p in qwen.scan(qwen.locate(Home.at(home)))}
    assert chat.name in scanned and ledger.name not in scanned


def test_a_background_agent_runs_until_its_meta_says_it_ended(tmp_path: Path) -> None:
    """With `run_in_background` the agent tool answers at launch ("Background agent
    launched successfully", display status "background") and the run's meta keeps its
    status: running, then completed, failed or cancelled (agent.ts)."""
    from sessdex.tree import build_tree

    home = tmp_path / "home"
    shutil.copytree(SUB_HOME, home)
    chat = home / PROJECT / "chats" / f"{PARENT}.jsonl"
    records = [json.loads(line) for line in chat.read_text().splitlines()]
    for record in records:
        if record.get("type") == "tool_result" and CALL in json.dumps(record):
            response = record["message"]["parts"][0]["functionResponse"]
            response["response"] = {
                "output": f"Background agent launched successfully.\nagentId: {CHILD}"
            }
            record["toolCallResult"]["resultDisplay"] = {
                "type": "task_execution",
                "status": "background",
            }
    chat.write_text("".join(json.dumps(r) + "\n" for r in records))
    [meta_path] = (home / PROJECT / "subagents").rglob("*.meta.json")
    meta = json.loads(meta_path.read_text())
    transcript = meta_path.with_name(f"agent-{CHILD}.jsonl")
    whole = transcript.read_text().splitlines(keepends=True)
    transcript.write_text("".join(whole[:-1]))  # it has not answered yet
    for status, shown in (
        ("running", "running"),
        ("completed", "done"),
        ("failed", "failed"),
        ("cancelled", "done"),
    ):
        meta_path.write_text(
            json.dumps({**meta, "isBackgrounded": True, "status": status})
        )
        [node] = build_tree(PARENT, read_all(home, PARENT)).children
        assert (node.id, node.status) == (CHILD, shown), status


def test_a_chat_stamped_with_epoch_numbers_is_listed_and_one_without_times_counted(
    tmp_path: Path,
) -> None:
    """Qwen writes ISO times; a chat whose stamps are epoch numbers (a tool that rewrote
    it) is still the same chat, and one with no stamp at all is counted, not dropped
    silently."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    [path, *_] = sorted(home.rglob("chats/*.jsonl"))
    before = sessions(home)
    records = [json.loads(line) for line in path.read_text().splitlines()]
    session_id = next(r["sessionId"] for r in records if r.get("sessionId"))
    for record in records:
        if isinstance(record.get("timestamp"), str):
            stamp = datetime.fromisoformat(record["timestamp"].replace("Z", "+00:00"))
            record["timestamp"] = int(stamp.timestamp() * 1000)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    after = sessions(home)
    assert after[session_id].created == before[session_id].created
    assert after[session_id].title == before[session_id].title
    for record in records:
        record.pop("timestamp", None)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    diagnostics = Diagnostics()
    location = qwen.locate(Home.at(home))
    assert qwen.parse(path, location, diagnostics) == []
    assert diagnostics.skipped["no timestamped record"] == 1


def test_what_a_rewind_left_behind_is_not_shown_but_still_billed(
    tmp_path: Path,
) -> None:
    """A rewind points its record's parentUuid back at the record before the turn it
    returns to (chatRecordingService `rewindRecording`): the turns after it are a dead
    branch `/resume` skips. They are one note here, their spending still counted; a
    second rewind to an earlier turn takes in the first one's branch too."""
    sid = "7a7a7a7a-0000-4000-8000-000000000001"
    stamp = iter(range(10, 60))

    def rec(
        uuid: str, parent: str | None, kind: str, **fields: object
    ) -> dict[str, object]:
        return {"uuid": uuid, "parentUuid": parent, "sessionId": sid, "type": kind,
                "timestamp": f"2026-12-01T10:00:{next(stamp)}.000Z", "cwd": "/w",
                "version": "0.24.4", **fields}  # fmt: skip

    def said(uuid: str, parent: str | None, text: str) -> dict[str, object]:
        return rec(
            uuid, parent, "user", message={"role": "user", "parts": [{"text": text}]}
        )

    def answer(uuid: str, parent: str, text: str, tokens: int) -> dict[str, object]:
        usage = {
            "promptTokenCount": tokens,
            "candidatesTokenCount": 10,
            "totalTokenCount": tokens + 10,
        }
        return rec(uuid, parent, "assistant", model="qwen3-coder-plus",
                   message={"role": "model", "parts": [{"text": text}]}, usageMetadata=usage)  # fmt: skip

    def rewind(uuid: str, parent: str | None) -> dict[str, object]:
        return rec(
            uuid,
            parent,
            "system",
            subtype="rewind",
            systemPayload={"truncatedCount": 2},
        )

    lines = [
        said("u1", None, "first ask"), answer("a1", "u1", "first answer", 100),
        said("u2", "a1", "a detour"), answer("a2", "u2", "detour answer", 200),
        rewind("r1", "a1"),
        said("u3", "r1", "the real second ask"), answer("a3", "u3", "real answer", 300),
    ]  # fmt: skip
    chats = tmp_path / "home" / PROJECT / "chats"
    chats.mkdir(parents=True)
    path = chats / f"{sid}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    found = read_all(tmp_path / "home", sid)
    shown = [(e.kind, e.text) for e in found if e.kind in ("user", "assistant")]
    assert shown == [
        ("user", "first ask"),
        ("assistant", "first answer"),
        ("user", "the real second ask"),
        ("assistant", "real answer"),
    ]
    [note] = [e for e in found if "abandoned_branch" in e.extra]
    assert note.extra["abandoned_branch"] == 2
    billed = sorted(e.usage.input_tokens for e in found if e.usage)
    assert billed == [100, 200, 300]  # the detour's response was paid for
    assert [
        e.extra.get("branch") for e in found if e.usage and e.usage.input_tokens == 200
    ] == ["abandoned"]
    # back to the very first turn: everything before the second rewind is behind
    lines += [
        rewind("r2", None),
        said("u4", "r2", "start over"),
        answer("a4", "u4", "fresh", 50),
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    found = read_all(tmp_path / "home", sid)
    assert [e.text for e in found if e.kind == "user"] == ["start over"]
    assert sum(e.usage.input_tokens for e in found if e.usage) == 650


def test_code_mode_inner_results_are_left_to_the_outer_call(tmp_path: Path) -> None:
    """Qwen Code's Code Mode (after 0.24.4, chatRecordingService.ts): the tools an `exec`
    call's code runs answer as `tool_result` lines with `subtype: code_mode_tool_result`
    under ids like `exec-1:code:1` that no call has; Qwen's own views show the outer
    result only. One call, one result."""
    base = {"sessionId": DELEGATING, "cwd": SHOP, "version": "0.25.0"}
    lines = [
        {**base, "uuid": "u1", "parentUuid": None, "type": "user",
         "timestamp": "2026-12-01T10:00:00.000Z",
         "message": {"role": "user", "parts": [{"text": "write two files"}]}},
        {**base, "uuid": "a1", "parentUuid": "u1", "type": "assistant",
         "timestamp": "2026-12-01T10:00:01.000Z", "model": "qwen3-coder",
         "message": {"role": "model", "parts": [{"functionCall": {
             "id": "exec-1", "name": "exec", "args": {"code": "..."}}}]}},
        *(
            {**base, "uuid": f"n{n}", "parentUuid": "a1" if n == 1 else f"n{n - 1}",
             "type": "tool_result", "subtype": "code_mode_tool_result",
             "timestamp": "2026-12-01T10:00:02.000Z",
             "message": {"role": "user", "parts": [{"functionResponse": {
                 "id": f"exec-1:code:{n}", "name": "write_file",
                 "response": {"output": "inner"}}}]},
             "toolCallResult": {"callId": f"exec-1:code:{n}", "status": "success"}}
            for n in (1, 2)
        ),
        {**base, "uuid": "r1", "parentUuid": "n2", "type": "tool_result",
         "timestamp": "2026-12-01T10:00:03.000Z",
         "message": {"role": "user", "parts": [{"functionResponse": {
             "id": "exec-1", "name": "exec", "response": {"output": "done"}}}]},
         "toolCallResult": {"callId": "exec-1", "status": "success"}},
    ]  # fmt: skip
    found = _read_lines(tmp_path, lines)
    results = [(e.call_id, e.text) for e in found if e.kind == "tool_result"]
    assert results == [("exec-1", "done")]
    assert [e.call_id for e in found if e.kind == "tool_call"] == ["exec-1"]


def test_a_session_only_the_prompt_log_holds_is_listed_from_its_prompts(
    tmp_path: Path,
) -> None:
    """Qwen kept Gemini CLI's prompt log, tmp/<sha256 of the folder>/logs.json, and
    recorded no chats at first: such a session lists from its prompts, in the folder a chat
    of the same project recorded; a session with a chat takes nothing from the log."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    folder = hashlib.sha256(SHOP.encode()).hexdigest()
    log = home / ".qwen" / "tmp" / folder / "logs.json"
    entries = json.loads(log.read_text())
    early = "7e2d4c1b-0a9f-4e3d-8c2b-1a0f9e8d7c6b"
    entries += [
        {"sessionId": early, "messageId": 0, "type": "user", "message": "/auth",
         "timestamp": "2025-08-01T10:00:00.000Z"},
        {"sessionId": early, "messageId": 1, "type": "user",
         "message": "Where is the retry limit set?", "timestamp": "2025-08-01T10:00:30.000Z"},
    ]  # fmt: skip
    log.write_text(json.dumps(entries, indent=2))
    found = sessions(home)
    assert [s.id for s in found.values() if "logs.json" in (s.path or "")] == [early]
    session = found[early]
    assert (session.title, session.cwd) == ("Where is the retry limit set?", SHOP)
    diagnostics = Diagnostics()
    read = list(qwen.read(session, diagnostics))
    assert [(e.kind, e.text) for e in read[1:]] == [
        ("user", "/auth"),
        ("user", "Where is the retry limit set?"),
    ]
    assert read[0].extra == {"prompts_only": True}
    assert qwen.resume(session) is None
    assert "prompts are left" in (qwen.resume_refusal(session) or "")
    chat = found["1f538cf4-236e-4575-9a3b-683f2a204349"]  # in the real log, with a chat
    assert chat.path is not None and chat.path.endswith(".jsonl")
    assert qwen.resume(chat) is not None


def test_a_branch_fork_is_listed_and_bills_only_its_own_records(
    tmp_path: Path, run: CliRunner
) -> None:
    """`/branch` (0.24.4 chatRecordingService `forkSession`) copies the source's records
    under the new id, each stamped `forkedFrom`, then the fork goes on: a session of the
    user's own, listed, whose copies are shown but billed once, in the source."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    fork_id = "f0f0f0f0-1111-4222-8333-444455556666"
    source = next(home.rglob(f"chats/{BASIC}.jsonl"))
    copied = []
    for line in source.read_text().splitlines():
        record = json.loads(line)
        record.update(
            sessionId=fork_id,
            forkedFrom={"sessionId": BASIC, "messageUuid": record["uuid"]},
        )
        copied.append(record)
    last = copied[-1]
    asked = {
        **last,
        "type": "user",
        "uuid": "fork-u1",
        "parentUuid": last["uuid"],
        "timestamp": "2026-12-01T09:00:00.000Z",
        "message": {"role": "user", "parts": [{"text": "Now on the branch"}]},
    }
    answer = {**last, "type": "assistant", "uuid": "fork-a1", "parentUuid": "fork-u1",
              "timestamp": "2026-12-01T09:00:05.000Z",
              "message": {"role": "model", "parts": [{"text": "Branched."}]},
              "usageMetadata": {"promptTokenCount": 900, "candidatesTokenCount": 9,
                                "totalTokenCount": 909}}  # fmt: skip
    for record in (asked, answer):
        record.pop("forkedFrom", None)
        record.pop("subtype", None)
        record.pop("systemPayload", None)
    (source.parent / f"{fork_id}.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in [*copied, asked, answer])
    )
    found = sessions(home)

    def read(session: Session) -> list[Event]:
        return list(qwen.read(session, Diagnostics()))

    assert found[fork_id].parent_id is None
    assert found[fork_id].extra["forked_from_id"] == BASIC
    said = [e.text for e in read(found[fork_id]) if e.kind == "assistant"]
    assert said[-1] == "Branched." and said[:-1] == [
        e.text for e in read(found[BASIC]) if e.kind == "assistant"
    ]
    listed = run.invoke(main, ["list", "--json", "--app", "qwen", "--home", str(home)])
    assert fork_id in {row["id"] for row in json.loads(listed.output)}
    counted = run.invoke(
        main, ["usage", "session", "--json", "--app", "qwen", "--home", str(home)]
    )
    by_session = {row["key"]: row["input_tokens"] for row in json.loads(counted.output)}
    assert by_session[fork_id] == 900
    assert by_session[BASIC] == sum(
        e.usage.input_tokens for e in read(found[BASIC]) if e.usage
    )


def test_trusted_folders_changed_alone_is_read_again_by_a_warm_list(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a 0.1.x chat's folder (tmp/<sha256>/) comes from trustedFolders.json, which no
    # chat's file holds: a warm `list` kept the folder it named before, a cold one not
    home = tmp_path / "home"
    shutil.copytree(HOME, home)

    def listed(state: str) -> dict[str, object]:
        rows = list_rows(home, tmp_path / state, monkeypatch)
        return {key: row["cwd"] for key, row in rows.items()}

    before = listed("warm")
    (home / ".qwen" / "trustedFolders.json").write_text("{}")
    warm = listed("warm")
    assert warm == listed("cold")
    assert warm != before


@LIST_PATHS
def test_trusted_folders_beside_moved_settings_is_read_again_by_a_warm_list(
    listing: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the runtime folder moved (`advanced.runtimeOutputDir`, as QWEN_RUNTIME_DIR): the
    # chats and tmp/ are there, trustedFolders.json stays beside the settings, and a
    # change of it alone was not seen by a warm `list` (it was looked for beside tmp/)
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    settings = home / ".qwen"
    runtime = home / "runtime"
    runtime.mkdir()
    for name in ("projects", "tmp"):
        (settings / name).rename(runtime / name)
    (settings / "settings.json").write_text(
        json.dumps({"advanced": {"runtimeOutputDir": "~/runtime"}})
    )

    def listed(state: str) -> dict[str, object]:
        rows = list_rows(home, tmp_path / state, monkeypatch, listing=listing)
        return {key: row["cwd"] for key, row in rows.items()}

    before = listed("warm")
    assert "/home/alex/code/legacy-cli" in before.values()
    (settings / "trustedFolders.json").write_text("{}")
    warm = listed("warm")
    assert warm == listed("cold")
    assert warm != before


@LIST_PATHS
def test_a_usage_record_written_alone_names_a_prompt_logs_folder_warm_as_cold(
    listing: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a prompt log's folder is the path whose sha256 names tmp/<sha256>/: with no
    # trustedFolders.json entry for it, usage_record.jsonl (0.21 and later, one line per
    # session) may name it. Written alone, a warm `list` kept the log's sessions without
    # a folder, where a cold one shows it.
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    (home / ".qwen" / "trustedFolders.json").write_text("{}")

    def listed(state: str) -> dict[str, object]:
        rows = list_rows(home, tmp_path / state, monkeypatch, listing=listing)
        return {key: row["cwd"] for key, row in rows.items()}

    before = listed("warm")
    assert "/home/alex/code/legacy-cli" not in before.values()
    record = {"project": "/home/alex/code/legacy-cli", "sessionId": "s-1"}
    (home / ".qwen" / "usage_record.jsonl").write_text(json.dumps(record) + "\n")
    warm = listed("warm")
    assert warm == listed("cold")
    assert "/home/alex/code/legacy-cli" in warm.values()


def test_an_image_sent_with_a_prompt_is_a_short_note_not_dropped(
    tmp_path: Path,
) -> None:
    """An image pasted or @-named in a prompt reaches the model, and the chat file, as an
    `inlineData` part (base64) beside the text (a file by URI as `fileData`): `show` says
    one was sent, by its type and size, as it does for Gemini CLI, never the data."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    path = home / ".qwen" / "projects" / "-home-alex-code-shop-api" / "chats"
    lines = (path / f"{BASIC}.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    data = base64.b64encode(b"\x89PNG" + bytes(2044)).decode()
    first["message"] = {"role": "user", "parts": [
        {"text": "What is in this picture?"},
        {"inlineData": {"mimeType": "image/png", "data": data}},
        {"fileData": {"mimeType": "application/pdf", "fileUri": "file:///tmp/spec.pdf"}},
    ]}  # fmt: skip
    (path / f"{BASIC}.jsonl").write_text(
        "\n".join([json.dumps(first), *lines[1:]]) + "\n"
    )
    shown = CliRunner().invoke(main, ["show", BASIC, "--json", "--home", str(home)])
    assert shown.exit_code == 0, shown.output
    [prompt, *_] = [e for e in json.loads(shown.stdout) if e["kind"] == "user"]
    assert prompt["text"] == (
        "What is in this picture?\n[image/png, 2.0 KB]\n[file file:///tmp/spec.pdf]"
    )


def test_only_the_shell_tools_result_is_read_as_its_report(tmp_path: Path) -> None:
    """The shell's report (Command:, Output:, Exit Code:) is folded to its output, but
    another tool's text that looks like one is its own answer: `show` draws it whole."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    chat = home / PROJECT / "chats" / f"{BASIC}.jsonl"
    shell = '"name":"run_shell_command","response":{"output":"Command: echo hello'
    assert shell in chat.read_text()
    read = shell.replace("run_shell_command", "read_file")
    chat.write_text(chat.read_text().replace(shell, read))
    shown = CliRunner().invoke(main, ["show", BASIC, "--home", str(home)])
    assert shown.exit_code == 0, shown.output
    assert "  ⎿ Command: echo hello-from-tool\n    Directory: (root)\n" in shown.stdout
    untouched = CliRunner().invoke(main, ["show", BASIC, "--home", str(HOME)])
    assert "  ⎿ hello-from-tool\n" in untouched.stdout


@pytest.mark.parametrize("transcript", [True, False], ids=["transcript", "telemetry"])
def test_a_spawn_after_text_in_one_response_comes_after_the_text(
    tmp_path: Path, transcript: bool
) -> None:
    """The model says a sentence, then calls `agent`, in one response (one record, its
    parts in that order): `show` has the text, then the call and the spawn, as it
    happened, whether the run left a transcript (0.21 on) or telemetry alone."""
    home = sub_home(tmp_path)
    chat = home / PROJECT / "chats" / f"{PARENT}.jsonl"
    lines = [json.loads(line) for line in chat.read_text().splitlines()]
    spawning = next(line for line in lines if line["uuid"] == "p2")
    spawning["message"]["parts"].insert(0, {"text": "A sub-agent checks the greeting."})
    chat.write_text("".join(json.dumps(line) + "\n" for line in lines))
    if not transcript:
        shutil.rmtree(child_folder(home))
    result = CliRunner().invoke(main, ["show", PARENT, "--json", "--home", str(home)])
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    order = [(e["kind"], e["agent_id"]) for e in shown]
    text = order.index(("assistant", None))
    spawn = order.index(("subagent", None))
    assert text < order.index(("tool_call", None)) < spawn
    assert shown[text]["time"] <= shown[spawn]["time"]
    assert shown[spawn]["extra"]["child_id"] == CHILD


def test_a_chat_whose_first_line_is_cut_is_counted_by_the_list(tmp_path: Path) -> None:
    """A chat whose first record a crash cut in half (its other lines whole) is listed
    and the line counted by `list -v` and doctor, as show counts it: the list said
    nothing of it."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    (chat,) = home.rglob("1f538cf4-*.jsonl")
    first, rest = chat.read_bytes().split(b"\n", 1)
    chat.write_bytes(first[: len(first) // 2] + b"\n" + rest)
    run = CliRunner()
    listed = run.invoke(main, ["list", "-v", "--app", "qwen", "--home", str(home)])
    assert listed.exit_code == 0, listed.output
    assert "1f538cf4" in listed.stdout
    assert f"{chat}:1: not JSON" in listed.stderr, listed.stderr
    doctor = run.invoke(main, ["doctor", "--home", str(home)])
    assert "skipped     1 not JSON" in doctor.stdout, doctor.stdout
