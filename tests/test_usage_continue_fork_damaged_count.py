"""A Continue fork (`cn --fork`) one of whose responses has its `completion_tokens`
damaged (NaN, -Infinity: read as null): which of its first responses are copies was
asked of both counts at once, and the damaged one stopped the count short, so a copy
was billed again (14,675 tokens over the home for 13,675). Each count says how many
it covers; the copies are as many as either says."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from sessdex.cli import main

CONTINUE = Path(__file__).parent / "data" / "continue" / "home"
FORK = "51ef62d5-b480-45bf-b5d2-84868e10cde8"  # 6 responses, the first 4 copies
COUNT = b'"completion_tokens": 25'


def _fork(home: Path, state: Path) -> tuple[int, int]:
    argv = ["usage", "session", "--json", "--home", str(home)]
    result = CliRunner().invoke(main, argv, env={"SESSDEX_HOME": str(state)})
    assert result.exit_code == 0, result.output
    [row] = [row for row in orjson.loads(result.stdout) if row["key"] == FORK]
    return row["input_tokens"], row["output_tokens"]


@pytest.mark.parametrize("response", range(6))
@pytest.mark.parametrize("damage", [b"NaN", b"-Infinity"])
def test_a_fork_with_a_damaged_count_bills_its_copies_once(
    tmp_path: Path, response: int, damage: bytes
) -> None:
    home = tmp_path / "home"
    shutil.copytree(CONTINUE, home)
    assert _fork(home, tmp_path / "whole") == (2_000, 50)
    path = home / ".continue" / "sessions" / f"{FORK}.json"
    data = path.read_bytes()
    assert data.count(COUNT) == 6
    at = -1
    for _ in range(response + 1):
        at = data.index(COUNT, at + 1)
    path.write_bytes(data[:at] + b'"completion_tokens": ' + damage + data[at + 23 :])
    given, made = _fork(home, tmp_path / "damaged")
    assert given == 2_000  # 3,000: the last copy billed again
    assert made == (25 if response >= 4 else 50)
