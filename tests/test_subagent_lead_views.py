"""`follow`, `replay` and the md and html exports of a sub-agent kept in a file of its own
(Qwen Code 0.21+) name the session it belongs to, as `show` and `tree` do, and as they
name a fork's source. The JSON of its events is left as it was: `list --json` has its
`parent_id`, and a field added to every event would only repeat it."""

from __future__ import annotations

import os
import re
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main
from tests.helpers import on_a_terminal

HOME = Path(__file__).parent / "data" / "qwen" / "subagents" / "home"
LEAD = "7b3c1f0e-5a2d-4c8b-9e6f-1a2b3c4d5e6f"
CHILD = "general-purpose-call_8f2b1c9d0e"


def _said(run: CliRunner, *argv: str) -> str:
    result = run.invoke(main, [*argv, "--home", str(HOME)])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_replay_of_a_sub_agent_names_its_lead(run: CliRunner) -> None:
    header = _said(run, "replay", CHILD, "--speed", "1000").split("\n\n")[0]
    assert f"sub-agent of {LEAD}" in header.splitlines()
    assert "sub-agent of" not in _said(run, "replay", LEAD[:8], "--speed", "1000")


def test_follow_of_a_sub_agent_names_its_lead_on_a_terminal() -> None:
    quiet = {**os.environ, "SESSDEX_PROGRESS_AFTER": "600"}
    shown = []
    for session in (CHILD, LEAD[:8]):
        argv = ["follow", session, "--duration", "0.5", "--home", str(HOME)]
        result, seen = on_a_terminal(argv, quiet, stdout_too=True)
        assert result.returncode == 0, seen
        shown.append(re.sub(r"\x1b\[[0-9;]*m", "", seen).replace("\r", ""))
    child, lead = shown
    assert f"sub-agent of {LEAD}" in child.split("\n\n")[0].splitlines()
    assert "sub-agent of" not in lead


def test_exports_of_a_sub_agent_name_its_lead_among_its_facts(
    run: CliRunner,
) -> None:
    facts = _said(run, "export", CHILD, "-f", "md").split("\n\n")[1]
    assert f"- **sub-agent of**: `{LEAD}`" in facts.splitlines()
    html = _said(run, "export", CHILD, "-f", "html")
    assert f"sub-agent of {LEAD}" in html.split('<div class="facts">')[1]
    assert "sub-agent of" not in _said(run, "export", LEAD[:8], "-f", "md")
    assert "sub-agent of" not in _said(run, "export", LEAD[:8], "-f", "html")
