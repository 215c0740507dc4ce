"""An index whose recorded schema is not the one its tables have (a file copied in from
elsewhere, a schema version edited by hand) or is newer than this sessdex knows: `list`
sets it aside and builds it again, with the warning, and the warm listing answers again.
It used to end in a traceback ("table usage_files already exists") on every `list`, or,
for a newer version, to take the full command on every run."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from sessdex import quick
from sessdex.indexfile import cache_folder

from .helpers import write_claude_session
from .test_quick import answered, settled


@pytest.mark.parametrize("version", [1, 99])
def test_an_index_of_another_schema_is_built_again(
    tmp_path: Path, version: int, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    home = tmp_path / "home"
    write_claude_session(
        home, "5e55a1a2-0000-4000-8000-000000000003", "/w/s", title="Schema test"
    )
    settled(home)
    args = ["--json", "--home", str(home)]

    def full_list() -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [sys.executable, "-m", "sessdex", "list", *args],
            env={**os.environ, "SESSDEX_NO_QUICK": "1"},
            capture_output=True,
        )

    built = full_list()
    assert built.returncode == 0 and b"Schema test" in built.stdout
    (indexed,) = Path(cache_folder()).glob("index-*.sqlite")
    with contextlib.closing(sqlite3.connect(indexed)) as db:
        db.execute(f"PRAGMA user_version = {version}")
        db.commit()
    listed = full_list()
    assert listed.returncode == 0, listed.stderr.decode()
    assert listed.stdout == built.stdout
    assert b"Traceback" not in listed.stderr
    assert b"building it again" in listed.stderr
    # and the warm listing answers from the index again
    assert answered(args, capsysbinary) == built.stdout
    assert quick.answer("list", args)
