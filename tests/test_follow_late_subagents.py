"""A sub-agent that starts after `follow` began is marked and named as `show` marks and
names it, as one its history held is: a Claude Code lead's reviewer spawns a linter
while followed, and the linter's lines say the reviewer told it, not the lead."""

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
