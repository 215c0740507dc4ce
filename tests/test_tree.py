"""`sessdex tree` on the sub-agent sessions the real CLIs wrote (shared/corpus/realcli).

Expected figures were read off the files by hand: the mock model answers every request with
input 1200 and output 30 tokens, so the Claude lead (two requests) and its child (two) each
show 2400/60, and the Codex lead (three requests) 3600/90 with its child at 2400/60.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from sessdex.model import Event
from tests.helpers import claude_observer_home, dated, dated_now

DATA = Path(__file__).parent / "data"


def tree(app: str, session_id: str, home: Path | None = None) -> dict[str, object]:
    home = home or DATA / app / "home"
    result = CliRunner().invoke(
        main, ["tree", session_id, "--json", "--home", str(home)]
    )
    assert result.exit_code == 0, result.output
    value = json.loads(result.stdout)
    assert isinstance(value, dict)
    return value


def test_claude_sub_agent_tree() -> None:
    root = tree("claude", "82d9f90c")
    assert (root["id"], root["status"], root["tool_calls"]) == (
        "82d9f90c-3f87-46b4-b09c-58027a5e630c",
        "done",
        1,
    )
    assert (
        root["usage"]["input_tokens"] == 2400 and root["usage"]["output_tokens"] == 60
    )  # type: ignore[index]
    [child] = root["children"]  # type: ignore[misc]
    assert child["id"] == "a199d630441234c05"
    assert (child["agent_type"], child["description"], child["status"]) == (
        "general-purpose",
        "Greeting sub-agent",
        "done",
    )
    assert (
        child["usage"]["input_tokens"],
        child["usage"]["output_tokens"],
        child["tool_calls"],
    ) == (2400, 60, 1)
    assert child["children"] == []
    assert child["duration_seconds"] is not None and child["duration_seconds"] >= 0


def test_codex_sub_agent_tree() -> None:
    root = tree("codex", "01a22b81-666a")
    assert root["status"] == "done"
    assert (root["usage"]["input_tokens"], root["usage"]["output_tokens"]) == (3600, 90)  # type: ignore[index]
    [child] = root["children"]  # type: ignore[misc]
    assert child["id"] == "01a22b81-66cf-74d0-99b4-ed78fda80cf9"
    assert child["status"] == "done"
    assert child["description"].startswith("SCENARIO=child You are a sub-agent.")
    # Codex gives the sub-agent no type here, only the name its lead chose
    assert (child["agent_type"], child["agent_name"]) == (None, "greeter")
    assert (
        child["usage"]["input_tokens"],
        child["usage"]["output_tokens"],
        child["tool_calls"],
    ) == (2400, 60, 1)


def test_tree_in_the_terminal_names_each_agent() -> None:
    result = CliRunner().invoke(
        main, ["tree", "82d9f90c", "--home", str(DATA / "claude" / "home")]
    )
    assert result.exit_code == 0
    assert "lead [done]" in result.stdout
    assert "general-purpose [done] Greeting sub-agent" in result.stdout
    assert "· 1 tool call ·" in result.stdout
    result = CliRunner().invoke(
        main, ["tree", "01a22b81-666a", "--home", str(DATA / "codex" / "home")]
    )
    assert "└── greeter [done] SCENARIO=child" in result.stdout
    assert "· 2 tool calls ·" in result.stdout


def test_tree_says_an_app_recorded_no_token_counts_not_zero() -> None:
    """Cursor writes no token counts: its agents' lines say so, as `watch` shows '-'
    for them, where '0 in, 0 out' read as work that cost nothing."""
    result = CliRunner().invoke(
        main, ["tree", "4c8f2a1e", "--home", str(DATA / "cursor" / "home")]
    )
    assert result.exit_code == 0, result.output
    assert "0 in, 0 out" not in result.stdout
    assert result.stdout.count("· no token counts ·") == 2  # the lead and its child
    counted = CliRunner().invoke(
        main, ["tree", "82d9f90c", "--home", str(DATA / "claude" / "home")]
    )
    assert "· 2.4k in, 60 out ·" in counted.stdout


def test_a_wide_deep_tree_with_late_and_circular_spawns_builds_right() -> None:
    """1,500 workers spawned by the lead, a chain 300 deep, a sub-agent whose events
    come before its spawn (moved from under the lead to its spawner) and a spawn of an
    ancestor (ignored): every node once, in its place. Built by walking up from each
    spawner, so the work grows with the depth, not with the size of the tree."""

    from sessdex.tree import build_tree

    events, add = _lead_events()

    add("assistant", "late")  # a sub-agent heard from before its spawn
    for n in range(1500):
        add("subagent", None, child_id=f"w{n}")
    for n in range(300):
        add("subagent", f"c{n - 1}" if n else None, child_id=f"c{n}")
    add("subagent", "c10", child_id="late")
    add("subagent", "c299", child_id="c5")  # an ancestor: no edge, no cycle
    root = build_tree("lead", events)
    top = [child.id for child in root.children]
    assert top == [f"w{n}" for n in range(1500)] + ["c0"]
    node, depth = root.children[-1], 1
    while node.children and node.children[0].id.startswith("c"):
        node, depth = node.children[0], depth + 1
    assert (node.id, depth) == ("c299", 300)
    ten = root.children[-1]
    for _ in range(10):
        ten = ten.children[0]
    assert ten.id == "c10" and [c.id for c in ten.children] == ["c11", "late"]
    assert sum(1 for _ in root.walk()) == 1 + 1500 + 300 + 1


def test_usage_or_settings_written_after_the_last_answer_leave_it_done() -> None:
    """Mistral Vibe writes the cumulative usage after the turn ends; a model change may
    follow the last answer too. Neither is work: the agent is done, not running."""
    from sessdex.model import Event, Usage
    from sessdex.tree import build_tree

    def ev(n: int, kind: str, **fields: object) -> Event:
        return Event("s", n, kind, **fields)  # type: ignore[arg-type]

    answered = [ev(0, "user", text="hi"), ev(1, "assistant", text="hello"), ev(2, "turn_end")]  # fmt: skip
    after = [
        ev(3, "usage", usage=Usage(input_tokens=5)),
        ev(4, "meta", text="model: x"),
    ]
    assert build_tree("s", [*answered, *after]).status == "done"
    assert (
        build_tree("s", [*answered, ev(3, "tool_call", tool="Bash")]).status
        == "running"
    )


def test_a_sub_agent_nothing_links_to_a_call_is_done_once_it_answered_and_the_lead_is() -> (
    None
):
    """Some apps record a sub-agent without the call that spawned it (Cursor's IDE and CLI):
    no result ever closes it, so its own last answer does, once the lead is past it."""
    from sessdex.model import Event
    from sessdex.tree import build_tree

    def ev(n: int, kind: str, agent: str | None = None, **fields: object) -> Event:
        return Event("s", n, kind, agent_id=agent, **fields)  # type: ignore[arg-type]

    spawned = [ev(0, "user", text="go"), ev(1, "subagent", extra={"child_id": "c"}),
               ev(2, "user", "c", text="task"), ev(3, "assistant", "c", text="found it")]  # fmt: skip
    done = build_tree("s", [*spawned, ev(4, "assistant", text="thanks")])
    assert [child.status for child in done.children] == ["done"]
    lead_busy = build_tree("s", [*spawned, ev(4, "tool_call", tool="Bash")])
    assert [child.status for child in lead_busy.children] == ["running"]
    still_working = build_tree("s", [*spawned, ev(4, "tool_call", "c", tool="Grep"),
                                     ev(5, "assistant", text="waiting")])  # fmt: skip
    assert [child.status for child in still_working.children] == ["running"]


def test_a_background_sub_agent_runs_until_its_end_is_noted(tmp_path: Path) -> None:
    """Claude Code runs sub-agents in the background (2.1.198+): the Agent call answers at
    once (`toolUseResult.status: async_launched`) and the lead later gets a
    `<task-notification>` with the agent's status, queued and then handed over."""
    import shutil

    home = tmp_path / "home"
    shutil.copytree(DATA / "claude" / "home", home)
    project = home / ".claude/projects/-home-alex-code-shop-api"
    lead = project / "82d9f90c-3f87-46b4-b09c-58027a5e630c.jsonl"
    child = project / lead.stem / "subagents" / "agent-a199d630441234c05.jsonl"
    records = [json.loads(line) for line in lead.read_text().splitlines()]
    [answer] = [r for r in records if isinstance(r.get("toolUseResult"), dict)]
    call = answer["message"]["content"][0]["tool_use_id"]
    answer["toolUseResult"] = {
        "isAsync": True,
        "status": "async_launched",
        "agentId": "a199d630441234c05",
        "description": "Greeting sub-agent",
    }
    lead.write_text("".join(json.dumps(r) + "\n" for r in records))
    whole = child.read_text().splitlines(keepends=True)
    child.write_text("".join(whole[:3]))  # the child is mid tool call
    dated_now(lead, child)  # and wrote a moment ago

    def status() -> str:
        [node] = tree("claude", "82d9f90c", home)["children"]  # type: ignore[misc]
        return str(node["status"])

    assert status() == "running"
    child.write_text("".join(whole))  # it answered and ended its turn
    assert status() == "done"
    child.write_text("".join(whole[:3]))
    for ended, shown in (("failed", "failed"), ("killed", "done")):
        note = (
            f"<task-notification>\n<task-id>a199d630441234c05</task-id>\n"
            f"<tool-use-id>{call}</tool-use-id>\n<status>{ended}</status>\n"
            '<summary>Agent "Greeting sub-agent" ' + ended + "</summary>\n"
            "</task-notification>"
        )
        base = {
            k: records[-2][k]
            for k in ("sessionId", "cwd", "version")
            if k in records[-2]
        }
        queued = {
            **base,
            "type": "attachment",
            "uuid": "q1",
            "timestamp": "2026-11-30T08:12:30.000Z",
            "attachment": {
                "type": "queued_command",
                "commandMode": "task-notification",
                "prompt": note,
            },
        }
        handed = {**base, "type": "user", "uuid": "n1", "timestamp": "2026-11-30T08:12:31.000Z",
                  "origin": {"kind": "task-notification"}, "message": {"role": "user", "content": note}}  # fmt: skip
        lead.write_text(
            "".join(json.dumps(r) + "\n" for r in [*records, queued, handed])
        )
        assert status() == shown
    # the end noted twice (queued, then handed over) is one event
    from sessdex import api
    from sessdex.sources import Home

    found = list(api.transcript(Home.at(home), "82d9f90c").events)
    assert [(e.call_id, e.extra) for e in found if "subagent_status" in e.extra] == [
        (call, {"subagent_status": "done", "child_id": "a199d630441234c05"})
    ]


def _stamped_now(line: str) -> str:
    """A record as the app would write it now: its timestamp is the current time."""
    from datetime import UTC, datetime

    record = json.loads(line)
    record["timestamp"] = datetime.now(UTC).isoformat(timespec="milliseconds")
    return json.dumps(record) + "\n"


def test_a_session_silent_for_half_an_hour_mid_turn_is_stopped_not_running(
    tmp_path: Path,
) -> None:
    """A session left mid tool call (the app killed, the laptop closed) is not at work
    days later: its lead and its open sub-agent show stopped, in JSON and in the terminal."""
    import os
    import shutil
    import time

    home = tmp_path / "home"
    shutil.copytree(DATA / "claude" / "home", home)
    project = home / ".claude/projects/-home-alex-code-shop-api"
    lead = project / "82d9f90c-3f87-46b4-b09c-58027a5e630c.jsonl"
    child = project / lead.stem / "subagents" / "agent-a199d630441234c05.jsonl"
    lines = lead.read_text().splitlines(keepends=True)
    [spawn] = [n for n, line in enumerate(lines) if '"tool_use"' in line]
    lead.write_text("".join(lines[: spawn + 1]))  # the lead waits on its sub-agent
    child.write_text("".join(child.read_text().splitlines(keepends=True)[:3]))
    hour_ago = time.time() - 3600
    dated([lead, child], hour_ago)
    for path in (lead, child):
        os.utime(path, (hour_ago, hour_ago))
    root = tree("claude", "82d9f90c", home)
    [node] = root["children"]  # type: ignore[misc]
    assert (root["status"], node["status"]) == ("stopped", "stopped")
    shown = CliRunner().invoke(main, ["tree", "82d9f90c", "--home", str(home)])
    assert shown.output.count("[stopped]") == 2, shown.output
    dated([lead, child], time.time() - 1)  # the lead and its sub-agent wrote just now
    root = tree("claude", "82d9f90c", home)
    [node] = root["children"]  # type: ignore[misc]
    assert (root["status"], node["status"]) == ("running", "running")


def test_a_codex_sub_agent_runs_until_its_own_turn_ends(tmp_path: Path) -> None:
    """Codex's `spawn_agent` answers as soon as the agent starts (the lead waits with
    `wait_agent`): the child is done when its own rollout ends its turn."""
    import shutil

    home = tmp_path / "home"
    shutil.copytree(DATA / "codex" / "home", home)
    hour_ago = time.time() - 3600  # the lead's rollout, whatever the checkout's time
    for path in home.rglob("*"):
        os.utime(path, (hour_ago, hour_ago))
    [child] = home.rglob("rollout-*01a22b81-66cf-74d0-99b4-ed78fda80cf9.jsonl")
    whole = child.read_text().splitlines(keepends=True)
    child.write_text("".join(whole[:22]))  # mid exec_command, its events days old
    [node] = tree("codex", "01a22b81-666a", home)["children"]  # type: ignore[misc]
    assert node["status"] == "stopped"
    child.write_text("".join(whole[:21]) + _stamped_now(whole[21]))  # written just now
    [node] = tree("codex", "01a22b81-666a", home)["children"]  # type: ignore[misc]
    assert node["status"] == "running"
    child.write_text("".join(whole))
    [node] = tree("codex", "01a22b81-666a", home)["children"]  # type: ignore[misc]
    assert node["status"] == "done"


def test_a_copilot_background_task_ends_at_subagent_completed(tmp_path: Path) -> None:
    """Copilot's `task` with mode "background" is answered at once; `subagent.completed`
    (recorded by the CLI, with `toolCallId`) is the sub-agent's end."""
    import shutil

    home = tmp_path / "home"
    shutil.copytree(DATA / "copilot" / "home", home)
    [path] = home.rglob("52ee9297-*/events.jsonl")
    records = [json.loads(line) for line in path.read_text().splitlines()]
    for record in records:
        data = record.get("data", {})
        for request in data.get("toolRequests", []):
            if request.get("toolCallId") == "2fbeec47b":
                request["arguments"]["mode"] = "background"
        if (
            record["type"] == "tool.execution_start"
            and data.get("toolCallId") == "2fbeec47b"
        ):
            data["arguments"]["mode"] = "background"
    answer = next(
        r for r in records
        if r["type"] == "tool.execution_complete" and r["data"]["toolCallId"] == "2fbeec47b"
    )  # fmt: skip
    started = next(i for i, r in enumerate(records) if r["type"] == "subagent.started")
    working = [r for r in records[: started + 8] if r is not answer]
    working.insert(started + 1, answer)  # answered at launch; the agent runs its bash

    def status(lines: list[dict[str, object]]) -> str:
        path.write_text("".join(json.dumps(r) + "\n" for r in lines))
        dated_now(path)  # the task works as the session is written
        [node] = tree("copilot", "52ee9297", home)["children"]  # type: ignore[misc]
        return str(node["status"])

    assert status(working) == "running"
    ended = next(r for r in records if r["type"] == "subagent.completed")
    assert status([*working, ended]) == "done"


def test_an_opencode_background_task_runs_until_its_end_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """OpenCode's `task` with `background: true` answers at once (`<task id=… state=
    "running">`, metadata.background); a synthetic part reports the end to the parent."""
    import shutil
    import sqlite3

    from sessdex import tree as trees

    # a row of a database every session writes to is as recent as its own events, which
    # are the fixture's, days old: here silence is not what the test is about
    monkeypatch.setattr(trees, "ENDED_AFTER", float("inf"))

    home = tmp_path / "home"
    shutil.copytree(DATA / "opencode" / "home", home)
    child_id = "ses_dd47cc26cffeODfwLbHNPwBmj1"
    db = sqlite3.connect(home / ".local/share/opencode/opencode.db")
    ((part_id, data),) = db.execute(
        'SELECT id, data FROM part WHERE data LIKE \'%"tool":"task"%\''
    ).fetchall()
    part = json.loads(data)
    part["state"]["metadata"]["background"] = True
    part["state"]["output"] = (
        f'<task id="{child_id}" state="running">\n<task_result>\nThe task is working in '
        "the background.\n</task_result>\n</task>"
    )
    db.execute("UPDATE part SET data = ? WHERE id = ?", (json.dumps(part), part_id))
    last = "msg_22b833ef4001v05ldH4CnrONqQ"  # the child's answer, yet to come
    kept = db.execute("SELECT * FROM part WHERE message_id = ?", (last,)).fetchall()
    message = db.execute("SELECT * FROM message WHERE id = ?", (last,)).fetchall()
    db.execute("DELETE FROM part WHERE message_id = ?", (last,))
    db.execute("DELETE FROM message WHERE id = ?", (last,))
    db.commit()

    def status() -> str:
        [node] = tree("opencode", "ses_dd47cc97", home)["children"]  # type: ignore[misc]
        return str(node["status"])

    assert status() == "running"
    db.executemany(
        f"INSERT INTO message VALUES ({','.join('?' * len(message[0]))})", message
    )
    db.executemany(f"INSERT INTO part VALUES ({','.join('?' * len(kept[0]))})", kept)
    db.commit()
    assert status() == "done"  # its own answer ended its turn
    db.execute("DELETE FROM part WHERE message_id = ?", (last,))
    report = {"type": "text", "synthetic": True,
              "text": f'<task id="{child_id}" state="error">\n<summary>Background task failed: '
                      "Greeting sub-agent</summary>\n</task>"}  # fmt: skip
    lead_part = db.execute(
        "SELECT * FROM part WHERE session_id = 'ses_dd47cc97dffecuMitBkETrvX9v' "
        "ORDER BY id DESC LIMIT 1"
    ).fetchone()
    columns = [row[1] for row in db.execute("PRAGMA table_info(part)")]
    row = dict(zip(columns, lead_part, strict=True))
    row["id"] = "prt_zzzzzzzzzzzzzzzzzzzzzzzzzz"
    row["data"] = json.dumps(report)
    db.execute(
        f"INSERT INTO part ({','.join(columns)}) VALUES ({','.join('?' * len(columns))})",
        list(row.values()),
    )
    db.commit()
    db.close()
    assert status() == "failed"


def test_sub_agents_read_after_the_leads_file_do_not_reopen_its_turn() -> None:
    """Cursor's sub-agent transcripts name no spawning call and are read after the lead's
    whole file, past its `turn_ended`: the finished session is done, and so are they."""
    root = tree("cursor", "4c8f2a1e")
    assert root["status"] == "done"
    assert [child["status"] for child in root["children"]] == ["done"]  # type: ignore[union-attr]


def test_tree_nl_is_one_agent_per_line_with_its_parent() -> None:
    result = CliRunner().invoke(
        main, ["tree", "82d9f90c", "--nl", "--home", str(DATA / "claude" / "home")]
    )
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(r["depth"], r["parent_id"]) for r in rows] == [
        (0, None),
        (1, "82d9f90c-3f87-46b4-b09c-58027a5e630c"),
    ]
    assert "children" not in rows[0] and rows[1]["agent_type"] == "general-purpose"


def test_a_stale_session_in_a_database_others_write_to_is_still_stopped(
    tmp_path: Path,
) -> None:
    """A database every session of the app writes to (OpenCode's) changes whenever any
    of them works: its mtime says nothing of one old session left mid-turn, whose own
    events are days old."""
    import shutil
    import sqlite3

    home = tmp_path / "home"
    shutil.copytree(DATA / "opencode" / "home", home)
    db_path = home / ".local/share/opencode/opencode.db"
    db = sqlite3.connect(db_path)
    child_id = "ses_dd47cc26cffeODfwLbHNPwBmj1"  # sent to the background
    ((part_id, data),) = db.execute(
        'SELECT id, data FROM part WHERE data LIKE \'%"tool":"task"%\''
    ).fetchall()
    part = json.loads(data)
    part["state"]["metadata"]["background"] = True
    part["state"]["output"] = f'<task id="{child_id}" state="running">\n</task>'
    db.execute("UPDATE part SET data = ? WHERE id = ?", (json.dumps(part), part_id))
    last = "msg_22b833ef4001v05ldH4CnrONqQ"  # the child's answer: now it is mid-turn
    db.execute("DELETE FROM part WHERE message_id = ?", (last,))
    db.execute("DELETE FROM message WHERE id = ?", (last,))
    db.commit()
    db.close()
    os.utime(db_path)  # another session wrote just now
    [node] = tree("opencode", "ses_dd47cc97", home)["children"]  # type: ignore[misc]
    assert node["status"] == "stopped"


@pytest.mark.parametrize(
    ("app", "child"),
    [
        ("claude", "a199d630441234c05"),
        ("gemini", "85b47322"),
        ("opencode", "ses_dd47cc26"),
        ("vibe", "ad739610"),
    ],
)
def test_a_sub_agent_shown_on_its_own_was_told_its_task_by_the_lead(
    app: str, child: str
) -> None:
    """A person typed none of a sub-agent's prompts: shown on its own (not inside its
    lead's view) its task still reads as the lead's, in the terminal and in JSON."""
    home = str(DATA / app / "home")
    shown = CliRunner().invoke(main, ["show", child, "--home", home])
    assert shown.exit_code == 0, shown.output
    assert "⇠ the lead: " in shown.stdout and "\n> " not in shown.stdout
    events = json.loads(
        CliRunner().invoke(main, ["show", child, "--json", "--home", home]).stdout
    )
    told = [e for e in events if e["kind"] == "user"]
    assert told and all(e["extra"].get("from_agent") == "the lead" for e in told)


def test_tree_says_what_it_could_not_read(tmp_path: Path) -> None:
    """A broken line under the tree is counted and, with -v, named, as `show` does."""
    import shutil

    home = tmp_path / "home"
    shutil.copytree(DATA / "claude" / "home", home)
    lead = next(home.rglob("82d9f90c-3f87-46b4-b09c-58027a5e630c.jsonl"))
    lines = lead.read_bytes().splitlines(keepends=True)
    lead.write_bytes(
        b"".join([*lines[:2], b'{"type": "user", "message": {\n', *lines[2:]])
    )
    result = CliRunner().invoke(main, ["tree", "82d9f90c", "--home", str(home)])
    assert result.exit_code == 0 and "general-purpose" in result.stdout
    assert "skipped 1 unreadable line" in result.stderr
    verbose = CliRunner().invoke(main, ["tree", "82d9f90c", "-v", "--home", str(home)])
    assert f"{lead}:3: " in verbose.stderr
    # export says the same, and names the line when asked, as its warning tells
    exported = CliRunner().invoke(main, ["export", "82d9f90c", "--home", str(home)])
    assert "skipped 1 unreadable line; see --verbose" in exported.stderr
    exported = CliRunner().invoke(
        main, ["export", "82d9f90c", "-v", "--home", str(home)]
    )
    assert exported.exit_code == 0 and f"{lead}:3: " in exported.stderr


def test_a_spawn_of_an_ancestor_heard_from_before_its_own_spawn_leaves_both_in_place() -> (
    None
):
    """A sub-agent whose spawn was never seen sits under the lead; when an agent below it
    claimed to spawn it (a cycle), it was taken from under the lead before the claim was
    refused, and it and everything under it left the tree: `tree` showed the lead alone."""

    from sessdex.tree import build_tree

    events, add = _lead_events()

    add("user", None)
    add("assistant", "a")  # heard from before (or without) its spawn: under the lead
    add("subagent", "a", child_id="b")
    add("subagent", "b", child_id="a")  # b claims its own parent: no edge
    add("subagent", "a", child_id="a")  # a claims itself: no edge either
    root = build_tree("lead", events)
    assert [(depth, node.id) for depth, node in root.walk()] == [
        (0, "lead"),
        (1, "a"),
        (2, "b"),
    ]


def test_an_error_the_app_retries_leaves_the_agent_running_its_last_try_failed(
    tmp_path: Path,
) -> None:
    """Claude Code writes a line for each retry of an API error (`retryAttempt` of
    `maxRetries`), as Codex its reconnects: `tree` called the lead failed while its app
    was trying again, where `watch` says working. Only the app's last try fails it."""
    session = "7e1a0000-0000-4000-8000-000000000001"
    folder = tmp_path / "home" / ".claude" / "projects" / "-w"
    folder.mkdir(parents=True)
    base = {"sessionId": session, "cwd": "/w", "timestamp": "2026-11-30T10:00:00.000Z"}
    prompt = {**base, "type": "user", "uuid": "u1", "parentUuid": None,
              "message": {"role": "user", "content": "go"}}  # fmt: skip
    retry = {**base, "type": "system", "subtype": "api_error", "level": "error",
             "error": {"status": 529}, "retryAttempt": 2, "maxRetries": 10,
             "uuid": "e1", "parentUuid": "u1"}  # fmt: skip
    path = folder / f"{session}.jsonl"
    path.write_text(json.dumps(prompt) + "\n" + json.dumps(retry) + "\n")
    dated_now(tmp_path / "home")  # the app retrying now
    assert tree("claude", session, tmp_path / "home")["status"] == "running"
    last = dict(retry, retryAttempt=10, uuid="e2", parentUuid="e1")
    with path.open("a") as handle:
        handle.write(json.dumps(last) + "\n")
    assert tree("claude", session, tmp_path / "home")["status"] == "failed"


def test_a_chain_of_a_thousand_nested_sub_agents_is_shown_in_every_form(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Sub-agents spawning sub-agents, 1,200 deep (bad data or not, a transcript can say
    so): `tree --json` ended in a traceback past 126 levels (orjson's depth limit), the
    terminal's tree and `--nl` past Python's recursion limit. Each is written whole."""
    import sys
    from datetime import UTC, datetime

    from sessdex import api
    from sessdex.model import Event, Session
    from sessdex.tree import build_tree

    when = datetime(2026, 11, 20, tzinfo=UTC)
    events = [
        Event(
            "lead",
            n,
            "subagent",
            when,
            agent_id=f"c{n - 1}" if n else None,
            extra={"child_id": f"c{n}"},
        )
        for n in range(1200)
    ]
    root = build_tree("lead", events)
    found = (Session("claude", "lead"), root)
    monkeypatch.setattr(api, "agent_tree", lambda *_, **__: found)
    runner = CliRunner()
    result = runner.invoke(main, ["tree", "lead", "--json"])
    assert result.exit_code == 0, result.output
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(
        10_000
    )  # the reader's own limit (Python's parser is recursive)
    try:
        node, depth = json.loads(result.stdout), 0
    finally:
        sys.setrecursionlimit(limit)
    while node["children"]:
        [node], depth = node["children"], depth + 1
    assert (node["id"], depth) == ("c1199", 1200)
    result = runner.invoke(main, ["tree", "lead", "--nl"])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(r["id"], r["depth"]) for r in rows[-2:]] == [
        ("c1198", 1199),
        ("c1199", 1200),
    ]
    assert "children" not in rows[0]
    result = runner.invoke(main, ["tree", "lead"])  # (a terminal's width cuts it)
    assert result.exit_code == 0, result.output


# a spawn whose sub-agent transcript went (deleted, or a home copied without it): per app,
# the session, the child the spawn names, and what of the fixture home held its transcript
GONE = [
    pytest.param(
        "gemini",
        "b44832f3",
        "85b47322-1c7f-4f31-830e-607bca07767c",
        ".gemini/tmp/shop-api/chats/b44832f3-f4fa-4a19-8699-656bec90e64d",
        id="gemini",
    ),
    pytest.param(
        "kimi",
        "1bcbe023",
        "agent-0",
        ".kimi-code/sessions/wd_project_ac3bb318f98e/"
        "session_1bcbe023-4f7e-4971-9dc9-43b8756045b0/agents/agent-0",
        id="kimi-code",
    ),
    pytest.param(
        "vibe",
        "fe38b8f5",
        "ad739610-b155-6747-3b00-d8fe0a8cc57b",
        ".vibe/logs/session/session_20261130_081129_fe38b8f5/agents",
        id="vibe-legacy",
    ),
    pytest.param(
        "vibe",
        "11e8c9f6",
        "child-d6d2c0b9d4b3f893638acbd9",
        ".vibe/logs/session/unified/child-d6d2c0b9d4b3f893638acbd9",
        id="vibe-unified",
    ),
    pytest.param(
        "opencode",
        "ses_dd47cc97",
        "ses_dd47cc26cffeODfwLbHNPwBmj1",
        ".local/share/opencode/opencode.db",
        id="opencode",
    ),
    pytest.param(
        "kilo",
        "ses_dca3c4fd",
        "ses_dca3c050bffebCqjqWcltmC3YO",
        ".local/share/kilo/kilo.db",
        id="kilo-cli",
    ),
    pytest.param(
        "roo",
        "7c1a2b3d",
        "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b",
        ".config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks/"
        "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b",
        id="roo",
    ),
]


@pytest.mark.parametrize(("app", "lead", "child", "held"), GONE)
def test_a_sub_agent_whose_transcript_is_gone_is_named(
    tmp_path: Path, app: str, lead: str, child: str, held: str
) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA / app / "home", home)
    if held.endswith(".db"):  # the child's session rows, as OpenCode removes them
        _drop_session(home / held, child)
    else:
        shutil.rmtree(home / held)
    runner = CliRunner()
    result = runner.invoke(main, ["tree", lead, "--home", str(home)])
    assert result.exit_code == 0, result.output
    assert child in result.stdout  # still in the tree, empty
    warning = f"{app}: sub-agent {child}: transcript not found"
    assert result.stderr.count(warning) == 1, result.stderr
    shown = runner.invoke(main, ["show", lead, "--json", "--home", str(home)])
    spawns = [e["extra"].get("child_id") for e in json.loads(shown.stdout)]
    assert child in spawns and shown.stderr.count(warning) == 1
    whole = runner.invoke(main, ["tree", lead, "--home", str(DATA / app / "home")])
    assert whole.exit_code == 0 and "transcript not found" not in whole.stderr


def _drop_session(database: Path, session_id: str) -> None:
    with contextlib.closing(sqlite3.connect(database)) as db, db:
        for table, column in (("part", "session_id"), ("message", "session_id")):
            db.execute(f"DELETE FROM {table} WHERE {column} = ?", (session_id,))
        db.execute("DELETE FROM session WHERE id = ?", (session_id,))
    db.close()


def test_an_end_the_app_notes_before_the_spawn_is_read_still_ends_the_sub_agent() -> (
    None
):
    """Kimi Code notes a sub-agent's end in its lead's wire; one known only from the
    session's state.json is announced after the wire is read: its noted end still counts
    (it was dropped, and a failed background sub-agent showed running)."""

    from sessdex.tree import build_tree

    events, add = _lead_events()

    add("user", None)
    add("meta", None, subagent_status="failed", child_id="bg")
    add("meta", None, subagent_status="done", child_id="ok")
    add("assistant", None)
    add("turn_end", None)
    for child in ("bg", "ok"):
        add("subagent", None, child_id=child)
        add("user", child)
        add("tool_call", child)  # cut off mid-work, as far as its own file says
    statuses = {node.id: node.status for _, node in build_tree("lead", events).walk()}
    assert statuses == {"lead": "done", "bg": "failed", "ok": "done"}


def test_an_opencode_task_that_failed_before_its_child_wrote_is_not_called_gone(
    tmp_path: Path,
) -> None:
    """A `task` that ended in an error may have failed before its child session wrote a
    message: its empty child is not "transcript not found" (only a completed one is)."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "opencode" / "home", home)
    database = home / ".local/share/opencode/opencode.db"
    child = "ses_dd47cc26cffeODfwLbHNPwBmj1"
    with contextlib.closing(sqlite3.connect(database)) as db, db:
        for table in ("part", "message"):
            db.execute(f"DELETE FROM {table} WHERE session_id = ?", (child,))
        (count,) = db.execute(
            "SELECT count(*) FROM part WHERE json_extract(data, '$.tool') = 'task'"
        ).fetchone()
        assert count
        db.execute(
            "UPDATE part SET data = json_set(data, '$.state.status', 'error',"
            " '$.state.error', 'aborted') WHERE json_extract(data, '$.tool') = 'task'"
        )
    db.close()
    result = CliRunner().invoke(main, ["tree", "ses_dd47cc97", "--home", str(home)])
    assert result.exit_code == 0 and child in result.stdout
    assert "transcript not found" not in result.stderr


def _lead_events() -> tuple[list[Event], Callable[..., None]]:
    """A session "lead"'s events, all at one time, and `add(kind, agent, **extra)` that
    appends the next one (`agent` None for the lead itself)."""
    from datetime import UTC, datetime

    when = datetime(2026, 11, 20, tzinfo=UTC)
    events: list[Event] = []

    def add(kind: str, agent: str | None, **extra: object) -> None:
        events.append(
            Event("lead", len(events), kind, when, agent_id=agent, extra=dict(extra))  # type: ignore[arg-type]
        )

    return events, add


def test_a_claude_observer_is_marked_apart_from_the_sub_agents(tmp_path: Path) -> None:
    """Claude Code (2.1.33x) starts an observer beside an agent whose definition names one:
    a background agent fed that agent's activity, its meta saying `isObserver: true`, that
    its own agents view leaves out. `tree` and `show` still list it, and its tokens (real
    requests), but as an observer, not as work the lead gave out."""
    home = claude_observer_home(tmp_path)
    lead = (
        home
        / ".claude/projects/-home-alex-code-shop-api/82d9f90c-3f87-46b4-b09c-58027a5e630c"
    )
    root = tree("claude", "82d9f90c", home)
    kids = {c["id"]: c for c in root["children"]}  # type: ignore[attr-defined]
    assert {k: (c["agent_type"], c["observer"]) for k, c in kids.items()} == {
        "a199d630441234c05": ("general-purpose", False),
        "a0b5e7e0b5e7e0b5e": ("reviewer", True),
    }
    assert kids["a0b5e7e0b5e7e0b5e"]["usage"]["output_tokens"] == 60  # still counted
    shown = CliRunner().invoke(main, ["tree", "82d9f90c", "--home", str(home)])
    [line] = [x for x in shown.output.splitlines() if "reviewer" in x]
    assert "reviewer (observer) [" in line, shown.output
    assert "observer" not in "".join(
        x for x in shown.output.splitlines() if "general-purpose" in x
    )
    shown = CliRunner().invoke(main, ["show", "82d9f90c", "--home", str(home)])
    assert "Started observer reviewer" in shown.output, shown.output
    assert "Spawned sub-agent general-purpose" in shown.output
    # `watch` follows its file as an observer's, which the session never waits on
    from sessdex.diagnostics import Diagnostics
    from sessdex.model import Session
    from sessdex.sources import claude

    session = Session(
        "claude", "82d9f90c-3f87-46b4-b09c-58027a5e630c", str(lead) + ".jsonl"
    )
    followed = claude.follow(session, Diagnostics())
    files = followed.files(set())  # type: ignore[attr-defined]
    assert {(f.agent_id, f.observer) for f in files} == {
        (None, False), ("a199d630441234c05", False), ("a0b5e7e0b5e7e0b5e", True)
    }  # fmt: skip


def test_a_sub_agent_named_by_its_task_says_the_task_once() -> None:
    """Forge titles a sub-agent's conversation with its task: the tree's line named the
    agent 'sage Find every caller of checkout… [done] Find every caller of checkout()'."""
    result = CliRunner().invoke(
        main, ["tree", "3f2a1b0c", "--home", str(DATA / "forge" / "home")]
    )
    assert result.exit_code == 0, result.output
    assert "└── sage [done] Find every caller of checkout()\n" in result.stdout
    assert result.stdout.count("Find every caller") == 1
