"""Writes the synthetic OpenClaw fixtures (no real OpenClaw session was at hand).

Run from anywhere: `python tests/data/openclaw/make_fixtures.py`. The layout follows
openclaw/openclaw's src/config/paths.ts and src/config/sessions/paths.ts, artifacts.ts and
types.ts: `~/.openclaw/agents/<agentId>/sessions/sessions.json` (session key -> entry) and
`<sessionId>.jsonl` transcripts in pi-mono's session format 3 (the coding-agent's
SessionManager writes them), a reset's `<id>.jsonl.reset.<time>` archive, a checkpoint copy and
a trajectory trace (neither a session), and an older install's `~/.clawdbot`. The credential
files beside them hold nothing secret: sessdex must never open them.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

HERE = Path(__file__).parent
HOME = HERE / "home"
MALFORMED = HERE / "malformed" / "home"
WORKSPACE = "/home/alex/.openclaw/workspace"

MAIN = "a717db17-7bed-408a-8491-a2bb0b190f46"
GROUP = "ea7fa7f3-91cf-4ad9-ad8d-f541ef110bec"
CHILD = "2f033825-d2ce-4a88-ad72-cec5c71bc233"
OLD = "435569e5-e171-42bd-87ae-3d41891fb596"
LEGACY = "9346c375-84eb-42b1-a7c9-249a3024af42"
CHILD_KEY = "agent:main:subagent:7c9e6679-7425-40de-944b-e07fc1f90ae7"
CODER = "a07e2dd2-a3a4-4616-b863-2f9e2b97b6e0"  # spawned under another agent
GONE = "5af45e29-24e3-4ce2-826b-9a7bc8373891"  # in the store, its transcript deleted
CHECKPOINT = "9e8d7c6b-5a49-4838-a726-150493827160"
ZERO = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}


def stamp(minute: int, second: int) -> str:
    return f"2026-12-01T09:{minute:02d}:{second:02d}.000Z"


class Transcript:
    def __init__(self, session_id: str, minute: int, cwd: str = WORKSPACE) -> None:
        self.minute = minute
        self.last: str | None = None
        self.count = 0
        self.lines: list[dict[str, object]] = [
            {
                "type": "session",
                "version": 3,
                "id": session_id,
                "timestamp": stamp(minute, 0),
                "cwd": cwd,
            }
        ]

    def entry(self, kind: str, second: int, **fields: object) -> str:
        self.count += 1
        entry_id = f"{self.minute:02d}{self.count:06x}"
        self.lines.append(
            {
                "type": kind,
                "id": entry_id,
                "parentId": self.last,
                "timestamp": stamp(self.minute, second),
                **fields,
            }
        )
        self.last = entry_id
        return entry_id

    def user(self, second: int, text: str) -> None:
        self.entry(
            "message",
            second,
            message={"role": "user", "content": [{"type": "text", "text": text}]},
        )

    def assistant(
        self,
        second: int,
        content: list[dict[str, object]],
        stop: str,
        tokens: tuple[int, int, int],
        cost: float = 0.0,
        model: str = "claude-sonnet-4-5",
    ) -> None:
        given, made, cached = tokens
        self.entry(
            "message",
            second,
            message={
                "role": "assistant",
                "content": content,
                "api": "anthropic-messages",
                "provider": "openai" if model.startswith("gpt") else "anthropic",
                "model": model,
                "usage": {
                    "input": given,
                    "output": made,
                    "cacheRead": cached,
                    "cacheWrite": 0,
                    "totalTokens": given + made + cached,
                    "cost": {**ZERO, "total": cost},
                },
                "stopReason": stop,
            },
        )

    def result(self, second: int, call: str, tool: str, text: str, error: bool) -> None:
        self.entry(
            "message",
            second,
            message={
                "role": "toolResult",
                "toolCallId": call,
                "toolName": tool,
                "content": [{"type": "text", "text": text}],
                "isError": error,
            },
        )

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(line) + "\n" for line in self.lines))


def main_session() -> Transcript:
    t = Transcript(MAIN, 10)
    t.entry("model_change", 1, provider="anthropic", modelId="claude-sonnet-4-5")
    t.entry("thinking_level_change", 1, thinkingLevel="low")
    t.entry(
        "custom", 1, customType="model-snapshot", data={"model": "claude-sonnet-4-5"}
    )
    t.user(5, "Check why the nightly backup job failed")
    t.assistant(
        9,
        [
            {"type": "thinking", "thinking": "Look at the cron log first."},
            {"type": "text", "text": "Reading the backup log."},
            {
                "type": "toolCall",
                "id": "toolu_exec_1",
                "name": "exec",
                "arguments": {"command": "tail -n 5 /var/log/backup.log"},
            },
        ],
        "toolUse",
        (120, 40, 2000),
        0.0042,
    )
    t.result(10, "toolu_exec_1", "exec", "disk full: /mnt/backup\n", False)
    t.assistant(
        14,
        [
            {
                "type": "toolCall",
                "id": "toolu_spawn_1",
                "name": "sessions_spawn",
                "arguments": {
                    "task": "Audit /mnt/backup for old archives",
                    "label": "backup audit",
                },
            }
        ],
        "toolUse",
        (30, 20, 2100),
    )
    accepted = {"status": "accepted", "runId": "run-7c9e", "childSessionKey": CHILD_KEY}
    t.result(15, "toolu_spawn_1", "sessions_spawn", json.dumps(accepted), False)
    t.entry(
        "compaction",
        20,
        summary="The backup failed because /mnt/backup is full; an audit was spawned.",
        firstKeptEntryId=t.last,
        tokensBefore=48000,
    )
    t.user(30, "Thanks, what now?")
    t.assistant(
        36,
        [
            {
                "type": "text",
                "text": "Delete archives older than 90 days, then rerun the job.",
            }
        ],
        "stop",
        (60, 25, 2300),
        0.0031,
    )
    return t


def group_session() -> Transcript:
    t = Transcript(GROUP, 20)
    t.entry("model_change", 1, provider="openai", modelId="gpt-5.1")
    t.user(
        4, "[Telegram Family chat id:-1001234 2026-12-01 09:20] Sam: what's for dinner?"
    )
    t.assistant(
        8,
        [{"type": "text", "text": "Pasta, by the shopping list."}],
        "stop",
        (80, 12, 0),
        0.001,
        model="gpt-5.1",
    )
    t.entry(
        "custom_message",
        9,
        customType="openclaw:delivery",
        content="delivered to telegram",
        display=False,
    )
    # what OpenClaw itself wrote: a copy of a reply sent to the channel
    t.entry(
        "message",
        12,
        message={
            "role": "assistant",
            "content": [{"type": "text", "text": "Pasta, by the shopping list."}],
            "api": "openclaw-transcript",
            "provider": "openclaw",
            "model": "delivery-mirror",
            "usage": {
                "input": 0,
                "output": 0,
                "cacheRead": 0,
                "cacheWrite": 0,
                "totalTokens": 0,
                "cost": ZERO,
            },
            "stopReason": "stop",
        },
    )
    return t


def child_session() -> Transcript:
    t = Transcript(CHILD, 15)
    t.user(1, "Audit /mnt/backup for old archives")
    t.assistant(
        6,
        [{"type": "text", "text": "41 archives are older than 90 days (212 GB)."}],
        "stop",
        (50, 18, 0),
    )
    return t


def old_session() -> Transcript:
    t = Transcript(OLD, 1)
    t.user(2, "Remind me what port the gateway uses")
    t.assistant(
        4,
        [{"type": "text", "text": "18789, unless gateway.port says otherwise."}],
        "stop",
        (20, 9, 0),
    )
    return t


def legacy_session() -> Transcript:
    t = Transcript(LEGACY, 40, cwd="/home/alex/clawd")
    t.user(1, "Hello from the Clawdbot days")
    t.entry(
        "custom",
        2,
        customType="openclaw:prompt-error",
        data={
            "timestamp": 1796117762000,
            "provider": "anthropic",
            "error": "overloaded_error",
        },
    )
    t.assistant(3, [{"type": "text", "text": "Hi!"}], "aborted", (5, 1, 0))
    return t


def coder_session() -> Transcript:
    t = Transcript(CODER, 16, cwd="/home/alex/.openclaw/workspace-coder")
    t.user(1, "Write a script that prunes /mnt/backup")
    t.assistant(
        5,
        [{"type": "text", "text": "prune.sh keeps the last 90 days."}],
        "stop",
        (40, 30, 0),
    )
    return t


def store() -> dict[str, object]:
    return {
        "agent:main:main": {
            "sessionId": MAIN,
            "updatedAt": 1796115396000,
            "sessionFile": f"/home/alex/.openclaw/agents/main/sessions/{MAIN}.jsonl",
            "chatType": "direct",
            "lastChannel": "webchat",
            "model": "claude-sonnet-4-5",
            "modelProvider": "anthropic",
            "inputTokens": 210,
            "outputTokens": 85,
            "totalTokens": 6400,
            "compactionCount": 1,
            "skillsSnapshot": {
                "prompt": "<skills>" + "x" * 4000 + "</skills>",
                "skills": [],
            },
        },
        "agent:main:telegram:group:-1001234": {
            "sessionId": GROUP,
            "updatedAt": 1796115608000,
            "displayName": "telegram:g-family-chat",
            "channel": "telegram",
            "chatType": "group",
            "subject": "Family chat",
        },
        CHILD_KEY: {
            "sessionId": CHILD,
            "updatedAt": 1796115306000,
            "spawnedBy": "agent:main:main",
            "spawnDepth": 1,
            "label": "backup audit",
            "status": "done",
        },
        "agent:main:cron:nightly": {"sessionId": GONE, "updatedAt": 1796110000000},
    }


def write_home() -> None:
    shutil.rmtree(HOME, ignore_errors=True)
    state = HOME / ".openclaw"
    sessions = state / "agents" / "main" / "sessions"
    main_session().write(sessions / f"{MAIN}.jsonl")
    group_session().write(sessions / f"{GROUP}.jsonl")
    child_session().write(sessions / f"{CHILD}.jsonl")
    old_session().write(sessions / f"{OLD}.jsonl.reset.2026-12-01T09-05-00.000Z")
    # the copy taken before compaction, and a runtime trace: neither is a session
    copy = main_session()
    copy.lines = copy.lines[:8]
    copy.write(sessions / f"{MAIN}.checkpoint.{CHECKPOINT}.jsonl")
    (sessions / f"{MAIN}.trajectory.jsonl").write_text('{"type":"trace","step":1}\n')
    (sessions / f"{MAIN}.acp-stream.jsonl").write_text(
        '{"kind":"progress","text":"…"}\n'
    )
    (sessions / "sessions.json").write_text(json.dumps(store(), indent=2) + "\n")
    # what sits beside the sessions and must never be opened
    (state / "openclaw.json").write_text(
        '{"gateway": {"auth": {"token": "not-a-secret"}}}\n'
    )
    agent = state / "agents" / "main" / "agent"
    agent.mkdir(parents=True)
    (agent / "auth-profiles.json").write_text('{"profiles": {}}\n')
    (state / "credentials").mkdir()
    (state / "credentials" / "oauth.json").write_text("{}\n")
    coder = state / "agents" / "coder" / "sessions"
    coder_session().write(coder / f"{CODER}.jsonl")
    coder_store = {
        "agent:coder:subagent:0c5e1f4d-93b8-4e57-a0f5-2d6c8b9e7a41": {
            "sessionId": CODER,
            "updatedAt": 1796115365000,
            "spawnedBy": "agent:main:main",
            "spawnDepth": 1,
        }
    }
    (coder / "sessions.json").write_text(json.dumps(coder_store, indent=2) + "\n")
    legacy = HOME / ".clawdbot" / "agents" / "main" / "sessions"
    legacy_session().write(legacy / f"{LEGACY}.jsonl")


def write_malformed() -> None:
    shutil.rmtree(MALFORMED, ignore_errors=True)
    sessions = MALFORMED / ".openclaw" / "agents" / "main" / "sessions"
    t = main_session()
    lines = [json.dumps(line) for line in t.lines]
    lines.insert(4, "{not json")
    lines.insert(
        6, json.dumps({"type": "openclaw_future", "id": "zz", "parentId": None})
    )
    lines.insert(7, json.dumps({"type": "message", "id": "zy", "message": "a string"}))
    lines.append(
        json.dumps({"type": "openclaw_future", "id": "zx", "parentId": t.last})
    )
    lines.append('{"type":"message","id":"torn","parentId":"')
    sessions.mkdir(parents=True)
    (sessions / f"{MAIN}.jsonl").write_text("\n".join(lines))
    (sessions / f"{GROUP}.jsonl").write_text('["not", "a header"]\n{"type":\n')
    (sessions / f"{CHILD}.jsonl").write_text("")
    entries = {
        "agent:main:main": {"sessionId": MAIN, "label": ["not", "text"]},
        "agent:main:bad": "not an entry",
        "agent:main:subagent:x": {"sessionId": 42, "spawnedBy": {"k": 1}},
        "agent:main:cut": {"sessionId": CHILD, "label": "cut here"},
    }
    text = json.dumps(entries)
    (sessions / "sessions.json").write_text(text[: text.rindex("cut he") + 6])


if __name__ == "__main__":
    write_home()
    write_malformed()
