"""Cline's SDK sessions (CLI, extension 4.1+): manifest + messages file per session folder."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Session, Usage, merge
from sessdex.sources import Home, _cline_sdk, cline

DATA = Path(__file__).parent.parent / "data" / "cline" / "sdk"
HOME = DATA / "home"
SESSIONS = Path(".cline") / "data" / "sessions"
LEAD = "1790931121000_k3x9q"
CHILD = f"{LEAD}__agent_7fz2"
FAILED = "1790940000000_p8w2r"


def sessions(home: Home, diagnostics: Diagnostics | None = None) -> dict[str, Session]:
    location = cline.locate(home)
    parts: dict[str, list[Session]] = {}
    for path in cline.scan(location):
        for session in cline.parse(Path(path), location, diagnostics or Diagnostics()):
            parts.setdefault(session.id, []).append(session)
    merged = {key: merge(value) for key, value in parts.items()}
    return {key: s for key, s in merged.items() if s.listed}


def events(session: Session, diagnostics: Diagnostics | None = None) -> list[Event]:
    return list(cline.read(session, diagnostics or Diagnostics()))


def total(found: list[Event]) -> tuple[Usage, float]:
    usage = sum((e.usage for e in found if e.usage), Usage())
    cost = sum(float(e.extra.get("cost_usd") or 0) for e in found if e.kind == "usage")  # type: ignore[arg-type]
    return usage, round(cost, 6)


def test_listing_shows_title_folder_model_status_and_times() -> None:
    found = sessions(Home.at(HOME))
    assert sorted(found) == [LEAD, FAILED]
    lead = found[LEAD]
    assert lead.title == "Add a health endpoint"  # metadata.title
    assert lead.cwd == "/home/alex/code/shop-api"
    assert lead.model == "claude-sonnet-4-5"
    assert (
        lead.created is not None
        and lead.created.isoformat() == "2026-10-02T08:52:01+00:00"
    )
    assert (
        lead.updated is not None
        and lead.updated.isoformat() == "2026-10-02T08:53:10+00:00"
    )
    assert lead.extra["status"] == "completed" and lead.extra["source"] == "cli"
    failed = found[FAILED]
    # no title: the prompt's first line, without Cline's <mode_notice> and <user_input>
    assert failed.title == "Why does the build fail?"
    assert (failed.cwd, failed.model, failed.extra["status"]) == (
        "/home/alex/code/mono",
        "gpt-5",
        "failed",
    )
    assert (
        lead.parent_id is None and CHILD not in found
    )  # sub-agents are read with the lead


def test_events_of_a_session_come_in_order_with_calls_and_results_linked() -> None:
    got = [e for e in events(sessions(Home.at(HOME))[LEAD]) if e.agent_id is None]
    assert [e.kind for e in got] == [
        "user", "thinking", "assistant", "tool_call", "usage", "tool_result",
        "assistant", "tool_call", "usage", "subagent", "tool_result",
        "tool_call", "usage", "tool_result", "assistant", "usage",
    ]  # fmt: skip
    assert (
        got[0].text
        == "Add a /health endpoint to the API\nIt should return the git sha."
    )
    assert (
        got[0].time is not None
        and got[0].time.isoformat() == "2026-10-02T08:52:01+00:00"
    )
    read = got[3]
    assert read.tool == "read_files" and read.extra["input"] == {
        "paths": ["src/router.ts"]
    }
    assert got[5].call_id == read.call_id == "toolu_01" and "new Router()" in (
        got[5].text or ""
    )
    failing = got[13]
    assert failing.call_id == got[11].call_id and failing.is_error
    assert (
        got[-2].text
        == "The route was not registered; fixed. GET /health now returns the sha."
    )


def test_usage_is_one_event_per_assistant_message_with_cache_taken_out_of_input() -> (
    None
):
    found = events(sessions(Home.at(HOME))[LEAD])
    lead = [e for e in found if e.agent_id is None]
    # inputTokens 5200+5600+6000+6300 less cache reads 0+5000+5400+5900 and writes 5000+400+500+300
    usage, cost = total(lead)
    assert (usage.input_tokens, usage.output_tokens) == (600, 300)
    assert (usage.cache_read_tokens, usage.cache_write_tokens) == (16300, 6200)
    assert cost == 0.0303 and usage.model == "claude-sonnet-4-5"
    # with the sub-agent: 1200-0-1000 + 1500-1000-300 more input, 300+20 output
    usage, cost = total(found)
    assert (usage.input_tokens, usage.output_tokens) == (1000, 620)
    assert (usage.cache_read_tokens, usage.cache_write_tokens) == (17300, 7500)
    assert cost == 0.0388


def test_a_sub_agent_is_read_where_it_was_spawned() -> None:
    got = events(sessions(Home.at(HOME))[LEAD])
    spawn = next(e for e in got if e.kind == "tool_call" and e.tool == "spawn_agent")
    subagent = next(e for e in got if e.kind == "subagent")
    assert subagent.call_id == spawn.call_id == "toolu_02"
    assert subagent.text == "Write a test for GET /health"
    assert (
        subagent.extra["child_id"] == CHILD
        and subagent.extra["agent_name"] == "agent_7fz2"
        and subagent.extra["agent_type"] == "subagent"  # tree shows a type, not null
    )
    start = got.index(subagent)
    child = [e for e in got if e.agent_id == CHILD]
    assert got[start + 1 : start + 1 + len(child)] == child  # right after the spawn
    assert [e.kind for e in child] == [
        "user", "tool_call", "usage", "tool_result", "assistant", "usage",
    ]  # fmt: skip
    assert child[3].call_id == child[1].call_id == "toolu_11"
    result = got[start + 1 + len(child)]
    assert result.kind == "tool_result" and result.call_id == spawn.call_id
    assert [e.seq for e in got] == list(range(len(got)))


def test_failed_compacted_session_with_provider_tools_and_an_unknown_block() -> None:
    diagnostics = Diagnostics()
    got = events(sessions(Home.at(HOME))[FAILED], diagnostics)
    assert [(e.kind, e.text) for e in got] == [
        ("user", "Why does the build fail?\nThe CI log is attached."),
        ("tool_call", None),
        ("tool_result", "3 results"),
        ("assistant", "A path alias is missing from tsconfig.json."),
        ("error", "invalid call of editor: invalid_json"),
        ("usage", None),
        ("compaction", None),  # the sidecar stands for the first two messages
        ("user", "Fix it"),
        ("error", "session failed (exit code 1)"),
    ]
    assert got[1].tool == "web_search" and got[1].call_id == got[2].call_id == "ws_1"
    usage = got[5].usage
    assert usage is not None and (usage.input_tokens, usage.cache_read_tokens) == (
        952,
        2048,
    )
    assert usage.model == "gpt-5"
    assert diagnostics.unknown == {"assistant:web_search_call": 1}


def test_broken_files_are_reported_never_raised() -> None:
    diagnostics = Diagnostics()
    found = sessions(Home.at(DATA / "malformed" / "home"), diagnostics)
    assert sorted(found) == [
        "1790000000000_bad01",
        "1790000000001_bad02",
        "1790000000002_bad03",
    ]
    assert diagnostics.skipped == {"not JSON": 1}  # the broken manifest
    cut = Diagnostics()
    assert events(found["1790000000000_bad01"], cut) == []
    assert found["1790000000000_bad01"].title == "Cut short"
    assert cut.skipped == {"not JSON": 1} and cut.details[0][0].endswith(
        ".messages.json"
    )
    missing = Diagnostics()
    assert events(found["1790000000001_bad02"], missing) == []
    assert found["1790000000001_bad02"].title == "No messages yet"
    assert len(missing.problems) == 1 and "is missing" in missing.problems[0]
    odd = Diagnostics()
    unnamed = found["1790000000002_bad03"]  # listed from its messages file alone
    assert unnamed.title is None and unnamed.updated is not None
    assert [(e.kind, e.text) for e in events(unnamed, odd)] == [("user", "still here")]
    assert odd.skipped == {"not an object": 1} and odd.unknown == {"message:system": 1}
    # details name files and lines, never content
    assert all("still here" not in str(d) for d in odd.details)


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("CLINE_SESSION_DATA_DIR", "moved/sessions"),
        ("CLINE_DATA_DIR", "moved/data"),
        ("CLINE_DIR", "moved"),
    ],
)
def test_the_environment_moves_the_sessions_folder(
    tmp_path: Path, variable: str, value: str
) -> None:
    sessions_folder = (
        "moved/sessions"
        if variable == "CLINE_SESSION_DATA_DIR"
        else "moved/data/sessions"
    )
    shutil.copytree(HOME / SESSIONS, tmp_path / sessions_folder)
    empty = tmp_path / "home"
    empty.mkdir()
    assert sessions(Home.at(empty)) == {}
    home = Home(empty, {variable: str(tmp_path / value)})
    assert sorted(sessions(home)) == [LEAD, FAILED]
    assert f"{variable}=" in (cline.locate(home).override or "")
    # Home.at ignores the environment: the fixture home's own folder is read
    assert sorted(sessions(Home.at(HOME))) == [LEAD, FAILED]


def test_session_data_dir_wins_over_the_data_dir() -> None:
    home = Home(
        Path("/nowhere"),
        {"CLINE_SESSION_DATA_DIR": "/a/sessions", "CLINE_DATA_DIR": "/b"},
    )
    assert _cline_sdk.sessions_dir(home)[0] == Path("/a/sessions")
    assert "CLINE_SESSION_DATA_DIR" in cline.ENV_VARS


def test_old_tasks_and_sdk_sessions_in_one_data_folder_are_both_listed(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    task = home / ".cline" / "data" / "tasks" / "1760000000000"
    task.mkdir(parents=True)
    (task / "ui_messages.json").write_text(
        json.dumps(
            [
                {
                    "ts": 1760000000000,
                    "type": "say",
                    "say": "task",
                    "text": "from CLI 1.x",
                }
            ]
        )
    )
    found = sessions(Home.at(home))
    assert sorted(found) == ["1760000000000", LEAD, FAILED]
    assert found["1760000000000"].title == "from CLI 1.x"
    assert cline.resume(found["1760000000000"]) is None


def test_resume_reopens_cli_sessions_with_the_cli_only() -> None:
    found = sessions(Home.at(HOME))
    plan = cline.resume(found[LEAD])
    assert plan is not None
    # its provider and model kept: a resumed session otherwise takes the CLI's current
    # configuration (apps/cli session-runtime.ts; `-P`, `-m` in program.ts)
    assert plan.argv == (
        "cline", "--id", LEAD, "-P", "anthropic", "-m", "claude-sonnet-4-5"
    )  # fmt: skip
    assert plan.cwd == "/home/alex/code/shop-api"
    assert cline.resume(found[FAILED]) is None  # started in VS Code: its History view


def test_a_messages_file_too_big_to_parse_is_read_one_message_at_a_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    found = sessions(Home.at(HOME))
    whole = {key: events(session) for key, session in found.items()}
    monkeypatch.setattr(_cline_sdk, "WHOLE_CAP", 100)
    diagnostics = Diagnostics()
    assert {key: events(s, diagnostics) for key, s in found.items()} == whole
    assert not diagnostics.problems and diagnostics.skipped_total == 0
    # a huge manifest (a pasted prompt) is read without its prompt: listed all the same
    monkeypatch.setattr(_cline_sdk, "MANIFEST_CAP", 100)
    listed = sessions(Home.at(HOME), diagnostics)
    assert listed[LEAD] == found[LEAD]  # its title is metadata.title
    assert listed[FAILED].title is None and listed[FAILED].cwd == found[FAILED].cwd
    assert (
        events(listed[FAILED], diagnostics) == whole[FAILED]
    )  # still failed, compacted
    assert not diagnostics.problems and diagnostics.skipped_total == 0


def test_a_byte_order_mark_changes_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(HOME, home)

    def seen() -> dict[str, object]:
        found = sessions(Home.at(home))
        return {
            key: (
                s.title,
                s.cwd,
                s.model,
                s.created,
                s.updated,
                [(e.kind, e.text, e.usage) for e in events(s)],
            )
            for key, s in found.items()
        }

    plain = seen()
    for path in home.rglob("*.json"):
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert seen() == plain


def test_reading_writes_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    before = {
        p: (p.read_bytes(), p.stat().st_mtime_ns)
        for p in home.rglob("*")
        if p.is_file()
    }
    for path in [*home.rglob("*"), home]:
        os.chmod(path, 0o555 if path.is_dir() else 0o444)
    try:
        for session in sessions(Home.at(home)).values():
            events(session)
            cline.resume(session)
    finally:
        for path in [home, *home.rglob("*")]:
            os.chmod(path, 0o755)
    after = {
        p: (p.read_bytes(), p.stat().st_mtime_ns)
        for p in home.rglob("*")
        if p.is_file()
    }
    assert after == before


REAL = Path(__file__).parent.parent / "data" / "cline" / "real" / "home"
REAL_BASIC = "1796199537105_fpxn5"  # one command, then resumed in the TUI (--id)
REAL_LEAD = "1796199559317_1pfyv"  # spawned one sub-agent


def test_real_cli_sessions_show_their_branch_and_cli_version() -> None:
    found = sessions(Home.at(REAL))
    assert sorted(found) == [REAL_BASIC, REAL_LEAD]
    for session in found.values():
        assert session.branch == "feature/checkout-retry"  # metadata.git.branch
        assert session.cli_version == "3.0.65"  # metadata.sessionHistoryOrigin
        assert (session.cwd, session.model) == (
            "/home/alex/code/shop-api",
            "mock-model",
        )
    assert found[REAL_BASIC].title == (
        "SCENARIO=basic Please run the greeting shell command and tell me what it printed."
    )


def test_real_command_results_show_what_the_command_printed() -> None:
    got = events(sessions(Home.at(REAL))[REAL_BASIC])
    results = [e.text for e in got if e.kind == "tool_result"]
    # run_commands answers with [{query, result, success}], one per command
    assert results == ["hello-from-tool\n", "hello-after-resume\n"]


def test_a_tui_session_marked_failed_by_clines_stale_check_says_so() -> None:
    got = events(sessions(Home.at(REAL))[REAL_BASIC])
    assert got[-1].kind == "error"
    assert got[-1].text == (
        "marked failed by Cline: the process that had it open had exited"
    )


def test_a_real_sub_agent_is_read_inside_its_lead() -> None:
    got = events(sessions(Home.at(REAL))[REAL_LEAD])
    child = f"{REAL_LEAD}__agent_1796199559984_wufjri"
    spawned = next(e for e in got if e.kind == "subagent")
    assert spawned.extra["child_id"] == child
    inside = [e for e in got if e.agent_id == child]
    assert [e.kind for e in inside] == [
        "user", "tool_call", "usage", "tool_result", "assistant", "usage",
    ]  # fmt: skip
    assert inside[3].text == "hello-from-subagent\n"


def test_a_failed_command_shows_its_error_and_what_it_printed() -> None:
    """A command that failed part way: its error first, then the output it gave before
    (what the user needs to see why), not the error alone."""
    from sessdex.sources._cline_sdk import _operation_text

    failed = {"query": "npm test", "result": "3 passed\n1 failed\n",
              "error": "Command exited with code 1", "success": False}  # fmt: skip
    assert _operation_text(failed) == "Command exited with code 1\n3 passed\n1 failed\n"
    assert _operation_text(failed | {"result": ""}) == "Command exited with code 1"
    assert _operation_text(failed | {"success": True}) == "3 passed\n1 failed\n"


NEXT = DATA / "next" / "home"  # made by data/cline/sdk/next/make_next.py
NEXT_LEAD = "1797000000000_n3xt1"


def test_next_release_links_each_spawn_to_the_sub_agent_it_started() -> None:
    # Cline's next release names, on the assistant message, the child session each
    # tool call started (`childSessions`): the links win over the files' start times
    got = events(sessions(Home.at(NEXT))[NEXT_LEAD])
    started = [
        (e.call_id, e.text, e.extra["child_id"]) for e in got if e.kind == "subagent"
    ]
    assert started == [
        ("toolu_head", "Describe the header", f"{NEXT_LEAD}__agent_head"),
        ("toolu_foot", "Describe the footer", f"{NEXT_LEAD}__agent_foot"),
    ]
    head = [e.text for e in got if e.agent_id == f"{NEXT_LEAD}__agent_head"]
    assert head == ["Describe the header", "A logo and a menu.", None]


def test_next_release_images_kept_as_blobs_are_shown_as_notes() -> None:
    diagnostics = Diagnostics()
    got = events(sessions(Home.at(NEXT))[NEXT_LEAD], diagnostics)
    assert got[0].kind == "user" and got[0].text == (
        "Compare the header and the footer in this screenshot\n[image/png, 48.0 KB]"
    )
    result = next(
        e for e in got if e.kind == "tool_result" and e.call_id == "toolu_foot"
    )
    assert result.text == "Links, and a chart:\n[image/png, 20.0 KB]"
    assert not diagnostics.unknown and not diagnostics.problems


def test_a_linked_sub_agent_whose_file_is_gone_takes_no_other_file(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    shutil.copytree(NEXT, home)
    (home / SESSIONS / NEXT_LEAD / "agent_head.messages.json").unlink()
    got = events(sessions(Home.at(home))[NEXT_LEAD])
    started = [(e.call_id, e.extra["child_id"]) for e in got if e.kind == "subagent"]
    assert started == [("toolu_foot", f"{NEXT_LEAD}__agent_foot")]


def test_a_sub_agents_answer_shows_as_its_words_not_its_run_record() -> None:
    """`spawn_agent` gives the lead its sub-agent's run as one JSON record (`text`,
    `iterations`, `finishReason`, `usage`; real, CLI 3.0.65): the result is the words the
    sub-agent sent back, so `show` reads as it does for other apps and `export -f md`
    points at the sub-agent's last reply instead of repeating it as JSON."""
    from click.testing import CliRunner

    from sessdex.cli import main

    shown = CliRunner().invoke(main, ["show", REAL_LEAD, "--json", "--home", str(REAL)])
    assert shown.exit_code == 0, shown.output
    lead = [
        e for e in json.loads(shown.stdout)
        if e["kind"] == "tool_result" and e["agent_id"] is None
    ]  # fmt: skip
    assert [(e["text"], e["is_error"]) for e in lead] == [
        ("Sub-agent report: the greeting command printed hello-from-subagent.", False)
    ]
    exported = CliRunner().invoke(
        main, ["export", REAL_LEAD, "-f", "md", "--home", str(REAL)]
    )
    assert '"finishReason"' not in exported.stdout
    assert "its last reply, above" in exported.stdout
