"""`tree` of a lead whose many sub-agents its app keeps in a database: each sub-agent is
read once, and the index brought up to date once, not once a sub-agent (1,600 of them
cost 7-11 ms each: every one resolved anew, each resolve a refresh of every app, and
the sub-agents the lead's own read had placed read again to be dropped)."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from sessdex import reading
from sessdex.cli import main
from sessdex.index import Index
from sessdex.model import Session
from tests import fuzzing
from tests.conftest import app_home

COPIES = 30


def fanned(tmp_path: Path, app: str, child: str) -> str:
    """The fixture home of `app` with the rows of its sub-agent `child` copied COPIES
    times under new ids, as `scripts/fuzz-homes.py --fanout` copies them."""
    home = tmp_path / "home"
    fuzzing.copy_home(app_home(app), home)
    for db in fuzzing._databases(home):
        fuzzing._fan_rows(db, child, range(1, COPIES + 1), messages=False)
    return str(home)


def tree(
    home: str, lead: str, monkeypatch: pytest.MonkeyPatch
) -> tuple[list[dict[str, object]], Counter[str], list[int]]:
    """`tree lead --json`'s sub-agents, after a listing (the index warm), with the
    sessions it read (by id, each read counted) and its refreshes of every app."""
    out("list", "--all", "--home", home)
    reads: Counter[str] = Counter()
    refreshes = [0]
    read = reading.read_session
    refresh = Index.refresh_changed

    def read_session(source: object, session: Session, *a: object, **k: object) -> object:  # fmt: skip
        reads[session.id] += 1
        return read(source, session, *a, **k)  # type: ignore[arg-type]

    def refresh_changed(self: Index, *a: object, **k: object) -> object:
        refreshes[0] += 1
        return refresh(self, *a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(reading, "read_session", read_session)
    monkeypatch.setattr(Index, "refresh_changed", refresh_changed)
    found = json.loads(out("tree", lead, "--json", "--home", home))
    return found["children"], reads, refreshes


def out(*args: str) -> str:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_sub_agents_the_leads_read_placed_are_not_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    child, lead = "ses_dd47cc26cffeODfwLbHNPwBmj1", "ses_dd47cc97dffecuMitBkETrvX9v"
    home = fanned(tmp_path, "opencode", child)
    children, reads, refreshes = tree(home, f"opencode:{lead}", monkeypatch)
    copies = {fuzzing._fan_id(child, n) for n in range(1, COPIES + 1)}
    assert {c["id"] for c in children} == {child} | copies
    assert {c["status"] for c in children} == {"done"}
    assert not any(c["unplaced"] for c in children)  # the lead's read placed them all
    # the lead's read holds its sub-agents' events: none is read on its own again
    assert reads == Counter({lead: 1})
    assert refreshes[0] <= 1


def test_child_sessions_no_call_names_are_placed_by_the_leads_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Crush's copies name no call of the lead: its read announces and reads each (as
    its spawn would), once, and `tree` reads none of them again."""
    child = "m-assistant-1$$call_agent_1"
    lead = "8c1f2e3d-4a5b-4c6d-9e7f-0a1b2c3d4e5f"
    home = fanned(tmp_path, "crush", child)
    children, reads, refreshes = tree(home, f"crush:{lead}", monkeypatch)
    copies = {fuzzing._fan_id(child, n) for n in range(1, COPIES + 1)}
    assert {c["id"] for c in children} == {child} | copies
    assert not any(c["unplaced"] for c in children)
    assert {c["status"] for c in children} == {"done"}
    assert {c["tool_calls"] for c in children} == {1}
    assert reads == Counter({lead: 1})
    assert refreshes[0] <= 1


def test_sub_agents_read_on_their_own_open_their_store_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    child = "m-assistant-1$$call_agent_1"
    lead = "8c1f2e3d-4a5b-4c6d-9e7f-0a1b2c3d4e5f"
    home = fanned(tmp_path, "crush", child)
    out("list", "--all", "--home", home)
    opened: list[str] = []
    connect = sqlite3.connect

    def counted(database: object, *args: Any, **kwargs: Any) -> sqlite3.Connection:
        if "crush.db" in str(database):
            opened.append(str(database))
        return connect(database, *args, **kwargs)

    monkeypatch.setattr(sqlite3, "connect", counted)
    tree = json.loads(out("tree", f"crush:{lead}", "--json", "--home", home))
    assert len(tree["children"]) == COPIES + 1
    shown = out("show", f"crush:{lead}", "--json", "--home", home)
    assert {event["agent_id"] for event in json.loads(shown)} >= {
        fuzzing._fan_id(child, n) for n in range(1, COPIES + 1)
    }
    # the lead's read, then one open its sub-agents share; as many for `show`
    assert len(opened) <= 4, opened
