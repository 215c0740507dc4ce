"""A Qwen Code or Gemini CLI session the prompt log names whose chat file is there but
could not be read (re-saved as UTF-16, a pipe in its place; tests/data/qwen and
tests/data/gemini, from shared/corpus/realcli/qwen-0.15.10 and gemini-0.61.0):
show and resume name that file and why, as `list -v` does. They said "only the prompts
are left … and no chat file" and that the chat "was never written or was deleted"."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from sessdex.diagnostics import WIDE_TEXT
from tests.conftest import DATA

CASES = [
    ("qwen", "1f538cf4-236e-4575-9a3b-683f2a204349", "chats/1f538cf4-*.jsonl"),
    (
        "gemini",
        "ae189b69-5623-44c3-99ef-745162a04ce0",
        "chats/session-*-ae189b69.jsonl",
    ),
]


@pytest.mark.parametrize(("app", "session", "name"), CASES)
@pytest.mark.parametrize("damage", ["utf-16", "pipe"])
def test_a_chat_file_not_read_is_named(
    tmp_path: Path, app: str, session: str, name: str, damage: str
) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA / app / "home", home)
    (chat,) = home.rglob(name)
    if damage == "pipe":
        chat.unlink()
        os.mkfifo(chat)
    else:
        chat.write_bytes(chat.read_text(encoding="utf-8").encode("utf-16"))
    reason = WIDE_TEXT if damage == "utf-16" else "pipe"
    named = f"could not read {chat} ({reason})"
    shown = CliRunner().invoke(main, ["show", session, "--home", str(home)])
    assert named in shown.stderr, shown.stderr
    assert "no chat file" not in shown.output, shown.output
    resumed = CliRunner().invoke(main, ["resume", session, "--home", str(home)])
    assert named in resumed.stderr, resumed.stderr
    assert "never written" not in resumed.stderr, resumed.stderr
