"""`usage` over a transcript a tool re-saved as UTF-16: it says the file is not UTF-8
and was not read, as `list` does. It said "its last line is unfinished (1 byte): the app
may still be writing it", the tokens of the whole file left out under a note that sent
the user looking for a write in progress."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from sessdex.diagnostics import WIDE_TEXT

DEMO = Path(__file__).resolve().parent.parent / "src/sessdex/demo/home"


@pytest.mark.parametrize("name", ["3f2b9c1e-*.jsonl", "rollout-*019a7e21-*.jsonl"])
def test_usage_says_a_utf16_transcript_is_not_read(tmp_path: Path, name: str) -> None:
    home = tmp_path / "home"
    shutil.copytree(DEMO, home)
    (path,) = home.rglob(name)
    text = path.read_text(encoding="utf-8")
    path.write_bytes(b"\xff\xfe" + text.encode("utf-16-le"))
    result = CliRunner().invoke(main, ["usage", "-v", "--home", str(home)])
    assert result.exit_code == 0, result.output
    assert f"{path}:0: {WIDE_TEXT}" in result.stderr, result.stderr
    assert "unfinished" not in result.stderr, result.stderr
