"""A sub-agent's lines are marked with its type, and, where a sibling has that type too,
the start of its id that `show` takes (`views.text.agent_name`), past a copy of its type
the id starts with: an app that builds the id from the type (`general-purpose-call_8f2b…`)
gave every such sibling the same first 8 characters (`general-purpose general-`)."""

from __future__ import annotations

import pytest

from sessdex.model import Event, Session


def _events(children: list[str], kind: str) -> list[Event]:
    events = [
        Event("s", n, "subagent", text=f"task {n}", call_id=f"c{n}",
              extra={"child_id": child, "agent_type": kind})
        for n, child in enumerate(children)
    ]  # fmt: skip
    for n, child in enumerate(children):
        events.append(Event("s", len(events), "assistant", text=f"said {n}", agent_id=child))  # fmt: skip
    return events


CASES = [
    # Qwen Code: `<type>-<call id>`: the id's start holds the type
    (
        "general-purpose",
        ["general-purpose-call_8f2b1c9d0e", "general-purpose-call_a41c7e2b55"],
        ["general-purpose-call_8f2", "general-purpose-call_a41"],
    ),
    # gptme: `subagent-<agent id>-<4 random>`
    (
        "subagent",
        ["subagent-greeter-be5v", "subagent-linter-x2k9"],
        ["subagent-greeter-", "subagent-linter-x"],
    ),
    # Crush: `<message id>$$<call id>`, two calls of one message: the second's id
    # said as far as it tells it from the first's, which `show` opens alone (quoted:
    # bare, bash read its `$$` as its process id)
    (
        "agent",
        [
            "0199a3b2-7c1d-7e5f-8a9b-0c1d2e3f4a5b$$toolu_01AbCdEf",
            "0199a3b2-7c1d-7e5f-8a9b-0c1d2e3f4a5b$$toolu_01XyZwVu",
        ],
        ["agent 0199a3b2", "agent '0199a3b2-7c1d-7e5f-8a9b-0c1d2e3f4a5b$$toolu_01X'"],
    ),
]


@pytest.mark.parametrize(("kind", "children", "marks"), CASES)
def test_siblings_of_one_type_are_marked_by_a_start_of_their_ids_show_takes(
    kind: str, children: list[str], marks: list[str]
) -> None:
    from sessdex.views.terminal import render_events

    lines = [
        "".join(text for text, _ in line.pieces)
        for line in render_events(_events(children, kind))
    ]
    assert f"  ↳ {kind} said 0" in lines, lines  # the first alone: its type
    assert f"  ↳ [{marks[1]}] said 1" in lines, lines
    assert f"Spawned sub-agent {marks[0]} — task 0" in lines, lines  # its id said


@pytest.mark.parametrize(("kind", "children", "marks"), CASES)
def test_the_markdown_export_names_each_sibling_by_a_start_of_its_id(
    kind: str, children: list[str], marks: list[str]
) -> None:
    from sessdex.views.markdown import render

    session = Session(app="qwen", id="s", path="/x")
    page = "".join(render(session, _events(children, kind)))
    for n, mark in enumerate(marks):
        assert f"**Assistant (sub-agent {mark}):** said {n}" in page, page


def _marks(events: list[Event]) -> dict[int, str]:
    """Each sub-agent's mark, as its `said n` line shows it."""
    from sessdex.views.terminal import render_events

    found = {}
    for line in render_events(events):
        text = "".join(piece for piece, _ in line.pieces)
        head, _, said = text.removeprefix("  ↳ ").rpartition(" said ")
        if text.startswith("  ↳ ") and said.isdigit():
            found[int(said)] = head
    return found


def _apart(marks: dict[int, str]) -> None:
    for n, mark in marks.items():
        for other, theirs in marks.items():
            assert other == n or not theirs.startswith(mark), marks


@pytest.mark.parametrize(("kind", "children", "marks"), CASES)
def test_no_siblings_mark_starts_another(
    kind: str, children: list[str], marks: list[str]
) -> None:
    """`subagent` beside `subagent linter-x`: a reader could take the second's lines
    for the first's, saying `linter-x …`; the second is put in brackets."""
    _apart(_marks(_events(children, kind)))


def test_no_mark_of_ids_that_start_alike_starts_another() -> None:
    """Untyped sub-agents are marked by their ids' starts: one whose start is another's
    whole mark (`a1b2c3d4` then `a1b2c3d4e`) is put in brackets."""
    children = ["a1b2c3d4", "a1b2c3d4e5f6", "a1b2c3d4e5f7"]
    events = [
        Event("s", n, "subagent", text=f"task {n}", call_id=f"c{n}",
              extra={"child_id": child})
        for n, child in enumerate(children)
    ]  # fmt: skip
    events += [
        Event("s", 9 + n, "assistant", text=f"said {n}", agent_id=child)
        for n, child in enumerate(children)
    ]
    marks = _marks(events)
    assert marks[0] == "a1b2c3d4" and len(set(marks.values())) == 3
    _apart(marks)


def test_no_mark_of_a_type_that_starts_another_type_starts_it() -> None:
    """Two types, one the other's first word (`code`, `code reviewer`)."""
    events = [
        Event("s", n, "subagent", text=f"task {n}", call_id=f"c{n}",
              extra={"child_id": f"child-{n}", "agent_type": kind})
        for n, kind in enumerate(["code", "code reviewer", "code"])
    ]  # fmt: skip
    events += [
        Event("s", 9 + n, "assistant", text=f"said {n}", agent_id=f"child-{n}")
        for n in range(3)
    ]
    marks = _marks(events)
    assert marks[0] == "code" and len(set(marks.values())) == 3
    _apart(marks)
