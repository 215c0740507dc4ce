"""`tree` (and `show`, `export`) of a big OpenCode database session no longer holds a
row for each of its messages before reading them: they stream. What it held grew by
about 180 bytes a message (245,000 messages: about 45 MB more at its peak). Some growth
remains (each row's blob IO handle, which Python's sqlite3 keeps a dead reference to,
and what each message adds to its compactions' counts)."""

from __future__ import annotations

import shutil
import sqlite3
import tracemalloc
from pathlib import Path

from sessdex import transcripts
from sessdex.sources import Home
from tests.conftest import app_home

SESSION = "ses_dd47cef52ffe38O37iH1Ffe05b"  # 6 messages, 14 parts


def _home(root: Path, copies: int) -> Home:
    """The fixture home, the session's messages and parts written `copies` times more."""
    shutil.copytree(app_home("opencode"), root, symlinks=True)
    db = sqlite3.connect(root / ".local" / "share" / "opencode" / "opencode.db")
    db.execute("CREATE TEMP TABLE copy (k INTEGER)")
    db.executemany("INSERT INTO copy VALUES (?)", [(k,) for k in range(1, copies + 1)])
    later = "k * 1000000"
    db.execute(
        f"INSERT INTO message SELECT id || '_' || k, session_id, time_created + {later}, "
        f"time_updated + {later}, data FROM message, copy WHERE session_id = ?",
        (SESSION,),
    )
    db.execute(
        f"INSERT INTO part SELECT p.id || '_' || k, p.message_id || '_' || k, "
        f"p.session_id, p.time_created + {later}, p.time_updated + {later}, p.data "
        "FROM part AS p, copy WHERE p.session_id = ?",
        (SESSION,),
    )
    db.commit()
    db.close()
    return Home.at(root)


def _peak(home: Home) -> int:
    transcripts.agent_tree(home, SESSION)  # the index built, outside the count
    tracemalloc.start()
    try:
        _, root = transcripts.agent_tree(home, SESSION)
        assert root.tool_calls > 0
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_tree_of_a_big_database_session_holds_no_row_per_message(
    tmp_path: Path,
) -> None:
    small = _peak(_home(tmp_path / "small", 1000))
    big = _peak(_home(tmp_path / "big", 2000))
    per_message = (big - small) / (1000 * 6)
    # 731 bytes a message before, 560 now: the rest is what the docstring says
    assert per_message < 650, per_message
