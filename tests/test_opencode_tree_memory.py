"""`tree` (and `show`, `export`) of a big OpenCode database session no longer holds a
row for each of its messages before reading them: they stream. What it held grew by
about 180 bytes a message (245,000 messages: about 45 MB more at its peak), and each
row's blob IO handle left a dead reference behind (CPython gh-144424). Some growth
remains where the session never compacts: what each message since its last compaction
adds to the next one's counts."""

from __future__ import annotations

import json
import shutil
import sqlite3
import tracemalloc
from pathlib import Path

from sessdex import transcripts
from sessdex.sources import Home
from tests.conftest import app_home

SESSION = "ses_dd47cef52ffe38O37iH1Ffe05b"  # 6 messages, 14 parts


def _home(root: Path, copies: int, compacting: bool = False) -> Home:
    """The fixture home, the session's messages and parts written `copies` times more;
    `compacting`: each copy followed by an automatic compaction (its request, its
    summary) that folds every message before it."""
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
    if compacting:
        for kind, data, part in (
            ("c", {"role": "user"}, {"type": "compaction", "auto": True}),
            ("s", {"role": "assistant", "summary": True, "mode": "compaction"},
             {"type": "text", "text": "Summarized."}),
        ):  # fmt: skip
            at = f"1796026339599 + k * 1000000 + {100000 if kind == 'c' else 100001}"
            db.execute(
                f"INSERT INTO message SELECT 'msg_z{kind}_' || k, ?, {at}, {at}, ? "
                "FROM copy",
                (SESSION, json.dumps(data)),
            )
            db.execute(
                f"INSERT INTO part SELECT 'prt_z{kind}_' || k, 'msg_z{kind}_' || k, ?, "
                f"{at}, {at}, ? FROM copy",
                (SESSION, json.dumps(part)),
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
    # 731 bytes a message before, 560 while each row's blob IO handle left a dead
    # reference, 259 now: the rest is what the docstring says
    assert per_message < 350, per_message


def test_tree_of_a_session_that_compacts_holds_its_messages_since_the_last_one(
    tmp_path: Path,
) -> None:
    """What each compaction folded is counted from the messages read since the one
    before: those before it are no longer held (about 260 bytes a message, a prompt's
    start among them), so a long session that compacts holds no more than a short one."""
    small = _peak(_home(tmp_path / "small", 500, compacting=True))
    big = _peak(_home(tmp_path / "big", 2000, compacting=True))
    # four times the messages: 3.7 times the peak before, 1.03 now
    assert big < 1.2 * small, (small, big)
