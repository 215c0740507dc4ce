"""Rebuild the VS Code chat fixtures: `python tests/data/vscode/make_chats.py`.

Writes `home/` and `malformed/home/`, synthetic, shaped as VS Code's own source writes
them (see PROVENANCE.md): `.json` chats as `JSON.stringify(session, undefined, 2)` of
`ISerializableChatData` v3 (chatSessionStore.ts before 1.109), `.jsonl` chats as
`ObjectMutationLog` writes them (objectMutationLog.ts: one compact entry a line, `kind` 0
initial state, 1 set, 2 push with an optional cut `i`, 3 delete, `k` the key path).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

HERE = Path(__file__).parent
USER = Path(".config/Code/User")

AGENT = "3f1c9a52-7d4e-4b6a-9c21-5e8f7a6b4d30"  # .json, agent mode, tools, edits, usage
LOGGED = "8a2d4c6e-1b3f-4a5c-9d7e-2f4a6c8e0b13"  # .jsonl log, a sub-agent, an error
ASKED = (
    "c5e7a9b1-3d5f-4b7d-8e9a-1c3e5a7b9d24"  # .json, a multi-root workspace, no title
)
REMOTE = "e1f3a5c7-9b1d-4f3a-8c5e-7a9b1d3f5e46"  # .jsonl, a vscode-remote folder
EMPTY_WINDOW = "6b8d0f2a-4c6e-4a8c-9e0b-3d5f7a9c1e57"  # no folder
SERVER = "9d1f3b5d-7f9b-4d1f-8b3d-5f7b9d1f3b68"  # VS Code Server on a remote host
UNUSED = "0f2e4d6c-8b0a-4c2e-9d4f-6b8a0c2e4f79"  # a chat view opened and left empty

HASH_SHOP = "5d1e0c8b2a4f6e8d0c2b4a6f8e0d2c4b"
HASH_MONO = "7a9c1e3b5d7f9a1c3e5b7d9f1a3c5e7b"
HASH_REMOTE = "2c4e6a8c0e2a4c6e8a0c2e4a6c8e0a2c"
HASH_SERVER = "4e6a8c0e2a4c6e8a0c2e4a6c8e0a2c4e"

T0 = 1_795_000_000_000  # 2026-11-18T04:26:40Z, epoch ms as VS Code keeps them


def text_part(text: str) -> dict[str, object]:
    return {
        "range": {"start": 0, "endExclusive": len(text)},
        "editorRange": {"startLineNumber": 1, "startColumn": 1,
                        "endLineNumber": 1, "endColumn": len(text) + 1},
        "text": text,
        "kind": "text",
    }  # fmt: skip


def message(text: str) -> dict[str, object]:
    return {"text": text, "parts": [text_part(text)]}


def md(value: str) -> dict[str, object]:
    # a MarkdownString as the flat store kept response text
    return {"value": value, "supportThemeIcons": False, "supportHtml": False}


def request(
    number: int, text: str, at: int, response: list[object], **rest: object
) -> dict[str, object]:
    value: dict[str, object] = {
        "requestId": f"request_{number:08d}-0000-4000-8000-000000000000",
        "message": message(text),
        "variableData": {"variables": []},
        "response": response,
        "responseId": f"response_{number:08d}-0000-4000-8000-000000000000",
        "timestamp": at,
        "agent": {"id": "github.copilot.editsAgent", "name": "agent"},
    }
    value.update(rest)
    return value


def tool(
    call_id: str, tool_id: str, invoked: str, done: str | None = None, **rest: object
) -> dict[str, object]:
    value: dict[str, object] = {
        "kind": "toolInvocationSerialized",
        "invocationMessage": md(invoked),
        "pastTenseMessage": md(done) if done else None,
        "isConfirmed": {"type": 1},
        "isComplete": True,
        "source": {"type": "internal", "label": "Built-In"},
        "toolCallId": call_id,
        "toolId": tool_id,
    }
    value.update(rest)
    return {k: v for k, v in value.items() if v is not None}


def agent_chat() -> dict[str, object]:
    terminal = tool(
        "call_run_1", "run_in_terminal", "Running `pytest -q`",
        toolSpecificData={
            "kind": "terminal",
            "commandLine": {"original": "pytest -q"},
            "language": "sh",
            "terminalCommandState": {"exitCode": 1, "timestamp": T0 + 9_000, "duration": 800},
            "terminalCommandOutput": {"text": "1 failed, 4 passed", "lineCount": 1},
        },
    )  # fmt: skip
    reading = tool(
        "call_read_1", "copilot_readFile", "Reading checkout.py",
        "Read checkout.py, lines 1 to 40",
        resultDetails={
            "input": '{"filePath": "/home/alex/code/shop-api/checkout.py"}',
            "output": [{"type": "embed", "isText": True, "value": "def checkout(cart):"}],
            "isError": False,
        },
    )  # fmt: skip
    # VS Code kept the call's part twice as it updated it: read once
    early = {**reading, "pastTenseMessage": None, "resultDetails": None}
    early = {k: v for k, v in early.items() if v is not None}
    replaced = tool(
        "call_edit_1",
        "copilot_replaceString",
        "Editing checkout.py",
        "Edited checkout.py",
    )
    first = request(
        1,
        "The checkout test fails; fix the retry loop",
        T0,
        [
            {"kind": "thinking", "value": "The test output will say which case fails."},
            md("Let me run the tests first."),
            terminal,
            early,
            reading,
            md("The loop never sleeps between tries: "),
            {
                "kind": "inlineReference",
                "inlineReference": {"$mid": 1, "fsPath": "/home/alex/code/shop-api/checkout.py",
                                    "path": "/home/alex/code/shop-api/checkout.py", "scheme": "file"},
            },
            md(" needs a backoff."),
            replaced,
            {"kind": "codeblockUri", "uri": {"$mid": 1, "path": "/home/alex/code/shop-api/checkout.py",
                                             "scheme": "file"}},
            {
                "kind": "textEditGroup",
                "uri": {"$mid": 1, "fsPath": "/home/alex/code/shop-api/checkout.py",
                        "path": "/home/alex/code/shop-api/checkout.py", "scheme": "file"},
                "edits": [[{"text": "    time.sleep(2 ** attempt)\n",
                            "range": {"startLineNumber": 12, "startColumn": 1,
                                      "endLineNumber": 12, "endColumn": 1}}], []],
                "done": True,
            },
            {"kind": "undoStop", "id": "stop-1"},
            md("Added an exponential backoff."),
        ],
        modelId="copilot/claude-sonnet-4",
        modeInfo={"kind": "agent", "isBuiltin": True, "modeId": "agent"},
        result={
            "timings": {"firstProgress": 1500, "totalElapsed": 21_000},
            "metadata": {
                "toolCallRounds": [
                    {"response": "Let me run the tests first.", "id": "round-1",
                     "toolCalls": [{"name": "run_in_terminal", "id": "call_run_1",
                                    "arguments": '{"command": "pytest -q", "explanation": "Run the tests", "isBackground": false}'}]},
                    {"response": "", "id": "round-2",
                     "toolCalls": [{"name": "copilot_replaceString", "id": "call_edit_1",
                                    "arguments": '{"filePath": "/home/alex/code/shop-api/checkout.py", "oldString": "    pass\\n", "newString": "    time.sleep(2 ** attempt)\\n"}'}]},
                ],
                "toolCallResults": {
                    "call_edit_1": {"$mid": 20, "content": [{"$mid": 21, "value": "The file was edited."}]}
                },
                "promptTokens": 18250,
                "outputTokens": 640,
            },
        },
    )  # fmt: skip
    second = request(
        2,
        "thanks, now run it again",
        T0 + 120_000,
        [md("All 5 tests pass now.")],
        modelId="copilot/gpt-4.1",
        modeInfo={"kind": "agent", "isBuiltin": True, "modeId": "agent"},
        result={
            "timings": {"firstProgress": 900, "totalElapsed": 4_000},
            "metadata": {},
        },
    )
    return {
        "version": 3,
        "requesterUsername": "alex",
        "responderUsername": "GitHub Copilot",
        "responderAvatarIconUri": {"id": "copilot"},
        "initialLocation": "panel",
        "requests": [first, second],
        "sessionId": AGENT,
        "creationDate": T0 - 5_000,
        "lastMessageDate": T0 + 120_000,
        "customTitle": "Fix the checkout retry loop",
        "isImported": False,
    }


def asked_chat() -> dict[str, object]:
    only = request(
        1,
        "What does the   mono workspace build with?",
        T0 + 3_600_000,
        [
            {"kind": "markdownContent", "content": md("It builds with Bazel.")},
        ],
        modelId="copilot/gpt-4.1",
        modeInfo={"kind": "ask", "isBuiltin": True, "modeId": "ask"},
        result={"timings": {"firstProgress": 700, "totalElapsed": 2_500}},
    )
    return {
        "version": 3,
        "requesterUsername": "alex",
        "responderUsername": "GitHub Copilot",
        "initialLocation": "panel",
        "requests": [only],
        "sessionId": ASKED,
        "creationDate": T0 + 3_590_000,
        "lastMessageDate": T0 + 3_600_000,
    }


def simple_chat(session_id: str, text: str, answer: str, at: int) -> dict[str, object]:
    return {
        "version": 3,
        "requesterUsername": "alex",
        "responderUsername": "GitHub Copilot",
        "initialLocation": "panel",
        "requests": [
            request(
                1,
                text,
                at,
                [md(answer)],
                modelId="copilot/gpt-4o",
                result={"timings": {"totalElapsed": 1_000}},
            )
        ],
        "sessionId": session_id,
        "creationDate": at - 1_000,
        "lastMessageDate": at,
    }


def log_lines(entries: list[dict[str, object]]) -> str:
    # JSON.stringify(entry) + "\n", compact as V8 writes it
    return "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in entries)


def logged_chat() -> list[dict[str, object]]:
    """A 1.109+ log: the empty chat, then a request pushed, its response grown part by
    part, a sub-agent run, a title set, an error result, a cut, a delete."""
    start = T0 + 7_200_000
    initial = {
        "version": 3,
        "creationDate": start - 2_000,
        "initialLocation": "panel",
        "inputState": {"attachments": [], "mode": {"id": "agent", "kind": "agent"},
                       "inputText": "", "selections": [], "contrib": {}},
        "responderUsername": "GitHub Copilot",
        "sessionId": LOGGED,
        "requests": [],
        "hasPendingEdits": False,
        "pendingRequests": [],
    }  # fmt: skip
    spawn = tool(
        "call_sub_1", "runSubagent", "Find every caller of retry()",
        toolSpecificData={"kind": "subagent", "description": "Find every caller of retry()",
                          "agentName": "Explore", "prompt": "List the callers of retry() in src/"},
    )  # fmt: skip
    searched = tool(
        "call_grep_1", "copilot_findTextInFiles", "Searching for `retry(`",
        "Searched for `retry(`, 2 results", subAgentInvocationId="call_sub_1",
        resultDetails=[{"$mid": 1, "path": "/home/alex/code/shop-api/src/pay.py", "scheme": "file"},
                       {"$mid": 1, "path": "/home/alex/code/shop-api/src/ship.py", "scheme": "file"}],
    )  # fmt: skip
    done_spawn = {
        **spawn,
        "toolSpecificData": {
            **spawn["toolSpecificData"],
            "result": "pay.py and ship.py call retry().",
        },  # type: ignore[dict-item]
    }
    first = request(
        1, "Who calls retry()?", start, [], modelId="copilot/claude-sonnet-4",
        modeInfo={"kind": "agent", "isBuiltin": True, "modeId": "agent"},
    )  # fmt: skip
    second = request(
        2, "Rename it to retry_with_backoff", start + 60_000, [],
        modelId="copilot/claude-sonnet-4",
    )  # fmt: skip
    return [
        {"kind": 0, "v": initial},
        {"kind": 2, "k": ["requests"], "v": [first]},
        {"kind": 2, "k": ["requests", 0, "response"], "v": [md("I'll ask a sub-agent to look.")]},
        {"kind": 2, "k": ["requests", 0, "response"], "v": [spawn, searched]},
        {"kind": 2, "k": ["requests", 0, "response"], "v": [done_spawn], "i": 1},
        {"kind": 2, "k": ["requests", 0, "response"], "v": [searched, md("Two callers: pay.py and ship.py.")]},
        {"kind": 1, "k": ["requests", 0, "modelState"], "v": {"value": 1, "completedAt": start + 30_000}},
        {"kind": 1, "k": ["requests", 0, "result"], "v": {"timings": {"totalElapsed": 30_000}, "metadata": {}}},
        {"kind": 1, "k": ["customTitle"], "v": "Who calls retry()"},
        {"kind": 2, "k": ["requests"], "v": [second]},
        {"kind": 2, "k": ["requests", 1, "response"], "v": [md("Renaming now")]},
        {"kind": 1, "k": ["requests", 1, "response", 0], "v": md("Renaming now...")},
        {"kind": 1, "k": ["requests", 1, "result"],
         "v": {"errorDetails": {"message": "Sorry, you have exceeded your rate limit.", "code": "rate_limited"}}},
        {"kind": 1, "k": ["requests", 1, "modelState"], "v": {"value": 3, "completedAt": start + 65_000}},
        {"kind": 1, "k": ["inputState", "inputText"], "v": "draft not sent"},
        {"kind": 3, "k": ["inputState", "inputText"]},
    ]  # fmt: skip


def remote_chat() -> list[dict[str, object]]:
    at = T0 + 86_400_000
    state = simple_chat(
        REMOTE, "Where are the logs on this box?", "In /var/log/app.", at
    )
    state.pop("lastMessageDate")  # the log's schema keeps none
    return [{"kind": 0, "v": state}]


def state_db(path: Path, entries: dict[str, dict[str, object]]) -> None:
    """A workspace's state.vscdb (VS Code's storage: `ItemTable`) holding the chat index
    ChatSessionStore keeps (`chat.ChatSessionStore.index`, `{version: 1, entries}`)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(path)
    connection.execute(
        "CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)"
    )
    index = json.dumps({"version": 1, "entries": entries})
    connection.execute(
        "INSERT INTO ItemTable VALUES (?, ?)", ("chat.ChatSessionStore.index", index)
    )
    connection.execute(
        "INSERT INTO ItemTable VALUES (?, ?)", ("workbench.panel.chat", "{}")
    )
    connection.commit()
    connection.close()


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def flat(value: dict[str, object]) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def build_home(home: Path) -> None:
    user = home / USER
    shop = user / "workspaceStorage" / HASH_SHOP
    write(
        shop / "workspace.json",
        json.dumps({"folder": "file:///home/alex/code/shop-api"}),
    )
    write(shop / "chatSessions" / f"{AGENT}.json", flat(agent_chat()))
    write(shop / "chatSessions" / f"{LOGGED}.jsonl", log_lines(logged_chat()))
    # what 1.108 wrote for the same chat: VS Code reads the log instead, and so does sessdex
    stale = simple_chat(LOGGED, "Who calls retry()?", "(older copy)", T0 + 7_200_000)
    write(shop / "chatSessions" / f"{LOGGED}.json", flat(stale))
    unused = {**simple_chat(UNUSED, "x", "y", T0), "requests": []}
    write(shop / "chatSessions" / f"{UNUSED}.json", flat(unused))
    mono = user / "workspaceStorage" / HASH_MONO
    write(mono / "workspace.json",
          json.dumps({"workspace": "file:///home/alex/code/mono/mono.code-workspace"}))  # fmt: skip
    write(mono / "chatSessions" / f"{ASKED}.json", flat(asked_chat()))
    # renamed from the history list while it was not open: the new title is the index's
    state_db(mono / "state.vscdb", {ASKED: {
        "sessionId": ASKED, "title": "Which build tool does mono use", "lastMessageDate": T0 + 3_600_000,
        "timing": {"created": T0 + 3_590_000, "lastRequestStarted": T0 + 3_600_000,
                   "lastRequestEnded": T0 + 3_602_500},
        "initialLocation": "panel", "isEmpty": False, "lastResponseState": 1,
    }})  # fmt: skip
    remote = user / "workspaceStorage" / HASH_REMOTE
    write(remote / "workspace.json",
          json.dumps({"folder": "vscode-remote://ssh-remote%2Bbuildbox/srv/app"}))  # fmt: skip
    write(remote / "chatSessions" / f"{REMOTE}.jsonl", log_lines(remote_chat()))
    alone = simple_chat(EMPTY_WINDOW, "Explain  git rebase --onto", "It replays commits.",
                        T0 + 172_800_000)  # fmt: skip
    write(
        user / "globalStorage" / "emptyWindowChatSessions" / f"{EMPTY_WINDOW}.json",
        flat(alone),
    )
    # the same chat where VS Code kept empty-window chats before: it copied it on
    old = {**alone, "customTitle": "(old copy)"}
    write(user / "workspaceStorage" / "no-workspace" / "chatSessions" / f"{EMPTY_WINDOW}.json",
          flat(old))  # fmt: skip
    server = home / ".vscode-server/data/User/workspaceStorage" / HASH_SERVER
    write(server / "workspace.json", json.dumps({"folder": "file:///srv/api"}))
    write(server / "chatSessions" / f"{SERVER}.json",
          flat(simple_chat(SERVER, "Why is the api slow?", "The pool is small.", T0 + 259_200_000)))  # fmt: skip
    # Cursor, a fork, is read by the cursor reader: its folders are not looked in
    cursor = home / ".config/Cursor/User/workspaceStorage" / HASH_SHOP
    write(cursor / "chatSessions" / "11111111-2222-4333-8444-555555555555.json",
          flat(simple_chat("11111111-2222-4333-8444-555555555555", "hi", "hello", T0)))  # fmt: skip


def build_malformed(home: Path) -> None:
    chats = home / USER / "workspaceStorage" / HASH_SHOP / "chatSessions"
    write(chats.parent / "workspace.json", "{not json")
    write(
        chats / "aaaaaaaa-0000-4000-8000-000000000001.json",
        '{"version": 3, "requests": [',
    )
    write(chats / "aaaaaaaa-0000-4000-8000-000000000002.json", "[1, 2, 3]")
    lines = [
        {"kind": 1, "k": ["customTitle"], "v": "before any state"},
        {
            "kind": 0,
            "v": simple_chat("aaaaaaaa-0000-4000-8000-000000000003", "hello", "hi", T0),
        },
        {"kind": 1, "k": ["requests", 7, "result"], "v": {}},
        {
            "kind": 2,
            "k": ["requests", 0, "response"],
            "v": [{"kind": "brandNewPart"}, 5],
        },
        {"kind": 9, "k": ["requests"]},
        {"kind": 1, "k": "requests", "v": []},
    ]
    text = log_lines(lines).splitlines(keepends=True)
    text.insert(3, "this line is not JSON\n")
    write(
        chats / "aaaaaaaa-0000-4000-8000-000000000003.jsonl",
        "".join(text) + '{"kind": 1, "k"',
    )
    odd = simple_chat("aaaaaaaa-0000-4000-8000-000000000004", "odd parts", "ok", T0)
    odd["requests"][0]["response"] = [  # type: ignore[index]
        "a bare string",
        {"kind": "toolInvocationSerialized"},
        {"kind": "textEditGroup", "uri": "not a uri", "edits": "nope"},
        {"kind": "thinking", "value": ["one", 2, None]},
        {"kind": 7},
        {},
    ]
    odd["requests"][0]["result"] = {"errorDetails": {"message": 5}, "metadata": "x"}  # type: ignore[index]
    odd["requests"].append("not a request")  # type: ignore[attr-defined]
    write(chats / "aaaaaaaa-0000-4000-8000-000000000004.json", flat(odd))


def main() -> None:
    for folder, build in ((HERE / "home", build_home),
                          (HERE / "malformed" / "home", build_malformed)):  # fmt: skip
        shutil.rmtree(folder, ignore_errors=True)
        build(folder)


if __name__ == "__main__":
    main()
