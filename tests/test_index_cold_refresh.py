"""A cold refresh of many files: parsed on worker processes only where other work leaves
two cores free (workers cost about a third more CPU, and shorten nothing on busy
cores), each file's source looked up, not imported again, and no rows looked for to
replace in a write of new files."""

from __future__ import annotations

import importlib
import json
import os
import sqlite3
import sys
from pathlib import Path

import pytest

from sessdex import api, index, indexparse, indexscan
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


def _home(root: Path, files: int) -> Path:
    folder = root / ".claude/projects/-home-u-code-many"
    folder.mkdir(parents=True)
    for n in range(files):
        session = f"{n:08x}-0000-4000-8000-{n:012x}"
        line = {"type": "user", "sessionId": session, "uuid": f"u{n}",
                "cwd": "/home/u/code/many", "timestamp": "2026-11-30T08:10:07Z",
                "message": {"role": "user", "content": f"prompt {n}"}}  # fmt: skip
        (folder / f"{session}.jsonl").write_text(json.dumps(line) + "\n")
    return folder


def test_a_cold_refresh_imports_no_source_again_for_each_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A source already loaded is looked up: a cold list of 300 files asked
    `importlib.import_module` for its source 4 times a file (10 us each), 1,234 in all."""
    _home(tmp_path, 300)
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


def test_a_cold_refresh_in_parts_deletes_nothing_and_a_warm_one_replaces(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A first index written in parts: each part after the first looked for its new
    files' rows in four tables and deleted them (none there), 6 statements a part. A file
    changed since is still replaced: the listing shows its new prompt, once."""
    folder = _home(tmp_path, 12)
    monkeypatch.setattr(index, "WRITE_BATCH", 3)
    statements: list[str] = []
    opened = sqlite3.connect

    def connect(*args: object, **kwargs: object) -> sqlite3.Connection:
        db = opened(*args, **kwargs)  # type: ignore[arg-type]
        db.set_trace_callback(statements.append)
        return db

    monkeypatch.setattr(sqlite3, "connect", connect)
    home = Home.at(tmp_path)
    assert len(api.list_sessions(home).rows) == 12
    replaced = [s for s in statements if "WHERE path IN" in s and "FROM files" not in s]
    assert replaced == []
    first = sorted(folder.iterdir())[0]
    line = json.loads(first.read_text())
    line["message"]["content"] = "prompt changed"
    first.write_text(json.dumps(line) + "\n")
    statements.clear()
    titles = [json.loads(row.record)["title"] for row in api.list_sessions(home).rows]
    assert len(titles) == 12
    assert "prompt 0" not in titles
    assert titles.count("prompt changed") == 1
    assert any(s.startswith("DELETE FROM fragments WHERE path IN") for s in statements)
