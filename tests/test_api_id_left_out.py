"""The library's own words: an id left out is the usage error the command line gives."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from sessdex import api
from sessdex.cli import main
from sessdex.errors import BadValue


@pytest.mark.parametrize("given", ["", " ", "codex:", "Codex: "])
def test_an_id_left_out_is_the_usage_error_the_command_line_gives(given: str) -> None:
    with pytest.raises(BadValue) as raised:
        api.resolve(api.demo_home(), given)
    told = str(raised.value)
    assert "give an id" in told and "no session id starts with" not in told
    cli = CliRunner().invoke(main, ["show", given])  # refused before any home is read
    assert cli.exit_code == 2
    assert told.rstrip(".") in " ".join(cli.stderr.split()), cli.stderr
    if ":" in given:  # the app named is the one to list
        assert "'sessdex list --app codex'" in told
