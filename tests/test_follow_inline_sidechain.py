"""`follow -n N` of a Claude Code 1.0 session whose sub-agent ran as a side chain inside
the main file names it as `show` does (its type, from the spawn that linked it), with
the spawn drawn once: it marked it `sidechain`, or by its id under a second spawn; and
the usage of the responses its last lines leave pending counts as `show` counts it."""

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
