"""`follow` of an OpenClaw lead whose sub-agent another agent's folder keeps (the index
lists it under the lead; the lead's own read holds nothing of it): its events are drawn
after the lead's, told apart by its id, as `show` gives them; what it writes later too."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from sessdex import api
from sessdex.sources import Home

OPENCLAW = Path(__file__).parent / "data" / "openclaw" / "home"
LEAD = "a717db17-7bed-408a-8491-a2bb0b190f46"
CHILD = "a07e2dd2-a3a4-4616-b863-2f9e2b97b6e0"


def _answer(text: str) -> bytes:
    message = {"role": "assistant", "content": [{"type": "text", "text": text}]}
    line = {
        "type": "message",
        "id": "16000003",
        "parentId": "16000002",
        "timestamp": "2026-12-01T09:17:00.000Z",
        "message": message,
    }
    return json.dumps(line).encode() + b"\n"


def test_follow_draws_a_sub_agent_kept_apart_and_what_it_writes(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    shutil.copytree(OPENCLAW, home)
    child = home / ".openclaw" / "agents" / "coder" / "sessions" / f"{CHILD}.jsonl"
    api.list_sessions(Home.at(home))  # the index lists the sub-agent under its lead
    wrote = False

    def stop() -> bool:
        nonlocal wrote
        if not wrote:
            with child.open("ab") as stream:
                stream.write(_answer("prune.sh is in place."))
            wrote = True
        return False

    _, batches = api.follow_session(
        Home.at(home), LEAD, duration=10, notify=False, history=3, stop=stop
    )
    opening = next(batches)
    said = [(e.agent_id, e.text) for e in opening if e.text]
    assert said[-1] == (CHILD, "prune.sh keeps the last 90 days.")
    later = next(batches)
    batches.close()
    assert [(e.session_id, e.agent_id, e.text) for e in later if e.text] == [
        (LEAD, CHILD, "prune.sh is in place.")
    ]
