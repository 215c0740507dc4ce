"""Folders a Windows app recorded (`C:\\Users\\…`, `c:\\…` from an editor, `C:/…` from Git
Bash): `find dir:`, `--here`, the folder column and `usage project` take them as Windows
does, one folder whatever the drive letter's case or the separator."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import pathnames
from sessdex.cli import main
from sessdex.views.text import short_path

SHOP = "C:\\Users\\alex\\code\\shop-api"
SESSIONS = {  # id: the folder its transcript recorded
    "aaaaaaaa-0000-4000-8000-000000000001": SHOP,
    "aaaaaaaa-0000-4000-8000-000000000002": "c:\\Users\\alex\\code\\shop-api\\api",
    "aaaaaaaa-0000-4000-8000-000000000003": "C:/Users/alex/code/shop-api",
    "aaaaaaaa-0000-4000-8000-000000000004": "C:\\Users\\alex\\code\\docs",
}
IN_SHOP = sorted(list(SESSIONS)[:3])


def windows_home(home: Path) -> Path:
    """A copied Windows home: one Claude Code transcript per entry of SESSIONS."""
    for hour, (session_id, cwd) in enumerate(SESSIONS.items(), start=9):
        folder = home / ".claude" / "projects" / re.sub(r"[^A-Za-z0-9]", "-", cwd)
        folder.mkdir(parents=True, exist_ok=True)
        when = f"2026-12-01T{hour:02}:00:00Z"
        common = {"sessionId": session_id, "cwd": cwd, "timestamp": when}
        lines = [
            {"type": "user", "uuid": f"u-{session_id}", "parentUuid": None,
             "message": {"role": "user", "content": f"fix {hour}"}, **common},
            {"type": "assistant", "uuid": f"a-{session_id}",
             "parentUuid": f"u-{session_id}", "requestId": f"r-{session_id}",
             "message": {"id": f"m-{session_id}", "role": "assistant",
                         "model": "claude-sonnet-4-5",
                         "content": [{"type": "text", "text": "done"}],
                         "usage": {"input_tokens": 100, "output_tokens": 10}},
             **common},
        ]  # fmt: skip
        text = "".join(json.dumps(line) + "\n" for line in lines)
        (folder / f"{session_id}.jsonl").write_text(text)
    return home


def ids(output: str) -> list[str]:
    return sorted(s["id"] for s in json.loads(output))


@pytest.mark.parametrize("word", ["dir:code/shop-api", "dir:code\\shop-api"])
def test_find_dir_matches_the_folder_however_windows_wrote_it(
    tmp_path: Path, word: str
) -> None:
    home = windows_home(tmp_path / "home")
    result = CliRunner().invoke(main, ["find", word, "--json", "--home", str(home)])
    assert result.exit_code == 0, result.output
    assert ids(result.stdout) == IN_SHOP


def test_here_on_windows_takes_the_folder_and_below_in_any_spelling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = windows_home(tmp_path / "home")
    monkeypatch.setattr(os, "getcwd", lambda: SHOP)  # as Windows gives it
    monkeypatch.delenv("PWD", raising=False)
    run = CliRunner()
    listed = run.invoke(main, ["list", "--here", "--json", "--home", str(home)])
    assert listed.exit_code == 0, listed.output
    assert ids(listed.stdout) == IN_SHOP
    counted = run.invoke(
        main, ["usage", "app", "--here", "--json", "--home", str(home)]
    )
    assert counted.exit_code == 0, counted.output
    assert [row["input_tokens"] for row in json.loads(counted.stdout)] == [300]


def test_usage_project_counts_one_windows_folder_once(tmp_path: Path) -> None:
    home = windows_home(tmp_path / "home")
    result = CliRunner().invoke(
        main, ["usage", "project", "--json", "--home", str(home)]
    )
    assert result.exit_code == 0, result.output
    rows = {row["key"]: row["input_tokens"] for row in json.loads(result.stdout)}
    assert rows == {
        SHOP: 200,
        SHOP + "\\api": 100,
        "C:\\Users\\alex\\code\\docs": 100,
    }


def test_the_folder_column_shortens_a_windows_home() -> None:
    assert short_path("c:\\Users\\alex\\code\\shop", "C:\\Users\\alex") == (
        "~\\code\\shop"
    )
    assert short_path("C:/Users/alex", "C:\\Users\\alex\\") == "~"
    assert short_path("C:\\Users\\alexandra\\x", "C:\\Users\\alex") == (
        "C:\\Users\\alexandra\\x"
    )
    assert short_path("/home/alex/code", "/home/alex") == "~/code"
    assert short_path("/home/Alex/code", "/home/alex") == "/home/Alex/code"


def test_a_posix_folder_keeps_its_case_and_backslashes() -> None:
    assert pathnames.comparable("/home/Alex/a\\b") == "/home/Alex/a\\b"
    assert not pathnames.under("/home/Alex/code", "/home/alex")
    assert pathnames.under("\\\\server\\share\\Code\\x", "\\\\SERVER\\share\\code")
