"""A report's sums are added in the order the files are found, however the files' reads
come back (a cold run's workers finish in any order, a warm run takes them all from the
index): a cost is the same to its last digit every time."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from sessdex import usage
from sessdex.sources import Home


def write_sessions(home: Path) -> None:
    chance = random.Random(3)
    folder = home / ".claude" / "projects" / "-p"
    folder.mkdir(parents=True)
    for n in range(40):
        session = f"{n:08x}-0000-4000-8000-000000000000"
        counts = {
            "input_tokens": chance.randint(1, 99_999),
            "output_tokens": chance.randint(1, 9_999),
            "cache_read_tokens": chance.randint(0, 999_999),
        }
        line = {"type": "assistant", "timestamp": f"2026-11-20T10:{n:02}:00Z",
                "sessionId": session, "requestId": f"r{n}",
                "message": {"id": f"m{n}", "model": "claude-sonnet-4-5", "usage": counts}}  # fmt: skip
        (folder / f"{session}.jsonl").write_bytes(orjson.dumps(line) + b"\n")


def costs(home: Path) -> list[tuple[str, float, float]]:
    rows = usage.run(Home.at(home), "daily").rows
    return [(row.key, row.cost, row.own_cost) for row in rows]


def test_a_cold_run_whose_reads_come_back_in_another_order_sums_as_a_warm_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    write_sessions(home)
    reading = usage._run

    def backwards(*args: object, **kwargs: object) -> Iterator[usage._Done]:
        yield from reversed(list(reading(*args, **kwargs)))  # type: ignore[arg-type]

    monkeypatch.setattr(usage, "_run", backwards)
    cold = costs(home)  # every file read, the last found first
    warm = costs(home)  # every file's sums from the index, in the order found
    assert cold == warm
    assert len(cold) == 1 and cold[0][1] > 0
