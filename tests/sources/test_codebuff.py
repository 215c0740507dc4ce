"""Codebuff quirks: a chat is a folder named by the time it began, its messages one JSON
list; the folder comes from run-state.json beside it; sub-agents stay inside their lead's
blocks; `codebuff --continue <id>` reopens it."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Session
from sessdex.sources import Home, codebuff
from sessdex.tree import build_tree

DATA = Path(__file__).parent.parent / "data" / "codebuff"
CHATS = Path(".config/manicode/projects")
SHOP = "2026-12-01T10-00-00.000Z"
NOTES = "2026-12-03T08-30-15.250Z"
LEGACY = "2025-08-20T14-05-00.000Z"  # the older CLI's messages.json


def sessions(home: Path, diagnostics: Diagnostics | None = None) -> dict[str, Session]:
    location = codebuff.locate(Home.at(home))
    found: dict[str, Session] = {}
    for path in codebuff.scan(location):
        for session in codebuff.parse(
            Path(path), location, diagnostics or Diagnostics()
        ):
            found[session.id] = session
    return found


def events(session: Session, diagnostics: Diagnostics | None = None) -> list[Event]:
    return list(codebuff.read(session, diagnostics or Diagnostics()))


def test_listing_titles_folders_and_counts() -> None:
    found = sessions(DATA / "home")
    shop, notes = found[SHOP], found[NOTES]
    assert shop.title == "Add retry to checkout"
    assert shop.cwd == "/home/alex/code/shop-api"  # run-state.json's projectRoot
    assert shop.extra["project"] == "shop-api"
    assert shop.extra["messages"] == 6  # two of them mode dividers
    assert notes.cwd is None  # no run-state.json: only the project's name is known
    assert notes.extra["project"] == "notes"


def test_messages_are_dated_by_the_milliseconds_in_their_ids() -> None:
    """The CLI's `timestamp` is only the clock time it shows ("10:02 AM"): the date is in
    the id (`user-<ms>`, `ai-<ms>-<hex>`)."""
    shop = sessions(DATA / "home")[SHOP]
    assert shop.updated == datetime(2026, 12, 1, 10, 2, 9, tzinfo=UTC)
    got = events(shop)
    users = [e.time for e in got if e.kind == "user"]
    assert users == [
        datetime(2026, 12, 1, 10, 0, 1, tzinfo=UTC),
        datetime(2026, 12, 1, 10, 2, tzinfo=UTC),
    ]
    assert all(e.time is not None for e in got)
    clock_only = {"id": "bash-result-1f0c", "variant": "ai", "timestamp": "10:02"}
    assert codebuff._message_time(clock_only) is None


def test_tool_calls_pair_with_their_results_and_errors_show() -> None:
    got = events(sessions(DATA / "home")[SHOP])
    calls = {e.call_id: e for e in got if e.kind == "tool_call"}
    results = {e.call_id: e for e in got if e.kind == "tool_result"}
    assert (
        set(calls)
        == set(results)
        == {"call-find", "call-edit", "call-test", "call-ask"}
    )
    assert calls["call-edit"].extra["input"] == {
        "path": "src/checkout.ts",
        "replacements": [{"old": "pay()", "new": "retry(pay)"}],
    }
    assert results["call-test"].is_error  # the SDK's {"errorMessage": ...}
    assert not results["call-edit"].is_error
    assert results["call-ask"].text == "No"
    thinking = [e.text for e in got if e.kind == "thinking"]
    assert thinking == ["Look at checkout first."]


def test_sub_agents_are_inline_with_their_own_agent_id_and_status() -> None:
    got = events(sessions(DATA / "home")[SHOP])
    spawn = next(e for e in got if e.kind == "subagent")
    assert spawn.extra["agent_type"] == "file-picker"
    assert spawn.extra["child_id"] == "agent-fp-1"
    assert spawn.text == "Find the checkout code"
    theirs = [e for e in got if e.agent_id == "agent-fp-1"]
    assert [e.kind for e in theirs] == ["tool_call", "tool_result", "assistant"]
    tree = build_tree(SHOP, got)
    (child,) = tree.children
    assert (child.agent_type, child.status, child.tool_calls) == (
        "file-picker",
        "done",
        1,
    )


def test_an_answers_credits_are_its_usage_and_errors_are_said() -> None:
    shop = events(sessions(DATA / "home")[SHOP])
    billed = [e.usage for e in shop if e.kind == "usage" and e.usage is not None]
    assert [(u.credits, u.total) for u in billed] == [(42, 0), (7.5, 0)]
    kinds = [e.kind for e in shop]
    assert all(kinds[n + 1] == "turn_end" for n, k in enumerate(kinds) if k == "usage")
    notes = events(sessions(DATA / "home")[NOTES])
    errors = [e.text for e in notes if e.kind == "error"]
    assert errors == ["Out of credits", "Network hiccup, retried"]
    assert [e.kind for e in notes][:2] == ["user", "error"]


def test_resume_continues_the_chat_in_its_folder() -> None:
    found = sessions(DATA / "home")
    plan = codebuff.resume(found[SHOP])
    assert plan is not None
    assert plan.argv == ("codebuff", "--continue", SHOP)
    assert plan.cwd == "/home/alex/code/shop-api"
    assert codebuff.resume(found[NOTES]) is None  # its folder is not known


def test_a_running_codebuff_names_the_chat_it_continues() -> None:
    opened = codebuff.process_session(["codebuff", "--continue", SHOP])
    assert opened is not None and opened.session_id == SHOP
    latest = codebuff.process_session(["codebuff", "--continue"])
    assert latest is not None and latest.latest
    assert codebuff.process_session(["codebuff", "fix it"]) is None


def test_a_development_build_keeps_its_chats_apart(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA / "home" / ".config/manicode", home / ".config/manicode-dev")
    location = codebuff.locate(Home(home, {"NEXT_PUBLIC_CB_ENVIRONMENT": "dev"}))
    assert location.root == home / ".config/manicode-dev"
    assert location.override == "NEXT_PUBLIC_CB_ENVIRONMENT=dev"
    listed = [p for p in codebuff.scan(location) if codebuff.companion_of(p) is None]
    assert len(listed) == 3
    prod = codebuff.locate(Home(home, {"NEXT_PUBLIC_CB_ENVIRONMENT": "prod"}))
    assert prod.root == home / ".config/manicode"


def test_a_chat_cut_short_is_listed_from_what_came_before() -> None:
    diagnostics = Diagnostics()
    found = sessions(DATA / "malformed/home", diagnostics)
    cut = found["2026-12-04T09-00-00.000Z"]
    assert cut.title == "Cut short"
    assert cut.cwd is None  # its run-state.json is cut short too
    assert "2026-12-04T09-10-00.000Z" not in found  # not a list
    assert [e.kind for e in events(cut, Diagnostics())] == ["user"]


def test_damaged_messages_and_blocks_are_counted_never_raised() -> None:
    diagnostics = Diagnostics()
    damaged = sessions(DATA / "malformed/home")["not-a-time"]
    assert damaged.created is None and damaged.title is None
    got = events(damaged, diagnostics)
    assert {"message:robot", "block:hologram"} <= set(diagnostics.unknown)
    assert "agent says" in [e.text for e in got]


def test_a_huge_chat_is_listed_from_its_head_and_read_in_pieces(tmp_path: Path) -> None:
    home = tmp_path / "home"
    chat = home / CHATS / "big/chats" / SHOP
    chat.mkdir(parents=True)
    pad = "x" * 1000
    messages = [
        {"variant": "user", "content": "First", "timestamp": "2026-12-01T10:00:01Z"}
    ]
    messages += [{"variant": "ai", "content": pad} for _ in range(50)]
    (chat / codebuff.MESSAGES).write_text(json.dumps(messages, indent=2))
    original = codebuff.WHOLE_CAP
    codebuff.WHOLE_CAP = 10_000
    try:
        (session,) = sessions(home).values()
        assert session.title == "First"
        assert "messages" not in session.extra  # not counted: only the head is read
        got = events(session)
    finally:
        codebuff.WHOLE_CAP = original
    assert [e.kind for e in got].count("assistant") == 50


def test_credentials_beside_the_chats_are_never_listed() -> None:
    location = codebuff.locate(Home.at(DATA / "home"))
    assert (location.root / "credentials.json").exists()
    assert all("credentials" not in path for path in codebuff.scan(location))


def test_the_older_clis_chats_are_read_without_resume() -> None:
    legacy = sessions(DATA / "home")[LEGACY]
    assert legacy.title == "Why is checkout slow?"  # out of its <user_message>
    assert legacy.extra["format"] == "legacy"
    got = events(legacy)
    assert [(e.kind, e.extra.get("injected")) for e in got][:2] == [
        ("user", True),  # Codebuff's own instructions
        ("user", None),
    ]
    call = next(e for e in got if e.kind == "tool_call")
    result = next(e for e in got if e.kind == "tool_result")
    assert (call.tool, call.call_id) == ("read_files", "t1")
    assert (result.call_id, result.text) == ("t1", '[{"path":"src/checkout.ts"}]')
    assert all(e.time_estimated for e in got)  # dated by updatedAt alone
    assert codebuff.resume(legacy) is None
    assert "no way to reopen" in (codebuff.resume_refusal(legacy) or "")


def test_a_damaged_older_chat_is_counted_never_raised() -> None:
    diagnostics = Diagnostics()
    found = sessions(DATA / "malformed/home", diagnostics)
    assert "2025-08-01T00-00-00.000Z" not in found  # a list, not the document
    got = events(found["2025-08-02T00-00-00.000Z"], diagnostics)
    assert {"legacy:robot", "legacy-part:x"} <= set(diagnostics.unknown)
    assert [e.kind for e in got] == ["tool_result"]


def test_the_folder_is_found_mid_file_after_a_long_history(tmp_path: Path) -> None:
    """The main agent's history comes before the file context in run-state.json: a long
    chat puts the projectRoot past its first 256 KB, and a big file tree before its end."""
    home = tmp_path / "home"
    chat = home / CHATS / "shop-api/chats" / SHOP
    chat.mkdir(parents=True)
    (chat / codebuff.MESSAGES).write_text(
        json.dumps(
            [{"variant": "user", "content": "hi", "timestamp": "2026-12-01T10:00:01Z"}]
        )
    )
    history = [{"role": "user", "content": "x" * 1000} for _ in range(600)]
    tree = [{"name": f"file{n}.ts", "type": "file"} for n in range(20000)]
    state = {
        "sessionState": {
            "mainAgentState": {"messageHistory": history},
            "fileContext": {
                "projectRoot": "/home/alex/code/shop-api",
                "fileTree": tree,
            },
        }
    }
    (chat / codebuff.RUN_STATE).write_text(json.dumps(state, indent=2))
    assert (chat / codebuff.RUN_STATE).stat().st_size > 1024 * 1024
    (session,) = sessions(home).values()
    assert session.cwd == "/home/alex/code/shop-api"


def test_a_chats_run_state_changed_alone_is_read_again_by_a_warm_list(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the chat's folder comes from run-state.json beside chat-messages.json: a warm
    # `list` kept the folder it said before it was cut (or rewritten), a cold one not
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    state = home / CHATS / "shop-api" / "chats" / SHOP / "run-state.json"

    def listed(folder: str) -> dict[str, object]:
        monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / folder))
        result = CliRunner().invoke(main, ["list", "--json", "--home", str(home)])
        assert result.exit_code == 0, result.output
        return {row["id"]: row for row in json.loads(result.stdout)}[SHOP]

    assert listed("warm")["cwd"] == "/home/alex/code/shop-api"
    state.write_bytes(state.read_bytes()[:20])
    warm = listed("warm")
    assert warm == listed("cold")
    assert warm["cwd"] is None
