"""`export -o` never replaces a file an agent app keeps: another session's own file (an
Aider history in a project, where no agent folder holds it), or Claude Code's
`~/.claude.json`, which sits in the home beside its folder."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from tests.helpers import write_claude_session

AIDER = Path(__file__).parent / "data" / "aider" / "home"
CLAUDE_ID = "39393939-0000-4000-8000-000000000039"


def _export(home: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(
        main, ["export", "3939", *args, "--home", str(home)], catch_exceptions=False
    )
    return result.exit_code, result.stderr


def test_export_refuses_to_replace_another_sessions_own_file(tmp_path: Path) -> None:
    """A Claude Code session exported over the Aider history of the same home (kept in
    the project, outside any agent folder) would replace every Aider session in it."""
    home = tmp_path / "home"
    shutil.copytree(AIDER, home)
    write_claude_session(home, CLAUDE_ID, str(home))
    history = home / ".aider.chat.history.md"
    before = history.read_bytes()
    code, err = _export(home, "-o", str(history))
    assert code == 1, err
    assert "refusing to write over" in err and "aider session" in err
    assert history.read_bytes() == before
    code, err = _export(home, "-o", str(home / "notes.md"))
    assert code == 0, err  # a new file beside it is the user's


def test_export_refuses_to_replace_claude_codes_settings_file(tmp_path: Path) -> None:
    """`~/.claude.json` holds Claude Code's account, trusted folders and MCP servers;
    `export -f json -o ~/.claude.json` replaced it with the transcript."""
    home = tmp_path / "home"
    write_claude_session(home, CLAUDE_ID, str(home))
    settings = home / ".claude.json"
    settings.write_text('{"numStartups": 3, "projects": {}}\n')
    before = settings.read_bytes()
    code, err = _export(home, "-f", "json", "-o", str(settings))
    assert code == 1, err
    assert "refusing to write" in err and "Claude Code" in err
    assert settings.read_bytes() == before


def test_export_through_an_agent_folder_and_back_out_is_written(tmp_path: Path) -> None:
    """`-o ~/.claude/../notes.md` names a file in the home, not in Claude Code's folder:
    it was refused as "into Claude Code's folder"."""
    home = tmp_path / "home"
    write_claude_session(home, CLAUDE_ID, str(home))
    code, err = _export(home, "-o", str(home / ".claude" / ".." / "notes.md"))
    assert code == 0, err
    assert (home / "notes.md").read_text().startswith("# ")
    (home / "x").mkdir()
    code, err = _export(home, "-o", str(home / "x" / ".." / ".claude" / "notes.md"))
    assert code == 1 and "refusing to write into" in err  # and back in: still refused


def test_export_into_the_config_folder_is_not_taken_for_an_extensions(
    tmp_path: Path,
) -> None:
    """`~/.config` holds the editors' folders that Cline, Roo Code and Kilo Code keep
    their tasks in, and every other program's: an export to `~/.config/notes/` was
    refused as "into Cline's folder ~/.config". The editors' folders stay refused."""
    home = tmp_path / "home"
    write_claude_session(home, CLAUDE_ID, str(home))
    notes = home / ".config" / "notes"
    notes.mkdir(parents=True)
    code, err = _export(home, "-o", str(notes / "s.md"))
    assert code == 0, err
    assert (notes / "s.md").read_text().startswith("# ")
    tasks = home / ".config" / "Code" / "User" / "globalStorage"
    tasks.mkdir(parents=True)
    code, err = _export(home, "-o", str(tasks / "s.md"))
    assert code == 1 and "refusing to write into" in err, err
    assert not (tasks / "s.md").exists()


def test_export_into_an_apps_settings_folder_in_config_is_refused(
    tmp_path: Path,
) -> None:
    """Amp, Goose, OpenCode and the Kilo CLI keep their settings in `~/.config/<app>`: still refused
    once `~/.config` as a whole is no longer taken for Cline's."""
    home = tmp_path / "home"
    write_claude_session(home, CLAUDE_ID, str(home))
    for app in ("amp", "goose", "opencode", "kilo"):
        folder = home / ".config" / app
        folder.mkdir(parents=True)
        code, err = _export(home, "-o", str(folder / "s.md"))
        assert code == 1 and "refusing to write into" in err, (app, err)
        assert not (folder / "s.md").exists()


def test_export_over_vibes_prompt_history_is_refused(tmp_path: Path) -> None:
    """Mistral Vibe keeps its sessions in `~/.vibe/logs/session` and its prompt history
    (`vibehistory`) and settings beside them in `~/.vibe`: `-f json -o ~/.vibe/vibehistory`
    replaced the history with the transcript."""
    home = tmp_path / "home"
    write_claude_session(home, CLAUDE_ID, str(home))
    history = home / ".vibe" / "vibehistory"
    history.parent.mkdir()
    history.write_text('{"text": "fix the tests"}\n')
    before = history.read_bytes()
    code, err = _export(home, "-f", "json", "-o", str(history))
    assert code == 1 and "refusing to write" in err and "Vibe" in err, err
    assert history.read_bytes() == before
