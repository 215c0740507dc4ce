"""`follow` of a Qwen Code chat read from near its end (a big chat): the main agent's
`api_response` telemetry, which Qwen writes as a reply's stream ends, vouches for the
record written after it. A poll that ended on the telemetry, the record read by the next,
held the reply's usage back as still streaming (`unfinished`) until a later record or
the end of following: the telemetry was never read again (real 0.15.10 lines)."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

from sessdex import api
from sessdex.live_feeds import FULL_REREAD_MAX
from sessdex.live_session import LiveSession
from sessdex.sources import Home

DATA = Path(__file__).parent / "data" / "qwen" / "home"


def _chat(home: Path) -> Path:
    return next(home.glob(".qwen/projects/*/chats/51ca07c5*.jsonl"))


def test_the_reply_after_its_telemetry_is_billed_when_read(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA, home, symlinks=True)
    path = _chat(home)
    for other in path.parent.iterdir():
        if other != path:
            other.unlink()
    prompt, snapshot, telemetry, reply = path.read_text().splitlines(keepends=True)[:4]
    assert '"qwen-code.api_response"' in telemetry and '"assistant"' in reply
    # the chat grown past what follow reads whole: it reads on from its last line
    padding = []
    for number in range(FULL_REREAD_MAX // len(snapshot) + 100):
        record = json.loads(snapshot)
        record["uuid"] = f"snapshot-{number}"
        padding.append(json.dumps(record) + "\n")
    path.write_text("".join([prompt, *padding, telemetry]))
    follower = LiveSession(api.resolve(Home.at(home), "51ca07c5"))
    now = time.time()
    polled = follower.poll(now)
    with path.open("a") as chat:
        chat.write(reply)
    os.utime(path, (now + 1, now + 1))
    for step in (5, 10):
        polled += follower.poll(now + step)
    billed = [e for e in polled if e.kind == "usage"]
    assert [(e.usage.output_tokens, e.extra) for e in billed if e.usage] == [(30, {})]
    assert follower.release() == []


def test_the_reply_written_over_two_polls_is_billed_when_read(tmp_path: Path) -> None:
    """A poll between the telemetry and the whole reply met only the reply's first half
    (a long answer being written): the poll after it still reads on from the telemetry."""
    home = tmp_path / "home"
    shutil.copytree(DATA, home, symlinks=True)
    path = _chat(home)
    for other in path.parent.iterdir():
        if other != path:
            other.unlink()
    prompt, snapshot, telemetry, reply = path.read_text().splitlines(keepends=True)[:4]
    padding = []
    for number in range(FULL_REREAD_MAX // len(snapshot) + 100):
        record = json.loads(snapshot)
        record["uuid"] = f"snapshot-{number}"
        padding.append(json.dumps(record) + "\n")
    path.write_text("".join([prompt, *padding, telemetry]))
    follower = LiveSession(api.resolve(Home.at(home), "51ca07c5"))
    now = time.time()
    polled = follower.poll(now)
    half = len(reply) // 2
    for step, part in ((1, reply[:half]), (6, reply[half:])):
        with path.open("a") as chat:
            chat.write(part)
        os.utime(path, (now + step, now + step))
        polled += follower.poll(now + step + 1)
    billed = [e for e in polled if e.kind == "usage"]
    assert [(e.usage.output_tokens, e.extra) for e in billed if e.usage] == [(30, {})]
    assert follower.release() == []
