"""A Claude Code response's web searches, billed $0.01 each: a count no response can
have (a broken or hostile file: 1.7 trillion) is taken as none, as a token count past
any response's is, not a $17-billion row; a real one is still billed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessdex import api
from sessdex.cli import main


@pytest.mark.parametrize(
    ("searches", "cost"), [(None, 0.0147), (3, 0.0447), (1_764_490_211_371, 0.0147)]
)
def test_a_web_search_count_no_response_can_have_bills_nothing(
    tmp_path: Path, searches: int | None, cost: float
) -> None:
    home = shutil.copytree(api.demo_home().path, tmp_path / "home", symlinks=True)
    [transcript] = (home / ".claude" / "projects").glob("*docs-site/*.jsonl")
    if searches is not None:
        text = transcript.read_text()
        used = '"cache_creation_input_tokens": 400}'
        assert used in text
        searched = f'"cache_creation_input_tokens": 400, "server_tool_use": {{"web_search_requests": {searches}}}}}'
        transcript.write_text(text.replace(used, searched, 1))
    result = CliRunner().invoke(
        main, ["usage", "session", "--json", "--home", str(home)]
    )
    assert result.exit_code == 0, result.output
    [row] = [r for r in json.loads(result.stdout) if r["id"].startswith("a7c41d05")]
    assert row["cost_usd"] == pytest.approx(cost)
