"""Write the synthetic Qoder CLI fixtures (no real capture is public).

The records follow what Qoder CLI 1.1.52's bundle writes (its transcript writer `FJ` for
assistant lines, its record-type table `Rel`, the sub-agent writer's `cwd`, `entrypoint`,
`version`, `gitBranch`, and `subagents/agent-<id>.jsonl` + `.meta.json`). Run from the
repository root: `python tests/data/qoder/make_fixtures.py`.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

HERE = Path(__file__).parent
CWD = "/home/alex/code/shop-api"
SLUG = "-home-alex-code-shop-api"
LEAD = "3b1f6c2e-8a4d-4f0e-9c7b-2d5e8f1a6b90"
OTHER = "7c2a9e41-5d3b-4a6f-8e1c-0b9d7f3a2e58"
AGENT = "a4f2c9e1b7d3"
VERSION = "1.1.52"


def base(session: str, uuid: str, parent: str | None, when: str) -> dict[str, object]:
    return {
        "parentUuid": parent,
        "isSidechain": False,
        "userType": "external",
        "cwd": CWD,
        "sessionId": session,
        "version": VERSION,
        "gitBranch": "feature/health",
        "entrypoint": "cli",
        "uuid": uuid,
        "timestamp": when,
    }


def user(
    session: str, uuid: str, parent: str | None, when: str, content: object
) -> dict[str, object]:
    line = base(session, uuid, parent, when)
    line.update(
        type="user",
        message={"role": "user", "content": content},
        permissionMode="default",
    )
    return line


def assistant(
    session: str,
    uuid: str,
    parent: str,
    when: str,
    msg: str,
    content: list[object],
    stop: str | None,
) -> dict[str, object]:
    line = base(session, uuid, parent, when)
    line.update(
        type="assistant",  # no `requestId`: Qoder's writer (`wml`) strips it
        message={
            "id": msg,
            "type": "message",
            "role": "assistant",
            "model": "performance",
            "stop_reason": stop,
            "stop_sequence": None,
            # token counts as written with QODER_EXPOSE_TOKEN_USAGE=1 (else all 0),
            # beside the credits Qoder bills
            "usage": {
                "input_tokens": 1200,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 3000,
                "output_tokens": 85,
                "credits": 0.5,
                "original_credits": 0.5,
                "billable": True,
            },
            "content": content,
        },
    )
    return line


def lead() -> list[dict[str, object]]:
    s = LEAD
    return [
        {"type": "mode", "mode": "normal", "sessionId": s},
        {"type": "workspace-directories", "sessionId": s, "directories": [CWD]},
        {
            "type": "runtime-config",
            "sessionId": s,
            "model": "performance",
            "reasoningEffort": None,
            "contextWindow": None,
            "timestamp": 1764921600000,
        },
        user(
            s,
            "u1",
            None,
            "2026-12-01T09:00:00.000Z",
            "Add a /health endpoint to the API",
        ),
        {
            "type": "token-stats",
            "sessionId": s,
            "promptTokenCount": 4200,
            "timestamp": 1764921601000,
        },
        assistant(
            s,
            "a1",
            "u1",
            "2026-12-01T09:00:04.000Z",
            "msg_01",
            [
                {
                    "type": "thinking",
                    "thinking": "Look at the router first.",
                    "signature": "x",
                },
                {
                    "type": "tool_use",
                    "id": "call_read",
                    "name": "Read",
                    "input": {"file_path": f"{CWD}/app.py"},
                },
            ],
            "tool_use",
        ),
        user(
            s,
            "u2",
            "a1",
            "2026-12-01T09:00:05.000Z",
            [
                {
                    "type": "tool_result",
                    "tool_use_id": "call_read",
                    "content": "app = Flask(__name__)\n",
                }
            ],
        ),
        assistant(
            s,
            "a2",
            "u2",
            "2026-12-01T09:00:09.000Z",
            "msg_02",
            [
                {
                    "type": "tool_use",
                    "id": "call_task",
                    "name": "Task",
                    "input": {
                        "description": "Find the tests",
                        "prompt": "List the test files of the API",
                        "subagent_type": "explorer",
                    },
                }
            ],
            "tool_use",
        ),
        user(
            s,
            "u3",
            "a2",
            "2026-12-01T09:00:20.000Z",
            [
                {
                    "type": "tool_result",
                    "tool_use_id": "call_task",
                    "content": "tests/test_app.py",
                }
            ],
        ),
        assistant(
            s,
            "a3",
            "u3",
            "2026-12-01T09:00:25.000Z",
            "msg_03",
            [
                {
                    "type": "text",
                    "text": 'Added `/health`, returning 200 with `{"ok": true}`.',
                }
            ],
            "end_turn",
        ),
        {
            "type": "active-leaf",
            "sessionId": s,
            "leafUuid": "a3",
            "explicit": False,
            "timestamp": 1764921625000,
        },
        {"type": "ai-title", "sessionId": s, "aiTitle": "Health endpoint for the API"},
    ]


def agent() -> list[dict[str, object]]:
    s = LEAD
    first = user(
        s, "s1", None, "2026-12-01T09:00:10.000Z", "List the test files of the API"
    )
    answer = assistant(
        s,
        "s2",
        "s1",
        "2026-12-01T09:00:18.000Z",
        "msg_sub",
        [{"type": "text", "text": "tests/test_app.py"}],
        "end_turn",
    )
    for line in (first, answer):
        line["isSidechain"] = True
        line["agentId"] = AGENT
    return [first, answer]


def other() -> list[dict[str, object]]:
    s = OTHER
    first = user(s, "o1", None, "2026-12-02T14:30:00.000Z", "Why does the build fail?")
    first["permissionMode"] = "bypass_permissions"
    first["gitBranch"] = "main"
    answer = assistant(
        s,
        "o2",
        "o1",
        "2026-12-02T14:30:06.000Z",
        "msg_10",
        [{"type": "text", "text": "A missing import in `shop/cart.py`."}],
        "end_turn",
    )
    answer["gitBranch"] = "main"
    answer["permissionMode"] = "bypass_permissions"
    compact = base(s, "o3", "o2", "2026-12-02T14:40:00.000Z")
    compact.update(
        type="system",
        subtype="compact_boundary",
        content="Conversation compacted",
        level="info",
        compactMetadata={"trigger": "manual", "preTokens": 51000},
    )
    compact["gitBranch"] = "main"
    return [
        first,
        answer,
        compact,
        {"type": "custom-title", "sessionId": s, "customTitle": "Build failure"},
    ]


def write(path: Path, lines: list[dict[str, object]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        # compact, as JSON.stringify writes it
        "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines),
        encoding="utf-8",
    )


def main() -> None:
    home = HERE / "home"
    shutil.rmtree(home, ignore_errors=True)
    project = home / ".qoder" / "projects" / SLUG
    write(project / f"{LEAD}.jsonl", lead())
    write(project / f"{OTHER}.jsonl", other())
    sub = project / LEAD / "subagents" / f"agent-{AGENT}.jsonl"
    write(sub, agent())
    sub.with_name(f"agent-{AGENT}.meta.json").write_text(
        json.dumps({"agentType": "explorer", "description": "Find the tests"}),
        encoding="utf-8",
    )
    # beside them, files sessdex never opens or never lists
    (home / ".qoder" / "settings.json").write_text("{}", encoding="utf-8")
    (home / ".qoder" / "sessions").mkdir()
    (home / ".qoder" / "sessions" / "4242.json").write_text("{}", encoding="utf-8")

    bad = HERE / "malformed" / "home"
    shutil.rmtree(bad.parent, ignore_errors=True)
    broken = bad / ".qoder" / "projects" / SLUG
    broken.mkdir(parents=True)
    good = json.dumps(
        user("9d0e", "m1", None, "2026-12-03T08:00:00.000Z", "Fix the login page")
    )
    (broken / "9d0e1f2a-0000-4000-8000-000000000001.jsonl").write_text(
        good
        + "\n"
        + '{"type":"assistant","message":{"content":[{"type":"te\n'
        + '["a", "list"]\n'
        + '{"type":"user","message":"not an object"}\n'
        + '{"type":"assistant","uuid":7,"message":{"usage":"lots","content":5}}\n'
        + '{"type": 42}\n'
        + "\xff\xfe not json\n"
        + '{"type":"user","message":{"content":"'
        + "x" * 300_000,
        encoding="utf-8",
        errors="surrogateescape",
    )
    (broken / "empty.jsonl").write_text("", encoding="utf-8")
    (broken / "9d0e1f2a-0000-4000-8000-000000000002.jsonl").write_bytes(
        b"\x00\x01\x02garbage"
    )
    agents = broken / "9d0e1f2a-0000-4000-8000-000000000001" / "subagents"
    agents.mkdir(parents=True)
    (agents / "agent-x.jsonl").write_text('{"type":"user"', encoding="utf-8")
    (agents / "agent-x.meta.json").write_text("[1,2", encoding="utf-8")


if __name__ == "__main__":
    main()
