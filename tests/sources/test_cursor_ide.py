"""The Cursor IDE's conversation store (`state.vscdb`, table `cursorDiskKV`).

No real store is in the corpus: each test builds one in `tmp_path` with the layout that
jlreyes/agent-history-skills `skills/exploring-cursor-history/data-model.md` @2721f8e
documents (composerData `_v` 16, bubbles `_v` 3, verified there on Cursor 3.7).
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from sessdex.diagnostics import Diagnostics
from sessdex.model import Session
from sessdex.sources import Home, cursor
from sessdex.tree import build_tree

AGENT = "c0a1b2c3-0000-4000-8000-000000000001"
CHAT = "c0a1b2c3-0000-4000-8000-000000000002"
CHILD = "c0a1b2c3-0000-4000-8000-000000000003"
DRAFT = "c0a1b2c3-0000-4000-8000-000000000004"
MS = 1_795_946_400_000  # 2026-11-29T10:00:00Z in epoch milliseconds


def at(second: int) -> str:
    return f"2026-11-29T10:00:{second:02d}.000Z"


def composer(
    cid: str, bubbles: list[tuple[str, int]], **fields: object
) -> dict[str, object]:
    return {
        "_v": 16,
        "composerId": cid,
        "createdAt": MS,
        "lastUpdatedAt": MS,
        "fullConversationHeadersOnly": [{"bubbleId": b, "type": t} for b, t in bubbles],
        **fields,
    }


def store(
    home: Path, rows: dict[str, object], *, raw: dict[str, bytes] | None = None
) -> Path:
    folder = home / ".config" / "Cursor" / "User" / "globalStorage"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "state.vscdb"
    db = sqlite3.connect(path)
    db.execute(
        "CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)"
    )
    db.execute(
        "CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)"
    )
    for key, value in rows.items():
        db.execute("INSERT INTO cursorDiskKV VALUES (?, ?)", (key, json.dumps(value)))
    for key, data in (raw or {}).items():
        db.execute("INSERT INTO cursorDiskKV VALUES (?, ?)", (key, data))
    db.commit()
    db.close()
    return path


def sample(home: Path, **raw: bytes) -> Path:
    tool = {
        "tool": 21,
        "name": "run_terminal_cmd",
        "rawArgs": json.dumps({"command": "npm test", "is_background": False}),
        "result": json.dumps({"output": "3 passing", "exitCode": 0}),
        "status": "completed",
        "toolCallId": "call_1",
    }
    failed = dict(tool, toolCallId="call_2", rawArgs=json.dumps({"command": "rm -rf /"}),
                  result=json.dumps({"error": "rejected by the user"}), status="error")  # fmt: skip
    rows: dict[str, object] = {
        f"composerData:{AGENT}": composer(
            AGENT,
            [("b1", 1), ("b2", 2), ("b3", 2), ("b4", 2), ("b5", 2)],
            name="Fix the flaky checkout test",
            unifiedMode="agent",
            modelConfig={"modelName": "claude-4.5-sonnet", "maxMode": False},
            workspaceIdentifier={"id": "abc", "uri": {"fsPath": "/home/dev/shop"}},
            gitWorktree={"branchName": "fix/flaky", "worktreePath": "/home/dev/shop"},
            subagentComposerIds=[CHILD],
        ),
        f"bubbleId:{AGENT}:b1": {"_v": 3, "type": 1, "text": "Why is checkout flaky?",
                                 "createdAt": at(0)},
        f"bubbleId:{AGENT}:b2": {"_v": 3, "type": 2, "createdAt": at(1),
                                 "thinking": {"text": "Look at the clock use."},
                                 "toolFormerData": tool},
        f"bubbleId:{AGENT}:b3": {"_v": 3, "type": 2, "createdAt": at(5), "toolFormerData": failed},
        f"bubbleId:{AGENT}:b4": {"_v": 3, "type": 2, "createdAt": at(9),
                                 "text": "It waits on a real clock.",
                                 "tokenCount": {"inputTokens": 1200, "outputTokens": 80}},
        f"bubbleId:{AGENT}:b5": {"_v": 3, "type": 9, "createdAt": at(10)},
        f"bubbleId:{AGENT}:orphan": {"_v": 3, "type": 1, "text": "a regenerated turn"},
        f"composerData:{CHILD}": composer(CHILD, [("c1", 1), ("c2", 2)], name="Search the tests"),
        f"bubbleId:{CHILD}:c1": {"_v": 3, "type": 1, "text": "Find clock uses", "createdAt": at(3)},
        f"bubbleId:{CHILD}:c2": {"_v": 3, "type": 2, "text": "Two in checkout.py",
                                 "createdAt": at(4)},
        f"composerData:{CHAT}": composer(
            CHAT, [("d1", 1), ("d2", 2)], unifiedMode="chat", name="New Chat"
        ),
        f"bubbleId:{CHAT}:d1": {"_v": 3, "type": 1, "text": "What does git rebase do?"},
        f"bubbleId:{CHAT}:d2": {"_v": 3, "type": 2, "text": "It replays commits."},
        f"composerData:{DRAFT}": composer(DRAFT, [], name="New Chat"),
    }  # fmt: skip
    return store(home, rows, raw=raw)


def listed(home: Path, diagnostics: Diagnostics | None = None) -> dict[str, Session]:
    location = cursor.locate(Home.at(home))
    found = {}
    for path in cursor.scan(location):
        for session in cursor.parse(Path(path), location, diagnostics or Diagnostics()):
            found[session.id] = session
    return found


def test_conversations_are_listed_with_their_title_folder_branch_and_model(
    tmp_path: Path,
) -> None:
    sample(tmp_path)
    found = listed(tmp_path)
    assert set(found) == {AGENT, CHAT, CHILD}  # the empty tab is not a conversation
    agent = found[AGENT]
    assert agent.title == "Fix the flaky checkout test"
    assert (agent.cwd, agent.branch, agent.model) == (
        "/home/dev/shop",
        "fix/flaky",
        "claude-4.5-sonnet",
    )
    assert agent.created.timestamp() == MS / 1000
    assert agent.updated.isoformat() == "2026-11-29T10:00:10+00:00"  # the last bubble's
    assert agent.extra == {"store": "ide", "mode": "agent"}
    assert found[CHAT].title == "What does git rebase do?"  # "New Chat" is no title
    assert found[CHILD].parent_id == AGENT


def test_a_conversation_reads_as_events_with_its_sub_agent_merged_in_by_time(
    tmp_path: Path,
) -> None:
    sample(tmp_path)
    diagnostics = Diagnostics()
    session = listed(tmp_path)[AGENT]
    found = list(cursor.read(session, diagnostics))
    shown = [(e.kind, e.agent_id, e.text or e.tool) for e in found]
    assert shown == [
        ("user", None, "Why is checkout flaky?"),
        ("thinking", None, "Look at the clock use."),
        ("tool_call", None, "run_terminal_cmd"),
        ("tool_result", None, "3 passing"),
        ("subagent", None, None),
        ("user", CHILD, "Find clock uses"),
        ("assistant", CHILD, "Two in checkout.py"),
        ("tool_call", None, "run_terminal_cmd"),
        ("tool_result", None, "rejected by the user"),
        ("assistant", None, "It waits on a real clock."),
        ("usage", None, None),
    ]
    assert [e.seq for e in found] == list(range(len(found)))
    call = found[2]
    assert call.call_id == "call_1" and call.extra["input"] == {
        "command": "npm test",
        "is_background": False,
    }
    assert [e.is_error for e in found if e.kind == "tool_result"] == [False, True]
    usage = found[-1].usage
    assert usage is not None and (usage.input_tokens, usage.output_tokens) == (1200, 80)
    assert usage.model == "claude-4.5-sonnet"
    assert diagnostics.unknown == {"bubble/9": 1}  # counted, never a crash
    spawn = next(e for e in found if e.kind == "subagent")
    assert spawn.extra == {
        "child_id": CHILD,
        "agent_type": None,
        "agent_name": "Search the tests",
    }
    # nothing closes it but its own last answer, and the lead is past it: done
    [child] = build_tree(AGENT, found).children
    assert (child.id, child.agent_name, child.status) == (
        CHILD,
        "Search the tests",
        "done",
    )


def test_the_jsonl_mirror_of_an_ide_conversation_is_the_same_session(
    tmp_path: Path,
) -> None:
    """The IDE mirrors an agent conversation to ~/.cursor/projects with the same id: one
    session is listed, with what the store says, and `show` reads the store."""
    sample(tmp_path)
    mirror = (
        tmp_path
        / ".cursor"
        / "projects"
        / "home-dev-shop"
        / "agent-transcripts"
        / AGENT
    )
    mirror.mkdir(parents=True)
    (mirror / f"{AGENT}.jsonl").write_text(
        json.dumps({"role": "user", "message": {"content": [
            {"type": "text", "text": "<user_query>Why is checkout flaky?</user_query>"}]}})
        + "\n"
    )  # fmt: skip
    runner = CliRunner()
    result = runner.invoke(main, ["list", "--json", "--home", str(tmp_path)])
    records = [r for r in json.loads(result.stdout) if r["id"] == AGENT]
    assert len(records) == 1
    assert records[0]["title"] == "Fix the flaky checkout test"
    assert records[0]["cwd"] == "/home/dev/shop"
    result = runner.invoke(main, ["show", AGENT, "--json", "--home", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert any(e["text"] == "3 passing" for e in json.loads(result.stdout))
    result = runner.invoke(main, ["resume", AGENT, "--print", "--home", str(tmp_path)])
    assert result.exit_code == 1
    assert "open it in the app itself (it ran in /home/dev/shop)." in result.stderr


def test_the_ide_store_is_looked_for_whatever_the_cli_override_says(
    tmp_path: Path,
) -> None:
    sample(tmp_path)
    home = Home(tmp_path, {"CURSOR_CONFIG_DIR": str(tmp_path / "elsewhere")})
    location = cursor.locate(home)
    assert [Path(p).name for p in cursor.scan(location)] == ["state.vscdb"]


def test_a_broken_or_huge_value_is_counted_or_elided_never_fatal(
    tmp_path: Path,
) -> None:
    huge = "x" * (6 * 1024 * 1024)
    sample(
        tmp_path,
        **{f"composerData:{DRAFT}-broken": b"{not json"},
    )
    db = tmp_path / ".config" / "Cursor" / "User" / "globalStorage" / "state.vscdb"
    with contextlib.closing(sqlite3.connect(db)) as writer, writer:
        writer.execute(
            "UPDATE cursorDiskKV SET value = ? WHERE key = ?",
            (json.dumps({"_v": 3, "type": 1, "text": huge}), f"bubbleId:{AGENT}:b1"),
        )
    diagnostics = Diagnostics()
    found = listed(tmp_path, diagnostics)
    assert set(found) == {AGENT, CHAT, CHILD}
    assert "not JSON" in {reason for _, _, reason in diagnostics.details}
    events = list(cursor.read(found[AGENT], Diagnostics()))
    prompt = next(e for e in events if e.kind == "user")
    assert (
        prompt.text is not None and len(prompt.text) < 100_000
    )  # summarised, not 6 MB
    full = list(cursor.read(found[AGENT], Diagnostics(), full=True))
    assert next(e for e in full if e.kind == "user").text == huge


@pytest.mark.parametrize("table", ["ItemTable only", "no table"])
def test_a_store_without_the_table_lists_nothing(tmp_path: Path, table: str) -> None:
    folder = tmp_path / ".config" / "Cursor" / "User" / "globalStorage"
    folder.mkdir(parents=True)
    db = sqlite3.connect(folder / "state.vscdb")
    if table == "ItemTable only":
        db.execute("CREATE TABLE ItemTable (key TEXT, value BLOB)")
    db.commit()
    db.close()
    diagnostics = Diagnostics()
    assert listed(tmp_path, diagnostics) == {}
    assert not diagnostics.problems


def workspace_store(home: Path, name: str, folder: str, data: object) -> Path:
    """A workspace's own store, as Cursor before 3.0 wrote its conversations' metadata."""
    root = home / ".config" / "Cursor" / "User" / "workspaceStorage" / name
    root.mkdir(parents=True)
    (root / "workspace.json").write_text(json.dumps({"folder": folder}))
    db = sqlite3.connect(root / "state.vscdb")
    db.execute(
        "CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)"
    )
    db.execute(
        "INSERT INTO ItemTable VALUES ('composer.composerData', ?)", (json.dumps(data),)
    )
    db.commit()
    db.close()
    return root


def test_a_workspace_store_gives_an_older_conversation_its_folder_and_branch(
    tmp_path: Path,
) -> None:
    """Conversations from before Cursor 3.0 carry no workspace in the global store; the
    workspace's own store lists them under its folder, with the branch they started on."""
    sample(tmp_path)
    workspace_store(
        tmp_path, "a1", "file:///home/dev/my%20notes",
        {"allComposers": [{"composerId": CHAT, "name": "New Chat",
                           "createdOnBranch": "main"},
                          {"composerId": "gone-from-the-global-store", "name": "old"}]},
    )  # fmt: skip
    workspace_store(
        tmp_path, "b2", "vscode-remote://ssh-remote+box/home/dev/far",
        {"selectedComposerIds": [AGENT], "hasMigratedComposerData": False},
    )  # fmt: skip
    runner = CliRunner()
    result = runner.invoke(main, ["list", "--json", "--all", "--home", str(tmp_path)])
    records = {r["id"]: r for r in json.loads(result.stdout)}
    assert set(records) == {AGENT, CHAT, CHILD}  # fill-ins list nothing of their own
    assert (records[CHAT]["cwd"], records[CHAT]["branch"]) == (
        "/home/dev/my notes",
        "main",
    )
    assert records[CHAT]["title"] == "What does git rebase do?"
    assert records[AGENT]["cwd"] == "/home/dev/shop"  # its own record wins


def test_file_uris_become_local_paths() -> None:
    from sessdex.sources._values import local_path

    assert local_path("file:///home/dev/a%20b") == "/home/dev/a b"
    assert local_path("file:///c%3A/Users/dev/x") == "c:/Users/dev/x"
    assert local_path("vscode-remote://ssh-remote+box/home/dev") is None
    assert local_path("/plain/path") == "/plain/path" and local_path("") is None


def test_a_conversation_is_read_one_message_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first event comes before the rest of a long conversation is read: memory holds
    one message (and each sub-agent's start), not the whole conversation."""
    from sessdex.sources import _cursor_ide

    sample(tmp_path)
    session = listed(tmp_path)[AGENT]
    reads: list[str | None] = []
    original = _cursor_ide._Store.bubble

    def counted(self: object, cid: str, bubble: str | None) -> dict[str, object]:
        reads.append(bubble)
        return original(self, cid, bubble)  # type: ignore[arg-type]

    monkeypatch.setattr(_cursor_ide._Store, "bubble", counted)
    events = cursor.read(session, Diagnostics())
    first = next(events)
    assert first.text == "Why is checkout flaky?"
    assert reads == ["c1", "b1"]  # the sub-agent's first message (its start), then b1
    rest = list(events)
    assert len(reads) == 2 + 4 + 2 and len(rest) == 10


def test_a_sqlite_without_json_functions_lists_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Listing takes each conversation's last time and first prompt out in SQL; an SQLite
    built without JSON functions reads those messages one by one, to the same result."""
    from sessdex.sources import _cursor_ide

    sample(tmp_path)
    with_sql = {s.id: (s.title, s.updated) for s in listed(tmp_path).values()}
    monkeypatch.setattr(_cursor_ide._Store, "bubble_facts", lambda self, wanted: None)
    without = {s.id: (s.title, s.updated) for s in listed(tmp_path).values()}
    assert without == with_sql
    assert with_sql[CHAT][0] == "What does git rebase do?"


def test_an_older_composer_with_its_messages_inline_is_listed_and_read(
    tmp_path: Path,
) -> None:
    """Older Cursor kept a composer's messages whole in `conversation` (no headers, no
    `bubbleId:` rows; vibe-replay's reader counts both). Such a conversation is listed,
    titled by its first prompt and dated by its last message, and read in order."""
    old = "c0a1b2c3-0000-4000-8000-0000000000aa"
    rows: dict[str, object] = {
        f"composerData:{old}": {
            "_v": 1, "composerId": old, "name": "New Chat", "createdAt": MS,
            "conversation": [
                {"type": 1, "bubbleId": "o1", "text": "Rename the module", "createdAt": at(0)},
                {"type": 2, "bubbleId": "o2", "text": "Renamed it to ledger.", "createdAt": at(7)},
            ],
        }
    }  # fmt: skip
    store(tmp_path, rows)
    runner = CliRunner()
    listed = runner.invoke(main, ["list", "--json", "--home", str(tmp_path)])
    [record] = [r for r in json.loads(listed.stdout) if r["id"] == old]
    assert record["title"] == "Rename the module"
    assert record["updated"].startswith("2026-11-29T10:00:07")
    shown = runner.invoke(main, ["show", old, "--json", "--home", str(tmp_path)])
    said = [(e["kind"], e["text"]) for e in json.loads(shown.stdout)]
    assert said[:2] == [
        ("user", "Rename the module"),
        ("assistant", "Renamed it to ledger."),
    ]


def test_a_message_names_the_model_that_answered_it(tmp_path: Path) -> None:
    """In an "auto" conversation each answer names its own model (`modelInfo.modelName`,
    as third-party readers project it): its usage is billed to that model, not to the
    conversation's setting."""
    db = sample(tmp_path)
    connection = sqlite3.connect(db)
    key = f"bubbleId:{AGENT}:b4"
    (value,) = connection.execute(
        "SELECT value FROM cursorDiskKV WHERE key = ?", (key,)
    ).fetchone()
    bubble = json.loads(value)
    bubble["modelInfo"] = {"modelName": "gpt-5.1-codex"}
    connection.execute(
        "UPDATE cursorDiskKV SET value = ? WHERE key = ?", (json.dumps(bubble), key)
    )
    connection.commit()
    connection.close()
    session = listed(tmp_path)[AGENT]
    usage = [e.usage for e in cursor.read(session, Diagnostics()) if e.usage]
    assert [u.model for u in usage] == ["gpt-5.1-codex"]


@pytest.mark.parametrize("where", ["bubble", "header"])
def test_a_message_cursor_wrote_as_the_users_is_not_typed_nor_the_title(
    tmp_path: Path, where: str
) -> None:
    """Cursor writes some user messages itself (`isSimulatedMsg`: a goal's continuation,
    a background task's notice; on the bubble, or on its header's `grouping`, as
    third-party readers of Cursor 3.x stores find it): shown as injected, never the
    user's words nor the title."""
    cid = "c0a1b2c3-0000-4000-8000-0000000000bb"
    notice = {"_v": 3, "type": 1, "createdAt": at(0), "simulatedMsgReason": 2,
              "text": "<system_notification>Continue toward the goal</system_notification>"}  # fmt: skip
    data = composer(cid, [("n1", 1), ("u1", 1), ("a1", 2)], name="New Chat")
    if where == "bubble":
        notice["isSimulatedMsg"] = True
    else:
        headers = data["fullConversationHeadersOnly"]
        assert isinstance(headers, list)
        headers[0]["grouping"] = {"isSimulatedMsg": True}
    rows: dict[str, object] = {
        f"composerData:{cid}": data,
        f"bubbleId:{cid}:n1": notice,
        f"bubbleId:{cid}:u1": {"_v": 3, "type": 1, "text": "Ship the release notes",
                               "createdAt": at(1)},
        f"bubbleId:{cid}:a1": {"_v": 3, "type": 2, "text": "Shipped.", "createdAt": at(2)},
    }  # fmt: skip
    store(tmp_path, rows)
    session = listed(tmp_path)[cid]
    assert session.title == "Ship the release notes"
    found = list(cursor.read(session, Diagnostics()))
    assert [e.text for e in found if e.kind == "user"] == ["Ship the release notes"]
    [meta] = [e for e in found if e.kind == "meta"]
    assert meta.extra["injected"] is True and "Continue toward" in (meta.text or "")


@pytest.mark.parametrize("odd", ["12", -5, 1.5, True, 2**60])
def test_an_odd_token_count_in_a_message_is_said(odd: object, tmp_path: Path) -> None:
    # a message's `tokenCount` no app writes was billed as 0 without a word
    path = sample(tmp_path)
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute(
            "UPDATE cursorDiskKV SET value = json_set(value, '$.tokenCount.outputTokens',"
            " json(?)) WHERE key = ?",
            (json.dumps(odd), f"bubbleId:{AGENT}:b4"),
        )
    argv = ["usage", "session", "--json", "--verbose", "--app", "cursor"]
    result = CliRunner().invoke(
        main,
        [*argv, "--home", str(tmp_path)],
        env={"SESSDEX_HOME": str(tmp_path / "s")},
    )
    assert result.exit_code == 0, result.output
    (row,) = [r for r in json.loads(result.stdout) if r["id"] == AGENT]
    assert (row["input_tokens"], row["output_tokens"]) == (1200, 0)
    assert "warning: read 1 response with an odd token count" in result.stderr
    assert f"{path}#bubbleId:{AGENT}:b4:0: odd token count" in result.stderr
