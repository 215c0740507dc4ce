"""`tree` in a copied home (`cp -r`: every file's mtime is now): a sub-agent the transcripts
show finished is done, whatever its file's time says, and one its records left mid-call
long ago has stopped, as `watch` says; a spawn and the sub-agent it started are one node,
not two."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from tests.helpers import dated, dated_now

DATA = Path(__file__).parent / "data"
CORPUS = Path(__file__).parents[2] / "shared" / "corpus"


def _copied(source: Path, home: Path) -> None:
    """A home copied as `cp -r` copies it: every file written now (copytree would keep
    the files' times)."""
    shutil.copytree(source, home)
    for path in home.rglob("*"):
        os.utime(path)


def _tree(home: Path, session_id: str) -> dict[str, object]:
    result = CliRunner().invoke(
        main, ["tree", session_id, "--json", "--home", str(home)]
    )
    assert result.exit_code == 0, result.output
    value = json.loads(result.stdout)
    assert isinstance(value, dict)
    return value


def test_a_sub_agent_that_ended_its_turn_is_done_in_a_fresh_copy(
    tmp_path: Path,
) -> None:
    """The lead's file stops at the spawn (its result not written yet, or cut), the child's
    transcript ends with its final answer and end of turn: done, not running, though
    every file was written a moment ago."""
    home = tmp_path / "home"
    _copied(DATA / "claude" / "home", home)
    project = home / ".claude/projects/-home-alex-code-shop-api"
    lead = project / "82d9f90c-3f87-46b4-b09c-58027a5e630c.jsonl"
    lines = lead.read_text().splitlines(keepends=True)
    [spawn] = [n for n, line in enumerate(lines) if '"tool_use"' in line]
    lead.write_text("".join(lines[: spawn + 1]))
    [child] = _tree(home, "82d9f90c")["children"]  # type: ignore[misc]
    assert (child["id"], child["status"]) == ("a199d630441234c05", "done")
    shown = CliRunner().invoke(main, ["tree", "82d9f90c", "--home", str(home)])
    assert "general-purpose [done] Greeting sub-agent" in shown.output, shown.output
    # mid tool call, nothing says it finished: still running while it wrote recently
    transcript = project / lead.stem / "subagents" / "agent-a199d630441234c05.jsonl"
    transcript.write_text("".join(transcript.read_text().splitlines(True)[:3]))
    dated_now(lead, transcript)
    [child] = _tree(home, "82d9f90c")["children"]  # type: ignore[misc]
    assert child["status"] == "running"


def test_a_spawn_nothing_links_to_its_sub_agent_is_one_node(tmp_path: Path) -> None:
    """agent-sessions' Claude sample: the Task call has no id, the sub-agent's meta.json no
    `toolUseId`, the lead no result. The spawn and the sub-agent it started are one node,
    announced once, not a spawn with no work under it beside an agent from nowhere."""
    home = DATA / "claude" / "home"
    root = _tree(home, "0a1b2c3d")
    [child] = root["children"]  # type: ignore[misc]
    assert (child["id"], child["agent_type"], child["description"]) == (
        "a0ad4f44468bdf20d",
        "general-purpose",
        "search files",
    )
    assert child["tool_calls"] == 1  # its own work, under the spawn
    shown = CliRunner().invoke(
        main, ["show", "0a1b2c3d", "--no-pager", "--home", str(home)]
    )
    assert shown.output.count("Spawned sub-agent") == 1, shown.output


def test_a_live_spawn_links_to_its_sub_agent_by_type_and_description(
    tmp_path: Path,
) -> None:
    """A lead still waiting on its sub-agent, on a build whose meta.json names no call:
    the sub-agent's file is the spawn's, the one whose type and description match."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "claude" / "home", home)
    project = home / ".claude/projects/-home-alex-code-shop-api"
    lead = project / "82d9f90c-3f87-46b4-b09c-58027a5e630c.jsonl"
    lines = lead.read_text().splitlines(keepends=True)
    [spawn] = [n for n, line in enumerate(lines) if '"tool_use"' in line]
    lead.write_text("".join(lines[: spawn + 1]))
    folder = project / lead.stem / "subagents"
    meta = folder / "agent-a199d630441234c05.meta.json"
    fields = json.loads(meta.read_text())
    del fields["toolUseId"]
    meta.write_text(json.dumps(fields))
    # another agent's file, of another type, that no spawn here started
    other = folder / "agent-b000000000000000.jsonl"
    other.write_text((folder / "agent-a199d630441234c05.jsonl").read_text())
    (folder / "agent-b000000000000000.meta.json").write_text(
        json.dumps({"agentType": "Explore", "description": "Look around"})
    )
    children = _tree(home, "82d9f90c")["children"]
    assert [(c["id"], c["description"]) for c in children] == [  # type: ignore[index]
        ("a199d630441234c05", "Greeting sub-agent"),
        ("b000000000000000", "Look around"),
    ]


def test_a_sub_agent_its_stop_hook_let_stop_is_done(tmp_path: Path) -> None:
    """The agent-sessions sample keeps the sub-agent's SubagentStop hook line but not its
    final answer: the hook ran and let it stop, so it finished. A hook that answered
    `{"decision": "block"}` kept it going: not done."""
    home = tmp_path / "home"
    _copied(DATA / "claude" / "home", home)
    [child] = _tree(home, "0a1b2c3d")["children"]  # type: ignore[misc]
    assert (child["id"], child["status"]) == ("a0ad4f44468bdf20d", "done")
    [transcript] = home.rglob("agent-a0ad4f44468bdf20d.jsonl")
    lines = transcript.read_text().splitlines(keepends=True)
    hook = json.loads(lines[-1])
    hook["attachment"]["stdout"] = '{"decision": "block", "reason": "run the tests"}'
    transcript.write_text("".join([*lines[:-1], json.dumps(hook) + "\n"]))
    folder = transcript.parents[1]  # the lead's, beside its file
    dated_now(folder, folder.with_suffix(".jsonl"))
    [child] = _tree(home, "0a1b2c3d")["children"]  # type: ignore[misc]
    assert child["status"] == "running"


def test_a_compaction_after_the_turn_ended_leaves_the_agent_done(
    tmp_path: Path,
) -> None:
    """pi compacts its context once a turn has ended (a real pi 0.74 capture): the lead
    is done, as `watch` says it ended, not running because its file is fresh. A
    compaction mid-turn is work still going on."""
    from sessdex.model import Event
    from sessdex.tree import build_tree

    home = tmp_path / "home"
    _copied(DATA / "pi" / "home", home)
    assert _tree(home, "019e19b4")["status"] == "done"

    def ev(n: int, kind: str) -> Event:
        return Event("s", n, kind)  # type: ignore[arg-type]

    mid_turn = [ev(0, "user"), ev(1, "tool_call"), ev(2, "tool_result"), ev(3, "compaction")]  # fmt: skip
    assert build_tree("s", mid_turn).status == "running"


def test_a_year_old_session_in_a_fresh_copy_has_stopped_as_watch_says(
    tmp_path: Path,
) -> None:
    """A home copied with `cp -r`: every file written now, its records a year old. The
    sub-agent mid tool call is not running these 30 minutes: `tree` goes by the records'
    times, as `watch`, which says the session ended; the file's time is a copy's."""
    home = tmp_path / "home"
    _copied(DATA / "claude" / "home", home)
    project = home / ".claude/projects/-home-alex-code-shop-api"
    lead = project / "82d9f90c-3f87-46b4-b09c-58027a5e630c.jsonl"
    lines = lead.read_text().splitlines(keepends=True)
    [spawn] = [n for n, line in enumerate(lines) if '"tool_use"' in line]
    lead.write_text("".join(lines[: spawn + 1]))
    transcript = project / lead.stem / "subagents" / "agent-a199d630441234c05.jsonl"
    transcript.write_text("".join(transcript.read_text().splitlines(True)[:3]))
    now = time.time()
    dated([lead, transcript], now - 365 * 86400)
    for path in home.rglob("*"):  # copied a minute ago (`watch` takes a file
        os.utime(path, (now - 60, now - 60))  # changed as it starts for written)
    root = _tree(home, "82d9f90c")
    [child] = root["children"]  # type: ignore[misc]
    assert (root["status"], child["status"]) == ("stopped", "stopped")
    shown = CliRunner().invoke(main, ["tree", "82d9f90c", "--home", str(home)])
    assert "[running]" not in shown.output, shown.output
    watched = CliRunner().invoke(
        main, ["watch", "--json", "--since", "100000d", "--home", str(home)]
    )
    [row] = [r for r in json.loads(watched.stdout) if r["id"].startswith("82d9f90c")]
    assert row["status"] == "ended", row["reason"]
