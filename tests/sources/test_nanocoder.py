"""Nanocoder quirks: one JSON chat per file listed from its head (sessions.json filling in),
no time or usage per message, a sub-agent only as its report, `nanocoder --resume <id>`."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import files, jsonstream
from sessdex.cli import main
from sessdex.diagnostics import Diagnostics
from sessdex.model import Event, Session, merge
from sessdex.sources import Home, nanocoder

DATA = Path(__file__).parent.parent / "data" / "nanocoder"
SESSIONS = Path(".local/share/nanocoder/sessions")
BASIC = "a43d5f02-7a2d-49e7-9ca1-1d67589f26c7"  # real: `run`, then `--resume <id>` in the TUI
MISSING = "6b705404-86a4-487e-8602-47a1a769f4a3"  # real: `agent` naming no agent it has
SUBAGENT = "a14225bf-0102-4e56-8717-cf54f30e4814"  # real: an `agent` call that ran
LEDGER = (
    "c0ffee00-1b2c-4d3e-8f40-5a6b7c8d9e0f"  # synthetic: thinking, image, compaction
)
COMPACT = (
    "1d2e3f40-5a6b-4c7d-8e9f-0a1b2c3d4e5f"  # synthetic: one line, not in the index
)
GONE = "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a"  # in sessions.json only


def sessions(home: Path, diagnostics: Diagnostics | None = None) -> dict[str, Session]:
    """Every chat, merged from its file and sessions.json, as the index merges them."""
    location = nanocoder.locate(Home.at(home))
    found: dict[str, list[Session]] = {}
    for path in nanocoder.scan(location):
        for session in nanocoder.parse(
            Path(path), location, diagnostics or Diagnostics()
        ):
            found.setdefault(session.id, []).append(session)
    merged = {key: merge(parts) for key, parts in found.items()}
    return {key: s for key, s in merged.items() if s.listed}


def events(session: Session, diagnostics: Diagnostics | None = None) -> list[Event]:
    return list(nanocoder.read(session, diagnostics or Diagnostics()))


def test_the_real_captures_list_as_nanocoder_shows_them() -> None:
    found = sessions(DATA / "real" / "home")
    assert sorted(found) == sorted((BASIC, MISSING, SUBAGENT))
    basic = found[BASIC]
    # Nanocoder's own title: the last prompt's first 50 characters
    assert basic.title == "SCENARIO=resume Please run the greeting command on..."
    assert (basic.cwd, basic.model) == ("/home/alex/code/shop-api", "mock-model")
    # (and where `resume` asks which folder nanocoder opens chats from now)
    assert {k: v for k, v in basic.extra.items() if k != "opened_from"} == {
        "provider": "mock",
        "message_count": 8,
    }
    assert basic.created and basic.updated and basic.created < basic.updated


def test_a_resumed_chat_reads_both_turns_with_calls_paired() -> None:
    got = events(sessions(DATA / "real" / "home")[BASIC])
    assert [e.kind for e in got] == [
        "user", "tool_call", "tool_result", "assistant", "turn_end",
        "user", "tool_call", "tool_result", "assistant", "turn_end",
    ]  # fmt: skip
    call, result = got[1], got[2]
    assert (call.tool, call.extra["input"]) == (
        "execute_bash",
        {"command": "echo hello-from-tool"},
    )
    assert result.call_id == call.call_id and result.tool == "execute_bash"
    assert result.text == "EXIT_CODE: 0\nhello-from-tool\n" and not result.is_error
    assert got[8].text == "Resumed: the greeting command printed hello-after-resume."
    assert all(e.time is None for e in got)  # Nanocoder keeps no time per message


def test_a_sub_agent_is_its_report_and_a_failed_one_an_error() -> None:
    found = sessions(DATA / "real" / "home")
    ran = events(found[SUBAGENT])
    assert ran[1].tool == "agent" and ran[1].extra["input"] == {
        "description": "Greeting sub-agent",
        "prompt": "SCENARIO=child You are a sub-agent. Run the shell command "
        "`echo hello-from-subagent` and report what it printed.",
        "subagent_type": "general",
    }
    assert (
        ran[2].text
        == "Sub-agent report: the greeting command printed hello-from-subagent."
    )
    assert not ran[2].is_error
    failed = events(found[MISSING])
    assert (
        failed[2].is_error and failed[2].text == "Error: Subagent 'explore' not found"
    )


def test_thinking_images_nudges_compaction_and_refusals() -> None:
    got = events(sessions(DATA / "home")[LEDGER])
    assert got[0].kind == "user" and got[0].text.endswith("\n[image: image/png]")
    assert "iVBOR" not in (got[0].text or "")
    assert (got[1].kind, got[1].text) == (
        "thinking",
        "The loop condition reads attempts before it is incremented.",
    )
    nudge = next(e for e in got if e.extra.get("injected"))
    assert nudge.text and nudge.text.startswith("Please provide a summary")
    (compaction,) = [e for e in got if e.kind == "compaction"]
    assert compaction.text and compaction.text.startswith("The user asked why")
    failed = [e for e in got if e.kind == "tool_result" and e.is_error]
    assert [e.tool for e in failed] == ["string_replace", "execute_bash"]
    assert not any(e.kind == "usage" for e in got)  # Nanocoder keeps none


def test_the_index_fills_in_and_a_chat_without_a_file_is_not_listed() -> None:
    found = sessions(DATA / "home")
    assert GONE not in found
    assert found[COMPACT].title == "List the TODOs"  # parsed whole: not laid out so
    assert found[LEDGER].title == "Explain the retry loop"


def test_a_listing_reads_only_a_chats_head(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pasted image makes a chat huge: the listing reads its first bytes, never the
    messages; a read goes through them one at a time, the image's data left out."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    path = home / SESSIONS / f"{LEDGER}.json"
    chat = json.loads(path.read_text())
    chat["messages"][0]["images"][0]["data"] = "A" * (nanocoder.WHOLE_CAP + 1024)
    path.write_text(json.dumps(chat, indent=2))
    location = nanocoder.locate(Home.at(home))  # reads the (small) preferences

    def whole(*args: object, **kwargs: object) -> object:
        raise AssertionError("the chat was read past its head")

    monkeypatch.setattr(files, "read_json_file", whole)
    monkeypatch.setattr(jsonstream, "file_members", whole)
    monkeypatch.setattr(jsonstream, "file_items", whole)
    (listed,) = nanocoder.parse(path, location, Diagnostics())
    assert (listed.title, listed.model) == ("Explain the retry loop", "qwen3-coder:30b")
    monkeypatch.undo()
    diagnostics = Diagnostics()
    got = events(listed, diagnostics)
    assert got[0].text and got[0].text.endswith("[image: image/png]")
    assert len(got) == len(events(sessions(DATA / "home")[LEDGER]))
    assert diagnostics.skipped_total == 0


def test_damaged_files_are_counted_never_raised() -> None:
    diagnostics = Diagnostics()
    found = sessions(DATA / "malformed" / "home", diagnostics)
    got = {key: events(session, diagnostics) for key, session in found.items()}
    cut = "2b3c4d5e-6f70-4182-9a3b-4c5d6e7f8091"
    assert found[cut].title == "Cut short"
    assert [e.text for e in got[cut]] == ["First prompt", "First answer", None]
    assert "5d6e7f80-9102-4334-a5d6-e7f8091a2b3c" not in found  # cut before its id
    reasons = {(Path(path).name, reason) for path, _, reason in diagnostics.details}
    assert (f"{cut}.json", "truncated") in reasons
    assert ("sessions.json", "not JSON") in reasons
    odd = "3c4d5e6f-7081-4293-8b4c-5d6e7f8091a2"
    assert (f"{odd}.json", "not an object") in reasons
    assert (f"{odd}.json", "bad value") in reasons
    assert diagnostics.unknown == {"message:developer": 1}
    call = next(e for e in got[odd] if e.kind == "tool_call")
    assert call.extra["input"] == "ls -la"


def test_resume_is_the_id_in_the_chats_folder_with_no_mode(tmp_path: Path) -> None:
    found = sessions(DATA / "home")
    for keep in (False, True):
        plan = nanocoder.resume(found[BASIC], keep_permissions=keep)
        assert plan is not None
        assert plan.argv == ("nanocoder", "--resume", BASIC)
        assert plan.cwd == "/home/alex/code/shop-api" and plan.program == "nanocoder"
    odd = Session("nanocoder", "notes-copy", path=found[BASIC].path, cwd="/w")
    assert nanocoder.resume(odd) is None  # Nanocoder opens only a UUID's file
    home = tmp_path / "home"
    work = tmp_path / "my repo"
    work.mkdir()
    folder = home / SESSIONS
    folder.mkdir(parents=True)
    chat = json.loads((DATA / "home" / SESSIONS / f"{BASIC}.json").read_text())
    chat["workingDirectory"] = str(work)
    (folder / f"{BASIC}.json").write_text(json.dumps(chat, indent=2))
    result = CliRunner().invoke(
        main, ["resume", "--print", BASIC[:8], "--home", str(home)]
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == f"cd '{work}' && nanocoder --resume {BASIC}"


def test_process_session_reads_back_what_resume_writes() -> None:
    opened = nanocoder.process_session(["nanocoder", "--resume", BASIC])
    assert opened == nanocoder.Opened(BASIC)
    assert nanocoder.process_session(["nanocoder", "-c"]) == nanocoder.Opened(
        latest=True
    )
    assert nanocoder.process_session(["nanocoder", "--resume", "last"]) == (
        nanocoder.Opened(latest=True)
    )
    assert nanocoder.process_session(["nanocoder", "--resume", "2"]) == (
        nanocoder.Opened(chosen=True)
    )
    assert nanocoder.process_session(["nanocoder", "run", "hello"]) is None


def test_the_override_the_xdg_folder_and_the_macos_folder(tmp_path: Path) -> None:
    home = Home(tmp_path, {"NANOCODER_DATA_DIR": str(tmp_path / "data")})
    assert nanocoder.locate(home).root == tmp_path / "data"
    xdg = Home(tmp_path, {"XDG_DATA_HOME": str(tmp_path / "xdg")})
    assert nanocoder.locate(xdg).root == tmp_path / "xdg" / "nanocoder"
    mac = tmp_path / "Library" / "Application Support" / "nanocoder" / "sessions"
    mac.mkdir(parents=True)
    shutil.copy(DATA / "home" / SESSIONS / f"{BASIC}.json", mac)
    assert list(sessions(tmp_path)) == [BASIC]


def test_the_provider_config_is_never_listed(tmp_path: Path) -> None:
    """agents.config.json holds API keys: a link to it among the chats is passed over."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    config = home / ".config" / "nanocoder" / "agents.config.json"
    config.parent.mkdir(parents=True)
    config.write_text('{"nanocoder": {"providers": [{"apiKey": "sk-secret"}]}}')
    (home / SESSIONS / "agents.config.json").symlink_to(config)
    location = nanocoder.locate(Home.at(home))
    assert not any("agents.config" in str(p) for p in nanocoder.scan(location))


def test_a_big_sessions_json_is_read_an_entry_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    index = home / SESSIONS / "sessions.json"
    entries = json.loads(index.read_text())
    entries[0]["title"] = "x" * (nanocoder.WHOLE_CAP + 1024)  # past the cap
    index.write_text(json.dumps(entries, indent=2))
    location = nanocoder.locate(Home.at(home))  # reads the (small) preferences

    def whole(*args: object, **kwargs: object) -> object:
        raise AssertionError("a big index was parsed whole")

    monkeypatch.setattr(files, "read_json_file", whole)
    got = nanocoder.parse(index, location, Diagnostics())
    assert [s.id for s in got] == [e["id"] for e in entries]
    assert got[-1].title == "A chat whose file was deleted"
    assert not any(s.listed for s in got)  # the chats' own files list them


def test_a_call_an_editor_denied_is_a_failed_result(tmp_path: Path) -> None:
    """An editor's ACP session writes a refused call's output as its own words."""
    home = tmp_path / "home"
    folder = home / SESSIONS
    folder.mkdir(parents=True)
    chat = json.loads((DATA / "home" / SESSIONS / f"{BASIC}.json").read_text())
    chat["messages"][2]["content"] = "Tool call denied by user"
    (folder / f"{BASIC}.json").write_text(json.dumps(chat, indent=2))
    got = events(sessions(home)[BASIC])
    assert got[2].kind == "tool_result" and got[2].is_error
    assert not got[7].is_error  # the resumed turn's call ran


def test_the_last_rows_end_the_whole_read() -> None:
    """`show --tail` reads a chat's last messages from its end: the events are those the
    whole read ends with, but for their numbers."""
    found = sessions(DATA / "home")
    exercised = 0
    for session_id in (BASIC, LEDGER):
        whole = [(e.kind, e.text, e.tool, e.call_id) for e in events(found[session_id])]
        for rows in range(1, 14):
            try:
                last = list(nanocoder.read_last(found[session_id], Diagnostics(), rows))
            except nanocoder.WholeRead:  # no message before them: the whole read serves
                path = Path(found[session_id].path or "")
                assert rows + 1 >= len(json.loads(path.read_text())["messages"])
                continue
            exercised += 1
            assert [e.seq for e in last] == list(range(len(last)))
            got = [(e.kind, e.text, e.tool, e.call_id) for e in last]
            assert got == whole[-len(got) :], (session_id, rows)
    assert exercised >= 10
    one_line = found[COMPACT]  # not laid out so: read whole
    with pytest.raises(nanocoder.WholeRead):
        list(nanocoder.read_last(one_line, Diagnostics(), 1))


def test_a_call_that_failed_validation_is_a_failed_result(tmp_path: Path) -> None:
    """Nanocoder answers a call its validator refused with `⚒ Validation failed: …`
    (tool-validation.js), which it shows as failed as it does `Error: …`."""
    home = tmp_path / "home"
    folder = home / SESSIONS
    folder.mkdir(parents=True)
    chat = json.loads((DATA / "home" / SESSIONS / f"{BASIC}.json").read_text())
    chat["messages"][2]["content"] = (
        "⚒ Validation failed: Command is required\n  - `command`: expected string"
    )
    (folder / f"{BASIC}.json").write_text(json.dumps(chat, indent=2))
    got = events(sessions(home)[BASIC])
    assert got[2].kind == "tool_result" and got[2].is_error
    assert not got[7].is_error


def test_a_sessions_folder_of_the_users_choice_is_listed(tmp_path: Path) -> None:
    """`nanocoder.sessions.directory` in the config folder's nanocoder-preferences.json
    (config/index.js, 1.25+) moves the sessions folder: `~` is the home; a relative one is
    each run's own, not followed but said."""
    home = tmp_path / "home"
    chosen = home / "chats" / "nano"
    chosen.mkdir(parents=True)
    shutil.copy(DATA / "home" / SESSIONS / f"{BASIC}.json", chosen)
    assert sessions(home) == {}
    preferences = home / ".config" / "nanocoder" / "nanocoder-preferences.json"
    preferences.parent.mkdir(parents=True)
    said = {
        "lastProvider": "ollama",
        "nanocoder": {"sessions": {"directory": "~/chats/nano"}},
    }
    preferences.write_text(json.dumps(said))
    assert list(sessions(home)) == [BASIC]
    # macOS keeps its preferences in ~/Library/Preferences/nanocoder
    mac = home / "Library" / "Preferences" / "nanocoder"
    mac.parent.mkdir(parents=True)
    preferences.parent.rename(mac)
    assert list(sessions(home)) == [BASIC]
    # NANOCODER_CONFIG_DIR moves the preferences, an absolute path is as it is
    config = tmp_path / "config"
    mac.rename(config)
    (config / "nanocoder-preferences.json").write_text(
        json.dumps({"nanocoder": {"sessions": {"directory": str(chosen)}}})
    )
    assert list(sessions(home)) == []
    moved = Home(home, {"NANOCODER_CONFIG_DIR": str(config)})
    assert chosen in nanocoder.locate(moved).also
    relative = {"nanocoder": {"sessions": {"directory": "chats/nano"}}}
    (config / "nanocoder-preferences.json").write_text(json.dumps(relative))
    location = nanocoder.locate(moved)
    assert chosen not in location.also
    assert any("chats/nano" in note for note in location.notes)


def test_a_chosen_folder_beside_the_mcp_config_never_opens_it(tmp_path: Path) -> None:
    """A sessions folder the preferences name can be the config folder itself, where
    `.mcp.json` gives MCP servers their tokens: Nanocoder names no chat with a dot, so
    no such file is listed (or opened)."""
    home = tmp_path / "home"
    config = home / ".config" / "nanocoder"
    config.mkdir(parents=True)
    shutil.copy(DATA / "home" / SESSIONS / f"{BASIC}.json", config)
    (config / ".mcp.json").write_text(
        '{"mcpServers": {"gh": {"env": {"GITHUB_TOKEN": "ghp-secret"}}}}'
    )
    said = {"nanocoder": {"sessions": {"directory": "~/.config/nanocoder"}}}
    (config / "nanocoder-preferences.json").write_text(json.dumps(said))
    location = nanocoder.locate(Home.at(home))
    listed = [Path(p).name for p in nanocoder.scan(location)]
    assert f"{BASIC}.json" in listed
    assert ".mcp.json" not in listed
    assert nanocoder.PREFERENCES not in listed  # no chat: not counted as a bad one


def test_a_chat_left_in_the_default_folder_after_the_folder_moved_is_not_resumed(
    tmp_path: Path,
) -> None:
    """Once `nanocoder.sessions.directory` names another folder, nanocoder opens
    `<id>.json` there only (session-manager.js): a chat left in the default folder gets no
    `--resume`, and says why; one in the chosen folder does. A folder's own preferences
    (read where nanocoder runs, over the config folder's) decide for its chats."""
    home = tmp_path / "home"
    (home / SESSIONS).mkdir(parents=True)
    shutil.copy(DATA / "home" / SESSIONS / f"{BASIC}.json", home / SESSIONS)
    chosen = home / "chats" / "nano"
    chosen.mkdir(parents=True)
    moved = "0d9c8b7a-6f5e-4d3c-8b2a-190807060504"
    chat = json.loads((DATA / "home" / SESSIONS / f"{BASIC}.json").read_text())
    chat["id"] = moved
    (chosen / f"{moved}.json").write_text(json.dumps(chat, indent=2))
    preferences = home / ".config" / "nanocoder" / "nanocoder-preferences.json"
    preferences.parent.mkdir(parents=True)
    said = {"nanocoder": {"sessions": {"directory": "~/chats/nano"}}}
    preferences.write_text(json.dumps(said))
    found = sessions(home)
    assert set(found) == {BASIC, moved}
    assert nanocoder.resume(found[BASIC]) is None
    why = nanocoder.resume_refusal(found[BASIC])
    assert why is not None and f"open chats from {chosen}" in why
    assert "would not find it" in why
    plan = nanocoder.resume(found[moved])
    assert plan is not None and plan.argv == ("nanocoder", "--resume", moved)
    result = CliRunner().invoke(
        main, ["resume", "--print", BASIC[:8], "--home", str(home)]
    )
    assert result.exit_code == 1 and "would not find it" in result.output
    # the chat's own folder keeps a preferences file with no sessions folder: the
    # default one is opened there, whatever the config folder's says
    work = tmp_path / "work"
    work.mkdir()
    (work / "nanocoder-preferences.json").write_text(
        json.dumps({"nanocoder": {"sessions": {"autoSave": True}}})
    )
    default = dataclasses.replace(found[BASIC], cwd=str(work))
    assert nanocoder.resume(default) is not None
    chosen_chat = dataclasses.replace(found[moved], cwd=str(work))
    assert nanocoder.resume(chosen_chat) is None
    why = nanocoder.resume_refusal(chosen_chat)
    assert why is not None and "names no sessions folder" in why
    # nothing names a folder any more: the default one is opened
    preferences.write_text("{}")
    assert nanocoder.resume(found[BASIC]) is not None
    assert nanocoder.resume(found[moved]) is None


def test_a_relative_data_dir_is_said_in_doctor_with_what_it_was_read_against(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """nanocoder reads a relative NANOCODER_DATA_DIR against the folder each run starts
    in: sessdex reads it against its own working folder, and doctor says so."""
    monkeypatch.chdir(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    (tmp_path / "rel" / "sessions").mkdir(parents=True)
    shutil.copy(DATA / "home" / SESSIONS / f"{BASIC}.json", tmp_path / "rel/sessions")
    location = nanocoder.locate(Home(home, {"NANOCODER_DATA_DIR": "rel"}))
    assert location.root == tmp_path / "rel"
    [note] = location.notes
    assert "NANOCODER_DATA_DIR=rel is relative" in note and str(tmp_path) in note
    result = CliRunner().invoke(
        main,
        ["doctor", "--app", "nanocoder"],
        env={"HOME": str(home), "NANOCODER_DATA_DIR": "rel"},
    )
    assert "NANOCODER_DATA_DIR=rel is relative" in result.output, result.output
    assert f"sessdex's working folder, {tmp_path}" in " ".join(result.output.split())


def test_a_relative_data_dir_lists_each_working_folders_own_chats(
    tmp_path: Path,
) -> None:
    """A relative NANOCODER_DATA_DIR names another folder from each working folder:
    `list` run from one, then another, then the first again, shows each one's chats (the
    index is kept by the folder it was read against, not by the variable's words; the
    warm listing of a second run took the first folder's)."""
    import os
    import subprocess
    import sys

    home = tmp_path / "home"
    home.mkdir()
    chats = {"a": BASIC, "b": "a14225bf-0102-4e56-8717-cf54f30e4814"}
    for folder, chat in chats.items():
        sessions = tmp_path / folder / "rel/sessions"
        sessions.mkdir(parents=True)
        shutil.copy(DATA / "home" / SESSIONS / f"{chat}.json", sessions)
        for path in (sessions / f"{chat}.json", sessions):  # written a while ago
            os.utime(path, (1_790_000_000, 1_790_000_000))
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "NANOCODER_DATA_DIR": "rel",
        "SESSDEX_HOME": str(tmp_path / "sessdex"),
    }
    for folder in ("a", "b", "a"):
        result = subprocess.run(
            [sys.executable, "-m", "sessdex", "list", "--app", "nanocoder", "--json"],
            env=env,
            cwd=tmp_path / folder,
            capture_output=True,
            timeout=120,
        )
        assert result.returncode == 0, result.stderr
        assert [row["id"] for row in json.loads(result.stdout)] == [chats[folder]]
