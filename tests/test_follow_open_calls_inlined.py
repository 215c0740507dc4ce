"""The calls a follow's read of a store finds unanswered (what its later reads of the
last rows must reach back to, of an app that writes a result into its call's row) are
the lead's own: a sub-agent whose events its lead's read inlines (a Crush agent call's
child) neither opens one nor answers the lead's."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from sessdex import api, sources
from sessdex.live import LiveSession
from sessdex.sources import Home

CRUSH = Path(__file__).parent / "data" / "crush" / "home"
LEAD = "8c1f2e3d-4a5b-4c6d-9e7f-0a1b2c3d4e5f"


def _mid_agent_call(db_path: Path) -> None:
    """The fixture's lead as it stood while its agent call ran: the child was given its
    task and runs a grep, whose result (and all after it) is not written yet."""
    db = sqlite3.connect(db_path)
    with db:
        grep = db.execute(
            "SELECT created_at FROM messages WHERE parts LIKE '%call_grep_1%'"
            " AND role = 'assistant'"
        ).fetchone()[0]
        db.execute("DELETE FROM messages WHERE created_at > ?", (grep,))
    db.close()


def test_a_lead_read_whole_finds_open_only_its_own_call_not_its_sub_agents(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # as OpenCode's and Kilo's tool parts: each call's result written into its row
    monkeypatch.setattr(sources.get("crush"), "CALLS_END_IN_PLACE", True, raising=False)
    home = tmp_path / "home"
    shutil.copytree(CRUSH, home)
    _mid_agent_call(home / "code" / "shop-api" / ".crush" / "crush.db")
    session = api.resolve(Home.at(home), LEAD)
    live = LiveSession(session)
    events = live.poll()
    # the child's events came inline, its grep among them, still running
    assert any(e.agent_id and e.call_id == "call_grep_1" for e in events), events
    feed = live.feed
    assert getattr(feed, "open_calls", None) == frozenset({"call_agent_1"})
