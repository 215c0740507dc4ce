"""`sessdex show` as a daily user reads it: the end of a long session, in each detail."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from tests.helpers import claude_line

SESSION = "31313131-0000-4000-8000-000000000001"


def _invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def _long_session(home: Path, cwd: str, tool_rounds: int) -> None:
    """Over the tail's first window (a few hundred kB of replies), then a last prompt,
    its answer, and `tool_rounds` tool calls with their results after them."""
    path = home / ".claude" / "projects" / cwd.replace("/", "-") / f"{SESSION}.jsonl"
    path.parent.mkdir(parents=True)
    lines: list[dict[str, object]] = []

    def add(kind: str, message: dict[str, object]) -> None:
        n = len(lines)
        lines.append(
            claude_line(
                SESSION, cwd, type=kind, uuid=f"x{n}", parentUuid=None,
                timestamp=f"2026-11-30T10:{n // 60 % 60:02d}:{n % 60:02d}.000Z",
                message=message,
            )
        )  # fmt: skip

    def reply(content: list[dict[str, object]]) -> None:
        add(
            "assistant",
            {"id": f"m{len(lines)}", "role": "assistant", "model": "claude-opus-4-8",
             "content": content, "usage": {"input_tokens": 1, "output_tokens": 1}},
        )  # fmt: skip

    add("user", {"role": "user", "content": "first prompt"})
    for _ in range(400):
        reply([{"type": "text", "text": "padding " * 100}])
    add("user", {"role": "user", "content": "LAST PROMPT please fix it"})
    reply([{"type": "text", "text": "I will look at every file"}])
    for n in range(tool_rounds):
        reply([{"type": "tool_use", "id": f"t{n}", "name": "Read",
                "input": {"file_path": f"{cwd}/f{n}.py"}}])  # fmt: skip
        add(
            "user",
            {"role": "user",
             "content": [{"type": "tool_result", "tool_use_id": f"t{n}", "content": "x"}]},
        )  # fmt: skip
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def test_show_tail_in_user_detail_finds_the_last_prompt_behind_many_tool_calls(
    tmp_path: Path,
) -> None:
    """`--tail 2 --detail user` shows the last two things typed or said, however many
    tool calls (which that detail hides) came after them: it showed nothing."""
    home = tmp_path / "home"
    _long_session(home, "/home/u/p", tool_rounds=60)
    code, out, err = _invoke(
        "show", "3131", "--tail", "2", "--detail", "user", "--no-pager",
        "--home", str(home),
    )  # fmt: skip
    assert code == 0, err
    body = out.split("\n\n", 1)[1]  # after the header
    assert body.splitlines() == [
        "> LAST PROMPT please fix it",
        "I will look at every file",
    ]


def test_show_tail_in_normal_detail_counts_lines_shown(tmp_path: Path) -> None:
    """In the normal detail, `--tail 5` is the last five lines a full `show` ends with."""
    home = tmp_path / "home"
    _long_session(home, "/home/u/p", tool_rounds=60)
    code, whole, err = _invoke("show", "3131", "--no-pager", "--home", str(home))
    assert code == 0, err
    code, out, err = _invoke(
        "show", "3131", "--tail", "5", "--no-pager", "--home", str(home)
    )
    assert code == 0, err
    assert out.split("\n\n", 1)[1].splitlines() == whole.splitlines()[-5:]


def test_sub_agents_of_one_type_at_work_together_are_told_apart() -> None:
    """Three `general-purpose` sub-agents spawned at once write interleaved lines: each
    line says which one it is (the start of its id after the first, in brackets: the
    first's plain type starts it), not three alike `↳ general-purpose`; a lone
    sub-agent keeps its plain type."""
    from sessdex.model import Event
    from sessdex.views.terminal import render_events

    children = ["60dade70-aaaa", "f4546a51-bbbb", "9c0ffee1-cccc"]
    events = [
        Event("s", n, "subagent", text=f"task {n}", call_id=f"c{n}",
              extra={"child_id": child, "agent_type": "general-purpose"})
        for n, child in enumerate(children)
    ]  # fmt: skip
    for round_ in range(2):
        for n, child in enumerate(children):
            said = f"agent {n} step {round_}"
            events.append(
                Event("s", len(events), "assistant", text=said, agent_id=child)
            )
    events.append(
        Event("s", len(events), "subagent", text="alone", call_id="c9",
              extra={"child_id": "77777777-dddd", "agent_type": "Explore"})
    )  # fmt: skip
    events.append(
        Event("s", len(events), "assistant", text="x", agent_id="77777777-dddd")
    )
    lines = ["".join(text for text, _ in line.pieces) for line in render_events(events)]
    marks = {line[: line.index(" agent ")] for line in lines if " step " in line}
    assert len(marks) == 3, lines  # one mark per agent
    assert "  ↳ general-purpose agent 0 step 1" in lines
    assert "  ↳ [general-purpose f4546a51] agent 1 step 1" in lines
    assert "  ↳ [general-purpose 9c0ffee1] agent 2 step 0" in lines
    assert "  ↳ Explore x" in lines
    # each spawn says the mark its lines will carry, with the start of its id
    assert lines[:4] == [
        "Spawned sub-agent general-purpose 60dade70 — task 0",
        "Spawned sub-agent [general-purpose f4546a51] — task 1",
        "Spawned sub-agent [general-purpose 9c0ffee1] — task 2",
        "  ↳ general-purpose agent 0 step 0",
    ]
    assert "Spawned sub-agent Explore 77777777 — alone" in lines


def test_tree_gives_a_session_resumed_over_weeks_its_length_in_days(
    tmp_path: Path,
) -> None:
    """A session taken up again weeks later lasted days, said in days: `tree` said
    `504.0h`; a day and a half stays in hours."""
    from tests.helpers import write_claude_session

    home = tmp_path / "home"
    path = write_claude_session(home, SESSION, "/home/u/p")
    for n, when in enumerate(("2026-11-21T22:00:00.000Z", "2026-12-11T10:00:00.000Z")):
        later = claude_line(
            SESSION, "/home/u/p", type="user", uuid=f"u{n + 5}", parentUuid="a1",
            timestamp=when, message={"role": "user", "content": f"again {n}"},
        )  # fmt: skip
        with path.open("a") as out:
            out.write(json.dumps(later) + "\n")
        code, out_text, err = _invoke("tree", "3131", "--home", str(home))
        assert code == 0, err
        assert out_text.rstrip().endswith(("· 36.0h", "· 21.0d")[n]), out_text


def test_tree_into_a_pipe_keeps_each_agent_on_its_own_lines() -> None:
    """Piped (`tree | grep`, `> file`), an agent's line is whole, as `list` keeps its
    lines: it was wrapped at 80 columns, its duration alone on the next line."""
    home = Path(__file__).parent / "data" / "claude" / "home"
    code, out, err = _invoke("tree", "fe5e1c67", "--home", str(home))
    assert code == 0, err
    lines = out.splitlines()
    child = "6690d10e-f521-4ac0-800d-e5eb7a2d8072 · "
    found = [line for line in lines if child in line]
    assert len(found) == 1 and found[0].endswith(" · 8 tool calls · 46s"), lines
    assert all(
        line.startswith(("lead", "├", "│", "└", " ", "fe5e1c67")) for line in lines
    )


def test_an_empty_session_file_given_for_an_id_is_said_to_be_empty(
    tmp_path: Path,
) -> None:
    """An app's file made before its first line, pasted where the id goes: the error
    says it is empty, not 'give the id sessdex list shows' (list shows none for it)."""
    from tests.helpers import write_claude_session

    home = tmp_path / "home"
    kept = write_claude_session(home, SESSION, "/home/u/p")
    empty = kept.parent / "51515151-0000-4000-8000-000000000001.jsonl"
    empty.touch()
    for command in ("show", "tree", "export"):
        code, out, err = _invoke(command, str(empty), "--home", str(home))
        assert (code, out) == (1, ""), command
        assert "that file is empty: its app has written no session into it yet" in err
        assert "sessdex list" not in err
