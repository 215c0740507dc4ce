"""`watch` of a session whose newest record is dated a few seconds ahead of the clock (a
tool call of another machine's): `since`, while that time is ahead, is the moment the
board first saw it, and it stays so once the clock passes the record's time. It jumped
to the record's time then, and `watch --nl` printed a line for nothing that happened."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from pathlib import Path

from sessdex import api
from sessdex.live_session import LiveSession
from sessdex.sources import Home
from tests.helpers import claude_line

SESSION = "a9e0a9e0-0000-4000-8000-0000000000f8"
CWD = "/w/ahead"


def _write(home: Path, at: float) -> None:
    """A prompt, then a Bash call dated `at` (epoch seconds), left running."""
    when = datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    prompt = claude_line(
        SESSION, CWD, type="user", uuid="u0", parentUuid=None, timestamp=when,
        message={"role": "user", "content": "list the files"},
    )  # fmt: skip
    call = claude_line(
        SESSION, CWD, type="assistant", uuid="a0", parentUuid="u0", timestamp=when,
        requestId="req_0",
        message={"id": "msg_0", "role": "assistant", "model": "claude-sonnet-4-5",
                 "stop_reason": "tool_use", "usage": {"input_tokens": 10, "output_tokens": 5},
                 "content": [{"type": "tool_use", "id": "toolu_1", "name": "Bash",
                              "input": {"command": "ls"}}]},
    )  # fmt: skip
    path = home / ".claude" / "projects" / CWD.replace("/", "-") / f"{SESSION}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"".join(json.dumps(x).encode() + b"\n" for x in (prompt, call)))


def test_since_stays_the_moment_first_seen_once_the_clock_reaches_the_record(
    tmp_path: Path,
) -> None:
    now = time.time()
    _write(tmp_path, now + 5)
    live = LiveSession(api.resolve(Home.at(tmp_path), SESSION[:8]))
    live.poll(now)
    seen = [live.status(at) for at in (now, now + 3, now + 5, now + 10)]
    assert [s.plain for s in seen] == ["tool Bash running"] * 4, seen
    assert [s.since for s in seen] == [now] * 4, [s.since for s in seen]
