"""Writes `home/`: one Cline SDK session in the shapes of Cline's unreleased source.

Synthetic, made up here (no upstream file copied), after cline/cline's default branch past
@21cb8d2525bc as the code index holds it: `sdk/packages/core/src/session/models/
message-annotations.ts` @7d99971b (assistant messages' `childSessions`, `{toolCallId,
sessionId, kind}`, and `iteration`), `services/session-blob-store.ts` @45949489 (images of
16 KiB of base64 or more stored as `blobs/<sha256>.<ext>` and replaced in the history by
`{type: "image_ref", blobId, mediaType, bytes, source?}`), `fork-metadata.ts` @e369614d.
The lead spawns two sub-agents in one message; the second one's file starts first, so
only the links pair each call with its own file. Run `python make_next.py` to rewrite.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

HERE = Path(__file__).parent
LEAD = "1797000000000_n3xt1"
T0 = 1797000000000
SHOT = hashlib.sha256(b"a made-up screenshot").hexdigest()
CHART = hashlib.sha256(b"a made-up chart").hexdigest()


def image_ref(blob_id: str, size: int) -> dict[str, object]:
    return {
        "type": "image_ref",
        "blobId": blob_id,
        "mediaType": "image/png",
        "bytes": size,
    }


def spawn(call_id: str, task: str) -> dict[str, object]:
    return {
        "type": "tool_use",
        "id": call_id,
        "name": "spawn_agent",
        "input": {"task": task},
    }


def metrics(given: int, made: int) -> dict[str, object]:
    return {
        "inputTokens": given, "outputTokens": made,
        "cacheReadTokens": 0, "cacheWriteTokens": 0, "cost": 0.001,
    }  # fmt: skip


def messages_file(
    session_id: str, agent: str, messages: list[dict[str, object]]
) -> dict[str, object]:
    return {
        "version": 1,
        "updated_at": "2026-12-12T10:40:30.000Z",
        "agent": agent,
        "sessionId": session_id,
        "messages": messages,
    }


def child(agent_id: str, task: str, answer: str, start: int) -> dict[str, object]:
    return messages_file(
        f"{LEAD}__{agent_id}",
        "subagent",
        [
            {"id": f"{agent_id}_1", "role": "user", "content": [{"type": "text", "text": task}], "ts": start},
            {
                "id": f"{agent_id}_2", "role": "assistant",
                "content": [{"type": "text", "text": answer}],
                "modelInfo": {"id": "claude-sonnet-4-5", "provider": "anthropic"},
                "metrics": metrics(300, 40), "ts": start + 2000, "iteration": 1,
            },
        ],
    )  # fmt: skip


def main() -> None:
    folder = HERE / "home" / ".cline" / "data" / "sessions" / LEAD
    shutil.rmtree(HERE / "home", ignore_errors=True)
    folder.mkdir(parents=True)
    manifest = {
        "version": 1, "session_id": LEAD, "source": "cli",
        "started_at": "2026-12-12T10:40:00.000Z", "ended_at": "2026-12-12T10:40:30.000Z",
        "status": "completed", "provider": "anthropic", "model": "claude-sonnet-4-5",
        "cwd": "/home/alex/code/site", "workspace_root": "/home/alex/code/site",
        "prompt": "Compare the header and the footer in this screenshot",
        "metadata": {"title": "Compare header and footer"},
    }  # fmt: skip
    lead = [
        {
            "id": "m1", "role": "user", "ts": T0,
            "content": [
                {"type": "text", "text": "Compare the header and the footer in this screenshot"},
                image_ref(SHOT, 48 * 1024),
            ],
        },
        {
            "id": "m2", "role": "assistant", "ts": T0 + 1000, "iteration": 1,
            "content": [
                {"type": "text", "text": "Two helpers will look."},
                spawn("toolu_head", "Describe the header"),
                spawn("toolu_foot", "Describe the footer"),
            ],
            "childSessions": [
                {"toolCallId": "toolu_head", "sessionId": f"{LEAD}__agent_head", "kind": "subagent"},
                {"toolCallId": "toolu_foot", "sessionId": f"{LEAD}__agent_foot", "kind": "subagent"},
            ],
            "modelInfo": {"id": "claude-sonnet-4-5", "provider": "anthropic"},
            "metrics": metrics(900, 80),
        },
        {
            "id": "m3", "role": "user", "ts": T0 + 20000, "iteration": 1,
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_head", "content": "A logo and a menu."},
                {
                    "type": "tool_result", "tool_use_id": "toolu_foot",
                    "content": [{"type": "text", "text": "Links, and a chart:"}, image_ref(CHART, 20 * 1024)],
                },
            ],
        },
        {
            "id": "m4", "role": "assistant", "ts": T0 + 25000, "iteration": 2,
            "content": [{"type": "text", "text": "The footer is busier."}],
            "modelInfo": {"id": "claude-sonnet-4-5", "provider": "anthropic"},
            "metrics": metrics(1400, 30),
        },
    ]  # fmt: skip
    files = {
        f"{LEAD}.json": manifest,
        f"{LEAD}.messages.json": messages_file(LEAD, "lead", lead),
        # the footer's helper started 3 ms before the header's
        "agent_head.messages.json": child("agent_head", "Describe the header", "A logo and a menu.", T0 + 1503),
        "agent_foot.messages.json": child("agent_foot", "Describe the footer", "Links and a chart.", T0 + 1500),
    }  # fmt: skip
    for name, value in files.items():
        (folder / name).write_text(json.dumps(value, indent=2) + "\n")


if __name__ == "__main__":
    main()
