"""`follow` of an app read through its follow hook (Claude Code) whose reader raises on a
record (a sessdex bug): what the same poll read before that record is still drawn, and
the lines after it in the same write too. The poll's events were dropped with the raise
(already taken as seen: never drawn), and the lines after the record waited for the file
to grow."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

import pytest

from sessdex import api
from sessdex.diagnostics import Diagnostics
from sessdex.model import Event
from sessdex.sources import Home, _claude_follow
from sessdex.sources.base import FollowFile, LineReader
from tests.helpers import claude_line, write_claude_session

SESSION = "hhhhhhhh-0000-4000-8000-0000000000f3"
CWD = "/w/raises"
BAD = "a record the reader cannot handle"


def _prompt(text: str, n: int) -> bytes:
    line = claude_line(
        SESSION, CWD, type="user", uuid=f"u{n + 10}", parentUuid=f"u{n + 9}",
        timestamp=f"2026-11-20T10:01:{n:02d}.000Z",
        message={"role": "user", "content": text},
    )  # fmt: skip
    return json.dumps(line).encode() + b"\n"


def _raising(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The hook's readers raise on the BAD record the first time they meet it."""
    reader = _claude_follow.Follow.reader
    raised: list[int] = []

    def broken(
        self: _claude_follow.Follow, file: FollowFile, offset: int
    ) -> LineReader:
        read = reader(self, file, offset)

        def lines(line: object) -> Iterable[Event]:
            for event in read(line):  # type: ignore[arg-type]
                if event.text == BAD and not raised:
                    raised.append(1)
                    raise RuntimeError(BAD)
                yield event

        return lines  # type: ignore[return-value]

    monkeypatch.setattr(_claude_follow.Follow, "reader", broken)
    return raised


def test_what_a_poll_read_before_a_record_that_raised_is_still_drawn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_claude_session(tmp_path, SESSION, CWD)
    raised = _raising(monkeypatch)
    writes = [_prompt("before it", 1) + _prompt(BAD, 2) + _prompt("after it", 3)]

    def stop() -> bool:
        if writes:
            with path.open("ab") as stream:
                stream.write(writes.pop())
        return False

    diagnostics = Diagnostics()
    _, batches = api.follow_session(
        Home.at(tmp_path), SESSION, duration=2.0, notify=False, stop=stop,
        diagnostics=diagnostics,
    )  # fmt: skip
    drawn = [e.text for batch in batches for e in batch]
    assert raised
    assert "before it" in drawn
    assert "after it" in drawn
    assert any("stopped following" in p for p in diagnostics.problems), diagnostics


def test_follow_n_draws_the_last_events_of_a_history_whose_read_raised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from sessdex.cli import main

    path = write_claude_session(tmp_path, SESSION, CWD)
    with path.open("ab") as stream:  # the bad record in the history, one after it
        history = [_prompt(f"history {n}", n) for n in range(1, 9)]
        stream.write(b"".join(history) + _prompt(BAD, 9) + _prompt("history 10", 10))
    raised = _raising(monkeypatch)
    args = ["follow", SESSION, "-n", "1", "--nl", "--duration", "1", "--poll"]
    result = CliRunner().invoke(
        main, [*args, "--home", str(tmp_path)],
        env={"SESSDEX_HOME": str(tmp_path / "state")},
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()  # what it said of the bug, on stderr, beside
    drawn = [json.loads(line).get("text") for line in lines if line.startswith("{")]
    assert raised
    # its last event, as without the bug; it drew all 11 in a second batch, -n passed by
    assert drawn == ["history 10"], drawn


def test_a_board_whose_every_poll_raises_still_takes_what_it_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A record the reader raises on, written at each poll: the board's status takes
    what each poll found. It was held until a poll did not raise, the status stale and
    what was held growing."""
    from datetime import UTC, datetime

    from sessdex.live import Board
    from sessdex.model import Session

    path = write_claude_session(tmp_path, SESSION, CWD)
    reader = _claude_follow.Follow.reader

    def broken(
        self: _claude_follow.Follow, file: FollowFile, offset: int
    ) -> LineReader:
        read = reader(self, file, offset)

        def lines(line: object) -> Iterable[Event]:
            for event in read(line):  # type: ignore[arg-type]
                if event.text == BAD:  # each time
                    raise RuntimeError(BAD)
                yield event

        return lines  # type: ignore[return-value]

    monkeypatch.setattr(_claude_follow.Follow, "reader", broken)
    session = api.transcript(Home.at(tmp_path), SESSION).session

    def listed() -> list[Session]:
        return [session]

    board = Board(listed)
    board.rescan()
    board.poll()
    for n in range(1, 4):
        when = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        prompt = claude_line(
            SESSION, CWD, type="user", uuid=f"p{n}", parentUuid=f"u{n + 9}",
            timestamp=when, message={"role": "user", "content": f"prompt {n}"},
        )  # fmt: skip
        with path.open("ab") as stream:
            stream.write(json.dumps(prompt).encode() + b"\n" + _prompt(BAD, n))
        board.poll()
    [row] = board.rows()
    assert (row.status.status, row.status.reason) == ("working", "model responding")
