"""`show --tail N` prints exactly `show`'s last N entries, for every session of every
app's fixture home (leads and sub-agents), as text and as --json: sub-agents' blocks and
marks as the whole `show` draws them."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from tests.conftest import DATA
from tests.test_follow_history_every_app import APPS, _body, _key, _last_entries


@pytest.mark.parametrize("count", [1, 3, 20])
@pytest.mark.parametrize("app", APPS)
def test_tail_prints_the_end_of_show(app: str, count: int) -> None:
    home = str(DATA / app / "home")
    run = CliRunner()
    listed = run.invoke(main, ["list", "--all", "--json", "--home", home])
    assert listed.exit_code == 0, listed.output
    ids = [session["id"] for session in json.loads(listed.stdout)]
    assert ids
    for session_id in ids:
        shown = run.invoke(main, ["show", session_id, "--home", home])
        assert shown.exit_code == 0, shown.output
        whole = _body(shown.stdout)
        lines = _last_entries(home, session_id, count)
        argv = ["show", session_id, "--tail", str(count), "--home", home]
        tailed = run.invoke(main, argv)
        assert tailed.exit_code == 0, tailed.output
        assert _body(tailed.stdout) == whole[len(whole) - lines :], session_id

        as_json = run.invoke(main, ["show", session_id, "--json", "--home", home])
        want = [_key(event) for event in json.loads(as_json.stdout)][-count:]
        tailed = run.invoke(main, [*argv, "--json"])
        assert tailed.exit_code == 0, tailed.output
        assert [_key(event) for event in json.loads(tailed.stdout)] == want, session_id
