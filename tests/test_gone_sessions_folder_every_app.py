"""Every app's folder of sessions that is a broken link (`~/.copilot/session-state ->
gone`, `~/.kimi/sessions -> gone`, moved to a disk not mounted) or one that loops hides
all of that app's sessions: list, usage and doctor name it (and where a broken one
leads), as they name `~/.codex/sessions -> gone`. Copilot CLI, Pi, Droid, Kimi CLI,
Continue, Auggie, Nanocoder, Amp and Zed said only "No sessions found"; an app's own
folder that loops was said to lead to a target that does not exist."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from sessdex.sources import BUILTIN

# the folder of sessions each app's listing reaches through `folders.entries`, from the home
SESSIONS_FOLDER = {
    "claude": ".claude/projects",
    "codex": ".codex/sessions",
    "vibe": ".vibe/logs/session",
    "gemini": ".gemini/tmp",
    "cline": ".cline/data/sessions",
    "roo": ".config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks",
    "kilo": ".local/share/kilo",
    "droid": ".factory/sessions",
    "amp": ".local/share/amp/threads",
    "antigravity": ".gemini/antigravity/conversations",
    "copilot": ".copilot/session-state",
    "pi": ".pi/agent/sessions",
    "kimi": ".kimi/sessions",
    "cursor": ".cursor/projects",
    "opencode": ".local/share/opencode/storage",
    "goose": ".local/share/goose/sessions",
    "qwen": ".qwen/projects",
    "continue": ".continue/sessions",
    "kiro": ".kiro/sessions/cli",
    "auggie": ".augment/sessions",
    "vscode": ".config/Code/User/workspaceStorage",
    "openhands": ".openhands/conversations",
    "gptme": ".local/share/gptme/logs",
    "openclaw": ".openclaw/agents",
    "hermes": ".hermes/profiles",  # its transcripts folder beside state.db: below
    "codebuff": ".config/manicode/projects",
    "kiroide": ".config/Kiro/User/globalStorage/kiro.kiroagent/workspace-sessions",
    "qoder": ".qoder/projects",
    "nanocoder": ".local/share/nanocoder/sessions",
    "zed": ".local/share/zed/threads",  # its one database's folder
}
# apps whose sessions are a database file a scan names, not a folder it lists
NO_FOLDER = {"aider", "crush", "warp", "forge"}


def test_every_app_is_checked() -> None:
    assert set(SESSIONS_FOLDER) | NO_FOLDER == set(BUILTIN)


@pytest.mark.parametrize("loops", [False, True], ids=["gone", "loops"])
@pytest.mark.parametrize("app", sorted(SESSIONS_FOLDER))
def test_an_apps_sessions_folder_linked_to_one_gone_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, app: str, loops: bool
) -> None:
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    home = tmp_path / "home"
    folder = home / SESSIONS_FOLDER[app]
    folder.parent.mkdir(parents=True)
    folder.symlink_to(folder.name if loops else tmp_path / "gone")
    gone = f"is a link to '{tmp_path / 'gone'}', which does not exist"
    said = f"{folder} {'is a link that loops' if loops else gone}"
    run = CliRunner()
    for command in (["list", "-v"], ["list"], ["usage"], ["doctor"]):
        result = run.invoke(main, [*command, "--home", str(home), "--app", app])
        assert result.exit_code == 0, result.output
        assert said in result.output, (command, result.output)


HERMES_HOME = Path(__file__).parent / "data" / "hermes" / "home"


@pytest.mark.parametrize("loops", [False, True], ids=["gone", "loops"])
def test_hermes_transcripts_folder_beside_its_database_linked_to_one_gone_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, loops: bool
) -> None:
    """Hermes lists its sessions from `state.db`, but an older release's chats live only
    in `<home>/sessions/` beside it (a transcript or log of their own): that folder
    broken hides them as `profiles/` broken hides a profile's."""
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    home = tmp_path / "home"
    shutil.copytree(HERMES_HOME, home, symlinks=True)
    folder = home / ".hermes" / "sessions"
    shutil.rmtree(folder)
    folder.symlink_to(folder.name if loops else tmp_path / "gone")
    gone = f"is a link to '{tmp_path / 'gone'}', which does not exist"
    said = f"{folder} {'is a link that loops' if loops else gone}"
    run = CliRunner()
    # the database's sessions are listed: the line says which are not, not "its sessions"
    kept_only = "the sessions kept only there are not listed (the others, in its other files, are)"  # fmt: skip
    counted = "the usage of the sessions kept only there is not counted (the others' is)"  # fmt: skip
    for command in (["list", "-v"], ["list"], ["usage"], ["doctor"]):
        result = run.invoke(main, [*command, "--home", str(home), "--app", "hermes"])
        assert result.exit_code == 0, result.output
        assert said in result.output, (command, result.output)
        hidden = counted if command == ["usage"] else kept_only
        assert f"hermes: {said}: {hidden}" in result.output, (command, result.output)
        assert "its sessions are not listed" not in result.output
