"""The index's parse workers, sent SIGTERM or Ctrl-C while still starting up, end all the
same: the executor forks them at its first submit, with the signals held until each
worker's start made their default its own (`workers.signals_held`). One that came sooner
ran the parent's handler in the worker: an "Exception in initializer" traceback from
each worker at Ctrl-C (or a worker that lived on, where that handler returned)."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Iterator
from concurrent.futures.process import BrokenProcessPool

import pytest

from sessdex import indexparse, indexscan

pytestmark = pytest.mark.skipif(
    sys.platform != "linux" or len(os.sched_getaffinity(0)) < 2,
    reason="workers are used on Linux with two cores or more",
)


@pytest.mark.parametrize("sent", [signal.SIGTERM, signal.SIGINT], ids=["term", "int"])
def test_a_parse_worker_signalled_as_it_starts_ends(
    sent: signal.Signals, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SESSDEX_DEBUG", raising=False)  # it parses in the one process
    start = indexparse.quiet_on_interrupt

    def slow_start(parent: int) -> None:  # slow enough for the signal to come first
        time.sleep(0.5)
        start(parent)

    monkeypatch.setattr(indexparse, "quiet_on_interrupt", slow_start)
    workers: list[multiprocessing.Process] = []

    def jobs() -> Iterator[indexscan.Job]:
        for n in range(indexparse.PARALLEL_FROM):
            yield ("claude", None, f"/nonexistent/{n}.jsonl", (0, 0, 0, ""))
        # the first chunk is submitted: every worker is forked and still starting
        workers.extend(multiprocessing.active_children())
        for worker in workers:
            os.kill(worker.pid, sent)  # type: ignore[arg-type]

    # the parent's own Python handler, which a worker runs until its start replaces it
    # (the CLI's raises `Terminated`, Python's KeyboardInterrupt; this one does nothing)
    before = signal.signal(sent, lambda number, frame: None)
    try:
        _, results = indexparse.parse_stream(jobs())
        with contextlib.suppress(BrokenProcessPool):  # its workers are gone, as meant
            for _ in results:
                pass
    finally:
        signal.signal(sent, before)
    assert workers
    assert [worker.exitcode for worker in workers] == [-sent] * len(workers)
