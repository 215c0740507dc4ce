"""A Qwen Code session the prompt log names whose chat file is there but could not be
read (re-saved as UTF-16; tests/data/qwen, from shared/corpus/realcli/qwen-0.15.10):
show and resume name that file and why, as `list -v` does. They said "only the prompts
are left … and no chat file" and that the chat "was never written or was deleted"."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from sessdex.diagnostics import WIDE_TEXT
from tests.conftest import DATA

SESSION = "1f538cf4-236e-4575-9a3b-683f2a204349"


def test_a_chat_file_not_read_is_named(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA / "qwen" / "home", home)
    (chat,) = home.rglob(f"chats/{SESSION}.jsonl")
    chat.write_bytes(chat.read_text(encoding="utf-8").encode("utf-16"))
    named = f"could not read {chat} ({WIDE_TEXT})"
    shown = CliRunner().invoke(main, ["show", SESSION, "--home", str(home)])
    assert named in shown.stderr, shown.stderr
    assert "no chat file" not in shown.output, shown.output
    resumed = CliRunner().invoke(main, ["resume", SESSION, "--home", str(home)])
    assert named in resumed.stderr, resumed.stderr
    assert "never written" not in resumed.stderr, resumed.stderr
