"""Rebuild the Kiro IDE fixtures: `python tests/data/kiroide/make_fixtures.py`.

Writes `home/` and `malformed/home/`, synthetic (see PROVENANCE.md): the agent extension's
`workspace-sessions/<base64 folder>/` holding `sessions.json` and one `<sessionId>.json`
per chat, as Kiro writes them (Continue's session document, `JSON.stringify(session,
null, 2)`), with the members the public readers name (`selectedModel`, `sessionType`,
`promptLogs`, `executionId`); and Kiro 1.0's own store, `~/.kiro/sessions/<bucket>/<id>/`
(`session.json`, `messages.jsonl`), with the members third-party notes name, a chat
migrated there from the older store, and the Kiro CLI's `cli/` folder beside it.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
from pathlib import Path

HERE = Path(__file__).parent
STORAGE = Path(".config/Kiro/User/globalStorage/kiro.kiroagent/workspace-sessions")

SHOP = "/home/alex/code/shop-api"
DOCS = "/home/alex/code/docs-site"
RETRY = "2b7e4c1a-9d3f-4e6a-8b5c-1f0e2d3c4b5a"  # titled, tools, a placeholder answer
DOCS_CHAT = "7c1d3e5f-2a4b-4c6d-9e8f-0a1b2c3d4e5f"  # no title, no folder member
GONE = "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a"  # in sessions.json only: its file is gone
EXECUTIONS = "414d1636299d2b9e4ce7e17fb11f63e9"  # where a workspace's execution logs go
NATIVE = "sess_4f3e2d1c-0b9a-4876-a5b4-c3d2e1f0a9b8"  # a chat begun in Kiro 1.0
STORE = Path(".kiro/sessions")
IDENTITY = "<identity>\nYou are Kiro, an AI assistant and IDE built to assist developers.\n</identity>"


def folder(path: str) -> str:
    """The folder's name as Kiro writes it: URL-safe base64, its `=` padding as `_`."""
    return base64.urlsafe_b64encode(path.encode()).decode().replace("=", "_")


def write(path: Path, value: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2) + "\n")


def item(role: str, content: object, **more: object) -> dict[str, object]:
    message: dict[str, object] = {"role": role, "content": content, "id": f"m-{role}"}
    message.update(more.pop("message", {}))  # type: ignore[call-overload]
    return {"message": message, "contextItems": [], **more}


def home(root: Path) -> None:
    shop = root / STORAGE / folder(SHOP)
    write(
        shop / "sessions.json",
        [
            {
                "sessionId": RETRY,
                "title": "Fix the checkout retry",
                "dateCreated": "1796464800000",
                "workspaceDirectory": SHOP,
            },
            {
                "sessionId": GONE,
                "title": "A chat deleted since",
                "dateCreated": "1796378400000",
                "workspaceDirectory": SHOP,
            },
        ],
    )
    write(
        shop / f"{RETRY}.json",
        {
            "sessionId": RETRY,
            "title": "Fix the checkout retry",
            "workspaceDirectory": SHOP,
            "history": [
                item("user", IDENTITY),
                item(
                    "user",
                    [
                        {
                            "type": "text",
                            "text": "Why does the checkout retry loop forever?",
                        }
                    ],
                ),
                item(
                    "assistant",
                    "On it.",
                    executionId="e-1",
                    promptLogs=[
                        {
                            "modelTitle": "claude-sonnet-4",
                            "completion": "The loop never reads the retry budget.",
                        }
                    ],
                ),
                item(
                    "assistant",
                    "",
                    executionId="e-1",
                    message={
                        "toolCalls": [
                            {
                                "id": "call-1",
                                "type": "function",
                                "function": {
                                    "name": "readFile",
                                    "arguments": '{"path": "src/checkout.py"}',
                                },
                            }
                        ]
                    },
                ),
                item(
                    "tool",
                    "def retry():\n    while True: ...",
                    message={"toolCallId": "call-1"},
                ),
                item("user", "Fix it, please."),
                item("assistant", "On it.", executionId="e-2"),
            ],
            "sessionType": "vibe",
            "selectedModel": "claude-sonnet-4",
        },
    )
    # the execution log of the last answer, in the workspace's hashed folder
    hashed = hashlib.sha256(SHOP.encode()).hexdigest()[:32]
    write(
        root
        / STORAGE.parent
        / hashed
        / EXECUTIONS
        / hashlib.sha256(b"e-2").hexdigest()[:32],  # named by its id's hash
        {
            "executionId": "e-2",
            "workflowType": "chat-agent",
            "status": "succeed",
            "chatSessionId": RETRY,
            "startTime": 1796464800000,
            "endTime": 1796464860000,
            "actions": [
                # Kiro's own steps, no tool the agent used
                {
                    "actionType": "intentClassification",
                    "actionId": "a0",
                    "intentResult": {"classification": "do"},
                },
                {"actionType": "model", "actionId": "a0m", "endTime": 1796464805000},
                {
                    "actionType": "reasoning",
                    "actionId": "a0r",
                    "output": {"message": "The budget is never read."},
                },
                {
                    "actionType": "say",
                    "actionId": "a1",
                    "output": {"message": "I'll bound the loop."},
                },
                {
                    "actionType": "replace",
                    "actionId": "a2",
                    "actionState": "Accepted",
                    "input": {
                        "file": "src/checkout.py",
                        "originalContent": "while True: ...\n",
                        "modifiedContent": "for _ in range(3): ...\n",
                    },
                },
                {
                    "actionType": "runCommand",
                    "actionId": "a3",
                    "actionState": "Success",
                    "input": {"command": "pytest -q", "cwd": SHOP},
                    "output": {"output": "3 passed", "exitCode": 0},
                },
                {
                    "actionType": "delete",
                    "actionId": "a4",
                    "actionState": "Rejected",
                    "input": {"file": "src/old_retry.py"},
                    "errorMessage": "The user rejected the deletion",
                },
                {
                    "actionType": "say",
                    "actionId": "a5",
                    "output": {
                        "message": "Done: the loop now stops after three tries."
                    },
                },
            ],
            "usageSummary": [{"unit": "credit", "usage": 0.42}],
        },
    )
    docs = root / STORAGE / folder(DOCS)
    write(
        docs / f"{DOCS_CHAT}.json",
        {
            "sessionId": DOCS_CHAT,
            "title": "New Session",
            "history": [
                item("user", "Add a page on the release steps"),
                item("assistant", "Added docs/release.md."),
            ],
            "sessionType": "spec",
            "defaultModelTitle": "auto",
        },
    )
    # Kiro 1.0's note, beside a chat it copied to its own store: no chat of its own
    write(
        docs / f".migrated-{DOCS_CHAT}.json",
        {"migratedAt": "2026-11-02T09:00:00.000Z", "v2SessionId": f"sess_{DOCS_CHAT}"},
    )


def bucket(path: str) -> str:
    """Kiro 1.0's folder of a workspace's chats: sha256 of its lower-cased path, 16 hex."""
    return hashlib.sha256(path.replace("\\", "/").lower().encode()).hexdigest()[:16]


def event(stamp: str, number: int, **payload: object) -> dict[str, object]:
    return {"id": f"ev-{number:02d}", "timestamp": stamp, "payload": payload}


def lines(path: Path, records: list[dict[str, object]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def store(root: Path) -> None:
    """Kiro 1.0's store: the copy of the docs chat, one chat begun there, the CLI's."""
    copy = root / STORE / bucket(DOCS) / f"sess_{DOCS_CHAT}"
    write(
        copy / "session.json",
        {
            "id": f"sess_{DOCS_CHAT}",
            "title": "Add a page on the release steps",
            "modelId": "auto",
            "workspacePaths": [DOCS],
            "createdAt": "2026-11-02T09:00:00.000Z",
            "lastModifiedAt": "2026-11-02T09:05:00.000Z",
        },
    )
    lines(
        copy / "messages.jsonl",
        [
            event(
                "2026-11-02T09:00:00.000Z",
                1,
                type="user",
                content="Add a page on the release steps",
            ),
            event(
                "2026-11-02T09:00:05.000Z",
                2,
                type="assistant",
                content="Added docs/release.md.",
                operationType="Say",
            ),
        ],
    )
    chat = root / STORE / bucket(SHOP) / NATIVE
    write(
        chat / "session.json",
        {
            "id": NATIVE,
            "title": "Bound the payment retries",
            "modelId": "claude-sonnet-4.5",
            "workspacePaths": [SHOP],
            "createdAt": "2026-12-05T11:00:00.000Z",
            "lastModifiedAt": "2026-12-05T11:02:00.000Z",
        },
    )
    lines(
        chat / "messages.jsonl",
        [
            event("2026-12-05T11:00:00.000Z", 1, type="turn_start", executionId="x1"),
            event(
                "2026-12-05T11:00:00.100Z",
                2,
                type="user",
                content=[{"type": "text", "text": "Bound the payment retries too."}],
                source="chat",
            ),
            event(
                "2026-12-05T11:00:02.000Z",
                3,
                type="assistant",
                content="...",
                operationType="Reasoning",
                reasoningSignature="REDACTED",
            ),
            event(
                "2026-12-05T11:00:03.000Z",
                4,
                type="assistant",
                content="The payment client retries without a limit.",
                operationType="Reasoning",
            ),
            event(
                "2026-12-05T11:00:04.000Z",
                5,
                type="assistant",
                content="I'll cap it at three tries.",
                operationType="Say",
            ),
            event(
                "2026-12-05T11:00:05.000Z",
                6,
                type="tool_call",
                toolCallId="tc-1",
                toolName="strReplace",
                args={
                    "path": "src/pay.py",
                    "oldStr": "while True:",
                    "newStr": "for _ in range(3):",
                },
                status="completed",
            ),
            event(
                "2026-12-05T11:00:06.000Z",
                7,
                type="tool_call",
                toolCallId="tc-2",
                toolName="executeBash",
                args={"command": "pytest -q"},
            ),
            event(
                "2026-12-05T11:00:06.500Z",
                8,
                type="tool_result",
                toolCallId="tc-1",
                content="Replaced 1 occurrence",
                success=True,
            ),
            event(
                "2026-12-05T11:00:30.000Z",
                9,
                type="tool_result",
                toolCallId="tc-2",
                content={"exitCode": 1, "output": "1 failed"},
                success=False,
            ),
            event(
                "2026-12-05T11:00:31.000Z",
                10,
                type="session_metadata",
                key="contextUsage",
                value={"usagePercentage": 12.5},
            ),
            event(
                "2026-12-05T11:01:00.000Z",
                11,
                type="assistant",
                content="Capped; one test fails as before.",
                operationType="Say",
            ),
            event(
                "2026-12-05T11:01:01.000Z",
                12,
                type="usage_summary",
                promptTurnSummaries=[
                    {
                        "unit": "credit",
                        "unitPlural": "Credits",
                        "usage": 0.37,
                        "usedTools": ["strReplace", "executeBash"],
                    }
                ],
                elapsedTime=61000,
                status="success",
            ),
            event(
                "2026-12-05T11:01:02.000Z",
                13,
                type="turn_end",
                stopReason="end_turn",
                executionId="x1",
            ),
            # written last, in the capture a third-party reader describes
            event(
                "2026-12-05T11:01:03.000Z",
                14,
                type="session_start",
                agentType="vibe",
                content=IDENTITY,
            ),
        ],
    )
    # the Kiro CLI's own folder in the same store: the `kiro` source's, never listed here
    cli = root / STORE / "cli"
    write(cli / "0a5376f2-7e2f-4981-bcbc-67195586604a.json",
          {"session_id": "0a5376f2-7e2f-4981-bcbc-67195586604a", "cwd": SHOP})  # fmt: skip
    write(cli / "nested" / "session.json", {"id": "nested", "title": "not a chat"})


def malformed(root: Path) -> None:
    base = root / STORAGE
    bad = base / folder("/home/alex/code/broken")
    bad.mkdir(parents=True, exist_ok=True)
    (bad / "sessions.json").write_text('{"not": "a list"}\n')
    (bad / "0a0a0a0a-0000-4000-8000-000000000001.json").write_text(
        '{"sessionId": "cut", "history": [{"message": {"role": "user", "content": "half'
    )
    write(bad / "0a0a0a0a-0000-4000-8000-000000000002.json", ["not", "an", "object"])
    write(
        bad / "0a0a0a0a-0000-4000-8000-000000000003.json",
        {
            "sessionId": 7,
            "title": ["x"],
            "workspaceDirectory": 3,
            "history": [
                1,
                {"message": {"role": "oracle", "content": "?"}},
                {"message": {"role": "assistant", "content": None, "toolCalls": [{}]}},
            ],
            "selectedModel": 5,
        },
    )
    write(bad / "0a0a0a0a-0000-4000-8000-000000000004.json", {"history": "not a list"})
    (bad / "0a0a0a0a-0000-4000-8000-000000000005.json").write_bytes(
        b"\xff\xfe not text"
    )
    write(
        bad / "0a0a0a0a-0000-4000-8000-000000000007.json",
        {
            "history": [item("user", "go")]
            + [item("assistant", "On it.", executionId=f"x-{n}") for n in range(1, 5)]
        },
    )
    logs = (
        base.parent
        / hashlib.sha256(b"/home/alex/code/broken").hexdigest()[:32]
        / EXECUTIONS
    )
    logs.mkdir(parents=True)
    (logs / "1").write_text(
        '{"executionId": "x-1", "actions": [{"actionType": "say", "output": {"mess'
    )
    write(logs / "2", {"executionId": "x-2", "actions": "nope"})
    write(
        logs / "3",
        {
            "executionId": "x-3",
            "actions": [
                1,
                {"actionType": None},
                {"actionType": "say", "output": "text"},
                {"actionType": "runCommand", "output": [1, 2], "input": "ls"},
            ],
        },
    )
    (logs / "4").write_bytes(
        b'{"executionId": "x-4", "actions": [{"actionType": "say", "output": {"message": "\\xff"}}]}'
        + b"\xff"
    )
    (logs / "5").mkdir()
    # Kiro 1.0's store, broken: a header that is no object, a log of bad lines and
    # payload types no reader knows, a folder with a log and no header
    odd = root / STORE / "0123456789abcdef"
    write(odd / "sess_broken" / "session.json", ["not", "an", "object"])
    (odd / "sess_broken" / "messages.jsonl").write_bytes(
        b'not json\n{"payload": 3}\n{"payload": {"type": "tombstone"}}\n'
        b'{"payload": {"type": "tool_call", "args": "x"}}\n'
        b'{"payload": {"type": "usage_summary", "promptTurnSummaries": [{"usage": "x"}]}}\n'
        b'{"payload": {"type": "user", "content": [1, {"text": 2}]}}\n'
        b'{"timestamp": 5, "payload": {"type": "assistant", "content": "\xff"'
    )
    lines(
        odd / "sess_headless" / "messages.jsonl",
        [event("2026-12-05T11:00:00Z", 1, type="user", content="no header here")],
    )
    # a migration note naming a copy that is not in the store: the chat stays listed
    write(
        bad / "._migration-5e5e5e5e-0000-4000-8000-000000000009.json",
        {
            "v2SessionId": "sess_missing",
            "sessionId": "0a0a0a0a-0000-4000-8000-000000000003",
        },
    )
    write(
        base / "not-base64!" / "0a0a0a0a-0000-4000-8000-000000000006.json",
        {"history": [{"message": {"role": "user", "content": "x" * 300_000}}]},
    )


def main() -> None:
    for name, build in (("home", home), ("malformed/home", malformed)):
        target = HERE / name
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        build(target)
    store(HERE / "home")


if __name__ == "__main__":
    main()
