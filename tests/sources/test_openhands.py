"""OpenHands CLI: a folder per conversation, base_state.json and one file per event."""

from __future__ import annotations

import json
import os
import shutil
from datetime import datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import files
from sessdex.cli import main
from sessdex.diagnostics import Diagnostics
from sessdex.index import Index
from sessdex.model import Event, Session, Usage
from sessdex.sources import Home, openhands
from tests.helpers import LIST_PATHS, list_rows, opened_files

DATA = Path(__file__).parent.parent / "data" / "openhands"
CONVERSATIONS = Path(".openhands") / "conversations"
FINISHED = "5f0c3e2a9b8d4c7ea1f2b3c4d5e6f708"
PAUSED = "0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f50"


def sessions(home: Path, diagnostics: Diagnostics | None = None) -> dict[str, Session]:
    location = openhands.locate(Home.at(home))
    found: dict[str, Session] = {}
    for path in openhands.scan(location):
        for session in openhands.parse(
            Path(path), location, diagnostics or Diagnostics()
        ):
            found[session.id] = session
    return found


def events(session: Session, diagnostics: Diagnostics | None = None) -> list[Event]:
    return list(openhands.read(session, diagnostics or Diagnostics()))


def copy_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    return home


def test_listing_shows_first_prompt_folder_model_status_and_times() -> None:
    found = sessions(DATA / "home")
    assert sorted(found) == sorted([FINISHED, PAUSED])
    done = found[FINISHED]
    assert done.title == "Add a /health endpoint to the API"  # its first user message
    assert done.cwd == "/home/alex/code/shop-api"
    assert done.model == "anthropic/claude-sonnet-4-5-20250929"
    assert done.extra["status"] == "finished"
    # local times as the SDK wrote them (the first event, a system prompt; the last)
    assert done.created == datetime.fromisoformat("2026-10-02T08:52:01").astimezone()
    assert done.updated == datetime.fromisoformat("2026-10-02T08:52:12").astimezone()
    paused = found[PAUSED]  # the SDK's first file names: event-00000.json
    assert paused.title == "Why does the build fail?"
    assert paused.extra["status"] == "paused"
    assert paused.updated == datetime.fromisoformat("2026-10-02T08:52:35").astimezone()


def test_a_turn_reads_in_order_with_each_call_paired_and_the_edit_kept() -> None:
    found = events(sessions(DATA / "home")[FINISHED])
    kinds = [e.kind for e in found]
    assert kinds == [
        "user",
        "thinking",  # reasoning_content; the same thinking block is not repeated
        "assistant",  # the action's thought
        "tool_call",
        "usage",  # the response's tokens, from base_state.json's token_usages
        "tool_result",
        "tool_call",
        "usage",
        "tool_result",
        "meta",  # the model changed
        "tool_call",
        "usage",
        "tool_result",
        "turn_end",  # the finish tool's observation
        "usage",  # the recorded cost, on what the total holds beyond the list (none)
    ]
    calls = {e.call_id: e for e in found if e.kind == "tool_call"}
    results = {e.call_id: e for e in found if e.kind == "tool_result"}
    assert sorted(calls) == sorted(results) == ["toolu_01", "toolu_02", "toolu_03"]
    edit = calls["toolu_02"]
    assert edit.tool == "file_editor"
    assert isinstance(edit.extra["input"], dict)
    assert edit.extra["input"]["old_str"] == "app = Flask(__name__)\n"
    assert "kind" not in edit.extra["input"]  # the SDK's class tag is no argument
    assert results["toolu_01"].text == "app.py\nrequirements.txt"
    meta = next(e for e in found if e.kind == "meta")
    assert meta.extra["model"] == "anthropic/claude-opus-4-1"
    assert [e.seq for e in found] == list(range(len(found)))


def test_the_file_editors_pair_shows_as_a_diff() -> None:
    from sessdex.views import diffs

    edit = next(
        e
        for e in events(sessions(DATA / "home")[FINISHED])
        if e.kind == "tool_call" and e.tool == "file_editor"
    )
    lines = diffs.input_diff(edit.extra["input"])
    assert "+@app.get('/health')" in lines
    assert diffs.change_counts(edit.extra["input"]) == (4, 0)


def test_usage_is_the_accumulated_total_marked_estimated_never_invented(
    tmp_path: Path,
) -> None:
    """Where base_state.json keeps no per-response list, its LLM's total is one summed
    event dated at the last event, its time a guess."""
    home = copy_home(tmp_path)
    path = home / CONVERSATIONS / FINISHED / "base_state.json"
    state = json.loads(path.read_text())
    del state["stats"]["usage_to_metrics"]["agent"]["token_usages"]
    path.write_text(json.dumps(state))
    found = events(sessions(home)[FINISHED])
    usage = [e for e in found if e.kind == "usage"]
    assert len(usage) == 1  # the condenser's LLM used nothing: no event for it
    event = usage[0]
    # litellm's prompt_tokens hold the cache reads and writes: taken out of input
    assert event.usage == Usage(
        2000, 800, 9000, 1000, 100, "anthropic/claude-sonnet-4-5-20250929"
    )
    assert event.extra["summed"] is True and event.extra["cost_usd"] == 0.0123
    assert event.time_estimated and event.time == found[-2].time
    # a conversation whose base_state holds no metrics has no usage event
    assert not [e for e in events(sessions(DATA / "home")[PAUSED]) if e.kind == "usage"]


def test_the_fixtures_responses_sum_to_the_total() -> None:
    found = events(sessions(DATA / "home")[FINISHED])
    usage = [e for e in found if e.kind == "usage"]
    assert [e.time_estimated for e in usage] == [False, False, False, True]
    total = sum((e.usage for e in usage if e.usage), Usage())
    assert (total.input_tokens, total.output_tokens, total.cache_read_tokens,
            total.cache_write_tokens, total.reasoning_tokens) == (2000, 800, 9000, 1000, 100)  # fmt: skip
    assert usage[-1].extra == {"summed": True, "usage_id": "agent", "cost_usd": 0.0123}


def test_errors_rejections_compaction_and_pause() -> None:
    found = events(sessions(DATA / "home")[PAUSED])
    assert [e.kind for e in found] == [
        "user",
        "thinking",
        "assistant",
        "turn_end",  # a reply without a tool call ends the turn
        "compaction",
        "user",
        "tool_result",  # AgentErrorEvent
        "tool_result",  # UserRejectObservation
        "meta",  # PauseEvent
    ]
    assert found[4].text == "The user asked why the build fails."
    assert found[6].is_error and found[6].text == "Tool 'terminal' timed out"
    assert found[7].is_error and found[7].extra["rejected"] is True
    assert found[8].extra["interrupted"] is True


def test_unknown_event_kinds_are_counted_for_doctor(tmp_path: Path) -> None:
    home = copy_home(tmp_path)
    folder = home / CONVERSATIONS / PAUSED / "events"
    (folder / "event-00007.json").write_text(
        json.dumps({"kind": "FutureEvent", "timestamp": "2026-10-02T08:53:00"})
    )
    diagnostics = Diagnostics()
    found = events(sessions(home)[PAUSED], diagnostics)
    assert diagnostics.unknown == {"FutureEvent": 1}
    assert found[-1].kind == "meta"  # nothing made of it


def test_events_follow_the_index_not_the_name(tmp_path: Path) -> None:
    """event-100000 (past five digits, as the SDK writes past 99,999) comes last."""
    home = copy_home(tmp_path)
    folder = home / CONVERSATIONS / PAUSED / "events"
    record = {
        "kind": "MessageEvent",
        "source": "user",
        "timestamp": "2026-10-02T09:00:00",
        "llm_message": {"role": "user", "content": [{"type": "text", "text": "last"}]},
    }
    (folder / "event-100000.json").write_text(json.dumps(record))
    found = events(sessions(home)[PAUSED])
    assert found[-1].kind == "user" and found[-1].text == "last"


def test_a_listing_opens_a_bounded_number_of_event_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / CONVERSATIONS / FINISHED
    (folder / "events").mkdir(parents=True)
    shutil.copy(DATA / "home" / CONVERSATIONS / FINISHED / "base_state.json", folder)
    for index in range(5000):
        record = {
            "kind": "MessageEvent",
            "source": "user" if index == 3 else "agent",
            "timestamp": f"2026-10-02T{8 + index // 3600:02d}:{index // 60 % 60:02d}:{index % 60:02d}",
            "llm_message": {"content": [{"type": "text", "text": f"message {index}"}]},
        }
        name = f"event-{index:05d}-{index:08x}-0000-4000-8000-000000000000.json"
        (folder / "events" / name).write_text(json.dumps(record))
    opened: list[str] = []
    real = files.read_small

    def counted(path: str | os.PathLike[str], limit: int) -> bytes | None:
        opened.append(os.fspath(path))
        return real(path, limit)

    # nor stats each event file (for a size: 0.17 s a listing at 50,000 files)
    statted: list[str] = []
    real_stat = os.stat

    def stat(path: str | os.PathLike[str], *args: object, **kwargs: object) -> object:
        if os.path.join(os.fspath(folder), "events") in os.fspath(path):
            statted.append(os.fspath(path))
        return real_stat(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(files, "read_small", counted)
    monkeypatch.setattr(os, "stat", stat)
    session = sessions(tmp_path)[FINISHED]
    monkeypatch.undo()
    assert session.title == "message 3"
    assert session.updated == datetime.fromisoformat("2026-10-02T09:23:19").astimezone()
    assert len(opened) <= 1 + openhands._HEAD_FILES + openhands._TAIL_FILES
    assert len(statted) <= openhands._HEAD_FILES + openhands._TAIL_FILES, len(statted)
    # the size is base_state.json's, the file the listing names
    assert session.bytes == (folder / "base_state.json").stat().st_size


def test_resume_is_exact_quoted_and_never_approves_on_its_own(tmp_path: Path) -> None:
    session = sessions(DATA / "home")[FINISHED]
    plan = openhands.resume(session)
    assert plan is not None
    assert plan.argv == ("openhands", "--resume", FINISHED)
    assert plan.cwd == "/home/alex/code/shop-api"
    plan = openhands.resume(session, keep_permissions=True)
    assert plan is not None
    assert not {"--always-approve", "--yolo", "--llm-approve"} & set(plan.argv)
    result = CliRunner().invoke(
        main, ["resume", FINISHED, "--print", "--home", str(DATA / "home")]
    )
    assert result.exit_code == 1, result.output  # printed; its folder is not here
    assert f"openhands --resume {FINISHED}" in result.stdout
    odd = Session(app="openhands", id=FINISHED, cwd="/tmp/it's here; rm -rf x")
    odd_plan = openhands.resume(odd)
    assert odd_plan is not None and odd_plan.cwd == "/tmp/it's here; rm -rf x"
    # an id the CLI cannot take (not a UUID: `uuid.UUID(id)` fails) is not offered
    assert openhands.resume(Session(app="openhands", id="a b'c", cwd="/x")) is None


def test_the_settings_and_keys_beside_the_conversations_are_never_opened(
    tmp_path: Path,
) -> None:
    """`agent_settings.json` holds the LLM's API key, `cloud/api_key.txt` the cloud's:
    listing, showing, resuming and counting usage never opens them, nor a link named
    like a conversation's files that leads to one."""
    home = copy_home(tmp_path)
    root = home / ".openhands"
    secrets = [
        os.path.realpath(root / name)
        for name in ("agent_settings.json", "mcp.json", "cloud/api_key.txt")
    ]
    linked = home / CONVERSATIONS / ("1" * 32)
    (linked / "events").mkdir(parents=True)
    (linked / "base_state.json").symlink_to(root / "agent_settings.json")
    (linked / "events" / "event-00000-00000000-0000.json").symlink_to(
        root / "cloud" / "api_key.txt"
    )
    (home / CONVERSATIONS / PAUSED / "events" / "event-00009.json").symlink_to(
        root / "agent_settings.json"
    )
    with opened_files() as opened:
        runner = CliRunner()
        for args in (
            ("list", "--all", "--json"),
            ("doctor", "--json"),
            ("usage", "--json"),
        ):
            result = runner.invoke(
                main, [*args, "--app", "openhands", "--home", str(home)]
            )
            assert result.exit_code == 0, result.output
        for session_id in (FINISHED, PAUSED):
            runner.invoke(main, ["show", session_id, "--json", "--home", str(home)])
            runner.invoke(main, ["resume", session_id, "--print", "--home", str(home)])
    assert any(FINISHED in path for path in opened), (
        "the audit hook saw the run's reads"
    )
    assert not set(opened) & set(secrets), set(opened) & set(secrets)


def test_the_environment_moves_the_conversations(tmp_path: Path) -> None:
    home = Home(tmp_path, {"OPENHANDS_PERSISTENCE_DIR": str(tmp_path / "oh")})
    location = openhands.locate(home)
    assert location.root == tmp_path / "oh" / "conversations"
    assert location.override == f"OPENHANDS_PERSISTENCE_DIR={tmp_path / 'oh'}"
    both = Home(
        tmp_path,
        {
            "OPENHANDS_PERSISTENCE_DIR": str(tmp_path / "oh"),
            "OPENHANDS_CONVERSATIONS_DIR": str(tmp_path / "elsewhere"),
        },
    )
    assert openhands.locate(both).root == tmp_path / "elsewhere"
    assert openhands.locate(Home.at(tmp_path)).root == tmp_path / CONVERSATIONS


def test_damaged_files_are_counted_never_raised() -> None:
    diagnostics = Diagnostics()
    found = sessions(DATA / "malformed" / "home", diagnostics)
    for session in found.values():
        list(openhands.read(session, diagnostics))
    assert diagnostics.skipped_total > 0


def test_a_huge_observation_is_elided_not_held(tmp_path: Path) -> None:
    home = copy_home(tmp_path)
    events_dir = home / CONVERSATIONS / PAUSED / "events"
    record = {
        "kind": "ObservationEvent",
        "timestamp": "2026-10-02T08:53:00",
        "source": "environment",
        "tool_name": "terminal",
        "tool_call_id": "call_big",
        "observation": {
            "kind": "TerminalObservation",
            "content": [{"type": "text", "text": "x" * (6 * 1024 * 1024)}],
            "is_error": False,
        },
    }
    (events_dir / "event-00007.json").write_text(json.dumps(record))
    found = events(sessions(home)[PAUSED])
    result = next(e for e in found if e.call_id == "call_big")
    assert result.text is not None and len(result.text) < 100
    assert "MB" in result.text


def test_an_event_file_deleted_mid_read_is_passed_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = copy_home(tmp_path)
    session = sessions(home)[PAUSED]
    listed = openhands.event_files
    folder = home / CONVERSATIONS / PAUSED

    def then_gone(where: Path, diagnostics: Diagnostics | None = None) -> list[str]:
        names = listed(where, diagnostics)
        os.remove(names[1])  # the agent's answer, gone between listing and reading
        return names

    monkeypatch.setattr(openhands, "event_files", then_gone)
    found = events(session)
    assert [e.kind for e in found][:2] == ["user", "compaction"]
    assert (folder / "base_state.json").exists()


def test_odd_values_in_events_are_read_as_far_as_they_go(tmp_path: Path) -> None:
    home = copy_home(tmp_path)
    events_dir = home / CONVERSATIONS / PAUSED / "events"
    odd = [
        # content as a plain string, a time as a number, no source
        {"kind": "MessageEvent", "source": "user", "timestamp": 1790931121,
         "llm_message": {"role": "user", "content": "plain words"}},
        {"kind": "ActionEvent", "source": "agent", "thought": "not a list",
         "action": ["not", "a", "dict"], "tool_name": 7, "tool_call_id": 8,
         "tool_call": {"id": "call_odd", "name": "terminal", "arguments": "{\"command\": \"ls\"}"}},
        {"kind": "ObservationEvent", "tool_call_id": "call_odd",
         "observation": {"content": [None, 5, {"type": "text", "text": "ok"}], "is_error": "yes"}},
        {"kind": "MessageEvent", "source": "agent", "llm_message": None},
        {"kind": "Condensation", "forgotten_event_ids": "abc", "summary": 12},
        {"kind": None},
    ]  # fmt: skip
    for index, record in enumerate(odd, start=7):
        (events_dir / f"event-{index:05d}.json").write_text(json.dumps(record))
    diagnostics = Diagnostics()
    found = events(sessions(home)[PAUSED], diagnostics)[9:]
    assert found[0].kind == "user" and found[0].text == "plain words"
    assert found[1].kind == "assistant" and found[1].text == "not a list"
    call = found[2]
    assert call.kind == "tool_call" and call.call_id == "call_odd"
    assert call.tool == "terminal" and call.extra["input"] == {"command": "ls"}
    assert found[3].kind == "tool_result" and found[3].text == "ok"
    assert not found[3].is_error  # only true is an error
    assert [e.kind for e in found[4:]] == ["turn_end", "compaction"]
    assert found[5].text is None and "forgotten" not in found[5].extra
    assert diagnostics.unknown == {"?": 1}


def test_resume_refuses_an_id_the_cli_would_read_as_an_option() -> None:
    odd = Session(app="openhands", id="-h", cwd="/home/alex/code/mono")
    assert openhands.resume(odd) is None
    # what `uuid.UUID(id)` takes, the CLI takes: the folder's hex digits, or dashed
    dashed = "7d1c2a4e-5b6f-4a3d-9e8c-1f2a3b4c5d6e"
    for id_ in (dashed.replace("-", ""), dashed):
        plan = openhands.resume(Session(app="openhands", id=id_, cwd="/w"))
        assert plan is not None and plan.argv == ("openhands", "--resume", id_)


def test_process_session_reads_back_what_resume_writes() -> None:
    opened = openhands.process_session
    assert opened(["openhands", "--resume", FINISHED]) == openhands.Opened(FINISHED)
    dashed = f"{FINISHED[:8]}-{FINISHED[8:12]}-{FINISHED[12:16]}-{FINISHED[16:20]}-{FINISHED[20:]}"
    assert opened(["openhands", f"--resume={dashed}"]) == openhands.Opened(FINISHED)
    assert opened(["openhands", "--resume", "--last"]) == openhands.Opened(latest=True)
    assert opened(["openhands", "--resume"]) == openhands.Opened(chosen=True)
    assert opened(["openhands", "-t", "fix it"]) is None


def test_a_state_caught_half_written_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The SDK rewrites base_state.json in place at every event: a listing that meets it
    truncated (the CLI mid-write) reads it once more rather than losing the session."""
    home = copy_home(tmp_path)
    state = home / CONVERSATIONS / FINISHED / "base_state.json"
    real = files.read_small
    caught = [True]

    def mid_write(path: str | os.PathLike[str], limit: int) -> bytes | None:
        data = real(path, limit)
        if caught[0] and os.fspath(path) == str(state) and data:
            caught[0] = False
            return data[: len(data) // 2]
        return data

    monkeypatch.setattr(files, "read_small", mid_write)
    diagnostics = Diagnostics()
    found = sessions(home, diagnostics)
    assert not caught[0]
    assert found[FINISHED].model == "anthropic/claude-sonnet-4-5-20250929"
    assert diagnostics.skipped_total == 0


def test_live_sees_a_new_event_file_while_base_state_is_unchanged(
    tmp_path: Path,
) -> None:
    """An SDK before July 2026 rewrote base_state.json only when a field changed (the
    status: at a run's start and end), never for an event: the live view saw a running
    conversation's events only once its run ended. A file added to `events/` counts."""
    from sessdex import live_feeds
    from sessdex.status import Tracker

    home = copy_home(tmp_path)
    session = sessions(home)[PAUSED]
    feed = live_feeds.ReadFeed(session, openhands, Diagnostics(), Tracker())  # type: ignore[arg-type]
    seen = live_feeds.Seen()
    assert feed.poll(100.0, seen)  # its history
    assert feed.poll(103.0, seen) == []  # nothing new
    record = {
        "kind": "MessageEvent",
        "source": "user",
        "timestamp": "2026-10-02T09:00:00",
        "llm_message": {"role": "user", "content": [{"type": "text", "text": "more"}]},
    }
    folder = home / CONVERSATIONS / PAUSED / "events"
    (folder / "event-00007.json").write_text(json.dumps(record))
    os.utime(folder, ns=(10**18, 10**18))  # a later mtime, whatever the clock's grain
    new = feed.poll(106.0, seen) + feed.poll(109.0, seen)
    assert [e.text for e in new if e.kind == "user"] == ["more"]


def _token_usage(
    response_id: str, prompt: int, output: int, read: int, write: int
) -> dict[str, object]:
    return {
        "model": "anthropic/claude-sonnet-4-5-20250929", "prompt_tokens": prompt,
        "completion_tokens": output, "cache_read_tokens": read, "cache_write_tokens": write,
        "reasoning_tokens": 0, "context_window": 200000, "per_turn_token": prompt + output,
        "response_id": response_id,
    }  # fmt: skip


def test_usage_is_given_per_response_at_the_event_that_names_it(tmp_path: Path) -> None:
    """base_state.json keeps every response's usage (`token_usages`, keyed by the
    `response_id` the ActionEvent/MessageEvent/Condensation carries as `llm_response_id`):
    one dated usage event per response; one no event names (a title's call) in its place
    in the list, its time a guess; what the total holds beyond the list once, summed at
    the end. The total is the accumulated one, nothing counted twice."""
    home = copy_home(tmp_path)
    path = home / CONVERSATIONS / FINISHED / "base_state.json"
    state = json.loads(path.read_text())
    agent = state["stats"]["usage_to_metrics"]["agent"]
    agent["token_usages"] = [
        _token_usage("resp-2", 5000, 300, 4000, 500),
        _token_usage("resp-4", 4000, 250, 3000, 500),
        _token_usage("resp-elsewhere", 1000, 50, 0, 0),
        # one response id listed twice: both, at its event
        _token_usage("resp-8", 1000, 100, 1000, 0),
        _token_usage("resp-8", 1000, 100, 1000, 0),
    ]
    agent["accumulated_token_usage"].update(
        prompt_tokens=12000, completion_tokens=800, cache_read_tokens=9000,
        cache_write_tokens=1000, reasoning_tokens=100,
    )  # fmt: skip
    path.write_text(json.dumps(state))
    found = events(sessions(home)[FINISHED])
    usage = [e for e in found if e.kind == "usage"]
    calls = {e.call_id: e for e in found if e.kind == "tool_call"}
    model = "anthropic/claude-sonnet-4-5-20250929"
    assert [(u.time, u.time_estimated) for u in usage[:4]] == [
        (calls["toolu_01"].time, False),
        (calls["toolu_02"].time, False),
        (calls["toolu_03"].time, True),  # resp-elsewhere, before the next one named
        (calls["toolu_03"].time, False),
    ]
    assert usage[0].usage == Usage(500, 300, 4000, 500, 0, model)
    assert usage[2].usage == Usage(1000, 50, 0, 0, 0, model)
    assert usage[3].usage == Usage(0, 200, 2000, 0, 0, model)
    # each comes right after the call it paid for
    assert found[found.index(calls["toolu_01"]) + 1] is usage[0]
    rest = usage[4]
    assert rest.extra["summed"] is True and rest.time_estimated
    assert rest.usage == Usage(0, 0, 0, 0, 100, model)
    assert rest.extra["cost_usd"] == 0.0123
    total = sum((u.usage for u in usage if u.usage), Usage())
    assert (total.input_tokens, total.output_tokens, total.cache_read_tokens,
            total.cache_write_tokens) == (2000, 800, 9000, 1000)  # fmt: skip
    assert len(usage) == 5


def test_cache_reads_beyond_the_prompt_are_counted_beside_it(tmp_path: Path) -> None:
    """An ACP agent's usage counts its cache reads apart from `prompt_tokens` (the SDK's
    metrics.py says so): input is not taken to 0 where the reads exceed the prompt."""
    home = copy_home(tmp_path)
    path = home / CONVERSATIONS / FINISHED / "base_state.json"
    state = json.loads(path.read_text())
    agent = state["stats"]["usage_to_metrics"]["agent"]
    agent["accumulated_token_usage"].update(
        prompt_tokens=300, completion_tokens=800, cache_read_tokens=9000,
        cache_write_tokens=1000, reasoning_tokens=0,
    )  # fmt: skip
    agent["token_usages"] = []
    path.write_text(json.dumps(state))
    usage = [e for e in events(sessions(home)[FINISHED]) if e.kind == "usage"]
    assert usage[0].usage is not None
    assert usage[0].usage.input_tokens == 300
    assert usage[0].usage.cache_read_tokens == 9000


def test_a_command_that_exits_non_zero_is_a_failed_result(tmp_path: Path) -> None:
    """The terminal tool sets `is_error` only where it could not run the command; a
    command that ran and failed says so by its `exit_code` (-1: still running, a soft
    timeout), as other apps' failed commands show."""
    home = copy_home(tmp_path)
    events_dir = home / CONVERSATIONS / PAUSED / "events"
    for index, code in enumerate((2, -1, 0), start=7):
        observation = {"kind": "TerminalObservation", "command": "make",
                       "content": [{"type": "text", "text": f"exit {code}"}],
                       "is_error": False, "exit_code": code, "timeout": False}  # fmt: skip
        record = {"kind": "ObservationEvent", "source": "environment",
                  "timestamp": "2026-10-02T08:53:00", "tool_name": "terminal",
                  "tool_call_id": f"call_{index}", "observation": observation}  # fmt: skip
        (events_dir / f"event-{index:05d}.json").write_text(json.dumps(record))
    found = [e for e in events(sessions(home)[PAUSED]) if e.kind == "tool_result"]
    assert [(e.text, e.is_error) for e in found[-3:]] == [
        ("exit 2", True),
        ("exit -1", False),
        ("exit 0", False),
    ]


def _long_conversation(home: Path, steps: int) -> Path:
    """A conversation of `steps` model responses: mostly one call and its result, some
    of two parallel calls (one response id), a condensation every 40 steps (the
    condenser's own usage), a response no event names every 7, and a model change."""
    folder = home / CONVERSATIONS / ("c" * 32)
    (folder / "events").mkdir(parents=True)
    records: list[dict[str, object]] = []
    agent_usages: list[dict[str, object]] = []
    condenser_usages: list[dict[str, object]] = []

    def add(kind: str, **fields: object) -> None:
        second = len(records)
        records.append({"kind": kind, "id": f"{second:08x}-0000-4000-8000-000000000000",
                        "timestamp": f"2026-10-02T{8 + second // 3600:02d}:"
                                     f"{second // 60 % 60:02d}:{second % 60:02d}",
                        "source": "agent", **fields})  # fmt: skip

    add("MessageEvent", source="user",
        llm_message={"role": "user", "content": [{"type": "text", "text": "go"}]})  # fmt: skip
    for step in range(steps):
        if step % 7 == 3:
            agent_usages.append(_token_usage(f"lost-{step}", 10, 1, 0, 0))
        response = f"resp-{step}"
        agent_usages.append(_token_usage(response, 100 + step, 10, 50, 0))
        calls = 2 if step % 5 == 0 else 1
        for call in range(calls):
            add("ActionEvent", thought=[], action={"kind": "TerminalAction", "command": "ls"},
                tool_name="terminal", tool_call_id=f"call-{step}-{call}",
                tool_call={"id": f"call-{step}-{call}", "name": "terminal", "arguments": "{}"},
                llm_response_id=response)  # fmt: skip
        for call in range(calls):
            add("ObservationEvent", tool_name="terminal", tool_call_id=f"call-{step}-{call}",
                observation={"kind": "TerminalObservation", "exit_code": 0,
                             "content": [{"type": "text", "text": f"out {step}"}]})  # fmt: skip
        if step % 40 == 39:
            condenser_usages.append(_token_usage(f"cond-{step}", 500, 40, 0, 0))
            add("Condensation", forgotten_event_ids=["x"], summary=f"summary {step}",
                llm_response_id=f"cond-{step}")  # fmt: skip
        if step == steps // 2:
            add("ConversationStateUpdateEvent", key="agent",
                value={"llm": {"model": "openai/gpt-5"}})  # fmt: skip
    add("MessageEvent", llm_message={"role": "assistant",
        "content": [{"type": "text", "text": "done"}]}, llm_response_id="resp-final")  # fmt: skip
    agent_usages.append(_token_usage("resp-final", 1, 1, 0, 0))
    agent_usages.append(_token_usage("lost-final", 5, 5, 0, 0))
    task_usages = [_token_usage(f"sub-{n}", 40, 4, 0, 0) for n in range(3)]

    def total(usages: list[dict[str, object]]) -> dict[str, object]:
        keys = ("prompt_tokens", "completion_tokens", "cache_read_tokens",
                "cache_write_tokens", "reasoning_tokens")  # fmt: skip
        return {k: sum(int(u[k]) for u in usages) + 3 for k in keys}  # type: ignore[call-overload]

    metrics = {
        "agent": {"model_name": "anthropic/claude-sonnet-4-5", "accumulated_cost": 1.5,
                  "accumulated_token_usage": total(agent_usages), "token_usages": agent_usages},
        "condenser": {"model_name": "openai/gpt-5-mini",
                      "accumulated_token_usage": total(condenser_usages),
                      "token_usages": condenser_usages},
        # a sub-agent's metrics the task tool copied in: its events are its own
        "task:t1": {"model_name": "default", "accumulated_cost": 0.2,
                    "accumulated_token_usage": total(task_usages),
                    "token_usages": task_usages},
    }  # fmt: skip
    state = {"id": "c" * 32, "execution_status": "finished",
             "agent": {"llm": {"model": "anthropic/claude-sonnet-4-5"}},
             "workspace": {"working_dir": "/w"}, "stats": {"usage_to_metrics": metrics}}  # fmt: skip
    (folder / "base_state.json").write_text(json.dumps(state))
    for index, record in enumerate(records):
        (folder / "events" / f"event-{index:05d}-{record['id']}.json").write_text(
            json.dumps(record)
        )
    return folder


def _shown(found: list[Event]) -> list[tuple[object, ...]]:
    return [
        (e.kind, e.time, e.time_estimated, e.text, e.tool, e.call_id, e.is_error,
         e.usage, e.extra)
        for e in found
    ]  # fmt: skip


def test_read_last_gives_the_end_of_the_whole_read_from_the_last_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`show --tail` reads a long conversation's last event files only: the events, the
    usage placed by the responses before them and the closing totals are those of the
    whole read's end."""
    home = tmp_path / "home"
    folder = _long_conversation(home, 200)
    session = sessions(home)["c" * 32]
    whole = events(session)
    assert [e.seq for e in whole] == list(range(len(whole)))  # usage numbered in place
    files_count = len(list((folder / "events").iterdir()))
    opened: list[str] = []
    real = files.read_json_compacted

    def counted(path: object, *args: object, **kwargs: object) -> object:
        opened.append(str(path))
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    for rows in (1, 2, 3, 4, 9, 10, 11, 40, 121, 160):
        opened.clear()
        monkeypatch.setattr(files, "read_json_compacted", counted)
        tail = list(openhands.read_last(session, Diagnostics(), rows))
        monkeypatch.setattr(files, "read_json_compacted", real)
        assert [e.seq for e in tail] == list(range(len(tail)))
        assert _shown(tail) == _shown(whole[len(whole) - len(tail) :]), rows
        assert len(opened) <= 2 * rows + openhands._BACK_MIN
    # read whole: a window of no more files than there are, one holding the model
    # change (the model before it is not known), one whose condenser's last usage is
    # further back than it looks
    for rows in (files_count, files_count - 5):
        with pytest.raises(openhands.WholeRead):
            list(openhands.read_last(session, Diagnostics(), rows))
    monkeypatch.setattr(openhands, "_BACK_MIN", 8)
    with pytest.raises(openhands.WholeRead):
        list(openhands.read_last(session, Diagnostics(), 2))
    # a sub-agent's copied metrics (task:t1), which no event of the lead names, are
    # no reason to look further back
    tail = list(openhands.read_last(session, Diagnostics(), 1))
    assert _shown(tail) == _shown(whole[len(whole) - len(tail) :])
    assert [e.extra.get("usage_id") for e in tail if e.extra.get("summed")] == [
        "agent", "condenser", "task:t1"
    ]  # fmt: skip


def test_show_tail_of_a_long_conversation_opens_its_last_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    folder = _long_conversation(home, 200)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    opened: list[str] = []
    real = files.read_json_compacted

    def counted(path: object, *args: object, **kwargs: object) -> object:
        opened.append(str(path))
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(files, "read_json_compacted", counted)
    result = CliRunner().invoke(
        main, ["show", "openhands:cccc", "--home", str(home), "--tail", "10", "--nl"]
    )
    assert result.exit_code == 0, result.output
    shown = [json.loads(line) for line in result.output.splitlines() if line.strip()]
    kinds = ["assistant", "usage", "turn_end", *["usage"] * 7]
    assert [e["kind"] for e in shown] == kinds
    assert shown[0]["text"] == "done"
    assert len(opened) < len(list((folder / "events").iterdir())) // 2


def test_odd_usage_values_in_base_state_are_passed_over(tmp_path: Path) -> None:
    """A hostile or damaged base_state.json: lists that are not lists, entries that are
    not objects, ids that are not text, counts below 0 or not numbers never raise nor
    take a total below 0."""
    home = copy_home(tmp_path)
    path = home / CONVERSATIONS / FINISHED / "base_state.json"
    state = json.loads(path.read_text())
    metrics = state["stats"]["usage_to_metrics"]
    metrics["agent"]["token_usages"] = [
        "text", None, 7, {"response_id": 5, "prompt_tokens": 10},
        {"response_id": "resp-2", "prompt_tokens": -500, "completion_tokens": "9",
         "cache_read_tokens": -1, "reasoning_tokens": True},
    ]  # fmt: skip
    metrics["condenser"]["token_usages"] = {"resp-4": {"prompt_tokens": 1}}
    metrics["odd"] = ["not", "an", "object"]
    metrics[""] = {
        "accumulated_token_usage": {"prompt_tokens": -3, "completion_tokens": 2}
    }
    path.write_text(json.dumps(state))
    diagnostics = Diagnostics()
    usage = [
        e for e in events(sessions(home)[FINISHED], diagnostics) if e.kind == "usage"
    ]
    for event in usage:
        assert event.usage is not None
        counts = (event.usage.input_tokens, event.usage.output_tokens,
                  event.usage.cache_read_tokens, event.usage.cache_write_tokens,
                  event.usage.reasoning_tokens)  # fmt: skip
        assert min(counts) >= 0, counts


def test_show_tail_text_is_that_of_the_whole_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    _long_conversation(home, 120)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    runner = CliRunner()

    def show(*args: str) -> str:
        where = ["--home", str(home), "--no-pager"]
        result = runner.invoke(main, ["show", "openhands:cccc", *args, *where])
        assert result.exit_code == 0, result.output
        return result.stdout

    tails = [show("--tail", count) for count in ("1", "7", "40")]
    tails.append(show("--tail", "30", "--detail", "full"))
    monkeypatch.delattr(openhands, "read_last")
    assert tails == [show("--tail", count) for count in ("1", "7", "40")] + [
        show("--tail", "30", "--detail", "full")
    ]


def test_a_message_the_sdk_sends_the_model_is_no_answer(tmp_path: Path) -> None:
    """The SDK's own words to the model (a nudge when it is stuck or gave nothing, a
    stop hook's feedback) are MessageEvents from the environment in the user's role: an
    input the app injected, not an answer that ends a turn; a prompt another agent sent
    (`sender`, a sub-agent's task) is named as from it."""
    home = copy_home(tmp_path)
    events_dir = home / CONVERSATIONS / PAUSED / "events"
    nudge = {"kind": "MessageEvent", "source": "environment",
             "timestamp": "2026-10-02T08:53:00",
             "llm_message": {"role": "user", "content": [
                 {"type": "text", "text": "Please use a tool to proceed with the task."}]}}  # fmt: skip
    handed = {"kind": "MessageEvent", "source": "user", "sender": "lead-agent",
              "timestamp": "2026-10-02T08:53:01",
              "llm_message": {"role": "user", "content": [
                  {"type": "text", "text": "Check the tests."}]}}  # fmt: skip
    (events_dir / "event-00007.json").write_text(json.dumps(nudge))
    (events_dir / "event-00008.json").write_text(json.dumps(handed))
    found = events(sessions(home)[PAUSED])[-2:]
    assert [(e.kind, e.text) for e in found] == [
        ("user", "Please use a tool to proceed with the task."),
        ("user", "Check the tests."),
    ]
    assert found[0].extra.get("injected") is True
    assert found[1].extra.get("from_agent") == "lead-agent"


def test_a_sub_agents_copied_metrics_bill_the_model_it_used(tmp_path: Path) -> None:
    """The task tool copies a sub-agent's metrics into the lead's as `task:<id>`,
    combined into a `Metrics()` named "default" (task/manager.py, conversation_stats.py):
    its responses and its recorded cost go to the model its responses name, not to a
    model called "default" (unpriced, whose recorded cost would come on top of the
    responses' price)."""
    home = copy_home(tmp_path)
    path = home / CONVERSATIONS / FINISHED / "base_state.json"
    state = json.loads(path.read_text())
    state["stats"]["usage_to_metrics"]["task:t1"] = {
        "model_name": "default",
        "accumulated_cost": 0.5,
        "accumulated_token_usage": {
            "model": "default", "prompt_tokens": 300, "completion_tokens": 30,
            "cache_read_tokens": 0, "cache_write_tokens": 0, "reasoning_tokens": 0,
        },
        "token_usages": [
            _token_usage("sub-1", 100, 10, 0, 0),
            _token_usage("sub-2", 200, 20, 0, 0),
        ],
    }  # fmt: skip
    path.write_text(json.dumps(state))
    usage = [e for e in events(sessions(home)[FINISHED]) if e.kind == "usage"]
    task = usage[-3:]
    assert [u.usage.model if u.usage else None for u in task] == [
        "anthropic/claude-sonnet-4-5-20250929"
    ] * 3
    assert task[-1].extra["usage_id"] == "task:t1"
    assert task[-1].extra["cost_usd"] == 0.5


@LIST_PATHS
def test_an_event_file_changed_alone_lists_warm_as_cold(
    listing: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the title is the first user message, read from its event file: an older SDK
    # rewrites base_state.json only at a status change, so a warm list kept the title
    # the file held before (and the last time, before the newest event file came)
    home = copy_home(tmp_path)
    events_folder = home / CONVERSATIONS / FINISHED / "events"

    def listed(state: str) -> dict[str, object]:
        return list_rows(home, tmp_path / state, monkeypatch, listing=listing)[FINISHED]

    assert listed("warm")["title"] == "Add a /health endpoint to the API"
    first = next(
        path
        for path in sorted(events_folder.iterdir())
        if '"source": "user"' in path.read_text()
    )
    first.write_text(first.read_text().replace("Add a /health", "Add a /ready"))
    warm = listed("warm")
    assert warm == listed("cold")
    assert warm["title"] == "Add a /ready endpoint to the API"
    record = {
        "kind": "PauseEvent",
        "source": "user",
        "timestamp": "2026-10-02T09:30:00",
    }
    (events_folder / "event-99999.json").write_text(json.dumps(record))
    warm = listed("warm")
    assert warm == listed("cold2")
    assert warm["updated"] == listed("cold3")["updated"]


def test_an_unchanged_home_reads_no_conversation_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # each conversation's parse read its event files: a warm list stats them, and
    # reads nothing again while none changed
    home = copy_home(tmp_path)
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    index = Index(Home.at(home))
    try:
        assert index.refresh([openhands]).parsed == 2
        assert index.refresh([openhands]).parsed == 0
        assert index.unchanged(["openhands"]) == {"openhands"}
    finally:
        index.close()
