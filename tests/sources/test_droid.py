"""Factory droid quirks: settings file as a fragment, session-total usage, reminders not user text."""

from __future__ import annotations

import json
import shlex
import shutil
from dataclasses import replace
from pathlib import Path

from sessdex import api
from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Session, Usage, merge
from sessdex.sources import Home, droid

DATA = Path(__file__).parent.parent / "data" / "droid"


def sessions(home: Home) -> dict[str, Session]:
    location = droid.locate(home)
    parts: dict[str, list[Session]] = {}
    for path in droid.scan(location):
        for session in droid.parse(path, location, Diagnostics()):
            parts.setdefault(session.id, []).append(session)
    return {key: merge(value) for key, value in parts.items()}


def events(session: Session) -> list[Event]:
    return list(droid.read(session, Diagnostics()))


def test_settings_fill_in_model_effort_and_autonomy() -> None:
    large = sessions(Home.at(DATA / "home"))["droid_large"]
    assert large.path and large.path.endswith(
        "droid_large.jsonl"
    )  # the transcript stays the file
    assert (large.model, large.effort, large.permission_mode) == (
        "claude-sonnet-4-5-20250929",
        "medium",
        "auto-low",
    )


def test_usage_is_the_settings_session_total_once() -> None:
    got = events(sessions(Home.at(DATA / "home"))["droid_large"])
    usage = [e for e in got if e.kind == "usage"]
    assert len(usage) == 1 and usage[0].extra == {"session_total": True, "summed": True}
    assert usage[0].usage == Usage(  # thinkingTokens (96) on top of outputTokens (212)
        1840, 212 + 96, 10600, 5300, 96, "claude-sonnet-4-5-20250929"
    )
    assert usage[0].time == got[-2].time  # the last message's time


def test_per_message_usage_replaces_the_total(tmp_path: Path) -> None:
    folder = tmp_path / "home" / ".factory" / "sessions" / "-w"
    folder.mkdir(parents=True)
    lines = [
        {
            "type": "session_start",
            "id": "s",
            "title": "t",
            "cwd": "/w",
            "version": "0.90.0",
        },
        {
            "type": "message",
            "id": "a",
            "timestamp": "2026-01-01T00:00:00Z",
            "message": {"role": "user", "content": "hi"},
        },
        {
            "type": "message",
            "id": "b",
            "timestamp": "2026-01-01T00:00:02Z",
            "message": {
                "role": "assistant",
                "model": "gpt-5",
                "content": [
                    {"type": "thinking", "thinking": "hm"},
                    {"type": "text", "text": "hello"},
                ],
                "usage": {
                    "input_tokens": 7,
                    "output_tokens": 3,
                    "cache_read_input_tokens": 100,
                },
            },
        },
    ]
    (folder / "s.jsonl").write_text(
        "\n".join(json.dumps(line) for line in lines) + "\n"
    )
    (folder / "s.settings.json").write_text(
        json.dumps({"tokenUsage": {"inputTokens": 999}})
    )
    got = events(sessions(Home.at(tmp_path / "home"))["s"])
    assert [e.kind for e in got] == ["user", "thinking", "assistant", "usage"]
    assert got[-1].usage == Usage(7, 3, 100, 0, 0, "gpt-5")
    # real droid files name the model `modelId`
    lines[-1]["message"]["modelId"] = lines[-1]["message"].pop("model")  # type: ignore[index]
    (folder / "s.jsonl").write_text(
        "\n".join(json.dumps(line) for line in lines) + "\n"
    )
    got = events(sessions(Home.at(tmp_path / "home"))["s"])
    assert got[-1].usage == Usage(7, 3, 100, 0, 0, "gpt-5")


def test_system_reminders_are_not_the_users_words() -> None:
    drift = sessions(Home.at(DATA / "home"))["droid_drift"]
    assert [e.text for e in events(drift) if e.kind == "user"] == ["Do the thing"]
    assert drift.extra["format_version"] == 2 and drift.cli_version is None


def test_tool_call_and_result_pair_up() -> None:
    got = events(sessions(Home.at(DATA / "home"))["droid_s1"])
    call, result = got[1], got[2]
    assert call.tool == "Execute" and call.extra["input"] == {"command": "ls /nope"}
    assert (
        result.call_id == call.call_id == "tu1"
        and result.text
        and result.text.startswith("Error:")
    )


def test_resume_is_the_documented_flag() -> None:
    plan = droid.resume(sessions(Home.at(DATA / "home"))["droid_large"])
    assert plan is not None
    assert (
        plan.argv == ("droid", "--resume", "droid_large") and plan.cwd == "/tmp/large"
    )
    assert not plan.withheld
    # run against droid 0.215 (the conformance suite): no note that says it was not
    assert plan.notes == (
        "headless: `droid exec -s droid_large` (needs a Factory login)",
    )


def test_resume_refuses_a_session_droid_would_reopen_at_a_looser_autonomy(
    tmp_path: Path,
) -> None:
    """droid reopens a session at the autonomy level its settings file keeps (0.215's
    session load), and its `--auto` names no level as strict as its default (off): a
    session left at high came back auto-approving every command, unasked."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    check = api.check_resume(
        Home.at(home), "droid_large"
    )  # its autonomyLevel: auto-low
    said = [r for r in check.refusals if "autonomy level low" in r]
    # the way to keep it, as the caller names it (`--keep-permissions` on the CLI)
    assert said and "keep_permissions" in said[0].replace("-", "_"), check.refusals
    kept = api.check_resume(Home.at(home), "droid_large", keep_permissions=True)
    assert not [r for r in kept.refusals if "autonomy" in r]
    session = sessions(Home.at(DATA / "home"))["droid_large"]
    for level, refused in (("off", False), ("high", True), (None, False)):
        plan = droid.resume(replace(session, permission_mode=level))
        assert plan is not None and bool(plan.restores_looser) == refused


def test_the_headless_command_in_the_note_quotes_the_files_id(tmp_path: Path) -> None:
    """The id comes from the transcript: pasted from the note, `droid exec -s <id>` ran
    what a hostile id held (`$(…)`) before it was quoted, as the command itself is."""
    folder = tmp_path / ".factory" / "sessions" / "-tmp"
    folder.mkdir(parents=True)
    hostile = "$(touch pwned)"
    start = {"type": "session_start", "id": hostile, "cwd": str(tmp_path)}
    (folder / "x.jsonl").write_text(json.dumps(start) + "\n")
    plan = droid.resume(sessions(Home.at(tmp_path))[hostile])
    assert plan is not None
    (note,) = plan.notes
    command = (
        note.removeprefix("headless: ")
        .removesuffix(" (needs a Factory login)")
        .strip("`")
    )
    assert shlex.split(command) == ["droid", "exec", "-s", hostile]


def test_home_override_only_when_it_differs(tmp_path: Path) -> None:
    assert droid.locate(Home(tmp_path, {"HOME": str(tmp_path)})).override is None
    assert (
        droid.locate(Home(tmp_path, {"HOME": str(DATA / "home")})).root
        == DATA / "home" / ".factory"
    )


def test_factory_home_override_moves_the_folder_and_its_sessions_are_listed(
    tmp_path: Path,
) -> None:
    """`FACTORY_HOME_OVERRIDE` (Factory's SDK reads it before the home; its desktop app
    sets it for the daemon) names the folder holding `.factory`."""
    elsewhere = tmp_path / "daemon"
    shutil.copytree(DATA / "home" / ".factory", elsewhere / ".factory")
    home = Home(tmp_path / "empty", {"FACTORY_HOME_OVERRIDE": str(elsewhere)})
    location = droid.locate(home)
    assert location.root == elsewhere / ".factory"
    assert location.override == f"FACTORY_HOME_OVERRIDE={elsewhere}"
    assert sessions(home).keys() == sessions(Home.at(DATA / "home")).keys()


def test_a_task_sub_agent_compaction_and_turn_outcomes(tmp_path: Path) -> None:
    """Shapes several public droid readers agree on: `session_start.callingSessionId` /
    `callingToolUseId` mark a sub-agent the Task tool ran, `compaction_state` holds the
    summary, `agent_turn_outcome` says how a turn ended, `todo_state` is bookkeeping."""
    folder = tmp_path / ".factory" / "sessions" / "-home-u-proj"
    folder.mkdir(parents=True)
    stamp = "2026-09-20T10:00:00.000Z"

    def message(role: str, text: str) -> dict[str, object]:
        return {"type": "message", "id": role, "timestamp": stamp,
                "message": {"role": role, "content": [{"type": "text", "text": text}]}}  # fmt: skip

    task = {
        "type": "message",
        "id": "a0",
        "timestamp": stamp,
        "message": {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "t1",
                    "name": "Task",
                    "input": {"prompt": "Find every caller of pay()"},
                }
            ],
        },
    }
    answered = {
        "type": "message",
        "id": "u0",
        "timestamp": stamp,
        "message": {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "3 callers"}
            ],
        },
    }
    lead = [
        {"type": "session_start", "id": "d-parent", "title": "New Session", "cwd": "/home/u/proj"},
        message("user", "Fix the flaky test"),
        task,
        answered,
        {"type": "compaction_state", "id": "c1", "timestamp": stamp, "summaryText": "Looked at test_pay.py.",
         "summaryKind": "compaction", "removedCount": 3},
        {"type": "todo_state", "todos": {"todos": "1. [in_progress] fix"}, "messageIndex": 3},
        message("assistant", "Fixed."),
        {"type": "agent_turn_outcome", "id": "o1", "turnId": "turn-1", "reason": "completed"},
    ]  # fmt: skip
    child = [
        {"type": "session_start", "id": "d-child", "title": "# Task Tool Invocation", "cwd": "/home/u/proj",
         "callingSessionId": "d-parent", "callingToolUseId": "t1"},
        message("user", "# Task Tool Invocation\n\nFind every caller of pay()"),
    ]  # fmt: skip
    for name, lines in (("d-parent", lead), ("d-child", child)):
        (folder / f"{name}.jsonl").write_text(
            "".join(json.dumps(r) + "\n" for r in lines)
        )
    found = sessions(Home.at(tmp_path))
    assert found["d-parent"].title == "Fix the flaky test"  # not "New Session"
    assert (found["d-child"].parent_id, found["d-child"].title) == (
        "d-parent",
        "Find every caller of pay()",
    )
    assert found["d-child"].extra["parent_call_id"] == "t1"
    # resumed, the sub-agent opens alone: said, as it is of other apps' sub-agents
    child_plan, lead_plan = (droid.resume(found[i]) for i in ("d-child", "d-parent"))
    assert child_plan and any("a sub-agent session" in n for n in child_plan.notes)
    assert lead_plan and not any("sub-agent" in n for n in lead_plan.notes)
    diagnostics = Diagnostics()
    got = list(droid.read(found["d-parent"], diagnostics))
    assert not diagnostics.unknown
    [compaction] = [e for e in got if e.kind == "compaction"]
    assert (
        compaction.text == "Looked at test_pay.py." and compaction.extra["removed"] == 3
    )
    assert [e.extra.get("reason") for e in got if e.kind == "turn_end"] == ["completed"]
    # the sub-agent's events follow the Task call that ran it, tagged with its id
    kinds = [(e.kind, e.agent_id) for e in got]
    spawn = kinds.index(("subagent", None))
    assert kinds[spawn - 1] == ("tool_call", None) and got[spawn].call_id == "t1"
    assert got[spawn].extra == {"child_id": "d-child", "agent_type": "task"}
    assert kinds[spawn + 1] == ("user", "d-child")
    assert kinds[spawn + 2] == ("tool_result", None)


def test_injected_context_and_notices_are_not_the_users_words(tmp_path: Path) -> None:
    """droid 0.2xx starts each session with the context it injects for the model, a user
    message marked `visibility: llm_only` (a real `droid exec` of 0.213 writes it so); a
    `user_only` message is a notice. Neither is the user's words nor the title; an
    attached document is named; a `/fork` names the session it came from."""
    folder = tmp_path / "home" / ".factory" / "sessions" / "-w"
    folder.mkdir(parents=True)
    lines = [
        {"type": "session_start", "id": "s", "cwd": "/w", "version": "0.213.0",
         "parent": "s0", "forkedAtMessageId": "m9"},
        {"type": "message", "id": "context-1", "timestamp": "2026-08-14T04:19:35Z",
         "message": {"role": "user", "visibility": "llm_only",
                     "content": [{"type": "text", "text": "Tool catalog: Read, Edit, Execute"}]}},
        {"type": "message", "id": "n1", "timestamp": "2026-08-14T04:19:36Z", "visibility": "user_only",
         "message": {"role": "user", "content": [{"type": "text", "text": "Hook ran: lint"}]}},
        {"type": "message", "id": "u1", "timestamp": "2026-08-14T04:19:37Z",
         "message": {"role": "user", "content": [
             {"type": "text", "text": "Summarise the note"},
             {"type": "document", "source": {"type": "text", "data": "...", "name": "note.txt"}}]}},
    ]  # fmt: skip
    (folder / "s.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    session = sessions(Home.at(tmp_path / "home"))["s"]
    assert session.title == "Summarise the note"
    assert session.extra["forked_from_id"] == "s0" and session.parent_id is None
    diagnostics = Diagnostics()
    found = list(droid.read(session, diagnostics))
    assert not diagnostics.unknown
    assert [e.text for e in found if e.kind == "user"] == [
        "Summarise the note",
        "[document note.txt]",
    ]
    hidden = [e for e in found if e.kind == "meta"]
    assert [(e.extra["visibility"], e.extra["injected"]) for e in hidden] == [
        ("llm_only", True),
        ("user_only", False),
    ]
    assert hidden[0].text == "Tool catalog: Read, Edit, Execute"


def test_a_long_injected_context_is_one_short_line(tmp_path: Path) -> None:
    """droid 0.215's injected context (tool catalog, reminders) runs to several KB: its
    meta event says what it is and how long, quoting only its start."""
    folder = tmp_path / "home" / ".factory" / "sessions" / "-w"
    folder.mkdir(parents=True)
    catalog = "<system-reminder>\n" + "Tool: Execute runs a shell command.\n" * 300
    lines = [
        {"type": "session_start", "id": "s", "cwd": "/w", "version": "0.215.0"},
        {"type": "message", "id": "c", "timestamp": "2026-08-14T04:19:35Z",
         "message": {"role": "user", "visibility": "llm_only",
                     "content": [{"type": "text", "text": catalog}]}},
        {"type": "message", "id": "u1", "timestamp": "2026-08-14T04:19:37Z",
         "message": {"role": "user", "content": [{"type": "text", "text": "hi"}]}},
    ]  # fmt: skip
    (folder / "s.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    session = sessions(Home.at(tmp_path / "home"))["s"]
    (meta,) = [e for e in droid.read(session, Diagnostics()) if e.kind == "meta"]
    assert meta.text is not None and len(meta.text) < 300
    assert meta.text.startswith(
        f"context droid gave the model ({len(catalog):,} characters): "
        "<system-reminder> Tool: Execute runs"
    )
    assert meta.extra["characters"] == len(catalog)
    (whole,) = [
        e for e in droid.read(session, Diagnostics(), full=True) if e.kind == "meta"
    ]
    assert whole.text == catalog  # --full-payloads: the whole context


def test_a_sub_agent_is_typed_and_described_as_the_task_tool_ran_it(
    tmp_path: Path,
) -> None:
    """droid's Task tool names the sub-agent to run (`subagent_type`: worker, explorer,
    a custom droid) and describes the task; the child's `session_start` repeats both
    (this one verbatim from a Droid Worker transcript a public reader's tests quote,
    ids shortened). Every sub-agent showed as "task", described by its type line."""
    folder = tmp_path / ".factory" / "sessions" / "-tmp-repo"
    folder.mkdir(parents=True)
    stamp = "2026-05-01T10:00:00.000Z"
    spawn = {"type": "tool_use", "id": "toolu_01SC", "name": "Task",
             "input": {"subagent_type": "worker", "description": "Create red.md and commit",
                       "prompt": "Create docs/red.md with the word red, then commit."}}  # fmt: skip
    lead = [
        {"type": "session_start", "id": "p-1", "title": "use a subagent", "cwd": "/tmp/repo"},
        {"type": "message", "id": "m1", "timestamp": stamp,
         "message": {"role": "user", "content": [{"type": "text", "text": "use a subagent"}]}},
        {"type": "message", "id": "m2", "timestamp": stamp,
         "message": {"role": "assistant", "content": [spawn]}},
    ]  # fmt: skip
    start = {"type": "session_start", "id": "c-1",
             "title": "# Task Tool Invocation Subagent type: worker Task description: Create red.md"
                      " and commit ## Context You are a specialized subagent invoked by another a...",
             "sessionTitle": "worker: Create red.md and commit", "isSessionTitleManuallySet": True,
             "owner": "soph", "callingSessionId": "p-1", "callingToolUseId": "toolu_01SC",
             "version": 2, "cwd": "/tmp/repo"}  # fmt: skip
    (folder / "p-1.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lead))
    (folder / "c-1.jsonl").write_text(json.dumps(start) + "\n")
    found = sessions(Home.at(tmp_path))
    assert (found["c-1"].agent_type, found["c-1"].parent_id) == ("worker", "p-1")
    [made] = [
        e for e in droid.read(found["p-1"], Diagnostics()) if e.kind == "subagent"
    ]
    assert made.text == "Create red.md and commit"
    assert made.extra == {"child_id": "c-1", "agent_type": "worker"}
    # with no call to read it from, the child's own start says the same
    (folder / "p-1.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lead[:2]))
    [made] = [
        e for e in droid.read(found["p-1"], Diagnostics()) if e.kind == "subagent"
    ]
    assert (made.text, made.extra["agent_type"]) == (
        "Create red.md and commit",
        "worker",
    )


def test_an_auto_routed_session_names_the_model_the_router_picked(
    tmp_path: Path,
) -> None:
    """`model: "auto"` lets droid's router choose; once a turn is routed the settings
    name the pick in `effectiveFactoryRouterModel.modelId`, and the session total is
    that model's (shape as marmutapp/superbased-observer's droid adapter documents it
    from real sidecars, `internal/adapter/droid/settings.go` @506d359c)."""
    folder = tmp_path / ".factory" / "sessions" / "-w"
    folder.mkdir(parents=True)
    start = {"type": "session_start", "id": "r", "title": "t", "cwd": "/w"}
    prompt = {
        "type": "message",
        "id": "a",
        "timestamp": "2026-09-01T00:00:00Z",
        "message": {"role": "user", "content": [{"type": "text", "text": "hi"}]},
    }
    (folder / "r.jsonl").write_text(f"{json.dumps(start)}\n{json.dumps(prompt)}\n")
    settings = {
        "model": "auto",
        "reasoningEffort": "high",
        "effectiveFactoryRouterModel": {
            "modelId": "claude-opus-5",
            "reasoningEffort": "high",
            "fallbacks": [],
        },
        "tokenUsage": {"inputTokens": 10, "outputTokens": 2, "factoryCredits": 7},
    }
    (folder / "r.settings.json").write_text(json.dumps(settings))
    (folder / "n.jsonl").write_text(json.dumps({**start, "id": "n"}) + "\n")
    (folder / "n.settings.json").write_text(json.dumps({"model": "auto"}))
    found = sessions(Home.at(tmp_path))
    assert found["r"].model == "claude-opus-5"
    assert found["n"].model == "auto"  # nothing routed yet: the setting as it is
    usage = [e.usage for e in events(found["r"]) if e.kind == "usage"]
    assert usage == [Usage(10, 2, 0, 0, 0, "claude-opus-5")]


def test_real_forks_name_their_origin_and_count_only_their_own_spending() -> None:
    """droid 0.215.0's `exec --fork <id>` and TUI `--fork <id>` (PROVENANCE.md): the new
    file copies the origin's messages under a `session_start` naming it in `parent`; its
    settings count only what the fork itself spent."""
    found = sessions(Home.at(DATA / "forks" / "home"))
    origin = "39579c81-100b-48d2-b293-cbaecd2805b9"
    assert origin in found and "forked_from_id" not in found[origin].extra
    spent = sum((e.usage for e in events(found[origin]) if e.usage), start=Usage())
    for fork in (
        "36f57c79-0879-4631-b6ca-7aedd345ae3a",
        "6ecca826-bdaf-4c07-98c6-4454f0230166",
    ):
        session = found[fork]
        assert session.extra["forked_from_id"] == origin
        assert session.parent_id is None  # the user's own session, not a sub-agent
        got = events(session)
        first = next(e.text for e in got if e.kind == "user")
        assert first is not None and first.startswith("SCENARIO=basic")  # copied, shown
        own = sum((e.usage for e in got if e.usage), start=Usage())
        assert own.input_tokens == 2000 and own.input_tokens < spent.input_tokens
