"""A text cell of an app's SQLite store that is not UTF-8: a title cut in the middle of
a character by an app that shortens bytes (a Go program's `title[:80]`), or written by a
hostile home. It shows with U+FFFD in place of the cut bytes; the other sessions of the
store, and that one, are listed as before."""

from __future__ import annotations

import contextlib
import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

DATA = Path(__file__).parent / "data"
CUT_TITLE = b"Fix caf\xc3 bug \xf0\x9f"  # an accent and an emoji cut short

STORES = [
    ("goose", ".local/share/goose/sessions/sessions.db", "sessions", "name"),
    ("opencode", ".local/share/opencode/opencode.db", "session", "title"),
    ("codex", ".codex/state_5.sqlite", "threads", "title"),
    ("crush", "code/shop-api/.crush/crush.db", "sessions", "title"),
    ("kilo", ".local/share/kilo/kilo.db", "session", "title"),
]


def _listed(home: Path) -> tuple[dict[str, str], str]:
    result = CliRunner().invoke(main, ["list", "--all", "--json", "--home", str(home)])
    assert result.exit_code == 0, result.output
    sessions = json.loads(result.stdout)
    return {s["id"]: s["title"] for s in sessions}, result.stderr


@pytest.mark.parametrize(("app", "store", "table", "column"), STORES)
def test_a_title_that_is_not_utf8_hides_no_session(
    app: str, store: str, table: str, column: str, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA / app / "home", home, symlinks=True)
    before, _ = _listed(home)
    with contextlib.closing(sqlite3.connect(home / store)) as db:
        db.execute(
            f"UPDATE {table} SET {column} = CAST(? AS TEXT)",
            (CUT_TITLE,),
        )
        db.commit()
    after, warnings = _listed(home)
    assert sorted(after) == sorted(before), warnings
    assert "cannot read" not in warnings
    assert "Fix caf\ufffd bug \ufffd" in after.values()
