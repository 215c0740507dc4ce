#!/usr/bin/env python3
"""Trim real Hermes Agent `state.db` captures into this folder's fixture (see PROVENANCE.md).

    tests/data/hermes/real/trim.py OUT.db SRC.db THROWAWAY_HOME

SRC is a `state.db` the real CLI wrote in the conformance suite (`scripts/conformance --app
hermes --keep`, or a run driven by hand the same way); THROWAWAY_HOME is that run's HOME,
replaced by /home/alex everywhere. Its rows go into OUT as they are, in the order it holds
them; each session's stored system prompt is cut to its first sentence; the full-text
search tables, the delegation bookkeeping and the locks are left out. Nothing else is
changed.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

KEPT = ("sessions", "messages", "session_model_usage", "schema_version", "state_meta")
HOME = "/home/alex"


def _text_columns(connection: sqlite3.Connection, table: str) -> list[str]:
    return [
        row[1]
        for row in connection.execute(f"PRAGMA table_info({table})")
        if row[2].upper() in ("TEXT", "")
    ]


def main(out: Path, source: Path, home: str) -> None:
    out.unlink(missing_ok=True)
    target = sqlite3.connect(out)
    first = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    for table in KEPT:
        (schema,) = first.execute(
            "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)
        ).fetchone()
        target.execute(schema)
    for (sql,) in first.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
        f" AND tbl_name IN ({', '.join('?' for _ in KEPT)})",
        KEPT,
    ):
        target.execute(sql)
    first.close()
    target.execute("ATTACH DATABASE ? AS src", (f"file:{source}?mode=ro",))
    for table in KEPT:
        target.execute(
            f"INSERT INTO main.{table} SELECT * FROM src.{table} ORDER BY rowid"
        )
    target.commit()
    target.execute("DETACH DATABASE src")
    for table in ("sessions", "messages", "session_model_usage"):
        for column in _text_columns(target, table):
            target.execute(
                f"UPDATE {table} SET {column} = replace({column}, ?, ?)", (home, HOME)
            )
    target.execute(
        "UPDATE sessions SET system_prompt = substr(system_prompt, 1,"
        " instr(system_prompt, '.')) || ' [trimmed for the fixture]'"
        " WHERE system_prompt IS NOT NULL"
    )
    target.commit()
    target.execute("VACUUM")
    target.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3])
