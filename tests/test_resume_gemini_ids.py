"""Gemini CLI reads some `--resume` values as something else than a session id."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

CHAT = (
    Path(__file__).parent
    / "data/gemini/home/.gemini/tmp/webapp/chats/session-2026-12-01T09-00-c0ffee12.jsonl"
)
REAL_ID = "c0ffee12-3b4a-4c5d-8e6f-7a8b9c0d1e2f"


def gemini_home(tmp_path: Path, session_id: str) -> tuple[Path, Path]:
    """A home whose one Gemini chat names its session `session_id`, run in a real folder."""
    folder = tmp_path / "webapp"
    folder.mkdir()
    project = tmp_path / "home/.gemini/tmp/webapp"
    (project / "chats").mkdir(parents=True)
    (project / ".project_root").write_text(str(folder))
    text = (
        CHAT.read_text()
        .replace(REAL_ID, session_id)
        .replace("/home/dev/webapp", str(folder))
    )
    (project / "chats" / CHAT.name).write_text(text)
    return tmp_path / "home", folder


@pytest.mark.parametrize("session_id", ["latest", "2"])
def test_an_id_gemini_reads_as_another_session_gets_no_command(
    tmp_path: Path, session_id: str
) -> None:
    """gemini-cli's resolveSession takes `latest` as the project's newest session before it
    looks for an id, and a number no session has as an id as its place in the list:
    `gemini --resume latest` reopened another session of the folder."""
    home, _ = gemini_home(tmp_path, session_id)
    result = CliRunner().invoke(
        main, ["resume", f"gemini:{session_id}", "--json", "--home", str(home)]
    )
    assert result.exit_code == 0, result.output
    plan = json.loads(result.stdout)
    assert plan["argv"] is None and plan["command"] is None
    assert any(
        session_id in refusal and "gemini" in refusal for refusal in plan["refusals"]
    )


def test_a_uuid_id_still_resumes(tmp_path: Path) -> None:
    home, folder = gemini_home(tmp_path, REAL_ID)
    result = CliRunner().invoke(
        main, ["resume", f"gemini:{REAL_ID}", "--json", "--home", str(home)]
    )
    plan = json.loads(result.stdout)
    assert plan["argv"][:3] == ["gemini", "--resume", REAL_ID]
    assert plan["cwd"] == str(folder)
