"""Worker processes for CPU-bound work (a refresh's parsing, usage sums): quiet on
Ctrl-C, and ending with their parent. Not what they run, nor how their pool is sized.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator


def quiet_on_interrupt(parent: int) -> None:
    """A worker process's start: Ctrl-C (sent to every process of the terminal's
    group) ends it at once, without the traceback each worker would print; the
    parent stops on its own KeyboardInterrupt. It ends with `parent`, however that ends."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the CLI's `Terminated`
    if hasattr(signal, "pthread_sigmask"):  # what came while `signals_held`: taken now
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
    end_with_parent(parent)


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Ctrl-C and SIGTERM held back while workers are forked, until each worker's
    `quiet_on_interrupt` has made their default its own. One that came sooner ran no
    handler: Python noted it for the parent's handler, which the worker's start then
    replaced, and so dropped it (a pool's worker terminated as it started waited for
    work forever, and its parent for it)."""
    import signal

    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield
    finally:  # the parent's own, held meanwhile, reach its handlers now
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def end_with_parent(parent: int) -> None:
    """Have Linux end this worker when `parent` ends. A parent killed outright (SIGKILL,
    the OOM killer) never shuts its pool down, and a worker of `ProcessPoolExecutor`
    holds its task pipe's other end itself: it would wait for work forever."""
    import ctypes
    import signal

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # no prctl: the worker ends as it did before
        return
    if os.getppid() != parent:  # the parent ended before prctl took
        os._exit(1)
