"""Hints the command line prints from its own messages (found reading them): each names
its command as it should be typed, with the running --home."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

DATA = Path(__file__).parent / "data"


def _invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_doctor_names_doctor_deep_with_the_same_home(tmp_path: Path) -> None:
    """A Codex newer than checked: doctor points at `doctor --deep`, which without the
    --home would read the user's own home instead."""
    home = tmp_path / "home"
    shutil.copytree(DATA / "codex" / "home", home)
    first = next(
        p
        for p in sorted((home / ".codex" / "sessions").rglob("rollout-*.jsonl"))
        if '"cli_version":"0.171.0"' in p.read_text()
    )
    first.write_text(
        first.read_text().replace(
            '"cli_version":"0.171.0"', '"cli_version":"0.180.2"', 1
        )
    )
    code, out, _ = _invoke("doctor", "--app", "codex", "--home", str(home))
    assert code == 0
    [newer] = [line for line in out.splitlines() if "newer than checked" in line]
    assert newer.endswith(f"('sessdex doctor --deep --home {home}' reads them all)")


@pytest.mark.parametrize(
    ("shell", "model", "told"),
    [
        ("powershell", "sonnet&calc", "Check the line shown above ($ ...) and run it"),
        ("cmd", "sonnet%x%", "No line typed into a shell can run it either"),
    ],
)
def test_a_cmd_shim_refused_points_at_the_command_shown_above(
    shell: str, model: str, told: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """npm's `.cmd` shim on Windows runs under cmd.exe: a word it would act on is
    refused, and the message sent the user to a bare 'resume --print', which without
    this --home reads their own home."""
    import shutil as shell_utilities
    import sys

    from sessdex.cli import sessions

    from .helpers import write_claude_session

    session = "5e550000-0000-4000-8000-000000000002"
    folder = tmp_path / "project"
    folder.mkdir()
    home = tmp_path / "home"
    write_claude_session(home, session, str(folder), model=model)
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.delenv("MSYSTEM", raising=False)
    monkeypatch.delenv("SHELL", raising=False)
    monkeypatch.setenv("SESSDEX_SHELL", shell)
    monkeypatch.setattr(
        shell_utilities, "which", lambda name, **_: f"C:\\npm\\{name}.cmd"
    )
    monkeypatch.setattr(sessions.os, "execvp", lambda *_: None)
    code, _, err = _invoke(
        "resume", session[:8], "--force", "--yes", "--home", str(home)
    )
    assert code == 1, err
    said = " ".join(err.split())
    assert f"cmd.exe, which runs it, would act on a character in {model!r}" in said
    assert "(resume --print)" not in said
    assert told in said
