"""`tree` shows the sub-agents the index lists under a lead whose spawn its transcript
leaves out (a Claude Code sub-agent spawned on a branch a rewind abandoned), marked so:
`list --all` shows it under the lead, and `tree` said the lead had none."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import BinaryIO

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from tests.sources.test_claude import prompt, reply, write


def rewound_home(home: Path) -> Path:
    """A lead whose first turn spawned sub-agent a1 (its meta file linking it to the
    call, as Claude Code 2.1 writes it) and was then edited away: the rewind abandons
    the spawn's branch, the sub-agent's file stays."""
    folder = home / ".claude" / "projects" / "-home-dev-app"
    call = {"type": "tool_use", "id": "toolu_1", "name": "Agent",
            "input": {"description": "look around", "prompt": "Look around.",
                      "subagent_type": "Explore"}}  # fmt: skip
    spawn = reply(2, "")
    spawn["message"]["content"] = [call]  # type: ignore[index]
    result = [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "found"}]
    lead = write(
        folder / "s.jsonl",
        [
            prompt(1, "Wrong question"),
            spawn,
            prompt(3, result, parentUuid="u2"),
            reply(4, "An answer to the wrong question."),
            prompt(5, "Right question", parentUuid=None),  # the first prompt edited
            reply(6, "The right answer.", parentUuid="u5"),
        ],
    )
    agents = lead.with_suffix("") / "subagents"
    asked = prompt(2, "Look around.", isSidechain=True, agentId="a1")
    done = reply(3, "looked", agentId="a1", isSidechain=True)
    write(agents / "agent-a1.jsonl", [asked, done])
    (agents / "agent-a1.meta.json").write_text(
        json.dumps(
            {
                "agentType": "Explore",
                "description": "look around",
                "toolUseId": "toolu_1",
            }
        )
    )
    return home


def out(*args: str) -> str:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_a_sub_agent_spawned_on_a_rewound_branch_is_in_the_tree(tmp_path: Path) -> None:
    home = str(rewound_home(tmp_path / "home"))
    assert "↳ Explore: look around" in out("list", "--all", "--home", home)
    assert "with 1 sub-agent spawns" in out("show", "s", "--home", home)
    shown = out("tree", "s", "--home", home)
    assert "Explore (its spawn is not in this transcript) [done] look around" in shown
    assert "a1 · 1 in, 2 out" in shown  # read from its own transcript
    tree = json.loads(out("tree", "s", "--json", "--home", home))
    assert tree["unplaced"] is False
    [child] = tree["children"]
    assert (child["id"], child["unplaced"], child["status"]) == ("a1", True, "done")
    assert child["agent_type"] == "Explore"
    lines = [json.loads(line) for line in out("tree", "s", "--nl", "--home", home).splitlines()]  # fmt: skip
    assert [(r["id"], r["parent_id"], r["unplaced"]) for r in lines] == [
        ("s", None, False),
        ("a1", "s", True),
    ]


def test_a_sub_agent_the_transcript_places_is_not_marked(tmp_path: Path) -> None:
    """The same lead without the rewind: its spawn places a1, once, unmarked."""
    home = rewound_home(tmp_path / "home")
    [lead] = home.rglob("s.jsonl")
    kept = lead.read_text().splitlines()[:4]
    lead.write_text("\n".join(kept) + "\n")
    tree = json.loads(out("tree", "s", "--json", "--home", str(home)))
    assert [(c["id"], c["unplaced"]) for c in tree["children"]] == [("a1", False)]


def test_many_sub_agents_on_a_rewound_branch_are_each_read_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each sub-agent the tree reads on its own looked at every sibling's meta file and
    first lines for its own children: a lead with 1,600 of them (a long swarm) took
    minutes, the files opened growing as their count squared."""
    from sessdex import files

    home = rewound_home(tmp_path / "home")
    agents = next(home.rglob("subagents"))
    asked, meta = (agents / "agent-a1.jsonl").read_bytes(), (agents / "agent-a1.meta.json").read_bytes()  # fmt: skip
    many = 60
    for n in range(2, many + 1):
        (agents / f"agent-a{n}.jsonl").write_bytes(asked.replace(b'"a1"', f'"a{n}"'.encode()))  # fmt: skip
        (agents / f"agent-a{n}.meta.json").write_bytes(meta.replace(b"toolu_1", f"toolu_{n}".encode()))  # fmt: skip
    out("list", "--all", "--home", str(home))  # the index lists them under the lead
    opened = files.open_regular
    inside: list[str] = []

    def counted(name: str | os.PathLike[str], buffering: int = -1) -> BinaryIO:
        if "subagents" in os.fspath(name):
            inside.append(os.fspath(name))
        return opened(name, buffering)

    monkeypatch.setattr(files, "open_regular", counted)
    tree = json.loads(out("tree", "s", "--json", "--home", str(home)))
    assert len(tree["children"]) == many
    assert {c["status"] for c in tree["children"]} == {"done"}
    assert len(inside) < 8 * many * 2, f"{len(inside)} opens of {many * 2} files"
