"""A warm `usage` of an app that keeps its sessions in one database says what a cold one
says after a row is added that moves none of its session's times: a message dated before
its session's (a clock stepped back, a session imported), or a usage row of its own; or
after an older message's row is rewritten in place, its times kept (OpenCode saves a
message's row again as its answer's stream finishes)."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.fuzzing import copy_home, homes
from tests.sources.test_opencode_v2 import NATIVE, T0, add_rows, assistant, tokens
from tests.sources.test_opencode_v2 import database_v2 as opencode_v2

OPENCODE = ".local/share/opencode/opencode.db"
OPENCODE_SESSION = "ses_dd47cef52ffe38O37iH1Ffe05b"
KILO = ".local/share/kilo/kilo.db"
KILO_SESSION = "ses_dca3d578cffeM0KZq5E7M6Frvc"
HERMES = ".hermes/state.db"
HERMES_SESSION = "20261201_101500_0a0b0c"


def _usage(home: Path, state: Path) -> object:
    done = subprocess.run(
        [sys.executable, "-m", "sessdex", "usage", "session", "--json", "--home", home],
        env={**os.environ, "SESSDEX_HOME": str(state)},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _early_message(database: Path, session_id: str) -> None:
    """A copy of the session's last answer under a new id, dated an hour before the
    session began (OpenCode's and Kilo's `message` table)."""
    db = sqlite3.connect(database)
    (data,) = db.execute(
        "SELECT data FROM message WHERE session_id = ? AND data LIKE "
        "'%\"tokens\"%' ORDER BY time_created DESC LIMIT 1",
        (session_id,),
    ).fetchone()
    (began,) = db.execute(
        "SELECT time_created FROM session WHERE id = ?", (session_id,)
    ).fetchone()
    early = began - 3_600_000
    value = json.loads(data)
    value["time"] = {"created": early, "completed": early + 500}
    db.execute(
        "INSERT INTO message (id, session_id, time_created, time_updated, data) "
        "VALUES ('msg_0000000000aaEarlyCopy0001', ?, ?, ?, ?)",
        (session_id, early, early + 500, json.dumps(value)),
    )
    db.commit()
    db.close()


def _rewritten(database: Path, table: str, session_id: str) -> None:
    """The session's first answer saved again in place: its counts and cost changed to
    numbers of the same length, its row, times and everything else kept."""
    db = sqlite3.connect(database)
    row_id, data = db.execute(
        f"SELECT id, data FROM {table} WHERE session_id = ? AND data LIKE "
        "'%\"tokens\"%' ORDER BY time_created LIMIT 1",
        (session_id,),
    ).fetchone()
    value = json.loads(data)
    counts = value["tokens"]
    counts["input"] += 8 * 10 ** (len(str(counts["input"])) - 1)  # 1200 -> 9200
    counts["output"] += 4 * 10 ** (len(str(counts["output"])) - 1)
    value["cost"] = 0.25
    db.execute(f"UPDATE {table} SET data = ? WHERE id = ?", (json.dumps(value), row_id))
    db.commit()
    db.close()


def _opencode(home: Path) -> None:
    _early_message(home / OPENCODE, OPENCODE_SESSION)


def _kilo(home: Path) -> None:
    _early_message(home / KILO, KILO_SESSION)


def _opencode_v2_home(home: Path) -> None:
    opencode_v2(home / Path(OPENCODE).parent).commit()


def _opencode_v2(home: Path) -> None:
    """An answer in OpenCode 2.x's `session_message`, dated before its session began."""
    db = sqlite3.connect(home / OPENCODE)
    answer = assistant(T0 - 60_000, [], finish="stop", tokens=tokens(4000, 300))
    add_rows(db, NATIVE, [("msg_early", "assistant", answer)])
    db.commit()
    db.close()


def _opencode_rewritten(home: Path) -> None:
    _rewritten(home / OPENCODE, "message", OPENCODE_SESSION)


def _kilo_rewritten(home: Path) -> None:
    _rewritten(home / KILO, "message", KILO_SESSION)


def _opencode_v2_rewritten(home: Path) -> None:
    _rewritten(home / OPENCODE, "session_message", NATIVE)


def _hermes_row(home: Path) -> None:
    """An auxiliary call's row of Hermes' `session_model_usage` (its session's row is not
    written), seen before the session's last activity."""
    db = sqlite3.connect(home / HERMES)
    db.execute(
        "INSERT INTO session_model_usage VALUES (?, 'openai/gpt-4o-mini', 'openrouter', "
        "'title', 1, 300, 20, 0, 0, 0, 0.0001, 0, 1796110000.0, 1796110000.0)",
        (HERMES_SESSION,),
    )
    db.commit()
    db.close()


def _hermes_counted(home: Path) -> None:
    """A row of `session_model_usage` counted up in place, its `last_seen` set back."""
    db = sqlite3.connect(home / HERMES)
    db.execute(
        "UPDATE session_model_usage SET input_tokens = input_tokens + 500, "
        "api_call_count = api_call_count + 1, last_seen = 1796110000.0 "
        "WHERE session_id = ? AND task = 'compression'",
        (HERMES_SESSION,),
    )
    db.commit()
    db.close()


Change = Callable[[Path], None]
CASES: dict[str, tuple[str, Change | None, Change]] = {
    "opencode": ("opencode", None, _opencode),
    "kilo": ("kilo", None, _kilo),
    "opencode_v2": ("opencode", _opencode_v2_home, _opencode_v2),
    "opencode_rewritten": ("opencode", None, _opencode_rewritten),
    "kilo_rewritten": ("kilo", None, _kilo_rewritten),
    "opencode_v2_rewritten": ("opencode", _opencode_v2_home, _opencode_v2_rewritten),
    "hermes_row": ("hermes", None, _hermes_row),
    "hermes_counted": ("hermes", None, _hermes_counted),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_row_that_moves_no_time_changes_the_warm_usage_as_the_cold(
    tmp_path: Path, case: str
) -> None:
    app, make, change = CASES[case]
    home = tmp_path / "home"
    if make is None:
        copy_home(homes()[app], home)
    else:
        make(home)
    before = _usage(home, tmp_path / "warm")
    change(home)
    cold = _usage(home, tmp_path / "cold")
    shutil.rmtree(tmp_path / "cold")
    assert cold != before  # the change is one `usage` counts
    assert _usage(home, tmp_path / "warm") == cold


def test_a_row_rewritten_in_the_tick_the_marks_were_read_in_changes_the_warm_usage(
    tmp_path: Path,
) -> None:
    """OpenCode's answer saved again in place within its clock's tick of the last
    `usage` (stamped here ahead of the clock, as a file server's fast clock stamps it,
    and put back after the write): the database's stat looks as it did then."""
    home = tmp_path / "home"
    copy_home(homes()["opencode"], home)
    database = home / OPENCODE
    stamp = (time.time_ns() // 10**9 + 60) * 10**9 + 123_456_789
    os.utime(database, ns=(stamp, stamp))
    before = _usage(home, tmp_path / "warm")
    _opencode_rewritten(home)
    os.utime(database, ns=(stamp, stamp))
    assert not (home / (OPENCODE + "-wal")).exists()
    cold = _usage(home, tmp_path / "cold")
    assert cold != before
    assert _usage(home, tmp_path / "warm") == cold
