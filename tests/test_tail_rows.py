"""`show --tail N` on a database store reads only the session's last messages (a source's
`read_last`), and shows exactly the last N lead events the whole read gives."""

from __future__ import annotations

import dataclasses
import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import api, reading, sources
from sessdex.cli import main
from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Session
from sessdex.sources import Home
from tests.conftest import app_home

COPIES = (
    120  # times a fixture session's messages are written again, later, in the big one
)
OPENCODE_SESSION = "ses_dd47cc97dffecuMitBkETrvX9v"  # spawns a sub-agent
CRUSH_SESSION = "8c1f2e3d-4a5b-4c6d-9e7f-0a1b2c3d4e5f"  # a paid sub-agent, a compaction


def _lead(event: Event) -> bool:
    return event.agent_id is None


def _unnumbered(events: list[Event]) -> list[Event]:
    return [dataclasses.replace(e, seq=0) for e in events]


def _whole(session: Session) -> list[Event]:
    source = sources.get(session.app)
    events = reading.read_session(source, session, Diagnostics())
    return [e for e in events if _lead(e)]


def _sessions(home: Home, app: str) -> list[Session]:
    listing = api.list_sessions(home, apps=[app], include_subagents=True)
    return [api.resolve(home, row.session().id) for row in listing.rows]


@pytest.mark.parametrize("app", ["opencode", "crush", "openhands", "hermes"])
def test_each_fixture_sessions_last_rows_end_its_whole_read(app: str) -> None:
    """Every database session of the fixture home, read from each of its last rows: the
    events are those the whole read ends with, but for their numbers."""
    home = Home.at(app_home(app))
    source = sources.get(app)
    exercised = 0
    for session in _sessions(home, app):
        whole = _whole(session)
        for rows in range(1, 12):
            last = reading.last_events(
                source, session, Diagnostics(), rows, _lead, len(whole) + 1
            )
            if last is None:
                continue
            if not last:  # an event earlier rows may change among them: more rows
                assert session.id == "s_stage0_large", rows  # (its compaction's note)
                continue
            exercised += 1
            assert _unnumbered(last) == _unnumbered(whole[-len(last) :]), (
                session.id,
                rows,
            )
    assert exercised >= 5  # the hook, not the whole read, gave them


def _grow_opencode(home: Path) -> str:
    db = sqlite3.connect(home / ".local" / "share" / "opencode" / "opencode.db")
    messages = db.execute(
        "SELECT id, time_created, time_updated, data FROM message WHERE session_id = ?",
        (OPENCODE_SESSION,),
    ).fetchall()
    for copy in range(1, COPIES + 1):
        later = copy * 1_000_000
        for message_id, created, updated, data in messages:
            new = f"{message_id}_{copy:03d}"
            db.execute(
                "INSERT INTO message VALUES (?, ?, ?, ?, ?)",
                (new, OPENCODE_SESSION, created + later, updated + later, data),
            )
            db.execute(
                "INSERT INTO part SELECT id || ?, ?, session_id, time_created + ?, "
                "time_updated + ?, data FROM part WHERE message_id = ?",
                (f"_{copy:03d}", new, later, later, message_id),
            )
    db.commit()
    db.close()
    return OPENCODE_SESSION


def _grow_crush(home: Path) -> str:
    db = sqlite3.connect(home / "code" / "shop-api" / ".crush" / "crush.db")
    columns = [row[1] for row in db.execute("PRAGMA table_info(messages)")]
    picked = ", ".join(
        "id || ?"
        if c == "id"
        else f"{c} + ?"
        if c in ("created_at", "updated_at")
        else c
        for c in columns
    )
    for copy in range(1, COPIES + 1):
        later = copy * 1000
        db.execute(
            f"INSERT INTO messages ({', '.join(columns)}) SELECT {picked} FROM messages "
            "WHERE session_id = ? AND id NOT LIKE '%-copy-%'",
            (f"-copy-{copy}", later, later, CRUSH_SESSION),
        )
    db.commit()
    db.close()
    return CRUSH_SESSION


@pytest.fixture(params=["opencode", "crush"])
def big(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Home, str, str]:
    """A copy of the app's fixture home, one session grown past a window of rows."""
    app = str(request.param)
    shutil.copytree(app_home(app), tmp_path / "home", symlinks=True)
    grow = _grow_opencode if app == "opencode" else _grow_crush
    return Home.at(tmp_path / "home"), grow(tmp_path / "home"), app


@pytest.mark.parametrize("count", [1, 3, 50, 200])
def test_tail_of_a_big_database_session_is_the_end_of_its_whole_read(
    big: tuple[Home, str, str], count: int
) -> None:
    home, session_id, _ = big
    whole = _whole(api.resolve(home, session_id))
    assert len(whole) > 300  # more than one window of rows
    found = api.transcript(home, session_id, tail=count)
    shown = list(found.events)
    assert found.seq_relative  # only the last rows were read
    assert _unnumbered(shown) == _unnumbered(whole[-count:])


def _records(out: str) -> list[dict[str, object]]:
    records: list[dict[str, object]] = json.loads(out)
    for record in records:
        record.pop("seq")
        record.pop("seq_relative", None)
    return records


def test_show_tail_json_and_text_are_those_of_the_whole_read(
    big: tuple[Home, str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    home, session_id, app = big
    where = ["--home", str(home.path)]
    runner = CliRunner()

    def show(*args: str) -> str:
        result = runner.invoke(main, ["show", session_id, *args, *where])
        assert result.exit_code == 0, result.output
        return result.stdout

    every = [r for r in _records(show("--json")) if r.get("agent_id") is None]
    for count in (2, 40):
        tail = _records(show("--json", "--tail", str(count)))
        assert tail == every[-count:]
    text = show("--tail", "40", "--no-pager")
    # the same tail read whole, without the hook
    monkeypatch.delattr(sources.get(app), "read_last")
    assert show("--tail", "40", "--no-pager") == text


def test_a_crush_tail_of_unanswered_prompts_names_the_model_of_earlier_rows(
    tmp_path: Path,
) -> None:
    """The usage closing a Crush session names its last model and provider: where the
    last rows read hold none (prompts not answered yet), those of the rows before."""
    shutil.copytree(app_home("crush"), tmp_path / "home", symlinks=True)
    home = Home.at(tmp_path / "home")
    session_id = _grow_crush(tmp_path / "home")
    db = sqlite3.connect(
        tmp_path / "home" / "code" / "shop-api" / ".crush" / "crush.db"
    )
    for n in (1, 2):
        db.execute(
            "INSERT INTO messages (id, session_id, role, parts, created_at, updated_at) "
            "VALUES (?, ?, 'user', ?, ?, ?)",
            (f"late-{n}", session_id, '[{"type":"text","data":{"text":"and?"}}]',
             1896119240 + n, 1896119240 + n),
        )  # fmt: skip
    db.commit()
    db.close()
    session = api.resolve(home, session_id)
    whole = _whole(session)
    assert whole[-1].usage is not None and whole[-1].usage.model == "claude-sonnet-4-5"
    for rows in (1, 2, 3):
        last = reading.last_events(
            sources.get("crush"), session, Diagnostics(), rows, _lead, 1000
        )
        assert last is not None
        assert _unnumbered(last) == _unnumbered(whole[-len(last) :])


def test_a_crush_tail_bills_the_session_less_its_sub_agents_however_they_are_named(
    tmp_path: Path,
) -> None:
    """A session's cost holds its sub-agents': the tail's closing usage gives what is its
    own, as the whole read does, whichever message spawned them (a Go OpenCode child,
    named by its bare call id, among them) and however long ago."""
    shutil.copytree(app_home("crush"), tmp_path / "home", symlinks=True)
    home = Home.at(tmp_path / "home")
    session_id = _grow_crush(tmp_path / "home")
    db = sqlite3.connect(
        tmp_path / "home" / "code" / "shop-api" / ".crush" / "crush.db"
    )
    db.execute(
        "INSERT INTO sessions (id, parent_session_id, title, cost, created_at, "
        "updated_at) VALUES ('call_bare_1', ?, 'a sub-agent', 0.0125, 1796119203, "
        "1796119204)",
        (session_id,),
    )
    call = '{"id":"call_bare_1","name":"agent","input":"{\\"prompt\\":\\"look\\"}"}'
    db.execute(
        "INSERT INTO messages (id, session_id, role, parts, created_at, updated_at) "
        "VALUES ('m-early-call', ?, 'assistant', ?, 1796119203, 1796119203)",
        (session_id, f'[{{"type":"tool_call","data":{call}}}]'),
    )
    db.commit()
    db.close()
    session = api.resolve(home, session_id)
    whole = _whole(session)
    last = reading.last_events(
        sources.get("crush"), session, Diagnostics(), 2, _lead, 1000
    )
    assert last is not None and last[-1].kind == "usage"
    assert last[-1] == dataclasses.replace(whole[-1], seq=last[-1].seq)
    # the fixture's own sub-agent and this one are both taken off the session's cost
    assert last[-1].extra["app_cost_usd"] == pytest.approx(0.042 - 0.006 - 0.0125)


def test_a_forks_tail_is_read_whole(tmp_path: Path) -> None:
    """Which of a fork's messages are copies is known from its first ones: its tail
    comes from the whole read, as it did, not from its last rows."""
    from tests.test_forks_opencode import FORK, _home

    home = Home.at(_home(tmp_path))
    session = api.resolve(home, FORK)
    assert (
        reading.last_events(
            sources.get("opencode"), session, Diagnostics(), 1, _lead, 10
        )
        is None
    )
    found = api.transcript(home, FORK, tail=3)
    assert not found.seq_relative
    assert list(found.events) == _whole(session)[-3:]


def test_a_bad_row_in_a_widened_tail_is_counted_once(
    big: tuple[Home, str, str],
) -> None:
    """`show --detail user --tail N` asks for more rows until N typed prompts are found:
    a bad row near the end, read again by each wider window, is one row skipped, as the
    whole read counts it (each window's count was added: 3 for 1)."""
    home, session_id, app = big
    if app == "opencode":
        db = sqlite3.connect(
            home.path / ".local" / "share" / "opencode" / "opencode.db"
        )
        table, column, order = "part", "data", "time_created"
    else:
        db = sqlite3.connect(home.path / "code" / "shop-api" / ".crush" / "crush.db")
        table, column, order = "messages", "parts", "created_at"
    db.execute(
        f"UPDATE {table} SET {column} = '{{broken' WHERE id = (SELECT id FROM {table}"
        f" WHERE session_id = ? ORDER BY {order} DESC LIMIT 1 OFFSET 3)",
        (session_id,),
    )
    db.commit()
    db.close()
    whole = api.transcript(home, session_id)
    list(whole.events)

    def typed(event: Event) -> bool:
        return event.kind == "user"

    found = api.transcript(home, session_id, tail=60, shown=typed)
    assert len(list(found.events)) == 60 and found.seq_relative
    assert whole.diagnostics.to_json() != Diagnostics().to_json()  # the row is bad
    assert found.diagnostics.to_json() == whole.diagnostics.to_json()
