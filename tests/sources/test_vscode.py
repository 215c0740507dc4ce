"""VS Code Chat quirks: `.json` chats and the `.jsonl` operation log that replays to one,
the folder from `workspace.json`, the log preferred to a stale `.json`, empty-window chats
and their old copies, tool calls kept more than once, edits, sub-agents inside their lead,
errors, usage where Copilot keeps it, and no command to reopen a chat."""

from __future__ import annotations

import json
import shutil
import sqlite3
import tracemalloc
from pathlib import Path

import pytest

from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Session, merge
from sessdex.sources import Home, vscode
from sessdex.sources import _vscode_chat as chat
from tests.helpers import LIST_PATHS, list_rows

DATA = Path(__file__).parent.parent / "data" / "vscode"
HOME = DATA / "home"
USER = Path(".config/Code/User")
SHOP = USER / "workspaceStorage/5d1e0c8b2a4f6e8d0c2b4a6f8e0d2c4b/chatSessions"
AGENT = "3f1c9a52-7d4e-4b6a-9c21-5e8f7a6b4d30"
LOGGED = "8a2d4c6e-1b3f-4a5c-9d7e-2f4a6c8e0b13"
ASKED = "c5e7a9b1-3d5f-4b7d-8e9a-1c3e5a7b9d24"
REMOTE = "e1f3a5c7-9b1d-4f3a-8c5e-7a9b1d3f5e46"
EMPTY_WINDOW = "6b8d0f2a-4c6e-4a8c-9e0b-3d5f7a9c1e57"
UNUSED = "0f2e4d6c-8b0a-4c2e-9d4f-6b8a0c2e4f79"
T0 = 1_795_000_000_000


def sessions(
    home: Path = HOME, diagnostics: Diagnostics | None = None
) -> dict[str, Session]:
    diagnostics = diagnostics if diagnostics is not None else Diagnostics()
    location = vscode.locate(Home.at(home))
    fragments: dict[str, list[Session]] = {}
    for path in vscode.scan(location):
        for session in vscode.parse(Path(path), location, diagnostics):
            fragments.setdefault(session.id, []).append(session)
    return {key: merge(parts) for key, parts in fragments.items()}


def events(session: Session) -> list[Event]:
    diagnostics = Diagnostics()
    found = list(vscode.read(session, diagnostics))
    assert not diagnostics.skipped_total and not diagnostics.unknown
    return found


def log(path: Path, entries: list[object]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")


def state(session_id: str, *requests: object) -> dict[str, object]:
    return {"version": 3, "sessionId": session_id, "creationDate": T0,
            "requests": list(requests)}  # fmt: skip


def asked(text: str, *parts: object, **rest: object) -> dict[str, object]:
    return {"requestId": "request_1", "timestamp": T0, "message": {"text": text},
            "response": list(parts), **rest}  # fmt: skip


def test_each_chat_is_listed_once_from_the_file_vscode_reads() -> None:
    found = sessions()
    assert sorted(found) == sorted(
        [
            AGENT,
            LOGGED,
            ASKED,
            REMOTE,
            EMPTY_WINDOW,
            "9d1f3b5d-7f9b-4d1f-8b3d-5f7b9d1f3b68",
        ]
    )
    # the log, not the .json 1.108 left beside it
    assert found[LOGGED].path and found[LOGGED].path.endswith(f"{LOGGED}.jsonl")
    assert found[LOGGED].extra["store"] == "jsonl"
    # the empty-window chat from its new folder, not its old no-workspace copy
    assert (
        found[EMPTY_WINDOW].path
        and "emptyWindowChatSessions" in found[EMPTY_WINDOW].path
    )
    # a chat view left empty is no chat; Cursor's folders are the cursor reader's
    assert UNUSED not in found
    assert not any("Cursor" in (s.path or "") for s in found.values())


def test_titles_folders_times_and_models() -> None:
    found = sessions()
    agent, logged, asked_ = found[AGENT], found[LOGGED], found[ASKED]
    assert agent.title == "Fix the checkout retry loop"  # customTitle
    assert logged.title == "Who calls retry()"  # set by a later line of the log
    # renamed in VS Code's index (state.vscdb), not in the chat file
    assert asked_.title == "Which build tool does mono use"
    assert found[REMOTE].title == "Where are the logs on this box?"  # first prompt
    assert agent.cwd == "/home/alex/code/shop-api"  # workspace.json's folder
    assert asked_.cwd == "/home/alex/code/mono"  # the .code-workspace file's folder
    remote = found[REMOTE]
    assert remote.cwd is None
    assert remote.extra["workspace"] == "vscode-remote://ssh-remote%2Bbuildbox/srv/app"
    assert found[EMPTY_WINDOW].cwd is None
    assert agent.model == "gpt-4.1"  # the last request's, without Copilot's prefix
    assert agent.updated and agent.updated.isoformat() == "2026-11-18T11:08:44+00:00"


def test_a_title_vscode_holds_in_its_wal_is_read_and_nothing_is_written(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    database = home / USER / "globalStorage" / "state.vscdb"
    writer = sqlite3.connect(database)
    try:
        writer.execute("PRAGMA journal_mode=WAL")
        writer.execute("PRAGMA wal_autocheckpoint=0")
        writer.execute(
            "CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)"
        )
        index = {"version": 1, "entries": {EMPTY_WINDOW: {"title": "Rebase notes"}}}
        writer.execute(
            "INSERT INTO ItemTable VALUES (?, ?)",
            ("chat.ChatSessionStore.index", json.dumps(index)),
        )
        writer.commit()
        wal = Path(f"{database}-wal")
        assert wal.stat().st_size > 0  # VS Code holds it open: nothing checkpointed
        before = {p: p.read_bytes() for p in database.parent.iterdir() if p.is_file()}
        assert sessions(home)[EMPTY_WINDOW].title == "Rebase notes"
        after = {p: p.read_bytes() for p in database.parent.iterdir() if p.is_file()}
        assert after == before
    finally:
        writer.close()


def test_the_log_is_replayed_set_push_cut_and_delete() -> None:
    value = chat.load(HOME / SHOP / f"{LOGGED}.jsonl", Diagnostics())
    assert value is not None
    first, second = chat.requests(value)
    # pushed, cut back to one part (`i`), pushed again
    kinds = [p.get("kind") if isinstance(p, dict) else None for p in first["response"]]  # type: ignore[union-attr]
    assert kinds[1:3] == ["toolInvocationSerialized", "toolInvocationSerialized"]
    assert len(first["response"]) == 4  # type: ignore[arg-type]
    assert second["response"] == [
        {"value": "Renaming now...", "supportThemeIcons": False, "supportHtml": False}
    ]  # a part set in place
    assert "inputText" not in value["inputState"]  # type: ignore[operator]  # deleted


def test_a_mutation_that_leads_nowhere_is_counted_not_applied(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    log(path, [
        {"kind": 1, "k": ["customTitle"], "v": "before any state"},
        {"kind": 0, "v": state("x", asked("hi"))},
        {"kind": 1, "k": ["requests", 3, "result"], "v": {}},
        {"kind": 2, "k": ["requests", 0, "response"], "v": [{"value": "hello"}], "i": -1},
        {"kind": 1, "k": ["customTitle"], "v": "kept"},
        {"kind": 7, "k": []},
    ])  # fmt: skip
    diagnostics = Diagnostics()
    value = chat.load(path, diagnostics)
    assert value is not None and value["customTitle"] == "kept"
    assert chat.requests(value)[0]["response"] == []
    assert diagnostics.skipped["bad value"] == 3
    assert diagnostics.unknown["log entry 7"] == 1


def test_a_fresh_initial_line_replaces_the_state(tmp_path: Path) -> None:
    """VS Code compacts a long log by writing the whole state again."""
    path = tmp_path / "x.jsonl"
    log(path, [
        {"kind": 0, "v": state("x", asked("old"))},
        {"kind": 0, "v": state("x", asked("new"))},
        {"kind": 2, "k": ["requests", 0, "response"], "v": [{"value": "answer"}]},
    ])  # fmt: skip
    value = chat.load(path, Diagnostics())
    assert value is not None
    assert [chat.prompt(r) for r in chat.requests(value)] == ["new"]


def test_tool_calls_pair_with_their_results_once_each() -> None:
    found = events(sessions()[AGENT])
    calls = [e for e in found if e.kind == "tool_call"]
    results = [e for e in found if e.kind == "tool_result"]
    assert [c.call_id for c in calls] == [r.call_id for r in results]
    assert len({c.call_id for c in calls}) == len(calls)  # the read kept twice: once
    by_id = {c.call_id: c for c in calls}
    # Copilot's arguments, tied by the call id
    assert by_id["call_run_1"].extra["input"]["command"] == "pytest -q"  # type: ignore[index,call-overload]
    assert by_id["call_edit_1"].extra["input"]["oldString"] == "    pass\n"  # type: ignore[index,call-overload]
    # VS Code's own record of the input, where Copilot's is not there
    assert by_id["call_read_1"].extra["input"] == {
        "filePath": "/home/alex/code/shop-api/checkout.py"
    }
    outcome = {r.call_id: (r.text, r.is_error) for r in results}
    assert outcome["call_run_1"] == ("1 failed, 4 passed", True)  # exit code 1
    assert outcome["call_read_1"] == ("def checkout(cart):", False)
    assert outcome["call_edit_1"] == ("The file was edited.", False)


def test_an_edit_group_is_a_call_the_views_can_show() -> None:
    found = events(sessions()[AGENT])
    edit = next(e for e in found if e.kind == "tool_call" and e.tool == "textEditGroup")
    assert edit.extra["input"] == {
        "path": "/home/alex/code/shop-api/checkout.py",
        "newText": "    time.sleep(2 ** attempt)\n",
    }
    assert any(e.kind == "tool_result" and e.call_id == edit.call_id for e in found)


def test_markdown_pieces_thinking_usage_and_turns() -> None:
    found = events(sessions()[AGENT])
    said = [e.text for e in found if e.kind == "assistant"]
    assert said[1] == (
        "The loop never sleeps between tries: "
        "`/home/alex/code/shop-api/checkout.py` needs a backoff."
    )
    assert [e.text for e in found if e.kind == "thinking"] == [
        "The test output will say which case fails."
    ]
    usage = [e.usage for e in found if e.kind == "usage"]
    assert len(usage) == 1 and usage[0] is not None
    assert (usage[0].input_tokens, usage[0].output_tokens) == (18250, 640)
    assert usage[0].model == "claude-sonnet-4"
    assert [e.kind for e in found].count("turn_end") == 2
    assert [e.extra for e in found if e.kind == "meta"] == [{"model": "gpt-4.1"}]
    # a chat whose results keep no token counts has no usage: none is made up
    assert not [e for e in events(sessions()[ASKED]) if e.kind == "usage"]


def test_a_sub_agent_runs_inside_its_lead() -> None:
    found = events(sessions()[LOGGED])
    spawn = next(e for e in found if e.kind == "subagent")
    assert spawn.call_id == "call_sub_1" and spawn.extra["child_id"] == "call_sub_1"
    assert spawn.extra["agent_name"] == "Explore"
    inner = [e for e in found if e.agent_id == "call_sub_1"]
    assert [e.kind for e in inner] == ["tool_call", "tool_result"]
    assert inner[0].tool == "copilot_findTextInFiles"
    # the runSubagent call's result comes after the sub-agent's own calls
    result = next(
        e for e in found if e.kind == "tool_result" and e.call_id == "call_sub_1"
    )
    assert result.seq > inner[-1].seq
    assert result.text == "pay.py and ship.py call retry()."
    assert [e.seq for e in found] == list(range(len(found)))


def test_an_error_result_is_an_error_event() -> None:
    found = events(sessions()[LOGGED])
    errors = [e for e in found if e.kind == "error"]
    assert [e.text for e in errors] == ["Sorry, you have exceeded your rate limit."]
    assert errors[0].extra == {"code": "rate_limited"}


def test_a_response_still_going_has_no_turn_end(tmp_path: Path) -> None:
    folder = tmp_path / SHOP
    log(folder / "a.jsonl", [
        {"kind": 0, "v": state("a", asked("go", {"value": "working"},
                                          modelState={"value": 0}))},
    ])  # fmt: skip
    found = events(sessions(tmp_path)["a"])
    assert [e.kind for e in found] == ["user", "assistant"]


def test_a_transferred_chat_is_listed_only_where_no_other_file_has_it(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    moved = home / USER / "globalStorage/transferredChatSessions"
    moved.mkdir(parents=True)
    shutil.copy(home / SHOP / f"{AGENT}.json", moved / f"{AGENT}.json")
    (moved / "only-here.json").write_text(
        json.dumps(state("only-here", asked("moved")))
    )
    found = sessions(home)
    assert found[AGENT].path and "transferredChatSessions" not in found[AGENT].path
    assert found["only-here"].title == "moved"


def test_a_huge_line_is_read_within_bounds(tmp_path: Path) -> None:
    folder = tmp_path / SHOP
    big = "x" * (24 * 1024 * 1024)
    log(folder / "big.jsonl", [
        {"kind": 0, "v": state("big", asked("paste this"))},
        {"kind": 2, "k": ["requests", 0, "response"], "v": [{"value": big}]},
    ])  # fmt: skip
    del big
    (session,) = sessions(tmp_path).values()
    tracemalloc.start()
    try:
        found = events(session)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    answer = next(e for e in found if e.kind == "assistant")
    assert answer.text and len(answer.text) < 100  # a note of its size, not the text
    assert peak < 16 * 1024 * 1024


def test_unknown_parts_and_entries_are_counted_for_doctor() -> None:
    diagnostics = Diagnostics()
    for session in sessions(DATA / "malformed" / "home", diagnostics).values():
        list(vscode.read(session, diagnostics))
    assert diagnostics.unknown["response part brandNewPart"] >= 1
    assert diagnostics.unknown["log entry 9"] >= 1
    assert diagnostics.skipped["not JSON"] >= 1
    assert diagnostics.skipped["bad value"] >= 1


def test_resume_says_how_to_reopen_the_chat_in_vs_code() -> None:
    found = sessions()
    session = found[AGENT]
    assert vscode.resume(session) is None
    said = vscode.resume_refusal(session)
    assert said is not None
    assert "code /home/alex/code/shop-api" in said
    assert '"Fix the checkout retry loop"' in said and "Chat view" in said
    spaced = Session(app="vscode", id="x", cwd="/home/alex/my code", title="t")
    assert "code '/home/alex/my code'" in (vscode.resume_refusal(spaced) or "")
    alone = vscode.resume_refusal(found[EMPTY_WINDOW])
    assert alone is not None and "empty window" in alone


def test_the_override_and_the_server_folder() -> None:
    environ = {"VSCODE_AGENT_FOLDER": str(HOME / ".vscode-server")}
    location = vscode.locate(Home(Path("/nonexistent"), environ))
    assert location.override == f"VSCODE_AGENT_FOLDER={HOME / '.vscode-server'}"
    found = [
        Path(p).name
        for p in vscode.scan(location)
        if vscode.context_of(str(p), location) is None
    ]
    assert found == ["9d1f3b5d-7f9b-4d1f-8b3d-5f7b9d1f3b68.json"]


def test_pieces_of_one_thought_are_one_thinking_event(tmp_path: Path) -> None:
    folder = tmp_path / SHOP
    log(folder / "t.jsonl", [
        {"kind": 0, "v": state("t", asked(
            "think",
            {"kind": "thinking", "value": "The cache ", "id": "th-1"},
            {"kind": "thinking", "value": "is stale.", "id": "th-1"},
            {"kind": "thinking", "value": "Another thought.", "id": "th-2"},
            {"value": "Clearing it."},
        ))},
    ])  # fmt: skip
    found = events(sessions(tmp_path)["t"])
    assert [e.text for e in found if e.kind == "thinking"] == [
        "The cache is stale.\n\nAnother thought."
    ]


def test_a_chat_of_the_first_stores_reads_too(tmp_path: Path) -> None:
    """Before version 3 a prompt could be a bare string, and a response one markdown
    string; VS Code's reader revives both."""
    folder = tmp_path / SHOP
    folder.mkdir(parents=True)
    old = {"version": 1, "sessionId": "v1", "creationDate": T0, "requests": [
        {"requestId": "r1", "timestamp": T0, "message": "what is this repo?",
         "response": "A shop backend.", "isCanceled": True},
    ]}  # fmt: skip
    (folder / "v1.json").write_text(json.dumps(old))
    found = sessions(tmp_path)
    assert found["v1"].title == "what is this repo?"
    read = events(found["v1"])
    assert [(e.kind, e.text) for e in read][:2] == [
        ("user", "what is this repo?"),
        ("assistant", "A shop backend."),
    ]
    assert read[-1].kind == "turn_end" and read[-1].extra == {"reason": "cancelled"}


def test_copilots_arguments_and_results_reach_calls_under_their_suffixed_ids(
    tmp_path: Path,
) -> None:
    """Copilot Chat keeps a call as `<the model's id>__vscode-<n>` in its rounds and its
    results (toolCallingLoop.createInternalToolCallId), while VS Code names the call's
    part by the model's id alone (the chat stream's id): the two are one call."""
    folder = tmp_path / SHOP
    edit = {"kind": "toolInvocationSerialized", "toolCallId": "toolu_01Edit",
            "toolId": "copilot_replaceString", "isComplete": True,
            "invocationMessage": {"value": "Editing a.py"}}  # fmt: skip
    arguments = {"filePath": "/w/a.py", "oldString": "x = 1\n", "newString": "x = 2\n"}
    metadata = {
        "toolCallRounds": [{"id": "round-1", "response": "", "toolInputRetry": 0,
                            "toolCalls": [{"name": "replace_string_in_file",
                                           "id": "toolu_01Edit__vscode-7",
                                           "arguments": json.dumps(arguments)}]}],
        "toolCallResults": {"toolu_01Edit__vscode-7": {
            "$mid": 20, "content": [{"$mid": 21, "value": "Edited a.py."}]}},
    }  # fmt: skip
    log(folder / "s.jsonl", [
        {"kind": 0, "v": state("s", asked("fix a.py", edit,
                                          result={"metadata": metadata}))},
    ])  # fmt: skip
    found = events(sessions(tmp_path)["s"])
    call = next(e for e in found if e.kind == "tool_call")
    assert call.extra["input"] == arguments
    result = next(e for e in found if e.kind == "tool_result")
    assert result.call_id == call.call_id and result.text == "Edited a.py."


def test_an_answer_growing_in_the_log_is_shown_once_in_the_live_view(
    tmp_path: Path,
) -> None:
    """The log's lines change what earlier ones wrote: VS Code sets a response's text
    again as it streams. Each re-read found the answer grown, a new event: `follow`
    printed "Hel", then the whole answer."""
    from sessdex.live import LiveSession
    from sessdex.live_feeds import STORE_SECONDS

    path = tmp_path / SHOP / "g.jsonl"
    log(path, [{"kind": 0, "v": state("g", asked("go", modelState={"value": 0}))}])
    follower = LiveSession(sessions(tmp_path)["g"])
    now = 100.0
    shown = follower.poll(now)

    def write(entry: dict[str, object]) -> None:
        nonlocal now
        with path.open("a", encoding="utf-8") as file:
            file.write(json.dumps(entry) + "\n")
        now += STORE_SECONDS + 1
        shown.extend(follower.poll(now))

    answer = ["requests", 0, "response", 0, "value"]
    write({"kind": 2, "k": ["requests", 0, "response"], "v": [{"value": "Hel"}]})
    write({"kind": 1, "k": answer, "v": "Hello, the answer"})
    write({"kind": 1, "k": answer, "v": "Hello, the answer is 42."})
    write({"kind": 1, "k": ["requests", 0, "modelState"],
           "v": {"value": 1, "completedAt": T0 + 5_000}})  # fmt: skip
    now += STORE_SECONDS + 1
    shown.extend(follower.poll(now))  # nothing written since
    said = [e.text for e in shown if e.kind == "assistant"]
    assert said == ["Hello, the answer is 42."]
    assert [e.kind for e in shown] == ["user", "assistant", "turn_end"]


def test_two_alike_answers_of_one_response_are_both_in_the_live_view(
    tmp_path: Path,
) -> None:
    """A response's parts keep no time of their own: each event has the request's, a
    guess. Two alike (a "Let me look." before each of two calls) are two events, as
    `show` has them; the live view kept the first only."""
    from sessdex.live import LiveSession

    def call(call_id: str) -> dict[str, object]:
        return {"kind": "toolInvocationSerialized", "toolCallId": call_id,
                "toolId": "copilot_readFile", "isComplete": True}  # fmt: skip

    parts = [{"value": "Let me look."}, call("c1"), {"value": "Let me look."},
             call("c2"), {"value": "Done."}]  # fmt: skip
    log(
        tmp_path / SHOP / "a.jsonl", [{"kind": 0, "v": state("a", asked("go", *parts))}]
    )
    session = sessions(tmp_path)["a"]
    shown = LiveSession(session).poll(100.0)
    assert (
        [e.text for e in shown if e.kind == "assistant"]
        == [e.text for e in events(session) if e.kind == "assistant"]
        == ["Let me look.", "Let me look.", "Done."]
    )


def test_a_call_still_running_has_no_result_yet(tmp_path: Path) -> None:
    """VS Code writes a running call's part as it writes a finished one (`toJSON`:
    `isComplete` true), without its result: in a response still open, such a call has
    no result yet. It was given one (its "Running ..." message), and once the call ended
    the live view showed a second result for it."""
    from sessdex.live import LiveSession
    from sessdex.live_feeds import STORE_SECONDS

    running = {"kind": "toolInvocationSerialized", "toolCallId": "c1",
               "toolId": "run_in_terminal", "isComplete": True,
               "invocationMessage": {"value": "Running `make`"}}  # fmt: skip
    path = tmp_path / SHOP / "r.jsonl"
    log(path, [{"kind": 0, "v": state("r", asked("build it", running,
                                                  modelState={"value": 0}))}])  # fmt: skip
    session = sessions(tmp_path)["r"]
    assert [e.kind for e in events(session)] == ["user", "tool_call"]
    follower = LiveSession(session)
    shown = follower.poll(100.0)
    done = {**running, "isComplete": True,
            "resultDetails": {"input": "make", "output": [{"value": "built"}]}}  # fmt: skip
    with path.open("a", encoding="utf-8") as file:
        file.write(json.dumps({"kind": 1, "k": ["requests", 0, "response", 0],
                               "v": done}) + "\n")  # fmt: skip
        file.write(json.dumps({"kind": 1, "k": ["requests", 0, "modelState"],
                               "v": {"value": 1}}) + "\n")  # fmt: skip
    for step in (1, 2):
        shown += follower.poll(100.0 + step * (STORE_SECONDS + 1))
    assert [e.text for e in shown if e.kind == "tool_result"] == ["built"]


def _outputs_log(path: Path, count: int) -> None:
    """A chat whose log pushes `count` calls, each with 1 MB of output: lines under the
    length past which a line's long strings are elided, together far over it."""
    log(path, [{"kind": 0, "v": state(path.stem, asked("read the logs"))}])
    with path.open("a", encoding="utf-8") as file:
        for number in range(count):
            part = {"kind": "toolInvocationSerialized", "toolCallId": f"c{number}",
                    "toolId": "copilot_readFile", "isComplete": True,
                    "resultDetails": {"output": [{"value": f"{number} " + "x" * (1 << 20)}]}}  # fmt: skip
            entry = {"kind": 2, "k": ["requests", 0, "response"], "v": [part]}
            file.write(json.dumps(entry) + "\n")


def test_a_log_of_many_big_lines_is_listed_and_read_in_bounded_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each line is short enough to be read whole, but the state they make holds them
    all: listing took memory as large as the log (256 MB for a 219 MB one)."""
    path = tmp_path / SHOP / "big.jsonl"
    _outputs_log(path, 40)
    location = vscode.locate(Home.at(tmp_path))
    tracemalloc.start()
    try:
        (session,) = vscode.parse(path, location, Diagnostics())
        _, listing = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert session.title == "read the logs"
    assert listing < 24 * 1024 * 1024  # reading its lines alone: 18 MB at the peak
    monkeypatch.setattr(chat, "WHOLE_BUDGET", 8 * 1024 * 1024)
    tracemalloc.start()
    try:
        results = [
            (e.text or "")[:3]
            for e in vscode.read(session, Diagnostics())
            if e.kind == "tool_result"
        ]
        _, reading = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(results) == 40 and results[0] == "0 x"  # the first ones whole
    assert reading < 32 * 1024 * 1024


def test_copilots_conversation_summary_is_a_compaction(tmp_path: Path) -> None:
    """Copilot Chat summarizes a conversation grown past its model's window and keeps
    the summary in the turn's metadata (`summaries`, `summary` before them): the
    history the model sees from then on."""
    summary = {"toolCallRoundId": "round-2", "text": "The user wants retries.",
               "source": "foreground", "usage": {"prompt_tokens": 9000,
                                                 "completion_tokens": 300}}  # fmt: skip
    older = {"toolCallRoundId": "round-1", "text": "Earlier: the user asked."}
    log(tmp_path / SHOP / "c.jsonl", [{"kind": 0, "v": state(
        "c",
        asked("go on", {"value": "Done."},
              result={"metadata": {"summaries": [summary]}}),
        {**asked("and?", {"value": "More."},
                 result={"metadata": {"summary": older}}), "requestId": "r2"},
    )}])  # fmt: skip
    found = events(sessions(tmp_path)["c"])
    compactions = [e for e in found if e.kind == "compaction"]
    assert [e.text for e in compactions] == [
        "The user wants retries.",
        "Earlier: the user asked.",
    ]


def test_copilots_multi_edit_and_patch_inputs_show_as_diffs() -> None:
    """Copilot Chat's multi_replace_string_in_file keeps its edits under `replacements`,
    and apply_patch its patch as `input` beside an `explanation`: the views showed both
    as plain arguments."""
    from sessdex.views.diffs import input_diff

    multi = {"explanation": "Rename", "replacements": [
        {"filePath": "/w/a.py", "oldString": "old_name()\n", "newString": "new_name()\n"},
        {"filePath": "/w/b.py", "oldString": "x = 1\n", "newString": "x = 2\n"},
    ]}  # fmt: skip
    assert [line for line in input_diff(multi) if line[:1] in "+-"] == [
        "-old_name()", "+new_name()", "-x = 1", "+x = 2",
    ]  # fmt: skip
    patch = "*** Begin Patch\n*** Update File: /w/a.py\n@@\n-a\n+b\n*** End Patch\n"
    assert input_diff({"input": patch, "explanation": "Fix a"})[-3:] == [
        "-a", "+b", "*** End Patch",
    ]  # fmt: skip


def test_values_of_the_wrong_type_are_passed_over(tmp_path: Path) -> None:
    """A part's `kind` that is a list, an elapsed time past any date: the listing
    raised OverflowError and the read TypeError."""
    request = asked("go", {"kind": ["markdownContent"], "value": "odd"},
                    {"value": "Fine."},
                    result={"timings": {"totalElapsed": 1e308}})  # fmt: skip
    log(tmp_path / SHOP / "w.jsonl", [{"kind": 0, "v": state("w", request)}])
    diagnostics = Diagnostics()
    session = sessions(tmp_path, diagnostics)["w"]
    assert session.updated is not None
    found = list(vscode.read(session, diagnostics))
    assert [e.text for e in found if e.kind == "assistant"] == ["Fine."]
    assert diagnostics.unknown["response part without kind"] == 1


def test_a_long_chat_of_short_texts_is_listed_and_read(tmp_path: Path) -> None:
    """A chat whose state (a `.json` chat, a log's first line) is still longer than a
    line may be once its long strings are elided (many requests of texts each under
    64 KB: a few agent turns' tool results) was counted "too long" and not listed."""
    requests = [
        {**asked(f"question {n}", {"value": f"answer {n} " + "word " * 400}),
         "requestId": f"r{n}", "timestamp": T0 + n}
        for n in range(2500)
    ]  # fmt: skip
    folder = tmp_path / SHOP
    log(folder / "a.jsonl", [{"kind": 0, "v": state("a", *requests)},
                             {"kind": 1, "k": ["customTitle"], "v": "Many"}])  # fmt: skip
    folder.joinpath("b.json").write_text(json.dumps(state("b", *requests)))
    assert folder.joinpath("b.json").stat().st_size > 4 * 1024 * 1024
    diagnostics = Diagnostics()
    found = sessions(tmp_path, diagnostics)
    assert found["a"].title == "Many" and found["b"].title == "question 0"
    for session in found.values():
        read = list(vscode.read(session, diagnostics))
        prompts = [e.text for e in read if e.kind == "user"]
        assert len(prompts) == 2500 and prompts[-1] == "question 2499"
    assert not diagnostics.skipped_total


def test_a_version_2_chat_is_titled_by_its_computed_title(tmp_path: Path) -> None:
    """VS Code takes a version 2 chat's `computedTitle` as its title (the v3 field
    `customTitle` did not exist), and a chat of the editing session's old location as
    the Chat view's (normalizeSerializableChatData)."""
    folder = tmp_path / SHOP
    folder.mkdir(parents=True)
    old = {**state("v2", asked("first prompt")), "version": 2,
           "computedTitle": "Retry loop", "initialLocation": "editing-session"}  # fmt: skip
    (folder / "v2.json").write_text(json.dumps(old))
    found = sessions(tmp_path)["v2"]
    assert found.title == "Retry loop"
    assert found.extra["location"] == "panel"


def test_a_chat_without_its_requests_is_counted_an_empty_one_is_not(
    tmp_path: Path,
) -> None:
    """Every chat VS Code writes has `requests`, empty until the first prompt: one that
    lacks it is damaged, and doctor says so rather than the chat vanishing unsaid."""
    chats = tmp_path / USER / "globalStorage/emptyWindowChatSessions"
    chats.mkdir(parents=True)
    damaged = state("d", asked("hi"))
    damaged["requestz"] = damaged.pop("requests")
    (chats / "d.json").write_text(json.dumps(damaged), encoding="utf-8")
    (chats / "e.json").write_text(json.dumps(state("e")), encoding="utf-8")
    diagnostics = Diagnostics()
    assert sessions(tmp_path, diagnostics) == {}
    assert diagnostics.skipped == {"no requests": 1}


def test_calls_whose_parts_vscode_named_by_its_own_ids_get_copilots_inputs(
    tmp_path: Path,
) -> None:
    """Real chats of VS Code 1.105 to 1.109 (Copilot Chat 0.3x) name a call's part by a
    UUID of VS Code's own, not by the model's id Copilot keeps in its rounds: the parts
    pair with the rounds' calls in order, leaving out a tool's internal part (an edit
    tool's `vscode_editFile_internal`) that no round asked for."""
    folder = tmp_path / SHOP
    read = {"kind": "toolInvocationSerialized", "isComplete": True,
            "toolCallId": "0b6f1a2e-5c3d-4e7f-9a8b-1c2d3e4f5a6b",
            "toolId": "copilot_readFile",
            "pastTenseMessage": {"value": "Read [](file:///w/notes.txt)"}}  # fmt: skip
    insert = {"kind": "toolInvocationSerialized", "isComplete": True,
              "presentation": "hidden", "invocationMessage": "",
              "toolCallId": "7d8e9f0a-1b2c-4d3e-8f4a-5b6c7d8e9f0a",
              "toolId": "copilot_insertEdit"}  # fmt: skip
    internal = {"kind": "toolInvocationSerialized", "isComplete": True,
                "presentation": "hidden", "invocationMessage": "",
                "toolCallId": "c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f",
                "toolId": "vscode_editFile_internal"}  # fmt: skip
    reading = {"filePath": "/w/notes.txt", "startLine": 1, "endLine": 9}
    inserting = {"filePath": "/w/notes.txt", "code": "tea\n...existing code...\n"}
    metadata = {
        "toolCallRounds": [
            {"id": "r1", "response": "", "toolInputRetry": 0,
             "toolCalls": [{"name": "read_file", "id": "call_Rd__vscode-41",
                            "arguments": json.dumps(reading)}]},
            {"id": "r2", "response": "", "toolInputRetry": 0,
             "toolCalls": [{"name": "insert_edit_into_file", "id": "call_Ins__vscode-42",
                            "arguments": json.dumps(inserting)}]},
        ],
        "toolCallResults": {
            "call_Rd__vscode-41": {"content": [{"value": "milk\nbread\n"}]},
            "call_Ins__vscode-42": {"content": [{"value": "Edited notes.txt"}]},
        },
    }  # fmt: skip
    log(folder / "s.jsonl", [
        {"kind": 0, "v": state("s", asked("add tea", read, insert, internal,
                                          result={"metadata": metadata}))},
    ])  # fmt: skip
    found = events(sessions(tmp_path)["s"])
    calls = [e for e in found if e.kind == "tool_call"]
    results = {e.call_id: e.text for e in found if e.kind == "tool_result"}
    assert [c.extra.get("input") for c in calls] == [reading, inserting]
    assert [results[c.call_id] for c in calls[:2]] == [
        "milk\nbread\n",
        "Edited notes.txt",
    ]


def test_a_result_copilot_kept_as_a_rendered_prompt_tree_is_its_text(
    tmp_path: Path,
) -> None:
    """Copilot Chat keeps a built-in tool's result as the prompt-tsx tree it rendered for
    the model (`{"node": {children: [...]}}`, text in the leaves, real chats of 2025 and
    2026): the result is its text as VS Code makes it (a line break before each leaf
    marked `lineBreakBefore`, an image as `<image>`)."""
    folder = tmp_path / SHOP
    search = {"kind": "toolInvocationSerialized", "toolCallId": "toolu_01Grep",
              "toolId": "copilot_findTextInFiles", "isComplete": True,
              "pastTenseMessage": {"value": "Searched text for `tea`"}}  # fmt: skip
    leaf = {"type": 2, "priority": 5, "lineBreakBefore": False}
    tree = {"node": {"type": 1, "ctor": 2, "ctorName": "Xy", "props": {}, "children": [
        {**leaf, "text": "2 matches", "lineBreakBefore": True},
        {"type": 1, "ctor": 2, "ctorName": "", "props": {}, "children": [
            {**leaf, "text": "<match path=\"/w/a.txt\" line=3>\n", "lineBreakBefore": True},
            {**leaf, "text": "green tea", "lineBreakBefore": True},
            {**leaf, "text": "\n"},
            {**leaf, "text": "</match>"},
        ]},
        {"type": 1, "ctor": 3, "children": []},
    ]}}  # fmt: skip
    metadata = {
        "toolCallRounds": [{"id": "r1", "response": "", "toolInputRetry": 0,
                            "toolCalls": [{"name": "grep_search", "id": "toolu_01Grep",
                                           "arguments": "{\"query\": \"tea\"}"}]}],
        "toolCallResults": {"toolu_01Grep": {"$mid": 20, "content": [
            {"$mid": 23, "value": tree}]}},
    }  # fmt: skip
    log(folder / "s.jsonl", [
        {"kind": 0, "v": state("s", asked("find tea", search,
                                          result={"metadata": metadata}))},
    ])  # fmt: skip
    found = events(sessions(tmp_path)["s"])
    result = next(e for e in found if e.kind == "tool_result")
    assert result.text == (
        '2 matches\n<match path="/w/a.txt" line=3>\n\ngreen tea\n</match><image>'
    )


def test_the_empty_code_fence_around_an_edits_code_block_is_not_an_answer(
    tmp_path: Path,
) -> None:
    """Copilot writes an edit as a code block whose content is the edited file's (a fence,
    VS Code's `codeblockUri`, a fence; the edit group before or after the closing one):
    the bare fences are no part of the answer, and leave no code block open after it."""
    folder = tmp_path / SHOP
    fence = {"value": "\n````\n", "supportThemeIcons": False}
    uri = {"$mid": 1, "fsPath": "/w/a.txt", "path": "/w/a.txt", "scheme": "file"}
    edit = {"kind": "textEditGroup", "uri": uri, "done": True,
            "edits": [[{"text": "tea", "range": {"startLineNumber": 1}}]]}  # fmt: skip
    block = [fence, {"kind": "undoStop", "id": "u1"},
             {"kind": "codeblockUri", "uri": uri, "isEdit": True}]  # fmt: skip
    for name, parts in (("s", [*block, fence, edit]), ("t", [*block, edit, fence])):
        log(folder / f"{name}.jsonl", [
            {"kind": 0, "v": state(name, asked(
                "add tea", {"value": "Adding it."}, *parts,
                {"value": "Done: the list has tea."},
            ))},
        ])  # fmt: skip
    found = sessions(tmp_path)
    for name in ("s", "t"):
        read = events(found[name])
        said = [e.text for e in read if e.kind == "assistant"]
        assert said == ["Adding it.", "Done: the list has tea."]
        assert [e.tool for e in read if e.kind == "tool_call"] == ["textEditGroup"]


def test_the_counts_vscode_keeps_on_the_request_are_the_turns_usage(
    tmp_path: Path,
) -> None:
    """VS Code of 2026 keeps a request's own `promptTokens` and `completionTokens` beside
    its `modelId` (a real chat exported in September 2026, an OpenAI model whose result
    metadata has no counts): read as the turn's usage where Copilot's metadata has none."""
    folder = tmp_path / SHOP
    log(folder / "s.jsonl", [
        {"kind": 0, "v": state("s", asked(
            "sum the column", {"value": "It sums to 12."},
            modelId="copilot/gpt-5-mini", promptTokens=9100, completionTokens=240,
            copilotCredits=0.4, result={"metadata": {"resolvedModel": "gpt-5-mini"}},
        ))},
    ])  # fmt: skip
    found = events(sessions(tmp_path)["s"])
    usage = [e.usage for e in found if e.kind == "usage"]
    assert len(usage) == 1 and usage[0] is not None
    assert (usage[0].input_tokens, usage[0].output_tokens) == (9100, 240)
    assert usage[0].model == "gpt-5-mini"


def test_a_request_on_auto_is_the_model_auto_picked(tmp_path: Path) -> None:
    """A request on the model picker's Auto is `copilot/auto`; the model Auto picked is in
    an `autoModeResolution` part (`resolved: {id, name}`, a real export of 2026) and in
    Copilot's `resolvedModel`: that is the turn's model, and the part is no unknown."""
    folder = tmp_path / SHOP
    pick = {
        "kind": "autoModeResolution",
        "resolved": {"id": "gpt-9-nano", "name": "Nano"},
    }
    log(folder / "s.jsonl", [
        {"kind": 0, "v": state(
            "s",
            asked("first", pick, {"value": "One."}, modelId="copilot/auto",
                  promptTokens=100, completionTokens=10),
            {**asked("second", {"value": "Two."}, modelId="copilot/auto",
                     promptTokens=200, completionTokens=20,
                     result={"metadata": {"resolvedModel": "gpt-9-mini"}}),
             "requestId": "request_2"},
        )},
    ])  # fmt: skip
    session = sessions(tmp_path)["s"]
    assert session.model == "gpt-9-mini"
    found = events(session)
    assert [e.usage.model for e in found if e.usage] == ["gpt-9-nano", "gpt-9-mini"]


REAL = DATA / "real" / "home"  # real chats of VS Code, October 2025 and February 2026


def test_real_chats_list_and_read_as_vscode_shows_them() -> None:
    """Two chats VS Code wrote (see PROVENANCE.md): a `.json` of October 2025 (Copilot
    Chat, Claude Sonnet 4: a replace-string edit, a text search) and a `.jsonl` log of
    February 2026 (Copilot Chat 0.37.1, GPT-4o: a file read, an insert edit and its
    internal part, a second request pushed)."""
    found = sessions(REAL)
    old = found["331fed7f-cfd6-409c-8502-06a56322b636"]
    log_ = found["7de89a80-6d93-43e7-be0a-0a9afe980198"]
    assert (old.title, old.model) == (
        "Assistance with TypeScript project tasks",
        "claude-sonnet-4",
    )
    assert (log_.title, log_.model) == ("Adding a joke to jokes.csv file", "gpt-4o")
    assert old.cwd == log_.cwd == "/Users/alex/projects/testing-git"
    assert old.created is not None and old.created.isoformat().startswith(
        "2025-10-07T13:50"
    )
    assert log_.updated is not None and log_.updated.isoformat().startswith(
        "2026-02-08T20:43"
    )
    read = events(old)
    assert [e.text for e in read if e.kind == "user"] == [
        "What can you help me with?",
        "Change Bonjour World to hello world",
        "Search for any other mentions of Bonjour",
    ]
    calls = [e for e in read if e.kind == "tool_call"]
    assert [c.tool for c in calls] == [
        "copilot_replaceString", "textEditGroup", "copilot_findTextInFiles"
    ]  # fmt: skip
    replace = calls[0].extra["input"]
    assert isinstance(replace, dict) and "hello world" in str(replace["newString"])
    assert calls[2].extra["input"] == {"query": "Bonjour", "isRegexp": False}
    results = {e.call_id: e.text or "" for e in read if e.kind == "tool_result"}
    assert results[calls[0].call_id].startswith(
        "The following files were successfully edited:"
    )
    assert not any((e.text or "").strip().startswith("```") and len((e.text or "").strip()) <= 4
                   for e in read if e.kind == "assistant")  # fmt: skip
    read = events(log_)
    calls = [e for e in read if e.kind == "tool_call"]
    assert [c.tool for c in calls] == [
        "copilot_readFile", "copilot_insertEdit", "textEditGroup"
    ]  # fmt: skip
    assert calls[0].extra["input"] == {
        "filePath": "/Users/alex/projects/testing-git/jokes.csv",
        "startLine": 1, "endLine": 20,
    }  # fmt: skip
    results = {e.call_id: e.text or "" for e in read if e.kind == "tool_result"}
    assert "1,Why do programmers prefer dark mode?" in results[calls[0].call_id]
    assert [e.kind for e in read].count("turn_end") == 2
    assert not [e for e in read if e.kind == "usage"]  # neither file keeps a count


def test_a_searchs_result_is_what_the_model_read_not_only_the_files_it_found(
    tmp_path: Path,
) -> None:
    """A text search's part keeps the files it found (`resultDetails`, a list of
    locations: what VS Code's view shows), Copilot the matches the model read: the result
    is the latter where it is kept (a real chat of October 2025)."""
    folder = tmp_path / SHOP
    where = {"uri": {"$mid": 1, "fsPath": "/w/a.txt", "path": "/w/a.txt", "scheme": "file"},
             "range": {"startLineNumber": 3, "startColumn": 1}}  # fmt: skip
    search = {"kind": "toolInvocationSerialized", "toolCallId": "toolu_01Find",
              "toolId": "copilot_findTextInFiles", "isComplete": True,
              "resultDetails": [where],
              "pastTenseMessage": {"value": "Searched text for `tea`, 1 result"}}  # fmt: skip
    metadata = {
        "toolCallRounds": [{"id": "r1", "response": "", "toolInputRetry": 0,
                            "toolCalls": [{"name": "grep_search", "id": "toolu_01Find",
                                           "arguments": "{\"query\": \"tea\"}"}]}],
        "toolCallResults": {"toolu_01Find": {"content": [
            {"value": "1 match\n<match path=\"/w/a.txt\" line=3>\ngreen tea\n</match>"}]}},
    }  # fmt: skip
    log(folder / "s.jsonl", [
        {"kind": 0, "v": state("s", asked("find tea", search,
                                          result={"metadata": metadata}))},
    ])  # fmt: skip
    found = events(sessions(tmp_path)["s"])
    result = next(e for e in found if e.kind == "tool_result")
    assert result.text is not None and "green tea" in result.text


def test_a_tools_hidden_internal_part_is_not_a_call_of_its_own(tmp_path: Path) -> None:
    """An edit tool runs VS Code's `vscode_editFile_internal` and VS Code keeps that as a
    hidden part (`presentation` "hidden", no input, no result; a real chat of February
    2026): the model never called it and VS Code shows nothing for it."""
    folder = tmp_path / SHOP
    internal = {"kind": "toolInvocationSerialized", "isComplete": True,
                "presentation": "hidden", "invocationMessage": "",
                "toolCallId": "5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9",
                "toolId": "vscode_editFile_internal"}  # fmt: skip
    log(folder / "s.jsonl", [
        {"kind": 0, "v": state("s", asked("add tea", {"value": "Adding."}, internal,
                                          {"value": " Done."}))},
    ])  # fmt: skip
    found = events(sessions(tmp_path)["s"])
    assert [e.kind for e in found if e.kind.startswith("tool")] == []


@LIST_PATHS
def test_a_workspace_json_changed_alone_is_read_again_by_a_warm_list(
    listing: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a chat's folder comes from its workspace's workspace.json, which no chat's file
    # holds: a warm `list` kept the folder it said before it changed, a cold one not
    home = tmp_path / "home"
    shutil.copytree(HOME, home)

    def listed(state: str) -> dict[str, object]:
        rows = list_rows(home, tmp_path / state, monkeypatch, listing=listing)
        return {key: row["cwd"] for key, row in rows.items()}

    before = listed("warm")
    (home / SHOP).parent.joinpath("workspace.json").write_text(
        '{"folder": "file:///home/alex/code/shop"}'
    )
    warm = listed("warm")
    assert warm == listed("cold")
    assert warm[AGENT] == "/home/alex/code/shop" != before[AGENT]


@LIST_PATHS
def test_a_state_vscdb_cut_alone_lists_its_chats_title_warm_as_cold(
    listing: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a chat renamed from VS Code's history list has its title in the workspace's
    # state.vscdb only: cut (a crash, a disk that filled), a cold `list` shows the first
    # prompt, where a warm one kept the title the database held before
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    database = next(
        path for path in home.rglob("state.vscdb") if "workspaceStorage" in path.parts
    )

    # another chat of the workspace, listed first: the index read for it is kept for
    # the next (VS Code's index is one value for all of them)
    chats = database.parent / "chatSessions"
    shutil.copy(
        chats / f"{ASKED}.json", chats / "0aaaaaaa-0000-4000-8000-000000000000.json"
    )

    def listed(state: str) -> dict[str, object]:
        rows = list_rows(home, tmp_path / state, monkeypatch, listing=listing)
        return {key: row["title"] for key, row in rows.items()}

    assert listed("warm")[ASKED] == "Which build tool does mono use"
    database.write_bytes(database.read_bytes()[:100])
    warm = listed("warm")
    assert warm == listed("cold")
    assert warm[ASKED] != "Which build tool does mono use"


def test_a_chat_log_its_user_may_not_read_is_said_not_passed_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A `.jsonl` chat log the system refuses to open (chmod 000, another user's) is a
    file refused, counted as skipped, as a `.json` chat is: its chat went unlisted
    without a word (scripts/fuzz-homes.py --denied 91136, the real VS Code home)."""
    from sessdex import files

    log = HOME / SHOP / f"{LOGGED}.jsonl"
    opened = files.open_binary

    def refusing(path: object, *args: object, **kwargs: object) -> object:
        if str(path) == str(log):
            raise PermissionError(13, "Permission denied", str(path))
        return opened(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(files, "open_binary", refusing)
    diagnostics = Diagnostics()
    assert vscode.parse(log, vscode.locate(Home.at(HOME)), diagnostics) == []
    assert diagnostics.skipped_total == 1
    assert [path for path, _, _ in diagnostics.details] == [str(log)]
