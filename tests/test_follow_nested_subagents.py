"""`sessdex follow` of a sub-agent tells it as `show` does: its task came from the agent
that started it (the lead, or the sub-agent that spawned it), not typed by a person, and
it is no sub-agent of itself; a sub-agent it started itself shows with its own events."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

HOME = str(Path(__file__).parent / "data" / "claude" / "home")


def _body(run: CliRunner, words: list[str]) -> list[str]:
    result = run.invoke(main, [*words, "--home", HOME])
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()


@pytest.mark.parametrize(
    "session",
    [
        "a2d2d2d2",  # spawned by the sub-agent a1c1c1c1 (a code-reviewer)
        "a1c1c1c1",  # spawned by the lead; spawns a2d2d2d2 itself
    ],
)
def test_follow_tells_a_sub_agent_as_show_does(run: CliRunner, session: str) -> None:
    shown = _body(run, ["show", session])
    followed = _body(run, ["follow", session, "-n", "1000", "--duration", "0"])
    # `show` opens with the session's title, its id, its folder, and a blank line
    start = shown.index("") + 1
    assert followed == shown[start:]
    assert not any(line.startswith("> ") for line in followed)


def test_follow_nl_names_who_gave_a_nested_sub_agent_its_task(run: CliRunner) -> None:
    lines = _body(run, ["follow", "a2d2d2d2", "-n", "1000", "--duration", "0", "--nl"])
    events = [json.loads(line) for line in lines]
    assert events[0]["kind"] == "user"
    assert events[0]["extra"]["from_agent"] == "code-reviewer"
    assert not [e for e in events if e["kind"] == "subagent"]


def test_a_sub_agent_its_followed_sub_agent_starts_later_is_told_by_it(
    tmp_path: Path,
) -> None:
    """Following the code-reviewer live: the linter it spawns gets its file (and its meta
    file naming the code-reviewer) only later; its events then follow, its task given by
    the code-reviewer, and the code-reviewer's own task still by the lead."""
    import shutil
    import time

    from sessdex import api
    from sessdex.live import LiveSession
    from sessdex.sources import Home

    home = tmp_path / "home"
    shutil.copytree(HOME, home, symlinks=True)
    subagents = next(home.rglob("agent-a2d2d2d2d2d2d2d2d.jsonl")).parent
    aside = tmp_path / "aside"
    aside.mkdir()
    for name in ("agent-a2d2d2d2d2d2d2d2d.jsonl", "agent-a2d2d2d2d2d2d2d2d.meta.json"):
        (subagents / name).rename(aside / name)
    session = api.resolve(Home.at(home), "a1c1c1c1")
    live = LiveSession(session)
    first = live.poll()
    assert [e.extra.get("from_agent") for e in first if e.kind == "user"] == [
        "the lead"
    ]
    for name in ("agent-a2d2d2d2d2d2d2d2d.meta.json", "agent-a2d2d2d2d2d2d2d2d.jsonl"):
        shutil.copy(aside / name, subagents / name)
    later = live.poll(time.time() + 5)
    told = [(e.agent_id, e.extra.get("from_agent")) for e in later if e.kind == "user"]
    assert told == [("a2d2d2d2d2d2d2d2d", "code-reviewer")]
