"""`show --tail N` of a Cline SDK session (the CLI's, the extension's from 4.1) reads the
end of its messages file, not the whole file; the events are the whole read's last N."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from sessdex import api, reading, sources
from sessdex.diagnostics import Diagnostics
from sessdex.model import Event
from sessdex.sources import Home
from tests.conftest import DATA

REAL = DATA / "cline" / "real" / "home"
BASIC = "1796199537105_fpxn5"  # a tool call and its result, resumed, marked failed
COPIES = 400  # times its messages are written again in the grown session


def _lead(event: Event) -> bool:
    return event.agent_id is None


def _unnumbered(events: list[Event]) -> list[Event]:
    return [dataclasses.replace(e, seq=0) for e in events]


def _whole(home: Home, session_id: str) -> list[Event]:
    session = api.resolve(home, session_id)
    events = reading.read_session(sources.get(session.app), session, Diagnostics())
    return [e for e in events if _lead(e)]


@pytest.fixture
def grown(tmp_path: Path) -> tuple[Home, Path]:
    """The real CLI 3.0.65 home, BASIC's messages written COPIES times more (new ids,
    later times), laid out as the CLI writes them (indented, `system_prompt` after)."""
    shutil.copytree(REAL, tmp_path / "home")
    folder = tmp_path / "home" / ".cline/data/sessions" / BASIC
    path = folder / f"{BASIC}.messages.json"
    document = json.loads(path.read_text())
    first = document["messages"]
    grown = list(first)
    for copy in range(1, COPIES + 1):
        for message in first:
            text = json.dumps(message).replace("2d6e5c744", f"2d6e5c744-{copy}")
            again = json.loads(text)
            again["id"] = f"{message['id']}-{copy}"
            again["ts"] = message["ts"] + copy * 60_000
            grown.append(again)
    document["messages"] = grown
    path.write_text(json.dumps(document, indent=2))
    return Home.at(tmp_path / "home"), path


@pytest.mark.parametrize("count", [1, 2, 7, 40])
def test_a_tail_of_a_big_sdk_session_reads_its_end(
    grown: tuple[Home, Path], count: int
) -> None:
    """It read the whole messages file (3,208 messages here) for `--tail`: now the
    last messages, found from its end; the manifest's failure still ends it."""
    home, _ = grown
    whole = _whole(home, BASIC)
    found = api.transcript(home, BASIC, tail=count)
    shown = list(found.events)
    assert _unnumbered(shown) == _unnumbered(whole[-count:])
    assert shown[-1].kind == "error"  # the manifest says `failed`
    assert found.seq_relative  # only the end was read


@pytest.mark.parametrize(
    "root",
    [REAL, *(DATA / "cline" / "sdk" / d / "home" for d in ("", "next", "malformed"))],
)
def test_every_sdk_session_tail_ends_its_whole_read(root: Path) -> None:
    """Each session the real CLI wrote (and the synthetic ones: a compaction, forks, a
    damaged file), its tail of each length: the whole read's end (one with a sub-agent's
    file beside it read whole, as before)."""
    home = Home.at(root)
    listing = api.list_sessions(home, apps=["cline"], include_subagents=True)
    ids = [row.session().id for row in listing.rows]
    assert ids
    given = 0
    for session_id in ids:
        whole = _whole(home, session_id)
        for count in range(1, len(whole) + 2):
            shown = list(api.transcript(home, session_id, tail=count).events)
            assert _unnumbered(shown) == _unnumbered(whole[-count:]), (
                session_id,
                count,
            )
        session = api.resolve(home, session_id)
        for rows in range(1, 12):  # the hook itself, from each of its last messages
            last = reading.last_events(
                sources.get("cline"), session, Diagnostics(), rows, _lead, len(whole)
            )
            if last is not None:
                given += 1
                assert _unnumbered(last) == _unnumbered(whole[-len(last) :])
    assert given or root != REAL
