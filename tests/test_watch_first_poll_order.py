"""watch's first look at a session reads its history as `show` does, each sub-agent's
block after its spawn's message (as `follow -n` draws it): what its status is folded
from, the sub-agent's last event after the spawn's result stamped in its midst."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import api
from sessdex.cli import main
from sessdex.live import Board
from sessdex.live_session import LiveSession
from sessdex.model import Event
from sessdex.sources import Home
from tests.conftest import DATA

Key = tuple[object, object, object, object]


@pytest.mark.parametrize(
    ("app", "lead"),
    [
        ("gemini", "b44832f3"),  # its spawn stamped after its child
        ("vibe", "11e8c9f6"),  # the spawn's result stamped mid-child
        ("gptme", "2026-11-30-happy-blue-fish"),  # the child after the spawn's usage
        ("openclaw", "aeda62c6"),  # the child after the spawn's "accepted"
    ],
)
def test_the_first_poll_reads_in_shows_order(
    app: str, lead: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = DATA / app / "home"
    shown = CliRunner().invoke(main, ["show", lead, "--json", "--home", str(home)])
    assert shown.exit_code == 0, shown.output
    want = [_key(event) for event in json.loads(shown.stdout)]

    polled: list[list[Event]] = []
    poll = LiveSession.poll

    def kept(live: LiveSession, *args: object, **kwargs: object) -> list[Event]:
        events = poll(live, *args, **kwargs)  # type: ignore[arg-type]
        polled.append(events)
        return events

    monkeypatch.setattr(LiveSession, "poll", kept)
    session = api.transcript(Home.at(Path(home)), lead).session
    board = Board(lambda: [session])
    board.rescan()
    board.poll()
    assert [_key(_record(event)) for event in polled[0]] == want


def _record(event: Event) -> dict[str, object]:
    from sessdex.views.records import event_record

    return event_record(event)


def _key(event: dict[str, object]) -> Key:
    return (event["time"], event["kind"], event.get("agent_id"), event.get("call_id"))
