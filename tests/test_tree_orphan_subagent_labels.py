"""A sub-agent whose spawning call is not in what was read of its lead (the lead's file
cut before it, or the call in a part not written) is named in `tree` and marked in
`show` by what its own files record (its type, the name its lead gave it, its task), as
when the spawn is read: not by the start of its id, which for gptme is `subagent` for
every one of them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from tests.helpers import dated_now

DATA = Path(__file__).parent / "data"


def run(home: Path, *args: str) -> str:
    result = CliRunner().invoke(main, [*args, "--home", str(home)])
    assert result.exit_code == 0, result.output
    return result.stdout


def mark(shown: str, said: str) -> str:
    """The mark `show` puts on the lines of the sub-agent told `said`."""
    told = next(line for line in shown.splitlines() if f"⇠ the lead: {said}" in line)
    return told.split("⇠")[0].strip().removeprefix("↳ ")


# gptme 0.35.1, as the conformance suite ran it: a lead whose thread sub-agent names it
GPTME_LOGS = Path(".local/share/gptme/logs")
GPTME_LEAD = "checkout-subagent"
GREETER = "subagent-greeter-be5v"
GREETER_TASK = "SCENARIO=child You are a sub-agent."


def _gptme_home(tmp_path: Path) -> Path:
    """The real lead cut before its `subagent(...)` call, and a second sub-agent of it
    (the first one's folder copied, named `tester` in its registry entry)."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "gptme" / "real" / "home", home)
    logs = home / GPTME_LOGS
    lead = logs / GPTME_LEAD / "conversation.jsonl"
    lines = lead.read_text().splitlines(keepends=True)
    cut = next(i for i, line in enumerate(lines) if "subagent(" in line)
    lead.write_text("".join(lines[:cut]))
    tester = logs / "subagent-tester-x7q2"
    shutil.copytree(logs / GREETER, tester)
    meta = json.loads((tester / "subagent-meta.json").read_text())
    meta.update(agent_id="tester", prompt="Run the test suite and report failures.")
    meta["started_at"] += 1
    (tester / "subagent-meta.json").write_text(json.dumps(meta))
    conversation = tester / "conversation.jsonl"
    conversation.write_text(
        conversation.read_text().replace(
            "SCENARIO=child You are a sub-agent. Run the shell command "
            "`echo hello-from-subagent` and report what it printed. SLOW=8",
            "Run the test suite and report failures.",
        )
    )
    return home


def test_gptme_tree_names_a_sub_agent_whose_spawn_is_cut_by_its_registry_entry(
    tmp_path: Path,
) -> None:
    home = _gptme_home(tmp_path)
    tree = json.loads(run(home, "tree", GPTME_LEAD, "--json"))
    named = {
        child["id"]: (child["agent_type"], child["agent_name"], child["description"])
        for child in tree["children"]
    }
    assert set(named) == {GREETER, "subagent-tester-x7q2"}
    kind, name, task = named[GREETER]
    # the lead's own name (config.toml's, which the sub-agent inherits) said nothing
    assert (kind, name) == ("subagent", "greeter") and task.startswith(GREETER_TASK)
    assert named["subagent-tester-x7q2"] == (
        "subagent",
        "tester",
        "Run the test suite and report failures.",
    )
    text = run(home, "tree", GPTME_LEAD)
    assert "subagent greeter" in text and "subagent tester" in text


def test_gptme_show_marks_two_sub_agents_whose_spawns_are_cut_apart(
    tmp_path: Path,
) -> None:
    shown = run(_gptme_home(tmp_path), "show", GPTME_LEAD)
    greeter = mark(shown, GREETER_TASK)
    tester = mark(shown, "Run the test suite")
    assert greeter != tester  # both were `subagent`, the start of their ids
    # `subagent` started `subagent tester-x`: its lines read as the greeter's
    assert not tester.startswith(greeter) and not greeter.startswith(tester)
    assert f"Spawned sub-agent {tester} — Run the test suite" in shown


# Crush: a lead whose `agent` call spawned a child session (`<message id>$$<call id>`)
CRUSH_DB = Path("code/shop-api/.crush/crush.db")
CRUSH_LEAD = "8c1f2e3d-4a5b-4c6d-9e7f-0a1b2c3d4e5f"
CRUSH_CHILD = "m-assistant-1$$call_agent_1"
CRUSH_TASK = "Find every caller of checkout()"


def _crush_home(tmp_path: Path, *, cut: bool) -> Path:
    """The fixture home; with `cut`, the lead's message that holds the `agent` call
    keeps its text alone (the call's part gone), its answer still there."""
    import sqlite3

    home = tmp_path / ("cut" if cut else "whole")
    shutil.copytree(DATA / "crush" / "home", home)
    if cut:
        db = sqlite3.connect(home / CRUSH_DB)
        db.execute(
            "UPDATE messages SET parts = ? WHERE id = 'm-assistant-1'",
            ('[{"type":"text","data":{"text":"A sub-agent finds the callers."}}]',),
        )
        db.commit()
        db.close()
    return home


def test_crush_tree_names_a_child_session_whose_call_is_cut_by_its_task(
    tmp_path: Path,
) -> None:
    seen = json.loads(
        run(_crush_home(tmp_path, cut=False), "tree", CRUSH_LEAD, "--json")
    )
    cut = json.loads(run(_crush_home(tmp_path, cut=True), "tree", CRUSH_LEAD, "--json"))
    [child] = cut["children"]
    # "New Agent Session", the title Crush gives every child session, said nothing
    assert (child["id"], child["agent_type"], child["description"]) == (
        CRUSH_CHILD,
        "agent",
        CRUSH_TASK,
    )
    [whole] = seen["children"]
    for key in ("agent_type", "description", "status", "tool_calls", "events"):
        assert child[key] == whole[key], key


def test_crush_show_marks_a_child_session_whose_call_is_cut_by_its_type(
    tmp_path: Path,
) -> None:
    shown = run(_crush_home(tmp_path, cut=True), "show", CRUSH_LEAD)
    assert mark(shown, CRUSH_TASK) == "agent"  # was "m-assist", its id's start
    assert f"Spawned sub-agent agent {CRUSH_CHILD[:8]} — {CRUSH_TASK}" in shown


def test_crush_show_bills_a_child_session_whose_call_is_cut_once(
    tmp_path: Path,
) -> None:
    """The lead's row's cost holds its child's: the child read with the lead is taken
    off it, as when the call is there, in a whole read and in a tail's alike."""

    def costs(home: Path, *args: str, last: int | None = None) -> list[float]:
        shown = json.loads(run(home, "show", CRUSH_LEAD, "--json", *args))
        return [
            e["extra"]["app_cost_usd"]
            for e in shown[-last if last else 0 :]
            if e["kind"] == "usage"
        ]

    whole, cut = _crush_home(tmp_path, cut=False), _crush_home(tmp_path, cut=True)
    assert costs(cut) == costs(whole)  # the lead's own, then its child's
    # the whole read's last 2 events, the child's among them where it is read after
    # the lead's (its call cut): the child's usage once, the lead's holding it no more
    assert costs(cut, "--tail", "2") == costs(cut, last=2) == [0.006, costs(whole)[-1]]
    assert costs(whole, "--tail", "2") == costs(whole, last=2) == costs(whole)[-1:]


def test_crush_usage_bills_a_lead_whose_call_is_cut_as_a_whole_one(
    tmp_path: Path,
) -> None:
    def billed(home: Path) -> float:
        rows = json.loads(run(home, "usage", "session", "--json", "--app", "crush"))
        return next(r["cost_usd"] for r in rows if r["id"] == CRUSH_LEAD)

    whole, cut = _crush_home(tmp_path, cut=False), _crush_home(tmp_path, cut=True)
    assert billed(cut) == billed(whole) == 0.042  # was 0.048: its child's twice


# Qwen Code 0.24: a chat whose `agent` call wrote a transcript under subagents/
QWEN_PROJECT = Path(".qwen/projects/-home-alex-code-shop-api")
QWEN_LEAD = "7b3c1f0e-5a2d-4c8b-9e6f-1a2b3c4d5e6f"
QWEN_CHILD = "general-purpose-call_8f2b1c9d0e"
QWEN_TASK = "Run `echo hello` and report what it printed."


def _qwen_home(tmp_path: Path) -> Path:
    """The chat cut after its first prompt (before the `agent` call), and the
    transcript's meta gone (best effort in Qwen: it may be missing)."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "qwen" / "subagents" / "home", home)
    chat = home / QWEN_PROJECT / "chats" / f"{QWEN_LEAD}.jsonl"
    chat.write_text(chat.read_text().splitlines(keepends=True)[0])
    folder = home / QWEN_PROJECT / "subagents" / QWEN_LEAD
    (folder / f"agent-{QWEN_CHILD}.meta.json").unlink()
    return home


def test_qwen_tree_describes_a_sub_agent_whose_call_and_meta_are_gone_by_its_task(
    tmp_path: Path,
) -> None:
    home = _qwen_home(tmp_path)
    [child] = json.loads(run(home, "tree", QWEN_LEAD, "--json"))["children"]
    # its type from its records' agentName, its task as its title in `list`
    assert (child["id"], child["agent_type"], child["description"]) == (
        QWEN_CHILD,
        "general-purpose",
        QWEN_TASK,
    )
    shown = run(home, "show", QWEN_LEAD)
    # its id's start past its type, which `show` takes: its name in every command
    assert f"Spawned sub-agent {QWEN_CHILD[:24]} — {QWEN_TASK}" in shown


# Mistral Vibe 3.0.3, real: a lead whose `agents.spawn` effect names its child store
VIBE_UNIFIED = Path(".vibe/logs/session/unified")
VIBE_LEAD = "eae5d633-fbfe-66b9-560c-e053d1f0c815"
VIBE_CHILD = "child-997a820f78bcf95c9f61d736"
VIBE_TASK = "SCENARIO=child You are a sub-agent."


def _vibe_home(tmp_path: Path, *, cut: bool) -> Path:
    """The real home; with `cut`, the lead's transcript without its spawn effect (a
    store is read, not verified: the chunks keep their names)."""
    home = tmp_path / ("cut" if cut else "whole")
    shutil.copytree(DATA / "vibe" / "live-subagent", home)
    if cut:
        for chunk in (home / VIBE_UNIFIED / VIBE_LEAD / "chunks").iterdir():
            entries = json.loads(chunk.read_text())
            if isinstance(entries, list):
                kept = [
                    e for e in entries if e.get("detail", {}).get("kind") != "subagent"
                ]
                chunk.write_text(json.dumps(kept))
    return home


def test_vibe_tree_names_a_child_store_whose_spawn_is_gone_as_its_lead_did(
    tmp_path: Path,
) -> None:
    whole = run(_vibe_home(tmp_path, cut=False), "tree", VIBE_LEAD, "--json")
    cut = run(_vibe_home(tmp_path, cut=True), "tree", VIBE_LEAD, "--json")
    [seen] = json.loads(whole)["children"]
    [child] = json.loads(cut)["children"]
    assert child["id"] == VIBE_CHILD
    # its name from its lead's runtime state, its task from its own store
    assert child["agent_name"] == seen["agent_name"] == "greeter"
    assert child["description"].startswith(VIBE_TASK)


def test_vibe_show_marks_a_child_store_whose_spawn_is_gone_by_its_name(
    tmp_path: Path,
) -> None:
    shown = run(_vibe_home(tmp_path, cut=True), "show", VIBE_LEAD)
    assert mark(shown, VIBE_TASK) == "greeter"  # was "child-d6", its id's start


def test_a_label_from_a_sub_agents_own_file_is_one_clean_bounded_line(
    tmp_path: Path,
) -> None:
    """The name and task a registry entry holds are untrusted: no escape reaches the
    terminal, and the mark and the tree's line stay one short line."""
    home = _gptme_home(tmp_path)
    meta_path = home / GPTME_LOGS / "subagent-tester-x7q2" / "subagent-meta.json"
    meta = json.loads(meta_path.read_text())
    meta.update(
        agent_id="ev\x1b[31mil\nname" + "x" * 300,
        profile="pro\x1b]0;owned\x07file\u202e" + "y" * 300,
        prompt="Run\x1b[2J the\ntests " + "z" * 5000,
    )
    meta_path.write_text(json.dumps(meta))
    for command in ("tree", "show"):
        shown = run(home, command, GPTME_LEAD)
        assert "\x1b" not in shown and "\x07" not in shown and "\u202e" not in shown
    tree = run(home, "tree", GPTME_LEAD)
    [line] = [line for line in tree.splitlines() if "Run the tests" in line]
    assert len(line) < 200
    shown = run(home, "show", GPTME_LEAD)
    [spawned] = [line for line in shown.splitlines() if "— Run the tests" in line]
    assert len(spawned) < 200  # its type was said whole: 300 characters


def _qwen_unanswered(tmp_path: Path, *, meta: bool, ended: bool = True) -> Path:
    """The chat cut after its first prompt, as while its `agent` call ran (the lead
    runs); the sub-agent's meta, naming that call, kept or gone; its transcript whole
    (ended on its answer) or cut before its last record."""
    home = _qwen_home(tmp_path)
    folder = home / QWEN_PROJECT / "subagents" / QWEN_LEAD
    if meta:
        shutil.copy(
            DATA / "qwen" / "subagents" / "home" / QWEN_PROJECT / "subagents"
            / QWEN_LEAD / f"agent-{QWEN_CHILD}.meta.json",
            folder,
        )  # fmt: skip
    if not ended:
        transcript = folder / f"agent-{QWEN_CHILD}.jsonl"
        transcript.write_text(
            "".join(transcript.read_text().splitlines(keepends=True)[:-1])
        )
    dated_now(home)  # the lead still at work: written a moment ago
    return home


def _qwen_statuses(home: Path) -> tuple[str, str]:
    tree = json.loads(run(home, "tree", QWEN_LEAD, "--json"))
    [child] = tree["children"]
    assert child["id"] == QWEN_CHILD
    return tree["status"], child["status"]


def test_qwen_a_sub_agent_whose_call_is_unanswered_is_done_at_its_own_answer(
    tmp_path: Path,
) -> None:
    for meta in (True, False):
        home = _qwen_unanswered(tmp_path / str(meta), meta=meta)
        # its transcript ended on its answer: done, while its lead runs on
        assert _qwen_statuses(home) == ("running", "done"), meta


def test_qwen_a_sub_agent_whose_call_is_unanswered_runs_until_its_answer(
    tmp_path: Path,
) -> None:
    home = _qwen_unanswered(tmp_path, meta=True, ended=False)
    assert _qwen_statuses(home) == ("running", "running")
