"""Kiro IDE quirks: Continue's documents under `workspace-sessions/<base64 folder>/`, a
placeholder answer whose text is in its prompt logs, Kiro's system prompt sent as a user
turn, and no command to reopen a chat."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Session, merge
from sessdex.sources import Home, continue_, kiroide
from tests.helpers import LIST_PATHS

DATA = Path(__file__).parent.parent / "data" / "kiroide"
STORAGE = Path("User/globalStorage/kiro.kiroagent/workspace-sessions")
LINUX = Path(".config/Kiro") / STORAGE
SHOP = "L2hvbWUvYWxleC9jb2RlL3Nob3AtYXBp"  # /home/alex/code/shop-api
RETRY = "2b7e4c1a-9d3f-4e6a-8b5c-1f0e2d3c4b5a"
DOCS = "7c1d3e5f-2a4b-4c6d-9e8f-0a1b2c3d4e5f"
GONE = "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a"
NATIVE = "sess_4f3e2d1c-0b9a-4876-a5b4-c3d2e1f0a9b8"  # a chat begun in Kiro 1.0
COPY = f"sess_{DOCS}"  # Kiro 1.0's copy of the DOCS chat
STORE = Path(".kiro/sessions")


def sessions(
    home: Path,
    diagnostics: Diagnostics | None = None,
    env: dict[str, str] | None = None,
) -> dict[str, Session]:
    """Every chat, merged from its file and sessions.json, as the index merges them."""
    location = kiroide.locate(Home(home, env or {}))
    found: dict[str, list[Session]] = {}
    for path in kiroide.scan(location):
        for session in kiroide.parse(
            Path(path), location, diagnostics or Diagnostics()
        ):
            found.setdefault(session.id, []).append(session)
    merged = {key: merge(parts) for key, parts in found.items()}
    return {key: s for key, s in merged.items() if s.listed}


def events(session: Session, diagnostics: Diagnostics | None = None) -> list[Event]:
    return list(kiroide.read(session, diagnostics or Diagnostics()))


def chat(folder: Path, session_id: str, history: list[object], **top: object) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{session_id}.json"
    document = {
        "sessionId": session_id,
        "title": "New Session",
        **top,
        "history": history,
    }
    path.write_text(json.dumps(document, indent=2))
    return path


def test_chats_list_with_title_folder_model_and_creation(tmp_path: Path) -> None:
    # GONE: in sessions.json only, its file deleted; DOCS: copied to Kiro 1.0's store
    assert set(sessions(DATA / "home")) == {RETRY, NATIVE, COPY}
    # without Kiro 1.0's store, the DOCS chat is listed from its own file
    shutil.copytree(DATA / "home" / ".config", tmp_path / ".config")
    found = sessions(tmp_path)
    assert set(found) == {RETRY, DOCS}
    retry, docs = found[RETRY], found[DOCS]
    assert (retry.app, retry.title, retry.cwd) == (
        "kiroide",
        "Fix the checkout retry",
        "/home/alex/code/shop-api",
    )
    assert retry.model == "claude-sonnet-4"  # selectedModel
    assert retry.created is not None
    assert retry.created.isoformat() == "2026-12-05T10:00:00+00:00"  # dateCreated
    path = tmp_path / LINUX / SHOP / f"{RETRY}.json"
    assert retry.updated is not None
    assert retry.updated.timestamp() == pytest.approx(path.stat().st_mtime)
    # untitled ("New Session"): the first prompt; no folder member: the folder's name
    assert docs.title == "Add a page on the release steps"
    assert docs.cwd == "/home/alex/code/docs-site"
    assert docs.model == "auto"  # defaultModelTitle
    assert dict(docs.extra) == {"session_type": "spec"}


def test_the_system_prompt_is_no_title_nor_turn(tmp_path: Path) -> None:
    folder = tmp_path / LINUX / SHOP
    identity = "<identity>\nYou are Kiro.\n</identity>"
    chat(
        folder,
        RETRY,
        [
            {"message": {"role": "user", "content": identity}},
            {"message": {"role": "user", "content": "Rename the module"}},
        ],
    )
    found = sessions(tmp_path)[RETRY]
    assert found.title == "Rename the module"
    assert [(e.kind, e.text) for e in events(found)] == [("user", "Rename the module")]


def test_a_placeholder_answer_shows_its_prompt_logs_completion() -> None:
    got = events(sessions(DATA / "home")[RETRY])
    assert [e.kind for e in got][:5] == [
        "user", "assistant", "turn_end", "tool_call", "tool_result",
    ]  # fmt: skip
    assert got[1].text == "The loop never reads the retry budget."  # not "On it."
    call, result = got[3], got[4]
    assert (call.tool, call.call_id, dict(call.extra)) == (
        "readFile",
        "call-1",
        {"input": {"path": "src/checkout.py"}},
    )
    assert (result.call_id, result.tool) == ("call-1", "readFile")
    assert "while True" in (result.text or "")


def test_an_answer_is_read_from_its_execution_log() -> None:
    """The last answer is only "On it." in the chat: what the agent said and did is in
    the execution log its `executionId` names, in the workspace's hashed folder."""
    got = events(sessions(DATA / "home")[RETRY])[5:]
    # Kiro's intent classification and model call are no tools; its reasoning is thinking
    thought = got.pop(1)
    assert (thought.kind, thought.text) == ("thinking", "The budget is never read.")
    assert [(e.kind, e.text if e.kind != "tool_call" else e.tool) for e in got] == [
        ("user", "Fix it, please."),
        ("assistant", "I'll bound the loop."),
        ("tool_call", "replace"),
        ("tool_call", "runCommand"),
        ("tool_call", "delete"),
        ("tool_result", "Accepted"),
        ("tool_result", "3 passed"),
        ("tool_result", "The user rejected the deletion"),
        ("assistant", "Done: the loop now stops after three tries."),
        ("turn_end", None),
        ("usage", None),  # the credits the execution used (its usageSummary)
    ]
    billed = got[-1].usage
    assert billed is not None and (billed.credits, billed.total) == (0.42, 0)
    replace = got[2]
    assert dict(replace.extra)["input"] == {
        "file": "src/checkout.py",
        "originalContent": "while True: ...\n",
        "modifiedContent": "for _ in range(3): ...\n",
    }
    assert [e.call_id for e in got[5:8]] == ["a2", "a3", "a4"]
    assert [e.is_error for e in got[5:8]] == [False, False, True]


def test_a_replace_action_shows_as_a_diff(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    result = CliRunner().invoke(
        main,
        ["show", f"kiroide:{RETRY}"],
        env={"HOME": str(home), "XDG_CONFIG_HOME": ""},
    )
    assert result.exit_code == 0, result.output
    assert "(+1 -1)" in result.output


def test_a_chat_too_big_to_parse_whole_is_read_item_by_item(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    monkeypatch.setattr(continue_, "WHOLE_CAP", 200)  # every fixture chat is "big"
    found = sessions(home)
    assert found[RETRY].title == "Fix the checkout retry"
    got = events(found[RETRY])
    texts = [e.text for e in got if e.kind == "assistant"]
    assert texts == [
        "The loop never reads the retry budget.",
        "I'll bound the loop.",
        "Done: the loop now stops after three tries.",
    ]
    assert [e.text for e in got if e.kind == "user"] == [
        "Why does the checkout retry loop forever?",
        "Fix it, please.",
    ]


def test_macos_windows_and_vscode_appdata_folders_are_found(tmp_path: Path) -> None:
    folder = base64.urlsafe_b64encode(b"/Users/alex/site").decode().rstrip("=")
    prompt = [{"message": {"role": "user", "content": "hi"}}]
    chat(tmp_path / "Library/Application Support/Kiro" / STORAGE / folder, "a1", prompt)
    chat(tmp_path / "AppData/Roaming/Kiro" / STORAGE / folder, "b2", prompt)
    moved = tmp_path / "elsewhere"
    chat(moved / "Kiro" / STORAGE / folder, "c3", prompt)
    assert set(sessions(tmp_path)) == {"a1", "b2"}
    found = sessions(tmp_path, env={"VSCODE_APPDATA": str(moved)})
    assert set(found) == {"a1", "b2", "c3"}
    assert found["c3"].cwd == "/Users/alex/site"
    location = kiroide.locate(Home(tmp_path, {"VSCODE_APPDATA": str(moved)}))
    assert location.override == f"VSCODE_APPDATA={moved}"


def test_a_remote_hosts_kiro_server_folder_is_found(tmp_path: Path) -> None:
    prompt = [{"message": {"role": "user", "content": "hi"}}]
    chat(tmp_path / ".kiro-server/data" / STORAGE / SHOP, "r1", prompt)
    assert sessions(tmp_path)["r1"].cwd == "/home/alex/code/shop-api"


@pytest.mark.parametrize(
    "path", ["/work/demo-app", "/home/alex/code/docs-site", "/srv/a?", "/ŝ/ñ"]
)
def test_a_folder_name_with_kiros_padding_is_decoded(tmp_path: Path, path: str) -> None:
    # URL-safe base64 with its `=` padding written as `_`, as Kiro names the folder
    name = base64.urlsafe_b64encode(path.encode()).decode().replace("=", "_")
    chat(tmp_path / LINUX / name, "p1", [{"message": {"role": "user", "content": "x"}}])
    assert sessions(tmp_path)["p1"].cwd == path


def test_unknown_roles_and_broken_chats_are_counted_never_raised() -> None:
    diagnostics = Diagnostics()
    found = sessions(DATA / "malformed" / "home", diagnostics)
    for session in found.values():
        list(kiroide.read(session, diagnostics))
    assert diagnostics.unknown.get("message:oracle") == 1
    assert diagnostics.skipped_total > 0


def test_resume_says_how_to_reopen_the_chat_in_the_ide(tmp_path: Path) -> None:
    folder = base64.urlsafe_b64encode(b"/home/alex/my shop").decode().rstrip("=")
    chat(
        tmp_path / LINUX / folder,
        RETRY,
        [{"message": {"role": "user", "content": "hi"}}],
        title="Tidy up",
    )
    found = sessions(tmp_path)[RETRY]
    assert kiroide.resume(found) is None
    said = kiroide.resume_refusal(found)
    assert said is not None
    assert "kiro '/home/alex/my shop'" in said and '"Tidy up"' in said
    result = CliRunner().invoke(
        main,
        ["resume", f"kiroide:{RETRY}"],
        env={"HOME": str(tmp_path), "XDG_CONFIG_HOME": ""},
    )
    assert "kiro '/home/alex/my shop'" in result.output


def test_a_failed_command_a_canceled_action_and_an_mcp_tools_answer(
    tmp_path: Path,
) -> None:
    workspace = "/home/alex/code/shop-api"
    chat(
        tmp_path / LINUX / SHOP,
        RETRY,
        [
            {"message": {"role": "user", "content": "Run it"}},
            {"message": {"role": "assistant", "content": "On it."}, "executionId": "x"},
        ],
        workspaceDirectory=workspace,
    )
    hashed = hashlib.sha256(workspace.encode()).hexdigest()[:32]
    log = tmp_path / LINUX.parent / hashed / kiroide.EXECUTIONS / "0f0f"
    log.parent.mkdir(parents=True)
    actions = [
        {
            "actionType": "runCommand",
            "actionId": "c1",
            "actionState": "Success",
            "input": {"command": "make"},
            "output": {"output": "make: *** [all] Error 2", "exitCode": 2},
        },
        {"actionType": "create", "actionId": "c2", "actionState": "Canceled"},
        {
            "actionType": "mcp",
            "actionId": "c3",
            "actionState": "Success",
            "input": {"toolName": "search_docs", "toolArgs": {"q": "retry"}},
            "output": {"response": "3 pages"},
        },
    ]
    log.write_text(json.dumps({"executionId": "x", "actions": actions}))
    results = [e for e in events(sessions(tmp_path)[RETRY]) if e.kind == "tool_result"]
    assert [(e.text, e.is_error) for e in results] == [
        ("make: *** [all] Error 2", True),
        ("Canceled", True),
        ("3 pages", False),
    ]


def test_a_log_is_found_by_its_ids_hash_whatever_comes_first_in_it(
    tmp_path: Path,
) -> None:
    """Kiro names an execution's log `sha256(executionId)[:32]`: found so even where
    its id is not in the log's first KiB."""
    workspace = "/home/alex/code/shop-api"
    chat(
        tmp_path / LINUX / SHOP,
        RETRY,
        [
            {
                "message": {"role": "assistant", "content": "On it."},
                "executionId": "e-9",
            },
            {
                "message": {"role": "assistant", "content": "On it."},
                "executionId": "e-7",
            },
        ],
        workspaceDirectory=workspace,
    )
    hashed = hashlib.sha256(workspace.encode()).hexdigest()[:32]
    logs = tmp_path / LINUX.parent / hashed / kiroide.EXECUTIONS
    logs.mkdir(parents=True)
    said = {"actionType": "say", "output": {"message": "Found it."}}
    document = {"input": {"data": "x" * 4096}, "executionId": "e-9", "actions": [said]}
    (logs / hashlib.sha256(b"e-9").hexdigest()[:32]).write_text(json.dumps(document))
    # another execution's log under that name is not taken for it
    other = {"executionId": "e-8", "actions": [said]}
    (logs / hashlib.sha256(b"e-7").hexdigest()[:32]).write_text(json.dumps(other))
    got = [(e.kind, e.text) for e in events(sessions(tmp_path)[RETRY])]
    assert got.count(("assistant", "Found it.")) == 1  # e-7's answer is kept as it was
    assert ("assistant", "On it.") in got


def test_a_log_of_kiros_own_steps_only_leaves_the_prompt_logs_answer(
    tmp_path: Path,
) -> None:
    workspace = "/home/alex/code/shop-api"
    chat(
        tmp_path / LINUX / SHOP,
        RETRY,
        [
            {
                "message": {"role": "assistant", "content": "On it."},
                "executionId": "e-5",
                "promptLogs": [{"completion": "Stopped before acting."}],
            }
        ],
        workspaceDirectory=workspace,
    )
    hashed = hashlib.sha256(workspace.encode()).hexdigest()[:32]
    logs = tmp_path / LINUX.parent / hashed / kiroide.EXECUTIONS
    logs.mkdir(parents=True)
    steps = [{"actionType": "intentClassification"}, {"actionType": "model"}]
    (logs / "x").write_text(json.dumps({"executionId": "e-5", "actions": steps}))
    got = [(e.kind, e.text) for e in events(sessions(tmp_path)[RETRY])]
    assert ("assistant", "Stopped before acting.") in got


# --- Kiro 1.0's own store: ~/.kiro/sessions/<bucket>/<id>/ -------------------------------


def test_kiro_1_chats_list_from_their_session_json() -> None:
    found = sessions(DATA / "home")
    native = found[NATIVE]
    assert (native.title, native.cwd, native.model) == (
        "Bound the payment retries",
        "/home/alex/code/shop-api",
        "claude-sonnet-4.5",
    )
    assert native.created is not None and native.updated is not None
    assert native.created.isoformat() == "2026-12-05T11:00:00+00:00"
    assert native.path is not None and native.path.endswith("messages.jsonl")
    log = Path(native.path)
    assert native.bytes == log.stat().st_size
    # the later of `lastModifiedAt` and the log's last write (a turn appended since)
    assert native.updated.timestamp() == pytest.approx(
        max(log.stat().st_mtime, 1796468520.0)  # 2026-12-05T11:02:00Z
    )
    # the header is the log's companion: a change to it parses the log again
    assert kiroide.companion_of(str(log.parent / "session.json")) == str(log)
    assert kiroide.parse(log.parent / "session.json", kiroide.locate(
        Home(DATA / "home", {})), Diagnostics()) == []  # fmt: skip


def test_a_migrated_chat_is_listed_once_as_its_kiro_1_copy() -> None:
    """`.migrated-<id>.json` beside the old chat names its copy (`v2SessionId`): the
    copy is listed, the old chat not beside it."""
    found = sessions(DATA / "home")
    assert DOCS not in found
    copy = found[COPY]
    assert (copy.title, copy.cwd, copy.model) == (
        "Add a page on the release steps",
        "/home/alex/code/docs-site",
        "auto",
    )
    assert [(e.kind, e.text) for e in events(copy)] == [
        ("user", "Add a page on the release steps"),
        ("assistant", "Added docs/release.md."),
    ]


def test_a_migration_note_of_the_other_spelling_supersedes_by_its_member(
    tmp_path: Path,
) -> None:
    old = "11111111-2222-4333-8444-555555555555"
    chat(tmp_path / LINUX / SHOP, old, [{"message": {"role": "user", "content": "x"}}])
    note = (
        tmp_path
        / LINUX
        / SHOP
        / "._migration-99999999-0000-4000-8000-000000000000.json"
    )
    note.write_text(json.dumps({"sessionId": old, "v2SessionId": "sess_new"}))
    assert old in sessions(tmp_path)  # its copy is not in the store: still listed
    copy = tmp_path / STORE / "0123456789abcdef" / "sess_new"
    copy.mkdir(parents=True)
    (copy / "session.json").write_text(json.dumps({"id": "sess_new", "title": "t"}))
    assert old in sessions(tmp_path)  # a copy with no log yet is no chat listed
    (copy / "messages.jsonl").write_text("")
    assert set(sessions(tmp_path)) == {"sess_new"}


def test_a_migration_note_naming_a_copy_outside_the_store_supersedes_nothing(
    tmp_path: Path,
) -> None:
    """A `v2SessionId` of `../..` names no copy: a log it reaches outside the store
    does not hide the old chat."""
    old = "11111111-2222-4333-8444-555555555555"
    chat(tmp_path / LINUX / SHOP, old, [{"message": {"role": "user", "content": "x"}}])
    note = tmp_path / LINUX / SHOP / f".migrated-{old}.json"
    note.write_text(json.dumps({"sessionId": old, "v2SessionId": "../../outside"}))
    (tmp_path / STORE / "0123456789abcdef").mkdir(parents=True)
    outside = tmp_path / STORE / ".." / "outside"  # the bucket's ../..
    outside.mkdir(parents=True, exist_ok=True)
    (outside / "messages.jsonl").write_text("")
    assert old in sessions(tmp_path)


def test_a_kiro_1_chat_reads_line_by_line() -> None:
    got = events(sessions(DATA / "home")[NATIVE])
    shown = [
        (e.kind, e.tool if e.kind == "tool_call" else e.text, e.call_id, e.is_error)
        for e in got
    ]
    assert shown == [
        ("user", "Bound the payment retries too.", None, False),
        # the elided reasoning ("...") is left out, the other is thinking
        ("thinking", "The payment client retries without a limit.", None, False),
        ("assistant", "I'll cap it at three tries.", None, False),
        ("tool_call", "strReplace", "tc-1", False),
        ("tool_call", "executeBash", "tc-2", False),
        ("tool_result", "Replaced 1 occurrence", "tc-1", False),
        ("tool_result", '{"exitCode":1,"output":"1 failed"}', "tc-2", True),
        ("assistant", "Capped; one test fails as before.", None, False),
        ("usage", None, None, False),
        ("turn_end", None, None, False),
    ]  # the system prompt (session_start, written last) is no turn
    assert dict(got[3].extra)["input"] == {
        "path": "src/pay.py",
        "oldStr": "while True:",
        "newStr": "for _ in range(3):",
    }
    # credits, not tokens: the turn's usage is Kiro's credits alone
    (billed,) = [e.usage for e in got if e.usage is not None]
    assert (billed.credits, billed.total) == (0.37, 0)
    assert got[0].time is not None
    assert got[0].time.isoformat() == "2026-12-05T11:00:00.100000+00:00"
    assert [e.seq for e in got] == list(range(len(got)))
    # a tool's result names its call: paired by `toolCallId`
    assert {e.call_id for e in got if e.kind == "tool_result"} == {"tc-1", "tc-2"}


def test_a_first_prompt_in_session_start_is_a_turn_once(tmp_path: Path) -> None:
    folder = tmp_path / STORE / "0123456789abcdef" / "sess_a"
    folder.mkdir(parents=True)
    log = [
        {"payload": {"type": "session_start", "content": "Add a health check."}},
        {"payload": {"type": "user", "content": "Use a plain route."}},
        {"payload": {"type": "usage_summary", "inputTokens": 10, "outputTokens": 4}},
    ]
    (folder / "messages.jsonl").write_text("".join(json.dumps(r) + "\n" for r in log))
    found = sessions(tmp_path)["sess_a"]  # no session.json: listed from its log
    assert found.title == "Add a health check."
    got = events(found)
    assert [(e.kind, e.text) for e in got[:2]] == [
        ("user", "Add a health check."),
        ("user", "Use a plain route."),
    ]
    usage = got[2].usage
    assert usage is not None and (usage.input_tokens, usage.output_tokens) == (10, 4)


def test_the_kiro_clis_folder_is_never_listed_here() -> None:
    """`~/.kiro/sessions/cli/` is the `kiro` source's: neither lists the other's files."""
    from sessdex.sources import kiro

    home = DATA / "home"
    ours = set(kiroide.scan(kiroide.locate(Home(home, {}))))
    theirs = {str(p) for p in kiro.scan(kiro.locate(Home(home, {})))}
    assert not any("/.kiro/sessions/cli/" in path for path in ours)
    assert any("/.kiro/sessions/" in path for path in ours)
    assert not ours & theirs
    assert all(
        "/.kiro/sessions/cli/" in path for path in theirs if ".kiro/sessions" in path
    )


def test_a_broken_kiro_1_chat_is_counted_never_raised() -> None:
    diagnostics = Diagnostics()
    found = sessions(DATA / "malformed" / "home", diagnostics)
    broken = found["sess_broken"]
    assert broken.title is None
    got = events(broken, diagnostics)
    assert diagnostics.unknown.get("payload tombstone") == 1
    assert diagnostics.unknown.get("payload ?") == 1  # a payload that is no object
    assert [e.kind for e in got] == ["tool_call"]
    assert found["sess_headless"].title == "no header here"
    # a note whose copy is not in the store leaves its chat listed
    assert "0a0a0a0a-0000-4000-8000-000000000003" in found


def test_show_tail_reads_a_kiro_1_chats_end() -> None:
    result = CliRunner().invoke(
        main,
        ["show", f"kiroide:{NATIVE}", "--tail", "2"],
        env={"HOME": str(DATA / "home"), "XDG_CONFIG_HOME": ""},
    )
    assert result.exit_code == 0, result.output
    assert "Capped; one test fails as before." in result.output
    assert "Bound the payment retries too." not in result.output


def test_a_retitled_kiro_1_chat_is_listed_anew(tmp_path: Path) -> None:
    """The index parses a chat's log again when its `session.json` alone changes."""
    shutil.copytree(DATA / "home", tmp_path / "home")
    env = {"HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": ""}
    listed = CliRunner().invoke(main, ["list", "--app", "kiroide"], env=env)
    assert "Bound the payment retries" in listed.output, listed.output
    header = next((tmp_path / "home" / STORE).glob(f"*/{NATIVE}/session.json"))
    value = json.loads(header.read_text())
    header.write_text(json.dumps({**value, "title": "Cap the payment retries"}))
    listed = CliRunner().invoke(main, ["list", "--app", "kiroide"], env=env)
    assert "Cap the payment retries" in listed.output, listed.output


def test_a_session_start_after_the_prompts_is_kiros_system_prompt(
    tmp_path: Path,
) -> None:
    folder = tmp_path / STORE / "0123456789abcdef" / "sess_b"
    folder.mkdir(parents=True)
    log = [
        {"payload": {"type": "user", "content": "Rename the module."}},
        {"payload": {"type": "session_start", "content": "You are Kiro. " * 100}},
    ]
    (folder / "messages.jsonl").write_text("".join(json.dumps(r) + "\n" for r in log))
    got = events(sessions(tmp_path)["sess_b"])
    assert [(e.kind, e.text) for e in got] == [("user", "Rename the module.")]


def test_a_kiro_cli_session_in_the_store_says_the_clis_command(tmp_path: Path) -> None:
    folder = tmp_path / STORE / "0123456789abcdef" / "cli_0a5376f2_uHOR"
    folder.mkdir(parents=True)
    (folder / "session.json").write_text(
        json.dumps({"id": folder.name, "workspacePaths": ["/home/alex/my shop"]})
    )
    (folder / "messages.jsonl").write_text("")
    said = kiroide.resume_refusal(sessions(tmp_path)[folder.name])
    assert said is not None
    assert (
        "cd '/home/alex/my shop' && kiro-cli --v3 --resume-id cli_0a5376f2_uHOR" in said
    )
    native = sessions(DATA / "home")[NATIVE]
    assert "agent panel" in (kiroide.resume_refusal(native) or "")


def test_usage_sees_an_execution_log_that_changed_alone(tmp_path: Path) -> None:
    """`usage` keeps a chat's sums until a file they came from changes: an execution log
    Kiro rewrote (its `usageSummary` grown as the execution ran on) while the chat file
    stayed as it was counts anew at the next run, not once the chat is written again."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    [log] = [
        path
        for path in (home / ".config/Kiro/User/globalStorage/kiro.kiroagent").rglob("*")
        if path.is_file() and b"usageSummary" in path.read_bytes()
    ]
    env = {
        "HOME": str(home),
        "XDG_CONFIG_HOME": "",
        "SESSDEX_HOME": str(tmp_path / "sessdex"),
    }

    def credits() -> float:
        result = CliRunner().invoke(
            main, ["usage", "app", "--json", "--app", "kiroide"], env=env
        )
        assert result.exit_code == 0, result.output
        (row,) = json.loads(result.stdout)
        return float(row["credits"]["kiroide"])

    before = credits()
    value = json.loads(log.read_text())
    value["usageSummary"] = [
        {**entry, "usage": entry["usage"] + 1} for entry in value["usageSummary"]
    ]
    log.write_text(json.dumps(value))
    assert credits() == pytest.approx(before + 1)


def test_usage_sees_an_execution_log_rewritten_in_the_tick_it_was_read_in(
    tmp_path: Path,
) -> None:
    """The same, the log rewritten at its size within its clock's tick of the last read
    (stamped here ahead of the clock, as a file server's fast clock stamps it, and put
    back after the write): its stat, change time included, looks as it did then."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    [log] = [
        path
        for path in (home / ".config/Kiro/User/globalStorage/kiro.kiroagent").rglob("*")
        if path.is_file() and b'"usage": 0.42' in path.read_bytes()
    ]
    stamp = (time.time_ns() // 10**9 + 60) * 10**9 + 123_456_789
    os.utime(log, ns=(stamp, stamp))
    env = {
        "HOME": str(home),
        "XDG_CONFIG_HOME": "",
        "SESSDEX_HOME": str(tmp_path / "sessdex"),
    }

    def credits() -> float:
        result = CliRunner().invoke(
            main, ["usage", "app", "--json", "--app", "kiroide"], env=env
        )
        assert result.exit_code == 0, result.output
        (row,) = json.loads(result.stdout)
        return float(row["credits"]["kiroide"])

    before = credits()
    log.write_bytes(log.read_bytes().replace(b'"usage": 0.42', b'"usage": 1.42'))
    os.utime(log, ns=(stamp, stamp))
    assert max(os.stat(log).st_mtime_ns, os.stat(log).st_ctime_ns) == stamp
    assert credits() == pytest.approx(before + 1)


@LIST_PATHS
def test_a_deleted_store_copy_lists_its_old_chat_warm_as_cold(
    listing: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Kiro 1.0 copy deleted from `~/.kiro/sessions` lists the older chat its
    `.migrated-*.json` note named again, warm as cold: the note, unchanged, was not read
    again, and a warm list showed neither chat."""
    from tests.helpers import list_rows

    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    before = list_rows(home, tmp_path / "warm", monkeypatch, listing=listing)
    assert DOCS not in before and f"sess_{DOCS}" in before
    shutil.rmtree(next((home / ".kiro" / "sessions").glob(f"*/sess_{DOCS}")))
    warm = list_rows(home, tmp_path / "warm", monkeypatch, listing=listing)
    assert warm == list_rows(home, tmp_path / "cold", monkeypatch, listing=listing)
    assert DOCS in warm


@pytest.mark.parametrize(
    ("shell", "line"),
    [
        (
            "powershell",
            "Set-Location -LiteralPath 'D:\\shop'; "
            "if ($?) { & kiro-cli --v3 --resume-id cli_0a5376f2_uHOR }",
        ),
        ("cmd", 'cd /d "D:\\shop" && kiro-cli --v3 --resume-id cli_0a5376f2_uHOR'),
    ],
)
def test_the_kiro_cli_line_enters_the_folder_as_that_shell_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shell: str, line: str
) -> None:
    """Windows PowerShell 5.1 reads no `&&`, and cmd.exe's `cd` without /d stays on its
    drive: `cd 'D:\\shop' && kiro-cli …` failed there, or ran in the wrong folder."""
    monkeypatch.setenv("SESSDEX_SHELL", shell)
    folder = tmp_path / STORE / "0123456789abcdef" / "cli_0a5376f2_uHOR"
    folder.mkdir(parents=True)
    (folder / "session.json").write_text(
        json.dumps({"id": folder.name, "workspacePaths": ["D:\\shop"]})
    )
    (folder / "messages.jsonl").write_text("")
    said = kiroide.resume_refusal(sessions(tmp_path)[folder.name])
    assert said is not None and f"run `{line}`" in said, said
