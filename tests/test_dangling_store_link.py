"""A broken link where an app keeps its only store (`opencode.db -> gone`) or a
session's file hides every session of that app: the warning and the empty list's line
name the link and where it leads. Before, the list said only "No sessions found", the
link named by --verbose alone. A broken link beside sessions listed stays quiet."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

DATA = Path(__file__).parent / "data"
CLAUDE_PROJECT = ".claude/projects/-home-dev-shop"


@pytest.mark.parametrize(
    "link",
    [".local/share/opencode/opencode.db", f"{CLAUDE_PROJECT}/5a5a5a5a.jsonl"],
)
def test_a_broken_link_that_hides_an_apps_sessions_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, link: str
) -> None:
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    home = tmp_path / "home"
    (home / link).parent.mkdir(parents=True)
    (home / link).symlink_to("gone")
    said = f"{home / link} is a link to 'gone', which does not exist"

    for _ in ("cold", "warm"):
        listed = CliRunner().invoke(main, ["list", "--home", str(home)])
        assert listed.exit_code == 0, listed.output
        warning, empty = listed.stderr.strip().splitlines()
        assert said in warning
        assert said in empty


def test_a_broken_link_beside_sessions_listed_is_quiet(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    home = tmp_path / "home"
    shutil.copytree(DATA / "claude" / "home", home, symlinks=True)
    (home / CLAUDE_PROJECT / "5a5a5a5a.jsonl").symlink_to("gone")

    listed = CliRunner().invoke(main, ["list", "--all", "--home", str(home)])
    assert listed.exit_code == 0, listed.output
    assert listed.stdout.strip()
    assert "which does not exist" not in listed.stderr


def test_a_broken_links_own_odd_name_is_written_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A project folder named with an escape (a repository's name): the link is named
    with it written out, as other warnings name a file, not cleaned into another path."""
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    home = tmp_path / "home"
    link = home / ".claude" / "projects" / "-home-dev-shop\x1b[31m" / "5a5a5a5a.jsonl"
    link.parent.mkdir(parents=True)
    link.symlink_to("gone\x1b[2J")

    listed = CliRunner().invoke(main, ["list", "--home", str(home)])
    assert listed.exit_code == 0, listed.output
    said = "-home-dev-shop\\x1b[31m/5a5a5a5a.jsonl is a link to 'gone\\x1b[2J'"
    warning, empty = listed.stderr.strip().splitlines()
    assert said in warning
    assert said in empty


@pytest.mark.parametrize(
    ("link", "hides"),
    [
        (f"{CLAUDE_PROJECT}/notes.txt", False),  # no transcript is named so
        (f"{CLAUDE_PROJECT}/5a5a5a5a/subagents/notes.md", False),
        (".claude/projects/-home-dev-gone", True),  # a whole project folder
        (f"{CLAUDE_PROJECT}/5a5a5a5a/subagents/agent-a1.jsonl", True),
        (".continue/sessions/notes.txt", False),
        (".continue/sessions/5a5a5a5a.json", True),
        (".augment/sessions/notes.txt", False),
        (".augment/sessions/5a5a5a5a.json", True),
        (".pi/agent/sessions/--home-dev-shop--/notes.txt", False),
        (".pi/agent/sessions/--home-dev-shop--/5a5a5a5a.jsonl", True),
        # the apps whose `SESSION_NAMES` came after: a session's own place still warns
        (".gemini/tmp/shop-api/chats/session-2026-11-30T08-11-5a5a5a5a.jsonl", True),
        (".qwen/projects/-home-dev-shop/chats/5a5a5a5a.jsonl", True),
        (".copilot/session-state/5a5a5a5a/events.jsonl", True),
        (".copilot/session-state/5a5a5a5a.jsonl", True),
        (".local/share/opencode/opencode.db", True),
        (".local/share/opencode/storage/session/global/ses_5a5a.json", True),
        (".vibe/logs/session/session_20261130_081129_fe38b8f5/messages.jsonl", True),
        (".kimi/sessions/0a1b2c3d/5a5a5a5a/wire.jsonl", True),
        (".kimi-code/sessions/0a1b2c3d/5a5a5a5a/agents/main/wire.jsonl", True),
        (".factory/sessions/-home-dev-shop/5a5a5a5a.jsonl", True),
        (".local/share/goose/sessions/sessions.db", True),
        (".local/share/amp/threads/T-5a5a5a5a.json", True),
        (".local/share/nanocoder/sessions/5a5a5a5a.json", True),
        (".kiro/sessions/cli/5a5a5a5a.jsonl", True),
        (".local/share/kiro-cli/data.sqlite3", True),
    ],
)
def test_a_broken_link_warns_only_where_a_session_could_be(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, link: str, hides: bool
) -> None:
    """A scan that found nothing names a broken link only where the app would have read
    a session or a folder of them: a link to a gone note beside them hides none."""
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    home = tmp_path / "home"
    (home / link).parent.mkdir(parents=True)
    (home / link).symlink_to("gone")

    listed = CliRunner().invoke(main, ["list", "--home", str(home)])
    assert listed.exit_code == 0, listed.output
    assert ("which does not exist" in listed.stderr) is hides, listed.stderr
    assert listed.stderr.startswith("warning") is hides
    counted = CliRunner().invoke(main, ["usage", "--home", str(home)])
    assert counted.exit_code == 0, counted.output
    assert ("which does not exist" in counted.stderr) is hides, counted.stderr


def test_claudes_projects_folder_as_a_broken_link_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`~/.claude/projects -> gone` (its folder of transcripts on a disk not mounted)
    hides every session: named by list, usage and doctor, as another store's link is.
    Before, each said nothing of it ('No sessions found', the app's 0 sessions)."""
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "projects").symlink_to("gone")
    said = f"{home / '.claude' / 'projects'} is a link to 'gone', which does not exist"

    for command in ("list", "usage"):
        for _ in ("cold", "warm"):
            done = CliRunner().invoke(main, [command, "--home", str(home)])
            assert done.exit_code == 0, done.output
            warning, empty = done.stderr.strip().splitlines()
            assert warning.startswith(f"warning: claude: {said}"), warning
            assert said in empty
    doctor = CliRunner().invoke(main, ["doctor", "--home", str(home)])
    assert said in doctor.output


@pytest.mark.parametrize(
    "link",
    [
        ".gemini/tmp/shop-api/notes.txt",
        ".qwen/projects/-home-dev-shop/chats/notes.txt",
        ".copilot/session-state/52ee9297-7cb3-468f-8ca4-46f6b927c8c7/notes.txt",
        ".local/share/opencode/notes.txt",
        ".local/share/opencode/storage/session/global/notes.txt",
        ".vibe/logs/session/session_20261130_081129_fe38b8f5/notes.txt",
        ".kimi/sessions/0a1b2c3d/5a5a5a5a/notes.txt",
        ".factory/sessions/-home-dev-shop/notes.txt",
        ".local/share/goose/sessions/notes.txt",
        ".local/share/amp/threads/notes.txt",
        ".local/share/nanocoder/sessions/notes.txt",
        ".kiro/sessions/cli/notes.txt",
    ],
)
def test_a_gone_notes_link_beside_where_an_app_keeps_sessions_is_quiet(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, link: str
) -> None:
    """Each app whose session files are named by plain patterns (`SESSION_NAMES`): a
    link to a gone note where its scan lists its sessions hides none, and is not said
    to hide them (before, 'its sessions are not listed' for each of these apps)."""
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    home = tmp_path / "home"
    (home / link).parent.mkdir(parents=True)
    (home / link).symlink_to("gone")

    for command in ("list", "usage"):
        done = CliRunner().invoke(main, [command, "--home", str(home)])
        assert done.exit_code == 0, done.output
        assert "which does not exist" not in done.stderr, done.stderr


@pytest.mark.parametrize(
    ("beside", "link"),
    [
        # Kimi CLI writes its work dirs' map beside every home's sessions
        (".kimi/kimi.json", ".kimi/sessions/54a67b3dc711941b4653c448cf4d35b0"),
        # Qwen Code its trusted folders
        (".qwen/trustedFolders.json", ".qwen/projects/-home-dev-shop"),
    ],
)
def test_a_broken_link_beside_only_a_map_of_folders_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, beside: str, link: str
) -> None:
    """A file the app reads only to name its sessions' folders (a context file) is no
    session: beside it alone, a broken link in the store still hides every session.
    Before, the list said 'No session of kimi in its folder yet', the link unnamed."""
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    home = tmp_path / "home"
    (home / link).parent.mkdir(parents=True)
    (home / beside).write_text('{"work_dirs": []}' if "kimi" in beside else "{}")
    (home / link).symlink_to("gone")
    said = f"{home / link} is a link to 'gone', which does not exist"

    for _ in ("cold", "warm"):
        listed = CliRunner().invoke(main, ["list", "--home", str(home)])
        assert listed.exit_code == 0, listed.output
        warning, empty = listed.stderr.strip().splitlines()
        assert said in warning
        assert said in empty


def test_claudes_projects_folder_as_a_link_that_loops_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`~/.claude/projects -> projects` (a link made in the wrong folder) hides every
    session as a broken one does: list and usage name it. Before, they said only 'No
    sessions found', the link named by --verbose alone."""
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "projects").symlink_to("projects")
    said = f"{home / '.claude' / 'projects'} is a link that loops"

    for command in ("list", "usage"):
        for _ in ("cold", "warm"):
            done = CliRunner().invoke(main, [command, "--home", str(home)])
            assert done.exit_code == 0, done.output
            warning, empty = done.stderr.strip().splitlines()
            assert warning.startswith(f"warning: claude: {said}"), warning
            assert said in empty
