"""A line damaged two ways (bytes that are not UTF-8 and an odd token count) is one
line read with damage: counted once, named once with both reasons. It was counted as
two lines, the second named as line 0."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main

DATA = Path(__file__).parent / "data"
CLAUDE = "11111111-1111-4111-8111-111111111111"
CLAUDE_FILE = f".claude/projects/-home-dev-shop/{CLAUDE}.jsonl"


def _damaged_twice(tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the Claude Code fixture whose line 8 (a response) holds a byte that is
    not UTF-8 in its request id and text for its output count."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "claude" / "home", home, symlinks=True)
    path = home / CLAUDE_FILE
    lines = path.read_bytes().split(b"\n")
    value = json.loads(lines[7])
    value["message"]["usage"]["output_tokens"] = "20"
    line = json.dumps(value).encode()
    assert line.count(b'"requestId": "') == 1
    lines[7] = line.replace(b'"requestId": "', b'"requestId": "\xff')
    path.write_bytes(b"\n".join(lines))
    return home, path


def _run(home: Path, state: Path, *argv: str) -> str:
    result = CliRunner().invoke(
        main, [*argv, "--home", str(home)], env={"SESSDEX_HOME": str(state)}
    )
    assert result.exit_code == 0, result.output
    return result.stderr


def test_usage_counts_a_line_damaged_two_ways_once(tmp_path: Path) -> None:
    home, path = _damaged_twice(tmp_path)
    said = _run(home, tmp_path / "state", "usage", "session", "--verbose")
    assert "warning: read 1 line with damage" in said, said
    named = [line for line in said.splitlines() if str(path) in line]
    assert named == [f"  {path}:8: not UTF-8 (shown as \ufffd) and odd token count"]


CODEX = "01a22b81-6e0b-7650-ac72-188ccaa967c5"
CODEX_FILE = (
    ".codex/sessions/2026/11/30/rollout-2026-11-30T08-10-32-01a22b81-6e0b-7650-ac72-"
    "188ccaa967c5.jsonl"
)


def test_codex_usage_counts_a_line_damaged_two_ways_once(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA / "codex" / "home", home, symlinks=True)
    path = home / CODEX_FILE
    lines = path.read_bytes().split(b"\n")
    value = json.loads(lines[17])  # line 18: a response of output 30
    value["payload"]["info"]["last_token_usage"]["output_tokens"] = 30.5
    value["payload"]["cwd"] = "/home/dev"
    lines[17] = json.dumps(value).encode().replace(b"/home/dev", b"/home/\xffdev")
    path.write_bytes(b"\n".join(lines))
    said = _run(home, tmp_path / "state", "usage", "session", "--verbose")
    assert "warning: read 1 line with damage" in said, said
    named = [line for line in said.splitlines() if str(path) in line]
    assert named == [f"  {path}:18: not UTF-8 (shown as \ufffd) and odd token count"]


def test_show_counts_a_line_damaged_two_ways_once(tmp_path: Path) -> None:
    home, path = _damaged_twice(tmp_path)
    said = _run(home, tmp_path / "state", "show", CLAUDE, "--verbose")
    assert "warning: read 1 line with damage" in said, said
    named = [line for line in said.splitlines() if str(path) in line]
    assert named == [f"  {path}:8: not UTF-8 (shown as \ufffd) and odd token count"]
