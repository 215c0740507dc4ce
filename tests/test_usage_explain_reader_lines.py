"""`usage --explain` of an app counted through its reader names no line it does not know:
each response said `file.jsonl:0`, and `--json` `"line": 0`, a line no file has."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main

PI_HOME = Path(__file__).parent / "data" / "pi" / "home"
SESSION = "01a22b83-eeaa-75d4-a59d-adc5e4fb9817"  # pi 0.73.1's own file, two responses


def _explain(tmp_path: Path, *more: str) -> str:
    args = ["usage", "session", "--explain", SESSION, "--home", str(PI_HOME), *more]
    result = CliRunner().invoke(main, args, env={"SESSDEX_HOME": str(tmp_path / "s")})
    assert result.exit_code == 0, result.output
    return result.stdout


def test_the_text_names_the_file_without_a_line_zero(tmp_path: Path) -> None:
    listed = [
        line
        for line in _explain(tmp_path).splitlines()
        if line.startswith("  pi ") and SESSION in line
    ]
    assert len(listed) == 4, listed
    for line in listed:
        path = line.split()[1]
        assert path.endswith(f"{SESSION}.jsonl"), line
        assert ":0" not in line, line


def test_the_json_line_is_null_where_unknown(tmp_path: Path) -> None:
    counted = json.loads(_explain(tmp_path, "--json"))["counted"]
    assert len(counted) == 4
    assert {response["line"] for response in counted} == {None}
    assert all("usage event" in response["note"] for response in counted)
