"""Memory of a cold `usage` over many files: what it holds grows with the report's rows,
not with every file's reading state, sums and response keys held until the end
(bench/bench_scale.py measures the same at 10,000 sessions).

Each measurement runs in a fresh interpreter, as a user's `sessdex usage` does: traced in
the test process, the peak also took in whatever the 5,000 tests before had left running
there (once, under two full test runs at once, 13 KB a file against the usual 3.4 KB).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import Any

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


def traced_usage(home: Path, state: Path, env: _Env) -> tuple[usage.Result, int]:
    """`usage daily` of the home with the index in `state`, and the most memory it held
    (traced)."""
    env.setenv("SESSDEX_HOME", str(state))
    tracemalloc.start()
    try:
        result = usage.run(Home(home), "daily", apps=["claude"])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return result, peak


def cold_case(root: Path, workers: bool) -> dict[str, object]:
    """The cold test's runs: the peaks of a cold `usage` of FEW and of FILES files, and the
    big home's cold and warm totals."""
    if workers:
        usage.PARALLEL_BYTES = 0  # results come from workers
    env = _Env()
    few, _, _ = many_transcripts(root / "few", FEW)
    home, responses, inputs = many_transcripts(root / "home", FILES)
    env.setenv("SESSDEX_HOME", str(root / "state0"))
    usage.run(
        Home(Path(__file__).parent / "data" / "claude" / "home")
    )  # imports, prices
    _, small = traced_usage(few, root / "state1", env)
    cold, big = traced_usage(home, root / "state2", env)
    warm = usage.run(Home(home), "daily", apps=["claude"])
    return {
        "small": small,
        "big": big,
        "responses": responses,
        "inputs": inputs,
        "cold": _totals(cold),
        "warm": _totals(warm),
    }


def warm_case(root: Path) -> dict[str, object]:
    """The warm test's runs: for FEW and for FILES files, a cold `usage`, one file grown,
    then the warm `usage`'s peak and both runs' totals."""
    env = _Env()
    few, _, _ = many_transcripts(root / "few", FEW)
    home, responses, inputs = many_transcripts(root / "home", FILES)
    runs = []
    for where, state in ((few, "state1"), (home, "state2")):
        cold, _ = traced_usage(where, root / state, env)
        # one file grown since: read on from where it was left, with its state and keys
        grown = sorted(where.glob(".claude/projects/*/*.jsonl"))[1]
        line = _line("00000001-1111-4111-8111-111111111111", 1, 99, "msg_1_99", 5)
        with grown.open("a") as stream:
            stream.write(json.dumps(line) + "\n")
        warm, peak = traced_usage(where, root / state, env)
        runs.append({"peak": peak, "cold": _totals(cold), "warm": _totals(warm)})
    return {"runs": runs, "responses": responses, "inputs": inputs}


class _Env:
    """`monkeypatch.setenv` in the fresh process, which ends with what it set."""

    def setenv(self, name: str, value: str) -> None:
        os.environ[name] = value


def _totals(result: usage.Result) -> dict[str, object]:
    return {
        "responses": result.total.responses,
        "input": result.total.input_tokens,
        "cache_read": result.total.cache_read_tokens,
        "days": [r.key for r in result.rows],
        "cost": result.total.cost_usd,
    }


def in_a_fresh_process(case: str, *args: object) -> Any:
    """`case(*args)` of this module in a fresh interpreter, its JSON result: what it
    traces is the usage runs alone, as in a user's `sessdex usage`."""
    code = (
        "import json, sys; from pathlib import Path; import test_usage_memory as t; "
        f"print(json.dumps(t.{case}(Path(sys.argv[1]), *map(json.loads, sys.argv[2:]))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(args[0]), *map(json.dumps, args[1:])],
        cwd=Path(__file__).parent,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parent)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize("workers", [False, True], ids=["one process", "workers"])
def test_a_cold_usage_of_many_files_holds_little_per_file_and_counts_the_same(
    tmp_path: Path, workers: bool
) -> None:
    if workers and (os.name != "posix" or (os.cpu_count() or 1) < 2):
        pytest.skip("workers are forked on a POSIX machine of two cores or more")
    case = in_a_fresh_process("cold_case", tmp_path, workers)
    responses = case["responses"]
    for totals in (case["cold"], case["warm"]):
        assert totals["responses"] == responses
        assert totals["input"] == case["inputs"]
        assert totals["cache_read"] == 7 * responses
        assert totals["days"] == [f"2026-11-{d:02d}" for d in range(1, 29)]
    assert case["cold"]["cost"] == case["warm"]["cost"]
    # what each further file adds to the peak: every file's reading state, sums and keys
    # were held until all were read, then a copy of each encoded (about 10 KB a file of
    # 40 responses); now its buckets and name, and the cross-file look-up of its keys
    per_file = (case["big"] - case["small"]) / (FILES - FEW)
    assert per_file < 6 * 1024, f"{per_file:.0f} bytes per file"


def test_a_warm_usage_holds_no_file_s_reading_state_nor_keys(tmp_path: Path) -> None:
    case = in_a_fresh_process("warm_case", tmp_path)
    for run in case["runs"]:
        assert run["warm"]["responses"] == run["cold"]["responses"] + 1
        assert run["warm"]["input"] == run["cold"]["input"] + 5
    assert case["runs"][1]["warm"]["responses"] == case["responses"] + 1
    assert case["runs"][1]["warm"]["input"] == case["inputs"] + 5
    # every file's stored reading state and keys were read to find the grown one's
    per_file = (case["runs"][1]["peak"] - case["runs"][0]["peak"]) / (FILES - FEW)
    assert per_file < 3.5 * 1024, f"{per_file:.0f} bytes per file"
