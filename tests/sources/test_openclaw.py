"""OpenClaw: pi transcripts per agent under ~/.openclaw/agents/<id>/sessions/, and
sessions.json naming each one's session key."""

from __future__ import annotations

import contextlib
import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import databases
from sessdex.cli import main
from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Session, merge
from sessdex.sources import Home, openclaw
from tests.helpers import LIST_PATHS, cli_over, tables_as_views

DATA = Path(__file__).parent.parent / "data" / "openclaw"
SESSIONS = Path(".openclaw") / "agents" / "main" / "sessions"
MAIN = "a717db17-7bed-408a-8491-a2bb0b190f46"
GROUP = "ea7fa7f3-91cf-4ad9-ad8d-f541ef110bec"
CHILD = "2f033825-d2ce-4a88-ad72-cec5c71bc233"
OLD = "435569e5-e171-42bd-87ae-3d41891fb596"
LEGACY = "9346c375-84eb-42b1-a7c9-249a3024af42"
CODER = "a07e2dd2-a3a4-4616-b863-2f9e2b97b6e0"
# the `ops` agent's database (OpenClaw 2026.8+): make_database.py
OPS = [
    "aeda62c6-9dfa-4b62-97d2-30e9d69d6cc6",
    "eebaaf5c-5c1b-4206-a6c1-461e638792b3",
    "593d8b45-1fd7-4908-b65a-e81c4f443367",
]


def sessions(
    home: Path | Home, diagnostics: Diagnostics | None = None
) -> dict[str, Session]:
    location = openclaw.locate(home if isinstance(home, Home) else Home.at(home))
    fragments: dict[str, list[Session]] = {}
    for path in openclaw.scan(location):
        for session in openclaw.parse(
            Path(path), location, diagnostics or Diagnostics()
        ):
            fragments.setdefault(session.id, []).append(session)
    merged = {key: merge(parts) for key, parts in fragments.items()}
    return {key: s for key, s in merged.items() if s.listed}


def events(session: Session, diagnostics: Diagnostics | None = None) -> list[Event]:
    return list(openclaw.read(session, diagnostics or Diagnostics()))


def copy_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    return home


def test_the_store_names_keys_titles_and_a_sub_agents_parent() -> None:
    found = sessions(DATA / "home")
    assert found[MAIN].extra["session_key"] == "agent:main:main"
    assert found[MAIN].title == "Check why the nightly backup job failed"  # no label
    group = found[GROUP]
    assert group.title == "Family chat"  # the group's subject, not the routing name
    assert group.extra["channel"] == "telegram"
    child = found[CHILD]
    assert child.title == "backup audit"  # the label the spawn gave
    assert child.parent_id == MAIN  # spawnedBy agent:main:main, through the store
    assert child.agent_type == "subagent"


def test_checkpoints_traces_relay_logs_and_sessions_without_transcript_are_not_listed() -> (
    None
):
    diagnostics = Diagnostics()
    found = sessions(DATA / "home", diagnostics)
    # the store's cron entry has no transcript; the checkpoint copy repeats MAIN's
    # entries; the trajectory trace and an ACP child's relay log are no conversation
    # (and no unknown session format)
    assert not diagnostics.unknown, diagnostics.unknown
    assert sorted(found) == sorted([MAIN, GROUP, CHILD, OLD, LEGACY, CODER, *OPS])
    assert found[MAIN].path and found[MAIN].path.endswith(f"{MAIN}.jsonl")


def test_a_reset_archive_is_listed_without_resume() -> None:
    old = sessions(DATA / "home")[OLD]
    assert old.extra["archived"] == "reset"
    assert old.title == "Remind me what port the gateway uses"
    assert openclaw.resume(old) is None
    refusal = openclaw.resume_refusal(old)
    assert refusal is not None and "reset" in refusal and "show" in refusal


def test_a_reset_archive_beside_its_own_transcript_is_not_listed_twice(
    tmp_path: Path,
) -> None:
    home = copy_home(tmp_path)
    folder = home / SESSIONS
    shutil.copy(
        folder / f"{MAIN}.jsonl",
        folder / f"{MAIN}.jsonl.reset.2026-12-02T10-00-00.000Z",
    )
    found = sessions(home)
    assert found[MAIN].path == str(folder / f"{MAIN}.jsonl")
    assert "archived" not in found[MAIN].extra


def test_resume_opens_the_tui_on_the_session_key() -> None:
    found = sessions(DATA / "home")
    plan = openclaw.resume(found[GROUP])
    assert plan is not None
    assert plan.argv == (
        "openclaw",
        "tui",
        "--session",
        "agent:main:telegram:group:-1001234",
    )
    assert plan.cwd == "/home/alex/.openclaw/workspace"
    assert "--deliver" not in plan.argv  # never sends the replies out to the channel
    assert openclaw.resume(found[LEGACY]) is None  # no store entry: no key
    assert "no session key" in (openclaw.resume_refusal(found[LEGACY]) or "")
    assert openclaw.resume_refusal(found[GROUP]) is None


def test_a_turn_reads_as_pi_with_thinking_calls_paired_compaction_and_cost() -> None:
    every = events(sessions(DATA / "home")[MAIN])
    # the child's own events follow its spawn's result, as its lead's read holds them
    spawned = [e.kind for e in every if e.agent_id == CHILD]
    assert spawned[:2] == ["user", "assistant"]  # its task, its answer
    found = [e for e in every if e.agent_id is None]
    assert [e.kind for e in found] == [
        "meta",  # model
        "meta",  # thinking level
        "user",
        "thinking",
        "assistant",
        "tool_call",
        "usage",
        "tool_result",
        "tool_call",
        "usage",
        "subagent",  # the spawn's result names the child's session key
        "tool_result",
        "compaction",
        "user",
        "assistant",
        "usage",
        "turn_end",
        "meta",  # the store's entry says the child's run is done
    ]
    assert found[-1].extra["subagent_status"] == "done"
    assert found[-1].extra["child_id"] == CHILD
    calls = {e.call_id: e for e in found if e.kind == "tool_call"}
    results = {e.call_id: e for e in found if e.kind == "tool_result"}
    assert set(calls) == set(results) == {"toolu_exec_1", "toolu_spawn_1"}
    assert calls["toolu_exec_1"].extra["input"] == {
        "command": "tail -n 5 /var/log/backup.log"
    }
    usage = [e for e in found if e.kind == "usage"]
    assert usage[0].usage is not None and usage[0].usage.cache_read_tokens == 2000
    assert usage[0].extra["cost_usd"] == 0.0042
    compaction = next(e for e in found if e.kind == "compaction")
    assert compaction.extra["tokens_before"] == 48000
    assert all(e.session_id == MAIN for e in every)
    assert [e.seq for e in every] == list(range(len(every)))
    first = every.index(next(e for e in every if e.agent_id == CHILD))
    assert every[first - 1].kind == "tool_result"  # the spawn's, launched
    assert every[first - 1].extra.get("launched") is True


def test_a_spawn_names_its_child_through_the_store() -> None:
    found = events(sessions(DATA / "home")[MAIN])
    spawn = next(e for e in found if e.kind == "subagent")
    assert spawn.call_id == "toolu_spawn_1"
    assert spawn.text == "Audit /mnt/backup for old archives"
    assert spawn.extra["child_id"] == CHILD
    assert spawn.extra["agent_name"] == "backup audit"
    result = next(
        e for e in found if e.kind == "tool_result" and e.call_id == spawn.call_id
    )
    assert result.extra["launched"] is True  # the child runs in the background


def test_an_older_install_and_the_state_dir_override(tmp_path: Path) -> None:
    found = sessions(DATA / "home")
    assert found[LEGACY].cwd == "/home/alex/clawd"  # ~/.clawdbot, from Clawdbot days
    state = DATA / "home" / ".openclaw"
    moved = Home(tmp_path, {"OPENCLAW_STATE_DIR": str(state)})
    location = openclaw.locate(moved)
    assert location.root == state
    assert location.override == f"OPENCLAW_STATE_DIR={state}"
    # the override is the one state folder: no older install is looked for
    assert sorted(sessions(moved)) == sorted([MAIN, GROUP, CHILD, OLD, CODER, *OPS])
    older = Home(tmp_path, {"CLAWDBOT_STATE_DIR": str(state)})
    assert openclaw.locate(older).override == f"CLAWDBOT_STATE_DIR={state}"


def test_the_credential_files_beside_the_sessions_are_never_listed() -> None:
    location = openclaw.locate(Home.at(DATA / "home"))
    names = {Path(p).name for p in openclaw.scan(location)}
    assert not names & {"openclaw.json", "auth-profiles.json", "oauth.json"}
    assert (DATA / "home" / ".openclaw" / "agents" / "main" / "agent").is_dir()
    assert "openclaw-agent.sqlite" in names  # the `ops` agent's sessions, from 2026.8


def test_a_broken_store_keeps_what_it_can_and_never_raises() -> None:
    diagnostics = Diagnostics()
    found = sessions(DATA / "malformed" / "home", diagnostics)
    # the store's entries of the wrong types are passed over; the cut is said
    assert sorted(found) == [MAIN]
    assert found[MAIN].extra["session_key"] == "agent:main:main"
    assert found[MAIN].title == "Check why the nightly backup job failed"  # no label
    assert any("cut short" in problem for problem in diagnostics.problems)
    for session in found.values():
        events(session, diagnostics)
    assert diagnostics.unknown["openclaw_future"] == 1


def test_a_huge_line_is_read_bounded(tmp_path: Path) -> None:
    home = copy_home(tmp_path)
    path = home / SESSIONS / f"{CHILD}.jsonl"
    huge = {
        "type": "message",
        "id": "huge",
        "parentId": None,
        "timestamp": "2026-12-01T09:15:09.000Z",
        "message": {
            "role": "user",
            "content": [{"type": "text", "text": "y" * 9_000_000}],
        },
    }
    with path.open("a") as stream:
        stream.write(json.dumps(huge) + "\n")
    child = sessions(home)[CHILD]
    found = events(child)
    assert found[-1].kind == "user"
    assert found[-1].text is not None and len(found[-1].text) < 9_000_000


def test_the_cli_lists_and_shows_a_sub_agents_tree(tmp_path: Path) -> None:
    home = copy_home(tmp_path)
    runner = CliRunner()
    listed = runner.invoke(
        main, ["list", "--json", "--app", "openclaw", "--home", str(home)]
    )
    assert listed.exit_code == 0, listed.output
    assert {row["id"] for row in json.loads(listed.output)} >= {MAIN, GROUP, OLD}
    tree = runner.invoke(main, ["tree", MAIN, "--json", "--home", str(home)])
    assert tree.exit_code == 0, tree.output
    assert CHILD in tree.output


def test_a_delivery_mirror_names_no_model_and_bills_nothing() -> None:
    """OpenClaw copies a reply it sent to a channel into the transcript as an assistant
    message of its own (provider `openclaw`, model `delivery-mirror`)."""
    group = sessions(DATA / "home")[GROUP]
    assert group.model == "gpt-5.1"  # not the mirror's "model"
    assert group.extra["provider"] == "openai"
    found = events(group)
    assert [e.usage.model for e in found if e.usage is not None] == ["gpt-5.1"]
    assert [e.kind for e in found][-2:] == ["assistant", "turn_end"]  # the copy, shown
    assert [e.seq for e in found] == list(range(len(found)))


def test_a_prompt_error_note_is_an_error_event() -> None:
    found = events(sessions(DATA / "home")[LEGACY])
    errors = [e for e in found if e.kind == "error"]
    assert [e.text for e in errors] == ["error: overloaded_error"]


def test_a_sub_agent_spawned_under_another_agent_finds_its_lead() -> None:
    """`sessions_spawn` may start the child under another agent (its `agentId`): the
    child's entry is in that agent's store, its `spawnedBy` a key of the lead's."""
    coder = sessions(DATA / "home")[CODER]
    assert coder.parent_id == MAIN
    assert coder.extra["agent_id"] == "coder"


def test_a_profiles_sessions_resume_in_that_profile(tmp_path: Path) -> None:
    """`openclaw --dev` keeps its state in ~/.openclaw-dev (read by default), another
    `--profile <name>` in ~/.openclaw-<name> (read where OPENCLAW_STATE_DIR names it):
    its sessions reopen through the same profile, whose gateway serves them."""
    home = copy_home(tmp_path)
    shutil.move(home / ".openclaw", home / ".openclaw-dev")
    found = sessions(home)
    assert MAIN in found
    plan = openclaw.resume(found[MAIN])
    assert plan is not None
    # a JSONL session (before 2026.8): the gateway's TUI
    assert plan.argv == ("openclaw", "--dev", "tui", "--session", "agent:main:main")
    shutil.move(home / ".openclaw-dev", home / ".openclaw-work")
    assert MAIN not in sessions(home)
    moved = Home(home, {"OPENCLAW_STATE_DIR": str(home / ".openclaw-work")})
    plan = openclaw.resume(sessions(moved)[MAIN])
    assert plan is not None
    assert plan.argv[:4] == ("openclaw", "--profile", "work", "tui")


# --- OpenClaw 2026.8 and later: the agent database ----------------------------------

SQLITE = DATA / "sqlite" / "home"
DB_LEAD = "aeda62c6-9dfa-4b62-97d2-30e9d69d6cc6"
DB_BEFORE = "eebaaf5c-5c1b-4206-a6c1-461e638792b3"
DB_CHILD = "593d8b45-1fd7-4908-b65a-e81c4f443367"
DB_ARCHIVED = "f53eb692-c236-4ade-bdf9-d9e2a88b5d20"
DATABASE = Path(".openclaw") / "agents" / "main" / "agent" / "openclaw-agent.sqlite"


def test_the_agent_database_of_2026_8_lists_each_session_window() -> None:
    found = sessions(SQLITE)
    # the import archive's JSONL is not listed again: its rows are in the database
    assert set(found) == {DB_LEAD, DB_BEFORE, DB_CHILD, DB_ARCHIVED}
    lead = found[DB_LEAD]
    assert lead.title == "NAS disk audit"  # the name given mid-session (session_info)
    assert lead.cwd == "/home/alex/.openclaw/workspace"
    assert lead.model == "claude-opus-5-5"
    assert lead.extra["session_key"] == "agent:main:main"
    assert lead.created is not None and lead.created.isoformat().startswith(
        "2026-12-01T09:30:00"
    )
    assert lead.updated is not None and lead.updated > lead.created
    assert lead.bytes and lead.bytes > 2000  # the compressed entry's size counted whole
    child = found[DB_CHILD]
    assert child.title == "du"  # the node's label
    assert child.parent_id == DB_LEAD  # spawned_by agent:main:main, through its node
    assert child.agent_type == "subagent"
    assert child.extra["run_status"] == "failed"
    before = found[DB_BEFORE]
    assert "session_key" not in before.extra  # the key moved on to DB_LEAD
    assert before.extra["archived"] == "reset"  # what its successor's window says
    assert before.title == "What was the gateway port again?"


def test_a_transcript_in_the_database_reads_as_pi_compressed_entries_too() -> None:
    diagnostics = Diagnostics()
    found = events(sessions(SQLITE)[DB_LEAD], diagnostics)
    assert not diagnostics.unknown
    texts = [e.text or "" for e in found if e.kind == "assistant"]
    assert texts and texts[-1].startswith("The biggest folders are: photos, ")
    usage = [e.usage for e in found if e.kind == "usage" and e.usage and not e.agent_id]
    assert [u.output_tokens for u in usage] == [40, 900]  # the zstd entry's too
    spawn = next(e for e in found if e.kind == "subagent")
    assert spawn.extra["child_id"] == DB_CHILD
    # the child's window follows the spawn's result, read from the same database
    assert {e.agent_id for e in found} == {None, DB_CHILD}
    reset = next(e for e in found if e.extra.get("reset"))  # not an unknown type
    assert reset.kind == "meta" and reset.text == "reset by /new"
    end = found[-1]  # its node says how the child's run ended
    assert end.kind == "meta" and end.extra["subagent_status"] == "failed"
    assert [e.seq for e in found] == list(range(len(found)))


def test_a_database_session_resumes_by_its_key_and_an_older_window_not_at_all() -> None:
    found = sessions(SQLITE)
    plan = openclaw.resume(found[DB_LEAD])
    assert plan is not None
    # the database's sessions (2026.8 on) open in the local TUI: no gateway needed
    assert plan.argv == ("openclaw", "tui", "--local", "--session", "agent:main:main")
    assert openclaw.resume(found[DB_BEFORE]) is None
    assert "reset" in (openclaw.resume_refusal(found[DB_BEFORE]) or "")


def test_a_damaged_compressed_entry_is_counted_never_raised(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(SQLITE, home)
    connection = sqlite3.connect(home / DATABASE)
    connection.execute(
        "UPDATE transcript_events SET event_zstd = X'28b52ffd00ff' "
        "WHERE event_zstd IS NOT NULL"
    )
    connection.commit()
    connection.close()
    diagnostics = Diagnostics()
    found = events(sessions(home)[DB_LEAD], diagnostics)
    lead = [x.usage for x in found if x.agent_id is None]
    assert [e.output_tokens for e in lead if e] == [40]
    assert diagnostics.skipped["unreadable"] == 1


def test_the_credentials_in_the_agent_database_are_never_queried(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[str] = []
    opened = databases.open_sqlite

    def traced(path: object, login: bool = False) -> sqlite3.Connection:
        connection = opened(path, login=login)  # type: ignore[arg-type]
        connection.set_trace_callback(asked.append)
        return connection

    monkeypatch.setattr(databases, "open_sqlite", traced)
    for session in sessions(SQLITE).values():
        events(session)
    assert any("transcript_events" in sql for sql in asked)
    assert not any("auth_profile" in sql for sql in asked)


def test_a_reset_archive_2026_9_compressed_with_a_generation_is_listed_and_read() -> (
    None
):
    archived = sessions(SQLITE)[DB_ARCHIVED]  # <id>.jsonl.reset.<time>.<generation>.zst
    assert archived.title == "Which disks are in the NAS?"
    assert archived.extra["archived"] == "reset"
    assert openclaw.resume(archived) is None
    texts = [e.text for e in events(archived) if e.kind == "assistant"]
    assert texts == ["Four 8 TB drives."]


def test_a_compressed_entry_over_openclaws_bound_is_never_loaded(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    shutil.copytree(SQLITE, home)
    connection = sqlite3.connect(home / DATABASE)
    connection.execute(  # 5 MiB: over the 4 MiB OpenClaw stores, never decompressed
        "UPDATE transcript_events SET event_zstd = zeroblob(5242880) "
        "WHERE event_zstd IS NOT NULL"
    )
    connection.commit()
    connection.close()
    diagnostics = Diagnostics()
    found = events(sessions(home)[DB_LEAD], diagnostics)
    lead = [x.usage for x in found if x.agent_id is None]
    assert [e.output_tokens for e in lead if e] == [40]
    assert diagnostics.skipped["too long"] == 1


def test_an_agent_database_without_the_tables_we_know_is_said_not_passed_over(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    shutil.copytree(SQLITE, home)
    connection = sqlite3.connect(home / DATABASE)
    connection.execute("DROP TABLE transcript_events")
    connection.commit()
    connection.close()
    diagnostics = Diagnostics()
    assert DB_LEAD not in sessions(home, diagnostics)
    assert any("transcript_events" in problem for problem in diagnostics.problems)
    # an agent database of before 2026.8 keeps no sessions: nothing to say
    connection = sqlite3.connect(home / DATABASE)
    connection.execute("DROP TABLE session_windows")
    connection.commit()
    connection.close()
    quiet = Diagnostics()
    assert DB_LEAD not in sessions(home, quiet)
    assert not quiet.problems


def test_a_transcript_moved_to_cold_storage_is_said_in_doctor(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(SQLITE, home)
    connection = sqlite3.connect(home / DATABASE)
    connection.execute(
        "CREATE TABLE session_transcript_cold_archives (session_id TEXT NOT NULL "
        "PRIMARY KEY, generation TEXT NOT NULL, archive_name TEXT NOT NULL, "
        "storage TEXT NOT NULL)"
    )
    connection.execute(
        "INSERT INTO session_transcript_cold_archives VALUES (?, 'g1', ?, 'file')",
        (DB_BEFORE, "0" * 64 + ".jsonl.zst"),
    )
    connection.execute(
        "DELETE FROM transcript_events WHERE session_id = ?", (DB_BEFORE,)
    )
    connection.commit()
    connection.close()
    diagnostics = Diagnostics()
    assert DB_BEFORE in sessions(home, diagnostics)  # its window still lists it
    assert any("cold storage" in problem for problem in diagnostics.problems)


def test_a_dev_profiles_database_session_resumes_through_that_profile(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    shutil.copytree(SQLITE / ".openclaw", home / ".openclaw-dev")
    plan = openclaw.resume(sessions(home)[DB_LEAD])
    assert plan is not None
    assert plan.argv == (
        "openclaw",
        "--dev",
        "tui",
        "--local",
        "--session",
        "agent:main:main",
    )


def _leaf_home(tmp_path: Path) -> Path:
    """A transcript whose last entry moves the visible leaf back (a rewind)."""
    home = tmp_path / "home"
    folder = home / SESSIONS
    folder.mkdir(parents=True)
    stamp = "2026-12-01T10:00:0{}.000Z"

    def message(n: int, parent: str | None, role: str, text: str) -> dict[str, object]:
        body: dict[str, object] = {
            "role": role,
            "content": [{"type": "text", "text": text}],
        }
        if role == "assistant":
            body.update(
                provider="anthropic", model="claude-opus-5-5", stopReason="stop"
            )
        return {"type": "message", "id": f"e{n}", "parentId": parent,
                "timestamp": stamp.format(n), "message": body}  # fmt: skip

    lines: list[dict[str, object]] = [
        {
            "type": "session",
            "version": 3,
            "id": "rw",
            "timestamp": stamp.format(0),
            "cwd": "/w",
        },
        message(1, None, "user", "first question"),
        message(2, "e1", "assistant", "first answer"),
        message(3, "e2", "user", "second question"),
        message(4, "e3", "assistant", "second answer"),
        {
            "type": "leaf",
            "id": "l5",
            "parentId": "e4",
            "targetId": "e2",
            "timestamp": stamp.format(5),
        },
    ]
    text = "".join(json.dumps(x, separators=(",", ":")) + "\n" for x in lines)
    (folder / "rw.jsonl").write_text(text)
    return home


def test_a_rewound_leaf_hides_the_abandoned_turn_and_is_no_unknown_type(
    tmp_path: Path,
) -> None:
    diagnostics = Diagnostics()
    found = events(sessions(_leaf_home(tmp_path))["rw"], diagnostics)
    assert [e.text for e in found if e.kind in ("user", "assistant")] == [
        "first question",
        "first answer",
    ]
    assert not diagnostics.unknown


def test_a_rewound_leaf_in_the_database_hides_the_abandoned_turn(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    shutil.copytree(SQLITE, home)
    entry = DB_LEAD[-4:]  # make_database.py names a session's entries <its id's end><n>
    leaf = {"type": "leaf", "id": "l9", "parentId": f"{entry}0008",
            "targetId": f"{entry}0003", "timestamp": "2026-12-01T09:30:09.000Z"}  # fmt: skip
    connection = sqlite3.connect(home / DATABASE)
    connection.execute(
        "INSERT INTO transcript_events (session_id, seq, event_json, created_at, "
        "event_utf8_bytes) VALUES (?, 99, ?, 0, 10)",
        (DB_LEAD, json.dumps(leaf)),
    )
    connection.execute(
        "INSERT INTO transcript_event_identities (session_id, event_id, seq, event_type, "
        "parent_id, created_at) VALUES (?, 'l9', 99, 'leaf', ?, 0)",
        (DB_LEAD, f"{entry}0008"),
    )
    connection.commit()
    connection.close()
    diagnostics = Diagnostics()
    found = events(sessions(home)[DB_LEAD], diagnostics)
    assert [e.text for e in found if e.kind == "user"] == [
        "Audit the disk usage on the NAS"
    ]
    assert not any(e.kind == "assistant" for e in found)  # the answer: off the branch
    assert [u.output_tokens for u in (e.usage for e in found) if u] == [40, 900]
    assert not diagnostics.unknown


# Written by the real OpenClaw 2026.9.6 against the conformance suite's mock model (its
# `openclaw` recipe; trim_real.py made the fixture, PROVENANCE.md): `openclaw agent
# --local`, a turn with one `exec` call, then a second turn on the same session
# (`--session-id`); a turn through the gateway whose `sessions_spawn` ran a sub-agent; the
# TUI (`openclaw tui --local --session agent:main:main`), `/new`, one prompt, `/reset`.
REAL = DATA / "real" / "home"
REAL_ID = "d2fba4f0-ff08-4b07-9ee5-353505306b0e"
REAL_LEAD = "862fb61f-05ca-460a-9570-5ddc06342272"  # agent:main:delegate
REAL_CHILD = "8281e946-e7d4-4106-a679-51bdda1afb5a"  # agent:main:subagent:…
REAL_NEW = "86301032-e00e-4fbe-bd7d-88df3d2927c7"  # the TUI's /new


def test_a_real_2026_9_6_session_lists_with_the_version_that_ran_it() -> None:
    found = sessions(REAL)
    assert set(found) == {REAL_ID, REAL_LEAD, REAL_CHILD, REAL_NEW}
    session = found[REAL_ID]
    assert session.cwd == "/home/alex/code/shop-api"  # the agent's workspace
    assert session.title and session.title.startswith("SCENARIO=basic SLOW=8 Please")
    assert session.model == "mock-model"
    assert session.extra["session_key"] == "agent:main:main"
    assert session.extra["format_version"] == 4  # the header's, pi's 3 before
    # OpenClaw writes its version into each run's trajectory (`trace.metadata`)
    assert session.cli_version == "2026.9.6"
    assert session.created is not None and session.updated is not None
    assert session.updated > session.created  # the resumed turn's entries
    # a session the gateway ran is titled as OpenClaw shows it: its displayName
    assert found[REAL_LEAD].title == "delegate"


def test_a_real_2026_9_6_transcript_reads_both_turns_paired_and_counted() -> None:
    diagnostics = Diagnostics()
    found = events(sessions(REAL)[REAL_ID], diagnostics)
    assert not diagnostics.unknown and not diagnostics.skipped
    calls = [e for e in found if e.kind == "tool_call"]
    results = [e for e in found if e.kind == "tool_result"]
    assert [c.tool for c in calls] == ["exec", "exec"]
    assert calls[0].extra["input"] == {"command": "echo hello-from-tool && sleep 8"}
    assert [r.text for r in results] == ["hello-from-tool", "hello-after-resume"]
    assert [r.call_id for r in results] == [c.call_id for c in calls]
    assert [e.text for e in found if e.kind == "user"][1].startswith("SCENARIO=resume")
    usage = [e.usage for e in found if e.kind == "usage" and e.usage]
    assert [(u.input_tokens, u.output_tokens) for u in usage] == [(1000, 25)] * 4
    assert [e.seq for e in found] == list(range(len(found)))
    # the TUI's /reset (in place: the same session id) is a boundary inside its session
    tui = events(sessions(REAL)[REAL_NEW])
    assert tui[-1].kind == "meta" and tui[-1].text == "reset by /reset"


def test_a_real_2026_9_6_session_resumes_in_the_local_tui_without_a_gateway() -> None:
    plan = openclaw.resume(sessions(REAL)[REAL_ID])
    assert plan is not None
    # `tui --local` runs the embedded agent on the key's session (the suite's tui step
    # runs it: it shows the history, and a turn there grows the same session)
    assert plan.argv == ("openclaw", "tui", "--local", "--session", "agent:main:main")
    assert plan.cwd == "/home/alex/code/shop-api"
    assert not any("gateway" in note for note in plan.notes)


def test_a_session_the_tuis_new_started_is_the_users_own_not_a_sub_agent() -> None:
    """2026.9.6's TUI `/new` opens a new key (`agent:main:tui-<uuid>`) whose node names the
    session it was started from (`parent_session_key`, `createdVia: operator`, `spawnDepth`
    0): no spawn. A sub-agent's node has `spawned_by` (and a `spawnDepth` over 0) too."""
    found = sessions(REAL)
    new = found[REAL_NEW]
    assert new.parent_id is None and new.agent_type is None
    assert new.extra["session_key"].startswith("agent:main:tui-")
    assert new.title and new.title.startswith("SCENARIO=basic (interactive)")
    assert new.cli_version == "2026.9.6"
    plan = openclaw.resume(new)
    assert plan is not None and plan.argv[-1] == new.extra["session_key"]
    child = found[REAL_CHILD]  # spawned_by: its lead's sub-agent
    assert child.parent_id == REAL_LEAD and child.agent_type == "subagent"


def test_a_real_sub_agent_is_titled_by_its_task_not_openclaws_wrapping() -> None:
    """OpenClaw hands a sub-agent its task inside context lines ("[Subagent Context] You
    are running as a subagent …", "[Subagent Task]", the task, "Begin. …"): the title is
    the task. A prompt that only starts alike stays as it is."""
    child = sessions(REAL)[REAL_CHILD]
    assert child.title == (
        "SCENARIO=child You are a sub-agent. Run the shell command "
        "`echo hello-from-subagent` and report what it printed. SLOW=8"
    )
    assert openclaw._openclaw_db.task_title("[Subagent Context] hi") == (
        "[Subagent Context] hi"
    )


def test_a_real_sub_agents_events_follow_its_spawn_in_its_leads_read() -> None:
    """The child a gateway turn's `sessions_spawn` ran (its own window in the database) is
    read inside its lead, after the spawn's result, so that `show --subagents tree` and
    `usage` (which reads each top-level session with its sub-agents) hold its responses."""
    diagnostics = Diagnostics()
    found = events(sessions(REAL)[REAL_LEAD], diagnostics)
    assert not diagnostics.unknown
    spawn = next(e for e in found if e.kind == "subagent")
    assert spawn.extra["child_id"] == REAL_CHILD
    mine = [e for e in found if e.agent_id == REAL_CHILD]
    assert found.index(mine[0]) > found.index(spawn)
    assert any(
        e.kind == "tool_result" and e.text == "hello-from-subagent" for e in mine
    )
    usage = [e for e in found if e.kind == "usage"]
    assert len(usage) == 4 and len([e for e in usage if e.agent_id]) == 2
    assert all(e.session_id == REAL_LEAD for e in found)
    assert [e.seq for e in found] == list(range(len(found)))
    end = found[-1]  # its node's status: done
    assert end.kind == "meta" and end.agent_id is None
    assert end.extra["subagent_status"] == "done"


def test_a_store_entry_naming_the_session_it_came_from_is_no_sub_agent(
    tmp_path: Path,
) -> None:
    """In `sessions.json` too: `parentSessionKey` with `spawnDepth` 0 is where a session
    was started from; with a depth over 0 (and no `spawnedBy`) it is a spawn's lead."""
    home = copy_home(tmp_path)
    store = home / SESSIONS / "sessions.json"
    entries = json.loads(store.read_text())
    group = entries["agent:main:telegram:group:-1001234"]
    group.update(parentSessionKey="agent:main:main", spawnDepth=0)
    child = entries["agent:main:subagent:7c9e6679-7425-40de-944b-e07fc1f90ae7"]
    del child["spawnedBy"]
    child["parentSessionKey"] = "agent:main:main"
    store.write_text(json.dumps(entries))
    found = sessions(home)
    assert found[GROUP].parent_id is None and found[GROUP].agent_type is None
    assert found[CHILD].parent_id == MAIN and found[CHILD].agent_type == "subagent"


REAL_FORK = "5b0c8a8e-4d3b-4f7e-9a61-0f2c7d1e9b44"
REAL_DB = Path(".openclaw") / "agents" / "main" / "agent" / "openclaw-agent.sqlite"


def _real_with_a_fork(tmp_path: Path, label: str | None) -> Path:
    """A copy of the real 2026.9.6 home with a session forked from the basic one, as
    2026.9.6 writes a fork (session-accessor's `forkSource`, kept in the node's
    `fork_source_*` columns and its entry) and titles it by itself (`autoLabel`): the
    TUI session's window and entries copied under a new key and id."""
    home = tmp_path / "home"
    shutil.copytree(REAL, home)
    key = "agent:main:tui-fork"
    entry = {
        "sessionId": REAL_FORK,
        "autoLabel": "Checkout retry investigation",
        "forkSource": {"sessionKey": "agent:main:main", "sessionId": REAL_ID},
    }
    with sqlite3.connect(home / REAL_DB) as db:
        db.execute(
            "INSERT INTO session_nodes (session_key, current_session_id, entry_json,"
            " updated_at, fork_source_session_key, fork_source_session_id,"
            " fork_source_entry_id, label) VALUES (?, ?, ?, 1796500200000, ?, ?, ?, ?)",
            (
                key,
                REAL_FORK,
                json.dumps(entry),
                "agent:main:main",
                REAL_ID,
                "e1",
                label,
            ),
        )
        # transcript_events' CHECK calls octet_length(), newer than Python's SQLite
        db.execute("PRAGMA ignore_check_constraints = ON")
        for table in ("session_windows", "transcript_events"):
            columns = [r[1] for r in db.execute(f"PRAGMA table_info({table})")]
            given = {"session_id": REAL_FORK, "session_key": key}
            chosen = ", ".join("?" if c in given else c for c in columns)
            db.execute(
                f"INSERT INTO {table} ({', '.join(columns)}) SELECT {chosen}"
                f" FROM {table} WHERE session_id = ?",
                (*(given[c] for c in columns if c in given), REAL_NEW),
            )
        db.execute(
            "UPDATE session_windows SET reason = 'fork' WHERE session_id = ?",
            (REAL_FORK,),
        )
    db.close()
    return home


def test_a_forked_session_names_its_source_and_is_titled_by_openclaws_label(
    tmp_path: Path,
) -> None:
    """2026.9.6 records where a fork came from in its node (`fork_source_session_id`):
    the session it was copied from, as other apps' forks name theirs; the title OpenClaw
    made for it (`autoLabel`) titles it where the user gave no label."""
    found = sessions(_real_with_a_fork(tmp_path, None))
    fork = found[REAL_FORK]
    assert fork.extra["forked_from_id"] == REAL_ID
    assert fork.title == "Checkout retry investigation"
    assert fork.parent_id is None and fork.agent_type is None
    assert "forked_from_id" not in found[REAL_ID].extra
    labelled = sessions(_real_with_a_fork(tmp_path / "labelled", "my retry fork"))
    assert labelled[REAL_FORK].title == "my retry fork"


def test_a_store_entrys_fork_source_and_auto_label_are_read_too(tmp_path: Path) -> None:
    """The same fields in `sessions.json` (`forkSource`, `autoLabel`), for an install whose
    store was not imported into the database."""
    home = copy_home(tmp_path)
    store = home / SESSIONS / "sessions.json"
    entries = json.loads(store.read_text())
    entries["agent:main:main"]["autoLabel"] = "Inventory sync"
    entries["agent:main:telegram:group:-1001234"]["forkSource"] = {
        "sessionKey": "agent:main:main",
        "sessionId": MAIN,
    }
    store.write_text(json.dumps(entries))
    found = sessions(home)
    assert found[MAIN].title == "Inventory sync"
    assert found[GROUP].extra["forked_from_id"] == MAIN
    assert found[GROUP].title == "Family chat"  # its subject still


@LIST_PATHS
def test_a_spawner_in_another_agents_store_lists_warm_as_cold(
    listing: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sub-agent of the coder agent whose spawner's key is the main agent's: when the
    main store gives that key a new session (`/new`), a warm list names the new one as
    its parent, as a cold list does (warm kept the old, the coder store unchanged)."""
    from tests.helpers import list_rows

    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    assert (
        list_rows(home, tmp_path / "warm", monkeypatch, "--all", listing=listing)[
            CODER
        ]["parent_id"]
        == MAIN
    )
    store = home / SESSIONS / "sessions.json"
    members = json.loads(store.read_text())
    members["agent:main:main"]["sessionId"] = GROUP
    members["agent:main:main"].pop("sessionFile", None)
    store.write_text(json.dumps(members))
    warm = list_rows(home, tmp_path / "warm", monkeypatch, "--all", listing=listing)
    assert warm == list_rows(
        home, tmp_path / "cold", monkeypatch, "--all", listing=listing
    )
    assert warm[CODER]["parent_id"] == GROUP


def test_a_lead_in_a_database_of_many_reads_the_nodes_of_its_spawns_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading a lead looks up the session keys its spawns name, not every session of
    its agent's database: `usage` and `doctor --deep` read each lead, and a database of
    1,600 leads that spawn took 19 s CPU where 200 took 0.75 s (scripts/fuzz-homes.py
    --fanout)."""
    from sessdex.sources import _openclaw_db
    from tests import fuzzing

    home = copy_home(tmp_path)
    database = home / ".openclaw" / "agents" / "ops" / "agent" / _openclaw_db.DATABASE
    assert fuzzing._fan_rows(database, OPS[0], range(1, 301), messages=False)
    lead = sessions(home)[OPS[0]]
    looked: list[object] = []
    title_of = _openclaw_db.title_of
    monkeypatch.setattr(
        _openclaw_db,
        "title_of",
        lambda *names: looked.append(names) or title_of(*names),
    )
    found = events(lead)
    assert any(e.kind == "subagent" and e.extra["child_id"] for e in found)
    assert any(e.agent_id for e in found)  # the child's own events, inside
    assert len(looked) <= 4  # its spawns' nodes, not the 300 others'


def test_a_sub_agent_whose_lead_no_store_names_says_whose_it_was(
    tmp_path: Path,
) -> None:
    """A sub-agent whose lead's key is in no store any more (its entry removed, its
    transcript deleted) is named a sub-agent of that key, as another app's sub-agent
    whose lead's file is gone names its lead's id: `show` and `tree` of it said nothing
    of a lead, and `show agent:main:main` did not point at what is left of it."""
    home = copy_home(tmp_path)
    store = home / SESSIONS / "sessions.json"
    entries = json.loads(store.read_text())
    del entries["agent:main:main"]
    store.write_text(json.dumps(entries))
    (home / SESSIONS / f"{MAIN}.jsonl").unlink()
    assert sessions(home)[CHILD].parent_id == "agent:main:main"
    shown = cli_over(home, "show", CHILD, "--no-pager").output
    assert "sub-agent of agent:main:main" in shown.splitlines()[:5]
    assert "sub-agent of agent:main:main" in cli_over(home, "tree", CHILD).output
    lead = cli_over(home, "show", "agent:main:main").output
    assert "has no transcript left" in lead and CHILD in lead


def test_a_sub_agent_whose_lead_left_the_database_says_whose_it_was(
    tmp_path: Path,
) -> None:
    """The same in the agent database (2026.8 on): the lead's node and window gone."""
    home = tmp_path / "home"
    shutil.copytree(SQLITE, home)
    with contextlib.closing(sqlite3.connect(home / DATABASE)) as db, db:
        db.execute("DELETE FROM session_nodes WHERE session_key = 'agent:main:main'")
        for table in ("session_windows", "transcript_events"):
            db.execute(f"DELETE FROM {table} WHERE session_id = ?", (DB_LEAD,))
    assert sessions(home)[DB_CHILD].parent_id == "agent:main:main"
    shown = cli_over(home, "show", DB_CHILD, "--no-pager").output
    assert "sub-agent of agent:main:main" in shown.splitlines()[:5]


@pytest.mark.parametrize("odd", ["12", -5, 1.5, True, 2**60])
def test_an_odd_count_in_a_database_entry_is_said_by_session_and_position(
    odd: object, tmp_path: Path
) -> None:
    """A token count no app writes in an entry of the agent database was billed as 0
    unsaid (a file's is said by its line): it is said, named by the session's id and the
    entry's `seq`, the row a user finds it in."""
    home = tmp_path / "home"
    shutil.copytree(SQLITE, home)
    connection = sqlite3.connect(home / DATABASE)
    (data,) = connection.execute(
        "SELECT event_json FROM transcript_events WHERE session_id = ? AND seq = 3",
        (DB_LEAD,),
    ).fetchone()
    entry = json.loads(data)
    assert entry["message"]["usage"]["output"] == 40
    entry["message"]["usage"]["output"] = odd
    connection.execute(
        "UPDATE transcript_events SET event_json = ? WHERE session_id = ? AND seq = 3",
        (json.dumps(entry), DB_LEAD),
    )
    connection.commit()
    connection.close()
    result = CliRunner().invoke(
        main,
        ["usage", "session", "--json", "--verbose", "--app", "openclaw",
         "--home", str(home)],
        env={"SESSDEX_HOME": str(tmp_path / "state")},
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    said = result.stderr
    assert "warning: read 1 message with an odd token count" in said, said
    where = (
        f"{home / DATABASE}#transcript_events/{DB_LEAD}:3: odd token count in a message"
    )
    assert where in said, said
    rows = {row["id"]: row for row in json.loads(result.stdout)}
    assert rows[DB_LEAD]["input_tokens"] > 0  # the entry's other counts count


def test_a_transcript_table_made_a_view_reads_whole_and_says_an_odd_count(
    tmp_path: Path,
) -> None:
    """A view's rows have no rowid, which the entries kept as JSON text were read by:
    each was passed over without a word (the session's prompts, answers and usage gone
    but for its compressed entry). They read as the table's, an odd count among them
    said by its session and `seq`."""
    home = tmp_path / "home"
    shutil.copytree(SQLITE, home)
    before = events(sessions(home)[DB_LEAD])
    connection = sqlite3.connect(home / DATABASE)
    (data,) = connection.execute(
        "SELECT event_json FROM transcript_events WHERE session_id = ? AND seq = 3",
        (DB_LEAD,),
    ).fetchone()
    entry = json.loads(data)
    entry["message"]["usage"]["output"] = -5
    connection.execute(
        "UPDATE transcript_events SET event_json = ? WHERE session_id = ? AND seq = 3",
        (json.dumps(entry), DB_LEAD),
    )
    connection.commit()
    connection.close()
    tables_as_views(home / DATABASE, "transcript_events")
    diagnostics = Diagnostics()
    found = events(sessions(home)[DB_LEAD], diagnostics)
    assert [(e.kind, e.text) for e in found] == [(e.kind, e.text) for e in before]
    assert not diagnostics.skipped_total
    where = f"{home / DATABASE}#transcript_events/{DB_LEAD}"
    assert diagnostics.details == [(where, 3, "odd token count in a message")]


def test_a_view_s_entry_longer_than_a_line_is_read_by_its_session_and_seq(
    tmp_path: Path,
) -> None:
    """A view's row has no rowid for blob IO to open: an entry over READ_LINE_CAP, which
    the listing query does not carry, was passed over ("no rowid"), its prompt gone.
    It is found by its session and `seq` and read a piece at a time, its long string
    elided as a table's is."""
    home = tmp_path / "home"
    shutil.copytree(SQLITE, home)
    connection = sqlite3.connect(home / DATABASE)
    (data,) = connection.execute(
        "SELECT event_json FROM transcript_events WHERE session_id = ? AND seq = 2",
        (DB_LEAD,),
    ).fetchone()
    entry = json.loads(data)
    entry["message"]["content"][0]["text"] = "x" * (5 * 1024 * 1024)
    connection.execute(
        "UPDATE transcript_events SET event_json = ? WHERE session_id = ? AND seq = 2",
        (json.dumps(entry), DB_LEAD),
    )
    connection.commit()
    connection.close()
    table = events(sessions(home)[DB_LEAD])
    assert next(e.text for e in table if e.kind == "user") == "[text, 5.0 MB]"
    tables_as_views(home / DATABASE, "transcript_events")
    diagnostics = Diagnostics()
    found = events(sessions(home)[DB_LEAD], diagnostics)
    assert [(e.kind, e.text) for e in found] == [(e.kind, e.text) for e in table]
    assert not diagnostics.skipped_total, diagnostics.details
