"""`usage --explain` names each file it counted or dropped under the home as `~/…`, as
`list` names a folder and `usage project` a project there; `--json` keeps the full
path, for a program to open."""

from __future__ import annotations

import json

from click.testing import CliRunner

from sessdex import api
from sessdex.cli import main

DEMO = str(api.demo_home().path)
FILE = ".claude/projects/-home-demo-code-docs-site/a7c41d05-2b9e-4f3a-8c17-5e6d9b0a1f24.jsonl"


def _explain(*args: str) -> str:
    result = CliRunner().invoke(
        main, ["usage", "--explain", "2026-11-26", "--home", DEMO, *args]
    )
    assert result.exit_code == 0, result.output
    return result.stdout


def test_a_file_under_the_home_is_named_from_the_tilde() -> None:
    out = _explain()
    assert f"  claude ~/{FILE}:2  2026-11-26 09:00:30" in out
    assert DEMO not in out


def test_json_keeps_the_full_path() -> None:
    counted = json.loads(_explain("--json"))["counted"]
    assert counted[0]["file"] == f"{DEMO}/{FILE}"
