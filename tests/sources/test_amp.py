"""Amp quirks: whole-file thread JSON, ledger-or-message usage, handoffs kept out of parent_id."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from sessdex import files
from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Session, Usage, merge
from sessdex.sources import Home, amp

DATA = Path(__file__).parent.parent / "data" / "amp"
THREAD = "T-5e1c9a70-2b1f-4c3e-9d7a-0f1e2d3c4b5a"


def sessions(home: Home) -> dict[str, Session]:
    """Every thread, merged from all the files that speak of it, as the index merges."""
    location = amp.locate(home)
    found: dict[str, list[Session]] = {}
    for path in amp.scan(location):
        for session in amp.parse(path, location, Diagnostics()):
            found.setdefault(session.id, []).append(session)
    return {key: merge(parts) for key, parts in found.items()}


def events(session: Session) -> list[Event]:
    return list(amp.read(session, Diagnostics()))


def totals(got: list[Event]) -> Usage:
    return sum((e.usage for e in got if e.usage), Usage())


def test_message_usage_without_a_ledger() -> None:
    got = events(sessions(Home.at(DATA / "home"))[THREAD])
    usage = totals(got)
    assert (usage.input_tokens, usage.output_tokens) == (12 + 40, 180 + 95)
    assert (usage.cache_read_tokens, usage.cache_write_tokens) == (9800, 9800 + 310)
    assert [e.kind for e in got] == [
        "user", "thinking", "assistant", "tool_call", "usage", "tool_result", "assistant", "usage", "turn_end",
    ]  # fmt: skip
    # the test run exited 1: a failed command, shown as it printed
    assert got[5].call_id == got[3].call_id == "toolu_01" and got[5].is_error
    assert got[5].text == "4 passed, 1 failed\nexit code 1"


def test_ledger_events_win_and_sit_after_the_message_they_billed() -> None:
    got = events(sessions(Home.at(DATA / "home"))["test-thread-1"])
    usage = totals(got)
    assert (usage.input_tokens, usage.output_tokens) == (
        150 + 0 + 350 + 500,
        200 + 15 + 450 + 300,
    )
    kinds = [e.kind for e in got]
    assert kinds.count("usage") == 4
    # the title generation billed message 1 (the first prompt); the first reply is message 2
    assert got[1].kind == "usage" and got[1].extra["operation"] == "title-generation"
    assert got[4].kind == "usage" and got[4].extra == {"operation": "conversation"}
    assert got[4].usage is not None and got[4].usage.credits == 5  # Amp's own unit


def test_listing_fields() -> None:
    found = sessions(Home.at(DATA / "home"))
    thread = found[THREAD]
    assert (thread.cwd, thread.branch, thread.model) == (
        "/home/alex/code/shop",
        "fix-checkout",
        "claude-sonnet-4-5",
    )
    assert (
        thread.parent_id is None
        and thread.extra["handoff_parent"] == "T-0b6f2c1e-9a8d-4e7f-b6a5-4c3d2e1f0a9b"
    )
    assert thread.extra["mode"] == "smart"
    assert (
        found["test-thread-edge"].title
        == "Fix the null pointer bug in the checkout flow"
    )  # no title: first prompt


def test_a_failed_tool_run_is_an_error_result(tmp_path: Path) -> None:
    threads = tmp_path / "home" / ".local" / "share" / "amp" / "threads"
    threads.mkdir(parents=True)
    thread = {
        "id": "T-x",
        "created": 1,
        "messages": [
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "t1",
                        "name": "Bash",
                        "input": {"cmd": "x"},
                    }
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "toolUseID": "t1",
                        "run": {"status": "error", "error": "boom"},
                    }
                ],
            },
        ],
    }
    (threads / "T-x.json").write_text(json.dumps(thread))
    got = events(sessions(Home.at(tmp_path / "home"))["T-x"])
    assert got[-1].is_error and got[-1].text == "boom"


def test_xdg_data_home_moves_the_store(tmp_path: Path) -> None:
    location = amp.locate(
        Home(tmp_path, {"XDG_DATA_HOME": str(DATA / "home" / ".local" / "share")})
    )
    assert (
        location.override
        and location.root == DATA / "home" / ".local" / "share" / "amp"
    )


def test_resume_needs_the_threads_folder() -> None:
    found = sessions(Home.at(DATA / "home"))
    plan = amp.resume(found[THREAD])
    assert plan is not None and plan.argv == ("amp", "threads", "continue", THREAD)
    assert plan.cwd == "/home/alex/code/shop" and not plan.withheld
    # checked against amp's own `threads continue --help`: no "unverified" warning, and
    # the package the CLI now ships in (the old name only pulls it in)
    assert plan.notes == ()
    assert plan.install_hint == "npm install -g @ampcode/cli"
    # a thread that names no tree: Amp finds a thread by its id from any folder, so
    # `resume` runs it where the user is (no `cd`), rather than refusing it
    anywhere = amp.resume(found["test-thread-1"])
    assert anywhere is not None and anywhere.cwd == "" and amp.RESUMES_ANYWHERE


def test_a_thread_too_big_to_parse_whole_is_read_in_pieces_to_the_same_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past WHOLE_CAP a thread is listed and read one message at a time (its ledger and
    settings from the members around the messages): the same session and events as a
    whole parse, for every fixture thread."""
    home = Home.at(DATA / "home")
    whole = sessions(home)
    read_whole = {key: events(session) for key, session in whole.items()}
    monkeypatch.setattr(amp, "WHOLE_CAP", 100)
    pieces = sessions(home)
    assert pieces == whole
    for key, session in pieces.items():
        diagnostics = Diagnostics()
        assert list(amp.read(session, diagnostics)) == read_whole[key], key
        assert diagnostics.skipped_total == 0 and not diagnostics.problems
    # not an object, in pieces: counted as a whole parse counts it
    threads = tmp_path / "threads"
    threads.mkdir()
    (threads / "T-list.json").write_text(json.dumps([{"id": "T-list"}] * 20))
    diagnostics = Diagnostics()
    location = amp.locate(Home.at(tmp_path))
    assert amp.parse(threads / "T-list.json", location, diagnostics) == []
    assert diagnostics.skipped == {"not JSON": 1}


def test_summaries_in_the_thread_and_hidden_context(tmp_path: Path) -> None:
    """Public Amp readers agree: an `info` message holding a `summary` block is the
    thread compacted in place; a text block marked `hidden` is context Amp added."""
    import shutil

    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    path = home / ".local/share/amp/threads" / f"{THREAD}.json"
    thread = json.loads(path.read_text())
    first = thread["messages"][0]
    first["content"].insert(
        0,
        {"type": "text", "text": "<attached_files>…</attached_files>", "hidden": True},
    )
    thread["messages"].insert(1, {"role": "info", "messageId": 99, "content": [
        {"type": "summary", "summary": {"type": "message", "summary": "Earlier: set up the repo."}}]})  # fmt: skip
    path.write_text(json.dumps(thread))
    session = sessions(Home.at(home))[THREAD]
    assert session.title and not session.title.startswith("<attached_files>")
    diagnostics = Diagnostics()
    got = list(amp.read(session, diagnostics))
    assert not diagnostics.unknown
    [compaction] = [e for e in got if e.kind == "compaction"]
    assert compaction.text == "Earlier: set up the repo."
    assert [e.extra for e in got if e.kind == "meta"] == [{"hidden": True}]


def test_threads_the_vs_code_extension_kept_are_listed(tmp_path: Path) -> None:
    """Before the CLI's store, Amp's VS Code extension kept threads in its editor's
    globalStorage (`sourcegraph.amp/threads3/T-*.json`; several public readers look there)."""
    import shutil

    store = (
        tmp_path
        / ".config"
        / "Cursor"
        / "User"
        / "globalStorage"
        / "sourcegraph.amp"
        / "threads3"
    )
    store.mkdir(parents=True)
    source = DATA / "home" / ".local/share/amp/threads" / f"{THREAD}.json"
    shutil.copy(source, store / source.name)
    found = sessions(Home.at(tmp_path))
    assert list(found) == [THREAD]
    assert totals(events(found[THREAD])).input_tokens == 12 + 40
    # the extension in a remote editor keeps them in the server install's folder
    remote = tmp_path / ".vscode-server" / "data" / "User" / "globalStorage"
    remote.mkdir(parents=True)
    (store.parent).rename(remote / "sourcegraph.amp")
    assert list(sessions(Home.at(tmp_path))) == [THREAD]


def test_a_response_a_partial_ledger_left_out_counts_its_own_usage(
    tmp_path: Path,
) -> None:
    """A thread's `usageLedger` can miss responses (third-party usage readers met such
    threads): a response the ledger does not bill counts its own `usage`, once. Newer
    threads (`"v": 2`) write `created` as ISO text."""
    import json
    import shutil

    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    path = home / ".local/share/amp/threads/T-test-thread-1.json"
    thread = json.loads(path.read_text())
    thread["v"], thread["created"] = 2, "2026-08-20T10:00:00Z"
    thread["usageLedger"]["events"] = [
        e for e in thread["usageLedger"]["events"] if e["toMessageId"] != 6
    ]
    for message in thread["messages"]:
        if message["messageId"] == 6:
            message["usage"] = {"model": "claude-sonnet-4-20250514", "inputTokens": 200,
                                "outputTokens": 20, "cacheReadInputTokens": 1000}  # fmt: skip
        elif message["messageId"] == 4:  # billed by the ledger: its own usage is not
            message["usage"] = {"inputTokens": 350, "outputTokens": 450}
    path.write_text(json.dumps(thread))
    session = sessions(Home.at(home))["test-thread-1"]
    assert session.created is not None and session.created.isoformat().startswith(
        "2026-08-20T10:00"
    )
    usage = totals(events(session))
    assert (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens) == (
        150 + 0 + 350 + 200,
        200 + 15 + 450 + 20,
        1000,
    )


def test_runs_not_over_stay_open_and_a_task_sub_agent_is_its_own_agent(
    tmp_path: Path,
) -> None:
    """A tool result's `run.status`, as a deobfuscated Amp CLI bundle shows it: a run in
    progress is not a result (it showed as a finished, empty one), one blocked on the
    user asks for approval, a cancelled one says why and an error its message; `Task`
    runs a sub-agent whose progress is its own events."""
    from sessdex.tree import build_tree

    folder = tmp_path / ".local" / "share" / "amp" / "threads"
    folder.mkdir(parents=True)
    spawn = {"type": "tool_use", "id": "toolu_task", "name": "Task",
             "input": {"description": "Explore auth module", "prompt": "Find every caller of login()"}}  # fmt: skip
    bash = {
        "type": "tool_use",
        "id": "toolu_bash",
        "name": "Bash",
        "input": {"cmd": "make test"},
    }
    grep = {"id": "p1", "tool_name": "Grep", "input": {"pattern": "login("},
            "status": "done", "result": ["src/a.ts:3"]}  # fmt: skip

    def thread(ident: str, results: list[dict[str, object]]) -> Session:
        value = {"v": 12, "id": ident, "created": 1767865803494, "title": "Refactor auth",
                 "env": {"initial": {"trees": [{"uri": "file:///w/proj"}]}},
                 "messages": [
                     {"role": "user", "messageId": 0, "meta": {"sentAt": 1767865803494},
                      "content": [{"type": "text", "text": "Refactor auth, run the tests"}]},
                     {"role": "assistant", "messageId": 1, "content": [spawn, bash],
                      "state": {"type": "complete", "stopReason": "tool_use"}},
                     {"role": "user", "messageId": 2, "content": results}]}  # fmt: skip
        (folder / f"{ident}.json").write_text(json.dumps(value))
        return sessions(Home.at(tmp_path))[ident]

    running = thread("T-1", [
        {"type": "tool_result", "toolUseID": "toolu_task", "run": {
            "status": "in-progress", "progress": [{"message": "Searching", "tool_uses": [grep]}]}},
        {"type": "tool_result", "toolUseID": "toolu_bash", "run": {
            "status": "blocked-on-user", "reason": "command not on allowlist",
            "toAllow": ["make test", "make", "*"]}},
    ])  # fmt: skip
    got = events(running)
    assert not [e for e in got if e.kind == "tool_result" and e.agent_id is None]
    [asked] = [e for e in got if e.extra.get("asks") == "approval"]
    assert (asked.tool, asked.call_id, asked.text) == (
        "Bash",
        "toolu_bash",
        "command not on allowlist",
    )
    assert asked.extra["to_allow"] == ["make test", "make", "*"]
    [made] = [e for e in got if e.kind == "subagent"]
    assert (made.text, made.extra) == (
        "Explore auth module",
        {"child_id": "toolu_task", "agent_type": "task"},
    )
    assert [(e.kind, e.tool) for e in got if e.agent_id == "toolu_task"] == [
        ("assistant", None),
        ("tool_call", "Grep"),
        ("tool_result", None),
    ]
    [child] = build_tree(running.id, got).children
    assert (child.status, child.tool_calls) == ("running", 1)

    ended = thread("T-2", [
        {"type": "tool_result", "toolUseID": "toolu_task", "run": {
            "status": "done", "result": "login() is called from src/a.ts:3",
            "progress": [{"message": "Searching", "tool_uses": [grep]}]}},
        {"type": "tool_result", "toolUseID": "toolu_bash", "run": {
            "status": "cancelled", "reason": "user interrupted"}},
    ])  # fmt: skip
    got = events(ended)
    results = {e.call_id: (e.text, e.is_error) for e in got if e.kind == "tool_result"}
    assert results["toolu_task"] == ("login() is called from src/a.ts:3", False)
    assert results["toolu_bash"] == ("user interrupted", True)
    [child] = build_tree(ended.id, got).children
    assert child.status == "done"
    failed = thread("T-3", [
        {"type": "tool_result", "toolUseID": "toolu_bash", "run": {
            "status": "error", "error": {"message": "exit 2: make failed"}}},
    ])  # fmt: skip
    [result] = [e for e in events(failed) if e.kind == "tool_result"]
    assert (result.text, result.is_error) == ("exit 2: make failed", True)


def test_a_pasted_image_in_a_small_thread_is_its_note(tmp_path: Path) -> None:
    """A thread whose one payload is longer than a line sessdex parses whole: listed and
    read in pieces, the payload its note (parsed whole, a 50 MB one was shown whole)."""
    from sessdex import files

    threads = tmp_path / "home" / ".local" / "share" / "amp" / "threads"
    threads.mkdir(parents=True)
    big = "iVBORw0KGgo" + "A" * (files.READ_LINE_CAP + 1000)
    thread = {"id": "T-big", "created": 1, "title": "a screenshot", "messages": [
        {"role": "user", "content": [{"type": "text", "text": "look"}]},
        {"role": "assistant", "content": [{"type": "text", "text": big}]},
    ]}  # fmt: skip
    (threads / "T-big.json").write_text(json.dumps(thread))
    found = sessions(Home.at(tmp_path / "home"))["T-big"]
    assert found.title == "a screenshot"
    got = events(found)
    assert [(e.kind, e.text) for e in got if e.kind in ("user", "assistant")] == [
        ("user", "look"),
        ("assistant", f"[text, {files.human_bytes(len(big))}]"),
    ]


# Where the thread is cut (just past these bytes), the members whole before the cut, and
# how many of its messages: inside the first tree of `env` (before any message), inside
# the tool call's input nested in the first reply, inside the last reply's text, inside
# the handoff link past the messages.
HEAD = ["v", "id", "created", "title", "agentMode", "visibility"]
THREAD_CUTS = [
    (b'"uri": "file:///home/al', HEAD, 0),
    (b'"cmd": "pnpm test che', [*HEAD, "env"], 1),
    (b'"The total is read bef', [*HEAD, "env"], 3),
    (b'"threadID": "T-0b6f', [*HEAD, "env"], 4),
]


def listed(session: Session) -> tuple[object, ...]:
    return (session.id, session.title, session.cwd, session.branch, session.created,
            session.updated, session.model, session.extra)  # fmt: skip


@pytest.mark.parametrize("in_pieces", [False, True])
@pytest.mark.parametrize(("marker", "members", "kept"), THREAD_CUTS)
def test_a_thread_cut_short_is_listed_and_read_to_its_cut(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    marker: bytes,
    members: list[str],
    kept: int,
    in_pieces: bool,
) -> None:
    """A thread file whose write stopped half way (a crash, a full disk) or copied while
    written: listed from its head (title, folder, time), its messages before the cut
    shown and their usage counted, as a thread of what came before the cut; the cut
    counted and said, once. It was skipped whole."""
    home, reference = tmp_path / "home", tmp_path / "reference"
    shutil.copytree(DATA / "home", home)
    shutil.copytree(DATA / "home", reference)
    name = f".local/share/amp/threads/{THREAD}.json"
    data = (home / name).read_bytes()
    document = json.loads(data)
    before = {key: document[key] for key in members}
    if kept:
        before["messages"] = document["messages"][:kept]
    (reference / name).write_text(json.dumps(before, indent=2))
    wanted = sessions(Home.at(reference))[THREAD]
    wanted_events = events(wanted)
    (home / name).write_bytes(data[: data.index(marker) + len(marker)])
    if in_pieces:
        monkeypatch.setattr(amp, "WHOLE_CAP", 100)
        monkeypatch.setattr(files, "CHUNK", 7)
    location = amp.locate(Home.at(home))
    diagnostics = Diagnostics()
    [found] = amp.parse(home / name, location, diagnostics)
    assert listed(found) == listed(wanted)
    assert found.title == "Fix flaky checkout test"
    assert diagnostics.skipped == {"truncated": 1}
    assert [p for p in diagnostics.problems if "cut short" in p]
    diagnostics = Diagnostics()
    got = list(amp.read(found, diagnostics))
    assert got == wanted_events
    assert totals(got) == totals(wanted_events)
    assert diagnostics.skipped == {"truncated": 1}


def test_show_prints_a_cut_thread_to_its_cut_and_says_so(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from sessdex.cli import main

    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    path = home / f".local/share/amp/threads/{THREAD}.json"
    data = path.read_bytes()
    path.write_bytes(data[: data.index(b"The total is read")])
    result = CliRunner().invoke(main, ["show", THREAD[:10], "--home", str(home)])
    assert result.exit_code == 0, result.output
    assert "The checkout test fails one run in five" in result.stdout
    assert "pnpm test checkout --repeat 5" in result.stdout
    assert "cut short" in result.stderr


def test_usage_counts_a_cut_thread_once_when_it_lists_and_reads_it(
    tmp_path: Path,
) -> None:
    """A cold `usage` lists the thread (meeting its cut) and reads it (meeting it again):
    one cut, one unreadable line said, as a warm run says."""
    from click.testing import CliRunner

    from sessdex.cli import main

    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    path = home / f".local/share/amp/threads/{THREAD}.json"
    data = path.read_bytes()
    path.write_bytes(data[: data.index(b"The total is read")])
    for run in ("cold", "warm"):
        result = CliRunner().invoke(main, ["usage", "--home", str(home)])
        assert result.exit_code == 0, result.output
        assert "skipped 1 unreadable line;" in result.stderr, (run, result.stderr)


def test_a_message_two_ledger_entries_bill_counts_its_cache_once(
    tmp_path: Path,
) -> None:
    """The ledger has no cache split: each entry that billed a message took that
    message's, so a message two entries bill counted its 1,000 cache reads as 2,000."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    path = home / ".local/share/amp/threads/T-test-thread-1.json"
    thread = json.loads(path.read_text())
    entries = thread["usageLedger"]["events"]
    assert entries[0]["toMessageId"] == thread["messages"][1]["messageId"] == 2
    entries.insert(1, {**entries[0], "tokens": {"input": 10, "output": 20}})
    thread["messages"][1]["usage"] = {
        "cacheReadInputTokens": 1000,
        "cacheCreationInputTokens": 300,
    }
    path.write_text(json.dumps(thread))
    usage = totals(events(sessions(Home.at(home))["test-thread-1"]))
    assert (usage.cache_read_tokens, usage.cache_write_tokens) == (1000, 300)
    assert usage.input_tokens == 150 + 10 + 0 + 350 + 500  # each entry's own counts
