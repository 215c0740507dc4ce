"""Token counts in `tree` and on the `watch` board, past a thousand million: a long
Claude Code session reads a billion and more cached tokens. They said `1584.0M` (and a
count that rounds up to the next unit, 999,960, `1000.0k`); now `1.6B` and `1.0M`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main
from sessdex.views.text import tokens
from tests.helpers import write_claude_session

SESSION = "dddddddd-0000-4000-8000-000000000001"


def test_a_billion_cached_tokens_reads_as_billions_in_tree(tmp_path: Path) -> None:
    path = write_claude_session(tmp_path, SESSION, "/home/dev/shop")
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    lines[1]["message"]["usage"]["cache_read_input_tokens"] = 1_584_000_000
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = CliRunner().invoke(main, ["tree", SESSION[:8], "--home", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "1.6B cache" in result.output, result.output
    assert "M cache" not in result.output


@pytest.mark.parametrize(
    ("count", "said"),
    [
        (999, "999"),
        (1_500, "1.5k"),
        (999_949, "999.9k"),
        (999_960, "1.0M"),
        (28_600_000, "28.6M"),
        (999_960_000, "1.0B"),
        (1_584_000_000, "1.6B"),
    ],
)
def test_each_count_takes_the_unit_it_rounds_to(count: int, said: str) -> None:
    assert tokens(count) == said
