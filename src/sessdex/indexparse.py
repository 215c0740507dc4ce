"""A refresh's parsing: each changed file read by its source in isolation, read again
when it changed under the read, its odd times left out, and turned into fragments; on
the cores other work leaves free, for a big batch. Not what is done with them (`indexrows`).
"""

from __future__ import annotations

import itertools
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from datetime import datetime
from pathlib import Path

from . import files, freshness, inplace, sources
from .diagnostics import (
    BEFORE_1970,
    FILE_REFUSED,
    FUTURE,
    MAX_DETAILS,
    VANISHED,
    Diagnostics,
    read_failed,
)
from .indexrows import Depended, Parsed, fragment_of
from .indexscan import Job
from .model import Session
from .sources import Location
from .workers import quiet_on_interrupt, signals_held

PARSE_CHUNK = 128  # files per job sent to a worker
PARALLEL_FROM = (
    200  # files: below this, starting worker processes costs more than it saves
)


# Reads again of a file that changed while it was read and could not all be read.
REREADS = 2
# Other files of a file's sessions it may not open, noted with it (freshness.SIDE): a
# warm listing stats each; past these, a `chmod -R` of a folder shows in the first ones.
MAX_SIDES = 32


def parse_one(job: Job) -> Parsed:
    """Parse one file in isolation: a broken or vanished file never hides the rest.

    A file that changed while it was read, and held something that could not be read,
    is read again: a database the app wrote into during the read (its pages changed under
    a lock-free read) or a JSON document it rewrote in place reads as corrupt, which the
    same file read a moment later is not. A database the app committed to while it was
    read in place is read again even when nothing looked wrong (the read may have seen
    half a transaction); the last time from a copy of one committed state."""
    app, location, name, signature = job
    if (
        owner_file(app, name) is not None and not _companions_parsed(app, name)
    ) or context_folder(app, name, location) is not None:
        return app, name, signature, [], Diagnostics(), []  # read with its owner only
    moves = 0  # reads the app committed during
    for attempt in range(REREADS + 1):
        copied = moves > 1 or (moves > 0 and attempt == REREADS)
        with (
            inplace.Reading(copied=copied) as reading,
            freshness.refusals() as refused,
            freshness.depending() as read,
        ):
            read[name] = freshness.ABSENT  # itself: never stat'ed for this (`depended`)
            try:
                sessions, diagnostics = parse_as_is(app, location, name)
                moved = reading.moved()
                diagnostics.for_now = reading.for_now
            finally:
                reading.close()
        moves += moved
        if not (moved or diagnostics.problems or diagnostics.skipped):
            break
        now = freshness.file_signature(name)
        if now is None or (not moved and now == signature):
            break  # vanished, or as it was: what could not be read is in the file
        signature = now  # the signature of what the next read will see (or newer)
    else:
        if moved:
            diagnostics.problem(f"{app}: {name} changed during every read of it")
            diagnostics.for_now = True
    if not sessions and (diagnostics.skipped or diagnostics.problems):
        diagnostics = _refused_or(diagnostics, name)
        if diagnostics.skipped[FILE_REFUSED]:
            signature = _tried_again(signature)
    sessions, ahead = _undated_odd(sessions, name, diagnostics)
    if ahead is not None:  # read again when the clock reaches it, changed or not
        size, mtime_ns, inode, wal = signature
        signature = size, mtime_ns, inode, freshness.due(ahead, wal)
    refused.pop(name, None)
    if refused and signature[3] != freshness.REFUSED:
        # its sessions' other files it may not open: said on every listing, and the
        # file read again once one of them changes (see freshness.SIDE)
        _said_refused(diagnostics, refused)
        size, mtime_ns, inode, wal = signature
        noted = itertools.islice(refused, MAX_SIDES)
        signature = size, mtime_ns, inode, freshness.with_sides(wal, noted)
    return (
        app,
        name,
        signature,
        [fragment_of(s) for s in sessions],
        diagnostics,
        depended(app, name, location, read),
    )


def depended(
    app: str, name: str, location: Location, read: dict[str, str]
) -> list[Depended]:
    """The other files the parse of `name` read or looked for (`freshness.depending`),
    and how each looked: those a warm listing stats to read `name` again. Left out: the
    files a hook of the source ties to it already (its companions, the context files
    whose digest says when they matter, its kin), read again as that hook says."""
    source = sources.get(app)
    owner_of: Callable[[str], str | None] | None = getattr(source, "companion_of", None)
    kin_of: Callable[[str], str | None] | None = getattr(source, "kin_of", None)
    kin = kin_of(name) if kin_of is not None else None
    wal = name + "-wal" if name.endswith(freshness.DB_SUFFIXES) else name
    found: list[Depended] = []
    for path, signature in read.items():
        if path in (name, wal) or (owner_of is not None and owner_of(path) == name):
            continue  # itself, its WAL (in its own signature), or a companion
        if context_folder(app, path, location) is not None:
            continue
        if kin is not None and kin_of is not None and kin_of(path) == kin:
            continue
        found.append((path, signature))
    return found


def _said_refused(diagnostics: Diagnostics, refused: Iterable[str]) -> None:
    """Count as refused each of `refused` (files a read was not let open) that the
    reader said nothing of: one that passed over an optional file it may not open (an
    OpenCode message file, for a session's model) left its sessions short without a word."""
    if len(diagnostics.details) >= MAX_DETAILS:
        return  # the reader's own may be past the details: not counted twice
    said = {path for path, _, reason in diagnostics.details if reason == FILE_REFUSED}
    for path in refused:
        if path not in said and not any(path in p for p in diagnostics.problems):
            diagnostics.refused(path)


def _tried_again(signature: freshness.FileSignature) -> freshness.FileSignature:
    """A refused file's signature, marked so (`freshness.REFUSED`): every listing says it
    again, as it says a refused folder (kept as it was, only its first run said so), a
    warm one without reading it; a full refresh tries to open it again."""
    size, mtime_ns, inode, _ = signature
    return size, mtime_ns, inode, freshness.REFUSED


def _refused_or(diagnostics: Diagnostics, name: str) -> Diagnostics:
    """`diagnostics`, or, when the file gave nothing because it may not be opened, only
    that: each adapter says so in its own words ("unreadable", an OSError's problem),
    where the user must be told its sessions are missing and why."""
    if not files.refuses_reading(name):
        return diagnostics
    refused = Diagnostics()
    refused.refused(name)
    return refused


# How far past the clock a session's time may be and still be its own: a machine whose
# clock ran ahead (a file synced from it), a zone's offset read wrong (14 h at most).
FUTURE_SLACK = 86400.0


def _clock() -> float:
    return time.time()


def _odd(moment: datetime | None, latest: float) -> str | None:
    if moment is None:
        return None
    stamp = moment.timestamp()
    return FUTURE if stamp > latest else BEFORE_1970 if stamp <= 0 else None


def _undated_odd(
    sessions: list[Session], name: str, diagnostics: Diagnostics
) -> tuple[list[Session], float | None]:
    """The sessions with a created or updated time past the clock (and its slack), or
    not after 1970, left undated there, each counted; and the first moment one of those
    times is no longer past the clock (None: none ahead). A bogus year 2099 (a broken
    clock, a value in the wrong unit) kept the session at the top of every listing and
    `watch`, said to be `now`; Go's zero time, 0001-01-01, is no time (as an epoch of 0
    is none), and no local zone could show it."""
    latest = _clock() + FUTURE_SLACK
    kept = []
    ahead: float | None = None
    for session in sessions:
        created, updated = session.created, session.updated
        odd = [_odd(created, latest), _odd(updated, latest)]
        for moment, reason in zip((created, updated), odd, strict=True):
            if reason == FUTURE and moment is not None:
                due = moment.timestamp() - FUTURE_SLACK
                ahead = due if ahead is None else min(ahead, due)
        if odd[0] or odd[1]:
            diagnostics.skip(name, 0, odd[0] or odd[1] or "")
            session = replace(
                session,
                created=None if odd[0] else created,
                updated=None if odd[1] else updated,
            )
        kept.append(session)
    return kept, ahead


def owner_file(app: str, name: str) -> str | None:
    """The file whose sessions `name` speaks of, when it is a companion (see base.py)."""
    owner_of: Callable[[str], str | None] | None = getattr(
        sources.get(app), "companion_of", None
    )
    return owner_of(name) if owner_of is not None else None


def context_folder(app: str, name: str, location: Location) -> str | None:
    """The folder whose listed files `name` speaks of, when it is a context file (see
    base.py)."""
    context_of: Callable[[str, Location], str | None] | None = getattr(
        sources.get(app), "context_of", None
    )
    return context_of(name, location) if context_of is not None else None


def _companions_parsed(app: str, name: str) -> bool:
    """Whether the companion `name` may hold sessions of its own too (see base.py)."""
    source = sources.get(app)
    if getattr(source, "COMPANIONS_PARSED", False) is True:
        return True
    parsed: Callable[[str], bool] | None = getattr(source, "companion_parsed", None)
    return parsed is not None and parsed(name)


def parse_as_is(
    app: str, location: Location, name: str
) -> tuple[list[Session], Diagnostics]:
    diagnostics = Diagnostics()
    try:
        sessions = sources.get(app).parse(Path(name), location, diagnostics)
        # 4 bytes more, for files that list nothing or met lines they could not read
        # (a session a state database lists, its rollout re-saved as UTF-16)
        if not sessions or diagnostics.skipped or diagnostics.unfinished:
            diagnostics = files.said_wide(name, diagnostics)
        return sessions, diagnostics
    except FileNotFoundError:
        diagnostics.skip(name, 0, VANISHED)
    except Exception as error:
        if os.environ.get("SESSDEX_DEBUG"):
            raise
        diagnostics.problem(read_failed(app, name, error, "could not read"))
    return [], diagnostics


def parse_stream(jobs: Iterator[Job]) -> tuple[int, Iterator[Parsed]]:
    """(how many jobs, their results): on the free cores for a big batch, where parsing
    starts while `jobs` (the scan) is still being produced. Parsing heads and tails is
    CPU-bound Python, so threads would only take turns on one core."""
    head = list(itertools.islice(jobs, PARALLEL_FROM))
    cores = (
        len(os.sched_getaffinity(0))
        if hasattr(os, "sched_getaffinity")
        else (os.cpu_count() or 1)
    )
    workers = cores - _busy_cores(cores)
    if (
        len(head) < PARALLEL_FROM  # the scan is over: a small batch
        or workers < 2
        or sys.platform != "linux"
        or os.environ.get("SESSDEX_DEBUG")
    ):
        head.extend(jobs)
        return len(head), map(parse_one, head)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    count = [len(head)]

    def rest() -> Iterator[Job]:
        for job in jobs:
            count[0] += 1
            yield job

    # fork: the workers start with every module already imported and each source's
    # state as is; they only parse and send back values.
    pool = ProcessPoolExecutor(
        workers,
        mp_context=multiprocessing.get_context("fork"),
        initializer=_worker_start,
        initargs=(os.getpid(),),
    )
    try:
        # forking, the executor starts every worker at its first submit (and starts no
        # other later): here, and not in map, which runs as long as the scan
        with signals_held():
            pool.submit(_started)
        # map submits each chunk as the scan yields it, and returns once the scan is over
        results = pool.map(
            parse_one, itertools.chain(head, rest()), chunksize=PARSE_CHUNK
        )
    except BaseException:
        pool.shutdown(cancel_futures=True)
        raise

    def collect() -> Iterator[Parsed]:
        try:
            yield from results
        finally:  # on Ctrl-C, the jobs not started yet are dropped, not waited for
            pool.shutdown(cancel_futures=True)

    return count[0], collect()


def _busy_cores(cores: int) -> int:
    """How many of `cores` other processes keep busy: the system's load over the last
    minute, less this process's own. Workers cost about a third more CPU than parsing
    in one process (sending each file's fragments back, one process's caches each), and
    win wall time only on cores that are free: on two cores other work keeps busy, 20,000
    small sessions took as long, with 6.7 s CPU for 5.15 s."""
    try:
        load = os.getloadavg()[0]
    except OSError:  # no load to read: the cores are taken to be free
        return 0
    return min(cores, max(0, round(load - 1)))


def _worker_start(parent: int) -> None:
    """A parse worker's start: quiet on Ctrl-C, and out of the scan's recording, which it
    was forked inside (its parent records; what the worker reads is the parse's own)."""
    quiet_on_interrupt(parent)
    freshness.not_recording()


def _started() -> None:
    """The first job: the workers' start, under `signals_held`."""
