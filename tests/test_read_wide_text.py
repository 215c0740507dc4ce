"""A session still listed whose transcript a tool re-saved as UTF-16 (a Codex thread its
state database lists, a Copilot CLI session its workspace.yaml names): show, export,
follow and find say the file is not UTF-8 and was not read, as the listing says of a
file that lists nothing. They said "skipped 34 unreadable lines … :1: not JSON" and
"its last line is unfinished (1 byte)", which sent the user looking for damage."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from sessdex.diagnostics import WIDE_TEXT
from tests.conftest import DATA

CASES = [
    ("codex/home", "rollout-*01a22b81-5c00-*.jsonl", "01a22b81-5c00"),
    ("copilot/permissions/home", "1089e194-*/events.jsonl", "1089e194"),
]


def _wide_home(tmp_path: Path, fixture: str, name: str) -> tuple[Path, Path]:
    home = tmp_path / "home"
    shutil.copytree(DATA / fixture, home)
    (path,) = home.rglob(name)
    path.write_bytes(path.read_text(encoding="utf-8").encode("utf-16"))
    return home, path


@pytest.mark.parametrize(("fixture", "name", "session"), CASES)
@pytest.mark.parametrize(
    "command",
    [
        ["show", "-v"],
        ["show", "--tail", "3", "-v"],
        ["export", "-v"],
        ["follow", "-n", "3", "--duration", "0", "-v"],
    ],
)
def test_a_utf16_transcript_is_said_so_when_read(
    tmp_path: Path, fixture: str, name: str, session: str, command: list[str]
) -> None:
    home, path = _wide_home(tmp_path, fixture, name)
    args = [command[0], session, *command[1:], "--home", str(home)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert f"{path}:0: {WIDE_TEXT}" in result.stderr, result.stderr
    assert "not JSON" not in result.stderr, result.stderr
    assert "unfinished" not in result.stderr, result.stderr


@pytest.mark.parametrize(("fixture", "name", "session"), CASES)
def test_find_says_a_listed_sessions_utf16_transcript(
    tmp_path: Path, fixture: str, name: str, session: str
) -> None:
    home, path = _wide_home(tmp_path, fixture, name)
    result = CliRunner().invoke(main, ["find", session, "-v", "--home", str(home)])
    assert result.exit_code == 0, result.output
    assert f"{path}:0: {WIDE_TEXT}" in result.stderr, result.stderr
    assert "not JSON" not in result.stderr, result.stderr
    assert "unfinished" not in result.stderr, result.stderr


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be", "utf-32"])
def test_utf16_without_a_byte_order_mark_and_utf32_are_said_so(
    tmp_path: Path, encoding: str
) -> None:
    """Text a tool wrote as UTF-16 with no byte order mark (Python's `utf-16-le`) is
    known by its NUL bytes beside ASCII, in `list -v` as in `show -v`."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "codex/home", home)
    (path,) = home.rglob("rollout-*01a22b81-5c00-*.jsonl")
    path.write_bytes(path.read_text(encoding="utf-8").encode(encoding))
    run = CliRunner()
    for command in (["show", "01a22b81-5c00", "-v"], ["find", "01a22b81-5c00", "-v"]):
        result = run.invoke(main, [*command, "--home", str(home)])
        assert result.exit_code == 0, result.output
        assert f"{path}:0: {WIDE_TEXT}" in result.stderr, (command, result.stderr)
        assert "not JSON" not in result.stderr, result.stderr


def test_a_utf8_file_whose_first_line_starts_with_nul_bytes_is_not_said_utf16(
    tmp_path: Path,
) -> None:
    """A UTF-8 transcript whose first line a crash left as `{`, NUL, `x`, NUL (the shape
    UTF-16's first two ASCII characters have) and whose other lines read is said to skip
    that line, not to be "not UTF-8 … not read": its other lines were read and shown."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "codex/home", home)
    (path,) = home.rglob("rollout-*01a22b81-5c00-*.jsonl")
    path.write_bytes(b"{\0x\0" + path.read_bytes()[4:])
    result = CliRunner().invoke(
        main, ["show", "01a22b81-5c00", "-v", "--home", str(home)]
    )
    assert result.exit_code == 0, result.output
    assert WIDE_TEXT not in result.stderr, result.stderr
    assert f"{path}:1: " in result.stderr, result.stderr
