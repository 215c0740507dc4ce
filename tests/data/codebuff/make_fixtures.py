"""Writes the synthetic Codebuff fixtures: no real capture was found in public repositories.

The shapes follow CodebuffAI/codebuff's CLI source (cli/src/types/chat.ts: ChatMessage and
its content blocks; cli/src/utils/run-state-storage.ts: chat-messages.json and
run-state.json beside it, JSON.stringify(value, null, 2); cli/src/project-files.ts: the
folder layout). Run from anywhere: `python tests/data/codebuff/make_fixtures.py`.
"""

from __future__ import annotations

import json
import shutil
from datetime import datetime
from pathlib import Path

HERE = Path(__file__).parent
ROOT = ".config/manicode"


def write(path: Path, value: object, *, raw: str | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(raw if raw is not None else json.dumps(value, indent=2))


def made(iso: str, kind: str, tail: str = "") -> dict[str, str]:
    """A message's `id` and `timestamp` as the CLI writes them: the id carries the epoch
    milliseconds (`user-<ms>`, `ai-<ms>-<hex>`), the timestamp only the clock time shown."""
    moment = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    ms = int(moment.timestamp() * 1000)
    return {
        "id": f"{kind}-{ms}{tail}",
        "timestamp": moment.strftime("%I:%M %p"),
    }


def divider(iso: str, mode: str) -> dict[str, object]:
    """The message the CLI adds before a prompt whose mode differs from the last one's."""
    return {
        **made(iso, "divider"),
        "variant": "ai",
        "content": "",
        "blocks": [{"type": "mode-divider", "mode": mode}],
    }


def run_state(root: str, history: list[object]) -> dict[str, object]:
    """The SDK's RunState: the main agent's state first, then the file context."""
    return {
        "sessionState": {
            "mainAgentState": {
                "agentId": "main-agent",
                "agentType": "base2",
                "agentContext": {},
                "subagents": [],
                "messageHistory": history,
                "stepsRemaining": 20,
                "creditsUsed": 42,
            },
            "fileContext": {
                "projectRoot": root,
                "cwd": root,
                "fileTree": [{"name": "src", "type": "directory", "children": []}],
                "knowledgeFiles": {},
            },
        },
        "output": {"type": "lastMessage", "value": "Done."},
    }


def shop_api(home: Path) -> None:
    chat = home / ROOT / "projects/shop-api/chats/2026-12-01T10-00-00.000Z"
    messages = [
        divider("2026-12-01T10:00:00.990Z", "DEFAULT"),  # before a chat's first prompt
        {
            **made("2026-12-01T10:00:01.000Z", "user"),
            "variant": "user",
            "content": "Add retry to checkout",
            "fileAttachments": [
                {
                    "path": "src/checkout.ts",
                    "filename": "checkout.ts",
                    "isDirectory": False,
                }
            ],
        },
        {
            **made("2026-12-01T10:00:05.000Z", "ai", "-9f3c2a"),
            "variant": "ai",
            "content": "",
            "isComplete": True,
            "credits": 42,
            "blocks": [
                {
                    "type": "text",
                    "content": "Look at checkout first.",
                    "textType": "reasoning",
                },
                # spawn_agents itself is no block (the CLI hides it): each agent it
                # started is one, named by its type
                {
                    "type": "agent",
                    "agentId": "agent-fp-1",
                    "agentName": "file-picker",
                    "agentType": "file-picker",
                    "content": "",
                    "status": "complete",
                    "initialPrompt": "Find the checkout code",
                    "spawnToolCallId": "call-spawn",
                    "spawnIndex": 0,
                    "blocks": [
                        {
                            "type": "tool",
                            "toolCallId": "call-find",
                            "toolName": "find_files",
                            "input": {"prompt": "checkout"},
                            "output": "src/checkout.ts",
                        },
                        {
                            "type": "text",
                            "content": "src/checkout.ts holds checkout().",
                        },
                    ],
                },
                {
                    "type": "tool",
                    "toolCallId": "call-edit",
                    "toolName": "str_replace",
                    "input": {
                        "path": "src/checkout.ts",
                        "replacements": [{"old": "pay()", "new": "retry(pay)"}],
                    },
                    "output": "Updated src/checkout.ts",
                },
                {"type": "text", "content": "Checkout now retries the payment."},
                {"type": "agent-list", "id": "x", "agents": [], "agentsDir": ".agents"},
            ],
        },
        divider("2026-12-01T10:01:59.990Z", "MAX"),  # the mode changed
        {
            **made("2026-12-01T10:02:00.000Z", "user"),
            "variant": "user",
            "content": "Run the tests",
        },
        {
            **made("2026-12-01T10:02:09.000Z", "ai", "-41d07e"),
            "variant": "ai",
            "content": "",
            "isComplete": True,
            "credits": 7.5,
            "blocks": [
                {
                    "type": "tool",
                    "toolCallId": "call-test",
                    "toolName": "run_terminal_command",
                    "input": {"command": "npm test"},
                    "output": '{"errorMessage": "npm: command not found"}',
                },
                {
                    "type": "ask-user",
                    "toolCallId": "call-ask",
                    "questions": [
                        {
                            "question": "Install npm?",
                            "options": [{"label": "Yes"}, {"label": "No"}],
                        }
                    ],
                    "answers": [{"questionIndex": 0, "selectedOption": "No"}],
                },
                {"type": "text", "content": "The tests could not run: npm is missing."},
            ],
        },
    ]
    write(chat / "chat-messages.json", messages)
    write(chat / "run-state.json", run_state("/home/alex/code/shop-api", []))


def notes(home: Path) -> None:
    chat = home / ROOT / "projects/notes/chats/2026-12-03T08-30-15.250Z"
    messages = [
        {
            **made("2026-12-03T08:30:16.000Z", "user"),
            "variant": "user",
            "content": "What does this repo do?",
        },
        {
            **made("2026-12-03T08:30:17.000Z", "error"),
            "variant": "error",
            "content": "Out of credits",
        },
        {
            **made("2026-12-03T08:31:00.000Z", "ai", "-c55a10"),
            "variant": "ai",
            "content": "It keeps notes.",
            "isComplete": True,
            "userError": "Network hiccup, retried",
        },
    ]
    write(chat / "chat-messages.json", messages)  # no run-state.json: no folder known


def legacy(home: Path) -> None:
    """The older CLI's messages.json (npm-app/src/chat-storage.ts): the model's history."""
    chat = home / ROOT / "projects/shop-api/chats/2025-08-20T14-05-00.000Z"
    document = {
        "id": "2025-08-20T14-05-00.000Z",
        "messages": [
            {
                "role": "user",
                "content": "<system_instructions>Be brief.</system_instructions>",
            },
            {
                "role": "user",
                "content": "<user_message>Why is checkout slow?</user_message>",
            },
            {
                "role": "assistant",
                "content": [
                    {"type": "reasoning", "text": "Read the handler."},
                    {"type": "text", "text": "Reading it."},
                    {
                        "type": "tool-call",
                        "toolCallId": "t1",
                        "toolName": "read_files",
                        "input": {"paths": ["src/checkout.ts"]},
                    },
                ],
            },
            {
                "role": "tool",
                "content": {
                    "type": "tool-result",
                    "toolCallId": "t1",
                    "toolName": "read_files",
                    "output": [
                        {"type": "json", "value": [{"path": "src/checkout.ts"}]}
                    ],
                },
            },
            {"role": "assistant", "content": "It awaits each item in turn."},
        ],
        "updatedAt": "2025-08-20T14:07:30.000Z",
    }
    write(chat / "messages.json", document)
    (chat / "log.jsonl").write_text('{"level":30,"msg":"not a chat"}\n')


def malformed(home: Path) -> None:
    chats = home / ROOT / "projects/broken/chats"
    # cut short mid-write: the first message is kept
    whole = json.dumps(
        [
            {"id": "u", "variant": "user", "content": "Cut short", "timestamp": "x"},
            {"id": "a", "variant": "ai", "content": "never finished"},
        ],
        indent=2,
    )
    write(chats / "2026-12-04T09-00-00.000Z/chat-messages.json", None, raw=whole[:-60])
    write(
        chats / "2026-12-04T09-00-00.000Z/run-state.json", None, raw='{"sessionState": '
    )
    # not a list
    write(chats / "2026-12-04T09-10-00.000Z/chat-messages.json", {"messages": []})
    # wrong types everywhere, an unknown variant and block
    write(
        chats / "not-a-time/chat-messages.json",
        [
            7,
            {"variant": 3},
            {"variant": "robot", "content": "?"},
            {"variant": "user", "content": ["not", "text"], "timestamp": 12},
            {"variant": "ai", "blocks": "nope", "credits": "many"},
            {
                "variant": "ai",
                "blocks": [
                    5,
                    {"type": "hologram"},
                    {"type": "tool"},
                    {"type": "agent", "blocks": {"x": 1}},
                    {"type": "tool", "toolName": "x", "output": 9},
                ],
            },
            {"variant": "agent", "agent": "nope", "content": "agent says"},
        ],
    )
    write(chats / "2026-12-04T09-20-00.000Z/run-state.json", {})  # no messages file
    # the older CLI's document, damaged: a list, an unknown role, a part of no known type
    write(chats / "2025-08-01T00-00-00.000Z/messages.json", [1, 2])
    write(
        chats / "2025-08-02T00-00-00.000Z/messages.json",
        {
            "messages": [
                3,
                {"role": "robot"},
                {"role": "assistant", "content": [{"type": "x"}]},
                {"role": "tool", "content": "nope"},
            ],
            "updatedAt": 5,
        },
    )
    (chats.parent.parent / "stray.txt").write_text("not a project\n")


def main() -> None:
    for name in ("home", "malformed"):
        shutil.rmtree(HERE / name, ignore_errors=True)
    home = HERE / "home"
    shop_api(home)
    notes(home)
    legacy(home)
    write(home / ROOT / "credentials.json", {"default": {"authToken": "never-read"}})
    malformed(HERE / "malformed/home")


if __name__ == "__main__":
    main()
