"""Rebuild the Kiro IDE fixtures: `python tests/data/kiroide/make_fixtures.py`.

Writes `home/` and `malformed/home/`, synthetic (see PROVENANCE.md): the agent extension's
`workspace-sessions/<base64 folder>/` holding `sessions.json` and one `<sessionId>.json`
per chat, as Kiro writes them (Continue's session document, `JSON.stringify(session,
null, 2)`), with the members the public readers name (`selectedModel`, `sessionType`,
`promptLogs`, `executionId`).
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


if __name__ == "__main__":
    main()
