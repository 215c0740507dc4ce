"""A sub-agent that starts after `follow` began is marked and named as `show` marks and
names it, as one its history held is: a Claude Code lead's reviewer spawns a linter
while followed, and the linter's lines say the reviewer told it, not the lead; a Gemini
CLI sub-agent, read before the spawn stamped after it, is marked by its type."""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from sessdex import api
from sessdex.cli import main
from sessdex.model import Event
from sessdex.sources import Home
from tests.conftest import DATA

LEAD = "33333333-3333-4333-8333-333333333333"
SHOP = DATA / "claude" / "home" / ".claude" / "projects" / "-home-dev-shop"
GEMINI = DATA / "gemini" / "home" / ".gemini" / "tmp" / "shop-api" / "chats"
GEMINI_LEAD = "b44832f3-f4fa-4a19-8699-656bec90e64d"
GEMINI_CHAT = "session-2026-11-30T08-11-b44832f3.jsonl"
STEP = 1.2  # between two writes: several of follow's polls
LONGEST = 60  # seconds a follow may run: it stops once what it waits for was drawn


def _body(output: str) -> list[str]:
    lines = output.splitlines()
    return lines[lines.index("") + 1 :]


def _key(event: Event) -> tuple[object, ...]:
    return (event.time, event.kind, event.agent_id, event.call_id)


def _follow(
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    home: Path,
    writer: threading.Thread,
) -> Result:
    """`follow` run until the writer is done and every sub-agent event and the last
    event `show` gives of the session (as the fixture holds it) were drawn, or
    LONGEST seconds: each batch is drawn before the follow next waits, and asks `stop`."""
    events = list(api.transcript(Home.at(home), argv[1]).events)
    awaited = {_key(e) for e in events if e.agent_id} | {_key(events[-1])}
    drawn: set[tuple[object, ...]] = set()
    follow_session = api.follow_session

    def follow(*args: Any, **kwargs: Any) -> tuple[Any, Iterator[list[Event]]]:
        asked = kwargs["stop"]
        kwargs["stop"] = lambda: asked() or (not writer.is_alive() and awaited <= drawn)
        session, batches = follow_session(*args, **kwargs)

        def noted() -> Iterator[list[Event]]:
            for batch in batches:
                drawn.update(_key(event) for event in batch)
                yield batch

        return session, noted()

    monkeypatch.setattr(api, "follow_session", follow)
    writer.start()
    started = time.monotonic()
    followed = CliRunner().invoke(main, [*argv, "--duration", str(LONGEST)])
    writer.join()
    assert time.monotonic() - started < LONGEST, "what it waited for was never drawn"
    return followed


def test_a_sub_agent_started_while_followed_is_named_as_show_names_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "home" / ".claude" / "projects" / "-home-dev-shop"
    folder.mkdir(parents=True)
    lines = (SHOP / f"{LEAD}.jsonl").read_text().splitlines(keepends=True)
    lead = folder / f"{LEAD}.jsonl"
    lead.write_text("".join(lines[:4]))  # the prompt: no sub-agent yet
    agents = folder / LEAD / "subagents"

    def grow() -> None:
        # as Claude Code writes them: the reviewer's spawn, its file (which spawns the
        # linter), the linter's file, then the lead's result and answer
        time.sleep(STEP)
        with lead.open("a") as file:
            file.write(lines[4])
        time.sleep(STEP)
        agents.mkdir(parents=True)
        for name in (
            "agent-a1c1c1c1c1c1c1c1c.meta.json",
            "agent-a1c1c1c1c1c1c1c1c.jsonl",
        ):
            shutil.copy(SHOP / LEAD / "subagents" / name, agents / name)
        time.sleep(STEP)
        for name in (
            "agent-a2d2d2d2d2d2d2d2d.meta.json",
            "agent-a2d2d2d2d2d2d2d2d.jsonl",
        ):
            shutil.copy(SHOP / LEAD / "subagents" / name, agents / name)
        time.sleep(STEP)
        with lead.open("a") as file:
            file.write("".join(lines[5:]))

    home = str(tmp_path / "home")
    writer = threading.Thread(target=grow)
    argv = ["follow", LEAD, "-n", "20", "--home", home]
    followed = _follow(monkeypatch, argv, DATA / "claude" / "home", writer)
    assert followed.exit_code == 0, followed.output
    shown = CliRunner().invoke(main, ["show", LEAD, "--home", home])
    assert shown.exit_code == 0, shown.output

    def linter(output: list[str]) -> list[str]:
        return [line for line in output if line.startswith("  ↳ linter ")]

    assert linter(_body(shown.stdout))  # the linter's lines, its spawner named
    assert linter(followed.stdout.splitlines()) == linter(_body(shown.stdout))


def test_a_gemini_sub_agent_started_while_followed_is_marked_by_its_type(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chats = tmp_path / "home" / ".gemini" / "tmp" / "shop-api" / "chats"
    chats.mkdir(parents=True)
    lines = (GEMINI / GEMINI_CHAT).read_text().splitlines(keepends=True)
    lead = chats / GEMINI_CHAT
    lead.write_text("".join(lines[:4]))  # the prompt: no sub-agent yet

    def grow() -> None:
        # the sub-agent's file, then the lead's call: its spawn stamped after the child
        time.sleep(2 * STEP)
        shutil.copytree(GEMINI / GEMINI_LEAD, chats / GEMINI_LEAD)
        with lead.open("a") as file:
            file.write("".join(lines[4:]))

    home = str(tmp_path / "home")
    writer = threading.Thread(target=grow)
    argv = ["follow", GEMINI_LEAD, "-n", "20", "--home", home]
    followed = _follow(monkeypatch, argv, DATA / "gemini" / "home", writer)
    assert followed.exit_code == 0, followed.output
    shown = CliRunner().invoke(main, ["show", GEMINI_LEAD, "--home", home])
    assert shown.exit_code == 0, shown.output

    def marked(output: list[str]) -> list[str]:
        return sorted(line for line in output if line.startswith("  ↳ "))

    assert marked(_body(shown.stdout))[0].startswith("  ↳ generalist ")
    assert marked(followed.stdout.splitlines()) == marked(_body(shown.stdout))
