"""Completing a session id answers from the index: no build, no parse but of what changed."""

from __future__ import annotations

from pathlib import Path

import click
import pytest

from sessdex import api
from sessdex.cli.completion import session_ids
from sessdex.sources import Home
from tests.helpers import counting_parse, write_claude_session


def offered(home: Path, typed: str) -> list[tuple[str, str | None]]:
    ctx = click.Context(click.Command("show"))
    ctx.params["home_dir"] = str(home)
    items = session_ids(ctx, click.Argument(["session"]), typed)
    return [(item.value, item.help) for item in items]


def make_home(tmp_path: Path, count: int) -> Path:
    home = tmp_path / "home"
    for n in range(count):
        write_claude_session(
            home,
            f"{n:08x}-0000-4000-8000-{n:012x}",
            f"/work/p{n % 3}",
            title=f"session {n}",
            when=f"2026-11-{10 + n:02d}T10:00:00.000Z",
        )
    return home


def test_a_tab_press_parses_nothing_and_offers_what_list_shows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = make_home(tmp_path, 6)
    listed = [row.id for row in api.list_sessions(Home.at(home)).rows]
    calls = counting_parse(monkeypatch)
    assert [value for value, _ in offered(home, "")] == listed  # newest first
    assert offered(home, "00000003") == [
        ("00000003-0000-4000-8000-000000000003", "claude · session 3")
    ]
    assert [v for v, _ in offered(home, "CLAUDE:0000000")] == [
        f"claude:{i}" for i in listed
    ]
    assert offered(home, "zz") == []
    assert calls == []
    # a session grew since: the tab press re-reads that file alone, as a warm list would
    grown = write_claude_session(
        home,
        "00000001-0000-4000-8000-000000000001",
        "/work/p1",
        title="grown",
        when="2026-12-01T10:00:00.000Z",
    )
    assert [value for value, _ in offered(home, "0000000")] == [
        "00000001-0000-4000-8000-000000000001",
        *(i for i in listed if i != "00000001-0000-4000-8000-000000000001"),
    ]
    assert calls == [str(grown)]


def test_a_home_never_indexed_offers_nothing_rather_than_building_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = make_home(tmp_path, 3)
    calls = counting_parse(monkeypatch)
    assert offered(home, "") == []
    assert calls == []
    # once a command has indexed it, the ids are offered
    monkeypatch.undo()
    api.list_sessions(Home.at(home))
    assert len(offered(home, "")) == 3
