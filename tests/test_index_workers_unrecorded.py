"""A cold index's parse workers are forked while the scan is being recorded (parsing starts
before the scan ends: `indexparse.parse_stream`). They note nothing of it: a worker that
kept the inherited recording stat-ed again every file it read or probed (a sub-agent's
`.meta.json`, each transcript's `/rename` sidecar), into a copy no one reads, and held
one entry per file for as long as it lived."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import cast

import pytest

from sessdex import freshness, indexparse, indexscan

pytestmark = pytest.mark.skipif(
    sys.platform != "linux" or len(os.sched_getaffinity(0)) < 2,
    reason="workers are used on Linux with two cores or more",
)


def _noted_in_worker(job: indexscan.Job) -> tuple[int, bool]:
    """What a worker's parse would note: whether a recording is still on in it."""
    freshness.note_read(job[2])
    return os.getpid(), freshness._recording is not None


def test_parse_workers_forked_inside_a_recorded_scan_note_nothing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("SESSDEX_DEBUG", raising=False)  # it parses in the one process
    monkeypatch.setattr(indexparse, "parse_one", _noted_in_worker)
    jobs = [
        ("claude", None, os.path.join(tmp_path, f"{n}.jsonl"), (0, 0, 0, ""))
        for n in range(indexparse.PARALLEL_FROM + 50)
    ]
    with freshness.recording() as noted:
        count, results = indexparse.parse_stream(iter(jobs))  # type: ignore[arg-type]
        answers = [cast(tuple[int, bool], answer) for answer in results]
    assert count == len(jobs)
    assert {pid for pid, _ in answers} - {os.getpid()}  # parsed in workers
    assert not any(recording for _, recording in answers)
    assert noted == {}  # nor did the parent note what the workers read


def test_a_process_out_of_recording_notes_nothing(tmp_path: Path) -> None:
    path = os.path.join(tmp_path, "meta.json")
    with freshness.recording() as noted:
        freshness.not_recording()
        freshness.note_read(path)
        freshness.note_probe(path)
    assert noted == {}
    with freshness.recording() as noted:  # a later scan records again
        freshness.note_read(path)
    assert list(noted) == [path]
