"""What a cold `usage` says of the damaged lines it met, a warm one says again while the
file is unchanged: it does not read the file again, and said nothing."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from tests.conftest import app_home
from tests.helpers import settle

NOT_UTF8 = (
    "warning: read 1 line with bytes that are not UTF-8 (shown as �); see --verbose"
)
UNREADABLE = "warning: skipped 1 unreadable line; see --verbose"


def _claude(home: Path) -> str:
    """A Claude Code transcript whose billed response carries a byte that is no UTF-8."""
    shutil.copytree(app_home("claude"), home)
    path = sorted((home / ".claude" / "projects").glob("*/*.jsonl"))[0]
    lines = path.read_bytes().splitlines(keepends=True)
    n = next(i for i, line in enumerate(lines) if b'"requestId":"' in line)
    lines[n] = lines[n].replace(b'"requestId":"', b'"requestId":"\xff', 1)
    path.write_bytes(b"".join(lines))
    return NOT_UTF8


def _gemini(home: Path) -> str:
    """A Gemini CLI chat (usage from its sessions' events) with a line that is no JSON."""
    shutil.copytree(app_home("gemini"), home)
    chat = sorted((home / ".gemini" / "tmp").glob("*/chats/session-*.jsonl"))[0]
    with chat.open("ab") as out:
        out.write(b"garbage{\n")
    return UNREADABLE


def _usage(home: Path, path: str, *options: str) -> str:
    """stderr of `sessdex usage OPTIONS` (`path` "cli": click's command; "quick": the
    real command, whose --json answers without click)."""
    args = ["usage", *options, "--home", str(home)]
    if path == "cli":
        result = CliRunner().invoke(main, args, catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.stderr
    settle(home)
    done = subprocess.run(
        [sys.executable, "-m", "sessdex", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )
    assert done.returncode == 0, done.stderr
    return done.stderr


@pytest.mark.parametrize("path", ["cli", "quick"])
@pytest.mark.parametrize("app", ["claude", "gemini"])
def test_a_warm_usage_says_the_damaged_lines_a_cold_one_said(
    tmp_path: Path, app: str, path: str
) -> None:
    home = tmp_path / "home"
    warning = {"claude": _claude, "gemini": _gemini}[app](home)
    options = ("--app", app, "--json")
    cold = _usage(home, path, *options)
    assert warning in cold
    assert _usage(home, path, *options) == cold
    assert warning in _usage(home, "cli", "--app", app)  # the table says it too


def test_a_file_read_on_from_where_it_was_read_to_says_what_came_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A transcript that grew is read from where it was read to: the damaged line before
    that is still said, once, as a cold run says it."""
    home = tmp_path / "home"
    warning = _claude(home)
    assert warning in _usage(home, "cli", "--json")
    path = sorted((home / ".claude" / "projects").glob("*/*.jsonl"))[0]
    with path.open("ab") as out:  # the app's next line
        out.write(b'{"type":"user","message":{"role":"user","content":"and then?"}}\n')
    warm = _usage(home, "cli", "--json")
    assert warm.count(warning) == 1
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "cold"))
    assert _usage(home, "cli", "--json") == warm


def test_a_warm_usage_says_each_store_it_cannot_read_in_a_cold_runs_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two Crush stores that are no database, one of them rewritten since: the warm run
    reads that one again and takes the other's warning from the index, and says both in
    the order a cold run says them (before: the store read again first)."""
    home = tmp_path / "home"
    shutil.copytree(app_home("crush").parent / "malformed" / "home", home)
    _usage(home, "cli", "--json")
    store = home / "code" / "odd" / ".crush" / "crush.db"
    store.write_bytes(b"no database at all, rewritten " * 40)
    warm = _usage(home, "cli", "--json")
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "cold"))
    cold = _usage(home, "cli", "--json")
    assert cold.count("file is not a database") == 2
    assert warm == cold
