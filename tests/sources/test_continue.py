"""Continue quirks: one JSON chat per file, sessions.json's creation times, a fork's copied
responses billed in its source, `cn --resume` only for the newest chat."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import files, jsonstream
from sessdex.cli import main
from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Session, Usage, merge
from sessdex.sources import Home, continue_

DATA = Path(__file__).parent.parent / "data" / "continue"
SESSIONS = Path(".continue") / "sessions"
BASIC = "4f5fc9a5-a39f-4520-a3f4-893c822b4150"  # -p, then -p --resume
FORK = "51ef62d5-b480-45bf-b5d2-84868e10cde8"  # -p --fork BASIC
TUI = "8f33b8c8-397c-4cfd-94aa-68b32f163c9c"  # the TUI, titled by cn
DENIED = "b9298d6e-0820-4006-8548-dc9f65cc5bea"  # the TUI, the call refused, /title
IDE = "0b7e2c1a-5d4f-4e8a-9c3b-2f1e0d9c8b7a"  # synthetic extension chat
CLI_SESSIONS = (BASIC, FORK, TUI, DENIED)


def sessions(home: Path, diagnostics: Diagnostics | None = None) -> dict[str, Session]:
    """Every chat, merged from its file and sessions.json, as the index merges them."""
    location = continue_.locate(Home.at(home))
    found: dict[str, list[Session]] = {}
    for path in continue_.scan(location):
        for session in continue_.parse(
            Path(path), location, diagnostics or Diagnostics()
        ):
            found.setdefault(session.id, []).append(session)
    merged = {key: merge(parts) for key, parts in found.items()}
    return {key: s for key, s in merged.items() if s.listed}


def events(session: Session, diagnostics: Diagnostics | None = None) -> list[Event]:
    return list(continue_.read(session, diagnostics or Diagnostics()))


def totals(got: list[Event]) -> Usage:
    return sum((e.usage for e in got if e.usage), Usage())


def copy_home(tmp_path: Path, source: Path = DATA / "home") -> Path:
    home = tmp_path / "home"
    shutil.copytree(source, home)
    return home


def test_titles_folders_and_times_as_a_user_sees_them() -> None:
    found = sessions(DATA / "home")
    # headless runs stay "Untitled Session": the first prompt titles them
    assert (
        found[BASIC].title
        == found[FORK].title
        == (
            "SCENARIO=basic Please run the greeting shell command and tell me what it printed."
        )
    )
    assert found[TUI].title == "Checkout retry smoke test"  # cn's own title request
    assert found[DENIED].title == "Denied greeting"  # /title
    assert found[IDE].title == "Explain the retry loop"
    assert {found[s].cwd for s in CLI_SESSIONS} == {"/home/alex/code/shop-api"}
    assert found[IDE].cwd == "/home/dev/code/ledger"  # from the extension's file:// URI
    # created: sessions.json's dateCreated (epoch ms as text); the chat's own file has none
    assert found[BASIC].created is not None
    assert found[BASIC].created.isoformat() == "2026-12-05T10:27:25.402000+00:00"
    assert (
        found[FORK].created is not None and found[FORK].created > found[BASIC].created
    )
    # updated: the file's last write (Continue keeps no other time)
    path = DATA / "home" / SESSIONS / f"{BASIC}.json"
    assert found[BASIC].updated is not None
    assert found[BASIC].updated.timestamp() == pytest.approx(path.stat().st_mtime)
    assert found[BASIC].model == "mock-model"  # the responses' usage.model
    assert found[IDE].model == "claude-sonnet-4-5"  # usage first, not chatModelTitle
    assert dict(found[IDE].extra) == {"origin": "ide", "mode": "agent"}
    assert dict(found[BASIC].extra) == {"origin": "cli"}


def test_a_chat_sessions_json_lists_without_a_file_is_not_listed(
    tmp_path: Path,
) -> None:
    home = copy_home(tmp_path)
    (home / SESSIONS / f"{DENIED}.json").unlink()  # deleted; the index still names it
    assert DENIED not in sessions(home)
    assert BASIC in sessions(home)


def test_a_turn_reads_in_order_with_each_call_paired_to_its_output() -> None:
    got = events(sessions(DATA / "home")[BASIC])
    assert [e.kind for e in got] == [
        "user", "tool_call", "usage", "tool_result", "assistant", "usage", "turn_end",
        "user", "tool_call", "usage", "tool_result", "assistant", "usage", "turn_end",
    ]  # fmt: skip
    call, result = got[1], got[3]
    assert (call.tool, call.call_id) == ("Bash", "7af0ad471")
    assert dict(call.extra) == {"input": {"command": "echo hello-from-tool"}}
    # cn keeps the output only in the call's toolCallStates
    assert (result.call_id, result.tool, result.text) == (
        "7af0ad471",
        "Bash",
        "hello-from-tool\n",
    )
    assert not result.is_error
    assert got[11].text == "Resumed: the greeting command printed hello-after-resume."
    assert got[10].text == "hello-after-resume\n"


def test_a_refused_call_is_a_failed_result() -> None:
    got = events(sessions(DATA / "home")[DENIED])
    assert [e.kind for e in got] == ["user", "tool_call", "usage", "tool_result"]
    assert got[3].is_error and got[3].text == "Permission denied by user"
    assert got[3].call_id == got[1].call_id == "5439365d6"


def test_a_call_waiting_for_approval_has_no_result_yet() -> None:
    """A real capture taken while cn's TUI asked whether to run the Bash call
    (`status: "generated"`): the call stays open."""
    (session,) = sessions(DATA / "pending" / "home").values()
    got = events(session)
    assert [e.kind for e in got] == ["user", "tool_call", "usage"]


def test_usage_totals_match_what_the_mock_served() -> None:
    """Each response the mock model gave cn was 1000 tokens in, 25 out: BASIC holds four
    (the run and its --resume), TUI two, DENIED one; the fork holds six, of which the first
    four are BASIC's, copied: they count in BASIC only."""
    found = sessions(DATA / "home")
    assert totals(events(found[BASIC])) == Usage(4000, 100, model="mock-model")
    assert totals(events(found[FORK])) == Usage(2000, 50, model="mock-model")
    assert totals(events(found[TUI])) == Usage(2000, 50, model="mock-model")
    assert totals(events(found[DENIED])) == Usage(1000, 25, model="mock-model")
    # the fork shows its copied turns, billing only its own two responses
    fork = events(found[FORK])
    assert sum(e.kind == "assistant" for e in fork) == 3
    assert sum(e.kind == "usage" for e in fork) == 2
    # no time per response: dated by the file's last write, and said to be a guess
    usage = next(e for e in fork if e.kind == "usage")
    assert usage.time == found[FORK].updated and usage.time_estimated


def test_cache_counts_in_the_extension_chat() -> None:
    """Anthropic-adapter usage keeps cache reads and writes apart from the prompt count;
    OpenAI's cached_tokens would be inside it; index.d.ts's camelCase as written."""
    got = events(sessions(DATA / "home")[IDE])
    billed = [e.usage for e in got if e.usage]
    assert [
        (u.input_tokens, u.output_tokens, u.cache_read_tokens, u.cache_write_tokens)
        for u in billed
    ] == [(1200, 80, 900, 100), (1500, 40, 1200, 0), (1600, 30, 1500, 0)]


def test_openai_cached_tokens_are_taken_out_of_the_prompt() -> None:
    usage = continue_._usage(
        {
            "prompt_tokens": 1000,
            "completion_tokens": 20,
            "prompt_tokens_details": {"cached_tokens": 600},
            "completion_tokens_details": {"reasoning_tokens": 7},
        },
        "gpt-5",
    )
    assert usage == Usage(400, 20, 600, 0, 7, "gpt-5")


def test_the_extension_chat_reads_once_per_output() -> None:
    """The extension writes a `tool` message beside the call's state: one result each."""
    got = events(sessions(DATA / "home")[IDE])
    kinds = [e.kind for e in got]
    assert kinds == [
        "user", "thinking", "thinking", "assistant", "tool_call", "usage", "tool_result",
        "assistant", "usage", "turn_end", "user", "tool_call", "usage", "tool_result",
        "compaction",
    ]  # fmt: skip
    assert got[0].text == (
        "Why does the retry loop in retry.ts stop after three tries?\n[image]"
    )
    assert dict(got[0].extra) == {"context": ["retry.ts"]}
    assert got[2].time is not None  # reasoning.startAt
    assert got[2].time.isoformat() == "2026-12-04T10:26:40+00:00"
    assert got[6].call_id == "toolu_01" and not got[6].is_error
    assert got[13].call_id == "toolu_02" and got[13].is_error
    assert got[13].text == "Error: src/retry.ts changed on disk"
    assert got[14].text is not None and got[14].text.startswith("The user asked why")


def test_resume_is_exact_and_never_looser_than_cn(tmp_path: Path) -> None:
    home = copy_home(tmp_path)
    folder = home / SESSIONS
    for index, name in enumerate(sorted(p.name for p in folder.iterdir())):
        os.utime(folder / name, (1_796_400_000 + index, 1_796_400_000 + index))
    newest = max(CLI_SESSIONS, key=lambda s: (folder / f"{s}.json").stat().st_mtime)
    found = sessions(home)
    for keep in (False, True):
        plan = continue_.resume(found[newest], keep_permissions=keep)
        assert plan is not None
        assert plan.argv == ("cn", "--resume") and plan.notes == ()
        assert plan.cwd == "/home/alex/code/shop-api" and plan.program == "cn"
        other = continue_.resume(found[BASIC], keep_permissions=keep)
        assert other is not None and other.argv == ("cn", "--fork", BASIC)
        assert "--auto" not in plan.argv + other.argv
    assert continue_.resume(found[IDE]) is None
    refusal = continue_.resume_refusal(found[IDE])
    assert refusal is not None and f"`cn --fork {IDE}`" in refusal
    planned = Session(
        "continue", "x", path=found[BASIC].path, cwd="/w", permission_mode="plan"
    )
    assert continue_.resume(planned, keep_permissions=True) is not None
    assert continue_.resume(planned).argv[-1] == "--readonly"  # type: ignore[union-attr]


def test_a_copied_home_offers_resume_to_the_one_chat_cn_would_open(
    tmp_path: Path,
) -> None:
    """Every file written in the same millisecond (a copy): cn --resume opens the first by
    name, so only that chat gets it; the others a fork, saying which one --resume opens."""
    home = copy_home(tmp_path)
    folder = home / SESSIONS
    for path in folder.iterdir():
        os.utime(path, ns=(1_796_400_000_123_456_000, 1_796_400_000_123_456_000))
    # a different nanosecond in the same millisecond is no newer to cn
    os.utime(folder / f"{DENIED}.json", ns=(0, 1_796_400_000_123_999_000))
    (
        folder / f"{IDE}.json"
    ).unlink()  # the first name would otherwise be the extension's
    found = sessions(home)
    assert min(CLI_SESSIONS) == BASIC
    plans = {key: continue_.resume(found[key]) for key in CLI_SESSIONS}
    assert plans[BASIC] is not None and plans[BASIC].argv == ("cn", "--resume")
    for key in (FORK, TUI, DENIED):
        plan = plans[key]
        assert plan is not None and plan.argv == ("cn", "--fork", key)
        assert (
            f"cn --resume would open {BASIC}, written in the same millisecond"
            in (plan.notes[0])
        )
    os.utime(folder / f"{TUI}.json", ns=(0, 1_796_400_000_124_000_000))  # 1 ms later
    assert continue_.resume(found[TUI]).argv == ("cn", "--resume")  # type: ignore[union-attr]
    basic = continue_.resume(found[BASIC])
    assert basic is not None and basic.argv == ("cn", "--fork", BASIC)
    assert basic.notes[0].startswith(
        f"cn --resume opens only the newest session, {TUI}"
    )


def test_resume_print_quotes_an_odd_id_and_folder(tmp_path: Path) -> None:
    home = tmp_path / "home"
    work = tmp_path / "my repo"
    work.mkdir()
    chat = json.loads((DATA / "home" / SESSIONS / f"{BASIC}.json").read_text())
    chat.update(sessionId="x;touch y", workspaceDirectory=str(work))
    folder = home / SESSIONS
    folder.mkdir(parents=True)
    (folder / "x;touch y.json").write_text(json.dumps(chat, indent=2))
    (folder / "newer.json").write_text(json.dumps({**chat, "sessionId": "newer"}))
    os.utime(folder / "x;touch y.json", (1_796_400_000, 1_796_400_000))
    result = CliRunner().invoke(
        main, ["resume", "--print", "x;touch", "--home", str(home)]
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == f"cd '{work}' && cn --fork 'x;touch y'"


def test_process_session_reads_back_what_resume_writes() -> None:
    assert continue_.process_session(["cn", "--resume"]) == continue_.Opened(
        latest=True
    )
    fork = continue_.process_session(["node", "/usr/lib/cn.js", "--fork", BASIC])
    assert fork == continue_.Opened()  # a new session, not known yet
    assert continue_.process_session(["cn", "-p", "hello"]) is None


def test_damaged_files_are_counted_never_raised(tmp_path: Path) -> None:
    diagnostics = Diagnostics()
    found = sessions(DATA / "malformed" / "home", diagnostics)
    for session in found.values():
        events(session, diagnostics)
    cut = "11111111-1111-4111-8111-111111111111"
    assert found[cut].title and found[cut].title.startswith("SCENARIO=basic")
    reasons = {(Path(path).name, reason) for path, _, reason in diagnostics.details}
    assert (f"{cut}.json", "truncated") in reasons
    assert ("44444444-4444-4444-8444-444444444444.json", "not an object") in reasons
    assert ("sessions.json", "not JSON") in reasons
    assert ("33333333-3333-4333-8333-333333333333.json", "bad value") in reasons
    assert diagnostics.unknown == {"message:critic": 1}
    assert "44444444-4444-4444-8444-444444444444" not in found


def test_bytes_that_are_not_utf8_are_shown_and_counted(tmp_path: Path) -> None:
    home = copy_home(tmp_path)
    path = home / SESSIONS / f"{DENIED}.json"
    path.write_bytes(
        path.read_bytes().replace(b"Denied greeting", b"Deni\xe9d greeting")
    )
    diagnostics = Diagnostics()
    found = sessions(home, diagnostics)
    assert found[DENIED].title == "Deni\ufffdd greeting"
    assert [(Path(p).name, r) for p, _, r in diagnostics.details] == [
        (f"{DENIED}.json", "not UTF-8 (shown as \ufffd)")
    ]


def test_a_big_chat_is_listed_from_its_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past WHOLE_CAP a listing reads 256 KiB at each end, never the history between; a
    read goes through it one item at a time."""
    home = copy_home(tmp_path)
    path = home / SESSIONS / f"{BASIC}.json"
    chat = json.loads(path.read_text())
    output = chat["history"][1]["toolCallStates"][0]["output"][0]
    output["content"] = "x" * (continue_.WHOLE_CAP + 1024)
    path.write_text(json.dumps(chat, indent=2))
    assert path.stat().st_size > continue_.WHOLE_CAP

    def whole(*args: object, **kwargs: object) -> object:
        raise AssertionError("a big chat was parsed whole")

    monkeypatch.setattr(files, "read_json_file", whole)
    monkeypatch.setattr(jsonstream, "file_members", whole)
    monkeypatch.setattr(jsonstream, "file_items", whole)
    location = continue_.locate(Home.at(home))
    (listed,) = continue_.parse(path, location, Diagnostics())
    assert listed.title == chat["history"][0]["message"]["content"]
    assert (listed.cwd, listed.model) == ("/home/alex/code/shop-api", "mock-model")
    monkeypatch.undo()
    diagnostics = Diagnostics()
    got = events(listed, diagnostics)
    assert totals(got) == Usage(4000, 100, model="mock-model")
    assert (
        got[3].kind == "tool_result"
        and got[3].text == f"[text, {files.human_bytes(continue_.WHOLE_CAP + 1024)}]"
    )
    assert diagnostics.skipped_total == 0


def test_the_override_and_the_default_folder(tmp_path: Path) -> None:
    home = Home(tmp_path, {"CONTINUE_GLOBAL_DIR": str(tmp_path / "elsewhere")})
    location = continue_.locate(home)
    assert location.root == tmp_path / "elsewhere"
    assert location.override == f"CONTINUE_GLOBAL_DIR={tmp_path / 'elsewhere'}"
    assert continue_.locate(Home.at(tmp_path)).root == tmp_path / ".continue"
    assert list(continue_.scan(location)) == []


def test_watch_sees_the_last_of_two_alike_turn_ends(tmp_path: Path) -> None:
    """Continue dates nothing: BASIC's two turns end in two alike turn_end events, the
    second of which `watch` once took for a repeat, leaving the chat 'answering'."""
    home = copy_home(tmp_path)
    for name in os.listdir(home / SESSIONS):
        if name != f"{BASIC}.json":
            (home / SESSIONS / name).unlink()
    os.utime(home / SESSIONS / f"{BASIC}.json")  # written just now
    result = CliRunner().invoke(main, ["watch", "--json", "--home", str(home)])
    assert result.exit_code == 0, result.output
    (board,) = json.loads(result.stdout)
    assert board["id"] == BASIC and board["tokens"] == 4100
    assert board["status"] != "working" and "turn" in board["reason"], board


def test_running_totals_count_where_no_response_carries_usage(tmp_path: Path) -> None:
    """A chat whose messages hold no usage of their own (as cn before per-message usage may
    have written) is billed its session totals, once, marked as a sum."""
    home = copy_home(tmp_path)
    path = home / SESSIONS / f"{BASIC}.json"
    chat = json.loads(path.read_text())
    for item in chat["history"]:
        item["message"].pop("usage", None)
    path.write_text(json.dumps(chat, indent=2))
    got = events(sessions(home)[BASIC])
    (usage,) = [e for e in got if e.kind == "usage"]
    assert usage.usage == Usage(4000, 100, model=None)
    assert dict(usage.extra) == {"summed": True} and usage.time_estimated


def test_a_chat_is_known_by_its_file_name(tmp_path: Path) -> None:
    """Continue opens a chat by its file's name (and sets its sessionId from it): a copy
    saved under another name is that other session, as `cn --fork <name>` would open it."""
    home = copy_home(tmp_path)
    shutil.copy(home / SESSIONS / f"{DENIED}.json", home / SESSIONS / "copy.json")
    found = sessions(home)
    assert found["copy"].title == found[DENIED].title == "Denied greeting"
    plan = continue_.resume(found["copy"])
    assert plan is not None and plan.argv[-1] in ("copy", "--resume")


def test_a_relative_override_is_said_not_followed(tmp_path: Path) -> None:
    location = continue_.locate(Home(tmp_path, {"CONTINUE_GLOBAL_DIR": "state/cn"}))
    assert location.root == tmp_path / ".continue" and location.override is None
    (note,) = location.notes
    assert note.startswith("CONTINUE_GLOBAL_DIR=state/cn is not followed")


def test_a_big_extension_chat_is_still_the_extensions(tmp_path: Path) -> None:
    """Listed from its ends, a chat whose chatModelTitle is null is the extension's."""
    home = copy_home(tmp_path)
    path = home / SESSIONS / f"{IDE}.json"
    chat = json.loads(path.read_text())
    chat["chatModelTitle"] = None
    chat["workspaceDirectory"] = "/home/dev/code/ledger"  # a path, not a URI
    del chat["mode"]
    chat["history"][3]["message"]["content"] = "y" * (continue_.WHOLE_CAP + 10)
    path.write_text(json.dumps(chat, indent=2))
    location = continue_.locate(Home.at(home))
    (listed,) = continue_.parse(path, location, Diagnostics())
    assert listed.extra["origin"] == "ide" and continue_.resume(listed) is None
    assert listed.title == "Explain the retry loop"


def test_a_big_sessions_json_is_read_a_piece_at_a_time(tmp_path: Path) -> None:
    home = copy_home(tmp_path)
    index = home / SESSIONS / "sessions.json"
    entries = json.loads(index.read_text())
    filler = [
        {
            "sessionId": f"gone-{n}",
            "title": "x" * 200,
            "dateCreated": "1",
            "messageCount": 1,
        }
        for n in range(continue_.WHOLE_CAP // 200)
    ]
    index.write_text(json.dumps(filler + entries, indent=2))
    assert index.stat().st_size > continue_.WHOLE_CAP
    diagnostics = Diagnostics()
    found = sessions(home, diagnostics)
    assert found[BASIC].created is not None
    assert found[BASIC].created.isoformat() == "2026-12-05T10:27:25.402000+00:00"
    assert "gone-1" not in found and diagnostics.skipped_total == 0


def test_a_windows_cli_chat_keeps_its_folder(tmp_path: Path) -> None:
    """cn on Windows writes process.cwd(), `C:\\Users\\…`: a folder, not a URI of the
    scheme `c:`; the extension's URIs of a drive or of a share are folders too."""
    home = copy_home(tmp_path)
    path = home / SESSIONS / f"{DENIED}.json"
    chat = json.loads(path.read_text())
    chat["workspaceDirectory"] = "C:\\Users\\alex\\code\\shop-api"
    path.write_text(json.dumps(chat, indent=2))
    found = sessions(home)[DENIED]
    assert found.cwd == "C:\\Users\\alex\\code\\shop-api"
    assert found.extra == {"origin": "cli"}  # no remote `workspace`
    plan = continue_.resume(found)
    assert plan is not None and plan.cwd == "C:\\Users\\alex\\code\\shop-api"
    for uri, folder in (
        ("file:///c%3A/Users/alex/ledger", "c:/Users/alex/ledger"),  # VS Code
        ("file:///C:/Users/alex/ledger", "C:/Users/alex/ledger"),  # JetBrains
        (
            "file://wsl.localhost/Ubuntu/home/alex",
            "\\\\wsl.localhost\\Ubuntu\\home\\alex",
        ),
    ):
        chat["workspaceDirectory"] = uri
        path.write_text(json.dumps(chat, indent=2))
        assert sessions(home)[DENIED].cwd == folder, uri


def test_odd_entries_of_sessions_json_are_counted(tmp_path: Path) -> None:
    """An entry that is no object, or whose sessionId is no text, is counted; one of the
    extension's format before sessionId (`session_id`) is passed over, as Continue does."""
    home = copy_home(tmp_path)
    index = home / SESSIONS / "sessions.json"
    entries = json.loads(index.read_text())
    entries += [7, "x", None, {"sessionId": 7}, {"session_id": "old", "title": "Old"}]
    index.write_text(json.dumps(entries, indent=2))
    diagnostics = Diagnostics()
    found = sessions(home, diagnostics)
    assert set(found) == {*CLI_SESSIONS, IDE}
    assert diagnostics.skipped == {"not an object": 3, "bad value": 1}


def test_the_extensions_summary_keeps_the_response_it_sits_on(tmp_path: Path) -> None:
    """The extension's "compact conversation" sets conversationSummary on the response it
    was asked at (core/util/conversationCompaction.ts): that response's text, call and
    usage are still shown and counted, the compaction after them. The CLI's compaction
    is an item of its own whose message is the summary: shown once, as the compaction."""
    home = copy_home(tmp_path)
    path = home / SESSIONS / f"{IDE}.json"
    chat = json.loads(path.read_text())
    chat["history"][4]["conversationSummary"] = "Retries stop at MAX_TRIES."
    del chat["history"][8]  # the CLI-shaped compaction item
    path.write_text(json.dumps(chat, indent=2))
    got = events(sessions(home)[IDE])
    assert [(e.kind, e.text) for e in got][7:11] == [
        ("assistant", "It stops because the loop runs MAX_TRIES (3) times."),
        ("usage", None),
        ("turn_end", None),
        ("compaction", "Retries stop at MAX_TRIES."),
    ]
    assert len([e for e in got if e.usage]) == 3  # its usage still counted
