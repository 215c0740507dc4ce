"""A Mistral Vibe legacy chain (a session compacted into a new folder) whose folder's
`session_prompt_tokens`, the running total, is damaged (0, null): the chain counted the
whole running total again (the folder before it billed twice). A total that cannot be
trusted adds nothing that was already counted, in the folder it was continued in or in
the one that continues it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

HOME = Path(__file__).parent / "data" / "vibe" / "home"
SESSIONS = Path(".vibe") / "logs" / "session"
FIRST = "session_20261201_100000_3f1c2a9e"  # 10,000 prompt (6,000 cached), 800 out
RESUMED = "session_20261201_101005_7a8b9c0d"  # its compaction: 16,000 (9,500), 1,300
CHAIN = "7a8b9c0d-1e2f-4a3b-8c4d-5d6e7f8a9b0c"
KINDS = ("input_tokens", "output_tokens", "cache_write_tokens", "cache_read_tokens")


def _chain_tokens(home: Path, state: Path) -> tuple[int, int]:
    """(input and output, every counted kind) of the chain, read cold."""
    args = ["usage", "session", "--json", "--app", "vibe", "--home", str(home)]
    result = CliRunner().invoke(main, args, env={"SESSDEX_HOME": str(state)})
    assert result.exit_code == 0, result.output
    [row] = [row for row in json.loads(result.output) if row["key"] == CHAIN]
    return row["input_tokens"] + row["output_tokens"], sum(row[k] for k in KINDS)


def _damage(home: Path, folder: str, value: object) -> None:
    meta = home / SESSIONS / folder / "meta.json"
    document = json.loads(meta.read_text())
    document["stats"]["session_prompt_tokens"] = value
    meta.write_text(json.dumps(document))


@pytest.mark.parametrize("folder", [RESUMED, FIRST])
@pytest.mark.parametrize("value", [0, None])
def test_a_damaged_running_total_bills_nothing_twice(
    tmp_path: Path, folder: str, value: object
) -> None:
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    assert _chain_tokens(home, tmp_path / "whole") == (7_800, 17_300)
    _damage(home, folder, value)
    mixed, every = _chain_tokens(home, tmp_path / "damaged")
    assert mixed <= 7_800 and every <= 17_300  # 21,600 or 23,300: billed again
