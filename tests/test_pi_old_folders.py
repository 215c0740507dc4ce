"""pi before 0.7.29 kept its sessions elsewhere: @mariozechner/coding-agent (0.5.x, up to
0.5.48) in `$CODING_AGENT_DIR`, else `~/.coding-agent` (`join(homedir(), ".coding-agent")`
in its session-manager.ts, so on macOS and Windows too), and pi 0.6.0 to 0.7.28 in
`$CODING_AGENT_DIR`, else `~/.pi/agent`; 0.7.29 renamed the variable
`PI_CODING_AGENT_DIR` and moved nothing."""

from __future__ import annotations

import json
from pathlib import Path

from sessdex.sources import Home, pi
from tests.sources.test_pi import sessions

SESSION = "5f0c2d1e-3a4b-4c5d-8e9f-0a1b2c3d4e5f"
CWD = "/Users/ana/code/shop"


def write_session(agent_dir: Path) -> Path:
    """A session as coding-agent 0.5.48 wrote it: a `type: session` header, no version."""
    folder = agent_dir / "sessions" / "--Users-ana-code-shop--"
    folder.mkdir(parents=True)
    path = folder / f"2025-11-01T10-00-00-000Z_{SESSION}.jsonl"
    lines = [
        {
            "type": "session",
            "id": SESSION,
            "timestamp": "2025-11-01T10:00:00.000Z",
            "cwd": CWD,
            "model": "anthropic/claude-sonnet-4-5",
        },
        {
            "type": "message",
            "timestamp": "2025-11-01T10:00:01.000Z",
            "message": {"role": "user", "content": "Add a basket total"},
        },
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_a_copied_home_s_coding_agent_folder_is_read(tmp_path: Path) -> None:
    path = write_session(tmp_path / ".coding-agent")
    session = sessions(Home.at(tmp_path))[SESSION]
    assert (session.path, session.cwd) == (str(path), CWD)
    assert "Add a basket total" in (session.title or "")


def test_the_old_variable_is_honoured(tmp_path: Path) -> None:
    moved = tmp_path / "agent"
    write_session(moved)
    home = Home(tmp_path / "home", {"CODING_AGENT_DIR": str(moved)})
    assert SESSION in sessions(home)
    assert "CODING_AGENT_DIR" in pi.ENV_VARS


def test_a_session_dir_set_to_pi_s_own_is_listed_once(tmp_path: Path) -> None:
    path = write_session(tmp_path / ".pi" / "agent")
    sessions_dir = str(tmp_path / ".pi" / "agent" / "sessions")
    home = Home(tmp_path, {"PI_CODING_AGENT_SESSION_DIR": sessions_dir})
    assert list(pi.scan(pi.locate(home))).count(path) == 1
