"""`sessdex usage` over Codex homes: each rollout counted once, wherever Codex keeps it."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
import zstandard
from click.testing import CliRunner

from sessdex.cli import main

THREAD = "019bd5f2-4444-7000-8000-0000000000d9"
NAME = f"rollout-2026-01-06T10-00-00-{THREAD}.jsonl"


def _rollout() -> bytes:
    count = {"input_tokens": 1000, "cached_input_tokens": 400, "output_tokens": 10,
             "reasoning_output_tokens": 0, "total_tokens": 1010}  # fmt: skip
    lines = [
        {"timestamp": "2026-01-06T10:00:00.000Z", "type": "session_meta",
         "payload": {"id": THREAD, "timestamp": "2026-01-06T10:00:00.000Z",
                     "cwd": "/home/dev/x", "originator": "codex_cli_rs",
                     "cli_version": "0.80.0", "source": "cli"}},
        {"timestamp": "2026-01-06T10:00:01.000Z", "type": "turn_context",
         "payload": {"cwd": "/home/dev/x", "model": "gpt-5.1"}},
        {"timestamp": "2026-01-06T10:00:02.000Z", "type": "event_msg",
         "payload": {"type": "token_count",
                     "info": {"total_token_usage": count, "last_token_usage": count}}},
    ]  # fmt: skip
    return b"".join(orjson.dumps(line) + b"\n" for line in lines)


@pytest.mark.parametrize("archived_suffix", ["", ".zst"])
@pytest.mark.parametrize("live_suffix", ["", ".zst"])
def test_a_rollout_in_both_sessions_and_archived_sessions_counts_once(
    tmp_path: Path, run: CliRunner, live_suffix: str, archived_suffix: str
) -> None:
    """A rollout found in `sessions/` and again in `archived_sessions/` (an archive
    copied back, a sync) is one thread, as `sessdex list` shows it: its response once."""
    home = tmp_path / "home"
    data = _rollout()
    for folder, suffix in (
        (home / ".codex" / "sessions" / "2026" / "01" / "06", live_suffix),
        (home / ".codex" / "archived_sessions", archived_suffix),
    ):
        folder.mkdir(parents=True)
        body = zstandard.ZstdCompressor().compress(data) if suffix else data
        (folder / (NAME + suffix)).write_bytes(body)
    listed = run.invoke(main, ["list", "--home", str(home), "--json"])
    assert [s["id"] for s in orjson.loads(listed.stdout)] == [THREAD]
    result = run.invoke(main, ["usage", "session", "--home", str(home), "--json"])
    assert result.exit_code == 0, result.output
    [row] = orjson.loads(result.stdout)
    assert row["key"] == THREAD
    assert row["responses"] == 1
    assert (row["input_tokens"], row["cache_read_tokens"], row["output_tokens"]) == (
        600,
        400,
        10,
    )
