"""`usage`'s quick path for Claude Code's plain counts (`_Scan._plain_counts`) against the
general one, each count checked and taken one by one, on random-ish transcripts.

Lines of every shape a count takes (ints, 0, negative, past 2**53, strings, floats, bools,
lists, missing), copies of one response (a `message.id` and `requestId` repeated, on side
chains too), advisor iterations, web searches, costUSD, progress lines relaying a
sub-agent's response, synthetic and API-error lines, side-chain lines without usage, broken
JSON: each file read both ways
gives the same records, drops, damage and state, and `usage --json` the same bytes.
"""

from __future__ import annotations

import random
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from sessdex.cli import main
from sessdex.diagnostics import Diagnostics
from sessdex.model import Usage
from sessdex.sources import _claude_usage
from sessdex.sources.base import UsageScan

PROJECT = "-home-user-work"
SESSION = "7c1d4f8e-2b3a-4c5d-8e9f-0a1b2c3d4e5f"
COUNTS: list[object] = [
    0, 1, 7, 1234, 250_000, 2**53, 2**53 + 1, -1, -(2**53), "12", "", 3.5, 2.0,
    1e20, True, False, None, [1], {"n": 1},
]  # fmt: skip
MISSING = object()  # a count left out of the line


class _Checked(_claude_usage._Scan):
    """The general path alone, as before: every count checked and taken one by one, and
    each line of a lead searched again for the usage marker."""

    @staticmethod
    def _plain_counts(tokens: _claude_usage._Tokens) -> None:
        return None

    def line(
        self, number: int, data: bytes, complete: bool = True, marked: object = None
    ) -> None:
        super().line(number, data, complete)


def _count(rng: random.Random) -> object:
    # mostly plain counts, as Claude Code writes them; the rest any value
    return rng.randrange(0, 5000) if rng.random() < 0.6 else rng.choice(COUNTS)


def _usage(rng: random.Random) -> dict[str, object]:
    usage: dict[str, object] = {}
    for name in (
        "input_tokens",
        "output_tokens",
        "cache_read_input_tokens",
        "cache_creation_input_tokens",
    ):
        value = _count(rng)
        if rng.random() > 0.05:
            usage[name] = value
    if rng.random() < 0.3:
        usage["cache_creation"] = {"ephemeral_1h_input_tokens": _count(rng)}
    if rng.random() < 0.1:
        usage["server_tool_use"] = {"web_search_requests": _count(rng)}
    if rng.random() < 0.1:
        usage["inference_geo"] = "us"
    if rng.random() < 0.1:
        usage["speed"] = "fast"
    if rng.random() < 0.1:
        usage["iterations"] = [
            {"type": "advisor_message", "model": "claude-opus-4-6", "input_tokens": _count(rng), "output_tokens": _count(rng)},
            {"type": "message", "input_tokens": _count(rng)},
        ]  # fmt: skip
    return usage


def _line(rng: random.Random, n: int) -> bytes:
    if rng.random() < 0.1:  # a side-chain line without usage (1.0's inline sub-agents)
        link = b'{"type":"user","isSidechain":true,"uuid":"u%d","parentUuid":"u%d%s"}'
        return link % (n, n - rng.randrange(1, 4), rng.choice([b"", b"\xe9"]))
    message: dict[str, object] = {
        "id": f"msg_{rng.randrange(40)}",  # few ids: many copies of one response
        "model": rng.choice(["claude-sonnet-4-5-20250929", "claude-opus-4-6", "<synthetic>"])
        if rng.random() < 0.1
        else "claude-sonnet-4-5-20250929",
        "usage": _usage(rng),
    }  # fmt: skip
    if rng.random() < 0.05:
        del message["id"]
    line: dict[str, object] = {
        "type": "assistant",
        "uuid": f"u{n}",
        "parentUuid": f"u{n - 1}",
        "sessionId": SESSION,
        "cwd": "/home/user/work",
        "timestamp": f"2026-11-{rng.randrange(1, 29):02d}T{rng.randrange(24):02d}:00:00.000Z",
        "requestId": f"req_{rng.randrange(60)}",
        "message": message,
    }
    if rng.random() < 0.15:
        line["isSidechain"] = True
    if rng.random() < 0.03:
        line["isApiErrorMessage"] = True
    if rng.random() < 0.05:
        line["costUSD"] = rng.choice([0.01, "x", None, 1e400, 2])
    if rng.random() < 0.05:
        line["requestId"] = rng.choice([None, "", 5])
    if rng.random() < 0.05:
        line = {
            "type": "progress",
            "timestamp": line["timestamp"],
            "sessionId": SESSION,
            "data": {"agentId": "a1", "message": line},
        }
    data = orjson.dumps(line)
    if rng.random() < 0.02:
        data = data[: rng.randrange(len(data))]  # a broken line
    return data


def _home(tmp_path: Path, seed: int, lines: int = 400) -> Path:
    rng = random.Random(seed)
    folder = tmp_path / "home" / ".claude" / "projects" / PROJECT
    (folder / SESSION / "subagents").mkdir(parents=True)
    text = b"\n".join(_line(rng, n) for n in range(lines)) + b"\n"
    (folder / f"{SESSION}.jsonl").write_bytes(text)
    agent = b"\n".join(_line(rng, n) for n in range(lines // 4)) + b"\n"
    (folder / SESSION / "subagents" / "agent-a1.jsonl").write_bytes(agent)
    return tmp_path / "home"


def _read(path: Path, explain: bool) -> tuple[UsageScan, Diagnostics, list[object]]:
    diagnostics = Diagnostics()
    folded: list[object] = []
    scan = _claude_usage.usage_records(
        path, diagnostics, explain=explain, fold=folded.append
    )
    return scan, diagnostics, folded


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("explain", [False, True])
def test_quick_counts_read_as_every_count_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int, explain: bool
) -> None:
    home = _home(tmp_path, seed)
    for path in sorted(home.rglob("*.jsonl")):
        quick = _read(path, explain)
        monkeypatch.setattr(_claude_usage, "_Scan", _Checked)
        checked = _read(path, explain)
        monkeypatch.undo()
        assert repr(quick) == repr(checked)
        assert quick[0].records or quick[2]  # something was counted


@pytest.mark.parametrize("report", ["daily", "model", "session"])
def test_usage_json_is_the_same_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, report: str
) -> None:
    home = _home(tmp_path, 99, lines=1500)

    def run(state: str) -> tuple[str, str]:
        result = CliRunner().invoke(
            main,
            ["usage", report, "--json", "--home", str(home)],
            env={"SESSDEX_HOME": str(tmp_path / state)},
        )
        assert result.exit_code == 0, result.output
        return result.stdout, result.stderr  # the rows, and what was said of the lines

    quick = run("quick")
    monkeypatch.setattr(_claude_usage, "_Scan", _Checked)
    assert run("checked") == quick
    assert orjson.loads(quick[0])
    assert "odd" in quick[1] or "count" in quick[1]  # damage was found, and said


@pytest.mark.parametrize("value", [*COUNTS, 10**6, 10**6 + 1, 2**63])
def test_quick_one_hour_and_searches_are_the_checked_counts(value: object) -> None:
    one_hour = _claude_usage._one_hour(_claude_usage._CacheCreation(value))
    assert one_hour == _claude_usage._int(value)
    tools = _claude_usage._ServerTools(value)
    searches = _claude_usage._searches(_claude_usage._Tokens(server_tool_use=tools))
    checked = _claude_usage._int(value)
    assert searches == (
        checked if checked <= _claude_usage.MAX_RESPONSE_SEARCHES else 0
    )


@pytest.mark.parametrize("model", ["claude-opus-4-6", None])
def test_quick_usage_is_the_dataclass_made(model: str | None) -> None:
    quick = _claude_usage._usage(1, 2, 3, 4, model, 0.5)
    made = Usage(1, 2, 3, 4, 0, model, 0.5)
    assert quick == made
    assert repr(quick) == repr(made)
    assert hash(quick) == hash(made)
