"""`follow -n N`, stopped after its first draw, prints exactly `show`'s last N entries,
for every session of every app's fixture home (leads and sub-agents), as text and as
--nl: its history in show's order, sub-agents' blocks and marks as show draws them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import api
from sessdex.cli import main
from sessdex.sources import Home
from sessdex.views import terminal
from sessdex.views.text import SiblingIds
from tests.conftest import DATA

APPS = sorted(home.parent.name for home in DATA.glob("*/home"))
# follow's first draw differs from show's end there for a reason other than its order:
# gaps found by this test, left open (each still fails: test_gaps_still_differ)
GAPS: dict[tuple[str, str], str] = {}


def _body(output: str) -> list[str]:
    """show's lines below its header (which ends at its first blank line)."""
    lines = output.splitlines()
    return lines[lines.index("") + 1 :]


def _last_entries(home: str, session_id: str, count: int) -> int:
    """How many printed lines show's last `count` entries take."""
    found = api.transcript(Home.at(Path(home)), session_id)
    known = SiblingIds(api.sub_agent_ids(Home.at(Path(home)), found.session))
    drawn = list(terminal.render_events(found.events, "normal", siblings=known))
    return sum(line.plain.count("\n") + 1 for line in drawn[-count:]) if count else 0


def _key(event: dict[str, object]) -> tuple[object, ...]:
    return (event["time"], event["kind"], event.get("agent_id"), event.get("call_id"))


@pytest.mark.parametrize("count", [1, 3, 20])
@pytest.mark.parametrize("app", APPS)
def test_follow_draws_the_end_of_show(app: str, count: int) -> None:
    home = str(DATA / app / "home")
    listed = CliRunner().invoke(main, ["list", "--all", "--json", "--home", home])
    assert listed.exit_code == 0, listed.output
    ids = [session["id"] for session in json.loads(listed.stdout)]
    assert ids
    for session_id in ids:
        if (app, session_id) not in GAPS:
            _assert_draws_the_end_of_show(home, session_id, count)


@pytest.mark.xfail(strict=True, reason="a gap left open (GAPS)")
@pytest.mark.parametrize(("app", "session_id"), sorted(GAPS))
def test_gaps_still_differ(app: str, session_id: str) -> None:
    home = str(DATA / app / "home")
    for count in (1, 3, 20):
        _assert_draws_the_end_of_show(home, session_id, count)


def _assert_draws_the_end_of_show(home: str, session_id: str, count: int) -> None:
    run = CliRunner()
    shown = run.invoke(main, ["show", session_id, "--home", home])
    assert shown.exit_code == 0, shown.output
    whole = _body(shown.stdout)
    lines = _last_entries(home, session_id, count)
    argv = ["follow", session_id, "-n", str(count), "--duration", "0"]
    followed = run.invoke(main, [*argv, "--home", home])
    assert followed.exit_code == 0, followed.output
    assert followed.stdout.splitlines() == whole[len(whole) - lines :], session_id

    as_json = run.invoke(main, ["show", session_id, "--json", "--home", home])
    want = [_key(event) for event in json.loads(as_json.stdout)][-count:]
    nl = run.invoke(main, [*argv, "--nl", "--home", home])
    assert nl.exit_code == 0, nl.output
    got = [_key(json.loads(line)) for line in nl.stdout.splitlines()]
    assert got == want, session_id
