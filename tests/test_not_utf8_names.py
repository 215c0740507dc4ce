"""A file or folder name that is not UTF-8 and holds a control character too (a hostile
home's `-bad\\xff\\x1b[31m`): the warning that names it writes each out, as `--verbose`
does, so the name shown is the one on disk and the terminal acts on none of it."""

from __future__ import annotations

import os
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from sessdex.diagnostics import detail
from tests.helpers import write_claude_session


def test_a_name_not_utf8_is_named_whole_with_its_controls_written_out(
    tmp_path: Path,
) -> None:
    """The warning named `-bad\\xff` for `-bad\\xff\\x1b[31mred`: the escape sequence was
    dropped from it, so it named a folder that is not there."""
    home = tmp_path / "home"
    session = write_claude_session(home, "5e440000-0000-4000-8000-000000000002", "/w")
    odd = os.fsencode(session.parent.parent) + b"/-bad\xff\x1b[31mred"
    os.rename(os.fsencode(session.parent), odd)
    result = CliRunner().invoke(main, ["list", "--home", str(home)])
    assert result.exit_code == 0, result.output
    assert "-bad\\xff\\x1b[31mred" in result.stderr
    assert "\x1b" not in result.stderr


def test_a_tag_character_in_a_file_name_is_written_out_as_one_code_point() -> None:
    """`\\ue0069` (five digits) read as U+E006 and a 9: `\\U000e0069` is the character."""
    assert detail("/w/a\U000e0069.jsonl", 3, "not JSON") == (
        "/w/a\\U000e0069.jsonl:3: not JSON"
    )
