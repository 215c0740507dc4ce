"""`tree --json` names a session's times as `list --json` does: its top agent carries
`created` and `updated` (the session's, as listed) beside `started` and `ended` (its
first and last events'). A script joining the two outputs had no key in common but
the id."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

DATA = Path(__file__).parent / "data"
APPS = sorted(path.parent.name for path in DATA.glob("*/home"))


@pytest.mark.parametrize("app", APPS)
def test_tree_and_list_agree_on_a_sessions_times(app: str) -> None:
    home = str(DATA / app / "home")
    listed = CliRunner().invoke(main, ["list", "--json", "--app", app, "--home", home])
    assert listed.exit_code == 0, listed.output
    rows = json.loads(listed.stdout)
    assert rows, f"the {app} fixture lists no session"
    row = rows[0]
    drawn = CliRunner().invoke(
        main, ["tree", f"{app}:{row['id']}", "--json", "--home", home]
    )
    assert drawn.exit_code == 0, drawn.output
    top = json.loads(drawn.stdout)
    assert (top["id"], top["created"], top["updated"]) == (
        row["id"],
        row["created"],
        row["updated"],
    )
    # below the top, an agent's times are its events' alone, as its title is null
    for child in top["children"]:
        assert child["created"] is None and child["updated"] is None
    assert "started" in top and "ended" in top  # the documented keys stay
