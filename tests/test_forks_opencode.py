"""OpenCode 1.x: a session made by `/fork` holds a copy of every message of its source.

Follows anomalyco/opencode (sst/opencode) packages/opencode/src/session/index.ts, `fork`
(1.x, SQLite store): a new session titled "<title> (fork #1)" is created, then each message
of the source is written again under a new id into it, its `info` kept as it was
(`...msg.info`: `time.created`, `modelID`, `tokens`, `cost`) and each part copied with it
(a `task` part still names the source's child session). The new session row records no
link to its source in 1.x; it was created after every message it copied.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Usage
from sessdex.sources import opencode
from tests.helpers import sessions_of

HOME = Path(__file__).parent / "data" / "opencode" / "home"
DB = Path(".local") / "share" / "opencode" / "opencode.db"
SOURCE = "ses_dd47cc97dffecuMitBkETrvX9v"  # "Sub-agent smoke test", with a task child
FORK = "ses_dd3000000ffeForkOfSubAgnt"
FORKED_AT = 1796040000000  # after every message of SOURCE
ASKED_AT = FORKED_AT + 5000


def _events(home: Path, session_id: str) -> list[Event]:
    diagnostics = Diagnostics()
    found = list(opencode.read(sessions_of(opencode, home)[session_id], diagnostics))
    assert not diagnostics.problems
    return found


def _usage(found: list[Event]) -> Usage:
    return sum((e.usage for e in found if e.usage), Usage())


def _fork(connection: sqlite3.Connection, source: str, fork: str, at: int) -> None:
    """What `Session.fork` writes: a new row, then each message and part copied as is."""
    columns = [r[1] for r in connection.execute("PRAGMA table_info(session)")]
    row = dict(
        zip(
            columns,
            connection.execute(
                "SELECT * FROM session WHERE id = ?", (source,)
            ).fetchone(),
            strict=True,
        )
    )
    row.update(
        id=fork, title=f"{row['title']} (fork #1)", slug=fork[-6:],
        time_created=at, time_updated=at,
    )  # fmt: skip
    connection.execute(
        f"INSERT INTO session ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
        list(row.values()),
    )
    part_columns = [r[1] for r in connection.execute("PRAGMA table_info(part)")]
    messages = connection.execute(
        "SELECT id, time_created, time_updated, data FROM message WHERE session_id = ? "
        "ORDER BY time_created, id",
        (source,),
    ).fetchall()
    for number, (message_id, created, updated, data) in enumerate(messages):
        copy = f"msg_{fork[-8:]}{number:04d}copy"
        connection.execute(
            "INSERT INTO message (id, session_id, time_created, time_updated, data) "
            "VALUES (?, ?, ?, ?, ?)",
            (copy, fork, created, updated, data),
        )
        parts = connection.execute(
            "SELECT * FROM part WHERE message_id = ? ORDER BY id", (message_id,)
        ).fetchall()
        for index, values in enumerate(parts):
            part = dict(zip(part_columns, values, strict=True))
            part.update(id=f"prt_{copy}{index:03d}", message_id=copy, session_id=fork)
            connection.execute(
                f"INSERT INTO part ({', '.join(part)}) VALUES ({', '.join('?' * len(part))})",
                list(part.values()),
            )


def _ask(connection: sqlite3.Connection, session: str, at: int) -> None:
    """One more question asked in `session` and answered: one more billed response."""
    user = {"role": "user", "time": {"created": at}, "agent": "build",
            "model": {"providerID": "mock", "modelID": "mock-model"}}  # fmt: skip
    answer = {
        "parentID": f"msg_{session[-8:]}ask1", "role": "assistant", "mode": "build",
        "agent": "build", "cost": 0, "modelID": "mock-model", "providerID": "mock",
        "tokens": {"total": 777, "input": 700, "output": 77, "reasoning": 0,
                   "cache": {"write": 0, "read": 0}},
        "time": {"created": at + 1000, "completed": at + 2000}, "finish": "stop",
    }  # fmt: skip
    for number, (data, when) in enumerate(((user, at), (answer, at + 1000))):
        message = f"msg_{session[-8:]}ask{number}"
        connection.execute(
            "INSERT INTO message (id, session_id, time_created, time_updated, data) "
            "VALUES (?, ?, ?, ?, ?)",
            (message, session, when, when, json.dumps(data)),
        )
        text = "And once more, please." if number == 0 else "Done once more."
        connection.execute(
            "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (f"prt_{message}", message, session, when, when,
             json.dumps({"type": "text", "text": text})),
        )  # fmt: skip


def _home(tmp_path: Path, *, fork: bool = True) -> Path:
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    connection = sqlite3.connect(home / DB)
    with connection:
        if fork:
            _fork(connection, SOURCE, FORK, FORKED_AT)
            _ask(connection, FORK, ASKED_AT)
    connection.close()
    return home


def test_a_fork_bills_only_what_was_asked_after_it(tmp_path: Path) -> None:
    home = _home(tmp_path)
    source = _usage(_events(home, SOURCE))
    fork = _usage(_events(home, FORK))
    assert source.input_tokens == 4800  # the lead and its sub-agent, as before
    # the copied responses (the sub-agent's too) are billed in the source only
    assert (fork.input_tokens, fork.output_tokens) == (700, 77)


def test_the_copied_turns_are_shown_after_a_note_naming_the_source(
    tmp_path: Path,
) -> None:
    found = _events(_home(tmp_path), FORK)
    notes = [e for e in found if e.kind == "meta" and "copy" in (e.text or "")]
    assert len(notes) == 1 and SOURCE in (notes[0].text or "")
    assert found.index(notes[0]) == 0  # before the copied conversation
    said = [e.text for e in found if e.kind == "assistant"]
    assert "The sub-agent finished and reported hello-from-subagent." in said
    assert said[-1] == "Done once more."


def test_usage_counts_each_response_once_across_source_and_fork(
    tmp_path: Path, run: CliRunner
) -> None:
    def counted(home: Path) -> int:
        argv = ["usage", "app", "--json", "--app", "opencode", "--home", str(home)]
        result = run.invoke(main, argv)
        assert result.exit_code == 0, result.output
        return sum(int(row["input_tokens"]) for row in json.loads(result.stdout))

    before = counted(_home(tmp_path / "before", fork=False))
    assert counted(_home(tmp_path / "after")) == before + 700


def test_a_source_gone_leaves_the_fork_billing_its_copies(tmp_path: Path) -> None:
    home = _home(tmp_path)
    connection = sqlite3.connect(home / DB)
    with connection:
        connection.execute("DELETE FROM part WHERE session_id = ?", (SOURCE,))
        connection.execute("DELETE FROM message WHERE session_id = ?", (SOURCE,))
        connection.execute("DELETE FROM session WHERE id = ?", (SOURCE,))
    connection.close()
    fork = _usage(_events(home, FORK))
    # nothing else bills the copied responses any more: the fork keeps them
    assert fork.input_tokens == 4800 + 700
    assert not [
        e for e in _events(home, FORK) if e.kind == "meta" and "copy" in (e.text or "")
    ]
