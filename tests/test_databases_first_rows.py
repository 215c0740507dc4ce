"""`databases.first_rows`, the one pass that finds the first rows of many sessions (an
OpenCode or Kilo database whose tables are views without an index): a huge value in a
row it does not list costs no memory, and one it lists is bounded as a look-up is."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

MEASURE = """
import resource, sqlite3, sys
from sessdex import databases
connection = sqlite3.connect(sys.argv[1])
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
rows = databases.first_rows(connection, "message", "session_id", ["s1"], "time_created, id", 4)
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
print(grown // 1024, [(row_id, listed) for row_id, _, listed in rows["s1"]])
"""


def test_a_huge_value_in_a_view_costs_no_memory(tmp_path: Path) -> None:
    db = tmp_path / "opencode.db"
    with sqlite3.connect(db) as connection:
        connection.execute(
            "CREATE TABLE message_t (id TEXT, session_id TEXT, time_created INT, data)"
        )
        connection.execute("CREATE VIEW message AS SELECT * FROM message_t")
        for n in range(6):
            connection.execute(
                "INSERT INTO message_t VALUES (?, 's1', ?, ?)",
                (f"m{n}", n, '{"n":' + str(n) + "}"),
            )
        # a row past the four listed holds 64 MB
        connection.execute(
            "INSERT INTO message_t VALUES ('m9', 's1', 9, zeroblob(64000000))"
        )
    connection.close()
    out = subprocess.run(
        [sys.executable, "-c", MEASURE, str(db)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split(" ", 1)
    grown_mb, listed = int(out[0]), out[1].strip()
    assert listed == str([(f"m{n}", ('{"n":' + str(n) + "}", 7)) for n in range(4)])
    assert grown_mb < 32  # it was 440 MB: the value went through the window's sorter
