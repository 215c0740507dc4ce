"""A folder where Claude Code, Qwen Code, Gemini CLI, Codex, Vibe, VS Code, Copilot CLI
or OpenHands keeps a session's file (a restore, a sync tool or a `mkdir -p` gone wrong
left `<id>.jsonl/`) hides that session (or, an OpenHands event's, that event): `list --verbose` names the folder and
`doctor` counts it, as it does a broken link in its place; before, the session went
missing without a word. A warm list says it too."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

DATA = Path(__file__).parent / "data"
PROJECT = ".claude/projects/-home-dev-shop"
LEAD = f"{PROJECT}/22222222-2222-4222-8222-222222222222.jsonl"
SUB_AGENT = (
    f"{PROJECT}/33333333-3333-4333-8333-333333333333/subagents/"
    "agent-a2d2d2d2d2d2d2d2d.jsonl"
)


QWEN_CHAT = (
    ".qwen/projects/-home-alex-code-shop-api/chats/"
    "5d1e0c2a-7b3f-4e8a-9c1d-2f6a8b4e0c11.jsonl"
)

GEMINI_CHATS = ".gemini/tmp/shop-api/chats"
GEMINI_CHAT = f"{GEMINI_CHATS}/session-2026-11-30T08-11-91700103.jsonl"
GEMINI_SUB_AGENT = (
    f"{GEMINI_CHATS}/b44832f3-f4fa-4a19-8699-656bec90e64d/"
    "85b47322-1c7f-4f31-830e-607bca07767c.jsonl"
)
CODEX_ROLLOUT = (
    ".codex/sessions/2026/11/30/"
    "rollout-2026-11-30T08-10-32-01a22b81-6e0b-7650-ac72-188ccaa967c5.jsonl"
)
VIBE_FOLDER = ".vibe/logs/session/session_20261130_081129_fe38b8f5"
VIBE_MESSAGES = f"{VIBE_FOLDER}/messages.jsonl"
VIBE_SUB_AGENT = f"{VIBE_FOLDER}/agents/explore_20261130_081129_ad739610/messages.jsonl"
VSCODE_CHAT = (
    ".config/Code/User/globalStorage/emptyWindowChatSessions/"
    "6b8d0f2a-4c6e-4a8c-9e0b-3d5f7a9c1e57.json"
)
COPILOT_LEGACY = ".copilot/session-state/aaaabbbb-1111-2222-3333-ccccddddeeee.jsonl"
OPENHANDS_FOLDER = ".openhands/conversations/0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f50"


@pytest.mark.parametrize(
    ("app", "made_folder"),
    [
        ("claude", LEAD),
        ("claude", SUB_AGENT),
        ("qwen", QWEN_CHAT),
        ("gemini", GEMINI_CHAT),
        ("gemini", GEMINI_SUB_AGENT),
        ("codex", CODEX_ROLLOUT),
        ("vibe", VIBE_MESSAGES),
        ("vibe", VIBE_SUB_AGENT),
        ("vscode", VSCODE_CHAT),
        ("copilot", COPILOT_LEGACY),  # a legacy session's one file
        ("openhands", f"{OPENHANDS_FOLDER}/base_state.json"),
        ("openhands", f"{OPENHANDS_FOLDER}/events/event-00003.json"),  # one event's
    ],
)
def test_a_folder_in_a_session_files_place_is_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, app: str, made_folder: str
) -> None:
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    home = tmp_path / "home"
    shutil.copytree(DATA / app / "home", home, symlinks=True)
    folder = home / made_folder
    folder.unlink()
    folder.mkdir()
    at = ["--home", str(home)]
    runner = CliRunner()

    for _ in ("cold", "warm"):
        listed = runner.invoke(main, ["list", "--all", "--verbose", *at])
        assert listed.exit_code == 0, listed.output
        assert f"{folder}:0: folder in a file's place" in listed.stderr
    rows = json.loads(runner.invoke(main, ["list", "--all", "--json", *at]).stdout)
    assert rows  # the other sessions are listed still

    doctor = runner.invoke(main, ["doctor", "--json", "--app", app, *at])
    (found,) = json.loads(doctor.stdout)
    assert found["passed_over"] == {"folder in a file's place": 1}


@pytest.mark.parametrize(
    "app",
    [
        *("pi", "continue", "droid", "auggie", "kiro", "cursor", "amp", "nanocoder"),
        "copilot",
    ],
)
def test_a_folder_in_any_apps_session_files_place_is_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, app: str
) -> None:
    """Each app that keeps a session in a file of its own: a folder where one of those
    listed was is named by list --verbose and counted by doctor."""
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    home = tmp_path / "home"
    shutil.copytree(DATA / app / "home", home, symlinks=True)
    at = ["--home", str(home), "--app", app]
    runner = CliRunner()
    rows = json.loads(runner.invoke(main, ["list", "--all", "--json", *at]).stdout)
    folder = Path(next(row["path"] for row in rows if Path(row["path"]).is_file()))
    folder.unlink()
    folder.mkdir()
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state2"))

    listed = runner.invoke(main, ["list", "--all", "--verbose", *at])
    assert listed.exit_code == 0, listed.output
    assert f"{folder}:0: folder in a file's place" in listed.stderr
    doctor = runner.invoke(main, ["doctor", "--json", *at])
    (found,) = json.loads(doctor.stdout)
    assert found["passed_over"] == {"folder in a file's place": 1}


def test_a_folder_in_the_only_session_files_place_warns_as_a_broken_link_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where it hides all the app's sessions (nothing else listed), a plain list names
    it, in its warning and its empty line, as it names a broken link there; beside
    sessions listed it is for --verbose and doctor alone (the first test)."""
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    home = tmp_path / "home"
    folder = home / LEAD
    folder.mkdir(parents=True)
    said = f"{folder} is a folder in a file's place"

    for _ in ("cold", "warm"):
        listed = CliRunner().invoke(main, ["list", "--home", str(home)])
        assert listed.exit_code == 0, listed.output
        warning, empty = listed.stderr.strip().splitlines()
        assert warning.startswith(f"warning: claude: {said}: its sessions"), warning
        assert said in empty
