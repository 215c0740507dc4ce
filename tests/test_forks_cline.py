"""Cline CLI: `/fork` starts a new session seeded with every message of the current one.

Follows cline/cline @21cb8d2525bc (CLI 3.0.56): `forkCurrentSession`
(apps/cli/src/runtime/interactive/session-runtime.ts) reads the source's messages and starts
a fresh session with them as `initialMessages`, which the runtime host persists at once
(sdk/packages/core/src/runtime/host/local-runtime-host.ts, `persistSessionMessages`), each
with its `ts` and `metrics`; the new manifest's `metadata.fork` is
`{forkedFromSessionId, forkedAt, source}` (apps/cli/src/runtime/interactive/fork/metadata.ts).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Usage
from sessdex.sources import cline
from tests.helpers import sessions_of

HOME = Path(__file__).parent / "data" / "cline" / "sdk" / "home"
SESSIONS = Path(".cline") / "data" / "sessions"
LEAD = "1790931121000_k3x9q"
FORK = "1790950000000_f0rk1"
FORKED_AT = "2026-10-02T09:00:00.000Z"  # after the last of LEAD's messages


def _usage(found: list[Event]) -> Usage:
    return sum((e.usage for e in found if e.usage and e.agent_id is None), Usage())


def _forked_home(tmp_path: Path) -> Path:
    """The fixture home, and a fork of its lead session in which one more question was
    asked and answered (one more billed response)."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    source = home / SESSIONS / LEAD
    fork = home / SESSIONS / FORK
    fork.mkdir()
    manifest = json.loads((source / f"{LEAD}.json").read_text())
    manifest.update(session_id=FORK, started_at=FORKED_AT, ended_at=FORKED_AT)
    manifest["metadata"] = {
        "title": "Add a health endpoint (fork)",
        "fork": {"forkedFromSessionId": LEAD, "forkedAt": FORKED_AT, "source": "cli"},
    }
    (fork / f"{FORK}.json").write_text(json.dumps(manifest))
    document = json.loads((source / f"{LEAD}.messages.json").read_text())
    later = 1790931600000 + 1000  # after FORKED_AT
    document["sessionId"] = FORK
    document["messages"] += [
        {
            "id": "msg_u9",
            "role": "user",
            "ts": later,
            "content": [{"type": "text", "text": "Now add a test"}],
        },
        {
            "id": "msg_a9",
            "role": "assistant",
            "ts": later + 5000,
            "content": [{"type": "text", "text": "Added."}],
            "modelInfo": {"id": "claude-sonnet-4-5", "provider": "anthropic"},
            "metrics": {
                "inputTokens": 7000,
                "outputTokens": 40,
                "cacheReadTokens": 6500,
                "cacheWriteTokens": 200,
                "cost": 0.0031,
            },
        },
    ]
    (fork / f"{FORK}.messages.json").write_text(json.dumps(document))
    return home


def test_a_fork_bills_only_the_responses_made_after_it(tmp_path: Path) -> None:
    found = sessions_of(cline, _forked_home(tmp_path))
    assert found[FORK].extra["forked_from_id"] == LEAD
    source = list(cline.read(found[LEAD], Diagnostics()))
    fork = list(cline.read(found[FORK], Diagnostics()))
    assert _usage(source).output_tokens == 300
    spent = _usage(fork)
    assert (spent.input_tokens, spent.output_tokens, spent.cache_read_tokens) == (
        300,
        40,
        6500,
    )
    costs = [e.extra.get("cost_usd") for e in fork if e.kind == "usage"]
    assert costs == [0.0031]
    # the copied conversation is still the fork's to show
    said = [e.text for e in fork if e.kind == "assistant" and e.agent_id is None]
    assert said[-1] == "Added." and len(said) > 1
