"""Copilot CLI quirks: workspace.yaml titles, sub-agents inside the parent log, two kinds of usage."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Session, Usage, merge
from sessdex.sources import Home, copilot

DATA = Path(__file__).parent.parent / "data" / "copilot"
BASIC = "16801a53-676d-4309-90f1-817ad09d82dd"
SUBAGENT = "52ee9297-7cb3-468f-8ca4-46f6b927c8c7"
OLDER = "7e1d0c2a-5b3f-4c8e-9a61-2f0b4d6e8a10"
FLAT = "aaaabbbb-1111-2222-3333-ccccddddeeee"
CHILD = "875a1830-7b81-4bd1-acd7-7c1f0f2bd5b1"


def sessions(home: Home) -> dict[str, Session]:
    location = copilot.locate(home)
    parts: dict[str, list[Session]] = {}
    for path in copilot.scan(location):
        for session in copilot.parse(path, location, Diagnostics()):
            parts.setdefault(session.id, []).append(session)
    return {key: merge(value) for key, value in parts.items()}


def events(
    session: Session, diagnostics: Diagnostics | None = None, offset: int = 0
) -> list[Event]:
    return list(copilot.read(session, diagnostics or Diagnostics(), offset=offset))


def total(got: list[Event]) -> Usage:
    return sum((e.usage for e in got if e.usage), start=Usage())


def write_events(path: Path, records: list[dict[str, object]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_titles_come_from_workspace_yaml_or_the_first_prompt() -> None:
    found = sessions(Home.at(DATA / "home"))
    assert (
        found[OLDER].title == "Ledger cleanup"
    )  # a `name: |-` block scalar, renamed by the user
    assert found[BASIC].title.startswith("SCENARIO=basic Please run")  # type: ignore[union-attr]
    assert found[FLAT].title == "List the files"  # flat legacy file, no workspace.yaml
    assert found[BASIC].path and found[BASIC].path.endswith("events.jsonl")


def test_an_older_workspace_yaml_titles_by_its_summary_else_the_first_prompt(
    tmp_path: Path,
) -> None:
    """Older builds wrote `summary:` and no `name:` (the SDK's session list shows the
    summary); with neither, the first prompt in events.jsonl stands in."""
    import shutil

    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    workspace = home / ".copilot" / "session-state" / BASIC / "workspace.yaml"
    kept = [line for line in workspace.read_text().splitlines()
            if not line.startswith(("name:", "summary:", " "))]  # fmt: skip
    workspace.write_text("\n".join([*kept, "summary: Build the greeting check"]) + "\n")
    assert sessions(Home.at(home))[BASIC].title == "Build the greeting check"
    workspace.write_text("\n".join([*kept, "summary: ~"]) + "\n")
    title = sessions(Home.at(home))[BASIC].title
    assert title is not None and title.startswith("SCENARIO=basic Please run")


def test_workspace_yaml_scalars_are_read_without_a_yaml_library(tmp_path: Path) -> None:
    path = tmp_path / "session-state" / "s1" / "workspace.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(
        "id: s1\ncwd: \"/home/dev/a \\\"b\\\"\"\nbranch: 'it''s'\nname: >-\n  Fix the\n  flaky test\nsummary: ~\n"
    )
    (fragment,) = copilot.parse(path, copilot.locate(Home.at(tmp_path)), Diagnostics())
    assert (fragment.cwd, fragment.branch, fragment.title, fragment.listed) == (
        '/home/dev/a "b"',
        "it's",
        "Fix the flaky test",
        False,
    )


def test_sub_agent_events_carry_its_agent_id() -> None:
    got = events(sessions(Home.at(DATA / "home"))[SUBAGENT])
    spawn = [e for e in got if e.kind == "subagent"]
    assert len(spawn) == 1
    assert spawn[0].call_id == "2fbeec47b" and spawn[0].agent_id is None
    assert spawn[0].extra == {"child_id": CHILD, "agent_type": "general-purpose"}
    assert spawn[0].text == "Greeting sub-agent"
    child = [e for e in got if e.agent_id == CHILD]
    assert [e.kind for e in child] == [
        "meta",
        "user",
        "usage",
        "tool_call",
        "tool_result",
        "usage",
        "assistant",
        "turn_end",
        "meta",  # subagent.completed: what ends one sent to the background
    ]
    assert child[-1].call_id == "2fbeec47b"
    assert child[-1].extra == {"subagent_status": "done", "cancelled": False}
    task_result = next(
        e for e in got if e.kind == "tool_result" and e.call_id == "2fbeec47b"
    )
    assert task_result.agent_id is None and task_result.seq > child[-1].seq


def test_older_sub_agent_events_are_linked_by_parent_tool_call_id(
    tmp_path: Path,
) -> None:
    stamp = "2026-11-20T10:00:00.000Z"
    path = write_events(
        tmp_path / ".copilot" / "session-state" / "s2" / "events.jsonl",
        [
            {
                "type": "session.start",
                "data": {"sessionId": "s2", "copilotVersion": "1.0.40"},
                "timestamp": stamp,
            },
            {
                "type": "subagent.started",
                "data": {"toolCallId": "call-9", "agentName": "explore"},
                "timestamp": stamp,
            },
            {
                "type": "assistant.message",
                "data": {
                    "parentToolCallId": "call-9",
                    "content": "found it",
                    "toolRequests": [],
                },
                "timestamp": stamp,
            },
        ],
    )
    (session,) = copilot.parse(path, copilot.locate(Home.at(tmp_path)), Diagnostics())
    got = events(session)
    assert got[1].kind == "subagent" and got[1].extra["child_id"] == "call-9"
    assert (got[2].kind, got[2].agent_id, got[2].text) == (
        "assistant",
        "call-9",
        "found it",
    )


def test_usage_is_one_event_per_usage_record() -> None:
    found = sessions(Home.at(DATA / "home"))
    basic = [e for e in events(found[BASIC]) if e.kind == "usage"]
    assert len(basic) == 4  # two calls before the resume, two after
    assert total(basic) == Usage(4800, 120, 0, 0, 0, "mock-model")
    split = events(found[SUBAGENT])
    assert total([e for e in split if e.agent_id is None]) == Usage(
        2400, 60, 0, 0, 0, "mock-model"
    )
    assert total([e for e in split if e.agent_id == CHILD]) == Usage(
        2400, 60, 0, 0, 0, "mock-model"
    )


def test_without_usage_records_the_shutdown_totals_count_once_each() -> None:
    got = events(sessions(Home.at(DATA / "home"))[OLDER])
    usage = [e for e in got if e.kind == "usage"]
    # first shutdown: gpt-5-mini 12000 input of which 9000 cache reads and 1000 writes;
    # second: gpt-5-mini unchanged (no event), claude-haiku-4.5 new
    assert [e.usage for e in usage] == [
        Usage(2000, 150, 9000, 1000, 0, "gpt-5-mini"),
        Usage(1000, 40, 4000, 0, 0, "claude-haiku-4.5"),
    ]
    assert [e.time.isoformat() for e in usage if e.time] == [
        "2026-11-20T10:00:14+00:00",
        "2026-11-20T10:03:10+00:00",
    ]
    assert total(usage).total == 3000 + 190 + 13000 + 1000


def test_input_tokens_exclude_cache_and_duplicates_count_once(tmp_path: Path) -> None:
    stamp = "2026-11-20T10:00:00.000Z"
    call = {
        "model": "m",
        "inputTokens": 1000,
        "outputTokens": 7,
        "cacheReadTokens": 800,
        "cacheWriteTokens": 100,
        "apiCallId": "c1",
    }
    path = write_events(
        tmp_path / ".copilot" / "session-state" / "s3" / "events.jsonl",
        [
            {"type": "session.start", "data": {"sessionId": "s3"}, "timestamp": stamp},
            {
                "type": "session.usage_record",
                "data": {"usage": call},
                "timestamp": stamp,
            },
            {"type": "assistant.usage", "data": call, "timestamp": stamp},
            {
                "type": "session.shutdown",
                "data": {"modelMetrics": {"m": {"usage": call}}},
                "timestamp": stamp,
            },
        ],
    )
    (session,) = copilot.parse(path, copilot.locate(Home.at(tmp_path)), Diagnostics())
    assert [e.usage for e in events(session) if e.usage] == [
        Usage(100, 7, 800, 100, 0, "m")
    ]


def test_turn_end_only_when_the_model_stops_asking_for_tools() -> None:
    got = events(sessions(Home.at(DATA / "home"))[BASIC])
    kinds = [
        e.kind for e in got if e.kind in ("tool_call", "assistant", "turn_end", "user")
    ]
    assert kinds == [
        "user",
        "tool_call",
        "assistant",
        "turn_end",
        "user",
        "tool_call",
        "assistant",
        "turn_end",
    ]


def test_errors_aborts_and_model_changes_are_shown() -> None:
    got = events(sessions(Home.at(DATA / "home"))[OLDER])
    assert [e.text for e in got if e.kind == "error"] == ["error: Example model error"]
    # the user's abort is an interruption, shown, not a failure
    [aborted] = [e for e in got if e.text == "aborted: user cancelled"]
    following = got[got.index(aborted) + 1]
    assert aborted.kind == "meta" and following.kind == "turn_end"
    assert following.extra == {"reason": "user cancelled", "interrupted": True}
    assert [(e.text, e.extra.get("model")) for e in got if e.kind == "meta"] == [
        ("session started", "gpt-5-mini"),
        ("model: gpt-5-mini", "gpt-5-mini"),
        ("exited", None),  # session.shutdown: the CLI exited, and was resumed
        ("session resumed", "gpt-5-mini"),
        ("aborted: user cancelled", None),
        ("model: claude-haiku-4.5", "claude-haiku-4.5"),
        ("exited", None),
    ]
    thinking = [e.text for e in got if e.kind == "thinking"]
    assert thinking == ["The user wants a listing."]
    call = next(e for e in got if e.kind == "tool_call")
    assert call.extra["input"] == {"command": "ls"}  # a JSON string argument, parsed


def test_reading_from_an_offset_drops_the_cut_line() -> None:
    session = sessions(Home.at(DATA / "home"))[BASIC]
    assert session.path
    data = Path(session.path).read_bytes()
    cut = data.index(b"\n", len(data) // 2) - 10  # inside a line
    diagnostics = Diagnostics()
    got = events(session, diagnostics, offset=cut)
    assert got and diagnostics.skipped_total == 0
    assert got[0].seq == 0


def test_resume_keeps_model_and_effort_and_refuses_allow_all(tmp_path: Path) -> None:
    older = sessions(Home.at(DATA / "home"))[OLDER]
    plan = copilot.resume(older)
    assert plan is not None
    assert plan.argv == (
        "copilot",
        "--resume",
        OLDER,
        "--model",
        "claude-haiku-4.5",
        "--reasoning-effort",
        "high",
    )
    assert (plan.cwd, plan.program, plan.withheld) == (
        "/home/dev/code/ledger",
        "copilot",
        (),
    )
    loose = replace(older, permission_mode="allow-all")
    plan = copilot.resume(loose)
    assert plan is not None and plan.restores_looser and "--allow-all" not in plan.argv
    kept = copilot.resume(loose, keep_permissions=True)
    assert kept is not None and kept.argv[-1] == "--allow-all"
    assert not kept.restores_looser


def test_a_torn_last_line_is_not_counted_when_listing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    path = home / ".copilot" / "session-state" / BASIC / "events.jsonl"
    with path.open("ab") as stream:
        stream.write(b'{"type":"user.message","data":{"content":"half')
    diagnostics = Diagnostics()
    copilot.parse(path, copilot.locate(Home.at(home)), diagnostics)
    assert diagnostics.skipped_total == 0


def test_injected_messages_compaction_usage_and_newer_bookkeeping(
    tmp_path: Path,
) -> None:
    """github/copilot-sdk session-events.ts: `user.message.source` names a skill's hidden
    prompt or a system notice; `session.compaction_complete.compactionTokensUsed` is the
    compaction call's usage; scheduling and canvas events are persisted bookkeeping."""
    import shutil

    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    path = home / ".copilot" / "session-state" / BASIC / "events.jsonl"
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    stamp = lines[-1]["timestamp"]

    def event(kind: str, data: dict[str, object]) -> dict[str, object]:
        return {
            "type": kind,
            "data": data,
            "id": kind,
            "timestamp": stamp,
            "parentId": None,
        }

    added = [
        event("user.message", {"content": "Base directory for this skill: /s", "source": "skill-pdf"}),
        event("user.message", {"content": '<system_notification>Agent "greeter" done.</system_notification>', "source": "system"}),
        event("session.compaction_complete", {"success": True, "summaryContent": "Ran the greeting.", "requestId": "req-c1",
              "compactionTokensUsed": {"inputTokens": 2000, "outputTokens": 100, "cacheReadTokens": 1500, "model": "gpt-5"}}),
        event("session.schedule_created", {"prompt": "check again"}),
        event("session.canvas.recorded", {}),
    ]  # fmt: skip
    path.write_text("".join(json.dumps(line) + "\n" for line in [*lines, *added]))
    before = total(events(sessions(Home.at(DATA / "home"))[BASIC]))
    diagnostics = Diagnostics()
    got = events(sessions(Home.at(home))[BASIC], diagnostics)
    assert not diagnostics.unknown, diagnostics.unknown
    injected = [
        e.extra.get("source")
        for e in got
        if e.kind == "user" and e.extra.get("injected")
    ]
    assert injected == ["skill-pdf", "system"]
    after = total(got)
    assert (
        after.input_tokens - before.input_tokens,
        after.cache_read_tokens - before.cache_read_tokens,
    ) == (500, 1500)


def test_a_folder_or_branch_change_mid_session_is_listed_and_shown(
    tmp_path: Path,
) -> None:
    """`session.context_changed` (copilot-sdk's session-events schema: `cwd`, `gitRoot`,
    `repository`, `branch`) moves the session: the listing takes its newest folder and
    branch, and `show` says so where it happened."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    log = home / ".copilot" / "session-state" / BASIC / "events.jsonl"
    change = {"type": "session.context_changed", "id": "c1", "parentId": None,
              "timestamp": "2026-11-30T08:14:00.000Z",
              "data": {"cwd": "/home/alex/code/shop-api", "gitRoot": "/home/alex/code/shop-api",
                       "repository": "alex/shop-api", "branch": "fix/retry-limit"}}  # fmt: skip
    done = {"type": "external_tool.completed", "id": "x1", "parentId": None,
            "timestamp": "2026-11-30T08:14:01.000Z", "ephemeral": True,
            "data": {"requestId": "r1", "success": True}}  # fmt: skip
    with log.open("a") as file:
        file.write(json.dumps(change) + "\n" + json.dumps(done) + "\n")
    session = sessions(Home.at(home))[BASIC]
    assert session.branch == "fix/retry-limit"
    diagnostics = Diagnostics()
    moved = [e for e in events(session, diagnostics) if e.extra.get("branch")]
    assert moved[-1].text == "cwd: /home/alex/code/shop-api, branch: fix/retry-limit"
    assert not diagnostics.unknown


def test_state_an_older_cli_kept_under_xdg_state_home_is_listed(tmp_path: Path) -> None:
    """Copilot CLI up to 0.0.421 kept its state in `$XDG_STATE_HOME/.copilot` when that
    was set; a user who has not started a newer CLI since still has it there."""
    import shutil

    state = tmp_path / "state"
    shutil.copytree(DATA / "home" / ".copilot", state / ".copilot")
    expected = sessions(Home.at(DATA / "home")).keys()
    assert not sessions(Home.at(tmp_path / "home"))
    assert sessions(Home(tmp_path / "home", {"XDG_STATE_HOME": str(state)})).keys() == (
        expected
    )
    # COPILOT_HOME names the one folder
    other = Home(tmp_path / "home", {"XDG_STATE_HOME": str(state),
                                      "COPILOT_HOME": str(tmp_path / "none")})  # fmt: skip
    assert not sessions(other)


HISTORY = (
    "3f6c2a1e-8b4d-4e7a-9c2f-5d1e0b7a6c48"  # history-session-state/, before 0.0.342
)


def test_a_session_of_a_build_before_0_0_342_is_listed_and_read() -> None:
    session = sessions(Home.at(DATA / "home"))[HISTORY]
    assert session.title == "What does the Makefile's test target run?"
    # no folder recorded: Copilot converts such a session when it is resumed, from any
    # folder, so the plan names none (`resume` prints no `cd`)
    plan = copilot.resume(session)
    assert session.cwd is None and plan is not None and plan.cwd == ""
    diagnostics = Diagnostics()
    got = events(session, diagnostics)
    assert [(e.kind, e.text, e.tool) for e in got] == [
        ("user", "What does the Makefile's test target run?", None),
        ("assistant", "I'll look at the Makefile.", None),
        ("tool_call", None, "str_replace_editor"),
        ("tool_result", "test:\n\tpytest -q tests/", "str_replace_editor"),
        ("assistant", "It runs `pytest -q tests/`.", None),
    ]
    assert got[2].call_id == got[3].call_id == "call_mk1"
    assert got[2].extra["input"] == {
        "command": "view",
        "path": "/home/dev/tools/Makefile",
    }
    assert all(e.time_estimated for e in got)  # the messages carry no time of their own
    assert not diagnostics.unknown and not diagnostics.skipped_total


def test_a_converted_history_session_is_listed_once_from_its_event_log(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    log = home / ".copilot" / "session-state" / HISTORY / "events.jsonl"
    write_events(log, [
        {"type": "session.start", "data": {"sessionId": HISTORY, "startTime": "2025-10-01T10:00:40.123Z",
                                           "context": {"cwd": "/home/dev/tools"}},
         "id": "e1", "timestamp": "2025-10-01T10:00:40.123Z", "parentId": None},
        {"type": "user.message", "data": {"content": "What does the Makefile's test target run?"},
         "id": "e2", "timestamp": "2025-10-01T10:00:41.000Z", "parentId": "e1"},
    ])  # fmt: skip
    session = sessions(Home.at(home))[HISTORY]
    assert session.path == str(log) and session.cwd == "/home/dev/tools"


def test_a_broken_history_document_is_counted_not_raised(tmp_path: Path) -> None:
    folder = tmp_path / ".copilot" / "history-session-state"
    folder.mkdir(parents=True)
    (folder / "session_x_1.json").write_text('{"sessionId": "x", "chatMess')
    (folder / "session_y_1.json").write_text('{"sessionId": "y"}')
    location = copilot.locate(Home.at(tmp_path))
    diagnostics = Diagnostics()
    found = [
        s
        for p in copilot.scan(location)
        for s in copilot.parse(p, location, diagnostics)
    ]
    assert found == [] and diagnostics.skipped_total == 2


def test_a_big_history_document_is_read_in_pieces_with_nothing_lost(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A document past the size parsed at once is read one message at a time: the same
    session and events as a whole read, none passed over."""
    from sessdex.sources import _copilot_history

    whole = sessions(Home.at(DATA / "home"))[HISTORY]
    whole_events = events(whole, Diagnostics())
    monkeypatch.setattr(_copilot_history, "_WHOLE", 100)
    pieces = sessions(Home.at(DATA / "home"))[HISTORY]
    assert pieces == whole
    diagnostics = Diagnostics()
    assert events(pieces, diagnostics) == whole_events
    assert not diagnostics.skipped_total and not diagnostics.problems


def test_a_pasted_text_in_a_small_history_document_is_its_note(tmp_path: Path) -> None:
    """A history document whose one message is longer than a line sessdex parses
    whole is read in pieces, the message its note (parsed whole, 50 MB was shown whole)."""
    from sessdex import files

    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    [path] = (home / ".copilot" / "history-session-state").glob(f"*{HISTORY}*.json")
    document = json.loads(path.read_text())
    big = "A" * (files.READ_LINE_CAP + 1000)
    document["chatMessages"].append({"role": "assistant", "content": big})
    path.write_text(json.dumps(document))
    found = events(sessions(Home.at(home))[HISTORY], Diagnostics())
    said = [e.text for e in found if e.kind == "assistant"]
    assert said[-1] == f"[text, {files.human_bytes(len(big))}]"
    assert all(len(e.text or "") < 10_000 for e in found)


FORKS = DATA / "forks" / "home"  # a real `/fork` of copilot 1.0.102 (PROVENANCE.md)
FORK_ORIGIN = "73e1708c-4b03-42d3-8fab-cf6207709959"
FORK = "02ac738d-fb22-4110-a760-c94707259c53"


def test_a_fork_names_its_origin_and_bills_only_its_own_calls() -> None:
    found = sessions(Home.at(FORKS))
    fork, origin = found[FORK], found[FORK_ORIGIN]
    assert fork.extra.get("forked_from_id") == FORK_ORIGIN
    assert "forked_from_id" not in origin.extra  # it names the fork, but is none
    got = events(fork)
    # the copied turn is shown, as the fork's model saw it, after a note naming its origin ...
    notes = [e for e in got if e.extra.get("forked_from")]
    assert [e.extra["forked_from"] for e in notes] == [FORK_ORIGIN]
    prompts = [e.text for e in got if e.kind == "user"]
    assert notes[0].seq < next(e.seq for e in got if e.kind == "user")
    assert prompts[0] is not None and prompts[0].startswith("SCENARIO=basic")
    # ... but its two calls were paid in the origin: only the fork's own two count
    assert total(got) == total(events(origin))
    assert total(got).input_tokens == 2000


def test_a_fork_of_a_fork_names_the_fork_it_was_copied_from(tmp_path: Path) -> None:
    """Its copy holds the first fork's own notice (naming the origin): not its origin."""
    home = tmp_path / "home"
    shutil.copytree(FORKS, home)
    state = home / ".copilot" / "session-state"
    first = [
        json.loads(line)
        for line in (state / FORK / "events.jsonl").read_text().splitlines()
    ]
    second = "5e1f0c2a-0000-4000-8000-000000000002"
    start = {
        **first[0],
        "timestamp": "2026-12-05T05:00:00.000Z",
        "data": {**first[0]["data"], "sessionId": second},
    }
    start["data"]["startTime"] = start["timestamp"]
    notice = {
        "type": "session.info",
        "id": "0e5a1a4e-0000-4000-8000-000000000003",
        "timestamp": "2026-12-05T05:00:00.001Z",
        "parentId": first[-1]["id"],
        "data": {
            "infoType": "fork",
            "message": f'Forked from "a" ({FORK}) as "a (fork)" ({second}).',
        },
    }
    (state / second).mkdir()
    (state / second / "events.jsonl").write_text(  # compact, as Copilot writes it
        "".join(
            json.dumps(r, separators=(",", ":")) + "\n"
            for r in [start, *first[1:], notice]
        )
    )
    found = sessions(Home.at(home))
    assert found[second].extra.get("forked_from_id") == FORK
    assert found[FORK].extra.get("forked_from_id") == FORK_ORIGIN
    assert total(events(found[second])) == Usage()  # it made no call of its own


def test_what_a_prompt_attached_is_named_and_an_image_never_dumped(
    tmp_path: Path,
) -> None:
    """A prompt's `attachments` (copilot-sdk's session-events schema: a file, a folder, a
    selection, a GitHub item, a pasted image as a base64 `blob`) are what the user sent
    with the words: `show` names each on a line of its own, an image by its type and
    size, never its data."""
    from click.testing import CliRunner

    from sessdex.cli import main

    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    path = next(home.rglob(f"{BASIC}/events.jsonl"))
    records = [json.loads(line) for line in path.read_text().splitlines()]
    first = next(r for r in records if r["type"] == "user.message")
    first["data"]["attachments"] = [
        {"type": "file", "path": "/home/alex/code/shop-api/checkout.py",
         "displayName": "checkout.py"},
        {"type": "directory", "path": "/home/alex/code/shop-api/tests",
         "displayName": "tests"},
        {"type": "selection", "filePath": "/home/alex/code/shop-api/api.py",
         "displayName": "api.py", "text": "def pay():",
         "selection": {"start": {"line": 11, "character": 0},
                       "end": {"line": 14, "character": 0}}},
        {"type": "github_reference", "number": 42, "title": "Retry checkout",
         "referenceType": "issue", "state": "open",
         "url": "https://github.com/alex/shop-api/issues/42"},
        {"type": "blob", "mimeType": "image/png", "displayName": "screenshot.png",
         "data": "iVBORw0KGgo" + "A" * 4085},
        {"type": "blob", "mimeType": "image/jpeg", "assetId": "sha256:ab12",
         "byteLength": 20480},
    ]  # fmt: skip
    write_events(path, records)
    shown = CliRunner().invoke(main, ["show", BASIC, "--json", "--home", str(home)])
    assert shown.exit_code == 0, shown.output
    [prompt, *_] = [e for e in json.loads(shown.stdout) if e["kind"] == "user"]
    assert prompt["text"].splitlines() == [
        "SCENARIO=basic Please run the greeting shell command and tell me what it printed.",
        "[file /home/alex/code/shop-api/checkout.py]",
        "[folder /home/alex/code/shop-api/tests]",
        "[selection /home/alex/code/shop-api/api.py:12-15]",
        "[issue #42 Retry checkout]",
        "[image/png screenshot.png, 3.0 KB]",
        "[image/jpeg, 20.0 KB]",
    ]


def test_a_tool_result_shows_what_copilots_timeline_shows(tmp_path: Path) -> None:
    """A result keeps what the model was given (`content`, maybe cut short for tokens)
    and what Copilot's own timeline shows (`detailedContent`: an edit's diff, an output
    whole; copilot-sdk's session-events schema, which falls back to `content`): `show`
    gives the timeline's; before, the model's ('File … updated with changes.')."""
    from click.testing import CliRunner

    from sessdex.cli import main

    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    path = next(home.rglob(f"{BASIC}/events.jsonl"))
    records = [json.loads(line) for line in path.read_text().splitlines()]
    first, second = [r for r in records if r["type"] == "tool.execution_complete"][:2]
    diff = (
        "diff --git a/app.py b/app.py\n--- a/app.py\n+++ b/app.py\n"
        "@@ -1 +1 @@\n-retries = 1\n+retries = 3\n"
    )
    first["data"]["result"] = {
        "content": "File /home/alex/code/shop-api/app.py updated with changes.",
        "detailedContent": diff,
    }
    second["data"]["result"] = {"content": "kept", "detailedContent": ""}
    write_events(path, records)
    shown = CliRunner().invoke(main, ["show", BASIC, "--json", "--home", str(home)])
    assert shown.exit_code == 0, shown.output
    results = [
        e["text"] for e in json.loads(shown.stdout) if e["kind"] == "tool_result"
    ]
    assert results[:2] == [diff, "kept"]  # an empty detailedContent: the model's


def test_a_tool_result_keeps_what_the_model_was_given_where_the_timeline_differs(
    tmp_path: Path,
) -> None:
    """`--json` and `export -f json` keep the model's text (`content`) beside the
    timeline's (`extra.model_text`) where the two differ, and only there: an equal one
    is not written twice; before, the model's text was lost."""
    from click.testing import CliRunner

    from sessdex.cli import main

    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    path = next(home.rglob(f"{BASIC}/events.jsonl"))
    records = [json.loads(line) for line in path.read_text().splitlines()]
    first, second = [r for r in records if r["type"] == "tool.execution_complete"][:2]
    said = "File /home/alex/code/shop-api/app.py updated with changes."
    first["data"]["result"] = {"content": said, "detailedContent": "-a\n+b\n"}
    second["data"]["result"] = {"content": "same", "detailedContent": "same"}
    write_events(path, records)
    for command in (["show", BASIC, "--json"], ["export", BASIC, "-f", "json"]):
        shown = CliRunner().invoke(main, [*command, "--home", str(home)])
        assert shown.exit_code == 0, shown.output
        document = json.loads(shown.stdout)
        got = document if isinstance(document, list) else document["events"]
        results = [e for e in got if e["kind"] == "tool_result"][:2]
        assert [e["text"] for e in results] == ["-a\n+b\n", "same"]
        assert results[0]["extra"]["model_text"] == said
        assert "model_text" not in results[1].get("extra", {})


def _moded(tmp_path: Path, *modes: str) -> Session:
    """A session whose agent mode changed to each of `modes` in turn (as Copilot CLI
    writes `session.mode_changed`: `previousMode`, `newMode`)."""
    stamp = "2026-11-20T10:00:00.000Z"
    previous = "interactive"
    records: list[dict[str, object]] = [
        {
            "type": "session.start",
            "data": {
                "sessionId": "s3",
                "copilotVersion": "1.0.102",
                "context": {"cwd": "/home/dev/code/ledger"},
            },
            "timestamp": stamp,
        }
    ]
    for mode in modes:
        records.append(
            {
                "type": "session.mode_changed",
                "data": {"previousMode": previous, "newMode": mode},
                "timestamp": stamp,
            }
        )
        previous = mode
    path = write_events(
        tmp_path / ".copilot" / "session-state" / "s3" / "events.jsonl", records
    )
    (session,) = copilot.parse(path, copilot.locate(Home.at(tmp_path)), Diagnostics())
    return session


def test_resume_keeps_plan_mode_and_withholds_autopilot(tmp_path: Path) -> None:
    """Copilot CLI reopens a session in the agent mode it was left in, unless `--mode`
    says otherwise: one left in autopilot (the agent goes on without waiting for you)
    came back in it, looser than the interactive default, without being asked."""
    autopilot = _moded(tmp_path, "plan", "autopilot")
    plan = copilot.resume(autopilot)
    assert plan is not None
    assert plan.argv[-2:] == ("--mode", "interactive")
    assert plan.withheld == ("--mode autopilot",)
    kept = copilot.resume(autopilot, keep_permissions=True)
    assert kept is not None
    assert kept.argv[-2:] == ("--mode", "autopilot") and kept.withheld == ()
    planned = copilot.resume(_moded(tmp_path, "autopilot", "plan"))
    assert planned is not None and planned.argv[-2:] == ("--mode", "plan")
    assert planned.withheld == ()
    plain = copilot.resume(_moded(tmp_path, "plan", "interactive"))
    assert plain is not None and "--mode" not in plain.argv


def test_resume_names_the_mode_of_a_long_session_whose_middle_went_unread(
    tmp_path: Path,
) -> None:
    """Listing reads a session's first lines and last 512 KB: a switch to autopilot
    between them was missed, no `--mode` was passed, and Copilot restored autopilot."""
    stamp = "2026-11-20T10:00:00.000Z"
    start = {
        "type": "session.start",
        "data": {
            "sessionId": "s4",
            "copilotVersion": "1.0.102",
            "context": {"cwd": "/home/dev/code/ledger"},
        },
        "timestamp": stamp,
    }
    said = {
        "type": "assistant.message",
        "data": {"messageId": "m", "content": "x" * 8000},
        "timestamp": stamp,
    }
    switch = {
        "type": "session.mode_changed",
        "data": {"previousMode": "interactive", "newMode": "autopilot"},
        "timestamp": stamp,
    }
    folder = tmp_path / ".copilot" / "session-state" / "s4"
    records = [start, *[said] * 150, switch, *[said] * 150]
    path = write_events(folder / "events.jsonl", records)
    location = copilot.locate(Home.at(tmp_path))
    (session,) = copilot.parse(path, location, Diagnostics())
    plan = copilot.resume(session)
    assert plan is not None and plan.argv[-2:] == ("--mode", "interactive")
    kept = copilot.resume(session, keep_permissions=True)
    assert kept is not None and "--mode" not in kept.argv  # Copilot restores its own
    # where the tail holds the last change, it is the mode: nothing more is said
    path = write_events(folder / "events.jsonl", [*records, switch, *[said] * 2])
    (session,) = copilot.parse(path, location, Diagnostics())
    plan = copilot.resume(session)
    assert plan is not None and plan.withheld == ("--mode autopilot",)
    assert not plan.notes
    small = write_events(folder / "events.jsonl", [start, said])
    (session,) = copilot.parse(small, location, Diagnostics())
    plan = copilot.resume(session)
    assert plan is not None and "--mode" not in plan.argv  # read whole: none was set


def test_resume_of_an_auto_model_session_passes_no_reasoning_effort() -> None:
    """Copilot's Auto picks the model itself and answers a reasoning effort with an error
    (400, `reasoning_effort "low" was provided`): the resumed session failed its turn."""
    auto = Session(
        app="copilot", id=OLDER, cwd="/home/dev/code/ledger", model="auto", effort="low"
    )
    plan = copilot.resume(auto)
    assert plan is not None
    assert plan.argv == ("copilot", "--resume", OLDER, "--model", "auto")
    assert any("'low'" in note for note in plan.notes)


def test_resume_keeps_the_effort_a_session_started_or_was_resumed_with(
    tmp_path: Path,
) -> None:
    """Copilot's event schema (its SDK's session events) gives `session.start` and
    `session.resume` a `reasoningEffort` beside `selectedModel`; only a model change's was
    read, so a session started with `--reasoning-effort high` was resumed without it."""
    stamp = "2026-12-06T22:12:19.205Z"
    start = {
        "type": "session.start",
        "data": {
            "sessionId": "e1",
            "copilotVersion": "1.0.102",
            "selectedModel": "gpt-5.2",
            "reasoningEffort": "high",
            "context": {"cwd": "/home/dev/shop"},
        },
        "timestamp": stamp,
    }
    prompt = {"type": "user.message", "data": {"content": "hi"}, "timestamp": stamp}
    folder = tmp_path / ".copilot" / "session-state" / "e1"
    write_events(folder / "events.jsonl", [start, prompt])
    (session,) = sessions(Home.at(tmp_path)).values()
    plan = copilot.resume(session)
    assert plan is not None
    assert plan.argv[-4:] == ("--model", "gpt-5.2", "--reasoning-effort", "high")
    # resumed later with another effort: that one is the session's now
    resumed = {
        "type": "session.resume",
        "data": {"selectedModel": "gpt-5.2", "reasoningEffort": "low", "eventCount": 2},
        "timestamp": stamp,
    }
    write_events(folder / "events.jsonl", [start, prompt, resumed])
    (session,) = sessions(Home.at(tmp_path)).values()
    plan = copilot.resume(session)
    assert plan is not None and plan.argv[-2:] == ("--reasoning-effort", "low")
    # a resume that names no effort leaves the one before
    resumed["data"] = {"selectedModel": "gpt-5.2", "eventCount": 2}
    write_events(folder / "events.jsonl", [start, prompt, resumed])
    (session,) = sessions(Home.at(tmp_path)).values()
    plan = copilot.resume(session)
    assert plan is not None and plan.argv[-2:] == ("--reasoning-effort", "high")
