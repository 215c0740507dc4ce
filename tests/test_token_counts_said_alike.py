"""Token counts are said in one order (input, output, cache write, cache read, as the
`usage` columns are) and one number format (thousands separated: 1,200) by `show
--detail full`, `usage` and `usage --explain`."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from sessdex.cli import main

HOME = str(Path(__file__).parent / "data" / "codex" / "home")
AGENT = "01a22b81-66c"


def _run(*args: str, home: str = HOME) -> str:
    result = CliRunner().invoke(main, [*args, "--home", home])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_show_full_says_cache_write_before_cache_read_in_full_numbers() -> None:
    said = _run("show", AGENT, "--detail", "full")
    assert "tokens: in 1,200 · out 30 · cache write 0 · cache read 0 · gpt-5.5" in said


def test_explain_lines_separate_thousands_as_its_row_line_does() -> None:
    said = _run("usage", "session", "--explain", AGENT)
    assert "input 2,400, output 60, cache write 0, cache read 0" in said
    assert "in 1,200 out 30 cw 0 cr 0 rs 0" in said
    assert "input 1,200 includes cached 0 and cache writes 0" in said


def test_usage_columns_in_the_same_order() -> None:
    header = _run("usage", "session").splitlines()[1]
    assert (
        header.index("Input")
        < header.index("Output")
        < header.index("Cache write")
        < header.index("Cache read")
    )
    row = json.loads(_run("usage", "session", "--json"))[0]
    assert row["input_tokens"] == 6000
