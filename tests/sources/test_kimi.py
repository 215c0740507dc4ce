"""Kimi CLI quirks: state.json titles, md5 work-dir folders, sub-agents inline in the wire."""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Session, Usage, merge
from sessdex.sources import Home, kimi
from tests.helpers import LIST_PATHS, list_rows, settle

DATA = Path(__file__).parent.parent / "data" / "kimi"
MAIN = "3f6c1d2e-8a4b-4c5d-9e6f-7a8b9c0d1e2f"
CHILD = "a7c3e9f0-1b2c-4d5e-8f90-123456789abc"
OLD = "5b7e2a10-1c3d-4e5f-8a9b-0c1d2e3f4a5b"
LEDGER_DIR = "83966a3838d499c6ec0c7147091f7d31"  # md5("/home/dev/code/ledger")


def sessions(home: Home) -> dict[str, Session]:
    location = kimi.locate(home)
    parts: dict[str, list[Session]] = {}
    for path in kimi.scan(location):
        for session in kimi.parse(path, location, Diagnostics()):
            parts.setdefault(session.id, []).append(session)
    return {key: merge(value) for key, value in parts.items()}


def events(session: Session, diagnostics: Diagnostics | None = None) -> list[Event]:
    return list(kimi.read(session, diagnostics or Diagnostics()))


def test_the_state_title_wins_over_the_first_prompt(tmp_path: Path) -> None:
    found = sessions(Home.at(DATA / "home"))
    assert found[MAIN].title == "Speed up the test suite"
    assert found[MAIN].path and found[MAIN].path.endswith(
        "wire.jsonl"
    )  # the transcript stays the file
    assert (
        found[OLD].title == "Add a /health endpoint"
    )  # no custom title: the first prompt
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    (home / ".kimi" / "sessions" / LEDGER_DIR / MAIN / "state.json").unlink()
    assert sessions(Home.at(home))[MAIN].title == "Find out why the test suite is slow"


def test_cwd_comes_from_kimi_json_through_the_md5_folder_name() -> None:
    found = sessions(Home.at(DATA / "home"))
    assert found[MAIN].cwd == "/home/dev/code/ledger"
    assert found[OLD].cwd == "/home/dev/code/api"
    assert found[CHILD].cwd == "/home/dev/code/ledger"


def test_sub_agent_is_listed_with_its_parent_and_events_inline() -> None:
    found = sessions(Home.at(DATA / "home"))
    child = found[CHILD]
    assert (child.parent_id, child.agent_type, child.title, child.model) == (
        MAIN,
        "coder",
        "Profile tests",
        "kimi-k2-turbo-preview",
    )
    got = events(found[MAIN])
    spawn = [e for e in got if e.kind == "subagent"]
    assert len(spawn) == 1  # inline, and not appended again from subagents/
    assert (spawn[0].call_id, spawn[0].text, spawn[0].agent_id) == (
        "Agent:1",
        "Profile tests",
        None,
    )
    assert spawn[0].extra == {"child_id": CHILD, "agent_type": "coder"}
    inline = [e.kind for e in got if e.agent_id == CHILD]
    assert inline == [
        "user",
        "tool_call",
        "usage",
        "tool_result",
        "assistant",
        "usage",
        "turn_end",
    ]
    assert [e.kind for e in events(child)] == inline  # its own wire says the same


def test_a_background_sub_agent_is_appended_from_its_own_wire(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    wire = home / ".kimi" / "sessions" / LEDGER_DIR / MAIN / "wire.jsonl"
    kept = [
        line for line in wire.read_text().splitlines() if '"SubagentEvent"' not in line
    ]
    wire.write_text("\n".join(kept) + "\n")
    got = events(sessions(Home.at(home))[MAIN])
    spawn = next(e for e in got if e.kind == "subagent")
    assert spawn.seq == len(got) - 9 and spawn.extra["child_id"] == CHILD
    assert all(e.agent_id == CHILD for e in got[spawn.seq + 1 :])
    # how the run ended is its meta.json's status: a killed run may have no turn end
    from sessdex.tree import build_tree

    meta = (
        home / ".kimi/sessions" / LEDGER_DIR / MAIN / "subagents" / CHILD / "meta.json"
    )
    child_wire = meta.parent / "wire.jsonl"
    child_wire.write_text("".join(child_wire.read_text().splitlines(keepends=True)[:5]))
    for status, shown in (
        ("running_background", "running"),
        ("failed", "failed"),
        ("killed", "done"),
    ):
        meta.write_text(json.dumps({**json.loads(meta.read_text()), "status": status}))
        [node] = build_tree(MAIN, events(sessions(Home.at(home))[MAIN])).children
        assert (node.id, node.status) == (CHILD, shown)


def test_usage_is_one_event_per_status_update() -> None:
    got = events(sessions(Home.at(DATA / "home"))[MAIN])
    usage = [e for e in got if e.kind == "usage"]
    assert len(usage) == 5
    main = sum(
        (e.usage for e in usage if e.usage and e.agent_id is None), start=Usage()
    )
    child = sum(
        (e.usage for e in usage if e.usage and e.agent_id == CHILD), start=Usage()
    )
    assert (main.input_tokens, main.output_tokens, main.cache_read_tokens) == (
        1800,
        210,
        7500,
    )
    assert (child.input_tokens, child.output_tokens, child.cache_read_tokens) == (
        1100,
        100,
        4600,
    )


def test_a_repeated_status_update_counts_once(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    wire = home / ".kimi" / "sessions" / LEDGER_DIR / MAIN / "wire.jsonl"
    lines = wire.read_text().splitlines()
    first = next(line for line in lines if '"chatcmpl-1"' in line)
    wire.write_text("\n".join([*lines, first]) + "\n")
    usage = [e for e in events(sessions(Home.at(home))[MAIN]) if e.kind == "usage"]
    assert len(usage) == 5


def test_errors_compaction_and_turns() -> None:
    got = events(sessions(Home.at(DATA / "home"))[MAIN])
    main = [e for e in got if e.agent_id is None]
    assert [e.text for e in main if e.kind == "error"] == [
        "retrying after APIConnectionError",
        "step interrupted",
    ]
    assert [e.kind for e in main].count("compaction") == 1
    assert [e.kind for e in main].count("turn_end") == 1
    assert (
        next(e for e in main if e.kind == "thinking").text
        == "I should run pytest with durations."
    )
    call = next(e for e in main if e.kind == "tool_call")
    assert call.extra["input"] == {
        "description": "Profile tests",
        "prompt": "Profile the three slowest tests and report.",
        "subagent_type": "coder",
    }


def test_an_older_session_is_read_from_its_context() -> None:
    found = sessions(Home.at(DATA / "home"))
    got = events(found[OLD])
    assert [e.kind for e in got] == [
        "user",
        "thinking",
        "assistant",
        "tool_call",
        "tool_result",
        "assistant",
    ]
    assert all(e.time is None for e in got)  # context.jsonl has no times


def test_resume_refuses_a_restored_yolo_and_skips_sub_agents() -> None:
    """kimi-cli 1.49 reopens a session at the yolo saved in its state.json, whatever
    the flags (`effective_yolo = yolo or session.state.approval.yolo`, soul/agent.py),
    and no flag lowers it: refused unless kept, as Copilot's Allow All is."""
    found = sessions(Home.at(DATA / "home"))
    plan = kimi.resume(found[MAIN])
    assert plan is not None
    assert plan.argv == ("kimi", "--session", MAIN)
    assert (plan.cwd, plan.program, plan.withheld) == (
        "/home/dev/code/ledger",
        "kimi",
        (),
    )
    assert plan.restores_looser == "yolo approval"
    kept = kimi.resume(found[MAIN], keep_permissions=True)
    assert kept is not None and kept.argv[-1] == "--yolo" and kept.withheld == ()
    assert not kept.restores_looser
    plan_mode = kimi.resume(replace(found[MAIN], permission_mode="plan"))
    assert (
        plan_mode is not None and plan_mode.argv[-1] == "--plan"
    )  # stricter than the default
    assert kimi.resume(found[CHILD]) is None
    old = kimi.resume(found[OLD])
    assert old is not None and old.withheld == () and old.cwd == "/home/dev/code/api"


def test_a_wire_with_only_its_header_is_not_a_session(tmp_path: Path) -> None:
    folder = tmp_path / ".kimi" / "sessions" / "abc" / "s-empty"
    folder.mkdir(parents=True)
    (folder / "wire.jsonl").write_text(
        json.dumps({"type": "metadata", "protocol_version": "1.9"}) + "\n"
    )
    assert sessions(Home.at(tmp_path)) == {}


def test_a_session_not_reopened_since_1_29_keeps_its_title_in_metadata_json(
    tmp_path: Path,
) -> None:
    """kimi-cli session_state.py moves `metadata.json` (title, archived) into state.json
    on first load (CHANGELOG 1.29.0): a session never reopened since still has only it."""
    import json

    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    folder = home / ".kimi" / "sessions" / "e32247ebaf80119f9feb17957c5ede2c" / OLD
    (folder / "state.json").unlink()
    (folder / "metadata.json").write_text(
        json.dumps({"title": "Fix the pagination bug", "archived": True})
    )
    found = sessions(Home.at(home))[OLD]
    assert found.title == "Fix the pagination bug" and found.extra["archived"] is True
    (folder / "metadata.json").write_text(json.dumps({"title": "Untitled"}))
    assert sessions(Home.at(home))[OLD].title == "Add a /health endpoint"


def test_an_approval_request_nobody_answered_waits_for_the_user(tmp_path: Path) -> None:
    """Kimi CLI's wire records each approval request (a sub-agent's too, forwarded) and
    its answer: until the answer, the session waits for the user, no guess needed."""
    from sessdex.status import Tracker, decide

    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    [wire] = home.rglob(f"{MAIN}/wire.jsonl")
    lines = wire.read_text().splitlines(keepends=True)
    asked = next(i for i, line in enumerate(lines) if '"ApprovalRequest"' in line)

    def status(upto: int) -> tuple[str, str]:
        wire.write_text("".join(lines[:upto]))
        found = events(sessions(Home.at(home))[MAIN])
        tracker = Tracker()
        for e in found:
            tracker.add(e, e.time.timestamp() if e.time else 0.0)
        at = json.loads(lines[asked])["timestamp"]  # when it asked
        got = decide(tracker, at + 20, at, True)
        return got.status, got.reason

    # the sub-agent named as every command names it: its type and its id's start (the
    # request carries its id), where it said the type alone, which two coders share
    assert status(asked + 1) == (
        "waiting_for_user",
        "coder a7c3e9f0: Shell waits for approval (20s)",
    )
    assert status(asked + 2)[0] != "waiting_for_user"  # approved: the agent goes on
    [request] = [
        e for e in events(sessions(Home.at(home))[MAIN]) if e.extra.get("asks")
    ]
    assert request.text == "Shell asks approval to run command: pytest --durations=3 -q"


def test_a_last_timestamp_written_with_an_exponent_is_read_whole(
    tmp_path: Path,
) -> None:
    """The listing reads the newest time from the last line's start; `1.7952517e9` is
    still 2026, not 1.8 s after 1970, and an update never comes before the start."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    wire = home / ".kimi" / "sessions" / LEDGER_DIR / MAIN / "wire.jsonl"
    lines = wire.read_text().splitlines()
    last = json.loads(lines[-1])
    stamp = last["timestamp"]
    lines[-1] = json.dumps(last).replace(
        f'"timestamp": {stamp}', f'"timestamp": {stamp:.7e}'
    )
    assert "e+09" in lines[-1]
    wire.write_text("\n".join(lines) + "\n")
    session = sessions(Home.at(home))[MAIN]
    assert session.updated is not None and session.created is not None
    assert abs(session.updated.timestamp() - stamp) < 100
    lines[-1] = lines[-1].replace(f"{stamp:.7e}", "1e-3")
    wire.write_text("\n".join(lines) + "\n")
    session = sessions(Home.at(home))[MAIN]
    assert session.updated is not None and session.created is not None
    assert session.updated >= session.created


REAL = DATA / "real" / "home"  # kimi-cli 1.51 runs (PROVENANCE.md)
REAL_BASIC = "4126cee7-7a8d-40e9-b56e-546048ada69f"
REAL_PARENT = "64bdeb6f-031a-4d2d-bc48-a44662bbfa06"


def test_a_real_parent_is_not_titled_after_its_sub_agents_task() -> None:
    """kimi-cli 1.51 wrote the sub-agent's task into the parent's state.json as its title;
    the list shows what the user asked instead. A title kimi derived from the user's own
    first prompt stays, and so does one the user set."""
    found = sessions(Home.at(REAL))
    assert found[REAL_PARENT].title == (
        "SCENARIO=subagent Please delegate the greeting command to a sub-agent and report back."
    )
    assert found[REAL_BASIC].title == "SCENARIO=basic Please run the greeting shell…"
    assert found[REAL_PARENT].cwd == "/home/dev/code/shop-api"
    child = found["aa2b6a024"]
    assert (child.parent_id, child.agent_type, child.title) == (
        REAL_PARENT,
        "coder",
        "Greeting sub-agent",
    )


def test_a_title_the_user_set_stays_even_when_it_is_a_sub_agents_task(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    shutil.copytree(REAL, home)
    folder = next((home / ".kimi" / "sessions").glob(f"*/{REAL_PARENT}"))
    state = json.loads((folder / "state.json").read_text())
    (folder / "state.json").write_text(json.dumps(state | {"title_generated": True}))
    assert sessions(Home.at(home))[REAL_PARENT].title == (
        "SCENARIO=child You are a sub-agent. Run the shell…"
    )


def test_real_sessions_read_whole_with_their_usage() -> None:
    """The resumed session holds both turns; the parent's wire carries its sub-agent's calls."""
    found = sessions(Home.at(REAL))
    diagnostics = Diagnostics()
    basic = events(found[REAL_BASIC], diagnostics)
    assert [e.text for e in basic if e.kind == "user"] == [
        "SCENARIO=basic Please run the greeting shell command and tell me what it printed.",
        "SCENARIO=resume Please run the greeting command once more after resuming.",
    ]
    parent = events(found[REAL_PARENT], diagnostics)
    usage = [e.usage for e in parent if e.kind == "usage" and e.usage]
    assert [(u.input_tokens, u.output_tokens) for u in usage] == [(1000, 25)] * 5
    assert {e.agent_id for e in parent if e.kind == "tool_call"} == {None, "aa2b6a024"}
    assert not diagnostics.unknown and not diagnostics.skipped


def test_a_retried_step_is_no_failure_on_the_board() -> None:
    """Kimi CLI writes `StepRetry` before it tries a step again: `watch` read it as the
    turn's error, and once the back-off was 10 s long the session showed `failed`
    (`error: retrying after APIConnectionError`) while kimi was still trying."""
    from sessdex.status import Tracker, decide

    got = events(sessions(Home.at(DATA / "home"))[MAIN])
    retry = next(i for i, e in enumerate(got) if e.text and "retrying" in e.text)
    tracker = Tracker()
    for event in got[: retry + 1]:
        assert event.time is not None
        tracker.add(event, event.time.timestamp())
    at = got[retry].time
    assert at is not None
    status = decide(tracker, at.timestamp() + 30, at.timestamp(), True)
    assert status.status == "working", status


@LIST_PATHS
def test_a_sub_agents_meta_changed_alone_is_read_again_by_a_warm_list(
    listing: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a sub-agent's type, model and title come from its meta.json beside its wire: a
    # warm `list` kept what the meta said before it was cut, a cold one not
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    meta = next(home.rglob(f"subagents/{CHILD}/meta.json"))

    def listed(state: str) -> dict[str, object]:
        return list_rows(home, tmp_path / state, monkeypatch, "--all", listing=listing)[
            CHILD
        ]

    assert listed("warm")["agent_type"] == "coder"
    meta.write_bytes(meta.read_bytes()[:20])
    warm = listed("warm")
    assert warm == listed("cold")
    assert warm["agent_type"] is None


@LIST_PATHS
def test_a_sub_agents_prompt_deleted_alone_lists_its_parents_title_warm_as_cold(
    listing: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the state's title is dropped where it is a sub-agent's task (its prompt.txt):
    # with the prompt gone a cold list shows the state's title, a warm one kept the
    # first prompt until the state changed
    home = tmp_path / "home"
    shutil.copytree(DATA / "real" / "home", home)
    prompt = next(home.rglob("subagents/*/prompt.txt"))
    lead = prompt.parents[2].name

    def title(state: str) -> object:
        rows = list_rows(home, tmp_path / state, monkeypatch, "--all", listing=listing)
        return rows[lead]["title"]

    assert title("warm").startswith("SCENARIO=subagent")
    prompt.unlink()
    assert title("warm") == title("cold")
    assert title("cold").startswith("SCENARIO=child")


def _rewrite_work_dirs(home: Path, edit: str) -> None:
    """kimi.json as kimi-cli rewrites it: `edit` "path" names another work dir,
    "last_session_id" only notes another session begun there."""
    kimi_json = home / ".kimi" / "kimi.json"
    metadata = json.loads(kimi_json.read_text())
    metadata["work_dirs"][0][edit] = (
        "/home/dev/code/elsewhere" if edit == "path" else "0000-begun-since"
    )
    kimi_json.write_text(json.dumps(metadata, indent=2))


@LIST_PATHS
@pytest.mark.parametrize("change", ["path", "deleted"])
def test_kimi_json_changed_alone_lists_the_work_dirs_warm_as_cold(
    listing: str, change: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # each session's cwd is kimi.json's work dir whose md5 names its folder: with that
    # renamed or the file gone a cold list shows none, a warm one kept the old path
    home = tmp_path / "home"
    shutil.copytree(DATA / "real" / "home", home)

    def cwds(state: str) -> dict[str, object]:
        rows = list_rows(home, tmp_path / state, monkeypatch, "--all", listing=listing)
        return {id: row["cwd"] for id, row in rows.items()}

    assert set(cwds("warm").values()) == {"/home/dev/code/shop-api"}
    if change == "path":
        _rewrite_work_dirs(home, "path")
    else:
        (home / ".kimi" / "kimi.json").unlink()
    assert cwds("warm") == cwds("cold")
    assert set(cwds("cold").values()) == {None}


def test_kimi_json_rewritten_for_a_session_begun_reads_no_session_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # kimi-cli rewrites kimi.json at every session's start (`last_session_id`), which
    # no session's listing reads: re-reading every session then made each warm list
    # after a new session as slow as a cold one
    from sessdex.index import Index

    home = tmp_path / "home"
    shutil.copytree(DATA / "real" / "home", home)
    parsed: list[str] = []
    original = kimi.parse

    def parse(path, location, diagnostics):  # type: ignore[no-untyped-def]
        parsed.append(path.name)
        return original(path, location, diagnostics)

    monkeypatch.setattr(kimi, "parse", parse)
    before = list_rows(home, tmp_path / "state", monkeypatch, "--all")
    assert parsed
    parsed.clear()
    _rewrite_work_dirs(home, "last_session_id")
    assert list_rows(home, tmp_path / "state", monkeypatch, "--all") == before
    assert parsed == []  # the full scan's refresh
    _rewrite_work_dirs(home, "last_session_id")
    os.utime(home / ".kimi" / "kimi.json", ns=(1, 1))  # a stat unlike the last one's
    index = Index(Home.at(home))
    try:  # the quick path's refresh of the file alone
        assert index.refresh_file(kimi, str(home / ".kimi" / "kimi.json"))
    finally:
        index.close()
    assert parsed == []
    assert list_rows(home, tmp_path / "state", monkeypatch, "--all") == before
    assert parsed == []


def test_kimi_json_rewritten_for_a_session_begun_prints_the_listing_saved_before(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    # nothing a session lists changed, yet the warm list built its answer anew from
    # every session's record, as after a session's change (479 ms for 2,000 sessions,
    # where nothing changed costs 135): the answer saved for the same request is printed
    from sessdex import quick

    home = tmp_path / "home"
    shutil.copytree(DATA / "real" / "home", home)
    list_rows(home, tmp_path / "state", monkeypatch, "--all")  # the index, cold
    args = ["--json", "--all", "--home", str(home)]
    settle(home)
    assert quick.answer("list", args)  # the answer saved
    before = capsysbinary.readouterr().out
    built: list[int] = []
    parsed: list[str] = []
    body, parse = quick._body, kimi.parse
    monkeypatch.setattr(quick, "_body", lambda *a: built.append(1) or body(*a))
    monkeypatch.setattr(kimi, "parse", lambda *a: parsed.append(1) or parse(*a))
    _rewrite_work_dirs(home, "last_session_id")
    settle(home)
    assert quick.answer("list", args)
    assert capsysbinary.readouterr().out == before
    assert (built, parsed) == ([], [])
    _rewrite_work_dirs(home, "path")  # the meaning changed: the full command lists
    settle(home)
    assert not quick.answer("list", args)


def test_kimi_json_rewritten_for_a_session_begun_loads_no_source_on_a_warm_list(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the warm list loaded the index's writer and Kimi's source to learn that nothing a
    # session lists changed: most of its time, where nothing changed costs none of it
    import subprocess
    import sys

    home = tmp_path / "home"
    shutil.copytree(DATA / "real" / "home", home)
    list_rows(home, tmp_path / "state", monkeypatch, "--all")  # the index, cold
    args = ["list", "--json", "--all", "--home", str(home)]
    probe = (
        "import sys; from sessdex.launch import main; main(); "
        "sys.stderr.write(' '.join(sorted(m for m in sys.modules if m in "
        "('sessdex.sources.kimi', 'sessdex.index', 'sessdex.model'))))"
    )

    def warm() -> tuple[bytes, str]:
        settle(home)
        done = subprocess.run(
            [sys.executable, "-c", probe, *args], capture_output=True, check=True
        )
        return done.stdout, done.stderr.decode()

    before, loaded = warm()
    assert loaded == "" and b"shop-api" in before
    _rewrite_work_dirs(home, "last_session_id")
    assert warm() == (before, "")
    assert warm() == (before, "")  # the new signature kept


def test_each_context_digest_loaded_without_its_source_is_the_sources_own() -> None:
    import importlib

    from sessdex import sources

    for app, module in sources.CONTEXT_DIGESTS.items():
        light = importlib.import_module(f"sessdex.sources.{module}")
        assert sources.get(app).context_digest is light.digest  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("before", "after", "same"),
    [
        ('"last_session_id": "a"', '"last_session_id": "b\\u00e9\\"c"', True),
        ('"last_session_id": "a"', '"last_session_id":"b"', True),
        ('"last_session_id": "a"', '"last_session_id": null', False),
        # a raw tab in the string is no JSON: kimi then reads no work dir at all
        ('"last_session_id": "a"', '"last_session_id": "\tb"', False),
        ('"path": "/w/a"', '"path": "/w/b"', False),
    ],
)
def test_kimi_json_digest_leaves_out_last_session_id_alone(
    tmp_path: Path, before: str, after: str, same: bool
) -> None:
    kimi_json = tmp_path / "kimi.json"
    digests = []
    for member in (before, after):
        text = '{"work_dirs": [{"kaos": "local", ' + member + ', "x": 1}]}'
        if member.startswith('"path"'):
            text = '{"work_dirs": [{' + member + ', "last_session_id": "s"}]}'
        kimi_json.write_text(text)
        digests.append(kimi.context_digest(str(kimi_json)))
    assert (digests[0] == digests[1]) is same


@pytest.mark.parametrize(
    ("home", "lead", "header"),
    [
        (REAL, REAL_PARENT, "agent_id: aa2b6a024"),  # Kimi CLI 1.51
        (DATA / "real-code" / "home", "6701cc78", "agent_id: agent-0"),  # Kimi Code
    ],
)
def test_a_sub_agents_answer_shows_as_its_summary_not_its_header(
    home: Path, lead: str, header: str
) -> None:
    """The `Agent` tool answers the lead with a header (`agent_id:`, `status:`, …), then
    `[summary]` and what the sub-agent sent back (Kimi Code adds a `resume_hint:` for the
    model after it): the result is the summary, so the folded view shows it rather than
    the header's first lines."""
    from click.testing import CliRunner

    from sessdex.cli import main

    shown = CliRunner().invoke(main, ["show", lead, "--json", "--home", str(home)])
    assert shown.exit_code == 0, shown.output
    [answer] = [
        e["text"] for e in json.loads(shown.stdout)
        if e["kind"] == "tool_result" and e["agent_id"] is None
    ]  # fmt: skip
    assert (
        answer == "Sub-agent report: the greeting command printed hello-from-subagent."
    )
    text = CliRunner().invoke(main, ["show", lead, "--home", str(home)]).stdout
    assert header not in text and "resume_hint" not in text


def test_resume_print_warns_that_kimi_restores_its_yolo(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`resume --print` of a session left at yolo said "left out --yolo (looser than the
    CLI's default)", and `resume` would run it: kimi reopened it at yolo all the same,
    from its state.json. The line is refused as one that runs looser than the default."""
    from click.testing import CliRunner

    from sessdex.cli import main

    monkeypatch.setenv("SESSDEX_SHELL", "sh")
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    runner = CliRunner()
    printed = runner.invoke(main, ["resume", MAIN[:8], "--print", "--home", str(home)])
    assert "left out --yolo" not in printed.stderr
    assert (
        "warning: kimi reopens this session at the yolo approval it was left at, "
        "looser than its default, and no flag lowers it" in printed.stderr
    ), printed.stderr
    assert "--yolo" not in printed.stdout
