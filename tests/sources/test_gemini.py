"""Gemini CLI quirks: last write wins, `$set` summaries, rewinds, checkpoints, sub-agent chats."""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import files
from sessdex.cli import main
from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Session, Usage, merge
from sessdex.sources import Home, _json_chat, gemini
from tests.helpers import LIST_PATHS, list_rows

HOME = Path(__file__).parent.parent / "data" / "gemini" / "home"
SHOP = "/home/alex/code/shop-api"
BASIC = "91700103-d86c-4b78-a644-1859e018e21c"
DELEGATING = "b44832f3-f4fa-4a19-8699-656bec90e64d"
CHILD = "85b47322-1c7f-4f31-830e-607bca07767c"
REWOUND = "c0ffee12-3b4a-4c5d-8e6f-7a8b9c0d1e2f"
COMPRESSED = "d00dfeed-1111-4222-8333-944455556666"
LEGACY = "5a1e9c3b-7d2e-4f10-9a3b-0c1d2e3f4a5b"
UNMAPPED = "5e55a0f1-2b3c-4d5e-8f70-819203a4b5c6"


def sessions(home: Path = HOME) -> dict[str, Session]:
    location = gemini.locate(Home.at(home))
    fragments: dict[str, list[Session]] = {}
    for path in gemini.scan(location):
        for session in gemini.parse(path, location, Diagnostics()):
            fragments.setdefault(session.id, []).append(session)
    return {key: merge(parts) for key, parts in fragments.items()}


def events(session_id: str) -> list[Event]:
    diagnostics = Diagnostics()
    found = list(gemini.read(sessions()[session_id], diagnostics))
    assert diagnostics.skipped_total == 0 and not diagnostics.unknown
    return found


def texts(found: list[Event], kind: str, agent: str | None = None) -> list[str]:
    return [e.text or "" for e in found if e.kind == kind and e.agent_id == agent]


def total(found: list[Event], agent: str | None = None) -> Usage:
    usage = Usage()
    for event in found:
        if event.usage is not None and event.agent_id == agent:
            usage += event.usage
    return usage


def test_rewritten_messages_and_resume_checkpoints_are_read_once() -> None:
    found = events(BASIC)
    assert texts(found, "user") == [
        "SCENARIO=basic Please run the greeting shell command and tell me what it printed.",
        "SCENARIO=resume Please run the greeting command once more after resuming.",
    ]
    # each tool call was written twice, and the resume checkpoint restated the first one
    calls = [e.call_id for e in found if e.kind == "tool_call"]
    results = [e.call_id for e in found if e.kind == "tool_result"]
    assert len(calls) == 2 and calls == results
    assert [e.kind for e in found].count("turn_end") == 2
    # four model responses of 1200 in / 30 out, each counted once
    assert total(found) == Usage(
        input_tokens=4800, output_tokens=120, model="gemini-3.8-flash"
    )


def test_summary_written_later_is_the_title() -> None:
    found = sessions()
    assert (
        found[DELEGATING].title
        == "Ran the greeting shell command in the shop repository."
    )
    assert found[REWOUND].title == "Fix login redirect loop with an allow-list"
    # no summary: the first typed message, never the <session_context> preamble
    assert found[BASIC].title and found[BASIC].title.startswith("SCENARIO=basic")


def test_rewind_drops_messages_but_keeps_their_billed_tokens() -> None:
    found = events(REWOUND)
    assert (
        texts(found, "user")
        == [
            "Fix the login redirect loop in @src/auth.ts",  # displayContent, not the expanded file
            "Keep the query parameter but check it against an allow-list.",
        ]
    )
    assert "Switching to a cookie-based guard." not in texts(found, "assistant")
    rewind = next(e for e in found if e.kind == "meta" and e.extra.get("rewound"))
    assert rewind.extra["rewound"] == 2
    rewound_usage = [e for e in found if e.kind == "usage" and e.extra.get("rewound")]
    assert [e.usage for e in rewound_usage] == [
        Usage(
            input_tokens=1000,
            output_tokens=150,
            cache_read_tokens=6000,
            model="gemini-3.8-pro",
        )
    ]
    # g1 2000/200/3000 (80 thoughts), g2 1000/200/5000, rewound g3 1000/150/6000,
    # g4 1010 (7500 - 6500 cached + 10 tool)/340 (300 + 40 thoughts)/6500
    assert total(found) == Usage(
        input_tokens=5010,
        output_tokens=890,
        cache_read_tokens=20500,
        reasoning_tokens=120,
        model="gemini-3.8-pro",
    )
    assert (
        texts(found, "thinking")[0]
        == "Looking at auth\nThe redirect happens in the guard."
    )


def test_compression_checkpoint_is_a_compaction_with_its_summary() -> None:
    found = events(COMPRESSED)
    compaction = next(e for e in found if e.kind == "compaction")
    assert compaction.text and compaction.text.startswith(
        "<state_snapshot>Migration 0042"
    )
    assert compaction.extra["replaced_messages"] == 2
    assert texts(found, "user") == [
        "Write a migration for the sessions table.",
        "Now backfill expires_at.",
        "Add an index on expires_at.",
    ]
    order = [e.kind for e in found]
    assert order.index("compaction") < order.index("user", order.index("compaction"))
    assert total(found) == Usage(
        input_tokens=3100, output_tokens=280, model="gemini-3.8-flash"
    )


def test_subagent_chat_is_linked_and_read_inside_its_parent() -> None:
    listed = sessions()
    assert listed[CHILD].parent_id == DELEGATING
    assert listed[CHILD].cwd == SHOP
    found = events(DELEGATING)
    spawn = next(e for e in found if e.kind == "subagent")
    assert spawn.call_id == "invoke_agent__invoke_agent_1796026317242_0"
    assert spawn.extra == {"child_id": CHILD, "agent_type": "generalist"}
    assert spawn.text and spawn.text.startswith("SCENARIO=child")
    child = [e for e in found if e.agent_id == CHILD]
    assert [e.tool for e in child if e.kind == "tool_call"] == [
        "run_shell_command",
        "complete_task",
    ]
    result = next(
        e for e in found if e.kind == "tool_result" and e.call_id == spawn.call_id
    )
    assert spawn.seq < child[0].seq and child[-1].seq < result.seq
    assert total(found) == Usage(
        input_tokens=2400, output_tokens=60, model="gemini-3.8-flash"
    )
    assert total(found, CHILD) == Usage(
        input_tokens=2400, output_tokens=60, model="gemini-3.8-flash"
    )


def test_project_folders_map_back_to_a_cwd_or_say_unknown() -> None:
    listed = sessions()
    assert listed[BASIC].cwd == SHOP  # .project_root marker
    assert (
        listed[REWOUND].cwd == "/home/dev/webapp"
    )  # marker only, not in projects.json
    assert (
        listed[LEGACY].cwd == "/home/dev/legacy-app"
    )  # sha256 folder matched via projects.json
    assert listed[UNMAPPED].cwd is None
    assert gemini.resume(listed[UNMAPPED]) is None


def _hashed_chat(home: Path, folder: str, tool_args: dict[str, str] | None) -> str:
    """A one-file chat of gemini 0.2-0.28 under tmp/<sha256 of folder>/chats/."""
    digest = hashlib.sha256(folder.encode()).hexdigest()
    chats = home / ".gemini" / "tmp" / digest / "chats"
    chats.mkdir(parents=True)
    session_id = f"{digest[:8]}-0000-4000-8000-000000000001"
    answer: dict[str, object] = {"id": "g1", "timestamp": "2025-09-02T10:00:02.000Z",
                                 "type": "gemini", "content": "Done.", "model": "gemini-2.5-pro"}  # fmt: skip
    if tool_args is not None:
        answer["toolCalls"] = [{"id": "read_file-1", "name": "read_file", "args": tool_args,
                                "status": "success", "timestamp": "2025-09-02T10:00:01.500Z"}]  # fmt: skip
    document = {"sessionId": session_id, "projectHash": digest,
                "startTime": "2025-09-02T10:00:00.000Z", "lastUpdated": "2025-09-02T10:00:02.000Z",
                "messages": [{"id": "u1", "timestamp": "2025-09-02T10:00:01.000Z",
                              "type": "user", "content": "Look at the app"}, answer]}  # fmt: skip
    (chats / f"session-2025-09-02T10-00-{digest[:8]}.json").write_text(
        json.dumps(document, indent=2)
    )
    return session_id


def test_a_hashed_project_folder_maps_back_through_the_tools_paths_or_trusted_folders(
    tmp_path: Path,
) -> None:
    """Before 0.29 a project's folder was the sha256 of its path, and no projects.json
    names one the user has not opened since: a path its tools took, or a trusted folder,
    whose hash is the folder's name says where it ran."""
    home = tmp_path / "home"
    by_tool = _hashed_chat(
        home, "/home/dev/shop", {"absolute_path": "/home/dev/shop/src/app.py"}
    )
    by_trust = _hashed_chat(home, "/home/dev/docs", None)
    outside = _hashed_chat(home, "/home/dev/elsewhere", {"absolute_path": "/etc/hosts"})
    (home / ".gemini" / "trustedFolders.json").write_text(
        '{\n  // written by the trust dialog\n  "/home/dev/docs": "TRUST_FOLDER"\n}'
    )
    listed = sessions(home)
    assert listed[by_tool].cwd == "/home/dev/shop"
    assert listed[by_trust].cwd == "/home/dev/docs"
    assert listed[outside].cwd is None
    plan = gemini.resume(listed[by_tool])
    assert plan is not None and plan.cwd == "/home/dev/shop"


def test_legacy_one_file_chat_reads_with_errors_and_usage() -> None:
    found = events(LEGACY)
    failed = next(e for e in found if e.kind == "tool_result")
    assert (
        failed.is_error
        and failed.text == "Command exited with code 1: 1 failed, 12 passed"
    )
    assert total(found) == Usage(
        input_tokens=300,
        output_tokens=50,
        cache_read_tokens=100,
        model="gemini-2.5-pro",
    )


def test_converted_legacy_chat_lists_once_from_its_jsonl(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    chats = next((home / ".gemini" / "tmp").glob("2136a249*/chats"))
    legacy = chats / "session-2025-11-02T10-15-5a1e9c3b.json"
    document = json.loads(legacy.read_text())
    header = {
        k: document[k] for k in ("sessionId", "projectHash", "startTime", "lastUpdated")
    }
    lines = [
        header,
        *document["messages"],
        {"$set": {"lastUpdated": "2026-01-05T10:00:00.000Z"}},
    ]
    (chats / (legacy.name + "l")).write_text(
        "".join(json.dumps(r) + "\n" for r in lines)
    )
    session = sessions(home)[LEGACY]
    assert session.path and session.path.endswith(".jsonl")
    assert (
        session.updated and session.updated.isoformat() == "2026-01-05T10:00:00+00:00"
    )


def test_resume_keeps_model_and_withholds_loose_approval_modes() -> None:
    session = sessions()[BASIC]
    plan = gemini.resume(session)
    assert plan is not None
    assert plan.argv == ("gemini", "--resume", BASIC, "--model", "gemini-3.8-flash")
    assert plan.cwd == SHOP and plan.program == "gemini" and not plan.withheld
    strict = gemini.resume(replace(session, permission_mode="plan"))
    assert strict is not None and strict.argv[-2:] == ("--approval-mode", "plan")
    loose = gemini.resume(replace(session, permission_mode="yolo"))
    assert loose is not None and "--approval-mode" not in loose.argv
    assert loose.withheld == ("--approval-mode yolo",)
    kept = gemini.resume(
        replace(session, permission_mode="yolo"), keep_permissions=True
    )
    assert kept is not None and kept.argv[-2:] == ("--approval-mode", "yolo")
    assert gemini.resume(sessions()[CHILD]) is None


def test_tail_read_from_an_offset_sees_only_new_records() -> None:
    session = sessions()[BASIC]
    assert session.path
    data = Path(session.path).read_bytes()
    start = data.index(b'{"id":"96d0a780')  # the resumed turn's prompt
    for offset in (start, start - 20):  # at a line start, or inside the line before
        diagnostics = Diagnostics()
        found = list(gemini.read(session, diagnostics, offset=offset))
        assert texts(found, "user") == [
            "SCENARIO=resume Please run the greeting command once more after resuming."
        ]
        assert [e.seq for e in found] == list(range(len(found)))
        assert diagnostics.skipped_total == 0


def test_a_pasted_payload_in_a_legacy_chat_is_summarised(tmp_path: Path) -> None:
    """A legacy chat holding a message longer than a line parsed whole: read a message
    at a time, the payload shown as its note (parsed whole, a 50 MB one was printed
    whole and held three times over)."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    path = Path(str(sessions(home)[LEGACY].path))
    chat = json.loads(path.read_bytes())
    big = "iVBORw0KGgo" + "A" * (files.READ_LINE_CAP + 1000)
    chat["messages"][0]["content"] = big
    path.write_text(json.dumps(chat, indent=2))
    found = list(gemini.read(sessions(home)[LEGACY], Diagnostics()))
    assert found[0].kind == "user"
    assert found[0].text == f"[text, {files.human_bytes(len(big))}]"
    assert max(len(e.text or "") for e in found) < 1000


def test_a_one_file_chat_too_big_to_parse_is_listed_from_its_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A legacy chat over the listing limit is still listed (id, folder, times, title
    from its top-level members at either end); one over the reading limit is read one
    message at a time, to the same events as a whole parse."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    small = sessions(home)[LEGACY]
    monkeypatch.setattr(_json_chat, "LIST_LIMIT", 100)
    big = sessions(home)[LEGACY]
    assert (big.title, big.cwd, big.created, big.updated) == (
        small.title,
        small.cwd,
        small.created,
        small.updated,
    )
    whole = list(gemini.read(big, Diagnostics()))
    assert len(whole) > 4
    monkeypatch.setattr(_json_chat, "READ_LIMIT", 100)
    diagnostics = Diagnostics()
    assert list(gemini.read(big, diagnostics)) == whole
    assert diagnostics.skipped_total == 0 and not diagnostics.problems
    # written on one line (not as Gemini lays it out): its members read a piece at a time
    path = Path(str(small.path))
    path.write_bytes(json.dumps(json.loads(path.read_bytes())).encode())
    diagnostics = Diagnostics()
    location = gemini.locate(Home.at(home))
    [compact] = gemini.parse(path, location, diagnostics)
    assert (compact.id, compact.title, compact.updated) == (
        small.id,
        small.title,
        small.updated,
    )
    assert diagnostics.skipped_total == 0


def test_a_chat_too_big_to_list_whole_without_a_summary_is_titled_by_its_first_prompt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A legacy chat listed from its ends, without a summary, takes its first prompt
    from its head; a payload pasted before it (too long to keep) titles nothing."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    path = Path(str(sessions(home)[LEGACY].path))
    (path.parent.parent / "logs.json").unlink()  # no prompt log to title it either
    chat = json.loads(path.read_bytes())
    del chat["summary"]
    path.write_text(json.dumps(chat, indent=2))
    monkeypatch.setattr(_json_chat, "LIST_LIMIT", 100)
    assert sessions(home)[LEGACY].title == "Run the test suite"
    pasted = {"id": "p", "type": "user", "content": "x" * (files.READ_LINE_CAP + 10)}
    chat["messages"].insert(0, pasted)
    path.write_text(json.dumps(chat, indent=2))
    assert sessions(home)[LEGACY].title == "Run the test suite"


def test_a_chat_whose_first_line_is_too_long_to_hold_is_listed_from_what_is_readable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 20 MB string in a chat's first line (its header) cuts the header short: the
    session is listed from its first bytes and the messages, as before the cut, its start
    the first message's time where the cut took the header's."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    path = Path(str(sessions(home)[COMPRESSED].path))
    before = list_rows(home, tmp_path / "before", monkeypatch, "--all")[COMPRESSED]
    lines = path.read_bytes().split(b"\n")
    header = json.loads(lines[0])
    header["projectHash"] = "x" * 20_000_000
    lines[0] = json.dumps(header).encode()
    path.write_bytes(b"\n".join(lines))
    after = list_rows(home, tmp_path / "after", monkeypatch, "--all")[COMPRESSED]
    assert (
        after["title"] == before["title"] == "Write a migration for the sessions table."
    )
    assert after["cwd"] == before["cwd"] == "/home/dev/webapp"
    assert after["updated"] == before["updated"]
    assert after["created"] == "2026-12-02T14:30:10.000Z"  # its first message


def test_a_rerecorded_history_is_not_shown_twice(tmp_path: Path) -> None:
    """When Gemini masks old tool output (or trims content) it writes every message of
    the history again under a new id, with no tokens, then a checkpoint naming only the
    copies (gemini-cli client.ts `setHistory`, chatRecordingService `$set.messages`). The
    transcript keeps the originals once, marks the rewrite, and goes on after it."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    path = next(home.rglob("session-*91700103.jsonl"))
    before = events(BASIC)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    kept = [m for m in lines if "id" in m and m.get("type") in ("user", "gemini")]
    copies = [
        dict(m, id=f"copy-{n}", tokens=None, timestamp="2026-11-30T09:00:00.000Z")
        for n, m in enumerate(kept)
    ]
    later = {"id": "after-1", "timestamp": "2026-11-30T09:01:00.000Z", "type": "user",
             "content": [{"text": "and now the linter"}]}  # fmt: skip
    appended = [
        *copies,
        {"$set": {"messages": copies}},
        later,
        {"$set": {"messages": [*copies, later]}},  # a later checkpoint names the copies
    ]
    with path.open("a") as out:
        out.writelines(json.dumps(line) + "\n" for line in appended)
    diagnostics = Diagnostics()
    found = list(gemini.read(sessions(home)[BASIC], diagnostics))
    assert texts(found, "user") == [*texts(before, "user"), "and now the linter"]
    assert texts(found, "assistant") == texts(before, "assistant")
    [rewrite] = [e for e in found if e.kind == "compaction"]
    assert rewrite.extra == {
        "replaced_messages": len(kept),
        "reason": "history rewritten",
    }
    assert total(found) == total(before)


def test_a_chat_rewritten_during_show_is_read_on_once_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Gemini CLI (before its JSONL chats) rewrites its chat file whole at each message: `show` can meet it half
    written ("truncated"). Once the rewrite is over, the read goes on from where it was
    cut, each event once, and nothing is reported skipped."""
    import os

    from sessdex import api, sources

    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    listed = api.list_sessions(Home.at(home), apps=["gemini"]).rows
    (session,) = [
        r.session() for r in listed if (r.session().path or "").endswith(".json")
    ]
    chat = Path(session.path or "")
    whole = chat.read_bytes()
    expected = [
        (e.kind, e.text) for e in api.transcript(Home.at(home), session.id).events
    ]
    gemini_source = sources.get("gemini")
    original = gemini_source.read
    reads: list[int] = []

    def read(session, diagnostics, **options):  # type: ignore[no-untyped-def]
        reads.append(len(reads))
        if len(reads) == 1:
            chat.write_bytes(whole[: len(whole) // 2])  # mid-rewrite
        yield from original(session, diagnostics, **options)
        if chat.read_bytes() != whole:
            chat.write_bytes(whole)  # the rewrite is over
            st = chat.stat()
            os.utime(chat, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))

    monkeypatch.setattr(gemini_source, "read", read)
    found = api.transcript(Home.at(home), session.id)
    seen = [(e.kind, e.text) for e in found.events]
    assert len(reads) == 2
    assert seen == expected
    assert not found.diagnostics.skipped and not found.diagnostics.problems


def test_a_hooks_context_and_slash_commands_never_title_a_chat(tmp_path: Path) -> None:
    """Gemini's SessionStart hook records its context as a user message
    (`<hook_context>…</hook_context>`, AppContainer.tsx); its session list passes over
    that and slash or `?` commands when it picks a title (sessionUtils.ts
    `isIgnoredUserContent`). The hook's text is shown as injected, not as typed."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    path = next(home.rglob("session-*91700103.jsonl"))
    lines = path.read_text().splitlines()
    stamp = "2026-11-30T08:11:49.700Z"
    early = [
        {"id": "hook-1", "timestamp": stamp, "type": "user",
         "content": [{"text": "<hook_context>Project rules: use pnpm</hook_context>"}]},
        {"id": "cmd-1", "timestamp": stamp, "type": "user", "content": [{"text": "/stats"}]},
    ]  # fmt: skip
    path.write_text("\n".join([*lines[:2], *map(json.dumps, early), *lines[2:]]) + "\n")
    session = sessions(home)[BASIC]
    assert session.title == sessions()[BASIC].title
    assert session.title and session.title.startswith("SCENARIO=basic")
    found = list(gemini.read(session, Diagnostics()))
    [hook] = [e for e in found if "pnpm" in (e.text or "")]
    assert (hook.kind, hook.extra) == ("user", {"injected": True})
    assert "/stats" in texts(found, "user")  # what the user typed is still shown


def test_a_summary_a_resumed_chat_grew_past_is_still_its_title(tmp_path: Path) -> None:
    """Gemini writes a chat's summary once (`$set`, sessionSummaryUtils.ts); a resumed
    chat then grows past it, so it sits between the first lines and the last 512 KiB
    that listing reads: it is searched for there."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    path = next(home.rglob("session-*91700103.jsonl"))
    stamp = "2026-11-30T09:00:00.000Z"
    padding = [
        {"id": f"later-{n}", "timestamp": stamp, "type": "user",
         "content": [{"text": "x" * 8000}]}
        for n in range(100)
    ]  # fmt: skip
    head_filler = [{"$set": {"lastUpdated": stamp}} for _ in range(90)]
    summary = {"$set": {"summary": "Greeting command check"}}
    with path.open("a") as out:
        for line in [*head_filler, summary, *padding]:
            out.write(json.dumps(line) + "\n")
    assert path.stat().st_size > 700_000
    assert sessions(home)[BASIC].title == "Greeting command check"


def test_a_tools_binary_output_does_not_end_the_turn(tmp_path: Path) -> None:
    """With a tool's binary output Gemini records a thought-only model note ("Binary
    content received", no model, no tokens) and the image as an info message, then the
    model answers (geminiChat.ts); each /compress records an empty info message."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    path = next(home.rglob("session-*91700103.jsonl"))
    stamp = "2026-11-30T08:12:10.000Z"
    call = "read_file__read_file_1796026400000_0"
    turn = [
        {"id": "u9", "timestamp": stamp, "type": "user", "content": [{"text": "What is in cat.png?"}]},
        {"id": "g9", "timestamp": stamp, "type": "gemini", "content": "", "model": "gemini-3.8-flash",
         "tokens": {"input": 10, "output": 5, "cached": 0, "thoughts": 0, "tool": 0, "total": 15},
         "toolCalls": [{"id": call, "name": "read_file", "args": {"file_path": "cat.png"},
                        "status": "success", "timestamp": stamp,
                        "result": [{"functionResponse": {"id": call, "name": "read_file",
                                                         "response": {"output": "Binary content provided (1 item(s))."}}}]}]},
        {"id": "g10", "timestamp": stamp, "type": "gemini",
         "content": [{"text": "Binary content received. Proceeding with analysis.", "thought": True,
                      "thoughtSignature": "skip_thought_signature_validator"}]},
        {"id": "i10", "timestamp": stamp, "type": "info",
         "content": [{"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}]},
        {"id": "g11", "timestamp": stamp, "type": "gemini", "content": "It is a cat.",
         "model": "gemini-3.8-flash",
         "tokens": {"input": 20, "output": 5, "cached": 0, "thoughts": 0, "tool": 0, "total": 25}},
        {"id": "i11", "timestamp": stamp, "type": "info", "content": ""},
    ]  # fmt: skip
    with path.open("a") as out:
        out.writelines(json.dumps(line) + "\n" for line in turn)
    found = list(gemini.read(sessions(home)[BASIC], Diagnostics()))
    last = found[
        max(i for i, e in enumerate(found) if e.text == "What is in cat.png?") :
    ]
    assert [e.kind for e in last] == [
        "user",
        "tool_call",
        "usage",
        "tool_result",
        "meta",  # the image
        "assistant",
        "usage",
        "turn_end",
    ]
    assert "Binary content received" not in " ".join(e.text or "" for e in last)


def test_a_turn_the_user_cancelled_ends_as_interrupted(tmp_path: Path) -> None:
    """On Esc Gemini records an info message "Request cancelled." (useGeminiStream.ts,
    useHistoryManager.ts); the turn is over, so the live board waits for the user."""
    from sessdex.status import Tracker, decide

    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    path = next(home.rglob("session-*91700103.jsonl"))
    stamp = "2026-11-30T08:12:10.000Z"
    turn = [
        {"id": "u9", "timestamp": stamp, "type": "user", "content": [{"text": "Refactor checkout"}]},
        {"id": "i9", "timestamp": "2026-11-30T08:12:12.000Z", "type": "info", "content": "Request cancelled."},
    ]  # fmt: skip
    with path.open("a") as out:
        out.writelines(json.dumps(line) + "\n" for line in turn)
    found = list(gemini.read(sessions(home)[BASIC], Diagnostics()))
    assert [e.kind for e in found[-2:]] == ["meta", "turn_end"]
    assert found[-1].extra["interrupted"] is True
    tracker = Tracker()
    for e in found:
        tracker.add(e, e.time.timestamp() if e.time else 0.0)
    last = found[-1].time.timestamp() if found[-1].time else 0.0
    status = decide(tracker, last + 5, last, True)
    assert (status.status, status.reason.split(" ")[0]) == (
        "waiting_for_user",
        "interrupted",
    )


def test_while_its_tools_run_the_turn_has_not_ended(tmp_path: Path) -> None:
    """Gemini writes a response that calls tools first without them (empty content), and
    adds the calls to the same message once they have run: until then the model's turn
    is not over, so the live board says working, not "turn ended"."""
    from sessdex.status import Tracker, decide

    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    path = next(home.rglob("session-*91700103.jsonl"))
    lines = path.read_text().splitlines(keepends=True)
    first_write = next(
        i for i, line in enumerate(lines) if '"type":"gemini","content":""' in line
    )
    path.write_text("".join(lines[: first_write + 1]))  # the shell command is running
    found = list(gemini.read(sessions(home)[BASIC], Diagnostics()))
    assert found[-1].kind == "usage" and "turn_end" not in [e.kind for e in found]
    tracker = Tracker()
    for e in found:
        tracker.add(e, e.time.timestamp() if e.time else 0.0)
    last = found[-1].time.timestamp() if found[-1].time else 0.0
    assert decide(tracker, last + 20, last, True).status == "working"
    path.write_text("".join(lines))  # the calls were added: one turn end per answer
    ends = [
        e
        for e in gemini.read(sessions(home)[BASIC], Diagnostics())
        if e.kind == "turn_end"
    ]
    assert len(ends) == 2


PROMPTS_ONLY = "0c4d9e2a-6b1f-4a7e-8d3c-2f5a6b7c8d9e"  # in the prompt log, no chat file


def test_a_session_only_the_prompt_log_holds_is_listed_from_its_prompts() -> None:
    """Gemini logs every prompt to tmp/<project>/logs.json; a session no chat file holds
    (from before chats were recorded, or whose chat was deleted) lists from it: titled by
    its first prompt that is no slash command, timed by its prompts, shown as typed."""
    session = sessions()[PROMPTS_ONLY]
    assert session.title == "Why does the legacy importer skip empty rows?"
    assert (
        session.cwd == "/home/dev/legacy-app"
    )  # the hashed folder, through projects.json
    assert session.created is not None and session.updated is not None
    assert (session.created.isoformat(), session.updated.isoformat()) == (
        "2025-07-14T09:02:11.402000+00:00",
        "2025-07-14T09:05:03.950000+00:00",
    )
    found = events(PROMPTS_ONLY)
    assert found[0].kind == "meta" and found[0].extra == {"prompts_only": True}
    assert [(e.kind, e.text) for e in found[1:]] == [
        ("user", "/auth"),
        ("user", "Why does the   legacy importer\nskip empty rows?"),
        ("user", "Add a test for it"),
    ]
    assert not any(e.time_estimated for e in found)
    assert gemini.resume(session) is None  # no chat for gemini --resume to open


def test_a_prompt_too_long_to_keep_in_the_prompt_log_titles_by_its_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 20 MB prompt in the log (a paste) is kept as a note of its size: the session
    is titled by its start, read alone from the entry's first 16 KB (before, by the
    next prompt), never by that note."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    path = Path(str(sessions(home)[PROMPTS_ONLY].path).partition("#")[0])
    log = json.loads(path.read_bytes())
    log[1]["message"] = "Why does this trace fail?\n" + "x" * 20_000_000
    path.write_text(json.dumps(log))
    row = list_rows(home, tmp_path / "state", monkeypatch, "--all")[PROMPTS_ONLY]
    assert row["title"].startswith("Why does this trace fail? xxx")
    assert "sessdex-elided" not in row["title"]
    log[1]["message"] = "/" + log[1]["message"]  # a slash command titles nothing
    path.write_text(json.dumps(log))
    row = list_rows(home, tmp_path / "state", monkeypatch, "--all")[PROMPTS_ONLY]
    assert row["title"] == "Add a test for it"


def test_a_session_with_a_chat_file_takes_nothing_from_the_prompt_log() -> None:
    """Every prompt is in the log, so most logged sessions have chats: those list and read
    from the chat alone, and the log adds no session of its own (real gemini 0.61 files)."""
    found = sessions()
    logged = [s for s in found.values() if "logs.json" in (s.path or "")]
    assert [s.id for s in logged] == [PROMPTS_ONLY]
    tui = found["ae189b69-5623-44c3-99ef-745162a04ce0"]
    assert tui.path is not None and tui.path.endswith(
        "session-2026-11-30T08-12-ae189b69.jsonl"
    )
    legacy = found["5a1e9c3b-7d2e-4f10-9a3b-0c1d2e3f4a5b"]
    assert legacy.path is not None and legacy.path.endswith(".json")
    assert (
        legacy.title == "Run the test suite and report failures"
    )  # the chat's summary
    assert gemini.resume(legacy) is not None


def test_a_big_prompt_log_is_read_one_entry_at_a_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Past the size parsed at once the log is read in pieces: the same sessions, the
    same prompts."""
    whole = sessions()[PROMPTS_ONLY]
    prompts = events(PROMPTS_ONLY)
    from sessdex.sources import _prompt_log

    monkeypatch.setattr(_prompt_log, "WHOLE", 100)
    assert sessions()[PROMPTS_ONLY] == whole
    assert events(PROMPTS_ONLY) == prompts


def test_a_broken_prompt_log_is_counted_and_the_chats_still_list(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    log = home / ".gemini/tmp/shop-api/logs.json"
    log.write_text('[{"sessionId": "x", "message": "cut sh')
    location = gemini.locate(Home.at(home))
    diagnostics = Diagnostics()
    found = {
        s.id
        for path in gemini.scan(location)
        for s in gemini.parse(path, location, diagnostics)
    }
    assert BASIC in found and "x" not in found
    assert diagnostics.skipped_total == 1


def test_resume_says_only_the_prompts_are_left() -> None:
    from click.testing import CliRunner

    from sessdex.cli import main

    result = CliRunner().invoke(
        main, ["resume", PROMPTS_ONLY[:8], "--print", "--home", str(HOME)]
    )
    assert result.exit_code == 1
    assert "only this session's prompts are left" in result.output


# Where the legacy chat is cut (just past these bytes), and how many of its messages end
# before the cut: as the array opens, inside the first prompt, inside the tool call nested
# in the second message, inside the last reply's text, inside the summary past them all.
LEGACY_CUTS = [
    (b'"messages": [', 0),
    (b'"Run the te', 0),
    (b'"pytest -', 1),
    (b'"One test fa', 2),
    (b'"summary": "Run the', 3),
]


def legacy_chat(home: Path) -> Path:
    return next((home / ".gemini" / "tmp").glob("2136a249*/chats/session-*.json"))


@pytest.mark.parametrize("in_pieces", [False, True])
@pytest.mark.parametrize(("marker", "kept"), LEGACY_CUTS)
def test_a_legacy_chat_cut_short_is_listed_and_read_to_its_cut(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    marker: bytes,
    kept: int,
    in_pieces: bool,
) -> None:
    """A one-file chat whose write stopped half way (a crash, a full disk) or that was
    copied while written: listed from its head (id, folder, times; its first prompt
    when it holds one), its messages before the cut shown with their usage, as a chat
    of those messages alone; the cut counted and said, once. It was skipped whole."""
    home, reference = tmp_path / "home", tmp_path / "reference"
    shutil.copytree(HOME, home)
    shutil.copytree(HOME, reference)
    path = legacy_chat(home)
    data = path.read_bytes()
    document = json.loads(data)
    document["messages"] = document["messages"][:kept]
    del document["summary"]
    legacy_chat(reference).write_text(json.dumps(document, indent=2))
    wanted = list(gemini.read(sessions(reference)[LEGACY], Diagnostics()))
    whole = sessions(home)[LEGACY]
    path.write_bytes(data[: data.index(marker) + len(marker)])
    if in_pieces:  # listed from its ends, read a message at a time
        monkeypatch.setattr(_json_chat, "LIST_LIMIT", 100)
        monkeypatch.setattr(_json_chat, "READ_LIMIT", 100)
        monkeypatch.setattr(files, "CHUNK", 7)
    location = gemini.locate(Home.at(home))
    diagnostics = Diagnostics()
    [listed] = gemini.parse(path, location, diagnostics)
    assert (listed.id, listed.cwd, listed.created, listed.updated) == (
        LEGACY,
        whole.cwd,
        whole.created,
        whole.updated,
    )
    first_prompt = "Run the test suite" if kept else None
    assert listed.title == first_prompt
    assert diagnostics.skipped == {"truncated": 1}
    assert [p for p in diagnostics.problems if "cut short" in p]
    diagnostics = Diagnostics()
    found = list(gemini.read(listed, diagnostics))
    assert found == wanted
    assert len(texts(found, "user")) == min(kept, 1)
    assert total(found) == total(wanted)
    assert diagnostics.skipped == {"truncated": 1}


def test_list_types_a_sub_agent_by_the_call_that_spawned_it_as_tree_does(
    tmp_path: Path,
) -> None:
    from click.testing import CliRunner

    from sessdex.cli import main

    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    chats = home / ".gemini/tmp/shop-api/chats"
    lead = next(chats.glob(f"session-*-{DELEGATING[:8]}.jsonl"))
    # the call lies in the middle of a long chat, which listing reads only the ends of
    lines = lead.read_bytes().splitlines(keepends=True)
    pad = b'{"$set":{"lastUpdated":"2026-11-30T08:11:57.000Z"}}\n'
    lead.write_bytes(lines[0] + pad * 20_000 + b"".join(lines[1:]) + pad * 20_000)

    def run(*argv: str) -> object:
        result = CliRunner().invoke(main, [*argv, "--home", str(home)])
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)

    rows = run("list", "--all", "--json")
    assert isinstance(rows, list)
    listed = {row["id"]: row for row in rows}
    tree = run("tree", DELEGATING, "--json")
    assert isinstance(tree, dict)
    [node] = tree["children"]
    assert listed[CHILD]["agent_type"] == node["agent_type"] == "generalist"
    assert listed[DELEGATING]["agent_type"] is None


@pytest.mark.parametrize(
    ("changed", "text"),
    [
        ("tmp/shop-api/.project_root", "/home/alex/code/shop"),
        ("projects.json", '{"projects": {}}'),
    ],
)
@LIST_PATHS
def test_a_project_map_changed_alone_is_read_again_by_a_warm_list(
    listing: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    changed: str,
    text: str,
) -> None:
    # a chat's folder comes from its project's .project_root, else projects.json, files
    # no chat's listing holds: a warm `list` kept the folders they said before, a cold
    # one not
    home = tmp_path / "home"
    shutil.copytree(HOME, home)

    def listed(state: str) -> dict[str, object]:
        rows = list_rows(home, tmp_path / state, monkeypatch, listing=listing)
        return {key: row["cwd"] for key, row in rows.items()}

    before = listed("warm")
    (home / ".gemini" / changed).write_text(text)
    warm = listed("warm")
    assert warm == listed("cold")
    assert warm != before


@pytest.mark.parametrize("quick", [False, True])
def test_a_sub_agent_lists_warm_as_cold_when_its_lead_alone_writes_its_spawn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, quick: bool
) -> None:
    """A sub-agent's type is in its lead's call: a warm `list` that read the lead alone
    again (it gained the spawn) must type the sub-agent as a cold list does, through
    `sessdex` itself too (its warm list reads a changed file alone, the quick path)."""
    import os
    import subprocess
    import sys

    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    chats = home / ".gemini/tmp/shop-api/chats"
    lead = next(chats.glob(f"session-*-{DELEGATING[:8]}.jsonl"))
    lines = lead.read_text().splitlines(keepends=True)
    [spawn] = [line for line in lines if CHILD in line]
    lead.write_text("".join(line for line in lines if line is not spawn))

    command = [sys.executable, "-m", "sessdex", "list", "--json", "--all", "--home"]

    def listed(state: str) -> dict[str, object]:
        if not quick:
            return list_rows(home, tmp_path / state, monkeypatch, "--all")[CHILD]
        done = subprocess.run(
            [*command, str(home)],
            env={**os.environ, "SESSDEX_HOME": str(tmp_path / state)},
            capture_output=True,
            check=True,
        )
        rows: list[dict[str, object]] = json.loads(done.stdout)
        return next(row for row in rows if row["id"] == CHILD)

    assert listed("warm")["agent_type"] is None
    with lead.open("a") as stream:  # the lead alone grows with the spawn
        stream.write(spawn)
    warm = listed("warm")
    assert warm == listed("cold")
    assert warm["agent_type"] == "generalist"


def test_a_shell_output_is_shown_without_its_untrusted_context_wrapper() -> None:
    """Gemini CLI 0.61 wraps what a shell command printed in `<untrusted_context>` tags
    for the model (real run): the wrapper is not output, so the result starts with what
    the command printed and the folded view keeps a line of it more."""
    shown = CliRunner().invoke(main, ["show", BASIC, "--json", "--home", str(HOME)])
    assert shown.exit_code == 0, shown.output
    results = [
        e["text"] for e in json.loads(shown.stdout) if e["kind"] == "tool_result"
    ]
    assert results == [
        "Output: hello-from-tool\nProcess Group PGID: 28474",
        "Output: hello-after-resume\nProcess Group PGID: 28504",
    ]


def test_a_sub_agents_answer_shows_as_its_response_not_its_report_frame() -> None:
    """`invoke_agent` answers the lead with a frame for the model (`Subagent '…'
    finished.`, `Termination Reason: GOAL`, `Result:` and a JSON `{"response": …}`; real,
    0.61): the result is the response, so `show` does not fold it away behind the frame
    and `export -f md` points at the sub-agent's last words."""
    shown = CliRunner().invoke(
        main, ["show", DELEGATING, "--json", "--home", str(HOME)]
    )
    assert shown.exit_code == 0, shown.output
    [answer] = [
        e["text"] for e in json.loads(shown.stdout)
        if e["kind"] == "tool_result" and e["agent_id"] is None
    ]  # fmt: skip
    assert answer == "Sub-agent report: the command printed hello-from-subagent."
    text = CliRunner().invoke(main, ["show", DELEGATING, "--home", str(HOME)]).stdout
    assert "  ⎿ Sub-agent report: the command printed hello-from-subagent.\n" in text


def test_a_shell_result_shows_its_output_not_the_lines_around_it() -> None:
    """Gemini 0.61 gives the model `<untrusted_context>`, `Output: …` and a `Process
    Group PGID` line (real files): `show` draws the output; --json keeps it all."""
    shown = CliRunner().invoke(main, ["show", BASIC, "--home", str(HOME)])
    assert "echo hello-from-tool\n  ⎿ hello-from-tool\nDone." in shown.stdout
    assert "PGID" not in shown.stdout and "untrusted_context" not in shown.stdout
    whole = CliRunner().invoke(main, ["show", BASIC, "--json", "--home", str(HOME)])
    [result, *_] = [e for e in json.loads(whole.stdout) if e["kind"] == "tool_result"]
    assert "Process Group PGID: 28474" in result["text"]


def test_only_the_shell_tools_result_is_read_as_its_report(tmp_path: Path) -> None:
    """A file read (or any tool but the shell) whose text opens with `Output: ` and
    ends with an `Exit Code: 0` line is shown whole: only `run_shell_command` wraps
    its output in that report, so only its trailer is folded away."""
    home = tmp_path / "home"
    chats = home / ".gemini" / "tmp" / "notes" / "chats"
    chats.mkdir(parents=True)
    text = "Output: the build log\nsays it twice:\nExit Code: 0"

    def call(n: int, name: str) -> dict[str, object]:
        answer = {"id": f"c{n}", "name": name, "response": {"output": text}}
        return {"id": f"c{n}", "name": name, "args": {}, "status": "success",
                "timestamp": f"2026-11-30T10:00:0{n}.000Z",
                "result": [{"functionResponse": answer}]}  # fmt: skip

    answered = {"functionResponse": {"id": "c3", "name": "read_file",
                                     "response": {"output": text}}}  # fmt: skip
    messages = [
        {"id": "u1", "timestamp": "2026-11-30T10:00:00.000Z", "type": "user",
         "content": "Read the notes"},
        {"id": "g1", "timestamp": "2026-11-30T10:00:01.000Z", "type": "gemini",
         "content": "", "toolCalls": [call(1, "read_file"), call(2, "run_shell_command")]},
        {"id": "g2", "timestamp": "2026-11-30T10:00:03.000Z", "type": "gemini",
         "content": [{"functionCall": {"id": "c3", "name": "read_file", "args": {}}}]},
        {"id": "u2", "timestamp": "2026-11-30T10:00:04.000Z", "type": "user",
         "content": [answered]},
    ]  # fmt: skip
    session_id = "5e55a0f1-0000-4000-8000-000000000003"
    document = {"sessionId": session_id, "projectHash": "notes",
                "startTime": "2026-11-30T10:00:00.000Z",
                "lastUpdated": "2026-11-30T10:00:04.000Z", "messages": messages}  # fmt: skip
    (chats / "session-2026-11-30T10-00-5e55a0f1.json").write_text(json.dumps(document))
    shown = CliRunner().invoke(main, ["show", session_id, "--home", str(home)])
    assert shown.exit_code == 0, shown.output
    whole = "Output: the build log\n    says it twice:\n    Exit Code: 0\n"
    assert f"  ⎿ [read_file] {whole}" in shown.stdout
    assert f"Using read_file\n  ⎿ {whole}" in shown.stdout
    assert "  ⎿ [run_shell_command] the build log\n    says it twice:\n" in shown.stdout


def _stopped_sub_agent(tmp_path: Path, status: str, reason: str) -> Path:
    """The delegating session's home, its sub-agent stopped after its shell call (no
    `complete_task`) and the lead's spawn call written with `status` (`reason`)."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    chats = home / ".gemini" / "tmp" / "shop-api" / "chats"
    child = chats / DELEGATING / f"{CHILD}.jsonl"
    child.write_text("".join(child.read_text().splitlines(keepends=True)[:8]))
    lead = next(chats.glob("session-*-b44832f3.jsonl"))
    lines = lead.read_text().splitlines(keepends=True)
    record = json.loads(lines[6])
    call = record["toolCalls"][0]
    assert call["name"] == "invoke_agent"
    said = f"Subagent 'generalist' finished.\nTermination Reason: {reason}\n"
    call["status"] = status
    call["result"][0]["functionResponse"]["response"] = {"output": said}
    call["resultDisplay"].update(state=status, terminateReason=reason)
    lines[6] = json.dumps(record) + "\n"
    lead.write_text("".join(lines))
    return home


@pytest.mark.parametrize(
    ("status", "reason"), [("error", "ERROR"), ("cancelled", "ABORTED")]
)
def test_a_sub_agent_stopped_before_complete_task_ends_at_its_spawns_result(
    tmp_path: Path, status: str, reason: str
) -> None:
    """A sub-agent that failed or was cancelled calls no `complete_task`: its run ends
    where its lead's spawn call has its result, before that result."""
    home = _stopped_sub_agent(tmp_path, status, reason)
    found = list(gemini.read(sessions(home)[DELEGATING], Diagnostics()))
    child = [e for e in found if e.agent_id == CHILD]
    assert [e.tool for e in child if e.kind == "tool_call"] == ["run_shell_command"]
    assert child[-1].kind == "turn_end"
    assert child[-1].extra == {"reason": status}
    spawn = next(e for e in found if e.kind == "subagent")
    result = next(
        e for e in found if e.kind == "tool_result" and e.call_id == spawn.call_id
    )
    assert child[-1].seq < result.seq and result.is_error


def test_a_sub_agent_whose_chat_records_an_error_ends_there(tmp_path: Path) -> None:
    home = _stopped_sub_agent(tmp_path, "error", "ERROR")
    child = home / ".gemini/tmp/shop-api/chats" / DELEGATING / f"{CHILD}.jsonl"
    error = {"id": "e1", "timestamp": "2026-11-30T08:11:57.420Z", "type": "error",
             "content": "[API Error: quota exceeded]"}  # fmt: skip
    child.write_text(child.read_text() + json.dumps(error) + "\n")
    found = list(gemini.read(sessions(home)[DELEGATING], Diagnostics()))
    kinds = [e.kind for e in found if e.agent_id == CHILD]
    assert kinds[-2:] == ["error", "turn_end"]
    assert kinds.count("turn_end") == 1
    said = [e for e in found if e.agent_id == CHILD and e.kind == "turn_end"]
    assert said[0].extra == {"reason": "error"}
