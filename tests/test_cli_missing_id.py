"""A command that takes a SESSION_ID, given none, says where ids are found (with the
--home it was given), as an empty id does: it said only "Missing argument 'SESSION_ID'."."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from sessdex.cli import main


@pytest.mark.parametrize("command", ["show", "tree", "export", "resume", "follow"])
def test_a_left_out_id_names_the_list_command(command: str) -> None:
    result = CliRunner().invoke(main, [command, "--home", "/tmp"], prog_name="sessdex")
    assert result.exit_code == 2 and result.stdout == ""
    assert (
        "Missing argument 'SESSION_ID'. Give an id, or the start of one "
        "('sessdex list --home /tmp')." in result.stderr
    )
