"""A spawn read again once it names its sub-agent links the two, as `watch` follows a session.

The fixture is a real Qwen Code 0.15.10 run of the conformance suite's `subagent` step
(tests/data/qwen/PROVENANCE.md). Qwen Code writes the lead's `agent` call first; the sub-agent's
id comes only with the telemetry written as it works. A board following the session reads the
spawn before it names the sub-agent, then again naming it (the same call): the second must link
them, or the spawn's result does not end the sub-agent and the lead, its turn over, is shown
with a sub-agent still working, under a name cut from its id.
"""

from __future__ import annotations

import json
import re
import shutil
import time
from datetime import UTC, datetime
from pathlib import Path

from sessdex import api
from sessdex.live import LiveSession
from sessdex.sources import Home

DATA = Path(__file__).parent / "data" / "qwen" / "home"
LEAD = "51ca07c5-86d5-4e2f-bd10-43feff49e3db"
CHAT = Path(".qwen/projects/-home-alex-code-shop-api/chats") / f"{LEAD}.jsonl"


_STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z")


def _time(line: str) -> float:
    stamp = json.loads(line)["timestamp"].replace("Z", "+00:00")
    return datetime.fromisoformat(stamp).timestamp()


def _moved(line: str, by: float) -> str:
    """The line with its times moved `by` seconds: written just now, as the files are."""

    def move(found: re.Match[str]) -> str:
        stamp = datetime.fromisoformat(found[0].replace("Z", "+00:00")).timestamp()
        moved = datetime.fromtimestamp(stamp + by, UTC).isoformat(
            timespec="milliseconds"
        )
        return moved.replace("+00:00", "Z")

    return _STAMP.sub(move, line)


def test_the_sub_agent_a_spawn_names_later_ends_with_its_spawn(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA, home)
    chat = home / CHAT
    lines = chat.read_text().splitlines(keepends=True)
    by = time.time() - 2 - _time(lines[-1])
    lines = [_moved(line, by) for line in lines]
    calls = [n for n, line in enumerate(lines) if '"functionCall"' in line]
    chat.write_text("".join(lines[: calls[0] + 1]))  # the lead's call, nothing after
    live = LiveSession(api.resolve(Home.at(home), LEAD))
    live.alive = True
    live.poll(now=_time(lines[calls[0]]))
    for line in lines[calls[0] + 1 :]:  # the rest, a line at a time, each read
        with chat.open("a", encoding="utf-8") as file:
            file.write(line)
        live.poll(now=_time(line))
        if (
            '"functionResponse"' not in line
            and "sub-agent" in (status := live.status(now=_time(line))).reason
        ):
            assert "general-purpose" in status.reason, status
    end = max(_time(lines[-1]), live.written) + 5
    status = live.status(now=end)
    assert status.status == "waiting_for_user", status
    assert "sub-agent" not in status.reason, status
