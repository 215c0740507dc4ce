"""Auggie quirks: one JSON session per file with numbered node types, a call's output in
the next exchange, compactions, sub-agents kept inside their parent or as sessions of their
own, backups beside the sessions, the login beside them never opened."""

from __future__ import annotations

import itertools
import json
import os
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from sessdex import files, jsonstream
from sessdex.cli import main
from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Session, Usage
from sessdex.sources import Home, auggie
from tests.helpers import opened_files

DATA = Path(__file__).parent.parent / "data" / "auggie"
SESSIONS = Path(".augment") / "sessions"
MAIN = "5a3e1c2b-7d4f-4a6b-9c8d-1e2f3a4b5c6d"  # a call, its output, a sub-agent inside
COMPACTED = (
    "9b8a7c6d-5e4f-4321-8a9b-0c1d2e3f4a5b"  # a compaction, an unfinished exchange
)
CHILD = "c0ffee00-1111-4222-8333-444455556666"  # a sub-agent's own session
OLDER = "5e8a8a99-0000-4000-8000-000000000001"  # January 2026's shape: null fields


def sessions(home: Path, diagnostics: Diagnostics | None = None) -> dict[str, Session]:
    location = auggie.locate(Home.at(home))
    found: dict[str, Session] = {}
    for path in auggie.scan(location):
        for session in auggie.parse(Path(path), location, diagnostics or Diagnostics()):
            assert session.id not in found
            found[session.id] = session
    return found


def events(session: Session, diagnostics: Diagnostics | None = None) -> list[Event]:
    return list(auggie.read(session, diagnostics or Diagnostics()))


def copy_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    return home


def test_titles_folders_and_lineage_as_a_user_sees_them() -> None:
    found = sessions(DATA / "home")
    # the backup Auggie keeps beside a session is not a second session
    assert sorted(found) == sorted([MAIN, COMPACTED, CHILD, OLDER])
    assert found[MAIN].title == "Find the failing test"  # Auggie's title
    assert found[COMPACTED].title == "Retry fix (continued)"  # the user's own wins
    assert found[CHILD].title == "List the retry tests."  # untitled: its first prompt
    # a session Auggie marks as a sub-agent's: nothing in its lead names it, so it is a
    # session of its own (its lead's read could not bring its events), its lead named
    assert found[CHILD].parent_id is None and found[CHILD].extra["lead_id"] == MAIN
    # the folder the first IDE state names; the model the last exchange ran on
    assert found[COMPACTED].cwd == "/home/alex/code/ledger"
    assert found[COMPACTED].model == "gpt-5"
    assert found[MAIN].model == "claude-sonnet-4-5"


def test_a_turn_reads_in_order_with_each_call_paired_to_its_output() -> None:
    got = events(sessions(DATA / "home")[MAIN])
    main_agent = [(e.kind, e.tool) for e in got if e.agent_id is None]
    assert main_agent == [
        ("user", None),
        ("thinking", None),
        ("assistant", None),
        ("tool_call", "launch-process"),
        ("usage", None),
        ("subagent", None),
        ("tool_result", "launch-process"),
        ("assistant", None),
        ("usage", None),
        ("turn_end", None),
    ]
    call = next(e for e in got if e.kind == "tool_call")
    result = next(e for e in got if e.kind == "tool_result")
    assert call.call_id == result.call_id == "toolu_01"
    assert call.extra["input"] == {"command": "pytest -q", "wait": True}
    assert result.text == "1 failed, 41 passed" and not result.is_error
    # the answer is the exchange's whole text, not its streamed pieces
    first = next(e.text for e in got if e.kind == "assistant")
    assert first == "I'll run the test suite."
    # the sub-agent kept inside its parent reads right after the exchange that ran it
    spawn = next(e for e in got if e.kind == "subagent")
    assert (spawn.text, spawn.extra["agent_name"]) == (
        "Find the retry code.",
        "explore",
    )
    spawned = [e for e in got if e.agent_id == "explore"]
    assert [e.kind for e in spawned] == ["user", "assistant", "turn_end"]
    assert got.index(spawned[0]) == got.index(call) + 3


def test_an_older_session_with_null_fields_and_a_blank_answer() -> None:
    """Auggie wrote every node field, the unused ones null, and "\n" as the answer of an
    exchange that only calls tools: no blank answer is shown, the thinking's summary is."""
    got = events(sessions(DATA / "home")[OLDER])
    assert [e.kind for e in got] == [
        "user",
        "thinking",
        "tool_call",
        "tool_result",
        "assistant",
        "turn_end",
    ]
    assert got[1].text == "The user wants the TODO file."
    assert got[3].call_id == got[2].call_id and got[3].tool == "view"


def test_usage_keeps_cache_reads_and_writes_apart() -> None:
    got = events(sessions(DATA / "home")[MAIN])
    total = sum((e.usage for e in got if e.usage), Usage())
    assert (total.input_tokens, total.output_tokens) == (32, 65)
    assert (total.cache_read_tokens, total.cache_write_tokens) == (6500, 500)
    assert total.model == "claude-sonnet-4-5"


def test_usage_counts_a_session_marked_as_a_sub_agents(tmp_path: Path) -> None:
    """`sessdex usage` counts every session's tokens once, the one Auggie marks with its
    lead's id (`parentConversationId`) included."""
    result = CliRunner().invoke(
        main,
        ["usage", "--json", "--app", "auggie", "--home", str(DATA / "home")],
        env={"SESSDEX_HOME": str(tmp_path / "sessdex")},
    )
    assert result.exit_code == 0, result.output
    (day,) = json.loads(result.stdout)
    assert (day["input_tokens"], day["output_tokens"]) == (12 + 20 + 7, 40 + 25 + 5)
    assert day["responses"] == 3


def test_a_forks_copied_responses_count_in_their_source_only(tmp_path: Path) -> None:
    """`/fork` copies the history into a new session titled "<title> (fork)", created
    after the copied exchanges finished: only the fork's own responses are billed there."""
    home = copy_home(tmp_path)
    value = json.loads((home / SESSIONS / f"{MAIN}.json").read_text())
    fork = "f0f0f0f0-0000-4000-8000-000000000001"
    value.update(sessionId=fork, created="2026-12-05T11:00:00.000Z")
    value["title"] = "Find the failing test (fork)"
    del value["subAgents"]
    own = json.loads(json.dumps(value["chatHistory"][1]))
    own["finishedAt"] = "2026-12-05T11:01:00.000Z"
    own["exchange"]["request_id"] = "req-own"
    value["chatHistory"].append(own)
    (home / SESSIONS / f"{fork}.json").write_text(json.dumps(value, indent=2))
    found = sessions(home)
    billed = [e.usage for e in events(found[fork]) if e.usage]
    assert [(u.input_tokens, u.output_tokens) for u in billed] == [(20, 25)]
    assert [e.kind for e in events(found[fork])].count("assistant") == 3  # all shown
    source = [e.usage for e in events(found[MAIN]) if e.usage]
    assert len(source) == 2


def test_a_compaction_and_an_unfinished_exchange() -> None:
    got = events(sessions(DATA / "home")[COMPACTED])
    assert [e.kind for e in got] == ["compaction", "user", "meta"]
    assert got[0].text == "We fixed the retry count in checkout/retry.py."
    assert got[1].text == "What does this screenshot show?\n[image]"
    assert got[2].extra == {"interrupted": True} and got[2].text == "interrupted"


def test_resume_is_exact_and_adds_no_approval_flag() -> None:
    found = sessions(DATA / "home")
    for keep in (False, True):
        plan = auggie.resume(found[MAIN], keep_permissions=keep)
        assert plan is not None
        assert plan.argv == ("auggie", "--resume", MAIN)
        assert plan.cwd == "/home/alex/code/shop-api" and plan.program == "auggie"
    assert auggie.resume(Session("auggie", "x")) is None  # no folder known


def test_resume_print_quotes_an_odd_id_and_folder(tmp_path: Path) -> None:
    home = tmp_path / "home"
    work = tmp_path / "my repo"
    work.mkdir()
    value = json.loads((DATA / "home" / SESSIONS / f"{CHILD}.json").read_text())
    value["sessionId"] = "x;touch y"
    node = value["chatHistory"][0]["exchange"]["request_nodes"][1]
    node["ide_state_node"]["workspace_folders"] = [{"repository_root": str(work)}]
    (home / SESSIONS).mkdir(parents=True)
    (home / SESSIONS / "x;touch y.json").write_text(json.dumps(value, indent=2))
    result = CliRunner().invoke(
        main, ["resume", "--print", "x;touch", "--home", str(home)]
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == f"cd '{work}' && auggie --resume 'x;touch y'"


def test_process_session_reads_back_what_resume_writes() -> None:
    opened = auggie.process_session(["node", "/usr/bin/auggie", "--resume", MAIN])
    assert opened == auggie.Opened(session_id=MAIN)
    assert auggie.process_session(["auggie", "-c"]) == auggie.Opened(latest=True)
    assert auggie.process_session(["auggie", "--resume"]) == auggie.Opened(chosen=True)
    assert auggie.process_session(["auggie", "fix it"]) is None


def test_damaged_files_are_counted_never_raised() -> None:
    diagnostics = Diagnostics()
    found = sessions(DATA / "malformed" / "home", diagnostics)
    for session in found.values():
        events(session, diagnostics)
    reasons = {(Path(path).name, reason) for path, _, reason in diagnostics.details}
    assert ("11111111-1111-4111-8111-111111111111.json", "truncated") in reasons
    assert ("22222222-2222-4222-8222-222222222222.json", "not an object") in reasons
    assert ("33333333-3333-4333-8333-333333333333.json", "not JSON") in reasons
    assert ("44444444-4444-4444-8444-444444444444.json", "not an object") in reasons
    assert diagnostics.unknown == {"request_node:77": 1, "response_node:42": 1}
    # a session cut short mid-write is still listed from what came before the cut
    assert "11111111-1111-4111-8111-111111111111" in found


def test_a_big_session_is_listed_from_its_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past WHOLE_CAP a listing reads 256 KiB at each end, never the history between;
    a read goes through it one chat item at a time."""
    home = copy_home(tmp_path)
    path = home / SESSIONS / f"{MAIN}.json"
    value = json.loads(path.read_text())
    node = value["chatHistory"][1]["exchange"]["request_nodes"][0]
    node["tool_result_node"]["content"] = "x" * (auggie.WHOLE_CAP + 1024)
    path.write_text(json.dumps(value, indent=2))
    assert path.stat().st_size > auggie.WHOLE_CAP

    def whole(*args: object, **kwargs: object) -> object:
        raise AssertionError("a big session was parsed whole")

    monkeypatch.setattr(files, "read_json_file", whole)
    monkeypatch.setattr(jsonstream, "file_members", whole)
    monkeypatch.setattr(jsonstream, "file_items", whole)
    location = auggie.locate(Home.at(home))
    (listed,) = auggie.parse(path, location, Diagnostics())
    assert (listed.title, listed.cwd) == (
        "Find the failing test",
        "/home/alex/code/shop-api",
    )
    assert listed.model == "claude-sonnet-4-5"
    assert listed.updated is not None and listed.updated.isoformat().startswith(
        "2026-12-05T10:05:12"
    )
    monkeypatch.undo()
    diagnostics = Diagnostics()
    got = events(listed, diagnostics)
    result = next(e for e in got if e.kind == "tool_result")
    assert result.text == f"[text, {files.human_bytes(auggie.WHOLE_CAP + 1024)}]"
    assert [e.kind for e in got].count("usage") == 2
    assert diagnostics.skipped_total == 0


def test_the_home_override_and_the_default_folder(tmp_path: Path) -> None:
    home = Home(tmp_path, {"HOME": str(tmp_path / "elsewhere")})
    location = auggie.locate(home)
    assert location.root == tmp_path / "elsewhere" / ".augment"
    assert location.override == f"HOME={tmp_path / 'elsewhere'}"
    assert auggie.locate(Home.at(tmp_path)).root == tmp_path / ".augment"
    assert list(auggie.scan(location)) == []


def test_the_login_beside_the_sessions_is_never_opened(tmp_path: Path) -> None:
    """`~/.augment/session.json` holds Auggie's login: listing, showing and resuming
    every session (one a link named like a session, to the login) never opens it."""
    home = copy_home(tmp_path)
    secret = home / ".augment" / "session.json"
    secret.write_text('{"accessToken": "secret"}')
    link = home / SESSIONS / "0000aaaa-0000-4000-8000-000000000000.json"
    link.symlink_to(secret)
    with opened_files() as opened:
        runner = CliRunner()
        for args in (("list", "--all", "--json"), ("doctor", "--json")):
            result = runner.invoke(
                main, [*args, "--app", "auggie", "--home", str(home)]
            )
            assert result.exit_code == 0, result.output
        for session_id in (MAIN, COMPACTED, CHILD):
            runner.invoke(main, ["show", session_id, "--json", "--home", str(home)])
            runner.invoke(main, ["resume", session_id, "--print", "--home", str(home)])
    assert any(MAIN in path for path in opened), "the audit hook saw the run's reads"
    assert os.path.realpath(secret) not in opened


def _session(
    home: Path, session_id: str, history: list[object], **more: object
) -> Path:
    """A session as Auggie 0.36.0 writes it (JSON.stringify(session, null, 2))."""
    value: dict[str, object] = {
        "sessionId": session_id,
        "created": "2026-12-05T09:00:00.000Z",
        "modified": "2026-12-05T10:00:00.000Z",
        "chatHistory": history,
        "agentState": {"userGuidelines": "", "modelId": "claude-sonnet-4-5"},
        **more,
    }
    path = home / SESSIONS / f"{session_id}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2))
    return path


def _exchange(
    request_id: str,
    finished: str,
    request: list[object],
    response: list[object],
    text: str = "",
    **more: object,
) -> dict[str, object]:
    return {
        "exchange": {
            "request_message": "",
            "response_text": text,
            "request_id": request_id,
            "request_nodes": request,
            "response_nodes": response,
        },
        "completed": True,
        "sequenceId": 1,
        "finishedAt": finished,
        "source": "local",
        **more,
    }


def _tokens(given: int, made: int, at: int) -> dict[str, object]:
    usage = {"input_tokens": given, "output_tokens": made}
    return {"id": 9, "type": 10, "token_usage": usage, "timestamp_ms": at}


def _call(call_id: str, at: int, **times: int) -> dict[str, object]:
    use = {"tool_use_id": call_id, "tool_name": "view", "input_json": '{"path": "a"}'}
    return {"id": 1, "type": 5, "tool_use": {**use, **times}, "timestamp_ms": at}


def _result(call_id: str, output: str) -> dict[str, object]:
    result = {"tool_use_id": call_id, "content": output, "is_error": False}
    return {"id": 1, "type": 1, "tool_result_node": result}


AT = 1_764_925_200_000  # 2025-12-05T09:00:00Z in ms


def test_a_compaction_keeps_the_exchange_that_carries_it(tmp_path: Path) -> None:
    """Auggie 0.36.0 adds its summary as one more request node (type 10) of the exchange
    under way, whose prompt, tool output, answer and tokens are as any other's."""
    summary = {"summary_text": "We fixed the retry.", "summarization_request_id": "s1"}
    history = [
        _exchange(
            "r1", "2025-12-05T09:00:05Z", [text_node("Look at a")], [_call("c1", AT)]
        ),
        _exchange(
            "r2",
            "2025-12-05T09:00:09Z",
            [
                _result("c1", "a's text"),
                {"id": 2, "type": 10, "history_summary_node": summary},
            ],
            [{"id": 1, "type": 0, "content": "a is fine."}, _tokens(50, 7, AT + 8000)],
            text="a is fine.",
        ),
    ]
    home = tmp_path / "home"
    _session(home, "s-compact", history)
    got = events(sessions(home)["s-compact"])
    assert [e.kind for e in got] == [
        "user",
        "tool_call",
        "compaction",
        "tool_result",
        "assistant",
        "usage",
        "turn_end",
    ]
    assert got[2].text == "We fixed the retry." and got[3].text == "a's text"
    assert got[3].call_id == "c1" and got[3].tool == "view"
    assert got[5].usage is not None and got[5].usage.output_tokens == 7


def text_node(content: str) -> dict[str, object]:
    return {"id": 0, "type": 0, "text_node": {"content": content}}


def test_watch_gives_each_event_once_as_auggie_rewrites_the_session(
    tmp_path: Path,
) -> None:
    """Auggie saves after each exchange (tmp file, renamed over the session), before the
    exchange's calls run; it stamps a call's start and end on the call's node as it runs
    it, so the next save shows the same call with more times. A followed session gives
    that call once, and its output and answer as they come."""
    from sessdex import api
    from sessdex.live import LiveSession

    home = tmp_path / "home"
    now = datetime.now(UTC).timestamp()
    at = int(now * 1000) - 20_000
    prompt = _exchange(
        "r1", _iso(at + 2000), [text_node("Look at a")], [_call("c1", at + 1000)]
    )
    path = _session(home, "s-live", [prompt])
    live = LiveSession(api.resolve(Home.at(home), "s-live"))
    first = live.poll(now=now)
    assert [e.kind for e in first] == ["user", "tool_call"]
    # the call ran: its node now says when; its output and the answer follow
    prompt["exchange"]["response_nodes"] = [  # type: ignore[index]
        _call("c1", at + 1000, started_at_ms=at + 2500, completed_at_ms=at + 4000)
    ]
    answer = _exchange(
        "r2",
        _iso(at + 6000),
        [_result("c1", "a's text")],
        [{"id": 1, "type": 0, "content": "a is fine.", "timestamp_ms": at + 5000}],
        text="a is fine.",
    )
    tmp = path.with_name(f"{path.name}.{at}.tmp")
    value = json.loads(path.read_text())
    value["chatHistory"] = [prompt, answer]
    tmp.write_text(json.dumps(value, indent=2))
    os.replace(tmp, path)
    later = live.poll(now=now + 5)
    assert [e.kind for e in later] == ["tool_result", "assistant", "turn_end"]
    assert live.poll(now=now + 10) == []


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat().replace("+00:00", "Z")


def test_a_summarys_own_tokens_are_counted(tmp_path: Path) -> None:
    """Behind a flag of Augment's service, Auggie keeps what each summary cost in
    `summarizations[]` (no exchange holds it): billed beside the compaction it made,
    under the model that wrote it."""
    summary = {"summary_text": "We fixed the retry.", "summarization_request_id": "s1"}
    history = [
        _exchange(
            "r2",
            "2025-12-05T09:00:09Z",
            [
                text_node("go on"),
                {"id": 2, "type": 10, "history_summary_node": summary},
            ],
            [{"id": 1, "type": 0, "content": "Done."}, _tokens(50, 7, AT + 8000)],
            text="Done.",
        ),
    ]
    made = {
        "request_id": "s1",
        "model": "claude-haiku-4-5",
        "finishedAt": "2025-12-05T09:00:03.000Z",
        "input_tokens": 9000,
        "output_tokens": 400,
        "cache_read_input_tokens": 100,
        "cache_creation_input_tokens": 0,
        "credits_consumed": 12.5,
    }
    other = {**made, "request_id": "s0", "input_tokens": 10, "output_tokens": 1}
    home = tmp_path / "home"
    _session(home, "s-summed", history, summarizations=[made, other])
    got = events(sessions(home)["s-summed"])
    assert [e.kind for e in got][:2] == ["compaction", "usage"]
    assert not got[1].time_estimated  # when the summary was made, as Auggie wrote it
    billed = [e.usage for e in got if e.usage is not None]
    assert [(u.input_tokens, u.output_tokens, u.model) for u in billed] == [
        (9000, 400, "claude-haiku-4-5"),
        (50, 7, "claude-sonnet-4-5"),
        (10, 1, "claude-haiku-4-5"),  # its compaction is no longer kept: at the end
    ]
    assert billed[0].cache_read_tokens == 100
    # what the summary cost in Augment's credits, on its own usage
    assert [u.credits for u in billed] == [12.5, 0, 12.5]


def test_a_big_sessions_sub_agents_are_read_where_they_ran(tmp_path: Path) -> None:
    """Past WHOLE_CAP the history is read one item at a time: the sub-agents and the
    summaries' costs kept after it (`subAgents[]`, `summarizations[]`) are read too, a
    sub-agent where the exchange that ran it is, as in a smaller session."""
    home = copy_home(tmp_path)
    path = home / SESSIONS / f"{MAIN}.json"
    value = json.loads(path.read_text())
    # the sub-agents' credits Auggie sums, before `subAgents[]` as Auggie orders them
    value["subAgentCreditsUsed"] = 3
    value["subAgents"] = value.pop("subAgents")
    path.write_text(json.dumps(value, indent=2))
    small = events(sessions(home)[MAIN])
    assert [e.usage.credits for e in small if e.usage][-1] == 3
    node = value["chatHistory"][1]["exchange"]["request_nodes"][0]
    node["tool_result_node"]["content"] = "x" * (auggie.WHOLE_CAP + 1024)
    path.write_text(json.dumps(value, indent=2))
    diagnostics = Diagnostics()
    got = events(sessions(home)[MAIN], diagnostics)
    assert [(e.kind, e.agent_id) for e in got] == [(e.kind, e.agent_id) for e in small]
    assert any(e.kind == "subagent" for e in got)
    assert [e.usage.credits for e in got if e.usage][-1] == 3
    assert diagnostics.skipped_total == 0


def test_an_item_read_as_auggies_own_tools_read_it(tmp_path: Path) -> None:
    """Auggie's own readers take a history item that is a bare exchange (no `exchange`
    member), an exchange's tokens kept on it (`token_usage`, as one fetched from
    Augment's service may carry them) where no node holds them, and a thinking node's
    text in `content`."""
    bare = {
        "request_message": "What is in a?",
        "response_text": "A list.",
        "request_id": "r1",
        "request_nodes": [text_node("What is in a?")],
        "response_nodes": [
            {"id": 1, "type": 8, "content": "Read a first.", "timestamp_ms": AT},
            {"id": 2, "type": 0, "content": "A list.", "timestamp_ms": AT + 900},
        ],
        "token_usage": {"input_tokens": 30, "output_tokens": 4},
    }
    home = tmp_path / "home"
    _session(home, "s-bare", [bare])
    got = events(sessions(home)["s-bare"])
    assert [(e.kind, e.text) for e in got if e.kind != "usage"] == [
        ("user", "What is in a?"),
        ("thinking", "Read a first."),
        ("assistant", "A list."),
        ("turn_end", None),
    ]
    (billed,) = [e.usage for e in got if e.usage is not None]
    assert (billed.input_tokens, billed.output_tokens) == (30, 4)
    assert sessions(home)["s-bare"].title == "What is in a?"


def test_a_big_session_with_long_sub_agents_keeps_its_title(tmp_path: Path) -> None:
    """Auggie writes the title and the model (agentState) before `subAgents[]` and
    `summarizations[]`: when those are longer than the end a listing reads first, it reads
    further back (4 MiB at most) for them rather than list the session untitled."""
    home = copy_home(tmp_path)
    path = home / SESSIONS / f"{MAIN}.json"
    value = json.loads(path.read_text())
    node = value["chatHistory"][1]["exchange"]["request_nodes"][0]
    node["tool_result_node"]["content"] = "x" * (auggie.WHOLE_CAP + 1024)
    run = value["subAgents"][0]["chatHistory"][0]["exchange"]
    run["response_text"] = "y" * (600 * 1024)
    value["customTitle"] = "Hunt the flaky test"
    value["subAgents"] = value.pop("subAgents")  # after it, as Auggie orders them
    path.write_text(json.dumps(value, indent=2))
    location = auggie.locate(Home.at(home))
    (listed,) = auggie.parse(path, location, Diagnostics())
    assert (listed.title, listed.model) == ("Hunt the flaky test", "claude-sonnet-4-5")


def test_resume_never_passes_an_id_auggie_would_read_as_an_option(
    tmp_path: Path,
) -> None:
    """`auggie --resume -p` is print mode, not the session `-p`: a session whose name
    starts with a dash (or holds a path separator, which Auggie refuses) is not resumed."""
    home = tmp_path / "home"
    folder = {"repository_root": "/home/alex/code/shop-api"}
    state = {"id": 1, "type": 4, "ide_state_node": {"workspace_folders": [folder]}}
    history = [_exchange("r1", "2025-12-05T09:00:05Z", [text_node("hi"), state], [])]
    _session(home, "-p", history)
    _session(home, "fine", history)
    found = sessions(home)
    assert found["fine"].cwd == "/home/alex/code/shop-api"
    assert auggie.resume(found["fine"]) is not None
    assert auggie.resume(found["-p"]) is None
    assert auggie.resume(Session("auggie", "a\\b", cwd="/tmp")) is None


def test_an_attached_file_is_named_in_the_prompt(tmp_path: Path) -> None:
    """A file the user attached (a PDF) is a request node of type 8 holding the file
    itself (`file_node {file_data, media_type, file_name}`): the prompt names it."""
    attached = {
        "id": 2,
        "type": 8,
        "file_node": {
            "file_data": "JVBERi0=",
            "media_type": "application/pdf",
            "file_name": "spec.pdf",
        },
    }
    history = [
        _exchange("r1", "2025-12-05T09:00:05Z", [text_node("Sum it up"), attached], [])
    ]
    home = tmp_path / "home"
    _session(home, "s-file", history)
    (prompt,) = events(sessions(home)["s-file"])
    assert prompt.text == "Sum it up\n[file spec.pdf]"


def test_a_prompt_is_the_users_words_without_the_mode_auggie_wrapped_it_in(
    tmp_path: Path,
) -> None:
    """Auggie saves a prompt typed in ask mode, plan mode or /btw inside its own
    instructions ("# For this specific question, follow these ask mode guidelines: …
    User message:"), and puts "# Ask mode is now disabled …" before the next one: the
    prompt shown, and the title taken from it, are what the user typed."""
    asked = (
        "# For this specific question, follow these ask mode guidelines:\n"
        "- Focus on providing clear, accurate information\n- Do NOT make any changes"
        "\n\nUser message:\nWhere is the retry set?"
    )
    after = "# Ask mode is now disabled\n- You can now make changes to files\n\nUser message:\n"
    plan = (
        "# Plan Mode Instructions\n\nYou are in PLAN MODE.\n- Keep the user informed"
        "\n\n User's planning request: Make retries configurable"
    )
    feedback = (
        "# Plan Iteration Instructions\n\nYou are in PLAN MODE.\n\n"
        "User's feedback on the plan:\n\nThe current plan file is at: /tmp/plan.md\n\n"
        "Drop step 3"
    )
    history = [
        _exchange("r1", "2025-12-05T09:00:01Z", [text_node(asked)], [], text="In a."),
        _exchange(
            "r2",
            "2025-12-05T09:00:02Z",
            [text_node(after), text_node("Fix it")],
            [],
            text="Done.",
        ),
        _exchange("r3", "2025-12-05T09:00:03Z", [text_node(plan)], [], text="Plan."),
        _exchange("r4", "2025-12-05T09:00:04Z", [text_node(feedback)], [], text="Ok."),
    ]
    home = tmp_path / "home"
    _session(home, "s-modes", history)
    listed = sessions(home)["s-modes"]
    assert listed.title == "Where is the retry set?"
    prompts = [e.text for e in events(listed) if e.kind == "user"]
    assert prompts == [
        "Where is the retry set?",
        "Fix it",
        "Make retries configurable",
        "Drop step 3",
    ]


def test_a_sub_agent_run_is_told_by_the_call_that_started_it(tmp_path: Path) -> None:
    """Auggie's sub-agents are tools named `sub-agent-<name>`: the run kept in
    `subAgents[]` is the spawn of the call of that name in the exchange that started it,
    so its output reads as the sub-agent's answer, not a call of its own."""
    home = copy_home(tmp_path)
    path = home / SESSIONS / f"{MAIN}.json"
    value = json.loads(path.read_text())
    nodes = value["chatHistory"][0]["exchange"]["response_nodes"]
    spawn = {
        "tool_use_id": "toolu_sa",
        "tool_name": "sub-agent-explore",
        "input_json": '{"instruction": "Find the retry code."}',
    }
    nodes.append({"id": 7, "type": 5, "tool_use": spawn, "timestamp_ms": AT})
    path.write_text(json.dumps(value, indent=2))
    got = events(sessions(home)[MAIN])
    (started,) = [e for e in got if e.kind == "subagent"]
    assert started.call_id == "toolu_sa"
    assert started.extra["agent_name"] == "explore"


def test_process_session_reads_the_session_subcommand() -> None:
    """`auggie session resume <id>` (or `sessions`, its alias) and `auggie session
    continue` reopen a session as `--resume <id>` and `--continue` do."""
    opened = auggie.process_session(["auggie", "session", "resume", MAIN])
    assert opened == auggie.Opened(session_id=MAIN)
    assert auggie.process_session(
        ["node", "/usr/bin/auggie", "--model", "gpt-5", "sessions", "resume", "5a3e"]
    ) == auggie.Opened(chosen=True, prefix="5a3e")
    assert auggie.process_session(["auggie", "session", "resume"]) == auggie.Opened(
        chosen=True
    )
    assert auggie.process_session(["auggie", "session", "continue"]) == auggie.Opened(
        latest=True
    )
    assert auggie.process_session(["auggie", "session", "list"]) is None


def test_sub_agents_credits_count_once_whether_their_runs_are_kept_or_not(
    tmp_path: Path,
) -> None:
    """`subAgentCreditsUsed` is what Auggie adds up of each sub-agent run's own billed
    credits (the bundle's `addSubAgentCredits` of the run's history, the one
    `subAgents[]` keeps): a kept run's credits count once, by the run, and what no kept
    run bills (one finished while the service kept no `subAgents[]`) counts too."""
    home = copy_home(tmp_path)
    path = home / SESSIONS / f"{MAIN}.json"
    value = json.loads(path.read_text())
    run = value["subAgents"][0]["chatHistory"][0]["exchange"]
    run["response_nodes"].append(
        {"id": 9, "type": 9,
         "billing_metadata": {"transaction_id": "t-s1", "credits_consumed": 1.5}}
    )  # fmt: skip
    value["subAgentCreditsUsed"] = 1.5  # the kept run's own: nothing more
    saves = itertools.count()

    def credits() -> float:
        value["modified"] = f"2026-12-05T12:0{next(saves)}:00.000Z"  # as Auggie saves
        path.write_text(json.dumps(value, indent=2))
        result = CliRunner().invoke(
            main,
            ["usage", "app", "--json", "--app", "auggie", "--home", str(home)],
            env={"SESSDEX_HOME": str(tmp_path / "sessdex")},
        )
        assert result.exit_code == 0, result.output
        (row,) = json.loads(result.stdout)
        return float(row["credits"]["auggie"])

    assert credits() == 2 + 1.5
    value["subAgentCreditsUsed"] = 1.5 + 4  # a second run, not kept
    assert credits() == 2 + 1.5 + 4
    del value["subAgents"]  # no run kept at all
    assert credits() == 2 + 1.5 + 4
    unkept = [e for e in events(sessions(home)[MAIN]) if e.usage and not e.agent_id]
    assert unkept[-1].usage is not None and unkept[-1].usage.credits == 5.5


def test_sub_agents_dollars_count_once_whether_their_runs_are_kept_or_not(
    tmp_path: Path,
) -> None:
    """`subAgentCostUsd` is `subAgentCreditsUsed` for runs billed in dollars (the
    bundle adds a run whose `billing_metadata` has `usage_unit` 2 to it, its `cost_usd`
    by transaction): a kept run counts by its own tokens, and the dollars no kept run
    bills are the session's, once, as Auggie's own figure."""
    home = copy_home(tmp_path)
    path = home / SESSIONS / f"{MAIN}.json"
    value = json.loads(path.read_text())
    run = value["subAgents"][0]["chatHistory"][0]["exchange"]
    billing = {"transaction_id": "t-s1", "usage_unit": 2, "cost_usd": "0.25"}
    run["response_nodes"].append({"id": 9, "type": 9, "billing_metadata": billing})
    value["subAgentCostUsd"] = 0.25  # the kept run's own: nothing more
    saves = itertools.count()

    def dollars() -> float:
        value["modified"] = f"2026-12-05T12:0{next(saves)}:00.000Z"  # as Auggie saves
        path.write_text(json.dumps(value, indent=2))
        result = CliRunner().invoke(
            main,
            ["usage", "app", "--json", "--app", "auggie", "--home", str(home)],
            env={"SESSDEX_HOME": str(tmp_path / "sessdex")},
        )
        assert result.exit_code == 0, result.output
        (row,) = json.loads(result.stdout)
        return float(row["priced_cost_usd"])

    kept = dollars()
    value["subAgentCostUsd"] = 0.25 + 4  # a second run, not kept
    assert dollars() == pytest.approx(kept + 4)
    del value["subAgents"]  # no run kept at all: the session bills all of it
    path.write_text(json.dumps(value, indent=2))
    unkept = [e for e in events(sessions(home)[MAIN]) if e.usage and not e.agent_id]
    assert unkept[-1].extra["app_cost_usd"] == pytest.approx(4.25)
    assert unkept[-1].usage is not None and unkept[-1].usage.total == 0


def test_an_exchange_billed_in_dollars_costs_what_augment_billed_where_unpriced(
    tmp_path: Path,
) -> None:
    """An exchange billed in dollars (`billing_metadata.usage_unit` 2) keeps what Augment
    billed in `cost_usd`, a string, which Auggie's own session cost adds up once per
    transaction: `usage` takes it for a model the catalogue has no price for (it said
    no cost), and as the cost of an exchange that counted no token."""
    home = copy_home(tmp_path)
    path = home / SESSIONS / f"{MAIN}.json"
    value = json.loads(path.read_text())
    first, second = (item["exchange"] for item in value["chatHistory"][:2])
    first["model_id"] = second["model_id"] = "augment-in-house-1"  # no price known
    value["agentState"]["modelId"] = "augment-in-house-1"
    billing = {"transaction_id": "t1", "usage_unit": 2, "cost_usd": "0.125"}
    first["response_nodes"][4]["billing_metadata"] = billing
    again = {"id": 90, "type": 9, "billing_metadata": dict(billing)}  # the same one
    second["response_nodes"] += [again]
    alone = {"transaction_id": "t2", "usage_unit": 2, "cost_usd": "0.5"}
    second["response_nodes"] = [  # its tokens not kept: its dollars alone
        node for node in second["response_nodes"] if node["type"] != 10
    ] + [{"id": 91, "type": 9, "billing_metadata": alone}]
    path.write_text(json.dumps(value, indent=2))
    result = CliRunner().invoke(
        main,
        ["usage", "app", "--json", "--app", "auggie", "--home", str(home)],
        env={"SESSDEX_HOME": str(tmp_path / "sessdex")},
    )
    assert result.exit_code == 0, result.output
    (row,) = json.loads(result.stdout)
    # t1 once, and t2 (the sub-agent kept inside adds its priced tokens: $0.0001)
    assert row["cost_usd"] == pytest.approx(0.125 + 0.5, abs=0.001)
    lead = [e for e in events(sessions(home)[MAIN]) if e.usage and not e.agent_id]
    assert [e.extra.get("cost_usd") for e in lead] == [0.125, None]
    assert lead[-1].extra["app_cost_usd"] == 0.5


def test_a_member_broken_after_the_history_is_counted_alike_by_every_command(
    tmp_path: Path,
) -> None:
    """A session whose document breaks after its history (a member that does not parse,
    a copy damaged there) is listed from its members read one at a time, the broken one
    counted: `show -v` names that line as `list -v` does, and `doctor --deep` counts it
    once with what the read met (`show` said nothing of it, one line fewer than the rest)."""
    home = copy_home(tmp_path)
    path = home / SESSIONS / f"{COMPACTED}.json"
    text = path.read_text()
    assert text.count('"modelId"') == 1
    path.write_text(text.replace('"modelId"', "modelId"))  # in agentState, after
    env = {"SESSDEX_HOME": str(tmp_path / "sessdex")}

    def said(*args: str) -> Result:
        result = CliRunner().invoke(main, [*args, "--home", str(home)], env=env)
        assert result.exit_code == 0, result.output
        return result

    broken = f"{path}:0: not JSON"
    assert broken in said("list", "-v", "--app", "auggie").stderr
    shown = said("show", "-v", COMPACTED).stderr
    assert broken in shown
    named = [line.strip() for line in shown.splitlines() if f"{path}:" in line]
    (report,) = json.loads(said("doctor", "--deep", "--json", "--app", "auggie").stdout)
    counted = [f"{s['file']}:{s['line']}: {s['reason']}" for s in report["skipped_at"]]
    assert sorted(counted) == sorted(named)


def test_tree_places_a_sub_agent_kept_inside_its_lead_once(tmp_path: Path) -> None:
    """The run kept in `subAgents[]` is one child in `tree`, typed, told by its task and
    done with its events: its spawn named no child, so it was two, a spawn `running`
    with no events and an untyped `agent` without a task holding them."""
    home = copy_home(tmp_path)
    result = CliRunner().invoke(main, ["tree", MAIN, "--json", "--home", str(home)])
    assert result.exit_code == 0, result.output
    [child] = json.loads(result.stdout)["children"]
    assert (child["agent_name"], child["description"], child["status"]) == (
        "explore",
        "Find the retry code.",
        "done",
    )
    assert child["events"] == 3
    shown = CliRunner().invoke(main, ["show", MAIN, "--home", str(home)]).stdout
    assert "Spawned sub-agent explore — Find the retry code." in shown
    assert "  ↳ explore It is in checkout/retry.py." in shown


def test_a_second_run_is_never_numbered_as_an_agent_really_so_named(
    tmp_path: Path,
) -> None:
    """A second run of `explore` was `explore-2`, the very id of an agent named
    `explore-2`: their events merged into one child. Each run's id is its own, however
    the names fall, and the same on every read."""
    home = copy_home(tmp_path)
    path = home / SESSIONS / f"{MAIN}.json"
    value = json.loads(path.read_text())
    [run] = value["subAgents"]
    value["subAgents"] = [
        {
            **run,
            "name": name,
            "chatHistory": [
                _exchange(f"req-s{n}", run["finishedAt"], [], [], f"said {n}")
            ],
        }
        for n, name in enumerate(["explore", "explore-2", "explore"])
    ]
    path.write_text(json.dumps(value, indent=2))
    reads = [events(sessions(home)[MAIN]) for _ in range(2)]
    children = [str(e.extra["child_id"]) for e in reads[0] if e.kind == "subagent"]
    assert len(set(children)) == 3, children
    assert reads[0] == reads[1]
    said = {
        e.agent_id: e.text for e in reads[0] if e.kind == "assistant" and e.agent_id
    }
    assert said == {child: f"said {n}" for n, child in enumerate(children)}
    result = CliRunner().invoke(main, ["tree", MAIN, "--json", "--home", str(home)])
    assert len(json.loads(result.stdout)["children"]) == 3
