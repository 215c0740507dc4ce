"""Where `resume` has no command for a session but `show` reads it, the refusal names the
`sessdex show` line for that session, one that runs as printed: it said 'sessdex show'
alone, which is a usage error (no id)."""

from __future__ import annotations

import json
import re
import shlex

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from tests.conftest import app_home


@pytest.mark.parametrize("app", ["codex", "continue", "gemini", "qwen", "goose"])
def test_a_refusal_names_a_show_command_that_runs_as_printed(app: str) -> None:
    home = str(app_home(app))
    runner = CliRunner()
    listed = runner.invoke(main, ["list", "--all", "--json", "--home", home])
    assert listed.exit_code == 0, listed.output
    named = []
    for session in json.loads(listed.stdout):
        ref = f"{session['app']}:{session['id']}"
        refused = runner.invoke(main, ["resume", ref, "--print", "--home", home])
        hint = re.search(r"'(sessdex show[^']*)'", refused.stderr)
        if refused.exit_code != 1 or hint is None:
            continue
        words = shlex.split(hint.group(1))
        assert ref in words, hint.group(1)  # not 'sessdex show' alone
        shown = runner.invoke(main, [*words[1:], "--json"])
        assert shown.exit_code == 0, shown.output
        assert {e["session_id"] for e in json.loads(shown.stdout)} >= {session["id"]}
        named.append(ref)
    assert named  # each of these homes holds a session resume refuses so
