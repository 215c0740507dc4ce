"""A SIGTERM that lands inside a callback SQLite makes (the index's user-defined SQL
function runs Python, where signal handlers run) has its `Terminated` swallowed there:
SQLite turns it into an error, and `watch` keeps going after a broken read. Seen once
in a benchmark: a `watch --nl` ran on for 8 minutes after `kill`."""

from __future__ import annotations

import sqlite3

import pytest

from sessdex import launch
from sessdex.cli import live


def test_a_sigterm_swallowed_by_an_sql_callback_still_ends_watch_at_its_next_step(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(launch, "_terminating", False)
    assert live._stopping() is False  # nothing asked: the board goes on
    db = sqlite3.connect(":memory:")
    db.create_function("_field", 0, lambda: launch._on_terminate(15, None))
    with pytest.raises(sqlite3.OperationalError):  # the signal's exception is lost
        db.execute("SELECT _field()").fetchall()
    with pytest.raises(launch.Terminated):  # and raised again at the watch's next step
        live._stopping()
