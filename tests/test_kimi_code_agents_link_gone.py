"""Kimi Code: a session's `agents` folder that is a broken link (moved to a disk not
mounted) hides its main wire, the session's transcript: `list -v` names it and `doctor`
counts it, as they do a `wire.jsonl` that is one. The wire's check noted nothing: the
session listed from its `state.json` alone, its transcript missing unsaid."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

DATA = Path(__file__).parent / "data" / "kimi"
SESSION = ".kimi-code/sessions/wd_project_ac3bb318f98e/session_1bcbe023-4f7e-4971-9dc9-43b8756045b0"


@pytest.mark.parametrize("link", ["agents", "agents/main", "agents/main/wire.jsonl"])
def test_a_link_gone_above_a_sessions_wire_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, link: str
) -> None:
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state"))
    home = tmp_path / "home"
    shutil.copytree(DATA / "home", home)
    gone = home / SESSION / link
    if gone.is_dir():
        shutil.rmtree(gone)
    else:
        gone.unlink()
    gone.symlink_to(tmp_path / "gone")
    run = CliRunner()
    listed = run.invoke(main, ["list", "-v", "--home", str(home), "--app", "kimi"])
    assert listed.exit_code == 0, listed.output
    assert f"{gone}:0: broken link" in listed.output, listed.output
    doctor = run.invoke(main, ["doctor", "--home", str(home), "--app", "kimi"])
    assert doctor.exit_code == 0, doctor.output
    assert "passed over broken link (1)" in doctor.output, doctor.output
