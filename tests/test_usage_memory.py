"""Memory of a cold `usage` over many files: what it holds grows with the report's rows,
not with every file's reading state, sums and response keys held until the end
(bench/bench_scale.py measures the same at 10,000 sessions)."""

from __future__ import annotations

import json
import os
import tracemalloc
from pathlib import Path

import pytest

from sessdex import usage
from sessdex.sources import Home

FILES = 500
FEW = 100
RESPONSES = 40


def _line(session: str, f: int, n: int, message: str, tokens: int) -> dict[str, object]:
    return {
        "parentUuid": None,
        "isSidechain": False,
        "type": "assistant",
        "cwd": "/home/dev/shop",
        "sessionId": session,
        "timestamp": f"2026-11-{1 + f % 28:02d}T10:{n % 15:02d}:00.000Z",  # one slot
        "uuid": f"{session[:8]}-0000-4000-8000-{n:012d}",
        "requestId": f"req_{message}",
        "message": {
            "id": message,
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": "done " * 20}],
            "usage": {
                "input_tokens": tokens,
                "cache_creation_input_tokens": 3,
                "cache_read_input_tokens": 7,
                "output_tokens": 2,
            },
        },
    }


def many_transcripts(root: Path, count: int) -> tuple[Path, int, int]:
    """A home of `count` Claude Code transcripts of RESPONSES responses each, the last file
    repeating the first file's first response (counted once); (home, responses, input)."""
    folder = root / ".claude" / "projects" / "-home-dev-shop"
    folder.mkdir(parents=True)
    responses = inputs = 0
    for f in range(count):
        session = f"{f:08d}-1111-4111-8111-111111111111"
        lines = []
        for n in range(RESPONSES):
            tokens = 100 + f + n
            lines.append(_line(session, f, n, f"msg_{f}_{n}", tokens))
            responses, inputs = responses + 1, inputs + tokens
        if f == count - 1:
            lines.append(_line(session, f, RESPONSES, "msg_0_0", 100))
        text = "".join(json.dumps(line) + "\n" for line in lines)
        (folder / f"{session}.jsonl").write_text(text)
    return root, responses, inputs


def traced_usage(home: Path, state: Path, monkeypatch) -> tuple[usage.Result, int]:
    """`usage daily` of the home with the index in `state`, and the most memory it held
    (traced)."""
    monkeypatch.setenv("SESSDEX_HOME", str(state))
    tracemalloc.start()
    try:
        result = usage.run(Home(home), "daily", apps=["claude"])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return result, peak


@pytest.mark.parametrize("workers", [False, True], ids=["one process", "workers"])
def test_a_cold_usage_of_many_files_holds_little_per_file_and_counts_the_same(
    tmp_path: Path, monkeypatch, workers: bool
) -> None:
    if workers:
        if os.name != "posix" or (os.cpu_count() or 1) < 2:
            pytest.skip("workers are forked on a POSIX machine of two cores or more")
        monkeypatch.setattr(usage, "PARALLEL_BYTES", 0)  # results come from workers
    few, _, _ = many_transcripts(tmp_path / "few", FEW)
    home, responses, inputs = many_transcripts(tmp_path / "home", FILES)
    monkeypatch.setenv("SESSDEX_HOME", str(tmp_path / "state0"))
    usage.run(
        Home(Path(__file__).parent / "data" / "claude" / "home")
    )  # imports, prices
    _, small = traced_usage(few, tmp_path / "state1", monkeypatch)
    cold, big = traced_usage(home, tmp_path / "state2", monkeypatch)
    warm = usage.run(Home(home), "daily", apps=["claude"])
    for result in (cold, warm):
        assert result.total.responses == responses
        assert result.total.input_tokens == inputs
        assert result.total.cache_read_tokens == 7 * responses
        assert [r.key for r in result.rows] == [
            f"2026-11-{d:02d}" for d in range(1, 29)
        ]
    assert cold.total.cost_usd == warm.total.cost_usd
    # what each further file adds to the peak: every file's reading state, sums and keys
    # were held until all were read, then a copy of each encoded (about 10 KB a file of
    # 40 responses); now its buckets and name, and the cross-file look-up of its keys
    per_file = (big - small) / (FILES - FEW)
    assert per_file < 6 * 1024, f"{per_file:.0f} bytes per file"


def test_a_warm_usage_holds_no_file_s_reading_state_nor_keys(
    tmp_path: Path, monkeypatch
) -> None:
    few, _, _ = many_transcripts(tmp_path / "few", FEW)
    home, responses, inputs = many_transcripts(tmp_path / "home", FILES)
    peaks = []
    for where, state in ((few, "state1"), (home, "state2")):
        cold, _ = traced_usage(where, tmp_path / state, monkeypatch)
        # one file grown since: read on from where it was left, with its state and keys
        grown = sorted(where.glob(".claude/projects/*/*.jsonl"))[1]
        line = _line("00000001-1111-4111-8111-111111111111", 1, 99, "msg_1_99", 5)
        with grown.open("a") as stream:
            stream.write(json.dumps(line) + "\n")
        warm, peak = traced_usage(where, tmp_path / state, monkeypatch)
        assert warm.total.responses == cold.total.responses + 1
        assert warm.total.input_tokens == cold.total.input_tokens + 5
        peaks.append(peak)
    assert warm.total.responses == responses + 1
    assert warm.total.input_tokens == inputs + 5
    # every file's stored reading state and keys were read to find the grown one's
    per_file = (peaks[1] - peaks[0]) / (FILES - FEW)
    assert per_file < 3.5 * 1024, f"{per_file:.0f} bytes per file"
