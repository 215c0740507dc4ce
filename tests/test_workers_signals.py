"""A worker pool's worker that is sent SIGTERM (its pool ends) or Ctrl-C while it is still
starting up ends all the same: the signal waits until the worker has made its default
handling its own (`workers.signals_held`), where it was once dropped and the worker, and
its parent joining it, waited forever (seen as a hung `usage` under load)."""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
import time

import pytest

from sessdex.index import quiet_on_interrupt, signals_held

pytestmark = pytest.mark.skipif(
    sys.platform != "linux", reason="workers are forked on Linux only"
)


def _worker(parent: int) -> None:
    """A pool worker's life: a start slow enough for the signal to come first, then
    `quiet_on_interrupt`, then waiting for work (none comes)."""
    time.sleep(0.5)
    quiet_on_interrupt(parent)
    time.sleep(60)


@pytest.mark.parametrize("sent", [signal.SIGTERM, signal.SIGINT], ids=["term", "int"])
def test_a_worker_signalled_as_it_starts_ends(sent: signal.Signals) -> None:
    # the parent's own Python handler, which the worker inherits until it starts (the
    # CLI's raises `Terminated`; this one does nothing, as a handler may)
    before = signal.signal(sent, lambda number, frame: None)
    try:
        with signals_held():
            worker = multiprocessing.get_context("fork").Process(
                target=_worker, args=(os.getpid(),)
            )
            worker.start()
    finally:
        signal.signal(sent, before)
    try:
        os.kill(worker.pid, sent)  # type: ignore[arg-type]
        worker.join(timeout=10)
        assert not worker.is_alive(), "the signal was lost: the worker waits for work"
        assert worker.exitcode == -sent
    finally:
        if worker.is_alive():
            worker.kill()
            worker.join()


def test_the_parent_gets_what_came_while_its_signals_were_held() -> None:
    got: list[int] = []
    before = signal.signal(signal.SIGTERM, lambda number, frame: got.append(number))
    try:
        with signals_held():
            # to this thread: one sent to the process may reach another thread (the
            # mask is a thread's), whose handler Python runs here all the same
            signal.pthread_kill(threading.get_ident(), signal.SIGTERM)
            time.sleep(0.05)
            assert got == []  # held
        time.sleep(0.05)
        assert got == [signal.SIGTERM]
    finally:
        signal.signal(signal.SIGTERM, before)
