"""A title, branch or folder holding a NUL (`\\u0000` in the record) is shown alike by
the full command and by a warm listing (`quick`), whose SQLite `json_extract` cut the
text at the NUL: `before` on every warm run where the first run showed `beforeafter`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from sessdex import quick

from .helpers import write_claude_session


def test_a_warm_table_shows_what_the_first_showed(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    home = tmp_path / "home"
    path = write_claude_session(
        home,
        "5e55a0a0-0000-4000-8000-000000000002",
        "/work/nul-folder",  # its slug names a folder: no NUL there
        prompt="before\x00after",
        branch="nul\x00branch",
    )
    path.write_bytes(path.read_bytes().replace(b"nul-folder", b"nul\\u0000folder"))
    for folder, _, _ in os.walk(home):  # a folder changed just now is never trusted
        os.utime(folder, (1_767_225_600, 1_767_225_600))
    monkeypatch.setenv("COLUMNS", "200")
    args = ["--home", str(home)]
    full = subprocess.run(
        [sys.executable, "-m", "sessdex", "list", *args],
        env={**os.environ, "SESSDEX_NO_QUICK": "1"},
        capture_output=True,
        check=True,
    ).stdout
    assert b"beforeafter" in full and b"nulbranch" in full and b"nulfolder" in full
    capsysbinary.readouterr()
    assert quick.answer("list", args)
    assert capsysbinary.readouterr().out == full
