#!/usr/bin/env python3
"""Write the demo home shipped in src/sessdex/demo/home: a few made-up Claude Code and Codex
sessions in the apps' real layouts, so `sessdex demo` shows something on a fresh machine.

Run it again after changing it; the output is committed. Everything here is invented.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "src" / "sessdex" / "demo" / "home"
HOME = "/home/demo"


def claude_session(
    session_id: str,
    cwd: str,
    branch: str,
    start: str,
    turns: list[tuple[str, str, tuple[str, str] | None]],
    title: str | None,
    model: str = "claude-sonnet-4-5",
) -> list[dict[str, object]]:
    lines: list[dict[str, object]] = []
    base = {
        "cwd": cwd,
        "gitBranch": branch,
        "sessionId": session_id,
        "version": "2.1.197",
        "userType": "external",
        "entrypoint": "cli",
        "isSidechain": False,
    }
    parent = None
    minute = 0
    for n, (prompt, answer, call) in enumerate(turns):
        ts = f"{start}:{minute:02d}:00.000Z"
        uuid = f"{session_id[:8]}-0000-4000-8000-{n:012d}"
        lines.append(
            {
                **base,
                "type": "user",
                "uuid": uuid,
                "parentUuid": parent,
                "timestamp": ts,
                "permissionMode": "default",
                "message": {"role": "user", "content": prompt},
            }
        )
        parent = uuid
        msg = f"msg_demo{session_id[:6]}{n}"
        if call:
            command, output = call  # what was run, and what it printed
            tool_id = f"toolu_demo{session_id[:6]}{n}"
            u2 = uuid[:-1] + "a"
            lines.append(
                {
                    **base,
                    "type": "assistant",
                    "uuid": u2,
                    "parentUuid": parent,
                    "timestamp": f"{start}:{minute:02d}:30.500Z",
                    "requestId": f"req_{n}a",
                    "message": {
                        "id": msg + "a",
                        "role": "assistant",
                        "model": model,
                        "type": "message",
                        "stop_reason": "tool_use",
                        "content": [
                            {
                                "type": "tool_use",
                                "id": tool_id,
                                "name": "Bash",
                                "input": {"command": command, "description": "Run it"},
                            }
                        ],
                        "usage": {
                            "input_tokens": 1200,
                            "output_tokens": 60,
                            "cache_read_input_tokens": 8000,
                            "cache_creation_input_tokens": 400,
                        },
                    },
                }
            )
            parent = u2
            u3 = uuid[:-1] + "b"
            lines.append(
                {
                    **base,
                    "type": "user",
                    "uuid": u3,
                    "parentUuid": parent,
                    "timestamp": f"{start}:{minute:02d}:45.900Z",
                    "message": {
                        "role": "user",
                        "content": [
                            {
                                "type": "tool_result",
                                "tool_use_id": tool_id,
                                "content": output,
                                "is_error": False,
                            }
                        ],
                    },
                }
            )
            parent = u3
        u4 = uuid[:-1] + "c"
        lines.append(
            {
                **base,
                "type": "assistant",
                "uuid": u4,
                "parentUuid": parent,
                "timestamp": f"{start}:{minute + 1:02d}:10.000Z",
                "requestId": f"req_{n}b",
                "message": {
                    "id": msg + "b",
                    "role": "assistant",
                    "model": model,
                    "type": "message",
                    "stop_reason": "end_turn",
                    "content": [{"type": "text", "text": answer}],
                    "usage": {
                        "input_tokens": 300,
                        "output_tokens": 180,
                        "cache_read_input_tokens": 9000,
                        "cache_creation_input_tokens": 0,
                    },
                },
            }
        )
        parent = u4
        minute += 2
    if title:
        lines.append({"type": "ai-title", "aiTitle": title, "sessionId": session_id})
    lines.append(
        {"type": "last-prompt", "lastPrompt": turns[-1][0], "sessionId": session_id}
    )
    return lines


def codex_session(
    thread_id: str,
    cwd: str,
    branch: str,
    day: str,
    start: str,
    prompt: str,
    command: str,
    output: str,
    answer: str,
) -> list[dict[str, object]]:
    t = lambda s: f"{day}T{s}Z"  # noqa: E731
    return [
        {
            "timestamp": t(start + ".000"),
            "type": "session_meta",
            "payload": {
                "id": thread_id,
                "timestamp": t(start + ".000"),
                "cwd": cwd,
                "originator": "codex_cli_rs",
                "cli_version": "0.171.0",
                "source": "cli",
                "model_provider": "openai",
                "git": {"branch": branch, "commit_hash": "0000000"},
            },
        },
        {
            "timestamp": t(start + ".100"),
            "type": "turn_context",
            "payload": {
                "cwd": cwd,
                "approval_policy": "on-request",
                "sandbox_policy": {"type": "workspace-write"},
                "model": "gpt-5.1-codex",
                "effort": "medium",
                "summary": "auto",
            },
        },
        {
            "timestamp": t(start + ".200"),
            "type": "event_msg",
            "payload": {"type": "user_message", "message": prompt, "images": []},
        },
        {
            "timestamp": t(start + ".200"),
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": prompt}],
            },
        },
        {
            "timestamp": t(start + ".900"),
            "type": "response_item",
            "payload": {
                "type": "function_call",
                "name": "shell",
                "arguments": json.dumps({"command": ["bash", "-lc", command]}),
                "call_id": "call_demo1",
            },
        },
        {
            "timestamp": t(start + ".950"),
            "type": "event_msg",
            "payload": {
                "type": "token_count",
                "info": {
                    "total_token_usage": {
                        "input_tokens": 5200,
                        "cached_input_tokens": 3000,
                        "output_tokens": 90,
                        "reasoning_output_tokens": 40,
                        "total_tokens": 5290,
                    },
                    "last_token_usage": {
                        "input_tokens": 5200,
                        "cached_input_tokens": 3000,
                        "output_tokens": 90,
                        "reasoning_output_tokens": 40,
                        "total_tokens": 5290,
                    },
                    "model_context_window": 272000,
                },
            },
        },
        {
            "timestamp": t(start + ".990"),
            "type": "response_item",
            "payload": {
                "type": "function_call_output",
                "call_id": "call_demo1",
                "output": output,
            },
        },
        {
            "timestamp": t(start[:-2] + "59.000"),
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": answer}],
            },
        },
        {
            "timestamp": t(start[:-2] + "59.000"),
            "type": "event_msg",
            "payload": {"type": "agent_message", "message": answer},
        },
        {
            "timestamp": t(start[:-2] + "59.100"),
            "type": "event_msg",
            "payload": {
                "type": "token_count",
                "info": {
                    "total_token_usage": {
                        "input_tokens": 11000,
                        "cached_input_tokens": 8000,
                        "output_tokens": 310,
                        "reasoning_output_tokens": 120,
                        "total_tokens": 11310,
                    },
                    "last_token_usage": {
                        "input_tokens": 5800,
                        "cached_input_tokens": 5000,
                        "output_tokens": 220,
                        "reasoning_output_tokens": 80,
                        "total_tokens": 6020,
                    },
                    "model_context_window": 272000,
                },
            },
        },
        {
            "timestamp": t(start[:-2] + "59.200"),
            "type": "event_msg",
            "payload": {"type": "task_complete", "last_agent_message": answer},
        },
    ]


def write_jsonl(path: Path, records: list[dict[str, object]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))


def main() -> None:
    shutil.rmtree(ROOT, ignore_errors=True)
    projects = ROOT / ".claude" / "projects"
    shop = f"{HOME}/code/shop-api"
    docs = f"{HOME}/code/docs-site"
    write_jsonl(
        projects
        / "-home-demo-code-shop-api"
        / "3f2b9c1e-8d4a-4e7b-9a61-0c5d2e7f8a90.jsonl",
        claude_session(
            "3f2b9c1e-8d4a-4e7b-9a61-0c5d2e7f8a90",
            shop,
            "feature/checkout-retry",
            "2026-11-28T14",
            [
                (
                    "Add a retry with backoff to the checkout payment call",
                    "Added `retry_with_backoff` around `charge()` with 3 attempts and jitter; tests pass.",
                    (
                        "pytest -q tests/test_checkout.py",
                        "..........................................                [100%]\n"
                        "42 passed in 2.84s",
                    ),
                ),
                (
                    "Also log each retry at warning level",
                    "Done: each retry logs the attempt number and the error.",
                    None,
                ),
            ],
            "Retry checkout payments with backoff",
        ),
    )
    write_jsonl(
        projects
        / "-home-demo-code-docs-site"
        / "a7c41d05-2b9e-4f3a-8c17-5e6d9b0a1f24.jsonl",
        claude_session(
            "a7c41d05-2b9e-4f3a-8c17-5e6d9b0a1f24",
            docs,
            "main",
            "2026-11-26T09",
            [
                (
                    "Fix the broken links in the deployment guide",
                    "Fixed 4 links that pointed at the old /v1 paths.",
                    (
                        "grep -rn '/v1/' docs/",
                        "docs/deploy.md:14:See [the API reference](/v1/reference).\n"
                        "docs/deploy.md:31:[Health checks](/v1/health) must answer 200.\n"
                        "docs/deploy.md:52:Roll back with [the release API](/v1/releases).\n"
                        "docs/deploy.md:77:[Webhooks](/v1/webhooks) retry for an hour.",
                    ),
                )
            ],
            None,
        ),
    )
    codex = ROOT / ".codex"
    write_jsonl(
        codex
        / "sessions"
        / "2026"
        / "11"
        / "29"
        / "rollout-2026-11-29T10-05-00-019a7e21-5c3d-7b40-9e8f-2a1b3c4d5e6f.jsonl",
        codex_session(
            "019a7e21-5c3d-7b40-9e8f-2a1b3c4d5e6f",
            shop,
            "fix/checkout-timeout",
            "2026-11-29",
            "10:05:00",
            "Why does checkout time out under load?",
            "pytest -q -k timeout",
            "..                                                        [100%]\n"
            "2 passed, 40 deselected in 0.62s",
            "The payment client had no timeout; I set 10 s and added a test.",
        ),
    )
    write_jsonl(
        codex / "session_index.jsonl",
        [
            {
                "id": "019a7e21-5c3d-7b40-9e8f-2a1b3c4d5e6f",
                "thread_name": "Checkout timeout under load",
                "updated_at": "2026-11-29T10:06:00Z",
            }
        ],
    )

    (codex / "config.toml").write_text(
        "# Codex keeps the folders it was told to trust here; resume keeps a thread's"
        " recorded\n# workspace-write only for those (elsewhere Codex's default is"
        " read-only).\n"
        f'[projects."{shop}"]\n'
        'trust_level = "trusted"\n'
    )


if __name__ == "__main__":
    main()
