"""A cold refresh of many files: parsed on worker processes only where other work leaves
two cores free (workers cost about a third more CPU, and shorten nothing on busy
cores), and each file's source looked up, not imported again, however many files."""

from __future__ import annotations

import importlib
import json
import os
import sys
from pathlib import Path

import pytest

from sessdex import api, indexparse, indexscan
from sessdex.sources import Home

BUSY_CORES = indexparse._busy_cores  # as it is: the tests' conftest frees every core


def _parsed_where(job: indexscan.Job) -> int:
    return os.getpid()


@pytest.mark.skipif(sys.platform != "linux", reason="workers are used on Linux")
@pytest.mark.parametrize(("load", "workers"), [(3.2, False), (2.2, False), (1.4, True)])
def test_a_big_refresh_parses_on_workers_only_where_two_cores_are_free(
    monkeypatch: pytest.MonkeyPatch, load: float, workers: bool
) -> None:
    """Two cores, this process (counted in the load) and others: a load of 3.2 or 2.2
    leaves one core free at most, where workers only add their CPU; one of 1.4 two."""
    monkeypatch.delenv("SESSDEX_DEBUG", raising=False)  # it parses in the one process
    monkeypatch.setattr(indexparse, "_busy_cores", BUSY_CORES)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    monkeypatch.setattr(os, "getloadavg", lambda: (load, load, load))
    monkeypatch.setattr(indexparse, "parse_one", _parsed_where)
    jobs = [
        ("claude", None, f"/nonexistent/{n}.jsonl", (0, 0, 0, ""))
        for n in range(indexparse.PARALLEL_FROM + 50)
    ]
    count, results = indexparse.parse_stream(iter(jobs))  # type: ignore[arg-type]
    pids = set(results)
    assert count == len(jobs)
    assert (pids != {os.getpid()}) == workers


def test_a_cold_refresh_imports_no_source_again_for_each_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A source already loaded is looked up: a cold list of 300 files asked
    `importlib.import_module` for its source 4 times a file (10 us each), 1,234 in all."""
    folder = tmp_path / ".claude/projects/-home-u-code-many"
    folder.mkdir(parents=True)
    for n in range(300):
        session = f"{n:08x}-0000-4000-8000-{n:012x}"
        line = {"type": "user", "sessionId": session, "uuid": f"u{n}",
                "cwd": "/home/u/code/many", "timestamp": "2026-11-30T08:10:07Z",
                "message": {"role": "user", "content": f"prompt {n}"}}  # fmt: skip
        (folder / f"{session}.jsonl").write_text(json.dumps(line) + "\n")
    monkeypatch.setenv("SESSDEX_DEBUG", "1")  # parsed in this process, where it is seen
    imported: list[str] = []
    real = importlib.import_module

    def counted(name: str, package: str | None = None) -> object:
        imported.append(name)
        return real(name, package)

    monkeypatch.setattr(importlib, "import_module", counted)
    listed = api.list_sessions(Home.at(tmp_path))
    assert len(listed.rows) == 300
    assert len(imported) < 50, sorted(set(imported))
