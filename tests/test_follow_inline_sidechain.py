"""`follow -n N` of a Claude Code 1.0 session whose sub-agent ran as a side chain inside
the main file names it as `show` does (its type, from the spawn that linked it), with
the spawn drawn once: it marked it `sidechain`, or by its id under a second spawn; and
the usage of the responses its last lines leave pending counts as `show` counts it, the
side chain's last response's where `show` gives it: before the lead reads its answer."""

from __future__ import annotations

import json

from click.testing import CliRunner

from sessdex.cli import main
from tests.conftest import DATA

HOME = str(DATA / "claude" / "home")
SESSION = "fe5e1c67-53e7-4862-81ae-d0e013e3270b"


def test_follow_names_an_inline_side_chain_as_show_does() -> None:
    run = CliRunner()
    shown = run.invoke(main, ["show", SESSION, "--home", HOME]).stdout.splitlines()
    argv = ["follow", SESSION, "-n", "25", "--duration", "0", "--home", HOME]
    followed = run.invoke(main, argv)
    assert followed.exit_code == 0, followed.output
    lines = followed.stdout.splitlines()
    assert lines == shown[len(shown) - len(lines) :]
    assert sum("Spawned sub-agent" in line for line in lines) == 1
    assert not any("sidechain" in line or "6690d10e" in line for line in lines[2:])


def test_follow_counts_the_usage_its_last_lines_leave_pending() -> None:
    run = CliRunner()
    usage = run.invoke(main, ["show", SESSION, "--json", "--home", HOME])
    argv = ["follow", SESSION, "-n", "200", "--nl", "--duration", "0"]
    followed = run.invoke(main, [*argv, "--home", HOME])
    want = sorted(e["time"] for e in json.loads(usage.stdout) if e["kind"] == "usage")
    got = sorted(
        e["time"]
        for e in map(json.loads, followed.stdout.splitlines())
        if e["kind"] == "usage"
    )
    assert got == want


def test_show_bills_a_side_chains_last_response_before_its_answer() -> None:
    shown = CliRunner().invoke(main, ["show", SESSION, "--json", "--home", HOME])
    events = json.loads(shown.stdout)
    spawn = next(
        e for e in events if e["kind"] == "subagent" and e["extra"]["child_id"]
    )
    chain, call = spawn["extra"]["child_id"], spawn["call_id"]
    answer = next(
        n
        for n, e in enumerate(events)
        if e["kind"] == "tool_result" and e["call_id"] == call
    )
    billed = [
        n
        for n, e in enumerate(events)
        if e["kind"] == "usage" and e["agent_id"] == chain
    ]
    assert billed and max(billed) < answer  # it was billed after the lead's last events
