"""A tab press offers the sessions begun since the last command, at a bounded cost: the
few files new or changed are read, as a warm `list` reads them; never a build, never a
store of many new files read on a tab press."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

import click
import pytest

from sessdex import api, quick
from sessdex.cli.completion import session_ids
from sessdex.index import index_file
from sessdex.sources import Home
from tests.helpers import counting_parse, write_claude_session


def sid(n: int) -> str:
    return f"{n:08x}-0000-4000-8000-{n:012x}"


def offered(home: Path, typed: str = "") -> list[str]:
    ctx = click.Context(click.Command("resume"))
    ctx.params["home_dir"] = str(home)
    return [item.value for item in session_ids(ctx, click.Argument(["s"]), typed)]


def settle(home: Path) -> None:
    """Date every folder of the home a minute back, so that the index trusts what it
    noted of them (a folder changed within two seconds of a scan is listed again)."""
    back = time.time() - 60
    for folder, _, _ in os.walk(home):
        os.utime(folder, (back, back))


def indexed_home(tmp_path: Path, count: int) -> Path:
    home = tmp_path / "home"
    for n in range(count):
        write_claude_session(
            home, sid(n), f"/work/p{n % 2}", when=f"2026-11-{10 + n:02d}T10:00:00Z"
        )
    settle(home)
    api.list_sessions(Home.at(home))
    return home


def test_a_session_begun_since_the_last_command_is_offered_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = indexed_home(tmp_path, 4)
    before = offered(home)
    assert len(before) == 4
    calls = counting_parse(monkeypatch)
    new = write_claude_session(home, sid(0xA1), "/work/p1", when="2026-12-01T10:00:00Z")
    assert offered(home) == [sid(0xA1), *before]
    assert calls == [str(new)]  # that file alone read
    # and in a folder of its own (an agent run in a new repository)
    other = write_claude_session(
        home, sid(0xA2), "/work/fresh", when="2026-12-02T10:00:00Z"
    )
    assert offered(home, "000000a") == [sid(0xA2), sid(0xA1)]
    assert calls == [str(new), str(other)]


def test_a_session_gone_since_is_no_longer_offered(tmp_path: Path) -> None:
    home = indexed_home(tmp_path, 3)
    gone = home / ".claude" / "projects" / "-work-p0" / f"{sid(0)}.jsonl"
    gone.unlink()
    assert sid(0) not in offered(home)
    assert len(offered(home)) == 2


def test_a_never_indexed_home_offers_nothing_and_makes_no_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    write_claude_session(home, sid(1), "/work/p")
    calls = counting_parse(monkeypatch)
    assert offered(home) == []
    assert calls == []
    assert not index_file(Home.at(home)).exists()


def test_a_new_store_of_many_files_is_left_to_the_next_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = indexed_home(tmp_path, 3)
    before = offered(home)
    for n in range(quick.MAX_REREAD + 1):  # a copied-in history, in a new folder
        write_claude_session(
            home, sid(0x100 + n), "/work/copied", when="2026-12-03T10:00:00Z"
        )
    calls = counting_parse(monkeypatch)
    assert offered(home) == before  # as the index stands: nothing read
    assert calls == []
    monkeypatch.undo()
    listed = {row.id for row in api.list_sessions(Home.at(home)).rows}
    assert len(listed) == 3 + quick.MAX_REREAD + 1  # the next command reads them all
    assert len(offered(home)) == len(listed)


def test_a_busy_index_offers_what_it_holds_at_once(tmp_path: Path) -> None:
    home = indexed_home(tmp_path, 3)
    before = offered(home)
    write_claude_session(home, sid(0xB1), "/work/p0", when="2026-12-01T10:00:00Z")
    writer = sqlite3.connect(index_file(Home.at(home)), isolation_level=None)
    try:
        writer.execute("BEGIN IMMEDIATE")  # another sessdex writing
        started = time.monotonic()
        assert offered(home) == before
        assert time.monotonic() - started < 5  # not the full command's 15 s wait
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert offered(home)[0] == sid(0xB1)


def test_a_tab_press_lists_an_app_again_only_while_that_is_quick(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session begun since changes its folder, and the app is listed again to find it:
    an app of many thousands of files takes longer than a tab press may wait, which then
    offers the index as it stands (the next command reads the new session)."""
    home = indexed_home(tmp_path, 3)
    before = offered(home)
    new = write_claude_session(home, sid(0xC1), "/work/p0", when="2026-12-01T10:00:00Z")
    monkeypatch.setattr(quick, "TAB_SCAN_MS", 0)  # any listing is past its time
    calls = counting_parse(monkeypatch)
    assert offered(home) == before
    assert calls == []
    monkeypatch.setattr(quick, "TAB_SCAN_MS", 200)
    assert offered(home) == [sid(0xC1), *before]
    assert calls == [str(new)]
