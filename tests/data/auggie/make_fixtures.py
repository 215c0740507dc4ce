"""Writes the synthetic Auggie fixtures (no real capture could be made: Auggie needs an
Augment login). The layout follows what the @augmentcode/auggie 0.36.0 bundle writes:
JSON.stringify(session, null, 2) to `~/.augment/sessions/<id>.json`, members in its order,
node types by number. Run it from anywhere: `python tests/data/auggie/make_fixtures.py`.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).parent
MAIN = "5a3e1c2b-7d4f-4a6b-9c8d-1e2f3a4b5c6d"
COMPACTED = "9b8a7c6d-5e4f-4321-8a9b-0c1d2e3f4a5b"
CHILD = "c0ffee00-1111-4222-8333-444455556666"
OLDER = "5e8a8a99-0000-4000-8000-000000000001"
WORKSPACE = "/home/alex/code/shop-api"


def ide_state(folder: str = WORKSPACE) -> dict[str, object]:
    return {
        "id": 1,
        "type": 4,
        "ide_state_node": {
            "workspace_folders": [{"folder_root": folder, "repository_root": folder}],
            "workspace_folders_unchanged": False,
            "current_terminal": {"terminal_id": 0, "current_working_directory": folder},
        },
    }


def node(node_id: int, kind: int, **fields: object) -> dict[str, object]:
    """A response node with every field, those it does not use null, as a real session
    quoted in a public transcript (Auggie of January 2026) shows them."""
    value: dict[str, object] = {
        "id": node_id,
        "type": kind,
        "content": "",
        "tool_use": None,
        "thinking": None,
        "billing_metadata": None,
        "metadata": {"openai_id": None, "google_ts": None, "provider": None},
        "token_usage": None,
    }
    value.update(fields)
    return value


def text(content: str, node_id: int = 0) -> dict[str, object]:
    return {"id": node_id, "type": 0, "text_node": {"content": content}}


def item(
    exchange: dict[str, object], sequence: int, finished: str, **more: object
) -> dict[str, object]:
    return {
        "exchange": exchange,
        "completed": True,
        "sequenceId": sequence,
        "finishedAt": finished,
        "changedFiles": [],
        "changedFilesSkipped": [],
        "changedFilesSkippedCount": 0,
        "isHistorySummary": False,
        "historySummaryVersion": 0,
        "source": "local",
        **more,
    }


def usage(given: int, made: int, read: int = 0, written: int = 0) -> dict[str, object]:
    return {
        "id": 9,
        "type": 10,
        "content": "",
        "token_usage": {
            "input_tokens": given,
            "output_tokens": made,
            "cache_read_input_tokens": read,
            "cache_creation_input_tokens": written,
            "system_prompt_tokens": 900,
        },
    }


def session(
    session_id: str, created: str, modified: str, history: list[object], **more: object
) -> dict[str, object]:
    value: dict[str, object] = {
        "sessionId": session_id,
        "created": created,
        "modified": modified,
        "chatHistory": history,
        "agentState": {
            "userGuidelines": "",
            "workspaceGuidelines": "",
            "modelId": "claude-sonnet-4-5",
            "userEmail": "alex@example.com",
        },
    }
    value.update(more)
    return value


def main_session() -> dict[str, object]:
    prompt = "Run the tests and tell me which one fails."
    first = {
        "request_message": prompt,
        "response_text": "I'll run the test suite.",
        "request_id": "req-1",
        "request_nodes": [text(prompt), ide_state()],
        "response_nodes": [
            {
                "id": 1,
                "type": 8,
                "content": "",
                "thinking": {"content": "The user wants the failing test."},
                "timestamp_ms": 1796465105000,
            },
            {"id": 2, "type": 0, "content": "I'll run ", "timestamp_ms": 1796465106000},
            {
                "id": 3,
                "type": 0,
                "content": "the test suite.",
                "timestamp_ms": 1796465106100,
            },
            {
                "id": 4,
                "type": 5,
                "content": "",
                "tool_use": {
                    "tool_use_id": "toolu_01",
                    "tool_name": "launch-process",
                    "input_json": json.dumps({"command": "pytest -q", "wait": True}),
                    "started_at_ms": 1796465106200,
                    "completed_at_ms": 1796465109000,
                },
                "timestamp_ms": 1796465106200,
            },
            {
                "id": 5,
                "type": 9,
                "content": "",
                "billing_metadata": {"transaction_id": "t1", "credits_consumed": 2},
            },
            usage(12, 40, read=3000, written=500),
        ],
        "model_id": "claude-sonnet-4-5",
    }
    second = {
        "request_message": "",
        "response_text": "`test_checkout_retry` fails: the retry count is off by one.",
        "request_id": "req-2",
        "request_nodes": [
            {
                "id": 1,
                "type": 1,
                "tool_result_node": {
                    "tool_use_id": "toolu_01",
                    "content": "1 failed, 41 passed",
                    "is_error": False,
                    "duration_ms": 2800,
                },
            },
            ide_state(),
        ],
        "response_nodes": [
            {
                "id": 1,
                "type": 0,
                "content": "`test_checkout_retry` fails: the retry count is off by one.",
                "timestamp_ms": 1796465111000,
            },
            usage(20, 25, read=3500),
        ],
        "model_id": "claude-sonnet-4-5",
    }
    return session(
        MAIN,
        "2026-12-05T10:05:00.000Z",
        "2026-12-05T10:05:12.000Z",
        [
            item(first, 1, "2026-12-05T10:05:06.300Z"),
            item(second, 2, "2026-12-05T10:05:12.000Z"),
        ],
        workspaceId="ws-1",
        title="Find the failing test",
        terminalId="7",
        subAgents=[
            {
                "name": "explore",
                "model": "claude-haiku-4-5",
                "finishedAt": "2026-12-05T10:05:10.000Z",
                "chatHistory": [
                    item(
                        {
                            "request_message": "Find the retry code.",
                            "response_text": "It is in checkout/retry.py.",
                            "request_id": "req-s1",
                            "request_nodes": [text("Find the retry code.")],
                            "response_nodes": [
                                {
                                    "id": 1,
                                    "type": 0,
                                    "content": "It is in checkout/retry.py.",
                                }
                            ],
                        },
                        1,
                        "2026-12-05T10:05:10.000Z",
                    )
                ],
                "tool_call_request_id": "req-1",
            }
        ],
    )


def compacted_session() -> dict[str, object]:
    summary = {
        "summary_text": "We fixed the retry count in checkout/retry.py.",
        "summarization_request_id": "req-sum",
        "summary_updates": [],
        "history_beginning_dropped_num_exchanges": 4,
        "history_middle_abridged_text": "",
        "history_end": [],
        "message_template": "<supervisor>{summary}</supervisor>",
    }
    return session(
        COMPACTED,
        "2026-12-04T08:00:00.000Z",
        "2026-12-04T09:30:00.000Z",
        [
            item(
                {
                    "request_message": "",
                    "response_text": "Ok. I will continue the conversation from this point.",
                    "request_id": "req-sum",
                    "request_nodes": [
                        {"id": 0, "type": 10, "history_summary_node": summary},
                        ide_state("/home/alex/code/ledger"),
                    ],
                    "response_nodes": [],
                },
                1,
                "2026-12-04T09:00:00.000Z",
                isHistorySummary=True,
                historySummaryVersion=2,
            ),
            item(
                {
                    "request_message": "What does this screenshot show?",
                    "response_text": "",
                    "request_id": "req-3",
                    "request_nodes": [
                        text("What does this screenshot show?"),
                        {
                            "id": 1,
                            "type": 2,
                            "image_node": {"image_data": "", "format": 1},
                        },
                    ],
                    "response_nodes": [],
                    "model_id": "gpt-5",
                },
                2,
                "2026-12-04T09:30:00.000Z",
                completed=False,
            ),
        ],
        customTitle="Retry fix (continued)",
        title="Fix the retry count",
    )


def child_session() -> dict[str, object]:
    return session(
        CHILD,
        "2026-12-05T10:05:07.000Z",
        "2026-12-05T10:05:09.000Z",
        [
            item(
                {
                    "request_message": "List the retry tests.",
                    "response_text": "There are three.",
                    "request_id": "req-c1",
                    "request_nodes": [text("List the retry tests."), ide_state()],
                    "response_nodes": [
                        {"id": 1, "type": 0, "content": "There are three."},
                        usage(7, 5),
                    ],
                },
                1,
                "2026-12-05T10:05:09.000Z",
            )
        ],
        parentConversationId=MAIN,
        rootTaskUuid="task-1",
    )


def older_session() -> dict[str, object]:
    """As Auggie wrote a session in January 2026 (the shape a real one quoted in a
    public transcript has): every node field written, the unused ones null; a thinking
    summary with its encrypted content; a blank answer before the calls; no
    `isHistorySummary`; a Windows folder."""
    folder = "d:\\work\\NewTabPage"
    state = ide_state(folder)
    first = {
        "request_message": "see todo",
        "response_text": "\n",
        "request_id": "b88e33f0-0000-4000-8000-000000000001",
        "request_nodes": [text("see todo", 1), state],
        "response_nodes": [
            node(
                0,
                8,
                thinking={
                    "summary": "The user wants the TODO file.",
                    "encrypted_content": "EsECCkgI",
                    "content": None,
                    "openai_responses_api_item_id": None,
                },
                metadata={
                    "openai_id": None,
                    "google_ts": None,
                    "provider": "anthropic",
                },
            ),
            node(
                1,
                5,
                tool_use={
                    "tool_use_id": "toolu_vrtx_01",
                    "tool_name": "view",
                    "input_json": json.dumps({"path": ".", "type": "directory"}),
                    "is_partial": False,
                },
            ),
            node(2, 0),
        ],
    }
    second = {
        "request_message": "",
        "response_text": "The TODO asks for performance fixes.",
        "request_id": "29b607a9-0000-4000-8000-000000000002",
        "request_nodes": [
            {**state, "id": 1},
            {
                "id": 1,
                "type": 1,
                "tool_result_node": {
                    "tool_use_id": "toolu_vrtx_01",
                    "content": "./TODO.txt\n./README.md\n",
                    "is_error": False,
                },
            },
        ],
        "response_nodes": [node(0, 0, content="The TODO asks for performance fixes.")],
    }
    entries = []
    for sequence, (exchange, finished) in enumerate(
        [(first, "2026-01-16T11:46:31.453Z"), (second, "2026-01-16T11:47:16.000Z")], 1
    ):
        entries.append(
            {
                "exchange": exchange,
                "completed": True,
                "sequenceId": sequence,
                "finishedAt": finished,
                "changedFiles": [],
                "changedFilesSkipped": [],
                "changedFilesSkippedCount": 0,
            }
        )
    return {
        "sessionId": OLDER,
        "created": "2026-01-16T11:46:37.488Z",
        "modified": "2026-01-16T11:47:16.997Z",
        "chatHistory": entries,
        "agentState": {
            "userGuidelines": "",
            "workspaceGuidelines": "",
            "agentMemories": "",
            "modelId": "claude-opus-4-5",
        },
    }


def write(path: Path, value: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2, ensure_ascii=False))


def main() -> None:
    sessions = HERE / "home" / ".augment" / "sessions"
    write(sessions / f"{MAIN}.json", main_session())
    write(
        sessions / f"{MAIN}-backup1.json", main_session()
    )  # Auggie's copy: not listed
    write(sessions / f"{COMPACTED}.json", compacted_session())
    write(sessions / f"{CHILD}.json", child_session())
    write(sessions / f"{OLDER}.json", older_session())
    # the login beside the sessions: never opened
    write(HERE / "home" / ".augment" / "session.json", {"accessToken": "dummy"})

    broken = HERE / "malformed" / "home" / ".augment" / "sessions"
    broken.mkdir(parents=True, exist_ok=True)
    (broken / "11111111-1111-4111-8111-111111111111.json").write_text(
        '{\n  "sessionId": "11111111-1111-4111-8111-111111111111",\n  "created": '
        '"2026-12-01T00:00:00Z",\n  "chatHistory": [\n    {"exchange": {"request_message": "hi"'
    )  # cut short mid-write
    (broken / "22222222-2222-4222-8222-222222222222.json").write_text("[1, 2, 3]")
    (broken / "33333333-3333-4333-8333-333333333333.json").write_text("not json at all")
    odd = session(
        "44444444-4444-4444-8444-444444444444",
        "2026-12-01T00:00:00Z",
        "2026-12-01T00:01:00Z",
        [
            "not an item",
            item(
                {
                    "request_message": "go",
                    "request_nodes": [text("go"), {"id": 3, "type": 77}],
                    "response_nodes": [{"id": 1, "type": 42}, {"id": 2, "type": 5}],
                },
                1,
                "2026-12-01T00:01:00Z",
            ),
        ],
    )
    write(broken / "44444444-4444-4444-8444-444444444444.json", odd)


if __name__ == "__main__":
    main()
