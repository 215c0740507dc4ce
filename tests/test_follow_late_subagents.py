"""A sub-agent that starts after `follow` began is marked and named as `show` marks and
names it, as one its history held is: a Claude Code lead's reviewer spawns a linter
while followed, and the linter's lines say the reviewer told it, not the lead; a Gemini
CLI sub-agent, read before the spawn stamped after it, is marked by its type."""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from tests.conftest import DATA

LEAD = "33333333-3333-4333-8333-333333333333"
SHOP = DATA / "claude" / "home" / ".claude" / "projects" / "-home-dev-shop"
GEMINI = DATA / "gemini" / "home" / ".gemini" / "tmp" / "shop-api" / "chats"
GEMINI_LEAD = "b44832f3-f4fa-4a19-8699-656bec90e64d"
GEMINI_CHAT = "session-2026-11-30T08-11-b44832f3.jsonl"
STEP = 1.2  # between two writes: several of follow's polls


def _body(output: str) -> list[str]:
    lines = output.splitlines()
    return lines[lines.index("") + 1 :]


def test_a_sub_agent_started_while_followed_is_named_as_show_names_it(
    tmp_path: Path,
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
    writer.start()
    argv = ["follow", LEAD, "-n", "20", "--duration", str(6 * STEP), "--home", home]
    followed = CliRunner().invoke(main, argv)
    writer.join()
    assert followed.exit_code == 0, followed.output
    shown = CliRunner().invoke(main, ["show", LEAD, "--home", home])
    assert shown.exit_code == 0, shown.output

    def linter(output: list[str]) -> list[str]:
        return [line for line in output if line.startswith("  ↳ linter ")]

    assert linter(_body(shown.stdout))  # the linter's lines, its spawner named
    assert linter(followed.stdout.splitlines()) == linter(_body(shown.stdout))


def test_a_gemini_sub_agent_started_while_followed_is_marked_by_its_type(
    tmp_path: Path,
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
    writer.start()
    argv = ["follow", GEMINI_LEAD, "-n", "20", "--duration", str(5 * STEP)]
    followed = CliRunner().invoke(main, [*argv, "--home", home])
    writer.join()
    assert followed.exit_code == 0, followed.output
    shown = CliRunner().invoke(main, ["show", GEMINI_LEAD, "--home", home])
    assert shown.exit_code == 0, shown.output

    def marked(output: list[str]) -> list[str]:
        return sorted(line for line in output if line.startswith("  ↳ "))

    assert marked(_body(shown.stdout))[0].startswith("  ↳ generalist ")
    assert marked(followed.stdout.splitlines()) == marked(_body(shown.stdout))
