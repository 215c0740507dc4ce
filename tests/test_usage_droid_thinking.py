"""droid's `tokenUsage.thinkingTokens` are tokens of their own, not a part of
`outputTokens`: every public reader of droid's settings files counts them on top (ccusage's
droid app bills `outputTokens + thinkingTokens` at the output price and adds them to its
total; others add them to the session's total, or to its output). sessdex counted them
inside the output, so a session's output tokens and cost came out short."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from sessdex.sources import Home
from tests.test_usage import DATA, rows, tokens


def test_thinking_tokens_count_as_output_on_top_of_output_tokens(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    shutil.copytree(DATA / "droid" / "home", home)
    [settings] = home.rglob("droid_large.settings.json")
    values = orjson.loads(settings.read_bytes())
    values["tokenUsage"] = {
        "inputTokens": 40_000,
        "outputTokens": 60_000,
        "cacheCreationTokens": 0,
        "cacheReadTokens": 0,
        "thinkingTokens": 20_000,
    }
    settings.write_bytes(orjson.dumps(values))
    session = rows(Home.at(home), "session", ("droid",))["droid_large"]
    assert tokens(session)[:2] == (40_000, 80_000)
    # Claude Sonnet 4.5: $3 in, $15 out per million: 0.12 + 80k * 15 / 1M = 1.32
    assert session["cost_usd"] == pytest.approx(1.32)
