"""An OpenCode fork whose own messages hold a row that is no JSON (a torn write, a bad
sector) still bills only what was asked after it: the query that finds its copies
stopped at the row ("malformed JSON"), and every copied response was billed twice, in
the source and in the fork."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from tests.test_forks_opencode import DB, FORK, _home


def _counted(home: Path, state: Path) -> int:
    argv = ["usage", "app", "--json", "--app", "opencode", "--home", str(home)]
    result = CliRunner().invoke(main, argv, env={"SESSDEX_HOME": str(state)})
    assert result.exit_code == 0, result.output
    return sum(int(row["input_tokens"]) for row in json.loads(result.stdout))


def test_a_torn_row_in_a_fork_leaves_its_copies_billed_once(tmp_path: Path) -> None:
    before = _counted(_home(tmp_path / "before", fork=False), tmp_path / "s1")
    home = _home(tmp_path / "after")
    connection = sqlite3.connect(home / DB)
    with connection:  # the question asked in the fork, cut short as it was written
        connection.execute(
            'UPDATE message SET data = \'{"role": "user", "time": {"crea\' '
            "WHERE id = ?",
            (f"msg_{FORK[-8:]}ask0",),
        )
    connection.close()
    assert _counted(home, tmp_path / "s2") == before + 700
