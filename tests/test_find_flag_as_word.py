"""`find pytest -v`: click reads the -v as `--verbose`, silently; where nothing is then
found, the line that looks for it as a word (after `--`) is named."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import app_home


def _find(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "sessdex",
            "find",
            "--home",
            str(app_home("crush")),
            *args,
        ],
        env={**os.environ, "SESSDEX_HOME": str(tmp_path / "state"), "COLUMNS": "200"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_flag_after_the_words_that_found_nothing_is_named_with_the_dashes_form(
    tmp_path: Path,
) -> None:
    """It said only "No session matches 'pytest'", the -v gone without a word."""
    done = _find(tmp_path, "pytest", "-v")
    assert done.stdout == ""
    assert "No session matches 'pytest'" in done.stderr, done.stderr
    assert "'-v' was taken as the option --verbose" in done.stderr, done.stderr
    assert "-- pytest -v'" in done.stderr, done.stderr


def test_an_option_before_the_words_or_past_dashes_gets_no_such_hint(
    tmp_path: Path,
) -> None:
    for args in (("-v", "pytest"), ("pytest",), ("--", "pytest", "-v")):
        done = _find(tmp_path, *args)
        assert "No session matches" in done.stderr, (args, done.stderr)
        assert "was taken as" not in done.stderr, (args, done.stderr)
