"""Trim a real OpenClaw agent database, kept by `scripts/conformance --app openclaw --keep`,
into the fixture under `real/` (the main agent's `openclaw-agent.sqlite` in its home).

    python tests/data/openclaw/trim_real.py ~/.cache/sessdex-conformance/runs/run-XXXX/openclaw

What it changes (PROVENANCE.md says the same): the tables sessdex never reads are dropped
(memory index, full-text search, boards, deliveries, auth-profile tables: all empty or
derived), the store entry's `skillsSnapshot` and `systemPromptReport` (15 KB of skill
prompts and prompt statistics) are left out of `session_nodes.entry_json`, the runtime
trajectory's `context.compiled` events (the system prompt's pieces) are dropped, and the
run's throwaway home folder becomes /home/alex, the install's folders /usr/lib/... .
Every row kept is otherwise as OpenClaw wrote it.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
AGENT = Path(".openclaw", "agents", "main", "agent", "openclaw-agent.sqlite")
TARGET = HERE / "real" / "home" / AGENT
KEPT = {
    "schema_meta",
    "session_nodes",
    "session_windows",
    "session_key_contract",
    "transcript_events",
    "transcript_event_identities",
    "session_transcript_cold_archives",
    "trajectory_runtime_events",
}
PAGE_SIZE = 1024
TEXT = {
    "session_nodes": ("session_key", "entry_json"),
    "transcript_events": ("event_json",),
    "trajectory_runtime_events": ("event_json",),
}


def main(run: Path) -> None:
    result = json.loads((run / "result.json").read_text())
    home = result["home"]
    cache = str(Path(result["bin_dir"]).parents[1])  # <cache>/openclaw-<version>
    plan = json.loads((run.parent / "plan.json").read_text())["targets"]
    extra = next(t for t in plan if t["target"] == result["target"])["extra_path"]
    node = extra[0].rsplit("/node_modules/", 1)[0]  # <cache>/node-<version>
    swaps = [
        (f"{cache}/node_modules/.bin/openclaw", "/usr/bin/openclaw"),
        (f"{cache}/node_modules/openclaw", "/usr/lib/node_modules/openclaw"),
        (f"{node}/node_modules/node/bin/node", "/usr/bin/node"),
        (home, "/home/alex"),
    ]
    source = sqlite3.connect(
        f"file:{run / 'home' / AGENT}?mode=ro",
        uri=True,
    )
    TARGET.parent.mkdir(parents=True, exist_ok=True)
    TARGET.unlink(missing_ok=True)
    out = sqlite3.connect(TARGET)
    source.backup(out)
    source.close()
    out.execute("PRAGMA journal_mode = DELETE")
    out.execute("PRAGMA secure_delete = ON")  # no old text left in freed space
    names = [
        row[0]
        for row in out.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        )
    ]
    out.execute("PRAGMA foreign_keys = OFF")
    for name in names:  # virtual tables first: their shadow tables go with them
        if (
            name not in KEPT
            and out.execute(
                "SELECT 1 FROM sqlite_master WHERE name = ? AND sql LIKE 'CREATE VIRTUAL%'",
                (name,),
            ).fetchone()
        ):
            out.execute(f'DROP TABLE "{name}"')
    for name in names:
        if (
            name not in KEPT
            and out.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)
            ).fetchone()
        ):
            out.execute(f'DROP TABLE "{name}"')
    for (trigger,) in out.execute(
        "SELECT name FROM sqlite_master WHERE type = 'trigger'"
    ).fetchall():
        out.execute(f'DROP TRIGGER "{trigger}"')
    out.execute(
        "DELETE FROM trajectory_runtime_events "
        "WHERE json_extract(event_json, '$.type') = 'context.compiled'"
    )
    for key, entry in out.execute(
        "SELECT session_key, entry_json FROM session_nodes"
    ).fetchall():
        value = json.loads(entry)
        value.pop("skillsSnapshot", None)
        value.pop("systemPromptReport", None)
        out.execute(
            "UPDATE session_nodes SET entry_json = ? WHERE session_key = ?",
            (json.dumps(value, separators=(",", ":")), key),
        )
    for table, columns in TEXT.items():
        for column in columns:
            for old, new in swaps:
                out.execute(
                    f'UPDATE "{table}" SET "{column}" = replace("{column}", ?, ?)',
                    (old, new),
                )
    out.commit()
    # a page size at which no long row's overflow splits a home path (the fixture check
    # reads the raw bytes: a cut home path and a page number read as another user's home)
    out.execute(f"PRAGMA page_size = {PAGE_SIZE}")
    try:
        out.execute("VACUUM")
        out.close()
    except sqlite3.OperationalError:
        # transcript_events' CHECK calls octet_length(), which SQLite has from 3.43:
        # an older one cannot rebuild the table, Node's (22.5 and on) can
        out.close()
        subprocess.run(
            [
                "node",
                "-e",
                "const {DatabaseSync} = require('node:sqlite');"
                "const db = new DatabaseSync(process.argv[1]);"
                f"db.exec('PRAGMA page_size = {PAGE_SIZE}; VACUUM'); db.close()",
                str(TARGET),
            ],
            check=True,
        )
    print(f"{TARGET.relative_to(HERE)}: {TARGET.stat().st_size} bytes")


if __name__ == "__main__":
    main(Path(sys.argv[1]).expanduser())
