"""A first prompt with a log or an image of 20 MB pasted into it: the listing holds
none of that line (files.LINE_CAP), but its first bytes (`files.closed_opening`) still
title the session, as the prompt alone did."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import files
from sessdex.cli import main
from tests.fuzzing import copy_home

DATA = Path(__file__).parent / "data"
PASTE = "\n" + "ERROR retry failed\n" * 1_100_000  # 20 MB

# (app, session id, its transcript in the app's home, the prompt its listing is titled by)
FIRST_PROMPTS = [
    ("claude", "0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f", ".claude/projects/-tmp/0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f.jsonl", "Delegate a repo search to a subagent"),
    ("cursor", "7e6d5c4b-3a29-4180-b7c6-d5e4f3a2b1c0", ".cursor/projects/home-dev-code-api/agent-transcripts/7e6d5c4b-3a29-4180-b7c6-d5e4f3a2b1c0/7e6d5c4b-3a29-4180-b7c6-d5e4f3a2b1c0.jsonl", "Add a health check route"),
    ("gemini", "d00dfeed-1111-4222-8333-944455556666", ".gemini/tmp/webapp/chats/session-2026-12-02T14-30-d00dfeed.jsonl", "Write a migration for the sessions table."),
    ("pi", "0190a1c7-0000-7aaa-8bbb-ccccdddd0001", ".pi/agent/sessions/--home-dev-code-ledger--/2026-11-21T10-00-00-000Z_0190a1c7-0000-7aaa-8bbb-ccccdddd0001.jsonl", "Continue on a fork: add a test"),
    ("qwen", "51ca07c5-86d5-4e2f-bd10-43feff49e3db", ".qwen/projects/-home-alex-code-shop-api/chats/51ca07c5-86d5-4e2f-bd10-43feff49e3db.jsonl", "SCENARIO=subagent Please delegate the greeting command to a sub-agent and report back."),
    ("vibe", "9e8d7c6b-5a4f-4e3d-9c2b-5d6e7f8a9b0c", ".vibe/logs/session/session_20261201_103000_9e8d7c6b/messages.jsonl", "Refactor the payment client to retry failed charges"),
    # Goose 0.x writes an item's "text" before its "type": the cut line names no type
    ("goose", "flaky-tests", ".config/goose/sessions/flaky-tests.jsonl", "test_checkout fails now and then; find out why"),
    ("kimi", "5b7e2a10-1c3d-4e5f-8a9b-0c1d2e3f4a5b", ".kimi/sessions/e32247ebaf80119f9feb17957c5ede2c/5b7e2a10-1c3d-4e5f-8a9b-0c1d2e3f4a5b/context.jsonl", "Add a /health endpoint"),
]  # fmt: skip


def titles(home: Path) -> dict[str, str | None]:
    result = CliRunner().invoke(main, ["list", "--json", "--all", "--home", str(home)])
    assert result.exit_code == 0, result.output
    return {row["id"]: row["title"] for row in json.loads(result.stdout)}


def paste_into(path: Path, prompt: str) -> None:
    """The paste appended to `prompt` on the line of `path` that holds it."""
    quoted = json.dumps(prompt)[1:-1].encode()
    lines = path.read_bytes().split(b"\n")
    (at,) = [n for n, line in enumerate(lines) if quoted in line][:1]
    lines[at] = lines[at].replace(quoted, quoted + json.dumps(PASTE)[1:-1].encode(), 1)
    assert len(lines[at]) > 20 * files.LINE_CAP
    path.write_bytes(b"\n".join(lines))


@pytest.mark.parametrize(("app", "session", "transcript", "prompt"), FIRST_PROMPTS)
def test_a_first_prompt_too_long_to_hold_still_titles_the_session(
    app: str, session: str, transcript: str, prompt: str, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    copy_home(DATA / app / "home", home)
    assert titles(home)[session] == prompt
    paste_into(home / transcript, prompt)
    title = titles(home)[session]
    assert title and title.startswith(f"{prompt} ERROR retry failed"), title
