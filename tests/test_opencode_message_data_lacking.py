"""An OpenCode database whose `message` table lacks `data` (renamed by a migration gone
wrong, a build we have not seen): `list -v` and `doctor` say its messages are not read,
as `show`, `usage` and `follow` say it. The listing said nothing: each session listed,
every one of them to show empty."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from tests.conftest import DATA


@pytest.mark.parametrize("command", [["list", "-v", "--app", "opencode"], ["doctor"]])
def test_the_listing_says_message_data_is_lacking(
    tmp_path: Path, command: list[str]
) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA / "opencode" / "home", home)
    db = home / ".local/share/opencode/opencode.db"
    connection = sqlite3.connect(db)
    connection.execute("ALTER TABLE message RENAME COLUMN data TO data_old")
    connection.commit()
    connection.close()
    result = CliRunner().invoke(main, [*command, "--home", str(home)])
    assert result.exit_code == 0, result.output
    said = f"{db} lacks message.data: the messages kept there are not read"
    assert said in result.output, result.output
