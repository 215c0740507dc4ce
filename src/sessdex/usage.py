"""Token usage and cost: per-file sums kept in the index, reports, and `--explain`.

Apps whose sources define the `usage_records` hook (sources/base.py) are read file by file,
on both cores when there is much to read; each file's sums, per session, agent, model,
folder and 15-minute slot, are stored with the offset reached, so a later run reads only
appended bytes. Responses that several files repeat (same key) are counted once, by the
sources' rules. Other apps are counted from `read()`'s usage events, one top-level session
at a time. Costs come from `pricing`; a model without a price makes its row's cost None.
This module knows no app by name.
"""

from __future__ import annotations

import hashlib
import heapq
import io
import math
import os
import time
from collections import Counter
from collections.abc import (
    Callable,
    Collection,
    ItemsView,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
)
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, timedelta, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from . import files, folders, freshness, pathnames, sources, usage_listing, usage_marks
from .diagnostics import BEFORE_1970, FUTURE, Diagnostics, read_failed, restored
from .index import FUTURE_SLACK, Index, connect, quiet_on_interrupt, signals_held
from .indexfile import rehomed
from .indexscan import RefreshReport, as_counted, hiding_problem
from .pricing import Catalogue, plain_name
from .selection import folders_of
from .sources import Home, Source
from .sources.base import FoldedTooSoon, UsageRecord, UsageScan
from .zones import parse_tz as parse_tz  # usage.parse_tz, as it always was

if TYPE_CHECKING:
    from . import audit

SLOT = 900  # seconds: every real time zone's offset is a multiple of 15 minutes
NO_SLOT = -1  # a response without a time
PARALLEL_BYTES = 32 * 1024 * 1024  # read with a second process above this much
BATCH_FILES = 64  # the most files a worker reads before sending back their results
SAVE_BYTES = 1024 * 1024  # files' sums are saved to the index this much at a time
REPORTS = ("daily", "weekly", "monthly", "session", "project", "model", "app")
TOKENS = (
    "input_tokens",
    "output_tokens",
    "cache_write_tokens",
    "cache_read_tokens",
    "reasoning_tokens",
)

# One bucket: [session, agent, model, cwd, slot, input, output, cache_read, cache_write,
#              reasoning, cost (None: something unpriced), responses, of the priced cost the
#              apps' own figures, the cost of what has a price (even beside the unpriced),
#              credits (the bucket's app's own unit)]
Bucket = list[Any]
Progress = Callable[[int, int], None]
_encode = msgspec.msgpack.Encoder().encode
_decode = msgspec.msgpack.Decoder().decode


def _slot(time: float | None) -> int:
    return int(time // SLOT) if time is not None else NO_SLOT


def _bucket_key(record: UsageRecord) -> tuple[Any, ...]:
    model = record.usage.model
    return (
        record.session_id,
        record.agent_id,
        model if isinstance(model, str) else None,  # a reader let an odd value by
        record.cwd,
        _slot(record.time),
    )


def _add(
    buckets: dict[tuple[Any, ...], Bucket],
    record: UsageRecord,
    priced: tuple[float | None, float],
    sign: int = 1,
) -> None:
    cost, own = priced
    key = _bucket_key(record)
    bucket = buckets.get(key)
    if bucket is None:
        bucket = buckets[key] = [*key, 0, 0, 0, 0, 0, 0.0, 0, 0.0, 0.0, 0.0]
    u = record.usage.plausible()
    bucket[5] += sign * u.input_tokens
    bucket[6] += sign * u.output_tokens
    bucket[7] += sign * u.cache_read_tokens
    bucket[8] += sign * u.cache_write_tokens
    bucket[9] += sign * u.reasoning_tokens
    if u.credits:
        bucket[14] += sign * u.credits
    if cost is not None:
        bucket[12] += sign * own
        bucket[13] += sign * cost
    if cost is None or bucket[10] is None:
        bucket[10] = None
    else:
        bucket[10] += sign * cost
    bucket[11] += sign


def _priced(catalogue: Catalogue, record: UsageRecord) -> tuple[float | None, float]:
    """A record's cost (None: no price), and how much of it is the app's own figure.

    The one rule: an app's cost that stands for tokens too rough to price
    (`app_cost_usd`) is the cost; else the catalogue's price; else, where the catalogue
    has none, the cost the app recorded (`recorded_cost_usd`) if it is above 0 (apps
    write 0 when they do not know a price: never taken as free). The catalogue's price is
    times the record's `price_factor` (what the provider bills on top of it), plus its
    `fee_usd` (what the provider bills per call beside the tokens: web searches)."""
    if record.app_cost_usd is not None:
        return record.app_cost_usd, record.app_cost_usd
    cost = catalogue.cost(
        record.usage.plausible(),
        record.time,
        speed=record.speed,
        cache_write_1h=record.cache_write_1h,
        provider=record.provider,
        summed=record.summed,
    )
    if cost is None and record.recorded_cost_usd:
        return record.recorded_cost_usd, record.recorded_cost_usd
    if cost is not None and record.price_factor != 1.0:
        cost *= record.price_factor
    if cost is not None and record.fee_usd:
        cost += record.fee_usd
    return cost, 0.0


def _cost(catalogue: Catalogue, record: UsageRecord) -> float | None:
    return _priced(catalogue, record)[0]


def _version(catalogue: Catalogue) -> str:
    """What a cached sum depends on besides its file: the prices, the bucket's shape, and
    which session and agent a source's rules count a response in (`chains`: Claude Code's
    side chains and file names)."""
    return f"{catalogue.version}+own+provider+factor+fee+credits+chains"


# --- reading one file (in a worker process or here) ------------------------------------------


@dataclass(slots=True)
class _Job:
    app: str
    path: str
    signature: str
    offset: int = 0
    state: dict[str, Any] | None = None
    buckets: list[Bucket] | None = None  # what the file held up to `offset`
    keys: bytes = b""


@dataclass(slots=True)
class _Done:
    app: str
    path: str
    signature: str
    start: int  # where the read began: past 0, what came before was read before
    offset: int
    state: dict[str, Any]
    buckets: list[Bucket]
    keys: bytes
    diagnostics: Diagnostics


class _Earlier:
    """The responses a file held before the offset, by hashes of their keys and message ids:
    whether an appended record repeats one (a collision only has the file read again whole)."""

    def __init__(self, keys: bytes) -> None:
        self.keys: set[int] = set()
        self.messages: dict[int, bool] = {}  # message id -> seen on a side chain
        for key, message, side in _key_items(keys):
            self.keys.add(key)
            self.messages[message] = self.messages.get(message, False) or side

    def repeated(self, record: UsageRecord) -> bool:
        if hash((record.key or "").encode()) in self.keys:
            return True
        alias = hash((record.alias or "").encode())
        return alias in self.messages and (record.sidechain or self.messages[alias])


class _Sums:
    """One file's buckets and the keys of its responses, counted record by record in the
    hook's order (the order of a float sum decides its last digits)."""

    def __init__(self, job: _Job, catalogue: Catalogue) -> None:
        self.catalogue = catalogue
        self.buckets: dict[tuple[Any, ...], Bucket] = {
            tuple(b[:5]): list(b) for b in job.buckets or ()
        }
        self.before = job.keys if job.offset else b""
        self.earlier: _Earlier | None = None  # built at the first keyed record
        self.repeats = False  # a record repeats one from before the offset
        # "key\tside chain" lines, written as records come: no list of strings is held, and
        # getvalue() hands the buffer over without a copy
        self.keys = io.BytesIO(job.keys)
        self.keys.seek(0, io.SEEK_END)

    def add(self, record: UsageRecord) -> None:
        replaced = record.replaces
        if replaced is not None:
            _add(self.buckets, replaced, _priced(self.catalogue, replaced), -1)
        _add(self.buckets, record, _priced(self.catalogue, record))
        if not record.key or replaced is not None:
            return
        if self.before and not self.repeats:
            if self.earlier is None:
                self.earlier = _Earlier(self.before)
            self.repeats = self.earlier.repeated(record)
        if self.keys.tell():
            self.keys.write(b"\n")
        self.keys.write(f"{record.key}\t{1 if record.sidechain else 0}".encode())


def _scan(job: _Job) -> _Done:
    source = sources.get(job.app)
    catalogue = Catalogue.load()
    diagnostics = Diagnostics()
    sums = _Sums(job, catalogue)

    def read(fold: Callable[[UsageRecord], None] | None) -> UsageScan:
        return source.usage_records(  # type: ignore[no-any-return, attr-defined]
            Path(job.path), diagnostics, offset=job.offset, state=job.state, fold=fold
        )

    try:
        try:
            scan = read(sums.add)
        except FoldedTooSoon:
            # a line changed a response already summed: sum again, every record listed
            diagnostics, sums = Diagnostics(), _Sums(job, catalogue)
            scan = read(None)
    except Exception as error:  # one broken file never hides the rest
        if os.environ.get("SESSDEX_DEBUG"):
            raise
        diagnostics.problem(read_failed(job.app, job.path, error, "could not count"))
        scan = UsageScan([], job.offset, job.state or {})
        sums = _Sums(job, catalogue)  # what was folded before the failure is dropped
    for record in scan.records:
        sums.add(record)
    if job.offset and sums.repeats:
        # an appended line repeats a response from before the offset (a side chain replaying
        # an old message): only a whole read merges it right
        return _scan(_Job(job.app, job.path, job.signature))
    _note_unfinished(job.path, scan.offset, _size(job.path), diagnostics)
    if not job.offset and not sums.buckets:  # a file re-saved as UTF-16: said so
        diagnostics = files.said_wide(job.path, diagnostics)
    state = dict(scan.state)
    state[_BEFORE] = _bytes_before(job.path, scan.offset).hex()
    return _Done(
        job.app, job.path, job.signature, job.offset, scan.offset, state,
        [b for b in sums.buckets.values() if b[11]], sums.keys.getvalue(), diagnostics,
    )  # fmt: skip


# Saved with a file's sums: the bytes just before the offset read to. A file that grew
# is read on from there only while they are unchanged: one rewritten in place (same
# inode) and longer than before is read again whole, not taken for an append.
_BEFORE = "sessdex:before"
_BEFORE_BYTES = 64
# Saved with a session's sums (an app without the usage hook): every file its read
# opened, as `freshness.side` saw each, joined by `freshness.SIDE`
_READ = "sessdex:read"


# the most bytes past a read's offset looked at for a last line still being written
UNFINISHED_CAP = 1024 * 1024


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def _note_unfinished(
    path: str, offset: int, size: int, diagnostics: Diagnostics
) -> None:
    """A file counted up to `offset`, whose rest is one line with no newline yet that
    does not parse (the app still writing it, or a crash cut it off): noted as
    unfinished, as a reader notes it (it is counted once it is whole)."""
    if offset >= size or size - offset > UNFINISHED_CAP or path.endswith(".zst"):
        return
    try:
        with files.open_regular(path) as stream:
            stream.seek(offset)
            rest = stream.read(size - offset)
    except OSError:
        return
    if b"\n" not in rest:
        line = files.Line(0, offset, rest, offset + len(rest), False)
        files.parse_json(line, diagnostics, path)


def _bytes_before(path: str, offset: int) -> bytes:
    """The up to _BEFORE_BYTES bytes before `offset` in the file (b"" if unreadable)."""
    if offset <= 0:  # nothing before: an empty file is not opened a second time
        return b""
    start = max(0, offset - _BEFORE_BYTES)
    try:
        with files.open_regular(path) as stream:
            stream.seek(start)
            return stream.read(offset - start)
    except OSError:
        return b""


def _scan_batch(jobs: list[_Job]) -> list[_Done]:
    return [_scan(job) for job in jobs]


def _run(
    jobs: list[_Job],
    sizes: dict[str, int],
    progress: Progress | None,
    forking: Callable[[bool], None] = lambda forked: None,
) -> Iterator[_Done]:
    """Read the files, on every core when there is enough to read (largest first,
    balanced), each file's result handed on as it comes (none are all held at once).
    `forking(False)` just before the workers start, `forking(True)` once they have."""
    total = sum(sizes.get(j.path, 0) - j.offset for j in jobs)
    workers = min(os.cpu_count() or 1, 8)
    if workers < 2 or total < PARALLEL_BYTES or len(jobs) < 2 or os.name != "posix":
        for n, job in enumerate(jobs, 1):
            yield _scan(job)
            if progress is not None:
                progress(n, len(jobs))
        return
    import multiprocessing

    Catalogue.load().read()  # read once, shared with the forked workers
    # at most BATCH_FILES files a batch: a batch's results are sent back, and held, whole
    count = max(workers * 4, -(-len(jobs) // BATCH_FILES))
    bins: list[list[_Job]] = [[] for _ in range(count)]
    lightest = [(0, n) for n in range(count)]  # (weight, bin), a heap
    for job in sorted(jobs, key=lambda j: -(sizes.get(j.path, 0) - j.offset)):
        weight, n = heapq.heappop(lightest)
        bins[n].append(job)
        weight += sizes.get(job.path, 0) - job.offset + 4096
        heapq.heappush(lightest, (weight, n))
    count = 0
    context = multiprocessing.get_context("fork")
    forking(False)
    try:
        with signals_held():
            pool = context.Pool(
                workers, initializer=quiet_on_interrupt, initargs=(os.getpid(),)
            )
    finally:
        forking(True)
    with pool:
        for batch in pool.imap_unordered(_scan_batch, [b for b in bins if b]):
            count += len(batch)
            yield from batch
            if progress is not None:
                progress(count, len(jobs))
        # all back: each worker is told to end as it asks for more, where the pool's
        # exit would terminate it (a signal, which one still starting up could miss)
        pool.close()
        pool.join()


# --- collecting every bucket -----------------------------------------------------------------


@dataclass(slots=True)
class Collected:
    """Every bucket of the selected apps, and what could not be read."""

    buckets: list[tuple[str, Bucket]] = field(default_factory=list)  # (app, bucket)
    diagnostics: dict[str, Diagnostics] = field(default_factory=dict)
    files: dict[str, list[str]] = field(
        default_factory=dict
    )  # app -> files read by the hook
    read_bytes: int = 0
    catalogue: str = ""
    # (app, session id) -> the session it is a sub-agent of, at the top: its buckets
    # count there (`_lift`)
    lifted: dict[tuple[str, str], str] = field(default_factory=dict)
    # (app, top-level session id) -> its folder, as `list` shows it (`in_session_folders`)
    folders: dict[tuple[str, str], str] = field(default_factory=dict)
    # the apps whose sums came through an index refresh this run: their folders are as
    # that refresh left them, with no stat of their files again
    refreshed: set[str] = field(default_factory=set)
    # app -> the broken links that stand where its store or files would, nothing of it
    # found: what hides its usage (`folders.broken_link_words` of each), as `list` says
    hiding_links: dict[str, list[str]] = field(default_factory=dict)
    # a broken link's words -> the apps counted through their own listing it hides: one
    # the index's refresh says too (~/.config) is said once, for all (`_said_once`)
    link_apps: dict[str, list[str]] = field(default_factory=dict)


def _signature(st: os.stat_result) -> str:
    return f"{st.st_size}:{freshness.changed_ns(st)}:{st.st_ino}"


def _settled(st: os.stat_result, since_ns: int) -> str:
    """`_signature` as the sums are kept under it: of a file changed in its clock's tick
    before `since_ns` (the reads began), one that never matches (`freshness.settled`)."""
    look = (st.st_size, freshness.changed_ns(st), st.st_ino, "")
    size, changed, inode, _ = freshness.settled(look, since_ns)
    return f"{size}:{changed}:{inode}"


def _appended(old: str, st: os.stat_result, path: str) -> bool:
    """The file only grew since `old` (same inode, larger): read from the saved offset."""
    parts = old.split(":")
    if len(parts) < 3 or not parts[0].isdigit():
        return False
    size, inode = parts[0], parts[2]
    return (
        not path.endswith(".zst") and inode == str(st.st_ino) and st.st_size > int(size)
    )


def collect(
    home: Home, apps: Sequence[str] = (), progress: Progress | None = None
) -> Collected:
    """Bring every selected app's usage sums up to date in the index, and return them."""
    for name in apps:  # an unknown app fails before the index is opened
        if name not in sources.BUILTIN:
            sources.get(name)
    catalogue = Catalogue.load()
    out = Collected(catalogue=catalogue.label)
    index = Index(home)
    try:
        # apps the index vouches hold nothing are not even imported (a warm run's time),
        # nor are those that count their own files while their kept listing holds
        named = apps or sources.BUILTIN
        hooked = [name for name in named if name in sources.USAGE_HOOKED]
        idle = index.idle([n for n in named if n not in sources.USAGE_HOOKED])
        if hooked:
            # the files by the path the index reads the home by (a link's, or the real)
            _collect_files(index, index.home, hooked, catalogue, out, progress)
        others = [
            sources.get(name)
            for name in named
            if name not in idle and name not in sources.USAGE_HOOKED
        ]
        if others:
            _collect_sessions(index, others, catalogue, out)
    finally:
        index.close()
    _rehome(out, str(index.home.path), str(index.given.path))
    _lift(out)
    return out


def _rehome(out: Collected, recorded: str, given: str) -> None:
    """Each sum's folder under the home as the user gave it, where the index reads that
    home by another path to it (a link), as `list` shows it (`Index.shown`): the same
    folder is one `project` row, and `--here`, whatever spelling of the home is given."""
    if recorded == given:
        return
    out.buckets = [
        (app, [*b[:3], rehomed(b[3], recorded, given), *b[4:]] if b[3] else b)
        for app, b in out.buckets
    ]


def _lift(out: Collected) -> None:
    """A sub-agent that began one of its own: the second's responses are written under the
    first's id as their session (a file knows only its own parent). A session id that is
    another session's agent is that session's, up to the top (a loop ends where it began):
    its buckets are moved there, and `out.lifted` says so for `--explain`."""
    parents = {(app, b[1]): b[0] for app, b in out.buckets if b[1] and b[1] != b[0]}
    if not parents:
        return
    for app, session in {(app, b[0]) for app, b in out.buckets}:
        top, steps = session, 0
        while (app, top) in parents and steps < 64:
            top, steps = parents[app, top], steps + 1
        if top != session:
            out.lifted[app, session] = top
    if out.lifted:
        out.buckets = [
            (app, [out.lifted.get((app, b[0]), b[0]), *b[1:]]) for app, b in out.buckets
        ]


def counted_folder(cwd: str | None, folder: str | None) -> str | None:
    """The folder a response counts under: its session's `folder` where it ran there or
    below (a `cd` into a subfolder is the same project) or named none, its own where it
    ran outside (the session moved: a Codex thread resumed in another project)."""
    if folder and (not cwd or pathnames.under(cwd, folder)):
        return folder
    return cwd


def in_session_folders(home: Home, out: Collected) -> None:
    """Each bucket's folder as `counted_folder` counts it, its session's folder taken
    from the index (brought up to date first: usage reads some apps' files without it),
    so that `usage project` and `--here` name the folder `list` names. The stored sums
    keep each response's own folder: a session's folder is known only once all its files
    are listed (a sub-agent's file names where it ran, not where its lead began)."""
    pairs = {(app, b[0]) for app, b in out.buckets}
    if not pairs:
        return
    # those `collect` refreshed are as their sums: a look at their files again would
    # stat every one a second time, and name a folder newer than the sums it keys
    apps = sorted({app for app, _ in pairs} - out.refreshed)
    index = Index(home)
    try:
        # an app whose files are all as the index holds them is not even loaded
        unchanged = index.unchanged(apps) if apps else set()  # a stat of each file held
        changed = [app for app in apps if app not in unchanged]
        if changed:
            index.refresh(sources.all_sources(changed))
        out.folders = index.folders(pairs)
    finally:
        index.close()
    folders = out.folders
    out.buckets = [
        (app, [*b[:3], counted_folder(b[3], folders.get((app, b[0]))), *b[4:]])
        for app, b in out.buckets
    ]


def _said_before(index: Index, app: str) -> dict[str, Diagnostics]:
    """What the reads of the app's files (or sessions) met, by file (or `app:id`), as
    the last run kept it (`_keep_said`): a warm run that reads one no more says it too."""
    stored = index.usage_meta(f"said:{app}")
    try:
        value = _decode(stored) if stored else {}
    except msgspec.DecodeError:
        return {}
    found = {}
    for key, plain in value.items() if isinstance(value, dict) else ():
        said = restored(plain) if isinstance(plain, list) else None
        if said is not None:
            found[key] = said
    return found


def _keep_said(
    index: Index, app: str, said: dict[str, Diagnostics], meta: list[tuple[str, bytes]]
) -> None:
    """`said` (file or `app:id` -> what its read met) to store, in `meta`, where it is
    not what is stored: a read that broke off is read again, and says so then."""
    kept = _encode(
        {key: d.plain() for key, d in sorted(said.items()) if not d.problems}
    )
    if kept != (index.usage_meta(f"said:{app}") or _encode({})):
        meta.append((f"said:{app}", kept))


def _kept_of(met: Diagnostics) -> bool:
    """Whether a read met anything the next run says again without reading the file."""
    return bool(
        met.skipped or met.damaged or met.details or met.problems or met.unknown
    )


def _without_unfinished(diagnostics: Diagnostics) -> Diagnostics:
    """A copy without the unfinished last line, which each run finds anew."""
    copy = Diagnostics()
    copy.update(diagnostics)
    copy.unfinished = {}
    return copy


def _collect_files(
    index: Index,
    home: Home,
    names: list[str],
    catalogue: Catalogue,
    out: Collected,
    progress: Progress | None,
) -> None:
    since_ns = time.time_ns()  # before any stat: see `_settled`
    # without every file's reading state and keys: only a file read on needs its own
    cached = index.usage_files(names, whole=False)
    jobs: list[_Job] = []
    sizes: dict[str, int] = {}
    seen: set[str] = set()
    # every file in the order found, and the stored sums of those unchanged: the sums are
    # added up in this order, however the reads come back (the order of a float sum
    # decides its last digit, which a cold and a warm run then agree on)
    listed: list[tuple[str, str]] = []
    kept: dict[str, bytes] = {}
    fingerprint: dict[str, list[str]] = {}
    meta: list[tuple[str, bytes]] = []
    # app -> file -> what its read met: as the last run kept it, and as this one keeps it
    met_before: dict[str, dict[str, Diagnostics]] = {}
    met_now: dict[str, dict[str, Diagnostics]] = {}
    for app in names:
        met_before[app], met_now[app] = _said_before(index, app), {}
        # the listing kept from the last run while it holds: the app's source is loaded
        # only to list again, or to read a file that changed
        stored = index.usage_meta(usage_listing.meta_name(app))
        found = usage_listing.kept(stored, home)
        if found is None:
            listing = usage_listing.listed(sources.get(app), home)
            if listing.kept != (stored or b""):
                meta.append((usage_listing.meta_name(app), listing.kept))
            if listing.unusable is not None:  # said, the app left out (as `list` does)
                said = out.diagnostics.setdefault(app, Diagnostics())
                said.problem(f"{app}: {listing.unusable}")
                continue
            found, passed = listing.paths, listing.passed_over or []
            reads = listing.reads
        else:  # a kept listing passed over nothing
            passed, reads = [], _every
        paths = out.files.setdefault(app, [])
        for name in found:
            try:
                st = os.stat(name)
            except OSError:
                continue
            seen.add(name)
            paths.append(name)
            listed.append((app, name))
            signature = f"{_signature(st)}:{_version(catalogue)}"
            fingerprint.setdefault(app, []).append(f"{name}\0{signature}")
            row = cached.get(name)
            sizes[name] = st.st_size
            if row is not None and row[1] == signature:
                kept[name] = row[4]
                # unchanged since: what its read met is said again, and a last line
                # unfinished then (-v)
                told = out.diagnostics.setdefault(app, Diagnostics())
                if (earlier := met_before[app].get(name)) is not None:
                    told.update(earlier)
                    met_now[app][name] = earlier
                _note_unfinished(name, int(row[2]), st.st_size, told)
                continue
            job = _Job(app, name, f"{_settled(st, since_ns)}:{_version(catalogue)}")
            if (
                row is not None
                and str(row[1]).endswith(f":{_version(catalogue)}")
                and _appended(str(row[1]), st, name)
            ):
                stored = index.usage_blob(name, "state")
                state = _decode(stored) if stored else None
                before = state.pop(_BEFORE, None) if isinstance(state, dict) else None
                if before == _bytes_before(name, int(row[2])).hex():
                    job.offset = int(row[2])
                    job.state = state
                    job.buckets = _decode(row[4])
                    job.keys = index.usage_blob(name, "keys") or b""
            jobs.append(job)
        out.diagnostics.setdefault(app, Diagnostics()).names_passed_over(app, passed)
        if not found:
            _links_hide(app, passed, out, reads)
    out.read_bytes = sum(sizes[j.path] - j.offset for j in jobs)
    # each file's sums saved as they come, a batch at a time: its reading state and keys
    # are not held past its batch (the keys are read back from the index below)
    rows: list[tuple[str, str, str, int, bytes, bytes, bytes]] = []
    held = 0
    fresh: dict[str, list[Bucket]] = {}  # path -> the sums just read
    # a stand-in for an index that could not be written (a full disk) is not reopened
    reopen = index.stood_in is None

    def forking(forked: bool) -> None:
        if not reopen:
            return
        if forked:
            index.db = connect(index.path)
        else:
            index.db.close()  # no SQLite connection is carried across fork

    for result in _run(jobs, sizes, progress, forking):
        told = out.diagnostics.setdefault(result.app, Diagnostics())
        said = result.diagnostics
        earlier = met_before[result.app].get(result.path) if result.start else None
        if earlier is not None:  # read on from where it was read to: met before that
            told.update(earlier)
        told.update(said)
        # what to keep of the read, copied only where there is any (most files: none)
        if earlier is not None or _kept_of(said):
            met = _without_unfinished(said)
            if earlier is not None:
                met.update(earlier)
            if _kept_of(met):
                met_now[result.app][result.path] = met
        saved = (
            result.path,
            result.app,
            # a read that broke off is not the file's sums: read it again next time
            "" if result.diagnostics.problems else result.signature,
            result.offset,
            _encode(result.state),
            _encode(result.buckets),
            result.keys,
        )
        rows.append(saved)
        held += len(saved[4]) + len(saved[5]) + len(saved[6])
        fresh[result.path] = result.buckets
        if held >= SAVE_BYTES:
            index.save_usage(rows, [])
            rows, held = [], 0
    index.save_usage(rows, [p for p in cached if p not in seen])
    del rows, jobs
    for app, name in listed:
        blob = kept.pop(name, None)
        sums = fresh.pop(name, None) if blob is None else _decode(blob)
        out.buckets.extend((app, b) for b in sums or ())
    # responses that several files repeat: recomputed only when a file changed
    for app in names:
        name = f"corrections:{app}"
        digest = hashlib.sha256(
            "\n".join(sorted(fingerprint.get(app, []))).encode()
        ).hexdigest()
        stored = index.usage_meta(name)
        value = _decode(stored) if stored else None
        if value is not None and value[0] == digest:
            losers = value[1]
        else:
            keys = _StoredKeys(index, app, out.files.get(app, []))
            losers = _cross_file(sources.get(app), keys, catalogue)
            meta.append((name, _encode([digest, losers])))
        out.buckets.extend((app, b) for b in losers)
        _keep_said(index, app, met_now[app], meta)
    index.save_usage([], [], meta)


class _StoredKeys(Mapping[str, bytes]):
    """path -> the keys blob stored for it, read from the index when asked for: the
    files' keys are never all held at once."""

    def __init__(self, index: Index, app: str, paths: Collection[str]) -> None:
        self.index = index
        self.app = app
        self.paths = set(paths)

    def __getitem__(self, path: str) -> bytes:
        if path not in self.paths:
            raise KeyError(path)
        return self.index.usage_blob(path, "keys") or b""

    def __iter__(self) -> Iterator[str]:
        return iter(self.paths)

    def __len__(self) -> int:
        return len(self.paths)

    def items(self) -> ItemsView[str, bytes]:
        return _StoredItems(self)


class _StoredItems(ItemsView[str, bytes]):
    """(path, keys blob) of every file that stored keys, in one pass over the index, in
    the index's order: one query a file cost a cold run over 20,000 files a second."""

    _mapping: _StoredKeys

    def __iter__(self) -> Iterator[tuple[str, bytes]]:
        stored = self._mapping
        for path, blob in stored.index.each_usage_keys(stored.app):
            if path in stored.paths:
                yield path, blob


def _key_items(keys: bytes) -> Iterator[tuple[int, int, bool]]:
    """(hash of the key, hash of its message id, side chain) per line of a `keys` blob,
    split a piece of whole lines at a time: a big file's keys are never all held as strings
    at once, and a split costs less than finding each line's ends in Python."""
    start = 0
    while start < len(keys):
        end = keys.find(b"\n", start + _KEYS_PIECE)
        if end < 0:
            end = len(keys)
        for line in keys[start:end].split(b"\n"):
            key, tab, side = line.rpartition(b"\t")
            if not tab:
                key, side = line, b""
            if key:
                yield hash(key), hash(key.partition(b":")[0]), side == b"1"
        start = end + 1


_KEYS_PIECE = 1 << 20  # bytes of a keys blob split at once


def _cross_file(
    source: Source, keys: Mapping[str, bytes], catalogue: Catalogue
) -> list[Bucket]:
    """Negative buckets that take out each response a second file repeats."""
    buckets: dict[tuple[Any, ...], Bucket] = {}
    for _, record, _ in cross_file_losers(source, keys):
        _add(buckets, record, _priced(catalogue, record), -1)
    return list(buckets.values())


def cross_file_losers(
    source: Source, keys: Mapping[str, bytes]
) -> list[tuple[str, UsageRecord, str]]:
    """(path, record, winner's path) for each response that a second file repeats and
    counts instead (the rule: the original beats a copy a fork made of it, a lead-agent
    copy beats a side chain's, then the larger count, then the first file in path order);
    `keys`: each file's stored keys blob."""
    # Which files share a key is found by hashes: a collision only makes two files read
    # again below, where whole keys decide. Keys that repeat share their message id, so
    # only the message ids of every key are held, then the keys of those in two files.
    # Both passes take the files in any order (`keys.items()`: the index's own, one query
    # for all): what they find are sets, the same whichever file comes first.
    paths = sorted(keys)
    if len(paths) < 2:
        return []
    also_with = _in_two_files(blob for _, blob in keys.items())
    if not also_with:
        return []
    number = {path: n for n, path in enumerate(paths)}
    owner: dict[int, int] = {}  # key -> the first file met holding it
    holders: dict[int, set[int]] = {}  # message id -> every file holding it
    sidechains: list[tuple[int, int]] = []  # (message id, file) of side-chain lines
    shared_files: set[int] = set()
    for path, blob in keys.items():
        n = number[path]
        for key, message, side in _key_items(blob):
            if message not in also_with:
                continue
            first = owner.setdefault(key, n)
            if first != n:
                shared_files.update((first, n))
            holders.setdefault(message, set()).add(n)
            if side:
                sidechains.append((message, n))
    for message, n in sidechains:
        if holders[message] - {n}:
            shared_files.update(holders[message])
    shared = {paths[n] for n in shared_files}
    if not shared:
        return []
    # read the files involved again, whole, and settle each repeated response
    records: list[tuple[str, UsageRecord]] = []
    for path in sorted(shared):
        records.extend((path, r) for r in _shared_records(source, path, also_with))
    return _losers(records)


_PARTS = 16  # the message ids are sorted a sixteenth at a time


def _in_two_files(blobs: Iterable[bytes]) -> set[int]:
    """The hashed message ids found in two or more of the keys blobs. Each file's own are
    kept as 8 bytes each in arrays (a dict of them all took ~90 bytes a message: 25 MB at
    10,000 sessions) and one part at a time is sorted: an id in two files is there twice.
    A file's own repeats are taken out the same way, a part at a time (a set of a big
    file's ids took ~100 bytes a response: 38 MB for the 400,000 of a 2 GB session)."""
    from array import array
    from itertools import pairwise

    parts = [array("q") for _ in range(_PARTS)]
    for blob in blobs:
        own = [array("q") for _ in range(_PARTS)]
        for _, message, _ in _key_items(blob):
            own[message % _PARTS].append(message)
        for n, part in enumerate(parts):
            part.extend(_once(own[n]))
            own[n] = array("q")  # let go of each part once it is taken
    found: set[int] = set()
    while parts:
        ordered = sorted(parts.pop())
        found.update(a for a, b in pairwise(ordered) if a == b)
    return found


def _once(messages: Iterable[int]) -> Iterator[int]:
    """Each of `messages` once (sorted, so a repeat is beside the first)."""
    from itertools import groupby

    return (message for message, _ in groupby(sorted(messages)))


def _shared_records(
    source: Source, path: str, messages: Collection[int]
) -> list[UsageRecord]:
    """The records of a file whose message id another file holds too (`messages`: hashed as
    `_key_items` does): the others cannot be repeated elsewhere, and are not kept."""
    kept: list[UsageRecord] = []

    def keep(record: UsageRecord) -> None:
        key = record.key
        # a key with a newline is cut in two in a keys blob: kept, as it cannot be looked up
        if key and ("\n" in key or hash(key.encode().partition(b":")[0]) in messages):
            kept.append(record)

    def read(fold: Callable[[UsageRecord], None] | None) -> UsageScan:
        return source.usage_records(Path(path), Diagnostics(), fold=fold)  # type: ignore[no-any-return, attr-defined]

    try:
        scan = read(keep)
    except FoldedTooSoon:
        kept.clear()
        scan = read(None)
    for record in scan.records:
        keep(record)
    return kept


def _losers(
    records: list[tuple[str, UsageRecord]],
) -> list[tuple[str, UsageRecord, str]]:
    """(path, record, winner's path) for every record that another file's copy beats."""
    groups: dict[str, list[tuple[str, UsageRecord]]] = {}
    for path, record in records:
        groups.setdefault(record.alias or record.key or "", []).append((path, record))
    out = []
    for members in groups.values():
        if len({p for p, _ in members}) < 2:
            continue
        best_path, best = members[0]
        for path, record in members[1:]:
            if best.copied != record.copied:
                better = best.copied
            elif best.sidechain != record.sidechain:
                better = best.sidechain
            else:
                better = record.usage.total > best.usage.total
            if better:
                best_path, best = path, record
        for path, record in members:
            if record is not best:
                if record.sidechain == best.sidechain and record.key != best.key:
                    continue  # two lead-agent responses that share a message id are two responses
                out.append((path, record, best_path))
    return out


def _every(path: str) -> bool:
    """Every path (`usage_listing.Listing.reads` of a source that names none)."""
    return True


def _links_hide(
    app: str,
    passed: list[tuple[str, str]],
    out: Collected,
    reads: Callable[[str], bool],
) -> None:
    """Say the broken links a listing that found nothing passed over where the app
    reads its files (`reads`), as `list` says them (indexscan's `_links_hide`, the same
    `folders.hiding_links`): they stand where the app's files would."""
    said = folders.hiding_links(passed, reads)
    if not said:
        return
    out.hiding_links[app] = said
    diagnostics = out.diagnostics.setdefault(app, Diagnostics())
    for words in said:
        out.link_apps.setdefault(words, []).append(app)
        diagnostics.problem(hiding_problem([app], words, counted=True))


def _said_once(report: RefreshReport, out: Collected) -> None:
    """A broken link the refresh said (a folder of many apps', ~/.config) that hides an
    app counted through its own listing too: one problem naming them all, as `list`
    says it, not a second under that app's name."""
    for words, own in out.link_apps.items():
        if (apps := report.link_apps.get(words)) is None:
            continue
        problems = report.diagnostics.setdefault(apps[0], Diagnostics()).problems
        said = hiding_problem(apps, words, counted=True)
        if said not in problems:
            continue
        problems[problems.index(said)] = hiding_problem(
            [*own, *apps], words, counted=True
        )
        for app in own:
            mine = out.diagnostics[app].problems
            if (alone := hiding_problem([app], words, counted=True)) in mine:
                mine.remove(alone)


def _collect_sessions(
    index: Index, others: list[Source], catalogue: Catalogue, out: Collected
) -> None:
    """Apps without the hook: their readers' usage events, per top-level session, cached."""
    report = index.refresh(others)
    as_counted(report)  # its warnings say what a list does not list
    _said_once(report, out)
    names = [s.NAME for s in others]
    out.refreshed.update(name for name in names if name not in report.failures)
    out.hiding_links.update(report.hiding_links)
    rows = index.rows(apps=names, include_subagents=True, with_state=True)
    ids = {(r.app, r.id) for r in rows}
    decoded = [(row, row.session()) for row in rows]
    tops = _tops(decoded, ids)
    kin = _descendant_states(decoded, tops)
    cached = index.usage_files(names)
    meta: list[tuple[str, bytes]] = []
    # what each database-kept session's usage is read from: a row added with an earlier
    # time than its session's changes nothing its row keeps
    marks = usage_marks.collect(
        index, ((sources.get(row.app), session) for row, session in decoded), meta
    )
    # each session's own file as the refresh left it (not a store's: its rows are the
    # record's and the marks' to tell): a rewrite in place that changes the counts and
    # not the listing (a chat kept as one JSON document, its size kept) changes the sums
    looks = index.file_looks(
        path
        for _, session in decoded
        if isinstance(path := session.path, str) and "#" not in path
    )
    save = []
    seen = set()
    # app -> `app:id` -> what the read of its session met: as the last run kept it, and
    # as this one keeps it
    met_before = {app: _said_before(index, app) for app in names}
    met_now: dict[str, dict[str, Diagnostics]] = {app: {} for app in names}
    # a read may look through its folder for its sub-agents (their first lines, their
    # snapshots): looked through once for all the folder's sessions, not once each
    with folders.one_pass():
        for row, session in decoded:
            if (row.app, row.id) in tops:
                continue  # its events come with its lead's
            path = f"{row.app}:{row.id}"
            seen.add(path)
            # the sums are the parent's read, sub-agents included: any of them changing
            # (a sub-agent spending after its parent's last write) is a change of the sums
            kept_in = [session, *(d[2] for d in kin.get((row.app, row.id), ()))]
            marked = "".join(
                sorted(usage_marks.mark(marks, row.app, s) for s in kept_in)
            )
            files_look = "\0".join(looks.get(str(s.path), "") for s in kept_in)
            signature = hashlib.sha256(
                (row.state or row.record)
                + b"".join(
                    sorted(state for _, state, _ in kin.get((row.app, row.id), ()))
                )
                + _version(catalogue).encode()
                + (b"\0" + marked.encode() if marked else b"")
                + files_look.encode(errors="surrogateescape")
            ).hexdigest()[:32]
            hit = cached.get(path)
            if hit is not None and hit[1] == signature and _read_files_hold(hit[3]):
                out.buckets.extend((row.app, b) for b in _decode(hit[4]))
                if (earlier := met_before[row.app].get(path)) is not None:
                    out.diagnostics.setdefault(row.app, Diagnostics()).update(earlier)
                    met_now[row.app][path] = earlier
                continue
            diagnostics = Diagnostics()
            buckets: dict[tuple[Any, ...], Bucket] = {}
            source, descendants = sources.get(row.app), kin.get((row.app, row.id), [])
            # every file the read opens: a file beside the session's own that feeds its sums
            # (an execution log it names) changes them alone, its session's record unchanged
            # (one changed in its clock's tick before the read, or since: read again)
            since_ns = time.time_ns()
            with freshness.openings() as opened:
                for record in lead_records(source, session, descendants, diagnostics):
                    _add(buckets, record, _priced(catalogue, record))
            found = list(buckets.values())
            out.buckets.extend((row.app, b) for b in found)
            out.diagnostics.setdefault(row.app, Diagnostics()).update(diagnostics)
            if diagnostics.skipped or diagnostics.damaged or diagnostics.details:
                met_now[row.app][path] = diagnostics
            if (
                not diagnostics.problems
            ):  # a read that broke off is not kept: read it again
                # the session's own stores (and its sub-agents') are its records' to tell: a
                # database of many sessions changes with each, the record with its own
                own = _own_files([session, *(d[2] for d in descendants)])
                beside = [name for name in opened if name not in own]
                sides = (freshness.side(name) for name in beside)
                state = _encode(
                    {
                        _READ: freshness.SIDE.join(
                            freshness.settled_side(entry, since_ns) for entry in sides
                        )
                    }
                )
                save.append((path, row.app, signature, 0, state, _encode(found), b""))
    # what the refresh's listings met, after the reads: a line the listing of a file and
    # its read both met (a broken head line, a cut document) is one line, counted once;
    # with what the listings of the files it did not parse again met, as a cold run says
    for app, noted in index.noted_diagnostics(names, report.parsed_paths).items():
        report.diagnostics.setdefault(app, Diagnostics()).update(noted)
    for app, diagnostics in report.diagnostics.items():
        # in one order whichever run parsed which file (a warm run's news come first)
        diagnostics.problems.sort()
        diagnostics.details.sort()
        out.diagnostics.setdefault(app, Diagnostics()).update_unseen(diagnostics)
    # a last line unfinished when its file was listed, said again while it is unchanged
    # (a session's sums kept from before are not read again to meet it)
    for app, path, size in index.unfinished_lines(names):
        out.diagnostics.setdefault(app, Diagnostics()).unfinished_line(path, size)
    gone = [p for p in cached if p not in seen]
    for app in names:
        _keep_said(index, app, met_now[app], meta)
    index.save_usage(save, gone, meta)


def _own_files(sessions: Iterable[Any]) -> set[str]:
    """The files the sessions' records stand for: each one's path, or the store its
    path names inside (`<database>#<table>/<id>`), with a database's WAL."""
    own: set[str] = set()
    for session in sessions:
        if session.path:
            for name in (session.path, session.path.rpartition("#")[0]):
                own.update((name, name + "-wal"))
    return own


def _read_files_hold(state: bytes) -> bool:
    """Whether the files a session's stored sums were read from (`_READ` of its stored
    state) all look as they did then: any one changed, the sums are read again."""
    value = _decode(state) if state else None
    noted = value.get(_READ) if isinstance(value, dict) else None
    if not isinstance(noted, str):  # sums stored without their files: read again
        return False
    return not noted or freshness.sides_hold(noted)


def _tops(
    decoded: list[tuple[Any, Any]], ids: set[tuple[str, str]]
) -> dict[tuple[str, str], tuple[tuple[str, str], int]]:
    """(app, id) -> (the top-level session it is read with, how many steps up) of each
    session that is not a lead, from (row, its session) pairs. A loop of parents (a damaged
    file: A's parent is B, B's A) has no lead: its least id leads it, so that each of
    its sessions counts once, whichever run reads them."""
    parents = {
        (row.app, row.id): (row.app, parent)
        for row, session in decoded
        if (parent := session.parent_id)
        and parent != row.id  # one naming itself leads itself
        and (row.app, parent) in ids
    }
    done: dict[tuple[str, str], tuple[tuple[str, str], int]] = {}  # leads included
    for start in parents:
        path: list[tuple[str, str]] = []  # walked up from `start`, not yet placed
        at: dict[tuple[str, str], int] = {}
        key = start
        while key in parents and key not in done and key not in at:
            at[key] = len(path)
            path.append(key)
            key = parents[key]
        if key in at:  # the walk closed a loop: its least member leads it
            loop = path[at[key] :]
            top = min(loop)
            lead = loop.index(top)
            for n, member in enumerate(loop):  # each one's parent is the next
                done[member] = (top, (lead - n) % len(loop))
            path = path[: at[key]]
        elif key not in done:  # no parent among the sessions: a lead
            done[key] = (key, 0)
        top, steps = done[key]
        for member in reversed(path):
            steps += 1
            done[member] = (top, steps)
    tops = {key: up for key, up in done.items() if up[0] != key}
    return tops


def _descendant_states(
    decoded: list[tuple[Any, Any]],
    tops: Mapping[tuple[str, str], tuple[tuple[str, str], int]],
) -> dict[tuple[str, str], list[tuple[int, bytes, Any]]]:
    """(app, top-level session id) -> (depth, state, session) of the sub-agents read with
    it, at any depth (`_tops`), from (row, its session) pairs."""
    found: dict[tuple[str, str], list[tuple[int, bytes, Any]]] = {}
    for row, session in decoded:
        if (up := tops.get((row.app, row.id))) is not None:
            top, steps = up
            found.setdefault(top, []).append((steps, row.state or row.record, session))
    return found


def lead_records(
    source: Source,
    session: Any,
    descendants: list[tuple[int, bytes, Any]],
    diagnostics: Diagnostics,
) -> Iterator[UsageRecord]:
    """The usage records of a top-level session's read, and of each of its
    `descendants` (`_descendant_states`) that read holds no event of (one of Warp's
    orchestrated agents, a conversation of its own), read on its own: its usage is in
    no other read. Those nearer the lead first, whose reads may hold their own. Each is
    the lead session's, by the sub-agent, as a reader holding it would say. An agent
    whose events an earlier read held (the lead itself, where a loop of parents leads
    a sub-agent's read back to it) is not counted again."""
    read: set[str | None] = {session.id}
    yield from _session_records(source, session, diagnostics, read)
    for _, _, child in sorted(descendants, key=lambda found: found[0]):
        if child.id in read:
            continue
        its: set[str | None] = set()
        for record in _session_records(source, child, diagnostics, its):
            agent = record.agent_id
            if agent is not None and agent in read and agent != child.id:
                continue  # counted with the read that held it first
            yield replace(
                record,
                session_id=session.id,
                agent_id=record.agent_id or child.id,
                cwd=record.cwd or session.cwd,
            )
        read.update(its)
        read.add(child.id)


def _session_records(
    source: Source,
    session: Any,
    diagnostics: Diagnostics,
    read: set[str | None] | None = None,
) -> Iterable[UsageRecord]:
    """The usage events of `session`'s read (its sub-agents' the reader holds in it
    included), the agents whose events it held added to `read`."""
    from .reading import read_session

    for event in read_session(source, session, diagnostics):
        if read is not None:
            read.add(event.agent_id)
        if event.kind == "usage" and event.usage is not None:
            tokens = event.usage
            if tokens.model is None and session.model:  # named by its session
                tokens = replace(tokens, model=session.model)
            cost = _app_cost(event.extra.get("app_cost_usd"))
            recorded = _app_cost(event.extra.get("cost_usd")) if cost is None else None
            provider = event.extra.get("provider")
            summed = event.extra.get("summed") is True
            yield UsageRecord(
                event.time.timestamp() if event.time else None,
                tokens,
                session.id,
                event.agent_id,
                session.cwd,
                note=f"{source.NAME} usage event {event.seq}"
                + (", the sum of several responses" if summed else "")
                + (", its cost as the app recorded it" if cost is not None else ""),
                app_cost_usd=cost,
                recorded_cost_usd=recorded or None,
                provider=provider if isinstance(provider, str) and provider else None,
                summed=summed,
            )


def _app_cost(value: object) -> float | None:
    """An app's own cost figure, when it is a plain non-negative amount."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) and value >= 0 else None


# --- reports ---------------------------------------------------------------------------------


def _shown(sums: Sequence[int]) -> tuple[bool, bool, bool]:
    """Whether a row's (app, model) sums make it one of its models, an unpriced one, and
    one with responses billed in credits alone (no cost known)."""
    return sums[0] > 0 or any(sums[1:6]), any(sums[6:10]), any(sums[10:])


@dataclass(slots=True)
class Row:
    key: str
    input_tokens: int = 0
    output_tokens: int = 0
    cache_write_tokens: int = 0
    cache_read_tokens: int = 0
    reasoning_tokens: int = 0
    cost: float = 0.0
    own_cost: float = 0.0  # of `cost`, what the apps recorded themselves
    responses: int = 0
    unpriced: set[str] = field(default_factory=set)
    models: set[str] = field(default_factory=set)
    apps: set[str] = field(default_factory=set)
    # app -> the credits it billed, in its own unit: two apps' are never added together
    credits: dict[str, float] = field(default_factory=dict)
    agents: dict[str, Row] = field(default_factory=dict)
    # the key named as `list --json` names it (`id`, `cwd`, `model`, `app`), and a
    # session's title and folder
    about: dict[str, str | None] = field(default_factory=dict)
    # models whose responses were billed in credits alone: no count to price, no known cost
    uncosted: set[str] = field(default_factory=set)
    # (app, model) -> the sums of its buckets: responses, the five counts, the four counts
    # that have no price, and the responses billed in credits alone. A response a second
    # file counts instead comes as a
    # negative bucket: the model and app are the row's, and the model unpriced, only
    # while those sums are not nothing
    tally: dict[tuple[str, str], list[int]] = field(
        default_factory=dict, repr=False, compare=False
    )
    # the rows `--limit` left out, where this is the one row that sums them (`cut`)
    folded: list[Row] = field(default_factory=list, repr=False, compare=False)
    # the key `--json` gives, where `key` is not one: a session row's `app:id` where
    # another app's session has the same id (scripts key on it)
    label: str | None = None

    def add(self, app: str, b: Bucket) -> None:
        self.input_tokens += b[5]
        self.output_tokens += b[6]
        self.cache_read_tokens += b[7]
        self.cache_write_tokens += b[8]
        self.reasoning_tokens += b[9]
        self.responses += b[11]
        if len(b) > 13:  # what has a price, even in a bucket that is partly unpriced
            self.cost += b[13]
            self.own_cost += b[12]
        elif b[10] is not None:
            self.cost += b[10]
        if len(b) > 14 and b[14]:
            self.credits[app] = self.credits.get(app, 0.0) + b[14]
        # responses billed in credits alone: no count to price, so no known cost (never $0)
        alone = b[11] if len(b) > 14 and b[14] and not any(b[5:9]) else 0
        model = plain_name(b[2]) if b[2] else "(unknown model)"
        tally = self.tally.get((app, model))
        if (
            tally is not None
            and tally[0] > 0
            and b[11] > 0
            and b[10] is not None
            and not alone
        ):
            # the common case, which cannot take a model away nor make one unpriced
            tally[0] += b[11]
            tally[1] += b[5]
            tally[2] += b[6]
            tally[3] += b[7]
            tally[4] += b[8]
            tally[5] += b[9]
            return
        unpriced = b[5:9] if b[10] is None else (0, 0, 0, 0)
        self._take(app, model, [b[11], *b[5:10], *unpriced, alone])

    def _take(self, app: str, model: str, sums: Sequence[int]) -> None:
        key = (app, model)
        tally = self.tally.get(key)
        if tally is None:
            self.tally[key] = list(sums)
        else:
            before = _shown(tally)
            for n, value in enumerate(sums):
                tally[n] += value
            if _shown(tally) == before:
                return
        # a model or app comes or goes (rare): the sets are made again
        self.models = {m for (_, m), t in self.tally.items() if _shown(t)[0]}
        self.apps = {a for (a, _), t in self.tally.items() if _shown(t)[0]}
        self.unpriced = {m for (_, m), t in self.tally.items() if _shown(t)[1]}
        self.uncosted = {m for (_, m), t in self.tally.items() if _shown(t)[2]}

    @property
    def credits_by_app(self) -> dict[str, float]:
        """The credits each app billed (to the millionth, as costs), those of none left out."""
        rounded = (
            (app, round(value, 6)) for app, value in sorted(self.credits.items())
        )
        return {app: value for app, value in rounded if value}

    @property
    def cost_usd(self) -> float | None:
        return None if self.unpriced or self.uncosted else round(self.cost, 6)

    @property
    def priced_cost_usd(self) -> float:
        """The cost of the models that have a price: all of it unless `unpriced` says so."""
        return round(self.cost, 6)

    @property
    def app_recorded_cost_usd(self) -> float:
        """Of `priced_cost_usd`, what is the apps' own figure rather than a price."""
        return round(self.own_cost, 6)

    @property
    def partly_priced(self) -> bool:
        """Some of the row's models have a price and some do not, or some responses of an
        unpriced model have the cost their app recorded."""
        unknown = self.unpriced | self.uncosted
        return bool(unknown) and (bool(self.models - unknown) or self.cost > 0)

    def record(self) -> dict[str, object]:
        out: dict[str, object] = {"key": self.label or self.key, **self.about}
        for name in TOKENS:
            out[name] = getattr(self, name)
        out["cost_usd"] = self.cost_usd
        out["priced_cost_usd"] = self.priced_cost_usd
        out["app_recorded_cost_usd"] = self.app_recorded_cost_usd
        out["unpriced_models"] = sorted(self.unpriced)
        out["models"] = sorted(self.models)
        out["apps"] = sorted(self.apps)
        out["responses"] = self.responses
        # per app, never one sum: each app's credits are a unit of its own
        out["credits"] = self.credits_by_app
        if self.agents:
            out["agents"] = [a.record() for a in self.agents.values()]
        if self.folded:  # not a row of its own: the sum of the rows --limit left out
            out["rest"] = True
            out["rest_rows"] = len(self.folded)
        return out


@dataclass(slots=True)
class Filters:
    since: datetime | None = None
    until: datetime | None = None  # inclusive day: everything before the next midnight
    here: str | Sequence[str] | None = None  # a folder, under each name it goes by
    tz: tzinfo = UTC


def _local_days(slots: Iterable[int], tz: tzinfo) -> dict[int, date | None]:
    return {
        s: (datetime.fromtimestamp(s * SLOT, tz).date() if s != NO_SLOT else None)
        for s in slots
    }


def _key_for(report: str, app: str, b: Bucket, days: dict[int, date | None]) -> str:
    if report in ("daily", "weekly", "monthly"):
        day = days[b[4]]
        if day is None:
            return "(no time)"
        if report == "daily":
            return day.isoformat()
        if report == "weekly":
            return (day - timedelta(days=day.weekday())).isoformat()
        return day.strftime("%Y-%m")
    if report == "session":
        return f"{app}\0{b[0]}"
    if report == "project":  # C:\\… and c:/… (one folder on Windows) are one row
        return pathnames.shown(b[3]) if b[3] else "(unknown folder)"
    if report == "model":
        return plain_name(b[2]) if b[2] else "(unknown model)"
    return app


def _under(cwd: str | None, here: str | Sequence[str]) -> bool:
    if not cwd:
        return False
    return any(pathnames.under(cwd, folder) for folder in folders_of(here))


def latest_slot() -> int:
    """The last slot a response may have and keep its time: a day past the clock, as the
    index allows a session (`FUTURE_SLACK`).

    Decided when a report is made, never when a file's sums are stored: the stored sums keep
    each response's own slot, so a response dated two days ahead by a clock that ran fast
    gets its day once that day comes, though its file is never read again."""
    return int((time.time() + FUTURE_SLACK) // SLOT)


def odd_slot(slot: int, latest: int) -> str | None:
    """Why a response's slot is no time to report it at (None: it is one): past `latest`
    (a year 2099, a value in the wrong unit) or not after 1970 (Go's zero time, the year 1,
    which no zone west of UTC can even show as a day)."""
    if slot == NO_SLOT:
        return None
    return FUTURE if slot > latest else BEFORE_1970 if slot <= 0 else None


def keep(
    buckets: Iterable[tuple[str, Bucket]],
    filters: Filters,
    diagnostics: dict[str, Diagnostics] | None = None,
) -> list[tuple[str, Bucket]]:
    """The buckets the filters select; one with an odd time is taken as one without
    (`NO_SLOT`, the `(no time)` row) and counted into its app's `diagnostics`."""
    low = _slot(filters.since.timestamp()) if filters.since else None
    high = _slot(filters.until.timestamp()) if filters.until else None
    latest = latest_slot()
    kept = []
    # responses with an odd time, net (app, session, why -> responses): a response a
    # resumed session copied is taken back out by a bucket of its own, negative
    undated: Counter[tuple[str, str, str]] = Counter()
    for app, b in buckets:
        slot = b[4]
        if odd := odd_slot(slot, latest):
            slot = NO_SLOT
            b = [*b[:4], NO_SLOT, *b[5:]]
            undated[app, b[0], odd] += b[11] or 1
        if low is not None and (slot == NO_SLOT or slot < low):
            continue
        if high is not None and (slot == NO_SLOT or slot >= high):
            continue
        if filters.here is not None and not _under(b[3], filters.here):
            continue
        kept.append((app, b))
    for (app, session, odd), responses in undated.items():
        if diagnostics is not None and responses > 0:
            found = diagnostics.setdefault(app, Diagnostics())
            found.skip(f"{app} session {session}", 0, odd)
            found.skipped[odd] += responses - 1  # a count per response
    return kept


def report(
    buckets: Iterable[tuple[str, Bucket]], kind: str, tz: tzinfo = UTC
) -> list[Row]:
    """Rows of one report, in key order (sessions: most expensive first)."""
    items = list(buckets)
    days = (
        _local_days({b[4] for _, b in items}, tz)
        if kind in ("daily", "weekly", "monthly")
        else {}
    )
    rows: dict[str, Row] = {}
    for app, b in items:
        key = _key_for(kind, app, b, days)
        row = rows.get(key)
        if row is None:
            row = rows[key] = Row(key.rpartition("\0")[2])
        row.add(app, b)
        if kind == "session":
            agent = b[1] or "lead"
            sub = row.agents.get(agent)
            if sub is None:
                sub = row.agents[agent] = Row(agent)
            sub.add(app, b)
    ordered = [
        r for r in rows.values() if r.responses or r.input_tokens or r.output_tokens
    ]
    for row in ordered:  # the key under the name `list --json` gives the same thing
        if kind == "project":
            row.about = {"cwd": None if row.key == "(unknown folder)" else row.key}
        elif kind == "model":
            row.about = {"model": None if row.key == "(unknown model)" else row.key}
        elif kind == "app":
            row.about = {"app": row.key}
    if kind == "session":
        seen = Counter(row.key for row in ordered)
        for row in ordered:
            if seen[row.key] > 1:
                row.label = f"{min(row.apps)}:{row.key}"
    if kind in ("session", "project", "model", "app"):
        ordered.sort(
            key=lambda r: (-r.cost, -(r.input_tokens + r.output_tokens), r.key)
        )
        for row in ordered:
            if set(row.agents) == {"lead"}:
                row.agents = {}
            else:
                row.agents = dict(
                    sorted(row.agents.items(), key=lambda kv: (kv[0] != "lead", kv[0]))
                )
    else:
        ordered.sort(key=lambda r: r.key)
    return ordered


def describe_sessions(
    home: Home,
    rows: Sequence[Row],
    progress: Progress | None = None,
    fresh: Collection[str] = (),
) -> None:
    """Each session row's title and folder, from the index (brought up to date first:
    usage reads some apps' files without it; those of `fresh`, its caller's `collect`
    refreshed, are looked at no more)."""
    apps = sorted({app for row in rows for app in row.apps} - set(fresh))
    index = Index(home)
    try:
        # an app whose files are all as the index holds them is not even loaded
        unchanged = index.unchanged(apps) if apps else set()  # a stat of each file held
        changed = [app for app in apps if app not in unchanged]
        if changed:
            index.refresh(sources.all_sources(changed), progress)
        known = index.by_ids(
            (app, key)
            for row in rows
            for key in (row.key, *row.agents)
            if key != "lead"
            for app in row.apps
        )
        unlisted = _unlisted_agents(index, rows, known)
    finally:
        index.close()
    for row in rows:
        found = [known[(app, row.key)] for app in sorted(row.apps) if (app, row.key) in known]  # fmt: skip
        # its folder under the home as given (`Index.shown`)
        session = index.shown(found[0].session()) if found else None
        # `id` and `app` as `list --json` names them (the `key` stays: scripts use it)
        row.about = {
            "id": row.key,
            "app": min(row.apps, default=None),
            "title": session.title if session else None,
            "cwd": session.cwd if session else None,
        }
        for key, agent in row.agents.items():
            # named as `tree --json` names its agents: the lead by its session's id
            if key == "lead":
                agent.about = {
                    "id": row.key,
                    "app": row.about["app"],
                    "agent_type": "lead",
                    "title": row.about["title"],
                }
                continue
            app = min(agent.apps, default=None)
            stored = known.get((app, key)) if app is not None else None
            sub = stored.session() if stored is not None else None
            named = (
                unlisted.get((app or "", row.key), {}).get(key) if sub is None else None
            )
            kind, title = (
                (sub.agent_type, sub.title) if sub else (named or [None, None])
            )
            agent.about = {"id": key, "app": app, "agent_type": kind, "title": title}


def _unlisted_agents(
    index: Index, rows: Sequence[Row], known: Mapping[tuple[str, str], Any]
) -> dict[tuple[str, str], dict[str, list[str | None]]]:
    """(app, lead id) -> agent id -> [type, task] as `tree` names them, from the lead's
    spawns, for the rows with a sub-agent the index lists no row of (a Claude Code 1.0
    side chain, inline in its lead's file). Kept in the index by how the lead's own file
    looked when read (`agents:<app>`, `_lead_file`): a warm run reads no transcript
    again, and a lead the index lists no more is dropped from it."""
    wanted: dict[tuple[str, str], Any] = {}
    for row in rows:
        for key, agent in row.agents.items():
            app = min(agent.apps, default=None)
            if key == "lead" or app is None or (app, key) in known:
                continue
            if (lead := known.get((app, row.key))) is not None:
                wanted[app, row.key] = lead
    found: dict[tuple[str, str], dict[str, list[str | None]]] = {}
    meta: list[tuple[str, bytes]] = []
    apps = {app for app, _ in wanted}
    apps.update(name[len(_AGENTS) :] for name in index.usage_meta_names(_AGENTS))
    for app in sorted(apps):
        name = _AGENTS + app
        try:
            stored = index.usage_meta(name)
            kept = _decode(stored) if stored else {}
        except msgspec.DecodeError:
            kept = {}
        kept = kept if isinstance(kept, dict) else {}
        kept = {key: held for key, held in kept.items() if isinstance(key, str)}
        listed = index.listed(app, kept)
        changed = len(listed) != len(kept)
        kept = {lead_id: held for lead_id, held in kept.items() if lead_id in listed}
        # how each lead's own file looked to this run's refresh: nothing stat'ed again
        looks = index.listed_files(app, [i for a, i in wanted if a == app])
        for (lead_app, lead_id), lead in wanted.items():
            if lead_app != app:
                continue
            signature = _lead_file(looks.get(lead_id), lead.record)
            held = kept.get(lead_id)
            if isinstance(held, list) and held[:1] == [signature]:
                found[app, lead_id] = held[1]
                continue
            names = _tree_names(lead.session())
            found[app, lead_id] = names
            kept[lead_id], changed = [signature, names], True
        if changed:
            meta.append((name, _encode(kept)))
    if meta:
        index.save_usage([], [], meta)
    return found


_AGENTS = "agents:"  # + the app: the names `_unlisted_agents` read, by lead id


def _lead_file(look: str | None, record: bytes) -> str:
    """What a lead's names are kept by: how its own file looked to the refresh
    (`Index.listed_files`), so that they are read again when it changed and not when
    only its listing did (a title another transcript of its project gave it). A lead
    whose file the index holds no row of: its listing."""
    return look if look is not None else hashlib.sha256(record).hexdigest()[:32]


def _tree_names(session: Any) -> dict[str, list[str | None]]:
    """Each sub-agent of the session's tree by id: [its type, its task], as `tree` names
    it from the spawn that made it; the task on one line of a title's length at most, as
    a listed sub-agent's title is (a spawn's may run to pages)."""
    from .reading import read_session
    from .sources._values import one_line
    from .tree import build_tree

    events = read_session(sources.get(session.app), session, Diagnostics())
    root = build_tree(session.id, events, session.agent_type)
    return {
        node.id: [node.agent_type, one_line(node.description)]
        for _, node in root.walk()
        if node is not root and (node.agent_type or node.description)
    }


def total(rows: Sequence[Row]) -> Row:
    out = Row("total")
    for row in rows:
        for name in TOKENS:
            setattr(out, name, getattr(out, name) + getattr(row, name))
        out.cost += row.cost
        out.own_cost += row.own_cost
        out.responses += row.responses
        for app, credits in row.credits.items():
            out.credits[app] = out.credits.get(app, 0.0) + credits
        for (app, model), sums in row.tally.items():
            out._take(app, model, sums)
    return out


CUT_REPORTS = ("session", "project", "model", "app")  # rows in order of cost


def cut(rows: Sequence[Row], limit: int | None) -> list[Row]:
    """The first `limit` rows (a report's rows come costliest first, ties by tokens),
    then one row that sums the rest, `… 12 more`: the report's total stays the whole.
    No rest row where nothing is left out."""
    if limit is None or len(rows) <= limit:
        return list(rows)
    left = list(rows[limit:])
    rest = total(left)
    rest.key = f"… {len(left):,} more"
    rest.folded = left
    # the fields that name a row's key, as its neighbours have them: null, none to name
    rest.about = dict.fromkeys(rows[0].about)
    return [*rows[:limit], rest]


class Result:
    """One report: its rows and their total, and with `explained`, the audit of one row.

    The rows of a report made for `--explain` are put together only if asked for: the
    audit weighs only its own row's sums."""

    __slots__ = (
        "_cut",
        "_made",
        "_rows",
        "_total",
        "collected",
        "explained",
        "kind",
        "limit",
    )

    def __init__(
        self,
        kind: str,
        rows: list[Row] | Callable[[], list[Row]],
        collected: Collected,
        explained: audit.Explained | None = None,
        limit: int | None = None,
    ) -> None:
        self.kind = kind
        self.collected = collected
        self.explained = explained
        # `rows` are the `limit` costliest and one that sums the rest (`cut`)
        self.limit = limit
        self._made = rows if callable(rows) else None
        self._rows = None if callable(rows) else rows
        self._total: Row | None = None
        self._cut: list[Row] | None = None

    @property
    def rows(self) -> list[Row]:
        """The report's rows, cut to `limit` where it is given."""
        if self._cut is None:
            whole = self._whole()
            self._cut = whole if self.limit is None else cut(whole, self.limit)
        return self._cut

    def _whole(self) -> list[Row]:
        if self._rows is None:
            assert self._made is not None
            self._rows, self._made = self._made(), None
        return self._rows

    @property
    def total(self) -> Row:
        """The whole report's total, the rows `limit` left out included."""
        if self._total is None:
            self._total = total(self._whole())
        return self._total


def parse_day(
    value: str, tz: tzinfo, *, end: bool = False, now: datetime | None = None
) -> datetime:
    """A `--since`/`--until` value: 3d/12h/2w/1mo ago, or a day or a month (2026-11)
    (whole days in `tz`; `end`: the day's or month's end);
    `today` and `yesterday` are those days in `tz`, the report's days. Spans and days
    count back from `now` (the clock where not given)."""
    from .calls import parse_since  # api's own, without loading api
    from .selection import DAYS_BACK, month_end, month_start, zoned_day

    text = value.strip()
    if (month := month_start(text, tz)) is not None:  # 2026-11: the month's days in tz
        return month_end(month) if end else month
    try:
        back = DAYS_BACK.get(text.lower())
        if back is not None:
            day = (now or datetime.now(tz)).astimezone(tz).date() - timedelta(days=back)
        else:
            day = date.fromisoformat(text)
    except ValueError:
        zoned = zoned_day(text)  # a date with a zone: that day in its zone
        if zoned is None:
            # a month back is counted on the report's calendar, as its days are
            moment = parse_since(text, (now or datetime.now(tz)).astimezone(tz))
            return moment.replace(tzinfo=tz) if _no_offset(text) else moment
        day, tz = zoned.date(), zoned.tzinfo or tz
    start = datetime(day.year, day.month, day.day, tzinfo=tz)
    try:
        return start + timedelta(days=1) if end else start
    except OverflowError:  # the end of 9999-12-31: as late as a time goes
        return start.replace(hour=23, minute=59, second=59, microsecond=999999)


def _no_offset(text: str) -> bool:
    """A date and time that names no offset (`2026-11-30T10:07`, `2026-11-30 10:07:00.5`):
    the report's zone's, however the time is written."""
    try:
        return datetime.fromisoformat(text).tzinfo is None
    except ValueError:  # 3d, 12h: a span back from now
        return False


def run(
    home: Home,
    kind: str = "daily",
    *,
    apps: Sequence[str] = (),
    filters: Filters | None = None,
    explain_key: str | None = None,
    explain_limit: int | None = None,
    limit: int | None = None,
    progress: Progress | None = None,
) -> Result:
    """One report over the selected apps (and, with `explain_key`, the audit of one row,
    listing at most `explain_limit` responses and dropped lines)."""
    filters = filters or Filters()
    collected = collect(home, apps, progress)
    if kind == "project" or filters.here is not None:  # the only ones a folder keys
        in_session_folders(home, collected)
    # an odd time is counted into the diagnostics here, whether or not rows are made
    kept = keep(collected.buckets, filters, collected.diagnostics)

    def rows() -> list[Row]:
        made = report(kept, kind, filters.tz)
        if kind == "session":
            describe_sessions(home, made, progress, collected.refreshed)
        return made

    if explain_key is None:
        return Result(kind, rows(), collected, limit=limit)
    from . import audit

    limit = audit.LIMIT if explain_limit is None else explain_limit
    explained = audit.explain(
        home, collected, kind, explain_key, filters, apps, limit, progress, kept
    )
    return Result(kind, rows, collected, explained, limit)
