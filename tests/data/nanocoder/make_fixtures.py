"""Writes the synthetic Nanocoder fixtures (the real captures are copied, not made here).

Laid out as Nanocoder 1.30.0 writes them: JSON.stringify(session, null, 2), members in
session-manager.js's order. Run from anywhere: `python tests/data/nanocoder/make_fixtures.py`.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
SESSIONS = HERE / "home" / ".local" / "share" / "nanocoder" / "sessions"
MALFORMED = HERE / "malformed" / "home" / ".local" / "share" / "nanocoder" / "sessions"

LEDGER = "c0ffee00-1b2c-4d3e-8f40-5a6b7c8d9e0f"
COMPACT = "1d2e3f40-5a6b-4c7d-8e9f-0a1b2c3d4e5f"
GONE = "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a"
CUT = "2b3c4d5e-6f70-4182-9a3b-4c5d6e7f8091"
ODD = "3c4d5e6f-7081-4293-8b4c-5d6e7f8091a2"

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="


def head(
    session_id: str,
    title: str,
    created: str,
    accessed: str,
    count: int,
    provider: str,
    model: str,
    cwd: str,
) -> dict[str, object]:
    return {
        "id": session_id,
        "title": title,
        "createdAt": created,
        "lastAccessedAt": accessed,
        "messageCount": count,
        "provider": provider,
        "model": model,
        "workingDirectory": cwd,
    }


def write(path: Path, value: object, *, indent: int | None = 2) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=indent, ensure_ascii=False))


def main() -> None:
    messages = [
        {
            "role": "user",
            "content": "Why does the retry loop in ledger/sync.py never stop?",
            "images": [{"data": PNG, "mediaType": "image/png", "source": "clipboard"}],
        },
        {
            "role": "assistant",
            "content": "",
            "reasoning": "The loop condition reads attempts before it is incremented.",
            "tool_calls": [
                {
                    "id": "a1b2c3d4e",
                    "function": {
                        "name": "read_file",
                        "arguments": {"path": "ledger/sync.py"},
                    },
                }
            ],
        },
        {
            "role": "tool",
            "content": "while attempts < 3:\n    push()\n",
            "tool_call_id": "a1b2c3d4e",
            "name": "read_file",
        },
        {
            "role": "assistant",
            "content": "It never increments `attempts`, so the condition is always true.",
        },
        {"role": "user", "content": "Fix it."},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "b2c3d4e5f",
                    "function": {
                        "name": "string_replace",
                        "arguments": {
                            "path": "ledger/sync.py",
                            "old_str": "    push()\n",
                            "new_str": "    push()\n    attempts += 1\n",
                        },
                    },
                }
            ],
        },
        {
            "role": "tool",
            "content": "Error: Could not find the text to replace in ledger/sync.py",
            "tool_call_id": "b2c3d4e5f",
            "name": "string_replace",
        },
        {
            "role": "user",
            "content": "Please provide a summary or response based on the tool results above.",
        },
        {
            "role": "user",
            "content": "<conversation-summary>\nThe user asked why the retry loop never stops; `attempts` is never incremented.\n</conversation-summary>\n\n(The above is an automated summary of earlier conversation. Continue from the most recent message.)",
        },
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "c3d4e5f60",
                    "function": {
                        "name": "execute_bash",
                        "arguments": {"command": "git diff"},
                    },
                }
            ],
        },
        {
            "role": "tool",
            "content": "Tool execution was cancelled by the user.",
            "tool_call_id": "c3d4e5f60",
            "name": "execute_bash",
        },
        {
            "role": "assistant",
            "content": "Add `attempts += 1` after `push()` in the loop.",
        },
    ]
    ledger = head(
        LEDGER,
        "Explain the retry loop",
        "2026-12-04T09:12:03.101Z",
        "2026-12-04T09:20:41.778Z",
        len(messages),
        "ollama",
        "qwen3-coder:30b",
        "/home/alex/code/ledger",
    )
    write(
        SESSIONS / f"{LEDGER}.json",
        {**ledger, "messages": messages, "titleManuallySet": True},
    )
    compact_messages = [
        {"role": "user", "content": "List the TODOs"},
        {"role": "assistant", "content": "There are none."},
    ]
    compact = head(
        COMPACT,
        "List the TODOs",
        "2026-12-03T16:00:00.000Z",
        "2026-12-03T16:00:05.000Z",
        2,
        "openrouter",
        "google/gemini-3.1-flash",
        "/home/alex/code/notes",
    )
    # not laid out as Nanocoder writes it (another tool's compact copy): parsed whole
    write(
        SESSIONS / f"{COMPACT}.json",
        {**compact, "messages": compact_messages},
        indent=None,
    )
    real = (
        json.loads((SESSIONS / "sessions.json").read_text())
        if (SESSIONS / "sessions.json").exists()
        else []
    )
    real = [entry for entry in real if entry["id"] not in (LEDGER, GONE)]
    gone = head(
        GONE,
        "A chat whose file was deleted",
        "2026-12-01T08:00:00.000Z",
        "2026-12-01T08:00:00.000Z",
        2,
        "ollama",
        "llama3.1",
        "/home/alex/code/old",
    )
    # the index (as the app keeps it: COMPACT is missing from it, GONE has no file)
    write(SESSIONS / "sessions.json", [*real, ledger, gone])

    # malformed: a chat cut short mid-message, one with odd messages, one not JSON, a broken index
    cut = head(
        CUT,
        "Cut short",
        "2026-12-02T10:00:00.000Z",
        "2026-12-02T10:01:00.000Z",
        3,
        "ollama",
        "llama3.1",
        "/home/alex/code/cut",
    )
    text = json.dumps(
        {
            **cut,
            "messages": [
                {"role": "user", "content": "First prompt"},
                {"role": "assistant", "content": "First answer"},
                {"role": "user", "content": "Second prompt that never ends"},
            ],
        },
        indent=2,
    )
    MALFORMED.mkdir(parents=True, exist_ok=True)
    (MALFORMED / f"{CUT}.json").write_text(text[: text.index("Second prompt")])
    odd = head(
        ODD,
        "Odd messages",
        "2026-12-02T11:00:00.000Z",
        "2026-12-02T11:02:00.000Z",
        5,
        "ollama",
        "llama3.1",
        "/home/alex/code/odd",
    )
    write(
        MALFORMED / f"{ODD}.json",
        {
            **odd,
            "messages": [
                "not a message",
                {"role": "developer", "content": "a role Nanocoder does not write"},
                {"role": "user", "content": "Hello"},
                {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [
                        {"function": {}},
                        "nope",
                        {
                            "id": "d4e5f6071",
                            "function": {"name": "execute_bash", "arguments": "ls -la"},
                        },
                    ],
                },
                {
                    "role": "tool",
                    "content": ["not", "text"],
                    "tool_call_id": "d4e5f6071",
                },
                {"role": "assistant", "content": 42},
            ],
        },
    )
    (MALFORMED / "5d6e7f80-9102-4334-a5d6-e7f8091a2b3c.json").write_text(
        '{"id": "5d6e7f80'
    )
    (MALFORMED / "sessions.json").write_text('[{"id": ')


if __name__ == "__main__":
    main()
