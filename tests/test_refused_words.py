"""A file the system will not let sessdex open is said in one set of words by every
command: `could not open <path> (permission denied)`. `show`, `follow` and `usage` said
"cannot read <path>: permission denied" or "could not count <path>: permission denied"
of a session's own file, where `list`, `doctor` and `show` (for a side file) said
"could not open"."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from tests.conftest import app_home
from tests.helpers import refuse_opening

SESSION = "11111111"
LOG = ".claude/projects/-home-dev-shop/11111111-1111-4111-8111-111111111111.jsonl"


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize(
    ("command", "listed"),
    [
        (["show", f"claude:{SESSION}"], True),
        (["show", f"claude:{SESSION}", "--verbose"], True),
        (["follow", f"claude:{SESSION}", "--duration", "0.2"], True),
        (["usage", "--app", "claude"], False),
        (["usage", "--app", "claude", "--verbose"], False),
        (["list", "--app", "claude", "--verbose"], False),
        (["doctor", "--app", "claude", "--verbose"], False),
        (["show", SESSION], False),  # its id names the file it may be in
    ],
)
def test_every_command_says_a_refused_file_in_the_same_words(
    command: list[str],
    listed: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    home = tmp_path / "home"
    shutil.copytree(app_home("claude"), home)
    if listed:  # indexed while it opened: read, and refused, by the command itself
        code, out, _ = invoke("list", "--json", "--app", "claude", "--home", str(home))
        assert code == 0 and SESSION in out
    name = str(home / LOG)
    refuse_opening(monkeypatch, name)  # as the kernel refuses another user
    _, out, err = invoke(*command, "--home", str(home))
    said = [line for line in (err + out).splitlines() if name in line]
    assert said, err + out
    for line in said:
        # the file alone, or as the example of a count (`could not open 1 file,
        # such as <path> (permission denied)`)
        assert "could not open " in line, line
        assert f" {name} (permission denied" in line, line
