"""Sub-agents shown under their spawn (`show --subagents tree`, `export` to md and html):
each spawn is followed by its sub-agent's work and then by the result its call got back,
also where the lead spawned several at once and got their results after all had worked."""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from tests.helpers import claude_line

SESSION = "31313131-0000-4000-8000-000000000001"
CWD = "/home/alex/code/shop-api"
REPLIES = {"aaaa1111": "Module A is fine.", "bbbb2222": "Module B has a bug."}


def _at(second: float) -> str:
    return f"2026-11-20T10:00:{second:06.3f}Z"


def _parallel_spawns(home: Path) -> None:
    """A lead that spawns two reviewers in one reply; both work, then both results come."""
    folder = home / ".claude/projects" / CWD.replace("/", "-")
    children = folder / SESSION / "subagents"
    children.mkdir(parents=True)

    def line(uuid: str, parent: str | None, second: float, **fields: object) -> str:
        record = claude_line(SESSION, CWD, uuid=uuid, parentUuid=parent,
                             timestamp=_at(second), **fields)  # fmt: skip
        return json.dumps(record) + "\n"

    calls = [
        {"type": "tool_use", "id": f"toolu_{n}", "name": "Agent",
         "input": {"subagent_type": "reviewer", "description": f"Review {name}",
                   "prompt": f"Review module {name}."}}
        for n, name in ((1, "A"), (2, "B"))
    ]  # fmt: skip
    lead = [
        line("u1", None, 0, type="user",
             message={"role": "user", "content": "Review modules A and B"}),
        line("a1", "u1", 1, type="assistant", requestId="r1",
             message={"id": "m1", "role": "assistant", "stop_reason": "tool_use",
                      "content": [{"type": "text", "text": "Spawning two reviewers."}, *calls]}),
        line("u2", "a1", 8, type="user",
             message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                                                   "content": REPLIES["aaaa1111"]}]}),
        line("u3", "u2", 8.5, type="user",
             message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_2",
                                                   "content": REPLIES["bbbb2222"]}]}),
        line("a2", "u3", 9, type="assistant", requestId="r2",
             message={"id": "m2", "role": "assistant", "stop_reason": "end_turn",
                      "content": [{"type": "text", "text": "Both reviews are in."}]}),
    ]  # fmt: skip
    (folder / f"{SESSION}.jsonl").write_text("".join(lead))
    for n, (agent, reply) in enumerate(REPLIES.items(), start=1):
        name = "AB"[n - 1]
        lines = [
            line(f"c{n}u", None, 2 + n, type="user", isSidechain=True, agentId=agent,
                 message={"role": "user", "content": f"Review module {name}."}),
            line(f"c{n}a", f"c{n}u", 4 + n, type="assistant", isSidechain=True,
                 agentId=agent, requestId=f"cr{n}",
                 message={"id": f"cm{n}", "role": "assistant", "stop_reason": "end_turn",
                          "content": [{"type": "text", "text": reply}]}),
        ]  # fmt: skip
        (children / f"agent-{agent}.jsonl").write_text("".join(lines))
        (children / f"agent-{agent}.meta.json").write_text(
            json.dumps(
                {
                    "agentType": "reviewer",
                    "description": f"Review {name}",
                    "toolUseId": f"toolu_{n}",
                }
            )
        )


def _out(home: Path, *args: str) -> str:
    result = CliRunner().invoke(
        main, [*args, "3131", "--home", str(home)], catch_exceptions=False
    )
    assert result.exit_code == 0, result.stderr
    return result.stdout


def _in_order(text: str, *parts: str) -> None:
    at = -1
    for part in parts:
        found = text.find(part, at + 1)
        assert found > at, f"{part!r} not after the part before it in:\n{text}"
        at = found


def test_each_spawn_reads_spawn_then_work_then_its_result(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _parallel_spawns(home)
    shown = _out(home, "show", "--no-pager", "--subagents", "tree")
    _in_order(
        shown,
        "— Review A",
        "  ↳ reviewer Module A is fine.",
        "  ⎿ Module A is fine.",
        "— Review B",
        " Module B has a bug.",
        "  ⎿ Module B has a bug.",
        "Both reviews are in.",
    )
    page = _out(home, "export", "-f", "html")
    blocks = [m.start() for m in re.finditer('<details class="sub"', page)]
    results = [page.index(f" — {reply}</summary>") for reply in REPLIES.values()]
    assert len(blocks) == 2
    assert blocks[0] < results[0] < blocks[1] < results[1]
    markdown = _out(home, "export", "-f", "md")
    _in_order(
        markdown,
        "sub-agent **reviewer aaaa1111**: Review A",
        "Module A is fine.",
        "result",
        "sub-agent **reviewer bbbb2222**: Review B",
        "Module B has a bug.",
        "result",
        "Both reviews are in.",
    )
    # nothing left out: each result still there, once
    for reply in REPLIES.values():
        assert shown.count(f"⎿ {reply}") == 1
        assert page.count(f" — {reply}</summary>") == 1


def test_markdown_names_a_spawns_result_and_does_not_repeat_the_last_reply(
    tmp_path: Path,
) -> None:
    """In Markdown a spawn's result, met after the sub-agent's block, says whose it is;
    where it is the sub-agent's last reply word for word it points there instead of
    writing it out again; where it says more, it is written out whole."""
    home = tmp_path / "home"
    _parallel_spawns(home)
    [lead] = home.rglob(f"{SESSION}.jsonl")
    records = [json.loads(line) for line in lead.read_text().splitlines()]
    extended = "Module B has a bug.\n\nagentId: bbbb2222 (use SendMessage to continue)"
    records[2 + 1]["message"]["content"][0]["content"] = extended
    lead.write_text("".join(json.dumps(r) + "\n" for r in records))
    markdown = _out(home, "export", "-f", "md")
    assert markdown.count("Module A is fine.") == 1, markdown
    _in_order(
        markdown,
        "**Assistant (sub-agent reviewer aaaa1111):** Module A is fine.",
        "result of sub-agent reviewer aaaa1111: its last reply, above.",
        "**Assistant (sub-agent reviewer bbbb2222):** Module B has a bug.",
        "result of sub-agent reviewer bbbb2222:\n",
        "agentId: bbbb2222 (use SendMessage to continue)",
        "**Assistant:** Both reviews are in.",
    )
    # with the sub-agents left out, the results are all there is of them: written out
    alone = _out(home, "export", "-f", "md", "--subagents", "none")
    assert alone.count("Module A is fine.") == 1
    assert "its last reply" not in alone


def test_html_names_the_sub_agent_a_spawns_result_came_from(tmp_path: Path) -> None:
    """Folded after the sub-agent's block, a spawn's result says whose it is, as the
    Markdown export does; a sub-agent's own tool results do not."""
    home = tmp_path / "home"
    _parallel_spawns(home)
    page = _out(home, "export", "-f", "html")
    summaries = re.findall(r"<summary>(result[^<]*)</summary>", page)
    assert summaries == [
        "result of sub-agent reviewer aaaa1111 — Module A is fine.",
        "result of sub-agent reviewer bbbb2222 — Module B has a bug.",
    ]
    nested = CliRunner().invoke(
        main,
        ["export", "33333333", "-f", "html", "--home",
         str(Path(__file__).parent / "data" / "claude" / "home")],
    ).stdout  # fmt: skip
    assert re.findall(r"<summary>(result[^<]*)</summary>", nested) == [
        "result — payments.py:3:89: E501 line too long",  # the linter's own Bash call
        "result of sub-agent linter a2d2d2d2 — E501 only.",
        "result of sub-agent code-reviewer a1c1c1c1 — One bug: rounding in refund().",
    ]
