"""`show --json` / `--nl` written in pieces: small events joined, a big one alone.

The bytes must be what one record an event gives (a reader of the stream sees no
seam), and a big record (MBs with --full-payloads) must not be copied behind others.
"""

from __future__ import annotations

import json

import pytest

from sessdex.cli._common import event_chunks
from sessdex.model import Event, Usage
from sessdex.views.records import event_record


def _events() -> list[Event]:
    small = [
        Event(
            "s",
            n,
            "assistant",
            text=f"said {n} é",
            extra={"n": n},
            usage=Usage(n, 1) if n % 3 == 0 else None,
        )
        for n in range(3000)  # some 600 KB: several pieces
    ]
    big = Event("s", 3000, "tool_result", text="x" * 300_000, extra={"big": True})
    return [*small[:1500], big, *small[1500:]]


@pytest.mark.parametrize("relative", [False, True])
def test_array_holds_every_event_once_in_order(relative: bool) -> None:
    events = _events()
    pieces = list(event_chunks(events, False, relative))
    records = json.loads(b"".join(pieces))
    expected = [event_record(e) for e in events]
    if relative:
        for record in expected:
            record["seq_relative"] = True
    assert records == expected
    text = b"".join(pieces)
    assert text.startswith(b"[\n{") and text.endswith(b"}\n]\n")
    assert text.count(b"},\n{") == len(events) - 1
    # joined: far fewer writes than events, and the big one alone, not copied behind
    assert len(pieces) < 50
    assert any(piece.startswith(b'{"seq":3000') for piece in pieces)


def test_lines_hold_one_event_each() -> None:
    events = _events()
    pieces = list(event_chunks(events, True, True))
    lines = b"".join(pieces).split(b"\n")
    assert lines[-1] == b""
    assert [json.loads(line) for line in lines[:-1]] == [
        {**event_record(e), "seq_relative": True} for e in events
    ]
    assert len(pieces) < 50


@pytest.mark.parametrize("as_nl", [False, True])
def test_no_events(as_nl: bool) -> None:
    assert b"".join(event_chunks([], as_nl)) == (b"" if as_nl else b"[]\n")
