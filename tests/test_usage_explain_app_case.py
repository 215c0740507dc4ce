"""`sessdex usage app --explain Claude`: an app row is named in any case, as `--app Claude`
takes it (it said "no app row is keyed 'Claude'. Rows: claude")."""

from __future__ import annotations

import json

from click.testing import CliRunner

from sessdex import api
from sessdex.cli import main

DEMO = str(api.demo_home().path)


def usage(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["usage", *args, "--home", DEMO])
    return result.exit_code, result.stdout, result.stderr


def test_an_app_row_is_explained_whatever_the_case_it_is_typed_in() -> None:
    code, out, err = usage("app", "--explain", "claude", "--json")
    assert code == 0, err
    row = json.loads(out)["row"]
    assert row["key"] == "claude" and row["responses"] > 0
    for typed in ("Claude", "CLAUDE", " claude"):
        code, out, err = usage("app", "--explain", typed, "--json")
        assert code == 0, (typed, err)
        assert json.loads(out)["row"] == row
    code, _, err = usage("app", "--explain", "cladue")
    assert code == 1 and "Rows: " in err and "claude" in err
