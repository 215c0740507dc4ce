"""Progress on stderr while sessdex works: a bar, or a spinner, once the work has taken a
second, on a terminal only; never in the output. No click here: the quick `usage` shows
it too.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from typing import Any

    from ..index import Progress


def progress_after() -> float:
    """Seconds of work before progress shows (SESSDEX_PROGRESS_AFTER: for tests)."""
    try:
        return max(0.0, float(os.environ.get("SESSDEX_PROGRESS_AFTER", "1")))
    except ValueError:
        return 1.0


class Bar:
    """Progress on stderr, a terminal only, once the work has taken `progress_after()`
    seconds: a bar of what is done out of how many, or (`counting`) a spinner with how
    many events so far. It shows from that second on, counted or not: one big file, or
    a long scan, counts nothing for a while, and the terminal must not look hung then.
    Call it with (done, total); `phase` relabels it for the next stage of the work."""

    def __init__(self, label: str, *, counting: bool = False) -> None:
        import threading

        self.label = label
        self.counting = counting
        self.done = 0
        self.total: int | None = None
        self._bar: Any = None
        self._task: Any = None
        self._closed = not sys.stderr.isatty()
        self._lock = threading.Lock()
        self._timer = threading.Timer(progress_after(), self._start)
        self._timer.daemon = True
        if self._closed:
            return
        if self._timer.interval:
            self._timer.start()
            return
        try:
            self._start()
        except BaseException:  # Ctrl-C while it starts: it still leaves no trace
            self.close()
            raise

    def __call__(self, done: int, total: int) -> None:
        self.update(done, total)

    def update(self, done: int, total: int | None = None) -> None:
        with self._lock:
            self.done, self.total = done, total
            if self._bar is not None:
                self._bar.update(self._task, completed=done, total=total)

    def phase(self, label: str) -> Progress:
        """The callback for the work's next stage, shown under `label`."""

        def update(done: int, total: int) -> None:
            with self._lock:
                if self.label != label and self._bar is not None:
                    from rich.markup import escape

                    self._bar.update(self._task, description=escape(label))
                self.label = label
            self.update(done, total)

        return update

    def _start(self) -> None:
        from rich.markup import escape
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            ProgressColumn,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        from . import terminal

        columns: tuple[ProgressColumn | str, ...] = (
            (
                SpinnerColumn(),
                TextColumn("[progress.description]{task.description}"),
                TextColumn("{task.completed:,} events"),
                TimeElapsedColumn(),
            )
            if self.counting
            else (
                "[progress.description]{task.description}",
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
            )
        )
        with self._lock:
            if self._closed:
                return
            # stdout is the result's, whatever it is (a file, a pipe): Rich would take
            # what is written there for its own terminal while it shows
            bar = Progress(
                *columns,
                console=terminal.console(stderr=True),
                transient=True,
                redirect_stdout=False,
            )
            self._task = bar.add_task(
                escape(self.label),
                total=None if self.counting else self.total,
                completed=self.done,
            )
            self._bar = bar  # first: a Ctrl-C inside `start` must find it to stop
            bar.start()

    def close(self) -> None:
        """Stop it and clear its line (it leaves nothing on the terminal)."""
        self._timer.cancel()
        with self._lock:
            self._closed = True
            if self._bar is not None:
                self._bar.stop()
                self._bar = None


@contextmanager
def progress_bar(label: str) -> Iterator[Bar]:
    """A `Bar` for the work done inside the block, cleared when it ends."""
    bar = Bar(label)
    try:
        yield bar
    finally:
        bar.close()
