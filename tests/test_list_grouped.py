"""`list --all` and `find --all` put each sub-agent right under its lead, on both listing
paths."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .helpers import (
    NESTED,
    SPAWNER,
    SUBAGENT_RUN,
    claude_line,
    nested_claude_run,
    write_claude_session,
)
from .test_quick import answered, settled

OLD = "11111111-0000-4000-8000-000000000001"
NEW = "22222222-0000-4000-8000-000000000002"
GONE = "33333333-0000-4000-8000-000000000003"  # a lead whose transcript is gone


def write_sub_agent(home: Path, lead: str, agent: str, when: str, task: str) -> None:
    """A Claude Code sub-agent of `lead`, begun at `when` (its answer five seconds on)."""
    folder = home / ".claude/projects/-srv-shop" / lead / "subagents"
    folder.mkdir(parents=True, exist_ok=True)
    common = {"isSidechain": True, "agentId": agent}
    lines = [
        claude_line(
            lead, "/srv/shop", type="user", uuid=f"{agent}u", parentUuid=None,
            timestamp=when, message={"role": "user", "content": task}, **common,
        ),
        claude_line(
            lead, "/srv/shop", type="assistant", uuid=f"{agent}a",
            parentUuid=f"{agent}u", timestamp=when.replace(":00.000Z", ":05.000Z"),
            requestId=f"req_{agent}", **common,
            message={
                "id": f"msg_{agent}", "role": "assistant", "model": "claude-sonnet-4-5",
                "content": [{"type": "text", "text": "done"}],
                "usage": {"input_tokens": 1, "output_tokens": 1},
            },
        ),
    ]  # fmt: skip
    path = folder / f"agent-{agent}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """Two leads whose sub-agents ran in between each other's, and a sub-agent whose
    lead is gone: by time alone the old lead's sub-agents sit under the new one."""
    home = tmp_path / "home"
    write_claude_session(
        home, OLD, "/srv/shop", title="old lead", when="2026-11-20T09:00:00.000Z"
    )
    write_claude_session(
        home, NEW, "/srv/shop", title="new lead", when="2026-11-20T12:00:00.000Z"
    )
    write_sub_agent(
        home, OLD, "a0000000000000001", "2026-11-20T13:00:00.000Z", "old second"
    )
    write_sub_agent(
        home, OLD, "a0000000000000002", "2026-11-20T09:30:00.000Z", "old first"
    )
    write_sub_agent(
        home, NEW, "a0000000000000003", "2026-11-20T12:30:00.000Z", "new first"
    )
    write_sub_agent(
        home, NEW, "a0000000000000004", "2026-11-20T14:00:00.000Z", "new second"
    )
    write_sub_agent(
        home, GONE, "a0000000000000005", "2026-11-20T10:00:00.000Z", "orphan"
    )
    return settled(home)


# what the titles read, top to bottom, where each sub-agent sits under its lead
GROUPED = [
    "new lead",
    "↳ new first",
    "↳ new second",
    "↳ orphan",  # its lead gone: at its own time, 10:00, between the two leads
    "old lead",
    "↳ old first",
    "↳ old second",
]


def full_run(*args: str, command: str = "list") -> bytes:
    return subprocess.run(
        [sys.executable, "-m", "sessdex", command, *args],
        env={**os.environ, "SESSDEX_NO_QUICK": "1", "COLUMNS": "200"},
        capture_output=True,
        check=True,
    ).stdout


def titles(table: bytes) -> list[str]:
    """Each line's title with its mark, as a person reads the listing."""
    return [line.split("  ", 2)[-1].split(" /srv/shop ")[-1].strip()
            for line in table.decode().splitlines()]  # fmt: skip


def test_each_sub_agent_is_listed_under_its_lead(home: Path) -> None:
    table = full_run("--all", "--home", str(home))
    assert titles(table) == GROUPED, table.decode()


def test_the_warm_listing_groups_them_too(
    home: Path,
    capsysbinary: pytest.CaptureFixture[bytes],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    expected = full_run("--all", "--home", str(home))
    got = answered(["--all", "--home", str(home)], capsysbinary)
    assert got is not None and titles(got) == GROUPED
    assert got == expected
    for options in (["--json"], ["--nl"]):
        args = ["--all", *options, "--home", str(home)]
        assert answered(args, capsysbinary) == full_run(*args)


def test_json_follows_the_same_order(home: Path) -> None:
    records = json.loads(full_run("--all", "--json", "--home", str(home)))
    assert [r["title"] for r in records] == [t.lstrip("↳ ") for t in GROUPED]


def test_find_all_groups_them_as_list_all_does(
    home: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """`find --all` shows what it finds in `list --all`'s order, in the table and in
    `--json`/`--nl`, warm or not."""
    table = full_run("shop", "--all", "--home", str(home), command="find")
    assert titles(table) == GROUPED, table.decode()
    for options in (["--json"], ["--nl"]):
        args = ["shop", "--all", *options, "--home", str(home)]
        found = full_run(*args, command="find")
        records = [json.loads(line) for line in found.splitlines()]
        if options == ["--json"]:
            [records] = records
        assert [r["title"] for r in records] == [t.lstrip("↳ ") for t in GROUPED]
        assert answered(args, capsysbinary, "find") == found
    args = ["shop", "--all", "--home", str(home)]
    warm = answered(args, capsysbinary, "find")
    assert warm is not None and titles(warm) == GROUPED
    # the words picking only some: each sub-agent found still sits under its lead found
    old = full_run("old", "--all", "--json", "--home", str(home), command="find")
    assert [r["title"] for r in json.loads(old)] == [
        "old lead",
        "old first",
        "old second",
    ]


def test_limit_takes_the_first_lines_of_the_grouped_listing(
    home: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """`--limit 4` is the first four lines `list --all` shows: a lead and all its
    sub-agents, then the next lead, not the four newest sessions by their own time."""
    args = ["--all", "--limit", "4", "--home", str(home)]
    table = full_run(*args)
    assert titles(table) == GROUPED[:4]
    assert answered(args, capsysbinary) == table


def test_a_lead_filtered_out_leaves_its_sub_agents_at_their_own_time(
    home: Path,
) -> None:
    table = full_run("--all", "--since", "2026-11-20T11:00", "--home", str(home))
    # the old lead's sub-agent begun at 13:00 stays by its own time: first
    assert titles(table) == ["↳ old second", "new lead", "↳ new first", "↳ new second"]


def test_nested_sub_agents_are_indented_by_depth() -> None:
    """(app, id, parent, started) newest first: a sub-agent's sub-agent after it."""
    from sessdex.selection import listing_depths, under_leads

    rows = [
        ("claude", "child", "sub", "2026-11-20T10:10:00Z"),
        ("claude", "sub", "lead", "2026-11-20T10:00:00Z"),
        ("codex", "other", None, "2026-11-20T09:30:00Z"),
        ("claude", "lead", None, "2026-11-20T09:00:00Z"),
        ("codex", "stray", "lead", "2026-11-20T08:00:00Z"),  # another app's lead
    ]
    ordered = [rows[n] for n in under_leads(rows)]
    assert [row[1] for row in ordered] == ["other", "lead", "sub", "child", "stray"]
    assert listing_depths((r[0], r[1], r[2]) for r in ordered) == [0, 0, 1, 2, 1]


def test_a_sub_agents_own_sub_agent_is_marked_one_deeper(
    tmp_path: Path,
    capsysbinary: pytest.CaptureFixture[bytes],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Claude Code's nested sub-agent (the real 2.1.197 run, a sub-agent spawning one):
    under the sub-agent that spawned it, `  ↳`, on both paths."""
    home = tmp_path / "home"
    nested_claude_run(home)
    settled(home)
    monkeypatch.setenv("COLUMNS", "200")
    args = ["--all", "--home", str(home)]
    table = full_run(*args)
    records = json.loads(full_run(*args, "--json"))
    ids = [r["id"] for r in records]
    assert ids == [SUBAGENT_RUN, SPAWNER, NESTED]
    columns = [line.find("↳") for line in table.decode().splitlines()]
    assert columns[0] == -1 and columns[1] > 0 and columns[2] == columns[1] + 2
    assert answered(args, capsysbinary) == table
