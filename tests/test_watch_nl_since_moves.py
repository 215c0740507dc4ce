"""`watch --nl` prints a line when a session's `since` moves though its status and
reason stay the same (another turn ended: "turn ended" again, its age counting from
the new turn's end): `since` is in the record, and the board shows the age start
again. No line came, and a script kept the first turn's time for the second."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from tests.helpers import claude_line

SESSION = "a9e0a9e0-0000-4000-8000-0000000000f6"
CWD = "/w/turns"


def _turn(n: int, at: float) -> bytes:
    """A prompt and the answer that ends its turn, at `at` (epoch seconds)."""
    when = datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    prompt = claude_line(
        SESSION, CWD, type="user", uuid=f"u{n}", parentUuid=f"a{n - 1}" if n else None,
        timestamp=when, message={"role": "user", "content": f"prompt {n}"},
    )  # fmt: skip
    answer = claude_line(
        SESSION, CWD, type="assistant", uuid=f"a{n}", parentUuid=f"u{n}",
        timestamp=when, requestId=f"req_{n}",
        message={"id": f"msg_{n}", "role": "assistant", "model": "claude-sonnet-4-5",
                 "stop_reason": "end_turn", "content": [{"type": "text", "text": "ok"}],
                 "usage": {"input_tokens": 10, "output_tokens": 5}},
    )  # fmt: skip
    return b"".join(json.dumps(x).encode() + b"\n" for x in (prompt, answer))


def test_watch_nl_prints_a_line_when_only_since_moves(tmp_path: Path) -> None:
    home = tmp_path / "home"
    path = home / ".claude" / "projects" / CWD.replace("/", "-") / f"{SESSION}.jsonl"
    path.parent.mkdir(parents=True)
    # written just now: taken for a CLI that runs (no process search says otherwise),
    # its turn ended, for the next 10 s (WRITING)
    path.write_bytes(_turn(0, int(time.time()) - 2))
    env = {**os.environ, "SESSDEX_HOME": str(tmp_path / "state")}
    args = ["watch", "--nl", "--duration", "5", "--since", "1d", "--home", str(home)]
    with subprocess.Popen(
        [sys.executable, "-m", "sessdex", *args], env=env, stdout=subprocess.PIPE
    ) as watching:
        assert watching.stdout is not None
        first = json.loads(watching.stdout.readline())
        with path.open("ab") as stream:  # the next turn, ended in the same write
            stream.write(_turn(1, int(time.time())))
        rest = [json.loads(line) for line in watching.stdout]
    assert (first["status"], first["reason"]) == ("waiting_for_user", "turn ended")
    assert [(r["status"], r["reason"]) for r in rest] == [
        ("waiting_for_user", "turn ended")
    ], rest
    assert rest[0]["since"] > first["since"], (first, rest)


def _sidechain(n: int) -> bytes:
    """A sub-agent's answer, dated now."""
    when = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    line = claude_line(
        SESSION, CWD, type="assistant", uuid=f"c{n}", parentUuid=f"c{n - 1}" if n else None,
        isSidechain=True, agentId="a1", timestamp=when, requestId=f"r{n}",
        message={"id": f"m{n}", "role": "assistant", "model": "claude-sonnet-4-5",
                 "content": [{"type": "text", "text": f"working {n}"}],
                 "usage": {"input_tokens": 1, "output_tokens": 1}},
    )  # fmt: skip
    return json.dumps(line).encode() + b"\n"


def test_watch_nl_says_a_busy_sub_agents_writes_once_a_minute(tmp_path: Path) -> None:
    """The lead's turn ended, a sub-agent writes every 0.5 s: each write moves `since`
    ("turn ended 0s ago (1 sub-agent working)"); it printed a line at every poll."""
    home = tmp_path / "home"
    path = home / ".claude" / "projects" / CWD.replace("/", "-") / f"{SESSION}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(_turn(0, int(time.time()) - 2))
    child = path.with_suffix("") / "subagents" / "agent-a1.jsonl"
    child.parent.mkdir(parents=True)
    child.write_bytes(_sidechain(0))
    env = {**os.environ, "SESSDEX_HOME": str(tmp_path / "state")}
    args = ["watch", "--nl", "--duration", "6", "--since", "1d", "--home", str(home)]
    with subprocess.Popen(
        [sys.executable, "-m", "sessdex", *args], env=env, stdout=subprocess.PIPE
    ) as watching:
        assert watching.stdout is not None
        first = json.loads(watching.stdout.readline())
        for n in range(1, 11):  # 5 s of writes
            with child.open("ab") as stream:
                stream.write(_sidechain(n))
            time.sleep(0.5)
        rest = [json.loads(line) for line in watching.stdout]
    assert first["status"] == "waiting_for_user", first
    # the first move said at once, the next a minute after it at the earliest
    assert len(rest) <= 1, [(r["reason"], r["since"]) for r in rest]
