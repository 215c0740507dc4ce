"""An OpenHands conversation whose base_state.json holds one response's count damaged
(NaN, 1e999 or 5,000 digits, read as null): its cache writes went uncounted in its own
bill (billed as fresh input) and were billed again in what the total holds beyond the
list (3,300 input and output tokens for 2,800). A response whose counts cannot be read
is billed from the total instead, once."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex.cli import main

HOME = Path(__file__).parent / "data" / "openhands" / "home"
STATE = (
    Path(".openhands")
    / "conversations"
    / "5f0c3e2a9b8d4c7ea1f2b3c4d5e6f708"
    / "base_state.json"
)


def _tokens(home: Path, state: Path) -> tuple[int, int, str]:
    """(input and output, every counted kind, what stderr said) of `usage app` over
    `home`, read cold."""
    args = ["usage", "app", "--json", "--app", "openhands", "--home", str(home)]
    result = CliRunner().invoke(main, args, env={"SESSDEX_HOME": str(state)})
    assert result.exit_code == 0, result.output
    [row] = json.loads(result.stdout)
    kinds = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")
    tokens = row["input_tokens"] + row["output_tokens"], sum(row[k] for k in kinds)
    return (*tokens, result.stderr)


@pytest.mark.parametrize("count", ["cache_write_tokens", "prompt_tokens"])
@pytest.mark.parametrize("damage", ["NaN", "1e999", "null"])
def test_a_damaged_response_count_bills_nothing_twice(
    tmp_path: Path, count: str, damage: str
) -> None:
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    assert _tokens(home, tmp_path / "before") == (2_800, 12_800, "")
    state = home / STATE
    document = json.loads(state.read_text())
    [first, *_] = document["stats"]["usage_to_metrics"]["agent"]["token_usages"]
    first[count] = "\x01damaged\x01"
    state.write_text(json.dumps(document).replace('"\\u0001damaged\\u0001"', damage))
    assert damage in state.read_text()
    # the response left out of the bills is said
    *tokens, said = _tokens(home, tmp_path / "after")
    assert tokens == [2_800, 12_800]
    assert "warning: read 1 response with an odd token count" in said, said
