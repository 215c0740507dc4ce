"""A session without a follow hook, followed as `watch` follows it: its main file re-read whole
while under 1 MB.

droid writes the lead's `Task` call, then the sub-agent's own transcript beside the lead's
(its `session_start` names `callingSessionId` and `callingToolUseId`), and nothing more into
the lead's file until the sub-agent is done. A board that follows the session must see the
sub-agent's file appear and grow, not only a board started afresh (`watch --once`); and it
must count droid's running token total once, however often it re-reads it.
"""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

from sessdex import api
from sessdex.live import LiveSession
from sessdex.live_feeds import LISTING_SECONDS
from sessdex.sources import Home

from . import test_live_gemini_subagent as gemini

LEAD = "5a0c1d2e-0000-4000-8000-00000000d001"
CHILD = "5a0c1d2e-0000-4000-8000-00000000d002"


def _stamp(when: float) -> str:
    return datetime.fromtimestamp(when, UTC).isoformat().replace("+00:00", "Z")


def _append(path: Path, *records: dict[str, object]) -> None:
    with path.open("a", encoding="utf-8") as file:
        for record in records:
            file.write(json.dumps(record) + "\n")


def _message(when: float, role: str, content: list[object]) -> dict[str, object]:
    return {
        "type": "message",
        "id": f"m{when}",
        "timestamp": _stamp(when),
        "message": {"role": role, "content": content},
    }


def _start(tmp_path: Path, when: float) -> tuple[Path, Path]:
    """A lead that has just called Task; the folder its sub-agent will be written in."""
    home = tmp_path / "home"
    cwd = home / "code" / "shop"
    cwd.mkdir(parents=True)
    folder = home / ".factory" / "sessions" / str(cwd).replace("/", "-")
    folder.mkdir(parents=True)
    lead = folder / f"{LEAD}.jsonl"
    _append(
        lead,
        {"type": "session_start", "id": LEAD, "title": "Fix it", "cwd": str(cwd)},
        _message(when, "user", [{"type": "text", "text": "Fix the flaky test"}]),
        _message(
            when + 1,
            "assistant",
            [
                {
                    "type": "tool_use",
                    "id": "call_task",
                    "name": "Task",
                    "input": {"subagent_type": "worker", "description": "find it"},
                }
            ],
        ),
    )
    return home, folder


def test_a_sub_agent_written_while_followed_is_waited_on(tmp_path: Path) -> None:
    begun = datetime.now(UTC).timestamp() - 10
    home, folder = _start(tmp_path, begun)
    live = LiveSession(api.resolve(Home.at(home), LEAD))
    live.poll(now=begun + 2)
    live.alive = True
    assert live.status(now=begun + 2).reason.startswith("tool Task running")
    child = folder / f"{CHILD}.jsonl"
    _append(
        child,
        {
            "type": "session_start",
            "id": CHILD,
            "title": "worker: find it",
            "callingSessionId": LEAD,
            "callingToolUseId": "call_task",
        },
        _message(begun + 3, "user", [{"type": "text", "text": "find it"}]),
        _message(
            begun + 4,
            "assistant",
            [{"type": "tool_use", "id": "c1", "name": "Execute", "input": {}}],
        ),
    )
    later = begun + 4 + LISTING_SECONDS
    live.poll(now=later)
    status = live.status(now=later)
    assert status.status == "waiting_on_subagent", status
    assert "worker" in status.reason
    # the sub-agent goes on: its call returns and it answers; the lead still waits on it
    _append(
        child,
        _message(begun + 9, "user", [{"type": "tool_result", "tool_use_id": "c1"}]),
    )
    live.poll(now=later + LISTING_SECONDS)
    events = live.poll(now=later + 2 * LISTING_SECONDS)
    assert live.tracker.agents[CHILD].phase == "tool_result", events
    assert live.status(now=later + 2 * LISTING_SECONDS).status == "waiting_on_subagent"


def test_another_session_in_the_folder_is_not_read_as_a_sub_agent(
    tmp_path: Path,
) -> None:
    begun = datetime.now(UTC).timestamp() - 10
    home, folder = _start(tmp_path, begun)
    live = LiveSession(api.resolve(Home.at(home), LEAD))
    live.poll(now=begun + 2)
    _append(
        folder / "other.jsonl",
        {"type": "session_start", "id": "other", "title": "Another"},
        _message(begun + 3, "user", [{"type": "text", "text": "hello"}]),
    )
    later = begun + 3 + LISTING_SECONDS
    assert live.poll(now=later) == []
    assert live.status(now=later).reason.startswith("tool Task running")


def test_a_gemini_sub_agent_chat_that_appears_while_followed_is_waited_on(
    tmp_path: Path,
) -> None:
    """The same for Gemini CLI's real files (tests/data/gemini/live-subagent): its lead's
    chat ends with an empty response while the sub-agent's chat, in `chats/<lead id>/`, is
    written; the board was following the lead before that chat appeared."""
    home = tmp_path / "home"
    shutil.copytree(gemini.DATA, home)
    lead_written = gemini._cut(home / gemini.LEAD_FILE)
    child_written = gemini._cut(home / gemini.CHILD_FILE)
    child = home / gemini.CHILD_FILE
    lines = child.read_text()
    child.unlink()
    live = LiveSession(api.resolve(Home.at(home), gemini.LEAD))
    live.alive = True
    live.poll(now=lead_written)
    assert live.status(now=lead_written + 1).status == "working"
    child.write_text(lines)
    later = max(lead_written, child_written) + LISTING_SECONDS
    live.poll(now=later)
    status = live.status(now=later + 1)
    assert status.status == "waiting_on_subagent", status


def test_a_session_total_rewritten_between_reads_is_counted_once(
    tmp_path: Path,
) -> None:
    """droid keeps a session's tokens only as a running total in `<id>.settings.json`, which
    it rewrites as the session goes: a followed board counts the latest total, as a board
    started afresh does, not the sum of every total it read."""
    begun = datetime.now(UTC).timestamp() - 30
    home, folder = _start(tmp_path, begun)
    settings = folder / f"{LEAD}.settings.json"

    def total(tokens: int) -> None:
        usage = {"inputTokens": tokens, "outputTokens": 10}
        settings.write_text(json.dumps({"model": "m", "tokenUsage": usage}))

    total(100)
    live = LiveSession(api.resolve(Home.at(home), LEAD))
    live.poll(now=begun + 2)
    assert live.tracker.tokens == 110
    for step, tokens in enumerate((200, 300), start=1):
        total(tokens)
        _append(
            folder / f"{LEAD}.jsonl",
            _message(begun + 2 + step, "assistant", [{"type": "text", "text": "…"}]),
        )
        live.poll(now=begun + 2 + step)
    assert live.tracker.tokens == 310
