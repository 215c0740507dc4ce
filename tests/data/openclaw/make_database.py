"""Writes the synthetic OpenClaw 2026.8+ agent database (no real one was at hand).

Run from anywhere: `python tests/data/openclaw/make_database.py`. From 2026.8 OpenClaw
keeps each agent's sessions and transcripts in
`~/.openclaw/agents/<agentId>/agent/openclaw-agent.sqlite` (src/state/
openclaw-agent-schema.sql, read in the 2026.9.6 npm package); the tables here carry the
columns sessdex reads, named and typed as OpenClaw's, and the entries are pi's format 3
as OpenClaw writes them. The JSONL transcripts `openclaw doctor --fix` imported are moved
to `agents/<agentId>/session-sqlite-import-archive/` (one here: never listed). One entry
is stored zstd-compressed (`event_zstd`), as OpenClaw stores one of 1 KiB and more. The
`auth_profile_store` table stands for the agent's credentials the database also holds:
sessdex never queries it (its value is no secret).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import zstandard

HERE = Path(__file__).parent
HOME = HERE / "sqlite" / "home"
AGENT = HOME / ".openclaw" / "agents" / "main"
WORKSPACE = "/home/alex/.openclaw/workspace"

LEAD = "aeda62c6-9dfa-4b62-97d2-30e9d69d6cc6"  # agent:main:main now
BEFORE = "eebaaf5c-5c1b-4206-a6c1-461e638792b3"  # agent:main:main before a /reset
CHILD = "593d8b45-1fd7-4908-b65a-e81c4f443367"  # a sub-agent, its run failed
ARCHIVED = "f53eb692-c236-4ade-bdf9-d9e2a88b5d20"  # a reset's zstd archive file
CHILD_KEY = "agent:main:subagent:1f0e9d8c-7b6a-4958-8776-655443322110"
MS = 1_796_115_600_000  # 2026-12-01T09:00:00Z

SCHEMA = """
CREATE TABLE schema_meta (
  meta_key TEXT NOT NULL PRIMARY KEY, role TEXT NOT NULL, schema_version INTEGER NOT NULL,
  agent_id TEXT, app_version TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL
) STRICT;
CREATE TABLE session_nodes (
  session_key TEXT NOT NULL PRIMARY KEY, current_session_id TEXT NOT NULL,
  entry_json TEXT NOT NULL, updated_at INTEGER NOT NULL, status TEXT, created_at INTEGER,
  parent_session_key TEXT, spawned_by TEXT, label TEXT, display_name TEXT,
  archived_at INTEGER
) STRICT;
CREATE TABLE session_windows (
  session_id TEXT NOT NULL PRIMARY KEY, session_key TEXT NOT NULL,
  previous_session_id TEXT, reason TEXT, created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL, status TEXT, channel TEXT, model_provider TEXT,
  model TEXT, parent_session_key TEXT, spawned_by TEXT, display_name TEXT
) STRICT;
CREATE TABLE transcript_events (
  session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT,
  created_at INTEGER NOT NULL, event_zstd BLOB, event_utf8_bytes INTEGER,
  navigation_json TEXT, PRIMARY KEY (session_id, seq)
) STRICT;
CREATE TABLE transcript_event_identities (
  session_id TEXT NOT NULL, event_id TEXT NOT NULL, seq INTEGER NOT NULL,
  event_type TEXT, parent_id TEXT, message_idempotency_key TEXT,
  created_at INTEGER NOT NULL, PRIMARY KEY (session_id, event_id)
) STRICT;
CREATE TABLE auth_profile_store (
  store_key TEXT NOT NULL PRIMARY KEY, store_json TEXT NOT NULL, updated_at INTEGER NOT NULL
) STRICT;
"""


def stamp(minute: int, second: int) -> str:
    return f"2026-12-01T09:{minute:02d}:{second:02d}.000Z"


def usage(given: int, output: int, read: int = 0) -> dict[str, object]:
    total = given + output + read
    return {
        "input": given,
        "output": output,
        "cacheRead": read,
        "cacheWrite": 0,
        "totalTokens": total,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
    }


class Transcript:
    def __init__(self, session_id: str, minute: int) -> None:
        self.id = session_id
        self.minute = minute
        self.second = 0
        self.entries: list[dict[str, object]] = [
            {
                "type": "session",
                "version": 3,
                "id": session_id,
                "timestamp": stamp(minute, 0),
                "cwd": WORKSPACE,
            }
        ]
        self.parent: str | None = None

    def add(self, kind: str, **fields: object) -> str:
        self.second += 1
        entry_id = f"{self.id[-4:]}{self.second:04x}"
        self.entries.append(
            {
                "type": kind,
                "id": entry_id,
                "parentId": self.parent,
                "timestamp": stamp(self.minute, self.second),
                **fields,
            }
        )
        self.parent = entry_id
        return entry_id

    def user(self, text: str) -> str:
        return self.add(
            "message",
            message={"role": "user", "content": [{"type": "text", "text": text}]},
        )

    def assistant(
        self, content: list[dict[str, object]], cost: dict[str, object]
    ) -> str:
        stop = "toolUse" if any(b["type"] == "toolCall" for b in content) else "stop"
        return self.add(
            "message",
            message={
                "role": "assistant",
                "content": content,
                "api": "anthropic-messages",
                "provider": "anthropic",
                "model": "claude-opus-5-5",
                "usage": cost,
                "stopReason": stop,
            },
        )


def lead() -> Transcript:
    t = Transcript(LEAD, 30)
    t.add("model_change", provider="anthropic", modelId="claude-opus-5-5")
    t.user("Audit the disk usage on the NAS")
    t.assistant(
        [
            {
                "type": "toolCall",
                "id": "call_spawn",
                "name": "sessions_spawn",
                "arguments": {"task": "List the ten biggest folders", "label": "du"},
            }
        ],
        usage(1200, 40, 300),
    )
    t.add(
        "message",
        message={
            "role": "toolResult",
            "toolCallId": "call_spawn",
            "toolName": "sessions_spawn",
            "content": [
                {
                    "type": "text",
                    "text": json.dumps(
                        {"status": "accepted", "childSessionKey": CHILD_KEY}
                    ),
                }
            ],
            "isError": False,
        },
    )
    # a long answer: OpenClaw keeps it zstd-compressed
    t.assistant(
        [{"type": "text", "text": "The biggest folders are: " + "photos, " * 300}],
        usage(1500, 900, 1200),
    )
    t.add("session_info", name="NAS disk audit")
    # `/new` in 2026.9: a boundary in the same transcript, not a new window
    t.add("reset", reason="new")
    t.user("Now check the backups")
    return t


def before() -> Transcript:
    t = Transcript(BEFORE, 10)
    t.user("What was the gateway port again?")
    t.assistant([{"type": "text", "text": "18789."}], usage(300, 5))
    return t


def child() -> Transcript:
    t = Transcript(CHILD, 31)
    t.user("List the ten biggest folders")
    t.assistant([{"type": "text", "text": "du timed out."}], usage(400, 10))
    return t


def write(database: Path, agent: str = "main") -> None:
    """The database of agent `agent` (its keys `agent:<agent>:…`)."""

    def key_of(key: str | None) -> str | None:
        return key.replace("agent:main:", f"agent:{agent}:") if key else key

    connection = sqlite3.connect(database)
    connection.executescript(SCHEMA)
    connection.execute(
        "INSERT INTO schema_meta VALUES ('primary', 'agent', 19, ?, '2026.9.6', ?, ?)",
        (agent, MS, MS),
    )
    connection.execute(
        "INSERT INTO auth_profile_store VALUES ('default', ?, ?)",
        (json.dumps({"anthropic:default": {"key": "not-a-secret"}}), MS),
    )
    nodes = [
        ("agent:main:main", LEAD, {"sessionId": LEAD, "chatType": "direct"}, None, None, None),
        (CHILD_KEY, CHILD, {"sessionId": CHILD, "spawnedBy": "agent:main:main"},
         "failed", "agent:main:main", "du"),
    ]  # fmt: skip
    for key, current, entry, status, spawned_by, label in nodes:
        connection.execute(
            "INSERT INTO session_nodes (session_key, current_session_id, entry_json, "
            "updated_at, status, created_at, spawned_by, label) VALUES (?,?,?,?,?,?,?,?)",
            (
                key_of(key),
                current,
                json.dumps(entry).replace("agent:main:", f"agent:{agent}:"),
                MS,
                status,
                MS,
                key_of(spawned_by),
                label,
            ),
        )
    windows = [
        (before(), "agent:main:main", None, "initial", None),
        (lead(), "agent:main:main", BEFORE, "reset", None),
        (child(), CHILD_KEY, None, "initial", "failed"),
    ]
    compressor = zstandard.ZstdCompressor(level=1, write_checksum=True)
    for transcript, key, previous, reason, status in windows:
        first = MS + transcript.minute * 60_000
        connection.execute(
            "INSERT INTO session_windows (session_id, session_key, previous_session_id, "
            "reason, created_at, updated_at, status, channel, model_provider, model) "
            "VALUES (?,?,?,?,?,?,?,?,?,?)",
            (transcript.id, key_of(key), previous, reason, first,
             first + transcript.second * 1000, status, "webchat", "anthropic",
             "claude-opus-5-5"),
        )  # fmt: skip
        for seq, entry in enumerate(transcript.entries):
            text = json.dumps(entry, separators=(",", ":")).replace(
                "agent:main:", f"agent:{agent}:"
            )
            data = text.encode()
            packed = compressor.compress(data) if len(data) >= 1024 else None
            connection.execute(
                "INSERT INTO transcript_events (session_id, seq, event_json, created_at, "
                "event_zstd, event_utf8_bytes, navigation_json) VALUES (?,?,?,?,?,?,?)",
                (transcript.id, seq, None if packed else text, first, packed,
                 len(data), '{"version":1}' if packed else None),
            )  # fmt: skip
            connection.execute(
                "INSERT INTO transcript_event_identities (session_id, event_id, seq, "
                "event_type, parent_id, created_at) VALUES (?,?,?,?,?,?)",
                (transcript.id, entry["id"], seq, entry["type"], entry.get("parentId"),
                 first),
            )  # fmt: skip
    connection.commit()
    connection.execute("VACUUM")
    connection.close()


def main() -> None:
    shutil.rmtree(HOME, ignore_errors=True)
    (AGENT / "agent").mkdir(parents=True)
    write(AGENT / "agent" / "openclaw-agent.sqlite")
    # the main fixture home's `ops` agent runs 2026.9 (the main agent's files are older)
    ops = HERE / "home" / ".openclaw" / "agents" / "ops" / "agent"
    shutil.rmtree(ops.parent, ignore_errors=True)
    ops.mkdir(parents=True)
    write(ops / "openclaw-agent.sqlite", "ops")
    # what the import moved aside: its rows are in the database, never listed again
    archive = AGENT / "session-sqlite-import-archive"
    archive.mkdir()
    (archive / f"{BEFORE}.jsonl").write_text(
        json.dumps({"type": "session", "version": 3, "id": BEFORE,
                    "timestamp": stamp(10, 0), "cwd": WORKSPACE}) + "\n"
    )  # fmt: skip
    (AGENT / "sessions").mkdir()
    # a reset's archive as 2026.9 publishes it: a generation, zstd-compressed
    old = Transcript(ARCHIVED, 5)
    old.user("Which disks are in the NAS?")
    old.assistant([{"type": "text", "text": "Four 8 TB drives."}], usage(200, 6))
    text = "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in old.entries)
    name = f"{ARCHIVED}.jsonl.reset.2026-12-01T09-06-00.000Z.{'ab' * 16}.zst"
    (AGENT / "sessions" / name).write_bytes(
        zstandard.ZstdCompressor().compress(text.encode())
    )


if __name__ == "__main__":
    main()
