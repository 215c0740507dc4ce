"""Rebuild the Forge fixture databases: `python tests/data/forge/make_forge_db.py`.

Writes `home/.forge/.forge.db` and its `malformed/` twin, synthetic, shaped as Forge's own
source writes them (see PROVENANCE.md): the `conversations` table of the diesel migrations
in `crates/forge_repo/src/database/migrations` (with `metrics`), each row's `context` a
`ContextRecord` serialized by serde_json (compact, in the struct's field order), messages
wrapped as `{"message": …, "usage": …}` (1.11 on) or bare (before). As forge does, only
user messages name the model (`ContextMessage::assistant` leaves it out).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

HERE = Path(__file__).parent
SCHEMA = (
    "CREATE TABLE conversations (conversation_id TEXT PRIMARY KEY NOT NULL, title TEXT, "
    "workspace_id BIGINT NOT NULL, context TEXT, created_at TIMESTAMP NOT NULL DEFAULT "
    "CURRENT_TIMESTAMP, updated_at TIMESTAMP)",
    "CREATE INDEX idx_conversations_workspace_created ON conversations(workspace_id, created_at DESC)",
    "ALTER TABLE conversations ADD COLUMN metrics TEXT",
)

LEAD = "3f2a1b0c-9d8e-4f7a-8b6c-5d4e3f2a1b0c"
CHILD = "7c6b5a49-3827-4165-9f4e-3d2c1b0a9f8e"
OLD = "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d"
EMPTY = "0f1e2d3c-4b5a-4968-8776-655443322110"
SHOP = "/home/alex/code/shop-api"
BLOG = "/home/alex/code/blog"
SONNET = "claude-sonnet-4-5-20250929"


def system(cwd: str) -> list[dict[str, object]]:
    return [
        {
            "text": {
                "role": "System",
                "content": "You are Forge, an expert software engineering assistant.",
            }
        },
        {
            "text": {
                "role": "System",
                "content": (
                    "<system_information>\n<operating_system>linux</operating_system>\n"
                    f"<current_working_directory>{cwd}</current_working_directory>\n"
                    "<default_shell>/bin/bash</default_shell>\n<home_directory>/home/alex</home_directory>\n"
                    "</system_information>"
                ),
            }
        },
    ]


def user(text: str, model: str | None = SONNET) -> dict[str, object]:
    message: dict[str, object] = {
        "role": "User",
        "content": f"<task>{text}</task>\n<system_date>2026-12-01</system_date>",
        "raw_content": {"Text": text},
    }
    if model:
        message["model"] = model
    return {"text": message}


def usage(
    prompt: int, completion: int, cached: int, cost: float | None = None
) -> dict[str, object]:
    value: dict[str, object] = {
        "prompt_tokens": {"actual": prompt},
        "completion_tokens": {"actual": completion},
        "total_tokens": {"actual": prompt + completion},
        "cached_tokens": {"actual": cached},
    }
    if cost is not None:
        value["cost"] = cost
    return value


def wrap(
    message: dict[str, object], used: dict[str, object] | None = None
) -> dict[str, object]:
    return {"message": message, "usage": used} if used else {"message": message}


def lead() -> dict[str, object]:
    messages = [wrap(m) for m in system(SHOP)] + [
        wrap(user("Add retry to checkout")),
        wrap(
            {
                "text": {
                    "role": "Assistant",
                    "content": "Let me look at the checkout code first.",
                    "tool_calls": [
                        {
                            "name": "read",
                            "call_id": "toolu_01",
                            "arguments": {"file_path": f"{SHOP}/src/checkout.py"},
                        },
                        {
                            "name": "sage",
                            "call_id": "toolu_02",
                            "arguments": {"tasks": ["Find every caller of checkout()"]},
                        },
                    ],
                    "reasoning_details": [
                        {
                            "text": "The user wants retries; read the file first.",
                            "signature": "c2ln",
                        }
                    ],
                }
            },
            usage(1200, 80, 1000, 0.0042),
        ),
        wrap(
            {
                "tool": {
                    "name": "read",
                    "call_id": "toolu_01",
                    "output": {
                        "is_error": False,
                        "values": [
                            {"text": "def checkout(cart):\n    return pay(cart)\n"}
                        ],
                    },
                }
            }
        ),
        wrap(
            {
                "tool": {
                    "name": "sage",
                    "call_id": "toolu_02",
                    "output": {
                        "is_error": False,
                        "values": [
                            {
                                "aI": {
                                    "value": "<task_completed><output>Two callers: api.py and cli.py</output></task_completed>",
                                    "conversation_id": CHILD,
                                }
                            }
                        ],
                    },
                }
            }
        ),
        wrap(
            {
                "text": {
                    "role": "Assistant",
                    "content": "",
                    "tool_calls": [
                        {
                            "name": "patch",
                            "call_id": "toolu_03",
                            "arguments": {
                                "file_path": f"{SHOP}/src/checkout.py",
                                "old_string": "return pay(cart)",
                                "new_string": "return retry(pay, cart)",
                                "operation": "replace",
                            },
                        }
                    ],
                }
            },
            usage(2400, 60, 2200, 0.0031),
        ),
        wrap(
            {
                "tool": {
                    "name": "patch",
                    "call_id": "toolu_03",
                    "output": {
                        "is_error": True,
                        "values": [{"text": "Could not find match for search text"}],
                    },
                }
            }
        ),
        wrap(
            {
                "text": {
                    "role": "Assistant",
                    "content": "Checkout now retries payment up to three times.",
                }
            },
            usage(2600, 40, 2400, 0.0020),
        ),
    ]
    return {
        "conversation_id": LEAD,
        "messages": messages,
        "tools": [
            {
                "name": "read",
                "description": "Reads a file",
                "input_schema": {"type": "object"},
            }
        ],
        "max_tokens": 20480,
        "reasoning": {"enabled": True},
    }


def child() -> dict[str, object]:
    messages = [wrap(m) for m in system(SHOP)] + [
        wrap(user("Find every caller of checkout()", "claude-haiku-4-5")),
        wrap(
            {
                "text": {
                    "role": "Assistant",
                    "content": "Two callers: api.py and cli.py",
                }
            },
            usage(900, 30, 0),
        ),
    ]
    return {"conversation_id": CHILD, "initiator": "agent", "messages": messages}


def old() -> dict[str, object]:
    summary = (
        "Use the following summary frames as the authoritative reference for all coding "
        "suggestions and decisions. Do not re-explain or revisit it unless I ask.\n\n## Summary\n\n"
        "### 1. User\n\n````\nwhy is the build slow\n````\n"
    )
    return {
        "conversation_id": OLD,
        "messages": [
            *system(BLOG),
            {"text": {"role": "User", "content": summary}},
            {
                "text": {
                    "role": "User",
                    "content": "<task>Why is the blog build slow?</task>",
                    "model": "gpt-5",
                }
            },
            {
                "text": {
                    "role": "User",
                    "content": '<file path="notes.md">draft</file>',
                    "droppable": True,
                }
            },
            {
                "image": {
                    "url": "data:image/png;base64,iVBORw0KGgo=",
                    "mime_type": "image/png",
                }
            },
            {
                "text": {
                    "role": "Assistant",
                    "content": "",
                    "tool_calls": [
                        {
                            "name": "shell",
                            "call_id": "call_9",
                            "arguments": '{"command": "make build"}',
                        }
                    ],
                }
            },
            {
                "tool": {
                    "name": "shell",
                    "call_id": "call_9",
                    "output": {
                        "is_error": False,
                        "values": [
                            {"markdown": "built in 94s"},
                            {
                                "pair": [
                                    {"text": "images: 80s"},
                                    {"text": "shown to the user"},
                                ]
                            },
                            {
                                "fileDiff": {
                                    "path": "Makefile",
                                    "old_text": None,
                                    "new_text": "x",
                                }
                            },
                            "empty",
                        ],
                    },
                }
            },
            {
                "text": {
                    "role": "User",
                    "content": "/compact",
                    "raw_content": {
                        "Command": {"name": "compact", "template": "", "parameters": []}
                    },
                }
            },
            {
                "text": {
                    "role": "Assistant",
                    "content": "The image step takes most of the time.",
                }
            },
        ],
    }


def build(target: Path, rows: list[tuple[object, ...]]) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    target.unlink(missing_ok=True)
    connection = sqlite3.connect(target)
    for statement in SCHEMA:
        connection.execute(statement)
    connection.executemany(
        "INSERT INTO conversations (conversation_id, title, workspace_id, context, created_at, "
        "updated_at, metrics) VALUES (?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    connection.commit()
    connection.close()


def dumps(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def main() -> None:
    metrics = dumps({"started_at": "2026-12-01T11:00:00Z", "files_changed": {}})
    build(
        HERE / "home" / ".forge" / ".forge.db",
        [
            (
                LEAD,
                "Add retry to checkout",
                7310455132338431000,
                dumps(lead()),
                "2026-12-01 11:00:00.250000",
                "2026-12-01 11:06:30.500000",
                metrics,
            ),
            (
                CHILD,
                "Find every caller of checkout()",
                7310455132338431000,
                dumps(child()),
                "2026-12-01 11:01:00",
                "2026-12-01 11:02:10",
                None,
            ),
            (
                OLD,
                None,
                -2211,
                dumps(old()),
                "2025-10-02 16:40:00",
                "2025-10-02 16:45:00",
                None,
            ),
            (EMPTY, None, 5, None, "2025-10-03 10:00:00", None, None),
        ],
    )
    broken = "b0b0b0b0-0000-4000-8000-00000000000"
    build(
        HERE / "malformed" / "home" / ".forge" / ".forge.db",
        [
            (
                f"{broken}1",
                "not JSON",
                1,
                "{not json",
                "2026-01-01 00:00:00",
                None,
                None,
            ),
            (
                f"{broken}2",
                "cut short",
                1,
                dumps(lead())[:500],
                "2026-01-01 00:00:00",
                None,
                None,
            ),
            (f"{broken}3", "an array", 1, "[1, 2]", "2026-01-01 00:00:00", None, None),
            (
                f"{broken}4",
                "wrong types",
                1,
                dumps(
                    {
                        "conversation_id": 7,
                        "initiator": ["agent"],
                        "messages": [
                            1,
                            "text",
                            None,
                            {"text": "User"},
                            {"text": {"role": "Robot", "content": 5}},
                            {
                                "message": {"video": {}},
                                "usage": {"prompt_tokens": "many"},
                            },
                            {
                                "tool": {
                                    "name": 3,
                                    "call_id": {},
                                    "output": {"values": [{"aI": 4}, {"blob": 1}, 9]},
                                }
                            },
                            {
                                "text": {
                                    "role": "Assistant",
                                    "content": None,
                                    "tool_calls": [None, {"name": None}],
                                    "reasoning_details": "deep",
                                }
                            },
                            {
                                "message": {
                                    "text": {"role": "Assistant", "content": "ok"}
                                },
                                "usage": {
                                    "prompt_tokens": {"actual": -5},
                                    "completion_tokens": {"approx": "x"},
                                    "cached_tokens": {"actual": 10**30},
                                    "cost": "free",
                                },
                            },
                        ],
                        "future_field": True,
                    }
                ),
                "not a time",
                12,
                None,
            ),
            (f"{broken}5", 7, 1, dumps({"messages": "none"}), 20, None, None),
            (42, None, 1, dumps({"messages": []}), "2026-01-01 00:00:00", None, None),
        ],
    )


if __name__ == "__main__":
    main()
