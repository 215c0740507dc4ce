"""A sub-agent kept inside its lead's file (Copilot CLI's, as its app writes them) is
named apart from a later sibling as one the index lists is (`sub_agent_ids`): `show` and
`follow` of the first give as much of its id as tells it from the second's."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import api
from sessdex.cli import main
from sessdex.sources import Home
from tests.conftest import DATA

LEAD = "52ee9297-7cb3-468f-8ca4-46f6b927c8c7"
FIRST = "875a1830-7b81-4bd1-acd7-7c1f0f2bd5b1"
SECOND = "875a1830-7b81-4bd1-acd7-99999999b5b1"  # its first 23 characters the first's


def _home(tmp_path: Path) -> Path:
    """The fixture lead with its spawn made again a minute later: a second sub-agent
    whose id starts as the first's."""
    state = tmp_path / "home" / ".copilot" / "session-state"
    source = DATA / "copilot" / "home" / ".copilot" / "session-state" / LEAD
    shutil.copytree(source, state / LEAD)
    events = state / LEAD / "events.jsonl"
    lines = events.read_text().splitlines()
    spawn = lines[5:24]  # the task call, the sub-agent's events, the call's result
    again = [
        line.replace(FIRST, SECOND)
        .replace("2fbeec47b", "2fbeec48b")
        .replace("2026-11-30T08:13:26", "2026-11-30T08:14:26")
        for line in spawn
    ]
    events.write_text("\n".join(lines[:24] + again + lines[24:]) + "\n")
    return tmp_path / "home"


def test_the_ids_held_inside_are_among_sub_agent_ids(tmp_path: Path) -> None:
    home = Home.at(_home(tmp_path))
    session = api.transcript(home, LEAD).session
    assert {FIRST, SECOND} <= set(api.sub_agent_ids(home, session))


@pytest.mark.parametrize("command", ["show", "follow"])
def test_the_first_is_named_apart_from_its_later_sibling(
    tmp_path: Path, command: str
) -> None:
    home = str(_home(tmp_path))
    argv = [command, LEAD, "--home", home]
    if command == "follow":
        argv += ["-n", "100", "--duration", "0"]
    result = CliRunner().invoke(main, argv)
    assert result.exit_code == 0, result.output
    spawned = [
        line.removeprefix("Spawned sub-agent ").split(" — ")[0]
        for line in result.stdout.splitlines()
        if line.startswith("Spawned sub-agent ")
    ]
    assert len(spawned) == 2, result.stdout
    first = spawned[0].strip("[]").split()[-1]  # the start of its id shown
    assert FIRST.startswith(first)
    assert not SECOND.startswith(first), spawned


def _big_home(tmp_path: Path) -> Path:
    """The fixture lead, its lines before its last turn written again until it holds
    2 MB: a lead `show --tail` and `follow` read from its end."""
    home = _home(tmp_path)
    events = next(home.glob(f".copilot/session-state/{LEAD}/events.jsonl"))
    lines = events.read_text().splitlines(keepends=True)
    earlier = "".join(lines[1:5])  # the prompt, the answer before the task call
    middle = earlier * (2 * 1024 * 1024 // len(earlier))
    events.write_text(lines[0] + middle + "".join(lines[1:]))
    return home


@pytest.mark.parametrize("command", ["show", "follow"])
def test_a_tail_view_of_a_big_lead_reads_it_from_its_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    """`show --tail` and `follow` of a lead of 50 MB took 3 s more to answer: its file
    was read whole once more for the ids of the sub-agents it keeps (what `show`, which
    reads it whole anyway, takes them from). A tail view reads a lead over 1 MB from
    its end alone, as it did."""
    from sessdex import sources

    home = _big_home(tmp_path)
    source = sources.get("copilot")
    starts: list[int] = []

    def read(*args: object, offset: int = 0, **kwargs: object) -> object:
        starts.append(offset)
        return unwrapped(*args, offset=offset, **kwargs)

    unwrapped = source.read
    monkeypatch.setattr(source, "read", read)
    argv = [command, LEAD, "--home", str(home)]
    argv += ["--tail", "30"] if command == "show" else ["-n", "30", "--duration", "0"]
    result = CliRunner().invoke(main, argv)
    assert result.exit_code == 0, result.output
    assert "Spawned sub-agent" in result.stdout
    assert 0 not in starts  # never from its start: 2 MB before its end
