"""Hermes Agent quirks: one state.db per home and profile, delegate_task sub-agents,
compression chains, rewound rows, per-model usage with Hermes' own cost."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Session, Usage
from sessdex.sources import Home, hermes
from sessdex.sources.base import Opened, WholeRead
from tests.helpers import LIST_PATHS

HOME = Path(__file__).parent.parent / "data" / "hermes" / "home"
MALFORMED = Path(__file__).parent.parent / "data" / "hermes" / "malformed" / "home"
LEAD = "20261201_100000_a1b2c3"
CHILD = "20261201_100130_d4e5f6"
NEXT = "20261201_101500_0a0b0c"
GATEWAY = "20261202_080000_77aa88"
PROFILED = "20261120_153000_5c5d5e"
OLD_CHAT = "20260405_101500_5e5e5e"
OLD_CRON = "cron_0a1b2c3d4e5f_20260407_020001"
ONLY_JSONL = "20260310_083000_7a7a7a"
ONLY_LOG = "20260311_090000_8b8b8b"
FILES = {OLD_CHAT, OLD_CRON, ONLY_JSONL, ONLY_LOG}


def parsed(home: Path = HOME, diagnostics: Diagnostics | None = None) -> list[Session]:
    diagnostics = diagnostics if diagnostics is not None else Diagnostics()
    location = hermes.locate(Home.at(home))
    return [
        session
        for path in hermes.scan(location)
        for session in hermes.parse(path, location, diagnostics)
    ]


def sessions(
    home: Path = HOME, diagnostics: Diagnostics | None = None
) -> dict[str, Session]:
    """The listed sessions, by id."""
    return {s.id: s for s in parsed(home, diagnostics) if s.listed}


def events(session_id: str, home: Path = HOME) -> list[Event]:
    diagnostics = Diagnostics()
    found = list(hermes.read(sessions(home)[session_id], diagnostics))
    assert not diagnostics.skipped_total and not diagnostics.unknown
    assert not diagnostics.problems
    return found


def test_the_home_and_each_profile_are_listed_with_their_gateway() -> None:
    found = sessions()
    assert set(found) == {CHILD, NEXT, GATEWAY, PROFILED} | FILES
    assert found[PROFILED].path and "/profiles/work/state.db#" in found[PROFILED].path
    # an untitled gateway session is titled by its first prompt, on one line
    assert found[GATEWAY].title == "What's on my calendar today?"
    assert found[GATEWAY].extra["source"] == "telegram"
    # archived in Hermes (left out of its own list), listed here and said so
    assert found[GATEWAY].extra["archived"] is True
    assert "archived" not in found[NEXT].extra
    assert found[NEXT].extra["message_count"] == 9 + 3  # both links of its chain


def test_a_compression_chain_is_one_session_under_its_newest_link() -> None:
    """Hermes ends a session at a compression and goes on in a child row; its own list
    shows the chain once, under the newest link's id, and `hermes --resume` of any link
    opens that one: listed and read so, the older link's id leading to it."""
    found = sessions()
    chain = found[NEXT]
    assert chain.parent_id is None and "continues" not in chain.extra
    assert chain.extra["chain"] == [LEAD, NEXT]
    assert chain.created is not None
    assert chain.created.isoformat() == "2026-12-01T10:00:00+00:00"  # the first link's
    assert chain.title == "Add retry to checkout #2"
    older = [s for s in parsed() if s.id == LEAD]
    assert [(s.listed, s.extra) for s in older] == [(False, {"superseded_by": NEXT})]
    read = events(NEXT)
    assert read[0].kind == "user" and read[0].text == (
        "Add a retry with backoff to the checkout client"
    )
    lead = read[: [e.kind for e in read].index("compaction")]
    assert not any(e.extra.get("exited") for e in lead)  # a link's end is no exit
    assert any(e.kind == "subagent" for e in lead)
    at = [e.kind for e in read].index("compaction")
    assert "CONTEXT COMPACTION" in (read[at].text or "")
    assert [e.kind for e in read[at + 1 : at + 5]] == [
        "user", "thinking", "assistant", "turn_end",
    ]  # fmt: skip
    plan = hermes.resume(chain)
    assert plan is not None and plan.argv == ("hermes", "--resume", NEXT)


def test_a_compressed_session_whose_continuation_is_gone_ends_so(
    tmp_path: Path,
) -> None:
    home = copied(tmp_path)
    with sqlite3.connect(home / ".hermes" / "state.db") as db:
        db.execute("DELETE FROM messages WHERE session_id = ?", (NEXT,))
        db.execute("DELETE FROM sessions WHERE id = ?", (NEXT,))
    db.close()
    found = sessions(home)
    assert "chain" not in found[LEAD].extra and found[CHILD].parent_id == LEAD
    ended = events(LEAD, home)[-1]
    assert ended.kind == "meta" and ended.extra == {
        "exited": True,
        "reason": "compression",
    }


def test_a_delegate_task_sub_agent_is_listed_under_its_lead_and_read_after_its_call() -> (
    None
):
    child = sessions()[CHILD]
    assert child.parent_id == NEXT and child.agent_type == "subagent"  # its chain's id
    read = events(NEXT)
    spawn = next(e for e in read if e.kind == "subagent")
    assert spawn.extra["child_id"] == CHILD and spawn.call_id == "call_deleg_1"
    assert spawn.text == "Find every caller of checkout()"
    after = read[read.index(spawn) + 1 :]
    inside = [e for e in after if e.agent_id == CHILD]
    assert [e.kind for e in inside] == ["user", "tool_call", "tool_result", "tool_call",
                                        "tool_result", "assistant", "turn_end", "usage"]  # fmt: skip
    failed = [e for e in inside if e.kind == "tool_result" and e.is_error]
    assert [e.call_id for e in failed] == ["call_read_2"]  # its JSON says `error`
    assert not any(e.is_error for e in read if e.agent_id is None)
    # the lead's result of the delegation comes after the child's events
    result = next(e for e in after if e.kind == "tool_result" and e.agent_id is None)
    assert result.call_id == "call_deleg_1" and read.index(result) > read.index(
        inside[-1]
    )


def test_tool_calls_pair_with_their_results_and_keep_hermes_argument_names() -> None:
    read = events(NEXT)
    calls = {e.call_id: e for e in read if e.kind == "tool_call" and e.agent_id is None}
    results = {
        e.call_id: e for e in read if e.kind == "tool_result" and e.agent_id is None
    }
    assert set(calls) == set(results) == {"call_read_1", "call_deleg_1", "call_patch_1"}
    patch = calls["call_patch_1"]
    assert patch.tool == "patch"
    assert patch.extra["input"] == {
        "path": "shop/checkout.py",
        "old_string": "return post('/pay', cart)",
        "new_string": "return with_retry(post, '/pay', cart)",
    }
    assert results["call_read_1"].tool == "read_file"
    thinking = next(e for e in read if e.kind == "thinking")
    assert thinking.text == "The client lives in shop/checkout.py; read it."


def test_a_rewound_row_is_not_shown_and_hidden_scaffolding_is_injected_input() -> None:
    read = events(NEXT)
    assert not any("undo that" in (e.text or "") for e in read)
    hidden = [e for e in read if e.extra.get("injected")]
    assert len(hidden) == 1 and hidden[0].kind == "meta"
    assert not any(e.kind == "user" and "System note" in (e.text or "") for e in read)


def test_usage_is_per_model_and_task_with_hermes_cost_else_the_session_counters() -> (
    None
):
    # each link of the chain: its first (no per-model rows) by its counters, once
    rows = [e for e in events(NEXT) if e.kind == "usage" and e.agent_id is None]
    assert [
        (e.usage.model if e.usage else None, e.extra.get("task")) for e in rows
    ] == [
        ("anthropic/claude-sonnet-4.5", None),
        ("google/gemini-2.5-flash", "compression"),
        ("anthropic/claude-sonnet-4.5", None),
    ]
    assert rows[0].usage == Usage(
        5200, 900, 12000, 800, 150, "anthropic/claude-sonnet-4.5"
    )
    assert rows[0].extra["app_cost_usd"] == pytest.approx(0.0812)
    assert rows[2].usage == Usage(2000, 280, 9000, 0, 40, "anthropic/claude-sonnet-4.5")
    assert rows[2].extra["app_cost_usd"] == pytest.approx(0.0401)
    # an older database (the profile's) without session_model_usage reads the same way
    old = [e for e in events(PROFILED) if e.kind == "usage"]
    assert len(old) == 1 and old[0].usage == Usage(800, 120, 0, 0, 0, "gpt-5")


def test_resume_reopens_the_session_by_id_in_its_folder_without_yolo() -> None:
    found = sessions()
    plan = hermes.resume(found[NEXT])
    assert plan is not None
    assert plan.argv == ("hermes", "--resume", NEXT)
    assert plan.cwd == "/home/alex/code/shop-api"
    assert "--yolo" not in plan.argv
    child = hermes.resume(found[CHILD])
    assert child is not None and any("sub-agent" in note for note in child.notes)
    assert not any("gateway" in note for note in child.notes)
    gateway = hermes.resume(found[GATEWAY])
    assert gateway is not None and gateway.cwd == "."
    assert any("telegram" in note for note in gateway.notes)


def test_a_profiles_session_reopens_in_that_profile() -> None:
    plan = hermes.resume(sessions()[PROFILED])
    assert plan is not None
    assert plan.argv == ("hermes", "--profile", "work", "--resume", PROFILED)
    assert plan.cwd == "/home/alex/work/infra"


@pytest.mark.parametrize("active", ["work", "default", None])
def test_a_root_session_reopens_in_the_root_whatever_profile_is_active(
    tmp_path: Path, active: str | None
) -> None:
    """`hermes profile use work` leaves `active_profile` in the root, and a bare `hermes`
    then opens that profile's database (hermes_cli/main.py `_apply_profile_override`):
    `hermes --resume <id>` of a session of the root's own database found none there."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    if active is not None:
        (home / ".hermes" / "active_profile").write_text(f"{active}\n")
    plan = hermes.resume(sessions(home)[NEXT])
    assert plan is not None
    if active == "work":
        assert plan.argv == ("hermes", "--profile", "default", "--resume", NEXT)
        assert any("'work'" in note for note in plan.notes)
    else:
        assert plan.argv == ("hermes", "--resume", NEXT)
    profiled = hermes.resume(sessions(home)[PROFILED])
    assert profiled is not None
    assert profiled.argv == ("hermes", "--profile", "work", "--resume", PROFILED)


def test_a_running_hermes_says_which_session_it_has_open() -> None:
    assert hermes.process_session(["hermes", "--resume", LEAD]) == Opened(LEAD)
    assert hermes.process_session(["hermes", "-r", LEAD, "--tui"]) == Opened(LEAD)
    assert hermes.process_session(["hermes", "--resume", "latest"]) == Opened(
        latest=True
    )
    assert hermes.process_session(["hermes", "-c"]) == Opened(latest=True)
    assert hermes.process_session(["hermes", "-c", "my project"]) == Opened(chosen=True)
    assert hermes.process_session(["hermes"]) is None


def test_hermes_home_moves_it_and_a_windows_home_is_found(tmp_path: Path) -> None:
    moved = Home(tmp_path / "nobody", {"HERMES_HOME": str(HOME / ".hermes")})
    location = hermes.locate(moved)
    assert location.override == f"HERMES_HOME={HOME / '.hermes'}"
    listed = list(hermes.scan(location))
    assert sum(p.name == hermes.DB_NAME for p in listed) == 2
    windows = tmp_path / "win"
    shutil.copytree(HOME / ".hermes", windows / "AppData" / "Local" / "hermes")
    assert GATEWAY in sessions(windows)


def test_newest_rows_in_the_wal_are_listed_and_nothing_is_written(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    data = home / ".hermes"
    data.mkdir(parents=True)
    shutil.copy(HOME / ".hermes" / "state.db", data / "state.db")
    writer = sqlite3.connect(data / "state.db")
    try:
        writer.execute("PRAGMA journal_mode=WAL")
        writer.execute("PRAGMA wal_autocheckpoint=0")
        writer.execute(
            "INSERT INTO sessions (id, source, started_at, title) "
            "VALUES ('20261204_120000_aaaaaa', 'cli', 1796385600, 'Only in the WAL')"
        )
        writer.commit()
        before = {
            p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in data.iterdir()
        }
        found = sessions(home)
        assert found["20261204_120000_aaaaaa"].title == "Only in the WAL"
        after = {
            p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in data.iterdir()
        }
        assert after == before
    finally:
        writer.close()


def test_malformed_rows_are_counted_and_a_huge_result_shows_its_head() -> None:
    diagnostics = Diagnostics()
    found = sessions(MALFORMED, diagnostics)
    assert any("profiles/torn/state.db" in p for p in diagnostics.problems)
    assert "bad value" in {reason for _, _, reason in diagnostics.details}
    read = list(hermes.read(found["20261203_090000_badbad"], diagnostics))
    assert diagnostics.unknown["role:critic"] == 1
    reasons = [reason for _, _, reason in diagnostics.details]
    assert "not JSON" in reasons
    huge = next(e for e in read if e.kind == "tool_result")
    assert huge.text is not None and len(huge.text) < 300 * 1024
    assert "more not shown" in huge.text
    whole = list(hermes.read(found["20261203_090000_badbad"], Diagnostics(), full=True))
    assert (
        len(next(e for e in whole if e.kind == "tool_result").text or "") == 300 * 1024
    )
    # a torn model_config and a parent that is gone: a sub-agent of a lead not listed
    assert found["20261203_091000_orphan"].parent_id == "gone"


def copied(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    return home


def test_multimodal_content_shows_its_text_and_marks_its_images(tmp_path: Path) -> None:
    said = [e.text for e in events(GATEWAY) if e.kind == "user"]
    assert "And this receipt?\n[image]" in said
    home = copied(tmp_path)
    with sqlite3.connect(home / ".hermes" / "state.db") as db:
        db.execute(
            "INSERT INTO sessions (id, source, started_at) VALUES ('20261204_090000_cafe01', 'discord', 1796374800)"
        )
        db.execute(
            "INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, 'user', ?, 1796374801)",
            (
                "20261204_090000_cafe01",
                '\x00json:[{"type": "image_url", "image_url": {"url": "data:image/png;base64,'
                + "A" * 5000
                + '"}}, {"type": "text", "text": "What is in this photo?"}]',
            ),
        )
    db.close()
    # titled by the text part, though the head read for the title cuts the JSON
    assert sessions(home)["20261204_090000_cafe01"].title == "What is in this photo?"


def test_a_delegate_call_written_after_its_child_ran_still_spawns_it(
    tmp_path: Path,
) -> None:
    """Hermes may write a turn's rows when the turn ends: the call's time can come after
    its child's start; the child is still read at the call, not after the lead's turns."""
    home = copied(tmp_path)
    with sqlite3.connect(home / ".hermes" / "state.db") as db:
        db.execute(  # the call and its result, both written as the turn ended
            "UPDATE messages SET timestamp = 1796119395 WHERE session_id = ? "
            "AND timestamp BETWEEN 1796119260 AND 1796119400",
            (LEAD,),
        )
    db.close()
    read = events(NEXT, home)
    spawn = next(e for e in read if e.kind == "subagent")
    assert spawn.call_id == "call_deleg_1" and spawn.extra["child_id"] == CHILD
    call = next(e for e in read if e.call_id == "call_deleg_1")
    assert read.index(spawn) == read.index(call) + 1


def test_an_in_place_compaction_shows_each_row_once_and_its_summary() -> None:
    """Hermes keeps the rows a compaction folded (`compacted`), flags the originals of
    the tail it keeps as rewound and writes the summary, then that tail, again: shown in
    the order Hermes wrote them (by id, not by their older times), each row once, whether
    the session is read whole or from its end; the gateway's `session_meta` row is no
    message and no unknown record."""
    read = events(GATEWAY)
    said = [e.text for e in read if e.kind in ("user", "assistant")]
    assert said.count("And this receipt?\n[image]") == 1
    assert said.count("A taxi receipt: 23.40 EUR.") == 1
    kinds = [e.kind for e in read]
    assert kinds[:4] == ["user", "assistant", "turn_end", "compaction"]
    after = [e.text for e in read[4:] if e.kind in ("user", "assistant")]
    assert after[:2] == ["And this receipt?\n[image]", "A taxi receipt: 23.40 EUR."]
    assert said[-1] == "Filed under travel."
    last = list(hermes.read_last(sessions()[GATEWAY], Diagnostics(), 6))
    assert [(e.kind, e.text) for e in last] == [
        (e.kind, e.text) for e in read[-len(last) :]
    ]


def test_a_huge_call_and_reasoning_are_read_bounded(tmp_path: Path) -> None:
    """A write_file call with 6 MB of text and long reasoning: the call is shown with its
    long string elided, the reasoning by its head, and nothing is counted as broken."""
    home = copied(tmp_path)
    arguments = json.dumps({"path": "big.txt", "content": "y" * (6 * 1024 * 1024)})
    calls = json.dumps([{"id": "call_big", "type": "function",
                         "function": {"name": "write_file", "arguments": arguments}}])  # fmt: skip
    with sqlite3.connect(home / ".hermes" / "state.db") as db:
        db.execute(
            "INSERT INTO messages (session_id, role, content, tool_calls, reasoning, timestamp)"
            " VALUES (?, 'assistant', NULL, ?, ?, 1796120400)",
            (NEXT, calls, "z" * (1024 * 1024)),
        )
    db.close()
    diagnostics = Diagnostics()
    read = list(hermes.read(sessions(home)[NEXT], diagnostics))
    call = next(e for e in read if e.call_id == "call_big")
    # the arguments are one long JSON string in the row: elided whole, with its size
    shown = call.extra["input"]
    assert isinstance(shown, str) and len(shown) < 1024 and "MB" in shown, shown
    thinking = [e for e in read if e.kind == "thinking"][-1]
    assert thinking.text is not None and len(thinking.text) < 300 * 1024
    assert not diagnostics.skipped_total
    whole = list(hermes.read(sessions(home)[NEXT], Diagnostics(), full=True))
    whole_call = next(e for e in whole if e.call_id == "call_big")
    assert len(whole_call.extra["input"]["content"]) == 6 * 1024 * 1024  # type: ignore[index,call-overload,arg-type]


def test_a_chain_goes_on_in_the_continuation_hermes_resumes(tmp_path: Path) -> None:
    """Three links, and a second continuation of the first one: the chain follows the
    later started continuation at each link, as `hermes --resume` does; the other is a
    session of its own that says which it continues."""
    home = copied(tmp_path)
    third, stray = "20261201_103000_0d0d0d", "20261201_101400_0e0e0e"
    with sqlite3.connect(home / ".hermes" / "state.db") as db:
        db.execute(
            "UPDATE sessions SET ended_at = 1796121000, end_reason = 'compression'"
            " WHERE id = ?",
            (NEXT,),
        )
        for child, parent, start in (
            (third, NEXT, 1796121000),
            (stray, LEAD, 1796120040),
        ):
            db.execute(
                "INSERT INTO sessions (id, source, parent_session_id, started_at)"
                " VALUES (?, 'cli', ?, ?)",
                (child, parent, start),
            )
            db.execute(
                "INSERT INTO messages (session_id, role, content, timestamp,"
                " _compressed_summary) VALUES (?, 'user', 'summary', ?, 1)",
                (child, start),
            )
    db.close()
    found = sessions(home)
    assert set(found) == {CHILD, third, stray, GATEWAY, PROFILED} | FILES
    assert found[third].extra["chain"] == [LEAD, NEXT, third]
    assert found[third].title == "Add retry to checkout #2"  # the newest titled link's
    assert found[stray].extra["continues"] == LEAD and "chain" not in found[stray].extra
    assert found[CHILD].parent_id == third
    kinds = [e.kind for e in events(third, home)]
    assert kinds.count("compaction") == 2
    assert not any(e.extra.get("exited") for e in events(third, home))


def test_a_branch_compressed_goes_on_and_older_branches_and_resets_are_no_sub_agents(
    tmp_path: Path,
) -> None:
    """A compression's continuation inherits its parent's `model_config`, a `/branch`
    marker naming the branch's own origin among it: still the branch's continuation.
    A database older than the markers tells a branch by its parent's 'branched' end, and
    a gateway reset by its parent's reset end and their shared chat key: sessions of the
    user's own, not sub-agents hidden under their parents."""
    home = copied(tmp_path)
    branch, onward = "20261203_100000_0b0b0b", "20261203_103000_0c0c0c"
    legacy, reset = "20261203_110000_1a1a1a", "20261203_120000_2a2a2a"
    marker = json.dumps({"_branched_from": NEXT})
    rows = [
        # id, parent, model_config, start, end, end reason, chat key
        (branch, NEXT, marker, 1796292000, 1796293800, "compression", None),
        (onward, branch, marker, 1796293800, None, None, None),
        (legacy, GATEWAY, None, 1796295600, None, None, None),
        (reset, GATEWAY, None, 1796299200, None, None, "agent:main:telegram:dm:4242"),
    ]
    with sqlite3.connect(home / ".hermes" / "state.db") as db:
        for id_, parent, config, start, end, reason, key in rows:
            db.execute(
                "INSERT INTO sessions (id, source, parent_session_id, model_config,"
                " started_at, ended_at, end_reason, session_key)"
                " VALUES (?, 'cli', ?, ?, ?, ?, ?, ?)",
                (id_, parent, config, start, end, reason, key),
            )
            db.execute(
                "INSERT INTO messages (session_id, role, content, timestamp)"
                " VALUES (?, 'user', 'go on', ?)",
                (id_, start + 1),
            )
        db.execute(
            "UPDATE sessions SET ended_at = 1796295000, end_reason = 'branched',"
            " session_key = 'agent:main:telegram:dm:4242' WHERE id = ?",
            (GATEWAY,),
        )
    db.close()
    found = sessions(home)
    assert found[onward].extra["chain"] == [branch, onward]
    assert (
        found[onward].extra["branched_from"] == NEXT and found[onward].parent_id is None
    )
    assert branch not in found
    assert found[legacy].parent_id is None
    assert found[legacy].extra["branched_from"] == GATEWAY
    # the reset's parent ended 'branched' here: set it to a reset end instead
    with sqlite3.connect(home / ".hermes" / "state.db") as db:
        db.execute("UPDATE sessions SET end_reason = 'idle' WHERE id = ?", (GATEWAY,))
    db.close()
    again = sessions(home)
    assert (
        again[reset].parent_id is None and again[reset].extra["reset_from"] == GATEWAY
    )
    assert again[legacy].parent_id == GATEWAY  # no chat key of its own: a sub-agent


def test_input_hermes_wrote_as_a_user_row_is_no_prompt(tmp_path: Path) -> None:
    """A gateway's self-injected notification and a background delegate's result come
    as user rows with their `display_kind`: Hermes' input, not the user's; a `steer`
    row (typed while a turn ran) is the user's."""
    home = copied(tmp_path)
    with sqlite3.connect(home / ".hermes" / "state.db") as db:
        for at, kind, text in (
            (1796205000, "internal_notification", "Reminder: stand-up in 5 minutes"),
            (1796205001, "async_delegation_complete", "Background task done: 3 files"),
            (1796205002, "steer", "[OUT-OF-BAND USER MESSAGE]\nchange course"),
        ):
            db.execute(
                "INSERT INTO messages (session_id, role, content, display_kind,"
                " timestamp) VALUES (?, 'user', ?, ?, ?)",
                (GATEWAY, text, kind, at),
            )
    db.close()
    read = events(GATEWAY, home)
    said = [e.text for e in read if e.kind == "user"]
    assert "[OUT-OF-BAND USER MESSAGE]\nchange course" in said
    assert not any("Reminder" in (t or "") or "Background" in (t or "") for t in said)
    injected = [e.extra.get("display_kind") for e in read if e.extra.get("injected")]
    assert injected == ["internal_notification", "async_delegation_complete"]


def test_a_gateway_sessions_main_loop_counts_beside_its_auxiliary_rows(
    tmp_path: Path,
) -> None:
    """The gateway sets a session's counters whole (its agent's running totals), so its
    main loop has no per-model row; a title's or a compression's call has a row of its
    own, not in the counters. Both count: the counters not split by a row, then the rows."""
    home = copied(tmp_path)
    with sqlite3.connect(home / ".hermes" / "state.db") as db:
        db.execute(
            "UPDATE sessions SET estimated_cost_usd = 0.002 WHERE id = ?", (GATEWAY,)
        )
        db.execute(
            "INSERT INTO session_model_usage (session_id, model, billing_provider, task,"
            " input_tokens, output_tokens, estimated_cost_usd, last_seen)"
            " VALUES (?, 'google/gemini-2.5-flash', 'openrouter', 'title_generation',"
            " 60, 8, 0.0001, 1796198500)",
            (GATEWAY,),
        )
    db.close()
    rows = [e for e in events(GATEWAY, home) if e.kind == "usage"]
    assert [(e.usage, e.extra.get("task")) for e in rows] == [
        (Usage(60, 8, 0, 0, 0, "google/gemini-2.5-flash"), "title_generation"),
        (Usage(300, 40, 0, 0, 0, "hermes-4-405b"), None),
    ]
    assert rows[1].extra["app_cost_usd"] == pytest.approx(0.002)
    assert "unrouted" not in rows[1].extra
    # a CLI session whose rows split its counters whole: no more than its rows
    assert [e.extra.get("unrouted") for e in events(NEXT) if e.kind == "usage"] == [
        None, None, None, None,
    ]  # fmt: skip


def test_counters_beyond_their_rows_count_once_more(tmp_path: Path) -> None:
    """Rows that began mid-session (a database migrated while it was open) split only
    part of the counters: the rest counts once, with the rest of Hermes' cost."""
    home = copied(tmp_path)
    with sqlite3.connect(home / ".hermes" / "state.db") as db:
        db.execute(
            "UPDATE sessions SET input_tokens = input_tokens + 500,"
            " estimated_cost_usd = estimated_cost_usd + 0.01 WHERE id = ?",
            (NEXT,),
        )
    db.close()
    rows = [e for e in events(NEXT, home) if e.kind == "usage" and e.agent_id is None]
    rest = rows[-1]
    assert rest.extra["unrouted"] is True
    assert rest.usage == Usage(500, 0, 0, 0, 0, "anthropic/claude-sonnet-4.5")
    assert rest.extra["app_cost_usd"] == pytest.approx(0.01)


def test_a_summary_is_a_compaction_by_its_opening_and_keeps_the_turn_it_carries(
    tmp_path: Path,
) -> None:
    """A database without the `_compressed_summary` flag (the profile's older one): a
    summary is told by how Hermes opens it, as its own preview tells it; a summary that
    carries the user's next turn after its end line shows that turn as the prompt."""
    home = copied(tmp_path)
    legacy, carrier = "20261110_090000_3a3a3a", "20261110_100000_4b4b4b"
    end = (
        "--- END OF CONTEXT SUMMARY — respond to the message below, "
        "not the summary above ---"
    )
    with sqlite3.connect(home / ".hermes" / "profiles" / "work" / "state.db") as db:
        for session_id, start, rows in (
            (legacy, 1795856400, ["[CONTEXT SUMMARY]: the plan was reviewed", "Apply it"]),
            (carrier, 1795860000, [f"[CONTEXT COMPACTION] The plan was applied.\n{end}\n"
                                   "Now tag the release"]),
        ):  # fmt: skip
            db.execute(
                "INSERT INTO sessions (id, source, started_at) VALUES (?, 'cli', ?)",
                (session_id, start),
            )
            for n, text in enumerate(rows):
                db.execute(
                    "INSERT INTO messages (session_id, role, content, timestamp)"
                    " VALUES (?, 'user', ?, ?)",
                    (session_id, text, start + n),
                )
    db.close()
    found = sessions(home)
    assert found[legacy].title == "Apply it"
    assert found[carrier].title == "Now tag the release"
    read = events(legacy, home)
    assert [(e.kind, e.text) for e in read[:2]] == [
        ("compaction", "[CONTEXT SUMMARY]: the plan was reviewed"),
        ("user", "Apply it"),
    ]
    read = events(carrier, home)
    assert [(e.kind, e.text) for e in read[:2]] == [
        ("compaction", "[CONTEXT COMPACTION] The plan was applied."),
        ("user", "Now tag the release"),
    ]


def test_a_sub_agent_compressed_is_one_sub_agent_read_at_its_call(
    tmp_path: Path,
) -> None:
    """A delegate child that ran long enough to be compressed goes on in a continuation
    that inherits its `_delegate_from` marker: one sub-agent, listed under the lead's
    chain and read whole at the call that spawned it, under its newest link's id."""
    home = copied(tmp_path)
    onward = "20261201_100230_d7e8f9"
    with sqlite3.connect(home / ".hermes" / "state.db") as db:
        db.execute(
            "UPDATE sessions SET end_reason = 'compression' WHERE id = ?", (CHILD,)
        )
        db.execute(
            "INSERT INTO sessions (id, source, parent_session_id, model_config,"
            " started_at, ended_at, end_reason) VALUES (?, 'subagent', ?, ?,"
            " 1796119350, 1796119395, 'completed')",
            (onward, CHILD, json.dumps({"_delegate_from": LEAD})),
        )
        for n, (role, text) in enumerate(
            (("user", "[CONTEXT COMPACTION] Two callers found so far."),
             ("assistant", "No third caller.")),
        ):  # fmt: skip
            db.execute(
                "INSERT INTO messages (session_id, role, content, timestamp,"
                " _compressed_summary) VALUES (?, ?, ?, ?, ?)",
                (onward, role, text, 1796119351 + n, int(role == "user")),
            )
    db.close()
    found = sessions(home)
    assert CHILD not in found
    assert found[onward].parent_id == NEXT and found[onward].agent_type == "subagent"
    assert found[onward].extra["chain"] == [CHILD, onward]
    read = events(NEXT, home)
    spawn = next(e for e in read if e.kind == "subagent")
    assert spawn.extra["child_id"] == onward and spawn.call_id == "call_deleg_1"
    inside = [e for e in read if e.agent_id == onward]
    kinds = [e.kind for e in inside]
    assert kinds[0] == "user" and kinds[-2:] == ["compaction", "assistant"]
    assert inside[-1].text == "No third caller."
    assert not any(e.extra.get("exited") for e in inside)
    result = next(
        e for e in read if e.kind == "tool_result" and e.call_id == "call_deleg_1"
    )
    assert read.index(result) > read.index(inside[-1])


def test_an_older_releases_chat_is_read_from_its_transcript_or_its_log() -> None:
    """Older releases wrote a gateway chat to `sessions/<id>.jsonl` first (its database
    row holding no message) and each session's JSON log to `sessions/session_<id>.json`:
    such a session is titled and read from them; the routing index and debug dumps
    beside them are no sessions."""
    found = sessions()
    assert found[OLD_CHAT].title == "Remind me what the plan for Friday was"
    read = events(OLD_CHAT)
    assert [e.kind for e in read[:7]] == [
        "user", "thinking", "tool_call", "tool_result", "assistant", "turn_end", "usage",
    ]  # fmt: skip
    call, result = read[2], read[3]
    assert call.tool == "search_files" and call.extra["input"] == {"pattern": "friday"}
    assert result.call_id == call.call_id == "call_n1"
    written = datetime(2026, 4, 5, 10, 15, 20, 125000)  # local time, as Hermes wrote it
    assert read[0].time == written.astimezone(UTC)
    cron = events(OLD_CRON)
    assert [(e.kind, e.text) for e in cron[:2]] == [
        ("user", "Summarise today's calendar"),
        ("assistant", "Nothing booked today."),
    ]
    # from its end: a session read from a file of its own is read whole
    with pytest.raises(WholeRead):
        list(hermes.read_last(found[OLD_CHAT], Diagnostics(), 2))


def test_the_database_wins_over_a_shorter_transcript(tmp_path: Path) -> None:
    """Current releases write `sessions/<id>.jsonl` only with what the database refused:
    where the database holds more, it is what is shown."""
    home = copied(tmp_path)
    (home / ".hermes" / "sessions" / f"{GATEWAY}.jsonl").write_text(
        json.dumps({"role": "user", "content": "diverted", "timestamp": 1796205000.0})
        + "\n"
    )
    said = [e.text for e in events(GATEWAY, home) if e.kind == "user"]
    assert "diverted" not in said and said[0] == "What's on my calendar\ntoday?"


def test_a_session_only_a_file_of_its_own_holds_is_listed_and_read() -> None:
    """A database Hermes set aside as damaged and began again holds no row of what came
    before: a transcript or a JSON log in `sessions/` is then the session, listed with
    what its file says (times, model, platform) and read from it."""
    found = sessions()
    chat = found[ONLY_JSONL]
    assert chat.extra["file"] == f"{ONLY_JSONL}.jsonl"
    assert chat.extra["source"] == "discord" and chat.model == "minimax/minimax-m2"
    assert [(e.kind, e.text) for e in events(ONLY_JSONL)] == [
        ("user", "Which PRs are waiting on me?"),
        ("assistant", "Two: #41 and #44."),
        ("turn_end", None),
    ]
    log = found[ONLY_LOG]
    assert log.extra["source"] == "cli" and log.title == "Rename the build script"
    assert log.created == datetime(2026, 3, 11, 9, 0).astimezone(UTC)  # local time
    assert log.updated == datetime(2026, 3, 11, 9, 5).astimezone(UTC)
    assert [e.kind for e in events(ONLY_LOG)] == ["user", "assistant", "turn_end"]
    plan = hermes.resume(log)
    assert plan is not None and any("no row of it" in note for note in plan.notes)
    # the routing index and a request dump are no sessions
    assert not any(s.startswith(("request_dump", "sessions")) for s in found)


def test_a_pipe_in_place_of_a_session_file_is_counted(tmp_path: Path) -> None:
    """A session only its own file in sessions/ holds goes unlisted when a pipe stands in
    that file's place: the scan that lists those files counts what it passed over."""
    from sessdex import folders

    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    only_file = home / ".hermes" / "sessions" / "20260310_083000_7a7a7a.jsonl"
    only_file.unlink()
    os.mkfifo(only_file)
    folders.take_passed_over()
    location = hermes.locate(Home(home))
    listed = list(hermes.scan(location))
    assert [why for _, why in folders.take_passed_over()] == ["pipe"]
    found = [s for p in listed for s in hermes.parse(p, location, Diagnostics())]
    assert "20260310_083000_7a7a7a" not in {s.id for s in found}


# --- real hermes-agent 0.19.0 runs (schema v22) against the conformance suite's mock model

REAL = Path(__file__).parent.parent / "data" / "hermes" / "real"
REAL_BASIC = "20261205_191335_32b291"  # `chat -q`, then `chat -q --resume` of it
REAL_LEAD = "20261205_191422_2ef38f"  # `hermes -z`: a delegate_task run within the turn
REAL_CHILD = "20261205_191424_d96816"
REAL_TUI = "20261205_191435_b0fe5e"  # the interactive REPL, which titles its session
BACKGROUND_LEAD = (
    "20261205_191538_e01147"  # the REPL: the delegate_task ran in the background
)
BACKGROUND_CHILD = "20261205_191556_630f08"
REPO = "/home/alex/code/shop-api"


def test_real_sessions_are_listed_with_their_folder_model_and_title() -> None:
    found = sessions(REAL / "home")
    assert set(found) == {REAL_BASIC, REAL_LEAD, REAL_CHILD, REAL_TUI}
    for session in found.values():
        assert session.model == "mock-model"
        assert session.branch is None  # 0.19's classic CLI records none
        assert session.created is not None and session.updated is not None
    assert found[REAL_TUI].title == "Checkout retry smoke test"
    assert found[REAL_BASIC].title is not None
    assert found[REAL_BASIC].title.startswith("SCENARIO=basic")
    # the resume's turn is in the same session
    said = [e.text for e in events(REAL_BASIC, REAL / "home") if e.kind == "assistant"]
    assert said == [
        "Finished: the greeting command printed hello-from-tool.",
        "Resumed: the greeting command printed hello-after-resume.",
    ]
    # the mock's 1000 + 25 tokens a response: two responses a turn, and the TUI's title
    tokens = {
        session_id: sum(
            e.usage.input_tokens + e.usage.output_tokens
            for e in events(session_id, REAL / "home")
            if e.kind == "usage" and e.usage is not None and e.agent_id is None
        )
        for session_id in found
    }
    assert tokens == {
        REAL_BASIC: 4100,
        REAL_LEAD: 2050,
        REAL_CHILD: 2050,
        REAL_TUI: 3075,
    }


def test_a_real_sub_agent_is_listed_in_its_leads_folder() -> None:
    """Hermes records a folder only for a `cli` session; a delegate_task child runs in its
    lead's process and folder, and is listed there, under its lead."""
    for home, lead, child in (
        (REAL / "home", REAL_LEAD, REAL_CHILD),
        (REAL / "background", BACKGROUND_LEAD, BACKGROUND_CHILD),
    ):
        found = sessions(home)
        assert found[child].parent_id == lead
        assert found[child].cwd == REPO == found[lead].cwd


def test_a_real_background_delegations_result_is_no_prompt_of_the_user() -> None:
    """0.19's REPL runs a delegate_task in the background and hands its result back as a
    user row of its own writing (`[ASYNC DELEGATION BATCH COMPLETE — …]`; no display_kind
    column in schema v22): Hermes' input, not the user's."""
    shown = events(BACKGROUND_LEAD, REAL / "background")
    prompts = [e.text for e in shown if e.kind == "user" and e.agent_id is None]
    assert prompts == [
        "SCENARIO=subagent Please delegate the greeting command to a sub-agent and report back."
    ]
    injected = [e for e in shown if e.kind == "meta" and e.extra.get("injected")]
    assert len(injected) == 1
    assert injected[0].extra["display_kind"] == "async_delegation_complete"
    assert (injected[0].text or "").startswith("[ASYNC DELEGATION BATCH COMPLETE")
    # the sub-agent is read at the call that started it
    kinds = [(e.kind, e.agent_id) for e in shown]
    spawn = kinds.index(("subagent", None))
    assert shown[spawn].extra["child_id"] == BACKGROUND_CHILD
    assert kinds[spawn + 1] == ("user", BACKGROUND_CHILD)


OBSERVED_CHAT = "20261205_200000_9c9c9c"


def _real_gateway_chat(tmp_path: Path, rows: list[tuple[str, str, int]]) -> Path:
    """A copy of the real 0.19 home with a Telegram group chat added in its own columns
    (`observed` among them, as 0.19's gateway writes it): `rows` are (role, content,
    observed)."""
    home = tmp_path / "home"
    shutil.copytree(REAL / "home", home)
    with sqlite3.connect(home / ".hermes" / "state.db") as db:
        db.execute(
            "INSERT INTO sessions (id, source, model, started_at, message_count)"
            " VALUES (?, 'telegram', 'mock-model', 1796500800.0, ?)",
            (OBSERVED_CHAT, len(rows)),
        )
        for number, (role, content, observed) in enumerate(rows):
            db.execute(
                "INSERT INTO messages (session_id, role, content, timestamp, observed)"
                " VALUES (?, ?, ?, ?, ?)",
                (OBSERVED_CHAT, role, content, 1796500800.0 + number, observed),
            )
    db.close()
    return home


def test_group_chatter_hermes_observed_is_no_prompt_nor_the_title(
    tmp_path: Path,
) -> None:
    """A gateway that watches a group (`observe_unmentioned_group_messages`) records the
    messages not addressed to it as user rows flagged `observed`: what others said in
    the chat, not what the user asked; the addressed message is the prompt and the title."""
    home = _real_gateway_chat(
        tmp_path,
        [
            ("user", "[Dana|4411]\nanyone tried the new build?", 1),
            ("user", "[Sam|5120]\nyes, checkout is slow again", 1),
            ("user", "@shopbot why is checkout slow?", 0),
            ("assistant", "The retry loop waits 5 s between attempts.", 0),
        ],
    )
    found = sessions(home)
    assert found[OBSERVED_CHAT].title == "@shopbot why is checkout slow?"
    shown = events(OBSERVED_CHAT, home)
    assert [e.text for e in shown if e.kind == "user"] == [
        "@shopbot why is checkout slow?"
    ]
    observed = [e for e in shown if e.extra.get("observed")]
    assert [(e.kind, e.text) for e in observed] == [
        ("meta", "[Dana|4411]\nanyone tried the new build?"),
        ("meta", "[Sam|5120]\nyes, checkout is slow again"),
    ]


def test_model_switches_and_other_markers_hermes_writes_are_no_prompts(
    tmp_path: Path,
) -> None:
    """Newer releases type the user rows they write themselves: a live model switch
    (`model_switch`, naming the model) is a change of model; a personality switch, an
    auto-continue after an interrupted turn and a mission's wake-up are Hermes' input; an
    unknown kind stays what the row says and is counted."""
    home = copied(tmp_path)
    with sqlite3.connect(home / ".hermes" / "state.db") as db:
        for at, kind, text in (
            (1796205000, "model_switch", "[System: The active model for this chat has "
             "changed to gpt-5.5 via provider openai. From this point forward, use this "
             "runtime metadata when answering questions about what model/provider is "
             "active.]"),
            (1796205001, "personality_switch", "[System: personality is now concise]"),
            (1796205002, "auto_continue", "[System note: Your previous turn was "
             "interrupted mid-run. Continue.]"),
            (1796205003, "mission_callback_wake", "A routed mission-complete callback"),
            (1796205004, "brand_new_kind", "something newer"),
        ):  # fmt: skip
            db.execute(
                "INSERT INTO messages (session_id, role, content, display_kind,"
                " timestamp) VALUES (?, 'user', ?, ?, ?)",
                (GATEWAY, text, kind, at),
            )
    db.close()
    diagnostics = Diagnostics()
    read = list(hermes.read(sessions(home)[GATEWAY], diagnostics))
    switch = [e for e in read if e.extra.get("display_kind") == "model_switch"]
    assert [(e.kind, e.text, e.extra.get("model")) for e in switch] == [
        ("meta", "model: gpt-5.5", "gpt-5.5")
    ]
    said = [e.text for e in read if e.kind == "user"]
    assert not any("[System" in (t or "") or "mission" in (t or "") for t in said)
    assert "something newer" in said
    injected = [e.extra.get("display_kind") for e in read if e.extra.get("injected")]
    assert injected == ["personality_switch", "auto_continue", "mission_callback_wake"]
    assert diagnostics.unknown == {"display_kind:brand_new_kind": 1}


def test_observed_chatter_in_an_older_releases_transcript_is_no_prompt(
    tmp_path: Path,
) -> None:
    """An older release's `sessions/<id>.jsonl` keeps the flag on the line
    (`"observed": true`, as 0.19's gateway appends it): the same, from there."""
    home = copied(tmp_path)
    transcript = home / ".hermes" / "sessions" / f"{OLD_CHAT}.jsonl"
    chatter = {
        "role": "user",
        "content": "[Dana|4411]\nwho is bringing snacks?",
        "timestamp": "2026-04-05T10:15:19.000000",
        "observed": True,
    }
    transcript.write_text(json.dumps(chatter) + "\n" + transcript.read_text())
    assert sessions(home)[OLD_CHAT].title == "Remind me what the plan for Friday was"
    read = events(OLD_CHAT, home)
    assert (read[0].kind, read[0].extra) == ("meta", {"observed": True})
    assert read[1].kind == "user" and read[1].text == (
        "Remind me what the plan for Friday was"
    )


def test_a_dangling_link_to_a_session_file_is_counted_on_a_warm_index(
    tmp_path: Path,
) -> None:
    # the parse of state.db lists sessions/: what it passed over was said by the first
    # doctor only; a second, whose index kept that parse, said nothing of the session gone
    import json as _json

    from click.testing import CliRunner

    from sessdex.cli import main

    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    only_file = home / ".hermes" / "sessions" / f"{ONLY_JSONL}.jsonl"
    only_file.unlink()
    only_file.symlink_to(only_file.with_name(only_file.name + ".moved"))
    runner = CliRunner()
    for _ in range(2):
        result = runner.invoke(
            main, ["doctor", "--json", "--app", "hermes", "--home", str(home)]
        )
        assert result.exit_code == 0, result.output
        (report,) = _json.loads(result.stdout)
        assert report["passed_over"] == {"broken link": 1}
    listed = runner.invoke(
        main, ["list", "--all", "--verbose", "--app", "hermes", "--home", str(home)]
    )
    assert "broken link" in listed.stderr and str(only_file) in listed.stderr


def test_a_damaged_message_time_does_not_hide_when_a_session_was_last_written(
    tmp_path: Path,
) -> None:
    """A message cell out of any sane time (a garbage double salvaged from a damaged page,
    a TEXT cell) sorts above every real one: as in Hermes' own recency, it is passed over
    and the newest real message still dates a session whose heartbeat lags."""
    home = copied(tmp_path)
    with sqlite3.connect(home / ".hermes" / "state.db") as db:
        newest = db.execute(
            "SELECT max(timestamp) FROM messages WHERE session_id = ?", (GATEWAY,)
        ).fetchone()[0]
        db.execute(
            "UPDATE sessions SET ended_at = NULL, last_activity_at = started_at"
            " WHERE id = ?",
            (GATEWAY,),
        )
        for damaged in (5e246, "0x7ff8"):
            db.execute(
                "INSERT INTO messages (session_id, role, content, timestamp)"
                " VALUES (?, 'assistant', 'salvaged', ?)",
                (GATEWAY, damaged),
            )
    db.close()
    assert sessions(home)[GATEWAY].updated == datetime.fromtimestamp(newest, UTC)


def test_a_background_review_prompt_older_builds_kept_is_no_prompt(
    tmp_path: Path,
) -> None:
    """Older builds wrote the prompt of Hermes' background skill and memory review into
    the session it reviewed, a user row with no `display_kind` (Hermes' resume tells it by
    its opening and drops it): Hermes' input, shown as injected, not the user's."""
    home = copied(tmp_path)
    review = (
        "Review the conversation above and consider saving to memory anything worth "
        "keeping about the user."
    )
    with sqlite3.connect(home / ".hermes" / "state.db") as db:
        db.execute(
            "INSERT INTO messages (session_id, role, content, timestamp)"
            " VALUES (?, 'user', ?, 1796205000)",
            (GATEWAY, review),
        )
    db.close()
    read = events(GATEWAY, home)
    assert review not in [e.text for e in read if e.kind == "user"]
    injected = [e for e in read if e.extra.get("injected")]
    assert [(e.kind, e.text) for e in injected] == [("meta", review)]
    assert injected[0].extra["display_kind"] == "background_review"


@pytest.mark.parametrize("source", ["kanban", "api_server", "recovered"])
def test_a_session_hermes_itself_started_is_no_gateway_session(
    tmp_path: Path, source: str
) -> None:
    """Hermes' kanban board, its API server and the placeholders `hermes sessions
    recover` writes for orphaned messages are its own producers, no messaging platform:
    resuming one says nothing of a gateway."""
    home = copied(tmp_path)
    with sqlite3.connect(home / ".hermes" / "state.db") as db:
        db.execute("UPDATE sessions SET source = ? WHERE id = ?", (source, GATEWAY))
    db.close()
    plan = hermes.resume(sessions(home)[GATEWAY])
    assert plan is not None and not any("gateway" in note for note in plan.notes)


def test_a_bare_tool_marker_an_older_loop_saved_as_an_answer_is_not_said(
    tmp_path: Path,
) -> None:
    """An older Hermes loop saved a bare `[memory]` marker as the text of a turn that
    called tools (its resume blanks it): the call is shown, the marker is no answer."""
    home = copied(tmp_path)
    calls = [
        {
            "id": "call_mem_1",
            "type": "function",
            "function": {"name": "memory", "arguments": '{"action": "add"}'},
        }
    ]
    with sqlite3.connect(home / ".hermes" / "state.db") as db:
        db.execute(
            "INSERT INTO messages (session_id, role, content, tool_calls, timestamp)"
            " VALUES (?, 'assistant', ' [memory] ', ?, 1796205000)",
            (GATEWAY, json.dumps(calls)),
        )
        db.execute(
            "INSERT INTO messages (session_id, role, content, timestamp)"
            " VALUES (?, 'assistant', '[memory]', 1796205001)",
            (GATEWAY,),
        )
    db.close()
    read = events(GATEWAY, home)
    said = [e.text for e in read if e.kind == "assistant"]
    assert " [memory] " not in said and said[-1] == "[memory]"  # no call: its own words
    assert any(e.kind == "tool_call" and e.call_id == "call_mem_1" for e in read)


@LIST_PATHS
def test_a_deleted_transcript_or_log_lists_warm_as_cold(
    listing: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session only a `sessions/` file holds, deleted, is gone from a warm list too;
    a session titled from its transcript loses that title warm as cold. The files were
    read with the database, which did not change, so a warm list kept them."""
    from tests.helpers import list_rows

    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    transcripts = home / ".hermes" / "sessions"
    list_rows(home, tmp_path / "warm", monkeypatch, listing=listing)
    (transcripts / f"{ONLY_JSONL}.jsonl").unlink()
    (transcripts / f"{OLD_CHAT}.jsonl").unlink()
    (transcripts / f"session_{ONLY_LOG}.json").write_text('{"messages": [')
    warm = list_rows(home, tmp_path / "warm", monkeypatch, listing=listing)
    assert warm == list_rows(home, tmp_path / "cold", monkeypatch, listing=listing)
    assert ONLY_JSONL not in warm
    assert warm[OLD_CHAT]["title"] is None


def test_a_commands_output_and_a_delegations_summary_are_shown_not_their_json() -> None:
    """Hermes answers the model with JSON: `terminal` as `{"output", "exit_code",
    "error"}`, `delegate_task` as `{"results": [{status, summary, …}]}` (real, 0.19):
    the result is what the command printed and what the sub-agent sent back."""
    from click.testing import CliRunner

    from sessdex.cli import main

    real = Path(__file__).parent.parent / "data" / "hermes" / "real" / "home"
    shown = CliRunner().invoke(
        main, ["show", "20261205_191422_2ef38f", "--json", "--home", str(real)]
    )
    assert shown.exit_code == 0, shown.output
    results = [
        (e["agent_id"] is None, e["text"], e["is_error"])
        for e in json.loads(shown.stdout) if e["kind"] == "tool_result"
    ]  # fmt: skip
    assert results == [
        (False, "hello-from-subagent", False),
        (
            True,
            "Sub-agent report: the greeting command printed hello-from-subagent.",
            False,
        ),
    ]


def test_a_damaged_usage_table_loses_its_marks_not_the_sessions(tmp_path: Path) -> None:
    """A page of `session_model_usage` overwritten (a disk's damage): the sessions are
    still listed, without what their usage rows held, and the damage is said."""
    home = copied(tmp_path)
    path = home / ".hermes" / "state.db"
    with sqlite3.connect(path) as db:
        size = db.execute("PRAGMA page_size").fetchone()[0]
        (root,) = db.execute(
            "SELECT rootpage FROM sqlite_master WHERE name = 'session_model_usage'"
        ).fetchone()
    db.close()
    with open(path, "r+b") as handle:
        handle.seek((root - 1) * size)
        handle.write(b"\xff" * size)
    diagnostics = Diagnostics()
    found = sessions(home, diagnostics)
    assert found.keys() == sessions().keys()
    assert all("rows" not in s.extra for s in found.values())
    assert [p.split(": ", 2)[2] for p in diagnostics.problems] == [
        "database disk image is malformed"
    ]
    assert "state.db#session_model_usage" in diagnostics.problems[0]
