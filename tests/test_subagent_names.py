"""Every command names a sub-agent by one rule (`views.text.agent_name`): its type, and
the start of its id that `list --all` prints, which `show`, `tree` and `resume` take.
`show` named a sub-agent by its type alone, or by a part of its id no command takes
(`call_a41` of Qwen's `general-purpose-call_a41…`), and so did `export`; so a user
reading a transcript could not open the sub-agent it spoke of. Marks are each their
own in a session, however alike the ids."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from html import unescape
from pathlib import Path

import pytest

from sessdex.model import Event, Session
from tests.conftest import app_home

QWEN_LEAD = "7b3c1f0e-5a2d-4c8b-9e6f-1a2b3c4d5e6f"
QWEN_CHILDREN = {
    "general-purpose-call_8f2b1c9d0e": "Greeting check",
    "general-purpose-call_a41c7e2b55": "Second check",
}
CLAUDE_LEAD = "82d9f90c"
CLAUDE_CHILDREN = {"a199d630441234c05": "Greeting sub-agent"}


def _sessdex(*args: str, state: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "sessdex", *args],
        env={**os.environ, "SESSDEX_HOME": str(state), "COLUMNS": "200"},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return done.stdout


def _qwen_home(tmp_path: Path) -> Path:
    """The Qwen Code sub-agent fixture with a second general-purpose sub-agent."""
    home = tmp_path / "home"
    shutil.copytree(app_home("qwen").parent / "subagents" / "home", home)
    folder = home / ".qwen" / "projects" / "-home-alex-code-shop-api" / "subagents"
    folder = folder / QWEN_LEAD
    for path in list(folder.iterdir()):
        text = path.read_text().replace("call_8f2b1c9d0e", "call_a41c7e2b55")
        text = text.replace("Greeting check", "Second check")
        (folder / path.name.replace("call_8f2b1c9d0e", "call_a41c7e2b55")).write_text(
            text
        )
    return home


def _id_in(line: str, child: str) -> str:
    """The longest word of `line` (out of its brackets) that starts `child`'s id, as
    a user would copy it: 8 characters or more (its type may start it too), out of the
    quotes the shell takes off (`'…$$toolu_01X'`)."""
    words = [word.strip("[]()*:'") for word in unescape(line).split()]
    found = [word for word in words if len(word) >= 8 and child.startswith(word)]
    assert found, (child, line)
    return max(found, key=len)


def _line(text: str, *words: str) -> str:
    return next(line for line in text.splitlines() if all(w in line for w in words))


def _named(home: Path, lead: str, children: dict[str, str], state: Path) -> None:
    """Each command's name for each sub-agent holds an id start that `show` and `tree`
    take for that very sub-agent."""
    listed = _sessdex("list", "--all", "--home", str(home), state=state)
    usage = _sessdex("usage", "session", "--home", str(home), state=state)
    shown = _sessdex("show", lead, "--home", str(home), state=state)
    exported = _sessdex("export", lead, "-f", "md", "--home", str(home), state=state)
    for child, task in children.items():
        starts = {
            "list": _id_in(_line(listed, "↳ ", task), child),
            "usage": _id_in(_line(usage, task), child),
            "show": _id_in(_line(shown, "Spawned sub-agent", task), child),
            "export": _id_in(_line(exported, "🤖 sub-agent", task), child),
        }
        for command, start in starts.items():
            opened = _sessdex("show", start, "--home", str(home), state=state)
            assert f" · {child} · " in opened.splitlines()[1], (command, start)
        tree = _sessdex("tree", starts["show"], "--home", str(home), state=state)
        assert child in tree


def test_every_command_names_a_qwen_sub_agent_by_an_id_show_takes(
    tmp_path: Path,
) -> None:
    _named(_qwen_home(tmp_path), QWEN_LEAD, QWEN_CHILDREN, tmp_path / "state")


def test_every_command_names_a_claude_sub_agent_by_an_id_show_takes(
    tmp_path: Path,
) -> None:
    home = app_home("claude")
    _named(home, CLAUDE_LEAD, CLAUDE_CHILDREN, tmp_path / "state")


def test_show_and_export_call_a_sub_agent_by_the_same_name(tmp_path: Path) -> None:
    home = _qwen_home(tmp_path)
    state = tmp_path / "state"
    shown = _sessdex("show", QWEN_LEAD, "--home", str(home), state=state)
    exported = _sessdex("export", QWEN_LEAD, "-f", "md", "--home", str(home), state=state)  # fmt: skip
    said = re.findall(r"Spawned sub-agent \[?(.+?)\]? — ", shown)
    assert said == ["general-purpose-call_8f2", "general-purpose-call_a41"], shown
    for name in said:
        assert f"(sub-agent {name})" in exported


def _spawned(children: list[str], kind: str | None) -> list[Event]:
    extra = {"agent_type": kind} if kind else {}
    events = [
        Event("s", n, "subagent", text=f"task {n}", call_id=f"c{n}",
              extra={"child_id": child, **extra})
        for n, child in enumerate(children)
    ]  # fmt: skip
    events += [
        Event("s", 100 + n, "assistant", text=f"said {n}", agent_id=child)
        for n, child in enumerate(children)
    ]
    return events


ALIKE = [
    # ids alike in their first 64 characters and more (a hostile or odd app's)
    ("agent", ["x" * 70 + "a", "x" * 70 + "b", "x" * 70 + "c"]),
    (None, ["y" * 70 + "a", "y" * 70 + "b", "y" * 70 + "c"]),
    # siblings enough that every longer start of such ids is another's mark
    ("agent", ["z" * 80 + f"{n:03}" for n in range(70)]),
    # ids alike to their end but for what no terminal shows
    ("agent", ["same\x00one", "same\x01one", "same\x02one"]),
]


@pytest.mark.parametrize(("kind", "children"), ALIKE)
def test_show_marks_each_sub_agent_its_own_way(
    kind: str | None, children: list[str]
) -> None:
    from sessdex.views.terminal import render_events

    marks: dict[int, str] = {}
    for line in render_events(_spawned(children, kind)):
        text = "".join(piece for piece, _ in line.pieces)
        head, _, said = text.removeprefix("  ↳ ").rpartition(" said ")
        if text.startswith("  ↳ ") and said.isdigit():
            marks[int(said)] = head
    assert len(set(marks.values())) == len(children), marks
    again = [
        "".join(piece for piece, _ in line.pieces)
        for line in render_events(_spawned(children, kind))
    ]
    assert any(marks[len(children) - 1] in line for line in again)  # each read alike


@pytest.mark.parametrize(("kind", "children"), ALIKE)
def test_export_names_each_sub_agent_its_own_way(
    kind: str | None, children: list[str]
) -> None:
    from sessdex.views.markdown import render

    page = "".join(
        render(Session(app="x", id="s", path="/x"), _spawned(children, kind))
    )
    names = re.findall(r"\*\*Assistant \(sub-agent (.+?)\):\*\* said \d", page)
    assert len(names) == len(children) and len(set(names)) == len(children), names


def test_follow_marks_siblings_whose_spawns_its_history_leaves_out_as_show_does(
    tmp_path: Path,
) -> None:
    """`follow -n 4` marked two general-purpose sub-agents whose spawns came before its
    last 4 events both `general-purpose`, and took the second's lines for the first's.
    Its history is drawn as `show` draws the session (each sub-agent's block at its
    spawn), so its lines are show's last ones, marks and all."""
    home = _qwen_home(tmp_path)
    state = tmp_path / "state"
    shown = _sessdex("show", QWEN_LEAD, "--home", str(home), state=state)
    followed = _sessdex(
        "follow", QWEN_LEAD, "-n", "4", "--duration", "1", "--poll",
        "--home", str(home), state=state,
    )  # fmt: skip
    lines = [line for line in followed.splitlines() if line.strip()]
    ends = [line for line in shown.splitlines() if line.strip()][-len(lines) :]
    assert "  ↳ general-purpose It printed hello." in shown.splitlines()
    assert "  ↳ [general-purpose-call_a41] It printed hello." in lines, followed
    assert lines == ends, followed


@pytest.mark.parametrize("run", ["cold", "warm"])
def test_list_all_says_a_sub_agents_type_and_task_as_usage_session_does(
    tmp_path: Path, run: str
) -> None:
    """`list --all` said a sub-agent's task alone (`↳ Greeting sub-agent`), `usage
    session` and `tree` its type too: one listing hid what the others named it by."""
    home, state = str(app_home("claude")), tmp_path / "state"
    if run == "warm":  # the quick path, from the index the run before kept
        _sessdex("list", "--all", "--home", home, state=state)
    listed = _sessdex("list", "--all", "--home", home, state=state)
    usage = _sessdex("usage", "session", "--home", home, state=state)
    said = "general-purpose: Greeting sub-agent"
    assert f"↳ {said}" in _line(listed, "a199d630"), listed
    assert said in _line(usage, "a199d630")


# Crush's `<message id>$$<call id>`, two calls of one message; UUIDv7 threads spawned
# within a millisecond: ids that share far more than their first 8 characters
SHARING = [
    ("agent", ["0199a3b2-7c1d-7e5f-8a9b-0c1d2e3f4a5b$$toolu_01AbCdEf",
               "0199a3b2-7c1d-7e5f-8a9b-0c1d2e3f4a5b$$toolu_01XyZwVu"]),
    (None, ["019a7e21-66c0-7aa1-9e3f-000000000001", "019a7e21-66c0-7aa1-9e3f-000000000002"]),
]  # fmt: skip


@pytest.mark.parametrize(("kind", "children"), SHARING)
def test_a_later_siblings_name_holds_an_id_start_no_earlier_siblings_id_has(
    kind: str | None, children: list[str]
) -> None:
    """`show` of what the second sibling was called (`agent 0199a3b2`) opened a list of
    both to choose from: its name now says as much of its id as tells it from the
    first's, in `show` and in the export alike."""
    from sessdex.views.markdown import render
    from sessdex.views.terminal import render_events

    lines = [
        "".join(piece for piece, _ in line.pieces)
        for line in render_events(_spawned(children, kind))
    ]
    spawned = [line for line in lines if line.startswith("Spawned sub-agent")]
    page = "".join(
        render(Session(app="x", id="s", path="/x"), _spawned(children, kind))
    )
    exported = re.findall(r"\*\*Assistant \(sub-agent (.+?)\):\*\* said 1", page)
    for said in (spawned[1], exported[0]):
        start = _id_in(said, children[1])
        assert not children[0].startswith(start), said


def test_a_sub_agents_name_tells_its_id_from_its_leads(tmp_path: Path) -> None:
    """Codex threads are UUIDv7: a child spawned at once shares its lead's first 8
    characters (`01a22b81`), so `show 01a22b81` opened neither: the name `show` and
    the export give it says enough of its id to open it alone."""
    home, state = str(app_home("codex")), tmp_path / "state"
    child = "01a22b81-66cf-74d0-99b4-ed78fda80cf9"
    shown = _sessdex("show", "01a22b81-666", "--home", home, state=state)
    exported = _sessdex("export", "01a22b81-666", "-f", "md", "--home", home, state=state)  # fmt: skip
    for said in (_line(shown, "Spawned sub-agent"), _line(exported, "🤖 sub-agent")):
        start = _id_in(said, child)
        opened = _sessdex("show", start, "--home", home, state=state)
        assert f" · {child} · " in opened.splitlines()[1], said


def _unspawned(children: list[str]) -> list[Event]:
    """Lines of sub-agents whose spawns the transcript lacks (cut off, or never written)."""
    return [
        Event("s", n, "assistant", text=f"said {n}", agent_id=child)
        for n, child in enumerate(children)
    ]


@pytest.mark.parametrize("children", [ids for _, ids in SHARING])
def test_sub_agents_with_no_spawn_are_named_apart_by_an_id_start_show_takes(
    children: list[str],
) -> None:
    """Lines of a sub-agent whose spawn is not in the transcript were marked with the
    first 8 characters of its id: two such whose ids share them were one `0199a3b2`
    in `show` and the export, which `show` of opens neither alone: the later is marked
    as a later sibling is (`SiblingIds`)."""
    from sessdex.views.markdown import render
    from sessdex.views.terminal import render_events

    lines = [
        "".join(piece for piece, _ in line.pieces)
        for line in render_events(_unspawned(children))
    ]
    page = "".join(render(Session(app="x", id="s", path="/x"), _unspawned(children)))
    exported = re.findall(r"\*\*Assistant \(sub-agent (.+?)\):\*\* said \d", page)
    for said in ([_line("\n".join(lines), f"said {n}") for n in (0, 1)], exported):
        assert len(set(said)) == 2, said
        # the later's start is its own (the first named cannot know of a later one)
        assert not children[0].startswith(_id_in(said[1], children[1])), said


def _board(lead: str, children: list[str], kind: str | None) -> str:
    """What `watch` says of a session whose lead waits on one sub-agent of `children`
    (the last), the others done."""
    from sessdex.status import Tracker, decide

    tracker = Tracker(lead_id=lead)
    extra = {"agent_type": kind} if kind else {}
    for n, child in enumerate(children):
        spawn = Event("s", n, "tool_call", tool="Task", call_id=f"c{n}")
        announced = Event("s", n, "subagent", text=f"task {n}", call_id=f"c{n}",
                          extra={"child_id": child, **extra})  # fmt: skip
        said = Event("s", n, "assistant", text="on it", agent_id=child)
        for event in (spawn, announced, said):
            tracker.add(event, 1_800_000_000.0 + n)
        if n < len(children) - 1:
            done = Event("s", n, "tool_result", text="done", call_id=f"c{n}")
            tracker.add(done, 1_800_000_000.0 + n)
    return decide(tracker, 1_800_000_010.0, 1_800_000_000.0, True).reason


@pytest.mark.parametrize(("kind", "children"), SHARING)
def test_watch_names_a_sub_agent_by_the_id_start_show_takes(
    kind: str | None, children: list[str]
) -> None:
    """The board called a sub-agent by its type alone (`agent`), or by its id's first 8
    characters, which its sibling's start too: a user could not open it from there."""
    reason = _board("lead-session", children, kind)
    assert reason.startswith(f"sub-agent {kind or ''}".rstrip()), reason
    start = _id_in(reason, children[1])
    assert not children[0].startswith(start), reason


def test_watch_tells_a_sub_agents_id_from_its_leads() -> None:
    """A Codex thread spawned at once shares its lead's first 8 characters."""
    lead, child = "01a22b81-666a-7993-963b-4b7cc4e806e9", "01a22b81-66cf-74d0-99b4-ed78fda80cf9"  # fmt: skip
    reason = _board(lead, [child], "worker")
    assert not lead.startswith(_id_in(reason, child)), reason


@pytest.mark.parametrize(("kind", "children"), SHARING)
def test_follow_names_a_sibling_spawned_in_a_later_read_apart(
    kind: str | None, children: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """`follow` draws each read of a growing transcript as it comes: a sibling spawned
    in a later read was named by its id's first 8 characters (`agent 0199a3b2`), which
    its earlier sibling's id starts too, where `show` of the whole names it apart."""
    from sessdex.cli.live import _follow_text

    events = _spawned(children, kind)
    reads = [[events[0], events[2]], [events[1], events[3]]]  # as `follow` gets them
    _follow_text(Session(app="x", id="s", path="/x"), reads, "normal", {}, 1000)
    lines = capsys.readouterr().out.splitlines()
    spawned = [line for line in lines if line.startswith("Spawned sub-agent")]
    said = [line for line in lines if "said 1" in line]
    for line in (spawned[1], said[0]):
        assert not children[0].startswith(_id_in(line, children[1])), line


@pytest.mark.parametrize(("kind", "children"), SHARING)
def test_the_html_export_names_a_later_sibling_apart(
    kind: str | None, children: list[str]
) -> None:
    """The HTML export's spawn line named both siblings by their ids' first 8
    characters (`spawned sub-agent agent 0199a3b2`), where `show` and the Markdown
    export name the second by a start its sibling's id lacks."""
    from sessdex.views.html import render

    page = "".join(render(Session(app="x", id="s", path="/x"), _spawned(children, kind)))  # fmt: skip
    spawned = re.findall(r"spawned sub-agent <b>(.+?)</b>", page)
    assert not children[0].startswith(_id_in(spawned[1], children[1])), spawned


@pytest.mark.parametrize(("kind", "children"), SHARING)
def test_follow_names_its_history_as_show_does(
    kind: str | None, children: list[str]
) -> None:
    """`follow`'s first read, its history marked first (`spawn_labels`), names each
    sub-agent as `show` does: the first by no more of its id than `show` says."""
    from sessdex.views.terminal import render_events, spawn_labels

    def said(lines: object) -> list[str]:
        return ["".join(p for p, _ in line.pieces) for line in lines]  # type: ignore[attr-defined]

    events = _spawned(children, kind)
    shown = said(render_events(events))
    labels: dict[str, str] = {}
    spawn_labels(events, labels)
    followed = said(render_events(events, "normal", labels, set(), {}, {}, set()))
    assert followed == shown


def _nested(kind: str | None) -> list[Event]:
    """Two sub-agents of the lead, ids alike in their first 8 characters, the first of
    which spawns a third: its task comes from the first, its result is the first's."""
    a, b, c = (
        f"0199a3b2-{x * 4}-7000-8000-00000000000{n}" for n, x in enumerate("abc")
    )
    extra = {"agent_type": kind} if kind else {}

    def spawn(n: int, child: str, by: str | None) -> list[Event]:
        return [
            Event("s", n, "tool_call", tool="Task", call_id=f"c{n}", agent_id=by),
            Event("s", n, "subagent", text=f"task {n}", call_id=f"c{n}", agent_id=by,
                  extra={"child_id": child, **extra}),
        ]  # fmt: skip

    return [
        *spawn(0, a, None),
        *spawn(1, b, None),
        Event("s", 2, "user", text="task 0", agent_id=a),
        *spawn(3, c, a),
        Event("s", 4, "user", text="task 3", agent_id=c),
        Event("s", 5, "assistant", text="said 3", agent_id=c),
        Event("s", 6, "tool_result", text="done 3", call_id="c3", agent_id=a),
        Event("s", 7, "assistant", text="said 0", agent_id=a),
        Event("s", 8, "tool_result", text="done 0", call_id="c0"),
    ]


@pytest.mark.parametrize("kind", [None, "Explore"])
def test_the_html_export_names_sub_agents_as_the_markdown_export_does(
    kind: str | None,
) -> None:
    """The HTML export called the sub-agent that spawned another, and the one a result
    came from, by its type alone or by its id's first 12 characters (`0199a3b2-aa…`,
    which `show` opens no session by), and each sub-agent's reply `(sub-agent)`: it
    says the names the Markdown export says, by the one rule."""
    from sessdex.views import html, markdown

    session = Session(app="x", id="s", path="/x")
    page = "".join(html.render(session, _nested(kind)))
    md = "".join(markdown.render(session, _nested(kind)))
    said_md = {
        "from": re.findall(r"## Message from (.+?) \(sub-agent", md),
        "result": re.findall(r"result of sub-agent (.+?)[ :](?:\(|$)", md, re.M),
        "reply": re.findall(r"\*\*Assistant \(sub-agent (.+?)\):\*\*", md),
    }
    said_html = {
        "from": re.findall(r'class="who">Message from (.+?)</h', page),
        "result": re.findall(r"<summary>result of sub-agent (.+?) — ", page),
        "reply": re.findall(r'class="who">Assistant \(sub-agent (.+?)\)</h', page),
    }
    assert said_html == said_md
    assert len(set(said_md["result"])) == 2 and len(set(said_md["reply"])) == 2, md


def test_watch_names_the_sub_agent_whose_request_its_leads_file_holds() -> None:
    """Kimi CLI forwards a sub-agent's approval request to its lead's wire with the
    sub-agent's id: `watch` said its type alone (`coder: Shell waits…`), which both
    coders share; it names it by the one rule, told from its sibling's id."""
    from sessdex.status import Tracker, decide

    first, second = "0199a3b2-aaaa-7000", "0199a3b2-bbbb-7000"
    tracker = Tracker(lead_id="lead")
    for n, child in enumerate((first, second)):
        said = Event("s", n, "assistant", text="on it", agent_id=child)
        tracker.add(said, 1_800_000_000.0 + n)
    asks = Event("s", 3, "meta", tool="Shell", extra={
        "asks": "approval", "agent_type": "coder", "asker_id": second})  # fmt: skip
    tracker.add(asks, 1_800_000_003.0)
    reason = decide(tracker, 1_800_000_010.0, 1_800_000_003.0, True).reason
    assert reason.startswith("coder 0199a3b2-b: Shell waits for approval"), reason


def _untitled_claude(tmp_path: Path) -> Path:
    """The Claude Code fixture, its sub-agent's meta naming its type alone and its
    prompt blank: a sub-agent with nothing to title it by."""
    home = tmp_path / "home"
    shutil.copytree(app_home("claude"), home)
    lead = next(home.glob(".claude/projects/*/82d9f90c-*/subagents"))
    meta = {"agentType": "general-purpose", "toolUseId": "toolu_mock01c0264401044de2a66f5c77"}  # fmt: skip
    (lead / "agent-a199d630441234c05.meta.json").write_text(json.dumps(meta))
    path = lead / "agent-a199d630441234c05.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines()]
    for record in records:
        if record.get("type") == "user" and isinstance(
            record["message"]["content"], str
        ):
            record["message"]["content"] = ""
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return home


@pytest.mark.parametrize("run", ["cold", "warm"])
def test_list_all_says_an_untitled_sub_agents_type(tmp_path: Path, run: str) -> None:
    """An untitled sub-agent's row said `↳ (untitled)` where every other sub-agent's
    says its type (`↳ general-purpose: …`), as `usage session` names it."""
    home, state = str(_untitled_claude(tmp_path)), tmp_path / "state"
    if run == "warm":
        _sessdex("list", "--all", "--home", home, state=state)
    listed = _sessdex("list", "--all", "--home", home, state=state)
    found = _sessdex("find", "--all", "shop-api", "--home", home, state=state)
    usage = _sessdex("usage", "session", "--home", home, state=state)
    assert "general-purpose" in _line(usage, "a199d630")
    for said in (listed, found):
        assert _line(said, "a199d630").endswith("↳ general-purpose"), said


@pytest.mark.parametrize(("kind", "children"), SHARING)
def test_the_html_exports_block_headings_name_sub_agents_as_the_markdown_export_does(
    kind: str | None, children: list[str]
) -> None:
    """Each sub-agent's block in the HTML export was headed by its type and its whole
    id (`sub-agent agent 0199a3b2-7c1d-…$$toolu_01AbCdEf`), where its every line and
    the Markdown export call it by its mark (`agent 0199a3b2`)."""
    from sessdex.views import html, markdown

    session = Session(app="x", id="s", path="/x")
    page = "".join(html.render(session, _spawned(children, kind)))
    md = "".join(markdown.render(session, _spawned(children, kind)))
    said_md = re.findall(r"\*\*Assistant \(sub-agent (.+?)\):\*\* said \d", md)
    headings = [
        unescape(heading)  # `'` quoting an id: `&#x27;` in the page
        for heading in re.findall(
            r'<details class="sub" open><summary>(.*?)</summary>', page
        )
    ]
    assert headings == [
        f"sub-agent {name} — task {n}" for n, name in enumerate(said_md)
    ], page


CRUSH_SIBLINGS = ["m-assistant-1$$call_agent_1", "m-assistant-1$$call_agent_2"]


def _crush_siblings(tmp_path: Path) -> Path:
    """The Crush fixture with a second child session of the lead's message: two
    sub-agents whose ids share all but their last character."""
    import sqlite3

    home = tmp_path / "home"
    shutil.copytree(app_home("crush"), home)
    db = sqlite3.connect(home / "code/shop-api/.crush/crush.db")
    first, second = CRUSH_SIBLINGS
    columns = [row[1] for row in db.execute("PRAGMA table_info(sessions)")]
    row = list(db.execute("SELECT * FROM sessions WHERE id = ?", (first,)).fetchone())
    row[columns.index("id")] = second
    db.execute(f"INSERT INTO sessions VALUES ({', '.join('?' * len(row))})", row)
    columns = [row[1] for row in db.execute("PRAGMA table_info(messages)")]
    for message in db.execute("SELECT * FROM messages WHERE session_id = ?", (first,)).fetchall():  # fmt: skip
        copied = list(message)
        copied[columns.index("id")] += "-2"
        copied[columns.index("session_id")] = second
        db.execute(f"INSERT INTO messages VALUES ({', '.join('?' * len(copied))})", copied)  # fmt: skip
    db.commit()
    db.close()
    return home


def test_a_first_siblings_name_tells_it_from_a_sibling_named_after_it(
    tmp_path: Path,
) -> None:
    """The first of two Crush siblings was named before the second was read, by the
    start both ids have (`agent m-assist`): `show` of it asked which of the two. Every
    view names each by a start of its id its sibling's lacks, the first too."""
    home, state = str(_crush_siblings(tmp_path)), tmp_path / "state"
    lead = "8c1f2e3d"
    shown = _sessdex("show", lead, "--home", home, state=state)
    exported = _sessdex("export", lead, "-f", "md", "--home", home, state=state)
    page = _sessdex("export", lead, "-f", "html", "--home", home, state=state)
    followed = _sessdex(
        "follow", lead, "-n", "100", "--duration", "1", "--poll", "--home", home,
        state=state,
    )  # fmt: skip
    said = {
        "show": re.findall(r"^Spawned sub-agent (.+?) — ", shown, re.M),
        "md": re.findall(r"^- 🤖 sub-agent \*\*(.+?)\*\*", exported, re.M),
        "html": re.findall(
            r'<details class="sub" open><summary>sub-agent (.+?) — ', page
        ),
        "follow": re.findall(r"^Spawned sub-agent (.+?) — ", followed, re.M),
    }
    for view, names in said.items():
        assert len(names) == 2, (view, names)
        for name, child, other in zip(names, CRUSH_SIBLINGS, CRUSH_SIBLINGS[::-1], strict=True):  # fmt: skip
            assert not other.startswith(_id_in(name, child)), (view, names)


def test_watch_gathers_the_ids_a_name_is_told_from_once_a_set_of_agents(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each poll's name gathered every agent's id again (thousands of sub-agents: a
    cost squared in them, every second): they are gathered once, and again only when
    another agent is known, its sibling then named apart from it."""
    from sessdex.status import Tracker, decide
    from sessdex.views import text

    gathered: list[int] = []
    counted = text.SiblingIds.add

    def add(self: text.SiblingIds, session_id: str) -> None:
        gathered.append(1)
        counted(self, session_id)

    monkeypatch.setattr(text.SiblingIds, "add", add)
    built = text.SiblingIds.__init__

    def init(self: text.SiblingIds, known: object = ()) -> None:
        gathered.append(1)
        built(self, known)  # type: ignore[arg-type]

    monkeypatch.setattr(text.SiblingIds, "__init__", init)
    first, second = "0199a3b2-aaaa-7000", "0199a3b2-bbbb-7000"
    tracker = Tracker(lead_id="lead")

    def spawned(n: int, child: str) -> None:
        for event in (
            Event("s", n, "tool_call", tool="Task", call_id=f"c{n}"),
            Event("s", n, "subagent", text="task", call_id=f"c{n}",
                  extra={"child_id": child}),
            Event("s", n, "assistant", text="on it", agent_id=child),
        ):  # fmt: skip
            tracker.add(event, 1_800_000_000.0 + n)

    spawned(0, first)
    polls = [decide(tracker, 1_800_000_001.0 + n, 1_800_000_000.0, True) for n in range(10)]  # fmt: skip
    assert all(poll.reason.startswith("sub-agent 0199a3b2 working") for poll in polls)
    assert len(gathered) <= 2, gathered  # the lead's id and the sub-agent's, once
    tracker.add(
        Event("s", 1, "tool_result", text="done", call_id="c0"), 1_800_000_011.0
    )
    spawned(12, second)
    reason = decide(tracker, 1_800_000_013.0, 1_800_000_012.0, True).reason
    assert reason.startswith("sub-agent 0199a3b2-b working"), reason
