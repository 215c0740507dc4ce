"""`watch` finds a sub-agent's writes beside a mid-turn lead however many other sessions
share its folder. Gemini CLI keeps every chat of a project in one `chats/` folder (its
sub-agents in `chats/<lead id>/`), droid a project's sessions in one folder; the look
beside the lead stopped after 2,000 entries in directory order, so in a folder of
thousands of old chats a new sub-agent file went unseen and the board said "tool
running" instead of "waiting on sub-agent"."""

from __future__ import annotations

import os
import shutil
import time
from datetime import UTC, datetime
from pathlib import Path

from sessdex import api
from sessdex.live import LiveSession
from sessdex.live_feeds import LISTING_SECONDS
from sessdex.sources import Home

from . import test_live_gemini_subagent as gemini
from . import test_live_reread as droid

OLD = 5_000  # other sessions' files in the folder, written a day ago


def _crowd(folder: Path, pattern: str, when: float) -> None:
    for n in range(OLD):
        path = folder / pattern.format(n=n)
        path.write_text("{}\n")
        os.utime(path, (when - 86_400, when - 86_400))


def test_a_gemini_sub_agent_chat_is_found_among_thousands_of_chats(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    shutil.copytree(gemini.DATA, home)
    lead_written = gemini._cut(home / gemini.LEAD_FILE)
    child_written = gemini._cut(home / gemini.CHILD_FILE)
    child = home / gemini.CHILD_FILE
    lines = child.read_text()
    child.unlink()
    _crowd(home / gemini.CHATS, "session-2026-01-01T00-00-{n:05}.json", lead_written)
    live = LiveSession(api.resolve(Home.at(home), gemini.LEAD))
    live.alive = True
    live.poll(now=lead_written)
    assert live.status(now=lead_written + 1).status == "working"
    child.write_text(lines)
    later = max(lead_written, child_written) + LISTING_SECONDS
    live.poll(now=later)
    status = live.status(now=later + 1)
    assert status.status == "waiting_on_subagent", status


def test_a_droid_sub_agent_is_found_and_followed_among_thousands_of_sessions(
    tmp_path: Path,
) -> None:
    begun = datetime.now(UTC).timestamp() - 10
    home, folder = droid._start(tmp_path, begun)
    _crowd(folder, "f{n:07}-0000-4000-8000-000000000000.jsonl", begun)
    live = LiveSession(api.resolve(Home.at(home), droid.LEAD))
    live.poll(now=begun + 2)
    live.alive = True
    assert live.status(now=begun + 2).reason.startswith("tool Task running")
    child = folder / f"{droid.CHILD}.jsonl"
    droid._append(
        child,
        {
            "type": "session_start",
            "id": droid.CHILD,
            "title": "worker: find it",
            "callingSessionId": droid.LEAD,
            "callingToolUseId": "call_task",
        },
        droid._message(begun + 3, "user", [{"type": "text", "text": "find it"}]),
        droid._message(
            begun + 4,
            "assistant",
            [{"type": "tool_use", "id": "c1", "name": "Execute", "input": {}}],
        ),
    )
    later = begun + 4 + LISTING_SECONDS
    live.poll(now=later)
    assert live.status(now=later).status == "waiting_on_subagent"
    # its file grows in place (the folder's own mtime stays): seen at the next looks
    droid._append(
        child,
        droid._message(
            begun + 9, "user", [{"type": "tool_result", "tool_use_id": "c1"}]
        ),
    )
    live.poll(now=later + LISTING_SECONDS)
    live.poll(now=later + 2 * LISTING_SECONDS)
    assert live.tracker.agents[droid.CHILD].phase == "tool_result"


def test_an_old_file_written_again_is_seen_within_a_round_of_looks(
    tmp_path: Path,
) -> None:
    from sessdex.live_beside import ROUND, Beside

    lead = tmp_path / "lead.jsonl"
    lead.write_text("{}\n")
    _crowd(tmp_path, "s{n:05}.jsonl", time.time())
    beside = Beside(lead)
    beside.remember()
    assert beside.newest() < time.time_ns() - 3_600 * 10**9  # only old files so far
    written = tmp_path / "s04321.jsonl"
    with written.open("a") as file:
        file.write("{}\n")
    mtime = written.stat().st_mtime_ns
    looks = 0
    while beside.newest() < mtime:
        looks += 1
        assert looks <= OLD // ROUND + 1
    # from then on it is looked at every time, as a running sub-agent's file is
    assert beside.newest() == mtime
    written.unlink()  # gone between looks: passed over
    assert beside.newest() < mtime
