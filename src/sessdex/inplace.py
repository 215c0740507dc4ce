"""Reads of other apps' databases opened in place, watched for the app's commits.

A database with no WAL is read `immutable=1`: no lock, so an app that commits during the
read can show it half a transaction (some pages old, some new) or a torn page. Every
rollback-journal commit rewrites the file change counter in the database header, first of
the pages it writes; a read that saw it change is done again, from a copy of one committed
state if need be (`databases.open_sqlite` opens it). Not the opening itself.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Generator, Iterator
from typing import BinaryIO, Protocol, TypeVar

from . import files
from .freshness import COUNTER_OFFSET

T = TypeVar("T")

_JOURNAL_MAGIC = bytes.fromhex("d9d505f920a163d7")  # a journal that holds pages to undo

State = tuple[bytes, int, int]  # change counter, size, mtime_ns


def hot_journal(name: str) -> bool:
    """Whether database `name` has a rollback journal with pages to undo: a write is
    under way, and the file may hold pages not committed yet."""
    try:
        with files.open_regular(name + "-journal") as journal:
            return journal.read(8) == _JOURNAL_MAGIC
    except OSError:
        return False


def state(name: str) -> tuple[State, int] | None:
    """Database `name`'s state and inode, or None when it cannot be read."""
    try:
        with files.open_regular(name, buffering=0) as file:
            return _state(file.fileno()), os.fstat(file.fileno()).st_ino
    except OSError:
        return None


def _state(fd: int) -> State:
    st = os.fstat(fd)
    if hasattr(os, "pread"):
        return os.pread(fd, 4, COUNTER_OFFSET), st.st_size, st.st_mtime_ns
    os.lseek(
        fd, COUNTER_OFFSET, os.SEEK_SET
    )  # Windows has no pread; the fd is this read's own
    return os.read(fd, 4), st.st_size, st.st_mtime_ns


class Reading:
    """One read's databases opened in place, each with its state when first opened; or,
    `copied`, a read whose databases are opened from copies of one committed state (kept
    in `copies` for the read's other opens)."""

    def __init__(self, *, copied: bool = False) -> None:
        self.copied = copied
        self.copies: dict[str, str] = {}
        self._opened: dict[
            str, tuple[BinaryIO, State]
        ] = {}  # database -> (file, state)
        self._moved = False
        self._outer: Reading | None = None
        # a database of the read could not be opened for now (`databases.open_sqlite`)
        self.for_now = False

    def open_in_place(self, name: str) -> bool:
        """Note database `name`'s state before it is opened in place; False when a write
        is under way (its file may hold uncommitted pages): open a committed copy."""
        name = os.path.abspath(name)
        if name in self._opened:
            return True
        try:
            file = files.open_regular(name, buffering=0)
        except OSError:
            return True  # SQLite says what is wrong with it
        try:
            found = _state(file.fileno())
        except OSError:
            file.close()
            return True
        # looked at after the state: a commit that ended before is whole in the file
        if hot_journal(name):
            file.close()
            return False
        self._opened[name] = (file, found)
        return True

    def moved(self, *, thorough: bool = True) -> bool:
        """Whether the app wrote into a database of this read since it was opened: what the
        read saw may mix two states. Quick (the header and the file's size and mtime, on
        each event given) or `thorough` (also a write under way, a file replaced)."""
        if self._moved or not self._opened:
            return self._moved
        for name, (file, found) in self._opened.items():
            fd = file.fileno()
            try:
                if _state(fd) != found or (thorough and _replaced(name, fd)):
                    self._moved = True
            except OSError:
                self._moved = True
            if self._moved:
                break
        return self._moved

    def close(self) -> None:
        for file, _ in self._opened.values():
            file.close()
        self._opened.clear()

    def __enter__(self) -> Reading:
        self._outer = current()
        _current.reading = self
        return self

    def __exit__(self, *_: object) -> None:
        _current.reading, self._outer = self._outer, None


def _replaced(name: str, fd: int) -> bool:
    """A write under way into the file, or another file in its place (one removed since
    was read whole as it was)."""
    try:
        return os.stat(name).st_ino != os.fstat(fd).st_ino or hot_journal(name)
    except FileNotFoundError:
        return False


_current = threading.local()


def current() -> Reading | None:
    """The read this thread's `open_sqlite` calls belong to, if any."""
    reading: Reading | None = getattr(_current, "reading", None)
    return reading


class Held(Protocol):
    """A connection a pass keeps open (`databases` makes them): `release` closes it."""

    def release(self) -> None: ...


# a pass's connections: what a database opened as -> (its connection, the token that
# says the database is as it was when the connection was opened)
_Pass = dict[str, tuple[Held, object]]


@contextlib.contextmanager
def one_pass() -> Iterator[None]:
    """Within it, a database opened again as it was opened before (in place, or the same
    snapshot of it), nothing written into it since, is given the connection the first
    open made: a command that reads many sessions of one store in turn (a lead's
    sub-agents, each read on its own) opens it once, not once a session. Each read is
    still watched for the app's commits as it was (`Reading.open_in_place`). This
    thread's alone; the pass's end closes its connections."""
    kept: _Pass = {}
    passes = _passes()
    passes.append(kept)
    try:
        yield
    finally:
        # by identity: a pass a generator holds may end after one begun later
        passes[:] = [p for p in passes if p is not kept]
        for connection, _ in kept.values():
            connection.release()
        kept.clear()


def _passes() -> list[_Pass]:
    found: list[_Pass] | None = getattr(_current, "passes", None)
    if found is None:
        found = _current.passes = []
    return found


def passing() -> bool:
    """Whether this thread is within a pass (`one_pass`): an open may be `hold`."""
    return bool(getattr(_current, "passes", None))


def held(key: str, token: object) -> Held | None:
    """The connection the pass under way keeps for `key` (a database, as it is opened),
    where `token` is the one it was held with (the database unchanged since); None
    outside a pass, or where it was not held or changed (then dropped)."""
    passes = _passes()
    if not passes or key not in passes[-1]:
        return None
    connection, was = passes[-1][key]
    if was == token:
        return connection
    # changed since: a read that still uses it goes on; the pass's end closes it
    passes[-1][f"{key}\0{id(connection)}"] = passes[-1].pop(key)
    return None


def hold(key: str, connection: Held, token: object) -> None:
    """Keep `connection` for the pass under way, as `key` opened while `token` held."""
    passes = _passes()
    if passes:
        passes[-1][key] = (connection, token)


# Events are given in batches, checked once each: at most BATCH of them, or as many as
# were read in BATCH_SECONDS (a few huge ones are not held together)
BATCH = 32
BATCH_SECONDS = 0.002


def watched(items: Iterator[T], reading: Reading) -> Generator[T, None, None]:
    """`items`, each pulled with `reading` current, up to the first pulled after the app
    wrote into a database the read opened in place: none from the batch that holds it is
    given (any may mix two states), and `reading.moved()` then says so."""
    batch: list[T] = []
    try:
        while True:
            started = time.perf_counter()
            ended = False
            with reading:  # no caller's code runs until the batch is given
                while (
                    len(batch) < BATCH and time.perf_counter() - started < BATCH_SECONDS
                ):
                    try:
                        batch.append(next(items))
                    except StopIteration:
                        ended = True
                        break
            if reading.moved(thorough=False):
                return
            yield from batch
            batch.clear()
            if ended:
                return
    finally:
        close = getattr(items, "close", None)
        if close is not None:
            with reading:  # the reader's own clean-up (closing its connection)
                close()
